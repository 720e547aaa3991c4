// The Node store's faults: torn tails cut on open, flipped bytes found by check, one writer
// (the kit's O_EXCL lock file, stale locks, a Rust writer's flock), and writers killed with
// SIGKILL in the middle of an append reopen at their last complete append.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { hexFrom } from "@ckb-ccc/core";
import { Mmr, MmrLockError, commitmentAt, createFileStore, mmrSizeOf, openFileStore, type MmrLockErrorCode } from "../src/index.js";
import { cargoBinary } from "./repo.js";
import { code, inTempDir, testLeaves as leaves } from "./helpers.js";

const INDEX_URL = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "index.js")).href;

function flip(file: string, offset: number): void {
  const bytes = readFileSync(file);
  bytes[offset] ^= 0x01;
  writeFileSync(file, bytes);
}

function size(file: string): number {
  return statSync(file).size;
}

// A store of three appends (100, 50, 1 leaves) in `dir`; returns the three sizes.
async function threeAppends(store: string): Promise<number[]> {
  const s = await createFileStore(store);
  await s.append(leaves(1, 0, 100));
  await s.append(leaves(1, 100, 150));
  await s.append(leaves(1, 150, 151));
  await s.close();
  return [100, 150, 151].map(mmrSizeOf);
}

test("a torn tail is cut on open: a partial or failing last record, node bytes past the last commit; a reader cuts nothing; two bad records are corruption", async () => {
  await inTempDir("torn", async (dir) => {
    for (const tear of ["partial record", "bad checksum", "whole record lost, nodes left"]) {
      const store = path.join(dir, tear.replace(/\W/g, "-"));
      const sizes = await threeAppends(store);
      const commits = path.join(store, "commits");
      const nodes = path.join(store, "nodes");
      if (tear === "partial record") truncateSync(commits, 2 * 48 + 20);
      if (tear === "bad checksum") flip(commits, 2 * 48 + 10);
      if (tear === "whole record lost, nodes left") truncateSync(commits, 2 * 48);
      const lengths = [size(commits), size(nodes)];
      const reader = await openFileStore(store, { readOnly: true });
      assert.equal(reader.mmrSize, sizes[1], tear);
      assert.equal(hexFrom(reader.root()), hexFrom(Mmr.from(leaves(1, 0, 150)).root()));
      await reader.close();
      assert.deepEqual([size(commits), size(nodes)], lengths, "a reader cuts nothing");
      const writer = await openFileStore(store);
      assert.equal(writer.mmrSize, sizes[1]);
      assert.deepEqual([size(commits), size(nodes)], [2 * 48, 32 * sizes[1]], "the writer cut the tail");
      await writer.append(leaves(1, 150, 151));
      assert.equal(hexFrom(writer.root()), hexFrom(Mmr.from(leaves(1, 0, 151)).root()));
      await writer.close();
      execFileSync(cargoBinary("mmr-store"), ["check", store]);
    }
    const store = path.join(dir, "two-bad");
    await threeAppends(store);
    const commits = path.join(store, "commits");
    flip(commits, 48 + 10);
    flip(commits, 2 * 48 + 10);
    const lengths = [size(commits), size(path.join(store, "nodes"))];
    assert.equal(await code(() => openFileStore(store)), "STORE_CORRUPT");
    assert.deepEqual([size(commits), size(path.join(store, "nodes"))], lengths, "nothing cut");
    const missing = path.join(dir, "missing-nodes");
    await threeAppends(missing);
    truncateSync(path.join(missing, "nodes"), 32 * mmrSizeOf(151) - 32);
    assert.equal(await code(() => openFileStore(missing)), "STORE_CORRUPT");
  });
});

