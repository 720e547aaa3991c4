//! The shape of an honest proof: how many items `gen_proof` emits for a set of leaves.
//! Counting only needs leaf indexes and the MMR's peaks, never a hash.
//!
//! Peaks are the set bits of `leaf_count`, largest first. A peak without a proved leaf costs
//! one item, except that a run of two or more such peaks at the right end is bagged into a
//! single item. Inside a peak, every node on a proved leaf's path whose sibling covers no
//! proved leaf costs one item.
//!
//! Inside one perfect peak of height `H` with sorted distinct leaf indexes `x_0 < .. < x_k-1`,
//! the union of the leaves' paths to the peak has `H + 1 + sum bitlen(x_i ^ x_i-1)` nodes
//! (a leaf's path leaves its predecessor's below their lowest common ancestor, which is
//! `bitlen(x_i ^ x_i-1)` levels up), and `k - 1` of them have both children in the union.
//! The items are the union's nodes below the peak whose sibling is not in the union:
//! `(nodes - 1) - 2(k - 1) = H + sum (bitlen(x_i ^ x_i-1) - 2)`. Peaks are aligned (a peak of
//! height `h` starts at a multiple of `2^h`), so absolute indexes give the same XORs, and the
//! peak of index `x < leaf_count` has height `bitlen(x ^ leaf_count) - 1`: the highest bit
//! where the two differ is a peak bit of `leaf_count` that `x` lacks.

/// The item count of an honest proof, fed the proved leaf indexes one at a time in
/// strictly increasing order, each below `leaf_count`.
#[derive(Debug, Clone, Copy)]
pub struct ProofLen {
    leaf_count: u64,
    /// The previous leaf index, or `None` before the first.
    previous: Option<u64>,
    /// The peak height of the previous leaf.
    height: u32,
    /// Items counted inside the peaks so far (never negative once a peak is complete).
    items: u64,
    /// Peaks holding at least one proved leaf.
    filled: u32,
}

fn bitlen(v: u64) -> u32 {
    u64::BITS - v.leading_zeros()
}

impl ProofLen {
    pub fn new(leaf_count: u64) -> Self {
        ProofLen {
            leaf_count,
            previous: None,
            height: 0,
            items: 0,
            filled: 0,
        }
    }

    /// Adds the next leaf index (strictly above the previous one, below `leaf_count`).
    #[inline(always)]
    pub fn push(&mut self, index: u64) {
        let height = bitlen(index ^ self.leaf_count).wrapping_sub(1);
        match self.previous {
            Some(previous) if bitlen(index ^ previous) <= height => {
                // Same peak: `bitlen - 2` is -1 for a sibling pair, so count in wrapping u64;
                // the peak's total is never negative.
                self.items = self
                    .items
                    .wrapping_add(bitlen(index ^ previous) as u64)
                    .wrapping_sub(2);
            }
            _ => {
                self.items = self.items.wrapping_add(height as u64);
                self.filled += 1;
            }
        }
        self.previous = Some(index);
        self.height = height;
    }

    /// The item count for the leaves pushed (at least one).
    pub fn finish(&self) -> usize {
        // Peaks up to and including the last leaf's: every empty one among them is an item.
        let through_last = (self.leaf_count >> self.height).count_ones();
        // Peaks after the last leaf's: one item for the lone one or the bagged run.
        let after_last = (self.leaf_count & ((1u64 << self.height) - 1)).count_ones();
        let empty = (through_last - self.filled) as u64 + after_last.min(1) as u64;
        (self.items + empty) as usize
    }
}

/// Number of proof items `MMR::gen_proof` produces for the given leaves of an MMR with
/// `leaf_count` leaves. `indexes` must be non-empty, strictly increasing and below
/// `leaf_count`.
pub fn proof_len(indexes: &[u64], leaf_count: u64) -> usize {
    let mut len = ProofLen::new(leaf_count);
    for &index in indexes {
        len.push(index);
    }
    len.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// The former level-by-level count, kept as the reference for the closed form.
    fn proof_len_levels(indexes: &mut [u64], leaf_count: u64) -> usize {
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
        items + empty_run.min(1)
    }

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

    fn check(indexes: &[u64], leaf_count: u64) {
        let mut scratch = indexes.to_vec();
        assert_eq!(
            proof_len(indexes, leaf_count),
            proof_len_levels(&mut scratch, leaf_count),
            "leaf_count {leaf_count} indexes {indexes:?}"
        );
    }

    /// A seeded generator of numbers in `0..n`.
    struct Rng(rand::rngs::StdRng);
    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng(rand::SeedableRng::seed_from_u64(seed))
        }
        fn below(&mut self, n: u64) -> u64 {
            rand::Rng::gen_range(&mut self.0, 0..n)
        }
    }

    #[test]
    fn every_subset_of_small_mmrs() {
        for leaf_count in 1..=12u64 {
            for mask in 1..(1u64 << leaf_count) {
                let indexes: Vec<u64> = (0..leaf_count).filter(|i| mask >> i & 1 == 1).collect();
                check(&indexes, leaf_count);
            }
        }
    }

    #[test]
    fn random_subsets_match_level_count() {
        let mut rng = Rng::new(42);
        for round in 0..200_000u32 {
            let leaf_count = match round % 4 {
                0 => 1 + rng.below(64),
                1 => 1 + rng.below(5000),
                2 => 1 + rng.below(1 << 20),
                _ => 1 + rng.below((1 << 49) - 1),
            };
            let k = 1 + rng.below(leaf_count.min(if round % 8 == 0 { 300 } else { 20 }));
            let mut indexes: Vec<u64> = (0..k)
                .map(|_| {
                    if round % 3 == 0 {
                        // Clustered: neighbours and siblings share long paths.
                        (leaf_count - 1).saturating_sub(rng.below(k * 2 + 1))
                    } else {
                        rng.below(leaf_count)
                    }
                })
                .collect();
            indexes.sort_unstable();
            indexes.dedup();
            check(&indexes, leaf_count);
        }
    }
}
