// The accumulator ring (docs/accumulator.md, section 7) from TypeScript: a head and K
// snapshot cells under one accumulator type script with 33-byte args `type_id || K`. The
// by-reference locks accept a snapshot as the accumulator (40 bytes of data under the ring's
// type hash), so a spend proved against a snapshot stays valid for K - 1 appends after it was
// read, instead of none. Pure builders of the data and args, the unfunded transactions of
// creation, APPEND/EXTEND and KEEP, and on CCC: creating, reading, growing and handing over a
// ring, and spending by reference against its newest snapshot, rebuilt when a refused send
// names a consumed snapshot.

import {
  Cell,
  CellDep,
  CellOutput,
  OutPoint,
  Script,
  Transaction,
  bytesFrom,
  hexFrom,
  type BytesLike,
  type Client,
  type Hex,
  type NumLike,
  type OutPointLike,
  type ScriptLike,
  type Signer,
} from "@ckb-ccc/core";
import {
  AccTag,
  accumulatorCodeDep,
  accumulatorData,
  accumulatorWitnessArgs,
  appendPayload,
  checkExtends,
  checkHolder,
  checkWitnessSize,
  exactOutput,
  commitmentAt,
  createPayload,
  extendPayload,
  keepPayload,
  occupied,
  parseAccumulatorData,
  proofAgainst,
  typeIdOf,
  unfundedUpdate,
  type AccumulatorCode,
  type Commitment,
} from "./accumulator.js";
import { DEFAULT_FEE_RATE, refuseDataHashType, scriptFailure, sender, spendTx, type Verifier } from "./chain.js";
import { MmrLockError } from "./errors.js";
import { Mmr, bytes32, checkIndexes, type MmrProof } from "./mmr.js";
import { leafCountOf, readU64, writeU64 } from "./positions.js";
import type { MmrStore } from "./store.js";

/** The smallest and largest K a ring's args may hold (the type script exits -100 otherwise). */
export const RING_MIN_K = 2;
export const RING_MAX_K = 32;
/** The K the tools choose: 4 block intervals of margin with 3 appends in flight. */
export const RING_DEFAULT_K = 8;

/** The ring's exit codes, returned by the accumulator type script only (negative: its range
 * 100..=127 is full). Seen from a spend, a consumed snapshot is the node's -301 instead. */
export const RING_EXIT_CODES = {
  RingArgs: -100,
  RingShape: -101,
  RingRoles: -102,
  RingNotOldest: -103,
  SnapshotMismatch: -104,
  RingSizesMismatch: -105,
  RingLockMismatch: -106,
} as const;

/** The node's code for a transaction whose inputs or deps do not resolve (Dead, Unknown). */
export const TRANSACTION_FAILED_TO_RESOLVE = -301;

// ---------------------------------------------------------------------------------------------
// Pure builders

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < RING_MIN_K || k > RING_MAX_K) {
    throw new MmrLockError("BAD_ARGS", `a ring's K is an integer in ${RING_MIN_K}..=${RING_MAX_K} (the type script exits -100 otherwise), got ${k}`);
  }
}

/** The head's data length: 40 + 8 (K - 1) bytes (48..=288). */
export function ringHeadLength(k: number): number {
  checkK(k);
  return 40 + 8 * (k - 1);
}

/** A ring's type script args: type id (32) || K (u8), 33 bytes. */
export function ringArgs(typeId: BytesLike, k: number): Uint8Array {
  checkK(k);
  const out = new Uint8Array(33);
  out.set(bytes32(typeId, "type id"), 0);
  out[32] = k;
  return out;
}

/** Reads ring args back. Throws BAD_ARGS unless 33 bytes whose last is a K in 2..=32. */
export function parseRingArgs(args: BytesLike): { typeId: Uint8Array; k: number } {
  const bytes = bytesFrom(args);
  if (bytes.length !== 33) {
    throw new MmrLockError("BAD_ARGS", `ring args are 33 bytes (type id || K), got ${bytes.length}`);
  }
  checkK(bytes[32]);
  return { typeId: bytes.slice(0, 32), k: bytes[32] };
}

