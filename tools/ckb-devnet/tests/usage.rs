//! Usage errors of every command, no node needed: an unknown option, a missing value and a
//! malformed one each give exit 2 and one line on standard error naming the problem and the
//! command, print nothing, and write nothing; `ckb-devnet COMMAND --help` is that command's
//! help alone.

use cli_usage::testing;
use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_ckb-devnet");

/// A well-formed type id (no such accumulator or deployment exists: nothing gets that far).
const TYPE_ID: &str = "0x1111111111111111111111111111111111111111111111111111111111111111";

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("runs ckb-devnet")
}

fn scratch(name: &str) -> PathBuf {
    testing::scratch("ckb-devnet", name)
}

/// A usage error: exit 2, nothing on standard output, one line on standard error holding
/// every one of `names`.
fn usage_error(args: &[&str], names: &[&str]) {
    testing::assert_usage_error(&run(args), args, "ckb-devnet: error: ", names);
}

/// The words of `line`, as arguments.
fn words(line: &'static str) -> Vec<&'static str> {
    line.split_whitespace().collect()
}

/// `head`'s words, then `tail` (a type id, say), then a client command's node and key.
fn client(head: &'static str, tail: &[&'static str]) -> Vec<&'static str> {
    [
        words(head),
        tail.to_vec(),
        words("--rpc http://127.0.0.1:1 --key k"),
    ]
    .concat()
}

/// Each command with the options it needs, to which the cases add one bad argument, and an
/// option of it that takes a value.
fn commands() -> Vec<(Vec<&'static str>, &'static str)> {
    vec![
        (words("node"), "--dir"),
        (words("start"), "--dir"),
        (words("stop"), "--dir"),
        (words("scenario"), "--report"),
        (words("sync-bench"), "--json"),
        (words("load"), "--report"),
        (client("deploy b", &[]), "--upgrade"),
        (client("lock --leaves l --verifier v", &[]), "--capacity"),
        (client("spend --leaves l --index 0", &[]), "--save-tx"),
        (words("debug --tx t --rpc http://127.0.0.1:1"), "--mock-out"),
        (client("acc create --leaves l", &[]), "--code-dep"),
        (
            client("acc append --leaves l --type-id", &[TYPE_ID]),
            "--store",
        ),
        (
            client("acc extend --leaves l --type-id", &[TYPE_ID]),
            "--store",
        ),
        (
            client("acc handover --to-key t --type-id", &[TYPE_ID]),
            "--to-key",
        ),
        (
            [words("acc show --type-id"), vec![TYPE_ID], words("--rpc u")].concat(),
            "--type-script-binary",
        ),
        (
            [
                words("acc sync --type-id"),
                vec![TYPE_ID],
                words("--store s --rpc u"),
            ]
            .concat(),
            "--rpc",
        ),
    ]
}

#[test]
fn an_unknown_option_is_one_line_naming_it_and_the_command() {
    for (args, _) in commands() {
        let path: Vec<&str> = args
            .iter()
            .take_while(|a| !a.starts_with('-'))
            .copied()
            .collect();
        let path = if path.len() > 1 && path[0] != "acc" {
            &path[..1]
        } else {
            &path[..]
        };
        let help = format!("(ckb-devnet {} --help)", path.join(" "));
        usage_error(
            &[&args[..], &["--frobnicate"]].concat(),
            &["'--frobnicate'", &help],
        );
    }
}

#[test]
fn a_missing_value_is_one_line_naming_the_option() {
    for (args, option) in commands() {
        // The option last, its value missing.
        let mut args: Vec<&str> = args;
        if let Some(at) = args.iter().position(|a| *a == option) {
            args.drain(at..at + 2);
        }
        args.push(option);
        usage_error(&args, &[&format!("'{option} <"), "a value is required"]);
    }
}

