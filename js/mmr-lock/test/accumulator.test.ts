// The accumulator's bytes against the Rust side: `tx-generator acc-vectors` (built on
// mmr_accumulator::build, every payload checked by the type script's core) run now, the
// worked examples of docs/accumulator.md, and the kit's refusals before anything is sent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CellInput, hexFrom } from "@ckb-ccc/core";
import {
  Mmr,
  MmrLockError,
  accumulatorData,
  accumulatorTypeScript,
  accumulatorWitness,
  appendPayload,
  byReferenceArgs,
  byReferenceLockScript,
  commitmentAt,
  createAccumulatorTx,
  createPayload,
  extendPayload,
  ancestryProof,
  keepPayload,
  lockByReferenceTx,
  merge,
  parseAccumulatorData,
  parseByReferenceArgs,
  spendByReferenceTx,
  typeIdOf,
  type AccumulatorCode,
  type Verifier,
} from "../src/index.js";
import { refused } from "./helpers.js";
import { NOWHERE, offline } from "./offline.js";
import { REPO, jsonLines, vectorLeaves } from "./repo.js";

interface TypeIdVector {
  kind: "type_id";
  since: string;
  tx_hash: string;
  index: number;
  output_index: number;
  cell_input: string;
  type_id: string;
  code_hash: string;
  hash_type: "data2";
  type_hash: string;
  args_plain: string;
  args_owner: string;
}

interface CreateVector {
  kind: "create";
  leaf_seed: string;
  leaves: number;
  data: string;
  payload: string;
  witness: string;
}

interface PairVector {
  kind: "pair";
  leaf_seed: string;
  old_leaves: number;
  new_leaves: number;
  old_data: string;
  new_data: string;
  append_witness: string;
  extend_payload: string;
  extend_witness: string;
  type_hash: string;
  args_plain: string;
  args_owner: string;
}

type AccVector = TypeIdVector | CreateVector | PairVector;

const ACC_ARGS = ["--seed", "20261124", "--pairs", "1000", "--small", "40"];
const all = jsonLines<AccVector>(["acc-vectors", ...ACC_ARGS]);
const ofKind = <K extends AccVector["kind"]>(kind: K) => all.filter((v): v is Extract<AccVector, { kind: K }> => v.kind === kind);

const isPow2 = (x: number) => x > 0 && (x & (x - 1)) === 0;

test("acc-vectors: 1,000 random (old, new) pairs and every pair below 41 leaves: data, APPEND and EXTEND witnesses, by-reference args equal Rust's", () => {
  const pairs = ofKind("pair");
  assert.equal(pairs.length, 1000 + (40 * 39) / 2);
  let leaves = 0;
  for (const [k, v] of pairs.entries()) {
    const label = `pair ${k} (${v.old_leaves} -> ${v.new_leaves}, leaf_seed ${v.leaf_seed})`;
    const mmr = Mmr.from(vectorLeaves(v.leaf_seed, v.new_leaves, merge));
    const n = v.old_leaves;
    assert.equal(hexFrom(accumulatorData(commitmentAt(mmr, n))), v.old_data, `${label}: old data`);
    assert.equal(hexFrom(accumulatorData(commitmentAt(mmr))), v.new_data, `${label}: new data`);
    assert.equal(hexFrom(accumulatorWitness(appendPayload(mmr, n), false)), v.append_witness, `${label}: APPEND witness`);
    const extend = extendPayload(mmr, n);
    assert.equal(hexFrom(extend), v.extend_payload, `${label}: EXTEND payload`);
    assert.equal(hexFrom(accumulatorWitness(extend, false)), v.extend_witness, `${label}: EXTEND witness`);
    assert.equal(hexFrom(byReferenceArgs(v.type_hash)), v.args_plain, `${label}: plain args`);
    assert.equal(hexFrom(byReferenceArgs(v.type_hash, "owner")), v.args_owner, `${label}: owner args`);
    leaves += v.new_leaves;
  }
  // The generator covers what it claims: the edges and large appends.
  const random = pairs.slice(pairs.length - 1000);
  assert.ok(random.some((v) => v.new_leaves === v.old_leaves + 1));
  assert.ok(random.some((v) => isPow2(v.old_leaves) && v.old_leaves >= 1024));
  assert.ok(random.some((v) => isPow2(v.old_leaves + 1) && v.old_leaves >= 1023));
  assert.ok(random.some((v) => isPow2(v.new_leaves) && v.new_leaves >= 2048));
  assert.ok(random.some((v) => isPow2(v.new_leaves + 1) && v.new_leaves >= 2047));
  assert.ok(random.some((v) => v.new_leaves - v.old_leaves > 2000));
  assert.ok(random.every((v) => v.old_leaves >= 1 && v.new_leaves > v.old_leaves));
  assert.ok(leaves > 1_000_000, `${leaves} leaves`);
});

