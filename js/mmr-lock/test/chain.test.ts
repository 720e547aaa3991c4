// The kit on a real local CKB node (ckb 0.210.0 through devnet/'s ckb-devnet): each of the
// three verifiers locks and spends a cell, plain and owner mode, committed; forged spends are
// refused with the exit code parsed from the node's error. Skipped only with
// MMR_LOCK_NO_CHAIN=1; otherwise a missing node or tool fails the test.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SignerCkbPrivateKey, hexFrom, type Hex } from "@ckb-ccc/core";
import {
  Mmr,
  SHANNONS_PER_CKB,
  lockCell,
  payload,
  scriptFailure,
  spendCell,
  witness,
  type Verifier,
} from "../src/index.js";
import { commit, devChainClient, rpc } from "../src/devchain.js";
import { lockAndSpend } from "../examples/lock-and-spend.js";
import { ownerMode } from "../examples/owner.js";
import { SKIP_CHAIN as skip, VERIFIERS, deploy, startDevChain, taggedLeaves as leaves, type DevChain } from "./devnet.js";
import { vectors } from "./repo.js";

const hexToBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), "hex"));

interface RpcTx {
  transaction: { inputs: unknown[]; witnesses: Hex[] };
  tx_status: { status: string };
}

describe("on a local CKB dev chain", { skip, timeout: 900_000 }, () => {
  let chain: DevChain;
  const verifiers = new Map<string, Verifier>();

  before(async () => {
    chain = await startDevChain();
    for (const [name, format] of VERIFIERS) verifiers.set(name, deploy(chain, name, format));
  });

  after(() => chain?.stop());

  for (const [name] of VERIFIERS) {
    test(`${name}: plain mode, locked and spent, committed`, async () => {
      const v = verifiers.get(name)!;
      const ls = leaves(name, 37);
      const { locked, spent } = await lockAndSpend(chain.rpcUrl, chain.devKey, v, ls);
      const tx = await rpc<RpcTx>(chain.rpcUrl, "get_transaction", [spent]);
      assert.equal(tx.tx_status.status, "committed");
      assert.equal(tx.transaction.inputs.length, 1);
      const expected = witness(payload(Mmr.from(ls).proof([1]), v.format));
      assert.equal(tx.transaction.witnesses[0], hexFrom(expected), "witness 0 is the proof");
      assert.equal((await rpc<RpcTx>(chain.rpcUrl, "get_transaction", [locked])).tx_status.status, "committed");
      // The fee was completed after the witness was set: at 1,000 shannons/KB it is exactly
      // the serialized size (+4), proof included, taken from the 100-CKB cell.
      const client = await devChainClient(chain.rpcUrl);
      const sent = (await client.getTransaction(spent))!.transaction;
      const fee = 100n * SHANNONS_PER_CKB - sent.outputs[0].capacity;
      assert.equal(fee, BigInt(sent.toBytes().length + 4));
      assert.ok(fee > BigInt(expected.length), `fee ${fee} covers the ${expected.length}-byte witness`);
    });

    test(`${name}: owner mode, locked and spent with the owner's signed input, committed`, async () => {
      const v = verifiers.get(name)!;
      const { spent } = await ownerMode(chain.rpcUrl, chain.devKey, chain.ownerKey, v, leaves(name, 10));
      const tx = await rpc<RpcTx>(chain.rpcUrl, "get_transaction", [spent]);
      assert.equal(tx.tx_status.status, "committed");
      assert.equal(tx.transaction.inputs.length, 2, "the MMR cell and the owner's cell");
    });
  }

  test("a verifier deployed with a type id (hash_type type): locked and spent, plain and owner mode", async () => {
    const v = deploy(chain, "c-verifier", "compiled", true);
    assert.equal(v.hashType, "type");
    await lockAndSpend(chain.rpcUrl, chain.devKey, v, leaves("type id", 9));
    await ownerMode(chain.rpcUrl, chain.devKey, chain.ownerKey, v, leaves("type id owner", 3));
  });

  test("the reference seed (2520 leaves, 76 proved): spent with each verifier, fee from the size", async (t) => {
    const [ref] = vectors(["--reference"]);
    const mmr = Mmr.from(ref.leaves!);
    const client = await devChainClient(chain.rpcUrl);
    const signer = new SignerCkbPrivateKey(client, chain.devKey);
    for (const [name] of VERIFIERS) {
      const v = verifiers.get(name)!;
      const locked = await lockCell(signer, v, { mmr });
      await commit(chain.rpcUrl, locked.txHash);
      const spent = await spendCell(signer, v, { cell: locked.outPoint, proof: { mmr, indexes: ref.indexes } });
      await commit(chain.rpcUrl, spent);
      const tx = (await client.getTransaction(spent))!.transaction;
      assert.equal(tx.witnesses[0], hexFrom(witness(v.format === "compiled" ? hexToBytes(ref.compiled) : hexToBytes(ref.baseline))));
      const fee = 100n * SHANNONS_PER_CKB - tx.outputs[0].capacity;
      assert.equal(fee, BigInt(tx.toBytes().length + 4), `${name}: fee ${fee}`);
      const cycles = (await rpc<{ cycles: Hex | null }>(chain.rpcUrl, "get_transaction", [spent])).cycles;
      t.diagnostic(`${name}: ${tx.toBytes().length}-byte spend, fee ${fee} shannons, ${BigInt(cycles ?? "0x0")} cycles`);
    }
  });

  test("forged spends are refused with the lock's exit code", async () => {
    const client = await devChainClient(chain.rpcUrl);
    const signer = new SignerCkbPrivateKey(client, chain.devKey);
    const mmr = Mmr.from(leaves("forged", 20));
    for (const [name] of VERIFIERS) {
      const v = verifiers.get(name)!;
      const locked = await lockCell(signer, v, { mmr });
      await commit(chain.rpcUrl, locked.txHash);
      // A proof whose last byte (in the last proof item) is flipped: the root differs, 9.
      const forged = payload(mmr.proof([3, 4]), v.format);
      forged[forged.length - 1] ^= 1;
      const refused = await spendCell(signer, v, { cell: locked.outPoint, proof: { mmr, indexes: [3, 4] }, payloadOverride: forged }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(refused !== undefined, `${name}: the forged spend was accepted`);
      const failure = scriptFailure(refused);
      assert.ok(failure, `${name}: not a script failure: ${String(refused)}`);
      assert.deepEqual(failure, { exitCode: 9, source: "Inputs", index: 0, scriptKind: "Lock" }, name);
      // The honest proof still spends it.
      await commit(chain.rpcUrl, await spendCell(signer, v, { cell: locked.outPoint, proof: { mmr, indexes: [3, 4] } }));
    }
    // Owner mode without the owner's input: the proof verifies, then 80 OwnerNotFound.
    const v = verifiers.get("compiled-verifier")!;
    const owner = new SignerCkbPrivateKey(client, chain.ownerKey);
    const ownerHash = (await owner.getRecommendedAddressObj()).script.hash();
    const owned = Mmr.from([ownerHash, ...leaves("owned", 4)]);
    const locked = await lockCell(signer, v, { mmr: owned, mode: "owner" });
    await commit(chain.rpcUrl, locked.txHash);
    const refused = await spendCell(signer, v, { cell: locked.outPoint, proof: { mmr: owned, indexes: [0] } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(scriptFailure(refused)?.exitCode, 80, String(refused));
  });
});
