// The accumulator from TypeScript on a real local CKB node (ckb 0.210.0 through ckb-devnet):
// create, lock by reference (plain and owner), append, spend by a leaf appended after
// locking, extend by an ancestry proof, hand over, and the refusals: the kit's before
// anything is sent, the scripts' with their exit codes. Cross-checked with the Rust client
// (`ckb-devnet acc show`, `acc append`). Skipped only with MMR_LOCK_NO_CHAIN=1.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { WitnessArgs, hexFrom, type Hex, type Script } from "@ckb-ccc/core";
import {
  Mmr,
  MmrLockError,
  appendAccumulator,
  appendPayload,
  byReferenceArgs,
  commitmentAt,
  createAccumulator,
  extendAccumulator,
  extendPayload,
  findAccumulator,
  handoverAccumulator,
  lockByReference,
  payload,
  proofAgainst,
  scriptFailure,
  spendByReference,
  witness,
  type Accumulator,
  type AccumulatorCode,
  type MmrLockErrorCode,
  type Verifier,
} from "../src/index.js";
import { commit, devChainClient } from "../src/devchain.js";
import { accumulator as accumulatorExample } from "../examples/accumulator.js";
import { SKIP_CHAIN as skip, deploy, deployAccumulatorCode, devSigners, startDevChain, taggedLeaves as leaves, type DevChain } from "./devnet.js";
import { inTempDir, sendsDuring } from "./helpers.js";
import { REPO, cargoBinary } from "./repo.js";

