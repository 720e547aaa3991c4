// The published package: what `npm pack` would put in the tarball, and the two entry points.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { KIT } from "./repo.js";

interface PackFile {
  path: string;
}

test("npm pack ships the built sources, the README and the LICENSE, and no tests", () => {
  const manifest = JSON.parse(readFileSync(path.join(KIT, "package.json"), "utf8"));
  assert.equal(manifest.private, undefined, "the package is publishable");
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: KIT, encoding: "utf8" });
  const files: string[] = (JSON.parse(out)[0].files as PackFile[]).map((f) => f.path).sort();
  for (const needed of ["package.json", "README.md", "LICENSE", "dist/src/index.js", "dist/src/index.d.ts", "dist/src/devchain.js"]) {
    assert.ok(files.includes(needed), `${needed} is in the tarball`);
  }
  const stray = files.filter((f) => !/^(package\.json|README\.md|LICENSE|dist\/src\/.*\.(js|d\.ts))$/.test(f));
  assert.deepEqual(stray, [], "nothing but the built sources, README and LICENSE");
  assert.ok(!files.some((f) => /test|bench|examples/.test(f)), "no tests, benches or examples");
});

test("the main entry has no dev-chain helpers; the devchain subpath has them", async () => {
  const main = await import("@ckb-mmr-verifiers/mmr-lock");
  const dev = await import("@ckb-mmr-verifiers/mmr-lock/devchain");
  for (const name of ["devChainClient", "commit", "generateBlocks", "waitIndexer", "rpc"]) {
    assert.ok(!(name in main), `${name} is not in the main entry`);
    assert.equal(typeof (dev as Record<string, unknown>)[name], "function", `${name} is in ./devchain`);
  }
  assert.equal(main.TYPE_ID_CODE_HASH, dev.TYPE_ID_CODE_HASH);
});

test("the kit's LICENSE is the repository's", () => {
  assert.equal(readFileSync(path.join(KIT, "LICENSE"), "utf8"), readFileSync(path.join(KIT, "..", "..", "LICENSE"), "utf8"));
});

test("the kit's version is the Rust crates' version", () => {
  const manifest = JSON.parse(readFileSync(path.join(KIT, "package.json"), "utf8"));
  const cargo = readFileSync(path.join(KIT, "..", "..", "crates", "ckb-mmr-sdk", "Cargo.toml"), "utf8");
  const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1] ?? /^\[workspace\.package\][^[]*?version\s*=\s*"([^"]+)"/ms.exec(readFileSync(path.join(KIT, "..", "..", "Cargo.toml"), "utf8"))?.[1];
  assert.equal(manifest.version, version);
});
