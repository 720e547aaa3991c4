//! One client: a thread with its own connection and its spends, each with its own key and
//! cells. A spend arrives at its planned moment and goes the SDK's by-reference way: find the
//! accumulator (the indexer's live cell), prove the leaf against its root, take it as a cell
//! dep, send. When the node refuses it because that cell is already consumed (-301, `Dead` or
//! `Unknown`), the spend is rebuilt once the chain has moved on a block; when an accepted spend
//! later ends `rejected`, it is rebuilt at once (docs/concurrency.md, "What a client does").
//!
//! With `--dep ring` (the default) the accumulator is a ring and the client takes its newest
//! committed snapshot (`ckb_mmr_sdk::ring`): the K - 1 appends after the one that wrote it
//! leave it live, so a spend sent within that window commits; one refused anyway (its snapshot
//! consumed) prints the spender's line and is rebuilt once the chain has moved on a block.
//!
//! With `--dep tip` the client takes the newest accumulator cell instead, pooled appends
//! included (`ckb_mmr_sdk::pool_tip`), and proves against its root; a refusal then means an
//! append came between the lookup and the send, so the spend is rebuilt after `TIP_RETRY`
//! without waiting for a block.

use super::miner::{rejection_reason, status};
use super::setup::{Planned, Setup};
use super::{Dep, Shared, SpendRow};
use crate::scenario::mode_name;
use ckb_mmr_sdk::acc_store::Leaves;
use ckb_mmr_sdk::accumulator::{self, Accumulator};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::pool_tip::PoolFollower;
use ckb_mmr_sdk::ring;
use ckb_mmr_sdk::rpc::{CallError, POOL_DUPLICATED};
use ckb_mmr_sdk::wallet::{Built, Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{hex, weight, Mode};
use ckb_types::{prelude::*, H256};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// With `--dep tip`, how long a refused spend waits before it looks for the tip again: the
/// append that beat it is in the pool already, so the new tip is there to be found.
const TIP_RETRY: Duration = Duration::from_millis(100);

pub struct Context<'a> {
    pub rpc_url: &'a str,
    pub shared: &'a Shared,
    pub setup: &'a Setup,
    /// The tip when the load began: arrivals count blocks from it.
    pub start_tip: u64,
    pub dep: Dep,
}

/// Where a spend stands.
enum State {
    /// Not yet arrived.
    Waiting,
    /// Refused at submission in the block `tip`, `at` then: rebuilt once the tip moves (or,
    /// following the pool's tip, after `TIP_RETRY`).
    Refused {
        tip: u64,
        at: Instant,
    },
    /// Accepted by the pool, not yet committed.
    Sent {
        hash: H256,
        built: Box<Built>,
        acc: Box<Accumulator>,
        /// Its dep was the output of a pooled transaction when it was built.
        pooled_dep: bool,
    },
    Done,
}

/// One spend's run: its plan, its state and its counts so far.
struct Run {
    plan: Planned,
    key: Key,
    state: State,
    row: SpendRow,
}

