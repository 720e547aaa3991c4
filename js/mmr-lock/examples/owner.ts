import { SignerCkbPrivateKey, type Hex } from "@ckb-ccc/core";
import { Mmr, lockCell, spendCell, type Verifier } from "@ckb-mmr-verifiers/mmr-lock";
import { commit, devChainClient } from "@ckb-mmr-verifiers/mmr-lock/devchain";

// Owner mode: the leaves are owners' lock hashes; spending needs a proof of the owner's leaf
// and an input of the owner's, signed by the owner, in the same transaction.
export async function ownerMode(rpcUrl: string, payerKey: Hex, ownerKey: Hex, verifier: Verifier, others: Hex[]) {
  const client = await devChainClient(rpcUrl);
  const payer = new SignerCkbPrivateKey(client, payerKey);
  const owner = new SignerCkbPrivateKey(client, ownerKey);
  const ownerLockHash = (await owner.getRecommendedAddressObj()).script.hash();

  const mmr = Mmr.from([...others, ownerLockHash]); // an allowlist: the owner is the last leaf
  const locked = await lockCell(payer, verifier, { mmr, mode: "owner", feeRate: 1000n });
  await commit(rpcUrl, locked.txHash);

  // owner: true adds one of the owner's cells as input 1 and signs it; the proof must prove
  // the owner's leaf (checked before anything is sent).
  const spent = await spendCell(owner, verifier, {
    cell: locked.outPoint,
    proof: { mmr, indexes: [mmr.leafCount - 1] },
    owner: true,
    feeRate: 1000n,
  });
  await commit(rpcUrl, spent);
  return { locked: locked.txHash, spent };
}
