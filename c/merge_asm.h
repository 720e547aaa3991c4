/*
 * cp_merge for compiled_proof.h on the assembly merge kernel the Rust verifiers use:
 * crates/mmr-blake2b/src/merge_rv64.s, one source for both languages, assembled by
 * c/build.sh (MERGE=asm, the default). RISC-V only: the host harness keeps
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

#endif /* MMR_MERGE_ASM_H_ */
