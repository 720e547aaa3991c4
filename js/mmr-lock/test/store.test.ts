// The Node store against the Rust one (crates/mmr-store, its `mmr-store` binary): a store
// written by either opens in the other with the same roots and proofs, byte for byte; and
// every refusal has the code the Rust store gives the same input.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hexFrom } from "@ckb-ccc/core";
import {
  Mmr,
  MmrStore,
  STORE_EXIT_CODES,
  baselinePayload,
  compiledPayload,
  createFileStore,
  leafCountOf,
  memoryStorage,
  mmrSizeOf,
  openFileStore,
  type MmrLockErrorCode,
} from "../src/index.js";
import { cargoBinary } from "./repo.js";
import { code, inTempDir, testLeaves } from "./helpers.js";

const mmrStore = () => cargoBinary("mmr-store");

/** Runs `mmr-store ARGS`; its `key: value` lines. Throws on a non-zero exit. */
function rust(args: string[]): Record<string, string> {
  const out = execFileSync(mmrStore(), args, { encoding: "utf8", maxBuffer: 1 << 28 });
  return Object.fromEntries(
    out
      .split("\n")
      .filter((l) => l.includes(": "))
      .map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]),
  );
}

/** `mmr-store ARGS`'s exit code and stderr. */
function rustStatus(args: string[]): { code: number | null; stderr: string } {
  const r = spawnSync(mmrStore(), args, { encoding: "utf8" });
  return { code: r.status, stderr: r.stderr };
}

function leavesFile(dir: string, leaves: Uint8Array[]): string {
  const file = path.join(dir, `leaves-${leaves.length}.txt`);
  writeFileSync(file, leaves.map((l) => hexFrom(l).slice(2)).join("\n") + "\n");
  return file;
}

// A small deterministic generator for sizes and indexes.
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

function sortedIndexes(next: (n: number) => number, k: number, leafCount: number): number[] {
  const set = new Set<number>();
  while (set.size < Math.min(k, leafCount)) set.add(next(leafCount));
  return [...set].sort((a, b) => a - b);
}

test("a store written by Rust opens in TS: same size, commits, roots at every commit and earlier size, proofs byte for byte; TS appends and Rust checks it", async () => {
  await inTempDir("rust", async (dir) => {
    const store = path.join(dir, "store");
    const leaves = testLeaves(11, 0, 3001);
    rust(["init", store]);
    // Commits of 700 leaves, then one of 1: sizes 1399, 2797, ..., and 3001 leaves.
    rust(["append", store, "--leaves", leavesFile(dir, leaves.slice(0, 3000)), "--batch", "700"]);
    rust(["append", store, "--leaves", leavesFile(dir, leaves.slice(3000))]);
    const info = rust(["info", store]);
    const mmr = Mmr.from(leaves);
    const ts = await openFileStore(store, { readOnly: true });
    assert.equal(ts.mmrSize, Number(info.mmr_size));
    assert.equal(ts.leafCount, 3001);
    assert.equal(ts.commitCount, Number(info.commits));
    assert.equal(hexFrom(ts.root()), info.root);
    assert.equal(hexFrom(ts.root()), hexFrom(mmr.root()));
    const commits = await ts.commits();
    assert.deepEqual(
      commits.map((c) => c.mmrSize),
      [700, 1400, 2100, 2800, 3000, 3001].map(mmrSizeOf),
    );
    const next = rng(7);
    const sizes = [...commits.map((c) => c.mmrSize), 1, 3, 4, ...Array.from({ length: 8 }, () => mmrSizeOf(1 + next(3001)))];
    for (const size of sizes) {
      const r = rust(["root", store, "--size", String(size)]);
      assert.equal(hexFrom(await ts.rootAt(size)), r.root, `root at mmr_size ${size}`);
    }
    for (let k = 0; k < 16; k++) {
      const size = k < 2 ? ts.mmrSize : sizes[k % sizes.length];
      const leafCount = leafCountOf(size);
      const indexes = sortedIndexes(next, [1, 2, 5, 100][k % 4], leafCount);
      const proof = await ts.proof(indexes, size);
      for (const format of ["compiled", "baseline"] as const) {
        const r = rust(["prove", store, "--index", indexes.join(","), "--size", String(size), "--format", format]);
        const mine = format === "compiled" ? compiledPayload(proof) : baselinePayload(proof);
        assert.equal(hexFrom(mine), r.payload, `${format} proof of ${indexes.length} leaves at mmr_size ${size}`);
        assert.equal(hexFrom(proof.root), r.root);
      }
      const reference = Mmr.from(leaves.slice(0, proof.leafCount)).proof(indexes);
      assert.deepEqual(proof.items.map(hexFrom), reference.items.map(hexFrom));
    }
    assert.deepEqual(await ts.check(), { nodes: ts.mmrSize, leaves: 3001, commits: 6 });
    await ts.close();

    // The TS writer on the Rust store: two more appends, then Rust reads and checks them.
    const more = testLeaves(11, 3001, 4500);
    const writer = await openFileStore(store);
    await writer.append(more.slice(0, 999));
    const last = await writer.append(more.slice(999));
    await writer.close();
    const all = Mmr.from([...leaves, ...more]);
    assert.equal(hexFrom(last.root), hexFrom(all.root()));
    assert.equal(rust(["info", store]).root, hexFrom(all.root()));
    assert.match(rust(["check", store]).ok, /^\d+ nodes \(4500 leaves\) rehashed, 8 recorded roots match$/);
  });
});

