import { hexFrom } from "@ckb-ccc/core";
import { Mmr, lockArgs, payload, witness } from "@ckb-mmr-verifiers/mmr-lock";

// Leaves are any 32-byte values (hex or bytes), in order; leaf i has index i.
export function prove(leaves: string[], indexes: number[]) {
  const mmr = Mmr.from(leaves); // or new Mmr() and mmr.append(leaf), one at a time
  const root = mmr.root();
  const args = lockArgs(root, mmr.mmrSize); // 40 bytes; lockArgs(root, size, "owner"): 41
  const proof = mmr.proof(indexes); // strictly ascending leaf indexes
  const compiled = payload(proof, "compiled"); // for the C and compiled verifiers
  const baseline = payload(proof, "baseline"); // for the baseline verifier
  return {
    mmrSize: mmr.mmrSize,
    root: hexFrom(root),
    args: hexFrom(args),
    payload: hexFrom(compiled),
    baseline: hexFrom(baseline),
    witness: hexFrom(witness(compiled)), // WitnessArgs { lock: payload } at the cell's input
  };
}
