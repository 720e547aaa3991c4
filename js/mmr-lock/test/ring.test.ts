// The ring's bytes and transaction shapes, offline: the data layout against a hand encoding,
// and every unfunded transaction (creation, APPEND/EXTEND, KEEP) through a model of the type
// script's ring rules written from docs/accumulator.md section 7 (shape, roles, the
// ring rules, the tag's fit, where the payload goes), with mutations the model must refuse.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Cell, Script, WitnessArgs, bytesFrom, hexFrom, type Transaction } from "@ckb-ccc/core";
import * as kit from "../src/index.js";
import { refused } from "./helpers.js";
import { NOWHERE, offline } from "./offline.js";

const code: kit.AccumulatorCode = NOWHERE;
const TYPE_ID = "0x" + "5a".repeat(32);
const admin = Script.from({ codeHash: "0x" + "01".repeat(32), hashType: "type", args: "0x" + "02".repeat(20) });
const other = Script.from({ codeHash: "0x" + "01".repeat(32), hashType: "type", args: "0x" + "03".repeat(20) });
const leaf = (i: number) => new Uint8Array(32).fill(i + 1);
const mmrOf = (n: number) => kit.Mmr.from(Array.from({ length: n }, (_, i) => leaf(i)));

/** u64 little endian, written independently of the kit. */
function u64(x: number): string {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(x), true);
  return hexFrom(b).slice(2);
}

test("args: type id || K, K in 2..=32", () => {
  assert.equal(hexFrom(kit.ringArgs(TYPE_ID, 8)), TYPE_ID + "08");
  assert.deepEqual(kit.parseRingArgs(TYPE_ID + "20").k, 32);
  assert.equal(hexFrom(kit.parseRingArgs(TYPE_ID + "02").typeId), TYPE_ID);
  for (const k of [0, 1, 33, 2.5]) refused(() => kit.ringArgs(TYPE_ID, k), "BAD_ARGS", new RegExp(`K is an integer in 2\\.\\.=32 .*-100.* got ${k}`));
  refused(() => kit.parseRingArgs(TYPE_ID + "21"), "BAD_ARGS", /got 33/);
  refused(() => kit.parseRingArgs(TYPE_ID), "BAD_ARGS", /33 bytes .* got 32/);
  assert.deepEqual([2, 8, 32].map(kit.ringHeadLength), [48, 96, 288]);
});

test("data: head = root || mmr_size || older (u64 LE, oldest first); snapshots = the head's first 40 bytes", () => {
  const a = kit.commitmentAt(mmrOf(5));
  const head = kit.ringHeadData(a, [1, 4, 8]);
  assert.equal(hexFrom(head), hexFrom(a.root) + u64(8) + u64(1) + u64(4) + u64(8));
  const back = kit.parseRingHead(head, 4);
  assert.deepEqual([back.mmrSize, back.leafCount, back.older], [8, 5, [1, 4, 8]]);
  refused(() => kit.parseRingHead(head, 3), "BAD_ACCUMULATOR_DATA", /K = 3 is 56 bytes .* got 64/);
  refused(() => kit.ringHeadData(a, [1, 5]), "MMR_SIZE_INVALID", /5/);
  refused(() => kit.ringHeadData(a, []), "BAD_ARGS", /got 1/);

  const created = kit.ringCreationData(a, 3);
  assert.equal(hexFrom(created.head), hexFrom(a.root) + u64(8) + u64(8) + u64(8));
  assert.equal(hexFrom(created.snapshot), hexFrom(created.head.slice(0, 40)));

  const b = kit.commitmentAt(mmrOf(9));
  const step = kit.ringStepData({ ...a, older: [1, 4] }, b);
  assert.equal(hexFrom(step.head), hexFrom(b.root) + u64(16) + u64(4) + u64(8));
  assert.equal(hexFrom(step.snapshot), hexFrom(step.head.slice(0, 40)));
  assert.equal(hexFrom(kit.importPayload()), "0x02");
});

// ---------------------------------------------------------------------------------------------
// A model of the type script's ring rules (rules 1, 3, 4, 5's fit and the payload's place),
// from the spec's text; it shares nothing with src/ring.ts but CCC's types.

