//! Cycle lab: the verifiers measured in-process on ckb-script (the engine behind ckb-debugger),
//! seed sweeps on every core, the journey table and chart, cost against MMR size, the
//! expected-cycles gate and the release checksums. The `cycle-lab` binary is the command-line front; `./build.sh` drives it
//! (docs/performance.md).

pub mod acc_growth;
pub mod chart;
pub mod checksums;
pub mod engine;
pub mod gate;
pub mod growth;
pub mod journey;
pub mod sweep;
