//! The command itself, as `./build.sh kernel-proof` runs it: exit 0 on a release binary, 1
//! when one bit of its linked kernel is flipped (the proof does not hold), 2 on bad usage.

mod common;

use std::path::Path;
use std::process::Command;

fn kernel_proof(args: &[&str], elf: Option<&Path>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kernel-proof"));
    cmd.args(args);
    if let Some(elf) = elf {
        cmd.arg("--elf").arg(elf);
    }
    let out = cmd.output().expect("runs kernel-proof");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn exit_codes_of_the_command() {
    let name = "compiled-verifier.debug";
    let good = common::release_dir().join(name);
    let img = common::release_image(name);
    let entry = img.symbol("mmr_merge_rv64").expect("the kernel is linked");
    let head = &img.code_at(entry).expect("code")[..32];
    let bytes = std::fs::read(&good).expect("the release binary");
    let found: Vec<usize> = (0..bytes.len() - head.len())
        .filter(|&i| &bytes[i..i + head.len()] == head)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "the kernel's first 32 bytes sit once in the file"
    );
    // One bit of an instruction inside round 0 (the checker's own mutation run shows almost
    // every such flip changes the result; this one does).
    let mut bad = bytes.clone();
    bad[found[0] + 96] ^= 0x08;
    let dir = common::scratch("cli");
    let mutated = dir.join("mutated.debug");
    std::fs::write(&mutated, &bad).unwrap();

    let (code, text) = kernel_proof(&["--no-source"], Some(&good));
    assert_eq!(code, Some(0), "the release binary: {text}");
    let (code, text) = kernel_proof(&["--no-source"], Some(&mutated));
    assert_eq!(code, Some(1), "one flipped bit in the kernel: {text}");
    let (code, text) = kernel_proof(&["--every", "0"], None);
    assert_eq!(code, Some(2), "bad usage: {text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Usage errors need no release binary: an unknown option, a missing value and a malformed one
/// are one line naming the problem and the command, exit 2, nothing printed; `mutants --help`
/// is the mutation run's help alone.
#[test]
fn usage_errors_are_one_line() {
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["--frobnicate"],
            &["'--frobnicate'", "(kernel-proof --help)"],
        ),
        (&["--elf"], &["'--elf <FILE.debug>'", "a value is required"]),
        (
            &["mutants", "--every", "0"],
            &["'0'", "--every", "(kernel-proof mutants --help)"],
        ),
        (
            &["mutants", "--no-source"],
            &["'--no-source'", "(kernel-proof mutants --help)"],
        ),
        (&["--every", "2"], &["'--every'", "(kernel-proof --help)"]),
    ];
    for (args, names) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_kernel-proof"))
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        for name in names {
            assert!(stderr.contains(name), "{args:?}: {name} not in {stderr}");
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-proof"))
        .args(["mutants", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Usage: kernel-proof mutants ") && text.contains("--bit-flips"),
        "{text}"
    );
    assert!(!text.contains("--no-source"), "{text}");
}
