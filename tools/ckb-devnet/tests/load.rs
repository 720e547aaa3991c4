//! `ckb-devnet load` (docs/concurrency.md, "Under load"): a short run on a fresh dev chain
//! (ignored by default: it needs the node and the release binaries; `./build.sh test` runs
//! it), and, without a node, the table docs/concurrency.md shows against the full run's
//! report it was generated from.

mod common;

use ckb_devnet::load::{LoadReport, SpendRow};
use ckb_mmr_sdk::weight;
use serde_json::Value;
use std::time::Instant;

/// The keys the load's report promises (docs/concurrency.md).
const KEYS: [&str; 12] = [
    "blocks",
    "appends",
    "spends_submitted",
    "committed",
    "first_try",
    "rebuilds",
    "p50_blocks",
    "p99_blocks",
    "accepted_against_unknown_root",
    "clients",
    "verifiers",
    "spends",
];

fn check_spend(s: &SpendRow) {
    let (cycles, bytes) = (s.cycles.unwrap(), s.tx_bytes.unwrap());
    assert!(cycles > 0 && bytes > 0, "{s:?}");
    assert_eq!(s.weight, Some(weight::weight(bytes, cycles)), "{s:?}");
    assert_eq!(s.rebuilds, s.submissions - 1, "{s:?}");
    assert_eq!(s.first_try, s.submissions == 1, "{s:?}");
    assert_eq!(
        s.rebuilds,
        s.refused_dead + s.refused_unknown + s.dropped,
        "every rebuild follows a refusal or a drop: {s:?}"
    );
    assert_eq!(s.root_known, Some(true), "{s:?}");
    let (first, done) = (s.first_sent_block.unwrap(), s.committed_block.unwrap());
    assert_eq!(s.blocks_to_commit, Some(done - first), "{s:?}");
    // A transaction is committed two blocks after the one that proposed it, at the earliest.
    assert!(done >= first + 2, "{s:?}");
}

/// 30 blocks, 12 spends, 4 clients taking the accumulator cell `dep`: every append committed
/// one a block, every spend committed in the end, every verifier and mode among them, and
/// nothing left running.
fn short_run(dep: &str) -> LoadReport {
    let release = common::release();
    let dir = common::test_dir(&format!("load-{dep}"));
    let report_file = dir.join("out.json");
    let started = Instant::now();
    let out = common::run(&[
        "load",
        "--dir",
        &dir.join("run").display().to_string(),
        "--release",
        &release.display().to_string(),
        "--report",
        &report_file.display().to_string(),
        "--blocks",
        "30",
        "--spends",
        "12",
        "--clients",
        "4",
        "--dep",
        dep,
    ]);
    eprintln!(
        "load, 30 blocks and 12 spends, --dep {dep}: {:.0?}",
        started.elapsed()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("| blocks, each committing one append | 30 |"),
        "{stdout}"
    );
    let json: Value = serde_json::from_slice(&std::fs::read(&report_file).unwrap()).unwrap();
    for key in KEYS {
        assert!(json.get(key).is_some(), "no {key} in the report");
    }
    let r: LoadReport = serde_json::from_value(json).unwrap();
    assert_eq!((r.blocks, r.appends), (30, 30));
    assert_eq!((r.spends_submitted, r.committed, r.clients), (12, 12, 4));
    assert_eq!(r.accepted_against_unknown_root, 0);
    assert_eq!(r.verifiers, ["baseline", "c", "compiled"]);
    assert_eq!(r.spends.len(), 12);
    for s in &r.spends {
        check_spend(s);
    }
    for c in &r.costs {
        assert_eq!(c.committed, 2, "{c:?}");
    }
    let clients: std::collections::BTreeSet<usize> = r.spends.iter().map(|s| s.client).collect();
    assert_eq!(clients.len(), 4);
    assert_eq!(
        r.rebuilds,
        r.spends.iter().map(|s| s.rebuilds).sum::<u64>(),
        "{r:?}"
    );
    assert_eq!(r.first_try, r.spends.iter().filter(|s| s.first_try).count());
    let (p50, p99) = (r.p50_blocks.unwrap(), r.p99_blocks.unwrap());
    assert!(2 <= p50 && p50 <= p99, "{p50} {p99}");
    assert_eq!(r.dep, dep);
    if dep == "ring" {
        assert!(json_has_ring_k(&report_file), "no ring_k in the report");
    }
    assert!(
        common::no_process_left(&dir, 30),
        "processes left: {:?}",
        common::processes_in(&dir)
    );
    r
}