pub fn run(ctx: &Context, plan: Vec<Planned>) -> Result<Vec<SpendRow>> {
    let chain = Chain::connect(ctx.rpc_url, false)?;
    let s = ctx.setup;
    let mut follower = PoolFollower::new(s.acc_code.data_hash, s.acc.type_id);
    let mut runs: Vec<Run> = plan
        .into_iter()
        .map(|p| {
            Ok(Run {
                key: Key::from_hex(&p.key)?,
                row: SpendRow::planned(&p),
                plan: p,
                state: State::Waiting,
            })
        })
        .collect::<Result<_>>()?;
    let mut last_tip = u64::MAX;
    let mut tip_seen = Instant::now();
    while !ctx.shared.stopped() {
        let tip = chain.rpc.tip_block_number()?;
        let new_tip = tip != last_tip;
        if new_tip {
            last_tip = tip;
            tip_seen = Instant::now();
        }
        for r in runs.iter_mut() {
            step(ctx, &chain, &mut follower, r, tip, new_tip, tip_seen)?;
        }
        if runs.iter().all(|r| matches!(r.state, State::Done)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(runs.into_iter().map(|r| r.row).collect())
}

fn step(
    ctx: &Context,
    chain: &Chain,
    follower: &mut PoolFollower,
    r: &mut Run,
    tip: u64,
    new_tip: bool,
    tip_seen: Instant,
) -> Result<()> {
    match &r.state {
        State::Waiting => {
            let at = ctx.start_tip + r.plan.arrival_block;
            let late =
                tip > at || (tip == at && tip_seen.elapsed().as_millis() as u64 >= r.plan.delay_ms);
            if late {
                r.row.arrived_at_block = Some(tip);
                submit(ctx, chain, follower, r, tip)?;
            }
        }
        State::Refused { tip: t, at }
            if tip > *t || (ctx.dep == Dep::Tip && at.elapsed() >= TIP_RETRY) =>
        {
            submit(ctx, chain, follower, r, tip)?
        }
        State::Sent { hash, .. } if new_tip => {
            let hash = hash.clone();
            let (status, block, v) = status(chain, &hash)?;
            match status.as_str() {
                "committed" => committed(ctx, r, block, v)?,
                "rejected" => {
                    r.row.dropped += 1;
                    let reason = rejection_reason(&v).to_string();
                    progress(&format!(
                        "load: spend {} was dropped ({reason}): rebuilding",
                        r.plan.spend
                    ));
                    submit(ctx, chain, follower, r, tip)?;
                }
                _ => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// Builds the spend against the accumulator the indexer shows now (or, following the pool,
/// the newest) and sends it.
fn submit(
    ctx: &Context,
    chain: &Chain,
    follower: &mut PoolFollower,
    r: &mut Run,
    tip: u64,
) -> Result<()> {
    let s = ctx.setup;
    // The admin's leaves stand for the client's own store of the MMR: they run ahead of the
    // chain, so they hold every committed leaf. Following the pool, only the committed cell's
    // leaves are taken from them; the pooled appends' leaves come from their witnesses.
    let admin_leaves = ctx.shared.leaves.read().expect("leaves lock").clone();
    let (acc, leaves, pooled_dep) = match ctx.dep {
        Dep::Committed => {
            chain.wait_indexer()?;
            let acc = accumulator::find(chain, s.acc_code.data_hash, s.acc.type_id)?;
            (acc, admin_leaves, false)
        }
        Dep::Tip => {
            let t = follower.find(chain)?;
            let leaves = t.leaves(&admin_leaves)?;
            (t.tip, leaves, !t.pooled.is_empty())
        }
        Dep::Ring => {
            // The spender of docs/concurrency-design.md: the committed snapshot with the
            // largest mmr_size, proved against its own root and size.
            chain.wait_indexer()?;
            let k = s.ring.as_ref().map_or(ring::DEFAULT_K, |r| r.k);
            let r = ring::find(chain, s.acc_code.data_hash, s.acc.type_id, k)?;
            (r.newest().clone(), admin_leaves, false)
        }
    };
    let source = Leaves::File {
        path: "the client's leaves".into(),
        leaves,
    };
    let w = source.prove(&acc, &[r.plan.leaf])?;
    let wallet = Wallet::new(chain, &r.key, DEFAULT_FEE_RATE);
    if r.plan.mode == Mode::Owner {
        mmr_cell::check_owner(&wallet, &w)?;
    }
    let deployment = s.deployment(r.plan.verifier).clone();
    let built = Spend::new(
        r.plan.cell.clone(),
        deployment,
        &w,
        r.plan.verifier.format(),
        r.plan.mode,
    )?
    .with_dep(acc.cell_dep())
    .build(&wallet)?;
    if r.row.submissions == 0 {
        r.row.first_sent_block = Some(tip);
    }
    r.row.submissions += 1;
    match chain.rpc.send_transaction(&built.tx) {
        Ok(hash) => r.state = sent(hash, built, acc, pooled_dep),
        Err(CallError::Node(e)) if e.code == POOL_DUPLICATED => {
            let hash = built.tx.calc_tx_hash().unpack();
            r.state = sent(hash, built, acc, pooled_dep);
        }
        Err(CallError::Node(e)) if accumulator::is_dead_cell(&e) => {
            if let Some(k) = acc.ring_k {
                if ring::names_consumed(&e.message, &acc.cell.out_point) {
                    progress(&format!(
                        "load: spend {}: {}",
                        r.plan.spend,
                        ring::consumed_line(&acc.cell.out_point, k)
                    ));
                }
            }
            if e.message.contains("Dead(") {
                r.row.refused_dead += 1;
            } else {
                r.row.refused_unknown += 1;
            }
            r.state = State::Refused {
                tip,
                at: Instant::now(),
            };
        }
        Err(CallError::Node(e)) => {
            return Err(Error::Scenario(format!(
                "load: spend {} ({} {}) refused: {} (code {})",
                r.plan.spend,
                r.plan.verifier.name(),
                mode_name(r.plan.mode),
                e.message,
                e.code
            )))
        }
        Err(CallError::Other(e)) => return Err(e),
    }
    Ok(())
}

fn sent(hash: H256, built: Built, acc: Accumulator, pooled_dep: bool) -> State {
    State::Sent {
        hash,
        built: Box::new(built),
        acc: Box::new(acc),
        pooled_dep,
    }
}

/// Records a committed spend: its block, the node's cycles, its bytes and weight, and the
/// accumulator it proved against.
fn committed(ctx: &Context, r: &mut Run, block: Option<u64>, v: serde_json::Value) -> Result<()> {
    let State::Sent {
        hash,
        built,
        acc,
        pooled_dep,
    } = std::mem::replace(&mut r.state, State::Done)
    else {
        unreachable!("only a sent spend commits");
    };
    let cycles = v
        .get("cycles")
        .and_then(|c| c.as_str())
        .and_then(|c| u64::from_str_radix(c.trim_start_matches("0x"), 16).ok())
        .ok_or_else(|| Error::Scenario(format!("no cycles for the committed spend {hash:#x}")))?;
    let row = &mut r.row;
    row.committed_block = block;
    row.blocks_to_commit = block
        .zip(row.first_sent_block)
        .map(|(b, first)| b.saturating_sub(first));
    row.rebuilds = row.submissions.saturating_sub(1);
    row.first_try = row.submissions == 1;
    row.tx_hash = Some(format!("{hash:#x}"));
    row.cycles = Some(cycles);
    row.tx_bytes = Some(built.size());
    row.weight = Some(weight::weight(built.size(), cycles));
    row.fee_shannons = Some(built.fee);
    row.root = Some(hex(&acc.commitment.root));
    row.mmr_size = Some(acc.commitment.mmr_size);
    row.accumulator = Some(ckb_mmr_sdk::out_point_text(&acc.cell.out_point));
    row.pooled_dep = Some(pooled_dep);
    ctx.shared.committed.fetch_add(1, Ordering::SeqCst);
    Ok(())
}