/** What a ring's head holds: the accumulator's state and the other K - 1 snapshots' sizes,
 * oldest first. */
export interface RingHeadState extends Commitment {
  older: number[];
}

/** Head data: root (32) || mmr_size (u64 LE) || older[K - 1] (u64 LE each); K = older.length + 1. */
export function ringHeadData(state: Commitment, older: readonly number[]): Uint8Array {
  const k = older.length + 1;
  checkK(k);
  const out = new Uint8Array(ringHeadLength(k));
  out.set(accumulatorData(state), 0);
  older.forEach((size, i) => {
    leafCountOf(size);
    writeU64(out, 40 + 8 * i, size);
  });
  return out;
}

/** Reads a head's data back. Throws BAD_ACCUMULATOR_DATA unless it is K's head length, or
 * MMR_SIZE_INVALID for a size that is not an MMR's. */
export function parseRingHead(data: BytesLike, k: number): RingHeadState & { leafCount: number } {
  const bytes = bytesFrom(data);
  const length = ringHeadLength(k);
  if (bytes.length !== length) {
    throw new MmrLockError("BAD_ACCUMULATOR_DATA", `a ring head of K = ${k} is ${length} bytes (root || mmr_size || ${k - 1} older sizes), got ${bytes.length}`);
  }
  const state = parseAccumulatorData(bytes.subarray(0, 40));
  const older = Array.from({ length: k - 1 }, (_, i) => readU64(bytes, 40 + 8 * i));
  for (const size of older) leafCountOf(size);
  return { ...state, older };
}

/** The data of a new ring: the head (older = K - 1 copies of its size) and the snapshot each
 * of the K snapshot cells holds (the head's first 40 bytes). */
export function ringCreationData(state: Commitment, k: number): { head: Uint8Array; snapshot: Uint8Array } {
  checkK(k);
  return { head: ringHeadData(state, Array(k - 1).fill(state.mmrSize)), snapshot: accumulatorData(state) };
}

/** The data an APPEND or EXTEND writes: the head with `older` shifted by one (its oldest
 * dropped, its own old size added) and the consumed snapshot rewritten with the new state. */
export function ringStepData(head: RingHeadState, next: Commitment): { head: Uint8Array; snapshot: Uint8Array } {
  return { head: ringHeadData(next, [...head.older.slice(1), head.mmrSize]), snapshot: accumulatorData(next) };
}

/** The `IMPORT` payload (0x02, no body): the creation's data is taken as given (its size must
 * be an MMR's). */
export function importPayload(): Uint8Array {
  return Uint8Array.of(AccTag.IMPORT);
}

// ---------------------------------------------------------------------------------------------
// A ring's cells

/** A live ring cell and the state it holds. */
export interface RingCell extends Commitment {
  cell: Cell;
  leafCount: number;
}

/** The head: also the other snapshots' sizes, oldest first. */
export interface RingHead extends RingCell {
  older: number[];
}

/** A ring as read from the node's indexer (committed cells only). */
export interface Ring {
  typeId: Hex;
  k: number;
  typeScript: Script;
  /** What by-reference lock args hold: the head's and every snapshot's type hash. */
  typeHash: Hex;
  head: RingHead;
  /** The K snapshots, in the indexer's order. */
  snapshots: RingCell[];
}

/** Which ring: its type id and K (its type script's args). */
export interface RingId {
  typeId: BytesLike;
  k: number;
}

/** The ring's type script: the accumulator type script's code with args = type id || K. */
export function ringTypeScript(code: AccumulatorCode, typeId: BytesLike, k: number): Script {
  refuseDataHashType(code.hashType, "accumulator-type uses");
  return Script.from({ codeHash: code.codeHash, hashType: code.hashType, args: ringArgs(typeId, k) });
}

