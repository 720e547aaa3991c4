// A persistent MMR store for the app side of the accumulator, on the same bytes as the Rust
// store (crates/mmr-store, docs/accumulator-guide.md "The app side: the store"): a store written
// by either side opens in the other, with the same roots and proofs.
//
// A store is four byte arrays: `meta` (64 bytes: magic, version, the accumulator it belongs
// to, a checksum), `nodes` (node p's 32-byte hash at offset 32 p, append-only), `commits`
// (one 48-byte record per completed append: mmr_size u64 LE, root, 8 checksum bytes) and the
// writer's lock. `MmrStore` holds the logic (appends keep only the peaks in memory; roots and
// proofs at any committed or earlier MMR size read the nodes below that size; crash recovery;
// the check) and talks to its bytes through `StoreStorage`, a small interface an app backs
// with IndexedDB or its own storage; storage.ts has the in-memory one and `fileStorage`, the
// one for Node on the Rust store's directory layout.

import { bytesFrom, hashCkb, hexFrom, type BytesLike } from "@ckb-ccc/core";
import { mergeArena, mergeInto, type MergeArena } from "./blake2b.js";
import { MmrLockError, type MmrLockErrorCode } from "./errors.js";
import { bag, bytes32, checkIndexes, type MmrProof } from "./mmr.js";
import { bit, leafCountOf, leafIndexToPosition, leavesByPeak, mmrSizeOf, MAX_MMR_SIZE, peaksOf, proofItemPositions, readU64, writeU32, writeU64 } from "./positions.js";

/** First 8 bytes of `meta`. */
export const STORE_MAGIC = "CKBMMRST";
/** The on-disk format this kit reads and writes (the Rust store's FORMAT_VERSION). */
export const STORE_FORMAT_VERSION = 1;
/** Bytes of `meta`. */
export const META_BYTES = 64;
/** Bytes of one commit record: mmr_size (8), root (32), checksum (8). */
export const RECORD_BYTES = 48;

/**
 * The exit code of the Rust store (`mmr-store`, docs/error-codes.md "The store") that means
 * what each of the store's `MmrLockError` codes means. INDEXES_NOT_ASCENDING has none: the
 * Rust store sorts the indexes it is given, the kit asks for them sorted.
 */
export const STORE_EXIT_CODES: Partial<Record<MmrLockErrorCode, number>> = {
  NOT_A_STORE: 40,
  OTHER_ACCUMULATOR: 41,
  BAD_LENGTH: 42,
  INDEX_OUT_OF_RANGE: 43,
  MMR_SIZE_INVALID: 44,
  BEYOND_STORE: 45,
  STORE_LOCKED: 46,
  STORE_CORRUPT: 47,
  STORE_IO: 48,
  ALREADY_A_STORE: 49,
  EMPTY: 50,
  ROOT_MISMATCH: 51,
  READ_ONLY: 53,
};

/**
 * Where a store's bytes live. `MmrStore` calls these one at a time (it awaits each call
 * before the next, except that it hashes the next nodes while a `writeNodes` runs, and it
 * never changes the bytes it passed until that call resolves). Offsets and lengths are in
 * bytes. Errors should be `MmrLockError`s (STORE_IO for the storage's own failures).
 */
export interface StoreStorage {
  /** Names the storage in messages (a directory, a database name). */
  readonly name: string;
  /** Whether this handle holds the writer lock: only then are the write calls made. */
  readonly writable: boolean;
  /** The meta block, or undefined when there is none (the storage holds no store). */
  readMeta(): Promise<Uint8Array | undefined>;
  /** Replaces the meta block atomically: after a crash it is the old one or the new one. */
  writeMeta(meta: Uint8Array): Promise<void>;
  /** Current byte lengths of the node array and the commit log. */
  lengths(): Promise<{ nodes: number; commits: number }>;
  /** `length` bytes of the node array from `offset`; STORE_CORRUPT if they are not all there. */
  readNodes(offset: number, length: number): Promise<Uint8Array>;
  /** Writes `bytes` into the node array at `offset` (its committed end). Durable after syncNodes. */
  writeNodes(offset: number, bytes: Uint8Array): Promise<void>;
  /** Makes every node written so far durable (fsync); called before each commit record. */
  syncNodes(): Promise<void>;
  /** `length` bytes of the commit log from `offset`. */
  readCommits(offset: number, length: number): Promise<Uint8Array>;
  /** Writes one record at `offset` and makes it durable before resolving. */
  writeCommit(offset: number, record: Uint8Array): Promise<void>;
  /** Cuts the node array and the commit log to these byte lengths, durably. */
  truncate(nodes: number, commits: number): Promise<void>;
  /** Releases the writer lock and every handle. */
  close(): Promise<void>;
}

