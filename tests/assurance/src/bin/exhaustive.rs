//! The exhaustive forgery search (see `assurance::exhaustive` and SECURITY.md).
//!
//!   cargo run --release -p assurance --bin exhaustive            the full search
//!   cargo run --release -p assurance --bin exhaustive -- --reduced
//!   ... -- --max-leaves 16 --items 3 --skeleton-len 6 --pair-skeleton-len 5 --threads 2
//!
//! Prints the counts and exits 1 if any forgery, disagreement, rejected honest proof or
//! undocumented code was found.

use assurance::exhaustive::{run, Config};

fn main() {
    let mut cfg = Config::full();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--reduced" => cfg = Config::reduced(),
            "--max-leaves" => cfg.max_leaves = num("--max-leaves"),
            "--items" => cfg.max_items = num("--items") as usize,
            "--skeleton-len" => cfg.skeleton_len = num("--skeleton-len") as usize,
            "--pair-skeleton-len" => cfg.pair_skeleton_len = num("--pair-skeleton-len") as usize,
            "--pair-value-limit" => cfg.pair_value_limit = num("--pair-value-limit"),
            "--threads" => cfg.threads = num("--threads") as usize,
            other => {
                eprintln!("unknown argument {other}; see the source header for usage");
                std::process::exit(2);
            }
        }
    }
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
