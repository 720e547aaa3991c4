//! Our ancestry proofs against Parity's `polkadot-ckb-merkle-mountain-range` 0.8.3 (on the
//! host, same hash): proof hashes and merges, ours counted with the old root's bagging
//! included. Small pairs in the default suite; the brief's two targets (2^20 leaves) with
//! `cargo test --release -p mmr-accumulator --features std --test parity -- --ignored`.

mod common;

use common::{leaves, take_merges, Blake, H};
use mmr_accumulator::{build, verify_ancestry, Shape};
use mmr_lock::mmr::mmr_size_of;
use pmmr::util::{MemMMR, MemStore};
use polkadot_ckb_merkle_mountain_range as pmmr;

struct PBlake;

impl pmmr::Merge for PBlake {
    type Item = H;
    fn merge(left: &H, right: &H) -> pmmr::Result<H> {
        Ok(common::merge(left, right))
    }
}

/// (hashes, merges) of Parity's proof from `n` to `leaves.len()` leaves, checked to verify.
fn parity(mmr: &MemMMR<'_, H, PBlake>, n: u64) -> (u64, u64) {
    let prev_size = mmr_size_of(n);
    let (_, prev_root) = mmr.get_ancestor_peaks_and_root(prev_size).unwrap();
    let root = mmr.get_root().unwrap();
    let proof = mmr.gen_ancestry_proof(prev_size).unwrap();
    let hashes = proof.prev_peaks.len() + proof.prev_peaks_proof.proof_items().len();
    take_merges();
    assert!(proof.verify_ancestor(root, prev_root).unwrap());
    (hashes as u64, take_merges())
}

/// (hashes, merges) of ours, checked to verify.
fn ours(all: &[H], n: u64) -> (u64, u64) {
    let m = all.len() as u64;
    let old = build::commitment::<Blake>(&all[..n as usize]).unwrap();
    let new = build::commitment::<Blake>(all).unwrap();
    let proof = build::ancestry_proof::<Blake>(all, n).unwrap();
    take_merges();
    verify_ancestry::<Blake>(&old.root, old.mmr_size, &new.root, new.mmr_size, &proof).unwrap();
    let merges = take_merges();
    let shape = Shape::new(n, m).unwrap();
    assert_eq!(merges, u64::from(shape.merges()));
    ((proof.len() / 32) as u64, merges)
}

fn parity_mmr(store: &MemStore<H>, all: &[H]) -> u64 {
    let mut mmr = MemMMR::<H, PBlake>::new(0, store);
    for l in all {
        mmr.push(*l).unwrap();
    }
    mmr.commit().unwrap();
    mmr.mmr_size()
}

#[test]
fn never_larger_nor_more_merges_on_small_pairs() {
    let mut equal_hashes = 0;
    let mut pairs = 0;
    for m in 2..=48u64 {
        let all = leaves(m, 0x5a);
        let store = MemStore::default();
        let size = parity_mmr(&store, &all);
        let mmr = MemMMR::<H, PBlake>::new(size, &store);
        for n in 1..m {
            let (ph, pm) = parity(&mmr, n);
            let (oh, om) = ours(&all, n);
            assert!(oh <= ph, "{n}->{m}: {oh} hashes vs Parity's {ph}");
            assert!(om <= pm, "{n}->{m}: {om} merges vs Parity's {pm}");
            equal_hashes += u64::from(oh == ph);
            pairs += 1;
        }
    }
    println!("{pairs} pairs, {equal_hashes} with as many hashes as Parity's");
}

#[test]
#[ignore = "builds 2^20-leaf MMRs: run in release"]
fn brief_targets() {
    let big = 1u64 << 20;
    let all = leaves(big, 0x77);
    for (n, m) in [((1 << 19) + 1, big - 1), (big - 1, big)] {
        let store = MemStore::default();
        let size = parity_mmr(&store, &all[..m as usize]);
        let mmr = MemMMR::<H, PBlake>::new(size, &store);
        let (ph, pm) = parity(&mmr, n);
        let (oh, om) = ours(&all[..m as usize], n);
        println!(
            "{n} -> {m} leaves: Parity {ph} hashes ({} B), {pm} merges; ours {oh} hashes ({} B), {om} merges",
            32 * ph,
            32 * oh
        );
        assert!(oh <= ph && om <= pm);
    }
}
