//! The shape of an honest proof: how many items `gen_proof` emits for a set of leaves.
//! Counting only needs leaf indexes and the MMR's peaks, never a hash.

/// Number of proof items `MMR::gen_proof` produces for the given leaves of an MMR with
/// `leaf_count` leaves. `indexes` must be strictly increasing and below `leaf_count`; it is
/// used as scratch space and left in an unspecified order.
///
/// Peaks are the set bits of `leaf_count`, largest first. A peak without a proved leaf costs
/// one item, except that a run of two or more such peaks at the right end is bagged into a
/// single item. Inside a peak, every node on a proved leaf's path whose sibling covers no
/// proved leaf costs one item.
pub fn proof_len(indexes: &mut [u64], leaf_count: u64) -> usize {
    let mut items = 0usize;
    let mut empty_run = 0usize;
    let mut start = 0u64;
    let mut rest: &mut [u64] = indexes;
    let mut bits = leaf_count;
    while bits != 0 {
        let height = 63 - bits.leading_zeros();
        let size = 1u64 << height;
        bits &= !size;
        let end = start + size;
        let in_peak = rest.iter().take_while(|&&i| i < end).count();
        let (peak, tail) = rest.split_at_mut(in_peak);
        rest = tail;
        if peak.is_empty() {
            empty_run += 1;
        } else {
            items += empty_run + siblings_needed(peak, height);
            empty_run = 0;
        }
        start = end;
    }
    // A lone empty peak at the end is one item, and so is a bagged run of several.
    items + empty_run.min(1)
}

/// Items needed to lift sorted, distinct leaf indexes of one perfect tree of height `height`
/// to its root: at each level, an ancestor whose sibling is not also an ancestor needs one.
fn siblings_needed(level: &mut [u64], height: u32) -> usize {
    let mut items = 0usize;
    let mut len = level.len();
    for _ in 0..height {
        let mut read = 0;
        let mut write = 0;
        while read < len {
            let node = level[read];
            if node & 1 == 0 && read + 1 < len && level[read + 1] == node + 1 {
                read += 2;
            } else {
                items += 1;
                read += 1;
            }
            level[write] = node >> 1;
            write += 1;
        }
        len = write;
    }
    items
}