interface GroupCell {
  data: Uint8Array;
  lock: string;
}

const sizeOf = (d: Uint8Array) => Number(new DataView(d.buffer, d.byteOffset).getBigUint64(32, true));
const olderOf = (d: Uint8Array) => Array.from({ length: (d.length - 40) / 8 }, (_, i) => Number(new DataView(d.buffer, d.byteOffset).getBigUint64(40 + 8 * i, true)));
const same = (x: Uint8Array, y: Uint8Array) => hexFrom(x) === hexFrom(y);

function model(k: number, ins: GroupCell[], outs: GroupCell[], payload: Uint8Array): number {
  const headLen = 40 + 8 * (k - 1);
  const [i, o] = [ins.length, outs.length];
  const shape = i === 0 && o === k + 1 ? "create" : i === 2 && o === 2 ? "step" : i === k + 1 && o === k + 1 ? "keep" : undefined;
  if (shape === undefined) return i >= 1 && o === 0 ? 122 : kit.RING_EXIT_CODES.RingShape;
  const headOf = (side: GroupCell[]) => {
    if (side.some((c) => c.data.length !== 40 && c.data.length !== headLen)) return -1;
    const heads = side.flatMap((c, n) => (c.data.length === headLen ? [n] : []));
    return heads.length === 1 ? heads[0] : -1;
  };
  const hi = i > 0 ? headOf(ins) : 0;
  const ho = headOf(outs);
  if (hi < 0 || ho < 0) return kit.RING_EXIT_CODES.RingRoles;
  const H = outs[ho];
  if (shape === "step") {
    const [hIn, sIn, sOut] = [ins[hi], ins[1 - hi], outs[1 - ho]];
    if (sizeOf(sIn.data) !== olderOf(hIn.data)[0]) return kit.RING_EXIT_CODES.RingNotOldest;
    if (olderOf(H.data).join() !== [...olderOf(hIn.data).slice(1), sizeOf(hIn.data)].join()) return kit.RING_EXIT_CODES.RingSizesMismatch;
    if (!same(sOut.data, H.data.slice(0, 40))) return kit.RING_EXIT_CODES.SnapshotMismatch;
    if (!(H.lock === hIn.lock && H.lock === sOut.lock)) return kit.RING_EXIT_CODES.RingLockMismatch;
  } else if (shape === "create") {
    if (olderOf(H.data).some((s) => s !== sizeOf(H.data))) return kit.RING_EXIT_CODES.RingSizesMismatch;
    if (outs.some((c, n) => n !== ho && !same(c.data, H.data.slice(0, 40)))) return kit.RING_EXIT_CODES.SnapshotMismatch;
    if (outs.some((c) => c.lock !== H.lock)) return kit.RING_EXIT_CODES.RingLockMismatch;
  } else {
    if (outs.some((c, n) => !same(c.data, ins[n].data))) return kit.RING_EXIT_CODES.SnapshotMismatch;
    if (outs.some((c) => c.lock !== H.lock)) return kit.RING_EXIT_CODES.RingLockMismatch;
  }
  const fits = { create: [kit.AccTag.CREATE, kit.AccTag.IMPORT], step: [kit.AccTag.APPEND, kit.AccTag.EXTEND], keep: [kit.AccTag.KEEP] }[shape] as number[];
  if (payload.length === 0 || !fits.includes(payload[0])) return payload.length > 0 && payload[0] > 5 ? 114 : kit.RING_EXIT_CODES.RingShape;
  return 0;
}

/** The ring's group of `tx` (the inputs resolved from `live`) and the payload where the type
 * script reads it: `output_type` at the head output's index on creation, `input_type` at the
 * head input's index otherwise. */
