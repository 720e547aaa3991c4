//! The devnet scenario on a fresh dev chain, every row checked: what `./build.sh devnet` runs.

mod common;

use ckb_devnet::scenario::{self, Report, COUNTERFEIT_CELL, LOCKED_BY_REFERENCE};
use ckb_mmr_sdk::Mode;
use serde_json::Value;

fn expected_cycles(verifier: &str) -> u64 {
    let text = std::fs::read_to_string(common::root().join("tests/expected-cycles.json")).unwrap();
    let gate: Value = serde_json::from_str(&text).unwrap();
    gate["cycles"][format!("{verifier}-verifier")][ckb_mmr_sdk::REFERENCE_SEED.to_string()]
        .as_u64()
        .unwrap()
}

fn check_spends(report: &Report) {
    assert_eq!(
        report.spends.len(),
        8,
        "6 data2 spends and 2 type id spends"
    );
    for verifier in ["baseline", "c", "compiled"] {
        for mode in [Mode::Plain, Mode::Owner] {
            let rows: Vec<_> = report
                .spends
                .iter()
                .filter(|s| s.verifier == verifier && s.mode == mode && s.deployment == "data2")
                .collect();
            assert_eq!(rows.len(), 1, "{verifier} {mode:?}");
            if mode == Mode::Plain {
                // The node runs our lock for exactly the cycles the cycle gate records.
                assert_eq!(
                    rows[0].mmr_lock_cycles,
                    expected_cycles(verifier),
                    "{verifier}"
                );
            }
        }
    }
    let typed: Vec<_> = report
        .spends
        .iter()
        .filter(|s| s.deployment == "type")
        .collect();
    assert_eq!(typed.len(), 2);
    assert!(typed
        .iter()
        .any(|s| s.verifier == "compiled" && !s.upgraded));
    assert!(typed.iter().any(|s| s.verifier == "c" && s.upgraded));
    for s in &report.spends {
        assert_eq!(s.status, "committed", "{}", s.tx_hash);
        assert_eq!(
            s.node_cycles, s.debugger_cycles,
            "{} {:?}",
            s.verifier, s.mode
        );
        assert_eq!(s.estimate_cycles, s.debugger_cycles);
        assert!(s.mmr_lock_cycles > 0 && s.mmr_lock_cycles <= s.node_cycles);
        if s.mode == Mode::Owner {
            // The owner's secp256k1 signature check is its own script group.
            assert!(s.node_cycles > s.mmr_lock_cycles + 1_000_000);
        }
        // Bytes, not cycles, set the weight, and the wallet paid exactly the minimum fee of
        // it: 1,000 shannons per 1,000 weight.
        let cost = s.cost();
        assert!(
            s.tx_bytes as u64 > s.cycles_weight(),
            "{} bytes vs {}",
            s.tx_bytes,
            s.cycles_weight()
        );
        assert_eq!(cost.weight, s.tx_bytes as u64, "{}", s.tx_hash);
        assert_eq!(s.fee_shannons, cost.fee, "{}", s.tx_hash);
    }
}

/// An accumulator row as expected: step, verifier, mode, leaves appended, leaf count after.
type AccExpected = (&'static str, Option<&'static str>, Option<Mode>, u64, u64);

/// Every accumulator transaction, in order.
const ACC_ROWS: [AccExpected; 17] = [
    ("create", None, None, 7, 7),
    ("append", None, None, 1, 8),
    ("spend", Some("compiled"), Some(Mode::Plain), 0, 8),
    ("spend", Some("baseline"), Some(Mode::Plain), 0, 8),
    ("append", None, None, 10, 18),
    ("spend", Some("c"), Some(Mode::Plain), 0, 18),
    ("extend", None, None, 2502, 2520),
    ("spend", Some("baseline"), Some(Mode::Plain), 0, 2520),
    ("spend", Some("baseline"), Some(Mode::Owner), 0, 2520),
    ("spend", Some("c"), Some(Mode::Plain), 0, 2520),
    ("spend", Some("c"), Some(Mode::Owner), 0, 2520),
    ("spend", Some("compiled"), Some(Mode::Plain), 0, 2520),
    ("spend", Some("compiled"), Some(Mode::Owner), 0, 2520),
    ("spend", Some("compiled"), Some(Mode::Plain), 0, 2520),
    ("handover", None, None, 0, 2520),
    ("spend", Some("baseline"), Some(Mode::Plain), 0, 2520),
    ("append", None, None, 1, 2521),
];

