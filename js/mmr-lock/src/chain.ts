// Transactions with CCC: lock a cell with a deployed verifier, spend it with a proof, and
// owner mode (the owner's input is added and signed by the owner's signer).
//
// Every input the kit checks (leaves, indexes, args, the owner's leaf) is checked before the
// first RPC call, so a refused input never sends anything.

import { CellDep, Script, Transaction, bytesFrom, hexFrom, numFrom } from "@ckb-ccc/core";
import type { BytesLike, CellDepLike, Hex, HexLike, NumLike, OutPointLike, ScriptLike, Signer } from "@ckb-ccc/core";
import { MmrLockError } from "./errors.js";
import { lockArgs, parseLockArgs, payload, witnessArgs, type Format, type Mode } from "./lock.js";
import { bytes32, type Mmr, type MmrProof } from "./mmr.js";

/** A deployed verifier: its code cell and how scripts reference it. */
export interface Verifier {
  /** The code cell (dep_type code). */
  outPoint: OutPointLike;
  /** data2/data1: blake2b-256 of the binary; type: the hash of the code cell's type id script. */
  codeHash: HexLike;
  /** Never "data": VM version 0 lacks the B extension the verifiers use. */
  hashType: "data2" | "data1" | "type";
  /** "baseline" for baseline-verifier, "compiled" for the C and compiled verifiers. */
  format: Format;
}

/** The default fee rate of the helpers, shannons per 1,000 bytes: the node's minimum. */
export const DEFAULT_FEE_RATE = 1000n;

/** Shannons per CKB. */
export const SHANNONS_PER_CKB = 100_000_000n;

/** The type id script's code hash ("TYPE_ID"), the same on every chain. */
export const TYPE_ID_CODE_HASH = "0x00000000000000000000000000000000000000000000000000545950455f4944";

/** The MMR lock script for `args` (from [`lockArgs`]). */
export function mmrLockScript(verifier: Verifier, args: BytesLike): Script {
  const bytes = bytesFrom(args);
  parseLockArgs(bytes);
  return verifierScript(verifier, bytes);
}

/** BAD_ARGS for `hash_type` "data": VM version 0 lacks the B extension `user` (a sentence's
 * end: "the verifiers use") needs. */
export function refuseDataHashType(hashType: string, user: string): void {
  if (hashType === "data") {
    throw new MmrLockError(
      "BAD_ARGS",
      `hash_type "data" runs VM version 0, which lacks the B extension ${user}: use "data2" or "type"`,
    );
  }
}

/** A lock of `verifier` with args already checked; refuses `hash_type` "data". */
export function verifierScript(verifier: Verifier, args: Uint8Array): Script {
  refuseDataHashType(verifier.hashType, "the verifiers use");
  return Script.from({ codeHash: verifier.codeHash, hashType: verifier.hashType, args });
}

/** The verifier's code cell as a cell dep: every spend of an MMR-locked cell needs it. */
export function verifierCellDep(verifier: Verifier): CellDep {
  return CellDep.from({ outPoint: verifier.outPoint, depType: "code" });
}

/** Occupied capacity of a cell locked with `args` and no type or data: 8 + 33 + args, in shannons. */
export function occupiedCapacity(args: BytesLike): bigint {
  return BigInt(8 + 33 + bytesFrom(args).length) * SHANNONS_PER_CKB;
}

export interface LockOptions {
  /** The MMR (its root and size are committed to), or its root and mmr_size. */
  mmr: Mmr | { root: BytesLike; mmrSize: number };
  /** "plain" (40-byte args) or "owner" (41 bytes; spending needs an owner's input). */
  mode?: Mode;
  /** The new cell's capacity in shannons; default 100 CKB, enough to pay a spend's fee and
   * leave a 61-CKB change cell. At least the occupied capacity (81 or 82 CKB). */
  capacity?: NumLike;
  /** Shannons per 1,000 bytes; default 1000. Always explicit: CCC 1.12.5 cannot estimate
   * one on a fresh dev chain. */
  feeRate?: NumLike;
}