#[test]
fn malformed_and_missing_arguments_are_usage_errors() {
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            words("acc show --type-id 0x12 --rpc u"),
            &["invalid value '0x12'", "--type-id", "32 bytes of hex"],
        ),
        (
            client("deploy b --fee-rate cheap", &[]),
            &["invalid value 'cheap'", "--fee-rate"],
        ),
        (
            client("lock --leaves l --verifier v --capacity 1.5", &[]),
            &["--capacity", "whole CKB"],
        ),
        (
            client("spend --leaves l --index 0 --format c", &[]),
            &["--format", "baseline or compiled"],
        ),
        (
            client("spend --leaves l --index 0 --cell 0x12:x", &[]),
            &["--cell", "out point"],
        ),
        (words("sync-bench --leaves 1"), &["--leaves", "2 to 1e9"]),
        (
            words("load --blocks 2"),
            &["invalid value '2'", "--blocks", "3..=100000"],
        ),
        (
            words("load --spends 4 --clients 5"),
            &["--clients 5", "--spends 4"],
        ),
        (words("deploy b --rpc u"), &["--key <FILE>"]),
        (words("spend --index 0 --rpc u --key k"), &["--leaves"]),
        (
            client("deploy b --type-id --upgrade", &[TYPE_ID]),
            &["--type-id", "--upgrade"],
        ),
        (
            words("frobnicate"),
            &["'frobnicate'", "(ckb-devnet --help)"],
        ),
        (words("acc grow"), &["'grow'", "(ckb-devnet acc --help)"]),
    ];
    for (args, names) in cases {
        usage_error(&args, names);
    }
}

/// A usage error writes nothing: not the report, the JSON, the mock transaction or the saved
/// transaction the command would write, nor a node's directory.
#[test]
fn a_usage_error_writes_nothing() {
    let dir = scratch("nothing-written");
    // The files each command would write, named in the cases in capitals.
    let files = [
        ("NODE", "node"),
        ("REPORT", "report.json"),
        ("JSON", "bench.json"),
        ("MOCK", "mock.json"),
        ("TX", "tx.json"),
    ]
    .map(|(name, file)| (name, dir.join(file).display().to_string()));
    let cases = [
        "start --dir NODE --frobnicate",
        "scenario --dir NODE --report REPORT --release",
        "sync-bench --dir NODE --json JSON --leaves x",
        "load --dir NODE --report REPORT --spends 4 --clients 5",
        "debug --tx t --mock-out MOCK --rpc u --frobnicate",
        "spend --leaves l --index 0 --save-tx TX --rpc u --key",
    ]
    .map(|line| -> Vec<&str> {
        let file = |word| files.iter().find(|(name, _)| *name == word);
        words(line)
            .into_iter()
            .map(|w| file(w).map_or(w, |(_, path)| path.as_str()))
            .collect()
    });
    for args in cases {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_commands_help_is_its_own() {
    for (path, own, others) in [
        (
            &["spend"][..],
            "--save-tx",
            &["--upgrade", "--to-key", "Exit codes:", "sync-bench"][..],
        ),
        (
            &["deploy"][..],
            "--upgrade",
            &["--save-tx", "--index", "Exit codes:"][..],
        ),
        (
            &["acc", "sync"][..],
            "--store",
            &["--key", "--to-key", "--index", "handover"][..],
        ),
        (
            &["node"][..],
            "--dir",
            &["--rpc", "--key", "Exit codes:"][..],
        ),
    ] {
        let out = run(&[path, &["--help"]].concat());
        testing::assert_own_help(out, &format!("ckb-devnet {}", path.join(" ")), own, others);
    }
    // The top level lists the commands and the exit codes, not every option.
    let top = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(
        top.contains("Exit codes:") && top.contains("  spend "),
        "{top}"
    );
    assert!(
        !top.contains("--save-tx") && !top.contains("--to-key"),
        "{top}"
    );
    // No command at all, or acc without its command: the help, as a usage error.
    for args in [&[][..], &["acc"][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: ckb-devnet"));
    }
}
