//! The compact format (version 2): honest proofs verify with the MMR's root and nothing
//! else; every rejection code of the spec is reached; the spec's worked example.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::{compact, compile_compact, encode_compact, CompileError, FormatError};
use mmr_lock::mmr::mmr_size_of;
use rand::{rngs::StdRng, SeedableRng};

fn verify2(payload: &[u8], root: &Hash, leaf_count: u64) -> Result<(), FormatError> {
    compact::verify::<Blake>(payload, root, leaf_count)
}

fn varint_len(mut v: u64) -> usize {
    let mut len = 1;
    while v >= 0x80 {
        v >>= 7;
        len += 1;
    }
    len
}

/// Random MMRs of 1..=5000 leaves, 1..=100 proved leaves: the root, the leaves, the size.
#[test]
fn random_proofs_verify() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0c02);
    let fixture = Fixture::random(&mut rng, 5000);
    for case in 0..10_000 {
        let (n, indexes) = random_case(&mut rng, case, 5000, 100);
        let payload = fixture.compact_payload(n, &indexes);
        let root = fixture.root(n);
        assert_eq!(
            compact::compute_root::<Blake>(&payload, n),
            Ok(root),
            "n {n} leaves {indexes:?}"
        );
        assert_eq!(verify2(&payload, &root, n), Ok(()));
        // The same statement in version 1 gives the same root.
        assert_eq!(compute_root(&fixture.payload(n, &indexes), n), Ok(root));
        let listed: Vec<(u64, Hash)> = compact::leaves(&payload, n)
            .unwrap()
            .map(|(i, v)| (i, *v))
            .collect();
        let expected: Vec<(u64, Hash)> = indexes
            .iter()
            .map(|&i| (i, fixture.leaves[i as usize]))
            .collect();
        assert_eq!(listed, expected);
        // Exactly the hashes plus the version, the count and one varint per gap.
        let items = fixture.proof_items(n, &indexes).len();
        let mut next = 0;
        let gaps: usize = indexes
            .iter()
            .map(|&i| {
                let len = varint_len(i - next);
                next = i + 1;
                len
            })
            .sum();
        assert_eq!(
            payload.len(),
            1 + varint_len(indexes.len() as u64) + gaps + 32 * (indexes.len() + items)
        );
    }
}

/// Every leaf count to 10, every set of proved leaves: accepted with the root, refused by the
/// other MMRs of the same leaves, and refused after any one-bit flip or any cut.
#[test]
fn every_small_proof_and_its_mutations() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0c03);
    let fixture = Fixture::random(&mut rng, 10);
    let mut checked = 0u64;
    for n in 1..=10u64 {
        let root = fixture.root(n);
        for mask in 1u32..(1 << n) {
            let indexes: Vec<u64> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            let payload = fixture.compact_payload(n, &indexes);
            assert_eq!(verify2(&payload, &root, n), Ok(()), "n {n} {indexes:?}");
            for other in 1..=10u64 {
                if other != n {
                    assert!(verify2(&payload, &fixture.root(other), other).is_err());
                }
            }
            for byte in 0..payload.len() {
                for bit in 0..8 {
                    let bad = edited(&payload, |bad| bad[byte] ^= 1 << bit);
                    assert!(
                        verify2(&bad, &root, n).is_err(),
                        "n {n} {indexes:?} byte {byte} bit {bit}"
                    );
                    checked += 1;
                }
            }
            for cut in 0..payload.len() {
                assert!(verify2(&payload[..cut], &root, n).is_err());
            }
            let longer = edited(&payload, |longer| longer.push(0));
            assert_eq!(verify2(&longer, &root, n), Err(FormatError::TrailingBytes));
        }
    }
    assert!(checked > 1_000_000, "{checked}");
}

