//! Replays the committed fuzz corpus (tests/fuzz/corpus/differential) through the differential
//! check without libFuzzer, so the default test suite covers it on any toolchain.

#[test]
fn committed_fuzz_corpus_passes_the_differential_check() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/differential");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = assurance::diff::run_one(&data) {
            panic!("{}: {e}", path.display());
        }
        files += 1;
    }
    assert!(files >= 256, "only {files} corpus files");
    println!("{files} corpus inputs replayed");
}

/// The seeds are what `fuzz-seeds` writes: regenerating them changes nothing.
#[test]
fn seeds_are_reproducible() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/differential");
    for (i, s) in assurance::diff::seed_inputs(256).iter().enumerate() {
        let committed = std::fs::read(dir.join(format!("seed-{i:04}"))).unwrap();
        assert_eq!(&committed, s, "seed {i}");
    }
}

/// Honest proofs in synthetic MMRs up to the lock's limit (mmr_size 2^50, heights to 49,
/// leaf indexes near 2^49) are accepted by all three cores and the model.
#[test]
fn synthetic_large_mmrs_honest_proofs_accepted() {
    let mut rng = assurance::diff::Rng(77);
    let mut big = 0;
    for i in 0..400u64 {
        let mut d = vec![13u8, (i % 4) as u8];
        d.extend(rng.bytes(12)); // ends before the mutation count: no mutation
        let case = assurance::diff::decode(&d);
        assert!(case.truth.mmr.is_none());
        let codes = assurance::diff::run_one(&d).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (codes.baseline, codes.compiled, codes.c),
            (0, 0, 0),
            "{}",
            case.describe()
        );
        big += (case.truth.leaf_count > 1 << 40) as u32;
    }
    assert!(big > 100);
}

/// A fuzz find (the differential target, 2026-11-26): in a synthetic MMR of 2^49 + 1 leaves,
/// a claimed leaf and its height-0 sibling item swapped, with the index moved to the
/// sibling. That proves leaf i + 1's true value (a height-0 item *is* a leaf), which all three
/// cores rightly accept; the oracle knew only the claimed leaves and called it a forgery.
#[test]
fn a_height_0_item_is_a_leaf_of_the_synthetic_mmr() {
    let data: [u8; 104] = [
        13, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
        16, 16, 0, 2, 114, 18, 2, 0, 119, 251, 16, 16, 16, 16, 16, 1, 0, 0, 3, 16, 16, 16, 16, 16,
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 0,
        0, 0, 0, 0, 0, 0, 250, 250, 250, 250, 250,
    ];
    let codes = assurance::diff::run_one(&data).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((codes.baseline, codes.compiled, codes.c), (0, 0, 0));
}
