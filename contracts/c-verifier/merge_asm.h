/*
 * cp_merge for the proof verifiers (compiled_proof.h, compact_proof.h) on the assembly merge kernel the Rust verifiers use:
 * crates/mmr-blake2b/src/merge_rv64.s, one source for both languages, assembled by
 * contracts/c-verifier/build.sh (MERGE=asm, the default). RISC-V only: the host harness keeps
 * merge_blake2b.h, and tests/tests/merge_kernel_vm.rs checks the kernel in CKB-VM.
 *
 * The kernel does not follow the C ABI (it saves no register, see the .s file): the inline
 * assembly names every register it writes, so the compiler saves the callee-saved ones once
 * in the prologue of cp_compute_root instead of once per merge. It reads all 64 input bytes
 * before the four stores, so `out` may alias `left` or `right`.
 */
#ifndef MMR_MERGE_ASM_H_
#define MMR_MERGE_ASM_H_

#include <stdint.h>

/* The word functions of proof_common.h are defined below. */
#define CP_HAVE_WORDS 1
#include "proof_common.h"

/* Nothing to set up: the initial state is the kernel's constant table. */
static void cp_merge_setup(void) {}

static inline void cp_merge(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
  register const uint8_t *a0 __asm__("a0") = left;
  register const uint8_t *a1 __asm__("a1") = right;
  register uint8_t *a2 __asm__("a2") = out;
  __asm__ volatile(
      "jal ra, mmr_merge_rv64\n\t"
      "sd a3, 0(a2)\n\t"
      "sd a4, 8(a2)\n\t"
      "sd a5, 16(a2)\n\t"
      "sd a6, 24(a2)"
      : "+r"(a0), "+r"(a1)
      : "r"(a2)
      : "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a3", "a4", "a5", "a6", "a7", "s2", "s3",
        "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "memory");
}

/* The word path of the verifiers: the kernel returns the hash in a3..a6 and its _chain
 * entries take one input there, so a run of merges keeps the node in registers. The clobber
 * list is cp_merge's, less the registers named as operands. */
#define CP_KERNEL_CLOBBERS                                                                    \
  "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", \
      "s8", "s9", "s10", "s11", "memory"

static inline cp_words_t cp_merge_to_words(const uint8_t left[32], const uint8_t right[32]) {
  register const uint8_t *a0 __asm__("a0") = left;
  register const uint8_t *a1 __asm__("a1") = right;
  register uint64_t a3 __asm__("a3"), a4 __asm__("a4"), a5 __asm__("a5"), a6 __asm__("a6");
  __asm__ volatile("jal ra, mmr_merge_rv64"
                   : "+r"(a0), "+r"(a1), "=r"(a3), "=r"(a4), "=r"(a5), "=r"(a6)
                   :
                   : CP_KERNEL_CLOBBERS);
  return (cp_words_t){{a3, a4, a5, a6}};
}

static inline cp_words_t cp_merge_words_left(cp_words_t node, const uint8_t item[32]) {
  register const uint8_t *a1 __asm__("a1") = item;
  register uint64_t a3 __asm__("a3") = node.w[0], a4 __asm__("a4") = node.w[1],
                    a5 __asm__("a5") = node.w[2], a6 __asm__("a6") = node.w[3];
  __asm__ volatile("jal ra, mmr_merge_rv64_chain"
                   : "+r"(a1), "+r"(a3), "+r"(a4), "+r"(a5), "+r"(a6)
                   :
                   : "a0", CP_KERNEL_CLOBBERS);
  return (cp_words_t){{a3, a4, a5, a6}};
}

static inline cp_words_t cp_merge_words_right(const uint8_t item[32], cp_words_t node) {
  register const uint8_t *a0 __asm__("a0") = item;
  register uint64_t a3 __asm__("a3") = node.w[0], a4 __asm__("a4") = node.w[1],
                    a5 __asm__("a5") = node.w[2], a6 __asm__("a6") = node.w[3];
  __asm__ volatile("jal ra, mmr_merge_rv64_chain_right"
                   : "+r"(a0), "+r"(a3), "+r"(a4), "+r"(a5), "+r"(a6)
                   :
                   : "a1", CP_KERNEL_CLOBBERS);
  return (cp_words_t){{a3, a4, a5, a6}};
}

static inline void cp_store_words(cp_words_t words, uint8_t out[32]) {
  uint64_t w0 = words.w[0], w1 = words.w[1], w2 = words.w[2], w3 = words.w[3];
  __builtin_memcpy(out, &w0, 8); /* one sd each: -mno-strict-align */
  __builtin_memcpy(out + 8, &w1, 8);
  __builtin_memcpy(out + 16, &w2, 8);
  __builtin_memcpy(out + 24, &w3, 8);
}

#endif /* MMR_MERGE_ASM_H_ */
