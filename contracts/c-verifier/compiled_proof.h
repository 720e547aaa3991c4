/*
 * The compiled proof format, version 1 (docs/compiled-format.md): a single forward pass
 * over a command stream on a fixed linear stack of 64 entries. Header-only, no syscalls,
 * no libc, no heap; 64-bit arithmetic throughout. A failing command is always executed by
 * the slow path of cp_compute_root, whose checks run in exactly the order of section 4 of
 * the spec, so the exit code for every input equals the spec's and the Rust verifier's
 * (crates/compiled-proof); the fast path only runs commands that pass all their checks.
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

#include "proof_common.h"

#define CP_OP_LEAF 0x01
#define CP_OP_MERGE 0x02
#define CP_OP_PROOF 0x03
#define CP_OP_PEAK 0x04
#define CP_OP_PEAK_PROOF 0x05
#define CP_OP_BAG_RHS 0x06

#define CP_STACK_CAP 64
#define CP_LEAF_RECORD 40
#define CP_ITEM 32

/* A stack entry. `x` names the node relative to the current peak (first, height) with
 * end = start + 2^H (the peak covers [start, end), start a multiple of 2^(H+1)):
 *
 *   x = (first XOR end) >> height
 *
 * so x = 2^(H-height) | (the side bits of first between height and H-1). For a working node
 * x >= 1, and: bit 0 of x is bit `height` of first (1: a right child); x == 1 iff the node
 * is the whole current peak (height == H, first == start); the parent is x >> 1; two nodes
 * of the same height are left and right sibling iff x_right == x_left + 1 with x_left even;
 * two nodes have the same height iff their x have the same bit length. x == 0 marks a
 * finished peak (and the two sentinels below the stack), so "no working node" (P1, M1, K1,
 * Q1, B1) is a test of x == 0 and `base` needs no variable. Working nodes all belong to the
 * current peak (the peak changes only when none is left), so all their x share one `end`. */
typedef struct {
  uint64_t x;
  const uint8_t *hash; /* into the payload (leaves, PEAK_PROOF / BAG_RHS items) or at buf */
  uint8_t buf[32];
} cp_entry_t;

/* The hash steps of a PROOF run and of MERGE. With CP_HAVE_WORDS the node's hash stays in
 * the kernel's registers (`w`) along the run and is stored once at its end; otherwise each
 * step hashes into the top entry's buffer (cp_merge allows out to alias an input). */
#ifdef CP_HAVE_WORDS
#define CP_STEP_FIRST(x, hash, item) \
  (w = ((x) & 1) ? cp_merge_to_words(item, hash) : cp_merge_to_words(hash, item))
#define CP_STEP_LEFT(item) (w = cp_merge_words_left(w, item))
#define CP_STEP_RIGHT(item) (w = cp_merge_words_right(item, w))
#define CP_MERGE_NODES(l, r) (w = cp_merge_to_words(l, r))
#define CP_STORE_TOP() cp_store_words(w, top->buf)
#else
#define CP_STEP_FIRST(x, hash, item) \
  (((x) & 1) ? cp_merge(top->buf, item, hash) : cp_merge(top->buf, hash, item))
#define CP_STEP_LEFT(item) cp_merge(top->buf, top->buf, item)
#define CP_STEP_RIGHT(item) cp_merge(top->buf, item, top->buf)
#define CP_MERGE_NODES(l, r) cp_merge(top->buf, l, r)
#define CP_STORE_TOP() ((void)0)
#endif

