// npm run bench: measured numbers, nothing hard-coded.
//  1. The reference seed (2520 leaves, 76 proved): building the MMR, its root, the proof and
//     the compiled payload in Node, timed in the same run as tx-generator doing the same
//     (Workload::from_leaves + compiled_payload), alternating three rounds; the ratio.
//  2. A 1,000,000-leaf MMR: append, root, a 100-leaf proof and its payload; time and memory.

import { cpus, loadavg } from "node:os";
import { hexFrom } from "@ckb-ccc/core";
import { Mmr, compiledPayload, merge } from "../src/index.js";
import { vectors } from "../test/repo.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const LEAVES = Number(process.env.BENCH_LEAVES ?? 1_000_000);

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function reference(): void {
  console.log(
    `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "?"}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`reference seed: ${RUNS} runs per side and round; round 0 warms up the JIT and is not counted`);
  const ratios: number[] = [];
  let expected = "";
  for (let round = 0; round <= 3; round++) {
    const [v] = vectors(["--reference", "--time", String(RUNS)]);
    const leaves = v.leaves!.map((l) => Uint8Array.from(Buffer.from(l.slice(2), "hex")));
    expected = v.compiled;
    const build = () => {
      const mmr = Mmr.from(leaves);
      mmr.root();
      return compiledPayload(mmr.proof(v.indexes));
    };
    const cold = performance.now();
    const first = build();
    const coldMs = performance.now() - cold;
    if (hexFrom(first) !== expected) throw new Error("the Node payload differs from tx-generator's");
    const start = performance.now();
    for (let i = 0; i < RUNS; i++) build();
    const nodeNs = ((performance.now() - start) / RUNS) * 1e6;
    const rustNs = v.rust_build_ns!;
    if (round > 0) ratios.push(nodeNs / rustNs);
    console.log(
      `  round ${round}: ${v.leaf_count} leaves, ${v.indexes.length} proved, mmr_size ${v.mmr_size}, ` +
        `payload ${first.length} bytes: Node ${(nodeNs / 1e6).toFixed(3)} ms (first run ${coldMs.toFixed(3)} ms), ` +
        `tx-generator ${(rustNs / 1e6).toFixed(3)} ms, Node/Rust ${(nodeNs / rustNs).toFixed(2)}x`,
    );
  }
  console.log(`  median Node/Rust ratio: ${median(ratios).toFixed(2)}x`);
}

function million(): void {
  console.log(`${LEAVES.toLocaleString("en")}-leaf MMR:`);
  gc();
  const start = process.memoryUsage();
  // The leaves (merge(i, 0), 32 bytes each) are made before the clock starts.
  const data = new Uint8Array(32 * LEAVES);
  const word = new Uint8Array(32);
  const zero = new Uint8Array(32);
  for (let i = 0; i < LEAVES; i++) {
    new DataView(word.buffer).setUint32(0, i, true);
    data.set(merge(word, zero), 32 * i);
  }
  gc();
  const before = process.memoryUsage();
  let t = performance.now();
  const mmr = new Mmr();
  for (let i = 0; i < LEAVES; i++) mmr.append(data.subarray(32 * i, 32 * i + 32));
  const appendMs = performance.now() - t;
  t = performance.now();
  const root = mmr.root();
  const rootMs = performance.now() - t;
  const indexes: number[] = [];
  for (let k = 0; k < 100; k++) indexes.push(Math.floor(((k + 0.5) * LEAVES) / 100));
  t = performance.now();
  const proof = mmr.proof(indexes);
  const proofMs = performance.now() - t;
  t = performance.now();
  const payload = compiledPayload(proof);
  const payloadMs = performance.now() - t;
  const after = process.memoryUsage();
  gc();
  const settled = process.memoryUsage();
  console.log(`  append: ${appendMs.toFixed(0)} ms (${((appendMs * 1e3) / LEAVES).toFixed(2)} us per leaf), mmr_size ${mmr.mmrSize}`);
  console.log(`  root: ${rootMs.toFixed(3)} ms (${hexFrom(root)})`);
  console.log(`  proof of 100 leaves: ${proofMs.toFixed(3)} ms, ${proof.items.length} items; compiled payload: ${payloadMs.toFixed(3)} ms, ${payload.length} bytes`);
  console.log(
    `  memory: ${mib(mmr.mmrSize * 32)} of nodes in a ${mib(mmr.bufferBytes)} buffer (array buffers ` +
      `${mib(settled.arrayBuffers)} after a GC that freed the input leaves); RSS ${mib(start.rss)} at the start, ` +
      `${mib(before.rss)} with the input leaves (${mib(32 * LEAVES)}), ${mib(after.rss)} after, ` +
      `peak ${mib(process.resourceUsage().maxRSS * 1024)}; JS heap ${mib(settled.heapUsed)}`,
  );
}

reference();
million();
