// The MMR's merge: blake2b-256, personalization "ckb-default-hash", over left || right
// (exactly 64 bytes, one compression). CCC's `hashCkb` computes the same hash for any input;
// these kernels exist because an MMR of a million leaves needs two million merges, and a
// specialised single-block compression is many times faster than a general hasher that
// returns hex strings. Two kernels: a WebAssembly function generated below (64-bit words are
// native there) and the JavaScript one on 32-bit halves, kept for hosts where WebAssembly
// cannot be compiled. `MERGE_KERNEL` says which one runs; test/blake2b.test.ts holds both
// against hashCkb.

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

const m = new Uint32Array(32);
// The digest of the last compression, as 8 little-endian 32-bit words.
const dw = new Uint32Array(8);
// 2^-32: multiplying a sum below 2^34 by it and truncating gives the carry, exactly.
const INV_2_32 = 2 ** -32;

// One compression of the 128-byte block in m (64 bytes of message, 64 zero bytes) as the
// first and final block of a 64-byte input, from the state H0; the digest goes to dw.
// The 16 working words live in 32 local variables (low and high halves, each kept as an
// unsigned 32-bit value); sums are formed as doubles below 2^34 and their carries taken by
// multiplication by 2^-32, so no 64-bit type is needed. Each G is written out for its four words.
function compress(): void {
  let v0l = H0[0], v0h = H0[1], v1l = H0[2], v1h = H0[3];
  let v2l = H0[4], v2h = H0[5], v3l = H0[6], v3h = H0[7];
  let v4l = H0[8], v4h = H0[9], v5l = H0[10], v5h = H0[11];
  let v6l = H0[12], v6h = H0[13], v7l = H0[14], v7h = H0[15];
  let v8l = IV[0], v8h = IV[1], v9l = IV[2], v9h = IV[3];
  let v10l = IV[4], v10h = IV[5], v11l = IV[6], v11h = IV[7];
  // Byte counter t = 64 into word 12; the final-block flag inverts word 14.
  let v12l = (IV[8] ^ 64) >>> 0, v12h = IV[9], v13l = IV[10], v13h = IV[11];
  let v14l = ~IV[12] >>> 0, v14h = ~IV[13] >>> 0, v15l = IV[14], v15h = IV[15];
  let lo = 0, tl = 0, th = 0, x = 0;
  const s = SCHEDULE;
  for (let r = 0; r < 192; r += 16) {
    // G0: words 0, 4, 8, 12
    x = s[r + 0];
    lo = v0l + v4l + m[x];
    v0h = (v0h + v4h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v0l = lo >>> 0;
    tl = (v12l ^ v0l) >>> 0;
    v12l = (v12h ^ v0h) >>> 0;
    v12h = tl;
    lo = v8l + v12l;
    v8h = (v8h + v12h + ((lo * INV_2_32) | 0)) >>> 0;
    v8l = lo >>> 0;
    tl = v4l ^ v8l;
    th = v4h ^ v8h;
    v4l = ((tl >>> 24) | (th << 8)) >>> 0;
    v4h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 1];
    lo = v0l + v4l + m[x];
    v0h = (v0h + v4h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v0l = lo >>> 0;
    tl = v12l ^ v0l;
    th = v12h ^ v0h;
    v12l = ((tl >>> 16) | (th << 16)) >>> 0;
    v12h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v8l + v12l;
    v8h = (v8h + v12h + ((lo * INV_2_32) | 0)) >>> 0;
    v8l = lo >>> 0;
    tl = v4l ^ v8l;
    th = v4h ^ v8h;
    v4l = ((tl << 1) | (th >>> 31)) >>> 0;
    v4h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G1: words 1, 5, 9, 13
    x = s[r + 2];
    lo = v1l + v5l + m[x];
    v1h = (v1h + v5h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v1l = lo >>> 0;
    tl = (v13l ^ v1l) >>> 0;
    v13l = (v13h ^ v1h) >>> 0;
    v13h = tl;
    lo = v9l + v13l;
    v9h = (v9h + v13h + ((lo * INV_2_32) | 0)) >>> 0;
    v9l = lo >>> 0;
    tl = v5l ^ v9l;
    th = v5h ^ v9h;
    v5l = ((tl >>> 24) | (th << 8)) >>> 0;
    v5h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 3];
    lo = v1l + v5l + m[x];
    v1h = (v1h + v5h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v1l = lo >>> 0;
    tl = v13l ^ v1l;
    th = v13h ^ v1h;
    v13l = ((tl >>> 16) | (th << 16)) >>> 0;
    v13h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v9l + v13l;
    v9h = (v9h + v13h + ((lo * INV_2_32) | 0)) >>> 0;
    v9l = lo >>> 0;
    tl = v5l ^ v9l;
    th = v5h ^ v9h;
    v5l = ((tl << 1) | (th >>> 31)) >>> 0;
    v5h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G2: words 2, 6, 10, 14
    x = s[r + 4];
    lo = v2l + v6l + m[x];
    v2h = (v2h + v6h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v2l = lo >>> 0;
    tl = (v14l ^ v2l) >>> 0;
    v14l = (v14h ^ v2h) >>> 0;
    v14h = tl;
    lo = v10l + v14l;
    v10h = (v10h + v14h + ((lo * INV_2_32) | 0)) >>> 0;
    v10l = lo >>> 0;
    tl = v6l ^ v10l;
    th = v6h ^ v10h;
    v6l = ((tl >>> 24) | (th << 8)) >>> 0;
    v6h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 5];
    lo = v2l + v6l + m[x];
    v2h = (v2h + v6h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v2l = lo >>> 0;
    tl = v14l ^ v2l;
    th = v14h ^ v2h;
    v14l = ((tl >>> 16) | (th << 16)) >>> 0;
    v14h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v10l + v14l;
    v10h = (v10h + v14h + ((lo * INV_2_32) | 0)) >>> 0;
    v10l = lo >>> 0;
    tl = v6l ^ v10l;
    th = v6h ^ v10h;
    v6l = ((tl << 1) | (th >>> 31)) >>> 0;
    v6h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G3: words 3, 7, 11, 15
    x = s[r + 6];
    lo = v3l + v7l + m[x];
    v3h = (v3h + v7h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v3l = lo >>> 0;
    tl = (v15l ^ v3l) >>> 0;
    v15l = (v15h ^ v3h) >>> 0;
    v15h = tl;
    lo = v11l + v15l;
    v11h = (v11h + v15h + ((lo * INV_2_32) | 0)) >>> 0;
    v11l = lo >>> 0;
    tl = v7l ^ v11l;
    th = v7h ^ v11h;
    v7l = ((tl >>> 24) | (th << 8)) >>> 0;
    v7h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 7];
    lo = v3l + v7l + m[x];
    v3h = (v3h + v7h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v3l = lo >>> 0;
    tl = v15l ^ v3l;
    th = v15h ^ v3h;
    v15l = ((tl >>> 16) | (th << 16)) >>> 0;
    v15h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v11l + v15l;
    v11h = (v11h + v15h + ((lo * INV_2_32) | 0)) >>> 0;
    v11l = lo >>> 0;
    tl = v7l ^ v11l;
    th = v7h ^ v11h;
    v7l = ((tl << 1) | (th >>> 31)) >>> 0;
    v7h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G4: words 0, 5, 10, 15
    x = s[r + 8];
    lo = v0l + v5l + m[x];
    v0h = (v0h + v5h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v0l = lo >>> 0;
    tl = (v15l ^ v0l) >>> 0;
    v15l = (v15h ^ v0h) >>> 0;
    v15h = tl;
    lo = v10l + v15l;
    v10h = (v10h + v15h + ((lo * INV_2_32) | 0)) >>> 0;
    v10l = lo >>> 0;
    tl = v5l ^ v10l;
    th = v5h ^ v10h;
    v5l = ((tl >>> 24) | (th << 8)) >>> 0;
    v5h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 9];
    lo = v0l + v5l + m[x];
    v0h = (v0h + v5h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v0l = lo >>> 0;
    tl = v15l ^ v0l;
    th = v15h ^ v0h;
    v15l = ((tl >>> 16) | (th << 16)) >>> 0;
    v15h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v10l + v15l;
    v10h = (v10h + v15h + ((lo * INV_2_32) | 0)) >>> 0;
    v10l = lo >>> 0;
    tl = v5l ^ v10l;
    th = v5h ^ v10h;
    v5l = ((tl << 1) | (th >>> 31)) >>> 0;
    v5h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G5: words 1, 6, 11, 12
    x = s[r + 10];
    lo = v1l + v6l + m[x];
    v1h = (v1h + v6h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v1l = lo >>> 0;
    tl = (v12l ^ v1l) >>> 0;
    v12l = (v12h ^ v1h) >>> 0;
    v12h = tl;
    lo = v11l + v12l;
    v11h = (v11h + v12h + ((lo * INV_2_32) | 0)) >>> 0;
    v11l = lo >>> 0;
    tl = v6l ^ v11l;
    th = v6h ^ v11h;
    v6l = ((tl >>> 24) | (th << 8)) >>> 0;
    v6h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 11];
    lo = v1l + v6l + m[x];
    v1h = (v1h + v6h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v1l = lo >>> 0;
    tl = v12l ^ v1l;
    th = v12h ^ v1h;
    v12l = ((tl >>> 16) | (th << 16)) >>> 0;
    v12h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v11l + v12l;
    v11h = (v11h + v12h + ((lo * INV_2_32) | 0)) >>> 0;
    v11l = lo >>> 0;
    tl = v6l ^ v11l;
    th = v6h ^ v11h;
    v6l = ((tl << 1) | (th >>> 31)) >>> 0;
    v6h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G6: words 2, 7, 8, 13
    x = s[r + 12];
    lo = v2l + v7l + m[x];
    v2h = (v2h + v7h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v2l = lo >>> 0;
    tl = (v13l ^ v2l) >>> 0;
    v13l = (v13h ^ v2h) >>> 0;
    v13h = tl;
    lo = v8l + v13l;
    v8h = (v8h + v13h + ((lo * INV_2_32) | 0)) >>> 0;
    v8l = lo >>> 0;
    tl = v7l ^ v8l;
    th = v7h ^ v8h;
    v7l = ((tl >>> 24) | (th << 8)) >>> 0;
    v7h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 13];
    lo = v2l + v7l + m[x];
    v2h = (v2h + v7h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v2l = lo >>> 0;
    tl = v13l ^ v2l;
    th = v13h ^ v2h;
    v13l = ((tl >>> 16) | (th << 16)) >>> 0;
    v13h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v8l + v13l;
    v8h = (v8h + v13h + ((lo * INV_2_32) | 0)) >>> 0;
    v8l = lo >>> 0;
    tl = v7l ^ v8l;
    th = v7h ^ v8h;
    v7l = ((tl << 1) | (th >>> 31)) >>> 0;
    v7h = ((th << 1) | (tl >>> 31)) >>> 0;
    // G7: words 3, 4, 9, 14
    x = s[r + 14];
    lo = v3l + v4l + m[x];
    v3h = (v3h + v4h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v3l = lo >>> 0;
    tl = (v14l ^ v3l) >>> 0;
    v14l = (v14h ^ v3h) >>> 0;
    v14h = tl;
    lo = v9l + v14l;
    v9h = (v9h + v14h + ((lo * INV_2_32) | 0)) >>> 0;
    v9l = lo >>> 0;
    tl = v4l ^ v9l;
    th = v4h ^ v9h;
    v4l = ((tl >>> 24) | (th << 8)) >>> 0;
    v4h = ((th >>> 24) | (tl << 8)) >>> 0;
    x = s[r + 15];
    lo = v3l + v4l + m[x];
    v3h = (v3h + v4h + m[x + 1] + ((lo * INV_2_32) | 0)) >>> 0;
    v3l = lo >>> 0;
    tl = v14l ^ v3l;
    th = v14h ^ v3h;
    v14l = ((tl >>> 16) | (th << 16)) >>> 0;
    v14h = ((th >>> 16) | (tl << 16)) >>> 0;
    lo = v9l + v14l;
    v9h = (v9h + v14h + ((lo * INV_2_32) | 0)) >>> 0;
    v9l = lo >>> 0;
    tl = v4l ^ v9l;
    th = v4h ^ v9h;
    v4l = ((tl << 1) | (th >>> 31)) >>> 0;
    v4h = ((th << 1) | (tl >>> 31)) >>> 0;

  }
  dw[0] = H0[0] ^ v0l ^ v8l;
  dw[1] = H0[1] ^ v0h ^ v8h;
  dw[2] = H0[2] ^ v1l ^ v9l;
  dw[3] = H0[3] ^ v1h ^ v9h;
  dw[4] = H0[4] ^ v2l ^ v10l;
  dw[5] = H0[5] ^ v2h ^ v10h;
  dw[6] = H0[6] ^ v3l ^ v11l;
  dw[7] = H0[7] ^ v3h ^ v11h;
}

function loadWords(src: Uint8Array, srcOffset: number, dst: number): void {
  for (let i = 0; i < 8; i++) {
    const o = srcOffset + 4 * i;
    m[dst + i] = src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24);
  }
}

// The JavaScript kernel: the 64 bytes a[aOffset..+32] || b[bOffset..+32] hashed, the digest
// written to out[outOffset..+32] (which may overlap either input: both are read first).
function jsMergeInto(
  a: Uint8Array,
  aOffset: number,
  b: Uint8Array,
  bOffset: number,
  out: Uint8Array,
  outOffset: number,
): void {
  loadWords(a, aOffset, 0);
  loadWords(b, bOffset, 8);
  compress();
  for (let i = 0; i < 8; i++) {
    const word = dw[i];
    const o = outOffset + 4 * i;
    out[o] = word;
    out[o + 1] = word >>> 8;
    out[o + 2] = word >>> 16;
    out[o + 3] = word >>> 24;
  }
}

/** Whether this host stores integers little endian, so a Uint32Array view of hashes reads
 * their words as blake2b does (true on x86 and ARM). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

// The JavaScript kernel on word views (little-endian hosts): hashes at w[left..], w[right..].
function jsMergeWords(w: Uint32Array, left: number, right: number, out: number): void {
  for (let i = 0; i < 8; i++) {
    m[i] = w[left + i];
    m[8 + i] = w[right + i];
  }
  compress();
  for (let i = 0; i < 8; i++) w[out + i] = dw[i];
}

// The WebAssembly kernel. Its module is generated here, instruction by instruction, rather
// than shipped as a binary: one function merge(left, right, out) on byte offsets into an
// imported memory; the 16 state words and 8 message words in i64 locals; all 12 rounds
// unrolled with the message schedule resolved at generation time (words 8..15 of a 64-byte
// input's block are zero, so their additions are left out); the 32-byte digest stored
// little endian, as blake2b defines it, whatever the host's byte order. It reads all 64
// input bytes before it writes, so `out` may overlap either input.

// Unsigned LEB128 of a small non-negative integer.
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

// Signed LEB128 of the 64-bit word with 32-bit halves (lo, hi), as i64.const takes it.
function sleb64(lo: number, hi: number): number[] {
  let v = BigInt.asIntN(64, (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0));
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** The merge kernel's WebAssembly module (imports env.memory, exports merge(left, right, out)). */
export function kernelModuleBytes(): Uint8Array<ArrayBuffer> {
  const c: number[] = [];
  const get = (i: number) => c.push(0x20, ...uleb(i)); // local.get
  const set = (i: number) => c.push(0x21, ...uleb(i)); // local.set
  const konst = (lo: number, hi: number) => c.push(0x42, ...sleb64(lo, hi)); // i64.const
  const ADD = 0x7c, XOR = 0x85, ROTR = 0x8a, LOAD = 0x29, STORE = 0x37; // i64 ops
  // Locals: parameters 0 (left), 1 (right), 2 (out); message words 3..10; state 11..26.
  const M = (i: number) => 3 + i;
  const V = (i: number) => 11 + i;
  for (let i = 0; i < 8; i++) {
    get(i < 4 ? 0 : 1);
    c.push(LOAD, 3, ...uleb(8 * (i % 4)));
    set(M(i));
  }
  for (let i = 0; i < 8; i++) {
    konst(H0[2 * i], H0[2 * i + 1]);
    set(V(i));
  }
  for (let i = 0; i < 8; i++) {
    let lo = IV[2 * i];
    let hi = IV[2 * i + 1];
    if (i === 4) lo = (lo ^ 64) >>> 0; // the byte counter t = 64
    if (i === 6) {
      // the final-block flag
      lo = ~lo >>> 0;
      hi = ~hi >>> 0;
    }
    konst(lo, hi);
    set(V(8 + i));
  }
  // Half of G: a += b + m[x]; d = (d ^ a) >>> r1; c += d; b = (b ^ c) >>> r2.
  const half = (a: number, b: number, cc: number, d: number, x: number, r1: number, r2: number) => {
    get(V(a));
    get(V(b));
    c.push(ADD);
    if (x < 8) {
      get(M(x));
      c.push(ADD);
    }
    set(V(a));
    get(V(d));
    get(V(a));
    c.push(XOR);
    konst(r1, 0);
    c.push(ROTR);
    set(V(d));
    get(V(cc));
    get(V(d));
    c.push(ADD);
    set(V(cc));
    get(V(b));
    get(V(cc));
    c.push(XOR);
    konst(r2, 0);
    c.push(ROTR);
    set(V(b));
  };
  const g = (a: number, b: number, cc: number, d: number, x: number, y: number) => {
    half(a, b, cc, d, x, 32, 24);
    half(a, b, cc, d, y, 16, 63);
  };
  for (let r = 0; r < 12; r++) {
    const s = SIGMA[r % 10];
    g(0, 4, 8, 12, s[0], s[1]);
    g(1, 5, 9, 13, s[2], s[3]);
    g(2, 6, 10, 14, s[4], s[5]);
    g(3, 7, 11, 15, s[6], s[7]);
    g(0, 5, 10, 15, s[8], s[9]);
    g(1, 6, 11, 12, s[10], s[11]);
    g(2, 7, 8, 13, s[12], s[13]);
    g(3, 4, 9, 14, s[14], s[15]);
  }
  for (let i = 0; i < 4; i++) {
    get(2);
    konst(H0[2 * i], H0[2 * i + 1]);
    get(V(i));
    c.push(XOR);
    get(V(8 + i));
    c.push(XOR);
    c.push(STORE, 3, ...uleb(8 * i));
  }
  c.push(0x0b); // end
  const body = [1, 24, 0x7e, ...c]; // one run of 24 i64 locals
  const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];
  const name = (text: string) => [text.length, ...Array.from(text, (ch) => ch.charCodeAt(0))];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]), // type 0: (i32, i32, i32) -> ()
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 0x01]), // memory, min 1 page
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(7, [1, ...name("merge"), 0x00, 0x00]), // exported as "merge"
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

// The compiled module; undefined where WebAssembly is missing or refused (a content security
// policy, a browser main thread's size limit on synchronous compilation).
const KERNEL_MODULE: WebAssembly.Module | undefined = (() => {
  try {
    return new WebAssembly.Module(kernelModuleBytes());
  } catch {
    return undefined;
  }
})();

/** The merge kernel `merge`, `mergeInto`, `mergeWords` and new arenas run: "wasm" wherever
 * WebAssembly compiles, else "js". */
export const MERGE_KERNEL: "wasm" | "js" = KERNEL_MODULE === undefined ? "js" : "wasm";

/**
 * Bytes that merge nodes held inside them: `merge(left, right, out)` writes the merge of the
 * 32 bytes at `bytes[left..]` and `bytes[right..]` to `bytes[out..]` (offsets multiples of
 * 4; `out` may equal either input). On the WebAssembly kernel the bytes are the kernel's own
 * memory, so a caller that keeps its nodes there (the store's appends) copies nothing in or
 * out. The bytes never move or grow.
 */
export interface MergeArena {
  readonly bytes: Uint8Array;
  readonly kernel: "wasm" | "js";
  merge(left: number, right: number, out: number): void;
}

/** A zeroed arena of at least `size` bytes on `kernel` (default MERGE_KERNEL; the tests
 * run both). */
export function mergeArena(size: number, kernel: "wasm" | "js" = MERGE_KERNEL): MergeArena {
  if (kernel === "wasm" && KERNEL_MODULE !== undefined) {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(size / 65536)) });
    const instance = new WebAssembly.Instance(KERNEL_MODULE, { env: { memory } });
    const merge = instance.exports.merge as (left: number, right: number, out: number) => void;
    return { bytes: new Uint8Array(memory.buffer), kernel: "wasm", merge };
  }
  const bytes = new Uint8Array(Math.max(96, Math.ceil(size / 4) * 4));
  if (LITTLE_ENDIAN) {
    const words = new Uint32Array(bytes.buffer);
    return { bytes, kernel: "js", merge: (l, r, o) => jsMergeWords(words, l >>> 2, r >>> 2, o >>> 2) };
  }
  return { bytes, kernel: "js", merge: (l, r, o) => jsMergeInto(bytes, l, bytes, r, bytes, o) };
}

