//! A `no_std`, allocation-free BLAKE2b (RFC 7693) for CKB contracts.
//!
//! * [`Blake2bBuilder`] computes the initial chaining value `h = IV ^ parameter block` in a
//!   `const fn`, so [`CKB_HASH_BUILDER`] (blake2b-256, personalization `ckb-default-hash`)
//!   costs nothing at run time.
//! * [`Blake2b`] is the streaming hasher; [`Blake2bBuilder::build_from_ref`] and
//!   [`Blake2b::finalize_from_ref`] re-initialise and finish it in place, without moving the
//!   ~220-byte state around.
//! * [`merge_into`] is the MMR merge `blake2b-256/ckb-default-hash(left || right)` for two
//!   32-byte children, specialised to exactly one compression with a constant initial state,
//!   message words 8..15 equal to zero, `t = 64` and the final-block flag set.
//!
//! [`merge_generic`] and [`merge_const_builder`] compute the same merge through the generic
//! path; they exist so the cost of each specialisation can be measured.
//!
//! On riscv64, 64-bit loads and stores of byte arrays use a single (possibly misaligned)
//! `ld`/`sd` through inline assembly, which CKB-VM executes at full speed; see `mem.rs`.
//! Besides those, the only `unsafe` is writing a merge into uninitialised memory
//! ([`merge_into_uninit`]) and, on riscv64, the calls of the assembly merge kernel
//! (`merge_into_asm` and friends, `asm.rs`, `merge_rv64.s`); each use is allowed one by one
//! and says why it is sound.

#![no_std]
#![deny(unsafe_code)]

mod mem;

#[cfg(all(target_arch = "riscv64", not(feature = "portable")))]
#[allow(unsafe_code)]
mod asm;
#[cfg(all(target_arch = "riscv64", not(feature = "portable")))]
pub use asm::{
    merge_into_asm, merge_into_uninit_asm, merge_to_words_asm, merge_words_asm,
    merge_words_right_asm,
};

use mem::{load, store, store_uninit};

/// The personalization CKB uses for all its blake2b-256 hashes.
pub const CKB_PERSONALIZATION: [u8; 16] = *b"ckb-default-hash";

/// Block size in bytes.
pub const BLOCK_LEN: usize = 128;
/// Largest digest length.
pub const MAX_OUT_LEN: usize = 64;
/// Largest key length.
pub const MAX_KEY_LEN: usize = 64;

/// The BLAKE2b initialisation vector (RFC 7693, section 2.6).
const IV: [u64; 8] = [
    0x6a09_e667_f3bc_c908,
    0xbb67_ae85_84ca_a73b,
    0x3c6e_f372_fe94_f82b,
    0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1,
    0x9b05_688c_2b3e_6c1f,
    0x1f83_d9ab_fb41_bd6b,
    0x5be0_cd19_137e_2179,
];

/// Message schedule (RFC 7693, section 2.7). Rounds 10 and 11 reuse rows 0 and 1.
const SIGMA: [[usize; 16]; 10] = [
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

/// Parameter block word 0 without digest and key length: fanout = 1, depth = 1.
const PARAM0_BASE: u64 = 0x0101_0000;

/// The mixing function G (RFC 7693, section 3.1) on working vector entries a, b, c, d.
/// All indices are literals, so after inlining `v` lives in registers.
macro_rules! g {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal, $x:expr, $y:expr) => {
        $v[$a] = $v[$a].wrapping_add($v[$b]).wrapping_add($x);
        $v[$d] = ($v[$d] ^ $v[$a]).rotate_right(32);
        $v[$c] = $v[$c].wrapping_add($v[$d]);
        $v[$b] = ($v[$b] ^ $v[$c]).rotate_right(24);
        $v[$a] = $v[$a].wrapping_add($v[$b]).wrapping_add($y);
        $v[$d] = ($v[$d] ^ $v[$a]).rotate_right(16);
        $v[$c] = $v[$c].wrapping_add($v[$d]);
        $v[$b] = ($v[$b] ^ $v[$c]).rotate_right(63);
    };
}

