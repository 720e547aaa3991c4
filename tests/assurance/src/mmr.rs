//! Honest MMRs, built the way the structure is defined: push a leaf, then merge the two
//! rightmost peaks while they have the same height. Every node is kept by position, so the
//! ground truth of any claim can be looked up.

use crate::hash::merge;

#[derive(Debug, Clone)]
pub struct Mmr {
    /// Leaf values in leaf-index order.
    pub leaves: Vec<[u8; 32]>,
    /// Every node value, by MMR position.
    pub nodes: Vec<[u8; 32]>,
    /// Height of every node, by MMR position.
    pub heights: Vec<u32>,
    /// MMR position of every leaf.
    pub leaf_pos: Vec<u64>,
    /// Positions of the peaks, left to right.
    pub peaks: Vec<usize>,
    /// The bagged root (right to left: `acc = merge(acc, peak)`).
    pub root: [u8; 32],
    /// Position of the node covering leaves `[first, first + 2^height)`, by `(first, height)`.
    pub node_pos: std::collections::HashMap<(u64, u32), usize>,
}

impl Mmr {
    pub fn build(leaves: &[[u8; 32]]) -> Mmr {
        assert!(!leaves.is_empty(), "an MMR has at least one leaf");
        let mut nodes = Vec::new();
        let mut heights = Vec::new();
        let mut leaf_pos = Vec::new();
        let mut peaks: Vec<usize> = Vec::new();
        let mut firsts: Vec<u64> = Vec::new();
        let mut node_pos = std::collections::HashMap::new();
        for (i, leaf) in leaves.iter().enumerate() {
            leaf_pos.push(nodes.len() as u64);
            node_pos.insert((i as u64, 0), nodes.len());
            nodes.push(*leaf);
            heights.push(0);
            firsts.push(i as u64);
            peaks.push(nodes.len() - 1);
            while peaks.len() >= 2 {
                let r = peaks[peaks.len() - 1];
                let l = peaks[peaks.len() - 2];
                if heights[l] != heights[r] {
                    break;
                }
                let parent = merge(&nodes[l], &nodes[r]);
                node_pos.insert((firsts[l], heights[l] + 1), nodes.len());
                nodes.push(parent);
                heights.push(heights[l] + 1);
                firsts.push(firsts[l]);
                peaks.pop();
                peaks.pop();
                peaks.push(nodes.len() - 1);
            }
        }
        let mut acc = nodes[*peaks.last().unwrap()];
        for &p in peaks.iter().rev().skip(1) {
            acc = merge(&acc, &nodes[p]);
        }
        Mmr {
            leaves: leaves.to_vec(),
            nodes,
            heights,
            leaf_pos,
            peaks,
            root: acc,
            node_pos,
        }
    }

    /// `n` distinct pseudo-random leaves derived from `tag`.
    pub fn with_leaf_count(n: u64, tag: u64) -> Mmr {
        let leaves: Vec<[u8; 32]> = (0..n)
            .map(|i| {
                let mut seed = [0u8; 16];
                seed[..8].copy_from_slice(&tag.to_le_bytes());
                seed[8..].copy_from_slice(&i.to_le_bytes());
                crate::hash::digest(&seed)
            })
            .collect();
        Mmr::build(&leaves)
    }

    pub fn leaf_count(&self) -> u64 {
        self.leaves.len() as u64
    }

    pub fn mmr_size(&self) -> u64 {
        self.nodes.len() as u64
    }

    /// Value of the node covering leaves `[first, first + 2^height)` (must be a real node).
    pub fn node(&self, first: u64, height: u32) -> [u8; 32] {
        self.nodes[self.node_pos[&(first, height)]]
    }

    /// Script args: root || mmr_size (u64 LE).
    pub fn args(&self) -> Vec<u8> {
        let mut a = self.root.to_vec();
        a.extend_from_slice(&self.mmr_size().to_le_bytes());
        a
    }

    /// Every distinct node value and the root, in position order (root last if new).
    pub fn value_pool(&self) -> Vec<[u8; 32]> {
        let mut pool: Vec<[u8; 32]> = Vec::new();
        for v in self.nodes.iter().chain(std::iter::once(&self.root)) {
            if !pool.contains(v) {
                pool.push(*v);
            }
        }
        pool
    }
}