// The arena behind merge, mergeInto and mergeWords: inputs at 0 and 32, the digest at 64.
const SCRATCH = mergeArena(96);
const scratch = SCRATCH.bytes;
const scratchWords = new Uint32Array(scratch.buffer, 0, 24);
const scratchMerge = SCRATCH.merge;

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
  for (let i = 0; i < 32; i++) {
    scratch[i] = a[aOffset + i];
    scratch[32 + i] = b[bOffset + i];
  }
  scratchMerge(0, 32, 64);
  for (let i = 0; i < 32; i++) out[outOffset + i] = scratch[64 + i];
}

/**
 * [`mergeInto`] on 32-bit word views, for little-endian hosts only: the hashes are the 8
 * words at `w[left..]` and `w[right..]`, the digest goes to `w[out..out + 8]`.
 */
export function mergeWords(w: Uint32Array, left: number, right: number, out: number): void {
  for (let i = 0; i < 8; i++) {
    scratchWords[i] = w[left + i];
    scratchWords[8 + i] = w[right + i];
  }
  scratchMerge(0, 32, 64);
  for (let i = 0; i < 8; i++) w[out + i] = scratchWords[16 + i];
}

/** merge(left, right) as a new 32-byte array. */
export function merge(left: Uint8Array, right: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  mergeInto(left, 0, right, 0, out, 0);
  return out;
}