test("acc-vectors: CREATE payloads, witnesses and data of 1 to 300 leaves equal Rust's", () => {
  const creates = ofKind("create");
  assert.equal(creates.length, 24);
  for (const v of creates) {
    const leaves = vectorLeaves(v.leaf_seed, v.leaves, merge);
    const mmr = Mmr.from(leaves);
    assert.equal(hexFrom(createPayload(leaves)), v.payload, `${v.leaves} leaves: payload`);
    assert.equal(hexFrom(createPayload(mmr)), v.payload, `${v.leaves} leaves: payload from the MMR`);
    assert.equal(hexFrom(accumulatorWitness(v.payload, true)), v.witness, `${v.leaves} leaves: witness`);
    assert.equal(hexFrom(accumulatorData(commitmentAt(mmr))), v.data, `${v.leaves} leaves: data`);
  }
  assert.deepEqual(creates.slice(0, 12).map((v) => v.leaves), [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 255, 256]);
});

test("acc-vectors: type ids (first input's CellInput, output index), the type script's hash and by-reference args equal Rust's", () => {
  const ids = ofKind("type_id");
  assert.equal(ids.length, 32);
  for (const v of ids) {
    const input = { previousOutput: { txHash: v.tx_hash, index: v.index }, since: BigInt(v.since) };
    assert.equal(hexFrom(CellInput.from(input).toBytes()), v.cell_input);
    assert.equal(hexFrom(typeIdOf(input, v.output_index)), v.type_id);
    const code: AccumulatorCode = { outPoint: { txHash: v.tx_hash, index: 0 }, codeHash: v.code_hash, hashType: v.hash_type };
    const script = accumulatorTypeScript(code, v.type_id);
    assert.equal(script.hash(), v.type_hash);
    assert.equal(hexFrom(byReferenceArgs(script.hash())), v.args_plain);
    assert.equal(hexFrom(byReferenceArgs(script.hash(), "owner")), v.args_owner);
    const parsed = parseByReferenceArgs(v.args_owner);
    assert.equal(hexFrom(parsed.typeHash), v.type_hash);
    assert.equal(parsed.mode, "owner");
  }
  // The extremes: since 0 / u64::MAX, index 0 / u32::MAX.
  assert.equal(ids[1].since, BigInt("0xc0ffffffffffffff").toString());
  assert.equal(ids[1].index, 0xffffffff);
});

// The hex of the first code block after `after` in docs/accumulator.md whose lines are all hex.
function docHex(after: string): string {
  const text = readFileSync(path.join(REPO, "docs", "accumulator.md"), "utf8");
  const start = text.indexOf(after);
  assert.ok(start >= 0, `docs/accumulator.md has ${JSON.stringify(after)}`);
  const blocks = text.slice(start).split("```").filter((_, i) => i % 2 === 1);
  const hex = blocks.find((b) => b.trim().split("\n").every((l) => /^[0-9a-f]+$/.test(l.trim())));
  assert.ok(hex, `a hex block after ${after}`);
  return "0x" + hex.replace(/\s+/g, "");
}

test("the worked examples of docs/accumulator.md: APPEND 2 leaves to 3, EXTEND 3 leaves to 7", () => {
  const mmr = Mmr.from([1, 2, 3, 4, 5, 6, 7].map((i) => new Uint8Array(32).fill(0x11 * i)));
  assert.equal(hexFrom(appendPayload(mmr, 3, 5)), docHex("The `APPEND` payload (133 bytes):"));
  assert.equal(hexFrom(extendPayload(mmr, 3, 7)), docHex("### Worked example: 3 leaves to 7"));
  assert.equal(hexFrom(commitmentAt(mmr, 3).root), "0x83e7173dfd83ae4401623725d470e6ceb0241ef75f92382b7872e6cfec73c7b6");
  assert.equal(hexFrom(accumulatorData(commitmentAt(mmr, 5))), "0x723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b0800000000000000");
  assert.equal(hexFrom(keepPayload()), "0x05");
  // 3 -> 5 has the same shape as 3 -> 7 (4 items) with tail L4.
  assert.equal(ancestryProof(mmr, 3, 5).length, 128);
  assert.equal(hexFrom(ancestryProof(mmr, 3, 5).slice(96)), hexFrom(mmr.leaf(4)));
});

