/*
 * The lock after its inputs are loaded: strict WitnessArgs parse (5, 6), then the compiled
 * proof (40-64) and its root comparison (9). Shared by c/verifier.c and the host harness
 * (c/host/harness.c), so both run the same code. The includer defines, before or after
 * including this header,
 *   static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);
 * (blake2b-256, personalization "ckb-default-hash", of left || right).
 */
#ifndef MMR_LOCK_H_
#define MMR_LOCK_H_

#include "compiled_proof.h"
#include "lock_common.h"

static int mmr_lock_verify_witness(const mmr_lock_args_t *args, const uint8_t *witness,
                                   uint64_t witness_len) {
  const uint8_t *payload;
  uint64_t payload_len;
  int rc = mmr_lock_field(witness, witness_len, &payload, &payload_len);
  if (rc != MMR_OK) {
    return rc;
  }
  return cp_verify(payload, payload_len, args->leaf_count, args->root);
}

#endif /* MMR_LOCK_H_ */
