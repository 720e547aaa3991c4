/** Why the kit refused an input. Every refusal happens before anything is sent. */
export type MmrLockErrorCode =
  /** A leaf, proof item or root is not exactly 32 bytes. */
  | "BAD_LENGTH"
  /** An MMR with no leaves, or a proof for no leaf. */
  | "EMPTY"
  /** A leaf index at or beyond the number of leaves, negative, or not an integer. */
  | "INDEX_OUT_OF_RANGE"
  /** Leaf indexes (or positions) not strictly ascending: unsorted or duplicated. */
  | "INDEXES_NOT_ASCENDING"
  /** An mmr_size that is not the size of an MMR, or above 2^50. */
  | "MMR_SIZE_INVALID"
  /** A position that is not a leaf of the MMR. */
  | "NOT_A_LEAF"
  /** Proof items that do not fit the positions: too few, too many, a shape upstream
   * verification would bag into a wrong root, or (compiled payload) two or more leafless peaks
   * right of the last proved leaf given one by one instead of bagged into one item. */
  | "PROOF_SHAPE"
  /** More leaves or items than a u32 count can hold (the baseline and accumulator payloads). */
  | "TOO_MANY_LEAVES"
  /** Owner mode: the owner's lock hash is not one of the proved leaves. */
  | "OWNER_NOT_PROVED"
  /** Args that are neither 40 (plain) nor 41 bytes ending in 0x01 (owner), nor 33 ending in
   * 0x02 or 0x03 (by reference); hash_type "data"; a capacity below a cell's occupied one. */
  | "BAD_ARGS"
  /** Accumulator: the local MMR does not extend the accumulator's: it holds fewer leaves, its
   * first leaves give another root, or a new size below the old one. */
  | "NOT_EXTENDING"
  /** Accumulator: an append or ancestry proof between equal sizes (the type script refuses
   * 104/109; KEEP is the one way to keep the data). */
  | "NOTHING_TO_ADD"
  /** Accumulator: no live cell, or more than one, under the type id. */
  | "ACCUMULATOR_NOT_FOUND"
  /** Accumulator: cell data that is not 40 bytes (root || mmr_size u64 LE). */
  | "BAD_ACCUMULATOR_DATA"
  /** Accumulator: the signer's lock is not the accumulator cell's: only its holder updates it. */
  | "NOT_HOLDER"
  /** Accumulator: a transition witness (with the signature) above the secp256k1 lock's 32,768
   * bytes (-22; the type script's own limit is 65,536, exit 124). */
  | "WITNESS_TOO_LARGE"
  /** A chain or node error (the node refused a transaction, an RPC failed; a by-reference
   * spend of a ring that the lock refused with 9, 90, 91 or 92, not retried). */
  | "CHAIN"
  /** Ring: a by-reference spend not committed within the caller's time limit. */
  | "TIME_LIMIT"
  /** Store: the storage holds no store (no meta), or meta has another magic or a format
   * version this kit does not read (the Rust store's exit code 40). */
  | "NOT_A_STORE"
  /** Store: it belongs to another accumulator (its recorded type id differs; 41). */
  | "OTHER_ACCUMULATOR"
  /** Store: a size or node position beyond what the store has committed (45). */
  | "BEYOND_STORE"
  /** Store: another writer holds the store's writer lock (46). */
  | "STORE_LOCKED"
  /** Store: its files contradict themselves: a checksum, a node that is not the merge of its
   * children, a root that is not the bagging of its peaks, committed nodes missing (47). */
  | "STORE_CORRUPT"
  /** Store: the storage failed (an I/O error from the operating system; 48). */
  | "STORE_IO"
  /** Store: creating a store where one already is (49). */
  | "ALREADY_A_STORE"
  /** Store: an append's new root is not the one expected; nothing was committed (51). */
  | "ROOT_MISMATCH"
  /** Store: a write through a store opened read-only, or closed (53). */
  | "READ_ONLY";

/** An error with a stable `code`; `message` says what was wrong and with which value. */
export class MmrLockError extends Error {
  readonly code: MmrLockErrorCode;

  constructor(code: MmrLockErrorCode, message: string) {
    super(message);
    this.name = "MmrLockError";
    this.code = code;
  }
}
