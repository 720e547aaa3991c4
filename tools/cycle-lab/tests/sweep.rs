//! The sweep engine: the same cycles as ckb-debugger for the same binaries, the same cycles on
//! one thread and on all threads, and a small parallel sweep of every release verifier (the
//! >= 200-seed scaling run is `./build.sh sweep`, recorded in docs/performance.md).

use ckb_mmr_sdk::{tx, Workload, REFERENCE_SEED};
use cycle_lab::engine::{release_specs, Engine, Outcome, ProgramSpec};
use cycle_lab::gate::release_dir;
use cycle_lab::sweep::{self, Progress};

fn specs() -> Vec<ProgramSpec> {
    release_specs(&release_dir()).unwrap_or_else(|e| panic!("{e}; build with ./build.sh build"))
}

fn debugger_cycles(tx_file: &std::path::Path, index: usize) -> u64 {
    let run = ckb_mmr_sdk::debugger::run_lock(tx_file, index).unwrap();
    assert_eq!(run.result, 0, "ckb-debugger rejected input {index}");
    run.cycles
}

#[test]
fn engine_equals_ckb_debugger_on_the_reference_seed() {
    let specs = specs();
    let w = Workload::from_seed(REFERENCE_SEED);
    let cells: Vec<tx::Cell> = specs
        .iter()
        .map(|s| tx::Cell {
            binary: s.binary.clone(),
            lock_args: w.lock_args(),
            payload: w.payload(s.format).unwrap(),
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("cycle-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tx.json");
    let json = serde_json::to_string(&tx::mock_transaction(&cells)).unwrap();
    std::fs::write(&file, json).unwrap();
    let engine = Engine::new(&specs);
    for (i, s) in specs.iter().enumerate() {
        let expected = debugger_cycles(&file, i);
        assert_eq!(
            engine.run_honest(i, &w),
            Outcome::Accepted(expected),
            "{}: in-process ckb-script vs ckb-debugger",
            s.name
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn parallel_sweep_equals_one_thread() {
    let specs = specs();
    let seeds: Vec<u64> = (1..=20).collect();
    let one = sweep::run(&specs, &seeds, 1, "1 thread", Progress::Quiet).unwrap();
    let threads = sweep::all_threads().max(2);
    let all = sweep::run(&specs, &seeds, threads, "all", Progress::Quiet).unwrap();
    assert_eq!(one.cycles, all.cycles);
    assert_eq!(one.cycles.len(), seeds.len() * specs.len());
    assert!(one.cycles.iter().all(|&c| c > 0));
    // The sweep's cells are the engine's own numbers, seed by seed.
    let engine = Engine::new(&specs);
    let w = Workload::from_seed(seeds[7]);
    for p in 0..specs.len() {
        assert_eq!(
            engine.run_honest(p, &w),
            Outcome::Accepted(one.cycles[7 * specs.len() + p])
        );
    }
    for (p, spec) in specs.iter().enumerate() {
        let s = one.stats(p);
        assert!(s.min <= s.median && s.median <= s.max);
        println!(
            "{:<20} min {} median {} max {}",
            spec.name, s.min, s.median, s.max
        );
    }
    println!(
        "1 thread {:.1} seeds/s, {} threads {:.1} seeds/s",
        one.seeds_per_second(),
        all.threads,
        all.seeds_per_second()
    );
}

#[test]
fn a_rejection_fails_the_sweep_with_its_seed() {
    // The baseline binary given the compiled format rejects every honest proof.
    let mut specs = specs();
    specs.truncate(1);
    specs[0].format = cycle_lab::engine::Format::Compiled;
    let err = sweep::run(&specs, &[5, 6, 7], 2, "x", Progress::Quiet).unwrap_err();
    assert!(
        err.contains("baseline-verifier rejected the honest proof of seed"),
        "{err}"
    );
    assert!(err.contains("Rejected("), "{err}");
}

#[test]
fn median_is_a_measured_value() {
    let s = cycle_lab::sweep::Stats::of(vec![4, 1, 3, 2]);
    assert_eq!((s.min, s.median, s.max), (1, 2, 4));
    let s = cycle_lab::sweep::Stats::of(vec![5]);
    assert_eq!((s.min, s.median, s.max), (5, 5, 5));
}
