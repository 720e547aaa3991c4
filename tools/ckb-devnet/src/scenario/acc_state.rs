//! The accumulator part's state between its cases: the leaves, the accumulator as of its last
//! committed update, and the cells locked by reference, by what spends them.

use crate::scenario::code::Verifier;
use ckb_mmr_sdk::accumulator::Accumulator;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::{mmr_cell, Mode, Workload};

/// Leaves of the created accumulator: 7 (three peaks), so that one appended leaf carries
/// through all three.
pub const CREATED: usize = 7;
/// The two appends: 1 leaf (7 -> 8), then 10 (8 -> 18).
pub const APPENDS: [usize; 2] = [1, 10];

/// The accumulator's leaves after the first append, and after the second.
pub const AFTER_FIRST_APPEND: usize = CREATED + APPENDS[0];
pub const AFTER_SECOND_APPEND: usize = AFTER_FIRST_APPEND + APPENDS[1];

pub struct AccState {
    /// Every leaf the accumulator will hold: the owner variant of the reference seed's, and
    /// at the end the new admin's own.
    pub leaves: Vec<[u8; 32]>,
    /// The accumulator as of its last committed update.
    pub current: Accumulator,
}

impl AccState {
    /// The accumulator's MMR over its first `n` leaves, proving `indexes`.
    pub fn workload(&self, n: usize, indexes: &[u64]) -> Result<Workload> {
        mmr_cell::prove(&self.leaves[..n], indexes)
    }
}

/// The cells locked by reference (one transaction) while the accumulator holds 7 leaves.
pub struct RefCells {
    /// The reference proof's: one per verifier and mode, spent once the accumulator holds all
    /// the reference leaves.
    pub reference: Vec<(Verifier, Mode, IndexedCell)>,
    /// Compiled, plain: spent by the leaf appended after it was locked.
    pub appended_leaf: IndexedCell,
    /// C, plain: its spend races the append of 10 leaves.
    pub race: IndexedCell,
    /// Baseline, plain: first sent with a proof against the old root.
    pub stale_proof: IndexedCell,
    /// Compiled, plain: first sent with a counterfeit accumulator as its cell dep.
    pub counterfeit_dep: IndexedCell,
    /// Baseline, plain: spent after the hand-over.
    pub after_handover: IndexedCell,
}

impl RefCells {
    /// The verifier of each named cell, in the order the locking transaction's outputs take
    /// after the reference cells: `appended_leaf`, `race`, `stale_proof`, `counterfeit_dep`,
    /// `after_handover` ([`RefCells::from_outputs`] reads them in this order).
    pub const NAMED: [Verifier; 5] = [
        Verifier::Compiled,
        Verifier::C,
        Verifier::Baseline,
        Verifier::Compiled,
        Verifier::Baseline,
    ];

    /// The verifiers and modes of the reference cells, in output order.
    pub fn reference_order() -> impl Iterator<Item = (Verifier, Mode)> {
        Verifier::ALL
            .into_iter()
            .flat_map(|v| [Mode::Plain, Mode::Owner].map(|m| (v, m)))
    }

    /// Names the outputs of the transaction that locked the reference order's cells, then the
    /// [`RefCells::NAMED`] ones.
    pub fn from_outputs(cells: Vec<IndexedCell>) -> Result<RefCells> {
        let expected = Self::reference_order().count() + Self::NAMED.len();
        if cells.len() != expected {
            return Err(Error::Scenario(format!(
                "{} cells locked by reference, {expected} asked for",
                cells.len()
            )));
        }
        let mut cells = cells.into_iter();
        let mut next = || cells.next().expect("counted above");
        let reference = Self::reference_order()
            .map(|(v, m)| (v, m, next()))
            .collect();
        // Field initialisers run in the order written: NAMED's order.
        Ok(RefCells {
            reference,
            appended_leaf: next(),
            race: next(),
            stale_proof: next(),
            counterfeit_dep: next(),
            after_handover: next(),
        })
    }

    /// The reference cell of `verifier` and `mode`.
    pub fn reference(&self, verifier: Verifier, mode: Mode) -> Result<&IndexedCell> {
        self.reference
            .iter()
            .find(|(v, m, _)| (*v, *m) == (verifier, mode))
            .map(|(_, _, cell)| cell)
            .ok_or_else(|| {
                Error::Scenario(format!(
                    "no reference cell for {} {mode:?}",
                    verifier.name()
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ckb_types::{packed, prelude::*};

    /// A cell told apart by its out point's index.
    fn cell(i: u32) -> IndexedCell {
        IndexedCell {
            out_point: packed::OutPoint::new(Default::default(), i),
            output: packed::CellOutput::default(),
            data: None,
        }
    }

    fn index(c: &IndexedCell) -> u32 {
        c.out_point.index().unpack()
    }

    #[test]
    fn names_the_locking_transactions_outputs_in_order() {
        let n = RefCells::reference_order().count() + RefCells::NAMED.len();
        let cells = RefCells::from_outputs((0..n as u32).map(cell).collect()).unwrap();
        for (i, (v, m)) in RefCells::reference_order().enumerate() {
            assert_eq!(index(cells.reference(v, m).unwrap()), i as u32);
        }
        let named = [
            &cells.appended_leaf,
            &cells.race,
            &cells.stale_proof,
            &cells.counterfeit_dep,
            &cells.after_handover,
        ];
        let first = RefCells::reference_order().count() as u32;
        for (i, c) in named.into_iter().enumerate() {
            assert_eq!(index(c), first + i as u32);
        }
        assert!(RefCells::from_outputs((0..n as u32 - 1).map(cell).collect()).is_err());
    }
}
