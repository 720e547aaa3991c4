export { merge, mergeInto, CKB_PERSONALIZATION } from "./blake2b.js";
export { MmrLockError, type MmrLockErrorCode } from "./errors.js";
export {
  MAX_MMR_SIZE,
  leafCountOf,
  leafIndexToPosition,
  mmrSizeOf,
  peaksOf,
  positionToLeafIndex,
} from "./positions.js";
export { Mmr, bytes32, checkIndexes, type MmrProof, type ProvedLeaf } from "./mmr.js";
export { compileCommands, compiledPayload, encodeCompiled, Op, type Command } from "./compiled.js";
export { baselinePayload } from "./baseline.js";
export {
  FLAG_OWNER,
  lockArgs,
  parseLockArgs,
  payload,
  witness,
  witnessArgs,
  type Format,
  type Mode,
} from "./lock.js";
export {
  DEFAULT_FEE_RATE,
  SHANNONS_PER_CKB,
  lockCell,
  lockTx,
  mmrLockScript,
  occupiedCapacity,
  scriptFailure,
  spendCell,
  spendTx,
  verifierCellDep,
  type LockOptions,
  type ScriptFailure,
  type SpendOptions,
  type Verifier,
} from "./chain.js";
export { TYPE_ID_CODE_HASH, commit, devChainClient, generateBlocks, rpc, waitIndexer } from "./devchain.js";
