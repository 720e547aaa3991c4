/*
 * Lock-level plumbing of the C MMR verifier, mirroring crates/mmr-lock exactly:
 * the script args (40 bytes plain, 41 bytes owner mode, 33 bytes by reference), the strict
 * molecule parse of WitnessArgs, the canonical mmr_size check, the accumulator lookup among
 * the cell deps and the lock-level exit codes 1-19, 80-89 and 90-99 (docs/error-codes.md).
 *
 * Header-only, no syscalls, no libc: the contract (contracts/c-verifier/verifier.c) and the native test
 * harness (contracts/c-verifier/host/) include the very same code. All arithmetic is on uint64_t; every
 * read is bounds-checked against the caller's length before it happens.
 */
#ifndef MMR_LOCK_COMMON_H_
#define MMR_LOCK_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include "proof_common.h" /* cp_u32le, cp_u64le: little-endian reads at any alignment */

/* Lock-level exit codes, the values of mmr_lock::LockError. */
#define MMR_OK 0
#define MMR_ERR_ARGS_LENGTH 1
#define MMR_ERR_ARGS_ENCODING 2 /* a flags byte the args length does not allow (41: 0x01; 33: 0x02, 0x03) */
#define MMR_ERR_WITNESS_MISSING 3
#define MMR_ERR_WITNESS_TOO_LARGE 4
#define MMR_ERR_WITNESS_ENCODING 5
#define MMR_ERR_LOCK_FIELD_MISSING 6
#define MMR_ERR_SYSCALL 7
#define MMR_ERR_MMR_SIZE_INVALID 8
#define MMR_ERR_ROOT_MISMATCH 9
/* Owner mode (80-89): no input but this script's own cells has a proved leaf as lock hash. */
#define MMR_ERR_OWNER_NOT_FOUND 80
/* By reference (90-99): no cell dep, or more than one, has the args' type script hash; the
 * one that has it does not hold exactly root (32) || mmr_size (8). */
#define MMR_ERR_ACCUMULATOR_NOT_FOUND 90
#define MMR_ERR_ACCUMULATOR_AMBIGUOUS 91
#define MMR_ERR_ACCUMULATOR_DATA_LENGTH 92

/* Plain-mode script args: 32-byte root followed by mmr_size as u64 little endian. */
#define MMR_ARGS_LEN 40
/* Owner-mode script args: the plain args followed by one flags byte, MMR_FLAG_OWNER. */
#define MMR_OWNER_ARGS_LEN 41
#define MMR_FLAG_OWNER 0x01
/* By-reference script args: the accumulator's type script hash and one flags byte,
 * MMR_FLAG_BY_REFERENCE, with or without MMR_FLAG_OWNER. */
#define MMR_REF_ARGS_LEN 33
#define MMR_FLAG_BY_REFERENCE 0x02
/* The accumulator cell's data: root (32) || mmr_size (u64 LE), nothing else. */
#define MMR_ACCUMULATOR_DATA_LEN 40
/* Largest witness loaded; longer witnesses are rejected (code 4), never truncated. */
#define MMR_MAX_WITNESS_SIZE 65536
/* Largest accepted mmr_size (mmr_lock::mmr::MAX_MMR_SIZE). */
#define MMR_MAX_MMR_SIZE ((uint64_t)1 << 50)

