//! The read side's algorithms over a storage trait: peaks, leaves, membership proof items and
//! ancestry proofs of the MMR of any size, computed from nodes fetched by position. The store
//! is one [`NodeSource`] (its node file, up to the committed size); a slice of nodes in memory
//! is another.

use crate::pos::{node_pos, peak_positions};
use crate::{Error, Hash, KernelMerge, Result};
use mmr_accumulator::build;
use mmr_lock::mmr::leaf_index_to_pos;
use std::cell::RefCell;

/// Nodes by MMR position.
pub trait NodeSource {
    /// The node at `pos`; [`Error::BeyondStore`] past what the source holds.
    fn node_at(&self, pos: u64) -> Result<Hash>;
}

/// Nodes in position order, node `p` at index `p`.
impl NodeSource for [Hash] {
    fn node_at(&self, pos: u64) -> Result<Hash> {
        usize::try_from(pos)
            .ok()
            .and_then(|i| self.get(i))
            .copied()
            .ok_or(Error::BeyondStore {
                asked: pos.saturating_add(1),
                store: self.len() as u64,
            })
    }
}

/// The peaks of the MMR of `leaves` leaves, left to right.
pub fn peaks<S: NodeSource + ?Sized>(nodes: &S, leaves: u64) -> Result<Vec<Hash>> {
    peak_positions(leaves)
        .into_iter()
        .map(|p| nodes.node_at(p))
        .collect()
}

/// The leaves with indexes `from..to`.
pub fn leaves<S: NodeSource + ?Sized>(nodes: &S, from: u64, to: u64) -> Result<Vec<Hash>> {
    (from..to)
        .map(|i| nodes.node_at(leaf_index_to_pos(i)))
        .collect()
}

/// The proof items for the leaves at `positions` (sorted, no duplicates) in the MMR of size
/// `mmr_size`, in `MMR::gen_proof` order, reading only nodes below `mmr_size`.
pub fn proof_items<S: NodeSource + ?Sized>(
    nodes: &S,
    mmr_size: u64,
    positions: &[u64],
) -> Result<Vec<Hash>> {
    let view = View {
        nodes,
        bound: mmr_size,
        error: RefCell::new(None),
    };
    let mmr = ckb_merkle_mountain_range::MMR::<Hash, KernelMerge, &View<S>>::new(mmr_size, &view);
    let proof = mmr.gen_proof(positions.to_vec());
    if let Some(e) = view.error.borrow_mut().take() {
        return Err(e);
    }
    let proof = proof.map_err(|e| Error::Corrupt(format!("generating the proof: {e}")))?;
    Ok(proof.proof_items().to_vec())
}

/// The ancestry proof (the body of `EXTEND`) from `old` to `new` leaves, the bytes
/// `mmr_accumulator::build::ancestry_proof` gives from the full leaf list, reading only nodes
/// below `mmr_size_of(new)`. `old < new`, else [`Error::SizeOrder`] between the two sizes.
pub fn ancestry_proof<S: NodeSource + ?Sized>(nodes: &S, old: u64, new: u64) -> Result<Vec<u8>> {
    let (old_size, new_size) = (
        mmr_lock::mmr::mmr_size_of(old),
        mmr_lock::mmr::mmr_size_of(new),
    );
    let mut failed = None;
    let proof = build::ancestry_proof_from_nodes::<KernelMerge>(old, new, |first, h| {
        let pos = node_pos(first, h);
        let node = if pos < new_size {
            nodes.node_at(pos)
        } else {
            Err(Error::BeyondStore {
                asked: pos + 1,
                store: new_size,
            })
        };
        node.unwrap_or_else(|e| {
            failed.get_or_insert(e);
            [0; 32]
        })
    })
    .map_err(|_| Error::SizeOrder {
        old: old_size,
        new: new_size,
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(proof),
    }
}

/// A source as `ckb-merkle-mountain-range` sees it: nodes below `bound` only, the first error
/// kept whole (the crate's own error type holds only a message).
struct View<'a, S: ?Sized> {
    nodes: &'a S,
    bound: u64,
    error: RefCell<Option<Error>>,
}

impl<S: NodeSource + ?Sized> ckb_merkle_mountain_range::MMRStoreReadOps<Hash> for &View<'_, S> {
    fn get_elem(&self, pos: u64) -> ckb_merkle_mountain_range::Result<Option<Hash>> {
        if pos >= self.bound {
            return Ok(None);
        }
        match self.nodes.node_at(pos) {
            Ok(hash) => Ok(Some(hash)),
            Err(e) => {
                let msg = e.to_string();
                self.error.borrow_mut().get_or_insert(e);
                Err(ckb_merkle_mountain_range::Error::StoreError(msg))
            }
        }
    }
}
