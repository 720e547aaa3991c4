// Paths and processes of the repository around the kit, for the tests.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** The repository root (js/mmr-lock/dist/test -> ../../../..). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The kit's own directory (js/mmr-lock). */
export const KIT = path.join(REPO, "js", "mmr-lock");

/** Cargo's release directory. */
export const CARGO_RELEASE = path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO, "target"), "release");

const built = new Set<string>();

/** Builds a host package of the workspace (release, locked; once per test process) and
 * returns its binary's path. */
export function cargoBinary(pkg: string, bin = pkg): string {
  if (!built.has(pkg)) {
    execFileSync("cargo", ["build", "--quiet", "--release", "--locked", "-p", pkg], {
      cwd: REPO,
      stdio: ["ignore", "inherit", "inherit"],
    });
    built.add(pkg);
  }
  return path.join(CARGO_RELEASE, bin);
}

/** Runs tx-generator (built first) and returns its standard output. */
export function txGenerator(args: string[]): string {
  return execFileSync(cargoBinary("tx-generator"), args, {
    cwd: REPO,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
}

/** One line of `tx-generator vectors`. */
export interface Vector {
  leaf_count: number;
  indexes: number[];
  mmr_size: number;
  root: string;
  proof_items: string[];
  args_plain: string;
  args_owner: string;
  compiled: string;
  baseline: string;
  witness_compiled: string;
  leaf_seed?: string;
  seed?: string;
  leaves?: string[];
  rust_build_ns?: number;
  rust_build_runs?: number;
}

/** `tx-generator ARGS`'s JSON lines, parsed. */
export function jsonLines<T>(args: string[]): T[] {
  return txGenerator(args)
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);
}

/** `tx-generator vectors ARGS`, parsed. */
export const vectors = (args: string[]) => jsonLines<Vector>(["vectors", ...args]);

/** Leaves `from`..`count` of a random vector: leaf i is merge(leaf_seed, i), both u64 LE
 * zero-padded to 32 bytes. */
export function vectorLeaves(
  leafSeed: string,
  count: number,
  merge: (a: Uint8Array, b: Uint8Array) => Uint8Array,
  from = 0,
): Uint8Array[] {
  const word = (x: bigint) => {
    const w = new Uint8Array(32);
    new DataView(w.buffer).setBigUint64(0, x, true);
    return w;
  };
  const seed = word(BigInt(leafSeed));
  const leaves: Uint8Array[] = [];
  for (let i = from; i < count; i++) leaves.push(merge(seed, word(BigInt(i))));
  return leaves;
}
