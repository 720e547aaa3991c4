//! Replays the committed fuzz corpus (fuzz/corpus/differential) through the differential
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
