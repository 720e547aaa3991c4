//! Prove leaves and build a lock's witness, no node needed:
//!
//! ```sh
//! cargo run -p ckb-mmr-sdk --example prove
//! ```
//!
//! An MMR over 100 leaves, a proof of three of them, the 40-byte lock args that commit to
//! the MMR, and the `WitnessArgs` the spending transaction carries at the cell's input.

use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::{by_reference_args, ckb_hash, hex, witness_args_with_lock};
use ckb_mmr_sdk::{Format, Mode, Workload};

/// What the example built, for the test that runs it.
pub struct Proved {
    pub workload: Workload,
    pub args: Vec<u8>,
    pub witness: Vec<u8>,
}

pub fn run() -> Result<Proved> {
    // Your leaves: any 32-byte values, here the hashes of 0..100.
    let leaves: Vec<[u8; 32]> = (0..100u32).map(|i| ckb_hash(&[&i.to_le_bytes()])).collect();
    // The MMR and the proof of leaves 3, 50 and 99 (an index beyond the leaves is an error).
    let w = Workload::from_leaves(&leaves, &[3, 50, 99])?;
    // Plain-mode lock args: root || mmr_size. A cell locked with them (and the verifier's
    // code hash) can be spent by whoever shows a proof of a leaf of this MMR.
    let args = w.lock_args_for(Mode::Plain);
    // The compiled payload is what the C and compiled Rust verifiers read.
    let payload = w.payload(Format::Compiled)?;
    let witness = witness_args_with_lock(&payload);
    println!("leaves: {}, mmr_size: {}", w.leaf_count, w.mmr_size);
    println!("root: {}", hex(&w.root));
    println!("lock args (plain): {}", hex(&args));
    println!("lock args (owner): {}", hex(&w.lock_args_for(Mode::Owner)));
    println!(
        "lock args (by reference to an accumulator with type hash 0xac..): {}",
        hex(&by_reference_args(&[0xac; 32], Mode::Plain))
    );
    println!("witness ({} bytes): {}", witness.len(), hex(&witness));
    // A proof for an index the MMR does not have is refused, not built.
    assert!(Workload::from_leaves(&leaves, &[100]).is_err());
    Ok(Proved {
        workload: w,
        args,
        witness,
    })
}

#[allow(dead_code)] // the test that runs this example calls `run` itself
fn main() -> std::process::ExitCode {
    match run() {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("prove: {e}");
            std::process::ExitCode::from(e.exit_code())
        }
    }
}
