/*
 * Lock-level plumbing of the C MMR verifier, mirroring crates/mmr-lock exactly:
 * the script args (40 bytes plain, 41 bytes owner mode), the strict molecule parse of
 * WitnessArgs, the canonical mmr_size check, the owner check and the lock-level exit codes
 * 1-19 and 80-89 (docs/error-codes.md).
 *
 * Header-only, no syscalls, no libc: the contract (c/verifier.c) and the native test
 * harness (c/host/) include the very same code. All arithmetic is on uint64_t; every
 * read is bounds-checked against the caller's length before it happens.
 */
#ifndef MMR_LOCK_COMMON_H_
#define MMR_LOCK_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include "compiled_proof.h" /* cp_u32le, cp_u64le: little-endian reads at any alignment */

/* Lock-level exit codes, the values of mmr_lock::LockError. */
#define MMR_OK 0
#define MMR_ERR_ARGS_LENGTH 1
#define MMR_ERR_ARGS_ENCODING 2 /* 41-byte args whose flags byte is not 0x01 */
#define MMR_ERR_WITNESS_MISSING 3
#define MMR_ERR_WITNESS_TOO_LARGE 4
#define MMR_ERR_WITNESS_ENCODING 5
#define MMR_ERR_LOCK_FIELD_MISSING 6
#define MMR_ERR_SYSCALL 7
#define MMR_ERR_MMR_SIZE_INVALID 8
#define MMR_ERR_ROOT_MISMATCH 9
/* Owner mode (80-89): no input but this script's own cells has a proved leaf as lock hash. */
#define MMR_ERR_OWNER_NOT_FOUND 80

/* Plain-mode script args: 32-byte root followed by mmr_size as u64 little endian. */
#define MMR_ARGS_LEN 40
/* Owner-mode script args: the plain args followed by one flags byte, MMR_FLAG_OWNER. */
#define MMR_OWNER_ARGS_LEN 41
#define MMR_FLAG_OWNER 0x01
/* Largest witness loaded; longer witnesses are rejected (code 4), never truncated. */
#define MMR_MAX_WITNESS_SIZE 65536
/* Largest accepted mmr_size (mmr_lock::mmr::MAX_MMR_SIZE). */
#define MMR_MAX_MMR_SIZE ((uint64_t)1 << 50)

typedef struct {
  const uint8_t *root; /* 32 bytes, points into the caller's args buffer */
  uint64_t mmr_size;
  uint64_t leaf_count; /* derived from, and proving canonical, mmr_size */
  int owner;           /* 1 in owner mode (41-byte args), 0 in plain mode */
} mmr_lock_args_t;

static inline uint64_t mmr_popcount64(uint64_t x) {
  return (uint64_t)__builtin_popcountll(x);
}

/* Size of an MMR with n leaves: 2n - popcount(n). Callers keep n <= 2^62. */
static inline uint64_t mmr_size_of(uint64_t leaf_count) {
  return 2 * leaf_count - mmr_popcount64(leaf_count);
}

/*
 * mmr_lock::mmr::leaf_count: the leaf count whose MMR has exactly mmr_size nodes.
 * Returns 0 and sets *leaf_count, or MMR_ERR_MMR_SIZE_INVALID when mmr_size is zero,
 * above 2^50 or not the size of any MMR.
 */
static int mmr_leaf_count(uint64_t mmr_size, uint64_t *leaf_count) {
  if (mmr_size == 0 || mmr_size > MMR_MAX_MMR_SIZE) {
    return MMR_ERR_MMR_SIZE_INVALID;
  }
  /* 2n - popcount(n) = size puts n in (size/2, size/2 + 51]; n <= 2^49 + 52 here. */
  uint64_t n = mmr_size / 2 + 1;
  uint64_t end = n + 52;
  for (; n < end; n++) {
    if (mmr_size_of(n) == mmr_size) {
      *leaf_count = n;
      return MMR_OK;
    }
  }
  return MMR_ERR_MMR_SIZE_INVALID;
}

/* mmr_lock::parse_args: the length first (40 or 41, else 1), then the flags byte of 41-byte
 * args (exactly MMR_FLAG_OWNER, else 2), then the canonical mmr_size (8). */
static int mmr_parse_args(const uint8_t *args, uint64_t args_len,
                          mmr_lock_args_t *out) {
  if (args_len == MMR_ARGS_LEN) {
    out->owner = 0;
  } else if (args_len == MMR_OWNER_ARGS_LEN) {
    if (args[MMR_ARGS_LEN] != MMR_FLAG_OWNER) {
      return MMR_ERR_ARGS_ENCODING;
    }
    out->owner = 1;
  } else {
    return MMR_ERR_ARGS_LENGTH;
  }
  out->root = args;
  out->mmr_size = cp_u64le(args + 32);
  return mmr_leaf_count(out->mmr_size, &out->leaf_count);
}

/*
 * mmr_lock::witness::lock_field: strict parse of WitnessArgs (a molecule table of three
 * BytesOpt: lock, input_type, output_type) returning the lock field's bytes.
 *
 * Rejected with MMR_ERR_WITNESS_ENCODING (5), in the Rust order (all give the same code):
 * shorter than 4 bytes; total size != length or < 16; first offset != 16 (so exactly three
 * fields); a field whose offsets are unordered or past the end; a non-empty field shorter
 * than 4 bytes or whose Bytes length header disagrees with the field size. Only after all
 * three fields are valid is an absent lock (empty BytesOpt) MMR_ERR_LOCK_FIELD_MISSING (6).
 */
static int mmr_lock_field(const uint8_t *w, uint64_t len, const uint8_t **lock,
                          uint64_t *lock_len) {
  enum { FIELDS = 3, HEADER = 4 * (1 + FIELDS) };
  if (len < 4) {
    return MMR_ERR_WITNESS_ENCODING;
  }
  uint64_t total = cp_u32le(w);
  if (total != len || total < HEADER) {
    return MMR_ERR_WITNESS_ENCODING;
  }
  /* From here on len >= 16, so the whole header is readable. */
  if (cp_u32le(w + 4) != HEADER) {
    return MMR_ERR_WITNESS_ENCODING;
  }
  uint64_t offsets[FIELDS + 1];
  for (int i = 0; i < FIELDS; i++) {
    offsets[i] = cp_u32le(w + 4 + 4 * i);
  }
  offsets[FIELDS] = total;
  const uint8_t *lock_ptr = NULL;
  uint64_t lock_size = 0;
  for (int i = 0; i < FIELDS; i++) {
    uint64_t start = offsets[i], end = offsets[i + 1];
    if (start > end || end > len) {
      return MMR_ERR_WITNESS_ENCODING;
    }
    if (start == end) {
      continue; /* BytesOpt None */
    }
    uint64_t size = end - start;
    if (size < 4 || cp_u32le(w + start) != size - 4) {
      return MMR_ERR_WITNESS_ENCODING;
    }
    if (i == 0) {
      lock_ptr = w + start + 4;
      lock_size = size - 4;
    }
  }
  if (lock_ptr == NULL) {
    return MMR_ERR_LOCK_FIELD_MISSING;
  }
  *lock = lock_ptr;
  *lock_len = lock_size;
  return MMR_OK;
}

#endif /* MMR_LOCK_COMMON_H_ */
