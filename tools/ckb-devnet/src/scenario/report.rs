//! What the scenario measured: one row type per kind of transaction, the report that holds
//! them, its report.json (serde derive) and [`Report::check`], which fails on any row that
//! did not come out as expected.

use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::weight::{self, Cost};
use ckb_mmr_sdk::Mode;
use serde::{Serialize, Serializer};
use serde_json::Value;

pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Plain => "plain",
        Mode::Owner => "owner",
    }
}

fn mode_text<S: Serializer>(mode: &Mode, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(mode_name(*mode))
}

fn mode_text_or_null<S: Serializer>(
    mode: &Option<Mode>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    mode.map(mode_name).serialize(s)
}

/// A deployment (or the upgrade) and what it cost.
#[derive(Serialize)]
pub struct DeployRow {
    pub verifier: &'static str,
    pub deployment: &'static str,
    pub out_point: String,
    pub binary_bytes: usize,
    pub capacity_shannons: u64,
    pub fee_shannons: u64,
}

/// An honest spend of a cell the MMR lock holds, measured three ways.
#[derive(Serialize)]
pub struct SpendRow {
    pub verifier: &'static str,
    #[serde(serialize_with = "mode_text")]
    pub mode: Mode,
    pub deployment: &'static str,
    pub upgraded: bool,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub estimate_cycles: u64,
    pub debugger_cycles: u64,
    /// Cycles of the MMR lock's own script group, from ckb-debugger.
    pub mmr_lock_cycles: u64,
    pub tx_bytes: usize,
    pub fee_shannons: u64,
}

/// A transaction sent to be refused (or, for the plain-mode replay, accepted) and what
/// became of its cell.
#[derive(Serialize)]
pub struct RefusalRow {
    pub case: &'static str,
    pub verifier: &'static str,
    /// The exit code the case must fail with; `None` for a failure that is not an exit code.
    pub expected_code: Option<i8>,
    /// What else the node's message must contain (for failures without an exit code).
    pub expected_message: Option<&'static str>,
    /// False for the plain-mode replay, which the lock accepts by design.
    pub expect_refused: bool,
    pub refused: bool,
    pub node_code: Option<i8>,
    pub node_message: String,
    pub cell_live_after: bool,
    /// The honest spend afterwards (its tx hash), or why there is none: report.json splits
    /// it into `spent_after` and `not_spent_because`.
    #[serde(skip)]
    pub spent_after: std::result::Result<String, String>,
}

/// One committed transaction of the accumulator's part.
#[derive(Serialize)]
pub struct AccRow {
    /// `create`, `append`, `extend`, `handover` or `spend`.
    pub step: &'static str,
    /// What the row shows (which spend, which admin).
    pub note: &'static str,
    /// Spends only.
    pub verifier: Option<&'static str>,
    #[serde(serialize_with = "mode_text_or_null")]
    pub mode: Option<Mode>,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub debugger_cycles: u64,
    /// The accumulator's type script group (create, append, extend, handover) or the MMR
    /// lock's group (spend), from ckb-debugger.
    pub script_cycles: u64,
    pub tx_bytes: usize,
    /// Witness 0: the type script's payload (with the admin's signature in its `lock`), or
    /// the MMR lock's proof.
    pub witness_bytes: usize,
    pub fee_shannons: u64,
    pub leaves_appended: u64,
    pub mmr_size_after: u64,
}

/// A committed transaction that is no row (a deployment, the cells a case locks, a spend
/// after a refusal): measured as a row is and held to the same check (committed, node
/// cycles = ckb-debugger's); report.json lists them under `other_committed`.
#[derive(Serialize)]
pub struct CheckedTx {
    pub what: &'static str,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub debugger_cycles: u64,
}

pub struct Report {
    pub rpc_url: String,
    pub seed: u64,
    pub deployments: Vec<DeployRow>,
    pub spends: Vec<SpendRow>,
    pub refusals: Vec<RefusalRow>,
    /// The accumulator's part: one row per committed step.
    pub accumulator: Vec<AccRow>,
    /// The accumulator part's other committed transactions, checked as rows are but not in
    /// report.json's `accumulator[]` (no step fits them).
    pub accumulator_other: Vec<CheckedTx>,
    /// Every other transaction the scenario committed (deployments, the upgrade, the cells
    /// it locks, the honest spends after refusals, the accepted replay), measured and checked
    /// the same way: with the rows above, every committed transaction of the run.
    pub other_committed: Vec<CheckedTx>,
    /// How many transactions the scenario saw committed: the rows, `accumulator_other` and
    /// `other_committed` together.
    pub committed_total: usize,
    pub seconds: f64,
}

