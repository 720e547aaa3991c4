/*
 * Native test harness for the C verifier: runs contracts/c-verifier/mmr_lock.h (lock plumbing + compiled
 * proof, the compact format, version 2) and contracts/c-verifier/merge_blake2b.h on test vectors, with ckb-c-stdlib's blake2b.h compiled
 * natively (the contract's exact C code, other than the syscalls), and
 * emulating the loads of contracts/c-verifier/verifier.c (args, witness 0 of the group inputs, and in owner
 * mode the lock hashes of a transaction whose only input is the lock's own cell, as
 * ckb-script runs the vectors in tests/tests/compiled.rs: owner mode then exits 80; whose
 * only cell dep is the verifier's code, no accumulator: by-reference args then exit 90).
 *
 * Usage: harness [-v] FILE...      run every vector of every file
 *        harness --self-test       built-in checks of lock_common.h and cp_merge
 *        harness --root PAYLOAD_HEX MMR_SIZE
 *                                  print the root a payload computes (or its exit code)
 *
 * Vector files: one vector per line; blank lines and lines starting with '#' are ignored.
 * Tokens are separated by spaces or tabs; "-" is an empty byte string.
 *   P <payload_hex> <root_hex> <mmr_size> <expected_code> [label...]
 *       args = root (32 bytes) || mmr_size (u64 LE); witness 0 = WitnessArgs { lock:
 *       Some(payload), input_type: None, output_type: None }.
 *   L <args_hex> <witness_hex|none> <expected_code> [label...]
 *       raw script args and raw witness 0 bytes ("none": the group has no witness 0).
 * mmr_size is decimal or 0x-prefixed hex; expected_code is decimal 0-255.
 *
 * Every byte string is copied into a malloc'd buffer of exactly its size so that
 * AddressSanitizer catches any read past the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blake2b.h"
#include "merge_blake2b.h" /* the contract's cp_merge */
#include "mmr_lock.h"

#include "emulated_deps.h" /* the cell-dep loads, shared with tests/assurance */

/* The payload format of mmr_lock.h: version 2 (compact), or version 1 with -DCP_FORMAT_V1. */
#ifdef CP_FORMAT_V1
#define CP_COMPUTE_ROOT cp_compute_root
#else
#define CP_COMPUTE_ROOT cc_compute_root
#endif

/* ---- the lock, as contracts/c-verifier/verifier.c runs it, with the syscalls emulated ------------------- */

/* The emulated transaction of the vectors: one input, the lock's own cell. */
static const uint8_t g_own_hash[32] = {0x5e, 0x1f};

static int emulated_own_hash(void *ctx, uint8_t out[32]) {
  (void)ctx;
  memcpy(out, g_own_hash, 32);
  return MMR_OK;
}

static int emulated_input_lock_hash(void *ctx, uint64_t index, uint8_t out[32]) {
  (void)ctx;
  if (index > 0) {
    return MMR_OWNER_NO_INPUT;
  }
  memcpy(out, g_own_hash, 32);
  return MMR_OK;
}

/* The vectors' transaction: one cell dep, the verifier's code cell, without a type script. */
static const emulated_dep_t g_code_dep = {0, {0}, NULL, 0};
static const emulated_deps_t g_vector_deps = {&g_code_dep, 1, UINT64_MAX};
static const mmr_dep_env_t g_vector_env = {emulated_dep_type_hash, emulated_dep_data,
                                           (void *)&g_vector_deps};

