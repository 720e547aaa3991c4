//! The read-side algorithms (`mmr_store::nodes`) over a source other than the store: the
//! reference MMR's nodes in memory (ckb-merkle-mountain-range over blake2b-rs). Peaks, leaves,
//! proof items and ancestry proofs equal the reference's; a source missing nodes gives
//! `BeyondStore`, never a panic or a wrong answer.

mod common;

use ckb_merkle_mountain_range::{util::MemStore, MMRStoreReadOps, MMR};
use common::*;
use mmr_accumulator::build;
use mmr_lock::mmr::{leaf_index_to_pos, mmr_size_of};
use mmr_store::{nodes, Error};

/// The nodes of the reference MMR of `leaves`, by position, and its root.
fn reference(leaves: &[H]) -> (Vec<H>, H) {
    let store = MemStore::default();
    let mut mmr = MMR::<H, Ref, _>::new(0, &store);
    for l in leaves {
        mmr.push(*l).unwrap();
    }
    let root = mmr.get_root().unwrap();
    let size = mmr.mmr_size();
    mmr.commit().unwrap();
    let nodes = (0..size)
        .map(|p| (&store).get_elem(p).unwrap().unwrap())
        .collect();
    (nodes, root)
}

#[test]
fn algorithms_over_nodes_in_memory_equal_the_reference() {
    for n in [1u64, 2, 3, 7, 8, 64, 100, 333] {
        let all = leaves(n, n);
        let (all_nodes, root) = reference(&all);
        let src: &[H] = &all_nodes;
        assert_eq!(src.len() as u64, mmr_size_of(n));

        let peaks = nodes::peaks(src, n).unwrap();
        assert_eq!(build::bag::<Ref>(&peaks), Some(root), "peaks of {n}");
        assert_eq!(nodes::leaves(src, 0, n).unwrap(), all);

        let indexes: Vec<u64> = (0..n).step_by(3).collect();
        let (size, _, items, proved) = ref_proof(&all, &indexes);
        let positions: Vec<u64> = proved.iter().map(|p| p.0).collect();
        assert_eq!(nodes::proof_items(src, size, &positions).unwrap(), items);

        for old in 1..n {
            assert_eq!(
                nodes::ancestry_proof(src, old, n).unwrap(),
                build::ancestry_proof::<Ref>(&all, old).unwrap(),
                "ancestry {old} -> {n}"
            );
        }
    }
}

#[test]
fn a_source_missing_nodes_is_beyond_store() {
    let all = leaves(9, 40);
    let (all_nodes, _) = reference(&all);
    // The nodes of 20 leaves only: every question about 40 leaves needs a node past them.
    let short: &[H] = &all_nodes[..mmr_size_of(20) as usize];
    let beyond = |e: Error| matches!(e, Error::BeyondStore { .. });
    assert!(beyond(nodes::peaks(short, 40).unwrap_err()));
    assert!(beyond(nodes::leaves(short, 0, 40).unwrap_err()));
    assert!(beyond(
        nodes::proof_items(short, mmr_size_of(40), &[leaf_index_to_pos(39)]).unwrap_err()
    ));
    assert!(beyond(nodes::ancestry_proof(short, 10, 40).unwrap_err()));
    // Within what it holds, the short source answers as the whole one does.
    assert_eq!(
        nodes::ancestry_proof(short, 10, 20).unwrap(),
        build::ancestry_proof::<Ref>(&all[..20], 10).unwrap()
    );
}