/*
 * Steps 1-8 of the spec: checks the payload against an MMR of leaf_count leaves and writes
 * the bagged root to root_out. Returns CP_OK or a code 40-64.
 *
 * Step 6 has a fast path and a slow path. The fast path runs PROOF, LEAF and MERGE when at
 * least 33 bytes are left (so an opcode and an item surely fit) and every check of the
 * command passes; it tests a conjunction that implies all of them (6.1-6.3 and the
 * command's own), in whatever order is cheapest. Anything else (the last 32 bytes, the peak
 * commands, every failure) goes to the slow path, which executes the one command at `p`
 * with the checks in exactly the spec's order and so returns the spec's code. rem == 0
 * (6.2) needs no test on the fast path: then no working node is left (the commands that
 * zero rem require none and add none), which fails PROOF's and MERGE's tests, and `end` is
 * set to 0, which fails LEAF's.
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

  /* 5: state. stack[0] and stack[1] are sentinels (x = 0), the entries are stack[2..65];
   * `top` is the top entry (depth = top - &stack[1]), so top - 1 is always readable.
   * The state that only LEAF and the slow path use lives with the entries in `cs`, whose
   * address goes to an empty asm below: the compiler then keeps it in memory rather than in
   * one of the three registers (s0, s1, a2) the merge kernel leaves alive across a call,
   * which the PROOF run needs for the command pointer, x and top. */
  struct {
    const uint8_t *leaf, *leaves_end;
    cp_entry_t *full;
    uint64_t rem, hbit, next_min, end;
    cp_entry_t stack[CP_STACK_CAP + 2];
  } cs;
  cs.leaf = payload + 4; /* the next leaf record (used = (leaf - payload - 4) / 40) */
  cs.leaves_end = cs.leaf + CP_LEAF_RECORD * n;
  uintptr_t p = (uintptr_t)cs.leaves_end; /* the next command (an integer: as a pointer, clang
                                             keeps two induction variables for it) */
  const uint8_t *const e = payload + len;
  /* p <= lim: at least 1 + 32 bytes left. Any lim at or below e - 33 is sound (a smaller one
   * only sends more commands to the slow path); 0 if e - 33 would wrap. */
  const uintptr_t lim = (uintptr_t)e >= 1 + CP_ITEM ? (uintptr_t)e - (1 + CP_ITEM) : 0;
  cs.stack[0].x = 0;
  cs.stack[1].x = 0;
  cp_entry_t *top = &cs.stack[1];
  cs.full = &cs.stack[CP_STACK_CAP + 1]; /* top == full: depth == CAP */
  cs.rem = leaf_count;
  cs.hbit = (uint64_t)1 << (63 - __builtin_clzll(cs.rem)); /* 2^H, SET_PEAK() */
  cs.next_min = 0;                                         /* start */
  cs.end = cs.hbit;                                        /* start + 2^H; 0 once rem == 0 */
  __asm__ volatile("" : : "r"(&cs) : "memory");
  uint64_t x, op;
  const uint8_t *hash, *item;
#ifdef CP_HAVE_WORDS
  cp_words_t w;
#endif

  /* 6 */
dispatch: /* the command at p */
  if (CP_UNLIKELY(p > lim)) {
    goto slow;
  }
  op = *(const uint8_t *)p;
