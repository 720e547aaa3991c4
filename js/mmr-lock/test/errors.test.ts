// Bad input: a thrown MmrLockError with a code and a clear message, and nothing sent.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Mmr,
  baselinePayload,
  compiledPayload,
  encodeCompact,
  leafCountOf,
  lockArgs,
  parseLockArgs,
  lockCell,
  mmrLockScript,
  positionToLeafIndex,
  spendCell,
  type Verifier,
} from "../src/index.js";
import { code, refused } from "./helpers.js";
import { NOWHERE, offline } from "./offline.js";

const leaf = (i: number) => new Uint8Array(32).fill(i + 1);
const mmr5 = () => Mmr.from([0, 1, 2, 3, 4].map(leaf));

test("a wrong-length leaf is refused and the MMR is unchanged", () => {
  const mmr = mmr5();
  refused(() => mmr.append(new Uint8Array(31)), "BAD_LENGTH", /leaf 5 must be 32 bytes, got 31/);
  refused(() => mmr.append("0x" + "ab".repeat(33)), "BAD_LENGTH", /must be 32 bytes, got 33/);
  refused(() => mmr.append("0xzz"), "BAD_LENGTH", /leaf 5 is not bytes/);
  assert.equal(mmr.leafCount, 5);
  assert.equal(mmr.mmrSize, 8);
  refused(() => Mmr.from([leaf(0), leaf(1), new Uint8Array(0)]), "BAD_LENGTH", /leaf 2 must be 32 bytes, got 0/);
});

test("indexes out of range, unsorted, duplicated or missing are refused", () => {
  const mmr = mmr5();
  refused(() => mmr.proof([5]), "INDEX_OUT_OF_RANGE", /leaf index 5 .* 5 leaves, indexes 0\.\.4/);
  refused(() => mmr.proof([0, -1]), "INDEX_OUT_OF_RANGE", /leaf index -1/);
  refused(() => mmr.proof([1.5]), "INDEX_OUT_OF_RANGE", /leaf index 1\.5/);
  refused(() => mmr.proof([3, 1]), "INDEXES_NOT_ASCENDING", /leaf index 1 \(at 1\) follows 3/);
  refused(() => mmr.proof([0, 2, 2]), "INDEXES_NOT_ASCENDING", /leaf index 2 is given twice/);
  refused(() => mmr.proof([]), "EMPTY", /no leaf index to prove/);
  refused(() => new Mmr().root(), "EMPTY", /empty MMR has no root/);
});

test("sizes, positions, args and proof shapes are checked", () => {
  refused(() => leafCountOf(2), "MMR_SIZE_INVALID", /not the size of any MMR/);
  refused(() => leafCountOf(0), "MMR_SIZE_INVALID", /between 1 and 2\^50/);
  refused(() => leafCountOf(2 ** 50 + 1), "MMR_SIZE_INVALID", /between 1 and 2\^50/);
  refused(() => positionToLeafIndex(2), "NOT_A_LEAF", /position 2 is not a leaf/);
  refused(() => lockArgs(new Uint8Array(32), 6), "MMR_SIZE_INVALID", /6/);
  refused(() => lockArgs(new Uint8Array(31), 8), "BAD_LENGTH", /root must be 32 bytes/);
  refused(() => parseLockArgs(new Uint8Array(41)), "BAD_ARGS", /41 bytes ending in 0x01/);
  const proof = mmr5().proof([0, 3]);
  refused(() => compiledPayload({ ...proof, items: proof.items.slice(1) }), "PROOF_SHAPE", /fewer than/);
  refused(() => compiledPayload({ ...proof, items: [...proof.items, leaf(9)] }), "PROOF_SHAPE", /use only 3/);
  refused(() => compiledPayload({ ...proof, leaves: [...proof.leaves].reverse() }), "INDEXES_NOT_ASCENDING", /leaf index 0 \(at 1\) follows 3/);
  refused(() => compiledPayload({ ...proof, leaves: [] }), "EMPTY", /no leaf index to prove/);
  refused(() => compiledPayload({ ...proof, leaves: [{ ...proof.leaves[0], index: 5 }] }), "INDEX_OUT_OF_RANGE", /leaf index 5 .* 5 leaves/);
  refused(() => compiledPayload({ ...proof, mmrSize: 9 }), "MMR_SIZE_INVALID", /mmr_size 9 is not the size of any MMR/);
  refused(() => compiledPayload({ ...proof, items: [proof.items[0], new Uint8Array(31), proof.items[2]] }), "BAD_LENGTH", /proof item 1 must be 32 bytes, got 31/);
  refused(() => compiledPayload({ ...proof, leaves: [{ ...proof.leaves[0], value: new Uint8Array(33) }, proof.leaves[1]] }), "BAD_LENGTH", /leaf 0 must be 32 bytes, got 33/);
  // 7 leaves (peaks of 4, 2, 1), leaf 0 proved: the two right peaks one by one instead of bagged.
  const seven = Mmr.from([0, 1, 2, 3, 4, 5, 6].map(leaf));
  const one = seven.proof([0]);
  refused(
    () => compiledPayload({ ...one, items: [...one.items.slice(0, -1), seven.node(9), seven.node(10)] }),
    "PROOF_SHAPE",
    /the 2 peaks right of the last proved leaf are given one item each; the compact format takes their bagging/,
  );
  refused(() => baselinePayload({ ...proof, leaves: [proof.leaves[0], proof.leaves[0]] }), "INDEXES_NOT_ASCENDING", /twice/);
});

