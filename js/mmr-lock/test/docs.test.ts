// Every snippet of docs/typescript.md and of the README's TypeScript section is a file the
// tests run: TypeScript blocks must equal files of examples/ (run by examples.test.ts and
// chain.test.ts), shell blocks may only hold the package's own commands.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { KIT, REPO } from "./repo.js";

interface Block {
  lang: string;
  code: string;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m !== null; m = re.exec(markdown)) out.push({ lang: m[1], code: m[2] });
  return out;
}

function readmeSection(): string {
  const readme = readFileSync(path.join(REPO, "README.md"), "utf8");
  const start = readme.indexOf("\n## TypeScript\n");
  assert.ok(start >= 0, "README.md has a ## TypeScript section");
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const examples = new Map(
  readdirSync(path.join(KIT, "examples"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => [f, readFileSync(path.join(KIT, "examples", f), "utf8")]),
);
const scripts = Object.keys(
  (JSON.parse(readFileSync(path.join(KIT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
);

function checkBlocks(name: string, markdown: string): Set<string> {
  const used = new Set<string>();
  const found = blocks(markdown);
  assert.ok(found.length > 0, `${name} has code blocks`);
  for (const b of found) {
    if (b.lang === "ts") {
      const file = [...examples].find(([, text]) => text === b.code)?.[0];
      assert.ok(file, `${name}: a ts block is not the text of any examples/*.ts file:\n${b.code.slice(0, 200)}`);
      used.add(file);
    } else if (b.lang === "sh") {
      for (const line of b.code.split("\n").filter((l) => l.trim() !== "")) {
        const ok =
          line === "cd js/mmr-lock" ||
          line === "npm ci" ||
          line === "npm test" ||
          scripts.some((s) => line === `npm run ${s}`);
        assert.ok(ok, `${name}: shell line ${JSON.stringify(line)} is not one of the package's commands`);
      }
    } else {
      assert.fail(`${name}: a code block in ${JSON.stringify(b.lang)} that no test runs`);
    }
  }
  return used;
}

test("docs/typescript.md and docs/accumulator-guide.md: every ts block is an example file, and every example file is shown", () => {
  const used = checkBlocks("docs/typescript.md", readFileSync(path.join(REPO, "docs", "typescript.md"), "utf8"));
  // accumulator-guide.md's other blocks are the Rust tools' (tested by their crates).
  const accBlocks = blocks(readFileSync(path.join(REPO, "docs", "accumulator-guide.md"), "utf8")).filter((b) => b.lang === "ts");
  for (const file of checkBlocks("docs/accumulator-guide.md", accBlocks.map((b) => "```ts\n" + b.code + "```\n").join(""))) used.add(file);
  assert.ok(used.has("accumulator.ts"), "docs/accumulator-guide.md shows examples/accumulator.ts");
  assert.deepEqual([...used].sort(), [...examples.keys()].sort());
});

test("README's TypeScript section: its blocks are example files or the package's commands", () => {
  const used = checkBlocks("README.md", readmeSection());
  assert.ok(used.has("prove.ts"));
});

test("every example file is run by a test", () => {
  const tests = readdirSync(path.join(KIT, "test"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => readFileSync(path.join(KIT, "test", f), "utf8"))
    .join("\n");
  for (const file of examples.keys()) {
    assert.ok(tests.includes(`../examples/${file.replace(/\.ts$/, ".js")}`), `no test imports examples/${file}`);
  }
});

test("docs/typescript.md's Errors table names every MmrLockErrorCode of src/errors.ts", () => {
  const source = readFileSync(path.join(KIT, "src", "errors.ts"), "utf8");
  const codes = [...source.matchAll(/^\s*\| "([A-Z_]+)"/gm)].map((m) => m[1]);
  assert.ok(codes.length >= 10, `codes found in errors.ts: ${codes.join(", ")}`);
  const doc = readFileSync(path.join(REPO, "docs", "typescript.md"), "utf8");
  const table = doc.slice(doc.indexOf("\n## Errors\n"));
  for (const code of codes) assert.ok(table.includes(`\n| \`${code}\` |`), `${code} is not in docs/typescript.md's Errors table`);
});