dispatch_op: /* the command at p <= lim, op = *p */
  if (op == CP_OP_PROOF) {
    x = top->x;
    hash = top->hash;
  proof: /* a PROOF at p <= lim on the top entry (x, hash), not yet stored back */
    if (CP_UNLIKELY(x <= 1)) { /* P1 (or 6.2) / P2 */
      top->x = x;
      top->hash = hash;
      goto slow;
    }
    item = (const uint8_t *)p + 1;
    p += 1 + CP_ITEM;
    CP_STEP_FIRST(x, hash, item);
    x >>= 1;
  run: /* the top node's hash is in w (or top->buf), its x in x; further PROOFs */
    for (;;) {
      if (CP_UNLIKELY(p > lim)) {
        CP_STORE_TOP();
        top->hash = top->buf;
        top->x = x;
        goto slow;
      }
      op = *(const uint8_t *)p;
      if (op != CP_OP_PROOF) {
        break;
      }
      /* 6.1-6.3 and P1 hold: the same node, the same rem */
      item = (const uint8_t *)p + 1;
      p += 1 + CP_ITEM;
      if ((x & 1) == 0) { /* a left child: x >= 2, so P2 holds */
        CP_STEP_LEFT(item);
      } else {
        if (CP_UNLIKELY(x == 1)) { /* P2 */
          return CP_ERR_PROOF_OVER_PEAK;
        }
        CP_STEP_RIGHT(item);
      }
      x >>= 1;
    }
    CP_STORE_TOP();
    top->hash = top->buf;
    top->x = x;
    goto dispatch_op;
  }
  if (op == CP_OP_LEAF) {
    /* keeps the loads of cs below from being hoisted into the other commands' dispatch */
    __asm__ volatile("" : : : "memory");
    if (CP_UNLIKELY(top == cs.full || cs.leaf == cs.leaves_end)) { /* L1, L2 */
      goto slow;
    }
    uint64_t index = cp_u64le(cs.leaf);
    /* L3-L5 (end <= leaf_count), and 6.2 (end == 0 once rem == 0) */
    if (CP_UNLIKELY(index < cs.next_min || index >= cs.end)) {
      goto slow;
    }
    cs.next_min = index + 1;
    top++;
    x = index ^ cs.end;
    hash = cs.leaf + 8;
    cs.leaf += CP_LEAF_RECORD;
    p++;
    if (CP_LIKELY(p <= lim)) {
      op = *(const uint8_t *)p;
      if (op == CP_OP_PROOF) {
        goto proof;
      }
      top->x = x;
      top->hash = hash;
      goto dispatch_op;
    }
    top->x = x;
    top->hash = hash;
    goto slow;
  }
  if (op == CP_OP_MERGE) {
    uint64_t rx = top->x, lx = top[-1].x;
    /* M1 (lx == 0, or rx == 0 != lx + 1), M2 and M3 (see cp_entry_t) */
    if (CP_UNLIKELY(lx == 0 || (lx & 1) != 0 || rx != lx + 1)) {
      goto slow;
    }
    const uint8_t *r = top->hash;
    top--;
    top->x = x = lx >> 1;
    p++;
    CP_MERGE_NODES(top->hash, r);
    goto run;
  }

