import { SignerCkbPrivateKey, type Hex } from "@ckb-ccc/core";
import {
  Mmr,
  appendRing,
  createRing,
  findRing,
  lockByReference,
  spendByReferenceRing,
  type AccumulatorCode,
  type Verifier,
} from "@ckb-mmr-verifiers/mmr-lock";
import { commit, devChainClient } from "@ckb-mmr-verifiers/mmr-lock/devchain";

// A ring of K snapshots: a spend proved against the newest snapshot stays valid while K - 1
// more appends are committed, so readers keep committing while the accumulator grows.
export async function ring(rpcUrl: string, key: Hex, code: AccumulatorCode, verifier: Verifier, leaves: Hex[], k = 8) {
  const signer = new SignerCkbPrivateKey(await devChainClient(rpcUrl), key);
  const mmr = Mmr.from(leaves.slice(0, 4));

  // CREATE: output 0 the head, outputs 1..=K the snapshots, type args = type id || K.
  const created = await createRing(signer, code, { leaves: mmr, k });
  await commit(rpcUrl, created.txHash);
  const id = { typeId: created.typeId, k };

  // By-reference args name the ring's type hash, which every snapshot carries.
  const locked = await lockByReference(signer, verifier, { accumulator: await findRing(signer.client, code, id) });
  await commit(rpcUrl, locked.txHash);

  // APPEND: consumes the head and the oldest snapshot, rewrites that snapshot as the newest.
  for (const leaf of leaves.slice(4)) mmr.append(leaf);
  const appended = await appendRing(signer, code, { ...id, mmr });
  await commit(rpcUrl, appended.txHash);

  // Proved against the newest snapshot, which rides as the cell dep; refused because it was
  // consumed meanwhile, the spend is rebuilt against the newest, within the time limit.
  // wait: false returns once the node accepts it (here we make the blocks ourselves).
  const spent = await spendByReferenceRing(signer, verifier, {
    ...id,
    cell: locked.outPoint,
    code,
    proof: { mmr, indexes: [mmr.leafCount - 1] },
    timeLimitMs: 60_000,
    wait: false,
  });
  await commit(rpcUrl, spent.txHash);
  return { typeId: created.typeId, spent: spent.txHash, snapshot: spent.snapshot };
}
