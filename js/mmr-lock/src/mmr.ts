// An append-only MMR identical to ckb-merkle-mountain-range 0.6.1 with CKB's blake2b merge:
// same positions, same root (peaks bagged right to left), same proof items in the same order
// as `MMR::gen_proof`. Nodes live in one growing byte buffer, 32 bytes per position.

import { bytesFrom, type BytesLike } from "@ckb-ccc/core";
import { LITTLE_ENDIAN, mergeInto, mergeWords } from "./blake2b.js";
import { MmrLockError } from "./errors.js";
import { leafIndexToPosition, mmrSizeOf, peaksOf, proofItemPositions } from "./positions.js";

/** A proved leaf: its 0-based leaf index, its MMR position and its 32-byte value. */
export interface ProvedLeaf {
  index: number;
  position: number;
  value: Uint8Array;
}

/**
 * A membership proof as `ckb-merkle-mountain-range` 0.6.1 produces it: the MMR's size, the
 * proved leaves sorted by index, and `MerkleProof::proof_items()` in upstream order.
 */
export interface MmrProof {
  mmrSize: number;
  leaves: ProvedLeaf[];
  items: Uint8Array[];
}

/** `value` as exactly 32 bytes; `what` names it in the error. */
export function bytes32(value: BytesLike, what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = value instanceof Uint8Array ? value : bytesFrom(value);
  } catch (e) {
    throw new MmrLockError("BAD_LENGTH", `${what} is not bytes: ${(e as Error).message}`);
  }
  if (bytes.length !== 32) {
    throw new MmrLockError("BAD_LENGTH", `${what} must be 32 bytes, got ${bytes.length}`);
  }
  return bytes;
}

/**
 * Checks that `indexes` is a non-empty, strictly ascending list of leaf indexes below
 * `leafCount`; throws EMPTY, INDEX_OUT_OF_RANGE or INDEXES_NOT_ASCENDING.
 */
export function checkIndexes(indexes: readonly number[], leafCount: number): void {
  if (indexes.length === 0) {
    throw new MmrLockError("EMPTY", "no leaf index to prove: give at least one");
  }
  for (let k = 0; k < indexes.length; k++) {
    const i = indexes[k];
    if (!Number.isSafeInteger(i) || i < 0 || i >= leafCount) {
      throw new MmrLockError(
        "INDEX_OUT_OF_RANGE",
        `leaf index ${i} (at ${k}) is out of range: the MMR has ${leafCount} leaves, indexes 0..${leafCount - 1}`,
      );
    }
    if (k > 0 && i <= indexes[k - 1]) {
      throw new MmrLockError(
        "INDEXES_NOT_ASCENDING",
        i === indexes[k - 1]
          ? `leaf index ${i} is given twice (at ${k - 1} and ${k}): indexes must be strictly ascending`
          : `leaf index ${i} (at ${k}) follows ${indexes[k - 1]}: indexes must be strictly ascending`,
      );
    }
  }
}

/** Bags `peaks` (left to right) right to left, `merge(right, left)`: the MMR's root; undefined
 * for none. */
export function bag(peaks: readonly Uint8Array[]): Uint8Array | undefined {
  if (peaks.length === 0) return undefined;
  const acc = peaks[peaks.length - 1].slice();
  for (let k = peaks.length - 2; k >= 0; k--) mergeInto(acc, 0, peaks[k], 0, acc, 0);
  return acc;
}

export class Mmr {
  private nodes: Uint8Array;
  // The same buffer as 32-bit words, for the word-level merge on little-endian hosts.
  private words: Uint32Array;
  private size = 0;
  private leaves = 0;

  /** An empty MMR; `capacityLeaves` preallocates room for that many leaves. */
  constructor(capacityLeaves = 1024) {
    this.nodes = new Uint8Array(32 * Math.max(1, mmrSizeOf(Math.max(1, capacityLeaves))));
    this.words = new Uint32Array(this.nodes.buffer);
  }

