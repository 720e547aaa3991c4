// `npm run bench` keeps working: the same script on a small workload (its numbers are not
// checked, only that it measures both sides and agrees with tx-generator's payload).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { KIT } from "./repo.js";

test("the bench script runs (2 runs per round, a 5,000-leaf MMR)", () => {
  const out = execFileSync(process.execPath, ["--expose-gc", path.join(KIT, "dist", "bench", "bench.js")], {
    env: { ...process.env, BENCH_RUNS: "2", BENCH_LEAVES: "5000" },
    encoding: "utf8",
  });
  assert.match(out, /round 3: 2520 leaves, 76 proved, mmr_size 5034, payload 12847 bytes: Node [\d.]+ ms/);
  assert.match(out, /median Node\/Rust ratio: [\d.]+x/);
  assert.match(out, /5,000-leaf MMR:\n  append: \d+ ms/);
  assert.match(out, /mmr_size 9995/);
  assert.match(out, /proof of 100 leaves: [\d.]+ ms, \d+ items/);
});