function rootAndSize(mmr: LockOptions["mmr"]): { root: Uint8Array; mmrSize: number } {
  if ("append" in mmr) return { root: mmr.root(), mmrSize: mmr.mmrSize };
  return { root: bytes32(mmr.root, "root"), mmrSize: mmr.mmrSize };
}

/**
 * (a) A transaction, paid and completed by `signer` but not yet signed, whose output 0 is a
 * new cell locked by the MMR lock of `verifier` with the args of `options.mmr`. Creating the
 * cell does not run the lock, so no cell dep is needed yet. Send it with
 * `signer.sendTransaction(tx)`; the cell is output 0.
 */
export async function lockTx(signer: Signer, verifier: Verifier, options: LockOptions): Promise<Transaction> {
  const { root, mmrSize } = rootAndSize(options.mmr);
  const args = lockArgs(root, mmrSize, options.mode ?? "plain");
  return newCellTx(signer, mmrLockScript(verifier, args), options);
}

/** A transaction, paid and completed by `signer` but not signed, whose output 0 is a new cell
 * under `lock` with `options.capacity` (default 100 CKB; BAD_ARGS below the cell's occupied
 * capacity) and no data. */
export async function newCellTx(
  signer: Signer,
  lock: Script,
  options: { capacity?: NumLike; feeRate?: NumLike },
): Promise<Transaction> {
  const capacity = numFrom(options.capacity ?? 100n * SHANNONS_PER_CKB);
  const need = occupiedCapacity(lock.args);
  if (capacity < need) {
    throw new MmrLockError("BAD_ARGS", `capacity ${capacity} is below the cell's occupied capacity ${need} shannons`);
  }
  const tx = Transaction.from({ outputs: [{ lock, capacity }], outputsData: ["0x"] });
  await tx.completeInputsByCapacity(signer);
  await tx.completeFeeBy(signer, options.feeRate ?? DEFAULT_FEE_RATE);
  return tx;
}

export interface SpendOptions {
  /** The MMR-locked cell to spend. */
  cell: OutPointLike;
  /** What to prove: a proof from `Mmr.proof`, or an MMR and the leaf indexes to prove. */
  proof: MmrProof | { mmr: Mmr; indexes: readonly number[] };
  /** Owner mode: `signer` is the owner; its lock hash must be a proved leaf, and one of its
   * cells is added as an input and signed. Must match the cell's args. */
  owner?: boolean;
  /** Who receives the cell's capacity less the fee; default the signer's own lock. */
  to?: ScriptLike;
  /** Shannons per 1,000 bytes; default 1000. The fee is computed from the size, witness
   * included (it is set before the fee is completed). */
  feeRate?: NumLike;
  /** Replaces the payload built from the proof (tests, custom encodings). */
  payloadOverride?: BytesLike;
  /** Cell deps after the verifier's (a by-reference spend's accumulator cell). */
  extraCellDeps?: CellDepLike[];
}

function proofOf(p: SpendOptions["proof"]): MmrProof {
  return "mmr" in p ? p.mmr.proof(p.indexes) : p;
}

/**
 * (b), (c) A signed transaction that spends `options.cell`: input 0 is the MMR cell, its
 * witness (the script group's first input) is `WitnessArgs` with the verifier's payload as
 * `lock`, set before the fee is completed so the fee pays for it; the verifier's code cell
 * is a cell dep. Output 0 receives the cell's capacity less the fee (and, in owner mode, the
 * owner's input). In owner mode the owner's input is added and signed by `signer`.
 */
