//! What the accumulator ring (docs/accumulator.md, section 7) costs beside the single
//! accumulator: the transitions of [`crate::acc_growth`]'s cost table on a ring of K
//! snapshots (33-byte args `type_id || K`), measured in-process on the same type script,
//! each beside the same transition on a single accumulator (32-byte args).
//!
//! The ring's transactions: creation spends one plain cell and creates the head and K
//! snapshots; `APPEND`/`EXTEND` spend the head and the oldest snapshot and create the new head
//! and a snapshot of the new state; `KEEP` spends and recreates the whole ring. The head comes
//! first on each side, so the payload's witness is the transaction's first. The states are
//! [`crate::acc_growth`]'s (synthetic MMRs, commitments from the assurance suite's model);
//! the head's `older` sizes are those of the K - 1 one-leaf appends before the old state.

use crate::acc_growth::{self, data, Step};
use crate::engine::{Engine, ProgramSpec};
use crate::growth::value;
use crate::journey::signed;
use assurance::accumulator::model_size;
use ckb_mmr_sdk::weight::Cost;
use doc_blocks::thousands;
use mmr_accumulator::ring::build as rb;
use mmr_accumulator::Commitment;

/// The generated block in docs/accumulator.md.
pub const RING_BLOCK: &str = "accumulator-ring-cost-table";
/// The K of the tools and the load scenario (docs/concurrency-design.md).
pub const DEFAULT_K: u8 = 8;
/// The other K measured, for the transitions whose transaction holds the whole ring.
pub const OTHER_K: [u8; 2] = [2, 32];

/// One ring transaction's cells: inputs and outputs (head first), the payload.
pub struct RingCase {
    pub inputs: Vec<Vec<u8>>,
    pub outputs: Vec<Vec<u8>>,
    pub payload: Vec<u8>,
}

fn commitment(bytes: &[u8]) -> Commitment {
    let (root, mmr_size) = mmr_accumulator::split_data(bytes).expect("40 bytes of cell data");
    Commitment {
        root: *root,
        mmr_size,
    }
}

/// The sizes of the K - 1 states before `leaves` leaves, one leaf apart, oldest first.
fn older(k: u8, leaves: u64) -> Vec<u64> {
    let n = u64::from(k) - 1;
    (0..n).map(|j| model_size(leaves - n + j)).collect()
}

/// The leaves of the old state of `step` (the state keep hands over: 2^20 - 1).
fn old_leaves(step: Step) -> u64 {
    match step {
        Step::Append { old, .. } | Step::Extend { old, .. } => old,
        _ => (1 << 20) - 1,
    }
}

/// `step` on a ring of `k`: the single accumulator's honest states in the ring's cells.
pub fn ring_case(step: Step, k: u8) -> Result<RingCase, String> {
    let case = step.case()?;
    let label = |e: mmr_accumulator::Error| format!("{} (K = {k}): {e:?}", step.label());
    let sizes = older(k, old_leaves(step));
    let (inputs, outputs) = match (step, case.input) {
        (Step::Create(_) | Step::Import, None) => {
            (vec![], rb::creation_data(k, &commitment(&case.output)))
        }
        (Step::Keep, Some(state)) => {
            // The newest snapshot holds the head's state, the others the older states.
            let mut ring = vec![rb::head_data(&commitment(&state), &sizes)];
            ring.extend(
                sizes
                    .iter()
                    .map(|&s| data(&value(&[26, s]), s))
                    .chain([state.clone()]),
            );
            (ring.clone(), ring)
        }
        (Step::Append { .. } | Step::Extend { .. }, Some(state)) => {
            let head_in = rb::head_data(&commitment(&state), &sizes);
            let (oldest, head_out, snapshot_out) =
                rb::step_data(&head_in, &commitment(&case.output)).map_err(label)?;
            let oldest_in = data(&value(&[26, oldest]), oldest);
            (vec![head_in, oldest_in], vec![head_out, snapshot_out])
        }
        _ => return Err(format!("{}: no ring case", step.label())),
    };
    Ok(RingCase {
        inputs,
        outputs,
        payload: case.payload,
    })
}

