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

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