/// Every code of the spec's steps 1-7, in the spec's order.
#[test]
fn each_rejection_code() {
    use FormatError::*;
    let mut rng = StdRng::seed_from_u64(0x5eed_0c04);
    let fixture = Fixture::random(&mut rng, 5);
    let root = fixture.root(5);
    let good = fixture.compact_payload(5, &[0, 3]);
    assert_eq!(verify2(&good, &root, 5), Ok(()));
    let v = |bytes: &[u8]| verify2(bytes, &root, 5);
    // `head` in place of the example's header.
    let with = |head: &[u8]| v(&[head, &good[4..]].concat());
    // The example's header: version, n = 2, gaps 0 and 2.
    assert_eq!(&good[..4], &[0x02, 0x02, 0x00, 0x02]);
    assert_eq!(verify2(&good, &root, 0), Err(LeafCountInvalid));
    assert_eq!(verify2(&good, &root, 1 << 50), Err(LeafCountInvalid));
    assert_eq!(v(&[]), Err(HeaderTruncated));
    assert_eq!(v(&[0x01, 0x02]), Err(VersionUnsupported));
    // A version 1 payload (a u32 leaf count first) is refused: by its first byte, or, when
    // that happens to be 2, further on.
    assert_eq!(v(&fixture.payload(5, &[3])), Err(VersionUnsupported));
    assert_eq!(v(&fixture.payload(5, &[0, 3])), Err(NoLeaves));
    assert_eq!(v(&[0x02]), Err(HeaderTruncated));
    assert_eq!(v(&[0x02, 0x82]), Err(HeaderTruncated));
    assert_eq!(v(&[0x02, 0x00]), Err(NoLeaves));
    assert_eq!(v(&[0x02, 0x82, 0x00, 0x00, 0x02]), Err(VarintNonCanonical));
    assert_eq!(
        v(&[0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]),
        Err(VarintTooLong)
    );
    assert_eq!(v(&[0x02, 0x02, 0x00]), Err(IndexesTruncated));
    assert_eq!(v(&[0x02, 0x02, 0x00, 0x82]), Err(IndexesTruncated));
    assert_eq!(
        with(&[0x02, 0x02, 0x00, 0x83, 0x00]),
        Err(VarintNonCanonical)
    );
    // Leaf 0, then a gap of 4 names leaf 5 of 5.
    assert_eq!(with(&[0x02, 0x02, 0x00, 0x04]), Err(LeafIndexOutOfRange));
    assert_eq!(with(&[0x02, 0x02, 0x05, 0x00]), Err(LeafIndexOutOfRange));
    // Eight-byte gaps are fine as varints, but name no leaf of 5.
    assert_eq!(
        v(&[0x02, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
        Err(LeafIndexOutOfRange)
    );
    assert_eq!(v(&good[..4 + 63]), Err(LeavesTruncated));
    assert_eq!(v(&good[..good.len() - 1]), Err(ItemTruncated));
    assert_eq!(v(&good[..4 + 64]), Err(ItemTruncated));
    let long = edited(&good, |long| long.extend_from_slice(&[0; 32]));
    assert_eq!(v(&long), Err(TrailingBytes));
    // Leaf 1 instead of 0: the first item joins on the other side.
    assert_eq!(with(&[0x02, 0x02, 0x01, 0x01]), Err(RootMismatch));
    // Three leaves claimed (0, 3, 4) where two are given: the values run into the items,
    // and leaf 4, a peak of its own, needs no item, so the lengths match; the root does not.
    assert_eq!(with(&[0x02, 0x03, 0x00, 0x02, 0x00]), Err(RootMismatch));
    // One leaf claimed where two are given: one hash too many.
    assert_eq!(with(&[0x02, 0x01, 0x00]), Err(TrailingBytes));
}

/// The worked example of the spec (section "Worked example").
#[test]
fn worked_example() {
    let leaves: Vec<Hash> = (1..=5u8).map(|i| [0x11 * i; 32]).collect();
    let fixture = Fixture::with_leaves(leaves);
    let payload = fixture.compact_payload(5, &[0, 3]);
    let hex: String = payload.iter().map(|b| format!("{b:02x}")).collect();
    let expected = concat!(
        "02020002",
        "1111111111111111111111111111111111111111111111111111111111111111",
        "4444444444444444444444444444444444444444444444444444444444444444",
        "2222222222222222222222222222222222222222222222222222222222222222",
        "3333333333333333333333333333333333333333333333333333333333333333",
        "5555555555555555555555555555555555555555555555555555555555555555",
    );
    assert_eq!(hex, expected);
    assert_eq!(payload.len(), 164);
    let root = fixture.root(5);
    assert_eq!(verify2(&payload, &root, 5), Ok(()));
    // The rejections the spec lists under the example.
    use FormatError::*;
    let edit = |at: usize, bytes: &[u8], remove: usize| {
        let mut p = payload.clone();
        p.splice(at..at + remove, bytes.iter().copied());
        verify2(&p, &root, 5)
    };
    assert_eq!(verify2(&payload[..163], &root, 5), Err(ItemTruncated));
    assert_eq!(edit(164, &[0], 0), Err(TrailingBytes));
    assert_eq!(edit(0, &[1], 1), Err(VersionUnsupported));
    assert_eq!(edit(1, &[0], 1), Err(NoLeaves));
    assert_eq!(edit(3, &[3], 1), Err(TrailingBytes));
    assert_eq!(edit(3, &[4], 1), Err(LeafIndexOutOfRange));
    assert_eq!(edit(2, &[0x80, 0x00], 1), Err(VarintNonCanonical));
    assert_eq!(edit(1, &[3, 0, 2, 0], 3), Err(RootMismatch));
}

/// The compiler takes `gen_proof`'s shape, and refuses one that gives trailing leafless
/// peaks one by one (the compact format has one encoding: their bagging).
#[test]
fn compiler_wants_bagged_peaks() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0c05);
    let fixture = Fixture::random(&mut rng, 7);
    // 7 leaves: peaks of 4, 2, 1; prove leaf 0, give the two right peaks one by one.
    let mut items = fixture.proof_items(7, &[0]);
    let bag = items.pop().unwrap();
    let p1 = node_hash(&fixture.leaves, 4, 1);
    let p2 = fixture.leaves[6];
    assert_eq!(bag, merge(&p2, &p1));
    items.extend([p1, p2]);
    let leaves = fixture.position_leaves(&[0]);
    assert!(compiled_proof::compile(mmr_size_of(7), &items, &leaves).is_ok());
    assert_eq!(
        compile_compact(mmr_size_of(7), &items, &leaves),
        Err(CompileError::UnbaggedPeaks)
    );
    // By hand, the same items are one too many for the compact verifier.
    let by_hand = encode_compact(&[(0, fixture.leaves[0])], &items);
    assert_eq!(
        verify2(&by_hand, &fixture.root(7), 7),
        Err(FormatError::TrailingBytes)
    );
}
