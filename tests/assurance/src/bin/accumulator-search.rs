//! The accumulator's full exhaustive search (SECURITY.md): `cargo run --release -p assurance
//! --bin accumulator-search [-- --reduced]`. Exits non-zero on any problem.

use assurance::accumulator::{run, Config, Variant};
use clap::Parser;

/// The accumulator's full exhaustive search; exits 1 on any problem, 2 on a usage error
#[derive(Parser, Debug)]
#[command(name = "accumulator-search")]
struct Cli {
    /// The reduced search (seconds, not minutes)
    #[arg(long)]
    reduced: bool,
}

fn main() {
    let cli: Cli = cli_usage::parse("accumulator-search");
    let cfg = if cli.reduced {
        Config::reduced()
    } else {
        Config::full()
    };
    let problems = assurance::timed("accumulator search", &cfg, |cfg| run(cfg, Variant::Core));
    assurance::finish(
        problems,
        "0 forgeries, 0 disagreements, every honest transition accepted",
    );
}