  /** An MMR of `leaves`, in order. */
  static from(leaves: Iterable<BytesLike>): Mmr {
    const list = Array.isArray(leaves) ? leaves : [...leaves];
    const mmr = new Mmr(list.length);
    for (const leaf of list) mmr.append(leaf);
    return mmr;
  }

  /** Number of leaves. */
  get leafCount(): number {
    return this.leaves;
  }

  /** Number of nodes: the mmr_size the lock's args commit to. */
  get mmrSize(): number {
    return this.size;
  }

  /** Bytes reserved for nodes (32 per position; the buffer doubles as it fills). */
  get bufferBytes(): number {
    return this.nodes.length;
  }

  /** Appends a 32-byte leaf; returns its leaf index. Throws BAD_LENGTH for other lengths. */
  append(leaf: BytesLike): number {
    const value =
      leaf instanceof Uint8Array && leaf.length === 32 ? leaf : bytes32(leaf, `leaf ${this.leaves}`);
    const index = this.leaves;
    // The new leaf completes one parent per trailing 1 bit of its index.
    let merges = 0;
    for (let n = index; n % 2 === 1; n = (n - 1) / 2) merges++;
    this.reserve(this.size + 1 + merges);
    const nodes = this.nodes;
    let pos = this.size;
    nodes.set(value, 32 * pos);
    for (let h = 0; h < merges; h++) {
      const left = pos - (2 ** (h + 1) - 1);
      if (LITTLE_ENDIAN) mergeWords(this.words, 8 * left, 8 * pos, 8 * (pos + 1));
      else mergeInto(nodes, 32 * left, nodes, 32 * pos, nodes, 32 * (pos + 1));
      pos++;
    }
    this.size = pos + 1;
    this.leaves = index + 1;
    return index;
  }

  private reserve(size: number): void {
    if (32 * size <= this.nodes.length) return;
    const grown = new Uint8Array(Math.max(32 * size, 2 * this.nodes.length));
    grown.set(this.nodes.subarray(0, 32 * this.size));
    this.nodes = grown;
    this.words = new Uint32Array(grown.buffer);
  }

  /** A copy of the node at MMR position `position`. */
  node(position: number): Uint8Array {
    if (!Number.isSafeInteger(position) || position < 0 || position >= this.size) {
      throw new MmrLockError(
        "INDEX_OUT_OF_RANGE",
        `MMR position ${position} is out of range: mmr_size is ${this.size}`,
      );
    }
    return this.nodes.slice(32 * position, 32 * position + 32);
  }

  /** A copy of leaf `index`. */
  leaf(index: number): Uint8Array {
    checkIndexes([index], this.leaves);
    return this.node(leafIndexToPosition(index));
  }

  /** The root: the peaks bagged right to left (`merge(right, left)`); a lone peak is the root. */
  root(): Uint8Array {
    if (this.leaves === 0) {
      throw new MmrLockError("EMPTY", "an empty MMR has no root: append a leaf first");
    }
    return bag(peaksOf(this.leaves).map((p) => this.node(p.position)))!;
  }

  /**
   * The proof of the leaves at `indexes` (strictly ascending leaf indexes below leafCount),
   * exactly `MMR::gen_proof` of their positions: per peak, the siblings met on upstream's
   * breadth-first walk towards the peak, or the peak's hash when no proved leaf is under it;
   * two or more leafless peaks at the right end are replaced by their bagging.
   */
  proof(indexes: readonly number[]): MmrProof {
    checkIndexes(indexes, this.leaves);
    const { positions, bagged } = proofItemPositions(indexes, this.leaves);
    const items = positions.map((p) => this.node(p));
    if (bagged > 0) items.push(bag(items.splice(items.length - bagged))!);
    return {
      mmrSize: this.size,
      leaves: indexes.map((index) => {
        const position = leafIndexToPosition(index);
        return { index, position, value: this.node(position) };
      }),
      items,
    };
  }
}
