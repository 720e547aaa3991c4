/*
 * The compiled proof format, version 1 (docs/compiled-format.md): a single forward pass
 * over a command stream on a fixed linear stack of 64 entries. Header-only, no syscalls,
 * no libc, no heap; 64-bit arithmetic throughout. The checks run in exactly the order of
 * section 4 of the spec, so the exit code for every input equals the Rust verifier's
 * (crates/compiled-proof).
 *
 * Hashing is the includer's: define (before or after including this header)
 *   static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);
 * = blake2b-256, personalization "ckb-default-hash", over left || right. `out` may alias
 * `left` or `right` (the implementation must read both inputs before writing `out`).
 *
 * Zero copy: a stack entry refers to its hash by pointer, into the payload (leaf values,
 * PEAK_PROOF / BAG_RHS items) until a merge writes the entry's own buffer. Proof items are
 * read in place.
 */
#ifndef MMR_COMPILED_PROOF_H_
#define MMR_COMPILED_PROOF_H_

#include <stddef.h>
#include <stdint.h>

static void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

#ifdef CP_HAVE_WORDS
/* A hash as four little-endian words: an includer that defines CP_HAVE_WORDS before
 * including this header, and these four functions after it (c/merge_asm.h), keeps a PROOF
 * run's hash in registers and stores it once per run. Otherwise each step hashes into the
 * node's own buffer with cp_merge. */
typedef struct {
  uint64_t w[4];
} cp_words_t;
static inline cp_words_t cp_merge_to_words(const uint8_t left[32], const uint8_t right[32]);
static inline cp_words_t cp_merge_words_left(cp_words_t node, const uint8_t item[32]);
static inline cp_words_t cp_merge_words_right(const uint8_t item[32], cp_words_t node);
static inline void cp_store_words(cp_words_t words, uint8_t out[32]);
#endif

/* Exit codes 40-64 (docs/error-codes.md); 65-79 reserved. */
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
/* Step 9 reports the lock-level code. */
#define CP_ERR_ROOT_MISMATCH 9

#define CP_OP_LEAF 0x01
#define CP_OP_MERGE 0x02
#define CP_OP_PROOF 0x03
#define CP_OP_PEAK 0x04
#define CP_OP_PEAK_PROOF 0x05
#define CP_OP_BAG_RHS 0x06

#define CP_STACK_CAP 64
#define CP_LEAF_RECORD 40
#define CP_ITEM 32
#define CP_MAX_LEAF_COUNT ((uint64_t)1 << 50) /* exclusive */

typedef struct {
  uint64_t first;      /* first leaf index covered (working nodes) */
  uint64_t height;     /* working nodes: the node covers 2^height leaves */
  const uint8_t *hash; /* into the payload, or at buf */
  uint8_t buf[32];
} cp_entry_t;

/* Little-endian reads at any alignment: on little-endian targets a fixed-size memcpy into
 * a local (one load where misaligned loads are allowed), elsewhere byte by byte. */
static inline uint64_t cp_u32le(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
#else
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) |
         ((uint64_t)p[3] << 24);
#endif
}

static inline uint64_t cp_u64le(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
#else
  return cp_u32le(p) | (cp_u32le(p + 4) << 32);
#endif
}

/*
 * Steps 1-8 of the spec: checks the payload against an MMR of leaf_count leaves and writes
 * the bagged root to root_out. Returns CP_OK or a code 40-64.
 */
