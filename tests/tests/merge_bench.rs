//! Cycles per MMR merge in CKB-VM for each hashing path of `tools/merge-bench`. Run with
//! `cargo test --release -p tests --test merge_bench -- --nocapture` after `./build.sh build`
//! to print them; docs/hashing.md's table of them is checked by tests/tests/doc_tables.rs.

mod merge_bench_tx;

#[test]
fn cycles_per_merge() {
    let per_merge: Vec<f64> = merge_bench_tx::cycles_of_merges()
        .into_iter()
        .map(|c| c as f64 / f64::from(merge_bench_tx::MERGES))
        .collect();
    println!("| hashing path | cycles per merge |\n| --- | ---: |");
    for (name, each) in merge_bench_tx::PATHS.iter().zip(&per_merge) {
        println!("| {name} | {each:.3} |");
    }
    // Each step must pay for itself, and the kernels must stay at their counted floors
    // (docs/hashing.md): the assembly kernel is 1,299 cycles plus the call, 4 `sd` and the
    // loop; chained in registers 1,291 plus the call and the loop.
    assert!(per_merge.windows(2).all(|w| w[0] > w[1]), "{per_merge:?}");
    for (path, floor, name) in [
        (3, 1400.0, "merge kernel"),
        (4, 1315.5, "assembly kernel"),
        (5, 1299.5, "assembly kernel in registers"),
    ] {
        let cost = per_merge[path];
        assert!(cost <= floor, "{name} costs {cost} cycles");
    }
}
