//! The exhaustive forgery searches (see `assurance::exhaustive`, `assurance::compact_search`
//! and SECURITY.md): version 2 of the compiled format (the compact format the deployed
//! verifiers read), then version 1 and the baseline format.
//!
//!   cargo run --release -p assurance --bin exhaustive            both full searches
//!   cargo run --release -p assurance --bin exhaustive -- --reduced
//!   ... -- --search compact --max-leaves 12 --max-claim 3 --full-limit 65536 --changes 2
//!   ... -- --search v1 --max-leaves 16 --items 3 --skeleton-len 6 --pair-skeleton-len 5
//!
//! Prints the counts and exits 1 if any forgery, disagreement, rejected honest proof or
//! undocumented code was found.

use assurance::compact_search;
use assurance::exhaustive::{run, Config};
use clap::{Parser, ValueEnum};

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Search {
    /// Version 2 of the compiled format (compact)
    Compact,
    /// Version 1 of the compiled format and the baseline format
    V1,
    /// Both
    All,
}

/// The exhaustive forgery search; exits 1 if anything was found, 2 on a usage error
#[derive(Parser, Debug)]
#[command(name = "exhaustive")]
struct Cli {
    /// Start from the reduced search instead of the full one
    #[arg(long)]
    reduced: bool,
    /// Which search
    #[arg(long, value_enum, default_value = "all")]
    search: Search,
    /// Compact: claims of 1..=N leaves
    #[arg(long, value_name = "N")]
    max_claim: Option<usize>,
    /// Compact: every pool tuple of a value pass up to N fillings, else changes of the honest one
    #[arg(long, value_name = "N")]
    full_limit: Option<u64>,
    /// Compact: slots changed from the honest filling past the limit
    #[arg(long, value_name = "N")]
    changes: Option<usize>,
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
    let mut problems = 0;
    if cli.search != Search::V1 {
        problems += compact(&cli);
    }
    if cli.search != Search::Compact {
        problems += v1(&cli);
    }
    assurance::finish(
        problems,
        "0 forgeries, 0 disagreements, every honest proof accepted",
    );
}

/// Each option given replaces its field of the config (`option => field`; the option's name
/// alone when they match); the rest keep the reduced or full search's values.
macro_rules! given {
    ($cli:expr, $cfg:expr; $($opt:ident $(=> $field:ident)?),* $(,)?) => {
        $( given!(@one $cli, $cfg, $opt $(, $field)?); )*
    };
    (@one $cli:expr, $cfg:expr, $opt:ident) => { given!(@one $cli, $cfg, $opt, $opt) };
    (@one $cli:expr, $cfg:expr, $opt:ident, $field:ident) => {
        if let Some(v) = $cli.$opt {
            $cfg.$field = v;
        }
    };
}

/// The compact (version 2) search; returns its problems.
fn compact(cli: &Cli) -> u64 {
    let mut cfg = if cli.reduced {
        compact_search::Config::reduced()
    } else {
        compact_search::Config::full()
    };
    given!(cli, cfg; max_leaves, max_claim, full_limit, changes, threads);
    assurance::timed("compact search", &cfg, compact_search::run)
}

/// The version 1 and baseline search; returns its problems.
fn v1(cli: &Cli) -> u64 {
    let mut cfg = if cli.reduced {
        Config::reduced()
    } else {
        Config::full()
    };
    given!(cli, cfg; max_leaves, items => max_items, skeleton_len, pair_skeleton_len,
        pair_value_limit, threads);
    assurance::timed("exhaustive search", &cfg, run)
}
