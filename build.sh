#!/usr/bin/env bash
# ckb-mmr-verifiers: build everything, then run the verifiers on one workload.
#
#   SEED=1680833947559458126 ./build.sh     build, write tx.json, print the cycle table
#   ./build.sh test                         build, then run the whole test suite
#   ./build.sh build                        build only (contracts, C verifier, tx-generator)
#   ./build.sh journey                      every tuning step as its own binary, one cycle table
#   ./build.sh deps                         install missing prerequisites only
#   ./build.sh help                         this text
#
# Prerequisites (Debian packages, the Rust target, ckb-debugger 1.1.1) are installed when
# missing, idempotently. Outputs: build/release/<verifier> (stripped) and <verifier>.debug.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"

REFERENCE_SEED=1680833947559458126
CKB_DEBUGGER_VERSION=1.1.1
TARGET=riscv64imac-unknown-none-elf
RELEASE="$ROOT/build/release"
TX_GENERATOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/tx-generator"
APT_PACKAGES=(clang-19 lld-19 llvm-19 protobuf-compiler gcc-riscv64-unknown-elf)
# Rust contracts, in the order their inputs take in tx.json (the C verifier sits between).
RUST_CONTRACTS=(baseline-verifier compiled-verifier)

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

export PATH="$HOME/.cargo/bin:$PATH"

install_apt_packages() {
    local missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    command -v apt-get >/dev/null || die "missing packages ${missing[*]} and no apt-get to install them"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "missing packages ${missing[*]}; run as root or install them"
        sudo="sudo -n"
    fi
    say "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq >&2 || die "apt-get update failed (no network or no permission?)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2 \
        || die "apt-get install ${missing[*]} failed"
}

install_rust() {
    command -v rustup >/dev/null || die "rustup not found: install Rust with rustup first (https://rustup.rs)"
    # rust-toolchain.toml pins the toolchain; make sure it and the contract target exist.
    local channel
    channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
    if ! rustup target list --installed --toolchain "$channel" 2>/dev/null | grep -qx "$TARGET"; then
        say "installing Rust $channel with target $TARGET"
        rustup toolchain install "$channel" --profile minimal --component rustfmt,clippy >&2 \
            || die "rustup could not install toolchain $channel"
        rustup target add "$TARGET" --toolchain "$channel" >&2 || die "rustup could not add $TARGET"
    fi
}

ckb_debugger_ok() {
    command -v ckb-debugger >/dev/null && ckb-debugger --version 2>/dev/null | grep -q " $CKB_DEBUGGER_VERSION\$"
}

install_ckb_debugger() {
    ckb_debugger_ok && return 0
    say "installing ckb-debugger $CKB_DEBUGGER_VERSION with cargo install (a few minutes, once)"
    cargo install ckb-debugger --version "$CKB_DEBUGGER_VERSION" --locked >&2 \
        || die "cargo install ckb-debugger $CKB_DEBUGGER_VERSION failed"
    ckb_debugger_ok || die "ckb-debugger $CKB_DEBUGGER_VERSION is not first on PATH after installing it"
}

deps() {
    install_apt_packages
    install_rust
    install_ckb_debugger
}

# Builds one Rust contract with the given cargo feature arguments and installs it under
# build/<dir>/<name> (stripped) and <name>.debug.
build_contract() {
    local name=$1 dir=$2
    shift 2
    cargo build --quiet --release --locked --target "$TARGET" -p "$name" "$@" >&2 \
        || die "building contract $name failed"
    mkdir -p "$dir"
    cp "${CARGO_TARGET_DIR:-target}/$TARGET/release/$name" "$dir/$name.debug"
    llvm-objcopy-19 --strip-all "$dir/$name.debug" "$dir/$name"
}

build_all() {
    say "building Rust contracts for $TARGET"
    for name in "${RUST_CONTRACTS[@]}"; do
        [ -d "contracts/$name" ] && build_contract "$name" "$RELEASE"
    done
    build_contract merge-bench "$ROOT/build/bench"
    if [ -x c/build.sh ]; then
        say "building the C verifier"
        c/build.sh >&2 || die "building the C verifier failed"
    fi
    say "building tx-generator"
    cargo build --quiet --release --locked -p tx-generator >&2 || die "building tx-generator failed"
}

# The binaries present, in tx.json input order: 0 baseline, 1 C, 2 compiled.
verifier_names() {
    local name
    for name in baseline-verifier c-verifier compiled-verifier; do
        [ -f "$RELEASE/$name" ] && echo "$name"
    done
    return 0
}

# cycles_of TX INDEX -> "result cycles" from ckb-debugger's own output.
run_debugger() {
    local out result cycles
    out=$(ckb-debugger --tx-file "$1" --cell-type input --script-group-type lock --cell-index "$2" 2>&1) || true
    result=$(sed -n 's/^Run result: \(-\{0,1\}[0-9]*\).*/\1/p' <<<"$out")
    cycles=$(sed -n 's/^All cycles: \([0-9]*\).*/\1/p' <<<"$out")
    if [ -z "$result" ]; then
        result=$(sed -n 's/.*error code \(-\{0,1\}[0-9]*\).*/\1/p' <<<"$out" | head -n 1)
    fi
    echo "${result:-?} ${cycles:--}"
}