/**
 * A ring from its live cells: the head is the one cell whose data is not 40 bytes. Throws
 * ACCUMULATOR_NOT_FOUND for no cell, BAD_ACCUMULATOR_DATA unless there are one head of K's
 * length and K snapshots whose sizes are the head's `older` and its own size, the snapshot of
 * its own size holding its root (what the type script keeps true).
 */
export function ringFromCells(typeScript: Script, cells: readonly Cell[]): Ring {
  const { k } = parseRingArgs(typeScript.args);
  const name = `the ring ${hexFrom(typeScript.args)}`;
  if (cells.length === 0) {
    throw new MmrLockError("ACCUMULATOR_NOT_FOUND", `no live cell of ${name} (code hash ${hexFrom(typeScript.codeHash)})`);
  }
  const heads = cells.filter((c) => bytesFrom(c.outputData).length !== 40);
  if (heads.length !== 1 || cells.length !== k + 1) {
    throw new MmrLockError(
      "BAD_ACCUMULATOR_DATA",
      `${name} has ${cells.length} live cells of which ${heads.length} not 40 bytes long: expected one head and ${k} snapshots`,
    );
  }
  const head: RingHead = { cell: heads[0], ...parseRingHead(heads[0].outputData, k) };
  // Snapshots of equal size were written by one transaction (creation or KEEP): in output
  // order, the appender consumes the first and the spender takes the last, whatever order the
  // indexer lists them in (the Rust SDK sorts the same way).
  const byOutPoint = (x: Cell, y: Cell) => {
    const [a, b] = [hexFrom(x.outPoint.txHash), hexFrom(y.outPoint.txHash)];
    return a < b ? -1 : a > b ? 1 : Number(x.outPoint.index - y.outPoint.index);
  };
  const snapshots = cells
    .filter((c) => c !== heads[0])
    .sort(byOutPoint)
    .map((cell) => ({ cell, ...parseAccumulatorData(cell.outputData) }));
  const want = [...head.older, head.mmrSize].sort((a, b) => a - b);
  const have = snapshots.map((s) => s.mmrSize).sort((a, b) => a - b);
  const newest = snapshots.find((s) => s.mmrSize === head.mmrSize);
  if (want.join() !== have.join() || newest === undefined || hexFrom(newest.root) !== hexFrom(head.root)) {
    throw new MmrLockError(
      "BAD_ACCUMULATOR_DATA",
      `${name}: its snapshots' sizes [${have.join(", ")}] are not the head's older sizes and its own [${want.join(", ")}], or none holds the head's root`,
    );
  }
  return { typeId: hexFrom(bytesFrom(typeScript.args).slice(0, 32)), k, typeScript, typeHash: typeScript.hash(), head, snapshots };
}

/** The live ring `id`, read from the node's indexer (committed cells only). */
export async function findRing(client: Client, code: AccumulatorCode, id: RingId): Promise<Ring> {
  const typeScript = ringTypeScript(code, id.typeId, id.k);
  const cells: Cell[] = [];
  for await (const cell of client.findCellsOnChain({ script: typeScript, scriptType: "type", scriptSearchMode: "exact", withData: true })) {
    cells.push(cell);
    if (cells.length > id.k + 1) break;
  }
  return ringFromCells(typeScript, cells);
}

/** The snapshot with the largest mmr_size (the last such right after creation, since the
 * appender consumes the first): the one a spend proves against, K - 1 appends from being
 * consumed. */
export function newestSnapshot(ring: Ring): RingCell {
  return ring.snapshots.reduce((best, s) => (s.mmrSize >= best.mmrSize ? s : best));
}

/** The snapshot the next APPEND or EXTEND consumes: its size is the head's older[0] (the
 * first such, in out-point order). */
