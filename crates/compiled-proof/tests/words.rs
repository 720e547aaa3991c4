//! The word path (`Merge::WORDS`, which the contract uses to keep a PROOF run's hash in
//! registers) gives exactly the byte path's result, root or error code, on honest proofs
//! and on mutated ones.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::compute_root;
use rand::{rngs::StdRng, Rng, SeedableRng};

/// The same hash as `Blake`, through the trait's word methods.
struct BlakeWords;

impl compiled_proof::Merge for BlakeWords {
    const WORDS: bool = true;

    fn merge(left: &Hash, right: &Hash, out: &mut Hash) {
        *out = merge(left, right);
    }
}

#[test]
fn words_path_equals_bytes_path() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0007);
    let fixture = Fixture::random(&mut rng, 600);
    for _ in 0..3000 {
        let n: u64 = rng.gen_range(1..=600);
        let k = rng.gen_range(1..=n.min(20)) as usize;
        let indexes = sample_indexes(&mut rng, n, k);
        let honest = fixture.payload(n, &indexes);
        let mut payload = honest.clone();
        match rng.gen_range(0..4) {
            0 => {}
            1 => {
                let at = rng.gen_range(0..payload.len());
                payload[at] ^= 1 << rng.gen_range(0..8);
            }
            2 => payload.truncate(rng.gen_range(0..payload.len())),
            _ => {
                // An extra PROOF somewhere in the command stream.
                let at = rng.gen_range(4 + 40 * k..=payload.len());
                let item: [u8; 33] = std::array::from_fn(|i| if i == 0 { 3 } else { rng.gen() });
                payload.splice(at..at, item);
            }
        }
        let bytes = compute_root::<Blake>(&payload, n);
        assert_eq!(compute_root::<BlakeWords>(&payload, n), bytes);
        if payload == honest {
            assert_eq!(bytes, Ok(fixture.root(n)));
        }
    }
}
