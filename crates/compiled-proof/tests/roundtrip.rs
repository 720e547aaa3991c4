//! Honest proofs: upstream `gen_proof` output compiles and verifies, with the MMR's root.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::{compile, encode, leaves, Command, CompileError, FormatError};
use mmr_lock::mmr::mmr_size_of;
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};

/// Random MMRs of 1..=5000 leaves, 1..=100 proved leaves.
#[test]
fn random_proofs_verify() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0001);
    let fixture = Fixture::random(&mut rng, 5000);
    let mut cases = 0;
    let mut hashes = 0usize;
    for case in 0..20_000 {
        let (n, indexes) = random_case(&mut rng, case, 5000, 100);
        let payload = fixture.payload(n, &indexes);
        let root = fixture.root(n);
        assert_eq!(
            compute_root(&payload, n),
            Ok(root),
            "n {n} leaves {indexes:?}"
        );
        assert_eq!(verify(&payload, &root, n), Ok(()));
        // The leaves section lists exactly the proved leaves, in order.
        let listed: Vec<(u64, [u8; 32])> =
            leaves(&payload).unwrap().map(|(i, v)| (i, *v)).collect();
        let expected: Vec<(u64, [u8; 32])> = indexes
            .iter()
            .map(|&i| (i, fixture.leaves[i as usize]))
            .collect();
        assert_eq!(listed, expected);
        // A wrong root is the only thing that fails.
        let mut wrong = root;
        wrong[case % 32] ^= 1;
        assert_eq!(verify(&payload, &wrong, n), Err(FormatError::RootMismatch));
        hashes += fixture.proof_items(n, &indexes).len();
        cases += 1;
    }
    eprintln!("{cases} random proofs, {hashes} proof items");
}

/// Every non-empty subset of leaves of every MMR with up to 12 leaves.
#[test]
fn exhaustive_small_mmrs() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0002);
    let fixture = Fixture::random(&mut rng, 12);
    let mut cases = 0;
    for n in 1..=12u64 {
        let root = fixture.root(n);
        for mask in 1u32..(1 << n) {
            let indexes: Vec<u64> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            assert!(fixture.upstream_verify(n, &indexes));
            let payload = fixture.payload(n, &indexes);
            assert_eq!(verify(&payload, &root, n), Ok(()), "n {n} mask {mask:b}");
            cases += 1;
        }
    }
    eprintln!("{cases} exhaustive cases");
}

/// The spec's worked example, byte for byte.
#[test]
fn spec_example() {
    let fixture = Fixture::with_leaves((1..=5u8).map(|i| [0x11 * i; 32]).collect());
    let items = fixture.proof_items(5, &[0, 3]);
    assert_eq!(items, vec![[0x22; 32], [0x33; 32], [0x55; 32]]);
    let payload = fixture.payload(5, &[0, 3]);
    let hex = "0200000000000000000000001111111111111111111111111111111111111111\
               1111111111111111111111110300000000000000444444444444444444444444\
               4444444444444444444444444444444444444444010322222222222222222222\
               2222222222222222222222222222222222222222222201033333333333333333\
               3333333333333333333333333333333333333333333333330204055555555555\
               555555555555555555555555555555555555555555555555555555";
    let expected: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(payload, expected);
    assert_eq!(payload.len(), 187);
    let root = fixture.root(5);
    let root_hex: String = root.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        root_hex,
        "723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
    );
    assert_eq!(verify(&payload, &root, 5), Ok(()));

    // The rejections listed in the spec.
    use FormatError::*;
    assert_eq!(verify(&payload[..186], &root, 5), Err(ItemTruncated));
    assert_eq!(verify(&payload[..154], &root, 5), Err(PeaksIncomplete));
    let longer = edited(&payload, |longer| longer.push(0x01));
    assert_eq!(verify(&longer, &root, 5), Err(TrailingBytes));
    let mut p = payload.clone();
    p[4] = 1;
    assert_eq!(verify(&p, &root, 5), Err(RootMismatch));
    p[4] = 4;
    assert_eq!(verify(&p, &root, 5), Err(LeafOutsidePeak));
    let mut swapped = payload.clone();
    swapped[4..44].copy_from_slice(&payload[44..84]);
    swapped[44..84].copy_from_slice(&payload[4..44]);
    assert_eq!(verify(&swapped, &root, 5), Err(LeafIndexNotAscending));
    let mut p = payload.clone();
    p[0] = 3;
    assert_eq!(verify(&p, &root, 5), Err(UnknownCommand));
    p[0] = 5;
    assert_eq!(verify(&p, &root, 5), Err(LeavesTruncated));
    for at in [84, 118, 152, 153, 154] {
        let p = edited(&payload, |p| p[at] = 0x07);
        assert_eq!(verify(&p, &root, 5), Err(UnknownCommand));
    }
}

