// `./build.sh scale` keeps working: the TypeScript side of the scale benchmark on a tiny store
// (10^4 leaves; its numbers are not checked), every JSON field the Rust side writes present,
// and the store it leaves behind (--keep) proves what an in-memory MMR of its leaves proves.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hexFrom } from "@ckb-ccc/core";
import { Mmr, compiledPayload, openFileStore } from "../src/index.js";
import { inTempDir } from "./helpers.js";

const SCALE = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bench", "scale.js");

test("bench/scale.js at 10^4 leaves: ts.json has the Rust side's fields, the store's proofs verify", async () => {
  await inTempDir("scale", async (dir) => {
    const json = path.join(dir, "ts.json");
    const store = path.join(dir, "store");
    const out = execFileSync(process.execPath, [SCALE, "--leaves", "1e4", "--dir", store, "--json", json, "--batch", "3000", "--keep"], {
      encoding: "utf8",
    });
    assert.match(out, /10,000 leaves: append [\d,]+\/s/);
    const rows = JSON.parse(readFileSync(json, "utf8")) as Record<string, unknown>[];
    assert.equal(rows.length, 1);
    const fields = ["impl", "leaves", "append_leaves_per_s", "merges_per_s", "append_vs_merge", "proof1_ms", "proof1_bytes", "proof100_ms", "proof100_bytes", "peak_rss_mb", "store_bytes"];
    assert.deepEqual(Object.keys(rows[0]), fields);
    assert.equal(rows[0].impl, "ts");
    assert.equal(rows[0].leaves, 10_000);
    for (const f of fields.slice(2)) assert.ok(typeof rows[0][f] === "number" && (rows[0][f] as number) > 0, f);
    assert.equal(rows[0].store_bytes, 64 + 32 * 19_995 + 48 * 4, "meta, nodes, four commit records");

    const s = await openFileStore(store, { readOnly: true });
    assert.equal(s.commitCount, 4);
    const leaves: Uint8Array[] = [];
    for (let i = 0; i < s.leafCount; i++) leaves.push(await s.leaf(i));
    const mmr = Mmr.from(leaves);
    assert.equal(hexFrom(s.root()), hexFrom(mmr.root()));
    for (const indexes of [[0], [9_999], [5, 77, 4_000, 9_998]]) {
      assert.equal(hexFrom(compiledPayload(await s.proof(indexes))), hexFrom(compiledPayload(mmr.proof(indexes))));
    }
    assert.deepEqual(await s.check(), { nodes: 19_995, leaves: 10_000, commits: 4 });
    await s.close();
  });
});
