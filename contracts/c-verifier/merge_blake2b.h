/*
 * cp_merge for compiled_proof.h on ckb-c-stdlib's blake2b.h (include blake2b.h first):
 * blake2b-256, personalization "ckb-default-hash", over left || right. Shared by the
 * contract (contracts/c-verifier/verifier.c) and the host harness, which checks it against a fresh
 * ckb_blake2b_init per hash.
 *
 * The personalised initial state is computed once by ckb_blake2b_init (cp_merge_setup);
 * each merge then copies only its chaining words and resets the counters, instead of
 * copying the whole 248-byte blake2b_state. `out` may alias `left` or `right`: both are
 * copied into the state's buffer before blake2b_final writes `out`.
 */
#ifndef MMR_MERGE_BLAKE2B_H_
#define MMR_MERGE_BLAKE2B_H_

static blake2b_state g_cp_blake2b_init;

static void cp_merge_setup(void) { ckb_blake2b_init(&g_cp_blake2b_init, 32); }

/* noinline: one copy of the hashing glue instead of one per call site (size) */
__attribute__((noinline)) static void cp_merge(uint8_t out[32], const uint8_t left[32],
                                               const uint8_t right[32]) {
  blake2b_state s;
  for (int i = 0; i < 8; i++) {
    s.h[i] = g_cp_blake2b_init.h[i];
  }
  s.t[0] = s.t[1] = 0;
  s.f[0] = s.f[1] = 0;
  s.buflen = 0;
  s.outlen = 32;
  s.last_node = 0;
  blake2b_update(&s, left, 32);
  blake2b_update(&s, right, 32);
  blake2b_final(&s, out, 32);
}

#endif /* MMR_MERGE_BLAKE2B_H_ */
