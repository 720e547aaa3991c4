import { SignerCkbPrivateKey, type Hex } from "@ckb-ccc/core";
import { Mmr, lockCell, spendCell, type Verifier } from "@ckb-mmr-verifiers/mmr-lock";
import { commit, devChainClient } from "@ckb-mmr-verifiers/mmr-lock/devchain";

// Lock a cell with the MMR of `leaves`, then spend it with a proof of leaf 1 (plain mode).
export async function lockAndSpend(rpcUrl: string, privateKey: Hex, verifier: Verifier, leaves: Hex[]) {
  const client = await devChainClient(rpcUrl); // a dev chain; ClientPublicTestnet/Mainnet otherwise
  const signer = new SignerCkbPrivateKey(client, privateKey);
  const mmr = Mmr.from(leaves);

  // A new cell locked by { code_hash, hash_type, args: root || mmr_size }, paid by the signer.
  const locked = await lockCell(signer, verifier, { mmr, feeRate: 1000n });
  await commit(rpcUrl, locked.txHash); // dev chain: makes blocks until committed

  // Input 0 is the cell, its witness the proof; the cell's capacity less the fee goes to the
  // signer's lock (or `to`). The fee is computed from the size, proof included.
  const spent = await spendCell(signer, verifier, {
    cell: locked.outPoint,
    proof: { mmr, indexes: [1] },
    feeRate: 1000n,
  });
  await commit(rpcUrl, spent);
  return { locked: locked.txHash, spent };
}
