//! The proof itself, as `./build.sh kernel-proof` runs it: every entry of every release
//! binary and of the assembled source, the stripped binaries' loaded bytes, the call sites
//! and the header.

mod common;

use kernel_proof::check::{prove_image, ENTRIES};
use kernel_proof::report::{self, Options};

#[test]
fn release_binaries_and_source_proved() {
    let images = report::release_images(&common::release_dir()).expect("release directory");
    let names: Vec<String> = images
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    for want in [
        "baseline-verifier.debug",
        "compiled-verifier.debug",
        "c-verifier.debug",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(want)),
            "{want} missing from {names:?}"
        );
        assert!(
            images.iter().any(|(p, s)| p.ends_with(want) && s.is_some()),
            "stripped {want}"
        );
    }
    let out = report::run(&Options {
        root: common::root(),
        images,
        assemble_into: Some(common::scratch("proof")),
        spec_samples: 500,
        concrete_samples: 20,
    });
    println!("{}", out.text);
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.entries_proved, ENTRIES.len());
}

#[test]
fn every_entry_proved_in_the_assembled_source() {
    let img = common::assembled_source("source");
    let results = prove_image(&img, &|_| None);
    assert_eq!(results.len(), 3);
    for (e, r) in results {
        let p = r.unwrap_or_else(|f| panic!("{}: {f}", e.name));
        // The instruction counts docs/hashing.md itemises.
        let steps = match e.name {
            "mmr_merge_rv64" => 1276,
            "mmr_merge_rv64_chain" => 1272,
            _ => 1277,
        };
        assert_eq!(p.steps, steps, "{}", e.name);
    }
}

#[test]
fn stripped_bytes_must_match() {
    let mut debug = common::release_image("compiled-verifier.debug");
    let stripped =
        kernel_proof::elf::Image::read_file(&common::release_dir().join("compiled-verifier"))
            .expect("stripped");
    assert!(report::same_loaded_bytes(&debug, &stripped));
    debug.segments[0].bytes[100] ^= 1;
    assert!(!report::same_loaded_bytes(&debug, &stripped));
}
