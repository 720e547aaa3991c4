// The storages a store runs on: `memoryStorage` (bytes in memory, for tests and browser tabs)
// and `fileStorage` (Node, on the Rust store's directory layout, with its writer's lock), and
// the two calls that open a store in a directory. No Node module is imported at the top, so
// the kit still loads in a browser; `fileStorage` imports node:fs when called.

import { type BytesLike } from "@ckb-ccc/core";
import { MmrLockError } from "./errors.js";
import { MmrStore, fail, type StoreStorage } from "./store.js";

/**
 * A store's bytes in memory: for tests, for a browser tab that keeps its MMR only while it
 * lives, and as the shape to follow for IndexedDB (one object per array, or fixed-size
 * chunks of the node array keyed by offset). `lock` is whether this handle is the writer;
 * two handles on the same `MemoryBytes` share one store, as two processes share files.
 */
export interface MemoryBytes {
  meta?: Uint8Array;
  nodes: Uint8Array;
  nodesLength: number;
  commits: Uint8Array;
  commitsLength: number;
  writer: boolean;
}

/** A StoreStorage over `bytes` (new, empty ones by default); `writer` takes its lock
 * (STORE_LOCKED if another handle has it). */
export function memoryStorage(
  bytes: MemoryBytes = { nodes: new Uint8Array(0), nodesLength: 0, commits: new Uint8Array(0), commitsLength: 0, writer: false },
  options: { writer?: boolean } = {},
): StoreStorage & { readonly bytes: MemoryBytes } {
  const writable = options.writer === true;
  if (writable) {
    if (bytes.writer) fail("STORE_LOCKED", "the in-memory store is locked by another writer");
    bytes.writer = true;
  }
  let open = true;
  // Writes `data` at `offset` into one of the two arrays, growing it by doubling.
  const write = (which: "nodes" | "commits", offset: number, data: Uint8Array) => {
    const end = offset + data.length;
    if (end > bytes[which].length) {
      const bigger = new Uint8Array(Math.max(end, 2 * bytes[which].length));
      bigger.set(bytes[which]);
      bytes[which] = bigger;
    }
    bytes[which].set(data, offset);
    const length = which === "nodes" ? "nodesLength" : "commitsLength";
    bytes[length] = Math.max(bytes[length], end);
  };
  const read = (array: Uint8Array, have: number, offset: number, length: number, what: string) => {
    if (offset + length > have) fail("STORE_CORRUPT", `the store is corrupt: ${what} is shorter than expected`);
    return array.slice(offset, offset + length);
  };
  return {
    name: "in-memory store",
    writable,
    bytes,
    async readMeta() {
      return bytes.meta?.slice();
    },
    async writeMeta(meta) {
      bytes.meta = meta.slice();
    },
    async lengths() {
      return { nodes: bytes.nodesLength, commits: bytes.commitsLength };
    },
    async readNodes(offset, length) {
      return read(bytes.nodes, bytes.nodesLength, offset, length, "the node array");
    },
    async writeNodes(offset, data) {
      write("nodes", offset, data);
    },
    async syncNodes() {},
    async readCommits(offset, length) {
      return read(bytes.commits, bytes.commitsLength, offset, length, "the commit log");
    },
    async writeCommit(offset, record) {
      write("commits", offset, record);
    },
    async truncate(nodesLength, commitsLength) {
      bytes.nodesLength = Math.min(bytes.nodesLength, nodesLength);
      bytes.commitsLength = Math.min(bytes.commitsLength, commitsLength);
    },
    async close() {
      if (open && writable) bytes.writer = false;
      open = false;
    },
  };
}

// ---------------------------------------------------------------------------------------
// Files, for Node.

/** File names inside a store directory (the Rust store's, plus the kit's writer lock). */
export const STORE_FILES = {
  meta: "meta",
  nodes: "nodes",
  commits: "commits",
  /** The Rust writer's flock file. */
  lock: "lock",
  /** The kit's writer lock: "PID HOSTNAME", created with O_EXCL. */
  pidLock: "lock.pid",
} as const;

function ioError(what: string, e: unknown): MmrLockError {
  if (e instanceof MmrLockError) return e;
  return new MmrLockError("STORE_IO", `${what}: ${(e as Error).message}`);
}

// Runs `f`; its failures become STORE_IO naming `what`.
function io<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw ioError(what, e);
  }
}

