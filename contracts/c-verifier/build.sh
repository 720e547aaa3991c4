#!/usr/bin/env bash
# Builds the C MMR verifier (CKB lock script) for CKB-VM (RISC-V rv64imc + B extension).
#
#   contracts/c-verifier/build.sh                 clang-19 + ld.lld-19  -> build/release/c-verifier{,.debug}
#   C_COMPILER=gcc contracts/c-verifier/build.sh  riscv64-unknown-elf-gcc (GCC 12) -> the same file names
#   (CC=gcc is accepted as a synonym; any other CC value is ignored.)
#   MERGE=stdlib contracts/c-verifier/build.sh    hash with ckb-c-stdlib's blake2b.h instead of the assembly
#                              merge kernel shared with the Rust verifiers (MERGE=asm, default)
#   LEAN_ELF=0 contracts/c-verifier/build.sh      the linker's default layout instead of contracts/lean-elf.ld
#                              (which loads no ELF headers; LEAN_ELF=1, default)
#   FORMAT=v1 contracts/c-verifier/build.sh       verify the command stream (version 1, compiled_proof.h)
#                              instead of the compact format (FORMAT=v2, default, compact_proof.h);
#                              the cycle lab's journey builds its C steps with v1
#
# Environment:
#   CKB_C_STDLIB   path to ckb-c-stdlib (skips the lookup through cargo metadata)
#   OUT_DIR        output directory (default build/release)
#   OUT_NAME       output file name (default c-verifier)
#
# ckb-c-stdlib is a dependency, never copied: contracts/c-verifier/find-stdlib.sh finds it inside the ckb-std
# crate through `cargo metadata`.
set -euo pipefail

die() { echo "contracts/c-verifier/build.sh: error: $*" >&2; exit 1; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

compiler="${C_COMPILER:-}"
if [ -z "$compiler" ]; then
    case "${CC:-}" in
        gcc | riscv64-unknown-elf-gcc) compiler=gcc ;;
        *) compiler=clang ;;
    esac
fi
case "$compiler" in
    clang | clang-19) compiler=clang ;;
    gcc | riscv64-unknown-elf-gcc) compiler=gcc ;;
    *) die "unknown C_COMPILER '$compiler' (use clang or gcc)" ;;
esac

# ---- locate ckb-c-stdlib ----------------------------------------------------------------
. contracts/c-verifier/find-stdlib.sh
STDLIB="$(find_stdlib)"
[ -n "$STDLIB" ] && [ -f "$STDLIB/blake2b.h" ] && [ -f "$STDLIB/libc/entry.h" ] ||
    die "ckb-c-stdlib not found (no ckb-std via cargo metadata; run 'cargo fetch' or set CKB_C_STDLIB)"

# ---- toolchain --------------------------------------------------------------------------
MARCH="rv64imc_zba_zbb_zbc_zbs"
# -mno-strict-align: CKB-VM executes misaligned loads and stores at the normal cost, so the
# little-endian field reads (and blake2b.h's load64/store64 with NATIVE_LITTLE_ENDIAN) become
# single ld/lw instead of byte loads and shifts: about 20% fewer cycles and smaller code.
# OPT overrides the optimization level (default -O3).
COMMON=(-march="$MARCH" -mabi=lp64 ${OPT:--O3} -g -nostdinc -nostdlib -static
    -mno-strict-align -DNATIVE_LITTLE_ENDIAN
    -Wall -Wextra -Werror -fdata-sections -ffunction-sections
    -fvisibility=hidden -fno-asynchronous-unwind-tables -fno-unwind-tables
    -isystem "$STDLIB/libc" -isystem "$STDLIB" -isystem "$STDLIB/molecule" -I contracts/c-verifier)

if [ "$compiler" = gcc ]; then
    CCBIN=riscv64-unknown-elf-gcc
    command -v "$CCBIN" >/dev/null 2>&1 ||
        die "$CCBIN not found (apt-get install gcc-riscv64-unknown-elf)"
    # GCC 12 accepts the zba/zbb/zbc/zbs march string, so both compilers target the same ISA.
    # GCC only uses misaligned accesses under a tuning model that calls them fast; its
    # default (rocket) does not, thead-c906 does (and gave the best cycles and size).
    # -lgcc for any helper GCC emits.
    FLAGS=("${COMMON[@]}" -mtune=thead-c906 -fno-stack-protector -Wl,--gc-sections
        -Wl,--build-id=none)
    LIBS=(-lgcc)
else
    CCBIN=clang-19
    command -v "$CCBIN" >/dev/null 2>&1 ||
        die "$CCBIN not found (apt-get install clang-19 lld-19 llvm-19)"
    # clang-19 finds ld.lld next to itself (/usr/lib/llvm-19/bin), installed by lld-19.
    command -v ld.lld-19 >/dev/null 2>&1 || die "ld.lld-19 not found (apt-get install lld-19)"
    FLAGS=(--target=riscv64 "${COMMON[@]}" -fuse-ld=lld -Wl,--gc-sections
        -Wl,--build-id=none)
    LIBS=()
fi

STRIP=""
for s in llvm-objcopy-19 llvm-objcopy riscv64-unknown-elf-objcopy; do
    if command -v "$s" >/dev/null 2>&1; then STRIP="$s"; break; fi
done
[ -n "$STRIP" ] || die "no objcopy found (apt-get install llvm-19)"

OUT_DIR="${OUT_DIR:-build/release}"
OUT_NAME="${OUT_NAME:-c-verifier}"
mkdir -p "$OUT_DIR"
OUT="$OUT_DIR/$OUT_NAME"

# The merge: the Rust verifiers' assembly kernel (one source, crates/mmr-blake2b), or
# ckb-c-stdlib's generic blake2b.
SOURCES=(contracts/c-verifier/verifier.c)
case "${LEAN_ELF:-1}" in
    1) FLAGS+=(-Wl,-T,contracts/lean-elf.ld) ;;
    0) ;;
    *) die "unknown LEAN_ELF '$LEAN_ELF' (use 1 or 0)" ;;
esac
case "${FORMAT:-v2}" in
    v2) ;;
    v1) FLAGS+=(-DCP_FORMAT_V1) ;;
    *) die "unknown FORMAT '$FORMAT' (use v2 or v1)" ;;
esac
case "${MERGE:-asm}" in
    asm)
        FLAGS+=(-DCP_MERGE_ASM)
        SOURCES+=(-x assembler crates/mmr-blake2b/src/merge_rv64.s)
        ;;
    stdlib) ;;
    *) die "unknown MERGE '$MERGE' (use asm or stdlib)" ;;
esac

"$CCBIN" "${FLAGS[@]}" -o "$OUT.debug" "${SOURCES[@]}" "${LIBS[@]}"

"$STRIP" --strip-all "$OUT.debug" "$OUT"
size=$(wc -c <"$OUT")
echo "c-verifier ($compiler, format ${FORMAT:-v2}, merge ${MERGE:-asm}, lean ELF ${LEAN_ELF:-1}): $OUT, stripped $size bytes (debug copy $OUT.debug)"