test("builders refuse sizes that are no growth, data and args of the wrong shape", () => {
  const mmr = Mmr.from([1, 2, 3, 4, 5].map((i) => new Uint8Array(32).fill(i)));
  refused(() => appendPayload(mmr, 5), "NOTHING_TO_ADD", /both sizes hold 5 leaves/);
  refused(() => extendPayload(mmr, 4, 2), "NOT_EXTENDING", /2 leaves is fewer than the 4/);
  refused(() => extendPayload(mmr, 2, 6), "NOT_EXTENDING", /6 leaves asked of an MMR that holds 5/);
  refused(() => appendPayload(mmr, 0), "EMPTY", /at least one leaf/);
  refused(() => createPayload([]), "EMPTY", /at least one leaf/);
  refused(() => createPayload([new Uint8Array(31)]), "BAD_LENGTH", /leaf 0 must be 32 bytes/);
  refused(() => commitmentAt(mmr, 6), "NOT_EXTENDING", /holds 5/);
  refused(() => parseAccumulatorData(new Uint8Array(41)), "BAD_ACCUMULATOR_DATA", /40 bytes .* got 41/);
  refused(() => parseAccumulatorData(new Uint8Array(40).fill(0xff, 32)), "MMR_SIZE_INVALID", /between 1 and 2\^50/);
  refused(() => accumulatorData({ root: new Uint8Array(32), mmrSize: 6 }), "MMR_SIZE_INVALID", /not the size of any MMR/);
  refused(() => byReferenceArgs(new Uint8Array(31)), "BAD_LENGTH", /type hash must be 32 bytes/);
  refused(() => parseByReferenceArgs(new Uint8Array(40)), "BAD_ARGS", /got 40 bytes/);
  refused(() => parseByReferenceArgs(new Uint8Array(33).fill(1, 32)), "BAD_ARGS", /ending in 0x01/);
  const code: AccumulatorCode = { ...NOWHERE, hashType: "data" as "data2" };
  refused(() => accumulatorTypeScript(code, new Uint8Array(32)), "BAD_ARGS", /VM version 0/);
  assert.deepEqual(parseAccumulatorData(accumulatorData(commitmentAt(mmr))), { ...commitmentAt(mmr), leafCount: 5 });
});

test("transactions refuse before any RPC: a witness above the lock's 32 KiB, a low capacity, hash_type data, bad indexes", async () => {
  await offline(async (signer, requests) => {
    const code: AccumulatorCode = NOWHERE;
    const verifier: Verifier = { ...code, format: "compiled" };
    // The signer's secp256k1 lock reads the same witness, 32,768 bytes at most: 1,021 leaves
    // fit a CREATE (94 + 32 k bytes with the signature), 1,022 do not (ckb-devnet's limit too).
    const big = Mmr.from(vectorLeaves("7", 1022, merge));
    await assert.rejects(createAccumulatorTx(signer, code, { leaves: big }), (e: unknown) => {
      assert.ok(e instanceof MmrLockError && e.code === "WITNESS_TOO_LARGE", String(e));
      assert.match(e.message, /32798 bytes, above the secp256k1 lock's 32768/);
      return true;
    });
    await assert.rejects(createAccumulatorTx(signer, code, { leaves: big, leafCount: 1021 }), (e: unknown) => {
      assert.ok(!(e instanceof MmrLockError && e.code === "WITNESS_TOO_LARGE"), String(e));
      return true;
    });
    // That one passed the check and went on to ask the node for cells.
    assert.ok(requests.length > 0);
    requests.length = 0;
    const typeHash = "0x" + "44".repeat(32);
    await assert.rejects(lockByReferenceTx(signer, verifier, { accumulator: { typeHash }, capacity: 73n * 100_000_000n }), /below the cell's occupied capacity 7400000000/);
    await assert.rejects(lockByReferenceTx(signer, { ...verifier, hashType: "data" as "data2" }, { accumulator: { typeHash } }), /VM version 0/);
    assert.throws(() => byReferenceLockScript(verifier, new Uint8Array(41)), /got 41 bytes/);
    const cell = { txHash: "0x" + "55".repeat(32), index: 0 };
    await assert.rejects(
      spendByReferenceTx(signer, verifier, { cell, code, typeId: typeHash, proof: { mmr: big, indexes: [3, 3] } }),
      (e: unknown) => e instanceof MmrLockError && e.code === "INDEXES_NOT_ASCENDING",
    );
    assert.deepEqual(requests, [], "a refused input must not reach the node");
    // Valid inputs do try the node, so the checks above can fail.
    await assert.rejects(createAccumulatorTx(signer, code, { leaves: big, leafCount: 100 }));
    assert.ok(requests.length > 0);
  });
});