test("a store written by TS passes mmr-store check, with the same roots, proofs and accumulator in Rust", async () => {
  await inTempDir("ts", async (dir) => {
    const store = path.join(dir, "store");
    const leaves = testLeaves(5, 0, 2500);
    const ts = await createFileStore(store);
    let done = 0;
    for (const n of [1, 1, 2, 61, 1000, 1435]) {
      await ts.append(leaves.slice(done, done + n));
      done += n;
    }
    const id = new Uint8Array(32).fill(0xab);
    await ts.setAccumulator(id);
    const mmr = Mmr.from(leaves);
    assert.equal(hexFrom(ts.root()), hexFrom(mmr.root()));
    await ts.close();
    assert.match(rust(["check", store]).ok, /^4995 nodes \(2500 leaves\) rehashed, 6 recorded roots match$/);
    const info = rust(["info", store]);
    assert.equal(info.accumulator, hexFrom(id));
    assert.equal(info.commits, "6");
    assert.equal(info.root, hexFrom(mmr.root()));
    const next = rng(3);
    for (let k = 0; k < 8; k++) {
      const leafCount = 1 + next(2500);
      const size = mmrSizeOf(leafCount);
      const indexes = sortedIndexes(next, [1, 3, 100, 7][k % 4], leafCount);
      const r = rust(["prove", store, "--index", indexes.join(","), "--size", String(size)]);
      const reader = await openFileStore(store, { readOnly: true });
      assert.equal(hexFrom(compiledPayload(await reader.proof(indexes, size))), r.payload);
      await reader.close();
    }
    // Rust appends to the TS store; TS reads it back.
    rust(["append", store, "--leaves", leavesFile(dir, testLeaves(5, 2500, 2600))]);
    const again = await openFileStore(store, { readOnly: true });
    assert.equal(hexFrom(again.root()), hexFrom(Mmr.from(testLeaves(5, 0, 2600)).root()));
    assert.equal((await again.check()).commits, 7);
    await again.close();
  });
});

