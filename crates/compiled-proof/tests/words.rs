//! The word methods of `Merge` (which the contract overrides to keep a PROOF run's hash in
//! registers) give exactly the result of their defaults, root or error code, on honest
//! proofs and on mutated ones.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::compute_root;
use rand::{rngs::StdRng, Rng, SeedableRng};

/// The same hash as `Blake`, with every word method overridden the way a contract does
/// (its own conversions, no default).
struct BlakeWords;

fn to_words(bytes: &Hash) -> [u64; 4] {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn to_bytes(words: [u64; 4]) -> Hash {
    let mut out = [0u8; 32];
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

impl compiled_proof::Merge for BlakeWords {
    fn merge(left: &Hash, right: &Hash, out: &mut Hash) {
        *out = merge(left, right);
    }

    fn merge_to_words(left: &Hash, right: &Hash) -> [u64; 4] {
        to_words(&merge(left, right))
    }

    fn merge_words_left(node: [u64; 4], item: &Hash) -> [u64; 4] {
        to_words(&merge(&to_bytes(node), item))
    }

    fn merge_words_right(item: &Hash, node: [u64; 4]) -> [u64; 4] {
        to_words(&merge(item, &to_bytes(node)))
    }

    fn store_words(words: [u64; 4], out: &mut Hash) {
        *out = to_bytes(words);
    }

    fn load_words(bytes: &Hash) -> [u64; 4] {
        to_words(bytes)
    }
}

#[test]
fn words_path_equals_bytes_path() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0007);
    let fixture = Fixture::random(&mut rng, 600);
    for _ in 0..3000 {
        let n: u64 = rng.gen_range(1..=600);
        let indexes = random_indexes(&mut rng, n, 20);
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
                let at = rng.gen_range(4 + 40 * indexes.len()..=payload.len());
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
