/*
 * The C verifier's core (c/lock_common.h + c/compiled_proof.h, the contract's own code)
 * compiled natively for the assurance suite and called from Rust over FFI. Only the
 * hash differs from the contract: cp_merge calls back into the reference blake2b-rs
 * (assurance_merge), so this exercises the format logic, not ckb-c-stdlib's blake2b.h
 * (which c/host/run.sh checks under ASan/UBSan).
 */
#include <stdint.h>

#include "compiled_proof.h"
#include "lock_common.h"

extern void assurance_merge(uint8_t *out, const uint8_t *left, const uint8_t *right);

static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
  assurance_merge(out, left, right);
}

/* cp_verify: steps 1-10 of docs/compiled-format.md. */
int assurance_c_verify(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                       const uint8_t *root) {
  return cp_verify(payload, len, leaf_count, root);
}

/* c/verifier.c's plain (40-byte args) mode after its two loads, in its order: args (1, 8),
 * witness 0 missing (3), longer than the buffer (4), then WitnessArgs (5, 6) and the
 * compiled proof (c/mmr_lock.h's mmr_lock_verify_witness without the owner step, which
 * needs the transaction's inputs and has its own tests). */
int assurance_c_lock(const uint8_t *args, uint64_t args_len, const uint8_t *witness,
                     uint64_t witness_len, int has_witness) {
  mmr_lock_args_t a;
  int rc = mmr_parse_args(args, args_len, &a);
  if (rc != MMR_OK) {
    return rc;
  }
  if (!has_witness) {
    return MMR_ERR_WITNESS_MISSING;
  }
  if (witness_len > MMR_MAX_WITNESS_SIZE) {
    return MMR_ERR_WITNESS_TOO_LARGE;
  }
  const uint8_t *payload;
  uint64_t payload_len;
  rc = mmr_lock_field(witness, witness_len, &payload, &payload_len);
  if (rc != MMR_OK) {
    return rc;
  }
  return cp_verify(payload, payload_len, a.leaf_count, a.root);
}