/// One round: columns, then diagonals, with the message permutation of round `$r`
/// resolved at compile time.
macro_rules! round {
    ($v:ident, $m:ident, $r:literal) => {{
        const S: [usize; 16] = SIGMA[$r % 10];
        g!($v, 0, 4, 8, 12, $m[S[0]], $m[S[1]]);
        g!($v, 1, 5, 9, 13, $m[S[2]], $m[S[3]]);
        g!($v, 2, 6, 10, 14, $m[S[4]], $m[S[5]]);
        g!($v, 3, 7, 11, 15, $m[S[6]], $m[S[7]]);
        g!($v, 0, 5, 10, 15, $m[S[8]], $m[S[9]]);
        g!($v, 1, 6, 11, 12, $m[S[10]], $m[S[11]]);
        g!($v, 2, 7, 8, 13, $m[S[12]], $m[S[13]]);
        g!($v, 3, 4, 9, 14, $m[S[14]], $m[S[15]]);
    }};
}

/// The twelve rounds, fully unrolled. Inlined into both the generic compression function
/// and the merge kernel, where constant message words (zeros) fold away.
#[inline(always)]
fn rounds(v: &mut [u64; 16], m: &[u64; 16]) {
    macro_rules! each_round {
        ($($r:literal)*) => { $(round!(v, m, $r);)* };
    }
    each_round!(0 1 2 3 4 5 6 7 8 9 10 11);
}

/// Loads the 16 little-endian message words of a block.
#[inline(always)]
fn load_block(b: &[u8; BLOCK_LEN]) -> [u64; 16] {
    [
        load::<0, BLOCK_LEN>(b),
        load::<8, BLOCK_LEN>(b),
        load::<16, BLOCK_LEN>(b),
        load::<24, BLOCK_LEN>(b),
        load::<32, BLOCK_LEN>(b),
        load::<40, BLOCK_LEN>(b),
        load::<48, BLOCK_LEN>(b),
        load::<56, BLOCK_LEN>(b),
        load::<64, BLOCK_LEN>(b),
        load::<72, BLOCK_LEN>(b),
        load::<80, BLOCK_LEN>(b),
        load::<88, BLOCK_LEN>(b),
        load::<96, BLOCK_LEN>(b),
        load::<104, BLOCK_LEN>(b),
        load::<112, BLOCK_LEN>(b),
        load::<120, BLOCK_LEN>(b),
    ]
}

/// The compression function F (RFC 7693, section 3.2). `t` is the byte counter including
/// this block, `last` the final-block flag.
#[inline(never)]
fn compress(h: &mut [u64; 8], block: &[u8; BLOCK_LEN], t: u128, last: bool) {
    let m = load_block(block);
    let mut v = [
        h[0],
        h[1],
        h[2],
        h[3],
        h[4],
        h[5],
        h[6],
        h[7],
        IV[0],
        IV[1],
        IV[2],
        IV[3],
        IV[4] ^ (t as u64),
        IV[5] ^ ((t >> 64) as u64),
        IV[6] ^ (last as u64).wrapping_neg(),
        IV[7],
    ];
    rounds(&mut v, &m);
    h[0] ^= v[0] ^ v[8];
    h[1] ^= v[1] ^ v[9];
    h[2] ^= v[2] ^ v[10];
    h[3] ^= v[3] ^ v[11];
    h[4] ^= v[4] ^ v[12];
    h[5] ^= v[5] ^ v[13];
    h[6] ^= v[6] ^ v[14];
    h[7] ^= v[7] ^ v[15];
}

/// Little-endian `u64` from `b[off..off + 8]`, usable in `const fn`.
const fn le_word(b: &[u8; 16], off: usize) -> u64 {
    u64::from_le_bytes([
        b[off],
        b[off + 1],
        b[off + 2],
        b[off + 3],
        b[off + 4],
        b[off + 5],
        b[off + 6],
        b[off + 7],
    ])
}

