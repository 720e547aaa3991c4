//! tx.json as ckb-debugger runs it: every input accepted, and the cycles ckb-debugger prints
//! equal the cycles ckb-testtool measures for the same script (same ckb-script engine).

use ckb_mmr_sdk::{tx, Workload};
use tests::{honest, run, Outcome, Verifier};

#[test]
fn debugger_agrees_with_testtool() {
    let verifiers: Vec<Verifier> = tests::available_verifiers();
    for seed in [2u64, ckb_mmr_sdk::REFERENCE_SEED] {
        let w = Workload::from_seed(seed);
        let cells = tests::mock_cells(&verifiers, &w, &w.lock_args());
        let json = tx::mock_transaction(&cells);
        let (dir, file) = tests::write_tx_json(&format!("mmr-debugger-{seed}"), &json);
        for (i, &v) in verifiers.iter().enumerate() {
            let dbg = ckb_mmr_sdk::debugger::run_lock(&file, i).unwrap();
            assert_eq!(dbg.result, 0, "{v:?} seed {seed}");
            let cycles = dbg.cycles;
            assert_eq!(
                run(v, &honest(v, &w)),
                Outcome::Accepted(cycles),
                "{v:?} seed {seed}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