/** A completed append, or the store's state. */
export interface StoreCommit {
  mmrSize: number;
  leafCount: number;
  root: Uint8Array;
}

/** A proof read from a store: the kit's `MmrProof` (for compiledPayload, baselinePayload,
 * payload, spendTx) with the root and leaf count of the size it proves against. */
export interface StoreProof extends MmrProof {
  root: Uint8Array;
  leafCount: number;
}

/** What `check` went through. */
export interface StoreCheckReport {
  /** Nodes rehashed (the whole committed node array). */
  nodes: number;
  /** Leaves among them. */
  leaves: number;
  /** Commit records whose root was recomputed and matched. */
  commits: number;
}

export function fail(code: MmrLockErrorCode, message: string): never {
  throw new MmrLockError(code, message);
}

// First 8 bytes of blake2b-256 ("ckb-default-hash") over `bytes`: the checksums of meta and
// of each record.
function check8(bytes: Uint8Array): Uint8Array {
  return bytesFrom(hashCkb(bytes)).subarray(0, 8);
}

function equal(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aOffset + i] !== b[bOffset + i]) return false;
  return true;
}

function encodeMeta(accumulator: Uint8Array | undefined): Uint8Array {
  const out = new Uint8Array(META_BYTES);
  out.set(new TextEncoder().encode(STORE_MAGIC), 0);
  writeU32(out, 8, STORE_FORMAT_VERSION);
  writeU32(out, 12, accumulator === undefined ? 0 : 1);
  if (accumulator !== undefined) out.set(accumulator, 16);
  out.set(check8(out.subarray(0, 56)), 56);
  return out;
}

function decodeMeta(name: string, bytes: Uint8Array): Uint8Array | undefined {
  const magic = new TextEncoder().encode(STORE_MAGIC);
  if (bytes.length < 12 || !equal(bytes, 0, magic, 0, 8)) {
    fail("NOT_A_STORE", `${name} is not an MMR store: meta has no store magic`);
  }
  const version = new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  if (version !== STORE_FORMAT_VERSION) {
    fail("NOT_A_STORE", `${name} is not an MMR store: format version ${version}, this kit reads ${STORE_FORMAT_VERSION}`);
  }
  if (bytes.length !== META_BYTES || !equal(check8(bytes.subarray(0, 56)), 0, bytes, 56, 8)) {
    fail("STORE_CORRUPT", "the store is corrupt: meta checksum mismatch");
  }
  const flags = new DataView(bytes.buffer, bytes.byteOffset + 12, 4).getUint32(0, true);
  if (flags === 0) return undefined;
  if (flags === 1) return bytes.slice(16, 48);
  return fail("STORE_CORRUPT", `the store is corrupt: meta flags 0x${flags.toString(16)}`);
}

function encodeRecord(mmrSize: number, root: Uint8Array): Uint8Array {
  const out = new Uint8Array(RECORD_BYTES);
  writeU64(out, 0, mmrSize);
  out.set(root, 8);
  out.set(check8(out.subarray(0, 40)), 40);
  return out;
}

// A record's (size, root), or undefined when its checksum fails or its size is no MMR size.
function decodeRecord(bytes: Uint8Array, offset: number): { mmrSize: number; root: Uint8Array } | undefined {
  const record = bytes.subarray(offset, offset + RECORD_BYTES);
  if (record.length !== RECORD_BYTES || !equal(check8(record.subarray(0, 40)), 0, record, 40, 8)) return undefined;
  const mmrSize = readU64(record, 0);
  if (leavesOrUndefined(mmrSize) === undefined) return undefined;
  return { mmrSize, root: record.slice(8, 40) };
}