static int cp_compute_root(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                           uint8_t root_out[32]) {
  /* 1-4: header */
  if (leaf_count == 0 || leaf_count >= CP_MAX_LEAF_COUNT) {
    return CP_ERR_LEAF_COUNT_INVALID;
  }
  if (len < 4) {
    return CP_ERR_HEADER_TRUNCATED;
  }
  uint64_t n = cp_u32le(payload);
  if (n == 0) {
    return CP_ERR_NO_LEAVES;
  }
  if (len - 4 < CP_LEAF_RECORD * n) { /* n < 2^32: no overflow */
    return CP_ERR_LEAVES_TRUNCATED;
  }

  /* 5: state */
  const uint8_t *leaves = payload + 4;
  uint64_t pos = 4 + CP_LEAF_RECORD * n; /* offset of the next command */
  cp_entry_t stack[CP_STACK_CAP];
  uint64_t depth = 0, base = 0, used = 0, rem = leaf_count;
  uint64_t h_peak, start, end, next_min;

#define CP_SET_PEAK()                                            \
  do {                                                           \
    h_peak = 63 - (uint64_t)__builtin_clzll(rem); /* rem != 0 */ \
    start = leaf_count - rem;                                    \
    end = start + ((uint64_t)1 << h_peak);                       \
    next_min = start;                                            \
  } while (0)
#define CP_ADVANCE()                     \
  do {                                   \
    rem -= (uint64_t)1 << h_peak;        \
    if (rem != 0) {                      \
      CP_SET_PEAK();                     \
    }                                    \
  } while (0)

  CP_SET_PEAK();

  /* 6: the command stream */
  for (;;) {
    if (pos == len) { /* 6.1 */
      if (rem != 0) {
        return CP_ERR_PEAKS_INCOMPLETE;
      }
      break;
    }
    if (rem == 0) { /* 6.2 */
      return CP_ERR_TRAILING_BYTES;
    }
    uint64_t op = payload[pos++]; /* 6.3 */
    if (op - 1 > 5) {             /* unsigned: rejects 0x00 and 0x07..0xff */
      return CP_ERR_UNKNOWN_COMMAND;
    }
    const uint8_t *item = NULL;
    if (op == CP_OP_PROOF || op == CP_OP_PEAK_PROOF || op == CP_OP_BAG_RHS) {
      if (len - pos < CP_ITEM) {
        return CP_ERR_ITEM_TRUNCATED;
      }
      item = payload + pos;
      pos += CP_ITEM;
    }

    switch (op) { /* 6.4 */
      case CP_OP_LEAF: {
        if (depth == CP_STACK_CAP) { /* L1 */
          return CP_ERR_STACK_OVERFLOW;
        }
        if (used == n) { /* L2 */
          return CP_ERR_LEAVES_EXHAUSTED;
        }
        const uint8_t *record = leaves + CP_LEAF_RECORD * used;
        uint64_t index = cp_u64le(record);
        used++;
        if (index >= leaf_count) { /* L3 */
          return CP_ERR_LEAF_INDEX_OUT_OF_RANGE;
        }
        if (index < next_min) { /* L4 */
          return CP_ERR_LEAF_INDEX_NOT_ASCENDING;
        }
        if (index >= end) { /* L5 */
          return CP_ERR_LEAF_OUTSIDE_PEAK;
        }
        next_min = index + 1;
        cp_entry_t *e = &stack[depth++];
        e->first = index;
        e->height = 0;
        e->hash = record + 8;
        break;
      }
      case CP_OP_MERGE: {
        if (depth - base < 2) { /* M1 */
          return CP_ERR_MERGE_NO_NODES;
        }
        cp_entry_t *l = &stack[depth - 2], *r = &stack[depth - 1];
        uint64_t h = l->height; /* <= 49: working nodes stay inside the current peak */
        if (r->height != h) {   /* M2 */
          return CP_ERR_MERGE_HEIGHT_MISMATCH;
        }
        uint64_t bit = (uint64_t)1 << h;
        if ((l->first & bit) != 0 || r->first != l->first + bit) { /* M3 */
          return CP_ERR_MERGE_NOT_SIBLINGS;
        }
        cp_merge(l->buf, l->hash, r->hash);
        l->hash = l->buf;
        l->height = h + 1;
        depth--;
        break;
      }
      case CP_OP_PROOF: {
        if (depth == base) { /* P1 */
          return CP_ERR_PROOF_NO_NODE;
        }
        cp_entry_t *t = &stack[depth - 1];
        uint64_t h = t->height;
        if (h == h_peak) { /* P2 */
          return CP_ERR_PROOF_OVER_PEAK;
        }
        /* Further PROOFs on the same node (the common case) skip the dispatch: 6.1 and 6.2
         * hold (bytes remain, rem is unchanged), 6.3 is the opcode and item check, P1 holds
         * (t is still a working node), then P2: the same checks, in the same order. */
#define CP_MORE_PROOFS() (pos != len && payload[pos] == CP_OP_PROOF)
#define CP_TAKE_PROOF()                   \
  do {                                    \
    if (len - pos - 1 < CP_ITEM) {        \
      return CP_ERR_ITEM_TRUNCATED;       \
    }                                     \
    item = payload + pos + 1;             \
    pos += 1 + CP_ITEM;                   \
    if (h == h_peak) {                    \
      return CP_ERR_PROOF_OVER_PEAK;      \
    }                                     \
  } while (0)
        uint64_t bit = (uint64_t)1 << h; /* h < h_peak <= 49 */
#ifdef CP_HAVE_WORDS
        cp_words_t node = (t->first & bit) == 0
                              ? cp_merge_to_words(t->hash, item)  /* t is a left child */
                              : cp_merge_to_words(item, t->hash); /* t is a right child */
        t->first &= ~bit;
        h++;
        while (CP_MORE_PROOFS()) {
          CP_TAKE_PROOF();
          bit = (uint64_t)1 << h;
          node = (t->first & bit) == 0 ? cp_merge_words_left(node, item)
                                       : cp_merge_words_right(item, node);
          t->first &= ~bit;
          h++;
        }
        cp_store_words(node, t->buf);
#else
        for (;;) {
          if ((t->first & bit) == 0) {
            cp_merge(t->buf, t->hash, item); /* t is a left child */
          } else {
            cp_merge(t->buf, item, t->hash); /* t is a right child */
          }
          t->hash = t->buf;
          t->first &= ~bit;
          h++;
          if (!CP_MORE_PROOFS()) {
            break;
          }
          CP_TAKE_PROOF();
          bit = (uint64_t)1 << h;
        }
#endif
#undef CP_MORE_PROOFS
#undef CP_TAKE_PROOF
        t->hash = t->buf;
        t->height = h;
        break;
      }
      case CP_OP_PEAK: {
        if (depth == base) { /* K1 */
          return CP_ERR_PEAK_NO_NODE;
        }
        if (depth - base > 1) { /* K2 */
          return CP_ERR_PEAK_PENDING_NODES;
        }
        const cp_entry_t *t = &stack[depth - 1];
        if (t->height != h_peak || t->first != start) { /* K3 */
          return CP_ERR_PEAK_MISMATCH;
        }
        base++;
        CP_ADVANCE();
        break;
      }
      case CP_OP_PEAK_PROOF: {
        if (depth != base) { /* Q1 */
          return CP_ERR_PEAK_PROOF_PENDING_NODES;
        }
        /* depth == base <= popcount(leaf_count) - 1 <= 49 < CP_STACK_CAP */
        stack[depth++].hash = item;
        base++;
        CP_ADVANCE();
        break;
      }
      default: { /* CP_OP_BAG_RHS */
        if (depth != base) { /* B1 */
          return CP_ERR_BAG_RHS_PENDING_NODES;
        }
        if (__builtin_popcountll(rem) < 2) { /* B2 */
          return CP_ERR_BAG_RHS_TOO_FEW_PEAKS;
        }
        stack[depth++].hash = item;
        base++;
        rem = 0;
        break;
      }
    }
  }
#undef CP_SET_PEAK
#undef CP_ADVANCE

  /* 7 */
  if (used != n) {
    return CP_ERR_LEAVES_UNCONSUMED;
  }
  /* 8: bag right to left; rem == 0 here, so depth == base >= 1 */
  const uint8_t *acc = stack[depth - 1].hash;
  if (depth == 1) {
    for (int i = 0; i < 32; i++) {
      root_out[i] = acc[i];
    }
    return CP_OK;
  }
  for (uint64_t i = depth - 1; i-- > 0;) {
    cp_merge(root_out, acc, stack[i].hash);
    acc = root_out;
  }
  return CP_OK;
}

/* Steps 1-10: CP_OK when the payload proves its leaves against (root, leaf_count). */
static int cp_verify(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                     const uint8_t root[32]) {
  uint8_t computed[32];
  int rc = cp_compute_root(payload, len, leaf_count, computed);
  if (rc != CP_OK) {
    return rc;
  }
  uint8_t diff = 0; /* step 9 */
  for (int i = 0; i < 32; i++) {
    diff |= (uint8_t)(computed[i] ^ root[i]);
  }
  return diff == 0 ? CP_OK : CP_ERR_ROOT_MISMATCH;
}

#endif /* MMR_COMPILED_PROOF_H_ */