export function oldestSnapshot(ring: Ring): RingCell {
  const oldest = ring.snapshots.find((s) => s.mmrSize === ring.head.older[0]);
  if (oldest === undefined) {
    throw new MmrLockError("BAD_ACCUMULATOR_DATA", `no snapshot of the ring ${ring.typeId} has the head's older[0] = ${ring.head.older[0]}`);
  }
  return oldest;
}

/** A ring cell as a cell dep: a snapshot is what a by-reference spend adds beside the verifier. */
export function ringCellDep(cell: RingCell): CellDep {
  return CellDep.from({ outPoint: cell.cell.outPoint, depType: "code" });
}

// ---------------------------------------------------------------------------------------------
// Unfunded transactions: the ring's part only, no fee inputs, no change, unsigned

/**
 * A creation's outputs: output 0 the head, outputs 1..=K the snapshots, each with exactly its
 * occupied capacity, all under `lock` and the ring's type script (`typeId`: zeros until the
 * first input is known). The witness, `output_type` = the payload, goes at index 0 once the
 * transaction has an input (CCC moves witnesses when it adds inputs).
 */
export function unfundedRingCreation(code: AccumulatorCode, k: number, lock: ScriptLike, state: Commitment, typeId: BytesLike = new Uint8Array(32)): Transaction {
  const data = ringCreationData(state, k);
  const type = ringTypeScript(code, typeId, k);
  const tx = Transaction.from({
    outputs: [exactOutput(lock, type, data.head.length), ...Array.from({ length: k }, () => exactOutput(lock, type, 40))],
    outputsData: [data.head, ...Array(k).fill(data.snapshot)],
  });
  tx.addCellDeps(accumulatorCodeDep(code));
  return tx;
}

function sameOutput(cell: Cell, lock?: ScriptLike): CellOutput {
  const { capacity, type } = cell.cellOutput;
  return CellOutput.from({ capacity, type, lock: lock ?? cell.cellOutput.lock });
}

/**
 * An APPEND or EXTEND: input 0 the head, input 1 the oldest snapshot (size = older[0]);
 * output 0 the head with `older` shifted, output 1 that snapshot holding `next`, each with its
 * input's capacity and lock; witness 0's `input_type` the payload (the head input's index).
 */
export function unfundedRingStep(ring: Ring, code: AccumulatorCode, next: Commitment, payloadBytes: BytesLike): Transaction {
  const cells = [ring.head.cell, oldestSnapshot(ring).cell];
  const data = ringStepData(ring.head, next);
  const outputs = cells.map((c) => sameOutput(c));
  const witness = accumulatorWitnessArgs(payloadBytes, false);
  return unfundedUpdate(code, cells, outputs, [data.head, data.snapshot], witness);
}

/**
 * A KEEP of the whole ring: inputs 0..=K the head then the snapshots, output n the same data
 * and capacity as input n under `to` (default the same lock); witness 0's `input_type` 0x05.
 */
export function unfundedRingKeep(ring: Ring, code: AccumulatorCode, to?: ScriptLike, payloadBytes: BytesLike = keepPayload()): Transaction {
  const cells = [ring.head.cell, ...ring.snapshots.map((s) => s.cell)];
  const outputs = cells.map((c) => sameOutput(c, to));
  outputs.forEach((o, n) => {
    const need = occupied(o, bytesFrom(cells[n].outputData).length);
    if (need > o.capacity) {
      throw new MmrLockError("BAD_ARGS", `ring cell ${n}'s capacity ${o.capacity} is below its occupied capacity ${need} shannons under the new lock`);
    }
  });
  const witness = accumulatorWitnessArgs(payloadBytes, false);
  return unfundedUpdate(code, cells, outputs, cells.map((c) => c.outputData), witness);
}

/** The ring after `tx` (an unfunded step or keep, completed) is committed: its outputs
 * 0..n replace the cells it consumes. Lets an appender pipeline without waiting for a block. */
