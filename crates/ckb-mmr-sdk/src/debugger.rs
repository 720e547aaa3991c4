//! Runs one input's lock of a mock transaction file under ckb-debugger 1.1.1 and reads back
//! what it printed, for the tests and tools that compare against it.

use std::path::Path;
use std::process::Command;

/// What ckb-debugger reported for one script: its `Run result` and `All cycles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebuggerRun {
    pub result: i64,
    pub cycles: u64,
}

/// `ckb-debugger --tx-file FILE --cell-type input --script-group-type lock --cell-index N`.
pub fn run_lock(tx_file: &Path, index: usize) -> Result<DebuggerRun, String> {
    run_group(tx_file, "lock", "input", index)
}

/// The script group of `group_type` (`lock` or `type`) that the cell at `index` of
/// `cell_type` (`input` or `output`) belongs to.
pub fn run_group(
    tx_file: &Path,
    group_type: &str,
    cell_type: &str,
    index: usize,
) -> Result<DebuggerRun, String> {
    let out = Command::new("ckb-debugger")
        .arg("--tx-file")
        .arg(tx_file)
        .args(["--cell-type", cell_type, "--script-group-type", group_type])
        .arg("--cell-index")
        .arg(index.to_string())
        .output()
        .map_err(|e| format!("running ckb-debugger (./build.sh deps installs 1.1.1): {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|v| v.trim().split('(').next().unwrap_or("").trim().to_string())
            .ok_or_else(|| format!("no {prefix:?} in ckb-debugger output:\n{text}"))
    };
    let result = field("Run result:")?;
    let cycles = field("All cycles:")?;
    Ok(DebuggerRun {
        result: result
            .parse()
            .map_err(|_| format!("bad run result {result:?}"))?,
        cycles: cycles
            .parse()
            .map_err(|_| format!("bad cycle count {cycles:?}"))?,
    })
}
