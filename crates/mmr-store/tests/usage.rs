//! Usage errors of `mmr-store` and `mmr-store-scale`: an unknown option, a missing value and a
//! malformed one each give exit 2 and one line on standard error naming the problem and the
//! command, print nothing, and create or change no store; `mmr-store COMMAND --help` is that
//! command's help alone.

use cli_usage::testing;
use std::process::{Command, Output};

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().unwrap()
}

/// `bin`'s usage error: one line starting with the binary's name (`mmr-store: `).
fn usage_error(bin: &str, args: &[&str], names: &[&str]) {
    let name = std::path::Path::new(bin)
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap();
    testing::assert_usage_error(&run(bin, args), args, &format!("{name}: "), names);
}

fn scratch(name: &str) -> std::path::PathBuf {
    testing::scratch("mmr-store", name)
}

#[test]
fn store_usage_errors_are_one_line_and_touch_no_store() {
    let bin = env!("CARGO_BIN_EXE_mmr-store");
    let dir = scratch("store");
    let store = dir.join("s");
    let s = store.display().to_string();
    let leaves = dir.join("leaves.txt");
    std::fs::write(&leaves, format!("{}\n", "11".repeat(32))).unwrap();
    let l = leaves.display().to_string();
    let hex32 = "22".repeat(32);
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["init", &s, "--frobnicate"],
            vec!["'--frobnicate'", "(mmr-store init --help)"],
        ),
        (
            vec!["init", &s, "--accumulator"],
            vec!["'--accumulator <HEX32>'", "a value is required"],
        ),
        (
            vec!["init", &s, "--accumulator", "0x12"],
            vec!["'0x12'", "32 bytes of hex"],
        ),
        (
            vec!["append", &s, "--leaves"],
            vec!["'--leaves <FILE>'", "(mmr-store append --help)"],
        ),
        (
            vec!["append", &s, "--leaves", &l, "--batch", "x"],
            vec!["'x'", "--batch"],
        ),
        (vec!["append", &s], vec!["--leaves <FILE>", "required"]),
        (
            vec!["prove", &s, "--index", "3-1"],
            vec!["'3-1'", "(mmr-store prove --help)"],
        ),
        (
            vec!["prove", &s, "--index", "0", "--format", "fast"],
            vec!["'fast'", "--format"],
        ),
        (
            vec!["ancestry", &s],
            vec!["--from <OLD>", "(mmr-store ancestry --help)"],
        ),
        (
            vec!["set-accumulator", &s],
            vec!["<HEX32>", "(mmr-store set-accumulator --help)"],
        ),
        (
            vec!["check", &s, &hex32],
            vec!["unexpected argument", "(mmr-store check --help)"],
        ),
        (
            vec!["frobnicate", &s],
            vec!["'frobnicate'", "(mmr-store --help)"],
        ),
    ];
    for (args, names) in cases {
        usage_error(bin, &args, &names);
        assert!(!store.exists(), "{args:?} created the store");
    }
    // On an existing store a usage error changes nothing.
    assert!(run(bin, &["init", &s]).status.success());
    let before = std::fs::read_dir(&store).unwrap().count();
    usage_error(
        bin,
        &["append", &s, "--leaves", &l, "--expect-root", "0x1"],
        &["--expect-root"],
    );
    usage_error(bin, &["set-accumulator", &s, "0x1"], &["32 bytes of hex"]);
    let info = String::from_utf8(run(bin, &["info", &s]).stdout).unwrap();
    assert!(
        info.contains("mmr_size: 0") && info.contains("accumulator: none"),
        "{info}"
    );
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_commands_help_is_its_own() {
    let bin = env!("CARGO_BIN_EXE_mmr-store");
    for (command, own, others) in [
        (
            "append",
            "--expect-root",
            &["--index", "--from", "Exit codes:"][..],
        ),
        (
            "prove",
            "--index",
            &["--expect-root", "--from", "set-accumulator"][..],
        ),
        ("ancestry", "--from", &["--index", "--batch"][..]),
    ] {
        let out = run(bin, &[command, "--help"]);
        testing::assert_own_help(out, &format!("mmr-store {command}"), own, others);
    }
    let top = String::from_utf8(run(bin, &["--help"]).stdout).unwrap();
    assert!(
        top.contains("Exit codes:") && top.contains("  append-payload "),
        "{top}"
    );
    let none = run(bin, &[]);
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn scale_usage_errors_are_one_line_and_write_nothing() {
    let bin = env!("CARGO_BIN_EXE_mmr-store-scale");
    let dir = scratch("scale");
    let json = dir.join("rust.json").display().to_string();
    let stores = dir.join("stores").display().to_string();
    let base = ["--json", &json, "--dir", &stores];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            [&base[..], &["--leaves", "10", "--frobnicate"]].concat(),
            vec!["'--frobnicate'", "(mmr-store-scale --help)"],
        ),
        (
            [&base[..], &["--leaves", "10", "--batch"]].concat(),
            vec!["'--batch <N>'", "a value is required"],
        ),
        (
            [&base[..], &["--leaves", "10", "--hashers", "9"]].concat(),
            vec!["'9'", "--hashers", "1 to 4"],
        ),
        (
            [&base[..], &["--leaves", "ten"]].concat(),
            vec!["'ten'", "--leaves"],
        ),
    ];
    for (args, names) in cases {
        usage_error(bin, &args, &names);
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