fn check_accumulator(report: &Report) {
    let rows = &report.accumulator;
    let expected = &ACC_ROWS;
    assert_eq!(
        rows.len(),
        expected.len(),
        "{:?}",
        rows.iter().map(|r| r.step).collect::<Vec<_>>()
    );
    for (r, &(step, verifier, mode, appended, leaves)) in rows.iter().zip(expected.iter()) {
        let what = format!("{step} ({})", r.note);
        assert_eq!(
            (r.step, r.verifier, r.mode),
            (step, verifier, mode),
            "{what}"
        );
        assert_eq!(r.status, "committed", "{what}");
        assert_eq!(r.node_cycles, r.debugger_cycles, "{what}");
        assert!(
            r.script_cycles > 0 && r.script_cycles <= r.node_cycles,
            "{what}"
        );
        assert_eq!(r.leaves_appended, appended, "{what}");
        assert_eq!(
            r.mmr_size_after,
            mmr_lock::mmr::mmr_size_of(leaves),
            "{what}"
        );
        assert!(
            r.witness_bytes > 0 && r.witness_bytes < r.tx_bytes,
            "{what}"
        );
        // Bytes set the weight here too, and the fee paid is its minimum fee.
        assert_eq!(r.cost().weight, r.tx_bytes as u64, "{what}");
        assert_eq!(r.fee_shannons, r.cost().fee, "{what}");
    }
    // The reference proof by reference costs what it costs with the root in the args, plus
    // the accumulator's lookup among the cell deps; owner mode proves the very same MMR.
    for r in rows.iter().filter(|r| r.note == "reference proof") {
        let direct = report
            .spends
            .iter()
            .find(|s| {
                Some(s.verifier) == r.verifier && Some(s.mode) == r.mode && s.deployment == "data2"
            })
            .unwrap();
        assert!(
            r.script_cycles > direct.mmr_lock_cycles
                && r.script_cycles < direct.mmr_lock_cycles + 50_000,
            "{:?} {:?}: by reference {} vs {}",
            r.verifier,
            r.mode,
            r.script_cycles,
            direct.mmr_lock_cycles
        );
    }
    // The transactions that are no step (the cells locked by reference, the counterfeit's
    // plain cell) are measured the same way, without a row in report.json. Each runs the
    // payer's secp256k1 lock and nothing else.
    let other: Vec<_> = report.accumulator_other.iter().map(|t| t.what).collect();
    assert_eq!(other, [LOCKED_BY_REFERENCE, COUNTERFEIT_CELL]);
    for t in &report.accumulator_other {
        assert_eq!(t.status, "committed", "{}", t.what);
        assert_eq!(t.node_cycles, t.debugger_cycles, "{}", t.what);
        assert!(t.node_cycles > 1_000_000, "{}: {}", t.what, t.node_cycles);
    }
    let json = report.to_json();
    assert_eq!(
        json["accumulator"].as_array().map(Vec::len),
        Some(ACC_ROWS.len()),
        "report.json keeps one accumulator[] row per step"
    );
    has_fields(
        &json,
        "accumulator",
        "step verifier mode tx_hash status node_cycles debugger_cycles tx_bytes witness_bytes \
         leaves_appended mmr_size_after weight fee",
    );
}

/// report.json's first row of `rows` has every field of `fields` (separated by spaces).
fn has_fields(json: &Value, rows: &str, fields: &str) {
    for field in fields.split_whitespace() {
        assert!(json[rows][0].get(field).is_some(), "{rows}[].{field}");
    }
}

fn check_refusals(report: &Report) {
    let expected: [(&str, Option<i8>, bool); 14] = [
        ("flipped_leaf_byte", Some(9), true),
        ("proof_for_another_mmr", Some(9), true),
        ("truncated_witness", Some(5), true),
        ("owner_input_missing", Some(80), true),
        (
            "owner_replay_other_outputs",
            Some(scenario::SECP_WRONG_SIGNATURE),
            true,
        ),
        ("hash_type_data", None, false),
        ("args_39_bytes", Some(1), false),
        ("plain_replay_accepted", None, false),
        ("acc_forged_append", Some(102), true),
        ("acc_stale_proof_after_append", Some(9), true),
        ("acc_spend_racing_append", None, true),
        ("acc_forged_ancestry", Some(113), true),
        ("acc_counterfeit_dep", Some(90), true),
        ("acc_destroy", Some(122), true),
    ];
    assert_eq!(report.refusals.len(), expected.len());
    for (case, code, spendable) in expected {
        let r = report
            .refusals
            .iter()
            .find(|r| r.case == case)
            .unwrap_or_else(|| panic!("no {case}"));
        assert!(r.as_expected(), "{case}: {}", r.node_message);
        assert_eq!(r.node_code, code, "{case}: {}", r.node_message);
        if case == "plain_replay_accepted" {
            assert!(
                !r.refused && !r.cell_live_after,
                "the plain-mode replay is accepted"
            );
            continue;
        }
        assert!(r.refused, "{case}");
        assert!(r.cell_live_after, "{case}: the cell must survive a refusal");
        assert_eq!(
            r.spent_after.is_ok(),
            spendable,
            "{case}: {:?}",
            r.spent_after
        );
    }
    for (case, words) in [
        ("hash_type_data", "VM Internal Error"),
        ("acc_spend_racing_append", "TransactionFailedToResolve"),
    ] {
        let r = report.refusals.iter().find(|r| r.case == case).unwrap();
        assert!(r.node_message.contains(words), "{}", r.node_message);
    }
}

