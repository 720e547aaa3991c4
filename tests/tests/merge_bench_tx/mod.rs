//! One run of `tools/merge-bench` in ckb-script (ckb-testtool), shared by the merge-bench
//! tests: the binary as the lock of one input, `args` as its script args, `witness` (if any)
//! as witness 0. `Ok(cycles)` or the script's exit code.

use ckb_testtool::ckb_types::bytes::Bytes;
use ckb_testtool::context::Context;

pub fn run(args: Vec<u8>, witness: Option<Vec<u8>>, max_cycles: u64) -> Result<u64, i8> {
    let path = tests::release_dir().join("../bench/merge-bench");
    let binary: Bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run ./build.sh build", path.display()))
        .into();
    let mut context = Context::default();
    let out_point = context.deploy_cell(binary);
    let tx = tests::spend(
        &mut context,
        &out_point,
        args.into(),
        witness.map(Bytes::from),
    );
    let tx = context.complete_tx(tx.build());
    context
        .verify_tx(&tx, max_cycles)
        .map_err(|e| tests::exit_code(&e.to_string()))
}

/// merge-bench's hashing paths (the first byte of its args), as docs/hashing.md names them.
#[allow(dead_code)] // merge_kernel_vm.rs runs the check mode only
pub const PATHS: [&str; 6] = [
    "generic: builder computed per merge",
    "const builder per merge",
    "const builder, one hasher re-initialised",
    "merge kernel (32+32 bytes)",
    "assembly kernel, memory to memory",
    "assembly kernel, result kept in registers",
];

/// The merges of each measured run.
#[allow(dead_code)]
pub const MERGES: u32 = 2000;

/// Cycles of `MERGES` merges on each path of `PATHS`: a run of `MERGES` merges less a run of
/// none (exact; divided by `MERGES` it is the cost per merge, which need not be whole).
#[allow(dead_code)]
pub fn cycles_of_merges() -> Vec<u64> {
    let cycles = |path: u8, count: u32| {
        let mut args = vec![path];
        args.extend_from_slice(&count.to_le_bytes());
        run(args, None, 100_000_000).expect("merge-bench runs")
    };
    (0..PATHS.len() as u8)
        .map(|path| cycles(path, MERGES) - cycles(path, 0))
        .collect()
}
