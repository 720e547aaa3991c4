//! The MMR merge kernel against the reference and against the crate's own generic paths.

use mmr_blake2b::{
    merge, merge_const_builder, merge_const_builder_with, merge_generic, merge_into,
    Blake2bBuilder, CKB_HASH_BUILDER, CKB_PERSONALIZATION,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn reference_merge(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = blake2b_rs::Blake2bBuilder::new(32)
        .personal(&CKB_PERSONALIZATION)
        .build();
    h.update(left);
    h.update(right);
    let mut out = [0x5Au8; 32];
    h.finalize(&mut out);
    out
}

/// A million random merges in release builds (fewer in debug builds, which are ~50x slower).
#[test]
fn million_random_merges() {
    let n = if cfg!(debug_assertions) {
        20_000
    } else {
        1_000_000
    };
    let mut rng = StdRng::seed_from_u64(0x6d6d72);
    let mut hasher = CKB_HASH_BUILDER.build();
    for i in 0..n {
        let left: [u8; 32] = rng.gen();
        let right: [u8; 32] = rng.gen();
        let want = reference_merge(&left, &right);

        let got = merge(&left, &right);
        assert_eq!(got, want, "merge, case {i}");

        let mut out = [0xA5u8; 32];
        merge_into(&left, &right, &mut out);
        assert_eq!(out, want, "merge_into, case {i}");

        let mut out = [0xA5u8; 32];
        merge_generic(&left, &right, &mut out);
        assert_eq!(out, want, "merge_generic, case {i}");

        let mut out = [0xA5u8; 32];
        merge_const_builder(&left, &right, &mut out);
        assert_eq!(out, want, "merge_const_builder, case {i}");

        let mut out = [0xA5u8; 32];
        merge_const_builder_with(&mut hasher, &left, &right, &mut out);
        assert_eq!(out, want, "merge_const_builder_with, case {i}");
    }
}

/// Structured children (all zero, all 0xff, single bits) that random data rarely hits.
#[test]
fn structured_merges() {
    let mut cases: Vec<([u8; 32], [u8; 32])> = vec![
        ([0; 32], [0; 32]),
        ([0xff; 32], [0xff; 32]),
        ([0; 32], [0xff; 32]),
        ([0xff; 32], [0; 32]),
    ];
    for bit in 0..256 {
        let mut a = [0u8; 32];
        a[bit / 8] = 1 << (bit % 8);
        cases.push((a, [0; 32]));
        cases.push(([0; 32], a));
    }
    for (l, r) in cases {
        assert_eq!(merge(&l, &r), reference_merge(&l, &r));
    }
}

/// Order matters: merge(a, b) != merge(b, a) for a != b.
#[test]
fn merge_is_not_symmetric() {
    let a = [1u8; 32];
    let b = [2u8; 32];
    assert_ne!(merge(&a, &b), merge(&b, &a));
}

/// Re-initialising one hasher with `build_from_ref` gives the same hash every time,
/// whatever the hasher held before.
#[test]
fn build_from_ref_reuse() {
    let mut rng = StdRng::seed_from_u64(9);
    let data: Vec<u8> = (0..1000).map(|_| rng.gen()).collect();
    let builders = [
        CKB_HASH_BUILDER,
        Blake2bBuilder::new(64),
        Blake2bBuilder::new(17).key(b"secret key").salt(&[3; 16]),
        Blake2bBuilder::new(32)
            .key(&[9; 64])
            .personal(&CKB_PERSONALIZATION),
    ];
    for b in &builders {
        let mut fresh = [0u8; 64];
        let mut h = b.build();
        h.update(&data);
        h.finalize_from_ref(&mut fresh);

        // Same hasher, reinitialised twice; the second time mid-stream.
        let mut again = [0u8; 64];
        b.build_from_ref(&mut h);
        h.update(&data);
        h.finalize_from_ref(&mut again);
        assert_eq!(fresh, again);

        h.update(&data[..300]);
        b.build_from_ref(&mut h);
        h.update(&data[..500]);
        h.update(&data[500..]);
        let mut third = [0u8; 64];
        h.finalize_from_ref(&mut third);
        assert_eq!(fresh, third);

        // And a hasher last used with every other builder.
        for other in &builders {
            let mut h2 = other.build();
            h2.update(&data[..129]);
            b.build_from_ref(&mut h2);
            h2.update(&data);
            let mut out = [0u8; 64];
            h2.finalize_from_ref(&mut out);
            assert_eq!(fresh, out);
        }
    }
}

#[test]
fn merge_into_uninit_equals_merge() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(0x0dd);
    for _ in 0..10_000 {
        let (l, r): ([u8; 32], [u8; 32]) = (rng.gen(), rng.gen());
        let mut out = core::mem::MaybeUninit::<[u8; 32]>::uninit();
        let got = *mmr_blake2b::merge_into_uninit(&l, &r, &mut out);
        assert_eq!(got, mmr_blake2b::merge(&l, &r));
    }
}
