// The on-chain accumulator (docs/accumulator.md) from TypeScript: pure builders byte for byte
// equal to crates/mmr-accumulator's `build` module (cell data, type id, the CREATE, APPEND,
// EXTEND and KEEP payloads and their witnesses, by-reference lock args), and transactions on
// CCC that create, append to, extend and hand over an accumulator and lock and spend cells by
// reference to it (docs/deploy.md, section 5).
//
// Every check the kit can make (leaves that do not extend the chain's MMR, a signer that does
// not hold the accumulator, a witness above the type script's buffer, indexes, the owner's
// leaf) is made before anything is sent.

import {
  CellDep,
  CellOutput,
  Script,
  Transaction,
  WitnessArgs,
  bytesFrom,
  hashTypeId,
  hexFrom,
  type BytesLike,
  type Cell,
  type CellInputLike,
  type Client,
  type Hex,
  type HexLike,
  type NumLike,
  type OutPointLike,
  type ScriptLike,
  type Signer,
} from "@ckb-ccc/core";
import { DEFAULT_FEE_RATE, SHANNONS_PER_CKB, newCellTx, refuseDataHashType, sender, spendTx, verifierScript, type Verifier } from "./chain.js";
import { MmrLockError } from "./errors.js";
import { FLAG_OWNER, type Mode } from "./lock.js";
import { Mmr, bag, bytes32, checkIndexes, type MmrProof } from "./mmr.js";
import { bit, concatBytes, leafCountOf, mmrSizeOf, nodePosition, peaksOf, readU64, writeU32, writeU64 } from "./positions.js";

/** The transition tags, the first byte of the type script's payload. */
export const AccTag = { CREATE: 0x01, IMPORT: 0x02, APPEND: 0x03, EXTEND: 0x04, KEEP: 0x05 } as const;

/** The by-reference flag of a lock's 33rd args byte (0x02 plain, 0x03 with owner mode). */
export const FLAG_BY_REFERENCE = 0x02;

/** The type script reads a witness of at most this many bytes (exit 124 beyond it). */
export const MAX_WITNESS_BYTES = 65_536;

/** The secp256k1 lock (the signer's, whose signature shares the transition's witness) reads
 * at most this many bytes of its group's first witness (-22 beyond it): with it, about 1,020
 * leaves fit one `CREATE` or `APPEND`. */
export const SECP256K1_WITNESS_BYTES = 32_768;

/** An MMR commitment: what an accumulator cell's data and plain lock args hold. */
export interface Commitment {
  root: Uint8Array;
  mmrSize: number;
}

// ---------------------------------------------------------------------------------------------
// Pure builders

/** Cell data: root (32) || mmr_size (u64 LE), exactly 40 bytes. */
export function accumulatorData(c: Commitment): Uint8Array {
  leafCountOf(c.mmrSize);
  const out = new Uint8Array(40);
  out.set(bytes32(c.root, "root"), 0);
  writeU64(out, 32, c.mmrSize);
  return out;
}

/** Reads cell data back. Throws BAD_ACCUMULATOR_DATA (not 40 bytes) or MMR_SIZE_INVALID. */
export function parseAccumulatorData(data: BytesLike): Commitment & { leafCount: number } {
  const bytes = bytesFrom(data);
  if (bytes.length !== 40) {
    throw new MmrLockError(
      "BAD_ACCUMULATOR_DATA",
      `accumulator data is 40 bytes (root || mmr_size u64 LE), got ${bytes.length}`,
    );
  }
  const mmrSize = readU64(bytes, 32);
  return { root: bytes.slice(0, 32), mmrSize, leafCount: leafCountOf(mmrSize) };
}

