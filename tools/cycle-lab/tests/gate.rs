//! The regression gate: every release verifier's cycles on the gate seeds must equal
//! tests/expected-cycles.json exactly. After an intended change, `./build.sh bless` (or
//! `CYCLE_GATE_BLESS=1 cargo test --release -p cycle-lab --test gate`) rewrites the file; commit
//! it with the change.

use cycle_lab::gate;

#[test]
fn cycles_match_expected() {
    let file = gate::workspace_root().join(gate::FILE);
    let measured = gate::measure(&gate::release_dir()).unwrap_or_else(|e| panic!("{e}"));
    for (verifier, seed, cycles) in &measured {
        println!("{verifier:<20} seed {seed:>20}: {cycles} cycles");
    }
    if std::env::var_os("CYCLE_GATE_BLESS").is_some() {
        std::fs::write(&file, gate::render(&measured)).expect("writing the expected cycles");
        println!("blessed: wrote {}", gate::FILE);
        return;
    }
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with ./build.sh bless", gate::FILE));
    let expected = gate::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let changes = gate::compare(&expected, &measured);
    assert!(
        changes.is_empty(),
        "cycles differ from {}:\n{}\nIf the change is intended, run ./build.sh bless (or \
         CYCLE_GATE_BLESS=1 cargo test --release -p cycle-lab --test gate) and commit {} with it.",
        gate::FILE,
        gate::report(&changes),
        gate::FILE
    );
}

#[test]
fn gate_file_round_trips_and_reports_deltas() {
    let entries = vec![
        ("baseline-verifier".to_string(), 7u64, 100u64),
        ("baseline-verifier".to_string(), 1, 90),
        ("c-verifier".to_string(), 7, 80),
    ];
    let text = gate::render(&entries);
    let mut parsed = gate::parse(&text).unwrap();
    parsed.sort();
    let mut sorted = entries.clone();
    sorted.sort();
    assert_eq!(parsed, sorted);
    assert!(gate::compare(&entries, &parsed).is_empty());
    let mut changed = entries.clone();
    changed[0].2 = 95;
    changed.pop();
    let changes = gate::compare(&entries, &changed);
    assert_eq!(changes.len(), 2);
    let report = gate::report(&changes);
    assert!(report.contains("100") && report.contains("95") && report.contains("-5"));
    assert!(report.contains("c-verifier"));
}
