// The baseline verifier's payload (docs/baseline-format.md): n (u32), n records of
// (MMR position u64, value), m (u32), m proof items, all little endian, nothing after.

import { MmrLockError } from "./errors.js";
import { bytes32, checkIndexes, type MmrProof } from "./mmr.js";
import { leafCountOf, leafIndexToPosition, writeU32, writeU64 } from "./positions.js";

/**
 * The baseline payload for `proof`: byte for byte what `baseline_proof::encode` and
 * tx-generator produce. Throws for an invalid mmr_size, no leaves, indexes out of range or
 * not strictly ascending, or values that are not 32 bytes.
 */
export function baselinePayload(proof: MmrProof): Uint8Array {
  const leafCount = leafCountOf(proof.mmrSize);
  checkIndexes(
    proof.leaves.map((l) => l.index),
    leafCount,
  );
  if (proof.leaves.length > 0xffffffff || proof.items.length > 0xffffffff) {
    throw new MmrLockError("TOO_MANY_LEAVES", "leaf or item count does not fit a u32");
  }
  const n = proof.leaves.length;
  const m = proof.items.length;
  const out = new Uint8Array(8 + 40 * n + 32 * m);
  writeU32(out, 0, n);
  let at = 4;
  for (const leaf of proof.leaves) {
    writeU64(out, at, leafIndexToPosition(leaf.index));
    out.set(bytes32(leaf.value, `leaf ${leaf.index}`), at + 8);
    at += 40;
  }
  writeU32(out, at, m);
  at += 4;
  proof.items.forEach((item, k) => {
    out.set(bytes32(item, `proof item ${k}`), at);
    at += 32;
  });
  return out;
}
