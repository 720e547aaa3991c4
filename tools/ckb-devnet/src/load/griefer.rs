//! `--griefer`: what no design stops (docs/concurrency-design.md, "Griefing by deps"). After
//! each append is sent, the griefer sends a transaction of its own that lists, as a cell dep,
//! a cell the admin's next append will consume (in turn a ring's head and the snapshot due
//! next; a plain accumulator's cell). When that append arrives the pool makes it the
//! griefer's child; the griefer then replaces its transaction by RBF (the same input, a higher
//! fee), which removes the append with it. The admin resends (the miner watches its append's
//! status). It reads the cells to list from the admin's state, which any reader of the pool
//! finds as well.

use super::{output_cell, Shared};
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::rpc::{CallError, IndexedCell};
use ckb_mmr_sdk::wallet::{Built, Draft, Pay, Wallet, DEFAULT_FEE_RATE};
use ckb_types::{bytes::Bytes, core::DepType, packed, prelude::*};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The replacement's fee rate: it must pay for what it replaces (its first version and the
/// evicted append) plus the node's 1,500 shannons per KB of RBF.
const REPLACEMENT_RATE: u64 = 20 * DEFAULT_FEE_RATE;

/// What the griefer did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Griefed {
    /// Transactions listing a cell the next append consumes, accepted by the pool.
    pub sent: u64,
    /// Of those, replaced by RBF after the append arrived.
    pub replaced: u64,
    /// Refused (the append came first, or the replacement was refused).
    pub missed: u64,
}

fn build(
    chain: &Chain,
    key: &Key,
    cell: &IndexedCell,
    dep: &packed::OutPoint,
    rate: u64,
) -> Result<Built> {
    let draft = Draft {
        cell_deps: vec![packed::CellDep::new_builder()
            .out_point(dep.clone())
            .dep_type(DepType::Code)
            .build()],
        inputs: vec![(cell.out_point.clone(), cell.output.clone())],
        outputs: vec![(cell.output.clone(), Bytes::new())],
        ..Draft::default()
    };
    Wallet::new(chain, key, rate).complete(draft, Pay::FromOutput(0))
}

/// Waits until the admin has sent more than `n` appends (or the run stops): false if stopped.
fn wait_sent(shared: &Shared, n: u64) -> bool {
    while shared.appends_sent.load(Ordering::SeqCst) <= n {
        if shared.stop.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Griefs each append after the first until the last is sent: right after each block, before
/// the admin's next append (a race it may lose: then `missed`).
pub fn run(
    rpc_url: &str,
    shared: &Shared,
    key: &Key,
    cell: IndexedCell,
    appends: u64,
) -> Result<Griefed> {
    let chain = Chain::connect(rpc_url, false)?;
    let mut cell = cell;
    let mut g = Griefed::default();
    let mut round = 0usize;
    let mut last_tip = chain.rpc.tip_block_number()?;
    while !shared.stop.load(Ordering::SeqCst) {
        let tip = chain.rpc.tip_block_number()?;
        if tip == last_tip {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        last_tip = tip;
        let n = shared.appends_sent.load(Ordering::SeqCst);
        if n >= appends {
            break;
        }
        let targets = shared.next_consumed.lock().expect("targets lock").clone();
        if n == 0 || targets.is_empty() || shared.appends_sent.load(Ordering::SeqCst) != n {
            continue;
        }
        let target = &targets[round % targets.len()];
        round += 1;
        let input = cell.clone();
        let first = build(&chain, key, &input, target, DEFAULT_FEE_RATE)?;
        match chain.rpc.send_transaction(&first.tx) {
            Ok(_) => g.sent += 1,
            Err(CallError::Node(_)) => {
                g.missed += 1;
                continue;
            }
            Err(CallError::Other(e)) => return Err(e),
        }
        cell = output_cell(&first.tx, 0);
        // The next append arrives and becomes this transaction's child; then the replacement,
        // spending the same input.
        if !wait_sent(shared, n) {
            break;
        }
        std::thread::sleep(Duration::from_millis(30));
        let second = build(&chain, key, &input, target, REPLACEMENT_RATE)?;
        match chain.rpc.send_transaction(&second.tx) {
            Ok(_) => {
                g.replaced += 1;
                cell = output_cell(&second.tx, 0);
            }
            Err(CallError::Node(_)) => g.missed += 1,
            Err(CallError::Other(e)) => return Err(e),
        }
    }
    Ok(g)
}