// Checks 1 <= leafCount <= mmr.leafCount: the MMR has that prefix.
function checkPrefix(mmr: Mmr, leafCount: number, what: string): void {
  if (!Number.isSafeInteger(leafCount) || leafCount < 1) {
    throw new MmrLockError("EMPTY", `${what}: an accumulator holds at least one leaf, got ${leafCount}`);
  }
  if (leafCount > mmr.leafCount) {
    throw new MmrLockError(
      "NOT_EXTENDING",
      `${what}: ${leafCount} leaves asked of an MMR that holds ${mmr.leafCount}`,
    );
  }
}

/** The peaks of the MMR of the first `leafCount` leaves of `mmr`, left to right. */
export function peaksAt(mmr: Mmr, leafCount = mmr.leafCount): Uint8Array[] {
  checkPrefix(mmr, leafCount, "peaks");
  return peaksOf(leafCount).map((p) => mmr.node(p.position));
}

/** The commitment of the first `leafCount` leaves of `mmr` (an earlier MMR is a prefix: its
 * nodes are the first nodes of `mmr`, nothing is rebuilt). */
export function commitmentAt(mmr: Mmr, leafCount = mmr.leafCount): Commitment {
  return { root: bag(peaksAt(mmr, leafCount))!, mmrSize: mmrSizeOf(leafCount) };
}

/** A type id: blake2b-256 "ckb-default-hash" of the first input's molecule `CellInput` (44
 * bytes) || the output's index (u64 LE), what the type script checks on creation (119). */
export function typeIdOf(firstInput: CellInputLike, outputIndex: NumLike): Uint8Array {
  return bytesFrom(hashTypeId(firstInput, outputIndex));
}

// tag || u32 LE k || k leaves, after `peaks`.
function growthPayload(tag: number, peaks: Uint8Array[], leaves: Uint8Array[]): Uint8Array {
  if (leaves.length > 0xffffffff) {
    throw new MmrLockError("TOO_MANY_LEAVES", `${leaves.length} leaves: the count is a u32`);
  }
  const count = new Uint8Array(4);
  writeU32(count, 0, leaves.length);
  return concatBytes([Uint8Array.of(tag), ...peaks, count, ...leaves]);
}

/** The `CREATE` payload: 0x01 || u32 LE k || the k >= 1 leaves (the type script computes the
 * root from them). `leaves` is a list, or an MMR whose first `leafCount` leaves are taken. */
export function createPayload(leaves: readonly BytesLike[] | Mmr, leafCount?: number): Uint8Array {
  let list: Uint8Array[];
  if (leaves instanceof Mmr) {
    const n = leafCount ?? leaves.leafCount;
    checkPrefix(leaves, n, "CREATE");
    list = Array.from({ length: n }, (_, i) => leaves.leaf(i));
  } else {
    list = leaves.map((l, i) => bytes32(l, `leaf ${i}`));
    if (list.length === 0) throw new MmrLockError("EMPTY", "CREATE needs at least one leaf");
  }
  return growthPayload(AccTag.CREATE, [], list);
}

// old < new <= mmr.leafCount, else a coded error naming `what`.
function checkGrowth(mmr: Mmr, oldLeaves: number, newLeaves: number, what: string): void {
  checkPrefix(mmr, oldLeaves, what);
  checkPrefix(mmr, newLeaves, what);
  if (newLeaves === oldLeaves) {
    throw new MmrLockError("NOTHING_TO_ADD", `${what}: both sizes hold ${oldLeaves} leaves: nothing to add (KEEP keeps the data)`);
  }
  if (newLeaves < oldLeaves) {
    throw new MmrLockError("NOT_EXTENDING", `${what}: ${newLeaves} leaves is fewer than the ${oldLeaves} before`);
  }
}

/** The `APPEND` payload from `oldLeaves` to `newLeaves` leaves of `mmr`: 0x03 || the old
 * MMR's peaks (left to right) || u32 LE k || the k new leaves. */
export function appendPayload(mmr: Mmr, oldLeaves: number, newLeaves = mmr.leafCount): Uint8Array {
  checkGrowth(mmr, oldLeaves, newLeaves, "APPEND");
  const leaves = Array.from({ length: newLeaves - oldLeaves }, (_, i) => mmr.leaf(oldLeaves + i));
  return growthPayload(AccTag.APPEND, peaksAt(mmr, oldLeaves), leaves);
}

