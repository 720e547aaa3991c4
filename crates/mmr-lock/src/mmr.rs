//! MMR size arithmetic. Positions are 0-based node positions in insertion order; leaf
//! indexes are 0-based among leaves only.

/// Largest accepted mmr_size. 2^50 nodes is far beyond any MMR a cell will commit to, and
/// the bound keeps every position, height and offset computation far from u64 overflow.
pub const MAX_MMR_SIZE: u64 = 1 << 50;

/// Size of an MMR holding `leaf_count` leaves: every leaf adds itself plus one parent per
/// carry, so `2n - popcount(n)`.
pub const fn mmr_size_of(leaf_count: u64) -> u64 {
    2 * leaf_count - leaf_count.count_ones() as u64
}

/// The leaf count whose MMR has exactly `mmr_size` nodes, or `None` when `mmr_size` is zero,
/// above [`MAX_MMR_SIZE`] or not the size of any MMR.
pub const fn leaf_count(mmr_size: u64) -> Option<u64> {
    if mmr_size == 0 || mmr_size > MAX_MMR_SIZE {
        return None;
    }
    // 2n - popcount(n) = size puts n in (size/2, size/2 + 51]; popcount(n) <= 51 here.
    let mut n = mmr_size / 2 + 1;
    let end = n + 52;
    while n < end {
        if mmr_size_of(n) == mmr_size {
            return Some(n);
        }
        n += 1;
    }
    None
}

/// Position of the leaf with index `index`: `2i - popcount(i)`.
pub const fn leaf_index_to_pos(index: u64) -> u64 {
    2 * index - index.count_ones() as u64
}

/// Height of the node at `pos` (0 for leaves); `pos` must be below 2^63.
pub fn pos_height(mut pos: u64) -> u32 {
    // Walk left-to-right over perfect subtrees: a subtree of height h has 2^(h+1)-1 nodes.
    loop {
        let all_ones = u64::MAX >> (pos + 1).leading_zeros();
        if pos + 1 == all_ones {
            return all_ones.count_ones() - 1;
        }
        // Jump over the largest perfect subtree that lies entirely to the left of pos.
        pos -= all_ones >> 1;
    }
}

/// Leaf index of a leaf position, or `None` when `pos` is not a leaf.
pub fn leaf_pos_to_index(pos: u64) -> Option<u64> {
    if pos >= MAX_MMR_SIZE || pos_height(pos) != 0 {
        return None;
    }
    // pos = 2i - popcount(i) is strictly increasing in i, and i is within 51 of (pos+1)/2.
    let mut i = pos / 2;
    loop {
        let p = leaf_index_to_pos(i);
        if p == pos {
            return Some(i);
        }
        if p > pos {
            return None;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_incremental_construction() {
        // Build positions the slow way: push leaves and merge while the last two peaks match.
        let mut heights: [u32; 64] = [0; 64];
        let mut peaks = 0usize;
        let mut size = 0u64;
        for n in 1..5000u64 {
            let leaf_pos = size;
            assert_eq!(leaf_index_to_pos(n - 1), leaf_pos);
            assert_eq!(leaf_pos_to_index(leaf_pos), Some(n - 1));
            assert_eq!(pos_height(leaf_pos), 0);
            heights[peaks] = 0;
            peaks += 1;
            size += 1;
            while peaks >= 2 && heights[peaks - 1] == heights[peaks - 2] {
                peaks -= 1;
                heights[peaks - 1] += 1;
                assert_eq!(pos_height(size), heights[peaks - 1]);
                assert_eq!(leaf_pos_to_index(size), None);
                size += 1;
            }
            assert_eq!(mmr_size_of(n), size);
            assert_eq!(leaf_count(size), Some(n));
            if leaf_count(size + 1).is_some() {
                assert_eq!(mmr_size_of(n + 1), size + 1);
            }
        }
    }

    #[test]
    fn rejects_non_canonical_sizes() {
        assert_eq!(leaf_count(0), None);
        assert_eq!(leaf_count(2), None);
        assert_eq!(leaf_count(5), None);
        assert_eq!(leaf_count(6), None);
        assert_eq!(leaf_count(5034), Some(2520));
        assert_eq!(leaf_count(MAX_MMR_SIZE + 1), None);
        assert_eq!(leaf_count(u64::MAX), None);
        let n = (MAX_MMR_SIZE / 2) - 1;
        assert_eq!(leaf_count(mmr_size_of(n)), Some(n));
    }
}