/// report.json: the rows, with what is computed from them.
#[derive(Serialize)]
struct ReportJson<'r> {
    rpc_url: &'r str,
    seed: u64,
    seconds: f64,
    deployments: &'r [DeployRow],
    spends: Vec<SpendJson<'r>>,
    refusals: Vec<RefusalJson<'r>>,
    accumulator: Vec<AccJson<'r>>,
    other_committed: Vec<&'r CheckedTx>,
    committed_total: usize,
}

/// A spend with its node's weight: `weight` (max of bytes and `cycles_weight`) and `fee`
/// (shannons at the default minimum fee rate; `fee_shannons` is what the wallet paid).
#[derive(Serialize)]
struct SpendJson<'r> {
    #[serde(flatten)]
    row: &'r SpendRow,
    cycles_weight: u64,
    weight: u64,
    fee: u64,
}

/// An accumulator row with its weight and fee, as [`SpendJson`].
#[derive(Serialize)]
struct AccJson<'r> {
    #[serde(flatten)]
    row: &'r AccRow,
    weight: u64,
    fee: u64,
}

#[derive(Serialize)]
struct RefusalJson<'r> {
    #[serde(flatten)]
    row: &'r RefusalRow,
    spent_after: Option<&'r str>,
    not_spent_because: Option<&'r str>,
    as_expected: bool,
}

/// A committed transaction whose node cycles are ckb-debugger's (and not 0: scripts ran).
fn check_measured(what: &str, status: &str, node: u64, debugger: u64) -> Result<()> {
    if status != "committed" || node == 0 || node != debugger {
        return Err(Error::Scenario(format!(
            "{what}: status {status}, node {node} / ckb-debugger {debugger} cycles"
        )));
    }
    Ok(())
}

impl SpendRow {
    /// The weight of the transaction's cycles alone, as the node truncates it.
    pub fn cycles_weight(&self) -> u64 {
        weight::cycles_weight(self.node_cycles)
    }

    /// The transaction's bytes, cycles, weight and fee at the default minimum fee rate.
    pub fn cost(&self) -> Cost {
        Cost::new(self.tx_bytes, self.node_cycles)
    }
}

impl AccRow {
    /// The transaction's bytes, cycles, weight and fee at the default minimum fee rate.
    pub fn cost(&self) -> Cost {
        Cost::new(self.tx_bytes, self.node_cycles)
    }
}

impl RefusalRow {
    pub fn as_expected(&self) -> bool {
        let outcome = if self.expect_refused {
            self.refused
                && self.node_code == self.expected_code
                && self
                    .expected_message
                    .is_none_or(|m| self.node_message.contains(m))
                && self.cell_live_after
        } else {
            !self.refused
        };
        // Cells that can be spent honestly afterwards must have been.
        outcome
            && (self.spent_after.is_ok()
                || self
                    .spent_after
                    .as_ref()
                    .is_err_and(|e| e.starts_with("unspendable") || e.starts_with("spent by")))
    }
}

impl Report {
    /// An empty report of a run on the node at `rpc_url`.
    pub fn new(rpc_url: &str, seed: u64) -> Report {
        Report {
            rpc_url: rpc_url.to_string(),
            seed,
            deployments: Vec::new(),
            spends: Vec::new(),
            refusals: Vec::new(),
            accumulator: Vec::new(),
            accumulator_other: Vec::new(),
            other_committed: Vec::new(),
            committed_total: 0,
            seconds: 0.0,
        }
    }

    /// Every committed transaction measured so far, rows and checked ones alike.
    pub fn measured_hashes(&self) -> impl Iterator<Item = &str> {
        self.spends
            .iter()
            .map(|s| s.tx_hash.as_str())
            .chain(self.accumulator.iter().map(|r| r.tx_hash.as_str()))
            .chain(self.accumulator_other.iter().map(|t| t.tx_hash.as_str()))
            .chain(self.other_committed.iter().map(|t| t.tx_hash.as_str()))
    }