/// BLAKE2b parameters, turned into the initial chaining value `h` as soon as they are set.
///
/// Every method is a `const fn`, so a builder stored in a `const` (like [`CKB_HASH_BUILDER`])
/// is fully computed at compile time.
#[derive(Clone, Copy)]
pub struct Blake2bBuilder {
    /// `IV ^ parameter block`.
    h: [u64; 8],
    out_len: u8,
    key_len: u8,
    /// The key, zero padded; the first block is this followed by 64 zero bytes.
    key: [u8; MAX_KEY_LEN],
}

impl Blake2bBuilder {
    /// Digest length `out_len` in bytes, `1..=64`. Panics otherwise (at compile time when used
    /// in a `const`).
    pub const fn new(out_len: usize) -> Self {
        assert!(
            out_len >= 1 && out_len <= MAX_OUT_LEN,
            "blake2b: digest length must be 1..=64"
        );
        let mut h = IV;
        h[0] ^= PARAM0_BASE ^ out_len as u64;
        Blake2bBuilder {
            h,
            out_len: out_len as u8,
            key_len: 0,
            key: [0; MAX_KEY_LEN],
        }
    }

    /// Sets the 16-byte personalization (parameter block words 6 and 7).
    pub const fn personal(mut self, personal: &[u8; 16]) -> Self {
        self.h[6] = IV[6] ^ le_word(personal, 0);
        self.h[7] = IV[7] ^ le_word(personal, 8);
        self
    }

    /// Sets the 16-byte salt (parameter block words 4 and 5).
    pub const fn salt(mut self, salt: &[u8; 16]) -> Self {
        self.h[4] = IV[4] ^ le_word(salt, 0);
        self.h[5] = IV[5] ^ le_word(salt, 8);
        self
    }

    /// Sets the key, `0..=64` bytes (panics otherwise). A non-empty key is padded with zeros
    /// to one block that is hashed before the data (RFC 7693, section 3.3).
    pub const fn key(mut self, key: &[u8]) -> Self {
        assert!(
            key.len() <= MAX_KEY_LEN,
            "blake2b: key longer than 64 bytes"
        );
        let mut i = 0;
        while i < MAX_KEY_LEN {
            self.key[i] = if i < key.len() { key[i] } else { 0 };
            i += 1;
        }
        self.key_len = key.len() as u8;
        self.h[0] = IV[0] ^ PARAM0_BASE ^ ((key.len() as u64) << 8) ^ self.out_len as u64;
        self
    }

    /// A fresh hasher with these parameters.
    pub fn build(&self) -> Blake2b {
        let mut hasher = Blake2b {
            h: self.h,
            t: 0,
            buf: [0; BLOCK_LEN],
            buf_len: 0,
            out_len: self.out_len,
        };
        if self.key_len > 0 {
            hasher.buf[..MAX_KEY_LEN].copy_from_slice(&self.key);
            hasher.buf_len = BLOCK_LEN;
        }
        hasher
    }

    /// Re-initialises `hasher` in place with these parameters, whatever state it was in.
    /// Without a key this writes only the chaining value and three counters.
    pub fn build_from_ref(&self, hasher: &mut Blake2b) {
        hasher.h = self.h;
        hasher.t = 0;
        hasher.out_len = self.out_len;
        if self.key_len > 0 {
            hasher.buf[..MAX_KEY_LEN].copy_from_slice(&self.key);
            hasher.buf[MAX_KEY_LEN..].fill(0);
            hasher.buf_len = BLOCK_LEN;
        } else {
            hasher.buf_len = 0;
        }
    }
}

/// Streaming BLAKE2b state. Obtain one from [`Blake2bBuilder::build`].
#[derive(Clone)]
pub struct Blake2b {
    h: [u64; 8],
    /// Bytes compressed so far, including the block in `buf` once it is compressed.
    t: u128,
    /// Pending input. Always holds the last block (possibly full) until `finalize`, because
    /// the final block must be compressed with the final flag.
    buf: [u8; BLOCK_LEN],
    buf_len: usize,
    out_len: u8,
}