/// Upstream also accepts trailing leafless peaks given one by one, or partly bagged; the
/// compiler maps each shape to PEAK_PROOF / BAG_RHS and the verifier accepts them all.
#[test]
fn trailing_peak_shapes() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0003);
    // 0b1011_0111: 6 peaks.
    let n = 0b1011_0111u64;
    let fixture = Fixture::random(&mut rng, n as usize);
    let root = fixture.root(n);
    let pk = peaks(n);
    let peak_hashes: Vec<Hash> = pk
        .iter()
        .map(|&(f, h)| node_hash(&fixture.leaves, f, h))
        .collect();
    assert_eq!(bag(&peak_hashes), root);
    // Prove one leaf in peak 1; peaks 2..6 are leafless.
    let indexes = [pk[1].0 + 3];
    let gen = fixture.proof_items(n, &indexes);
    // gen_proof form: [peak0, siblings.., bag(peaks 2..)].
    assert_eq!(gen.last(), Some(&bag(&peak_hashes[2..])));
    let body = &gen[..gen.len() - 1];
    let position_leaves = fixture.position_leaves(&indexes);
    for split in 2..=pk.len() {
        // Peaks 2..split one by one, then the rest bagged (if at least 2 remain).
        let mut items = body.to_vec();
        items.extend_from_slice(&peak_hashes[2..split]);
        let rest = &peak_hashes[split..];
        match rest.len() {
            0 => {}
            1 => continue, // one remaining peak given as a "bag" is just that peak: covered
            _ => items.push(bag(rest)),
        }
        let payload = compile(mmr_size_of(n), &items, &position_leaves).unwrap();
        assert_eq!(verify(&payload, &root, n), Ok(()), "split {split}");
    }
    // A missing bag, an extra item, or a bag in front of a peak with leaves do not compile.
    assert_eq!(
        compile(mmr_size_of(n), body, &position_leaves),
        Err(CompileError::MissingProofItem)
    );
    let mut extra = body.to_vec();
    extra.extend_from_slice(&peak_hashes[2..]);
    extra.push([0; 32]);
    assert_eq!(
        compile(mmr_size_of(n), &extra, &position_leaves),
        Err(CompileError::UnusedProofItems)
    );
    // One extra item after the gen_proof form reads as "last peak, then a bag of one":
    // it compiles (as upstream parses it) and fails on the root.
    let extra = edited(&gen, |extra| extra.push([0; 32]));
    let payload = compile(mmr_size_of(n), &extra, &position_leaves).unwrap();
    assert_eq!(verify(&payload, &root, n), Err(FormatError::RootMismatch));
}

