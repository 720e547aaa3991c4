//! Usage errors: an unknown option, a missing value and a malformed one each give exit 2 and
//! one line on standard error naming the problem and the command, print nothing and write no
//! file; `tx-generator COMMAND --help` is that command's help alone.

use cli_usage::testing;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tx-generator"))
        .args(args)
        .env("SEED", "1")
        .output()
        .unwrap()
}

fn usage_error(args: &[&str], names: &[&str]) {
    testing::assert_usage_error(&run(args), args, "tx-generator: ", names);
}

#[test]
fn usage_errors_are_one_line_and_write_nothing() {
    let dir = testing::scratch("tx-generator", "write-nothing");
    let leaves = dir.join("leaves.txt");
    std::fs::write(&leaves, format!("{}\n", "11".repeat(32))).unwrap();
    let leaves = leaves.display().to_string();
    let out = dir.join("out.json").display().to_string();
    let this = std::env::current_exe().unwrap().display().to_string();
    let prove = ["prove", "--leaves", &leaves, "--index", "0"];
    let with = |extra: &[&'static str]| -> Vec<String> {
        prove
            .iter()
            .map(|s| s.to_string())
            .chain(extra.iter().map(|s| s.to_string()))
            .collect()
    };
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        // The journey: its out file is not written.
        (
            vec![out.clone(), this.clone(), "--frobnicate".into()],
            vec!["'--frobnicate'", "(tx-generator --help)"],
        ),
        (
            vec!["--owner-lock".into()],
            vec!["'--owner-lock <SCRIPT>'", "a value is required"],
        ),
        (vec![out.clone()], vec!["<BINARY>", "required"]),
        // prove: its --tx file is not written.
        (
            [
                with(&["--verifier"]),
                vec![
                    this.clone(),
                    "--tx".into(),
                    out.clone(),
                    "--frobnicate".into(),
                ],
            ]
            .concat(),
            vec!["'--frobnicate'", "(tx-generator prove --help)"],
        ),
        (
            [with(&["--tx"]), vec![out.clone()]].concat(),
            vec!["--verifier <BINARY>", "(tx-generator prove --help)"],
        ),
        (
            with(&["--index"]),
            vec!["'--index <LIST>'", "a value is required"],
        ),
        (
            with(&["--format", "fast"]),
            vec!["'fast'", "--format", "compiled or baseline"],
        ),
        (
            with(&["--size", "3"]),
            vec!["'--size <N>'", "--leaves", "(tx-generator prove --help)"],
        ),
        (
            vec!["prove".into(), "--index".into(), "0".into()],
            vec!["--leaves <FILE>", "required"],
        ),
        (
            vec!["vectors".into(), "--count".into(), "many".into()],
            vec!["'many'", "--count", "(tx-generator vectors --help)"],
        ),
        (
            vec!["acc-vectors".into(), "--small".into(), "300".into()],
            vec!["'300'", "--small", "(tx-generator acc-vectors --help)"],
        ),
        (
            vec!["acc-vectors".into(), "--seed".into()],
            vec!["'--seed <S>'", "a value is required"],
        ),
        (
            vec!["lock-hash".into()],
            vec!["<SCRIPT>", "(tx-generator lock-hash --help)"],
        ),
        (
            vec!["code-hash".into(), "a".into(), "b".into()],
            vec!["'b'", "(tx-generator code-hash --help)"],
        ),
    ];
    for (args, names) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        usage_error(&args, &names);
        assert!(!dir.join("out.json").exists(), "{args:?} wrote its output");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_commands_help_is_its_own() {
    for (command, own, others) in [
        (
            "prove",
            "--owner-lock",
            &["--count", "--pairs", "Environment:"][..],
        ),
        (
            "vectors",
            "--count",
            &["--pairs", "--owner-lock", "--index"][..],
        ),
        (
            "acc-vectors",
            "--pairs",
            &["--count", "--index", "--by-reference"][..],
        ),
    ] {
        let out = run(&[command, "--help"]);
        testing::assert_own_help(out, &format!("tx-generator {command}"), own, others);
    }
    let top = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(
        top.contains("Exit codes:") && top.contains("  prove "),
        "{top}"
    );
    assert!(
        !top.contains("--pairs") && !top.contains("--index"),
        "{top}"
    );
}
