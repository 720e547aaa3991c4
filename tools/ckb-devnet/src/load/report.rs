//! The load's JSON report, its checks, and the table docs/concurrency.md shows from it.

use super::miner::Appended;
use super::setup::{Planned, Setup};
use super::{AppendAt, Dep, Griefed, Options, VERIFIERS};
use crate::scenario::mode_name;
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::hex;
use ckb_types::{packed, prelude::*, H256};
use doc_blocks::thousands;
use mmr_accumulator::Commitment;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The docs block the table goes in, for clients that take the committed accumulator cell.
pub const DOC_BLOCK: &str = "load-table";
/// The docs block of a run whose clients take the newest cell, pooled appends included.
pub const TIP_DOC_BLOCK: &str = "load-tip-table";
/// The docs block of a run on a ring, clients taking its newest committed snapshot.
pub const RING_DOC_BLOCK: &str = "load-ring-table";

/// A report written before the appender could send at random moments sent at the start.
fn start() -> String {
    AppendAt::Start.name().into()
}

/// A report written before clients could follow the pool took the committed cell.
fn committed() -> String {
    Dep::Committed.name().into()
}

/// One spend: who sent it, when, how often, what it cost, what it proved against.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SpendRow {
    pub spend: usize,
    pub client: usize,
    pub verifier: String,
    pub mode: String,
    /// The tip when it arrived, when it was first sent, and the block that committed it.
    pub arrived_at_block: Option<u64>,
    pub first_sent_block: Option<u64>,
    pub committed_block: Option<u64>,
    pub blocks_to_commit: Option<u64>,
    pub submissions: u64,
    pub rebuilds: u64,
    pub first_try: bool,
    /// Refusals at submission (-301): the dep consumed in the pool, or gone from the chain.
    pub refused_dead: u64,
    pub refused_unknown: u64,
    /// Accepted, then `rejected` by the node.
    pub dropped: u64,
    pub tx_hash: Option<String>,
    pub cycles: Option<u64>,
    pub tx_bytes: Option<usize>,
    pub weight: Option<u64>,
    pub fee_shannons: Option<u64>,
    /// The commitment its proof was built against, and the accumulator cell it took as dep.
    pub root: Option<String>,
    pub mmr_size: Option<u64>,
    pub accumulator: Option<String>,
    /// The committed transaction's accumulator dep holds a commitment the accumulator had,
    /// and the one the proof was built against.
    pub root_known: Option<bool>,
    /// The committed spend's dep was the output of a pooled transaction when it was built.
    #[serde(default)]
    pub pooled_dep: Option<bool>,
}

impl SpendRow {
    pub fn planned(p: &Planned) -> SpendRow {
        SpendRow {
            spend: p.spend,
            client: p.client,
            verifier: p.verifier.name().into(),
            mode: mode_name(p.mode).into(),
            ..SpendRow::default()
        }
    }
}

/// Cycles, bytes and weight of one verifier and mode's committed spends (min and max).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CostRow {
    pub verifier: String,
    pub mode: String,
    pub committed: usize,
    pub cycles: [u64; 2],
    pub tx_bytes: [usize; 2],
    pub weight: [u64; 2],
}

/// `/proc/loadavg` (1, 5, 15 minutes) when the run began and ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LoadAverage {
    pub start: [f64; 3],
    pub end: [f64; 3],
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadReport {
    /// Consecutive blocks, each committing exactly one append (0 if they were not).
    pub blocks: u64,
    pub appends: u64,
    pub spends_submitted: usize,
    pub committed: usize,
    pub first_try: usize,
    pub rebuilds: u64,
    /// Blocks from a spend's first submission to its commit, nearest rank.
    pub p50_blocks: Option<u64>,
    pub p99_blocks: Option<u64>,
    pub accepted_against_unknown_root: usize,
    pub clients: usize,
    pub verifiers: Vec<String>,
    pub modes: Vec<String>,
    /// The accumulator cell the clients took as dep: `committed` (the indexer's) or `tip` (the
    /// newest, pooled appends included).
    #[serde(default = "committed")]
    pub dep: String,
    /// With `dep` ring: the ring's K (its snapshots survive K - 1 appends).
    #[serde(default)]
    pub ring_k: Option<u8>,
    /// When the admin sent each append: `start` of the block interval or a `random` moment.
    #[serde(default = "start")]
    pub append_at: String,
    /// With `--griefer`: what it did (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub griefer: Option<Griefed>,
    /// Appends the admin sent again after a replacement evicted them.
    #[serde(default)]
    pub appends_resent: u64,
    /// Committed spends whose dep was the output of a pooled transaction when built.
    #[serde(default)]
    pub pooled_deps: usize,
    /// Spends committed in or before the block of the last append.
    pub committed_while_appending: usize,
    pub refused_at_submission: u64,
    pub dropped_after_acceptance: u64,
    /// The first and last block that committed an append.
    pub first_append_block: Option<u64>,
    pub last_append_block: Option<u64>,
    /// Blocks from the last append's to the last spend's.
    pub drain_blocks: u64,
    pub blocks_mined: u64,
    pub block_ms: u64,
    pub seed: u64,
    pub seconds: f64,
    pub load_average: LoadAverage,
    pub costs: Vec<CostRow>,
    pub spends: Vec<SpendRow>,
}

