# Every instruction form the checker's decoder knows, for tests/decoder.rs: assembled with
# clang-19 and linked with ld.lld-19, then each instruction decoded and printed by the
# checker is compared with llvm-objdump-19 -M no-aliases. No relaxation, so the branches
# keep their short forms; register and immediate choices cover every field's extremes.
    .option norelax
    .option arch, +zbb, +zba
    .text
    .globl _start
_start:
    .option norvc
    lui a0, 0x12345
    lui t6, 0xfffff
    auipc a1, 0x2
    auipc s11, 0x80000
    jal ra, _start
    jal zero, far
    jalr zero, 8(t0)
    jalr ra, -2048(a5)
    beq a0, a1, _start
    bne s2, t6, near
    blt a0, a1, near
    bge a0, a1, _start
    bltu a0, a1, near
    bgeu a0, a1, _start
    lb a0, -3(a1)
    lh a0, 2(a1)
    lw a0, 4(s2)
    ld s3, 2047(s2)
    ld t6, -2048(s11)
    lbu a0, 1(a1)
    lhu a0, 2(a1)
    lwu a0, 4(a1)
    sb a0, 1(s3)
    sh a0, 2(s3)
    sw a0, 4(s3)
    sd s4, -8(s3)
    sd t6, 2047(s11)
near:
    addi s2, s3, -5
    addi t6, s11, 2047
    addi a0, a0, -2048
    slti s2, s3, 5
    sltiu s2, s3, -1
    xori s2, s3, 64
    xori t5, s6, -1
    ori s2, s3, 64
    andi s2, s3, 64
    slli s2, s3, 33
    srli s2, s3, 63
    srai s2, s3, 1
    rori s2, s3, 63
    rori t5, t5, 32
    rori t5, t5, 24
    rori t5, t5, 16
    rori a0, a0, 1
    addiw s2, s3, 7
    slliw s2, s3, 31
    srliw s2, s3, 3
    sraiw s2, s3, 3
    roriw s2, s3, 3
    add s2, s3, s4
    add t6, s11, a0
    sub s2, s3, s4
    sll s2, s3, s4
    slt s2, s3, s4
    sltu s2, s3, s4
    xor s2, s3, s4
    xor a3, a3, s7
    srl s2, s3, s4
    sra s2, s3, s4
    or s2, s3, s4
    and s2, s3, s4
    mul s2, s3, s4
    andn s2, s3, s4
    orn s2, s3, s4
    xnor s2, s3, s4
    ror s2, s3, s4
    rol s2, s3, s4
    sh1add s2, s3, s4
    sh2add s2, s3, s4
    sh3add s2, s3, s4
    addw s2, s3, s4
    subw s2, s3, s4
    sllw s2, s3, s4
    srlw s2, s3, s4
    sraw s2, s3, s4
    rorw s2, s3, s4
    rolw s2, s3, s4
    ecall
    ebreak
    .option rvc
far:
    c.addi4spn a0, sp, 16
    c.addi4spn a5, sp, 1020
    c.ld a3, 8(a0)
    c.ld s0, 248(a5)
    c.lw a3, 4(a0)
    c.lw a5, 124(s1)
    c.sd a3, 8(a0)
    c.sd a5, 248(s0)
    c.sw a3, 4(a0)
    c.sw s0, 124(a5)
    c.nop
    c.addi s2, -3
    c.addi t6, 31
    c.addi a0, -32
    c.addiw s2, 3
    c.li s2, -7
    c.li a0, 31
    c.addi16sp sp, -64
    c.addi16sp sp, 496
    c.lui s2, 3
    c.lui t6, 0xfffe0
    c.srli a0, 3
    c.srli a5, 63
    c.srai a0, 33
    c.andi a0, -2
    c.andi s1, 31
    c.sub a0, a1
    c.xor a0, a1
    c.or a5, s0
    c.and a0, a1
    c.subw a0, a1
    c.addw a0, a1
back:
    c.beqz a0, back
    c.bnez s1, fwd
    c.j back
    c.j fwd
    c.slli s2, 3
    c.slli t6, 63
    c.ldsp s2, 8(sp)
    c.ldsp ra, 504(sp)
    c.lwsp s2, 4(sp)
    c.lwsp t6, 252(sp)
fwd:
    c.jr ra
    c.jr t6
    c.mv a7, a3
    c.mv t6, s11
    c.ebreak
    c.jalr t0
    c.add s2, a3
    c.add t6, a0
    c.sdsp s2, 8(sp)
    c.sdsp t6, 504(sp)
    c.swsp s2, 4(sp)
    c.swsp t6, 252(sp)