/* witness == NULL: no witness 0 in the group. */
static int run_lock(const uint8_t *args, uint64_t args_len, const uint8_t *witness,
                    uint64_t witness_len) {
  /* The contract's args sit in its script buffer, with room for the accumulator's 41 bytes
   * to be loaded over them by reference; copy them into an exact buffer of that room. */
  uint64_t room = args_len < MMR_OWNER_ARGS_LEN ? MMR_OWNER_ARGS_LEN : args_len;
  uint8_t *writable = malloc(room);
  if (writable == NULL) {
    abort();
  }
  memset(writable, 0x5a, room);
  if (args_len) {
    memcpy(writable, args, args_len);
  }
  mmr_lock_args_t a;
  int rc = mmr_parse_args(writable, args_len, room, &g_vector_env, &a);
  if (rc == MMR_OK && witness == NULL) {
    rc = MMR_ERR_WITNESS_MISSING;
  } else if (rc == MMR_OK && witness_len > MMR_MAX_WITNESS_SIZE) {
    rc = MMR_ERR_WITNESS_TOO_LARGE;
  }
  if (rc != MMR_OK) {
    free(writable);
    return rc;
  }
  /* The contract holds the witness in a 64 KiB static buffer; copy it into an exact one. */
  uint8_t *w = malloc(witness_len ? witness_len : 1);
  if (w == NULL) {
    abort();
  }
  memcpy(w, witness, witness_len);
  const mmr_owner_env_t env = {emulated_own_hash, emulated_input_lock_hash, NULL};
  rc = mmr_lock_verify_witness(&a, w, witness_len, &env);
  free(w);
  free(writable);
  return rc;
}

/* ---- parsing ----------------------------------------------------------------------- */

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes tok ("-" = empty) into a malloc'd buffer of exactly its size. */
static int parse_hex(const char *tok, uint8_t **out, uint64_t *len) {
  size_t n = strcmp(tok, "-") == 0 ? 0 : strlen(tok);
  if (n % 2 != 0) {
    return 0;
  }
  uint8_t *buf = malloc(n / 2 ? n / 2 : 1);
  if (buf == NULL) {
    return 0;
  }
  for (size_t i = 0; i < n / 2; i++) {
    int hi = hexval((unsigned char)tok[2 * i]), lo = hexval((unsigned char)tok[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(buf);
      return 0;
    }
    buf[i] = (uint8_t)(hi * 16 + lo);
  }
  *out = buf;
  *len = n / 2;
  return 1;
}

static int parse_u64(const char *tok, uint64_t *out) {
  char *end;
  errno = 0;
  if (tok[0] == '-' || tok[0] == '+' || tok[0] == '\0') {
    return 0;
  }
  unsigned long long v = strtoull(tok, &end, 0);
  if (errno != 0 || *end != '\0') {
    return 0;
  }
  *out = v;
  return 1;
}

static void put_u32(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

/* WitnessArgs { lock: Some(payload), input_type: None, output_type: None } */
static uint8_t *witness_args_with_lock(const uint8_t *payload, uint64_t n, uint64_t *len) {
  *len = 16 + 4 + n;
  uint8_t *w = malloc(*len);
  if (w == NULL) {
    abort();
  }
  put_u32(w, *len);
  put_u32(w + 4, 16);
  put_u32(w + 8, *len);
  put_u32(w + 12, *len);
  put_u32(w + 16, n);
  if (n) {
    memcpy(w + 20, payload, n);
  }
  return w;
}

#define MAX_TOKENS 8

static int split(char *line, char **tok) {
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n < MAX_TOKENS) {
      tok[n] = t;
    }
    n++;
  }
  return n;
}