/// The nearest-rank `p`-th percentile of `v` (sorted here).
pub fn percentile(v: &[u64], p: u64) -> Option<u64> {
    let mut v = v.to_vec();
    v.sort_unstable();
    let rank = (p * v.len() as u64).div_ceil(100).max(1);
    v.get(rank as usize - 1).copied()
}

/// The number of consecutive blocks that each committed exactly one append, when every append
/// committed in its own block one after the other; 0 otherwise.
fn append_blocks(committed_in: &[Option<u64>]) -> u64 {
    let Some(blocks) = committed_in.iter().copied().collect::<Option<Vec<u64>>>() else {
        return 0;
    };
    let consecutive = blocks.windows(2).all(|w| w[1] == w[0] + 1);
    if consecutive {
        blocks.len() as u64
    } else {
        0
    }
}

impl LoadReport {
    pub fn new(o: &Options, a: &Appended, spends: Vec<SpendRow>) -> LoadReport {
        let done: Vec<&SpendRow> = spends.iter().filter(|r| r.tx_hash.is_some()).collect();
        let latencies: Vec<u64> = done.iter().filter_map(|r| r.blocks_to_commit).collect();
        let last_append_block = a.committed_in.iter().flatten().max().copied();
        let mut costs = Vec::new();
        for v in VERIFIERS {
            for mode in ["plain", "owner"] {
                let rows: Vec<&&SpendRow> = done
                    .iter()
                    .filter(|r| r.verifier == v.name() && r.mode == mode)
                    .collect();
                let range = |f: &dyn Fn(&SpendRow) -> u64| -> [u64; 2] {
                    let vals = rows.iter().map(|r| f(r));
                    [vals.clone().min().unwrap_or(0), vals.max().unwrap_or(0)]
                };
                let bytes = range(&|r| r.tx_bytes.unwrap_or(0) as u64);
                costs.push(CostRow {
                    verifier: v.name().into(),
                    mode: mode.into(),
                    committed: rows.len(),
                    cycles: range(&|r| r.cycles.unwrap_or(0)),
                    tx_bytes: [bytes[0] as usize, bytes[1] as usize],
                    weight: range(&|r| r.weight.unwrap_or(0)),
                });
            }
        }
        LoadReport {
            blocks: append_blocks(&a.committed_in),
            appends: a.committed_in.iter().flatten().count() as u64,
            spends_submitted: spends.iter().filter(|r| r.submissions > 0).count(),
            committed: done.len(),
            first_try: done.iter().filter(|r| r.first_try).count(),
            rebuilds: spends.iter().map(|r| r.submissions.saturating_sub(1)).sum(),
            p50_blocks: percentile(&latencies, 50),
            p99_blocks: percentile(&latencies, 99),
            accepted_against_unknown_root: done
                .iter()
                .filter(|r| r.root_known != Some(true))
                .count(),
            clients: o.clients,
            verifiers: VERIFIERS.iter().map(|v| v.name().to_string()).collect(),
            modes: vec!["plain".into(), "owner".into()],
            dep: o.dep.name().into(),
            ring_k: (o.dep == Dep::Ring).then_some(o.ring_k),
            append_at: o.append_at.name().into(),
            griefer: a.griefed.clone(),
            appends_resent: a.resent,
            pooled_deps: done.iter().filter(|r| r.pooled_dep == Some(true)).count(),
            committed_while_appending: done
                .iter()
                .filter(|r| r.committed_block <= last_append_block)
                .count(),
            refused_at_submission: spends
                .iter()
                .map(|r| r.refused_dead + r.refused_unknown)
                .sum(),
            dropped_after_acceptance: spends.iter().map(|r| r.dropped).sum(),
            first_append_block: a.committed_in.iter().flatten().min().copied(),
            last_append_block,
            drain_blocks: done
                .iter()
                .filter_map(|r| r.committed_block)
                .max()
                .zip(last_append_block)
                .map_or(0, |(spend, append)| spend.saturating_sub(append)),
            blocks_mined: a.end_tip - a.start_tip,
            block_ms: o.block_ms,
            seed: o.seed,
            seconds: 0.0,
            load_average: LoadAverage::default(),
            costs,
            spends,
        }
    }

