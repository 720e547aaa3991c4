//! Where nodes sit: positions of perfect subtrees and peaks, leaf counts of sizes.

use crate::{Error, Result};
use mmr_accumulator::build;
use mmr_lock::mmr::{leaf_count, leaf_index_to_pos};

/// The position of the node covering leaves `[first, first + 2^height)` (`first` a multiple
/// of `2^height`): the last of those leaves is followed by its `height` ancestors.
pub fn node_pos(first: u64, height: u32) -> u64 {
    leaf_index_to_pos(first + (1u64 << height) - 1) + height as u64
}

/// The positions of the peaks of an MMR of `leaves` leaves, left to right.
pub fn peak_positions(leaves: u64) -> Vec<u64> {
    build::peak_nodes(leaves)
        .into_iter()
        .map(|(first, h)| node_pos(first, h))
        .collect()
}

/// The leaf count of `mmr_size`, or [`Error::NotMmrSize`].
pub fn leaves_of(mmr_size: u64) -> Result<u64> {
    leaf_count(mmr_size).ok_or(Error::NotMmrSize(mmr_size))
}

/// The leaf count of `size`, 0 for anything that is not an MMR size (the empty store).
pub(crate) fn leaves_of_or_zero(size: u64) -> u64 {
    leaf_count(size).unwrap_or(0)
}
