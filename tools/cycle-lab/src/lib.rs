//! Cycle lab: the verifiers measured in-process on ckb-script (the engine behind ckb-debugger),
//! seed sweeps on every core, the journey table and chart, cost against MMR size, the
//! expected-cycles gate and the release checksums; the journey's steps as data and their
//! builds, and the runs under ckb-debugger. The `cycle-lab` binary is the command-line front;
//! `./build.sh` drives it (docs/performance.md).

pub mod acc_growth;
pub mod acc_ring;
pub mod chart;
pub mod checksums;
pub mod engine;
pub mod formats;
pub mod gate;
pub mod growth;
pub mod journey;
pub mod runs;
pub mod steps;
pub mod sweep;

use std::path::Path;

/// Reads the text file at `path`; the error names it.
pub fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Replaces each (block name, table) block of the file at `path`.
pub fn splice_file(path: &Path, blocks: &[(&str, &str)]) -> Result<(), String> {
    let mut doc = read(path)?;
    for (name, table) in blocks {
        doc = doc_blocks::replace_between(&doc, name, table)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    write(path, &doc)
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