function errno(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/**
 * The store's files in directory `dir` for Node, the same files the Rust store uses.
 * `writer: true` takes the writer lock (STORE_LOCKED if another writer has it); `create:
 * true` makes the directory if missing (for `MmrStore.create`). A reader takes no lock.
 *
 * One writer. Node has no flock(2), so the kit's writer lock is the file `lock.pid`, created
 * with O_EXCL (atomic: of two processes creating it, one fails) and holding "PID HOSTNAME".
 * A writer killed without closing leaves it behind; the next writer on the same host finds
 * that PID gone (`kill(pid, 0)` fails with ESRCH) and takes the stale lock over: it renames
 * the file to a name of its own first (atomic: of two processes doing so, one gets it) and
 * checks it renamed the stale content, not a fresh lock taken meanwhile, which it puts back.
 * A lock naming another host is never taken over (its PID cannot be checked from here). A
 * PID reused by an unrelated process makes a stale lock look held: a false STORE_LOCKED,
 * never two writers; remove `lock.pid` by hand then. On Linux the kit also refuses while a
 * Rust writer holds its flock on `lock` (read from /proc/locks), checked after `lock.pid` is
 * created; the Rust writer checks `lock.pid` after taking its flock (crates/mmr-store), so of
 * two writers racing, at least one sees the other.
 */
export async function fileStorage(dir: string, options: { writer?: boolean; create?: boolean } = {}): Promise<StoreStorage> {
  const fs = await import("node:fs");
  const path = await import("node:path");
  const os = await import("node:os");
  const writable = options.writer === true || options.create === true;
  const file = (name: string) => path.join(dir, name);
  const metaPath = file(STORE_FILES.meta);

  const isStore = () => {
    try {
      return fs.statSync(metaPath).isFile();
    } catch {
      return false;
    }
  };
  const notAStore = (): never => {
    let why = "no meta file";
    try {
      if (!fs.statSync(dir).isDirectory()) why = "not a directory";
    } catch {
      why = "no such directory";
    }
    return fail("NOT_A_STORE", `${dir} is not an MMR store: ${why}`);
  };

  let releaseLock: (() => void) | undefined;
  if (options.create === true) {
    io(`creating ${dir}`, () => fs.mkdirSync(dir, { recursive: true }));
    releaseLock = takeWriterLock(fs, os.hostname(), dir, file(STORE_FILES.pidLock), file(STORE_FILES.lock));
    if (isStore()) {
      releaseLock();
      fail("ALREADY_A_STORE", `${dir} is already an MMR store`);
    }
  } else {
    // Refused before any lock file is made: a directory that is not a store stays as it is.
    if (!isStore()) notAStore();
    if (writable) releaseLock = takeWriterLock(fs, os.hostname(), dir, file(STORE_FILES.pidLock), file(STORE_FILES.lock));
  }

  const openData = async (name: string) => {
    try {
      const handle = await fs.promises.open(file(name), options.create === true ? "w+" : writable ? "r+" : "r");
      if (options.create === true) await handle.sync();
      return handle;
    } catch (e) {
      if (errno(e) === "ENOENT") fail("STORE_CORRUPT", `the store is corrupt: ${name} is missing`);
      throw ioError(`opening ${file(name)}`, e);
    }
  };
  let nodesHandle: import("node:fs/promises").FileHandle;
  let commitsHandle: import("node:fs/promises").FileHandle;
  try {
    nodesHandle = await openData(STORE_FILES.nodes);
    commitsHandle = await openData(STORE_FILES.commits).catch(async (e) => {
      await nodesHandle.close();
      throw e;
    });
  } catch (e) {
    releaseLock?.();
    throw e;
  }
  // Reads and the small writes are synchronous calls on the descriptors (a few microseconds
  // each); only node writes go through the thread pool.
  const nodes = nodesHandle.fd;
  const commits = commitsHandle.fd;

  const readExactly = (fd: number, offset: number, length: number, what: string): Uint8Array => {
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const read = () => fs.readSync(fd, out, done, length - done, offset + done);
      const n = io(`reading ${what}`, read);
      if (n === 0) break;
      done += n;
    }
    if (done < length) {
      const missing = what === "the node file" ? `node ${Math.floor((offset + done) / 32)} is missing from the node file` : `${what} is shorter than expected`;
      fail("STORE_CORRUPT", `the store is corrupt: ${missing}`);
    }
    return out;
  };

  return {
    name: dir,
    writable,
    async readMeta() {
      try {
        return new Uint8Array(fs.readFileSync(metaPath));
      } catch (e) {
        if (errno(e) === "ENOENT" || errno(e) === "ENOTDIR") return undefined;
        throw ioError(`reading ${metaPath}`, e);
      }
    },
    async writeMeta(meta) {
      const tmp = file(`${STORE_FILES.meta}.tmp`);
      io(`writing ${metaPath}`, () => {
        const fd = fs.openSync(tmp, "w");
        fs.writeSync(fd, meta);
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(tmp, metaPath);
        const dirFd = fs.openSync(dir, "r");
        fs.fsyncSync(dirFd);
        fs.closeSync(dirFd);
      });
    },
    async lengths() {
      return io(`reading the lengths of ${dir}'s files`, () => {
        return { nodes: fs.fstatSync(nodes).size, commits: fs.fstatSync(commits).size };
      });
    },
    async readNodes(offset, length) {
      return readExactly(nodes, offset, length, "the node file");
    },
    async writeNodes(offset, bytes) {
      // Asynchronous: the write runs on libuv's thread pool while the next chunk is hashed.
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await nodesHandle
          .write(bytes, done, bytes.length - done, offset + done)
          .catch((e: unknown) => {
            throw ioError("writing the node file", e);
          });
        done += bytesWritten;
      }
    },
    async syncNodes() {
      await nodesHandle.datasync().catch((e: unknown) => {
        throw ioError("syncing the node file", e);
      });
    },
    async readCommits(offset, length) {
      return readExactly(commits, offset, length, "the commit log");
    },
    async writeCommit(offset, record) {
      io("writing the commit log", () => {
        fs.writeSync(commits, record, 0, record.length, offset);
        fs.fdatasyncSync(commits);
      });
    },
    async truncate(nodesLength, commitsLength) {
      io(`cutting ${dir}'s files back`, () => {
        if (fs.fstatSync(commits).size !== commitsLength) {
          fs.ftruncateSync(commits, commitsLength);
          fs.fsyncSync(commits);
        }
        if (fs.fstatSync(nodes).size !== nodesLength) {
          fs.ftruncateSync(nodes, nodesLength);
          fs.fsyncSync(nodes);
        }
      });
    },
    async close() {
      await nodesHandle.close().catch(() => undefined);
      await commitsHandle.close().catch(() => undefined);
      releaseLock?.();
      releaseLock = undefined;
    },
  };
}