fn json_has_ring_k(report: &std::path::Path) -> bool {
    let json: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    json.get("ring_k").and_then(Value::as_u64).is_some()
}

#[test]
#[ignore = "needs ckb 0.210.0 and build/release (./build.sh test runs it)"]
fn a_short_load_run_commits_everything_against_known_roots() {
    let r = short_run("committed");
    assert_eq!(r.pooled_deps, 0, "{r:?}");
}

/// The same with clients that follow the pool to its newest accumulator cell: they build on
/// pooled outputs, and a spend commits a few blocks after it is sent, not once the appends
/// stop (the committed-dep run's p50 is over half the run).
#[test]
#[ignore = "needs ckb 0.210.0 and build/release (./build.sh test runs it)"]
fn a_short_load_run_following_the_pool_commits_while_appending() {
    let r = short_run("tip");
    assert!(r.pooled_deps > 0, "{r:?}");
    assert!(r.p50_blocks.unwrap() <= 4, "{r:?}");
}

/// The default: a ring of K = 8, clients on its newest committed snapshot. A snapshot outlives
/// the K - 1 appends after the one that wrote it, so every spend commits on its first
/// submission a few blocks after it is sent, while the appends go on, on a committed dep.
#[test]
#[ignore = "needs ckb 0.210.0 and build/release (./build.sh test runs it)"]
fn a_short_load_run_on_a_ring_commits_first_try_while_appending() {
    let r = short_run("ring");
    assert_eq!(r.ring_k, Some(8), "{r:?}");
    assert_eq!((r.first_try, r.rebuilds), (12, 0), "{r:?}");
    assert_eq!(r.committed_while_appending, 12, "{r:?}");
    assert_eq!(r.pooled_deps, 0, "{r:?}");
    assert!(r.p50_blocks.unwrap() <= 4, "{r:?}");
}

/// docs/concurrency.md's load tables are the ones the committed reports of the full runs
/// render (clients on a ring's newest snapshot, on a plain accumulator's committed cell, on
/// the pool's newest), and those reports are full runs: the default sizes, all keys, every
/// spend checked.
#[test]
fn the_documented_load_tables_are_the_full_runs_reports() {
    check_documented("load-ring-report.json", "ring", "load-ring-table");
    check_documented("load-report.json", "committed", "load-table");
    check_documented("load-tip-report.json", "tip", "load-tip-table");
}

fn check_documented(file: &str, dep: &str, block: &str) {
    let root = common::root();
    let text = std::fs::read_to_string(root.join("docs/examples").join(file)).unwrap();
    let r: LoadReport = serde_json::from_str(&text).unwrap();
    assert_eq!((r.dep.as_str(), r.doc_block()), (dep, block));
    let doc = std::fs::read_to_string(root.join("docs/concurrency.md")).unwrap();
    let shown = doc_blocks::between(&doc, block).expect("table markers");
    assert_eq!(
        shown,
        r.markdown(),
        "rerun: ckb-devnet load --from-report docs/examples/{file} --doc docs/concurrency.md"
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    for key in KEYS {
        assert!(json.get(key).is_some(), "no {key} in the report");
    }
    if dep == "ring" {
        assert_eq!(json["dep"], "ring");
        assert_eq!(json["ring_k"], 8, "the default K");
    }
    assert!(r.blocks >= 200 && r.appends == r.blocks, "{r:?}");
    assert!(r.spends_submitted >= 50 && r.committed == r.spends_submitted);
    assert!(r.clients >= 4);
    assert_eq!(r.accepted_against_unknown_root, 0);
    for s in &r.spends {
        check_spend(s);
    }
}