/** A node `(first, height)` of the new MMR, or the bagging of several (the tail). */
type Item = { first: number; height: number } | { bag: { first: number; height: number }[] };

/**
 * The items of the ancestry proof from `n` to `m > n` leaves, from the two counts alone
 * (docs/accumulator.md, section 4): the climb from the lowest old peak below the highest
 * differing bit `b`, the tail (the new peaks right of the climb, one bagged item), then the
 * old peaks above `b`, lowest first.
 */
function ancestryItems(n: number, m: number): Item[] {
  let split = 51;
  while (bit(n, split) === bit(m, split)) split--;
  const below = 2 ** split;
  const low = n % below;
  const high = n - (n % (2 * below));
  const oldPeak = (j: number) => ({ first: n - (n % 2 ** (j + 1)), height: j });
  const items: Item[] = [];
  if (low !== 0) {
    let h0 = 0;
    while (!bit(low, h0)) h0++;
    const s0 = n - 2 ** h0;
    items.push(oldPeak(h0));
    for (let j = h0; j < split; j++) {
      // Left of the climbing node is an old peak; otherwise its right sibling is new leaves.
      if (j > h0 && bit(n, j)) items.push(oldPeak(j));
      else items.push({ first: s0 - (s0 % 2 ** j) + 2 ** j, height: j });
    }
  }
  const tailStart = low !== 0 ? m - (m % below) : m - (m % (2 * below));
  if (m > tailStart) {
    items.push({ bag: peaksOf(m - tailStart).map((p) => ({ first: p.first + tailStart, height: p.height })) });
  }
  for (let j = split + 1; j <= 51; j++) if (bit(high, j)) items.push(oldPeak(j));
  return items;
}

/** The ancestry proof (the `EXTEND` body) that the first `oldLeaves` leaves of `mmr` are a
 * prefix of its first `newLeaves`: 32-byte hashes only, their roles fixed by the two sizes. */
export function ancestryProof(mmr: Mmr, oldLeaves: number, newLeaves = mmr.leafCount): Uint8Array {
  checkGrowth(mmr, oldLeaves, newLeaves, "EXTEND");
  const node = (x: { first: number; height: number }) => mmr.node(nodePosition(x.first, x.height));
  const items = ancestryItems(oldLeaves, newLeaves);
  const out = new Uint8Array(32 * items.length);
  items.forEach((item, k) => out.set("bag" in item ? bag(item.bag.map(node))! : node(item), 32 * k));
  return out;
}

/** The `EXTEND` payload: 0x04 || [`ancestryProof`]. The new leaves stay off chain. */
export function extendPayload(mmr: Mmr, oldLeaves: number, newLeaves = mmr.leafCount): Uint8Array {
  return concatBytes([Uint8Array.of(AccTag.EXTEND), ancestryProof(mmr, oldLeaves, newLeaves)]);
}

/** The `KEEP` payload (0x05, no body): the data stays, the lock or capacity changes. */
export function keepPayload(): Uint8Array {
  return Uint8Array.of(AccTag.KEEP);
}

/** `WitnessArgs` for a transition: `output_type` = the payload on creation (the witness at the
 * new cell's output index), `input_type` on an update (at the accumulator's input index). */
export function accumulatorWitnessArgs(payloadBytes: BytesLike, creation: boolean): WitnessArgs {
  return WitnessArgs.from(creation ? { outputType: payloadBytes } : { inputType: payloadBytes });
}

/** The molecule bytes of [`accumulatorWitnessArgs`] (no lock field). */
export function accumulatorWitness(payloadBytes: BytesLike, creation: boolean): Uint8Array {
  return bytesFrom(accumulatorWitnessArgs(payloadBytes, creation).toBytes());
}