/* Runs one vector line. Returns 1 pass, 0 fail, -1 malformed line. */
static int run_line(char *line, int *got, int *want) {
  char *tok[MAX_TOKENS];
  int n = split(line, tok);
  if (n == 0) {
    return -1;
  }
  int is_p = strcmp(tok[0], "P") == 0 && n >= 5, is_l = strcmp(tok[0], "L") == 0 && n >= 4;
  uint64_t expected;
  if (!(is_p || is_l) || !parse_u64(tok[is_p ? 4 : 3], &expected) || expected > 255) {
    return -1;
  }
  if (is_p) {
    uint8_t *payload, *root;
    uint64_t payload_len, root_len, mmr_size;
    if (!parse_u64(tok[3], &mmr_size)) {
      return -1;
    }
    if (!parse_hex(tok[1], &payload, &payload_len)) {
      return -1;
    }
    if (!parse_hex(tok[2], &root, &root_len)) {
      free(payload);
      return -1;
    }
    if (root_len != 32) {
      free(payload);
      free(root);
      return -1;
    }
    uint8_t args[MMR_ARGS_LEN];
    memcpy(args, root, 32);
    for (int i = 0; i < 8; i++) {
      args[32 + i] = (uint8_t)(mmr_size >> (8 * i));
    }
    uint64_t wlen;
    uint8_t *w = witness_args_with_lock(payload, payload_len, &wlen);
    *got = run_lock(args, sizeof args, w, wlen);
    free(w);
    free(payload);
    free(root);
  } else {
    uint8_t *args, *w = NULL;
    uint64_t args_len, wlen = 0;
    if (!parse_hex(tok[1], &args, &args_len)) {
      return -1;
    }
    if (strcmp(tok[2], "none") != 0 && !parse_hex(tok[2], &w, &wlen)) {
      free(args);
      return -1;
    }
    *got = run_lock(args, args_len, w, wlen);
    free(args);
    free(w);
  }
  *want = (int)expected;
  return *got == *want;
}

static int run_file(const char *path, int verbose, long *passed, long *failed) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
    (*failed)++;
    return 0;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t got_len;
  long lineno = 0;
  while ((got_len = getline(&line, &cap, f)) != -1) {
    lineno++;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') {
      continue;
    }
    /* the start of the line, for messages (run_line splits the line in place) */
    char label[64];
    size_t label_len = strcspn(p, "\r\n");
    snprintf(label, sizeof label, "%.*s", (int)(label_len < 60 ? label_len : 60), p);
    int got = -1, want = -1;
    int r = run_line(line, &got, &want);
    if (r < 0) {
      fprintf(stderr, "%s:%ld: malformed vector line\n", path, lineno);
      (*failed)++;
    } else if (r == 0) {
      fprintf(stderr, "%s:%ld: FAIL: expected %d, got %d  (%s...)\n", path, lineno, want, got,
              label);
      (*failed)++;
    } else {
      if (verbose) {
        printf("%s:%ld: ok %d\n", path, lineno, got);
      }
      (*passed)++;
    }
  }
  free(line);
  fclose(f);
  return 1;
}

/* ---- self test of lock_common.h ------------------------------------------------------ */

static int g_self_failures;
#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "self-test %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      g_self_failures++;                                                \
    }                                                                   \
  } while (0)

static int leaf_count_or_zero(uint64_t size) {
  uint64_t n = 0;
  return mmr_leaf_count(size, &n) == MMR_OK ? (int)n : 0;
}

/* blake2b-256 / ckb-default-hash of data, the plain way */
static void ref_hash(uint8_t out[32], const uint8_t *data, size_t len) {
  blake2b_state s;
  ckb_blake2b_init(&s, 32);
  blake2b_update(&s, data, len);
  blake2b_final(&s, out, 32);
}

static void self_test_merge(void) {
  uint8_t out[32], want[32], lr[64], a[32];
  ref_hash(out, NULL, 0);
  static const uint8_t empty[32] = {0x44, 0xf4, 0xc6, 0x97, 0x44, 0xd5, 0xf8, 0xc5,
                                    0x5d, 0x64, 0x20, 0x62, 0x94, 0x9d, 0xca, 0xe4,
                                    0x9b, 0xc4, 0xe7, 0xef, 0x43, 0xd3, 0x88, 0xc5,
                                    0xa1, 0x2f, 0x42, 0xb5, 0x63, 0x3d, 0x16, 0x3e};
  CHECK(memcmp(out, empty, 32) == 0); /* ckb_hash::blake2b_256([]) */
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 200; round++) {
    for (int i = 0; i < 64; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      lr[i] = (uint8_t)x;
    }
    ref_hash(want, lr, 64);
    cp_merge(out, lr, lr + 32);
    CHECK(memcmp(out, want, 32) == 0);
    memcpy(a, lr, 32); /* out aliasing left */
    cp_merge(a, a, lr + 32);
    CHECK(memcmp(a, want, 32) == 0);
    memcpy(a, lr + 32, 32); /* out aliasing right */
    cp_merge(a, lr, a);
    CHECK(memcmp(a, want, 32) == 0);
  }
}

