//! Reads at the committed size or any earlier MMR size: nodes, leaves, peaks, roots, commit
//! records, membership proofs, append witnesses and ancestry proofs. The MMR algorithms are
//! [`crate::nodes`]'s, over the store as a [`NodeSource`] bounded by its committed size.

use crate::merge::bag;
use crate::nodes::{self, NodeSource};
use crate::pos::leaves_of;
use crate::{Error, Hash, Proof, Result, Store};
use mmr_accumulator::build;
use mmr_lock::mmr::leaf_index_to_pos;

/// The committed nodes: positions at or past the committed size are [`Error::BeyondStore`].
impl NodeSource for Store {
    fn node_at(&self, pos: u64) -> Result<Hash> {
        self.node(pos)
    }
}

impl Store {
    /// The leaf with index `index` (below the committed leaf count).
    pub fn leaf(&self, index: u64) -> Result<Hash> {
        let leaves = self.leaf_count();
        if index >= leaves {
            return Err(Error::IndexBeyondSize { index, leaves });
        }
        self.read_node(leaf_index_to_pos(index))
    }

    /// The leaves with indexes `from..to` (within the committed leaf count).
    pub fn leaves(&self, from: u64, to: u64) -> Result<Vec<Hash>> {
        let leaves = self.leaf_count();
        if to > leaves {
            return Err(Error::IndexBeyondSize {
                index: to - 1,
                leaves,
            });
        }
        nodes::leaves(self, from, to)
    }

    /// Checks that `mmr_size` is an MMR size within the store; returns its leaf count.
    pub fn check_size(&self, mmr_size: u64) -> Result<u64> {
        let leaves = leaves_of(mmr_size)?;
        if mmr_size > self.size {
            return Err(Error::BeyondStore {
                asked: mmr_size,
                store: self.size,
            });
        }
        Ok(leaves)
    }

    /// The peaks of the MMR of size `mmr_size`, left to right.
    pub fn peaks_at(&self, mmr_size: u64) -> Result<Vec<Hash>> {
        let leaves = self.check_size(mmr_size)?;
        nodes::peaks(self, leaves)
    }

    /// The root recorded in the commit log for `mmr_size`, if an append ended there.
    pub fn committed_root(&self, mmr_size: u64) -> Result<Option<Hash>> {
        // Sizes in the log strictly increase: binary search, a few reads.
        let (mut lo, mut hi) = (0u64, self.records);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (size, root) = self.valid_record(mid)?;
            if size == mmr_size {
                return Ok(Some(root));
            }
            if size < mmr_size {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(None)
    }

    /// Every commit record (size, root), oldest first.
    pub fn commits(&self) -> Result<Vec<(u64, Hash)>> {
        (0..self.records).map(|i| self.valid_record(i)).collect()
    }

    /// The root of the MMR of size `mmr_size`: the recorded one for a committed size (checked
    /// against the peaks on disk), else the bagging of the peaks.
    pub fn root_at(&self, mmr_size: u64) -> Result<Hash> {
        let peaks = self.peaks_at(mmr_size)?;
        let root = bag(&peaks).ok_or(Error::NotMmrSize(mmr_size))?;
        if let Some(recorded) = self.committed_root(mmr_size)? {
            if recorded != root {
                return Err(Error::Corrupt(format!(
                    "the peaks at mmr_size {mmr_size} do not bag to its recorded root"
                )));
            }
        }
        Ok(root)
    }

    /// A proof of the leaves with `indexes` (any order, duplicates ignored) in the MMR of size
    /// `mmr_size`, from nodes below that size only. The proof is checked against the root
    /// before it is returned ([`Error::Corrupt`] if the nodes on its path are damaged).
    pub fn proof(&self, mmr_size: u64, indexes: &[u64]) -> Result<Proof> {
        let leaves = self.check_size(mmr_size)?;
        if indexes.is_empty() {
            return Err(Error::Empty("a proof needs at least one leaf index"));
        }
        let mut positions = Vec::with_capacity(indexes.len());
        for &index in indexes {
            if index >= leaves {
                return Err(Error::IndexBeyondSize { index, leaves });
            }
            positions.push(leaf_index_to_pos(index));
        }
        positions.sort_unstable();
        positions.dedup();
        let items = nodes::proof_items(self, mmr_size, &positions)?;
        let mut proved = Vec::with_capacity(positions.len());
        for pos in positions {
            proved.push((pos, self.read_node(pos)?));
        }
        let out = Proof {
            mmr_size,
            leaf_count: leaves,
            root: self.root_at(mmr_size)?,
            proved,
            items,
        };
        if out.computed_root() != Some(out.root) {
            return Err(Error::Corrupt(format!(
                "the proof read from the store does not give the root at mmr_size {mmr_size}"
            )));
        }
        Ok(out)
    }

    fn size_pair(&self, old_size: u64, new_size: u64) -> Result<(u64, u64)> {
        let old = leaves_of(old_size)?;
        let new = self.check_size(new_size)?;
        if old_size >= new_size {
            return Err(Error::SizeOrder {
                old: old_size,
                new: new_size,
            });
        }
        Ok((old, new))
    }

    /// The old peaks and the new leaves of an append from `old_size` to `new_size`.
    pub fn append_witness(&self, old_size: u64, new_size: u64) -> Result<(Vec<Hash>, Vec<Hash>)> {
        let (old, new) = self.size_pair(old_size, new_size)?;
        Ok((self.peaks_at(old_size)?, self.leaves(old, new)?))
    }

    /// The accumulator type script's `APPEND` payload (tag, old peaks, count, leaves) from
    /// `old_size` to `new_size`, the bytes `mmr_accumulator::build::append_payload` gives.
    pub fn append_payload(&self, old_size: u64, new_size: u64) -> Result<Vec<u8>> {
        let (peaks, leaves) = self.append_witness(old_size, new_size)?;
        Ok(build::append_payload(&peaks, &leaves))
    }

    /// The ancestry proof (the body of `EXTEND`) from `old_size` to `new_size`, the bytes
    /// `mmr_accumulator::build::ancestry_proof` gives from the full leaf list.
    pub fn ancestry_proof(&self, old_size: u64, new_size: u64) -> Result<Vec<u8>> {
        let (old, new) = self.size_pair(old_size, new_size)?;
        nodes::ancestry_proof(self, old, new)
    }
}
