//! `ckb-devnet sync-bench`: the time `acc sync` takes per 1,000 appended leaves from a local
//! node (the scale benchmark's last part; `./build.sh scale` runs it). A fresh dev chain gets an
//! accumulator grown from a store in appends as large as the type script's witness allows,
//! then a new store is synced from the chain and timed. A measurement, not a test.

use crate::fresh_chain::{remove_old, run_on_fresh_chain};
use ckb_mmr_sdk::acc_store::{self, Leaves};
use ckb_mmr_sdk::accumulator;
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::deploy;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
use mmr_store::Store;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// Leaf `i` of the benchmark's MMR: distinct, cheap, reproducible.
fn leaf(i: u64) -> [u8; 32] {
    let mut l = [0x5a; 32];
    l[..8].copy_from_slice(&i.to_le_bytes());
    l
}

fn leaves(from: u64, to: u64) -> Vec<[u8; 32]> {
    (from..to).map(leaf).collect()
}

/// Runs the benchmark in `dir` (a fresh chain in `dir/chain`, stores beside it) with the type
/// script of `release`, growing the accumulator to `total` leaves.
pub fn run(dir: &Path, release: &Path, total: u64) -> Result<Value> {
    if total < 2 {
        return Err(Error::Usage(
            "sync-bench needs --leaves of at least 2".into(),
        ));
    }
    let binary = deploy::read_binary(&release.join("accumulator-type").display().to_string())?;
    remove_old(dir)?;
    run_on_fresh_chain(&dir.join("chain"), |chain, _| {
        run_on(chain, dir, &binary, total)
    })
}

/// What the benchmark prints: the sync's own report, and how the accumulator was grown.
#[derive(Serialize)]
struct Bench {
    #[serde(flatten)]
    sync: Value,
    leaves: u64,
    leaves_per_append: u64,
    grow_seconds: f64,
    grow_transactions: u64,
}

fn run_on(chain: &Chain, dir: &Path, binary: &[u8], total: u64) -> Result<Value> {
    let key = Key::from_hex(DEV_KEY).expect("dev key");
    let wallet = Wallet::new(chain, &key, DEFAULT_FEE_RATE);
    let code = deploy::deploy(&wallet, binary, false)?;

    // The admin's store; each transaction's leaves are appended to it first.
    let source_dir = dir.join("source.store");
    let mut source = Store::create(&source_dir, None)?;
    // As many leaves a transaction as the secp256k1 lock's witness limit allows.
    let first = total.min(accumulator::max_leaves_per_tx(0));
    source.append(&leaves(0, first))?;
    let draft = accumulator::create_draft(&code, key.lock(), &leaves(0, first))?;
    let built = accumulator::complete(&wallet, draft)?;
    accumulator::send(&wallet, &built, "creating the accumulator")?;
    let mut acc = accumulator::after(code.data_hash, &built)?;
    source.set_accumulator(acc.type_id)?;
    let grow_start = Instant::now();
    let mut transactions = 1;
    while source.leaf_count() < total {
        let from = source.leaf_count();
        let to = total.min(from + accumulator::max_leaves_per_tx(from));
        source.append(&leaves(from, to))?;
        let view = Leaves::Store(Store::open_read_only(&source_dir)?);
        let (new, payload) = view.growth(&acc, false, to)?;
        let draft = accumulator::update_draft(&acc, &code, &new, acc.lock(), &payload);
        let built = accumulator::complete(&wallet, draft)?;
        accumulator::send(&wallet, &built, &format!("appending leaves {from}..{to}"))?;
        acc = accumulator::after(code.data_hash, &built)?;
        transactions += 1;
    }
    let grow_seconds = grow_start.elapsed().as_secs_f64();

    // A new store synced from the chain alone, timed.
    let mut synced = Store::create(&dir.join("synced.store"), Some(acc.type_id))?;
    let report = acc_store::sync(chain, code.data_hash, acc.type_id, &mut synced)?;
    if report.state.root != acc.commitment.root || report.state.mmr_size != acc.commitment.mmr_size
    {
        return Err(Error::StoreDisagrees(format!(
            "the synced store ends at {} (mmr_size {}), the accumulator at {}",
            ckb_mmr_sdk::hex(&report.state.root),
            report.state.mmr_size,
            ckb_mmr_sdk::hex(&acc.commitment.root)
        )));
    }
    let bench = Bench {
        sync: report.to_json(&acc.type_id),
        leaves: total,
        leaves_per_append: accumulator::max_leaves_per_tx(0),
        grow_seconds,
        grow_transactions: transactions,
    };
    // Only maps with string keys and numbers, strings, booleans and nulls.
    Ok(serde_json::to_value(bench).expect("the benchmark is plain JSON"))
}
