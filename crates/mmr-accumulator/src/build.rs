//! Host-side builders (feature `std`): honest append and create bodies, ancestry proofs from
//! a list of leaves or from any source of node hashes, and the witness payloads of the type
//! script. Nodes are named `(first leaf, height)` as in the spec.

use crate::{tag, Commitment, Error, Merge, Shape};
use mmr_lock::mmr::{leaf_count, mmr_size_of};
use std::vec;
use std::vec::Vec;

fn merge<M: Merge>(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    M::merge(left, right, &mut out);
    out
}

/// Every node of the MMR of some leaves, level by level: `level(h)[i]` is the node covering
/// leaves `[i * 2^h, (i + 1) * 2^h)`.
pub struct Nodes {
    levels: Vec<Vec<[u8; 32]>>,
}

impl Nodes {
    pub fn new<M: Merge>(leaves: &[[u8; 32]]) -> Nodes {
        let mut levels = vec![leaves.to_vec()];
        while let Some(below) = levels.last().filter(|l| l.len() >= 2) {
            let above = below
                .chunks_exact(2)
                .map(|pair| merge::<M>(&pair[0], &pair[1]))
                .collect();
            levels.push(above);
        }
        Nodes { levels }
    }

    pub fn leaf_count(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// The node `(first, height)`; `None` unless it is a node of this MMR.
    pub fn node(&self, first: u64, height: u32) -> Option<[u8; 32]> {
        if !first.is_multiple_of(1u64 << height) {
            return None;
        }
        let level = self.levels.get(height as usize)?;
        level.get((first >> height) as usize).copied()
    }

    /// The peaks of the first `leaves` leaves, left to right.
    pub fn peaks(&self, leaves: u64) -> Vec<[u8; 32]> {
        peak_nodes(leaves)
            .into_iter()
            .filter_map(|(first, h)| self.node(first, h))
            .collect()
    }
}

/// The peaks `(first, height)` of an MMR of `leaves` leaves, left to right.
pub fn peak_nodes(leaves: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut start = 0;
    for h in (0..64u32).rev() {
        if leaves >> h & 1 == 1 {
            out.push((start, h));
            start += 1 << h;
        }
    }
    out
}

/// The root of peaks given left to right: bagged from the right, `acc = merge(acc, peak)`.
pub fn bag<M: Merge>(peaks: &[[u8; 32]]) -> Option<[u8; 32]> {
    let (last, rest) = peaks.split_last()?;
    Some(rest.iter().rev().fold(*last, |acc, p| merge::<M>(&acc, p)))
}

/// The commitment of the MMR of `leaves` (at least one), computed the slow way.
pub fn commitment<M: Merge>(leaves: &[[u8; 32]]) -> Option<Commitment> {
    let nodes = Nodes::new::<M>(leaves);
    let root = bag::<M>(&nodes.peaks(leaves.len() as u64))?;
    Some(Commitment {
        root,
        mmr_size: mmr_size_of(leaves.len() as u64),
    })
}

/// An append body: the old peaks (left to right), the leaf count, the leaves.
pub fn append_body(old_peaks: &[[u8; 32]], leaves: &[[u8; 32]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * (old_peaks.len() + leaves.len()) + 4);
    for p in old_peaks {
        out.extend_from_slice(p);
    }
    out.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
    for l in leaves {
        out.extend_from_slice(l);
    }
    out
}

/// A create body: the leaf count and the leaves.
pub fn create_body(leaves: &[[u8; 32]]) -> Vec<u8> {
    append_body(&[], leaves)
}

/// A type-script payload: the tag, then the body.
pub fn payload(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + body.len());
    out.push(tag);
    out.extend_from_slice(body);
    out
}

/// `APPEND` payload for appending `leaves` to an MMR with peaks `old_peaks`.
pub fn append_payload(old_peaks: &[[u8; 32]], leaves: &[[u8; 32]]) -> Vec<u8> {
    payload(tag::APPEND, &append_body(old_peaks, leaves))
}

/// `CREATE` payload.
pub fn create_payload(leaves: &[[u8; 32]]) -> Vec<u8> {
    payload(tag::CREATE, &create_body(leaves))
}

/// The nodes an ancestry proof from `old_leaves` to `new_leaves` lists, in order: each is a
/// node `(first, height)` of the new MMR, or the bagging of the new peaks `nodes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Node(u64, u32),
    Bag(Vec<(u64, u32)>),
}

/// The roles of an ancestry proof's items, from the two leaf counts alone (spec).
pub fn ancestry_items(old_leaves: u64, new_leaves: u64) -> Result<Vec<Item>, Error> {
    let shape = Shape::new(old_leaves, new_leaves)?;
    let n = old_leaves;
    // The old peak of height j starts at the bits of n above j.
    let old_peak = |j: u32| Item::Node(n & !((2u64 << j) - 1), j);
    let mut items = Vec::new();
    if shape.low != 0 {
        let h0 = shape.low.trailing_zeros();
        let lefts = shape.low ^ (1 << h0);
        items.push(old_peak(h0));
        // The climbing node's first leaf at height j is the lowest peak's start with the bits
        // below j cleared; a left child's sibling starts 2^j later.
        let s0 = n - (1 << h0);
        for j in h0..shape.split {
            if lefts >> j & 1 != 0 {
                items.push(old_peak(j));
            } else {
                items.push(Item::Node((s0 & !((1u64 << j) - 1)) + (1 << j), j));
            }
        }
    }
    if shape.tail {
        let start = if shape.low != 0 {
            new_leaves & !((1u64 << shape.split) - 1)
        } else {
            new_leaves & !((2u64 << shape.split) - 1)
        };
        let rest = new_leaves - start;
        let peaks = peak_nodes(rest)
            .into_iter()
            .map(|(f, h)| (f + start, h))
            .collect();
        items.push(Item::Bag(peaks));
    }
    let mut high = shape.high;
    while high != 0 {
        items.push(old_peak(high.trailing_zeros()));
        high &= high - 1;
    }
    Ok(items)
}

/// An ancestry proof (the body of `EXTEND`) from `old_leaves` to `new_leaves`, with node
/// hashes of the new MMR from `node(first, height)`.
pub fn ancestry_proof_from_nodes<M: Merge>(
    old_leaves: u64,
    new_leaves: u64,
    mut node: impl FnMut(u64, u32) -> [u8; 32],
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    for item in ancestry_items(old_leaves, new_leaves)? {
        let hash = match item {
            Item::Node(first, h) => node(first, h),
            Item::Bag(peaks) => {
                let hashes: Vec<[u8; 32]> = peaks.iter().map(|&(f, h)| node(f, h)).collect();
                bag::<M>(&hashes).unwrap_or([0; 32])
            }
        };
        out.extend_from_slice(&hash);
    }
    Ok(out)
}

/// An ancestry proof from the MMR of the first `old_leaves` of `leaves` to the MMR of all of
/// them.
pub fn ancestry_proof<M: Merge>(leaves: &[[u8; 32]], old_leaves: u64) -> Result<Vec<u8>, Error> {
    let nodes = Nodes::new::<M>(leaves);
    ancestry_proof_from_nodes::<M>(old_leaves, leaves.len() as u64, |f, h| {
        nodes.node(f, h).unwrap_or([0; 32])
    })
}

/// `EXTEND` payload.
pub fn extend_payload(proof: &[u8]) -> Vec<u8> {
    payload(tag::EXTEND, proof)
}

/// Leaf count of a canonical size (host convenience).
pub fn leaves_of(mmr_size: u64) -> Option<u64> {
    leaf_count(mmr_size)
}