export async function spendTx(signer: Signer, verifier: Verifier, options: SpendOptions): Promise<Transaction> {
  const proof = proofOf(options.proof);
  const lockPayload =
    options.payloadOverride !== undefined ? bytesFrom(options.payloadOverride) : payload(proof, verifier.format);
  const owner = options.owner ?? false;
  // The signer's script is derived locally (no RPC) for the CKB private-key signer.
  const signerLock = (await signer.getRecommendedAddressObj()).script;
  if (owner) {
    const ownerHash = hexFrom(signerLock.hash());
    if (!proof.leaves.some((l) => hexFrom(l.value) === ownerHash)) {
      throw new MmrLockError(
        "OWNER_NOT_PROVED",
        `the owner's lock hash ${ownerHash} is not one of the proved leaves: the lock would exit 80 (OwnerNotFound)`,
      );
    }
  }
  const tx = Transaction.from({
    inputs: [{ previousOutput: options.cell }],
    outputs: [{ lock: options.to ?? signerLock, capacity: 0n }],
    outputsData: ["0x"],
  });
  tx.addCellDeps(verifierCellDep(verifier), ...(options.extraCellDeps ?? []));
  tx.setWitnessArgsAt(0, witnessArgs(lockPayload));
  if (owner) await tx.completeInputsAddOne(signer);
  // Output 0 takes everything but the fee; with shouldAddInputs false the MMR cell (and the
  // owner's input) pay, and CCC computes the fee from the serialized size.
  await tx.completeFeeChangeToOutput(signer, 0, options.feeRate ?? DEFAULT_FEE_RATE, undefined, {
    shouldAddInputs: false,
  });
  return signer.signTransaction(tx);
}

/** Locks a cell (see [`lockTx`]) and sends it; returns the transaction hash and the cell. */
export async function lockCell(
  signer: Signer,
  verifier: Verifier,
  options: LockOptions,
): Promise<{ txHash: Hex; outPoint: { txHash: Hex; index: number } }> {
  const tx = await lockTx(signer, verifier, options);
  const txHash = await signer.sendTransaction(tx);
  return { txHash, outPoint: { txHash, index: 0 } };
}

/** The function that sends what `build` builds: it takes `build`'s arguments, sends the built
 * `tx` with `signer` and returns `report` of its hash and of the rest `build` returned. */
export function sender<C, O, B extends { tx: Transaction }, R>(
  build: (signer: Signer, code: C, options: O) => Promise<B>,
  report: (txHash: Hex, built: B) => R,
): (signer: Signer, code: C, options: O) => Promise<R> {
  return async (signer, code, options) => {
    const built = await build(signer, code, options);
    return report(await signer.sendTransaction(built.tx), built);
  };
}

/** Spends a cell (see [`spendTx`]) and sends it; returns the transaction hash. */
export async function spendCell(signer: Signer, verifier: Verifier, options: SpendOptions): Promise<Hex> {
  const tx = await spendTx(signer, verifier, options);
  return signer.client.sendTransaction(tx);
}

/** A script's rejection as the node reports it. */
export interface ScriptFailure {
  /** The script's exit code (an i8, as the node prints it): docs/error-codes.md. */
  exitCode: number;
  /** "Inputs" or "Outputs", the index, and "Lock" or "Type", when the message names them. */
  source?: string;
  index?: number;
  scriptKind?: string;
}

/**
 * The exit code from a node's "ValidationFailure: see error code N" error (CCC's
 * `ErrorClientVerification.errorCode` keeps only the last digit in 1.12.5, so the message is
 * parsed here), or undefined when `error` is not a script failure.
 */
export function scriptFailure(error: unknown): ScriptFailure | undefined {
  const e = error as { message?: unknown; data?: unknown };
  const text = [e?.message, e?.data].filter((x) => typeof x === "string").join("\n");
  const code = /ValidationFailure: see error code (-?\d+)/.exec(text);
  if (code === null) return undefined;
  const where = /source: (Inputs|Outputs)\[(\d+)\]\.(Lock|Type)/.exec(text);
  return {
    exitCode: Number(code[1]),
    ...(where ? { source: where[1], index: Number(where[2]), scriptKind: where[3] } : {}),
  };
}