/* mmr_find_owner against emulated inputs, as mmr_lock::owner's tests. */
typedef struct {
  uint8_t (*inputs)[32];
  uint64_t count;
  uint64_t fail_at; /* an index whose load fails with Syscall (UINT64_MAX: none) */
} test_inputs_t;

static int test_own_hash(void *ctx, uint8_t out[32]) {
  (void)ctx;
  memset(out, 0xaa, 32);
  return MMR_OK;
}

static int test_input_lock_hash(void *ctx, uint64_t index, uint8_t out[32]) {
  const test_inputs_t *t = ctx;
  if (index == t->fail_at) {
    return MMR_ERR_SYSCALL;
  }
  if (index >= t->count) {
    return MMR_OWNER_NO_INPUT;
  }
  memcpy(out, t->inputs[index], 32);
  return MMR_OK;
}

/* A payload's leaves (what mmr_find_owner reads) for up to 4 leaves: version 2, n and n
 * one-byte gaps before the values; version 1, 40-byte records after a 4-byte count. */
static int owner_case(uint8_t (*leaves)[32], uint32_t n, uint8_t (*inputs)[32],
                      uint64_t count, uint64_t fail_at) {
  uint8_t payload[4 + 40 * 4];
  memset(payload, 0, sizeof payload);
#ifdef CP_FORMAT_V1
  memcpy(payload, &n, 4);
  for (uint32_t i = 0; i < n; i++) {
    memcpy(payload + 4 + 40 * i + 8, leaves[i], 32);
  }
#else
  payload[0] = 0x02;
  payload[1] = (uint8_t)n;
  for (uint32_t i = 0; i < n; i++) {
    memcpy(payload + 2 + n + 32 * i, leaves[i], 32);
  }
#endif
  test_inputs_t t = {inputs, count, fail_at};
  const mmr_owner_env_t env = {test_own_hash, test_input_lock_hash, &t};
  return mmr_find_owner(payload, &env);
}

static void self_test_owner(void) {
  const uint64_t none = UINT64_MAX;
  uint8_t leaves[2][32], inputs[2][32];
  memset(leaves[0], 2, 32);    /* another leaf */
  memset(leaves[1], 1, 32);    /* the owner's lock hash */
  memset(inputs[0], 0xaa, 32); /* the lock's own cell (test_own_hash) */
  memset(inputs[1], 1, 32);    /* the owner's cell */
  CHECK(owner_case(leaves, 2, inputs, 2, none) == MMR_OK);
  CHECK(owner_case(leaves, 1, inputs, 2, none) == MMR_ERR_OWNER_NOT_FOUND);
  CHECK(owner_case(leaves, 2, inputs, 1, none) == MMR_ERR_OWNER_NOT_FOUND);
  CHECK(owner_case(leaves, 2, inputs, 0, none) == MMR_ERR_OWNER_NOT_FOUND);
  CHECK(owner_case(leaves, 2, inputs, 2, 1) == MMR_ERR_SYSCALL);
  CHECK(owner_case(leaves, 2, inputs, 2, 2) == MMR_OK); /* found before the failing load */
  inputs[1][31] ^= 1;                                   /* one bit off: no owner */
  CHECK(owner_case(leaves, 2, inputs, 2, none) == MMR_ERR_OWNER_NOT_FOUND);
  /* this script's own hash as a proved leaf still never counts */
  memset(leaves[1], 0xaa, 32);
  memset(inputs[1], 0xaa, 32);
  CHECK(owner_case(leaves, 2, inputs, 2, none) == MMR_ERR_OWNER_NOT_FOUND);
}

