// The compact compiled payload (version 2) on its own: every proof of every small MMR runs to
// the root, big and multi-byte indexes encode as the spec says, and proof shapes that
// version 2 cannot express are refused. The root is computed by a small evaluator written
// here from docs/compiled-format.md's layout: the items of a peak taken in post-order of its
// proof tree (a node's subtree with leaves first, then its sibling's item), which is the
// order the verifier's leaf-by-leaf walk takes them; a different derivation from the kit's,
// so the two agree only if the order is right. Its checks are the spec's layout only (the
// Rust and C verifiers own the rest).

import { test } from "node:test";
import assert from "node:assert/strict";
import { hexFrom } from "@ckb-ccc/core";
import { COMPACT_VERSION, Mmr, compactItems, compiledPayload, encodeCompact, merge, peaksOf, type MmrProof } from "../src/index.js";
import { refused } from "./helpers.js";

/** The root a version 2 payload gives for an MMR of `leafCount` leaves (throws on a payload
 * that is not well formed). */
function runCompact(payload: Uint8Array, leafCount: number): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let i = 0; ; i++) {
      assert.ok(at < payload.length && i < 8, "varint truncated or too long");
      const b = payload[at++];
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) {
        assert.ok(i === 0 || b !== 0, "varint not canonical");
        return value;
      }
    }
  };
  assert.equal(payload[at++], COMPACT_VERSION);
  const n = varint();
  const indexes: number[] = [];
  for (let k = 0, next = 0; k < n; k++) {
    indexes.push(next + varint());
    next = indexes[k] + 1;
    assert.ok(indexes[k] < leafCount, "leaf index out of range");
  }
  const value = new Map(indexes.map((index, k) => [index, payload.slice(at + 32 * k, at + 32 * k + 32)]));
  at += 32 * n;
  const take = () => {
    assert.ok(at + 32 <= payload.length, "item truncated");
    return payload.slice(at, (at += 32));
  };
  const holds = (first: number, count: number) => indexes.some((i) => i >= first && i < first + count);
  const node = (first: number, height: number): Uint8Array => {
    if (height === 0) return value.get(first)!;
    const half = 2 ** (height - 1);
    const [left, right] = [holds(first, half), holds(first + half, half)];
    if (left && right) return merge(node(first, height - 1), node(first + half, height - 1));
    if (left) return merge(node(first, height - 1), take());
    const r = node(first + half, height - 1);
    return merge(take(), r);
  };
  const peaks: Uint8Array[] = [];
  const all = peaksOf(leafCount);
  for (let k = 0; k < all.length; k++) {
    const { first, height } = all[k];
    if (holds(first, 2 ** height)) {
      peaks.push(node(first, height));
    } else {
      peaks.push(take());
      // No proved leaf here or to the right, and more peaks: this item bagged them all.
      if (!indexes.some((i) => i >= first)) break;
    }
  }
  assert.equal(at, payload.length, "trailing bytes");
  let acc = peaks[peaks.length - 1];
  for (let i = peaks.length - 2; i >= 0; i--) acc = merge(acc, peaks[i]);
  return acc;
}

function leaves(n: number): Uint8Array[] {
  const zero = new Uint8Array(32);
  return Array.from({ length: n }, (_, i) => {
    const w = new Uint8Array(32);
    new DataView(w.buffer).setUint32(0, i + 1, true);
    return merge(w, zero);
  });
}

function varintLength(v: number): number {
  let len = 1;
  for (; v >= 0x80; v = Math.floor(v / 0x80)) len++;
  return len;
}

test("every proof of every MMR of 1 to 10 leaves runs to the root, one varint per gap", () => {
  let proofs = 0;
  for (let n = 1; n <= 10; n++) {
    const mmr = Mmr.from(leaves(n));
    const root = hexFrom(mmr.root());
    for (let mask = 1; mask < 2 ** n; mask++) {
      const indexes = [...Array(n).keys()].filter((i) => (mask >> i) & 1);
      const proof = mmr.proof(indexes);
      const payload = compiledPayload(proof);
      assert.equal(hexFrom(runCompact(payload, n)), root, `n ${n} ${indexes}`);
      // Gaps below 128 here: version, count, one byte per leaf, then the hashes.
      assert.equal(payload.length, 2 + indexes.length + 32 * (indexes.length + proof.items.length));
      proofs++;
    }
  }
  assert.equal(proofs, 2036);
});