test("a flipped byte in the node file is found by check (and by mmr-store check), a proof over it is refused, a flipped peak fails the open", async () => {
  await inTempDir("flip", async (dir) => {
    const store = path.join(dir, "store");
    const s = await createFileStore(store);
    await s.append(leaves(2, 0, 600));
    await s.append(leaves(2, 600, 1000));
    await s.close();
    const nodes = path.join(store, "nodes");
    const clean = readFileSync(nodes);
    const rustCheck = () => spawnSync(cargoBinary("mmr-store"), ["check", store], { encoding: "utf8" });
    // Node 2 is the parent of leaves 0 and 1 (an item of leaf 2's proof); node 0 is leaf 0;
    // node 1000 is an inner node in the middle, an item of some leaf's proof found below.
    const clean1000 = hexFrom(clean.subarray(32 * 1000, 32 * 1001));
    const r0 = await openFileStore(store, { readOnly: true });
    let over1000 = -1;
    for (let i = 0; i < 1000 && over1000 < 0; i++) if ((await r0.proof([i])).items.some((x) => hexFrom(x) === clean1000)) over1000 = i;
    await r0.close();
    assert.ok(over1000 >= 0);
    for (const [pos, index, what] of [
      [2, 2, "node 2 is not the merge of its children"],
      [0, 0, "node 2 is not the merge of its children"],
      [1000, over1000, "is not the merge of its children"],
    ] as const) {
      writeFileSync(nodes, clean);
      flip(nodes, 32 * pos + 17);
      const r = await openFileStore(store, { readOnly: true });
      try {
        await assert.rejects(r.check(), (e: MmrLockError) => e.code === "STORE_CORRUPT" && e.message.includes(what));
        assert.equal(await code(() => r.proof([index])), "STORE_CORRUPT", `a proof over node ${pos}`);
      } finally {
        await r.close();
      }
      assert.equal(rustCheck().status, 47);
    }
    writeFileSync(nodes, clean);
    flip(nodes, 32 * (mmrSizeOf(1000) - 1));
    assert.equal(await code(() => openFileStore(store, { readOnly: true })), "STORE_CORRUPT");
    writeFileSync(nodes, clean);
    const r = await openFileStore(store, { readOnly: true });
    assert.deepEqual(await r.check(), { nodes: mmrSizeOf(1000), leaves: 1000, commits: 2 });
    await r.close();
  });
});

// Runs `code` (an ES module body with the kit imported as `kit`) in a child node process.
function child(body: string, env: Record<string, string> = {}) {
  const script = `import * as kit from ${JSON.stringify(INDEX_URL)};\n${body}`;
  return spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
}

function output(p: ReturnType<typeof child>): Promise<string> {
  let out = "";
  p.stdout!.on("data", (d) => (out += d));
  return new Promise((resolve) => p.on("exit", () => resolve(out)));
}

const TRY_OPEN = `
try { const s = await kit.openFileStore(process.env.DIR); await s.close(); console.log("ok"); }
catch (e) { console.log(e.code ?? e.message); }
`;

test("one writer: a second writer (same process, another process, a Rust writer) gets STORE_LOCKED, a Rust writer gets 46 while a kit writer is open; readers may open; a stale lock of a dead process is taken over", async () => {
  await inTempDir("lock", async (dir) => {
    const store = path.join(dir, "store");
    await (await createFileStore(store)).close();
    const pidLock = path.join(store, "lock.pid");
    const w = await openFileStore(store);
    assert.equal(readFileSync(pidLock, "utf8"), `${process.pid} ${hostname()}\n`);
    assert.equal(await code(() => openFileStore(store)), "STORE_LOCKED");
    assert.equal((await output(child(TRY_OPEN, { DIR: store }))).trim(), "STORE_LOCKED");
    const reader = await openFileStore(store, { readOnly: true });
    await w.append(leaves(3, 0, 10));
    assert.equal(reader.mmrSize, 0, "a reader sees the store as it was when it opened");
    await reader.close();
    await w.close();
    assert.throws(() => statSync(pidLock), "close removes the lock file");
    assert.equal((await output(child(TRY_OPEN, { DIR: store }))).trim(), "ok");

    // A writer killed without closing leaves its lock behind; its PID is gone.
    const killed = child(`const s = await kit.openFileStore(process.env.DIR); console.log("open"); setInterval(() => {}, 1000);`, { DIR: store });
    await new Promise<void>((resolve) => killed.stdout!.once("data", () => resolve()));
    killed.kill("SIGKILL");
    await new Promise((resolve) => killed.on("exit", resolve));
    assert.equal(readFileSync(pidLock, "utf8"), `${killed.pid} ${hostname()}\n`, "the stale lock is there");
    const taken = await openFileStore(store);
    assert.equal(readFileSync(pidLock, "utf8"), `${process.pid} ${hostname()}\n`);
    await taken.close();

    // A lock from another host is never taken over.
    writeFileSync(pidLock, `${killed.pid} another-host\n`);
    assert.equal(await code(() => openFileStore(store)), "STORE_LOCKED");
    rmSync(pidLock);

    // A Rust writer holds its flock while it reads leaves from its standard input.
    const rust = spawn(cargoBinary("mmr-store"), ["append", store, "--leaves", "-"], { stdio: ["pipe", "ignore", "inherit"] });
    let refused: MmrLockErrorCode | "ok" = "ok";
    for (let i = 0; i < 100 && refused === "ok"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      refused = await code(async () => (await openFileStore(store)).close());
    }
    rust.stdin!.end();
    const status = await new Promise((resolve) => rust.on("exit", resolve));
    assert.equal(status, 0);
    assert.equal(refused, "STORE_LOCKED");
    assert.equal(await code(async () => (await openFileStore(store)).close()), "ok");

    // And the other way: a Rust writer reads lock.pid and is refused (exit 46) while a kit
    // writer has the store open, but not after it closed.
    const kitWriter = await openFileStore(store);
    const rustTry = () =>
      new Promise<number | null>((resolve) =>
        spawn(cargoBinary("mmr-store"), ["append", store, "--leaves", "-"], { stdio: ["ignore", "ignore", "ignore"] }).on("exit", resolve),
      );
    assert.equal(await rustTry(), 46);
    await kitWriter.close();
    assert.equal(await rustTry(), 0);
  });
});

