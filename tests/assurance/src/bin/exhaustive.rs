//! The exhaustive forgery search (see `assurance::exhaustive` and SECURITY.md).
//!
//!   cargo run --release -p assurance --bin exhaustive            the full search
//!   cargo run --release -p assurance --bin exhaustive -- --reduced
//!   ... -- --max-leaves 16 --items 3 --skeleton-len 6 --pair-skeleton-len 5 --threads 2
//!
//! Prints the counts and exits 1 if any forgery, disagreement, rejected honest proof or
//! undocumented code was found.

use assurance::exhaustive::{run, Config};
use clap::Parser;

/// The exhaustive forgery search; exits 1 if anything was found, 2 on a usage error
#[derive(Parser, Debug)]
#[command(name = "exhaustive")]
struct Cli {
    /// Start from the reduced search instead of the full one
    #[arg(long)]
    reduced: bool,
    /// MMRs of 1..=N leaves
    #[arg(long, value_name = "N")]
    max_leaves: Option<u64>,
    /// Proof items per skeleton
    #[arg(long, value_name = "N")]
    items: Option<usize>,
    /// Opcode skeletons up to this length
    #[arg(long, value_name = "N")]
    skeleton_len: Option<usize>,
    /// Pair skeletons up to this length
    #[arg(long, value_name = "N")]
    pair_skeleton_len: Option<usize>,
    /// Pair values below this limit
    #[arg(long, value_name = "N")]
    pair_value_limit: Option<u64>,
    /// Worker threads
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

fn main() {
    let cli: Cli = cli_usage::parse("exhaustive");
    let mut cfg = if cli.reduced {
        Config::reduced()
    } else {
        Config::full()
    };
    cfg.max_leaves = cli.max_leaves.unwrap_or(cfg.max_leaves);
    cfg.max_items = cli.items.unwrap_or(cfg.max_items);
    cfg.skeleton_len = cli.skeleton_len.unwrap_or(cfg.skeleton_len);
    cfg.pair_skeleton_len = cli.pair_skeleton_len.unwrap_or(cfg.pair_skeleton_len);
    cfg.pair_value_limit = cli.pair_value_limit.unwrap_or(cfg.pair_value_limit);
    cfg.threads = cli.threads.unwrap_or(cfg.threads);
    println!("exhaustive search: {cfg:?}");
    let start = std::time::Instant::now();
    let stats = run(&cfg);
    print!("{}", stats.report());
    println!("elapsed: {:.1} s", start.elapsed().as_secs_f64());
    if stats.problems() != 0 {
        println!("RESULT: {} problems", stats.problems());
        std::process::exit(1);
    }
    println!("RESULT: 0 forgeries, 0 disagreements, every honest proof accepted");
}
