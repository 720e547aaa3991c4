//! Compiled-proof MMR lock: args = root || mmr_size [|| flags], witness lock = compiled payload
//! (docs/compiled-format.md, the compact version 2); 41-byte args with flags 0x01 add the owner check
//! (docs/deploy.md). Exit codes: docs/error-codes.md. No heap allocator is linked.
#![no_std]
#![cfg_attr(not(test), no_main)]

mmr_lock::no_heap_entry!(program_entry);

use compiled_proof::KernelMerge;

// The payload format: the compact one (version 2) by default; the command stream (version 1)
// without the `compact` feature, for the journey's earlier steps.
#[cfg(not(feature = "compact"))]
use compiled_proof as format;
#[cfg(feature = "compact")]
use compiled_proof::compact as format;

/// The verifier's working memory: in .bss, or initialised on the call stack.
#[cfg(feature = "static-stack")]
fn stack() -> &'static mut format::Stack {
    static mut STACK: format::Stack = format::Stack::new();
    // SAFETY: CKB scripts are single-threaded and `stack` is called once per script, so this
    // is the only reference to STACK for the whole run.
    unsafe { &mut *core::ptr::addr_of_mut!(STACK) }
}

/// The proof (args, witness, payload), then in owner mode the owner check.
#[cfg(feature = "compact")]
fn run() -> Result<(), i8> {
    let args = mmr_lock::load::load_args().map_err(|e| e.code())?;
    let payload = mmr_lock::load::load_lock_field().map_err(|e| e.code())?;
    #[cfg(feature = "static-stack")]
    let stack = stack();
    #[cfg(not(feature = "static-stack"))]
    let stack = &mut format::Stack::new();
    let (root, leaf_count) = (&args.root, args.leaf_count);
    if args.mode == mmr_lock::Mode::Owner {
        // The proved leaves come back from the verification: no second parse.
        let leaves = format::verify_leaves::<KernelMerge>(stack, payload, root, leaf_count)
            .map_err(|e| e.code())?;
        return owner(|| leaves.values());
    }
    format::verify_with::<KernelMerge>(stack, payload, root, leaf_count).map_err(|e| e.code())
}

/// The proof (args, witness, payload), then in owner mode the owner check (version 1).
#[cfg(not(feature = "compact"))]
fn run() -> Result<(), i8> {
    let args = mmr_lock::load::load_args().map_err(|e| e.code())?;
    let payload = mmr_lock::load::load_lock_field().map_err(|e| e.code())?;
    let (root, leaf_count) = (&args.root, args.leaf_count);
    #[cfg(feature = "static-stack")]
    format::verify_with::<KernelMerge>(stack(), payload, root, leaf_count).map_err(|e| e.code())?;
    #[cfg(not(feature = "static-stack"))]
    format::verify::<KernelMerge>(payload, root, leaf_count).map_err(|e| e.code())?;
    if args.mode == mmr_lock::Mode::Owner {
        // The payload verified, so its leaves section parses; the error arm keeps panics out.
        let leaves = format::leaves(payload).map_err(|e| e.code())?;
        return owner(|| leaves.clone().map(|(_, value)| value));
    }
    Ok(())
}

/// Owner mode, after the proof verified: some other input's lock hash is a proved leaf.
#[inline(never)]
fn owner<'a, I: Iterator<Item = &'a [u8; 32]>>(leaves: impl Fn() -> I) -> Result<(), i8> {
    mmr_lock::load::check_owner(leaves).map_err(|e| e.code())
}

pub fn program_entry() -> i8 {
    match run() {
        Ok(()) => 0,
        Err(code) => code,
    }
}
