//! Compiled-proof MMR lock: args = root || mmr_size [|| flags], witness lock = compiled payload
//! (docs/compiled-format.md, the compact version 2); 41-byte args with flags 0x01 add the owner check
//! (docs/deploy.md). Exit codes: docs/error-codes.md. No heap allocator is linked.
#![no_std]
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
ckb_std::entry!(program_entry);

use compiled_proof::{FormatError, KernelMerge};

// ckb-std's entry links `alloc`, which needs a global allocator; nothing here allocates.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: mmr_lock::NoHeap = mmr_lock::NoHeap;

// The payload format: the compact one (version 2) by default; the command stream (version 1)
// without the `compact` feature, for the journey's earlier steps.
#[cfg(not(feature = "compact"))]
use compiled_proof as format;
#[cfg(feature = "compact")]
use compiled_proof::compact as format;

#[cfg(feature = "static-stack")]
fn verify(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> Result<(), FormatError> {
    static mut STACK: format::Stack = format::Stack::new();
    // SAFETY: CKB scripts are single-threaded and `verify` runs once per script, so this is
    // the only reference to STACK for the whole run.
    let stack = unsafe { &mut *core::ptr::addr_of_mut!(STACK) };
    format::verify_with::<KernelMerge>(stack, payload, root, leaf_count)
}

#[cfg(not(feature = "static-stack"))]
fn verify(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> Result<(), FormatError> {
    format::verify::<KernelMerge>(payload, root, leaf_count)
}

/// The proof (args, witness, payload), then in owner mode the owner check.
fn run() -> Result<(), i8> {
    let args = mmr_lock::load::load_args().map_err(|e| e.code())?;
    let payload = mmr_lock::load::load_lock_field().map_err(|e| e.code())?;
    verify(payload, &args.root, args.leaf_count).map_err(|e| e.code())?;
    if args.mode == mmr_lock::Mode::Owner {
        owner(payload, args.leaf_count)?;
    }
    Ok(())
}

/// Owner mode, after the proof verified: some other input's lock hash is a proved leaf.
#[inline(never)]
fn owner(payload: &[u8], leaf_count: u64) -> Result<(), i8> {
    // The payload verified, so its leaves section parses; the error arm only keeps panics out.
    #[cfg(feature = "compact")]
    let leaves = format::leaves(payload, leaf_count).map_err(|e| e.code())?;
    #[cfg(not(feature = "compact"))]
    let leaves = {
        let _ = leaf_count;
        format::leaves(payload).map_err(|e| e.code())?
    };
    mmr_lock::load::check_owner(|| leaves.clone().map(|(_, value)| value)).map_err(|e| e.code())
}

pub fn program_entry() -> i8 {
    match run() {
        Ok(()) => 0,
        Err(code) => code,
    }
}
