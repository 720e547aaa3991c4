//! checksums.txt lists the sha256 of the stripped release binaries; `./build.sh test` rebuilds
//! them first, so this checks that the pinned toolchain reproduces the committed binaries.
//! After an intended change to a verifier, `./build.sh checksums` rewrites the file.

use cycle_lab::checksums;
use cycle_lab::gate::{release_dir, workspace_root};

#[test]
fn release_binaries_match_checksums() {
    let path = workspace_root().join("checksums.txt");
    let text = cycle_lab::read(&path)
        .unwrap_or_else(|e| panic!("{e}; create it with ./build.sh checksums"));
    let listed = checksums::parse(&text).unwrap_or_else(|e| panic!("checksums.txt: {e}"));
    let mut problems = Vec::new();
    for name in checksums::BINARIES {
        let file = release_dir().join(name);
        let bytes = std::fs::read(&file)
            .unwrap_or_else(|e| panic!("{}: {e}; build with ./build.sh build", file.display()));
        let actual = checksums::sha256_hex(&bytes);
        match listed.iter().find(|(_, n)| n == name) {
            None => problems.push(format!("{name}: not listed")),
            Some((hash, _)) if *hash != actual => {
                problems.push(format!("{name}: listed {hash}, built {actual}"))
            }
            Some(_) => println!("{name}: {actual} ok"),
        }
    }
    assert!(
        problems.is_empty(),
        "build/release differs from checksums.txt:\n  {}\nIf a verifier changed on purpose, run \
         ./build.sh checksums and commit checksums.txt with the change.",
        problems.join("\n  ")
    );
}

#[test]
fn parse_rejects_garbage() {
    assert!(checksums::parse("abc  x\n").is_err());
    let h = "0".repeat(64);
    assert_eq!(
        checksums::parse(&format!("{h}  baseline-verifier\n")).unwrap(),
        vec![(h, "baseline-verifier".to_string())]
    );
    assert_eq!(
        checksums::sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