type Fs = typeof import("node:fs");

// Whether process `pid` exists on this host (EPERM: it does, under another user).
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) !== "ESRCH";
  }
}

// Takes the kit's writer lock (see fileStorage); returns its release.
function takeWriterLock(fs: Fs, host: string, dir: string, pidLock: string, flockFile: string): () => void {
  const mine = `${process.pid} ${host}\n`;
  const locked = (why: string): never =>
    fail("STORE_LOCKED", `${dir} is locked by another writer (${why}; one writer at a time, readers may open it read-only)`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(pidLock, "wx");
      try {
        fs.writeSync(fd, mine);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (e) {
      if (errno(e) !== "EEXIST") throw ioError(`creating ${pidLock}`, e);
    }
    let held: string;
    try {
      held = fs.readFileSync(pidLock, "utf8");
    } catch (e) {
      if (errno(e) === "ENOENT" && attempt < 3) continue; // released meanwhile
      throw ioError(`reading ${pidLock}`, e);
    }
    const [pidText, holderHost] = held.trim().split(" ");
    const pid = Number(pidText);
    if (attempt >= 3 || !Number.isSafeInteger(pid) || pid <= 0 || holderHost !== host || pid === process.pid || alive(pid)) {
      locked(pid === process.pid ? "this process already has it open" : `${pidLock}: ${held.trim() || "empty"}`);
    }
    // Stale: take it over by renaming it to a name of our own, then make sure that was the
    // stale file and not a lock another process took in between.
    const claimed = `${pidLock}.stale.${process.pid}`;
    try {
      fs.renameSync(pidLock, claimed);
    } catch (e) {
      if (errno(e) === "ENOENT") continue;
      throw ioError(`taking over ${pidLock}`, e);
    }
    const got = fs.readFileSync(claimed, "utf8");
    if (got !== held) {
      try {
        fs.linkSync(claimed, pidLock);
      } catch {
        // someone else holds a newer one: theirs stays
      }
      fs.rmSync(claimed, { force: true });
      locked(`${pidLock}: ${got.trim()}`);
    }
    fs.rmSync(claimed, { force: true });
  }
  const release = () => {
    try {
      if (fs.readFileSync(pidLock, "utf8") === mine) fs.rmSync(pidLock, { force: true });
    } catch {
      // gone already
    }
  };
  if (rustWriterHolds(fs, flockFile)) {
    release();
    locked(`a Rust writer holds the flock on ${flockFile}`);
  }
  return release;
}

// Linux: whether some process holds a flock on `file` (the Rust writer's lock), from
// /proc/locks ("N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END"). False where there
// is no /proc/locks or no such file.
function rustWriterHolds(fs: Fs, file: string): boolean {
  let stat: import("node:fs").BigIntStats;
  let table: string;
  try {
    stat = fs.statSync(file, { bigint: true });
    table = fs.readFileSync("/proc/locks", "utf8");
  } catch {
    return false;
  }
  const dev = stat.dev;
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & 0xffffff00n));
  for (const line of table.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[1] !== "FLOCK") continue;
    const [maj, min, ino] = (f[5] ?? "").split(":");
    if (ino !== undefined && BigInt(ino) === stat.ino && parseInt(maj, 16) === major && parseInt(min, 16) === minor) return true;
  }
  return false;
}

/** Creates an empty store in directory `dir` (made if missing) and opens it as the writer. */
export async function createFileStore(dir: string, accumulator?: BytesLike): Promise<MmrStore> {
  const storage = await fileStorage(dir, { create: true });
  try {
    return await MmrStore.create(storage, accumulator);
  } catch (e) {
    await storage.close();
    throw e;
  }
}

/** Opens the store in directory `dir`: as its one writer, or with `readOnly: true` as a reader
 * (no lock; sees what was committed when it opened). */
export async function openFileStore(dir: string, options: { readOnly?: boolean } = {}): Promise<MmrStore> {
  const storage = await fileStorage(dir, { writer: options.readOnly !== true });
  try {
    return await MmrStore.open(storage);
  } catch (e) {
    await storage.close();
    throw e;
  }
}
