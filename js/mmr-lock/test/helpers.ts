// Helpers of several test files: temporary directories, removed whatever the test does, the
// error code a call is refused with, how many transactions a call sends, and seeded leaves.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MmrLockError, merge, type MmrLockErrorCode } from "../src/index.js";
import { vectorLeaves } from "./repo.js";

/** Runs `body` in a fresh directory under the system's temporary one, then removes it. */
export async function inTempDir(name: string, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), `mmr-store-${name}-`));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The code of the MmrLockError `run` throws or rejects with, or "ok"; anything else thrown
 * is rethrown. */
export async function code(run: () => unknown): Promise<MmrLockErrorCode | "ok"> {
  try {
    await run();
    return "ok";
  } catch (e) {
    if (e instanceof MmrLockError) return e.code;
    throw e;
  }
}

/** Asserts that `f` throws an MmrLockError with `code` and a message matching `message`. */
export function refused(f: () => unknown, code: MmrLockErrorCode, message: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof MmrLockError, `not an MmrLockError: ${String(e)}`);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  });
}

/** Runs `f`, counting the send_transaction calls it makes; returns what it threw, if anything. */
export async function sendsDuring(f: () => Promise<unknown>): Promise<{ error: unknown; sends: number }> {
  const real = globalThis.fetch;
  let sends = 0;
  globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    if (typeof init?.body === "string" && init.body.includes('"send_transaction"')) sends++;
    return real(input, init);
  };
  try {
    await f();
    return { error: undefined, sends };
  } catch (error) {
    return { error, sends };
  } finally {
    globalThis.fetch = real;
  }
}

/** Leaves `from`..`to` of the vectors' leaf rule with leaf seed `seed` ([`vectorLeaves`]). */
export function testLeaves(seed: number, from: number, to: number): Uint8Array[] {
  return vectorLeaves(String(seed), to, merge, from);
}