    /// Fails (16) unless the run is the load it claims: every append committed, one a block;
    /// every spend sent and committed; every verifier and mode among them; no spend accepted
    /// against a root the accumulator never had.
    pub fn check(&self, o: &Options) -> Result<()> {
        let mut wrong = Vec::new();
        // A griefer may cost blocks: then every append must commit, not one in each block.
        let one_a_block = self.blocks == o.blocks || (o.griefer && self.appends == o.blocks);
        if self.appends != o.blocks || !one_a_block {
            wrong.push(format!(
                "{} appends committed over {} consecutive blocks, not one in each of {}",
                self.appends, self.blocks, o.blocks
            ));
        }
        if self.spends_submitted != o.spends || self.committed != o.spends {
            wrong.push(format!(
                "{} of {} spends submitted, {} committed",
                self.spends_submitted, o.spends, self.committed
            ));
        }
        if o.spends >= 6 {
            for c in self.costs.iter().filter(|c| c.committed == 0) {
                wrong.push(format!("no {} {} spend committed", c.verifier, c.mode));
            }
        }
        if self.accepted_against_unknown_root != 0 {
            wrong.push(format!(
                "{} spends accepted against a root the accumulator never had",
                self.accepted_against_unknown_root
            ));
        }
        if wrong.is_empty() {
            return Ok(());
        }
        Err(Error::Scenario(format!("load: {}", wrong.join("; "))))
    }

    /// The table docs/concurrency.md shows: the run's numbers, then each verifier and mode's
    /// costs.
    pub fn markdown(&self) -> String {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), thousands);
        let pct = |n: usize| {
            if self.committed == 0 {
                "-".to_string()
            } else {
                format!("{:.0}%", 100.0 * n as f64 / self.committed as f64)
            }
        };
        let l = &self.load_average;
        let mut t = String::from("| measured | value |\n| --- | ---: |\n");
        let rows: Vec<(&str, String)> = vec![
            ("blocks, each committing one append", thousands(self.blocks)),
            ("appends", thousands(self.appends)),
            ("clients", thousands(self.clients as u64)),
            (
                "accumulator cell the clients take as dep",
                if self.dep == Dep::Tip.name() {
                    "the newest, pooled appends included".into()
                } else if self.dep == Dep::Ring.name() {
                    format!(
                        "a ring's newest committed snapshot (K = {})",
                        self.ring_k.unwrap_or(0)
                    )
                } else {
                    "the committed one (indexer)".into()
                },
            ),
            ("spends submitted", thousands(self.spends_submitted as u64)),
            ("committed", thousands(self.committed as u64)),
            (
                "committed while the appends went on",
                thousands(self.committed_while_appending as u64),
            ),
            (
                "first try (no rebuild)",
                format!(
                    "{} ({})",
                    thousands(self.first_try as u64),
                    pct(self.first_try)
                ),
            ),
            ("rebuilds", thousands(self.rebuilds)),
            (
                "committed with a dep that was pooled when sent",
                thousands(self.pooled_deps as u64),
            ),
            (
                "refused at submission (-301)",
                thousands(self.refused_at_submission),
            ),
            (
                "dropped after acceptance",
                thousands(self.dropped_after_acceptance),
            ),
            ("blocks to commit, p50", opt(self.p50_blocks)),
            ("blocks to commit, p99", opt(self.p99_blocks)),
            (
                "blocks after the last append until all committed",
                thousands(self.drain_blocks),
            ),
            (
                "accepted against an unknown root",
                thousands(self.accepted_against_unknown_root as u64),
            ),
            ("pause before each block (ms)", thousands(self.block_ms)),
            ("wall time (s)", format!("{:.0}", self.seconds)),
            (
                "load average at start, at end (1 min)",
                format!("{:.2}, {:.2}", l.start[0], l.end[0]),
            ),
        ];
        // Only a run with appends at random moments says so: the earlier tables stay as they
        // were rendered.
        let mut rows = rows;
        if self.append_at != AppendAt::Start.name() {
            rows.insert(
                4,
                (
                    "appends sent",
                    "at a random moment of each block interval".into(),
                ),
            );
        }
        if let Some(g) = &self.griefer {
            let at = rows.len() - 3;
            let what = format!("{}, {}, {}", g.sent, g.replaced, g.missed);
            rows.insert(at, ("griefer: dep transactions, replaced, missed", what));
            let resent = thousands(self.appends_resent);
            rows.insert(at + 1, ("appends evicted and sent again", resent));
        }
        for (k, v) in rows {
            t.push_str(&format!("| {k} | {v} |\n"));
        }
        t.push_str(
            "\n| verifier | mode | committed | cycles | tx bytes | weight |\n\
             | --- | --- | ---: | ---: | ---: | ---: |\n",
        );
        let span = |r: [u64; 2]| {
            if r[0] == r[1] {
                thousands(r[0])
            } else {
                format!("{}-{}", thousands(r[0]), thousands(r[1]))
            }
        };
        for c in &self.costs {
            t.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                c.verifier,
                c.mode,
                c.committed,
                span(c.cycles),
                span([c.tx_bytes[0] as u64, c.tx_bytes[1] as u64]),
                span(c.weight)
            ));
        }
        t
    }

    /// The docs block this report's table goes in: one for each kind of client.
    pub fn doc_block(&self) -> &'static str {
        if self.dep == Dep::Tip.name() {
            TIP_DOC_BLOCK
        } else if self.dep == Dep::Ring.name() {
            RING_DOC_BLOCK
        } else {
            DOC_BLOCK
        }
    }

    /// `doc` with its block for this report ([`LoadReport::doc_block`]) rewritten from it.
    pub fn write_table(&self, doc: &str) -> std::result::Result<String, doc_blocks::MissingMarker> {
        doc_blocks::replace_between(doc, self.doc_block(), &self.markdown())
    }
}