function group(ring: Pick<kit.Ring, "typeScript" | "k">, tx: Transaction, live: Cell[]): { ins: GroupCell[]; outs: GroupCell[]; payload: Uint8Array } {
  const typeHash = ring.typeScript.hash();
  const headLen = 40 + 8 * (ring.k - 1);
  const inputs = tx.inputs.map((input, index) => ({ index, cell: live.find((c) => c.outPoint.eq(input.previousOutput)) }));
  const ins = inputs.filter((x) => x.cell?.cellOutput.type?.hash() === typeHash);
  const outs = tx.outputs.flatMap((o, index) => (o.type?.hash() === typeHash ? [{ index, data: bytesFrom(tx.outputsData[index]), lock: o.lock.hash() }] : []));
  let payload: Uint8Array = new Uint8Array(0);
  if (ins.length === 0) {
    const head = outs.find((c) => c.data.length === headLen);
    const w = head && witnessAt(tx, head.index);
    payload = w?.outputType ? bytesFrom(w.outputType) : payload;
  } else {
    const head = ins.find((x) => bytesFrom(x.cell!.outputData).length === headLen);
    const w = head && witnessAt(tx, head.index);
    payload = w?.inputType ? bytesFrom(w.inputType) : payload;
  }
  return {
    ins: ins.map((x) => ({ data: bytesFrom(x.cell!.outputData), lock: x.cell!.cellOutput.lock.hash() })),
    outs: outs.map(({ data, lock }) => ({ data, lock })),
    payload,
  };
}

const witnessAt = (tx: Transaction, index: number) => {
  const bytes = tx.witnesses[index];
  return bytes === undefined || bytes === "0x" ? undefined : WitnessArgs.fromBytes(bytes);
};

const modelOf = (ring: Pick<kit.Ring, "typeScript" | "k">, tx: Transaction, live: Cell[]) => {
  const g = group(ring, tx, live);
  return model(ring.k, g.ins, g.outs, g.payload);
};

/** A copy of `tx` with `change` made to it. */
const mutated = (tx: Transaction, change: (copy: Transaction) => void) => {
  const copy = tx.clone();
  change(copy);
  return copy;
};

/** A ring of `k` created (unfunded, with the witness at index 0) from the first `n` leaves of
 * `mmr`: its creation transaction and the ring its outputs make. */
function created(k: number, mmr: kit.Mmr, n: number) {
  const tx = kit.unfundedRingCreation(code, k, admin, kit.commitmentAt(mmr, n), TYPE_ID);
  tx.setWitnessArgsAt(0, WitnessArgs.from({ outputType: kit.createPayload(mmr, n) }));
  const txHash = tx.hash();
  const cells = tx.outputs.map((cellOutput, index) => Cell.from({ outPoint: { txHash, index }, cellOutput, outputData: tx.outputsData[index] }));
  return { tx, ring: kit.ringFromCells(tx.outputs[0].type!, cells) };
}

const liveCells = (ring: kit.Ring) => [ring.head.cell, ...ring.snapshots.map((s) => s.cell)];

test("creation: K + 1 outputs under one type script, the head first with the payload at its index", () => {
  const mmr = mmrOf(40);
  for (const k of [2, 3, 8]) {
    const { tx, ring } = created(k, mmr, 3);
    assert.equal(tx.outputs.length, k + 1);
    assert.ok(tx.outputs.every((o) => o.type?.eq(tx.outputs[0].type!) && o.lock.eq(admin)));
    assert.equal(hexFrom(tx.outputs[0].type!.args), TYPE_ID + k.toString(16).padStart(2, "0"));
    assert.deepEqual(tx.outputsData.map((d) => bytesFrom(d).length), [kit.ringHeadLength(k), ...Array(k).fill(40)]);
    // Occupied capacities: 8 + lock 53 + type 66 + data.
    assert.equal(tx.outputs[0].capacity, BigInt(8 + 53 + 66 + kit.ringHeadLength(k)) * 100_000_000n);
    assert.ok(tx.outputs.slice(1).every((o) => o.capacity === 167n * 100_000_000n));
    assert.equal(modelOf(ring, tx, []), 0, `K = ${k}`);
    assert.deepEqual([ring.k, ring.head.mmrSize, ring.head.older], [k, 4, Array(k - 1).fill(4)]);
  }
  const k8 = created(8, mmr, 3).tx;
  assert.equal(k8.outputs.reduce((s, o) => s + o.capacity, 0n), 1559n * 100_000_000n, "1,559 CKB at K = 8, as the spec says");
  // The model can refuse: the payload on another witness, a snapshot changed, a lock changed.
  const { tx, ring } = created(3, mmr, 3);
  const moved = mutated(tx, (t) => (t.witnesses = ["0x", t.witnesses[0]]));
  assert.equal(modelOf(ring, moved, []), kit.RING_EXIT_CODES.RingShape, "no payload at the head's index");
  const other4 = hexFrom(kit.ringCreationData(kit.commitmentAt(mmr, 4), 3).snapshot);
  const forged = mutated(tx, (t) => (t.outputsData[2] = other4));
  assert.equal(modelOf(ring, forged, []), kit.RING_EXIT_CODES.SnapshotMismatch);
  const foreign = mutated(tx, (t) => (t.outputs[3].lock = other));
  assert.equal(modelOf(ring, foreign, []), kit.RING_EXIT_CODES.RingLockMismatch);
  const short = mutated(tx, (t) => t.outputs.pop());
  assert.equal(modelOf(ring, short, []), kit.RING_EXIT_CODES.RingShape);
});