export function ringAfter(ring: Ring, tx: Transaction): Ring {
  const txHash = tx.hash();
  const key = (p: OutPoint) => hexFrom(p.toBytes());
  const consumed = new Set(tx.inputs.map((i) => key(i.previousOutput)));
  const kept = [ring.head, ...ring.snapshots].map((c) => c.cell).filter((c) => !consumed.has(key(c.outPoint)));
  const made = tx.outputs.flatMap((cellOutput, index) =>
    cellOutput.type?.eq(ring.typeScript) ? [Cell.from({ outPoint: { txHash, index }, cellOutput, outputData: tx.outputsData[index] })] : [],
  );
  return ringFromCells(ring.typeScript, [...kept, ...made]);
}

// ---------------------------------------------------------------------------------------------
// On chain

export interface CreateRingOptions {
  /** CREATE: the initial leaves, an MMR (all its leaves, or its first `leafCount`) or a list. */
  leaves?: Mmr | readonly BytesLike[];
  leafCount?: number;
  /** IMPORT instead: a root and size taken as given (the type script checks the size only). */
  import?: { root: BytesLike; mmrSize: number };
  /** The ring's K, 2..=32; default 8. */
  k?: number;
  /** Who may update the ring: every cell's lock; default the signer's. */
  lock?: ScriptLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
}

/**
 * A transaction, paid and completed by `signer` but not signed, that creates a ring (CREATE
 * or IMPORT): output 0 the head, outputs 1..=K the snapshots, all under the type script with
 * args = the type id of the first input and output 0 || K; witness 0's `output_type` the
 * payload. At K = 8 the cells hold 1,559 CKB.
 */
export async function createRingTx(signer: Signer, code: AccumulatorCode, options: CreateRingOptions): Promise<{ tx: Transaction; typeId: Hex; k: number }> {
  const k = options.k ?? RING_DEFAULT_K;
  checkK(k);
  if ((options.leaves === undefined) === (options.import === undefined)) {
    throw new MmrLockError("BAD_ARGS", "a ring is created from leaves (CREATE) or from a root and size (IMPORT): give exactly one");
  }
  let state: Commitment;
  let payloadBytes: Uint8Array;
  if (options.import !== undefined) {
    state = { root: bytes32(options.import.root, "root"), mmrSize: options.import.mmrSize };
    payloadBytes = importPayload();
  } else {
    const leaves = options.leaves instanceof Mmr ? options.leaves : Mmr.from(options.leaves!);
    const n = options.leafCount ?? leaves.leafCount;
    payloadBytes = createPayload(leaves, n);
    state = commitmentAt(leaves, n);
  }
  const witness = accumulatorWitnessArgs(payloadBytes, true);
  checkWitnessSize(witness);
  const lock = options.lock ?? (await signer.getRecommendedAddressObj()).script;
  const tx = unfundedRingCreation(code, k, lock, state);
  await tx.completeInputsByCapacity(signer);
  tx.setWitnessArgsAt(0, witness);
  await tx.completeFeeBy(signer, options.feeRate ?? DEFAULT_FEE_RATE);
  // The type id needs the first input; its 32 bytes replace 32 zeros: size and fee unchanged.
  const typeId = hexFrom(typeIdOf(tx.inputs[0], 0));
  const type = ringTypeScript(code, typeId, k);
  for (let i = 0; i <= k; i++) tx.outputs[i].type = type;
  return { tx, typeId, k };
}

/** Creates a ring (see [`createRingTx`]) and sends it; the head is output 0. */
export async function createRing(signer: Signer, code: AccumulatorCode, options: CreateRingOptions) {
  const { tx, typeId, k } = await createRingTx(signer, code, options);
  const txHash = await signer.sendTransaction(tx);
  return { txHash, typeId, k, head: { txHash, index: 0 } };
}

