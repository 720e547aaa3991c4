// MMR arithmetic of ckb-merkle-mountain-range 0.6.1 on JavaScript numbers. Positions are
// 0-based node indexes in insertion order; every value here stays below 2^51, well inside
// Number.MAX_SAFE_INTEGER, so plain arithmetic is exact (bit tests use division, not the
// 32-bit bitwise operators).

import { MmrLockError } from "./errors.js";

/** The largest mmr_size the verifiers accept (docs/usage.md): 2^50. */
export const MAX_MMR_SIZE = 2 ** 50;

const TWO_32 = 0x100000000;

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Number of set bits of a non-negative safe integer. */
export function popcount(n: number): number {
  return popcount32(n % TWO_32) + popcount32(Math.floor(n / TWO_32));
}

/** Whether bit `h` of the non-negative integer `n` is set. */
export function bit(n: number, h: number): boolean {
  return Math.floor(n / 2 ** h) % 2 === 1;
}

/** The MMR position of leaf `index`: 2 * index - popcount(index). */
export function leafIndexToPosition(index: number): number {
  return 2 * index - popcount(index);
}

/** The size of an MMR of `leafCount` leaves: 2n - popcount(n). */
export function mmrSizeOf(leafCount: number): number {
  return 2 * leafCount - popcount(leafCount);
}

/** The position of the aligned node `(first, height)`, covering leaves [first, first + 2^height). */
export function nodePosition(first: number, height: number): number {
  return leafIndexToPosition(first) + 2 ** (height + 1) - 2;
}

// Greedy decomposition of `n` into perfect trees of strictly decreasing heights: returns the
// number of leaves they hold, or -1 if `n` is not such a sum.
function decompose(n: number): number {
  let rem = n;
  let leaves = 0;
  for (let h = 51; h >= 0; h--) {
    const tree = 2 ** (h + 1) - 1;
    if (rem >= tree) {
      rem -= tree;
      leaves += 2 ** h;
    }
  }
  return rem === 0 ? leaves : -1;
}

/**
 * The number of leaves of the MMR of `mmrSize` nodes. Throws MMR_SIZE_INVALID unless
 * `mmrSize` is the size of an MMR with at least one leaf and at most 2^50.
 */
export function leafCountOf(mmrSize: number): number {
  if (!Number.isSafeInteger(mmrSize) || mmrSize < 1 || mmrSize > MAX_MMR_SIZE) {
    throw new MmrLockError(
      "MMR_SIZE_INVALID",
      `mmr_size ${mmrSize} is not an integer between 1 and 2^50`,
    );
  }
  const leaves = decompose(mmrSize);
  if (leaves < 0 || mmrSizeOf(leaves) !== mmrSize) {
    throw new MmrLockError(
      "MMR_SIZE_INVALID",
      `mmr_size ${mmrSize} is not the size of any MMR (sizes are 2n - popcount(n): 1, 3, 4, 7, 8, 10, 11, ...)`,
    );
  }
  return leaves;
}

/** The leaf index at MMR position `position`; throws NOT_A_LEAF for an inner node. */
export function positionToLeafIndex(position: number): number {
  const index = Number.isSafeInteger(position) && position >= 0 ? decompose(position) : -1;
  if (index < 0 || leafIndexToPosition(index) !== position) {
    throw new MmrLockError("NOT_A_LEAF", `MMR position ${position} is not a leaf`);
  }
  return index;
}

/** A peak: the aligned node `(first, height)` at `position`. */
export interface Peak {
  first: number;
  height: number;
  position: number;
}

/** The peaks of an MMR of `leafCount` leaves, left to right (one per set bit, highest first). */
export function peaksOf(leafCount: number): Peak[] {
  const peaks: Peak[] = [];
  let first = 0;
  for (let h = 51; h >= 0; h--) {
    if (bit(leafCount, h)) {
      peaks.push({ first, height: h, position: nodePosition(first, h) });
      first += 2 ** h;
    }
  }
  return peaks;
}

/** The sorted leaf indexes under each peak, left to right (indexes sorted ascending). */
export function leavesByPeak(indexes: readonly number[], leafCount: number): { peak: Peak; leaves: number[] }[] {
  let next = 0;
  return peaksOf(leafCount).map((peak) => {
    const end = peak.first + 2 ** peak.height;
    const start = next;
    while (next < indexes.length && indexes[next] < end) next++;
    return { peak, leaves: indexes.slice(start, next) };
  });
}

/**
 * The positions of `MMR::gen_proof`'s items for the leaves at `indexes` (sorted) of an MMR of
 * `leafCount` leaves, and `bagged`: how many at the end are leafless peaks that the proof
 * replaces by their bagging (two or more; else 0).
 */
export function proofItemPositions(
  indexes: readonly number[],
  leafCount: number,
): { positions: number[]; bagged: number } {
  const positions: number[] = [];
  let trailingLeafless = 0;
  for (const { peak, leaves } of leavesByPeak(indexes, leafCount)) {
    if (leaves.length === 0) {
      positions.push(peak.position);
      trailingLeafless++;
    } else {
      trailingLeafless = 0;
      positions.push(...proofSiblings(leaves, peak.height));
    }
  }
  return { positions, bagged: trailingLeafless > 1 ? trailingLeafless : 0 };
}

/**
 * The positions of the nodes whose hashes upstream's proof takes as items for `leaves`
 * (sorted leaf indexes under one peak of `height`), in `gen_proof`'s order: its
 * breadth-first walk from the leaves up, where a node whose sibling is the next one in the
 * queue needs no item, and the walk stops at the peak.
 */
export function proofSiblings(leaves: readonly number[], height: number): number[] {
  const queue: [number, number][] = leaves.map((i) => [i, 0]);
  const out: number[] = [];
  for (let head = 0; head < queue.length; head++) {
    const [first, h] = queue[head];
    if (h === height) break;
    const sibling = bit(first, h) ? first - 2 ** h : first + 2 ** h;
    const following = queue[head + 1];
    if (following !== undefined && following[0] === sibling && following[1] === h) head++;
    else out.push(nodePosition(sibling, h));
    queue.push([Math.min(first, sibling), h + 1]);
  }
  return out;
}

/** u64 little endian of a non-negative safe integer, written at `out[offset..offset + 8]`. */
export function writeU64(out: Uint8Array, offset: number, value: number): void {
  let lo = value % TWO_32;
  let hi = Math.floor(value / TWO_32);
  for (let i = 0; i < 4; i++) {
    out[offset + i] = lo & 0xff;
    out[offset + 4 + i] = hi & 0xff;
    lo = Math.floor(lo / 256);
    hi = Math.floor(hi / 256);
  }
}

/** The u64 little endian at `bytes[at..at + 8]` (inexact above 2^53, where no MMR size is). */
export function readU64(bytes: Uint8Array, at: number): number {
  let v = 0;
  for (let i = 7; i >= 0; i--) v = v * 256 + bytes[at + i];
  return v;
}

/** u32 little endian. */
export function writeU32(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value & 0xff;
  out[offset + 1] = (value >>> 8) & 0xff;
  out[offset + 2] = (value >>> 16) & 0xff;
  out[offset + 3] = (value >>> 24) & 0xff;
}

/** `parts` one after another in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
