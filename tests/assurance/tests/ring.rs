//! The ring's assurance (docs/concurrency-design.md section 3, "The exhaustive search", items 2
//! and 5): the reduced exhaustive search of the type script's rules, core against model (the
//! full one is `cargo run --release -p assurance --bin ring-search`, 12 leaves), the harness's
//! composition of the core's rule functions checked against the core's entry, and the
//! negative controls, each required to be caught.

use assurance::ring_search::{run, Config, Variant};
use assurance::Outcome;

#[test]
fn reduced_search_finds_nothing() {
    let st = run(&Config::reduced(), Variant::Core);
    print!("{}", st.report());
    assert_eq!(st.problems(), 0, "{}", st.report());
    assert!(st.honest > 10_000 && st.states > 1_000, "{}", st.report());
    for c in -106..=-100i8 {
        assert!(st.codes.contains_key(&c), "code {c} never reached");
    }
}

/// The controls run the core's pub rule functions composed by the harness: with nothing
/// removed, that composition must be the core's `verify_ring` on every candidate.
#[test]
fn composition_is_the_core() {
    let st = run(&Config::reduced(), Variant::Composed);
    assert_eq!(st.problems(), 0, "{}", st.report());
}

/// The controls on histories to 5 leaves (each is caught thousands of times there).
fn caught(v: Variant) -> assurance::ring_search::Stats {
    let cfg = Config {
        max_leaves: 5,
        ..Config::reduced()
    };
    let st = run(&cfg, v);
    println!("{v:?}:\n{}", st.report());
    assert!(st.forgeries > 0, "{v:?} not caught:\n{}", st.report());
    st
}

#[test]
fn search_catches_a_missing_oldest_check() {
    let st = caught(Variant::NoOldest);
    assert!(st.bad_multiset > 0);
}

#[test]
fn search_catches_a_missing_snapshot_data_check() {
    let st = caught(Variant::NoSnapshotData);
    assert!(st.bad_state > 0);
}

#[test]
fn search_catches_a_wrong_shift() {
    let st = caught(Variant::WrongShift);
    assert!(st.bad_multiset > 0);
}

#[test]
fn search_catches_shape_1_2_allowed() {
    let st = caught(Variant::Shape12);
    assert!(st.bad_count > 0);
}

#[test]
fn search_catches_a_missing_lock_check() {
    let st = caught(Variant::NoLock);
    assert!(st.bad_lock > 0);
}