export interface RingUpdateOptions extends RingId {
  /** The ring as the caller has it (e.g. the `after` of its previous update, to pipeline at
   * most K - 5 updates); default read now from the indexer. */
  ring?: Ring;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
  /** Replaces the payload the kit built (tests, custom encodings). */
  payloadOverride?: BytesLike;
}

export interface RingGrowOptions extends RingUpdateOptions {
  /** The whole MMR: its first leaves must be the ring's (else NOT_EXTENDING), the rest are added. */
  mmr: Mmr;
}

async function ringUpdateTx(
  signer: Signer,
  options: RingUpdateOptions,
  read: () => Promise<Ring>,
  build: (ring: Ring, payloadOverride?: Uint8Array) => Transaction,
): Promise<{ tx: Transaction; ring: Ring; after: Ring }> {
  const ring = options.ring ?? (await read());
  await checkHolder(signer, ring.head.cell, `the ring ${ring.typeId}`);
  const tx = build(ring, options.payloadOverride === undefined ? undefined : bytesFrom(options.payloadOverride));
  checkWitnessSize(tx.getWitnessArgsAt(0)!);
  await tx.completeFeeBy(signer, options.feeRate ?? DEFAULT_FEE_RATE);
  return { tx, ring, after: ringAfter(ring, tx) };
}

function growTx(signer: Signer, code: AccumulatorCode, options: RingGrowOptions, extend: boolean) {
  return ringUpdateTx(signer, options, () => findRing(signer.client, code, options), (ring, override) => {
    const head = { ...ring.head, typeId: ring.typeId };
    checkExtends(head, options.mmr);
    const n = options.mmr.leafCount;
    const grown = override ?? (extend ? extendPayload(options.mmr, head.leafCount, n) : appendPayload(options.mmr, head.leafCount, n));
    return unfundedRingStep(ring, code, commitmentAt(options.mmr, n), grown);
  });
}

/** (`APPEND`) The ring grown to `options.mmr`: head and oldest snapshot in, head and that
 * snapshot with the new state out. Not yet signed. `after` is the ring once it commits. */
export function appendRingTx(signer: Signer, code: AccumulatorCode, options: RingGrowOptions) {
  return growTx(signer, code, options, false);
}

/** (`EXTEND`) The ring grown to `options.mmr` by an ancestry proof. */
export function extendRingTx(signer: Signer, code: AccumulatorCode, options: RingGrowOptions) {
  return growTx(signer, code, options, true);
}

/** (`KEEP`) The whole ring, its data unchanged, under the lock `options.to`. */
export function handoverRingTx(signer: Signer, code: AccumulatorCode, options: RingUpdateOptions & { to: ScriptLike }) {
  return ringUpdateTx(signer, options, () => findRing(signer.client, code, options), (ring, override) => unfundedRingKeep(ring, code, options.to, override));
}

/** What a sent update returns: the new head is output 0. */
const updated = (txHash: Hex, { ring, after }: { ring: Ring; after: Ring }) => ({ txHash, head: { txHash, index: 0 }, before: ring, after });

/** Sends [`appendRingTx`]: its hash, the head's new out point, the ring before and after. */
export const appendRing = sender(appendRingTx, updated);

/** Sends [`extendRingTx`]. */
export const extendRing = sender(extendRingTx, updated);

/** Sends [`handoverRingTx`]. */
export const handoverRing = sender(handoverRingTx, updated);

// ---------------------------------------------------------------------------------------------
// Spending by reference against a ring

export interface RingSpendOptions extends RingId {
  /** The cell locked by reference (args = the ring's type hash || 0x02 or 0x03). */
  cell: OutPointLike;
  code: AccumulatorCode;
  /** The leaves to prove, from an MMR holding at least the snapshot's leaves (its first ones
   * the chain's) or from a store that has committed the snapshot's size (else BEYOND_STORE:
   * sync it first). */
  proof: { mmr: Mmr; indexes: readonly number[] } | { store: MmrStore; indexes: readonly number[] };
  /** The ring as read earlier: the first attempt proves against its newest snapshot; default
   * read now. Rebuilds always read anew. */
  ring?: Ring;
  /** Owner mode (args ending in 0x03): `signer` is the owner, as in [`spendTx`]. */
  owner?: boolean;
  /** Who receives the cell's capacity less the fee; default the signer's lock. */
  to?: ScriptLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
  /** Replaces the payload built from the proof (tests, custom encodings). */
  payloadOverride?: BytesLike;
}

