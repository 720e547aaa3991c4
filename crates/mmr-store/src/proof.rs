//! What the store hands out: a commit (size, leaf count, root) and a membership proof with
//! its two lock payloads.

use crate::{Error, Hash, KernelMerge, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// The MMR's size in nodes.
    pub mmr_size: u64,
    /// Its leaf count.
    pub leaf_count: u64,
    /// Its root.
    pub root: Hash,
}

impl Commit {
    /// The 40-byte commitment (`root || mmr_size` LE): the accumulator cell's data and the
    /// plain-mode lock args.
    pub fn to_bytes(&self) -> [u8; 40] {
        let mut out = [0u8; 40];
        out[..32].copy_from_slice(&self.root);
        out[32..].copy_from_slice(&self.mmr_size.to_le_bytes());
        out
    }
}

/// A membership proof for some leaves at some size, in `MMR::gen_proof` item order: what the
/// lock payloads are encoded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// The MMR size proved against.
    pub mmr_size: u64,
    /// Its leaf count.
    pub leaf_count: u64,
    /// Its root (the recorded root when the size was committed).
    pub root: Hash,
    /// The proved leaves as (MMR position, value), sorted by position, no duplicates.
    pub proved: Vec<(u64, Hash)>,
    /// The proof items.
    pub items: Vec<Hash>,
}

impl Proof {
    /// The baseline verifier's payload (docs/baseline-format.md).
    pub fn baseline_payload(&self) -> Vec<u8> {
        baseline_proof::encode(&self.proved, &self.items)
    }

    /// The compiled verifiers' payload (docs/compiled-format.md, version 2), Rust and C alike.
    pub fn compiled_payload(&self) -> Result<Vec<u8>> {
        compiled_proof::compile_compact(self.mmr_size, &self.items, &self.proved)
            .map_err(|e| Error::Corrupt(format!("compiling the proof: {e:?}")))
    }

    /// The proved leaf indexes, ascending.
    pub fn indexes(&self) -> Vec<u64> {
        self.proved
            .iter()
            .map(|(pos, _)| mmr_lock::mmr::leaf_pos_to_index(*pos).unwrap_or(u64::MAX))
            .collect()
    }

    /// Recomputes the root from the leaves and items (upstream `MerkleProof`).
    pub fn computed_root(&self) -> Option<Hash> {
        ckb_merkle_mountain_range::MerkleProof::<Hash, KernelMerge>::new(
            self.mmr_size,
            self.items.clone(),
        )
        .calculate_root(self.proved.clone())
        .ok()
    }
}