typedef struct {
  const uint8_t *root; /* 32 bytes, in the caller's args buffer (or the accumulator's data) */
  uint64_t mmr_size;
  uint64_t leaf_count; /* derived from, and proving canonical, mmr_size */
  int owner;           /* 1 in owner mode (41-byte args, or flags 0x03), 0 otherwise */
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

/* mmr_lock::parse_reference: exactly 33 bytes (else 1) whose flags byte is
 * MMR_FLAG_BY_REFERENCE, with or without MMR_FLAG_OWNER (else 2). */
static int mmr_parse_reference(const uint8_t *args, uint64_t args_len) {
  if (args_len != MMR_REF_ARGS_LEN) {
    return MMR_ERR_ARGS_LENGTH;
  }
  uint8_t flags = args[32];
  if (flags != MMR_FLAG_BY_REFERENCE && flags != (MMR_FLAG_BY_REFERENCE | MMR_FLAG_OWNER)) {
    return MMR_ERR_ARGS_ENCODING;
  }
  return MMR_OK;
}

/* 32-byte equality with a one-byte early out (mmr_lock::owner::same). */
static inline int mmr_hash_eq(const uint8_t *a, const uint8_t *b) {
  return a[0] == b[0] && cp_u64le(a) == cp_u64le(b) &&
         cp_u64le(a + 8) == cp_u64le(b + 8) &&
         cp_u64le(a + 16) == cp_u64le(b + 16) &&
         cp_u64le(a + 24) == cp_u64le(b + 24);
}

/*
 * Where by-reference mode gets the cell deps (mmr_lock::load in Rust):
 *   dep_type_hash(ctx, i, out)  the type script hash of cell dep i (ckb_load_cell_by_field,
 *                               CKB_SOURCE_CELL_DEP, CKB_CELL_FIELD_TYPE_HASH): MMR_OK with 32
 *                               bytes written, MMR_DEP_NO_TYPE (no type script),
 *                               MMR_DEP_END (past the last dep) or an exit code (7);
 *   dep_data(ctx, i, buf, len)  cell dep i's data (ckb_load_cell_data): at most *len bytes
 *                               into buf, *len set to the data's full length; MMR_OK or an
 *                               exit code (7).
 */
#define MMR_DEP_NO_TYPE (-3)
#define MMR_DEP_END (-4)

typedef struct {
  int (*dep_type_hash)(void *ctx, uint64_t index, uint8_t out[32]);
  int (*dep_data)(void *ctx, uint64_t index, uint8_t *buf, uint64_t *len);
  void *ctx;
} mmr_dep_env_t;

/* mmr_lock::reference::find_accumulator: the one cell dep whose type script hash is
 * type_hash. Deps are visited in order until MMR_DEP_END; a second match is 91 at once,
 * none at all 90; a loader error is returned as it comes. */
static int mmr_find_accumulator(const uint8_t *type_hash, const mmr_dep_env_t *env,
                                uint64_t *found) {
  uint8_t hash[32];
  int matched = 0;
  for (uint64_t index = 0;; index++) {
    int rc = env->dep_type_hash(env->ctx, index, hash);
    if (rc == MMR_DEP_END) {
      break;
    }
    if (rc == MMR_DEP_NO_TYPE) {
      continue;
    }
    if (rc != MMR_OK) {
      return rc;
    }
    if (mmr_hash_eq(hash, type_hash)) {
      if (matched) {
        return MMR_ERR_ACCUMULATOR_AMBIGUOUS;
      }
      matched = 1;
      *found = index;
    }
  }
  return matched ? MMR_OK : MMR_ERR_ACCUMULATOR_NOT_FOUND;
}

/* mmr_lock::load::follow, for args shorter than 40 bytes: by-reference args
 * (mmr_parse_reference: 1 or 2 otherwise) name the one accumulator among the cell deps
 * (mmr_find_accumulator), whose data (exactly 40 bytes, else 92) is loaded over the args in
 * place, followed by the owner flags byte (0x01 in owner mode, else 0x00): args[0 .. 41] then
 * read as the owner-mode args layout. room: the bytes writable at args (at least 41, else
 * Syscall; the contract's script buffer always has them). Out of line and cold: the plain and
 * owner paths never get here. */
__attribute__((noinline, cold)) static int mmr_follow_reference(uint8_t *args,
                                                                uint64_t args_len,
                                                                uint64_t room,
                                                                const mmr_dep_env_t *env) {
  int rc = mmr_parse_reference(args, args_len);
  if (rc != MMR_OK) {
    return rc;
  }
  if (room < MMR_OWNER_ARGS_LEN) {
    return MMR_ERR_SYSCALL;
  }
  uint64_t index = 0;
  rc = mmr_find_accumulator(args, env, &index);
  if (rc != MMR_OK) {
    return rc;
  }
  /* Read before the data overwrites it. */
  uint8_t owner = args[32] & MMR_FLAG_OWNER;
  uint64_t data_len = MMR_ACCUMULATOR_DATA_LEN;
  rc = env->dep_data(env->ctx, index, args, &data_len);
  if (rc != MMR_OK) {
    return rc;
  }
  if (data_len != MMR_ACCUMULATOR_DATA_LEN) {
    return MMR_ERR_ACCUMULATOR_DATA_LENGTH;
  }
  args[MMR_ARGS_LEN] = owner;
  return MMR_OK;
}

/* mmr_lock::parse_args, and for by-reference args mmr_lock::load::follow: the length first
 * (40 or 41; shorter: mmr_follow_reference, 1, 2, 90, 91, 92 or 7; else 1), then the flags
 * byte of 41-byte args (exactly MMR_FLAG_OWNER, else 2), then the canonical mmr_size (8) of
 * the args or of the accumulator's data, which mmr_follow_reference loaded over the args
 * (args must be writable for room bytes, env gives the cell deps; neither is touched for 40-
 * or 41-byte args). The by-reference branch joins the plain path's own tail, so the plain
 * and owner paths compile as before. */
static int mmr_parse_args(uint8_t *args, uint64_t args_len, uint64_t room,
                          const mmr_dep_env_t *env, mmr_lock_args_t *out) {
  if (args_len == MMR_ARGS_LEN) {
    out->owner = 0;
  } else if (args_len == MMR_OWNER_ARGS_LEN) {
    if (args[MMR_ARGS_LEN] != MMR_FLAG_OWNER) {
      return MMR_ERR_ARGS_ENCODING;
    }
    out->owner = 1;
  } else if (args_len < MMR_ARGS_LEN) {
    int rc = mmr_follow_reference(args, args_len, room, env);
    if (rc != MMR_OK) {
      return rc;
    }
    out->owner = args[MMR_ARGS_LEN];
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