/// Checks every committed spend against the accumulator's history: the accumulator cell its
/// committed transaction took as a dep (read from the node, not from the client) must hold a
/// commitment the admin put there, and the one its proof was built against. Sets `root_known`.
pub fn check_roots(
    chain: &Chain,
    s: &Setup,
    history: &[Commitment],
    rows: &mut [SpendRow],
) -> Result<()> {
    let type_hash = s.acc.type_script().calc_script_hash();
    let mut outputs: HashMap<H256, packed::Transaction> = HashMap::new();
    for row in rows.iter_mut() {
        let Some(hash) = &row.tx_hash else { continue };
        let hash: H256 = ckb_mmr_sdk::parse_hash("tx", hash)?.into();
        let tx = chain
            .rpc
            .transaction(&hash)?
            .and_then(|t| t.tx)
            .ok_or_else(|| Error::NotFound(format!("the committed spend {hash:#x}")))?;
        let mut deps = Vec::new();
        for dep in tx.raw().cell_deps() {
            let op = dep.out_point();
            let origin_hash: H256 = op.tx_hash().unpack();
            if !outputs.contains_key(&origin_hash) {
                let origin = chain
                    .rpc
                    .transaction(&origin_hash)?
                    .and_then(|t| t.tx)
                    .ok_or_else(|| {
                        Error::NotFound(format!("the dep's transaction {origin_hash:#x}"))
                    })?;
                outputs.insert(origin_hash.clone(), origin);
            }
            let origin = &outputs[&origin_hash];
            let i: u32 = op.index().unpack();
            let Some(out) = origin.raw().outputs().get(i as usize) else {
                continue;
            };
            if out.type_().to_opt().map(|t| t.calc_script_hash()) != Some(type_hash.clone()) {
                continue;
            }
            let data = origin
                .raw()
                .outputs_data()
                .get(i as usize)
                .map(|d| d.raw_data());
            deps.push(data.unwrap_or_default());
        }
        let proved = row.root.as_ref().zip(row.mmr_size);
        let known = match &deps[..] {
            [data] => history.iter().any(|c| {
                c.to_bytes()[..] == data[..] && proved == Some((&hex(&c.root), c.mmr_size))
            }),
            _ => false,
        };
        row.root_known = Some(known);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentile(&[], 50), None);
        assert_eq!(percentile(&[7], 99), Some(7));
        let v: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(percentile(&v, 50), Some(50));
        assert_eq!(percentile(&v, 99), Some(99));
        assert_eq!(percentile(&[3, 1, 2, 10], 50), Some(2));
        assert_eq!(percentile(&[3, 1, 2, 10], 99), Some(10));
    }

    #[test]
    fn blocks_count_only_one_append_a_block_in_a_row() {
        assert_eq!(append_blocks(&[Some(5), Some(6), Some(7)]), 3);
        assert_eq!(append_blocks(&[Some(5), Some(7), Some(8)]), 0);
        assert_eq!(append_blocks(&[Some(5), Some(5)]), 0);
        assert_eq!(append_blocks(&[Some(5), None]), 0);
    }
}