/* By reference, as mmr_lock::reference's and mmr_lock's tests: args naming ACC among deps. */
static int reference_case(uint8_t flags, const emulated_dep_t *deps, uint64_t count,
                          uint64_t failing, mmr_lock_args_t *a) {
  /* Static: a->root points into it after the call. */
  static uint8_t args[41];
  memset(args, 0xac, 32);
  args[32] = flags;
  const emulated_deps_t t = {deps, count, failing};
  const mmr_dep_env_t env = {emulated_dep_type_hash, emulated_dep_data, (void *)&t};
  return mmr_parse_args(args, 33, sizeof args, &env, a);
}

static void self_test_reference(void) {
  const uint64_t none = UINT64_MAX;
  uint8_t data[41];
  memset(data, 0x11, 32);
  put_u32(data + 32, 5034);
  put_u32(data + 36, 0);
  data[40] = 0x77;
  emulated_dep_t acc = {1, {0}, data, 40}, code = {0, {0}, NULL, 0}, other = {1, {0}, data, 40};
  memset(acc.type_hash, 0xac, 32);
  memset(other.type_hash, 0xac, 32);
  other.type_hash[31] ^= 1; /* one bit off: another type script */
  mmr_lock_args_t a;
  emulated_dep_t deps[3] = {code, acc, other};
  CHECK(reference_case(0x02, deps, 3, none, &a) == MMR_OK && a.owner == 0 &&
        a.mmr_size == 5034 && a.leaf_count == 2520 && memcmp(a.root, data, 32) == 0);
  CHECK(reference_case(0x03, deps, 3, none, &a) == MMR_OK && a.owner == 1 &&
        a.leaf_count == 2520);
  CHECK(reference_case(0x01, deps, 3, none, &a) == MMR_ERR_ARGS_ENCODING);
  CHECK(reference_case(0x02, deps, 1, none, &a) == MMR_ERR_ACCUMULATOR_NOT_FOUND);
  CHECK(reference_case(0x02, deps, 0, none, &a) == MMR_ERR_ACCUMULATOR_NOT_FOUND);
  deps[1] = other;
  CHECK(reference_case(0x02, deps, 3, none, &a) == MMR_ERR_ACCUMULATOR_NOT_FOUND);
  deps[0] = acc;
  deps[1] = acc;
  CHECK(reference_case(0x02, deps, 3, none, &a) == MMR_ERR_ACCUMULATOR_AMBIGUOUS);
  CHECK(reference_case(0x02, deps, 3, 2, &a) == MMR_ERR_ACCUMULATOR_AMBIGUOUS);
  CHECK(reference_case(0x02, deps, 3, 1, &a) == MMR_ERR_SYSCALL);
  deps[0] = code;
  CHECK(reference_case(0x02, deps, 3, 0, &a) == MMR_ERR_SYSCALL);
  /* the data: exactly 40 bytes, then a canonical size */
  const uint64_t lens[] = {0, 1, 32, 39, 41};
  deps[1] = acc;
  deps[2] = other;
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    deps[1].data_len = lens[i];
    CHECK(reference_case(0x02, deps, 3, none, &a) == MMR_ERR_ACCUMULATOR_DATA_LENGTH);
  }
  deps[1].data_len = 40;
  put_u32(data + 32, 5036);
  CHECK(reference_case(0x03, deps, 3, none, &a) == MMR_ERR_MMR_SIZE_INVALID);
  put_u32(data + 32, 0);
  CHECK(reference_case(0x02, deps, 3, none, &a) == MMR_ERR_MMR_SIZE_INVALID);
  /* too little room to load the accumulator over the args: never in the contract */
  {
    uint8_t args[33];
    memset(args, 0xac, 32);
    args[32] = 0x02;
    const emulated_deps_t t = {deps, 3, none};
    const mmr_dep_env_t env = {emulated_dep_type_hash, emulated_dep_data, (void *)&t};
    CHECK(mmr_parse_args(args, 33, sizeof args, &env, &a) == MMR_ERR_SYSCALL);
  }
}

