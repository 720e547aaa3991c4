/*
 * The cell-dep loads of lock_common.h's mmr_dep_env_t, emulated over an array, for the
 * native runs of the C verifier's code: host/harness.c and the assurance suite
 * (tests/assurance/csrc/c_core.c, whose Rust side lays emulated_dep_t out as CellDepFfi).
 * Include after lock_common.h (the MMR_* codes).
 */
#ifndef MMR_EMULATED_DEPS_H
#define MMR_EMULATED_DEPS_H

#include <stdint.h>
#include <string.h>

/* deps[i] has a type script (typed, its hash) or none, and data. */
typedef struct {
  int32_t typed;
  uint8_t type_hash[32];
  const uint8_t *data;
  uint64_t data_len;
} emulated_dep_t;

typedef struct {
  const emulated_dep_t *deps;
  uint64_t count;
  uint64_t failing; /* the index whose type hash load fails (7), or UINT64_MAX */
} emulated_deps_t;

static int emulated_dep_type_hash(void *ctx, uint64_t index, uint8_t out[32]) {
  const emulated_deps_t *t = ctx;
  if (index == t->failing) {
    return MMR_ERR_SYSCALL;
  }
  if (index >= t->count) {
    return MMR_DEP_END;
  }
  if (!t->deps[index].typed) {
    return MMR_DEP_NO_TYPE;
  }
  memcpy(out, t->deps[index].type_hash, 32);
  return MMR_OK;
}

/* As the syscall: at most *len bytes copied, *len set to the data's full length. */
static int emulated_dep_data(void *ctx, uint64_t index, uint8_t *buf, uint64_t *len) {
  const emulated_deps_t *t = ctx;
  if (index >= t->count) {
    return MMR_ERR_SYSCALL;
  }
  const emulated_dep_t *d = &t->deps[index];
  uint64_t n = d->data_len < *len ? d->data_len : *len;
  if (n) {
    memcpy(buf, d->data, n);
  }
  *len = d->data_len;
  return MMR_OK;
}

#endif
