//! The specification: BLAKE2b as RFC 7693 defines it (section 3.2, function F, with G from
//! section 3.1, IV from 2.6 and SIGMA from 2.7), and the MMR merge as one use of it.
//!
//! The same code runs on concrete words (`u64`, to check this transcription against
//! blake2b-rs and the RFC's test vector) and on symbolic words (expressions in the arena),
//! which is what the kernel is compared with. Nothing here is taken from the kernel or from
//! the project's Rust implementation.

use crate::expr::{Arena, Id};

/// Word arithmetic the specification needs: addition mod 2^64, xor, rotation right.
pub trait Words {
    type W: Copy;
    fn k(&mut self, c: u64) -> Self::W;
    fn add(&mut self, a: Self::W, b: Self::W) -> Self::W;
    fn xor(&mut self, a: Self::W, b: Self::W) -> Self::W;
    fn rotr(&mut self, a: Self::W, n: u32) -> Self::W;
}

/// Plain 64-bit words.
pub struct Concrete;

impl Words for Concrete {
    type W = u64;
    fn k(&mut self, c: u64) -> u64 {
        c
    }
    fn add(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    fn xor(&mut self, a: u64, b: u64) -> u64 {
        a ^ b
    }
    fn rotr(&mut self, a: u64, n: u32) -> u64 {
        a.rotate_right(n)
    }
}

impl Words for Arena {
    type W = Id;
    fn k(&mut self, c: u64) -> Id {
        self.konst(c)
    }
    fn add(&mut self, a: Id, b: Id) -> Id {
        Arena::add(self, a, b)
    }
    fn xor(&mut self, a: Id, b: Id) -> Id {
        Arena::xor(self, a, b)
    }
    fn rotr(&mut self, a: Id, n: u32) -> Id {
        Arena::rotr(self, a, n)
    }
}

/// RFC 7693 section 2.6.
pub const IV: [u64; 8] = [
    0x6A09E667F3BCC908,
    0xBB67AE8584CAA73B,
    0x3C6EF372FE94F82B,
    0xA54FF53A5F1D36F1,
    0x510E527FADE682D1,
    0x9B05688C2B3E6C1F,
    0x1F83D9ABFB41BD6B,
    0x5BE0CD19137E2179,
];

/// RFC 7693 section 2.7; round i uses row i mod 10.
pub const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// The mixing function G (RFC 7693 section 3.1), rotation constants R1..R4 = 32, 24, 16, 63.
#[allow(clippy::too_many_arguments)]
fn g<A: Words>(
    w: &mut A,
    v: &mut [A::W; 16],
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    x: A::W,
    y: A::W,
) {
    // The RFC's two halves: message word x with R1, R2, then y with R3, R4.
    for (word, r_d, r_b) in [(x, 32, 24), (y, 16, 63)] {
        let t = w.add(v[a], v[b]);
        v[a] = w.add(t, word);
        let t = w.xor(v[d], v[a]);
        v[d] = w.rotr(t, r_d);
        v[c] = w.add(v[c], v[d]);
        let t = w.xor(v[b], v[c]);
        v[b] = w.rotr(t, r_b);
    }
}

/// The compression function F (RFC 7693 section 3.2): 12 rounds, `t` the byte offset
/// counter (128 bits), `last` the final block indicator.
pub fn compress<A: Words>(
    w: &mut A,
    h: [A::W; 8],
    m: [A::W; 16],
    t: u128,
    last: bool,
) -> [A::W; 8] {
    let mut v = [h[0]; 16];
    v[..8].copy_from_slice(&h);
    for i in 0..8 {
        v[8 + i] = w.k(IV[i]);
    }
    let t_lo = w.k(t as u64);
    v[12] = w.xor(v[12], t_lo);
    let t_hi = w.k((t >> 64) as u64);
    v[13] = w.xor(v[13], t_hi);
    if last {
        let ones = w.k(u64::MAX);
        v[14] = w.xor(v[14], ones);
    }
    for i in 0..12 {
        let s = &SIGMA[i % 10];
        g(w, &mut v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        g(w, &mut v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        g(w, &mut v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        g(w, &mut v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        g(w, &mut v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        g(w, &mut v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        g(w, &mut v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        g(w, &mut v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    let mut out = h;
    for i in 0..8 {
        let t = w.xor(out[i], v[i]);
        out[i] = w.xor(t, v[i + 8]);
    }
    out
}

/// Little-endian words of the 64-byte BLAKE2b parameter block (the BLAKE2 specification's
/// layout, of which RFC 7693 section 2.5 uses the first word): byte 0 digest length, 1 key
/// length, 2 fanout, 3 depth (both 1: sequential mode), bytes 32..48 salt, 48..64
/// personalization; everything else zero.
pub fn parameter_block(out_len: u8, key_len: u8, salt: &[u8; 16], personal: &[u8; 16]) -> [u64; 8] {
    let mut p = [0u8; 64];
    p[0] = out_len;
    p[1] = key_len;
    p[2] = 1;
    p[3] = 1;
    p[32..48].copy_from_slice(salt);
    p[48..64].copy_from_slice(personal);
    std::array::from_fn(|i| u64::from_le_bytes(p[8 * i..8 * i + 8].try_into().unwrap()))
}

pub const CKB_PERSONAL: [u8; 16] = *b"ckb-default-hash";

/// The MMR merge: BLAKE2b with digest length 32, no key, no salt, personalization
/// "ckb-default-hash", over the 64 bytes `left || right`. That message is one block: the
/// 64 bytes then 64 zero bytes of padding, counter t = 64, final block. The result is the
/// first 32 bytes of h, that is words 0..3 (little-endian).
pub fn merge<A: Words>(w: &mut A, left: [A::W; 4], right: [A::W; 4]) -> [A::W; 4] {
    let p = parameter_block(32, 0, &[0; 16], &CKB_PERSONAL);
    let mut h = [w.k(0); 8];
    for i in 0..8 {
        h[i] = w.k(IV[i] ^ p[i]);
    }
    let zero = w.k(0);
    let mut m = [zero; 16];
    m[..4].copy_from_slice(&left);
    m[4..8].copy_from_slice(&right);
    let out = compress(w, h, m, 64, true);
    [out[0], out[1], out[2], out[3]]
}

/// Complete BLAKE2b on bytes (RFC 7693 section 3.3, with salt and personalization in the
/// parameter block), for checking [`compress`] against other implementations on messages
/// of any length, keys and digest lengths.
pub fn blake2b(out_len: usize, key: &[u8], personal: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let p = parameter_block(out_len as u8, key.len() as u8, &[0; 16], personal);
    let mut h: [u64; 8] = std::array::from_fn(|i| IV[i] ^ p[i]);
    let mut input = Vec::new();
    if !key.is_empty() {
        let mut block = [0u8; 128];
        block[..key.len()].copy_from_slice(key);
        input.extend_from_slice(&block);
    }
    input.extend_from_slice(data);
    let blocks = input.len().div_ceil(128).max(1);
    for b in 0..blocks {
        let mut block = [0u8; 128];
        let chunk = &input[(128 * b).min(input.len())..(128 * (b + 1)).min(input.len())];
        block[..chunk.len()].copy_from_slice(chunk);
        let m = std::array::from_fn(|i| {
            u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().unwrap())
        });
        let last = b + 1 == blocks;
        let t = if last { input.len() } else { 128 * (b + 1) } as u128;
        h = compress(&mut Concrete, h, m, t, last);
    }
    h.iter()
        .flat_map(|w| w.to_le_bytes())
        .take(out_len)
        .collect()
}
