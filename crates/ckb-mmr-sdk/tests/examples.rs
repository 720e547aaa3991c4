//! Runs the examples in examples/: `prove` always; the dev-chain ones (`lock_and_spend`,
//! `accumulator`) when asked, since they need `ckb` and the release binaries:
//!
//! ```sh
//! ./build.sh build
//! cargo test --release --locked -p ckb-mmr-sdk --test examples -- --include-ignored
//! ```
//!
//! The examples' own code is compiled in here, so what they print is what these tests check.

#[path = "../examples/accumulator.rs"]
#[allow(dead_code)]
mod accumulator;
// accumulator.rs includes this file too: each example is a crate of its own.
#[path = "../examples/lock_and_spend.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod lock_and_spend;
#[path = "../examples/prove.rs"]
#[allow(dead_code)]
mod prove;

use ckb_mmr_sdk::ckb_types::{packed::WitnessArgs, prelude::*};
use ckb_mmr_sdk::{Format, Workload};
use std::path::PathBuf;

/// `CKB_MMR_RELEASE`, else the workspace's build/release (the test's arguments are filters,
/// not the examples' RELEASE_DIR).
fn release() -> PathBuf {
    let dir = std::env::var_os("CKB_MMR_RELEASE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/release"));
    assert!(
        dir.join("c-verifier").is_file() && dir.join("accumulator-type").is_file(),
        "no release binaries in {}: run ./build.sh build first",
        dir.display()
    );
    dir
}

fn leaves(n: u32) -> Vec<[u8; 32]> {
    (0..n)
        .map(|i| ckb_mmr_sdk::ckb_hash(&[&i.to_le_bytes()]))
        .collect()
}

#[test]
fn prove_builds_the_args_and_witness_of_its_leaves() {
    let p = prove::run().unwrap();
    let again = Workload::from_leaves(&leaves(100), &[99, 3, 50]).unwrap();
    assert_eq!(p.workload.root, again.root);
    assert_eq!(p.args.len(), 40);
    assert_eq!(&p.args[..32], &again.root);
    assert_eq!(p.args[32..], again.mmr_size.to_le_bytes());
    // The witness is a WitnessArgs whose lock is the compiled payload, nothing else set.
    let witness = WitnessArgs::from_slice(&p.witness).unwrap();
    let lock = witness.lock().to_opt().unwrap().raw_data();
    assert_eq!(lock, again.payload(Format::Compiled).unwrap());
    assert!(witness.input_type().is_none() && witness.output_type().is_none());
    // The proof it carries is the one for leaves 3, 50 and 99.
    let proved: Vec<[u8; 32]> = p.workload.proved.iter().map(|(_, v)| *v).collect();
    let all = leaves(100);
    assert_eq!(proved, vec![all[3], all[50], all[99]]);
}

#[test]
#[ignore = "needs ckb and ./build.sh build; run with --include-ignored"]
fn lock_and_spend_on_a_dev_chain() {
    let hash = lock_and_spend::run(&release()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hash.len(), 66, "{hash}");
}

#[test]
#[ignore = "needs ckb and ./build.sh build; run with --include-ignored"]
fn accumulator_create_append_spend_by_reference() {
    let (leaf_count, root, hash) = accumulator::run(&release()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(leaf_count, 8);
    assert_eq!(root, Workload::from_leaves(&leaves(8), &[0]).unwrap().root);
    assert_eq!(hash.len(), 66, "{hash}");
}
