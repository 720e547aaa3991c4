//! Growth that cannot be undone (docs/accumulator.md, "Trust model"): one `EXTEND` takes an
//! accumulator of 5 leaves to the largest MMR there is (2^49 + 1 leaves, mmr_size 2^50), and
//! an `IMPORT` creates one at that size; from there it can never grow again, only be kept.
//! In ckb-script on the release binary, so the test fails if the type script's behaviour at
//! the limit changes.

use ckb_testtool::ckb_types::{
    bytes::Bytes, core::TransactionBuilder, packed::CellInput, prelude::*,
};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::{tag, Commitment, Error, Shape};
use mmr_lock::mmr::{leaf_count, mmr_size_of, MAX_MMR_SIZE};
use tests::accumulator::{
    commit, leaves, synthetic, synthetic_state, witness, AccumulatorChain, Host, UPDATED_ID,
};
use tests::Outcome;

/// The largest leaf count an accumulator can hold: its mmr_size is exactly `MAX_MMR_SIZE`.
const MAX_LEAVES: u64 = (1 << 49) + 1;

/// An accumulator cell's data: `root || mmr_size`.
fn cell_data(root: [u8; 32], mmr_size: u64) -> [u8; 40] {
    Commitment { root, mmr_size }.to_bytes()
}

fn rejected(e: Error) -> Outcome {
    Outcome::Rejected(e.code())
}

/// The 5-leaf commitment, the maximum-size one an `EXTEND` reaches from it, and that proof's
/// payload.
fn five_to_max() -> ([u8; 40], Commitment, Vec<u8>) {
    let five = leaves(5);
    let nodes = Nodes::new::<Host>(&five);
    // The old peaks are the real 5-leaf MMR's; every other node is the extender's choice,
    // a node of the new leaves the proof never reveals.
    let node = |first: u64, height: u32| {
        nodes
            .node(first, height)
            .unwrap_or_else(|| synthetic(first, height))
    };
    let proof = build::ancestry_proof_from_nodes::<Host>(5, MAX_LEAVES, node).unwrap();
    let (old_root, new_root) =
        mmr_accumulator::ancestry_roots::<Host>(mmr_size_of(5), MAX_MMR_SIZE, &proof).unwrap();
    let old = commit(&five);
    assert_eq!(
        old[..32],
        old_root,
        "the proof starts at the real 5-leaf root"
    );
    let max = Commitment {
        root: new_root,
        mmr_size: MAX_MMR_SIZE,
    };
    (old, max, build::extend_payload(&proof))
}

#[test]
fn one_extend_reaches_the_maximum_size() {
    assert_eq!(mmr_size_of(MAX_LEAVES), MAX_MMR_SIZE);
    assert_eq!(leaf_count(MAX_MMR_SIZE), Some(MAX_LEAVES));
    let (old, max, payload) = five_to_max();
    // 5 = 0b101 to 2^49 + 1: climb from the height-0 peak to 49 (1 + 49 items), one tail.
    let shape = Shape::new(5, MAX_LEAVES).unwrap();
    assert_eq!(shape.items(), 51);
    assert_eq!(payload.len(), 1 + 51 * 32);
    let mut chain = AccumulatorChain::new();
    let cycles = match chain.run_update(&old, &max.to_bytes(), &payload) {
        Outcome::Accepted(cycles) => cycles,
        other => panic!("5 -> 2^49 + 1 leaves in one EXTEND: {other:?}"),
    };
    // The same transaction's shape without the type script: the always-success lock alone.
    let plain = chain.plain_cell();
    let lock_only = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(plain).build())
        .output(chain.output(None))
        .output_data(Bytes::copy_from_slice(&max.to_bytes()).pack())
        .witness(witness(Some(&payload), None).pack());
    let Outcome::Accepted(lock) = chain.run(lock_only) else {
        panic!("the always-success lock alone")
    };
    let type_cycles = cycles - lock;
    println!(
        "EXTEND 5 -> 2^49 + 1 leaves: {} items, {} merges, type script {type_cycles} cycles",
        shape.items(),
        shape.merges()
    );
    // Well inside one transaction's budget: nothing in the cost stops it.
    assert!(type_cycles < 100_000, "{type_cycles}");
}

#[test]
fn at_the_maximum_size_it_never_grows_again() {
    let (_, max, _) = five_to_max();
    let data = max.to_bytes();
    let mut chain = AccumulatorChain::new();
    let (peaks, full) = synthetic_state(MAX_LEAVES);
    let full = full.to_bytes();
    // APPEND of a single leaf: the size would pass 2^50.
    let append = build::append_payload(&peaks, &[[0x42; 32]]);
    assert_eq!(
        chain.run_update(&full, &full, &append),
        rejected(Error::SizeOverflow)
    );
    // EXTEND: no canonical size lies above 2^50, and the next MMR size is refused as a size.
    let next = cell_data([0x33; 32], mmr_size_of(MAX_LEAVES + 1));
    for target in [next, data] {
        let outcome = chain.run_update(&data, &target, &build::extend_payload(&[0x33; 32]));
        let expected = if target == data {
            Error::SizesEqual
        } else {
            Error::NewSizeInvalid
        };
        assert_eq!(outcome, rejected(expected));
    }
    // It cannot be destroyed either (and so recreated under a fresh type id): only KEEP,
    // a new lock or capacity over the same data, is left.
    let cell = chain.accumulator(&UPDATED_ID, &data);
    let destroy = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(cell).build())
        .output(chain.output(None))
        .output_data(Bytes::new().pack())
        .witness(witness(Some(&[tag::KEEP]), None).pack());
    assert_eq!(chain.run(destroy), rejected(Error::DestroyRefused));
    assert!(chain.run_update(&data, &data, &[tag::KEEP]).accepted());
}

#[test]
fn an_import_at_the_maximum_size_is_born_full() {
    let mut chain = AccumulatorChain::new();
    let full = cell_data([0x77; 32], MAX_MMR_SIZE);
    assert!(chain.run_creation(&full, &[tag::IMPORT]).accepted());
    let over = cell_data([0x77; 32], mmr_size_of(MAX_LEAVES + 1));
    assert_eq!(
        chain.run_creation(&over, &[tag::IMPORT]),
        rejected(Error::NewSizeInvalid)
    );
}
