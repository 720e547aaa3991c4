/*
 * The lock after its inputs are loaded: strict WitnessArgs parse (5, 6), then the compiled
 * proof (40-68) and its root comparison (9), then in owner mode the owner check (80).
 * The payload is the compact format, version 2 (compact_proof.h), or with CP_FORMAT_V1 the
 * command stream, version 1 (compiled_proof.h; contracts/c-verifier/build.sh FORMAT=v1).
 * Shared by contracts/c-verifier/verifier.c and the host harness (contracts/c-verifier/host/harness.c), so both run the same
 * code; only the source of the lock hashes (syscalls, or the harness's emulated inputs)
 * differs. The includer defines, before or after including this header,
 *   static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);
 * (blake2b-256, personalization "ckb-default-hash", of left || right).
 */
#ifndef MMR_LOCK_H_
#define MMR_LOCK_H_

#ifdef CP_FORMAT_V1
#include "compiled_proof.h"
#else
#include "compact_proof.h"
#endif
#include "lock_common.h"

/*
 * Where the owner check gets its hashes (mmr_lock::load in Rust):
 *   own_hash(ctx, out)            this script's hash (ckb_load_script_hash);
 *   input_lock_hash(ctx, i, out)  the lock script hash of input i (ckb_load_cell_by_field,
 *                                 CKB_SOURCE_INPUT, CKB_CELL_FIELD_LOCK_HASH).
 * Both return MMR_OK with 32 bytes written, or an exit code (MMR_ERR_SYSCALL); the second
 * returns MMR_OWNER_NO_INPUT past the last input.
 */
#define MMR_OWNER_NO_INPUT (-1)

typedef struct {
  int (*own_hash)(void *ctx, uint8_t out[32]);
  int (*input_lock_hash)(void *ctx, uint64_t index, uint8_t out[32]);
  void *ctx;
} mmr_owner_env_t;

/*
 * mmr_lock::owner::find_owner over the proved leaves of a payload the verifier accepted (so
 * its n >= 1 values are all in bounds: version 2, cc_leaf_values; version 1, leaf records of
 * 40 bytes after the 4-byte count, the value at +8). Inputs are
 * visited in order until MMR_OWNER_NO_INPUT; an input whose lock hash is this script's own
 * hash never counts; any other input whose lock hash equals any proved leaf accepts.
 * Out of line and cold: inlined into main it took a register from the proof's hot loop and
 * cost plain mode about 1,600 cycles on the reference seed; this way about 200.
 */
__attribute__((noinline, cold)) static int mmr_find_owner(const uint8_t *payload,
                                                         const mmr_owner_env_t *env) {
  uint8_t own[32], hash[32];
  int rc = env->own_hash(env->ctx, own);
  if (rc != MMR_OK) {
    return rc;
  }
#ifdef CP_FORMAT_V1
  uint64_t n = cp_u32le(payload), stride = 40;
  const uint8_t *values = payload + 4 + 8;
#else
  uint64_t n, stride = CC_HASH;
  const uint8_t *values = cc_leaf_values(payload, &n);
#endif
  for (uint64_t index = 0;; index++) {
    rc = env->input_lock_hash(env->ctx, index, hash);
    if (rc == MMR_OWNER_NO_INPUT) {
      return MMR_ERR_OWNER_NOT_FOUND;
    }
    if (rc != MMR_OK) {
      return rc;
    }
    if (mmr_hash_eq(hash, own)) {
      continue;
    }
    for (uint64_t i = 0; i < n; i++) {
      if (mmr_hash_eq(values + stride * i, hash)) {
        return MMR_OK;
      }
    }
  }
}

/* The whole lock after the loads: witness, proof, and in owner mode the owner check. */
static int mmr_lock_verify_witness(const mmr_lock_args_t *args, const uint8_t *witness,
                                   uint64_t witness_len, const mmr_owner_env_t *env) {
  const uint8_t *payload;
  uint64_t payload_len;
  int rc = mmr_lock_field(witness, witness_len, &payload, &payload_len);
  if (rc != MMR_OK) {
    return rc;
  }
#ifdef CP_FORMAT_V1
  rc = cp_verify(payload, payload_len, args->leaf_count, args->root);
#else
  rc = cc_verify(payload, payload_len, args->leaf_count, args->root);
#endif
  if (rc != MMR_OK || !args->owner) {
    return rc;
  }
  return mmr_find_owner(payload, env);
}

#endif /* MMR_LOCK_H_ */