function leavesOrUndefined(mmrSize: number): number | undefined {
  try {
    return leafCountOf(mmrSize);
  } catch {
    return undefined;
  }
}

function leavesOrZero(mmrSize: number): number {
  return mmrSize === 0 ? 0 : leafCountOf(mmrSize);
}

/** The root a proof gives (upstream `MerkleProof::calculate_root` for proofs in gen_proof's
 * shape), or undefined when its items do not fit its leaves. */
function proofRoot(proof: MmrProof, leafCount: number): Uint8Array | undefined {
  const indexes = proof.leaves.map((l) => l.index);
  const peaks: Uint8Array[] = [];
  let next = 0;
  let k = 0;
  for (const { peak, leaves } of leavesByPeak(indexes, leafCount)) {
    if (leaves.length === 0) {
      // A leafless peak's hash, or (once) the bagging of all the leafless peaks to the right.
      if (next < proof.items.length) peaks.push(proof.items[next++]);
      continue;
    }
    const queue: [number, number, Uint8Array][] = leaves.map((i) => [i, 0, proof.leaves[k++].value]);
    let peakHash: Uint8Array | undefined;
    for (let head = 0; head < queue.length; head++) {
      const [first, h, hash] = queue[head];
      if (h === peak.height) {
        peakHash = hash;
        break;
      }
      const sibling = bit(first, h) ? first - 2 ** h : first + 2 ** h;
      const following = queue[head + 1];
      let other: Uint8Array;
      if (following !== undefined && following[0] === sibling && following[1] === h) {
        other = following[2];
        head++;
      } else {
        if (next >= proof.items.length) return undefined;
        other = proof.items[next++];
      }
      const parent = new Uint8Array(32);
      if (bit(first, h)) mergeInto(other, 0, hash, 0, parent, 0);
      else mergeInto(hash, 0, other, 0, parent, 0);
      queue.push([Math.min(first, sibling), h + 1, parent]);
    }
    if (peakHash === undefined) return undefined;
    peaks.push(peakHash);
  }
  if (next !== proof.items.length) return undefined;
  return bag(peaks);
}

// Nodes reach the storage in writes of about this many bytes (the Rust store's buffer).
const WRITE_BUFFER = 1 << 20;
// Leaves hashed into one write buffer: a leaf adds itself and on average one parent (64
// bytes), and a chunk at most 64 more parents than leaves.
const CHUNK_LEAVES = WRITE_BUFFER / 64 - 64;
// Peaks: at most one per height, heights below 64.
const MAX_PEAKS = 64;

/**
 * An open store: the writer (holds the lock, appends) or a reader (a fixed view of what was
 * committed when it opened). Memory is flat in the MMR's size: a writer keeps the peaks and
 * a 2.6 MB merge arena (leaf staging and two 1 MiB write buffers); a reader keeps nothing.
 * Appends, proofs and roots at ~2-3 M leaves/s, under 1 ms and a few ms: docs/accumulator-guide.md.
 */
export class MmrStore {
  private readonly storage: StoreStorage;
  private meta: Uint8Array | undefined;
  private size = 0;
  private records = 0;
  private rootHash: Uint8Array | undefined;
  // The committed peaks, left to right: their heights, and their hashes at 32 k in the
  // writer's arena, which also holds the leaf staging area and the two write buffers.
  private peakHeights: number[] = [];
  private arena: MergeArena | undefined;
  private pending: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(storage: StoreStorage, meta: Uint8Array | undefined) {
    this.storage = storage;
    this.meta = meta;
  }

