//! One run of `bench/merge-bench` in ckb-script (ckb-testtool), shared by the merge-bench
//! tests: the binary as the lock of one input, `args` as its script args, `witness` (if any)
//! as witness 0. `Ok(cycles)` or the script's exit code.

use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder},
    packed::{CellInput, CellOutput},
    prelude::*,
};
use ckb_testtool::context::Context;

pub fn run(args: Vec<u8>, witness: Option<Vec<u8>>, max_cycles: u64) -> Result<u64, i8> {
    let path = tests::release_dir().join("../bench/merge-bench");
    let binary: Bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run ./build.sh build", path.display()))
        .into();
    let mut context = Context::default();
    let out_point = context.deploy_cell(binary);
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
    let mut tx = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(cell).build())
        .output(
            CellOutput::new_builder()
                .capacity(1_000u64)
                .lock(lock)
                .build(),
        )
        .output_data(Bytes::new().pack());
    if let Some(w) = witness {
        tx = tx.witness(Bytes::from(w).pack());
    }
    let tx = context.complete_tx(tx.build());
    context
        .verify_tx(&tx, max_cycles)
        .map_err(|e| tests::exit_code(&e.to_string()))
}