test("APPEND/EXTEND through 7 steps at K = 3: head and oldest snapshot in, the window holds the last K states", () => {
  const mmr = mmrOf(40);
  let { ring } = created(3, mmr, 2);
  const states: kit.Commitment[] = [kit.commitmentAt(mmr, 2)];
  const sizes = [3, 4, 7, 8, 15, 16, 31];
  sizes.forEach((n, step) => {
    const extend = step % 2 === 1;
    const payload = extend ? kit.extendPayload(mmr, ring.head.leafCount, n) : kit.appendPayload(mmr, ring.head.leafCount, n);
    const tx = kit.unfundedRingStep(ring, code, kit.commitmentAt(mmr, n), payload);
    const oldest = kit.oldestSnapshot(ring);
    assert.ok(tx.inputs[0].previousOutput.eq(ring.head.cell.outPoint), "input 0 is the head");
    assert.ok(tx.inputs[1].previousOutput.eq(oldest.cell.outPoint), "input 1 the snapshot of size older[0]");
    assert.equal(oldest.mmrSize, ring.head.older[0]);
    assert.equal(WitnessArgs.fromBytes(tx.witnesses[0]).inputType, hexFrom(payload));
    assert.equal(modelOf(ring, tx, liveCells(ring)), 0, `step ${step}`);

    // Mutations the model refuses (so the check above can fail): another snapshot consumed,
    // the new size shifted in instead of the old, a lock changed, a tag that does not fit.
    const newer = ring.snapshots.find((s) => s.mmrSize !== ring.head.older[0]);
    if (newer) {
      const wrong = mutated(tx, (t) => (t.inputs[1].previousOutput = newer.cell.outPoint));
      assert.equal(modelOf(ring, wrong, liveCells(ring)), kit.RING_EXIT_CODES.RingNotOldest);
    }
    const misShifted = tx.clone();
    misShifted.outputsData[0] = hexFrom(kit.ringHeadData(kit.commitmentAt(mmr, n), [...ring.head.older.slice(1), kit.commitmentAt(mmr, n).mmrSize]));
    assert.equal(modelOf(ring, misShifted, liveCells(ring)), kit.RING_EXIT_CODES.RingSizesMismatch);
    const locked = mutated(tx, (t) => (t.outputs[1].lock = other));
    assert.equal(modelOf(ring, locked, liveCells(ring)), kit.RING_EXIT_CODES.RingLockMismatch);
    const keep = WitnessArgs.from({ inputType: kit.keepPayload() });
    const keepTag = mutated(tx, (t) => t.setWitnessArgsAt(0, keep));
    assert.equal(modelOf(ring, keepTag, liveCells(ring)), kit.RING_EXIT_CODES.RingShape);

    ring = kit.ringAfter(ring, tx);
    states.push(kit.commitmentAt(mmr, n));
    // The live snapshots are the last K states (while fewer were made, the first repeated);
    // the newest is the head's.
    const key = (s: kit.Commitment) => `${s.mmrSize}:${hexFrom(s.root)}`;
    const live = ring.snapshots.map(key).sort();
    if (states.length >= 3) assert.deepEqual(live, states.slice(-3).map(key).sort());
    else assert.deepEqual([...new Set(live)], states.map(key).sort());
    assert.equal(kit.newestSnapshot(ring).mmrSize, kit.commitmentAt(mmr, n).mmrSize);
    assert.equal(ring.head.mmrSize, kit.commitmentAt(mmr, n).mmrSize);
  });
  // After 7 steps at K = 3 the window is the last three states exactly.
  assert.deepEqual(ring.snapshots.map((s) => s.leafCount).sort((a, b) => a - b), [15, 16, 31]);
  assert.deepEqual(ring.head.older, [kit.commitmentAt(mmr, 15).mmrSize, kit.commitmentAt(mmr, 16).mmrSize]);
});