test("random proofs of MMRs up to 3000 leaves run to the root", () => {
  let seed = 0x5eed;
  const next = (m: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % m;
  };
  for (let round = 0; round < 60; round++) {
    const n = 1 + next(round % 2 === 0 ? 3000 : 70);
    const mmr = Mmr.from(leaves(n));
    const picked = new Set(Array.from({ length: 1 + next(Math.min(n, 40)) }, () => next(n)));
    const indexes = [...picked].sort((a, b) => a - b);
    const proof = mmr.proof(indexes);
    const payload = compiledPayload(proof);
    assert.equal(hexFrom(runCompact(payload, n)), hexFrom(mmr.root()), `n ${n} ${indexes}`);
    let gaps = 0;
    indexes.forEach((i, k) => (gaps += varintLength(i - (k === 0 ? 0 : indexes[k - 1] + 1))));
    assert.equal(payload.length, 1 + varintLength(indexes.length) + gaps + 32 * (indexes.length + proof.items.length));
  }
});

test("varints: multi-byte gaps and the largest leaf index", () => {
  const v = (i: number) => new Uint8Array(32).fill(i);
  // 300 = 0b10_0101100: low group 0x2c with the high bit, then 0x02.
  assert.equal(hexFrom(encodeCompact([{ index: 300, value: v(1) }], [])).slice(0, 10), "0x0201ac02");
  // 128 then 129: gaps 128 (0x80 0x01) and 0.
  assert.equal(
    hexFrom(encodeCompact([{ index: 128, value: v(1) }, { index: 129, value: v(2) }], [])).slice(0, 12),
    "0x0202800100",
  );
  // 2^50 - 1: fifty 1 bits, seven full groups and one bit: eight bytes.
  assert.equal(hexFrom(encodeCompact([{ index: 2 ** 50 - 1, value: v(1) }], [v(2)])).slice(0, 22), "0x0201ffffffffffffff01");
  const mmr = Mmr.from(leaves(1000));
  const payload = compiledPayload(mmr.proof([300, 999]));
  // 999 - 300 - 1 = 698 = 0xba 0x05.
  assert.equal(hexFrom(payload.slice(0, 6)), "0x0202ac02ba05");
  assert.equal(hexFrom(runCompact(payload, 1000)), hexFrom(mmr.root()));
});

test("trailing leafless peaks given one by one, or partly, are refused; bagged they compile", () => {
  let shapes = 0;
  for (let n = 3; n <= 300; n++) {
    const mmr = Mmr.from(leaves(n));
    const trailing = peaksOf(n).slice(1);
    const proof = mmr.proof([0]);
    const ordered = compactItems(proof);
    assert.deepEqual(ordered.map(hexFrom), proof.items.map(hexFrom), `n ${n}: one leaf, upstream order`);
    if (trailing.length < 2) continue;
    const head = proof.items.slice(0, -1);
    const hashes = trailing.map((p) => mmr.node(p.position));
    for (let split = 1; split <= trailing.length; split++) {
      // The first `split - 1` peaks one by one, then the rest bagged (or one by one too):
      // upstream verification accepts each of these shapes.
      const rest = hashes.slice(split - 1);
      let bag = rest[rest.length - 1];
      for (let k = rest.length - 2; k >= 0; k--) bag = merge(bag, rest[k]);
      const items = split === trailing.length ? [...head, ...hashes] : [...head, ...hashes.slice(0, split - 1), bag];
      const shaped: MmrProof = { ...proof, items };
      if (split === 1) {
        assert.deepEqual(compiledPayload(shaped), compiledPayload(proof), `n ${n}: gen_proof's own shape`);
      } else {
        refused(() => compiledPayload(shaped), "PROOF_SHAPE", /peaks right of the last proved leaf are given one item each/);
      }
      shapes++;
    }
  }
  assert.ok(shapes > 500, `${shapes} shapes`);
});
