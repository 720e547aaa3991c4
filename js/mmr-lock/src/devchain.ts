// A CCC client for a local CKB dev chain (`ckb init --chain dev`), and the IntegrationTest
// calls that make blocks on it. Only for 127.0.0.1 dev chains: mainnet and testnet clients
// come with CCC (ClientPublicMainnet, ClientPublicTestnet).

import {
  ClientPublicTestnet,
  KnownScript,
  Script,
  hashCkb,
  hexFrom,
  type Hex,
  type HexLike,
  type ScriptInfoLike,
} from "@ckb-ccc/core";
import { TYPE_ID_CODE_HASH } from "./chain.js";
import { MmrLockError } from "./errors.js";

export { TYPE_ID_CODE_HASH };

/** Calls one JSON-RPC method of the node at `url`. */
export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: 1, jsonrpc: "2.0", method, params }),
  });
  if (!response.ok) {
    throw new MmrLockError("CHAIN", `${method}: HTTP ${response.status} from ${url}`);
  }
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) {
    throw new MmrLockError("CHAIN", `${method}: ${body.error.message} (${body.error.code})`);
  }
  return body.result as T;
}

interface RpcScript {
  code_hash: Hex;
  hash_type: "data" | "type" | "data1" | "data2";
  args: Hex;
}

/**
 * A CCC client for the dev chain at `url` (its RPC, e.g. http://127.0.0.1:8114): the system
 * scripts are read from its genesis block (secp256k1_blake160 in genesis tx 0 output 1, its
 * dep group in tx 1 output 0, the Nervos DAO in tx 0 output 2), and `fallbacks: []` keeps CCC
 * from falling back to public testnet URLs. CCC's private-key signer also asks for the
 * anyone-can-pay script, which a dev chain does not deploy: it gets a code hash no cell can
 * have, so it never matches.
 */
export async function devChainClient(url: string): Promise<ClientPublicTestnet> {
  const genesis = await rpc<{
    transactions: { hash: Hex; outputs: { type: RpcScript | null }[] }[];
  }>(url, "get_block_by_number", ["0x0"]);
  const [cellbase, depGroups] = genesis.transactions;
  const typeHash = (index: number): Hex => {
    const type = cellbase.outputs[index]?.type;
    if (!type) throw new MmrLockError("CHAIN", `genesis tx 0 output ${index} has no type script: not a dev chain?`);
    return scriptHash(type);
  };
  const scripts: Partial<Record<KnownScript, ScriptInfoLike>> = {
    [KnownScript.Secp256k1Blake160]: {
      codeHash: typeHash(1),
      hashType: "type",
      cellDeps: [{ cellDep: { outPoint: { txHash: depGroups.hash, index: 0 }, depType: "depGroup" } }],
    },
    [KnownScript.NervosDao]: {
      codeHash: typeHash(2),
      hashType: "type",
      cellDeps: [{ cellDep: { outPoint: { txHash: cellbase.hash, index: 2 }, depType: "code" } }],
    },
    [KnownScript.AnyoneCanPay]: {
      codeHash: hashCkb(new TextEncoder().encode("no anyone-can-pay lock on this dev chain")),
      hashType: "type",
      cellDeps: [],
    },
    [KnownScript.TypeId]: { codeHash: TYPE_ID_CODE_HASH, hashType: "type", cellDeps: [] },
  };
  return new ClientPublicTestnet({
    url,
    fallbacks: [],
    scripts: scripts as Record<KnownScript, ScriptInfoLike | undefined>,
  });
}

// The script hash of an RPC-JSON script: blake2b of its molecule encoding.
function scriptHash(s: RpcScript): Hex {
  return Script.from({ codeHash: s.code_hash, hashType: s.hash_type, args: s.args }).hash();
}

/** Makes `count` blocks (IntegrationTest `generate_block`); returns the last block's hash. */
export async function generateBlocks(url: string, count: number): Promise<Hex> {
  let hash = "0x" as Hex;
  for (let i = 0; i < count; i++) hash = await rpc<Hex>(url, "generate_block");
  return hash;
}

/** Waits until the node's indexer has reached the chain's tip, so cell queries (CCC's input
 * completion) see the latest blocks and never pick a cell that was just spent. */
export async function waitIndexer(url: string, timeoutMs = 60_000): Promise<void> {
  const tip = BigInt(await rpc<Hex>(url, "get_tip_block_number"));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const indexed = await rpc<{ block_number: Hex } | null>(url, "get_indexer_tip");
    if (indexed && BigInt(indexed.block_number) >= tip) return;
    if (Date.now() > deadline) throw new MmrLockError("CHAIN", `the indexer did not reach block ${tip}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Makes blocks until `txHash` is committed: at least 3 (the proposal window is (2, 10)), then
 * one per poll, up to `maxBlocks`; then waits for the indexer. Throws CHAIN if the node drops or rejects it.
 */
export async function commit(url: string, txHash: HexLike, maxBlocks = 30): Promise<void> {
  const hash = hexFrom(txHash);
  await generateBlocks(url, 3);
  for (let made = 3; made <= maxBlocks; made++) {
    const tx = await rpc<{ tx_status: { status: string; reason: string | null } } | null>(
      url,
      "get_transaction",
      [hash],
    );
    const status = tx?.tx_status.status;
    if (status === "committed") return waitIndexer(url);
    if (status === "rejected" || status === "unknown") {
      throw new MmrLockError("CHAIN", `transaction ${hash} is ${status}: ${tx?.tx_status.reason ?? "no reason given"}`);
    }
    await generateBlocks(url, 1);
  }
  throw new MmrLockError("CHAIN", `transaction ${hash} not committed after ${maxBlocks} blocks`);
}
