//! tx.json as ckb-debugger runs it: every input accepted, and the cycles ckb-debugger prints
//! equal the cycles ckb-testtool measures for the same script (same ckb-script engine).

use std::process::Command;
use tests::{honest, run, Outcome, Verifier};
use tx_generator::{tx, Workload};

fn debugger_cycles(tx_file: &std::path::Path, index: usize) -> (String, u64) {
    let out = Command::new("ckb-debugger")
        .args(["--tx-file"])
        .arg(tx_file)
        .args([
            "--cell-type",
            "input",
            "--script-group-type",
            "lock",
            "--cell-index",
        ])
        .arg(index.to_string())
        .output()
        .expect("ckb-debugger 1.1.1 on PATH (./build.sh deps installs it)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let field = |prefix: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in ckb-debugger output:\n{text}"))
            .trim()
            .to_string()
    };
    let cycles = field("All cycles:");
    let cycles = cycles.split('(').next().unwrap().trim().parse().unwrap();
    (field("Run result:"), cycles)
}

#[test]
fn debugger_agrees_with_testtool() {
    let verifiers: Vec<Verifier> = tests::available_verifiers();
    for seed in [2u64, tx_generator::REFERENCE_SEED] {
        let w = Workload::from_seed(seed);
        let cells: Vec<tx::Cell> = verifiers
            .iter()
            .map(|&v| tx::Cell {
                binary: v.binary().to_vec(),
                lock_args: w.lock_args(),
                payload: tests::payload(v, &w),
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("mmr-debugger-{}-{seed}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tx.json");
        std::fs::write(
            &file,
            serde_json::to_string(&tx::mock_transaction(&cells)).unwrap(),
        )
        .unwrap();
        for (i, &v) in verifiers.iter().enumerate() {
            let (result, cycles) = debugger_cycles(&file, i);
            assert_eq!(result, "0", "{v:?} seed {seed}");
            assert_eq!(
                run(v, &honest(v, &w)),
                Outcome::Accepted(cycles),
                "{v:?} seed {seed}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
