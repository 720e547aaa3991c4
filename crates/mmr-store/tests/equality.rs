//! The store against the in-memory builders, on random sizes: roots, peaks, lock proofs and
//! both payloads at the current and at earlier sizes, append payloads and ancestry proofs
//! between random pairs of sizes, byte for byte.

mod common;

use common::*;
use mmr_accumulator::build;
use mmr_lock::mmr::mmr_size_of;
use mmr_store::Store;
use rand::{rngs::StdRng, Rng, SeedableRng};

#[test]
fn store_equals_in_memory_builders_on_random_sizes() {
    let mut rng = StdRng::seed_from_u64(20);
    for round in 0..12u64 {
        let n = match round {
            0 => 1,
            1 => 2,
            2 => 64,
            _ => rng.gen_range(3..2500u64),
        };
        let all = leaves(round, n);
        let dir = TempDir::new("equality");
        let mut store = Store::create(&dir.store(), None).unwrap();
        // Random batches, so committed and uncommitted sizes both occur below the top.
        let mut at = 0u64;
        let mut committed = vec![];
        while at < n {
            let k = rng.gen_range(1..=(n - at).min(1 + n / 3));
            let c = store.append(&all[at as usize..(at + k) as usize]).unwrap();
            at += k;
            assert_eq!(c.leaf_count, at);
            committed.push(c.mmr_size);
        }
        assert_eq!(store.mmr_size(), mmr_size_of(n));
        assert_eq!(
            store
                .commits()
                .unwrap()
                .iter()
                .map(|c| c.0)
                .collect::<Vec<_>>(),
            committed
        );
        drop(store);
        let store = Store::open_read_only(&dir.store()).unwrap();
        let mut sizes: Vec<u64> = (0..6).map(|_| rng.gen_range(1..=n)).collect();
        sizes.push(n);
        for m in sizes {
            let size = mmr_size_of(m);
            let prefix = &all[..m as usize];
            let c = build::commitment::<Ref>(prefix).unwrap();
            assert_eq!(store.root_at(size).unwrap(), c.root, "n {n} m {m}");
            assert_eq!(
                store.peaks_at(size).unwrap(),
                build::Nodes::new::<Ref>(prefix).peaks(m)
            );
            for _ in 0..3 {
                let k = rng.gen_range(1..=m.min(100));
                let idx: Vec<u64> = (0..k).map(|_| rng.gen_range(0..m)).collect();
                let proof = store.proof(size, &idx).unwrap();
                let (ref_size, ref_root, items, proved) = ref_proof(prefix, &idx);
                assert_eq!(proof.mmr_size, ref_size);
                assert_eq!(proof.root, ref_root);
                assert_eq!(proof.items, items, "n {n} m {m} idx {idx:?}");
                assert_eq!(proof.proved, proved);
                assert_eq!(
                    proof.baseline_payload(),
                    baseline_proof::encode(&proved, &items)
                );
                assert_eq!(
                    proof.compiled_payload().unwrap(),
                    compiled_proof::compile_compact(ref_size, &items, &proved).unwrap()
                );
            }
            if m < n {
                let new = rng.gen_range(m + 1..=n);
                let new_size = mmr_size_of(new);
                let old_peaks = build::Nodes::new::<Ref>(prefix).peaks(m);
                assert_eq!(
                    store.append_payload(size, new_size).unwrap(),
                    build::append_payload(&old_peaks, &all[m as usize..new as usize]),
                    "append {m} -> {new}"
                );
                assert_eq!(
                    store.ancestry_proof(size, new_size).unwrap(),
                    build::ancestry_proof::<Ref>(&all[..new as usize], m).unwrap(),
                    "ancestry {m} -> {new}"
                );
            }
        }
        assert_eq!(store.check().unwrap().leaves, n);
    }
}

/// Every (old, new) pair of a small MMR: the append and ancestry builders from the store.
#[test]
fn all_size_pairs_of_a_small_store() {
    let n = 70u64;
    let all = leaves(7, n);
    let dir = TempDir::new("pairs");
    let mut store = Store::create(&dir.store(), None).unwrap();
    for l in &all {
        store.append(std::slice::from_ref(l)).unwrap();
    }
    for old in 1..n {
        let old_peaks = build::Nodes::new::<Ref>(&all[..old as usize]).peaks(old);
        for new in old + 1..=n {
            let (o, s) = (mmr_size_of(old), mmr_size_of(new));
            assert_eq!(
                store.append_payload(o, s).unwrap(),
                build::append_payload(&old_peaks, &all[old as usize..new as usize])
            );
            assert_eq!(
                store.ancestry_proof(o, s).unwrap(),
                build::ancestry_proof::<Ref>(&all[..new as usize], old).unwrap(),
                "{old} -> {new}"
            );
        }
    }
}

/// Appends long enough for the pipelined path (aligned blocks of 2^14 leaves hashed by one
/// worker per core, an unaligned head and tail on the calling thread): the node file equals,
/// byte for byte, the nodes of the same leaves pushed one at a time with blake2b-rs, and
/// every commit's root equals the reference's. The batch sizes start on and off a block
/// boundary, end on one, hold no whole block, and cross several.
#[test]
fn pipelined_appends_equal_one_leaf_at_a_time() {
    const B: u64 = 1 << 14;
    let batches = [3, 2 * B + 5, B - 8, B, 3 * B, B + 1, 5 * B + 777, 1, 17_000];
    let n: u64 = batches.iter().sum();
    let all = leaves(7, n);
    // The reference: every node in position order, from the peaks, one leaf at a time.
    let mut expected: Vec<u8> = Vec::with_capacity(64 * n as usize);
    let mut peaks: Vec<(u32, H)> = vec![];
    for leaf in &all {
        expected.extend_from_slice(leaf);
        let (mut height, mut node) = (0, *leaf);
        while let Some(&(h, left)) = peaks.last() {
            if h != height {
                break;
            }
            peaks.pop();
            node = ref_merge(&left, &node);
            expected.extend_from_slice(&node);
            height += 1;
        }
        peaks.push((height, node));
    }
    // One hasher (the calling thread alone), and more workers than this machine may have.
    for hashers in [1, 2, 3] {
        let dir = TempDir::new("pipelined");
        let mut store = Store::create(&dir.store(), None).unwrap();
        store.set_hashers(hashers);
        let mut at = 0u64;
        for k in batches {
            let c = store.append(&all[at as usize..(at + k) as usize]).unwrap();
            at += k;
            assert_eq!(c.mmr_size, mmr_size_of(at));
            assert_eq!(
                c.root,
                ref_root(&all[..at as usize]),
                "root after {at} leaves, {hashers} hashers"
            );
        }
        drop(store);
        let nodes = std::fs::read(dir.store().join(mmr_store::files::NODES)).unwrap();
        assert_eq!(nodes.len(), expected.len());
        if let Some(i) = (0..nodes.len()).find(|&i| nodes[i] != expected[i]) {
            panic!(
                "{hashers} hashers: node file differs first at node {}",
                i / 32
            );
        }
        let store = Store::open_read_only(&dir.store()).unwrap();
        assert_eq!(store.check().unwrap().leaves, n);
    }
}