test("KEEP: the whole ring in and out, data unchanged, under the new lock; payload 0x05 at the head input", () => {
  const mmr = mmrOf(9);
  let { ring } = created(4, mmr, 2);
  ring = kit.ringAfter(ring, kit.unfundedRingStep(ring, code, kit.commitmentAt(mmr, 9), kit.appendPayload(mmr, 2, 9)));
  const tx = kit.unfundedRingKeep(ring, code, other);
  assert.equal(tx.inputs.length, 5);
  assert.ok(tx.inputs[0].previousOutput.eq(ring.head.cell.outPoint));
  assert.ok(tx.outputs.every((o) => o.lock.eq(other)));
  assert.equal(WitnessArgs.fromBytes(tx.witnesses[0]).inputType, "0x05");
  assert.equal(modelOf(ring, tx, liveCells(ring)), 0);
  const after = kit.ringAfter(ring, tx);
  assert.equal(hexFrom(after.head.root), hexFrom(ring.head.root));
  assert.ok(after.head.cell.cellOutput.lock.eq(other));
  const changed = tx.clone();
  changed.outputsData[2] = changed.outputsData[1] === changed.outputsData[2] ? hexFrom(kit.ringCreationData(kit.commitmentAt(mmr, 3), 4).snapshot) : changed.outputsData[1];
  assert.equal(modelOf(ring, changed, liveCells(ring)), kit.RING_EXIT_CODES.SnapshotMismatch);
  const part = mutated(tx, (t) => [t.inputs, t.outputs, t.outputsData].forEach((l) => l.pop()));
  assert.equal(modelOf(ring, part, liveCells(ring)), kit.RING_EXIT_CODES.RingShape, "K -> K is no shape");
  refused(() => kit.unfundedRingKeep(ring, code, Script.from({ ...other, args: "0x" + "04".repeat(2000) })), "BAD_ARGS", /below its occupied capacity/);
});

test("reading a ring: one head and K snapshots whose sizes are older and the head's, else refused", () => {
  const mmr = mmrOf(9);
  const { tx, ring } = created(3, mmr, 5);
  const cells = liveCells(ring);
  assert.equal(kit.ringFromCells(ring.typeScript, [...cells].reverse()).head.cell.outPoint.index, 0n);
  refused(() => kit.ringFromCells(ring.typeScript, []), "ACCUMULATOR_NOT_FOUND", /no live cell of the ring/);
  refused(() => kit.ringFromCells(ring.typeScript, cells.slice(0, 3)), "BAD_ACCUMULATOR_DATA", /3 live cells of which 1/);
  refused(() => kit.ringFromCells(ring.typeScript, [cells[0], cells[0], cells[1], cells[2]]), "BAD_ACCUMULATOR_DATA", /of which 2 not 40/);
  const odd = Cell.from({ ...cells[3], outputData: kit.ringCreationData(kit.commitmentAt(mmr, 6), 3).snapshot });
  refused(() => kit.ringFromCells(ring.typeScript, [...cells.slice(0, 3), odd]), "BAD_ACCUMULATOR_DATA", /sizes \[8, 8, 10\] are not/);
  // Ties right after creation: the appender consumes the first snapshot, the spender takes
  // the last, in output order whatever order the cells are listed in.
  for (const listed of [cells, [...cells].reverse()]) {
    const read = kit.ringFromCells(ring.typeScript, listed);
    assert.equal(kit.oldestSnapshot(read).cell.outPoint.index, 1n, "ties: the appender's is the first");
    assert.equal(kit.newestSnapshot(read).cell.outPoint.index, 3n, "ties: the spender's is the last");
  }
  assert.equal(tx.outputs.length, 4);
});

