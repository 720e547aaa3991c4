//! The admin and the miner, one thread: before each block, the next append (chained on the
//! accumulator cell of the one before, still in the pool), a wait until the node's template
//! proposes it and commits the one now due, the pause in which spends race it, then the block.
//! After the last append, blocks at the same pace until every spend has committed (or a limit).

use super::setup::Setup;
use super::{output_cell, AppendAt, Options, Shared};
use ckb_mmr_sdk::accumulator::{self, Accumulator, Update};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::hex;
use ckb_mmr_sdk::ring::{self, Ring};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{Built, Pay, Wallet, DEFAULT_FEE_RATE};
use ckb_types::{bytes::Bytes, packed, prelude::*, H256};
use mmr_accumulator::Commitment;
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long the node's template may take to show an append: far beyond what it takes on a busy
/// machine, so only a node that never proposes it fails the run.
const TEMPLATE_TIMEOUT: Duration = Duration::from_secs(120);

/// What the admin did.
pub struct Appended {
    /// Every commitment the accumulator held, from its creation on.
    pub history: Vec<Commitment>,
    /// The block each append was committed in, in append order (`None`: never committed).
    pub committed_in: Vec<Option<u64>>,
    /// The tip when the load began, and when it ended.
    pub start_tip: u64,
    pub end_tip: u64,
    /// Appends sent again after an RBF replacement of a pooled parent evicted them.
    pub resent: u64,
    /// With `--griefer`: what it did.
    pub griefed: Option<super::griefer::Griefed>,
}

/// An append in flight.
struct InFlight {
    hash: H256,
    short_id: String,
    /// Sent again when a griefer's replacement evicted it (RBFRejected).
    tx: packed::Transaction,
}

/// The leaf the admin appends `i`-th: distinct from the spends' lock hashes.
fn leaf(i: u64) -> [u8; 32] {
    ckb_mmr_sdk::ckb_hash(&[b"ckb-devnet load append", &i.to_le_bytes()])
}

/// The status of a transaction and the block that committed it, from the node.
pub fn status(chain: &Chain, hash: &H256) -> Result<(String, Option<u64>, Value)> {
    let v = chain.rpc.call("get_transaction", json!([hash]))?;
    let status = v
        .pointer("/tx_status/status")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let block = v
        .pointer("/tx_status/block_number")
        .and_then(Value::as_str)
        .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok());
    Ok((status, block, v))
}

