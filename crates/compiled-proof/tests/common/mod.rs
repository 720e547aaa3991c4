//! Shared test fixtures: the blake2b merge, an in-memory MMR store, proof helpers.
#![allow(dead_code)]

use std::cell::RefCell;

use ckb_merkle_mountain_range::{MMRStoreReadOps, MMRStoreWriteOps, MMR};
use compiled_proof::{compile, CompileError, FormatError};
use mmr_lock::mmr::{leaf_index_to_pos, mmr_size_of};
use rand::{Rng, RngCore};

/// The reference merge (blake2b-rs) and its `Merge` impls, shared with the other crates' tests.
pub use reference_merge::{merge, Blake, Hash};

/// A payload compiler: `compile` or `compile_compact`.
type Compiler = fn(u64, &[Hash], &[(u64, Hash)]) -> Result<Vec<u8>, CompileError>;

/// Append-only node store; `&VecStore` is the MMR's store.
#[derive(Default)]
pub struct VecStore(RefCell<Vec<Hash>>);

impl MMRStoreReadOps<Hash> for &VecStore {
    fn get_elem(&self, pos: u64) -> ckb_merkle_mountain_range::Result<Option<Hash>> {
        Ok(self.0.borrow().get(pos as usize).copied())
    }
}

impl MMRStoreWriteOps<Hash> for &VecStore {
    fn append(&mut self, pos: u64, elems: Vec<Hash>) -> ckb_merkle_mountain_range::Result<()> {
        let mut nodes = self.0.borrow_mut();
        assert_eq!(pos as usize, nodes.len());
        nodes.extend(elems);
        Ok(())
    }
}

/// An MMR of `leaves.len()` leaves; every prefix of it is the MMR of the first leaves.
pub struct Fixture {
    pub store: VecStore,
    pub leaves: Vec<Hash>,
}

impl Fixture {
    pub fn with_leaves(leaves: Vec<Hash>) -> Self {
        let store = VecStore::default();
        {
            let mut mmr = MMR::<Hash, Blake, &VecStore>::new(0, &store);
            for leaf in &leaves {
                mmr.push(*leaf).unwrap();
                mmr.commit().unwrap();
            }
        }
        Fixture { store, leaves }
    }

    pub fn random(rng: &mut impl RngCore, n: usize) -> Self {
        let leaves = (0..n)
            .map(|_| {
                let mut leaf = [0u8; 32];
                rng.fill_bytes(&mut leaf);
                leaf
            })
            .collect();
        Self::with_leaves(leaves)
    }

    pub fn mmr(&self, leaf_count: u64) -> MMR<Hash, Blake, &VecStore> {
        MMR::new(mmr_size_of(leaf_count), &self.store)
    }

    pub fn root(&self, leaf_count: u64) -> Hash {
        self.mmr(leaf_count).get_root().unwrap()
    }

    /// Node at MMR position `pos`.
    pub fn node(&self, pos: u64) -> Hash {
        self.store.0.borrow()[pos as usize]
    }

    /// Upstream proof items for the (sorted) leaf indexes.
    pub fn proof_items(&self, leaf_count: u64, indexes: &[u64]) -> Vec<Hash> {
        let positions = indexes.iter().map(|&i| leaf_index_to_pos(i)).collect();
        let proof = self.mmr(leaf_count).gen_proof(positions).unwrap();
        proof.proof_items().to_vec()
    }

    pub fn position_leaves(&self, indexes: &[u64]) -> Vec<(u64, Hash)> {
        indexes
            .iter()
            .map(|&i| (leaf_index_to_pos(i), self.leaves[i as usize]))
            .collect()
    }

    /// Upstream `gen_proof` compiled into a payload.
    pub fn payload(&self, leaf_count: u64, indexes: &[u64]) -> Vec<u8> {
        self.compiled(leaf_count, indexes, compile)
    }

    /// Upstream `gen_proof` compiled into a compact (version 2) payload.
    pub fn compact_payload(&self, leaf_count: u64, indexes: &[u64]) -> Vec<u8> {
        self.compiled(leaf_count, indexes, compiled_proof::compile_compact)
    }

    /// Upstream `gen_proof` compiled by `compiler`.
    fn compiled(&self, leaf_count: u64, indexes: &[u64], compiler: Compiler) -> Vec<u8> {
        let items = self.proof_items(leaf_count, indexes);
        let leaves = self.position_leaves(indexes);
        compiler(mmr_size_of(leaf_count), &items, &leaves).unwrap()
    }

    /// Upstream verification of the same statement.
    pub fn upstream_verify(&self, leaf_count: u64, indexes: &[u64]) -> bool {
        let positions = indexes.iter().map(|&i| leaf_index_to_pos(i)).collect();
        let mmr = self.mmr(leaf_count);
        let proof = mmr.gen_proof(positions).unwrap();
        proof
            .verify(self.root(leaf_count), self.position_leaves(indexes))
            .unwrap()
    }
}

