import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { hashCkb, hexFrom } from "@ckb-ccc/core";
import { merge, mergeInto } from "../src/index.js";
import { MERGE_KERNEL, mergeArena } from "../src/blake2b.js";

const fixed = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(0x80)];

test("merge equals CCC's hashCkb(left, right) on random and extreme inputs", () => {
  for (const a of fixed) for (const b of fixed) assert.equal(hexFrom(merge(a, b)), hashCkb(a, b));
  for (let k = 0; k < 2000; k++) {
    const a = randomBytes(32);
    const b = randomBytes(32);
    assert.equal(hexFrom(merge(a, b)), hashCkb(a, b));
  }
});

test("mergeInto reads at offsets and may write over its inputs", () => {
  const buf = randomBytes(96);
  const expected = hashCkb(buf.subarray(0, 32), buf.subarray(64, 96));
  mergeInto(buf, 0, buf, 64, buf, 32);
  assert.equal(hexFrom(buf.subarray(32, 64)), expected);
  const left = randomBytes(32);
  const right = randomBytes(32);
  const want = hashCkb(left, right);
  mergeInto(left, 0, right, 0, left, 0);
  assert.equal(hexFrom(left), want);
});

test("both kernels (WebAssembly and JavaScript) equal hashCkb in an arena, in place too; Node runs the WebAssembly one", () => {
  assert.equal(MERGE_KERNEL, "wasm");
  for (const kernel of ["wasm", "js"] as const) {
    const arena = mergeArena(200, kernel);
    assert.equal(arena.kernel, kernel);
    const pairs = fixed.flatMap((a) => fixed.map((b) => [a, b]));
    for (let k = 0; k < 1000; k++) pairs.push([randomBytes(32), randomBytes(32)]);
    for (const [a, b] of pairs) {
      arena.bytes.set(a, 96);
      arena.bytes.set(b, 160);
      arena.merge(96, 160, 4);
      assert.equal(hexFrom(arena.bytes.subarray(4, 36)), hashCkb(a, b), kernel);
      arena.merge(96, 160, 160); // over its right input
      assert.equal(hexFrom(arena.bytes.subarray(160, 192)), hashCkb(a, b), kernel);
    }
  }
});