/// Appends `$data` to the first `$used` bytes of the buffer (`$used + $data.len() <=
/// BLOCK_LEN`). A macro, not a function: an `inline(always)` helper changed how the journey's
/// first baseline step inlines `update` (75k cycles on the reference seed), so this keeps the
/// code each path compiles exactly as written.
macro_rules! buffer_tail {
    ($hasher:expr, $used:expr, $data:expr) => {
        if let Some(dst) = $hasher
            .buf
            .get_mut($used..)
            .and_then(|b| b.get_mut(..$data.len()))
        {
            copy_bytes(dst, $data);
        }
        $hasher.buf_len = $used.wrapping_add($data.len());
    };
}

impl Blake2b {
    /// Absorbs `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        let used = self.buf_len;
        // `used <= BLOCK_LEN` is an invariant; wrapping avoids a dead overflow check.
        let free = BLOCK_LEN.wrapping_sub(used);
        if data.len() <= free {
            // Fits in the buffer (the common case for short inputs): no compression, and no
            // registers to save for one.
            buffer_tail!(self, used, data);
        } else {
            self.update_blocks(data);
        }
    }

    /// `update` when `buf` plus `data` is more than one block, so the buffered block is not
    /// the last one and is compressed.
    #[inline(never)]
    fn update_blocks(&mut self, data: &[u8]) {
        let mut data = data;
        let mut used = self.buf_len;
        let free = BLOCK_LEN.wrapping_sub(used);
        if used > 0 && data.len() > free {
            let (head, rest) = data.split_at(free);
            if let Some(dst) = self.buf.get_mut(used..) {
                copy_bytes(dst, head);
            }
            self.t = self.t.wrapping_add(BLOCK_LEN as u128);
            compress(&mut self.h, &self.buf, self.t, false);
            used = 0;
            data = rest;
        }
        // Whole blocks straight from `data`, keeping back the last (possibly full) one.
        while data.len() > BLOCK_LEN {
            let Some((block, rest)) = data.split_first_chunk::<BLOCK_LEN>() else {
                break;
            };
            self.t = self.t.wrapping_add(BLOCK_LEN as u128);
            compress(&mut self.h, block, self.t, false);
            data = rest;
        }
        // Now `used + data.len() <= BLOCK_LEN`, so the `get_mut`s always succeed.
        buffer_tail!(self, used, data);
    }

    /// Finishes the hash and writes `min(dst.len(), out_len)` bytes of it to `dst`.
    pub fn finalize(mut self, dst: &mut [u8]) {
        self.finalize_from_ref(dst);
    }

    /// Finishes the hash in place and writes `min(dst.len(), out_len)` bytes of it straight
    /// into `dst`. Afterwards the hasher must be re-initialised with
    /// [`Blake2bBuilder::build_from_ref`] before it is used again.
    pub fn finalize_from_ref(&mut self, dst: &mut [u8]) {
        let used = self.buf_len;
        self.t = self.t.wrapping_add(used as u128);
        if let Some(pad) = self.buf.get_mut(used..) {
            zero_bytes(pad);
        }
        compress(&mut self.h, &self.buf, self.t, true);

        let n = dst.len().min(self.out_len as usize);
        let (words, tail) = dst[..n].as_chunks_mut::<8>();
        for (w, h) in words.iter_mut().zip(self.h.iter()) {
            store::<0, 8>(w, *h);
        }
        if !tail.is_empty() {
            if let Some(h) = self.h.get(words.len()) {
                for (d, s) in tail.iter_mut().zip(h.to_le_bytes()) {
                    *d = s;
                }
            }
        }
    }
}

/// Copies `src` into `dst` (equal lengths) 32 and 8 bytes at a time, without a `memcpy` call
/// for the whole words.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let (dst_quads, dst_rest) = dst.as_chunks_mut::<32>();
    let (src_quads, src_rest) = src.as_chunks::<32>();
    for (d, s) in dst_quads.iter_mut().zip(src_quads) {
        store::<0, 32>(d, load::<0, 32>(s));
        store::<8, 32>(d, load::<8, 32>(s));
        store::<16, 32>(d, load::<16, 32>(s));
        store::<24, 32>(d, load::<24, 32>(s));
    }
    let (dst_words, dst_tail) = dst_rest.as_chunks_mut::<8>();
    let (src_words, src_tail) = src_rest.as_chunks::<8>();
    for (d, s) in dst_words.iter_mut().zip(src_words) {
        store::<0, 8>(d, load::<0, 8>(s));
    }
    for (d, s) in dst_tail.iter_mut().zip(src_tail) {
        *d = *s;
    }
}

