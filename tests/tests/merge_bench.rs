//! Cycles per MMR merge in CKB-VM for each hashing path (docs/performance.md). Run with
//! `cargo test --release -p tests --test merge_bench -- --nocapture` after `./build.sh build`
//! to print the table.

use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder},
    packed::{CellInput, CellOutput},
    prelude::*,
};
use ckb_testtool::context::Context;

const MERGES: u32 = 2000;

fn cycles(binary: &Bytes, path: u8, count: u32) -> u64 {
    let mut context = Context::default();
    let out_point = context.deploy_cell(binary.clone());
    let mut args = vec![path];
    args.extend_from_slice(&count.to_le_bytes());
    let lock = context
        .build_script_with_hash_type(&out_point, ScriptHashType::Data2, args.into())
        .unwrap();
    let cell = context.create_cell(
        CellOutput::new_builder()
            .capacity(100_000_000_000u64)
            .lock(lock.clone())
            .build(),
        Bytes::new(),
    );
    let tx = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(cell).build())
        .output(
            CellOutput::new_builder()
                .capacity(1_000u64)
                .lock(lock)
                .build(),
        )
        .output_data(Bytes::new().pack())
        .build();
    let tx = context.complete_tx(tx);
    context
        .verify_tx(&tx, 100_000_000)
        .expect("merge-bench runs")
}

#[test]
fn cycles_per_merge() {
    let path = tests::release_dir().join("../bench/merge-bench");
    let binary: Bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run ./build.sh build", path.display()))
        .into();
    let names = [
        "generic: builder computed per merge",
        "const builder per merge",
        "const builder, one hasher re-initialised",
        "merge kernel (32+32 bytes)",
        "assembly kernel, memory to memory",
        "assembly kernel, result kept in registers",
    ];
    let mut per_merge = Vec::new();
    println!("| hashing path | cycles per merge |\n| --- | ---: |");
    for (path, name) in names.iter().enumerate() {
        let fixed = cycles(&binary, path as u8, 0);
        let total = cycles(&binary, path as u8, MERGES);
        let each = (total - fixed) as f64 / MERGES as f64;
        println!("| {name} | {each:.1} |");
        per_merge.push(each);
    }
    // Each step must pay for itself, and the kernels must stay at their counted floors
    // (docs/hashing.md): the assembly kernel is 1,303 cycles plus the call, 4 `sd` and the
    // loop; chained in registers 1,295 plus the call and the loop.
    assert!(per_merge.windows(2).all(|w| w[0] > w[1]), "{per_merge:?}");
    assert!(
        per_merge[3] <= 1400.0,
        "merge kernel costs {} cycles",
        per_merge[3]
    );
    assert!(
        per_merge[4] <= 1319.5,
        "assembly kernel costs {} cycles",
        per_merge[4]
    );
    assert!(
        per_merge[5] <= 1303.5,
        "assembly kernel in registers costs {} cycles",
        per_merge[5]
    );
}