#[test]
fn compile_rejects_bad_input() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0004);
    let fixture = Fixture::random(&mut rng, 11);
    let size = mmr_size_of(11);
    let items = fixture.proof_items(11, &[2, 5]);
    let good = fixture.position_leaves(&[2, 5]);
    assert!(compile(size, &items, &good).is_ok());
    assert_eq!(
        compile(size + 1, &items, &good),
        Err(CompileError::MmrSizeInvalid)
    );
    assert_eq!(compile(0, &items, &good), Err(CompileError::MmrSizeInvalid));
    assert_eq!(compile(size, &items, &[]), Err(CompileError::NoLeaves));
    let reversed: Vec<_> = good.iter().rev().copied().collect();
    assert_eq!(
        compile(size, &items, &reversed),
        Err(CompileError::LeavesNotAscending)
    );
    let dup = vec![good[0], good[0]];
    assert_eq!(
        compile(size, &items, &dup),
        Err(CompileError::LeavesNotAscending)
    );
    // Position 2 is an internal node; position 19 (= size) is beyond the MMR.
    assert_eq!(
        compile(size, &items, &[(2, [0; 32])]),
        Err(CompileError::NotALeaf(2))
    );
    assert_eq!(
        compile(size, &items, &[(size, [0; 32])]),
        Err(CompileError::NotALeaf(size))
    );
    assert_eq!(
        compile(size, &items[1..], &good),
        Err(CompileError::MissingProofItem)
    );
    // Proving the last leaf leaves no leafless peak to absorb an extra item.
    let mut extra = fixture.proof_items(11, &[2, 10]);
    extra.push([0; 32]);
    assert_eq!(
        compile(size, &extra, &fixture.position_leaves(&[2, 10])),
        Err(CompileError::UnusedProofItems)
    );
    assert!(encode(&[], &[Command::Leaf]).is_ok());
}

/// The reference workload's shape (2520 leaves, 76 proved): command counts for the record.
#[test]
fn reference_workload_shape() {
    use rand::seq::SliceRandom;
    // Same draws as the tx generator (BRIEF: leaf count, proved count, leaves, shuffle).
    let mut rng = StdRng::seed_from_u64(1680833947559458126);
    // Leaf count drawn as a u32, proved count as a usize: the type changes rand's sampling.
    let n = u64::from(rng.gen_range(1000u32..3000));
    let k: usize = rng.gen_range(1..100);
    let leaves: Vec<Hash> = (0..n)
        .map(|_| {
            let mut l = [0u8; 32];
            rng.fill_bytes(&mut l);
            l
        })
        .collect();
    let mut order: Vec<u64> = (0..n).collect();
    order.shuffle(&mut rng);
    let mut indexes = order[..k].to_vec();
    indexes.sort_unstable();
    assert_eq!((n, k, mmr_size_of(n)), (2520, 76, 5034));
    let fixture = Fixture::with_leaves(leaves);
    let payload = fixture.payload(n, &indexes);
    let items = fixture.proof_items(n, &indexes);
    assert_eq!(verify(&payload, &fixture.root(n), n), Ok(()));
    let commands = &payload[4 + 40 * k..];
    let mut counts = [0usize; 7];
    let mut at = 0;
    while at < commands.len() {
        let op = commands[at] as usize;
        counts[op] += 1;
        at += if matches!(op, 3 | 5 | 6) { 33 } else { 1 };
    }
    eprintln!(
        "reference workload: payload {} bytes, {} items; LEAF {} MERGE {} PROOF {} PEAK {} PEAK_PROOF {} BAG_RHS {}",
        payload.len(),
        items.len(),
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        counts[5],
        counts[6]
    );
    assert_eq!(counts[3] + counts[5] + counts[6], items.len());
}

/// One `Stack` reused across honest and broken payloads gives the same verdicts as a fresh
/// one each time: no state leaks from one run into the next.
#[test]
fn reused_stack_has_no_memory() {
    use compiled_proof::{compute_root_with, Stack};
    let mut rng = StdRng::seed_from_u64(0x5eed_0005);
    let fixture = Fixture::random(&mut rng, 600);
    let mut stack = Stack::new();
    for _ in 0..2000 {
        let n: u64 = rng.gen_range(1..=600);
        let indexes = random_indexes(&mut rng, n, 20);
        let mut payload = fixture.payload(n, &indexes);
        if rng.gen_bool(0.5) {
            let at = rng.gen_range(0..payload.len());
            payload[at] ^= 1 << rng.gen_range(0..8);
        }
        let fresh = compute_root(&payload, n);
        assert_eq!(compute_root_with::<Blake>(&mut stack, &payload, n), fresh);
        if payload == fixture.payload(n, &indexes) {
            assert_eq!(fresh, Ok(fixture.root(n)));
        }
    }
}
