// The TypeScript store at scale (a benchmark, not a test): the same measurements as the
// Rust store's `mmr-store-scale` (crates/mmr-store/src/bin/mmr-store-scale.rs), with the same
// JSON fields. For each leaf count: a fresh store, that many generated leaves appended in
// commits of --batch, then proofs of 1 and 100 random leaves from a read-only handle (each
// with its compiled payload, checked against the root by the store); and, in the same run,
// the kit's one-core rate of 64-byte merges, sampled between the appends. Each leaf count
// runs in its own process, so its peak memory is its own. With --rust FILE (the Rust side's
// JSON of the same run), prints both side by side.
//
// usage: node dist/bench/scale.js [--leaves 1e6,1e7] [--dir DIR] [--json FILE] [--batch N]
//                                 [--rust FILE] [--keep]

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compiledPayload, createFileStore, openFileStore, type MmrStore } from "../src/index.js";
import * as blake2b from "../src/blake2b.js";

const { mergeWords } = blake2b;
// Which merge kernel the kit runs ("wasm" or "js"; kits before the WebAssembly kernel: "js").
const MERGE_KERNEL_NAME = (blake2b as { MERGE_KERNEL?: string }).MERGE_KERNEL ?? "js";

const USAGE = `usage: node dist/bench/scale.js [--leaves LIST] [--dir DIR] [--json FILE] [--batch N] [--rust FILE] [--keep]

--leaves LIST  leaf counts, comma-separated; 1e6 and 10^6 forms accepted (default 1e6,1e7)
--dir DIR      where the stores are made, one at a time (default build/scale/store-ts), deleted
               after each count unless --keep
--json FILE    results (default build/scale/ts.json)
--batch N      leaves per commit (default 1048576)
--rust FILE    the Rust side's results (build/scale/rust.json): print both side by side`;

/** One result row; the field names are the Rust side's. */
interface Row {
  impl: string;
  leaves: number;
  append_leaves_per_s: number;
  merges_per_s: number;
  append_vs_merge: number;
  proof1_ms: number;
  proof1_bytes: number;
  proof100_ms: number;
  proof100_bytes: number;
  peak_rss_mb: number;
  store_bytes: number;
}

/** The JSON of a row, numbers rounded as the Rust side prints them. */
function rowJson(r: Row): string {
  return (
    `{"impl":"${r.impl}","leaves":${r.leaves},"append_leaves_per_s":${r.append_leaves_per_s.toFixed(0)},` +
    `"merges_per_s":${r.merges_per_s.toFixed(0)},"append_vs_merge":${r.append_vs_merge.toFixed(3)},` +
    `"proof1_ms":${r.proof1_ms.toFixed(4)},"proof1_bytes":${r.proof1_bytes},"proof100_ms":${r.proof100_ms.toFixed(3)},` +
    `"proof100_bytes":${r.proof100_bytes},"peak_rss_mb":${r.peak_rss_mb.toFixed(1)},"store_bytes":${r.store_bytes}}`
  );
}

/** xorshift32: leaves cost far less than a merge to make, and are made outside the timing. */
class Gen {
  private x: number;
  constructor(seed: number) {
    this.x = (seed ^ 0x9e3779b9) >>> 0 || 1;
  }
  next(): number {
    let x = this.x;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.x = x >>> 0;
    return this.x;
  }
  fill(words: Uint32Array): void {
    for (let i = 0; i < words.length; i++) words[i] = this.next();
  }
  below(n: number): number {
    // Two draws: leaf counts go beyond 2^32.
    return Math.floor(((this.next() * 2 ** 32 + this.next()) / 2 ** 64) * n);
  }
}

/** `n` chained merges with the kit's kernel (each output the next left input); ms taken. */
function mergeChain(n: number): number {
  const w = new Uint32Array(16).fill(0x5a5a5a5a);
  w.fill(0x11111111, 0, 8);
  const start = performance.now();
  for (let i = 0; i < n; i++) mergeWords(w, 0, 8, 0);
  const ms = performance.now() - start;
  if (w[0] === 0x12345678 && w[1] === 0x9abcdef0) console.log(""); // keep the chain alive
  return ms;
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
}

