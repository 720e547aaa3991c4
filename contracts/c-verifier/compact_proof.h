/*
 * The compact compiled format, version 2 (docs/compiled-format.md; the normative reference is
 * crates/compiled-proof/src/compact.rs): a version byte, the number of proved leaves n and
 * their leaf indexes as varints (gaps between ascending indexes), the n leaf values, then the
 * proof items in the order the verifier consumes them. Header-only, no syscalls, no libc, no
 * heap, a fixed stack of 64 entries; 64-bit arithmetic throughout.
 *
 * Two passes over disjoint parts: the header and the index section are checked whole first,
 * so every rejection of theirs (41, 65, 42, 66, 67, 68, 49, then 43) comes in the Rust's
 * order before any hash; the hashing pass can then only run out of items (46) or leave some
 * (45), and which of the two it is depends only on the item count, so it is checked once per
 * leaf (items the leaf will take) and once at the end.
 *
 * Hashing is proof_common.h's cp_merge, or with CP_HAVE_WORDS the kernel's word entries: the
 * node stays in the kernel's registers from a leaf's first merge to its last.
 */
#ifndef MMR_COMPACT_PROOF_H_
#define MMR_COMPACT_PROOF_H_

#include "proof_common.h"

#define CC_VERSION 0x02
#define CC_VARINT_MAX_LEN 8 /* 56 bits, enough for every value below 2^50 */
#define CC_HASH 32
/* An accepted payload needs at most 51 entries: finished peaks and waiting nodes all have
 * distinct heights below 50, plus the one item after the last proved peak. */
#define CC_STACK_CAP 64

/* A stack entry: a finished peak or a node waiting for its right sibling's subtree. The hash
 * is read in place (a leaf value or an item of the payload) or from buf. */
typedef struct {
  const uint8_t *hash;
  uint8_t buf[32];
} cc_entry_t;

/* 32 bytes, a word at a time: GCC would call memcpy for a 32-byte __builtin_memcpy (and link
 * its 920 bytes), clang inlines either. */
static inline void cc_copy32(uint8_t out[32], const uint8_t in[32]) {
  for (int i = 0; i < 32; i += 8) {
    uint64_t w = cp_u64le(in + i);
    __builtin_memcpy(out + i, &w, 8);
  }
}

/* A varint of more than one byte at *pp (the one-byte case is inline at the callers):
 * its value, or the code of the rejection; `truncated` when the bytes end inside it. */
__attribute__((noinline)) static int cc_varint_slow(const uint8_t **pp, const uint8_t *e,
                                                    int truncated, uint64_t *out) {
  const uint8_t *p = *pp;
  uint64_t value = 0;
  unsigned shift = 0;
  for (;;) {
    if (p == e) {
      return truncated;
    }
    uint64_t byte = *p++;
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      /* a last group of zero only in a one-byte varint: one encoding per value */
      if (byte == 0 && shift != 0) {
        return CP_ERR_VARINT_NON_CANONICAL;
      }
      *pp = p;
      *out = value;
      return CP_OK;
    }
    shift += 7;
    if (shift == 7 * CC_VARINT_MAX_LEN) {
      return CP_ERR_VARINT_TOO_LONG;
    }
  }
}

/* A varint the index check already accepted: no checks. */
static inline uint64_t cc_next_varint(const uint8_t **pp) {
  const uint8_t *p = *pp;
  uint64_t byte = *p++;
  uint64_t value = byte & 0x7f;
  unsigned shift = 0;
  while (CP_UNLIKELY(byte >= 0x80)) {
    byte = *p++;
    shift += 7;
    value |= (byte & 0x7f) << shift;
  }
  *pp = p;
  return value;
}

/*
 * Steps 2-5: version, count, every index (canonical, inside the MMR), the values' length.
 * On CP_OK, *n is the count, *indexes the first index varint, *values the n values and
 * *items the rest of the payload.
 */
