//! cycle-lab's command line: every command has its own --help; a usage error (unknown option,
//! missing value, bad number, unknown command) is one line on stderr naming it, exit 2, and
//! nothing is written.

use cli_usage::testing::{assert_usage_error, scratch};
use std::process::{Command, Output};

fn lab(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cycle-lab"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The commands `--help` lists; every one but the last (`help`) has a help of its own.
const COMMANDS: &str = "run sweep journey acc-journey flamegraph render compare gate \
                        build-contract checksums growth help";

#[test]
fn every_command_has_its_own_help() {
    let dir = scratch("cycle-lab", "help");
    let commands: Vec<&str> = COMMANDS.split(' ').collect();
    for command in &commands[..11] {
        let out = lab(&[command, "--help"], &dir);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{command}: {text}");
        assert!(
            text.contains(&format!("Usage: cycle-lab {command}")),
            "{command}: {text}"
        );
    }
    let out = lab(&["--help"], &dir);
    let text = String::from_utf8_lossy(&out.stdout);
    for command in commands {
        assert!(text.contains(command), "{command} not listed:\n{text}");
    }
}

#[test]
fn usage_errors_are_one_line_exit_2_and_write_nothing() {
    let dir = scratch("cycle-lab", "usage");
    for (args, named) in [
        (&["run", "--sed", "1"][..], "--sed"),
        (&["run", "--seed"][..], "--seed"),
        (&["run", "--seed", "x"][..], "--seed"),
        (&["sweep", "--seeds", "0"][..], "--seeds"),
        (&["journey", "--bogus"][..], "--bogus"),
        (&["checksums", "--write"][..], "--write"),
        (&["compare", "HEAD"][..], "<B>"),
        (&["flamegraph"][..], "<VERIFIER>"),
        (&["build-contract", "accumulator-type"][..], "--dir"),
        (&["frobnicate"][..], "frobnicate"),
    ] {
        assert_usage_error(&lab(args, &dir), args, "cycle-lab: ", &[named]);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "{args:?} wrote a file"
        );
    }
}

#[test]
fn a_failed_measurement_exits_1() {
    let dir = scratch("cycle-lab", "fail");
    let out = lab(&["run", "--release-dir", "nowhere"], &dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no verifier binaries in nowhere"), "{err}");
    let out = lab(
        &["build-contract", "no-such-contract", "--dir", "out"],
        &dir,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("building contract no-such-contract"), "{err}");
}
