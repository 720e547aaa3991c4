//! The MMR's merge, blake2b-256 "ckb-default-hash" over left || right, on blake2b-rs (the C
//! reference implementation): no hashing code shared with the crates it checks. A dev-only
//! crate so that compiled-proof's, mmr-accumulator's and mmr-store's tests hold one reference.

pub type Hash = [u8; 32];

/// blake2b-256 "ckb-default-hash" of `left || right`.
pub fn merge(left: &Hash, right: &Hash) -> Hash {
    let mut out = [0u8; 32];
    let mut hasher = blake2b_rs::Blake2bBuilder::new(32)
        .personal(b"ckb-default-hash")
        .build();
    hasher.update(left);
    hasher.update(right);
    hasher.finalize(&mut out);
    out
}

/// [`merge`] as both the verifiers' `Merge` and ckb-merkle-mountain-range's.
pub struct Blake;

impl compiled_proof::Merge for Blake {
    fn merge(left: &Hash, right: &Hash, out: &mut Hash) {
        *out = merge(left, right);
    }
}

impl ckb_merkle_mountain_range::Merge for Blake {
    type Item = Hash;
    fn merge(left: &Hash, right: &Hash) -> ckb_merkle_mountain_range::Result<Hash> {
        Ok(merge(left, right))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A known digest, so the reference itself cannot drift: the merge of two zero hashes
    /// equals ckb's blake2b-256 of 64 zero bytes.
    #[test]
    fn merge_of_zeros_is_ckb_hash_of_64_zero_bytes() {
        let mut want = [0u8; 32];
        let mut h = blake2b_rs::Blake2bBuilder::new(32)
            .personal(b"ckb-default-hash")
            .build();
        h.update(&[0u8; 64]);
        h.finalize(&mut want);
        assert_eq!(merge(&[0; 32], &[0; 32]), want);
        let mut out = [0u8; 32];
        <Blake as compiled_proof::Merge>::merge(&[1; 32], &[2; 32], &mut out);
        assert_eq!(out, merge(&[1; 32], &[2; 32]));
        assert_ne!(merge(&[1; 32], &[2; 32]), merge(&[2; 32], &[1; 32]));
    }
}
