//! Known-answer tests that do not depend on the reference implementation.

use mmr_blake2b::{ckb_blake2b_256, merge, Blake2bBuilder, CKB_HASH_BUILDER, CKB_PERSONALIZATION};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 7693, Appendix A: BLAKE2b-512("abc").
const RFC7693_ABC: &str = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
                           7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";

/// CKB's hash of the empty message (blake2b-256, personalization `ckb-default-hash`).
const CKB_EMPTY: &str = "44f4c69744d5f8c55d642062949dcae49bc4e7ef43d388c5a12f42b5633d163e";

#[test]
fn rfc7693_appendix_a_abc() {
    let mut hasher = Blake2bBuilder::new(64).build();
    hasher.update(b"abc");
    let mut out = [0u8; 64];
    hasher.finalize(&mut out);
    assert_eq!(hex(&out), RFC7693_ABC);
}

#[test]
fn rfc7693_abc_fed_bytewise_and_from_ref() {
    let mut hasher = Blake2bBuilder::new(64).build();
    for b in b"abc" {
        hasher.update(core::slice::from_ref(b));
    }
    let mut out = [0u8; 64];
    hasher.finalize_from_ref(&mut out);
    assert_eq!(hex(&out), RFC7693_ABC);
}

#[test]
fn ckb_empty_hash() {
    assert_eq!(hex(&ckb_blake2b_256(b"")), CKB_EMPTY);
}

#[test]
fn ckb_builder_runtime_equals_const() {
    // The same builder computed at run time must give the same empty hash.
    let builder = Blake2bBuilder::new(std::hint::black_box(32))
        .personal(std::hint::black_box(&CKB_PERSONALIZATION));
    let mut out = [0u8; 32];
    builder.build().finalize(&mut out);
    assert_eq!(hex(&out), CKB_EMPTY);
    let mut out2 = [0u8; 32];
    CKB_HASH_BUILDER.build().finalize(&mut out2);
    assert_eq!(out, out2);
}

#[test]
fn merge_of_zero_children_matches_generic_hash() {
    // Independent of the reference crate: merge must equal the streaming hash of the
    // 64-byte concatenation computed by the generic path of this crate.
    let left = [0u8; 32];
    let right = [0u8; 32];
    assert_eq!(merge(&left, &right), ckb_blake2b_256(&[0u8; 64]));
}

#[test]
fn digest_is_prefix_only_when_lengths_differ() {
    // A shorter digest is a different hash (out_len is in the parameter block), not a prefix.
    let mut a = [0u8; 64];
    let mut b = [0u8; 32];
    Blake2bBuilder::new(64).build().finalize(&mut a);
    Blake2bBuilder::new(32).build().finalize(&mut b);
    assert_ne!(&a[..32], &b[..]);
}

#[test]
fn finalize_writes_min_of_dst_and_out_len() {
    let mut full = [0u8; 20];
    let mut h = Blake2bBuilder::new(20).build();
    h.update(b"length check");
    h.clone().finalize(&mut full);

    // Longer destination: only out_len bytes are written, the rest is untouched.
    let mut long = [0xAAu8; 40];
    h.clone().finalize(&mut long);
    assert_eq!(&long[..20], &full[..]);
    assert!(long[20..].iter().all(|&b| b == 0xAA));

    // Shorter destination (not a multiple of 8): a prefix.
    let mut short = [0u8; 13];
    h.finalize_from_ref(&mut short);
    assert_eq!(&short[..], &full[..13]);
}

#[test]
#[should_panic]
fn zero_out_len_panics() {
    let _ = Blake2bBuilder::new(std::hint::black_box(0));
}

#[test]
#[should_panic]
fn out_len_65_panics() {
    let _ = Blake2bBuilder::new(std::hint::black_box(65));
}

#[test]
#[should_panic]
fn key_65_bytes_panics() {
    let _ = Blake2bBuilder::new(64).key(std::hint::black_box(&[1u8; 65]));
}

/// A keyed, salted, personalised builder evaluated entirely at compile time gives the same
/// hash as the same builder evaluated at run time, and the same as the reference.
#[test]
fn const_evaluated_builder_with_every_parameter() {
    const KEY: &[u8] = b"a key of some length, 37 bytes long.";
    const SALT: [u8; 16] = *b"sixteen byte slt";
    const B: Blake2bBuilder = Blake2bBuilder::new(48)
        .salt(&SALT)
        .personal(&CKB_PERSONALIZATION)
        .key(KEY);
    let runtime = Blake2bBuilder::new(std::hint::black_box(48))
        .key(std::hint::black_box(KEY))
        .personal(&CKB_PERSONALIZATION)
        .salt(&SALT);

    let data = [0x61u8; 300];
    let mut a = [0u8; 48];
    let mut h = B.build();
    h.update(&data);
    h.finalize(&mut a);

    let mut b = [0u8; 48];
    let mut h = runtime.build();
    h.update(&data);
    h.finalize(&mut b);
    assert_eq!(a, b);

    let mut want = [0u8; 48];
    let mut r = blake2b_rs::Blake2bBuilder::new(48)
        .salt(&SALT)
        .personal(&CKB_PERSONALIZATION)
        .key(KEY)
        .build();
    r.update(&data);
    r.finalize(&mut want);
    assert_eq!(a, want);
}
