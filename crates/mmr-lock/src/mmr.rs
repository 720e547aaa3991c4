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
// Always inlined: the contracts call it once, and as a call it cost the baseline's plain path
// about 40 cycles once by-reference mode had grown its caller.
#[inline(always)]
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

/// `INV_LOW[t]` is the `l < 64` with `2l - popcount(l) == t`, or `NO_LEAF` when there is none
/// (`t` is then an inner node's position inside a 64-leaf block). `t <= 120` for every `l`.
const INV_LOW: [u8; 128] = {
    let mut table = [NO_LEAF; 128];
    let mut l = 0u64;
    while l < 64 {
        table[leaf_index_to_pos(l) as usize] = l as u8;
        l += 1;
    }
    table
};
const NO_LEAF: u8 = 0xff;
/// Largest `2l - popcount(l)` for `l < 64` (at `l = 63`).
const MAX_LOW_POS: u64 = 120;

/// Leaf index of a leaf position, or `None` when `pos` is not a leaf.
///
/// Split the index as `i = 64h + l` (`l < 64`): `pos = 2i - popcount(i)
/// = 128h - popcount(h) + (2l - popcount(l))`, and `0 <= 2l - popcount(l) <= 120`. As
/// `popcount(h) <= 49`, `h` is `pos >> 7` or one more, and once `h` is fixed `l` is a table
/// lookup. Both candidates are checked, so the answer is exact: `pos` is a leaf exactly
/// when one of them hits a table entry, and `2i - popcount(i)` is injective.
pub fn leaf_pos_to_index(pos: u64) -> Option<u64> {
    if pos >= MAX_MMR_SIZE {
        return None;
    }
    let mut high = pos >> 7;
    // 2l - popcount(l) for h = pos >> 7: at least 0, as 128h - popcount(h) <= pos - (pos & 127).
    let mut low = (pos & 127) + high.count_ones() as u64;
    if low > MAX_LOW_POS {
        // Only h + 1 can work: with h, no l reaches `low`; with h + 1 the remainder is
        // low - 128 + popcount(h + 1) - popcount(h), negative (wrapping to huge) when none fits.
        let next = high + 1;
        low = (low + next.count_ones() as u64).wrapping_sub(128 + high.count_ones() as u64);
        high = next;
    }
    // `low < 128` keeps the lookup in bounds (`get` would also refuse anything larger).
    match INV_LOW.get(low as usize) {
        Some(&l) if l != NO_LEAF => Some(high << 6 | l as u64),
        _ => None,
    }
}

/// The former linear search, kept as the reference for [`leaf_pos_to_index`] in tests.
#[cfg(test)]
fn leaf_pos_to_index_linear(pos: u64) -> Option<u64> {
    if pos >= MAX_MMR_SIZE || pos_height(pos) != 0 {
        return None;
    }
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

    /// [`leaf_pos_to_index`] agrees with the linear search on every position of `range`.
    fn matches_linear(range: core::ops::Range<u64>) {
        for pos in range {
            assert_eq!(
                leaf_pos_to_index(pos),
                leaf_pos_to_index_linear(pos),
                "pos {pos}"
            );
        }
    }

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
    fn leaf_pos_to_index_matches_linear_search() {
        matches_linear(0..(1u64 << 21));
        // Around every power of two and near the top of the accepted range.
        for bit in 0..=50u32 {
            let p = 1u64 << bit;
            matches_linear(p.saturating_sub(300)..p.saturating_add(300));
        }
        matches_linear((MAX_MMR_SIZE - 5000)..(MAX_MMR_SIZE + 10));
        // Pseudo-random positions below 2^50 (splitmix64), and every leaf of random indexes
        // with its neighbours.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000_000 {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let pos = z >> 14;
            matches_linear(pos..pos + 1);
            let index = z >> 16;
            let leaf = leaf_index_to_pos(index);
            matches_linear(leaf.saturating_sub(2)..leaf + 3);
            assert_eq!(leaf_pos_to_index(leaf), Some(index));
        }
        // Indexes whose popcount is largest (most inner nodes before them).
        for drop in 0..49u32 {
            let index = ((1u64 << 49) - 1) & !(1u64 << drop);
            for index in [index, (1u64 << 49) - 1, (1u64 << 48) - 1, index >> 1] {
                let leaf = leaf_index_to_pos(index);
                matches_linear(leaf.saturating_sub(60)..leaf + 60);
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
