//! The ring's exhaustive search (docs/concurrency-design.md section 3, "The exhaustive
//! search", item 2): `cargo run --release -p assurance --bin ring-search [-- --reduced]`.
//! Exits 1 on any problem, 2 on a usage error.

use assurance::ring_search::{run, Config, Variant};
use clap::Parser;

/// The ring's exhaustive search, core against model; exits 1 on any problem, 2 on a usage error
#[derive(Parser, Debug)]
#[command(name = "ring-search")]
struct Cli {
    /// The reduced search (the test suite's size)
    #[arg(long)]
    reduced: bool,
    /// Worker threads
    #[arg(long, value_name = "N", default_value_t = 2)]
    threads: usize,
}

fn main() {
    let cli: Cli = cli_usage::parse("ring-search");
    let mut cfg = if cli.reduced {
        Config::reduced()
    } else {
        Config::full()
    };
    cfg.threads = cli.threads;
    let problems = assurance::timed("ring search", &cfg, |cfg| run(cfg, Variant::Core));
    assurance::finish(
        problems,
        "0 forgeries, 0 disagreements, every honest transition accepted, every ring code reached",
    );
}