/// One measured ring transition beside the single accumulator's.
#[derive(Debug, Clone)]
pub struct RingRun {
    pub step: Step,
    pub k: u8,
    pub cycles: u64,
    /// The ring's transaction: one code cell dep, the group's inputs (at creation the plain
    /// input the type id is over) and outputs, the witness (no fee cell, no signature).
    pub cost: Cost,
    /// The whole `WitnessArgs`, the same as the single accumulator's.
    pub witness_bytes: usize,
    /// The same transition on a single accumulator ([`acc_growth::run`]).
    pub single: acc_growth::Run,
}

/// Runs `step` honestly on a ring of `k` and on a single accumulator; an honest transition
/// that is not accepted is an error.
pub fn run(engine: &Engine, step: Step, k: u8) -> Result<RingRun, String> {
    let case = ring_case(step, k)?;
    let (outcome, tx_bytes) = engine.run_ring_type(
        0,
        (&value(&[27]), k),
        &case.inputs,
        &case.outputs,
        0,
        &case.payload,
    );
    let cycles = outcome.honest(|| format!("{} (ring, K = {k})", step.label()))?;
    Ok(RingRun {
        step,
        k,
        cycles,
        cost: Cost::new(tx_bytes, cycles),
        // WitnessArgs: header 16, the payload field's length 4, the payload.
        witness_bytes: 16 + 4 + case.payload.len(),
        single: acc_growth::run(engine, step)?,
    })
}

/// The rows: every transition of the single accumulator's cost table at [`DEFAULT_K`], and
/// the creations and keep (whose transactions hold the whole ring) at [`OTHER_K`] too.
pub fn ring_steps() -> Vec<(Step, u8)> {
    let mut rows = Vec::new();
    for step in acc_growth::cost_steps() {
        let whole = matches!(step, Step::Create(_) | Step::Import | Step::Keep);
        let mut ks = vec![DEFAULT_K];
        if whole {
            ks = vec![OTHER_K[0], DEFAULT_K, OTHER_K[1]];
        }
        rows.extend(ks.into_iter().map(|k| (step, k)));
    }
    rows
}

/// Measures every row of [`ring_steps`] on the type script `spec`.
pub fn measure(spec: &ProgramSpec) -> Result<Vec<RingRun>, String> {
    let engine = Engine::new(std::slice::from_ref(spec));
    ring_steps()
        .into_iter()
        .map(|(step, k)| run(&engine, step, k))
        .collect()
}

fn label(step: Step) -> String {
    match step {
        Step::Keep => "keep (the whole ring)".to_string(),
        s => s.label(),
    }
}

fn extra(ring: u64, single: u64) -> String {
    signed(ring as i64 - single as i64)
}

/// The ring's cost table: per transition and K, the ring's cycles, bytes, weight and fee,
/// the single accumulator's, and what the ring adds.
pub fn table(runs: &[RingRun]) -> String {
    let mut s = String::from(
        "| transition | K | witness bytes | ring: cycles | tx bytes | weight | fee (shannons) | \
         single: cycles | tx bytes | weight | the ring's extra cycles | extra tx bytes | \
         extra fee (shannons) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in runs {
        let one = &r.single;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            label(r.step),
            r.k,
            thousands(r.witness_bytes),
            thousands(r.cycles),
            thousands(r.cost.tx_bytes),
            thousands(r.cost.weight),
            thousands(r.cost.fee),
            thousands(one.cycles),
            thousands(one.cost.tx_bytes),
            thousands(one.cost.weight),
            extra(r.cycles, one.cycles),
            extra(r.cost.tx_bytes as u64, one.cost.tx_bytes as u64),
            extra(r.cost.fee, one.cost.fee),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmr_accumulator::ring::{self, RingCell};

    fn cells<'a>(data: &'a [Vec<u8>], lock: &'a [u8; 32]) -> Vec<RingCell<'a>> {
        data.iter()
            .map(|data| RingCell {
                data,
                lock_hash: lock,
            })
            .collect()
    }

    /// Every ring case passes the core's cell rules (roles, sizes, snapshots, locks).
    #[test]
    fn ring_cases_hold_in_the_core() {
        let lock = [9u8; 32];
        for (step, k) in ring_steps() {
            let c = ring_case(step, k).unwrap();
            let (ins, outs) = (cells(&c.inputs, &lock), cells(&c.outputs, &lock));
            ring::check_cells(k, &ins, &outs)
                .unwrap_or_else(|e| panic!("{} K = {k}: {e:?}", step.label()));
        }
    }
}
