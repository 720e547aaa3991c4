// What the lock reads: its args (root || mmr_size, plus the owner flag) and the witness
// (`WitnessArgs` whose `lock` field is the verifier's payload).

import { bytesFrom, WitnessArgs, type BytesLike } from "@ckb-ccc/core";
import { baselinePayload } from "./baseline.js";
import { compiledPayload } from "./compiled.js";
import { MmrLockError } from "./errors.js";
import { bytes32, type MmrProof } from "./mmr.js";
import { leafCountOf, readU64, writeU64 } from "./positions.js";

/** Plain: 40-byte args, anyone with a valid proof may spend. Owner: 41-byte args ending in
 * 0x01, a proved leaf must also be the lock hash of another input (docs/deploy.md). */
export type Mode = "plain" | "owner";

/** Payload formats: "baseline" for baseline-verifier, "compiled" for the C and compiled ones. */
export type Format = "baseline" | "compiled";

/** The owner flag, the 41st byte of owner-mode args. */
export const FLAG_OWNER = 0x01;

/** Lock args: root (32) || mmr_size (u64 LE), and 0x01 in owner mode. */
export function lockArgs(root: BytesLike, mmrSize: number, mode: Mode = "plain"): Uint8Array {
  leafCountOf(mmrSize);
  const out = new Uint8Array(mode === "owner" ? 41 : 40);
  out.set(bytes32(root, "root"), 0);
  writeU64(out, 32, mmrSize);
  if (mode === "owner") out[40] = FLAG_OWNER;
  return out;
}

/** Reads lock args back: root, mmr_size and mode. Throws BAD_ARGS or MMR_SIZE_INVALID. */
export function parseLockArgs(args: BytesLike): { root: Uint8Array; mmrSize: number; mode: Mode } {
  const bytes = bytesFrom(args);
  if (bytes.length !== 40 && !(bytes.length === 41 && bytes[40] === FLAG_OWNER)) {
    throw new MmrLockError(
      "BAD_ARGS",
      `MMR lock args are 40 bytes (plain) or 41 bytes ending in 0x01 (owner), got ${bytes.length} bytes`,
    );
  }
  const mmrSize = readU64(bytes, 32);
  leafCountOf(mmrSize);
  return { root: bytes.slice(0, 32), mmrSize, mode: bytes.length === 41 ? "owner" : "plain" };
}

/** The payload `format` reads for `proof`. */
export function payload(proof: MmrProof, format: Format): Uint8Array {
  switch (format) {
    case "baseline":
      return baselinePayload(proof);
    case "compiled":
      return compiledPayload(proof);
    default:
      throw new MmrLockError("BAD_ARGS", `unknown payload format ${String(format)}`);
  }
}

/** `WitnessArgs` with `lock` = the payload, `input_type` and `output_type` absent. */
export function witnessArgs(payloadBytes: BytesLike): WitnessArgs {
  return WitnessArgs.from({ lock: payloadBytes });
}

/** The molecule bytes of [`witnessArgs`]: the witness at the MMR cell's input. */
export function witness(payloadBytes: BytesLike): Uint8Array {
  return bytesFrom(witnessArgs(payloadBytes).toBytes());
}