/// Why the node rejected a transaction, from its `get_transaction` answer `v`.
pub fn rejection_reason(v: &Value) -> &str {
    v.pointer("/tx_status/reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

pub fn run(chain: &Chain, shared: &Shared, s: &Setup, o: &Options) -> Result<Appended> {
    let out = mine(chain, shared, s, o);
    // Whatever happened, the clients stop.
    shared.stop.store(true, Ordering::SeqCst);
    out
}

fn mine(chain: &Chain, shared: &Shared, s: &Setup, o: &Options) -> Result<Appended> {
    let wallet = Wallet::new(chain, &s.admin, DEFAULT_FEE_RATE);
    let code_hash = s.acc_code.data_hash;
    let start_tip = chain.rpc.tip_block_number()?;
    let mut acc = s.acc.clone();
    let mut ring = s.ring.clone();
    let mut fee_cell = s.fee_cell.clone();
    let mut rng = StdRng::seed_from_u64(o.seed ^ 0x6170_7065_6e64);
    let mut history = vec![acc.commitment];
    let mut flights: Vec<InFlight> = Vec::new();
    let mut committed_in: Vec<Option<u64>> = Vec::new();
    let mut resent = 0;
    let pause = Duration::from_millis(o.block_ms);
    for i in 0..o.blocks {
        if shared.stopped() {
            return Err(Error::Scenario("a client failed; the load stopped".into()));
        }
        // Sent right after the block before, or at a random moment of the interval.
        let offset = match o.append_at {
            AppendAt::Start => Duration::ZERO,
            AppendAt::Random => Duration::from_millis(rng.gen_range(0..o.block_ms.max(1))),
        };
        std::thread::sleep(offset);
        let leaves = {
            let mut all = shared.leaves.write().expect("leaves lock");
            all.push(leaf(i));
            all.clone()
        };
        let built = append(&wallet, s, &acc, ring.as_ref(), &fee_cell, &leaves)?;
        chain.send(&built.tx)?;
        match &mut ring {
            Some(r) => {
                *r = r.after(&built.tx)?;
                acc = r.head.clone();
            }
            None => acc = accumulator::after(code_hash, &built)?,
        }
        // What the next append will consume, for a griefer to list (a pool reader's view).
        *shared.next_consumed.lock().expect("targets lock") = match &ring {
            Some(r) => vec![
                r.head.cell.out_point.clone(),
                r.oldest()?.cell.out_point.clone(),
            ],
            None => vec![acc.cell.out_point.clone()],
        };
        shared.appends_sent.fetch_add(1, Ordering::SeqCst);
        history.push(acc.commitment);
        let fee_at = built.tx.raw().outputs().len() - 1;
        fee_cell = output_cell(&built.tx, fee_at);
        flights.push(InFlight {
            hash: built.tx.calc_tx_hash().unpack(),
            short_id: hex(built.tx.clone().into_view().proposal_short_id().as_slice()),
            tx: built.tx.clone(),
        });
        committed_in.push(None);
        // The append sent two blocks ago was proposed by the block before last: due now.
        let due = (i >= 2).then(|| &flights[i as usize - 2].hash);
        wait_template(chain, &flights[i as usize], due, o.griefer, &mut resent)?;
        std::thread::sleep(pause.saturating_sub(offset));
        mine_one(chain)?;
        track(chain, &flights, &mut committed_in, &mut resent)?;
    }
    // Drain: the last appends commit, then the spends that waited for them. A spend needs three
    // blocks once accepted; the limit leaves room for every rebuild that may still come.
    let limit = 3 * o.blocks + 30;
    let mut drain = 0;
    loop {
        let appends_done = committed_in.iter().all(Option::is_some);
        if appends_done && shared.committed.load(Ordering::SeqCst) == s.plan.len() {
            break;
        }
        if shared.stopped() {
            return Err(Error::Scenario("a client failed; the load stopped".into()));
        }
        if drain >= limit {
            progress(&format!(
                "load: {drain} blocks after the last append and still not every spend committed"
            ));
            break;
        }
        std::thread::sleep(pause);
        mine_one(chain)?;
        drain += 1;
        track(chain, &flights, &mut committed_in, &mut resent)?;
    }
    Ok(Appended {
        history,
        committed_in,
        start_tip,
        end_tip: chain.rpc.tip_block_number()?,
        resent,
        griefed: None,
    })
}

/// Append one leaf, spending the accumulator cell `acc` (perhaps still an output of a pooled
/// append; with a ring, its head and oldest snapshot) and the admin's fee cell (likewise), which
/// pays the fee and comes back as the last output. No input comes from the indexer, which sees
/// none until it is committed.
fn append(
    wallet: &Wallet,
    s: &Setup,
    acc: &Accumulator,
    ring: Option<&Ring>,
    fee_cell: &IndexedCell,
    leaves: &[[u8; 32]],
) -> Result<Built> {
    let (new, lock, payload) = Update::Append(leaves).parts(acc)?;
    let mut draft = match ring {
        Some(r) => ring::step_draft(r, &s.acc_code, &new, &payload)?,
        None => accumulator::update_draft(acc, &s.acc_code, &new, lock, &payload),
    };
    draft
        .inputs
        .push((fee_cell.out_point.clone(), fee_cell.output.clone()));
    draft.outputs.push((fee_cell.output.clone(), Bytes::new()));
    let fee_at = draft.outputs.len() - 1;
    wallet.complete(draft, Pay::FromOutput(fee_at))
}

/// `generate_block`, refused by no dev chain: its error is the run's.
fn mine_one(chain: &Chain) -> Result<()> {
    chain.next_block()
}

/// Sends `f` again if an RBF replacement of a pooled parent evicted it (what a griefer does):
/// true if it did.
fn resend_if_replaced(chain: &Chain, f: &InFlight, v: &Value) -> Result<bool> {
    let reason = rejection_reason(v);
    if !reason.contains("RBFReject") {
        return Ok(false);
    }
    progress(&format!(
        "load: the append {:#x} was evicted ({reason}): sending it again",
        f.hash
    ));
    chain.send(&f.tx)?;
    Ok(true)
}

/// Records the block of each append the node now reports committed; an append evicted by an
/// RBF replacement is sent again; any other rejection ends the run.
fn track(
    chain: &Chain,
    flights: &[InFlight],
    committed_in: &mut [Option<u64>],
    resent: &mut u64,
) -> Result<()> {
    for (f, slot) in flights.iter().zip(committed_in.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        let (status, block, v) = status(chain, &f.hash)?;
        match status.as_str() {
            "committed" => *slot = block,
            "rejected" if resend_if_replaced(chain, f, &v)? => *resent += 1,
            "rejected" => {
                return Err(Error::Scenario(format!(
                    "the append {:#x} was rejected: {}",
                    f.hash,
                    rejection_reason(&v)
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Waits until the node's next block template proposes `f` and commits `due`; with a
/// griefer about, sends `f` again whenever a replacement evicted it meanwhile.
fn wait_template(
    chain: &Chain,
    f: &InFlight,
    due: Option<&H256>,
    griefer: bool,
    resent: &mut u64,
) -> Result<()> {
    let short_id = f.short_id.as_str();
    let start = Instant::now();
    let due = due.map(|h| format!("{h:#x}"));
    loop {
        if griefer {
            let (status, _, v) = status(chain, &f.hash)?;
            if status == "rejected" && resend_if_replaced(chain, f, &v)? {
                *resent += 1;
            }
        }
        let t = chain
            .rpc
            .call("get_block_template", json!([null, null, null]))?;
        let proposed = t["proposals"]
            .as_array()
            .is_some_and(|p| p.iter().any(|id| id.as_str() == Some(short_id)));
        // A griefer's eviction can leave the due append pending again: then it is enough that
        // the new one is proposed, and the report shows the blocks it cost.
        let commits = griefer
            || due.as_ref().is_none_or(|h| {
                t["transactions"]
                    .as_array()
                    .is_some_and(|txs| txs.iter().any(|tx| tx["hash"].as_str() == Some(h)))
            });
        if proposed && commits {
            return Ok(());
        }
        if start.elapsed() > TEMPLATE_TIMEOUT {
            return Err(Error::Timeout(format!(
                "the node's block template did not propose the append {short_id} \
                 (proposed: {proposed}) or commit the one due (committed: {commits})"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