static int cc_split(const uint8_t *payload, uint64_t len, uint64_t leaf_count, uint64_t *n,
                    const uint8_t **indexes, const uint8_t **values) {
  if (len == 0) {
    return CP_ERR_HEADER_TRUNCATED;
  }
  if (payload[0] != CC_VERSION) {
    return CP_ERR_VERSION_UNSUPPORTED;
  }
  const uint8_t *const e = payload + len;
  const uint8_t *p = payload + 1;
  uint64_t count;
  if (CP_LIKELY(p != e && *p < 0x80)) {
    count = *p++;
  } else {
    int rc = cc_varint_slow(&p, e, CP_ERR_HEADER_TRUNCATED, &count);
    if (rc != CP_OK) {
      return rc;
    }
  }
  if (count == 0) {
    return CP_ERR_NO_LEAVES;
  }
  *indexes = p;
  /* `next` stays below 2^50 + 1 and a gap below 2^56: the sum cannot wrap. Each index takes
   * at least one byte, so the loop ends within the payload. */
  uint64_t next = 0;
  for (uint64_t left = count; left != 0; left--) {
    uint64_t gap;
    if (CP_LIKELY(p != e && *p < 0x80)) {
      gap = *p++;
    } else {
      int rc = cc_varint_slow(&p, e, CP_ERR_INDEXES_TRUNCATED, &gap);
      if (rc != CP_OK) {
        return rc;
      }
    }
    uint64_t index = next + gap;
    if (index >= leaf_count) {
      return CP_ERR_LEAF_INDEX_OUT_OF_RANGE;
    }
    next = index + 1;
  }
  /* count <= len, so 32 * count cannot wrap; compared by division all the same */
  if ((uint64_t)(e - p) / CC_HASH < count) {
    return CP_ERR_LEAVES_TRUNCATED;
  }
  *n = count;
  *values = p;
  return CP_OK;
}

/* The hash steps. With CP_HAVE_WORDS the node is `w`, in the kernel's registers; otherwise
 * each step hashes into the buffer `nb` (cp_merge allows out to alias an input). */
#ifdef CP_HAVE_WORDS
#define CC_FIRST(l, r) (w = cp_merge_to_words(l, r))
#define CC_LEFT(item) (w = cp_merge_words_left(w, item))
#define CC_RIGHT(item) (w = cp_merge_words_right(item, w))
#define CC_STORE(out) cp_store_words(w, out)
#else
#define CC_FIRST(l, r) cp_merge(nb, l, r)
#define CC_LEFT(item) cp_merge(nb, nb, item)
#define CC_RIGHT(item) cp_merge(nb, item, nb)
#define CC_STORE(out) cc_copy32(out, nb)
#endif

/*
 * Steps 1-7: checks the payload against an MMR of leaf_count leaves and writes the bagged
 * root to root_out. Returns CP_OK or the code of the first failing step.
 *
 * Each proved leaf rises from height 0 to its stop height, the highest bit in which its
 * index and the next leaf's differ; for the last leaf "the next" is leaf_count, which makes
 * the stop its peak's height: a leaf of the peak of height H has the bits of leaf_count above
 * H and bit H clear, so index XOR leaf_count has its highest bit at H. A leaf in a later
 * peak differs from it at H for the same reason, so a leaf reaches its peak iff its stop is
 * its peak's height, without knowing where the peaks are. Below its stop, a left child takes
 * the next item as its right sibling, and a right child the node waiting at that height (a
 * "pop": bit h of `pending`, always the top of the stack, since waiting nodes have strictly
 * decreasing heights) or else the next item. A leaf that stops below its peak waits on the
 * stack; one that reaches it is a finished peak. Leafless peaks before a proved one are one
 * item each; after the last proved peak, one item stands for all the peaks left.
 *
 * A leaf's rise runs in segments between pops: inside one, the loop needs only `x` (the
 * index's bits of the heights still to go, over a marker bit where the segment ends) and the
 * item pointer, so both stay in registers the kernel keeps (s0, s1, a2) across merges.
 */