slow: /* the command at p, every check in the spec's order */
  if (p == (uintptr_t)e) { /* 6.1 */
    if (cs.rem != 0) {
      return CP_ERR_PEAKS_INCOMPLETE;
    }
    goto done;
  }
  if (cs.rem == 0) { /* 6.2 */
    return CP_ERR_TRAILING_BYTES;
  }
  op = *(const uint8_t *)p++; /* 6.3 */
  if (op - 1 > 5) { /* unsigned: rejects 0x00 and 0x07..0xff */
    return CP_ERR_UNKNOWN_COMMAND;
  }
  item = NULL;
  if (op == CP_OP_PROOF || op == CP_OP_PEAK_PROOF || op == CP_OP_BAG_RHS) {
    if ((uintptr_t)e - p < CP_ITEM) {
      return CP_ERR_ITEM_TRUNCATED;
    }
    item = (const uint8_t *)p;
    p += CP_ITEM;
  }
  switch (op) { /* 6.4 */
    case CP_OP_LEAF: {
      if (top == cs.full) { /* L1 */
        return CP_ERR_STACK_OVERFLOW;
      }
      if (cs.leaf == cs.leaves_end) { /* L2 */
        return CP_ERR_LEAVES_EXHAUSTED;
      }
      uint64_t index = cp_u64le(cs.leaf);
      if (index >= leaf_count) { /* L3 */
        return CP_ERR_LEAF_INDEX_OUT_OF_RANGE;
      }
      if (index < cs.next_min) { /* L4 */
        return CP_ERR_LEAF_INDEX_NOT_ASCENDING;
      }
      if (index >= cs.end) { /* L5 */
        return CP_ERR_LEAF_OUTSIDE_PEAK;
      }
      cs.next_min = index + 1;
      top++;
      top->x = index ^ cs.end;
      top->hash = cs.leaf + 8;
      cs.leaf += CP_LEAF_RECORD;
      break;
    }
    case CP_OP_MERGE: {
      uint64_t rx = top->x, lx = top[-1].x;
      if (rx == 0 || lx == 0) { /* M1 */
        return CP_ERR_MERGE_NO_NODES;
      }
      if (__builtin_clzll(lx) != __builtin_clzll(rx)) { /* M2: heights differ */
        return CP_ERR_MERGE_HEIGHT_MISMATCH;
      }
      if ((lx & 1) != 0 || rx != lx + 1) { /* M3 */
        return CP_ERR_MERGE_NOT_SIBLINGS;
      }
      const uint8_t *r = top->hash;
      top--;
      CP_MERGE_NODES(top->hash, r);
      CP_STORE_TOP();
      top->hash = top->buf;
      top->x = lx >> 1;
      break;
    }
    case CP_OP_PROOF: {
      x = top->x;
      if (x == 0) { /* P1 */
        return CP_ERR_PROOF_NO_NODE;
      }
      if (x == 1) { /* P2 */
        return CP_ERR_PROOF_OVER_PEAK;
      }
      CP_STEP_FIRST(x, top->hash, item);
      CP_STORE_TOP();
      top->hash = top->buf;
      top->x = x >> 1;
      break;
    }
    case CP_OP_PEAK: {
      x = top->x;
      if (x == 0) { /* K1 */
        return CP_ERR_PEAK_NO_NODE;
      }
      if (top[-1].x != 0) { /* K2 */
        return CP_ERR_PEAK_PENDING_NODES;
      }
      if (x != 1) { /* K3: height != H or first != start */
        return CP_ERR_PEAK_MISMATCH;
      }
      top->x = 0; /* finished */
      goto advance;
    }
    case CP_OP_PEAK_PROOF: {
      if (top->x != 0) { /* Q1 */
        return CP_ERR_PEAK_PROOF_PENDING_NODES;
      }
      /* depth == base <= popcount(leaf_count) - 1 <= 49 < CP_STACK_CAP */
      top++;
      top->x = 0;
      top->hash = item;
      goto advance;
    }
    default: { /* CP_OP_BAG_RHS */
      if (top->x != 0) { /* B1 */
        return CP_ERR_BAG_RHS_PENDING_NODES;
      }
      if (__builtin_popcountll(cs.rem) < 2) { /* B2 */
        return CP_ERR_BAG_RHS_TOO_FEW_PEAKS;
      }
      top++;
      top->x = 0;
      top->hash = item;
      cs.rem = 0;
      cs.end = 0;
      break;
    }
  }
  goto dispatch;

advance: /* ADVANCE(): the next peak starts at this one's end */
  cs.rem -= cs.hbit;
  if (cs.rem != 0) {
    cs.hbit = (uint64_t)1 << (63 - __builtin_clzll(cs.rem));
    cs.next_min = cs.end;
    cs.end += cs.hbit;
  } else {
    cs.end = 0;
  }
  goto dispatch;

done:
  /* 7 */
  if (cs.leaf != cs.leaves_end) {
    return CP_ERR_LEAVES_UNCONSUMED;
  }
  /* 8: bag right to left; rem == 0 here, so all entries are finished peaks, at least one */
  const uint8_t *acc = top->hash;
  if (top == &cs.stack[2]) {
    for (int i = 0; i < 32; i++) {
      root_out[i] = acc[i];
    }
    return CP_OK;
  }
  while (--top != &cs.stack[1]) {
    cp_merge(root_out, acc, top->hash);
    acc = root_out;
  }
  return CP_OK;
}
#undef CP_STEP_FIRST
#undef CP_STEP_LEFT
#undef CP_STEP_RIGHT
#undef CP_MERGE_NODES
#undef CP_STORE_TOP
/* Steps 1-10: CP_OK when the payload proves its leaves against (root, leaf_count). */
static int cp_verify(const uint8_t *payload, uint64_t len, uint64_t leaf_count,
                     const uint8_t root[32]) {
  uint8_t computed[32];
  int rc = cp_compute_root(payload, len, leaf_count, computed);
  return rc != CP_OK ? rc : cp_check_root(computed, root);
}

#endif /* MMR_COMPILED_PROOF_H_ */
