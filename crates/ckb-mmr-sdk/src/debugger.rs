//! Runs one input's lock of a mock transaction file under ckb-debugger 1.1.1 and reads back
//! what it printed, for the tests and tools that compare against it. [`parse`] is the one
//! reader of ckb-debugger's output in the project (cycle-lab's run, compare and flamegraph
//! use it too).

use crate::error::{Error, Result};
use std::path::Path;
use std::process::Command;

/// What ckb-debugger reported for one script: its `Run result` and `All cycles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebuggerRun {
    pub result: i64,
    pub cycles: u64,
}

/// What ckb-debugger printed, read: the script's exit code (`Run result: N`, or the
/// `error code N` of a script that failed) and `All cycles` (absent when it failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    pub result: i64,
    pub cycles: Option<u64>,
}

/// `ckb-debugger --tx-file FILE --cell-type input --script-group-type lock --cell-index N`.
pub fn run_lock(tx_file: &Path, index: usize) -> Result<DebuggerRun> {
    run_group(tx_file, "lock", "input", index)
}

/// The command that runs the script group of `group_type` (`lock` or `type`) that the cell at
/// `index` of `cell_type` (`input` or `output`) belongs to; add arguments (`--bin`, the
/// flamegraph's) before running it.
pub fn command(tx_file: &Path, group_type: &str, cell_type: &str, index: usize) -> Command {
    let mut c = Command::new("ckb-debugger");
    c.arg("--tx-file")
        .arg(tx_file)
        .args(["--cell-type", cell_type, "--script-group-type", group_type])
        .arg("--cell-index")
        .arg(index.to_string());
    c
}

/// Runs `command` and reads its output with [`parse`].
pub fn report(mut command: Command) -> std::result::Result<Report, String> {
    let out = command
        .output()
        .map_err(|e| format!("running ckb-debugger (./build.sh deps installs 1.1.1): {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&text)
}

/// Reads ckb-debugger's output: `Run result: N`, `All cycles: N(…)`; a failed script's
/// `error code N` when there is no run result.
pub fn parse(text: &str) -> std::result::Result<Report, String> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|v| v.trim().split('(').next().unwrap_or("").trim().to_string())
    };
    let number = |v: &str| -> String {
        v.chars()
            .enumerate()
            .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && c == '-'))
            .map(|(_, c)| c)
            .collect()
    };
    let result = match field("Run result:") {
        Some(r) => r,
        None => text
            .split("error code ")
            .nth(1)
            .map(number)
            .ok_or_else(|| format!("no \"Run result:\" in ckb-debugger output:\n{text}"))?,
    };
    let result = result
        .parse()
        .map_err(|_| format!("bad run result {result:?}"))?;
    let cycles = field("All cycles:")
        .map(|c| c.parse().map_err(|_| format!("bad cycle count {c:?}")))
        .transpose()?;
    Ok(Report { result, cycles })
}

/// The script group of `group_type` (`lock` or `type`) that the cell at `index` of
/// `cell_type` (`input` or `output`) belongs to.
pub fn run_group(
    tx_file: &Path,
    group_type: &str,
    cell_type: &str,
    index: usize,
) -> Result<DebuggerRun> {
    let r = report(command(tx_file, group_type, cell_type, index)).map_err(Error::Debugger)?;
    Ok(DebuggerRun {
        result: r.result,
        cycles: r.cycles.ok_or_else(|| {
            Error::Debugger(format!(
                "no \"All cycles:\" in ckb-debugger output (run result {})",
                r.result
            ))
        })?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_run_and_a_failure() {
        let ok = "Run result: 0\nAll cycles: 58741(57.4K)\n";
        assert_eq!(
            parse(ok).unwrap(),
            Report {
                result: 0,
                cycles: Some(58741)
            }
        );
        let failed = "Error: VerifyError { message: \"Run result: ...\" } error code -31 in page\n";
        let r = parse(&failed.replace("Run result: ...", "x")).unwrap();
        assert_eq!(
            r,
            Report {
                result: -31,
                cycles: None
            }
        );
        assert!(parse("nothing here").is_err());
        assert!(parse("Run result: 0\nAll cycles: many\n").is_err());
    }
}