/** Mean ms of proof + compiled payload for `k` random leaves, and the payload's mean bytes. */
async function timeProofs(store: MmrStore, k: number, runs: number, gen: Gen): Promise<[number, number]> {
  let ms = 0;
  let bytes = 0;
  for (let run = 0; run < runs; run++) {
    const set = new Set<number>();
    while (set.size < Math.min(k, store.leafCount)) set.add(gen.below(store.leafCount));
    const indexes = [...set].sort((a, b) => a - b);
    const start = performance.now();
    const payload = compiledPayload(await store.proof(indexes));
    ms += performance.now() - start;
    bytes += payload.length;
  }
  return [ms / runs, Math.round(bytes / runs)];
}

/** One leaf count, in this process: prints its row as JSON. */
async function one(leaves: number, dir: string, batch: number, keep: boolean): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const store = await createFileStore(dir);
  const gen = new Gen(leaves);
  const chunk = new Uint8Array(32 * Math.min(batch, leaves));
  const words = new Uint32Array(chunk.buffer);
  let appendMs = 0;
  let mergeMs = 0;
  let merges = 0;
  for (let done = 0; done < leaves; ) {
    const k = Math.min(batch, leaves - done);
    const part = k === chunk.length / 32 ? chunk : chunk.subarray(0, 32 * k);
    gen.fill(k === chunk.length / 32 ? words : words.subarray(0, 8 * k));
    // A quarter as many merges as leaves, between the appends: both see the same load.
    const n = Math.floor(k / 4) + 1;
    mergeMs += mergeChain(n);
    merges += n;
    const start = performance.now();
    await store.append(part);
    appendMs += performance.now() - start;
    done += k;
  }
  await store.close();
  const reader = await openFileStore(dir, { readOnly: true });
  const rng = new Gen(7);
  // Untimed first: they fault in the upper levels' pages (as the Rust side's one untimed
  // proof does) and let the JIT compile the proof path, so the timed ones measure an app
  // that keeps proving (a fresh process's first proofs take several times longer).
  await timeProofs(reader, 1, 200, rng);
  await timeProofs(reader, 100, 10, rng);
  const [proof1Ms, proof1Bytes] = await timeProofs(reader, 1, 200, rng);
  const [proof100Ms, proof100Bytes] = await timeProofs(reader, 100, 20, rng);
  await reader.close();
  const appendRate = leaves / (appendMs / 1e3);
  const mergeRate = merges / (mergeMs / 1e3);
  const row: Row = {
    impl: "ts",
    leaves,
    append_leaves_per_s: appendRate,
    merges_per_s: mergeRate,
    append_vs_merge: appendRate / mergeRate,
    proof1_ms: proof1Ms,
    proof1_bytes: proof1Bytes,
    proof100_ms: proof100Ms,
    proof100_bytes: proof100Bytes,
    peak_rss_mb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
    store_bytes: dirBytes(dir),
  };
  if (!keep) rmSync(dir, { recursive: true, force: true });
  console.log(rowJson(row));
}

