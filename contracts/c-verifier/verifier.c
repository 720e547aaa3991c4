/*
 * The C MMR verifier: a CKB lock script over the compiled-proof format, version 2 (compact)
 * or with build.sh's FORMAT=v1 version 1 (docs/compiled-format.md), built on ckb-c-stdlib (syscalls; blake2b.h or the shared
 * assembly merge kernel, see below).
 *
 * Flow and exit codes mirror the Rust verifiers exactly (docs/error-codes.md):
 *   1. load the script, parse args (1 ArgsLength, 2 ArgsEncoding, 8 MmrSizeInvalid); by
 *      reference (33-byte args), the accumulator cell dep's data stands for root and size
 *      (90 AccumulatorNotFound, 91 AccumulatorAmbiguous, 92 AccumulatorDataLength, 8);
 *   2. load witness 0 of the group inputs (3 WitnessMissing, 4 WitnessTooLarge, 7 Syscall);
 *   3. strict WitnessArgs parse (5 WitnessEncoding, 6 LockFieldMissing);
 *   4. run the compiled proof (40-68), compare its root with the args (9 RootMismatch);
 *   5. owner mode only (41-byte args): some input not locked by this script has a proved
 *      leaf as its lock hash (80 OwnerNotFound, 7 Syscall); docs/deploy.md.
 */
#include "ckb_syscalls.h"

/* contracts/c-verifier/build.sh: MERGE=asm (default) hashes with the assembly kernel shared with the Rust
 * verifiers, MERGE=stdlib with ckb-c-stdlib's blake2b.h. */
#ifdef CP_MERGE_ASM
#include "merge_asm.h"
#else
#include "blake2b.h"
#include "merge_blake2b.h"
#endif
#include "mmr_lock.h"

/* As mmr_lock::load's SCRIPT_BUFFER: a Script with 40-byte args is 93 bytes (41: 94, 33: 86),
 * so one that does not fit has args of the wrong length. */
#define SCRIPT_BUF_SIZE 256

static uint8_t g_script[SCRIPT_BUF_SIZE];
static uint8_t g_witness[MMR_MAX_WITNESS_SIZE];

/* By reference, the cell deps of the running transaction (mmr_lock::load::dep_type_hash and
 * follow): exactly 32 bytes of type hash, else Syscall. */
static int dep_type_hash(void *ctx, uint64_t index, uint8_t out[32]) {
  (void)ctx;
  uint64_t len = 32;
  int ret = ckb_load_cell_by_field(out, &len, 0, index, CKB_SOURCE_CELL_DEP,
                                   CKB_CELL_FIELD_TYPE_HASH);
  if (ret == CKB_INDEX_OUT_OF_BOUND) {
    return MMR_DEP_END;
  }
  if (ret == CKB_ITEM_MISSING) {
    return MMR_DEP_NO_TYPE;
  }
  if (ret != CKB_SUCCESS || len != 32) {
    return MMR_ERR_SYSCALL;
  }
  return MMR_OK;
}

static int dep_data(void *ctx, uint64_t index, uint8_t *buf, uint64_t *len) {
  (void)ctx;
  if (ckb_load_cell_data(buf, len, 0, index, CKB_SOURCE_CELL_DEP) != CKB_SUCCESS) {
    return MMR_ERR_SYSCALL;
  }
  return MMR_OK;
}

static const mmr_dep_env_t g_dep_env = {dep_type_hash, dep_data, NULL};

/* mmr_lock::load::load_args, step for step: CKB has already verified the Script molecule
 * (table { code_hash, hash_type, args: Bytes }), so only the args field is located, with
 * every read bounds-checked (failures are Syscall, as in Rust). */
static int load_args(uint8_t **args, uint64_t *args_len) {
  uint64_t len = SCRIPT_BUF_SIZE;
  if (ckb_load_script(g_script, &len, 0) != CKB_SUCCESS) {
    return MMR_ERR_SYSCALL;
  }
  if (len > SCRIPT_BUF_SIZE) {
    return MMR_ERR_ARGS_LENGTH;
  }
  if (len < 16) {
    return MMR_ERR_SYSCALL;
  }
  uint64_t offset = cp_u32le(g_script + 12);
  if (offset > len || len - offset < 4) {
    return MMR_ERR_SYSCALL;
  }
  uint64_t n = cp_u32le(g_script + offset);
  if (n > len - offset - 4) {
    return MMR_ERR_SYSCALL;
  }
  *args = g_script + offset + 4;
  *args_len = n;
  return MMR_OK;
}

/* The owner check's hashes from the running transaction (mmr_lock::load::check_owner):
 * exactly 32 bytes, else Syscall. */
static int own_hash(void *ctx, uint8_t out[32]) {
  (void)ctx;
  uint64_t len = 32;
  if (ckb_load_script_hash(out, &len, 0) != CKB_SUCCESS || len != 32) {
    return MMR_ERR_SYSCALL;
  }
  return MMR_OK;
}

static int input_lock_hash(void *ctx, uint64_t index, uint8_t out[32]) {
  (void)ctx;
  uint64_t len = 32;
  int ret = ckb_load_cell_by_field(out, &len, 0, index, CKB_SOURCE_INPUT,
                                   CKB_CELL_FIELD_LOCK_HASH);
  if (ret == CKB_INDEX_OUT_OF_BOUND) {
    return MMR_OWNER_NO_INPUT;
  }
  if (ret != CKB_SUCCESS || len != 32) {
    return MMR_ERR_SYSCALL;
  }
  return MMR_OK;
}

static const mmr_owner_env_t g_owner_env = {own_hash, input_lock_hash, NULL};

int main(void) {
  uint8_t *args_bytes;
  uint64_t args_len;
  int rc = load_args(&args_bytes, &args_len);
  if (rc != MMR_OK) {
    return rc;
  }
  mmr_lock_args_t args;
  /* By reference, the accumulator's data is loaded over the args in g_script. */
  rc = mmr_parse_args(args_bytes, args_len, (uint64_t)(g_script + SCRIPT_BUF_SIZE - args_bytes),
                      &g_dep_env, &args);
  if (rc != MMR_OK) {
    return rc;
  }

  uint64_t witness_len = MMR_MAX_WITNESS_SIZE;
  int ret = ckb_load_witness(g_witness, &witness_len, 0, 0, CKB_SOURCE_GROUP_INPUT);
  if (ret == CKB_INDEX_OUT_OF_BOUND) {
    return MMR_ERR_WITNESS_MISSING;
  }
  if (ret != CKB_SUCCESS) {
    return MMR_ERR_SYSCALL;
  }
  if (witness_len > MMR_MAX_WITNESS_SIZE) {
    return MMR_ERR_WITNESS_TOO_LARGE;
  }

  cp_merge_setup();
  return mmr_lock_verify_witness(&args, g_witness, witness_len, &g_owner_env);
}