/** By-reference lock args: the accumulator's type script hash (32) || 0x02 (plain) or 0x03
 * (owner mode): the lock proves against whatever the accumulator holds when spent. */
export function byReferenceArgs(typeHash: BytesLike, mode: Mode = "plain"): Uint8Array {
  const out = new Uint8Array(33);
  out.set(bytes32(typeHash, "accumulator type hash"), 0);
  out[32] = mode === "owner" ? FLAG_BY_REFERENCE | FLAG_OWNER : FLAG_BY_REFERENCE;
  return out;
}

/** Reads by-reference args back. Throws BAD_ARGS unless 33 bytes ending in 0x02 or 0x03. */
export function parseByReferenceArgs(args: BytesLike): { typeHash: Uint8Array; mode: Mode } {
  const bytes = bytesFrom(args);
  if (bytes.length !== 33 || (bytes[32] !== FLAG_BY_REFERENCE && bytes[32] !== (FLAG_BY_REFERENCE | FLAG_OWNER))) {
    throw new MmrLockError(
      "BAD_ARGS",
      `by-reference args are 33 bytes: a type hash and 0x02 (plain) or 0x03 (owner), got ${bytes.length} bytes${bytes.length === 33 ? ` ending in 0x${bytes[32].toString(16).padStart(2, "0")}` : ""}`,
    );
  }
  return { typeHash: bytes.slice(0, 32), mode: bytes[32] === FLAG_BY_REFERENCE ? "plain" : "owner" };
}

// ---------------------------------------------------------------------------------------------
// On chain

/** The deployed accumulator type script (`build/release/accumulator-type`): its code cell and
 * how type scripts reference it (`ckb-devnet deploy` prints both). */
export interface AccumulatorCode {
  /** The code cell (dep_type code): every transition's transaction carries it. */
  outPoint: OutPointLike;
  /** data2: blake2b-256 of the binary; type: the hash of the code cell's type id script. */
  codeHash: HexLike;
  /** Never "data": VM version 0 lacks the B extension the binary uses. */
  hashType: "data2" | "data1" | "type";
}

/** A live accumulator cell as the node's indexer has it, and the commitment it holds. */
export interface Accumulator {
  typeId: Hex;
  typeScript: Script;
  /** What by-reference lock args hold. */
  typeHash: Hex;
  cell: Cell;
  root: Uint8Array;
  mmrSize: number;
  leafCount: number;
}

/** The accumulator's type script: the code's hash and hash type, args = the 32-byte type id. */
export function accumulatorTypeScript(code: AccumulatorCode, typeId: BytesLike): Script {
  refuseDataHashType(code.hashType, "accumulator-type uses");
  return Script.from({ codeHash: code.codeHash, hashType: code.hashType, args: bytes32(typeId, "type id") });
}

/** The accumulator type script's code cell as a cell dep. */
export function accumulatorCodeDep(code: AccumulatorCode): CellDep {
  return CellDep.from({ outPoint: code.outPoint, depType: "code" });
}

/** The accumulator cell as a cell dep: what a by-reference spend adds beside the verifier. */
export function accumulatorCellDep(acc: Accumulator): CellDep {
  return CellDep.from({ outPoint: acc.cell.outPoint, depType: "code" });
}

/**
 * The live accumulator under `typeId`, read from the node's indexer (committed cells only,
 * never CCC's cache of sent transactions). Throws ACCUMULATOR_NOT_FOUND unless exactly one
 * live cell has the type script, BAD_ACCUMULATOR_DATA or MMR_SIZE_INVALID for its data.
 */
