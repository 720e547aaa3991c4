//! Baseline MMR lock: args = root || mmr_size, witness lock = baseline payload
//! (docs/baseline-format.md). Exit codes: docs/error-codes.md.
#![no_std]
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
ckb_std::entry!(program_entry);
#[cfg(not(test))]
ckb_std::default_alloc!();

use baseline_proof::Hasher;

/// blake2b-256 "ckb-default-hash" of left || right, built the way the enabled journey steps say.
struct ContractHasher;

impl Hasher for ContractHasher {
    #[inline(always)]
    fn merge(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
        #[cfg(feature = "merge-kernel")]
        {
            mmr_blake2b::merge(left, right)
        }
        #[cfg(not(feature = "merge-kernel"))]
        {
            #[cfg(feature = "const-builder")]
            let mut hasher = mmr_blake2b::CKB_HASH_BUILDER.build();
            // black_box keeps the compiler from folding the run-time builder into a constant,
            // which is exactly the work this step measures.
            #[cfg(not(feature = "const-builder"))]
            let mut hasher = mmr_blake2b::Blake2bBuilder::new(core::hint::black_box(32))
                .personal(core::hint::black_box(&mmr_blake2b::CKB_PERSONALIZATION))
                .build();
            hasher.update(left);
            hasher.update(right);
            let mut out = [0u8; 32];
            #[cfg(feature = "finalize-ref")]
            hasher.finalize_from_ref(&mut out);
            #[cfg(not(feature = "finalize-ref"))]
            hasher.finalize(&mut out);
            out
        }
    }
}

fn run() -> Result<(), i8> {
    let args = mmr_lock::load::load_args().map_err(|e| e.code())?;
    let payload = mmr_lock::load::load_lock_field().map_err(|e| e.code())?;
    baseline_proof::verify::<ContractHasher>(payload, &args.root, args.mmr_size, args.leaf_count)
        .map_err(|e| e.code())
}

pub fn program_entry() -> i8 {
    match run() {
        Ok(()) => 0,
        Err(code) => code,
    }
}