async function proofAt(snapshot: RingCell, ring: Ring, proof: RingSpendOptions["proof"]): Promise<MmrProof> {
  if ("mmr" in proof) return proofAgainst({ ...snapshot, typeId: ring.typeId }, proof.mmr, proof.indexes);
  checkIndexes(proof.indexes, snapshot.leafCount);
  const p = await proof.store.proof(proof.indexes, snapshot.mmrSize);
  if (hexFrom(p.root) !== hexFrom(snapshot.root)) {
    throw new MmrLockError(
      "NOT_EXTENDING",
      `the store's root at mmr_size ${snapshot.mmrSize} is ${hexFrom(p.root)}, the ring ${ring.typeId}'s snapshot holds ${hexFrom(snapshot.root)}: not the chain's leaves`,
    );
  }
  return p;
}

/**
 * A signed transaction that spends a cell locked by reference to a ring: proved against the
 * ring's newest snapshot, which is the cell dep beside the verifier's code cell. It stays
 * valid until K appends have been committed after the read (the K-th consumes that snapshot).
 */
export async function spendByReferenceRingTx(
  signer: Signer,
  verifier: Verifier,
  options: RingSpendOptions,
): Promise<{ tx: Transaction; ring: Ring; snapshot: RingCell }> {
  if ("mmr" in options.proof) checkIndexes(options.proof.indexes, options.proof.mmr.leafCount);
  const ring = options.ring ?? (await findRing(signer.client, options.code, options));
  const snapshot = newestSnapshot(ring);
  const proof = await proofAt(snapshot, ring, options.proof);
  const tx = await spendTx(signer, verifier, { ...options, proof, extraCellDeps: [ringCellDep(snapshot)] });
  return { tx, ring, snapshot };
}

/** What the lock's refusal means when the spend itself is wrong: never retried. */
const NOT_RETRIED: Record<number, string> = {
  9: "RootMismatch: the proof gives another root than the snapshot's",
  90: "AccumulatorNotFound: no cell dep has the ring's type hash (the lock's args name another accumulator)",
  91: "AccumulatorAmbiguous: two cells with the ring's type hash among the deps",
  92: "AccumulatorDataLength: the dep with the ring's type hash is not 40 bytes (the head, not a snapshot)",
};

/** True when the node refused or rejected a transaction because `snapshot` is no longer live:
 * -301 `Resolve failed Dead(OutPoint(..))` (a pooled append consumes it) or `Unknown(..)` (a
 * committed one did), naming the snapshot. */
export function namesConsumedSnapshot(message: string, snapshot: RingCell): boolean {
  const point = hexFrom(snapshot.cell.outPoint.toBytes());
  return message.includes(`Dead(OutPoint(${point}))`) || message.includes(`Unknown(OutPoint(${point}))`);
}

function errorText(e: unknown): string {
  const x = e as { message?: unknown; data?: unknown };
  return [x?.message, x?.data].filter((t) => typeof t === "string").join("\n");
}

export interface RingSpendLoopOptions extends RingSpendOptions {
  /** Give up (TIME_LIMIT) this many milliseconds after the call; default 600,000. There is no
   * retry count: a refused send costs nothing on chain. */
  timeLimitMs?: number;
  /** Wait until the spend is committed (polling `getTransaction`), rebuilding if a block from
   * elsewhere drops it for a consumed snapshot; default true. False: return once accepted. */
  wait?: boolean;
  /** Milliseconds between polls; default 1,000. */
  pollMs?: number;
  /** Called on each rebuild with one line (`snapshot <out point> consumed: ...; rebuilding`),
   * the consumed snapshot and the node's words (the send's error or the rejection's reason). */
  onRebuild?: (line: string, snapshot: RingCell, reason: string) => void;
}