  /** Creates an empty store in `storage` (which must be writable) and returns it open as the
   * writer. `accumulator` (32 bytes) records the accumulator it belongs to. ALREADY_A_STORE
   * if the storage holds a store. */
  static async create(storage: StoreStorage, accumulator?: BytesLike): Promise<MmrStore> {
    const id = accumulator === undefined ? undefined : bytes32(accumulator, "accumulator");
    if (!storage.writable) fail("READ_ONLY", `${storage.name}: the store is open read-only`);
    if ((await storage.readMeta()) !== undefined) fail("ALREADY_A_STORE", `${storage.name} is already an MMR store`);
    // The meta goes last: until it exists the storage holds no store.
    await storage.truncate(0, 0);
    await storage.writeMeta(encodeMeta(id));
    return MmrStore.open(storage);
  }

  /** Opens the store in `storage`: as the writer when the storage is writable (then a torn
   * last record and uncommitted node bytes are cut), else read-only. The last record's root
   * is checked against the peaks stored. */
  static async open(storage: StoreStorage): Promise<MmrStore> {
    const metaBytes = await storage.readMeta();
    if (metaBytes === undefined) fail("NOT_A_STORE", `${storage.name} is not an MMR store: no meta`);
    const store = new MmrStore(storage, decodeMeta(storage.name, metaBytes));
    await store.recover();
    return store;
  }

  // Finds the last complete append; a writer cuts whatever a crash left after it.
  private async recover(): Promise<void> {
    const { nodes: nodesLength, commits: logLength } = await this.storage.lengths();
    let records = Math.floor(logLength / RECORD_BYTES);
    // Records are made durable one at a time, so a crash can tear only the last one.
    let last = records > 0 ? await this.record(records - 1) : undefined;
    if (records > 0 && last === undefined) {
      records--;
      last = records > 0 ? await this.record(records - 1) : undefined;
      if (records > 0 && last === undefined) {
        fail("STORE_CORRUPT", `the store is corrupt: commit records ${records - 1} and ${records} both fail their checksum`);
      }
    }
    const size = last?.mmrSize ?? 0;
    if (nodesLength < 32 * size) {
      fail("STORE_CORRUPT", `the store is corrupt: the node file holds ${Math.floor(nodesLength / 32)} nodes, the last commit ${size}`);
    }
    if (this.storage.writable && (logLength !== records * RECORD_BYTES || nodesLength !== 32 * size)) {
      await this.storage.truncate(32 * size, records * RECORD_BYTES);
    }
    this.size = size;
    this.records = records;
    const peaks = peaksOf(leavesOrZero(size));
    const hashes: Uint8Array[] = [];
    for (const p of peaks) hashes.push(await this.readNode(p.position));
    const root = bag(hashes);
    if ((root === undefined) !== (last === undefined) || (root !== undefined && !equal(root, 0, last!.root, 0, 32))) {
      fail("STORE_CORRUPT", `the store is corrupt: the peaks on disk do not bag to the root recorded for mmr_size ${size}`);
    }
    this.rootHash = root;
    this.peakHeights = peaks.map((p) => p.height);
    if (this.storage.writable) {
      // [peaks | peaks saved during an append | leaf staging | write buffer 0 | write buffer 1]
      this.arena = mergeArena(2 * 32 * MAX_PEAKS + 32 * CHUNK_LEAVES + 2 * WRITE_BUFFER);
      hashes.forEach((h, k) => this.arena!.bytes.set(h, 32 * k));
    }
  }

  private async record(i: number): Promise<{ mmrSize: number; root: Uint8Array } | undefined> {
    return decodeRecord(await this.storage.readCommits(i * RECORD_BYTES, RECORD_BYTES), 0);
  }

  private async validRecord(i: number): Promise<{ mmrSize: number; root: Uint8Array }> {
    return (await this.record(i)) ?? fail("STORE_CORRUPT", `the store is corrupt: commit record ${i} fails its checksum`);
  }

  private async readNode(position: number): Promise<Uint8Array> {
    return this.storage.readNodes(32 * position, 32);
  }

