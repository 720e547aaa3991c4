// A real local CKB dev chain for the tests: `ckb-devnet node --dir DIR` (devnet/) owns the
// node process; we read its one JSON line, and stop it with SIGTERM (it stops the node by
// PID and exits). Verifiers are deployed with `ckb-devnet deploy`.

import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { SignerCkbPrivateKey, hashCkb, type Hex } from "@ckb-ccc/core";
import type { AccumulatorCode, Format, Verifier } from "../src/index.js";
import { devChainClient } from "../src/devchain.js";
import { REPO, cargoBinary } from "./repo.js";

/** The chain tests' `skip`: they run unless MMR_LOCK_NO_CHAIN=1. */
export const SKIP_CHAIN = process.env.MMR_LOCK_NO_CHAIN === "1" ? "MMR_LOCK_NO_CHAIN=1" : false;

/** `n` leaves, the blake2b-256 of "TAG I" for I from `from`. */
export const taggedLeaves = (tag: string, n: number, from = 0): Hex[] =>
  Array.from({ length: n }, (_, i) => hashCkb(new TextEncoder().encode(`${tag} ${from + i}`)));

export interface DevChain {
  rpcUrl: string;
  /** The genesis-funded dev key and the dev spec's second key: public test keys. */
  devKey: Hex;
  devKeyFile: string;
  ownerKey: Hex;
  stop(): Promise<void>;
}

function readKey(file: string): Hex {
  const key = readFileSync(file, "utf8").trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`${file} does not hold a 0x-prefixed 32-byte key`);
  return key as Hex;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts a fresh dev chain in a temporary directory; `stop()` stops it and removes it. */
export async function startDevChain(timeoutMs = 180_000): Promise<DevChain> {
  const bin = cargoBinary("ckb-devnet");
  const dir = mkdtempSync(path.join(tmpdir(), "mmr-lock-devnet-"));
  const child = spawn(bin, ["node", "--dir", dir], { stdio: ["pipe", "pipe", "inherit"] });
  let nodePid = 0;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      if (!(await waitExit(child, 60_000))) {
        child.kill("SIGKILL");
        await waitExit(child, 10_000);
      }
    }
    // ckb-devnet stops the node itself; should it have died first, stop the node by its PID.
    if (nodePid > 0) {
      try {
        process.kill(nodePid, 0);
        process.kill(nodePid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`ckb-devnet node printed nothing in ${timeoutMs} ms`)), timeoutMs);
      const lines = createInterface({ input: child.stdout! });
      lines.once("line", (l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`ckb-devnet node exited (${code ?? signal}) before its RPC answered`));
      });
    });
    const info = JSON.parse(line) as { rpc_url: string; pid: number; dev_key_file: string; owner_key_file: string };
    nodePid = info.pid;
    return {
      rpcUrl: info.rpc_url,
      devKey: readKey(info.dev_key_file),
      devKeyFile: info.dev_key_file,
      ownerKey: readKey(info.owner_key_file),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The verifiers and the payload format each reads. */
export const VERIFIERS: [string, Format][] = [
  ["baseline-verifier", "baseline"],
  ["c-verifier", "compiled"],
  ["compiled-verifier", "compiled"],
];

/** Deploys build/release/NAME with `ckb-devnet deploy` (data2, or a type id) and describes it
 * as a Verifier. */
export function deploy(chain: DevChain, name: string, format: Format, typeId = false): Verifier {
  const binary = path.join(REPO, "build", "release", name);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run ./build.sh build first`);
  const out = execFileSync(
    cargoBinary("ckb-devnet"),
    ["deploy", binary, "--rpc", chain.rpcUrl, "--key", chain.devKeyFile, "--json", ...(typeId ? ["--type-id"] : [])],
    { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const d = JSON.parse(out.trim().split("\n").pop()!) as {
    tx_hash: Hex;
    index: number;
    data_hash: Hex;
    type_hash: Hex | null;
  };
  const outPoint = { txHash: d.tx_hash, index: d.index };
  if (!typeId) return { outPoint, codeHash: d.data_hash, hashType: "data2", format };
  if (d.type_hash === null) throw new Error(`ckb-devnet deploy --type-id gave no type_hash: ${out}`);
  return { outPoint, codeHash: d.type_hash, hashType: "type", format };
}

/** Deploys build/release/accumulator-type (data2) as the accumulator's code. */
export function deployAccumulatorCode(chain: DevChain): AccumulatorCode {
  const { outPoint, codeHash } = deploy(chain, "accumulator-type", "compiled");
  return { outPoint, codeHash, hashType: "data2" };
}

/** Signers of the dev key (`admin`) and the second key on a fresh client: a test step that
 * follows the Rust client's sends needs one, as CCC's cache would still offer the cells
 * those spent. */
export async function devSigners(chain: DevChain): Promise<{ admin: SignerCkbPrivateKey; second: SignerCkbPrivateKey }> {
  const client = await devChainClient(chain.rpcUrl);
  return { admin: new SignerCkbPrivateKey(client, chain.devKey), second: new SignerCkbPrivateKey(client, chain.ownerKey) };
}
