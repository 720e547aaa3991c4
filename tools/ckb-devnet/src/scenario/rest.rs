//! The last case: every transaction the run committed that no row measured (deployments, the
//! upgrade, the cells the cases lock, the honest spends after refusals, the accepted replay)
//! is measured too, so that node cycles = ckb-debugger's holds for the whole run.

use crate::scenario::ctx::{Case, Ctx};
use crate::scenario::report::CheckedTx;
use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::error::Result;
use std::collections::HashSet;

/// What a committed transaction without a row of its own does, told by its outputs.
pub const OTHER_DEPLOYMENT: &str = "deploys or upgrades a binary";
pub const OTHER_TRANSACTION: &str = "locks cells, or spends one after a refusal";

/// Every committed transaction of the run runs in ckb-debugger for the node's cycles, not
/// only the rows: the chain connection's log of commits, less what was measured already.
pub struct EveryCommittedMeasured;

impl Case for EveryCommittedMeasured {
    fn name(&self) -> String {
        "every committed transaction measured".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let committed = ctx.chain.committed();
        let measured: HashSet<&str> = ctx.report.measured_hashes().collect();
        let rest: Vec<_> = committed
            .iter()
            .filter(|h| !measured.contains(format!("{h:#x}").as_str()))
            .cloned()
            .collect();
        progress(&format!(
            "measuring the {} other committed transactions with ckb-debugger",
            rest.len()
        ));
        for hash in rest {
            let m = ctx.measure(&hash)?;
            ctx.report.other_committed.push(CheckedTx {
                what: if m.max_output_data >= 1024 {
                    OTHER_DEPLOYMENT
                } else {
                    OTHER_TRANSACTION
                },
                tx_hash: format!("{hash:#x}"),
                status: m.status,
                node_cycles: m.node_cycles.unwrap_or(0),
                debugger_cycles: m.debugger_cycles,
            });
        }
        ctx.report.committed_total = committed.len();
        Ok(())
    }
}