export async function findAccumulator(client: Client, code: AccumulatorCode, typeId: BytesLike): Promise<Accumulator> {
  const typeScript = accumulatorTypeScript(code, typeId);
  const cells: Cell[] = [];
  for await (const cell of client.findCellsOnChain({ script: typeScript, scriptType: "type", scriptSearchMode: "exact", withData: true })) {
    cells.push(cell);
    if (cells.length > 1) break;
  }
  if (cells.length !== 1) {
    throw new MmrLockError(
      "ACCUMULATOR_NOT_FOUND",
      `${cells.length === 0 ? "no" : "more than one"} live accumulator cell under type id ${hexFrom(typeScript.args)} (code hash ${hexFrom(typeScript.codeHash)}): expected one`,
    );
  }
  const [cell] = cells;
  return {
    typeId: hexFrom(typeScript.args),
    typeScript,
    typeHash: typeScript.hash(),
    cell,
    ...parseAccumulatorData(cell.outputData),
  };
}

/**
 * Refuses `mmr` unless its first `acc.leafCount` leaves give the accumulator's root and size
 * (NOT_EXTENDING): an MMR behind the chain, or one whose leaves are not the chain's.
 */
export function checkExtends(acc: Pick<Accumulator, "root" | "mmrSize" | "leafCount" | "typeId">, mmr: Mmr): void {
  if (mmr.leafCount < acc.leafCount) {
    throw new MmrLockError(
      "NOT_EXTENDING",
      `the MMR holds ${mmr.leafCount} leaves and the accumulator ${acc.typeId} already ${acc.leafCount}: it must hold all of them`,
    );
  }
  const local = commitmentAt(mmr, acc.leafCount);
  if (hexFrom(local.root) !== hexFrom(acc.root)) {
    throw new MmrLockError(
      "NOT_EXTENDING",
      `the MMR's first ${acc.leafCount} leaves give root ${hexFrom(local.root)}, the accumulator ${acc.typeId} holds ${hexFrom(acc.root)} (mmr_size ${acc.mmrSize}): not the chain's leaves`,
    );
  }
}

/** Occupied capacity of `output` with `dataBytes` of data, in shannons (ring.ts too; not in
 * the package's entry). */
export function occupied(output: CellOutput, dataBytes: number): bigint {
  return BigInt(output.occupiedSize + dataBytes) * SHANNONS_PER_CKB;
}

// An output under `lock` and `type` with exactly the occupied capacity of `dataBytes` of data.
export function exactOutput(lock: ScriptLike, type: Script, dataBytes: number): CellOutput {
  const output = CellOutput.from({ lock, type, capacity: 0n });
  output.capacity = occupied(output, dataBytes);
  return output;
}

// Refuses a witness the scripts could not load: the signer's 65-byte secp256k1 signature
// rides in the same witness (the accumulator, or a creation's first input, is the signer's
// first input), and that lock reads at most 32,768 bytes (-22), the type script 65,536 (124).
export function checkWitnessSize(args: WitnessArgs): void {
  const withSignature = WitnessArgs.from({ ...args, lock: new Uint8Array(65) });
  const bytes = withSignature.toBytes().length;
  const limit = Math.min(MAX_WITNESS_BYTES, SECP256K1_WITNESS_BYTES);
  if (bytes > limit) {
    throw new MmrLockError(
      "WITNESS_TOO_LARGE",
      `the transition's witness would be ${bytes} bytes, above the secp256k1 lock's ${limit} (it would fail with -22): append fewer leaves per transaction (about 1,020), or extend by an ancestry proof`,
    );
  }
}

// NOT_HOLDER unless `cell` is under the signer's lock; `what` names the cell (ring.ts too).
export async function checkHolder(signer: Signer, cell: Cell, what: string): Promise<void> {
  const signerLock = (await signer.getRecommendedAddressObj()).script;
  if (!cell.cellOutput.lock.eq(signerLock)) {
    throw new MmrLockError(
      "NOT_HOLDER",
      `${what} is locked by ${cell.cellOutput.lock.hash()}, not by the signer's lock ${signerLock.hash()}: only its holder can update it`,
    );
  }
}

export interface CreateOptions {
  /** The initial leaves: an MMR (all its leaves, or its first `leafCount`) or a list. */
  leaves: Mmr | readonly BytesLike[];
  leafCount?: number;
  /** Who may update the accumulator: its cell's lock; default the signer's. */
  lock?: ScriptLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
}

