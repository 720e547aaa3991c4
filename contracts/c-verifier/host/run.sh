#!/usr/bin/env bash
# Compiles the native harness with AddressSanitizer + UBSan and runs every vector file
# (*.vec, *.txt; recursively) under CORPUS_DIR, plus the harness's built-in self test.
# Prints "N passed, M failed" and exits non-zero on any failure.
#
#   contracts/c-verifier/host/run.sh CORPUS_DIR        (default CORPUS_DIR: contracts/c-verifier/host/vectors)
#   HOST_CC=gcc contracts/c-verifier/host/run.sh ...   choose the host compiler (default clang-19, clang, gcc)
set -euo pipefail

die() { echo "contracts/c-verifier/host/run.sh: error: $*" >&2; exit 1; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
CORPUS="${1:-$ROOT/contracts/c-verifier/host/vectors}"
# Resolve CORPUS_DIR relative to the caller's cwd before moving to the repository root.
[ -d "$CORPUS" ] || die "corpus directory not found: $CORPUS"
CORPUS="$(cd "$CORPUS" && pwd)"
cd "$ROOT"

. contracts/c-verifier/find-stdlib.sh
STDLIB="$(find_stdlib)"
[ -n "$STDLIB" ] && [ -f "$STDLIB/blake2b.h" ] ||
    die "ckb-c-stdlib not found (cargo metadata found no ckb-std package; set CKB_C_STDLIB)"

HCC="${HOST_CC:-}"
if [ -z "$HCC" ]; then
    for c in clang-19 clang gcc cc; do
        if command -v "$c" >/dev/null 2>&1; then HCC="$c"; break; fi
    done
fi
[ -n "$HCC" ] && command -v "$HCC" >/dev/null 2>&1 || die "no host C compiler (set HOST_CC)"

mkdir -p build/tmp
BIN=build/tmp/c-host-harness
"$HCC" -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=all \
    -isystem "$STDLIB" -I contracts/c-verifier contracts/c-verifier/host/harness.c -o "$BIN"

"$BIN" --self-test >/dev/null || die "harness self-test failed"
# Malformed lines (a 2-byte root, bad hex, a missing field) fail as such and leak nothing.
printf 'P 0201 00aa 1 0\nP zz 00 1 0\nP 0201\n' >build/tmp/c-host-malformed.vec
out="$("$BIN" build/tmp/c-host-malformed.vec 2>&1)" && die "malformed vector lines passed"
[ "$(grep -c 'malformed vector line' <<<"$out")" = 3 ] && ! grep -q Sanitizer <<<"$out" ||
    die "malformed vector lines: $out"

files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(
    find "$CORPUS" -type f \( -name '*.vec' -o -name '*.txt' \) -print0 | sort -z)
[ "${#files[@]}" -gt 0 ] || die "no *.vec or *.txt files under $CORPUS"

exec "$BIN" "${files[@]}"