  // The nodes at `positions`, read in position order with one read per run of nodes that
  // lie within 4 KiB of each other: a proof's lower siblings sit next to their leaves.
  private async readMany(positions: readonly number[]): Promise<Map<number, Uint8Array>> {
    const sorted = [...new Set(positions)].sort((a, b) => a - b);
    const out = new Map<number, Uint8Array>();
    for (let i = 0; i < sorted.length; ) {
      let j = i + 1;
      while (j < sorted.length && sorted[j] - sorted[i] < 128) j++;
      const first = sorted[i];
      const bytes = await this.storage.readNodes(32 * first, 32 * (sorted[j - 1] - first + 1));
      for (let k = i; k < j; k++) out.set(sorted[k], bytes.subarray(32 * (sorted[k] - first), 32 * (sorted[k] - first) + 32));
      i = j;
    }
    return out;
  }

  /** The storage's name (its directory for a file store). */
  get name(): string {
    return this.storage.name;
  }

  /** Whether this handle is the writer. */
  get isWriter(): boolean {
    return this.storage.writable;
  }

  /** The committed mmr_size (0 for an empty store). */
  get mmrSize(): number {
    return this.size;
  }

  /** The committed leaf count. */
  get leafCount(): number {
    return leavesOrZero(this.size);
  }

  /** Completed appends recorded in the commit log. */
  get commitCount(): number {
    return this.records;
  }

  /** The accumulator (32 bytes) this store belongs to, if recorded. */
  get accumulator(): Uint8Array | undefined {
    return this.meta?.slice();
  }

  /** The committed state; EMPTY for an empty store. */
  state(): StoreCommit {
    const root = this.rootHash ?? fail("EMPTY", "the store holds no leaves");
    return { mmrSize: this.size, leafCount: this.leafCount, root: root.slice() };
  }

  /** The current root; EMPTY for an empty store. */
  root(): Uint8Array {
    return this.state().root;
  }

  /** OTHER_ACCUMULATOR if the store records an accumulator other than `id`; a store that
   * records none belongs to any. */
  expectAccumulator(id: BytesLike): void {
    const want = bytes32(id, "accumulator");
    if (this.meta !== undefined && !equal(this.meta, 0, want, 0, 32)) {
      fail("OTHER_ACCUMULATOR", `the store belongs to accumulator ${hexFrom(this.meta)}, not ${hexFrom(want)}`);
    }
  }

  /** Records the accumulator this store belongs to (atomically); the same id again is a no-op,
   * another is OTHER_ACCUMULATOR. */
  setAccumulator(id: BytesLike): Promise<void> {
    return this.serialized(async () => {
      this.writer();
      this.expectAccumulator(id);
      if (this.meta === undefined) {
        const meta = bytes32(id, "accumulator").slice();
        await this.storage.writeMeta(encodeMeta(meta));
        this.meta = meta;
      }
    });
  }

  private writer(): void {
    if (this.closed) fail("READ_ONLY", `${this.storage.name}: the store is closed`);
    if (!this.storage.writable) fail("READ_ONLY", `${this.storage.name}: the store is open read-only`);
  }

  // Writes run one after another on a handle, never interleaved at their awaits.
  private serialized<T>(op: () => Promise<T>): Promise<T> {
    const run = this.pending.then(op, op);
    this.pending = run.catch(() => undefined);
    return run;
  }

