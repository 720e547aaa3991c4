import { compiledPayload, createFileStore, openFileStore } from "@ckb-mmr-verifiers/mmr-lock";

// A persistent MMR store on disk, the same files as crates/mmr-store's: appends keep only the
// peaks in memory; roots and proofs at any earlier size are read from the nodes.
export async function storeExample(dir: string, leaves: Uint8Array[]) {
  const store = await createFileStore(dir); // openFileStore(dir) later; one writer at a time
  await store.append(leaves.slice(0, 3)); // one durable commit per append
  await store.append(leaves.slice(3));
  const now = store.state(); // { mmrSize, leafCount, root }
  const earlier = await store.proof([0, 2], 4); // leaves 0 and 2 of the MMR of size 4
  await store.close();
  const reader = await openFileStore(dir, { readOnly: true });
  const report = await reader.check(); // rehashes every node and recorded root
  await reader.close();
  return { now, earlier: compiledPayload(earlier), report };
}
