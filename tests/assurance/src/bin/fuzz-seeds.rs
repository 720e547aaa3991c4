//! Writes the fuzzer's seed corpus (`tests/fuzz/corpus/differential/`), deterministic:
//!
//!   cargo run --release -p assurance --bin fuzz-seeds -- tests/fuzz/corpus/differential
//!
//! Every seed is checked before it is written.

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/fuzz/corpus/differential".into());
    std::fs::create_dir_all(&dir).expect("create corpus directory");
    let seeds = assurance::diff::seed_inputs(256);
    for (i, s) in seeds.iter().enumerate() {
        if let Err(e) = assurance::diff::run_one(s) {
            panic!("seed {i} fails the differential check: {e}");
        }
        std::fs::write(format!("{dir}/seed-{i:04}"), s).expect("write seed");
    }
    println!("{} seeds written to {dir}", seeds.len());
}
