//! Cycles per MMR merge in CKB-VM for each hashing path (docs/performance.md). Run with
//! `cargo test --release -p tests --test merge_bench -- --nocapture` after `./build.sh build`
//! to print the table.

mod merge_bench_tx;

const MERGES: u32 = 2000;

fn cycles(path: u8, count: u32) -> u64 {
    let mut args = vec![path];
    args.extend_from_slice(&count.to_le_bytes());
    merge_bench_tx::run(args, None, 100_000_000).expect("merge-bench runs")
}

#[test]
fn cycles_per_merge() {
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
        let fixed = cycles(path as u8, 0);
        let total = cycles(path as u8, MERGES);
        let each = (total - fixed) as f64 / MERGES as f64;
        println!("| {name} | {each:.1} |");
        per_merge.push(each);
    }
    // Each step must pay for itself, and the kernels must stay at their counted floors
    // (docs/hashing.md): the assembly kernel is 1,299 cycles plus the call, 4 `sd` and the
    // loop; chained in registers 1,291 plus the call and the loop.
    assert!(per_merge.windows(2).all(|w| w[0] > w[1]), "{per_merge:?}");
    assert!(
        per_merge[3] <= 1400.0,
        "merge kernel costs {} cycles",
        per_merge[3]
    );
    assert!(
        per_merge[4] <= 1315.5,
        "assembly kernel costs {} cycles",
        per_merge[4]
    );
    assert!(
        per_merge[5] <= 1299.5,
        "assembly kernel in registers costs {} cycles",
        per_merge[5]
    );
}