/**
 * A transaction, paid and completed by `signer` but not yet signed, whose output 0 is a new
 * accumulator (`CREATE`): data = the leaves' commitment, type = the accumulator type script
 * with the type id of the transaction's first input and output 0, capacity = exactly its
 * occupied capacity; witness 0's `output_type` carries the leaves.
 */
export async function createAccumulatorTx(
  signer: Signer,
  code: AccumulatorCode,
  options: CreateOptions,
): Promise<{ tx: Transaction; typeId: Hex }> {
  const leaves = options.leaves instanceof Mmr ? options.leaves : Mmr.from(options.leaves);
  const n = options.leafCount ?? leaves.leafCount;
  const createBytes = createPayload(leaves, n);
  const data = accumulatorData(commitmentAt(leaves, n));
  const lock = options.lock ?? (await signer.getRecommendedAddressObj()).script;
  const output = exactOutput(lock, accumulatorTypeScript(code, new Uint8Array(32)), data.length);
  const witness = accumulatorWitnessArgs(createBytes, true);
  checkWitnessSize(witness);
  const tx = Transaction.from({ outputs: [output], outputsData: [data] });
  tx.addCellDeps(accumulatorCodeDep(code));
  // CCC moves witnesses past the last input when it adds one (it takes them for output-only
  // witnesses), so witness 0 is set once input 0 exists, and before the fee is completed.
  await tx.completeInputsByCapacity(signer);
  tx.setWitnessArgsAt(0, witness);
  await tx.completeFeeBy(signer, options.feeRate ?? DEFAULT_FEE_RATE);
  // The type id depends on the first input, known only now; its 32 bytes replace 32 zeros,
  // so the size and the fee stay as completed.
  const typeId = hexFrom(typeIdOf(tx.inputs[0], 0));
  tx.outputs[0].type = accumulatorTypeScript(code, typeId);
  return { tx, typeId };
}

/** Creates an accumulator (see [`createAccumulatorTx`]) and sends it. */
export const createAccumulator = sender(createAccumulatorTx, (txHash, { typeId }) => ({
  txHash,
  typeId,
  outPoint: { txHash, index: 0 },
}));

// An update's transaction before the fee: `cells` in, `outputs` out, the code's dep, `witness`
// at index 0 (ring.ts too).
export function unfundedUpdate(
  code: AccumulatorCode,
  cells: readonly Cell[],
  outputs: CellOutput[],
  outputsData: BytesLike[],
  witness: WitnessArgs,
): Transaction {
  const inputs = cells.map((c) => ({ previousOutput: c.outPoint }));
  const tx = Transaction.from({ inputs, outputs, outputsData });
  tx.addCellDeps(accumulatorCodeDep(code));
  tx.setWitnessArgsAt(0, witness);
  return tx;
}

export interface UpdateOptions {
  /** The accumulator's type id (its type script's args). */
  typeId: BytesLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
  /** Replaces the payload the kit built (tests, custom encodings). */
  payloadOverride?: BytesLike;
}

export interface GrowOptions extends UpdateOptions {
  /** The whole MMR: its first leaves must be the accumulator's (else NOT_EXTENDING), the rest
   * are added. */
  mmr: Mmr;
}

/**
 * An update: input 0 and output 0 are the accumulator (same capacity, the new data and
 * lock), witness 0's `input_type` the payload; the signer, who must hold the accumulator
 * (else NOT_HOLDER), adds the fee's inputs and the change.
 */