    /// report.json.
    pub fn to_json(&self) -> Value {
        let json = ReportJson {
            rpc_url: &self.rpc_url,
            seed: self.seed,
            seconds: (self.seconds * 10.0).round() / 10.0,
            deployments: &self.deployments,
            spends: self
                .spends
                .iter()
                .map(|row| SpendJson {
                    row,
                    cycles_weight: row.cycles_weight(),
                    weight: row.cost().weight,
                    fee: row.cost().fee,
                })
                .collect(),
            refusals: self
                .refusals
                .iter()
                .map(|row| RefusalJson {
                    row,
                    spent_after: row.spent_after.as_deref().ok(),
                    not_spent_because: row.spent_after.as_ref().err().map(String::as_str),
                    as_expected: row.as_expected(),
                })
                .collect(),
            accumulator: self
                .accumulator
                .iter()
                .map(|row| AccJson {
                    row,
                    weight: row.cost().weight,
                    fee: row.cost().fee,
                })
                .collect(),
            other_committed: self
                .accumulator_other
                .iter()
                .chain(&self.other_committed)
                .collect(),
            committed_total: self.committed_total,
        };
        // Only maps with string keys and numbers, strings, booleans and nulls.
        serde_json::to_value(json).expect("the report is plain JSON")
    }

    /// Fails unless every committed transaction (spends, accumulator rows, `accumulator_other`
    /// and `other_committed`: as many as the chain connection saw committed) has node cycles
    /// equal to ckb-debugger's and every refusal came out as expected.
    pub fn check(&self) -> Result<()> {
        for s in &self.spends {
            if s.status != "committed"
                || s.node_cycles != s.debugger_cycles
                || s.estimate_cycles != s.debugger_cycles
            {
                return Err(Error::Scenario(format!(
                    "{} {} {}: status {}, node {} / estimate {} / ckb-debugger {} cycles",
                    s.verifier,
                    mode_name(s.mode),
                    s.deployment,
                    s.status,
                    s.node_cycles,
                    s.estimate_cycles,
                    s.debugger_cycles
                )));
            }
        }
        for r in &self.accumulator {
            let what = format!("accumulator {} ({})", r.step, r.note);
            check_measured(&what, &r.status, r.node_cycles, r.debugger_cycles)?;
        }
        for t in &self.accumulator_other {
            let what = format!("accumulator: {} ({})", t.what, t.tx_hash);
            check_measured(&what, &t.status, t.node_cycles, t.debugger_cycles)?;
        }
        for t in &self.other_committed {
            let what = format!("{} ({})", t.what, t.tx_hash);
            check_measured(&what, &t.status, t.node_cycles, t.debugger_cycles)?;
        }
        let measured = self.measured_hashes().count();
        if measured != self.committed_total {
            return Err(Error::Scenario(format!(
                "{} transactions committed, {measured} measured",
                self.committed_total
            )));
        }
        for r in &self.refusals {
            if !r.as_expected() {
                return Err(Error::Scenario(format!(
                    "{}: refused {}, code {:?} (expected {:?}), cell live after {}, then {:?}: {}",
                    r.case,
                    r.refused,
                    r.node_code,
                    r.expected_code,
                    r.cell_live_after,
                    r.spent_after,
                    r.node_message
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A report with one row of each kind, both ways a refusal can end.
    fn sample() -> Report {
        let mut r = Report::new("http://127.0.0.1:8114", 7);
        r.seconds = 8.26;
        r.deployments.push(DeployRow {
            verifier: "c",
            deployment: "type",
            out_point: "0xab:0".into(),
            binary_bytes: 7624,
            capacity_shannons: 775_000_000_000,
            fee_shannons: 7_900,
        });
        r.spends.push(SpendRow {
            verifier: "baseline",
            mode: Mode::Owner,
            deployment: "data2",
            upgraded: false,
            tx_hash: "0x01".into(),
            status: "committed".into(),
            node_cycles: 3_000_000,
            estimate_cycles: 3_000_000,
            debugger_cycles: 3_000_000,
            mmr_lock_cycles: 1_000_000,
            tx_bytes: 2_000,
            fee_shannons: 2_000,
        });
        let refusal = |case, spent_after| RefusalRow {
            case,
            verifier: "compiled",
            expected_code: Some(9),
            expected_message: None,
            expect_refused: true,
            refused: true,
            node_code: Some(9),
            node_message: "error code 9".into(),
            cell_live_after: true,
            spent_after,
        };
        r.refusals.push(refusal("spent", Ok("0x02".into())));
        r.refusals
            .push(refusal("unspent", Err("the cell is gone".into())));
        r.accumulator.push(AccRow {
            step: "create",
            note: "CREATE",
            verifier: None,
            mode: None,
            tx_hash: "0x03".into(),
            status: "committed".into(),
            node_cycles: 5,
            debugger_cycles: 5,
            script_cycles: 4,
            tx_bytes: 900,
            witness_bytes: 300,
            fee_shannons: 900,
            leaves_appended: 7,
            mmr_size_after: 11,
        });
        let checked = |what, tx_hash: &str| CheckedTx {
            what,
            tx_hash: tx_hash.into(),
            status: "committed".into(),
            node_cycles: 6,
            debugger_cycles: 6,
        };
        r.accumulator_other.push(checked("locked", "0x04"));
        r.other_committed.push(checked("deployed", "0x05"));
        r.committed_total = 4;
        r
    }

    /// report.json's keys and shapes, which the docs and the scenario test read: every key
    /// the rows had before serde derive wrote them, and nothing else.
    #[test]
    fn report_json_keeps_its_keys_and_shapes() {
        let expected = json!({
            "rpc_url": "http://127.0.0.1:8114",
            "seed": 7,
            "seconds": 8.3,
            "deployments": [{
                "verifier": "c", "deployment": "type", "out_point": "0xab:0",
                "binary_bytes": 7624, "capacity_shannons": 775_000_000_000u64, "fee_shannons": 7_900,
            }],
            "spends": [{
                "verifier": "baseline", "mode": "owner", "deployment": "data2", "upgraded": false,
                "tx_hash": "0x01", "status": "committed", "node_cycles": 3_000_000,
                "estimate_cycles": 3_000_000, "debugger_cycles": 3_000_000,
                "mmr_lock_cycles": 1_000_000, "tx_bytes": 2_000, "cycles_weight": 511,
                "weight": 2_000, "fee": 2_000, "fee_shannons": 2_000,
            }],
            "refusals": [
                {
                    "case": "spent", "verifier": "compiled", "expected_code": 9,
                    "expected_message": null, "expect_refused": true, "node_code": 9,
                    "refused": true, "node_message": "error code 9", "cell_live_after": true,
                    "spent_after": "0x02", "not_spent_because": null, "as_expected": true,
                },
                {
                    "case": "unspent", "verifier": "compiled", "expected_code": 9,
                    "expected_message": null, "expect_refused": true, "node_code": 9,
                    "refused": true, "node_message": "error code 9", "cell_live_after": true,
                    "spent_after": null, "not_spent_because": "the cell is gone",
                    "as_expected": false,
                },
            ],
            "accumulator": [{
                "step": "create", "note": "CREATE", "verifier": null, "mode": null,
                "tx_hash": "0x03", "status": "committed", "node_cycles": 5,
                "debugger_cycles": 5, "script_cycles": 4, "tx_bytes": 900,
                "witness_bytes": 300, "fee_shannons": 900, "leaves_appended": 7,
                "mmr_size_after": 11, "weight": 900, "fee": 900,
            }],
            "other_committed": [
                {"what": "locked", "tx_hash": "0x04", "status": "committed", "node_cycles": 6, "debugger_cycles": 6},
                {"what": "deployed", "tx_hash": "0x05", "status": "committed", "node_cycles": 6, "debugger_cycles": 6},
            ],
            "committed_total": 4,
        });
        assert_eq!(sample().to_json(), expected);
    }

    #[test]
    fn check_counts_every_measured_transaction_and_every_refusal() {
        let mut r = sample();
        r.refusals.pop();
        r.check().expect("a consistent report");
        r.committed_total = 5;
        assert!(
            r.check().is_err(),
            "a committed transaction left unmeasured"
        );
        r.committed_total = 4;
        r.other_committed[0].debugger_cycles = 7;
        assert!(r.check().is_err(), "node cycles != ckb-debugger's");
        r.other_committed[0].debugger_cycles = 6;
        r.refusals[0].node_code = Some(5);
        assert!(r.check().is_err(), "a refusal with another code");
    }
}
