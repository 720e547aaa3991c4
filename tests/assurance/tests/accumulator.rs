//! The accumulator's assurance (SECURITY.md): the reduced exhaustive search (the full one is
//! `cargo run --release -p assurance --bin accumulator-search`, 16 leaves), its negative controls, and a
//! seeded random differential test of the core against the model.

use assurance::accumulator::{random_case, run, Config, Variant};
use assurance::Outcome;

#[test]
fn reduced_search_finds_nothing() {
    let st = run(&Config::reduced(), Variant::Core);
    print!("{}", st.report());
    assert_eq!(st.problems(), 0, "{}", st.report());
    assert!(st.honest > 100 && st.ancestry_accepted > 0 && st.append_accepted > 0);
    // Every code the core can decide from bytes (100-117 less the type script's payload
    // codes 114-117, which verify_update/verify_creation decide) is reached.
    for c in 100..=113 {
        assert!(
            st.codes_seen.contains(&c),
            "code {c} never reached: {}",
            st.report()
        );
    }
}

/// Negative controls: a copy of the core with one check removed must be caught.
#[test]
fn search_catches_a_missing_old_root_check() {
    let st = run(&Config::reduced(), Variant::NoOldRootCheck);
    assert!(st.forgeries > 0, "{}", st.report());
}

#[test]
fn search_catches_ignored_leftover_items() {
    let st = run(&Config::reduced(), Variant::IgnoresLeftovers);
    assert!(st.disagreements > 0, "{}", st.report());
}

#[test]
fn seeded_random_differential() {
    for seed in 0..20_000u64 {
        if let Err(e) = random_case(seed, 70) {
            panic!("{e}");
        }
    }
}

/// The long run recorded in SECURITY.md (`-- --ignored`).
#[test]
#[ignore = "about three minutes in release"]
fn seeded_random_differential_long() {
    for seed in 0..1_000_000u64 {
        if let Err(e) = random_case(seed, 70) {
            panic!("{e}");
        }
    }
}
