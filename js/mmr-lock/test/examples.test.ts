// The offline example (examples/prove.ts, the README's quick start) against tx-generator's
// `prove` on docs/examples/leaves.txt, run now; and the worked examples of the format docs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { hexFrom } from "@ckb-ccc/core";
import { prove } from "../examples/prove.js";
import { storeExample } from "../examples/store.js";
import { Mmr, compiledPayload, baselinePayload } from "../src/index.js";
import { REPO, cargoBinary, txGenerator } from "./repo.js";
import { inTempDir } from "./helpers.js";

const LEAVES_FILE = path.join(REPO, "docs", "examples", "leaves.txt");

function leavesOf(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.split("#")[0].trim())
    .filter((l) => l.length > 0)
    .map((l) => (l.startsWith("0x") ? l : `0x${l}`));
}

function fields(out: string): Record<string, string> {
  return Object.fromEntries(
    out
      .split("\n")
      .map((l) => /^([a-z_]+): (\S+)/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m![1], m![2]]),
  );
}

test("examples/prove.ts gives what tx-generator prove prints for docs/examples/leaves.txt", () => {
  const leaves = leavesOf(readFileSync(LEAVES_FILE, "utf8"));
  for (const indexes of [[4], [0, 2, 3, 6], [0, 1, 2, 3, 4, 5, 6]]) {
    const mine = prove(leaves, indexes);
    const list = indexes.join(",");
    const compiled = fields(txGenerator(["prove", "--leaves", LEAVES_FILE, "--index", list]));
    const baseline = fields(txGenerator(["prove", "--leaves", LEAVES_FILE, "--index", list, "--format", "baseline"]));
    assert.equal(String(mine.mmrSize), compiled.mmr_size);
    assert.equal(mine.root, compiled.root);
    assert.equal(mine.args, compiled.args);
    assert.equal(mine.payload, compiled.payload);
    assert.equal(mine.witness, compiled.witness);
    assert.equal(mine.baseline, baseline.payload);
  }
});

test("the worked examples of docs/compiled-format.md and docs/baseline-format.md", () => {
  const mmr = Mmr.from([1, 2, 3, 4, 5].map((i) => new Uint8Array(32).fill(0x11 * i)));
  assert.equal(mmr.mmrSize, 8);
  assert.equal(hexFrom(mmr.root()), "0x723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b");
  const proof = mmr.proof([0, 3]);
  // The hex of the first code block after `after` in docs/FILE: its tokens of 8 or more hex
  // digits, in order (the rest of each line is commentary).
  const docHex = (file: string, after: string) => {
    const text = readFileSync(path.join(REPO, "docs", file), "utf8");
    const block = text.slice(text.indexOf(after)).split("```")[1];
    return block
      .split(/\s+/)
      .filter((t) => /^[0-9a-f]{8,}$/.test(t))
      .join("");
  };
  assert.equal(hexFrom(compiledPayload(proof)).slice(2), docHex("compiled-format.md", "Full hex:"));
  const baseline = hexFrom(baselinePayload(proof)).slice(2);
  assert.equal(baseline.length / 2, 184);
  const rows = docHex("baseline-format.md", "Payload, 184 bytes:");
  assert.equal(baseline, rows);
});

test("examples/store.ts (docs/accumulator-guide.md): its store is the Rust CLI's, its earlier proof the in-memory MMR's", async () => {
  const leaves = leavesOf(readFileSync(LEAVES_FILE, "utf8")).map((l) => Uint8Array.from(Buffer.from(l.slice(2), "hex")));
  await inTempDir("example", async (dir) => {
    const store = path.join(dir, "acc.store");
    const { now, earlier, report } = await storeExample(store, leaves);
    const mmr = Mmr.from(leaves);
    assert.equal(now.leafCount, leaves.length);
    assert.equal(hexFrom(now.root), hexFrom(mmr.root()));
    assert.equal(hexFrom(earlier), hexFrom(compiledPayload(Mmr.from(leaves.slice(0, 3)).proof([0, 2]))));
    assert.deepEqual([report.leaves, report.commits], [leaves.length, 2]);
    // The Rust CLI reads the same store: check passes, and its proof at size 4 is the same.
    const cli = cargoBinary("mmr-store");
    execFileSync(cli, ["check", store]);
    const rust = fields(execFileSync(cli, ["prove", store, "--index", "0,2", "--size", "4", "--format", "compiled"], { encoding: "utf8" }));
    assert.equal(rust.payload, hexFrom(earlier));
  });
});

