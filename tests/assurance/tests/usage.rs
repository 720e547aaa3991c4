//! The assurance binaries' usage errors: an unknown option, a missing value and a malformed
//! one each give exit 2 and one line naming the problem, print nothing and write nothing,
//! before any search or export starts.

use std::process::Command;

fn usage_error(bin: &str, args: &[&str], names: &[&str]) {
    let out = Command::new(bin).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{bin} {args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{bin} {args:?}");
    assert_eq!(stderr.lines().count(), 1, "{bin} {args:?}: {stderr}");
    for name in names {
        assert!(stderr.contains(name), "{args:?}: {name} not in {stderr}");
    }
}

#[test]
fn usage_errors_are_one_line_and_write_nothing() {
    let dir = std::env::temp_dir().join(format!("assurance-usage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out_dir = dir.join("out").display().to_string();
    let exhaustive = env!("CARGO_BIN_EXE_exhaustive");
    usage_error(
        exhaustive,
        &["--frobnicate"],
        &["'--frobnicate'", "(exhaustive --help)"],
    );
    usage_error(
        exhaustive,
        &["--reduced", "--threads"],
        &["'--threads <N>'", "a value is required"],
    );
    usage_error(exhaustive, &["--items", "three"], &["'three'", "--items"]);
    let search = env!("CARGO_BIN_EXE_accumulator-search");
    usage_error(
        search,
        &["--reduce"],
        &["'--reduce'", "(accumulator-search --help)"],
    );
    let ring = env!("CARGO_BIN_EXE_ring-search");
    usage_error(ring, &["--reduce"], &["'--reduce'", "(ring-search --help)"]);
    usage_error(ring, &["--threads", "two"], &["'two'", "--threads"]);
    let export = env!("CARGO_BIN_EXE_export-vectors");
    usage_error(export, &[], &["<OUT_DIR>", "(export-vectors --help)"]);
    usage_error(export, &[&out_dir, "--frobnicate"], &["'--frobnicate'"]);
    let seeds = env!("CARGO_BIN_EXE_fuzz-seeds");
    usage_error(
        seeds,
        &[&out_dir, "--frobnicate"],
        &["'--frobnicate'", "(fuzz-seeds --help)"],
    );
    usage_error(seeds, &[&out_dir, "extra"], &["'extra'"]);
    assert!(!dir.exists(), "a usage error wrote {}", dir.display());
}
