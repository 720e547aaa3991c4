//! An accumulator on a fresh dev chain: create it, append leaves, lock a cell by reference
//! to it and spend that cell with a proof against the accumulator's current root.
//!
//! ```sh
//! ./build.sh build     # the verifiers and the accumulator type script, in build/release
//! cargo run -p ckb-mmr-sdk --example accumulator [RELEASE_DIR]
//! ```
//!
//! Needs `ckb` (0.210) on PATH or in `CKB_BIN`; RELEASE_DIR as in the `lock_and_spend`
//! example, whose dev-chain helper this one shares.

#[path = "lock_and_spend.rs"]
#[allow(dead_code)]
mod lock_and_spend;

use ckb_mmr_sdk::accumulator::{self, Update};
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::deploy;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{ckb_hash, hex, Format, Mode};
use std::path::Path;

/// The accumulator's leaf count and root after the append, and the spend's hash.
pub fn run(release: &Path) -> Result<(u64, [u8; 32], String)> {
    let read = |name: &str| deploy::read_binary(&release.join(name).display().to_string());
    let type_binary = read("accumulator-type")?;
    let verifier_binary = read("c-verifier")?;
    lock_and_spend::on_dev_chain("accumulator", |url| {
        let chain = Chain::connect(url, false)?;
        let key = Key::from_hex(DEV_KEY)?;
        let wallet = Wallet::new(&chain, &key, DEFAULT_FEE_RATE);
        chain.next_block()?;
        chain.wait_indexer()?;
        let acc_code = deploy::deploy(&wallet, &type_binary, false)?;
        let verifier = deploy::deploy(&wallet, &verifier_binary, false)?;
        let leaves: Vec<[u8; 32]> = (0..8u32).map(|i| ckb_hash(&[&i.to_le_bytes()])).collect();

        // 1. Create the accumulator over the first 5 leaves: a cell under a type id, its
        //    data the MMR's root and size, held by the key's lock.
        let draft = accumulator::create_draft(&acc_code, key.lock(), &leaves[..5])?;
        let built = accumulator::complete(&wallet, draft)?;
        accumulator::send(&wallet, &built, "creating the accumulator")?;
        let acc = accumulator::after(acc_code.data_hash, &built)?;
        println!(
            "created: {} leaves, type hash {}",
            acc.leaf_count,
            hex(&acc.type_hash())
        );

        // 2. Append leaves 5..8: the type script checks the new root from the old peaks.
        let (new, lock, payload) = Update::Append(&leaves).parts(&acc)?;
        let draft = accumulator::update_draft(&acc, &acc_code, &new, lock, &payload);
        let built = accumulator::complete(&wallet, draft)?;
        accumulator::send(&wallet, &built, "appending")?;
        let acc = accumulator::after(acc_code.data_hash, &built)?;
        println!(
            "appended: {} leaves, root {}",
            acc.leaf_count,
            hex(&acc.commitment.root)
        );

        // 3. Lock a cell by reference: its args name the accumulator's type hash, not a root,
        //    so it follows the accumulator as it grows.
        let lock = acc.reference_lock(&verifier.code, Mode::Plain);
        let (cells, _) = accumulator::lock_cells(&wallet, &[lock], DEFAULT_CELL_CAPACITY)?;

        // 4. Spend it with a proof of leaf 6 (appended in step 2) against the current root,
        //    the accumulator as a cell dep.
        let w = mmr_cell::prove(&leaves, &[6])?;
        let cell = cells[0].clone();
        let spend =
            Spend::new(cell, verifier, &w, Format::Compiled, Mode::Plain)?.with_dep(acc.cell_dep());
        let hash = chain.send_and_commit(&spend.build(&wallet)?.tx)?;
        let hash = hex(hash.as_bytes());
        println!("spent by reference in {hash}");
        Ok((acc.leaf_count, acc.commitment.root, hash))
    })
}

#[allow(dead_code)] // the test that runs this example calls `run` itself
fn main() -> std::process::ExitCode {
    match run(&lock_and_spend::release_dir()) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("accumulator: {e}");
            std::process::ExitCode::from(e.exit_code())
        }
    }
}
