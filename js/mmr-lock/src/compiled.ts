// The compiler from an upstream proof to the compiled format (docs/compiled-format.md,
// section 5): replay upstream verification to give every proof item its role (the sibling
// of a node that derives from proved leaves, a whole leafless peak, or the bagging of all
// remaining peaks), then emit each peak's proof tree in post-order.

import { MmrLockError } from "./errors.js";
import { bytes32, type MmrProof } from "./mmr.js";
import { leafCountOf, leavesByPeak, nodePosition, proofSiblings, writeU32, writeU64 } from "./positions.js";

/** Opcodes of the compiled format. */
export const Op = {
  LEAF: 0x01,
  MERGE: 0x02,
  PROOF: 0x03,
  PEAK: 0x04,
  PEAK_PROOF: 0x05,
  BAG_RHS: 0x06,
} as const;

/** One command: an opcode and, for PROOF, PEAK_PROOF and BAG_RHS, its 32-byte item. */
export interface Command {
  op: number;
  item?: Uint8Array;
}

// What one peak becomes: a traversal of its proved leaves, or one item (PEAK_PROOF/BAG_RHS).
type PeakPlan = { kind: "leaves" } | { kind: "item" | "bag"; item: Uint8Array };

/** Sorted indexes in [lo, hi), found by binary search. */
function anyIn(indexes: readonly number[], lo: number, hi: number): boolean {
  let a = 0;
  let b = indexes.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (indexes[mid] < lo) a = mid + 1;
    else b = mid;
  }
  return a < indexes.length && indexes[a] < hi;
}

/**
 * The command stream for `proof`. Throws NOT_A_LEAF, INDEXES_NOT_ASCENDING, EMPTY,
 * MMR_SIZE_INVALID or PROOF_SHAPE (items too few, too many, or in a shape upstream would
 * bag into a wrong root). Hashes are not checked here.
 */
export function compileCommands(proof: MmrProof): Command[] {
  const leafCount = leafCountOf(proof.mmrSize);
  if (proof.leaves.length === 0) {
    throw new MmrLockError("EMPTY", "a proof needs at least one proved leaf");
  }
  const indexes = proof.leaves.map((l) => l.index);
  for (let k = 0; k < indexes.length; k++) {
    const i = indexes[k];
    if (!Number.isSafeInteger(i) || i < 0 || i >= leafCount) {
      throw new MmrLockError(
        "NOT_A_LEAF",
        `leaf index ${i} is not a leaf of an MMR of ${leafCount} leaves`,
      );
    }
    if (k > 0 && i <= indexes[k - 1]) {
      throw new MmrLockError(
        "INDEXES_NOT_ASCENDING",
        `proved leaves must be strictly ascending: ${i} follows ${indexes[k - 1]}`,
      );
    }
  }
  const items = proof.items.map((item, k) => bytes32(item, `proof item ${k}`));
  let nextItem = 0;
  const missing = () =>
    new MmrLockError(
      "PROOF_SHAPE",
      `the proof has ${items.length} items, fewer than verifying these ${indexes.length} leaves needs`,
    );

  // Replay upstream verification: siblings by node position, and a plan per peak.
  const byPeak = leavesByPeak(indexes, leafCount);
  const siblings = new Map<number, Uint8Array>();
  const plans: PeakPlan[] = [];
  let exhaustedAt = -1;
  for (let k = 0; k < byPeak.length; k++) {
    const { peak, leaves } = byPeak[k];
    if (leaves.length === 0) {
      if (nextItem === items.length) {
        exhaustedAt = k;
        break;
      }
      plans.push({ kind: "item", item: items[nextItem++] });
      continue;
    }
    for (const position of proofSiblings(leaves, peak.height)) {
      if (nextItem === items.length) throw missing();
      siblings.set(position, items[nextItem++]);
    }
    plans.push({ kind: "leaves" });
  }
  if (exhaustedAt >= 0) {
    // Upstream stops here and takes the previous item for the bagging of all remaining
    // peaks: right only if it was a leafless peak's item and no later peak holds a leaf.
    const last = plans.pop();
    const laterLeaves = byPeak.slice(exhaustedAt).some((p) => p.leaves.length > 0);
    if (last === undefined || last.kind !== "item" || laterLeaves) throw missing();
    plans.push({ kind: "bag", item: last.item });
  }
  if (nextItem !== items.length) {
    throw new MmrLockError(
      "PROOF_SHAPE",
      `the proof has ${items.length} items, but these ${indexes.length} leaves use only ${nextItem}`,
    );
  }

  const commands: Command[] = [];
  const emit = (first: number, height: number): void => {
    if (height === 0) {
      commands.push({ op: Op.LEAF });
      return;
    }
    const h = height - 1;
    const right = first + 2 ** h;
    const hasLeft = anyIn(indexes, first, right);
    const hasRight = anyIn(indexes, right, right + 2 ** h);
    if (hasLeft && hasRight) {
      emit(first, h);
      emit(right, h);
      commands.push({ op: Op.MERGE });
      return;
    }
    const [child, other] = hasLeft ? [first, right] : [right, first];
    emit(child, h);
    const item = siblings.get(nodePosition(other, h));
    if (item === undefined) throw missing();
    commands.push({ op: Op.PROOF, item });
  };
  plans.forEach((plan, k) => {
    if (plan.kind === "leaves") {
      emit(byPeak[k].peak.first, byPeak[k].peak.height);
      commands.push({ op: Op.PEAK });
    } else {
      commands.push({ op: plan.kind === "item" ? Op.PEAK_PROOF : Op.BAG_RHS, item: plan.item });
    }
  });
  return commands;
}

/** Serialises leaf records `(index, value)` and commands into a compiled payload. */
export function encodeCompiled(
  leaves: readonly { index: number; value: Uint8Array }[],
  commands: readonly Command[],
): Uint8Array {
  if (leaves.length > 0xffffffff) {
    throw new MmrLockError("TOO_MANY_LEAVES", `${leaves.length} leaves do not fit a u32 count`);
  }
  let size = 4 + 40 * leaves.length;
  for (const c of commands) size += c.item === undefined ? 1 : 33;
  const out = new Uint8Array(size);
  writeU32(out, 0, leaves.length);
  let at = 4;
  for (const leaf of leaves) {
    writeU64(out, at, leaf.index);
    out.set(leaf.value, at + 8);
    at += 40;
  }
  for (const c of commands) {
    out[at++] = c.op;
    if (c.item !== undefined) {
      out.set(c.item, at);
      at += 32;
    }
  }
  return out;
}

/**
 * The compiled payload (`WitnessArgs.lock` of the compiled and C verifiers) for `proof`:
 * byte for byte what `compiled_proof::compile` and tx-generator produce.
 */
export function compiledPayload(proof: MmrProof): Uint8Array {
  const commands = compileCommands(proof);
  return encodeCompiled(
    proof.leaves.map((l) => ({ index: l.index, value: bytes32(l.value, `leaf ${l.index}`) })),
    commands,
  );
}