static void self_test(void) {
  self_test_merge();
  /* canonical sizes, by building MMRs incrementally */
  uint64_t size = 0;
  int peaks = 0;
  unsigned heights[64];
  static uint64_t expected_leaves[20000];
  for (uint64_t n = 1; n < 5000; n++) {
    heights[peaks++] = 0;
    size++;
    while (peaks >= 2 && heights[peaks - 1] == heights[peaks - 2]) {
      peaks--;
      heights[peaks - 1]++;
      size++;
    }
    CHECK(mmr_size_of(n) == size);
    expected_leaves[size] = n;
  }
  for (uint64_t s = 0; s < size; s++) {
    CHECK((uint64_t)leaf_count_or_zero(s) == expected_leaves[s]);
  }
  uint64_t n = 0;
  CHECK(mmr_leaf_count(5034, &n) == MMR_OK && n == 2520);
  CHECK(mmr_leaf_count(MMR_MAX_MMR_SIZE + 1, &n) == MMR_ERR_MMR_SIZE_INVALID);
  CHECK(mmr_leaf_count(UINT64_MAX, &n) == MMR_ERR_MMR_SIZE_INVALID);
  uint64_t big = MMR_MAX_MMR_SIZE / 2 - 1;
  CHECK(mmr_leaf_count(mmr_size_of(big), &n) == MMR_OK && n == big);
  /* 2^50 itself: 2n - popcount(n) = 2^50 has a solution? check against brute force */
  {
    uint64_t m = MMR_MAX_MMR_SIZE, found = 0;
    for (uint64_t k = m / 2; k < m / 2 + 60; k++) {
      if (mmr_size_of(k) == m) found = k;
    }
    CHECK((mmr_leaf_count(m, &n) == MMR_OK) == (found != 0));
  }

  /* args */
  uint8_t args[42] = {0};
  mmr_lock_args_t a;
#define PARSE(len) mmr_parse_args(args, (len), sizeof args, &g_vector_env, &a)
  CHECK(PARSE(39) == MMR_ERR_ARGS_LENGTH);
  CHECK(PARSE(42) == MMR_ERR_ARGS_LENGTH);
  CHECK(PARSE(41) == MMR_ERR_ARGS_ENCODING); /* flags 0x00 */
  CHECK(PARSE(40) == MMR_ERR_MMR_SIZE_INVALID);
  args[40] = MMR_FLAG_OWNER;
  CHECK(PARSE(41) == MMR_ERR_MMR_SIZE_INVALID); /* flags before size */
  args[32] = 4; /* size 4 = 3 leaves */
  CHECK(PARSE(40) == MMR_OK && a.leaf_count == 3 && a.mmr_size == 4 && a.owner == 0);
  CHECK(PARSE(41) == MMR_OK && a.leaf_count == 3 && a.owner == 1);
  const uint8_t bad_flags[] = {0x00, 0x02, 0x03, 0x80, 0x81, 0xff};
  for (size_t i = 0; i < sizeof bad_flags; i++) {
    args[40] = bad_flags[i];
    CHECK(PARSE(41) == MMR_ERR_ARGS_ENCODING);
  }
  args[39] = 1;
  CHECK(PARSE(40) == MMR_ERR_MMR_SIZE_INVALID);
  /* shorter than 40: only 33 bytes with flags 0x02 or 0x03 follow a reference (none here) */
  args[32] = MMR_FLAG_BY_REFERENCE;
  for (uint64_t len = 0; len < 40; len++) {
    CHECK(PARSE(len) == (len == 33 ? MMR_ERR_ACCUMULATOR_NOT_FOUND : MMR_ERR_ARGS_LENGTH));
  }
  for (int flags = 0; flags < 256; flags++) {
    args[32] = (uint8_t)flags;
    CHECK(PARSE(33) == (flags == 2 || flags == 3 ? MMR_ERR_ACCUMULATOR_NOT_FOUND
                                                  : MMR_ERR_ARGS_ENCODING));
  }
#undef PARSE

  self_test_owner();
  self_test_reference();

  /* WitnessArgs, as mmr_lock::witness's tests */
  const uint8_t *lock;
  uint64_t lock_len;
  uint64_t wlen;
  uint8_t *w = witness_args_with_lock((const uint8_t *)"abcdef", 6, &wlen);
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_OK && lock_len == 6 &&
        memcmp(lock, "abcdef", 6) == 0);
  for (uint64_t cut = 0; cut < wlen; cut++) {
    uint8_t *c = malloc(cut ? cut : 1);
    memcpy(c, w, cut);
    CHECK(mmr_lock_field(c, cut, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
    free(c);
  }
  {
    uint8_t *longer = malloc(wlen + 1);
    memcpy(longer, w, wlen);
    longer[wlen] = 0;
    CHECK(mmr_lock_field(longer, wlen + 1, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
    free(longer);
  }
  w[16] = 5;
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
  w[16] = 6;
  w[4] = 12;
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
  w[4] = 16;
  w[8] = 200;
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
  w[8] = (uint8_t)wlen;
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_OK);
  free(w);
  /* lock Some(empty); lock None with input Some("x") -> 6 */
  w = witness_args_with_lock(NULL, 0, &wlen);
  CHECK(mmr_lock_field(w, wlen, &lock, &lock_len) == MMR_OK && lock_len == 0);
  free(w);
  {
    uint8_t none_lock[21] = {21, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 21, 0, 0, 0, 1, 0, 0, 0, 'x'};
    CHECK(mmr_lock_field(none_lock, 21, &lock, &lock_len) == MMR_ERR_LOCK_FIELD_MISSING);
    /* lock None but output_type malformed: the encoding error wins */
    uint8_t bad_out[21] = {21, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 'x'};
    CHECK(mmr_lock_field(bad_out, 21, &lock, &lock_len) == MMR_ERR_WITNESS_ENCODING);
    uint8_t all_none[16] = {16, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0};
    CHECK(mmr_lock_field(all_none, 16, &lock, &lock_len) == MMR_ERR_LOCK_FIELD_MISSING);
  }
}

/* ---- main ---------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  cp_merge_setup();
  if (argc >= 2 && strcmp(argv[1], "--self-test") == 0) {
    self_test();
    printf("self-test: %d failures\n", g_self_failures);
    return g_self_failures != 0;
  }
  if (argc == 4 && strcmp(argv[1], "--root") == 0) {
    uint8_t *payload;
    uint64_t len, mmr_size, leaves;
    if (!parse_hex(argv[2], &payload, &len) || !parse_u64(argv[3], &mmr_size)) {
      fprintf(stderr, "usage: harness --root PAYLOAD_HEX MMR_SIZE\n");
      return 2;
    }
    int rc = mmr_leaf_count(mmr_size, &leaves);
    uint8_t root[32];
    if (rc == MMR_OK) {
      rc = CP_COMPUTE_ROOT(payload, len, leaves, root);
    }
    free(payload);
    if (rc != MMR_OK) {
      printf("code %d\n", rc);
      return 1;
    }
    for (int i = 0; i < 32; i++) printf("%02x", root[i]);
    printf("\n");
    return 0;
  }
  int verbose = 0, first = 1;
  if (argc >= 2 && strcmp(argv[1], "-v") == 0) {
    verbose = 1;
    first = 2;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: harness [-v] FILE... | --self-test | --root PAYLOAD_HEX MMR_SIZE\n");
    return 2;
  }
  long passed = 0, failed = 0;
  for (int i = first; i < argc; i++) {
    run_file(argv[i], verbose, &passed, &failed);
  }
  printf("%ld passed, %ld failed\n", passed, failed);
  return failed != 0;
}
