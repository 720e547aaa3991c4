// The compiled verifiers' payload, the compact format (version 2, docs/compiled-format.md): a
// version byte, the number of proved leaves and their index gaps as varints, the leaf values,
// then the proof items in the order the verifier's walk takes them (section 4). The compiler
// (section 5) replays upstream verification to give every `gen_proof` item its role (the
// sibling of a node, a leafless peak, the bagging of the peaks right of the last proved leaf),
// then walks each peak the way the verifier does.

import { MmrLockError } from "./errors.js";
import { bytes32, checkIndexes, type MmrProof } from "./mmr.js";
import { bit, concatBytes, leafCountOf, leavesByPeak, nodePosition, proofSiblings } from "./positions.js";

/** The compact format's version byte, the payload's first. */
export const COMPACT_VERSION = 0x02;

/** A proved leaf as the payload holds it: its leaf index and 32-byte value. */
export interface CompactLeaf {
  index: number;
  value: Uint8Array;
}

const TWO_32 = 0x100000000;
// Leaf counts the verifiers accept are below this (spec, step 1), so indexes are too.
const MAX_LEAF_COUNT = 2 ** 50;

// The highest bit in which `a` and `b` (distinct, below 2^51) differ; the 32-bit operators
// only see the low word, so the two words are compared apart.
function highestDifferingBit(a: number, b: number): number {
  const hi = (Math.floor(a / TWO_32) ^ Math.floor(b / TWO_32)) >>> 0;
  if (hi !== 0) return 63 - Math.clz32(hi);
  return 31 - Math.clz32(((a % TWO_32) ^ (b % TWO_32)) >>> 0);
}

/**
 * The items of `proof` (upstream `proof_items()` order) in the order the version 2 verifier
 * takes them. Throws MMR_SIZE_INVALID, EMPTY, INDEX_OUT_OF_RANGE, INDEXES_NOT_ASCENDING,
 * BAD_LENGTH, or PROOF_SHAPE: items too few or too many, a shape upstream would bag into a
 * wrong root, or two or more leafless peaks right of the last proved leaf given one item
 * each (version 2 takes their bagging, one item, as `gen_proof` and `Mmr.proof` give it).
 * Hashes are not checked here.
 */
export function compactItems(proof: MmrProof): Uint8Array[] {
  const leafCount = leafCountOf(proof.mmrSize);
  const indexes = proof.leaves.map((l) => l.index);
  checkIndexes(indexes, leafCount);
  const items = proof.items.map((item, k) => bytes32(item, `proof item ${k}`));
  let nextItem = 0;
  const missing = () =>
    new MmrLockError(
      "PROOF_SHAPE",
      `the proof has ${items.length} items, fewer than verifying these ${indexes.length} leaves needs`,
    );

  // Replay upstream verification: siblings by node position, one item per leafless peak.
  const byPeak = leavesByPeak(indexes, leafCount);
  const siblings = new Map<number, Uint8Array>();
  const peakItems: Uint8Array[] = [];
  let exhaustedAt = -1;
  for (let k = 0; k < byPeak.length; k++) {
    const { peak, leaves } = byPeak[k];
    if (leaves.length === 0) {
      if (nextItem === items.length) {
        exhaustedAt = k;
        break;
      }
      peakItems[k] = items[nextItem++];
      continue;
    }
    for (const position of proofSiblings(leaves, peak.height)) {
      if (nextItem === items.length) throw missing();
      siblings.set(position, items[nextItem++]);
    }
  }
  // Upstream stops at the first peak left without an item and takes the one before for the
  // bagging of all the remaining peaks: right only if that was a leafless peak's item and no
  // later peak holds a leaf.
  if (exhaustedAt >= 0) {
    const laterLeaves = byPeak.slice(exhaustedAt).some((p) => p.leaves.length > 0);
    if (exhaustedAt === 0 || peakItems[exhaustedAt - 1] === undefined || laterLeaves) throw missing();
  }
  if (nextItem !== items.length) {
    throw new MmrLockError(
      "PROOF_SHAPE",
      `the proof has ${items.length} items, but these ${indexes.length} leaves use only ${nextItem}`,
    );
  }

  const out: Uint8Array[] = [];
  let lastWithLeaves = -1;
  byPeak.forEach((p, k) => {
    if (p.leaves.length > 0) lastWithLeaves = k;
  });
  for (let k = 0; k < byPeak.length; k++) {
    const { peak, leaves } = byPeak[k];
    if (leaves.length === 0) {
      out.push(peakItems[k]);
      // The first leafless peak right of the last proved leaf, with more peaks after it: its
      // item must be upstream's bagging of it and all the rest, and the walk ends here.
      if (k > lastWithLeaves && k < byPeak.length - 1) {
        if (exhaustedAt !== k + 1) {
          throw new MmrLockError(
            "PROOF_SHAPE",
            `the ${byPeak.length - k} peaks right of the last proved leaf are given one item each; ` +
              "the compact format takes their bagging as one item (as Mmr.proof and gen_proof give it)",
          );
        }
        break;
      }
      continue;
    }
    // The verifier's walk: each leaf rises to the height where the next one of this peak
    // joins it (or to the peak); a right child whose left sibling subtree holds the previous
    // leaf merges with that waiting node, every other step takes an item.
    const pending: boolean[] = [];
    leaves.forEach((index, j) => {
      const stop = j + 1 < leaves.length ? highestDifferingBit(index, leaves[j + 1]) : peak.height;
      let first = index;
      for (let h = 0; h < stop; h++) {
        const right = bit(index, h);
        if (right && pending[h]) {
          pending[h] = false;
        } else {
          const item = siblings.get(nodePosition(right ? first - 2 ** h : first + 2 ** h, h));
          if (item === undefined) throw missing();
          out.push(item);
        }
        if (right) first -= 2 ** h;
      }
      if (stop < peak.height) pending[stop] = true;
    });
  }
  return out;
}

