import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { hashCkb, hexFrom } from "@ckb-ccc/core";
import { merge, mergeInto } from "../src/index.js";

test("merge equals CCC's hashCkb(left, right) on random and extreme inputs", () => {
  const fixed = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(0x80)];
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
