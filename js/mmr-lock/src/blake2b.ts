// The MMR's merge: blake2b-256, personalization "ckb-default-hash", over left || right
// (exactly 64 bytes, one compression). CCC's `hashCkb` computes the same hash for any input;
// this kernel exists because an MMR of a million leaves needs two million merges, and a
// specialised single-block compression on 32-bit words is several times faster than a
// general hasher that returns hex strings. test/blake2b.test.ts holds it against hashCkb.

// BLAKE2b IV as (low, high) 32-bit halves of each 64-bit word.
const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

// Message word schedule; rounds 10 and 11 repeat rounds 0 and 1.
const SIGMA = [
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

// Message word offsets (in 32-bit halves, so 2 * word) for all 12 rounds, flattened.
const SCHEDULE = new Uint8Array(12 * 16);
for (let r = 0; r < 12; r++) {
  for (let i = 0; i < 16; i++) SCHEDULE[r * 16 + i] = 2 * SIGMA[r % 10][i];
}

/** The 16-byte personalization CKB uses. */
export const CKB_PERSONALIZATION = "ckb-default-hash";

// The initial state h for a 32-byte digest, no key, personalization "ckb-default-hash":
// h = IV xor the parameter block (digest length 32, fanout 1, depth 1; personal in words 6, 7).
const H0 = (() => {
  const h = IV.slice();
  h[0] ^= 0x01010020;
  const p = new TextEncoder().encode(CKB_PERSONALIZATION);
  for (let i = 0; i < 4; i++) {
    h[12 + i] ^= p[4 * i] | (p[4 * i + 1] << 8) | (p[4 * i + 2] << 16) | (p[4 * i + 3] << 24);
  }
  return h;
})();

const v = new Uint32Array(32);
const m = new Uint32Array(32);

// G on the 64-bit words a, b, c, d of v (indexes in halves), message words x, y of m.
// Sums are formed as doubles (below 2^34) and their carries taken by division; every value
// that enters a sum is an unsigned 32-bit half (`>>> 0`), stores into v wrap modulo 2^32.
function g(a: number, b: number, c: number, d: number, x: number, y: number): void {
  // a = a + b + m[x]
  let lo = v[a] + v[b] + m[x];
  let hi = v[a + 1] + v[b + 1] + m[x + 1] + ((lo / 0x100000000) | 0);
  const alo = lo >>> 0;
  const ahi = hi >>> 0;
  // d = rotr64(d ^ a, 32): swap the halves
  let dlo = (v[d + 1] ^ ahi) >>> 0;
  let dhi = (v[d] ^ alo) >>> 0;
  // c = c + d
  lo = v[c] + dlo;
  hi = v[c + 1] + dhi + ((lo / 0x100000000) | 0);
  const clo = lo >>> 0;
  const chi = hi >>> 0;
  // b = rotr64(b ^ c, 24)
  let xlo = v[b] ^ clo;
  let xhi = v[b + 1] ^ chi;
  const blo = ((xlo >>> 24) | (xhi << 8)) >>> 0;
  const bhi = ((xhi >>> 24) | (xlo << 8)) >>> 0;
  // a = a + b + m[y]
  lo = alo + blo + m[y];
  hi = ahi + bhi + m[y + 1] + ((lo / 0x100000000) | 0);
  v[a] = lo;
  v[a + 1] = hi;
  // d = rotr64(d ^ a, 16)
  xlo = dlo ^ lo;
  xhi = dhi ^ hi;
  dlo = ((xlo >>> 16) | (xhi << 16)) >>> 0;
  dhi = ((xhi >>> 16) | (xlo << 16)) >>> 0;
  v[d] = dlo;
  v[d + 1] = dhi;
  // c = c + d
  lo = clo + dlo;
  hi = chi + dhi + ((lo / 0x100000000) | 0);
  v[c] = lo;
  v[c + 1] = hi;
  // b = rotr64(b ^ c, 63) = rotl64(b ^ c, 1)
  xlo = blo ^ lo;
  xhi = bhi ^ hi;
  v[b] = (xlo << 1) | (xhi >>> 31);
  v[b + 1] = (xhi << 1) | (xlo >>> 31);
}

function loadWords(src: Uint8Array, srcOffset: number, dst: number): void {
  for (let i = 0; i < 8; i++) {
    const o = srcOffset + 4 * i;
    m[dst + i] = src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24);
  }
}

/**
 * merge(left, right) = blake2b-256 "ckb-default-hash" of the 64 bytes left || right, where
 * left is `a[aOffset .. aOffset + 32]` and right is `b[bOffset .. bOffset + 32]`; the digest
 * is written to `out[outOffset .. outOffset + 32]` (which may overlap either input).
 */
export function mergeInto(
  a: Uint8Array,
  aOffset: number,
  b: Uint8Array,
  bOffset: number,
  out: Uint8Array,
  outOffset: number,
): void {
  loadWords(a, aOffset, 0);
  loadWords(b, bOffset, 8);
  for (let i = 0; i < 16; i++) {
    v[i] = H0[i];
    v[i + 16] = IV[i];
  }
  // Byte counter t = 64 (word 12), final block flag (word 14 inverted).
  v[24] ^= 64;
  v[28] = ~v[28];
  v[29] = ~v[29];
  for (let r = 0; r < 192; r += 16) {
    const s = SCHEDULE;
    g(0, 8, 16, 24, s[r], s[r + 1]);
    g(2, 10, 18, 26, s[r + 2], s[r + 3]);
    g(4, 12, 20, 28, s[r + 4], s[r + 5]);
    g(6, 14, 22, 30, s[r + 6], s[r + 7]);
    g(0, 10, 20, 30, s[r + 8], s[r + 9]);
    g(2, 12, 22, 24, s[r + 10], s[r + 11]);
    g(4, 14, 16, 26, s[r + 12], s[r + 13]);
    g(6, 8, 18, 28, s[r + 14], s[r + 15]);
  }
  for (let i = 0; i < 8; i++) {
    const word = H0[i] ^ v[i] ^ v[i + 16];
    const o = outOffset + 4 * i;
    out[o] = word;
    out[o + 1] = word >>> 8;
    out[o + 2] = word >>> 16;
    out[o + 3] = word >>> 24;
  }
}

/** merge(left, right) as a new 32-byte array. */
export function merge(left: Uint8Array, right: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  mergeInto(left, 0, right, 0, out, 0);
  return out;
}
