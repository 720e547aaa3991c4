# The MMR merge, blake2b-256 personalised "ckb-default-hash" over left || right (64 bytes),
# as one straight-line riscv64 (rv64i + zbb) function for CKB-VM.
#
# One source for both languages: the Rust crate includes this file with `global_asm!` and
# the C verifier assembles it (contracts/c-verifier/build.sh). The reference it must equal is the Rust kernel
# `merge_into` in lib.rs (and blake2b-rs / ckb-c-stdlib); tests/tests/merge_kernel_vm.rs
# checks it in CKB-VM against blake2b-rs, and a host test checks the table below against the
# Rust constants.
#
# Calling convention (not the C ABI; call it only from inline assembly that declares it):
#   mmr_merge_rv64         in:  a0 = left (32 bytes), a1 = right (32 bytes)
#   mmr_merge_rv64_chain   in:  a3..a6 = left as four little-endian words, a1 = right
#   mmr_merge_rv64_chain_right  in: a0 = left, a3..a6 = right as four words
#   all                    out: a3..a6 = the 32-byte hash as four little-endian words
#   clobbers: ra, t0-t6, a0, a1, a3-a7, s2-s11.  preserves: a2, s0, s1, sp, gp, tp.
#   no stack, no memory writes. Pointers need no alignment (CKB-VM loads misaligned words
#   at the normal cost).
# The caller stores a3..a6 (four `sd`), or passes them straight to the next merge through
# a `_chain` entry, as the left or the right input. a2 is left alone so that it can hold the
# destination across the call.
#
# Why not the C ABI: the state (16 words) and the message (8 words) fill 24 registers, and
# the C ABI would make this function save and restore the ten s-registers on every merge
# (40 cycles). Declared as clobbers, they are saved once in the caller's prologue instead,
# and the caller's compiler spills only what is live across the call.
#
# Cost in CKB-VM cycles (ALU and zbb ops 1, ld 2, jal/jalr 3; auipc+addi fuse into 1):
#   12 rounds x (8 G x 12 ops + 8 message adds)        1248
#   round 0: a = (h[a] + h[b]) precomputed, 4 adds       -4
#   round 11: b of the diagonal G is never read, 4x2     -8
#   message: 8 ld (mmr_merge_rv64)                       16
#   state: lla + 11 ld + 3 add + xori (v13 read from v5)  27
#   output: lla + 4 ld + 8 xor                           17
#   ret                                                   3
#   total                                              1299  (1291 through `_chain`)

# Working vector v0..v15 and message words m0..m7 (m8..m15 are zero in every merge):
#   v0 s2   v1 s3   v2 s4   v3 s5   v4 s6   v5 s7   v6 s8   v7 s9
#   v8 s10  v9 s11  v10 t3  v11 t4  v12 t5  v13 t6  v14 t2  v15 a0
#   m0 a3   m1 a4   m2 a5   m3 a6   m4 a7   m5 t0   m6 t1   m7 a1

# G (RFC 7693 3.1) in place. `zero` for a message word that is zero drops its add.
# pre=0: `a` already holds a + b (round 0, where both are constants). post=0: the last
# rotation of `b` is skipped (round 11's diagonal, whose b is not part of the output).
# dsrc: the register holding `d`'s initial value, when it is not `d` itself (round 0's v13,
# which equals v5).
.macro mmr_g a, b, c, d, x, y, pre=1, post=1, dsrc
    .if \pre
    add \a, \a, \b
    .endif
    .ifnc \x, zero
    add \a, \a, \x
    .endif
    .ifb \dsrc
    xor \d, \d, \a
    .else
    xor \d, \dsrc, \a
    .endif
    rori \d, \d, 32
    add \c, \c, \d
    xor \b, \b, \c
    rori \b, \b, 24
    add \a, \a, \b
    .ifnc \y, zero
    add \a, \a, \y
    .endif
    xor \d, \d, \a
    rori \d, \d, 16
    add \c, \c, \d
    .if \post
    xor \b, \b, \c
    rori \b, \b, 63
    .endif
.endm

# One round: message words in sigma order (RFC 7693 2.7), columns then diagonals.
.macro mmr_round x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15, pre=1, post=1
    mmr_g s2, s6, s10, t5, \x0, \x1, \pre, 1
    .if \pre
    mmr_g s3, s7, s11, t6, \x2, \x3, 1, 1
    .else
    # v13 = IV5 = h5 = v5: its first xor reads v5's register (no copy into t6).
    mmr_g s3, s7, s11, t6, \x2, \x3, 0, 1, s7
    .endif
    mmr_g s4, s8, t3, t2, \x4, \x5, \pre, 1
    mmr_g s5, s9, t4, a0, \x6, \x7, \pre, 1
    mmr_g s2, s7, t3, a0, \x8, \x9, 1, \post
    mmr_g s3, s8, t4, t5, \x10, \x11, 1, \post
    mmr_g s4, s9, s10, t6, \x12, \x13, 1, \post
    mmr_g s5, s6, s11, t2, \x14, \x15, 1, \post
.endm

    .section .text.mmr_merge_rv64, "ax", @progbits
    # rori is zbb; say so here, as module-level assembly does not see the crate's features.
    .option push
    .option arch, +zbb
    .globl mmr_merge_rv64
    .globl mmr_merge_rv64_chain
    .type mmr_merge_rv64, @function
    .type mmr_merge_rv64_chain, @function
    .p2align 1
mmr_merge_rv64:
    ld a3, 0(a0)
    ld a4, 8(a0)
    ld a5, 16(a0)
    ld a6, 24(a0)