/// Zeroes `dst` 32 and 8 bytes at a time, without a `memset` call for the whole words.
#[inline(always)]
fn zero_bytes(dst: &mut [u8]) {
    let (quads, rest) = dst.as_chunks_mut::<32>();
    for q in quads {
        store::<0, 32>(q, 0);
        store::<8, 32>(q, 0);
        store::<16, 32>(q, 0);
        store::<24, 32>(q, 0);
    }
    let (words, tail) = rest.as_chunks_mut::<8>();
    for w in words {
        store::<0, 8>(w, 0);
    }
    for d in tail {
        *d = 0;
    }
}

/// blake2b-256 with personalization `ckb-default-hash`, computed at compile time.
pub const CKB_HASH_BUILDER: Blake2bBuilder = Blake2bBuilder::new(32).personal(&CKB_PERSONALIZATION);

/// CKB's default hash: blake2b-256 with personalization `ckb-default-hash`.
pub fn ckb_blake2b_256(data: &[u8]) -> [u8; 32] {
    let mut hasher = CKB_HASH_BUILDER.build();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize_from_ref(&mut out);
    out
}

/// CKB's default hash of at most one block (128 bytes), in a compact form: the rounds run
/// in a loop over [`SIGMA`] instead of unrolled, about a tenth of [`ckb_blake2b_256`]'s
/// code for a few times its cycles. For a contract that hashes a short message once (a type
/// id) and would otherwise carry the unrolled compression just for that. `None` for longer
/// data.
pub fn ckb_blake2b_256_small(data: &[u8]) -> Option<[u8; 32]> {
    if data.len() > BLOCK_LEN {
        return None;
    }
    let mut block = [0u8; BLOCK_LEN];
    block[..data.len()].copy_from_slice(data);
    let mut m = [0u64; 16];
    for (w, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    let h = CKB_HASH_BUILDER.h;
    let mut v = [0u64; 16];
    v[..8].copy_from_slice(&h);
    v[8..].copy_from_slice(&IV);
    v[12] ^= data.len() as u64;
    v[14] = !v[14];
    for r in 0..12 {
        small_round(&mut v, &m, &SIGMA_U8[r % 10]);
    }
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&(h[i] ^ v[i] ^ v[i + 8]).to_le_bytes());
    }
    Some(out)
}

/// [`SIGMA`] in bytes: a 160-byte table instead of 1,280.
const SIGMA_U8: [[u8; 16]; 10] = {
    let mut out = [[0u8; 16]; 10];
    let mut r = 0;
    while r < 10 {
        let mut i = 0;
        while i < 16 {
            out[r][i] = SIGMA[r][i] as u8;
            i += 1;
        }
        r += 1;
    }
    out
};

/// One round of [`ckb_blake2b_256_small`], the eight G steps from a table.
#[inline(never)]
fn small_round(v: &mut [u64; 16], m: &[u64; 16], s: &[u8; 16]) {
    const STEPS: [[usize; 4]; 8] = [
        [0, 4, 8, 12],
        [1, 5, 9, 13],
        [2, 6, 10, 14],
        [3, 7, 11, 15],
        [0, 5, 10, 15],
        [1, 6, 11, 12],
        [2, 7, 8, 13],
        [3, 4, 9, 14],
    ];
    for (i, &[a, b, c, d]) in STEPS.iter().enumerate() {
        let (x, y) = (
            m[usize::from(s[2 * i] & 15)],
            m[usize::from(s[2 * i + 1] & 15)],
        );
        v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
        v[d] = (v[d] ^ v[a]).rotate_right(32);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(24);
        v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
        v[d] = (v[d] ^ v[a]).rotate_right(16);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(63);
    }
}

/// Chaining value of [`CKB_HASH_BUILDER`].
const MERGE_H: [u64; 8] = CKB_HASH_BUILDER.h;

