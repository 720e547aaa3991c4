//! The reduced exhaustive forgery search (seconds in release; the full search is
//! `cargo run --release -p assurance --bin exhaustive`, see SECURITY.md).

use assurance::exhaustive::{run, Config};

#[test]
fn reduced_exhaustive_search_finds_nothing() {
    let cfg = Config::reduced();
    let stats = run(&cfg);
    print!("{}", stats.report());
    assert_eq!(stats.problems(), 0, "{}", stats.report());
    assert!(stats.honest > 100);
    assert!(stats.baseline_single_accepted > 0 && stats.compiled_single_accepted > 0);
}