const APPENDER = `
const store = await kit.openFileStore(process.env.DIR);
const batch = Number(process.env.BATCH), total = Number(process.env.TOTAL);
while (store.leafCount < total) {
  const from = store.leafCount, to = Math.min(total, from + batch);
  const packed = new Uint8Array(32 * (to - from));
  const view = new DataView(packed.buffer);
  for (let i = from; i < to; i++) (view.setUint32(32 * (i - from), i, true), (packed[32 * (i - from) + 4] = 9));
  await store.append(packed);
  console.log(store.leafCount);
}
await store.close();
`;

test("a writer killed with SIGKILL in the middle of appends reopens at its last complete append, checks, and resumes", async () => {
  await inTempDir("kill", async (dir) => {
    const total = 600_000;
    // The child's leaves: i (u32 LE), 9, zeros; cheap, so its time goes to the appends.
    const reference = Mmr.from(
      Array.from({ length: total }, (_, i) => {
        const w = new Uint8Array(32);
        new DataView(w.buffer).setUint32(0, i, true);
        w[4] = 9;
        return w;
      }),
    );
    let rnd = 12345;
    const random = (n: number) => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31), rnd % n);
    for (const [batch, leafCount, delay] of [
      [700, 30_000, 60],
      [100_000, total, 150],
    ]) {
      const store = path.join(dir, `store-${batch}`);
      await (await createFileStore(store)).close();
      let kills = 0;
      let midway = 0;
      for (let round = 0; round < 8; round++) {
        const p = child(APPENDER, { DIR: store, BATCH: String(batch), TOTAL: String(leafCount) });
        const done = output(p);
        // Wait for the first commit of this run, then kill at a random moment after it.
        await new Promise<void>((resolve) => p.stdout!.once("data", () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, 5 + random(delay)));
        p.kill("SIGKILL");
        await done;
        kills++;
        const nodes = size(path.join(store, "nodes"));
        const s = await openFileStore(store);
        if (nodes !== 32 * s.mmrSize) midway++;
        assert.ok(s.leafCount % batch === 0 || s.leafCount === leafCount, `${s.leafCount} leaves: not a commit boundary of ${batch}`);
        assert.equal(hexFrom(s.root()), hexFrom(commitmentAt(reference, s.leafCount).root), `root at ${s.leafCount} leaves`);
        assert.equal((await s.check()).commits, s.commitCount);
        await s.close();
        if (s.leafCount === leafCount) break;
      }
      // Resume to the end.
      const last = child(APPENDER, { DIR: store, BATCH: String(batch), TOTAL: String(leafCount) });
      await output(last);
      const s = await openFileStore(store, { readOnly: true });
      assert.equal(s.leafCount, leafCount);
      assert.equal(hexFrom(s.root()), hexFrom(commitmentAt(reference, leafCount).root));
      await s.close();
      execFileSync(cargoBinary("mmr-store"), ["check", store]);
      assert.ok(kills >= 1);
      console.log(`# commits of ${batch}: ${kills} kills, ${midway} with node bytes past the last commit`);
    }
  });
});
