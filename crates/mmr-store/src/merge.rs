//! The MMR's merge on the host, and the bagging of peaks with it.

use crate::Hash;
use mmr_accumulator::build;

/// The MMR merge on the host: blake2b-256 "ckb-default-hash" of `left || right`, through
/// `mmr-blake2b`'s specialised 32+32-byte kernel (the Rust one the contracts' kernel is
/// proved equal to; not the reference blake2b-rs). Implements the merge traits of the
/// accumulator builders and of `ckb-merkle-mountain-range`.
pub struct KernelMerge;

impl mmr_accumulator::Merge for KernelMerge {
    fn merge(left: &Hash, right: &Hash, out: &mut Hash) {
        mmr_blake2b::merge_into(left, right, out);
    }
}

impl ckb_merkle_mountain_range::Merge for KernelMerge {
    type Item = Hash;

    fn merge(left: &Hash, right: &Hash) -> ckb_merkle_mountain_range::Result<Hash> {
        Ok(mmr_blake2b::merge(left, right))
    }
}

/// The root of `peaks` (left to right) bagged from the right; `None` for no peaks.
pub(crate) fn bag(peaks: &[Hash]) -> Option<Hash> {
    build::bag::<KernelMerge>(peaks)
}