/// Working vector at the start of the only compression of a merge: `t = 64`, final flag.
const MERGE_V: [u64; 16] = [
    MERGE_H[0],
    MERGE_H[1],
    MERGE_H[2],
    MERGE_H[3],
    MERGE_H[4],
    MERGE_H[5],
    MERGE_H[6],
    MERGE_H[7],
    IV[0],
    IV[1],
    IV[2],
    IV[3],
    IV[4] ^ 64,
    IV[5],
    !IV[6],
    IV[7],
];

/// [`MERGE_V`] in memory, read through an opaque pointer by [`merge_into`]: one `auipc` and
/// one `ld` per word, instead of an `auipc` + `ld` pair per constant when LLVM materialises
/// each constant on its own (about 7 cycles less per merge on CKB-VM).
static MERGE_V_TABLE: [u64; 16] = MERGE_V;

/// The first four output words of the MMR merge `blake2b-256/ckb-default-hash(left || right)`.
///
/// One compression: the initial state is a constant, message words 8..15 are zero, `t = 64`
/// and the block is final. Only the first four output words are computed.
#[inline(always)]
fn merge_words(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
    let m = [
        load::<0, 32>(left),
        load::<8, 32>(left),
        load::<16, 32>(left),
        load::<24, 32>(left),
        load::<0, 32>(right),
        load::<8, 32>(right),
        load::<16, 32>(right),
        load::<24, 32>(right),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ];
    // `black_box` only hides the address (a pure performance hint; the values are the same
    // with or without it). The first eight table words are the chaining value `MERGE_H`.
    let table: &[u64; 16] = core::hint::black_box(&MERGE_V_TABLE);
    let mut v = *table;
    rounds(&mut v, &m);
    [
        table[0] ^ v[0] ^ v[8],
        table[1] ^ v[1] ^ v[9],
        table[2] ^ v[2] ^ v[10],
        table[3] ^ v[3] ^ v[11],
    ]
}

/// The MMR merge `blake2b-256/ckb-default-hash(left || right)`, written to `out`.
pub fn merge_into(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
    store_words(merge_words(left, right), out);
}

/// A little-endian u64 from 8 bytes of any alignment: one `ld` on riscv64 (where the
/// portable form is eight byte loads, as `riscv64imac` does not assume fast misaligned
/// access; CKB-VM loads misaligned words at the normal cost).
#[inline(always)]
pub fn load_u64(bytes: &[u8; 8]) -> u64 {
    load::<0, 8>(bytes)
}

/// The four little-endian words of 32 bytes of any alignment (one `ld` each on riscv64).
#[inline(always)]
pub fn load_words(bytes: &[u8; 32]) -> [u64; 4] {
    [
        load::<0, 32>(bytes),
        load::<8, 32>(bytes),
        load::<16, 32>(bytes),
        load::<24, 32>(bytes),
    ]
}

/// Writes a hash given as its four little-endian words (one `sd` each on riscv64).
pub fn store_words(words: [u64; 4], out: &mut [u8; 32]) {
    let [a, b, c, d] = words;
    store::<0, 32>(out, a);
    store::<8, 32>(out, b);
    store::<16, 32>(out, c);
    store::<24, 32>(out, d);
}

/// [`merge_into`] for a destination that need not be initialised (a fresh
/// `Box::new_uninit()`, say): all 32 bytes are written, none read, and the now initialised
/// array is returned.
pub fn merge_into_uninit<'a>(
    left: &[u8; 32],
    right: &[u8; 32],
    out: &'a mut core::mem::MaybeUninit<[u8; 32]>,
) -> &'a mut [u8; 32] {
    let [a, b, c, d] = merge_words(left, right);
    store_uninit::<0, 32>(out, a);
    store_uninit::<8, 32>(out, b);
    store_uninit::<16, 32>(out, c);
    store_uninit::<24, 32>(out, d);
    // SAFETY: the four stores above wrote all 32 bytes.
    #[allow(unsafe_code)]
    unsafe {
        out.assume_init_mut()
    }
}

/// [`merge_into`] returning the hash.
pub fn merge(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    merge_into(left, right, &mut out);
    out
}