pub fn verify(payload: &[u8], root: &Hash, leaf_count: u64) -> Result<(), FormatError> {
    compiled_proof::verify::<Blake>(payload, root, leaf_count)
}

pub fn compute_root(payload: &[u8], leaf_count: u64) -> Result<Hash, FormatError> {
    compiled_proof::compute_root::<Blake>(payload, leaf_count)
}

/// `k` distinct sorted indexes below `n`.
pub fn sample_indexes(rng: &mut impl Rng, n: u64, k: usize) -> Vec<u64> {
    let mut v: Vec<u64> = rand::seq::index::sample(rng, n as usize, k)
        .into_iter()
        .map(|i| i as u64)
        .collect();
    v.sort_unstable();
    v
}

/// A random claim in an MMR of `n` leaves: `1..=min(n, max_k)` sorted distinct indexes.
pub fn random_indexes(rng: &mut impl Rng, n: u64, max_k: u64) -> Vec<u64> {
    let k = rng.gen_range(1..=n.min(max_k)) as usize;
    sample_indexes(rng, n, k)
}

/// A random case of `random_proofs_verify`: an MMR of `n` leaves (a third of the cases in
/// small MMRs of 1..=64 leaves, where every shape is dense; the rest 1..=`max_n`) and a
/// claim of at most `max_k` of its leaves.
pub fn random_case(rng: &mut impl Rng, case: usize, max_n: u64, max_k: u64) -> (u64, Vec<u64>) {
    let n: u64 = if case.is_multiple_of(3) {
        rng.gen_range(1..=64)
    } else {
        rng.gen_range(1..=max_n)
    };
    (n, random_indexes(rng, n, max_k))
}

/// Peaks of an MMR with `leaf_count` leaves as `(first, height)`, left to right.
pub fn peaks(leaf_count: u64) -> Vec<(u64, u32)> {
    let mut start = 0;
    let mut out = Vec::new();
    for h in (0..64u32).rev() {
        if leaf_count >> h & 1 == 1 {
            out.push((start, h));
            start += 1 << h;
        }
    }
    out
}

/// Hash of the node `(first, height)` computed from the leaf values.
pub fn node_hash(leaves: &[Hash], first: u64, height: u32) -> Hash {
    if height == 0 {
        return leaves[first as usize];
    }
    let half = 1u64 << (height - 1);
    merge(
        &node_hash(leaves, first, height - 1),
        &node_hash(leaves, first + half, height - 1),
    )
}

/// Bag peak hashes from the right.
pub fn bag(peaks: &[Hash]) -> Hash {
    let mut acc = *peaks.last().unwrap();
    for p in peaks.iter().rev().skip(1) {
        acc = merge(&acc, p);
    }
    acc
}

/// Splits a well-formed payload back into leaf records and commands.
pub fn decode(payload: &[u8]) -> (Vec<(u64, Hash)>, Vec<compiled_proof::Command>) {
    use compiled_proof::{op, Command};
    let n = u32::from_le_bytes(payload[..4].try_into().unwrap()) as usize;
    let records = (0..n)
        .map(|i| {
            let r = &payload[4 + 40 * i..4 + 40 * (i + 1)];
            (
                u64::from_le_bytes(r[..8].try_into().unwrap()),
                r[8..].try_into().unwrap(),
            )
        })
        .collect();
    let mut commands = Vec::new();
    let mut rest = &payload[4 + 40 * n..];
    while let Some((&opcode, tail)) = rest.split_first() {
        let item = |t: &[u8]| -> Hash { t[..32].try_into().unwrap() };
        let (command, len) = match opcode {
            op::LEAF => (Command::Leaf, 0),
            op::MERGE => (Command::Merge, 0),
            op::PROOF => (Command::Proof(item(tail)), 32),
            op::PEAK => (Command::Peak, 0),
            op::PEAK_PROOF => (Command::PeakProof(item(tail)), 32),
            op::BAG_RHS => (Command::BagRhs(item(tail)), 32),
            other => panic!("opcode {other:#x}"),
        };
        commands.push(command);
        rest = &tail[len..];
    }
    (records, commands)
}

pub fn enc(records: &[(u64, Hash)], commands: &[compiled_proof::Command]) -> Vec<u8> {
    compiled_proof::encode(records, commands).unwrap()
}

/// A copy of `x` with `edit` applied.
pub fn edited<T: Clone>(x: &T, edit: impl FnOnce(&mut T)) -> T {
    let mut out = x.clone();
    edit(&mut out);
    out
}