/**
 * Spends a cell locked by reference to a ring, proved against its newest snapshot, until it
 * commits: a send refused (or a pooled spend rejected) because that snapshot was consumed is
 * rebuilt against the ring's newest, once the consumed one has left the indexer's view. Lock
 * refusals (90, 91, 92, 9: the spend's own fault) throw CHAIN naming the code, other errors
 * are thrown as the node gave them, and the time limit throws TIME_LIMIT.
 */
export async function spendByReferenceRing(signer: Signer, verifier: Verifier, options: RingSpendLoopOptions) {
  const deadline = Date.now() + (options.timeLimitMs ?? 600_000);
  const pollMs = options.pollMs ?? 1_000;
  const client = signer.client;
  const pause = async (what: string) => {
    if (Date.now() + pollMs > deadline) {
      throw new MmrLockError("TIME_LIMIT", `spend of ${hexFrom(OutPoint.from(options.cell).toBytes())} by reference to the ring ${hexFrom(bytesFrom(options.typeId))}: ${what} after the caller's time limit of ${options.timeLimitMs ?? 600_000} ms`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  };
  let ring = options.ring;
  let rebuilds = 0;
  for (;;) {
    const built = await spendByReferenceRingTx(signer, verifier, { ...options, ring });
    const point = hexFrom(built.snapshot.cell.outPoint.toBytes());
    let txHash: Hex | undefined;
    let reason = "";
    try {
      txHash = await client.sendTransaction(built.tx);
    } catch (e) {
      const text = errorText(e);
      if ((e as { code?: unknown }).code !== TRANSACTION_FAILED_TO_RESOLVE || !namesConsumedSnapshot(text, built.snapshot)) {
        const failure = scriptFailure(e);
        const meaning = failure && failure.scriptKind === "Lock" ? NOT_RETRIED[failure.exitCode] : undefined;
        if (meaning !== undefined) throw new MmrLockError("CHAIN", `the lock refused the spend with ${failure!.exitCode} (${meaning}); not retried. The node: ${text}`);
        throw e;
      }
      reason = text;
    }
    if (txHash !== undefined) {
      if (options.wait === false) return { txHash, ring: built.ring, snapshot: built.snapshot, rebuilds, committed: false };
      for (;;) {
        const response = await client.getTransaction(txHash);
        if (response?.status === "committed") return { txHash, ring: built.ring, snapshot: built.snapshot, rebuilds, committed: true };
        if (response?.status === "rejected") {
          if (!namesConsumedSnapshot(response.reason ?? "", built.snapshot)) {
            throw new MmrLockError("CHAIN", `the spend ${txHash} was rejected: ${response.reason ?? "no reason given"}`);
          }
          reason = response.reason ?? "";
          break;
        }
        await pause(`${txHash} not committed`);
      }
    }
    // Here the snapshot was consumed: refused at the send, or rejected while pooled.
    rebuilds++;
    const line = `snapshot ${point} consumed: older than the ring's window of ${built.ring.k - 1} appends; rebuilding`;
    options.onRebuild?.(line, built.snapshot, reason);
    // Rebuild once the indexer no longer lists the consumed snapshot (a pooled append must
    // commit first), so the new proof is against a snapshot that can still be a dep.
    for (;;) {
      if (Date.now() > deadline) await pause("no rebuild");
      ring = await findRing(client, options.code, options);
      if (!ring.snapshots.some((s) => hexFrom(s.cell.outPoint.toBytes()) === point)) break;
      await pause(`snapshot ${point} still live on chain`);
    }
  }
}
