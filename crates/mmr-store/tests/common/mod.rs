//! Shared fixtures: temporary store directories, leaves, and the in-memory reference (the MMR
//! of `ckb-merkle-mountain-range` and the accumulator builders over blake2b-rs).
#![allow(dead_code)]

use ckb_merkle_mountain_range::{util::MemStore, MMR};
use std::path::{Path, PathBuf};

pub type H = [u8; 32];

/// blake2b-rs, not the store's kernel: the reference shares no hashing code with the store.
pub use reference_merge::{merge as ref_merge, Blake as Ref};

/// Leaf `i` of a test MMR tagged `tag`.
pub fn leaf(tag: u64, i: u64) -> H {
    let mut l = [0u8; 32];
    l[..8].copy_from_slice(&tag.to_le_bytes());
    l[8..16].copy_from_slice(&i.to_le_bytes());
    ref_merge(&l, &[0x5a; 32])
}

pub fn leaves(tag: u64, n: u64) -> Vec<H> {
    (0..n).map(|i| leaf(tag, i)).collect()
}

/// The root of the reference MMR of `leaves` (the accumulator builders over blake2b-rs).
pub fn ref_root(leaves: &[H]) -> H {
    mmr_accumulator::build::commitment::<Ref>(leaves)
        .unwrap()
        .root
}

/// A fresh directory under the target's temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir().join(format!(
            "mmr-store-test-{}-{}-{}",
            std::process::id(),
            name,
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        TempDir(base)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn store(&self) -> PathBuf {
        self.0.join("store")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The reference MMR of `leaves`: (mmr_size, root, proof items, proved (pos, value)) for the
/// leaf `indexes`, as `tx-generator`'s `Workload::from_leaves` builds it.
pub fn ref_proof(leaves: &[H], indexes: &[u64]) -> (u64, H, Vec<H>, Vec<(u64, H)>) {
    let store = MemStore::default();
    let mut mmr = MMR::<H, Ref, _>::new(0, &store);
    let mut positions = Vec::new();
    for l in leaves {
        positions.push(mmr.push(*l).unwrap());
    }
    let mut proved: Vec<(u64, H)> = indexes
        .iter()
        .map(|&i| (positions[i as usize], leaves[i as usize]))
        .collect();
    proved.sort();
    proved.dedup();
    let proof = mmr.gen_proof(proved.iter().map(|p| p.0).collect()).unwrap();
    (
        mmr.mmr_size(),
        mmr.get_root().unwrap(),
        proof.proof_items().to_vec(),
        proved,
    )
}

/// The `mmr-store` binary of this build.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mmr-store"))
}

/// Writes `leaves` as a leaves file.
pub fn write_leaves(path: &Path, leaves: &[H]) {
    let mut text = String::with_capacity(leaves.len() * 67);
    for l in leaves {
        text.push_str(&mmr_store::hex(l));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}
