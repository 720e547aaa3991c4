// The accumulator ring from TypeScript on a real local CKB node (ckb 0.210.0 through
// ckb-devnet), K = 3: create, lock cells by reference to the ring, append and extend (one pair
// pipelined), spend against the newest snapshot with each verifier, against a snapshot read
// K - 1 appends before the spend is sent (accepted), against one an append consumed (refused
// -301 naming it, then rebuilt by the kit and committed), a wrong proof (9, not retried), and
// a KEEP of the whole ring to another key. Skipped only with MMR_LOCK_NO_CHAIN=1.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { OutPoint, WitnessArgs, hexFrom, type Hex, type OutPointLike, type Script, type Signer } from "@ckb-ccc/core";
import {
  Mmr,
  MmrLockError,
  appendPayload,
  appendRing,
  commitmentAt,
  createPayload,
  createRing,
  extendRing,
  findRing,
  handoverRing,
  lockByReference,
  newestSnapshot,
  payload,
  ringHeadLength,
  scriptFailure,
  spendByReferenceRing,
  spendByReferenceRingTx,
  typeIdOf,
  witness,
  type AccumulatorCode,
  type Ring,
  type Verifier,
} from "../src/index.js";
import { commit, devChainClient, generateBlocks, waitIndexer } from "../src/devchain.js";
import { ring as ringExample } from "../examples/ring.js";
import { SKIP_CHAIN as skip, deploy, deployAccumulatorCode, devSigners, startDevChain, taggedLeaves as leaves, type DevChain } from "./devnet.js";
import { sendsDuring } from "./helpers.js";

const K = 3;

/** Makes a block every `everyMs` until the returned function is called (then waits for the
 * indexer): a chain that moves on its own, for calls that wait for a commit. */
