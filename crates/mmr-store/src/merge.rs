//! The MMR's merge on the host, the bagging of peaks with it, and leaves hashed into peaks.

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

/// Appends the nodes of `leaves` to `buf` in position order, updating `peaks`.
#[inline(never)]
pub(crate) fn hash_leaves(leaves: &[Hash], peaks: &mut Vec<(u32, Hash)>, buf: &mut Vec<u8>) {
    for leaf in leaves {
        buf.extend_from_slice(leaf);
        carry(peaks, 0, *leaf, buf);
    }
}

/// Pushes `node` (a new node of `height`, already in `buf`) onto `peaks`: each carry merges
/// the peak of equal height on the left with it, and the parent follows its right child in
/// position order.
#[inline(always)]
pub(crate) fn carry(
    peaks: &mut Vec<(u32, Hash)>,
    mut height: u32,
    mut node: Hash,
    buf: &mut Vec<u8>,
) {
    while let Some(&(h, left)) = peaks.last() {
        if h != height {
            break;
        }
        peaks.pop();
        let right = node;
        mmr_blake2b::merge_into(&left, &right, &mut node);
        buf.extend_from_slice(&node);
        height += 1;
    }
    peaks.push((height, node));
}
