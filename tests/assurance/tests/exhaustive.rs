//! The reduced exhaustive forgery search (seconds in release; the full search is
//! `cargo run --release -p assurance --bin exhaustive`, see SECURITY.md).

use assurance::exhaustive::{run, Config};
use assurance::Outcome;

#[test]
fn reduced_exhaustive_search_finds_nothing() {
    let cfg = Config::reduced();
    let stats = run(&cfg);
    print!("{}", stats.report());
    assert_eq!(stats.problems(), 0, "{}", stats.report());
    assert!(stats.honest > 100);
    assert!(stats.baseline_single_accepted > 0 && stats.compiled_single_accepted > 0);
}

// ---------------------------------------------------------------------------------------
// Version 2 of the compiled format (the compact format): the reduced search, its negative
// controls, and the ties of its oracle to the SDK and to docs/error-codes.md.

mod compact {
    use assurance::compact_model;
    use assurance::compact_native::{self, Variant};
    use assurance::compact_search::{run, Config, Stats};
    use assurance::mmr::Mmr;
    use assurance::Outcome;
    use ckb_mmr_sdk::{Format, Workload};

    fn reduced(variant: Variant) -> Stats {
        let stats = run(&Config {
            variant,
            ..Config::reduced()
        });
        print!("{variant:?}\n{}", stats.report());
        stats
    }

    #[test]
    fn reduced_compact_search_finds_nothing() {
        let st = reduced(Variant::Core);
        assert_eq!(st.problems(), 0, "{}", st.report());
        assert!(st.honest > 100 && st.accepted >= st.honest);
        // Every code of the version 2 table is reached (40 only natively: the lock never
        // hands the verifier such a leaf count).
        for c in compact_model::code::ALL {
            assert!(st.codes.contains_key(&c), "code {c} never reached");
        }
    }

    /// Negative controls: a core with one check removed must be caught.
    #[test]
    fn catches_a_core_that_never_compares_the_root() {
        let st = reduced(Variant::NoRootCompare);
        assert!(st.forgeries > 0 && st.disagreements > 0, "{}", st.report());
    }

    #[test]
    fn catches_a_core_that_ignores_trailing_bytes() {
        let st = reduced(Variant::IgnoresTrailing);
        assert!(st.not_unique > 0 && st.disagreements > 0, "{}", st.report());
        assert_eq!(st.forgeries, 0, "{}", st.report());
    }

    /// What it accepts has no claim under the spec (an overlong varint states nothing), so
    /// each acceptance counts as a forgery.
    #[test]
    fn catches_a_core_that_reads_overlong_varints() {
        let st = reduced(Variant::LaxVarints);
        assert!(st.forgeries > 0 && st.disagreements > 0, "{}", st.report());
    }

    /// A stand-in C core that swaps two codes: the C comparison the hook feeds is live.
    fn wrong_c(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
        match compact_native::rust_payload(payload, root, leaf_count) {
            45 => 46,
            c => c,
        }
    }

    #[test]
    fn catches_a_c_core_that_disagrees() {
        let st = run(&Config {
            max_leaves: 3,
            c_core: Some(wrong_c),
            ..Config::reduced()
        });
        assert!(st.c_disagreements > 0, "{}", st.report());
        assert_eq!(st.c_runs, st.payloads);
    }

    /// The search's re-encoding is the SDK's: for every claim of 1-3 leaves of every MMR of
    /// 1-12 leaves, `Workload::payload(Format::Compiled)` is the model's honest payload.
    #[test]
    fn sdk_payloads_are_the_models_honest_payloads() {
        let mut checked = 0;
        for n in 1..=12u64 {
            let mmr = Mmr::with_leaf_count(n, 0xc0de);
            for mask in 1u32..(1 << n) {
                if mask.count_ones() > 3 {
                    continue;
                }
                let indexes: Vec<u64> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
                let w = Workload::from_leaves(&mmr.leaves, &indexes).unwrap();
                let sdk = w.payload(Format::Compiled).unwrap();
                assert_eq!(
                    sdk,
                    compact_model::honest(&mmr, &indexes),
                    "{n} leaves, {indexes:?}"
                );
                assert_eq!(compact_model::code(&sdk, &mmr.root, n), 0);
                checked += 1;
            }
        }
        // Sum over n of C(n, 1) + C(n, 2) + C(n, 3) = C(13, 2) + C(13, 3) + C(13, 4).
        assert_eq!(checked, 78 + 286 + 715);
    }

    /// The model's codes are exactly the version 2 table of docs/error-codes.md (with 0 and
    /// the lock's 9).
    #[test]
    fn model_codes_are_the_documented_ones() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/error-codes.md"
        ))
        .unwrap();
        let start = text.find("## Compiled format").expect("compiled section");
        let end = start + text[start..].find("### Version 1").expect("version 1 part");
        let mut documented: Vec<i8> = text[start..end]
            .lines()
            .filter_map(tests::doc_code_row)
            .map(|(c, _)| c)
            .collect();
        documented.extend([0, 9]);
        documented.sort();
        let mut model: Vec<i8> = compact_model::code::ALL.to_vec();
        model.sort();
        assert_eq!(documented, model);
    }
}
