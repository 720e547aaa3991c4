import { SignerCkbPrivateKey, type Hex } from "@ckb-ccc/core";
import {
  Mmr,
  appendAccumulator,
  createAccumulator,
  findAccumulator,
  lockByReference,
  spendByReference,
  type AccumulatorCode,
  type Verifier,
} from "@ckb-mmr-verifiers/mmr-lock";
import { commit, devChainClient } from "@ckb-mmr-verifiers/mmr-lock/devchain";

// An accumulator that grows on chain, and a cell locked by reference to it: the lock proves
// against whatever the accumulator holds when the cell is spent.
export async function accumulator(rpcUrl: string, key: Hex, code: AccumulatorCode, verifier: Verifier, leaves: Hex[]) {
  const signer = new SignerCkbPrivateKey(await devChainClient(rpcUrl), key);
  const mmr = Mmr.from(leaves.slice(0, 4));

  // CREATE: output 0 is the accumulator (data = root || mmr_size, type args = its type id);
  // the leaves travel in the witness and the type script computes the root from them.
  const created = await createAccumulator(signer, code, { leaves: mmr });
  await commit(rpcUrl, created.txHash);
  const acc = await findAccumulator(signer.client, code, created.typeId);

  // Args = the accumulator's type hash || 0x02 (|| 0x03 with mode: "owner"); no root in them.
  const locked = await lockByReference(signer, verifier, { accumulator: acc });
  await commit(rpcUrl, locked.txHash);

  // APPEND the rest: refused before sending unless the MMR's first leaves are the chain's.
  for (const leaf of leaves.slice(4)) mmr.append(leaf);
  const appended = await appendAccumulator(signer, code, { typeId: created.typeId, mmr });
  await commit(rpcUrl, appended.txHash);

  // Spend by a leaf appended after locking: the proof is built against the accumulator's
  // current root, and its cell joins the verifier's as a cell dep.
  const spent = await spendByReference(signer, verifier, {
    cell: locked.outPoint,
    code,
    typeId: created.typeId,
    proof: { mmr, indexes: [mmr.leafCount - 1] },
  });
  await commit(rpcUrl, spent.txHash);
  return { typeId: created.typeId, locked: locked.txHash, spent: spent.txHash };
}