mmr_merge_rv64_chain:
    ld a7, 0(a1)
    ld t0, 8(a1)
    ld t1, 16(a1)
    ld a1, 24(a1)
.Lmmr_merge_state:
    # v15's register points at the table until its own word is loaded, last.
    lla a0, .Lmmr_merge_table
    ld s2, 0(a0)
    ld s6, 8(a0)
    ld s7, 16(a0)
    ld s8, 24(a0)
    ld s9, 32(a0)
    ld s10, 40(a0)
    ld s11, 48(a0)
    ld t3, 56(a0)
    ld t4, 64(a0)
    # v1..v3 of round 0 are h[i] + h[i+4]; h1..h3 = IV1..IV3 (parameter words 1-3 are
    # zero), already loaded as v9..v11: one add each instead of a load.
    add s3, s11, s7
    add s4, t3, s8
    add s5, t4, s9
    xori t5, s6, 64          # v12 = IV4 ^ t (t = 64 bytes); h4 = IV4 (no salt)
    ld t2, 72(a0)
    ld a0, 80(a0)

    #         m[sigma[r][0..16]]                                                       round
    mmr_round a3, a4, a5, a6, a7, t0, t1, a1, zero, zero, zero, zero, zero, zero, zero, zero, pre=0
    mmr_round zero, zero, a7, zero, zero, zero, zero, t1, a4, zero, a3, a5, zero, a1, t0, a6
    mmr_round zero, zero, zero, a3, t0, a5, zero, zero, zero, zero, a6, t1, a1, a4, zero, a7
    mmr_round a1, zero, a6, a4, zero, zero, zero, zero, a5, t1, t0, zero, a7, a3, zero, zero
    mmr_round zero, a3, t0, a1, a5, a7, zero, zero, zero, a4, zero, zero, t1, zero, a6, zero
    mmr_round a5, zero, t1, zero, a3, zero, zero, a6, a7, zero, a1, t0, zero, zero, a4, zero
    mmr_round zero, t0, a4, zero, zero, zero, a7, zero, a3, a1, t1, a6, zero, a5, zero, zero
    mmr_round zero, zero, a1, zero, zero, a4, a6, zero, t0, a3, zero, a7, zero, t1, a5, zero
    mmr_round t1, zero, zero, zero, zero, a6, a3, zero, zero, a5, zero, a1, a4, a7, zero, t0
    mmr_round zero, a5, zero, a7, a1, t1, a4, t0, zero, zero, zero, zero, a6, zero, zero, a3
    mmr_round a3, a4, a5, a6, a7, t0, t1, a1, zero, zero, zero, zero, zero, zero, zero, zero
    mmr_round zero, zero, a7, zero, zero, zero, zero, t1, a4, zero, a3, a5, zero, a1, t0, a6, post=0

    # out[i] = h[i] ^ v[i] ^ v[i + 8]; v4..v7 are free now.
    lla s6, .Lmmr_merge_table
    ld s7, 88(s6)
    xor a3, s2, s10
    xor a3, a3, s7
    ld s8, 48(s6)
    xor a4, s3, s11
    xor a4, a4, s8
    ld s9, 56(s6)
    xor a5, s4, t3
    xor a5, a5, s9
    ld s7, 64(s6)
    xor a6, s5, t4
    xor a6, a6, s7
    ret
    .size mmr_merge_rv64, . - mmr_merge_rv64

# The right input's words move to their message registers and the left one is loaded; then
# the common path from the state setup on (4 mv, and a jump: 7 cycles more than `_chain`).
# A section of its own, so binaries that never call it do not carry it.
    .section .text.mmr_merge_rv64_chain_right, "ax", @progbits
    .globl mmr_merge_rv64_chain_right
    .type mmr_merge_rv64_chain_right, @function
    .p2align 1
mmr_merge_rv64_chain_right:
    mv a7, a3
    mv t0, a4
    mv t1, a5
    mv a1, a6
    ld a3, 0(a0)
    ld a4, 8(a0)
    ld a5, 16(a0)
    ld a6, 24(a0)
    j .Lmmr_merge_state
    .size mmr_merge_rv64_chain_right, . - mmr_merge_rv64_chain_right
    .option pop

    .section .rodata.mmr_merge_rv64, "a", @progbits
    .p2align 3
# h = IV ^ parameter block (digest length 32, fanout 1, depth 1, personal "ckb-default-hash").
.Lmmr_merge_table:
    .dword 0xbb1838e7a0a44bf9    #   0: h0 + h4 (v0 + v4 of round 0)
    .dword 0x510e527fade682d1    #   8: h4 = IV4
    .dword 0x9b05688c2b3e6c1f    #  16: h5 = IV5
    .dword 0x7ee5bccfd623d608    #  24: h6 = IV6 ^ "ckb-defa"
    .dword 0x3393ac713e0a4d0c    #  32: h7 = IV7 ^ "ult-hash"
    .dword 0x6a09e667f3bcc908    #  40: IV0 (v8)
    .dword 0xbb67ae8584caa73b    #  48: IV1 (v9; also h1)
    .dword 0x3c6ef372fe94f82b    #  56: IV2 (v10; also h2)
    .dword 0xa54ff53a5f1d36f1    #  64: IV3 (v11; also h3)
    .dword 0xe07c265404be4294    #  72: !IV6 (v14: final block)
    .dword 0x5be0cd19137e2179    #  80: IV7 (v15)
    .dword 0x6a09e667f2bdc928    #  88: h0 = IV0 ^ 0x01010020