test("a refusal names the snapshot: Dead or Unknown of its out point only", () => {
  const { ring } = created(3, mmrOf(3), 3);
  const s = ring.snapshots[1];
  const point = hexFrom(s.cell.outPoint.toBytes());
  assert.equal(point.length, 2 + 2 * 36);
  assert.ok(kit.namesConsumedSnapshot(`TransactionFailedToResolve: Resolve failed Dead(OutPoint(${point}))`, s));
  assert.ok(kit.namesConsumedSnapshot(`Resolve failed Unknown(OutPoint(${point}))`, s));
  assert.ok(!kit.namesConsumedSnapshot(`Resolve failed Dead(OutPoint(${hexFrom(ring.snapshots[0].cell.outPoint.toBytes())}))`, s));
});

test("createRingTx refuses a bad K or an ambiguous creation before any request", async () => {
  await offline(async (signer, requests) => {
    await assert.rejects(kit.createRingTx(signer, code, { leaves: [leaf(0)], k: 33 }), /K is an integer in 2\.\.=32/);
    await assert.rejects(kit.createRingTx(signer, code, { leaves: [leaf(0)], import: { root: leaf(0), mmrSize: 1 } }), /give exactly one/);
    await assert.rejects(kit.createRingTx(signer, code, { import: { root: leaf(0), mmrSize: 2 } }), /MMR_SIZE_INVALID|not the size/);
    assert.deepEqual(requests, []);
  });
});

test("spendByReferenceRingTx proves against the newest snapshot, from an MMR or a store; refusals before any request", async () => {
  const mmr = mmrOf(12);
  let { ring } = created(3, mmr, 5);
  ring = kit.ringAfter(ring, kit.unfundedRingStep(ring, code, kit.commitmentAt(mmr, 9), kit.appendPayload(mmr, 5, 9)));
  assert.equal(kit.newestSnapshot(ring).leafCount, 9);
  const verifier = { ...NOWHERE, format: "compiled" as const };
  const cell = { txHash: "0x" + "44".repeat(32), index: 0 };
  const base = { cell, code, typeId: TYPE_ID, k: 3, ring };
  const store = await kit.MmrStore.create(kit.memoryStorage(undefined, { writer: true }));
  await store.append(Array.from({ length: 7 }, (_, i) => leaf(i)));
  const other = await kit.MmrStore.create(kit.memoryStorage(undefined, { writer: true }));
  await other.append(Array.from({ length: 12 }, (_, i) => leaf(i + 50)));
  await offline(async (signer, requests) => {
    // Index 9 is past the newest snapshot's 9 leaves; a store behind it; a store of other leaves.
    await assert.rejects(kit.spendByReferenceRingTx(signer, verifier, { ...base, proof: { mmr, indexes: [9] } }), /the MMR has 9 leaves/);
    await assert.rejects(kit.spendByReferenceRingTx(signer, verifier, { ...base, proof: { store, indexes: [1] } }), (e: unknown) => e instanceof kit.MmrLockError && e.code === "BEYOND_STORE");
    await assert.rejects(kit.spendByReferenceRingTx(signer, verifier, { ...base, proof: { store: other, indexes: [1] } }), /the store's root at mmr_size 16 is .* not the chain's leaves/);
    await assert.rejects(kit.spendByReferenceRingTx(signer, verifier, { ...base, proof: { mmr: kit.Mmr.from([leaf(99)]), indexes: [0] } }), /NOT_EXTENDING|holds 1 leaves/);
    assert.deepEqual(requests, [], "refused before any request");
    // Right proofs reach the node (so the refusals above can be told apart).
    await store.append(Array.from({ length: 5 }, (_, i) => leaf(7 + i)));
    for (const proof of [{ mmr, indexes: [8] }, { store, indexes: [8] }]) {
      const before = requests.length;
      await assert.rejects(kit.spendByReferenceRingTx(signer, verifier, { ...base, proof }), /no network/);
      assert.ok(requests.length > before);
    }
  });
});