/// The merge through the fully generic path, for measurement: a builder computed at run time
/// (its inputs hidden from the optimiser), two `update`s and `finalize_from_ref`.
pub fn merge_generic(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
    let out_len = core::hint::black_box(32);
    let personal = core::hint::black_box(&CKB_PERSONALIZATION);
    let mut hasher = Blake2bBuilder::new(out_len).personal(personal).build();
    hasher.update(left);
    hasher.update(right);
    hasher.finalize_from_ref(out);
}

/// The merge through the generic hasher initialised from the compile-time
/// [`CKB_HASH_BUILDER`], reusing `hasher` (as a verifier that keeps one hasher would):
/// `build_from_ref`, two `update`s, `finalize_from_ref`.
pub fn merge_const_builder_with(
    hasher: &mut Blake2b,
    left: &[u8; 32],
    right: &[u8; 32],
    out: &mut [u8; 32],
) {
    CKB_HASH_BUILDER.build_from_ref(hasher);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize_from_ref(out);
}

/// [`merge_const_builder_with`] on a hasher of its own, for measurement.
pub fn merge_const_builder(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
    let mut hasher = CKB_HASH_BUILDER.build();
    merge_const_builder_with(&mut hasher, left, right, out);
}

/// The inputs of the kernel's differential test in CKB-VM (`tests/tests/merge_kernel_vm.rs`,
/// `tools/merge-bench`), generated the same way in the VM and on the host, so the witness
/// only needs to carry the expected hashes.
pub mod check_inputs {
    /// Number of edge cases before the random ones: all zero, all 0xff, and each of the 512
    /// single set bits of the 64-byte block.
    pub const EDGE_CASES: u64 = 2 + 512;

    /// Input `i` of the memory-to-memory check as `left || right`: the edge cases first,
    /// then splitmix64 output from `seed`.
    pub fn pair(seed: u64, i: u64) -> [u8; 64] {
        let mut block = [0u8; 64];
        match i {
            0 => {}
            1 => block = [0xff; 64],
            _ if i < EDGE_CASES => {
                let bit = (i - 2) as usize;
                block[bit / 8] = 1 << (bit % 8);
            }
            _ => fill(&mut block, seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
        }
        block
    }

    /// The right input of step `i` of the chained check (left is the previous result).
    pub fn chain_right(seed: u64, i: u64) -> [u8; 32] {
        let mut right = [0u8; 32];
        fill(&mut right, !seed ^ i.wrapping_mul(0xd1b5_4a32_d192_ed03));
        right
    }

    /// Fills `dst` with splitmix64 words started at `state`.
    fn fill(dst: &mut [u8], mut state: u64) {
        for chunk in dst.chunks_mut(8) {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{IV, MERGE_H};
    use std::vec::Vec;

    /// The constant table of the assembly kernel (`merge_rv64.s`, only assembled for riscv64)
    /// holds what its comments say, computed here from the Rust builder.
    #[test]
    fn assembly_table_matches_the_builder() {
        let h = MERGE_H;
        // v0 + v4 of round 0, then v4..v11 (h4..h7, IV0..IV3) of the working vector, then
        // the final-block v14, v15, and h0 for the output.
        let mut expected = std::vec![h[0].wrapping_add(h[4])];
        expected.extend_from_slice(&h[4..]);
        expected.extend_from_slice(&IV[..4]);
        expected.extend_from_slice(&[!IV[6], IV[7], h[0]]);
        let table: Vec<u64> = include_str!("merge_rv64.s")
            .lines()
            .filter_map(|line| line.trim().strip_prefix(".dword 0x"))
            .map(|rest| u64::from_str_radix(&rest[..16], 16).unwrap())
            .collect();
        assert_eq!(table, expected);
        // The kernel derives these instead of loading them: v1..v3 of round 0 (h[i] + h[i+4])
        // from IV1..IV3 and h5..h7, and h1..h3 of the output are the IV words.
        assert_eq!((h[1], h[2], h[3]), (IV[1], IV[2], IV[3]));
        assert_eq!((h[4], h[5]), (IV[4], IV[5]));
    }
}
