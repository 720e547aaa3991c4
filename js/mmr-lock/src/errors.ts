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
  /** Proof items that do not fit the positions: too few, too many, or a shape upstream
   * verification would bag into a wrong root. */
  | "PROOF_SHAPE"
  /** More leaves than the payload's u32 count can hold. */
  | "TOO_MANY_LEAVES"
  /** Owner mode: the owner's lock hash is not one of the proved leaves. */
  | "OWNER_NOT_PROVED"
  /** Args that are neither 40 (plain) nor 41 bytes ending in 0x01 (owner). */
  | "BAD_ARGS"
  /** A chain or node error (the node refused a transaction, an RPC failed). */
  | "CHAIN";

/** An error with a stable `code`; `message` says what was wrong and with which value. */
export class MmrLockError extends Error {
  readonly code: MmrLockErrorCode;

  constructor(code: MmrLockErrorCode, message: string) {
    super(message);
    this.name = "MmrLockError";
    this.code = code;
  }
}
