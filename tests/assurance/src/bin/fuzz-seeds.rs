//! Writes the fuzzer's seed corpus (`tests/fuzz/corpus/differential/`), deterministic:
//!
//!   cargo run --release -p assurance --bin fuzz-seeds -- tests/fuzz/corpus/differential
//!
//! Every seed is checked before it is written.

use clap::Parser;

/// Writes the fuzzer's seed corpus, every seed checked first
#[derive(Parser, Debug)]
#[command(name = "fuzz-seeds")]
struct Cli {
    /// The corpus directory
    #[arg(value_name = "DIR", default_value = "tests/fuzz/corpus/differential")]
    dir: String,
}

fn main() {
    let dir = cli_usage::parse::<Cli>("fuzz-seeds").dir;
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