  /** The node at MMR position `position` (below the committed size; else BEYOND_STORE). */
  async node(position: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(position) || position < 0 || position >= this.size) {
      fail("BEYOND_STORE", `size ${position + 1} is beyond the store's committed mmr_size ${this.size}`);
    }
    return this.readNode(position);
  }

  /** Leaf `index` (below the committed leaf count; else INDEX_OUT_OF_RANGE). */
  async leaf(index: number): Promise<Uint8Array> {
    checkIndexes([index], this.leafCount);
    return this.readNode(leafIndexToPosition(index));
  }

  /** The leaf count of `mmrSize`, which must be an MMR size (MMR_SIZE_INVALID) within the
   * store (BEYOND_STORE). */
  checkSize(mmrSize: number): number {
    const leaves = leafCountOf(mmrSize);
    if (mmrSize > this.size) fail("BEYOND_STORE", `size ${mmrSize} is beyond the store's committed mmr_size ${this.size}`);
    return leaves;
  }

  /** The peaks of the MMR of size `mmrSize`, left to right. */
  async peaksAt(mmrSize: number): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (const p of peaksOf(this.checkSize(mmrSize))) out.push(await this.readNode(p.position));
    return out;
  }

  /** The root recorded for `mmrSize` if an append ended there (binary search of the log). */
  async committedRoot(mmrSize: number): Promise<Uint8Array | undefined> {
    let lo = 0;
    let hi = this.records;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const r = await this.validRecord(mid);
      if (r.mmrSize === mmrSize) return r.root;
      if (r.mmrSize < mmrSize) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }

  /** Every commit record, oldest first. */
  async commits(): Promise<{ mmrSize: number; root: Uint8Array }[]> {
    const out: { mmrSize: number; root: Uint8Array }[] = [];
    for (let i = 0; i < this.records; i++) out.push(await this.validRecord(i));
    return out;
  }

  /** The root of the MMR of size `mmrSize` (default: the committed size): its peaks bagged,
   * checked against the recorded root when an append ended there. */
  async rootAt(mmrSize: number = this.size): Promise<Uint8Array> {
    // The committed root was checked against the peaks when the store opened (or computed
    // from them by this writer).
    if (mmrSize === this.size && this.rootHash !== undefined) return this.rootHash.slice();
    const root = bag(await this.peaksAt(mmrSize)) ?? fail("EMPTY", "the store holds no leaves");
    const recorded = await this.committedRoot(mmrSize);
    if (recorded !== undefined && !equal(recorded, 0, root, 0, 32)) {
      fail("STORE_CORRUPT", `the store is corrupt: the peaks at mmr_size ${mmrSize} do not bag to its recorded root`);
    }
    return root;
  }

  /**
   * The proof of the leaves at `indexes` (strictly ascending) in the MMR of size `mmrSize`
   * (default: the committed size), read from the nodes below that size: items in
   * `MMR::gen_proof` order, equal to `Mmr.proof` and to the Rust store's. Checked against
   * the root before it is returned (STORE_CORRUPT when a node on its path is damaged).
   */
  async proof(indexes: readonly number[], mmrSize: number = this.size): Promise<StoreProof> {
    const leafCount = this.checkSize(mmrSize);
    checkIndexes(indexes, leafCount);
    const { positions, bagged } = proofItemPositions(indexes, leafCount);
    const leafPositions = indexes.map(leafIndexToPosition);
    const nodes = await this.readMany([...positions, ...leafPositions]);
    const items = positions.map((p) => nodes.get(p)!);
    if (bagged > 0) items.push(bag(items.splice(items.length - bagged))!);
    const leaves = indexes.map((index, k) => ({ index, position: leafPositions[k], value: nodes.get(leafPositions[k])! }));
    const proof: StoreProof = { mmrSize, leafCount, root: await this.rootAt(mmrSize), leaves, items };
    const computed = proofRoot(proof, leafCount);
    if (computed === undefined || !equal(computed, 0, proof.root, 0, 32)) {
      fail("STORE_CORRUPT", `the store is corrupt: the proof read from the store does not give the root at mmr_size ${mmrSize}`);
    }
    return proof;
  }

  /**
   * Appends `leaves` (32-byte values, or one Uint8Array of 32 bytes per leaf back to back)
   * and commits: nodes written and made durable, then the commit record. With
   * `expectedRoot`, commits only if the new root is that one (ROOT_MISMATCH otherwise, the
   * store unchanged). Zero leaves commit nothing. Returns the new state.
   */
  append(leaves: readonly BytesLike[] | Uint8Array, options: { expectedRoot?: BytesLike } = {}): Promise<StoreCommit> {
    return this.serialized(() => this.appendNow(leaves, options.expectedRoot));
  }

  private async appendNow(input: readonly BytesLike[] | Uint8Array, expectedRoot?: BytesLike): Promise<StoreCommit> {
    this.writer();
    const expected = expectedRoot === undefined ? undefined : bytes32(expectedRoot, "expected root");
    let packed: Uint8Array;
    if (input instanceof Uint8Array) {
      if (input.length % 32 !== 0) fail("BAD_LENGTH", `packed leaves must be 32 bytes each: ${input.length} bytes is not a multiple of 32`);
      packed = input;
    } else {
      packed = new Uint8Array(32 * input.length);
      input.forEach((leaf, i) => packed.set(bytes32(leaf, `leaf ${i}`), 32 * i));
    }
    const count = packed.length / 32;
    if (count === 0) {
      if (expected !== undefined && (this.rootHash === undefined || !equal(expected, 0, this.rootHash, 0, 32))) {
        fail("ROOT_MISMATCH", `the store's root at mmr_size ${this.size} is ${this.rootHash ? hexFrom(this.rootHash) : "none"}, not the expected ${hexFrom(expected)}: nothing appended`);
      }
      return this.state();
    }
    const newLeaves = this.leafCount + count;
    const newSize = mmrSizeOf(newLeaves);
    if (newSize > MAX_MMR_SIZE) fail("MMR_SIZE_INVALID", `mmr_size ${newSize} would be above 2^50`);
    const work = this.arena!.bytes;
    const savedPeaks = 32 * MAX_PEAKS;
    work.copyWithin(savedPeaks, 0, 32 * MAX_PEAKS);
    const savedHeights = this.peakHeights.slice();
    try {
      await this.writeNodes(packed);
      const hashes = this.peakHeights.map((_, k) => work.slice(32 * k, 32 * k + 32));
      const root = bag(hashes)!;
      if (expected !== undefined && !equal(expected, 0, root, 0, 32)) {
        fail("ROOT_MISMATCH", `the leaves give root ${hexFrom(root)} at mmr_size ${newSize}, not the expected ${hexFrom(expected)}: nothing appended`);
      }
      await this.storage.syncNodes();
      await this.storage.writeCommit(this.records * RECORD_BYTES, encodeRecord(newSize, root));
      this.size = newSize;
      this.records++;
      this.rootHash = root;
      return this.state();
    } catch (e) {
      work.copyWithin(0, savedPeaks, 2 * savedPeaks);
      this.peakHeights = savedHeights;
      // Best effort: the next open cuts the same bytes if this fails.
      await this.storage.truncate(32 * this.size, RECORD_BYTES * this.records).catch(() => undefined);
      throw e;
    }
  }

  // Hashes the leaves chunk by chunk into the two write buffers in turn, each written while
  // the next is hashed, and leaves the new peaks at the start of the arena. Within a chunk a
  // peak is where it was hashed (`at`); at the chunk's end those in the buffer move to
  // their slots, so the buffer can be reused and nothing is copied per leaf but the leaf.
  private async writeNodes(packed: Uint8Array): Promise<void> {
    const { bytes: work, merge } = this.arena!;
    const heights = this.peakHeights;
    const at = heights.map((_, k) => 32 * k);
    const stage = 2 * 32 * MAX_PEAKS;
    const buffers = [stage + 32 * CHUNK_LEAVES, stage + 32 * CHUNK_LEAVES + WRITE_BUFFER];
    const count = packed.length / 32;
    let offset = 32 * this.size;
    let writing: Promise<void> = Promise.resolve();
    let turn = 0;
    for (let start = 0; start < count; start += CHUNK_LEAVES) {
      const end = Math.min(count, start + CHUNK_LEAVES);
      work.set(packed.subarray(32 * start, 32 * end), stage);
      const base = buffers[turn];
      let w = base;
      for (let leaf = stage, last = stage + 32 * (end - start); leaf < last; leaf += 32) {
        work.copyWithin(w, leaf, leaf + 32);
        let node = w;
        w += 32;
        // Each carry merges the peak of equal height on the left with the new node; the
        // parent follows its right child in position order.
        let height = 0;
        while (heights.length > 0 && heights[heights.length - 1] === height) {
          heights.pop();
          merge(at.pop()!, node, w);
          node = w;
          w += 32;
          height++;
        }
        heights.push(height);
        at.push(node);
      }
      for (let k = 0; k < at.length; k++) {
        if (at[k] >= base) {
          work.copyWithin(32 * k, at[k], at[k] + 32);
          at[k] = 32 * k;
        }
      }
      await writing;
      writing = this.storage.writeNodes(offset, work.subarray(base, w));
      offset += w - base;
      turn ^= 1;
    }
    await writing;
  }

  /**
   * Rehashes the whole store: every inner node against the merge of its children, every
   * record's root against the bagging of the peaks at its size, every record's checksum.
   * STORE_CORRUPT names the first disagreement. One pass, about one merge per leaf.
   */
  async check(): Promise<StoreCheckReport> {
    const report: StoreCheckReport = { nodes: 0, leaves: 0, commits: 0 };
    // Nodes come in 1 MiB reads; the peaks (slot k at 32 k) and a merge's result (at TMP)
    // live in a merge arena, so a node costs a copy and a merge, no allocation.
    let chunk: Uint8Array = new Uint8Array(0);
    let chunkStart = 0;
    let chunkEnd = 0;
    const refill = async (pos: number) => {
      const n = Math.min(WRITE_BUFFER / 32, this.size - pos);
      chunk = await this.storage.readNodes(32 * pos, 32 * n);
      chunkStart = pos;
      chunkEnd = pos + n;
    };
    let recordNo = 0;
    let log: Uint8Array = new Uint8Array(0);
    let logStart = 0;
    const nextRecord = async (): Promise<{ mmrSize: number; root: Uint8Array } | undefined> => {
      if (recordNo === this.records) return undefined;
      if (recordNo >= logStart + log.length / RECORD_BYTES) {
        logStart = recordNo;
        const n = Math.min(4096, this.records - recordNo);
        log = await this.storage.readCommits(RECORD_BYTES * recordNo, RECORD_BYTES * n);
      }
      const r = decodeRecord(log, RECORD_BYTES * (recordNo - logStart));
      if (r === undefined) fail("STORE_CORRUPT", `the store is corrupt: commit record ${recordNo} fails its checksum`);
      recordNo++;
      return r;
    };
    const TMP = 32 * (MAX_PEAKS + 1);
    const { bytes: slots, merge } = mergeArena(TMP + 32);
    const heights: number[] = [];
    let pending = await nextRecord();
    let pos = 0;
    while (pos < this.size) {
      // The leaf goes to the next free slot; each parent replaces its left child's slot.
      if (pos >= chunkEnd) await refill(pos);
      slots.set(chunk.subarray(32 * (pos - chunkStart), 32 * (pos - chunkStart + 1)), 32 * heights.length);
      pos++;
      report.leaves++;
      let height = 0;
      while (heights.length > 0 && heights[heights.length - 1] === height) {
        const left = 32 * (heights.length - 1);
        merge(left, left + 32, TMP);
        if (pos >= this.size) fail("STORE_CORRUPT", `the store is corrupt: node ${pos} is missing from the node file`);
        if (pos >= chunkEnd) await refill(pos);
        const at = 32 * (pos - chunkStart);
        if (!equal(chunk, at, slots, TMP, 32)) fail("STORE_CORRUPT", `the store is corrupt: node ${pos} is not the merge of its children`);
        slots.copyWithin(left, TMP, TMP + 32);
        heights.pop();
        pos++;
        height++;
      }
      heights.push(height);
      while (pending !== undefined && pending.mmrSize <= pos) {
        if (pending.mmrSize < pos) {
          fail("STORE_CORRUPT", `the store is corrupt: commit record ${recordNo - 1} (mmr_size ${pending.mmrSize}) is out of order`);
        }
        const root = bag(heights.map((_, k) => slots.slice(32 * k, 32 * k + 32)))!;
        if (!equal(root, 0, pending.root, 0, 32)) {
          fail("STORE_CORRUPT", `the store is corrupt: the nodes give another root than the one recorded at mmr_size ${pending.mmrSize}`);
        }
        report.commits++;
        pending = await nextRecord();
      }
    }
    if (pending !== undefined) {
      fail("STORE_CORRUPT", `the store is corrupt: commit record ${recordNo - 1} (mmr_size ${pending.mmrSize}) is beyond the node file`);
    }
    report.nodes = pos;
    return report;
  }

  /** Waits for a running append, then releases the writer lock and the storage's handles. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.pending;
    this.closed = true;
    await this.storage.close();
  }
}