function mining(url: string, everyMs = 200): () => Promise<void> {
  let on = true;
  const loop = (async () => {
    while (on) {
      await generateBlocks(url, 1);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    on = false;
    await loop;
    await waitIndexer(url);
  };
}

describe("the accumulator ring from TypeScript on a local CKB dev chain", { skip, timeout: 900_000 }, () => {
  let chain: DevChain;
  let code: AccumulatorCode;
  const verifiers: Verifier[] = [];
  const signers = () => devSigners(chain);

  before(async () => {
    chain = await startDevChain();
    code = deployAccumulatorCode(chain);
    verifiers.push(deploy(chain, "compiled-verifier", "compiled"), deploy(chain, "c-verifier", "compiled"), deploy(chain, "baseline-verifier", "baseline"));
  });

  after(() => chain?.stop());

  test("examples/ring.ts (K = 8): create, lock by reference, append, spend against the newest snapshot", async () => {
    const ls = leaves("example", 9);
    const { typeId, spent, snapshot } = await ringExample(chain.rpcUrl, chain.devKey, code, verifiers[0], ls);
    const client = await devChainClient(chain.rpcUrl);
    const r = await findRing(client, code, { typeId, k: 8 });
    assert.equal(r.snapshots.length, 8);
    assert.equal(hexFrom(r.head.root), hexFrom(Mmr.from(ls).root()));
    assert.deepEqual(r.head.older, Array(7).fill(commitmentAt(Mmr.from(ls), 4).mmrSize), "one append after creation: older is still the creation's size");
    assert.equal(snapshot.mmrSize, Mmr.from(ls).mmrSize);
    const tx = (await client.getTransaction(spent))!.transaction;
    assert.ok(tx.cellDeps.some((d) => d.outPoint.eq(snapshot.cell.outPoint)));
  });

  describe("one ring of K = 3", () => {
    const mmr = Mmr.from(leaves("ring", 4));
    let typeId: Hex;
    let ring: Ring;
    const cells: { txHash: Hex; index: number }[] = [];
    const read = async () => (ring = await findRing((await signers()).admin.client, code, { typeId, k: K }));
    const grow = async (n: number, extend = false) => {
      const { admin } = await signers();
      for (const l of leaves("ring", n - mmr.leafCount, mmr.leafCount)) mmr.append(l);
      const sent = await (extend ? extendRing : appendRing)(admin, code, { typeId, k: K, mmr });
      await commit(chain.rpcUrl, sent.txHash);
      return sent;
    };
    /** Spends `cell` by leaf `index` against the `stale` read of the ring, waiting up to 2
     * minutes while a block is made every `everyMs`; with the kit's rebuild lines and the
     * refusals behind them. */
    const spendWhileMining = async (admin: Signer, cell: OutPointLike, index: number, stale: Ring, everyMs: number) => {
      const lines: string[] = [];
      const reasons: string[] = [];
      const stop = mining(chain.rpcUrl, everyMs);
      try {
        const spent = await spendByReferenceRing(admin, verifiers[0], {
          cell,
          code,
          typeId,
          k: K,
          proof: { mmr, indexes: [index] },
          ring: stale,
          timeLimitMs: 120_000,
          pollMs: 200,
          onRebuild: (line, _, reason) => {
            lines.push(line);
            reasons.push(reason);
          },
        });
        return { spent, lines, reasons };
      } finally {
        await stop();
      }
    };
    /** The ring on chain is the local MMR's, and its snapshots are its last K states. */
    const matches = async (states: number[]) => {
      await read();
      assert.equal(hexFrom(ring.head.root), hexFrom(mmr.root()));
      assert.equal(ring.head.mmrSize, mmr.mmrSize);
      const want = states.slice(-K).map((n) => `${commitmentAt(mmr, n).mmrSize}:${hexFrom(commitmentAt(mmr, n).root)}`);
      assert.deepEqual(ring.snapshots.map((s) => `${s.mmrSize}:${hexFrom(s.root)}`).sort(), want.sort());
      assert.deepEqual(ring.head.older, states.slice(-K, -1).map((n) => commitmentAt(mmr, n).mmrSize));
    };

    test("create (4 leaves): head and K snapshots under type id || K, the payload at the head's witness", async () => {
      const { admin } = await signers();
      const created = await createRing(admin, code, { leaves: mmr, k: K });
      await commit(chain.rpcUrl, created.txHash);
      typeId = created.typeId;
      await read();
      const tx = (await admin.client.getTransaction(created.txHash))!.transaction;
      assert.equal(hexFrom(typeIdOf(tx.inputs[0], 0)), typeId, "the type id of input 0 and the head's output 0");
      assert.equal(tx.outputs[0].type!.args, typeId + "03");
      assert.equal(WitnessArgs.fromBytes(tx.witnesses[0]).outputType, hexFrom(createPayload(mmr)));
      assert.equal(ring.head.cell.outPoint.index, 0n);
      assert.equal(ring.head.cell.cellOutput.capacity, BigInt(8 + 53 + 66 + ringHeadLength(K)) * 100_000_000n);
      assert.ok(ring.snapshots.every((s) => s.cell.cellOutput.capacity === 167n * 100_000_000n));
      await matches([4, 4, 4]);
    });

    test("lock 7 cells by reference to the ring (its type hash || 0x02)", async () => {
      const { admin } = await signers();
      for (const v of [...verifiers, verifiers[0], verifiers[0], verifiers[0], verifiers[0]]) {
        const locked = await lockByReference(admin, v, { accumulator: ring });
        await commit(chain.rpcUrl, locked.txHash);
        cells.push(locked.outPoint);
      }
    });

    test("append, extend, then two appends pipelined (the second built on the first's `after`): each consumes the oldest snapshot", async () => {
      const states = [4, 4, 4];
      const before = ring;
      const first = await grow(5);
      states.push(5);
      const tx = (await (await signers()).admin.client.getTransaction(first.txHash))!.transaction;
      const w = WitnessArgs.fromBytes(tx.witnesses[0]);
      assert.equal(w.inputType, hexFrom(appendPayload(mmr, 4)), "the payload at the head input's witness");
      assert.ok(tx.inputs[0].previousOutput.eq(before.head.cell.outPoint));
      await matches(states);
      await grow(9, true);
      states.push(9);
      await matches(states);
      const { admin } = await signers();
      for (const l of leaves("ring", 2, 9)) mmr.append(l);
      const a = await appendRing(admin, code, { typeId, k: K, mmr: Mmr.from(Array.from({ length: 10 }, (_, i) => mmr.leaf(i))) });
      const b = await appendRing(admin, code, { typeId, k: K, mmr, ring: a.after });
      await commit(chain.rpcUrl, b.txHash);
      states.push(10, 11);
      await matches(states);
    });

    test("spend against the newest snapshot with each verifier: the snapshot is the cell dep", async () => {
      const { admin } = await signers();
      const newest = newestSnapshot(ring);
      assert.equal(newest.mmrSize, ring.head.mmrSize);
      for (const [n, v] of verifiers.entries()) {
        const spent = await spendByReferenceRing(admin, v, { cell: cells[n], code, typeId, k: K, proof: { mmr, indexes: [n, 10] }, wait: false });
        assert.equal(spent.rebuilds, 0);
        await commit(chain.rpcUrl, spent.txHash);
        const tx = (await admin.client.getTransaction(spent.txHash))!.transaction;
        assert.equal(tx.witnesses[0], hexFrom(witness(payload(mmr.proof([n, 10]), v.format))));
        assert.deepEqual(
          tx.cellDeps.slice(0, 2).map((d) => hexFrom(d.outPoint.toBytes())),
          [hexFrom(OutPoint.from(v.outPoint).toBytes()), hexFrom(newest.cell.outPoint.toBytes())],
          "the verifier's code cell, then the newest snapshot",
        );
      }
    });

    test("a spend built K - 1 appends before it is sent commits: its snapshot is the oldest, still live", async () => {
      const { admin } = await signers();
      const built = await spendByReferenceRingTx(admin, verifiers[0], { cell: cells[3], code, typeId, k: K, proof: { mmr, indexes: [2] } });
      const states = [9, 10, 11];
      for (const n of [12, 13]) {
        await grow(n);
        states.push(n);
      }
      await matches(states);
      assert.equal(ring.head.older[0], built.snapshot.mmrSize, "K - 1 appends later it is the oldest");
      assert.ok(ring.snapshots.some((s) => s.cell.outPoint.eq(built.snapshot.cell.outPoint)));
      const txHash = await admin.client.sendTransaction(built.tx);
      await commit(chain.rpcUrl, txHash);
    });

    test("a spend against a snapshot the K-th append consumed: refused -301 naming it; the kit rebuilds against the newest and it commits", async (t) => {
      const { admin } = await signers();
      const stale = await read();
      const built = await spendByReferenceRingTx(admin, verifiers[0], { cell: cells[4], code, typeId, k: K, proof: { mmr, indexes: [11] }, ring: stale });
      for (const n of [14, 15, 16]) await grow(n);
      await matches([14, 15, 16]);
      const point = hexFrom(built.snapshot.cell.outPoint.toBytes());
      await assert.rejects(admin.client.sendTransaction(built.tx), (e: { code?: number; message: string }) => {
        assert.equal(e.code, -301, e.message);
        assert.match(e.message, new RegExp(`(Dead|Unknown)\\(OutPoint\\(${point}\\)\\)`));
        t.diagnostic(`refused: ${e.code} ${e.message}`);
        return true;
      });
      const { spent, lines, reasons } = await spendWhileMining(admin, cells[4], 11, stale, 200);
      t.diagnostic(lines.join("\n"));
      assert.match(reasons.join(), /-301|Unknown\(OutPoint/);
      assert.equal(spent.rebuilds, 1);
      assert.ok(spent.committed);
      assert.deepEqual(lines, [`snapshot ${point} consumed: older than the ring's window of 2 appends; rebuilding`]);
      assert.equal(spent.snapshot.mmrSize, commitmentAt(mmr, 16).mmrSize, "rebuilt against the newest");
      const status = await admin.client.getTransaction(spent.txHash);
      assert.equal(status?.status, "committed");
    });

    test("a spend against the snapshot a pooled append consumes: refused -301 Dead; the kit waits for that append's block, rebuilds, commits", async (t) => {
      const { admin } = await signers();
      const stale = await read();
      for (const n of [17, 18]) await grow(n);
      for (const l of leaves("ring", 1, 18)) mmr.append(l);
      const pooled = await appendRing(admin, code, { typeId, k: K, mmr });
      assert.ok(pooled.before.head.older[0] === newestSnapshot(stale).mmrSize, "the pooled append consumes the stale read's newest snapshot");
      const { spent, lines, reasons: refusals } = await spendWhileMining(admin, cells[6], 15, stale, 500);
      const point = hexFrom(newestSnapshot(stale).cell.outPoint.toBytes());
      t.diagnostic([...lines, ...refusals].join("\n"));
      assert.match(refusals.join(), new RegExp(`Dead\\(OutPoint\\(${point}\\)\\)`), "refused while the append was pooled");
      assert.deepEqual(lines, [`snapshot ${point} consumed: older than the ring's window of 2 appends; rebuilding`]);
      assert.equal(spent.rebuilds, 1);
      assert.equal((await admin.client.getTransaction(pooled.txHash))?.status, "committed");
      assert.equal(spent.snapshot.mmrSize, commitmentAt(mmr, 19).mmrSize, "rebuilt against the pooled append's snapshot, once committed");
    });

    test("a wrong proof is refused 9 (RootMismatch) and not retried: one send, CHAIN naming the code", async () => {
      const { admin } = await signers();
      const wrong = payload(Mmr.from(leaves("other", mmr.leafCount)).proof([3]), "compiled");
      const { error, sends } = await sendsDuring(() =>
        spendByReferenceRing(admin, verifiers[0], { cell: cells[5], code, typeId, k: K, proof: { mmr, indexes: [3] }, payloadOverride: wrong, timeLimitMs: 30_000 }),
      );
      assert.equal(sends, 1);
      assert.ok(error instanceof MmrLockError, String(error));
      assert.equal(error.code, "CHAIN");
      assert.match(error.message, /refused the spend with 9 \(RootMismatch/);
      assert.equal(scriptFailure(error)?.exitCode, 9);
      // The cell is still live: the right proof spends it.
      const spent = await spendByReferenceRing(admin, verifiers[0], { cell: cells[5], code, typeId, k: K, proof: { mmr, indexes: [3] }, wait: false });
      await commit(chain.rpcUrl, spent.txHash);
    });

    test("KEEP: the whole ring handed to the second key, which appends; the admin is refused before sending", async () => {
      const { admin, second } = await signers();
      const secondLock: Script = (await second.getRecommendedAddressObj()).script;
      const handed = await handoverRing(admin, code, { typeId, k: K, to: secondLock });
      await commit(chain.rpcUrl, handed.txHash);
      await read();
      assert.ok([ring.head, ...ring.snapshots].every((c) => c.cell.cellOutput.lock.eq(secondLock)));
      assert.equal(hexFrom(ring.head.root), hexFrom(mmr.root()));
      const handedAt = mmr.leafCount;
      for (const l of leaves("second", 3)) mmr.append(l);
      await assert.rejects(appendRing(admin, code, { typeId, k: K, mmr }), (e: unknown) => e instanceof MmrLockError && e.code === "NOT_HOLDER");
      const appended = await appendRing(second, code, { typeId, k: K, mmr });
      await commit(chain.rpcUrl, appended.txHash);
      await read();
      assert.equal(ring.head.leafCount, handedAt + 3);
      assert.deepEqual(ring.head.older, [handedAt - 1, handedAt].map((n) => commitmentAt(mmr, n).mmrSize));
    });
  });
});