static int cc_compute_root(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                           uint8_t root_out[32]) {
  /* 1 */
  if (leaf_count == 0 || leaf_count >= CP_MAX_LEAF_COUNT) {
    return CP_ERR_LEAF_COUNT_INVALID;
  }
  /* 2-5 */
  uint64_t n;
  const uint8_t *idx, *value;
  int rc = cc_split(payload, len, leaf_count, &n, &idx, &value);
  if (rc != CP_OK) {
    return rc;
  }
  const uint8_t *item = value + CC_HASH * n;
  const uint8_t *const items_end = payload + len;

  /* 6. The state beside the run (the stack pointer, the pending heights and the peaks not
   * yet done) lives in `cs`, whose address goes to an empty asm: the compiler then keeps it
   * in memory rather than in one of the three registers the run needs. */
  struct {
    cc_entry_t *top; /* the next free entry */
    uint64_t pending, rem;
    cc_entry_t stack[CC_STACK_CAP];
  } cs;
  cs.top = cs.stack;
  cs.pending = 0;
  cs.rem = leaf_count;
  __asm__ volatile("" : : "r"(&cs) : "memory");
#ifdef CP_HAVE_WORDS
  cp_words_t w;
#else
  uint8_t nb[32];
#endif
  uint64_t index = cc_next_varint(&idx);
  for (uint64_t left = n;;) {
    /* the height of this leaf's peak; the peaks above it still in rem have no proved leaf */
    uint64_t peak = 63 - (uint64_t)__builtin_clzll(index ^ leaf_count);
    while (CP_UNLIKELY((cs.rem >> peak) > 1)) {
      if ((uint64_t)(items_end - item) < CC_HASH) {
        return CP_ERR_ITEM_TRUNCATED;
      }
      cs.top->hash = item;
      cs.top++;
      item += CC_HASH;
      cs.rem ^= (uint64_t)1 << (63 - __builtin_clzll(cs.rem));
    }
    left--;
    uint64_t next = left != 0 ? index + 1 + cc_next_varint(&idx) : leaf_count;
    uint64_t stop = 63 - (uint64_t)__builtin_clzll(index ^ next);
    uint64_t below = ((uint64_t)1 << stop) - 1;
    uint64_t pops = cs.pending & index & below; /* a right child meets a waiting node */
    /* the items this leaf takes: one per height below its stop, but the pops */
    if ((uint64_t)(items_end - item) / CC_HASH < stop - (uint64_t)__builtin_popcountll(pops)) {
      return CP_ERR_ITEM_TRUNCATED;
    }
    cs.pending ^= pops;
    if (stop == 0) {
      cs.top->hash = value; /* the leaf itself waits, or is a peak of height 0 */
    } else {
      /* height 0 from the value in place, then segment by segment */
      uint64_t h = 1;
      if (pops & 1) {
        cs.top--;
        CC_FIRST(cs.top->hash, value);
        pops ^= 1;
      } else {
        if (index & 1) {
          CC_FIRST(item, value);
        } else {
          CC_FIRST(value, item);
        }
        item += CC_HASH;
      }
      for (;;) {
        uint64_t end = pops != 0 ? (uint64_t)__builtin_ctzll(pops) : stop;
        uint64_t x = ((index & (((uint64_t)1 << end) - 1)) | ((uint64_t)1 << end)) >> h;
        while (x != 1) {
          if (x & 1) {
            CC_RIGHT(item);
          } else {
            CC_LEFT(item);
          }
          item += CC_HASH;
          x >>= 1;
        }
        if (end == stop) {
          break;
        }
        /* a right child at height `end` meets the node waiting there */
        cs.top--;
        CC_RIGHT(cs.top->hash);
        pops ^= (uint64_t)1 << end;
        h = end + 1;
      }
      CC_STORE(cs.top->buf);
      cs.top->hash = cs.top->buf;
    }
    cs.top++;
    if (stop == peak) {
      cs.rem ^= (uint64_t)1 << peak;
    } else {
      cs.pending |= (uint64_t)1 << stop;
    }
    value += CC_HASH;
    if (left == 0) {
      break;
    }
    index = next;
  }
  /* no proved leaf in the peaks left: one item bags them all (or is the one left) */
  if (cs.rem != 0) {
    if ((uint64_t)(items_end - item) < CC_HASH) {
      return CP_ERR_ITEM_TRUNCATED;
    }
    cs.top->hash = item;
    cs.top++;
    item += CC_HASH;
  }
  /* 7 */
  if (item != items_end) {
    return CP_ERR_TRAILING_BYTES;
  }
  /* bag the peaks from the right (at least one) */
  cc_entry_t *top = cs.top - 1;
  const uint8_t *acc = top->hash;
  if (top == cs.stack) {
    cc_copy32(root_out, acc);
    return CP_OK;
  }
  top--;
  CC_FIRST(acc, top->hash);
  while (top != cs.stack) {
    top--;
    CC_LEFT(top->hash);
  }
  CC_STORE(root_out);
  return CP_OK;
}
#undef CC_FIRST
#undef CC_LEFT
#undef CC_RIGHT
#undef CC_STORE

/* Steps 1-7, then the root comparison: CP_OK when the payload proves its leaves against
 * (root, leaf_count), else its code (40-68, or 9). */
static int cc_verify(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                     const uint8_t root[32]) {
  uint8_t computed[32];
  int rc = cc_compute_root(payload, len, leaf_count, computed);
  return rc != CP_OK ? rc : cp_check_root(computed, root);
}

/* The proved leaves' values of a payload cc_verify accepted: *n values of 32 bytes, in
 * index order, at the returned pointer (the owner check reads them). */
static inline const uint8_t *cc_leaf_values(const uint8_t *payload, uint64_t *n) {
  const uint8_t *p = payload + 1;
  uint64_t count = cc_next_varint(&p);
  for (uint64_t i = 0; i < count; i++) {
    cc_next_varint(&p);
  }
  *n = count;
  return p;
}

#endif /* MMR_COMPACT_PROOF_H_ */
