//! The only code the assurance suite shares with the verifiers' world: the hash, taken from
//! the reference implementation `blake2b-rs` (not from `mmr-blake2b`, which is under test in
//! the contracts).

/// blake2b-256, personalization `ckb-default-hash`, of `left || right`.
pub fn merge(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut hasher = blake2b_rs::Blake2bBuilder::new(32)
        .personal(b"ckb-default-hash")
        .build();
    hasher.update(left);
    hasher.update(right);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}

/// blake2b-256 "ckb-default-hash" of arbitrary bytes (to derive test leaf values).
pub fn digest(data: &[u8]) -> [u8; 32] {
    let mut hasher = blake2b_rs::Blake2bBuilder::new(32)
        .personal(b"ckb-default-hash")
        .build();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}
