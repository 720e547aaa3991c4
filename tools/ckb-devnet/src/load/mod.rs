//! `ckb-devnet load`: the accumulator under load on a fresh dev chain. One admin appends one
//! leaf in every block while clients spend cells locked by reference to it, at random moments,
//! through the SDK's by-reference spend path (find the accumulator, prove against its root,
//! take it as a cell dep, rebuild when the node refuses or drops the spend). By default the
//! accumulator is a ring and the clients take its newest committed snapshot (`--dep ring`);
//! `--dep committed` and `--dep tip` measure a plain accumulator's clients for comparison.
//! Reported as JSON (docs/concurrency.md, "Under load").
//!
//! The miner is this process: it calls `generate_block` at a fixed pace, and before each
//! block it sends the next append and waits until the node's template proposes it, so the
//! pace does not depend on how busy the machine is. The proposal window (a transaction is
//! committed two blocks after the one that proposes it, at the earliest) means one append
//! committed per block needs three in flight: each append spends the accumulator cell of the
//! one before it while that one is still in the pool.

mod client;
mod griefer;
mod miner;
mod report;
mod setup;

pub use griefer::Griefed;
pub use report::{CostRow, LoadAverage, LoadReport, SpendRow};

use crate::fresh_chain::{remove_old, run_on_fresh_chain};
use crate::scenario::{Binaries, Verifier};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_types::packed;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Instant;

/// Which accumulator cell a client takes as its spend's dep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dep {
    /// The accumulator is a ring (docs/accumulator.md section 7): the ring's newest
    /// committed snapshot (`ckb_mmr_sdk::ring`), which the next K - 1 appends leave live.
    #[default]
    Ring,
    /// The committed cell, as the indexer shows it (the SDK's `accumulator::find`).
    Committed,
    /// The newest cell, pooled appends included (`ckb_mmr_sdk::pool_tip`), with a proof against
    /// its root.
    Tip,
}

impl Dep {
    pub fn name(self) -> &'static str {
        match self {
            Dep::Ring => "ring",
            Dep::Committed => "committed",
            Dep::Tip => "tip",
        }
    }
}

/// When in the block interval the admin sends each append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AppendAt {
    /// Right after the block before: the whole interval between it and the next block.
    #[default]
    Start,
    /// At a random moment within the interval (`--seed`), so spends meet appends sent at any
    /// time, not only right after a block.
    Random,
}

impl AppendAt {
    pub fn name(self) -> &'static str {
        match self {
            AppendAt::Start => "start",
            AppendAt::Random => "random",
        }
    }
}

/// How big a run is. The defaults are the sizes the load scenario is specified at.
#[derive(Debug, Clone)]
pub struct Options {
    /// Blocks that each commit one append.
    pub blocks: u64,
    /// By-reference spends, spread over the clients and over every verifier and mode.
    pub spends: usize,
    /// Client threads, each with its own keys and cells.
    pub clients: usize,
    /// The pause before each block, in which spends race the append.
    pub block_ms: u64,
    /// Seeds the spends' keys, their arrival moments and their order.
    pub seed: u64,
    /// The accumulator cell the clients take as their dep.
    pub dep: Dep,
    /// With `Dep::Ring`: the ring's K.
    pub ring_k: u8,
    /// When the admin sends each append.
    pub append_at: AppendAt,
    /// A griefing client: before each append it lists the cell that append will consume as
    /// a cell dep, then replaces itself by RBF once the append is pooled, evicting it.
    pub griefer: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            blocks: 200,
            spends: 50,
            clients: 4,
            block_ms: 1000,
            seed: 1,
            dep: Dep::Ring,
            ring_k: ckb_mmr_sdk::ring::DEFAULT_K,
            append_at: AppendAt::Start,
            griefer: false,
        }
    }
}

