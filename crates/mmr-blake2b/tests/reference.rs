//! Differential tests against `blake2b-rs` (the C reference implementation) over random
//! inputs, parameters and chunkings, with a seeded RNG.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Lengths around block boundaries (the block is 128 bytes).
const BOUNDARY_LENS: [usize; 17] = [
    0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 255, 256, 257, 383, 384, 385, 4095,
];

#[derive(Debug, Clone)]
struct Params {
    out_len: usize,
    key: Vec<u8>,
    personal: Option<[u8; 16]>,
    salt: Option<[u8; 16]>,
}

/// A builder of either implementation with the parameters of `$params` (both builders have
/// the same methods but share no trait).
macro_rules! configure {
    ($params:expr, $builder:ty) => {{
        let p: &Params = $params;
        let mut b = <$builder>::new(p.out_len);
        if let Some(personal) = &p.personal {
            b = b.personal(personal);
        }
        if let Some(salt) = &p.salt {
            b = b.salt(salt);
        }
        if !p.key.is_empty() {
            b = b.key(&p.key);
        }
        b
    }};
}

impl Params {
    fn random(rng: &mut StdRng, out_len: usize) -> Self {
        let key = if rng.gen_bool(0.5) {
            let n = rng.gen_range(1..=64);
            (0..n).map(|_| rng.gen()).collect()
        } else {
            Vec::new()
        };
        let personal = rng.gen_bool(0.5).then(|| rng.gen());
        let salt = rng.gen_bool(0.5).then(|| rng.gen());
        Params {
            out_len,
            key,
            personal,
            salt,
        }
    }

    fn ours(&self) -> mmr_blake2b::Blake2bBuilder {
        configure!(self, mmr_blake2b::Blake2bBuilder)
    }

    fn reference(&self, data: &[u8]) -> Vec<u8> {
        let b = configure!(self, blake2b_rs::Blake2bBuilder);
        let mut h = b.build();
        h.update(data);
        // Pre-filled so that a reference that silently wrote nothing cannot match.
        let mut out = vec![0x5Au8; self.out_len];
        h.finalize(&mut out);
        out
    }
}

/// Random cut points (possibly empty chunks) of `0..len`.
fn random_split(rng: &mut StdRng, len: usize) -> Vec<usize> {
    let cuts = rng.gen_range(0..8);
    let mut points: Vec<usize> = (0..cuts).map(|_| rng.gen_range(0..=len)).collect();
    points.push(0);
    points.push(len);
    points.sort_unstable();
    points
}

/// Our hash of `data` fed in the chunks given by `points`; uses `finalize` or
/// `finalize_from_ref`, and `build` or `build_from_ref` on a dirty hasher, at random.
fn ours(rng: &mut StdRng, p: &Params, data: &[u8], points: &[usize]) -> Vec<u8> {
    let builder = p.ours();
    let mut h = if rng.gen_bool(0.5) {
        builder.build()
    } else {
        // Start from a hasher that has already absorbed unrelated data with other parameters.
        let mut dirty = mmr_blake2b::Blake2bBuilder::new(64).key(&[7u8; 33]).build();
        dirty.update(&[1u8; 200]);
        builder.build_from_ref(&mut dirty);
        dirty
    };
    for w in points.windows(2) {
        h.update(&data[w[0]..w[1]]);
    }
    let mut out = vec![0xA5u8; p.out_len];
    if rng.gen_bool(0.5) {
        h.finalize(&mut out);
    } else {
        h.finalize_from_ref(&mut out);
    }
    out
}

fn check(rng: &mut StdRng, p: &Params, data: &[u8]) {
    let points = random_split(rng, data.len());
    let got = ours(rng, p, data, &points);
    let want = p.reference(data);
    assert_eq!(
        got,
        want,
        "len {} params {:?} split {:?}",
        data.len(),
        p,
        points
    );
}

fn random_data(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}

/// Every length 0..4096, random parameters and output length, random chunking.
#[test]
fn every_length_random_params() {
    let mut rng = StdRng::seed_from_u64(0xb1a4e2b);
    for len in 0..4096 {
        let data = random_data(&mut rng, len);
        let out_len = rng.gen_range(1..=64);
        let p = Params::random(&mut rng, out_len);
        check(&mut rng, &p, &data);
    }
}

/// Every output length at every block-boundary length, unkeyed and keyed.
#[test]
fn every_out_len_at_block_boundaries() {
    let mut rng = StdRng::seed_from_u64(2);
    for out_len in 1..=64 {
        for &len in &BOUNDARY_LENS {
            let data = random_data(&mut rng, len);
            for keyed in [false, true] {
                let mut p = Params::random(&mut rng, out_len);
                if !keyed {
                    p.key.clear();
                } else if p.key.is_empty() {
                    p.key = vec![0x42; rng.gen_range(1..=64)];
                }
                check(&mut rng, &p, &data);
            }
        }
    }
}

/// Every key length 1..=64 with personalization and salt, at boundary and random lengths.
#[test]
fn every_key_len() {
    let mut rng = StdRng::seed_from_u64(3);
    for key_len in 1..=64 {
        let mut lens: Vec<usize> = BOUNDARY_LENS.to_vec();
        lens.extend((0..8).map(|_| rng.gen_range(0..4096)));
        for len in lens {
            let data = random_data(&mut rng, len);
            let p = Params {
                out_len: rng.gen_range(1..=64),
                key: (0..key_len).map(|_| rng.gen()).collect(),
                personal: Some(rng.gen()),
                salt: Some(rng.gen()),
            };
            check(&mut rng, &p, &data);
        }
    }
}

/// Many short random messages with CKB's parameters, the common case.
#[test]
fn ckb_default_hash_random() {
    let mut rng = StdRng::seed_from_u64(4);
    let p = Params {
        out_len: 32,
        key: Vec::new(),
        personal: Some(mmr_blake2b::CKB_PERSONALIZATION),
        salt: None,
    };
    for _ in 0..5000 {
        let len = rng.gen_range(0..600);
        let data = random_data(&mut rng, len);
        check(&mut rng, &p, &data);
        assert_eq!(
            mmr_blake2b::ckb_blake2b_256(&data).to_vec(),
            p.reference(&data)
        );
    }
}

/// Byte-by-byte feeding across several blocks.
#[test]
fn bytewise_updates() {
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..50 {
        let len = rng.gen_range(0..700);
        let data = random_data(&mut rng, len);
        let out_len = rng.gen_range(1..=64);
        let p = Params::random(&mut rng, out_len);
        let points: Vec<usize> = (0..=len).collect();
        assert_eq!(ours(&mut rng, &p, &data, &points), p.reference(&data));
    }
}

/// The compact one-block hash against blake2b-rs for every length it takes.
#[test]
fn small_matches_reference() {
    for len in 0..=129usize {
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        let mut expected = [0u8; 32];
        let mut hasher = blake2b_rs::Blake2bBuilder::new(32)
            .personal(b"ckb-default-hash")
            .build();
        hasher.update(&data);
        hasher.finalize(&mut expected);
        let got = mmr_blake2b::ckb_blake2b_256_small(&data);
        if len <= 128 {
            assert_eq!(got, Some(expected), "len {len}");
        } else {
            assert_eq!(got, None);
        }
    }
}