/// Every transaction the run committed was measured: the rows plus the ones without a row
/// (deployments, locked cells, spends after refusals), each with node cycles = ckb-debugger's.
fn check_every_committed(report: &Report) {
    let deployments = report
        .other_committed
        .iter()
        .filter(|t| t.what == scenario::OTHER_DEPLOYMENT)
        .count();
    assert_eq!(
        deployments,
        report.deployments.len(),
        "{deployments} deployment transactions measured, {} deployed",
        report.deployments.len()
    );
    assert!(
        report
            .other_committed
            .iter()
            .any(|t| t.what == scenario::OTHER_TRANSACTION),
        "the cells locked for the spends are committed transactions too"
    );
    for t in &report.other_committed {
        assert_eq!(t.status, "committed", "{}", t.tx_hash);
        assert_eq!(t.node_cycles, t.debugger_cycles, "{} {}", t.what, t.tx_hash);
        // Every transaction runs a lock: the payer's secp256k1 (over a million cycles) or, for
        // a spend after a refusal, the MMR lock alone.
        assert!(t.node_cycles > 500_000, "{}: {}", t.what, t.node_cycles);
    }
    let mut hashes: Vec<&str> = report
        .spends
        .iter()
        .map(|s| s.tx_hash.as_str())
        .chain(report.accumulator.iter().map(|r| r.tx_hash.as_str()))
        .chain(report.accumulator_other.iter().map(|t| t.tx_hash.as_str()))
        .chain(report.other_committed.iter().map(|t| t.tx_hash.as_str()))
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(
        hashes.len(),
        report.committed_total,
        "each committed transaction measured exactly once"
    );
    assert_eq!(
        report.to_json()["other_committed"].as_array().map(Vec::len),
        Some(report.accumulator_other.len() + report.other_committed.len())
    );
}

#[test]
fn scenario_on_a_fresh_dev_chain() {
    let dir = common::test_dir("scenario");
    let report = scenario::run(&dir, &common::release()).expect("the scenario runs");
    print!("{}", report.table());
    check_spends(&report);
    check_refusals(&report);
    check_accumulator(&report);
    report.check().expect("every row as expected");
    assert_eq!(
        report.deployments.len(),
        6,
        "3 data2, 1 type id, 1 upgrade, the accumulator's type script"
    );
    for d in &report.deployments {
        let type_bytes = if d.deployment == "type" { 65 } else { 0 };
        // 8 capacity + 53 secp lock (+ 65 type id) + the binary: 1 CKB a byte.
        assert_eq!(
            d.capacity_shannons,
            (61 + type_bytes + d.binary_bytes as u64) * 100_000_000
        );
    }
    check_every_committed(&report);
    let json = report.to_json();
    has_fields(
        &json,
        "spends",
        "verifier mode deployment upgraded tx_hash status node_cycles debugger_cycles tx_bytes \
         fee_shannons cycles_weight weight fee",
    );
    let refusal_fields = "case expected_code node_code refused cell_live_after";
    has_fields(&json, "refusals", refusal_fields);
    assert!(
        common::no_process_left(&dir, 10),
        "a process still runs in {}",
        dir.display()
    );
    // docs/deploy.md shows these measured tables; `./build.sh devnet` rewrites them.
    let doc = std::fs::read_to_string(common::root().join("docs/deploy.md")).unwrap();
    let shown = doc_blocks::between(&doc, "devnet-table").expect("devnet-table markers");
    assert_eq!(
        shown.trim(),
        report.markdown().trim(),
        "docs/deploy.md is stale: run ./build.sh devnet"
    );
    let shown = doc_blocks::between(&doc, "devnet-accumulator-table")
        .expect("devnet-accumulator-table markers");
    assert_eq!(
        shown.trim(),
        report.accumulator_markdown().trim(),
        "docs/deploy.md is stale: run ./build.sh devnet"
    );
}
