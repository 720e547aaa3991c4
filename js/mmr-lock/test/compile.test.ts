// The compiler on proof shapes tx-generator never emits: trailing leafless peaks given one by
// one, or partly one by one and then bagged (upstream verification accepts all of them, and
// docs/compiled-format.md section 3 says the compiler keeps the shape it is given). Checked
// by running the command stream with a small evaluator of the format's hashing (not its
// checks: the Rust and C verifiers own those) and comparing the root.

import { test } from "node:test";
import assert from "node:assert/strict";
import { hexFrom } from "@ckb-ccc/core";
import { Mmr, Op, compileCommands, compiledPayload, merge, peaksOf, type MmrProof } from "../src/index.js";

// Root computed by running a compiled payload: leaves, PROOF sides from `first`, bagging.
function run(payload: Uint8Array): Uint8Array {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const n = view.getUint32(0, true);
  let leaf = 0;
  let at = 4 + 40 * n;
  const stack: { first: number; height: number; hash: Uint8Array }[] = [];
  const item = () => payload.slice(at, (at += 32));
  while (at < payload.length) {
    const op = payload[at++];
    if (op === Op.LEAF) {
      const rec = 4 + 40 * leaf++;
      stack.push({ first: Number(view.getBigUint64(rec, true)), height: 0, hash: payload.slice(rec + 8, rec + 40) });
    } else if (op === Op.PROOF) {
      const t = stack[stack.length - 1];
      const other = item();
      const isRight = Math.floor(t.first / 2 ** t.height) % 2 === 1;
      t.hash = isRight ? merge(other, t.hash) : merge(t.hash, other);
      if (isRight) t.first -= 2 ** t.height;
      t.height++;
    } else if (op === Op.MERGE) {
      const r = stack.pop()!;
      const l = stack[stack.length - 1];
      l.hash = merge(l.hash, r.hash);
      l.height++;
    } else if (op === Op.PEAK_PROOF || op === Op.BAG_RHS) {
      stack.push({ first: -1, height: -1, hash: item() });
    } else if (op !== Op.PEAK) {
      throw new Error(`opcode ${op}`);
    }
  }
  let acc = stack[stack.length - 1].hash;
  for (let i = stack.length - 2; i >= 0; i--) acc = merge(acc, stack[i].hash);
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

test("compiled payloads of gen_proof proofs run to the root", () => {
  for (let n = 1; n <= 70; n++) {
    const mmr = Mmr.from(leaves(n));
    for (const indexes of [[0], [n - 1], [Math.floor(n / 2)], n > 2 ? [0, n - 1] : [0]]) {
      assert.equal(hexFrom(run(compiledPayload(mmr.proof(indexes)))), hexFrom(mmr.root()), `n ${n} ${indexes}`);
    }
  }
});

test("trailing leafless peaks given one by one, or partly, compile and run to the same root", () => {
  let shapes = 0;
  for (let n = 3; n <= 300; n++) {
    const mmr = Mmr.from(leaves(n));
    const peaks = peaksOf(n);
    const proof = mmr.proof([0]);
    // Leafless peaks after the first: gen_proof bagged them when there are two or more.
    const trailing = peaks.slice(1);
    if (trailing.length < 2) continue;
    const head = proof.items.slice(0, -1);
    const hashes = trailing.map((p) => mmr.node(p.position));
    for (let split = 1; split <= trailing.length; split++) {
      // The first `split - 1` peaks one by one, then the rest bagged (or one by one too).
      const rest = hashes.slice(split - 1);
      let bag = rest[rest.length - 1];
      for (let k = rest.length - 2; k >= 0; k--) bag = merge(bag, rest[k]);
      const items = split === trailing.length ? [...head, ...hashes] : [...head, ...hashes.slice(0, split - 1), bag];
      const shaped: MmrProof = { ...proof, items };
      const ops = compileCommands(shaped).map((c) => c.op);
      const expectedTail =
        split === trailing.length
          ? trailing.map(() => Op.PEAK_PROOF)
          : [...trailing.slice(0, split - 1).map(() => Op.PEAK_PROOF), Op.BAG_RHS];
      assert.deepEqual(ops.slice(-expectedTail.length), expectedTail, `n ${n} split ${split}`);
      assert.equal(hexFrom(run(compiledPayload(shaped))), hexFrom(mmr.root()), `n ${n} split ${split}`);
      shapes++;
    }
  }
  assert.ok(shapes > 500, `${shapes} shapes`);
});
