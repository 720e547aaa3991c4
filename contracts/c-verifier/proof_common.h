/*
 * What both payload formats' C verifiers share (compiled_proof.h, version 1; compact_proof.h,
 * version 2): the includer's hash, the word path of the assembly kernel, the exit codes and
 * little-endian reads. Header-only, no syscalls, no libc.
 *
 * Hashing is the includer's: define (before or after including this header)
 *   static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);
 * = blake2b-256, personalization "ckb-default-hash", over left || right. `out` may alias
 * `left` or `right` (the implementation must read both inputs before writing `out`).
 */
#ifndef MMR_PROOF_COMMON_H_
#define MMR_PROOF_COMMON_H_

#include <stddef.h>
#include <stdint.h>

static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

#ifdef CP_HAVE_WORDS
/* A hash as four little-endian words: an includer that defines CP_HAVE_WORDS before
 * including this header, and these four functions after it (contracts/c-verifier/merge_asm.h), keeps a
 * node's hash in registers along a run of merges and stores it once per run. Otherwise each
 * step hashes into a buffer with cp_merge. */
typedef struct {
  uint64_t w[4];
} cp_words_t;
static inline cp_words_t cp_merge_to_words(const uint8_t left[32], const uint8_t right[32]);
static inline cp_words_t cp_merge_words_left(cp_words_t node, const uint8_t item[32]);
static inline cp_words_t cp_merge_words_right(const uint8_t item[32], cp_words_t node);
static inline void cp_store_words(cp_words_t words, uint8_t out[32]);
#endif

/* Exit codes 40-68 (docs/error-codes.md): 40-64 version 1, 65-68 version 2 (which reuses 40-43,
 * 45, 46 and 49 with the same meaning); 69-79 reserved. */
#define CP_OK 0
#define CP_ERR_LEAF_COUNT_INVALID 40
#define CP_ERR_HEADER_TRUNCATED 41
#define CP_ERR_NO_LEAVES 42
#define CP_ERR_LEAVES_TRUNCATED 43
#define CP_ERR_UNKNOWN_COMMAND 44
#define CP_ERR_TRAILING_BYTES 45
#define CP_ERR_ITEM_TRUNCATED 46
#define CP_ERR_STACK_OVERFLOW 47
#define CP_ERR_LEAVES_EXHAUSTED 48
#define CP_ERR_LEAF_INDEX_OUT_OF_RANGE 49
#define CP_ERR_LEAF_INDEX_NOT_ASCENDING 50
#define CP_ERR_LEAF_OUTSIDE_PEAK 51
#define CP_ERR_PROOF_NO_NODE 52
#define CP_ERR_PROOF_OVER_PEAK 53
#define CP_ERR_MERGE_NO_NODES 54
#define CP_ERR_MERGE_HEIGHT_MISMATCH 55
#define CP_ERR_MERGE_NOT_SIBLINGS 56
#define CP_ERR_PEAK_NO_NODE 57
#define CP_ERR_PEAK_PENDING_NODES 58
#define CP_ERR_PEAK_MISMATCH 59
#define CP_ERR_PEAK_PROOF_PENDING_NODES 60
#define CP_ERR_BAG_RHS_PENDING_NODES 61
#define CP_ERR_BAG_RHS_TOO_FEW_PEAKS 62
#define CP_ERR_PEAKS_INCOMPLETE 63
#define CP_ERR_LEAVES_UNCONSUMED 64
#define CP_ERR_VERSION_UNSUPPORTED 65
#define CP_ERR_VARINT_NON_CANONICAL 66
#define CP_ERR_VARINT_TOO_LONG 67
#define CP_ERR_INDEXES_TRUNCATED 68
/* leaf_count must be below this (steps 1 of both formats). */
#define CP_MAX_LEAF_COUNT ((uint64_t)1 << 50)

/* Step 9 reports the lock-level code. */
#define CP_ERR_ROOT_MISMATCH 9

/* Little-endian reads at any alignment: a fixed-size memcpy into a local, one load where
 * misaligned loads are allowed. Both targets (riscv64 and the host harness) are
 * little-endian. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian targets only");

static inline uint64_t cp_u32le(const uint8_t *p) {
  uint32_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

static inline uint64_t cp_u64le(const uint8_t *p) {
  uint64_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

/* The last step of both formats: CP_OK when the computed root equals root, compared a word
 * at a time, else CP_ERR_ROOT_MISMATCH. */
static inline int cp_check_root(const uint8_t computed[32], const uint8_t root[32]) {
  uint64_t diff = 0;
  for (int i = 0; i < 32; i += 8) {
    diff |= cp_u64le(computed + i) ^ cp_u64le(root + i);
  }
  return diff == 0 ? CP_OK : CP_ERR_ROOT_MISMATCH;
}

#define CP_LIKELY(c) __builtin_expect(!!(c), 1)
#define CP_UNLIKELY(c) __builtin_expect(!!(c), 0)

#endif /* MMR_PROOF_COMMON_H_ */