async function updateTx(
  signer: Signer,
  code: AccumulatorCode,
  options: UpdateOptions,
  transition: (acc: Accumulator) => { data: Uint8Array; lock?: ScriptLike; payload: Uint8Array },
): Promise<{ tx: Transaction; accumulator: Accumulator }> {
  const acc = await findAccumulator(signer.client, code, options.typeId);
  await checkHolder(signer, acc.cell, `the accumulator ${acc.typeId}`);
  const next = transition(acc);
  const payloadBytes = options.payloadOverride !== undefined ? bytesFrom(options.payloadOverride) : next.payload;
  const witness = accumulatorWitnessArgs(payloadBytes, false);
  checkWitnessSize(witness);
  const output = CellOutput.from({ ...acc.cell.cellOutput, lock: next.lock ?? acc.cell.cellOutput.lock });
  if (occupied(output, next.data.length) > output.capacity) {
    throw new MmrLockError(
      "BAD_ARGS",
      `the accumulator's capacity ${output.capacity} is below its occupied capacity ${occupied(output, next.data.length)} shannons under the new lock`,
    );
  }
  const tx = unfundedUpdate(code, [acc.cell], [output], [next.data], witness);
  await tx.completeFeeBy(signer, options.feeRate ?? DEFAULT_FEE_RATE);
  return { tx, accumulator: acc };
}

function grow(options: GrowOptions, extend: boolean) {
  return (acc: Accumulator) => {
    checkExtends(acc, options.mmr);
    const n = options.mmr.leafCount;
    const payloadBytes = extend ? extendPayload(options.mmr, acc.leafCount, n) : appendPayload(options.mmr, acc.leafCount, n);
    return { data: accumulatorData(commitmentAt(options.mmr, n)), payload: payloadBytes };
  };
}

/** (`APPEND`) The accumulator grown to `options.mmr`: the old peaks and the new leaves travel
 * in the witness. Not yet signed; the accumulator is input 0 and output 0. */
export function appendAccumulatorTx(signer: Signer, code: AccumulatorCode, options: GrowOptions) {
  return updateTx(signer, code, options, grow(options, false));
}

/** (`EXTEND`) The accumulator grown to `options.mmr` by an ancestry proof: the new leaves stay
 * off chain, the witness is a few hashes whatever their number. */
export function extendAccumulatorTx(signer: Signer, code: AccumulatorCode, options: GrowOptions) {
  return updateTx(signer, code, options, grow(options, true));
}

/** (`KEEP`) The same data under the lock `options.to`: from then on only its holder can grow
 * the accumulator. */
export function handoverAccumulatorTx(signer: Signer, code: AccumulatorCode, options: UpdateOptions & { to: ScriptLike }) {
  return updateTx(signer, code, options, (acc) => ({
    data: accumulatorData(acc),
    lock: options.to,
    payload: keepPayload(),
  }));
}

/** What a sent update returns: the new accumulator is output 0. */
const replaced = (txHash: Hex, { accumulator }: { accumulator: Accumulator }) => ({ txHash, outPoint: { txHash, index: 0 }, before: accumulator });

/** Sends [`appendAccumulatorTx`]; returns its hash, the accumulator's new out point and the
 * accumulator it replaced. */
export const appendAccumulator = sender(appendAccumulatorTx, replaced);

/** Sends [`extendAccumulatorTx`]. */
export const extendAccumulator = sender(extendAccumulatorTx, replaced);

/** Sends [`handoverAccumulatorTx`]. */
export const handoverAccumulator = sender(handoverAccumulatorTx, replaced);

/** The MMR lock of `verifier` with by-reference args. */
export function byReferenceLockScript(verifier: Verifier, args: BytesLike): Script {
  const bytes = bytesFrom(args);
  parseByReferenceArgs(bytes);
  return verifierScript(verifier, bytes);
}

export interface LockByReferenceOptions {
  /** The accumulator (from [`findAccumulator`]) or its type script hash. */
  accumulator: { typeHash: HexLike };
  /** "plain" (args end in 0x02) or "owner" (0x03: spending needs an owner's input). */
  mode?: Mode;
  /** The cell's capacity in shannons; default 100 CKB; at least its occupied 74 CKB. */
  capacity?: NumLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
}