run() {
    local seed=${SEED:-$REFERENCE_SEED}
    local names=() bins=()
    mapfile -t names < <(verifier_names)
    [ ${#names[@]} -gt 0 ] || die "no verifier binaries in $RELEASE"
    # tx-generator fixes payload formats by position, so the slots must be filled in order.
    [ "${names[0]}" = baseline-verifier ] || die "the baseline verifier (input 0) is missing"
    for n in "${names[@]}"; do bins+=("$RELEASE/$n"); done
    say "generating tx.json (SEED=$seed)"
    SEED=$seed "$TX_GENERATOR" tx.json "${bins[@]}"
    echo
    printf '%-6s %-20s %-11s %12s %14s\n' input verifier "run result" cycles "stripped bytes"
    local i=0 failed=0
    for n in "${names[@]}"; do
        read -r result cycles < <(run_debugger tx.json "$i")
        printf '%-6s %-20s %-11s %12s %14s\n' "$i" "$n" "$result" "$cycles" "$(stat -c %s "$RELEASE/$n")"
        [ "$result" = 0 ] || failed=1
        i=$((i + 1))
    done
    echo
    echo "Reproduce one row: ckb-debugger --tx-file tx.json --cell-type input --script-group-type lock --cell-index N"
    [ $failed -eq 0 ] || die "a verifier rejected the honest transaction"
}

# The journey: each row adds one named switch (a cargo feature) to the row before, so the
# table shows what each step buys. "label|package|cargo feature arguments".
JOURNEY_RUST=(
    "baseline: generic builder per merge|baseline-verifier|--no-default-features"
    "baseline: + const builder|baseline-verifier|--no-default-features --features const-builder"
    "baseline: + finalize_from_ref|baseline-verifier|--no-default-features --features const-builder,finalize-ref"
    "baseline: + zero-copy items|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy"
    "baseline: + merge kernel|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel"
    "baseline: + uninit merge outputs|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit"
    "baseline: + bump allocator|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc"
    "compiled: const builder|compiled-verifier|--no-default-features"
    "compiled: + static stack|compiled-verifier|--no-default-features --features static-stack"
    "compiled: + merge kernel|compiled-verifier|--no-default-features --features static-stack,merge-kernel"
)

journey() {
    local seed=${SEED:-$REFERENCE_SEED} dir="$ROOT/build/journey" i=0 prev_pkg="" prev=""
    rm -rf "$dir"
    printf '%-45s %12s %10s %14s\n' variant cycles delta "stripped bytes"
    local row label pkg features bin tag result cycles
    local rows=("${JOURNEY_RUST[@]}" "c (clang 19)|c|clang" "c (gcc 12)|c|gcc")
    for row in "${rows[@]}"; do
        IFS='|' read -r label pkg features <<<"$row"
        tag=$(printf '%02d' "$i")
        say "journey $tag: $label"
        if [ "$pkg" = c ]; then
            OUT_DIR="$dir/$tag" OUT_NAME=c-verifier C_COMPILER="$features" c/build.sh >&2 \
                || die "building the C verifier with $features failed"
            bin="$dir/$tag/c-verifier"
        else
            # shellcheck disable=SC2086 # features is a list of cargo arguments
            build_contract "$pkg" "$dir/$tag" $features
            bin="$dir/$tag/$pkg"
        fi
        # Input 0 takes the baseline payload, input 2 the compiled one; pad with this binary.
        if [ "$pkg" = baseline-verifier ]; then
            SEED=$seed "$TX_GENERATOR" "$dir/$tag/tx.json" "$bin" >/dev/null
            read -r result cycles < <(run_debugger "$dir/$tag/tx.json" 0)
        else
            SEED=$seed "$TX_GENERATOR" "$dir/$tag/tx.json" "$RELEASE/baseline-verifier" "$bin" >/dev/null
            read -r result cycles < <(run_debugger "$dir/$tag/tx.json" 1)
        fi
        [ "$result" = 0 ] || die "journey $tag ($label) rejected the honest proof: $result"
        local delta=""
        [ "$pkg" = "$prev_pkg" ] && delta=$((cycles - prev))
        printf '%-45s %12s %10s %14s\n' "$label" "$cycles" "$delta" "$(stat -c %s "$bin")"
        printf '%s,%s,%s,%s,%s\n' "$tag" "$label" "$cycles" "$delta" "$(stat -c %s "$bin")" >>"$dir/journey.csv"
        prev_pkg=$pkg prev=$cycles i=$((i + 1))
    done
    echo
    echo "SEED=$seed; binaries and tx.json per step in build/journey/NN/; CSV: build/journey/journey.csv"
    # Leave build/release as the default build.
    build_all >/dev/null 2>&1 || die "rebuilding the default binaries failed"
}

run_tests() {
    say "running the test suite"
    cargo test --release --locked --workspace --exclude baseline-verifier --exclude compiled-verifier
    if [ -x c/host/run.sh ]; then
        say "running the C verifier core under ASan/UBSan"
        c/host/run.sh
    fi
}

case "${1:-run}" in
    run) deps; build_all; run ;;
    build) deps; build_all ;;
    deps) deps ;;
    journey) deps; build_all; journey ;;
    test) deps; build_all; run_tests ;;
    help | -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$1' (try: ./build.sh help)" ;;
esac