/// What the miner, the appender and the clients share while the load runs.
pub struct Shared {
    /// Every leaf the admin has sent, in order: ahead of the committed accumulator by the
    /// appends still in flight (a client proves against the first `leaf_count` of them).
    pub leaves: RwLock<Vec<[u8; 32]>>,
    /// Set when the run ends (done, or failed): every thread returns.
    pub stop: AtomicBool,
    /// Appends the admin has sent, and the cells the next one will consume (a ring's head and
    /// the snapshot due next; a plain accumulator's cell): what a griefer lists as its dep.
    pub appends_sent: AtomicU64,
    pub next_consumed: Mutex<Vec<packed::OutPoint>>,
    /// Spends committed, all clients together: the miner stops when all are.
    pub committed: AtomicUsize,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// The three verifiers and two modes every run covers.
pub const VERIFIERS: [Verifier; 3] = Verifier::ALL;

/// Output `i` of `tx` (with empty data) as a cell to spend, before the indexer shows it.
pub fn output_cell(tx: &packed::Transaction, i: usize) -> IndexedCell {
    IndexedCell {
        out_point: packed::OutPoint::new(tx.calc_tx_hash(), i as u32),
        output: tx.raw().outputs().get(i).expect("the output"),
        data: Some(Vec::new()),
    }
}

/// `/proc/loadavg`'s three averages (zeros where it cannot be read).
pub fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut out = [0.0; 3];
    for (slot, field) in out.iter_mut().zip(text.split_whitespace()) {
        *slot = field.parse().unwrap_or(0.0);
    }
    out
}

/// Runs the load in `dir` (its chain in `dir/chain`) with the binaries of `release`.
pub fn run(dir: &Path, release: &Path, o: &Options) -> Result<LoadReport> {
    if o.blocks < 3 || o.spends == 0 || o.clients == 0 || o.clients > o.spends {
        return Err(Error::Usage(
            "load needs --blocks of at least 3, --spends of at least 1 and 1 to --spends clients"
                .into(),
        ));
    }
    let binaries = Binaries::read(release)?;
    remove_old(dir)?;
    let load_start = load_average();
    let started = Instant::now();
    let mut report = run_on_fresh_chain(&dir.join("chain"), |chain, rpc_url| {
        run_on(chain, rpc_url, &binaries, o)
    })?;
    report.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    report.load_average = LoadAverage {
        start: load_start,
        end: load_average(),
    };
    Ok(report)
}

fn run_on(chain: &Chain, rpc_url: &str, binaries: &Binaries, o: &Options) -> Result<LoadReport> {
    let s = setup::prepare(chain, binaries, o)?;
    let dep = match o.dep {
        Dep::Ring => format!("the newest snapshot of a ring of K = {}", o.ring_k),
        d => format!("the {} accumulator cell", d.name()),
    };
    progress(&format!(
        "load: {} appends (sent at the {} of the interval), {} spends from {} clients taking \
         {dep}, a block every {} ms or more",
        o.blocks,
        o.append_at.name(),
        o.spends,
        o.clients,
        o.block_ms
    ));
    let shared = Shared {
        leaves: RwLock::new(s.leaves.clone()),
        stop: AtomicBool::new(false),
        appends_sent: AtomicU64::new(0),
        next_consumed: Mutex::new(Vec::new()),
        committed: AtomicUsize::new(0),
    };
    let start_tip = chain.rpc.tip_block_number()?;
    let (appended, clients) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..o.clients)
            .map(|c| {
                let plan: Vec<_> = s.plan.iter().filter(|p| p.client == c).cloned().collect();
                let ctx = client::Context {
                    rpc_url,
                    shared: &shared,
                    setup: &s,
                    start_tip,
                    dep: o.dep,
                };
                scope.spawn(move || {
                    let out = client::run(&ctx, plan);
                    if out.is_err() {
                        ctx.shared.stop.store(true, Ordering::SeqCst);
                    }
                    out
                })
            })
            .collect();
        let griefer = s.griefer.as_ref().map(|(key, cell)| {
            let shared = &shared;
            scope.spawn(move || {
                let out = griefer::run(rpc_url, shared, key, cell.clone(), o.blocks);
                if out.is_err() {
                    shared.stop.store(true, Ordering::SeqCst);
                }
                out
            })
        });
        let appended = miner::run(chain, &shared, &s, o);
        shared.stop.store(true, Ordering::SeqCst);
        let griefed = griefer.map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::Scenario("the griefer thread panicked".into())))
        });
        let appended = match (appended, griefed) {
            (Ok(mut a), Some(g)) => g.map(|g| {
                a.griefed = Some(g);
                a
            }),
            (a, _) => a,
        };
        let clients: Vec<Result<Vec<SpendRow>>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Scenario("a client thread panicked".into())))
            })
            .collect();
        (appended, clients)
    });
    let appended = appended?;
    let mut rows = Vec::new();
    for c in clients {
        rows.extend(c?);
    }
    rows.sort_by_key(|r| r.spend);
    report::check_roots(chain, &s, &appended.history, &mut rows)?;
    Ok(LoadReport::new(o, &appended, rows))
}