/** `ckb-devnet ARGS --json`'s last line, parsed. */
function devnet(args: string[]): Record<string, unknown> {
  const out = execFileSync(cargoBinary("ckb-devnet"), [...args, "--json"], {
    cwd: REPO,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out.trim().split("\n").pop()!) as Record<string, unknown>;
}

/** `f` is refused by the kit with `code` and sends nothing. */
async function refusedBeforeSending(f: () => Promise<unknown>, code: MmrLockErrorCode, message: RegExp): Promise<void> {
  const { error, sends } = await sendsDuring(f);
  assert.ok(error instanceof MmrLockError, `not refused by the kit: ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, message);
  assert.equal(sends, 0, "nothing may be sent");
}

/** `f` reaches the node, which refuses it: the script's failure. */
async function refusedByNode(f: () => Promise<unknown>) {
  const { error, sends } = await sendsDuring(f);
  assert.ok(error !== undefined, "the node accepted it");
  assert.equal(sends, 1, `sent once, then refused: ${String(error)}`);
  const failure = scriptFailure(error);
  assert.ok(failure, `not a script failure: ${String(error)}`);
  return failure;
}

describe("the accumulator from TypeScript on a local CKB dev chain", { skip, timeout: 900_000 }, () => {
  let chain: DevChain;
  let code: AccumulatorCode;
  let compiled: Verifier;
  let baseline: Verifier;
  // A fresh client per step: the Rust client spends cells CCC's cache would still offer.
  const signers = () => devSigners(chain);

  before(async () => {
    chain = await startDevChain();
    code = deployAccumulatorCode(chain);
    compiled = deploy(chain, "compiled-verifier", "compiled");
    baseline = deploy(chain, "baseline-verifier", "baseline");
  });

  after(() => chain?.stop());

  test("examples/accumulator.ts: create, lock by reference, append, spend by a leaf appended after locking", async () => {
    const ls = leaves("example", 9);
    const { typeId, spent } = await accumulatorExample(chain.rpcUrl, chain.devKey, code, compiled, ls);
    const client = await devChainClient(chain.rpcUrl);
    const acc = await findAccumulator(client, code, typeId);
    assert.equal(acc.leafCount, 9);
    assert.equal(hexFrom(acc.root), hexFrom(Mmr.from(ls).root()));
    const tx = (await client.getTransaction(spent))!.transaction;
    assert.equal(tx.witnesses[0], hexFrom(witness(payload(Mmr.from(ls).proof([8]), "compiled"))));
    assert.deepEqual(
      tx.cellDeps.slice(0, 2).map((d) => d.outPoint.txHash),
      [hexFrom(compiled.outPoint.txHash), acc.cell.outPoint.txHash],
      "the verifier's code cell, then the accumulator",
    );
  });

  describe("one accumulator through every transition", () => {
    // The MMR the app keeps; the chain follows it.
    let mmr: Mmr;
    let typeId: Hex;
    let acc: Accumulator;
    let plainCell: { txHash: Hex; index: number };
    let ownerCell: { txHash: Hex; index: number };
    let secondLock: Script;
    let ownerIndex: number;
    const rustShow = () => devnet(["acc", "show", "--type-id", typeId, "--rpc", chain.rpcUrl]);
    const live = async () => findAccumulator((await signers()).admin.client, code, typeId);
    const sameAsLocal = async (what: string) => {
      acc = await live();
      const local = commitmentAt(mmr);
      assert.equal(hexFrom(acc.root), hexFrom(local.root), `${what}: root`);
      assert.equal(acc.mmrSize, local.mmrSize, `${what}: mmr_size`);
      const rust = rustShow();
      assert.equal(rust.root, hexFrom(local.root), `${what}: ckb-devnet acc show's root`);
      assert.equal(rust.mmr_size, local.mmrSize, `${what}: ckb-devnet acc show's mmr_size`);
      assert.equal(rust.type_hash, acc.typeHash, `${what}: ckb-devnet acc show's type hash`);
    };

    test("create (7 leaves): the chain and ckb-devnet acc show hold the kit's root and size", async () => {
      const { admin, second } = await signers();
      secondLock = (await second.getRecommendedAddressObj()).script;
      mmr = Mmr.from(leaves("acc", 7));
      const created = await createAccumulator(admin, code, { leaves: mmr });
      await commit(chain.rpcUrl, created.txHash);
      typeId = created.typeId;
      await sameAsLocal("created");
      assert.equal(acc.cell.outPoint.txHash, created.txHash);
      assert.equal(acc.cell.cellOutput.capacity, 166n * 100_000_000n, "exactly the occupied 166 CKB");
      assert.equal(rustShow().type_id, typeId);
    });

    test("lock two cells by reference (plain, owner)", async () => {
      const { admin } = await signers();
      const plain = await lockByReference(admin, compiled, { accumulator: acc });
      await commit(chain.rpcUrl, plain.txHash);
      const owner = await lockByReference(admin, compiled, { accumulator: acc, mode: "owner" });
      await commit(chain.rpcUrl, owner.txHash);
      plainCell = plain.outPoint;
      ownerCell = owner.outPoint;
      const client = admin.client;
      for (const [cell, mode] of [[plainCell, "plain"], [ownerCell, "owner"]] as const) {
        const output = (await client.getTransaction(cell.txHash))!.transaction.outputs[0];
        assert.equal(output.lock.args, hexFrom(byReferenceArgs(acc.typeHash, mode)), mode);
      }
    });

    test("append 5 leaves (the second key's lock hash among them): the witness is the kit's APPEND payload", async () => {
      const { admin } = await signers();
      const before = mmr.leafCount;
      for (const l of leaves("acc", 2, 7)) mmr.append(l);
      ownerIndex = mmr.append(secondLock.hash());
      for (const l of leaves("acc", 2, 10)) mmr.append(l);
      const appended = await appendAccumulator(admin, code, { typeId, mmr });
      await commit(chain.rpcUrl, appended.txHash);
      await sameAsLocal("appended");
      const w = WitnessArgs.fromBytes((await admin.client.getTransaction(appended.txHash))!.transaction.witnesses[0]);
      assert.equal(w.inputType, hexFrom(appendPayload(mmr, before)));
      assert.equal(w.lock?.length, 2 + 2 * 65, "the admin's signature shares the witness");
    });

    test("spend the plain cell by a leaf appended after locking, the accumulator as a cell dep", async () => {
      const { admin } = await signers();
      const spent = await spendByReference(admin, compiled, { cell: plainCell, code, typeId, proof: { mmr, indexes: [10] } });
      await commit(chain.rpcUrl, spent.txHash);
      const tx = (await admin.client.getTransaction(spent.txHash))!.transaction;
      assert.equal(tx.witnesses[0], hexFrom(witness(payload(mmr.proof([10]), "compiled"))));
      assert.ok(tx.cellDeps.some((d) => d.outPoint.eq(acc.cell.outPoint)));
    });

    test("ckb-devnet acc append grows the kit's accumulator; the kit follows", async () => {
      await inTempDir("acc", async (dir) => {
        for (const l of leaves("rust", 3)) mmr.append(l);
        const file = path.join(dir, "leaves.txt");
        writeFileSync(file, Array.from({ length: mmr.leafCount }, (_, i) => hexFrom(mmr.leaf(i)).slice(2)).join("\n") + "\n");
        const out = devnet(["acc", "append", "--type-id", typeId, "--leaves", file, "--rpc", chain.rpcUrl, "--key", chain.devKeyFile]);
        assert.equal(out.leaves_added, 3);
        await sameAsLocal("appended by ckb-devnet");
      });
    });

    test("extend to 300 leaves by an ancestry proof: the new leaves stay off chain, but for the leaf the climb starts beside", async () => {
      const { admin } = await signers();
      const before = mmr.leafCount;
      const hidden = leaves("hidden", 300 - before);
      for (const l of hidden) mmr.append(l);
      const extended = await extendAccumulator(admin, code, { typeId, mmr });
      await commit(chain.rpcUrl, extended.txHash);
      await sameAsLocal("extended");
      const tx = (await admin.client.getTransaction(extended.txHash))!.transaction;
      const w = WitnessArgs.fromBytes(tx.witnesses[0]);
      assert.equal(w.inputType, hexFrom(extendPayload(mmr, before)));
      assert.ok(w.inputType!.length < 2 + 2 * 32 * 12, `a few hashes: ${(w.inputType!.length - 2) / 2} bytes`);
      // Nodes over new leaves only; a new leaf itself only where the climb starts from an old
      // peak of height 0 (15 leaves: its sibling is leaf 15).
      const bytes = hexFrom(tx.toBytes());
      assert.deepEqual(hidden.filter((l) => bytes.includes(l.slice(2))), [hidden[0]], "only the first new leaf is in the transaction");
    });

    test("spend the owner cell with the second key as owner, against the extended accumulator", async () => {
      const { second } = await signers();
      const spent = await spendByReference(second, compiled, {
        cell: ownerCell,
        code,
        typeId,
        proof: { mmr, indexes: [ownerIndex, 200] },
        owner: true,
      });
      await commit(chain.rpcUrl, spent.txHash);
      const tx = (await second.client.getTransaction(spent.txHash))!.transaction;
      assert.equal(tx.inputs.length, 2, "the by-reference cell and the owner's cell");
    });

    test("the kit refuses, before sending: leaves that are not the chain's, an MMR behind it, nothing to add, an index past the chain's leaves, an unknown type id, an owner not proved", async () => {
      const { admin, second } = await signers();
      const forked = Mmr.from(Array.from({ length: mmr.leafCount + 2 }, (_, i) => (i === 3 ? leaves("fork", 1)[0] : i < mmr.leafCount ? mmr.leaf(i) : leaves("more", 1, i)[0])));
      await refusedBeforeSending(() => appendAccumulator(admin, code, { typeId, mmr: forked }), "NOT_EXTENDING", /first 300 leaves give root .* not the chain's leaves/);
      await refusedBeforeSending(() => extendAccumulator(admin, code, { typeId, mmr: Mmr.from(leaves("acc", 7)) }), "NOT_EXTENDING", /holds 7 leaves .* already 300/);
      await refusedBeforeSending(() => appendAccumulator(admin, code, { typeId, mmr }), "NOTHING_TO_ADD", /both sizes hold 300 leaves/);
      const ahead = Mmr.from([...Array.from({ length: 300 }, (_, i) => mmr.leaf(i)), ...leaves("ahead", 5)]);
      const cell = { txHash: plainCell.txHash, index: 0 };
      await refusedBeforeSending(() => spendByReference(admin, compiled, { cell, code, typeId, proof: { mmr: ahead, indexes: [302] } }), "INDEX_OUT_OF_RANGE", /the MMR has 300 leaves/);
      await refusedBeforeSending(() => findAccumulator(admin.client, code, "0x" + "ab".repeat(32)), "ACCUMULATOR_NOT_FOUND", /no live accumulator cell under type id 0xabab/);
      await refusedBeforeSending(
        () => spendByReference(second, compiled, { cell, code, typeId, proof: { mmr, indexes: [0] }, owner: true }),
        "OWNER_NOT_PROVED",
        /not one of the proved leaves/,
      );
    });

    test("scripts refuse: a stale proof after an append (9 RootMismatch in both formats: 300 -> 301 leaves keeps the old peaks in place), a forged APPEND (102); each cell stays live", async () => {
      const { admin } = await signers();
      const cells = new Map<Verifier, { txHash: Hex; index: number }>();
      for (const v of [baseline, compiled]) {
        const locked = await lockByReference(admin, v, { accumulator: acc });
        await commit(chain.rpcUrl, locked.txHash);
        cells.set(v, locked.outPoint);
      }
      // Proofs against the 300-leaf accumulator, sent after it grew to 301.
      const stale = new Map([baseline, compiled].map((v) => [v, payload(proofAgainst(acc, mmr, [5]), v.format)]));
      mmr.append(leaves("late", 1)[0]);
      await commit(chain.rpcUrl, (await appendAccumulator(admin, code, { typeId, mmr })).txHash);
      await sameAsLocal("grown by one");
      for (const [v, exitCode] of [[baseline, 9], [compiled, 9]] as const) {
        const cell = cells.get(v)!;
        const failure = await refusedByNode(() => spendByReference(admin, v, { cell, code, typeId, proof: { mmr, indexes: [5] }, payloadOverride: stale.get(v) }));
        assert.deepEqual(failure, { exitCode, source: "Inputs", index: 0, scriptKind: "Lock" }, v.format);
        // The kit's own proof, against the accumulator as it is now, spends it.
        await commit(chain.rpcUrl, (await spendByReference(admin, v, { cell, code, typeId, proof: { mmr, indexes: [5] } })).txHash);
      }
      // An APPEND whose first old peak has a flipped bit: the old root differs.
      mmr.append(leaves("forged", 1)[0]);
      const forged = appendPayload(mmr, acc.leafCount);
      forged[1] ^= 1;
      const failure = await refusedByNode(() => appendAccumulator(admin, code, { typeId, mmr, payloadOverride: forged }));
      assert.equal(failure.exitCode, 102, "OldRootMismatch");
      assert.equal(failure.scriptKind, "Type");
      assert.equal(hexFrom((await live()).root), hexFrom(acc.root), "the accumulator did not move");
      await commit(chain.rpcUrl, (await appendAccumulator(admin, code, { typeId, mmr })).txHash);
      await sameAsLocal("the honest append");
    });

    test("hand over to the second key (KEEP): the admin is refused before sending, the second key appends", async () => {
      const { admin, second } = await signers();
      const handed = await handoverAccumulator(admin, code, { typeId, to: secondLock });
      await commit(chain.rpcUrl, handed.txHash);
      await sameAsLocal("handed over");
      assert.ok(acc.cell.cellOutput.lock.eq(secondLock));
      assert.equal(rustShow().lock_hash, secondLock.hash());
      const w = WitnessArgs.fromBytes((await admin.client.getTransaction(handed.txHash))!.transaction.witnesses[0]);
      assert.equal(w.inputType, "0x05");
      for (const l of leaves("second", 4)) mmr.append(l);
      await refusedBeforeSending(() => appendAccumulator(admin, code, { typeId, mmr }), "NOT_HOLDER", /not by the signer's lock/);
      const appended = await appendAccumulator(second, code, { typeId, mmr });
      await commit(chain.rpcUrl, appended.txHash);
      await sameAsLocal("appended by the second key");
      assert.equal(acc.leafCount, 306);
    });
  });
});