/** A transaction, completed by `signer` but not signed, whose output 0 is a new cell locked by
 * `verifier` by reference to the accumulator. No accumulator is read: the lock names its type
 * hash. */
export async function lockByReferenceTx(signer: Signer, verifier: Verifier, options: LockByReferenceOptions): Promise<Transaction> {
  const lock = byReferenceLockScript(verifier, byReferenceArgs(bytesFrom(options.accumulator.typeHash), options.mode ?? "plain"));
  return newCellTx(signer, lock, options);
}

/** Locks a cell by reference (see [`lockByReferenceTx`]) and sends it; the cell is output 0. */
export async function lockByReference(signer: Signer, verifier: Verifier, options: LockByReferenceOptions) {
  const txHash = await signer.sendTransaction(await lockByReferenceTx(signer, verifier, options));
  return { txHash, outPoint: { txHash, index: 0 } };
}

export interface SpendByReferenceOptions {
  /** The cell locked by reference. */
  cell: OutPointLike;
  /** The accumulator's code and type id: its live cell is read now and proved against. */
  code: AccumulatorCode;
  typeId: BytesLike;
  /** The MMR (at least the accumulator's leaves, its first ones the chain's) and the leaf
   * indexes to prove, below the accumulator's leaf count. */
  proof: { mmr: Mmr; indexes: readonly number[] };
  /** Owner mode (args ending in 0x03): `signer` is the owner, as in [`spendTx`]. */
  owner?: boolean;
  /** Who receives the cell's capacity less the fee; default the signer's lock. */
  to?: ScriptLike;
  /** Shannons per 1,000 bytes; default 1000. */
  feeRate?: NumLike;
  /** Replaces the payload built from the proof (tests, custom encodings). */
  payloadOverride?: BytesLike;
}

/**
 * The membership proof of `indexes` in the MMR the accumulator holds now (its first
 * `acc.leafCount` leaves). An MMR ahead of the chain is rebuilt at that size (O(n) merges).
 */
export function proofAgainst(acc: Pick<Accumulator, "root" | "mmrSize" | "leafCount" | "typeId">, mmr: Mmr, indexes: readonly number[]): MmrProof {
  checkExtends(acc, mmr);
  checkIndexes(indexes, acc.leafCount);
  if (mmr.leafCount === acc.leafCount) return mmr.proof(indexes);
  const prefix = new Mmr(acc.leafCount);
  for (let i = 0; i < acc.leafCount; i++) prefix.append(mmr.leaf(i));
  return prefix.proof(indexes);
}

/**
 * A signed transaction that spends a cell locked by reference: input 0 is the cell, witness 0
 * `WitnessArgs { lock: payload }` with a proof against the accumulator's current data, the
 * cell deps are the verifier's code cell and the accumulator's cell. Owner mode as
 * [`spendTx`]: the signer's lock hash must be a proved leaf, one of its cells joins, signed.
 * A transition committed after this read makes the accumulator dep dead and the node refuses
 * the spend: build it again.
 */
export async function spendByReferenceTx(
  signer: Signer,
  verifier: Verifier,
  options: SpendByReferenceOptions,
): Promise<{ tx: Transaction; accumulator: Accumulator }> {
  checkIndexes(options.proof.indexes, options.proof.mmr.leafCount);
  const acc = await findAccumulator(signer.client, options.code, options.typeId);
  const proof = proofAgainst(acc, options.proof.mmr, options.proof.indexes);
  const tx = await spendTx(signer, verifier, { ...options, proof, extraCellDeps: [accumulatorCellDep(acc)] });
  return { tx, accumulator: acc };
}

/** Spends a cell locked by reference (see [`spendByReferenceTx`]) and sends it. */
export async function spendByReference(signer: Signer, verifier: Verifier, options: SpendByReferenceOptions) {
  const { tx, accumulator } = await spendByReferenceTx(signer, verifier, options);
  return { txHash: await signer.client.sendTransaction(tx), accumulator };
}