function parseCount(s: string): number | undefined {
  const t = s.trim();
  let n: number;
  if (/^\d+e\d+$/.test(t)) n = Number(t.split("e")[0]) * 10 ** Number(t.split("e")[1]);
  else if (/^\d+\^\d+$/.test(t)) n = Number(t.split("^")[0]) ** Number(t.split("^")[1]);
  else if (/^\d+$/.test(t)) n = Number(t);
  else return undefined;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function fmt(x: number, digits = 0): string {
  return x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Rust and TypeScript side by side, one line per leaf count found in both. */
function sideBySide(rust: Row[], ts: Row[]): void {
  const head = ["leaves", "rust append/s", "ts append/s", "ts/rust", "rust merges/s", "ts merges/s", "proof1 ms rust/ts", "proof100 ms rust/ts", "bytes 1/100", "rss MB rust/ts", "store bytes"];
  const lines = [head];
  for (const t of ts) {
    // Rust measures each count with 1 hasher and with one per core: compare with its fastest.
    const r = rust
      .filter((x) => x.leaves === t.leaves)
      .sort((a, b) => b.append_leaves_per_s - a.append_leaves_per_s)[0];
    if (r === undefined) continue;
    lines.push([
      fmt(t.leaves),
      fmt(r.append_leaves_per_s),
      fmt(t.append_leaves_per_s),
      (t.append_leaves_per_s / r.append_leaves_per_s).toFixed(2),
      fmt(r.merges_per_s),
      fmt(t.merges_per_s),
      `${r.proof1_ms.toFixed(3)} / ${t.proof1_ms.toFixed(3)}`,
      `${r.proof100_ms.toFixed(2)} / ${t.proof100_ms.toFixed(2)}`,
      `${t.proof1_bytes} / ${t.proof100_bytes}`,
      `${r.peak_rss_mb.toFixed(1)} / ${t.peak_rss_mb.toFixed(1)}`,
      r.store_bytes === t.store_bytes ? fmt(t.store_bytes) : `${fmt(r.store_bytes)} / ${fmt(t.store_bytes)}`,
    ]);
  }
  const widths = head.map((_, c) => Math.max(...lines.map((l) => l[c].length)));
  for (const l of lines) console.log(l.map((cell, c) => cell.padStart(widths[c])).join("  "));
  console.log(
    "rust merges/s: mmr-blake2b's kernel on one core (the machine's limit); ts merges/s: the kit's " +
      `${MERGE_KERNEL_NAME} kernel on one core; both sampled between their own appends. ts/rust: append rates (rust: its fastest hasher count).`,
  );
}

async function main(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return;
  }
  let counts = [1e6, 1e7];
  let dir = path.join("build", "scale", "store-ts");
  let json = path.join("build", "scale", "ts.json");
  let batch = 2 ** 20;
  let rustJson: string | undefined;
  let keep = false;
  let single: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n\n${USAGE}`);
      return v;
    };
    if (flag === "--leaves") {
      counts = value()
        .split(",")
        .map((c) => parseCount(c) ?? (() => { throw new Error(`not a leaf count: ${JSON.stringify(c)}`); })());
    } else if (flag === "--dir") dir = value();
    else if (flag === "--json") json = value();
    else if (flag === "--batch") batch = parseCount(value()) ?? (() => { throw new Error("--batch: not a positive number"); })();
    else if (flag === "--rust") rustJson = value();
    else if (flag === "--keep") keep = true;
    else if (flag === "--one") single = parseCount(value());
    else throw new Error(`unknown option ${JSON.stringify(flag)}\n\n${USAGE}`);
  }
  if (single !== undefined) return one(single, dir, batch, keep);
  const self = fileURLToPath(import.meta.url);
  const rows: Row[] = [];
  console.log(`TypeScript store, Node ${process.version}, merge kernel ${MERGE_KERNEL_NAME}, commits of ${batch} leaves`);
  for (const n of counts) {
    const out = execFileSync(
      process.execPath,
      [self, "--one", String(n), "--batch", String(batch), "--dir", dir, ...(keep ? ["--keep"] : [])],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 20 },
    );
    const line = out.split("\n").find((l) => l.startsWith("{"));
    if (line === undefined) throw new Error(`${n} leaves: no result in ${JSON.stringify(out)}`);
    const row = JSON.parse(line) as Row;
    rows.push(row);
    console.log(
      `${fmt(row.leaves).padStart(11)} leaves: append ${fmt(row.append_leaves_per_s)}/s, merges ${fmt(row.merges_per_s)}/s ` +
        `(ratio ${row.append_vs_merge.toFixed(3)}), proof of 1 leaf ${row.proof1_ms.toFixed(4)} ms (${row.proof1_bytes} B), ` +
        `of 100 ${row.proof100_ms.toFixed(3)} ms (${row.proof100_bytes} B), peak RSS ${row.peak_rss_mb.toFixed(1)} MB, store ${fmt(row.store_bytes)} B`,
    );
  }
  mkdirSync(path.dirname(json), { recursive: true });
  writeFileSync(json, `[\n${rows.map((r) => `  ${rowJson(r)}`).join(",\n")}\n]\n`);
  console.log(`wrote ${json}`);
  if (rustJson !== undefined) {
    const rust = JSON.parse(readFileSync(rustJson, "utf8")) as Row[];
    console.log("");
    sideBySide(rust, rows);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(`scale: ${(e as Error).message}`);
  process.exit(2);
});