// Appends `value` (a non-negative safe integer) as an unsigned LEB128 varint: 7 bits per
// byte, low groups first, the high bit set on every byte but the last.
function pushVarint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
}

/**
 * Serialises proved leaves (strictly ascending leaf indexes, 32-byte values) and items (in the
 * verifier's order, see `compactItems`) into a version 2 payload, as given: the MMR is not
 * known here, so nothing says the items fit it. Throws EMPTY, INDEX_OUT_OF_RANGE,
 * INDEXES_NOT_ASCENDING or BAD_LENGTH for what cannot be written.
 */
export function encodeCompact(leaves: readonly CompactLeaf[], items: readonly Uint8Array[]): Uint8Array {
  const indexes = leaves.map((l) => l.index);
  indexes.forEach((i, k) => {
    if (!Number.isSafeInteger(i) || i < 0 || i >= MAX_LEAF_COUNT) {
      throw new MmrLockError(
        "INDEX_OUT_OF_RANGE",
        `leaf index ${i} (at ${k}) is not the index of a leaf of any MMR (integers 0 to 2^50 - 1)`,
      );
    }
  });
  // Range is checked above: this adds EMPTY and INDEXES_NOT_ASCENDING, in the kit's words.
  checkIndexes(indexes, MAX_LEAF_COUNT);
  const values = leaves.map((l) => bytes32(l.value, `leaf ${l.index}`));
  const hashes = items.map((item, k) => bytes32(item, `proof item ${k}`));
  const header: number[] = [COMPACT_VERSION];
  pushVarint(header, leaves.length);
  let next = 0;
  for (const { index } of leaves) {
    pushVarint(header, index - next);
    next = index + 1;
  }
  return concatBytes([Uint8Array.from(header), ...values, ...hashes]);
}

/**
 * The compiled payload (`WitnessArgs.lock` of the compiled and C verifiers) for `proof`, in
 * the compact format (version 2): byte for byte what `compiled_proof::compile_compact`,
 * tx-generator and the Rust SDK produce. Throws as `compactItems` does.
 */
export function compiledPayload(proof: MmrProof): Uint8Array {
  const items = compactItems(proof);
  return encodeCompact(
    proof.leaves.map((l) => ({ index: l.index, value: l.value })),
    items,
  );
}