test("each refusal has the code of the Rust store's exit code for the same input, and changes nothing", async () => {
  await inTempDir("codes", async (dir) => {
    const store = path.join(dir, "store");
    const notStore = path.join(dir, "plain");
    rmSync(notStore, { force: true, recursive: true });
    writeFileSync(path.join(dir, "file"), "x");
    const expect = async (want: MmrLockErrorCode, run: () => unknown, rustArgs?: string[]) => {
      assert.equal(await code(run), want);
      if (rustArgs !== undefined) {
        const r = rustStatus(rustArgs);
        assert.equal(r.code, STORE_EXIT_CODES[want], `mmr-store ${rustArgs.join(" ")}: ${r.stderr}`);
      }
    };
    await expect("NOT_A_STORE", () => openFileStore(notStore), ["info", notStore]);
    await expect("NOT_A_STORE", () => openFileStore(path.join(dir, "file"), { readOnly: true }), ["info", path.join(dir, "file")]);
    const id = new Uint8Array(32).fill(1);
    const s = await createFileStore(store, id);
    await expect("EMPTY", () => s.root());
    await expect("MMR_SIZE_INVALID", () => s.rootAt(0), ["root", store]);
    await s.append(testLeaves(1, 0, 10));
    const before = readFileSync(path.join(store, "nodes"));
    await s.close();
    await expect("ALREADY_A_STORE", () => createFileStore(store), ["init", store]);
    // mmr-store is a writer here, so it runs while no kit writer holds the store (with one
    // open it would refuse 46 first: one writer across Rust and TypeScript).
    const other = hexFrom(new Uint8Array(32).fill(2));
    assert.equal(rustStatus(["set-accumulator", store, other]).code, STORE_EXIT_CODES.OTHER_ACCUMULATOR);
    const w = await openFileStore(store);
    await expect("OTHER_ACCUMULATOR", () => w.setAccumulator(new Uint8Array(32).fill(2)));
    await expect("OTHER_ACCUMULATOR", () => w.expectAccumulator(new Uint8Array(32).fill(2)));
    await w.setAccumulator(id); // the same one: nothing to do
    await expect("MMR_SIZE_INVALID", () => w.rootAt(2), ["root", store, "--size", "2"]);
    await expect("BEYOND_STORE", () => w.rootAt(mmrSizeOf(11)), ["root", store, "--size", String(mmrSizeOf(11))]);
    await expect("BEYOND_STORE", () => w.node(w.mmrSize));
    await expect("INDEX_OUT_OF_RANGE", () => w.proof([10]), ["prove", store, "--index", "10"]);
    await expect("INDEX_OUT_OF_RANGE", () => w.proof([3], mmrSizeOf(3)), ["prove", store, "--index", "3", "--size", "4"]);
    await expect("INDEXES_NOT_ASCENDING", () => w.proof([3, 2]));
    await expect("EMPTY", () => w.proof([]));
    await expect("BAD_LENGTH", () => w.append([new Uint8Array(31)]));
    await expect("BAD_LENGTH", () => w.append(new Uint8Array(33)));
    const root = w.root();
    await expect("ROOT_MISMATCH", () => w.append(testLeaves(1, 10, 20), { expectedRoot: new Uint8Array(32) }));
    assert.equal(w.mmrSize, mmrSizeOf(10));
    assert.equal(hexFrom(w.root()), hexFrom(root));
    assert.deepEqual(readFileSync(path.join(store, "nodes")), before, "the node file is as it was");
    const good = Mmr.from(testLeaves(1, 0, 20)).root();
    assert.equal(hexFrom((await w.append(testLeaves(1, 10, 20), { expectedRoot: good })).root), hexFrom(good));
    await w.close();
    await expect("READ_ONLY", () => w.append(testLeaves(1, 20, 21)));
    const r = await openFileStore(store, { readOnly: true });
    await expect("READ_ONLY", () => r.append(testLeaves(1, 20, 21)));
    await expect("READ_ONLY", () => r.setAccumulator(id));
    await r.close();
  });
});

test("the same store on memoryStorage (the StoreStorage shape an IndexedDB backend follows): the file store's bytes exactly, one writer, torn tail cut", async () => {
  await inTempDir("memory", async (dir) => {
    const leaves = testLeaves(8, 0, 1500);
    const file = await createFileStore(path.join(dir, "store"), new Uint8Array(32).fill(3));
    const storage = memoryStorage(undefined, { writer: true });
    const memory = await MmrStore.create(storage, new Uint8Array(32).fill(3));
    for (const [from, to] of [
      [0, 1],
      [1, 700],
      [700, 1500],
    ]) {
      await file.append(leaves.slice(from, to));
      await memory.append(leaves.slice(from, to));
    }
    await file.close();
    const bytes = storage.bytes;
    assert.deepEqual(bytes.meta, new Uint8Array(readFileSync(path.join(dir, "store", "meta"))));
    assert.deepEqual(bytes.nodes.subarray(0, bytes.nodesLength), new Uint8Array(readFileSync(path.join(dir, "store", "nodes"))));
    assert.deepEqual(bytes.commits.subarray(0, bytes.commitsLength), new Uint8Array(readFileSync(path.join(dir, "store", "commits"))));
    assert.equal(await code(() => MmrStore.open(memoryStorage(bytes, { writer: true }))), "STORE_LOCKED");
    const reader = await MmrStore.open(memoryStorage(bytes));
    const proof = await reader.proof([3, 1499], mmrSizeOf(1500));
    assert.equal(hexFrom(compiledPayload(proof)), hexFrom(compiledPayload(Mmr.from(leaves).proof([3, 1499]))));
    await memory.close();
    // A crash between the nodes and the record: node bytes and half a record past the commit.
    bytes.nodesLength += 64;
    bytes.commitsLength += 20;
    const again = await MmrStore.open(memoryStorage(bytes, { writer: true }));
    assert.equal(again.mmrSize, mmrSizeOf(1500));
    assert.deepEqual([bytes.nodesLength, bytes.commitsLength], [32 * mmrSizeOf(1500), 3 * 48]);
    assert.deepEqual(await again.check(), { nodes: mmrSizeOf(1500), leaves: 1500, commits: 3 });
    await again.close();
  });
});
