/*
 * The C verifier's core (contracts/c-verifier/lock_common.h, compact_proof.h for the compiled
 * format's version 2 that the contract reads, compiled_proof.h for version 1 that the
 * exhaustive search of command streams still checks: the contract's own code) compiled natively for the assurance suite and called from Rust over FFI. Only the
 * hash differs from the contract: cp_merge calls back into the reference blake2b-rs
 * (assurance_merge), so this exercises the format logic, not ckb-c-stdlib's blake2b.h
 * (which contracts/c-verifier/host/run.sh checks under ASan/UBSan).
 */
#include <stdint.h>

#include "compact_proof.h"
#include "compiled_proof.h"
#include "lock_common.h"

/* contracts/c-verifier/host: the cell-dep loads, as the host harness emulates them. */
#include "emulated_deps.h"

extern void assurance_merge(uint8_t *out, const uint8_t *left, const uint8_t *right);

static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
  assurance_merge(out, left, right);
}

/* cp_verify: version 1 (docs/compiled-format-v1.md), steps 1-10. */
int assurance_c_verify(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                       const uint8_t *root) {
  return cp_verify(payload, len, leaf_count, root);
}

/* cc_verify: version 2 (docs/compiled-format.md), what the contract runs. */
int assurance_c_verify_compact(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                               const uint8_t *root) {
  return cc_verify(payload, len, leaf_count, root);
}

/* A cell dep of the emulated transaction, as src/native.rs's CellDepFfi lays it out. */
typedef emulated_dep_t assurance_dep_t;

/* contracts/c-verifier/verifier.c's plain and by-reference modes after its two loads, in its order: args (1, 2,
 * 8; by reference 90, 91, 92, 8 from the given cell deps), witness 0 missing (3), longer than
 * the buffer (4), then WitnessArgs (5, 6) and the compiled proof (contracts/c-verifier/mmr_lock.h's
 * mmr_lock_verify_witness without the owner step, which needs the transaction's inputs and
 * has its own tests), on version 2 payloads as the contract reads them. args must be writable for room >= 41 bytes when shorter than 40, as the
 * contract's script buffer is: by reference the accumulator's data is loaded over them. */
int assurance_c_lock(uint8_t *args, uint64_t args_len, uint64_t room, const uint8_t *witness,
                     uint64_t witness_len, int has_witness, const assurance_dep_t *deps,
                     uint64_t dep_count) {
  const emulated_deps_t t = {deps, dep_count, UINT64_MAX};
  const mmr_dep_env_t env = {emulated_dep_type_hash, emulated_dep_data, (void *)&t};
  mmr_lock_args_t a;
  int rc = mmr_parse_args(args, args_len, room, &env, &a);
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
  return cc_verify(payload, payload_len, a.leaf_count, a.root);
}