test("encodeCompact refuses what a payload cannot hold", () => {
  const v = new Uint8Array(32);
  refused(() => encodeCompact([], []), "EMPTY", /no leaf index to prove/);
  refused(() => encodeCompact([{ index: -1, value: v }], []), "INDEX_OUT_OF_RANGE", /leaf index -1 \(at 0\) is not the index of a leaf of any MMR/);
  refused(() => encodeCompact([{ index: 2 ** 50, value: v }], []), "INDEX_OUT_OF_RANGE", /integers 0 to 2\^50 - 1/);
  refused(() => encodeCompact([{ index: 0.5, value: v }], []), "INDEX_OUT_OF_RANGE", /leaf index 0\.5/);
  refused(() => encodeCompact([{ index: 4, value: v }, { index: 4, value: v }], []), "INDEXES_NOT_ASCENDING", /given twice/);
  refused(() => encodeCompact([{ index: 4, value: new Uint8Array(31) }], []), "BAD_LENGTH", /leaf 4 must be 32 bytes/);
  refused(() => encodeCompact([{ index: 4, value: v }], [v, new Uint8Array(0)]), "BAD_LENGTH", /proof item 1 must be 32 bytes, got 0/);
});

test("spendCell with bad indexes sends nothing; with good ones it does reach the node", async () => {
  await offline(async (signer, requests) => {
    const verifier: Verifier = { ...NOWHERE, format: "compiled" };
    const cell = { txHash: "0x" + "44".repeat(32), index: 0 };
    const mmr = mmr5();
    for (const [indexes, want] of [
      [[7], "INDEX_OUT_OF_RANGE"],
      [[4, 1], "INDEXES_NOT_ASCENDING"],
      [[1, 1], "INDEXES_NOT_ASCENDING"],
    ] as const) {
      assert.equal(await code(() => spendCell(signer, verifier, { cell, proof: { mmr, indexes } })), want);
    }
    // Owner mode where the signer's lock hash is not a proved leaf: refused before any RPC.
    await assert.rejects(
      spendCell(signer, verifier, { cell, proof: { mmr, indexes: [1] }, owner: true }),
      /OwnerNotFound|not one of the proved leaves/,
    );
    // Locking: a capacity below the occupied 81 CKB, or hash_type data, is refused first too.
    await assert.rejects(lockCell(signer, verifier, { mmr, capacity: 80n * 100_000_000n }), /below the cell's occupied capacity 8100000000/);
    await assert.rejects(
      lockCell(signer, { ...verifier, hashType: "data" as "data2" }, { mmr }),
      /runs VM version 0/,
    );
    refused(() => mmrLockScript(verifier, new Uint8Array(39)), "BAD_ARGS", /got 39 bytes/);
    assert.deepEqual(requests, [], "a refused input must not reach the node");
    // The same call with valid indexes does try the node (so the check above can fail).
    await assert.rejects(spendCell(signer, verifier, { cell, proof: { mmr, indexes: [1] } }));
    assert.ok(requests.length > 0);
  });
});
