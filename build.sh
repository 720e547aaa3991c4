#!/usr/bin/env bash
# ckb-mmr-verifiers: build everything, then run the verifiers on one workload.
#
#   SEED=1680833947559458126 ./build.sh     build, write tx.json, print the cycle table
#   ./build.sh test                         build, then run the whole test suite
#   ./build.sh build                        build only (contracts, C verifier, tx-generator)
#   ./build.sh journey                      every tuning step as its own binary, one cycle table
#                                           (ckb-debugger on SEED, min/median/max over
#                                           JOURNEY_SEEDS=50 seeds in-process; CSV, JSON, SVG)
#   ./build.sh growth                       cycles and witness bytes against MMR size (2^4..2^40
#                                           leaves; 1, 10, 100 proved and the most one witness
#                                           carries): docs/growth.svg, table in performance.md
#   ./build.sh sweep [--seeds N ...]        the release verifiers on N (200) seeds on 1 and on
#                                           all cores, in-process; seeds/s and speedup
#   ./build.sh compare <ref-a> <ref-b>      build both git refs in temporary worktrees, print
#                                           their cycles side by side (COMPARE_SEEDS="s1 s2")
#   ./build.sh flamegraph <verifier> [seed] build/flamegraph/<verifier>-<seed>.svg
#   ./build.sh bless                        rewrite tests/expected-cycles.json (cycle gate)
#   ./build.sh checksums                    rewrite checksums.txt (sha256 of build/release)
#   ./build.sh kernel-proof [mutants]       prove the merge kernel in build/release and its source
#                                           equal to BLAKE2b-256 for every input (docs/hashing.md);
#                                           `mutants [--bit-flips]`: the mutation run, with counts
#   ./build.sh devnet                       a fresh local CKB dev chain: deploy, lock, spend and refuse
#                                           with all three verifiers on the real node's tx pool;
#                                           table + build/devnet/report.json, then stops the node
#   ./build.sh devnet start | stop          keep a dev chain running for you (prints its RPC URL)
#   ./build.sh scale [--leaves 1e6,1e7,1e8] the MMR store at scale, Rust then TypeScript: append
#                                           rate, proofs of 1 and 100 leaves, peak memory, the
#                                           one-core merge rate; build/scale/{rust,ts}.json, a table;
#                                           then acc sync from a fresh dev chain (--sync-leaves 1e5,
#                                           build/scale/sync.json: ms per 1,000 leaves)
#   ./build.sh deps                         install every missing prerequisite of the test command
#                                           (the CKB node included) and nothing else
#   ./build.sh help                         this text
#
# Prerequisites (Debian packages, the Rust target, ckb-debugger 1.1.1, the CKB node 0.210.0)
# are installed when missing, idempotently. Outputs: build/release/<verifier> (stripped) and <verifier>.debug.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"

REFERENCE_SEED=1680833947559458126
CKB_DEBUGGER_VERSION=1.1.1
TARGET=riscv64imac-unknown-none-elf
RELEASE="$ROOT/build/release"
TX_GENERATOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/tx-generator"
LAB="${CARGO_TARGET_DIR:-$ROOT/target}/release/cycle-lab"
CKB_NODE_VERSION=0.210.0
DEVNET="${CARGO_TARGET_DIR:-$ROOT/target}/release/ckb-devnet"
# What building and running the verifiers needs (protobuf-compiler builds ckb-debugger).
APT_PACKAGES=(clang-19 lld-19 llvm-19 protobuf-compiler gcc-riscv64-unknown-elf)
# The CKB node's build only (openssl-sys, RocksDB's bindgen).
NODE_APT_PACKAGES=(libssl-dev pkg-config libclang-dev)
# Rust contracts, in the order their inputs take in tx.json (the C verifier sits between).
RUST_CONTRACTS=(baseline-verifier compiled-verifier accumulator-type)

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

export PATH="$HOME/.cargo/bin:$PATH"

# Installs the Debian packages named in APT_PACKAGES that are missing.
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
    # The test command checks the formatting; a toolchain installed earlier may lack rustfmt.
    if ! rustup component list --installed --toolchain "$channel" 2>/dev/null | grep -q '^rustfmt'; then
        rustup component add rustfmt --toolchain "$channel" >&2 || die "rustup could not add rustfmt"
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

ckb_node_ok() {
    command -v ckb >/dev/null && ckb --version 2>/dev/null | grep -q "^ckb $CKB_NODE_VERSION "
}

# The CKB node for the dev chain (./build.sh devnet and the tests), built from the Rust
# registry, RocksDB included, once. It takes about 26 minutes on 2 cores, so `test` and
# `devnet` start it first, in the background and in its own process group, and wait for it
# only when they need the node; the other installs and builds overlap with it (many of their
# phases are single-threaded). If build.sh ends first, it stops the build by that PID.
# It compiles with the pinned toolchain and links the node's Debian packages, so both are
# installed first: a toolchain that rustup installs or replaces while cargo runs breaks it.
CKB_INSTALL_PID=""
CKB_INSTALL_LOG="$ROOT/build/tmp/ckb-install.log"
start_ckb_node_install() {
    ckb_node_ok && return 0
    [ -n "$CKB_INSTALL_PID" ] && return 0
    install_apt_packages
    local APT_PACKAGES=("${NODE_APT_PACKAGES[@]}")
    install_apt_packages
    install_rust
    mkdir -p "$(dirname "$CKB_INSTALL_LOG")"
    say "installing the CKB node $CKB_NODE_VERSION with cargo install, in the background (about 26 minutes on 2 cores, once; log: ${CKB_INSTALL_LOG#"$ROOT/"})"
    CKB_INSTALL_START=$SECONDS
    setsid cargo install ckb --version "$CKB_NODE_VERSION" --locked >"$CKB_INSTALL_LOG" 2>&1 &
    CKB_INSTALL_PID=$!
}

wait_ckb_node() {
    if [ -n "$CKB_INSTALL_PID" ]; then
        say "waiting for the CKB node install (pid $CKB_INSTALL_PID): $(grep -c Compiling "$CKB_INSTALL_LOG" || true) crates compiled so far"
        local status=0
        wait "$CKB_INSTALL_PID" || status=$?
        CKB_INSTALL_PID=""
        if [ $status -ne 0 ]; then
            tail -n 20 "$CKB_INSTALL_LOG" >&2
            die "cargo install ckb $CKB_NODE_VERSION failed (exit $status; log: $CKB_INSTALL_LOG)"
        fi
        local took=$((SECONDS - CKB_INSTALL_START))
        say "CKB node $CKB_NODE_VERSION installed in $((took / 60)) min $((took % 60)) s"
    fi
    ckb_node_ok || die "ckb $CKB_NODE_VERSION is not first on PATH (after ./build.sh deps it is in ~/.cargo/bin)"
}

stop_ckb_node_install() {
    [ -n "$CKB_INSTALL_PID" ] || return 0
    say "stopping the unfinished CKB node install (pid $CKB_INSTALL_PID)"
    kill -TERM -- "-$CKB_INSTALL_PID" 2>/dev/null || true
    wait "$CKB_INSTALL_PID" 2>/dev/null || true
    CKB_INSTALL_PID=""
}

# Node.js and npm for the TypeScript kit (js/mmr-lock): any node >= 18 on PATH, else Debian's.
install_node() {
    command -v node >/dev/null && command -v npm >/dev/null && return 0
    local APT_PACKAGES=(nodejs npm)
    install_apt_packages
}

# What building, running and measuring the verifiers needs.
deps() {
    install_apt_packages
    install_rust
    install_ckb_debugger
}

# What the test command needs besides: node and npm for the TypeScript kit, cargo-fuzz for
# the bounded differential fuzz run (SECURITY.md).
test_deps() {
    deps
    install_node
    cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz 0.13.1" || {
        say "installing cargo-fuzz 0.13.1 with cargo install (a minute or two, once)"
        cargo install cargo-fuzz --version 0.13.1 --locked >&2 || die "cargo install cargo-fuzz 0.13.1 failed"
    }
}

# ckb-devnet alone, for the commands that only talk to a node (no contracts rebuilt).
build_devnet() {
    say "building ckb-devnet"
    cargo build --quiet --release --locked -p ckb-devnet >&2 || die "building ckb-devnet failed"
}

# Builds one Rust contract with the given cargo feature arguments and installs it under
# build/<dir>/<name> (stripped) and <name>.debug.
build_contract() {
    local name=$1 dir=$2
    shift 2
    # Panic locations name the registry sources by absolute path: map cargo's home to a fixed
    # prefix so the binaries (checksums.txt) do not depend on where it is. Workspace sources
    # are named relative to the workspace root, the standard library by /rustc/<commit>/.
    # (Cargo adds this to the rustflags of .cargo/config.toml.)
    local remap="--remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"
    CARGO_TARGET_RISCV64IMAC_UNKNOWN_NONE_ELF_RUSTFLAGS="${CARGO_TARGET_RISCV64IMAC_UNKNOWN_NONE_ELF_RUSTFLAGS:-} $remap" \
        cargo build --quiet --profile contract --locked --target "$TARGET" -p "$name" "$@" >&2 \
        || die "building contract $name failed"
    mkdir -p "$dir"
    cp "${CARGO_TARGET_DIR:-target}/$TARGET/contract/$name" "$dir/$name.debug"
    llvm-objcopy-19 --strip-all "$dir/$name.debug" "$dir/$name"
}

build_all() {
    say "building Rust contracts for $TARGET"
    for name in "${RUST_CONTRACTS[@]}"; do
        [ -d "contracts/$name" ] && build_contract "$name" "$RELEASE"
    done
    build_contract merge-bench "$ROOT/build/bench"
    if [ -x contracts/c-verifier/build.sh ]; then
        say "building the C verifier"
        contracts/c-verifier/build.sh >&2 || die "building the C verifier failed"
    fi
    say "building tx-generator and ckb-devnet"
    cargo build --quiet --release --locked -p tx-generator -p ckb-devnet >&2 || die "building tx-generator failed"
}

# The dev chain (devnet/): the scenario on a fresh chain, or a node kept running for a user.
devnet() {
    case "${1:-scenario}" in
        scenario) "$DEVNET" scenario --dir "$ROOT/build/devnet" --release "$RELEASE" --doc "$ROOT/docs/deploy.md" ;;
        start) "$DEVNET" start --dir "$ROOT/build/devnet/node" ;;
        stop) "$DEVNET" stop --dir "$ROOT/build/devnet/node" ;;
        *) die "usage: ./build.sh devnet [start|stop]" ;;
    esac
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
    "baseline: + asm kernel|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc,asm-kernel"
    "baseline: + one-pointer items|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc,asm-kernel,ref-items"
    "baseline: + merge outputs from the arena|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc,asm-kernel,ref-items,node-arena"
    "baseline: + word loads|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc,asm-kernel,ref-items,node-arena,word-loads"
    "baseline: + lean ELF|baseline-verifier|--no-default-features --features const-builder,finalize-ref,zero-copy,merge-kernel,uninit,bump-alloc,asm-kernel,ref-items,node-arena,word-loads,lean-elf"
    "compiled: const builder|compiled-verifier|--no-default-features"
    "compiled: + static stack|compiled-verifier|--no-default-features --features static-stack"
    "compiled: + merge kernel|compiled-verifier|--no-default-features --features static-stack,merge-kernel"
    "compiled: + asm kernel|compiled-verifier|--no-default-features --features static-stack,merge-kernel,asm-kernel"
    "compiled: + PROOF runs in registers|compiled-verifier|--no-default-features --features static-stack,merge-kernel,asm-kernel,asm-chain"
    "compiled: + lean ELF|compiled-verifier|--no-default-features --features static-stack,merge-kernel,asm-kernel,asm-chain,lean-elf"
)
# The C verifier: "label|c|compiler merge lean" (contracts/c-verifier/build.sh's C_COMPILER, MERGE, LEAN_ELF).
JOURNEY_C=(
    "c (gcc 12): ckb-c-stdlib blake2b|c|gcc stdlib 0"
    "c (clang 19): ckb-c-stdlib blake2b|c|clang stdlib 0"
    "c (clang 19): + asm kernel|c|clang asm 0"
    "c (clang 19): + lean ELF|c|clang asm 1"
    "c (gcc 12): + asm kernel|c|gcc asm 0"
    "c (gcc 12): + lean ELF|c|gcc asm 1"
)

# The accumulator's type script (docs/accumulator.md, "Cycles"): "label|cargo feature arguments",
# measured in-process on its cost table's transitions (cycle-lab acc-journey).
JOURNEY_ACC=(
    "Rust merge kernel|--no-default-features --features lean-elf"
    "+ asm kernel|--no-default-features --features lean-elf,asm-kernel"
    "+ node in registers (asm chain)|--no-default-features --features lean-elf,asm-kernel,asm-chain"
    "+ merge runs|--no-default-features --features lean-elf,asm-kernel,asm-chain,merge-runs"
    "+ word compare|--no-default-features --features lean-elf,asm-kernel,asm-chain,merge-runs,word-compare"
)

build_lab() {
    say "building cycle-lab"
    cargo build --quiet --release --locked -p cycle-lab >&2 || die "building cycle-lab failed"
}

# Builds every step, runs each on SEED in ckb-debugger (the reference column), then lets
# cycle-lab check those numbers against ckb-script in-process, sweep JOURNEY_SEEDS seeds and
# write journey.csv, journey.json and journey.svg (copied to docs/journey.svg).
journey() {
    local seed=${SEED:-$REFERENCE_SEED} dir="$ROOT/build/journey" i=0
    rm -rf "$dir"
    mkdir -p "$dir"
    local row label pkg features bin tag result cycles format
    local rows=("${JOURNEY_RUST[@]}" "${JOURNEY_C[@]}") compiler merge lean
    for row in "${rows[@]}"; do
        IFS='|' read -r label pkg features <<<"$row"
        tag=$(printf '%02d' "$i")
        say "journey $tag: $label"
        if [ "$pkg" = c ]; then
            read -r compiler merge lean <<<"$features"
            OUT_DIR="$dir/$tag" OUT_NAME=c-verifier C_COMPILER="$compiler" MERGE="$merge" \
                LEAN_ELF="$lean" contracts/c-verifier/build.sh >&2 \
                || die "building the C verifier with $features failed"
            bin="$dir/$tag/c-verifier"
        else
            # shellcheck disable=SC2086 # features is a list of cargo arguments
            build_contract "$pkg" "$dir/$tag" $features
            bin="$dir/$tag/$pkg"
        fi
        # Input 0 takes the baseline payload, input 2 the compiled one; pad with this binary.
        if [ "$pkg" = baseline-verifier ]; then
            format=baseline
            SEED=$seed "$TX_GENERATOR" "$dir/$tag/tx.json" "$bin" >/dev/null
            read -r result cycles < <(run_debugger "$dir/$tag/tx.json" 0)
        else
            format=compiled
            SEED=$seed "$TX_GENERATOR" "$dir/$tag/tx.json" "$RELEASE/baseline-verifier" "$bin" >/dev/null
            read -r result cycles < <(run_debugger "$dir/$tag/tx.json" 1)
        fi
        [ "$result" = 0 ] || die "journey $tag ($label) rejected the honest proof: $result"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$label" "$pkg" "$format" "${bin#"$dir/"}" "$cycles" \
            >>"$dir/variants.tsv"
        i=$((i + 1))
    done
    i=0
    for row in "${JOURNEY_ACC[@]}"; do
        IFS='|' read -r label features <<<"$row"
        tag=acc-$(printf '%02d' "$i")
        say "journey $tag: accumulator: $label"
        # shellcheck disable=SC2086 # features is a list of cargo arguments
        build_contract accumulator-type "$dir/$tag" $features
        printf '%s\t%s\t%s\n' "$tag" "$label" "$tag/accumulator-type" >>"$dir/acc-variants.tsv"
        i=$((i + 1))
    done
    # Leave build/release as the default build.
    build_all >/dev/null 2>&1 || die "rebuilding the default binaries failed"
    build_lab
    say "measuring: SEED=$seed in ckb-debugger, seeds 1..=${JOURNEY_SEEDS:-50} in ckb-script"
    echo
    # The committed chart is the reference seed's.
    local chart=()
    [ "$seed" = "$REFERENCE_SEED" ] \
        && chart=(--chart "$ROOT/docs/journey.svg" --doc "$ROOT/docs/performance.md")
    "$LAB" journey --manifest "$dir/variants.tsv" --reference-seed "$seed" \
        --seeds "${JOURNEY_SEEDS:-50}" --markdown "$dir/journey.md" "${chart[@]}"
    echo
    echo "The accumulator's type script, per step (in-process, the type script alone):"
    local acc_doc=()
    [ "$seed" = "$REFERENCE_SEED" ] && acc_doc=(--doc "$ROOT/docs/accumulator.md")
    "$LAB" acc-journey --manifest "$dir/acc-variants.tsv" "${acc_doc[@]}"
    echo
    echo "Binaries and tx.json per step in build/journey/NN/; build/journey/journey.{csv,json,svg,md}"
    [ "$seed" = "$REFERENCE_SEED" ] && echo "Chart copied to docs/journey.svg, table to docs/performance.md"
    return 0
}

# Cost against MMR size (cycle-lab growth): honest proofs of synthetic MMRs up to 2^40 leaves,
# measured in-process on the release verifiers; rewrites docs/growth.svg and the table.
growth() {
    build_lab
    "$LAB" growth --release-dir "$RELEASE" --chart "$ROOT/docs/growth.svg" \
        --doc "$ROOT/docs/performance.md" --acc-doc "$ROOT/docs/accumulator.md" --readme "$ROOT/README.md"
}

# The release verifiers on many seeds, in-process on 1 and on all cores (cycle-lab sweep).
sweep() {
    build_lab
    "$LAB" sweep --release-dir "$RELEASE" --json "$ROOT/build/sweep/sweep.json" "$@"
}

# ref_cycles TREE TX-GENERATOR SEED... -> "verifier seed result cycles bytes" per verifier and seed, run with
# DIR's own tx-generator and binaries in ckb-debugger.
ref_cycles() {
    local tree=$1 txgen=$2
    shift 2
    local names=() bins=() n seed i result cycles
    for n in baseline-verifier c-verifier compiled-verifier; do
        [ -f "$tree/build/release/$n" ] || break
        names+=("$n")
        bins+=("$tree/build/release/$n")
    done
    [ ${#names[@]} -gt 0 ] || die "$tree built no verifier binaries"
    for seed in "$@"; do
        SEED=$seed "$txgen" "$tree/tx-$seed.json" "${bins[@]}" >/dev/null \
            || die "$tree: tx-generator failed for seed $seed"
        i=0
        for n in "${names[@]}"; do
            read -r result cycles < <(run_debugger "$tree/tx-$seed.json" "$i")
            echo "$n $seed $result $cycles $(stat -c %s "$tree/build/release/$n")"
            i=$((i + 1))
        done
    done
}

COMPARE_WORK=""
on_exit() {
    stop_ckb_node_install
    compare_cleanup
}
trap on_exit EXIT
# An interrupt ends build.sh with the shell's usual code for it (after the foreground command,
# which got the same signal from the terminal, has ended), and the EXIT trap still stops the
# node's background install, which runs in a session of its own and never sees the signal.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

compare_cleanup() {
    [ -n "$COMPARE_WORK" ] || return 0
    local side
    for side in a b; do
        [ -d "$COMPARE_WORK/$side" ] && git worktree remove --force "$COMPARE_WORK/$side" 2>/dev/null
    done
    rm -rf "$COMPARE_WORK"
    git worktree prune
}

# Builds two git refs in temporary worktrees (each with its own build.sh, tx-generator and
# binaries), runs every verifier of each on the same seeds in ckb-debugger and prints the
# cycles and sizes side by side.
compare() {
    [ $# -eq 2 ] || die "usage: ./build.sh compare <git-ref-a> <git-ref-b>"
    local refs=("$1" "$2") commits=() seeds target side ref c i
    read -r -a seeds <<<"${COMPARE_SEEDS:-$REFERENCE_SEED}"
    for ref in "${refs[@]}"; do
        c=$(git rev-parse --verify --quiet "$ref^{commit}") || die "not a commit: $ref"
        commits+=("$c")
    done
    # One target directory for both sides (built one after the other): dependencies compile once.
    target="${CARGO_TARGET_DIR:-$ROOT/target}/compare"
    COMPARE_WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmr-compare.XXXXXX")
    i=0
    for side in a b; do
        say "building ${refs[$i]} (${commits[$i]:0:10}) in a temporary worktree"
        git worktree add --detach --quiet "$COMPARE_WORK/$side" "${commits[$i]}" \
            || die "git worktree add failed for ${refs[$i]}"
        (cd "$COMPARE_WORK/$side" && CARGO_TARGET_DIR="$target" ./build.sh build) >&2 \
            || die "building ${refs[$i]} failed"
        say "measuring ${refs[$i]} on seeds ${seeds[*]}"
        # Measured now: the next side's build replaces the shared tx-generator.
        ref_cycles "$COMPARE_WORK/$side" "$target/release/tx-generator" "${seeds[@]}" \
            >"$COMPARE_WORK/$side.txt"
        i=$((i + 1))
    done
    echo
    echo "A = ${refs[0]} (${commits[0]:0:10}), B = ${refs[1]} (${commits[1]:0:10}); cycles from ckb-debugger"
    awk -v A="$COMPARE_WORK/a.txt" -v B="$COMPARE_WORK/b.txt" '
        function val(r, c) { return r == 0 ? c : "exit " r }
        BEGIN {
            while ((getline < A) > 0) { k = $1 " " $2; ra[k] = $3; ca[k] = $4; sa[k] = $5; order[++n] = k }
            while ((getline < B) > 0) {
                k = $1 " " $2; rb[k] = $3; cb[k] = $4; sb[k] = $5
                if (!(k in ca)) order[++n] = k
            }
            printf "%-18s %20s %12s %12s %10s %8s %8s %8s %7s\n", "verifier", "seed", "A cycles", \
                "B cycles", "delta", "delta %", "A bytes", "B bytes", "delta"
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, f, " ")
                a = (k in ca) ? val(ra[k], ca[k]) : "-"; b = (k in cb) ? val(rb[k], cb[k]) : "-"
                d = ""; p = ""; ds = ""
                if ((k in ca) && (k in cb) && ra[k] == 0 && rb[k] == 0) {
                    d = sprintf("%+d", cb[k] - ca[k]); p = sprintf("%+.2f", (cb[k] - ca[k]) * 100 / ca[k])
                }
                if ((k in sa) && (k in sb)) ds = sprintf("%+d", sb[k] - sa[k])
                printf "%-18s %20s %12s %12s %10s %8s %8s %8s %7s\n", f[1], f[2], a, b, d, p, \
                    (k in sa) ? sa[k] : "-", (k in sb) ? sb[k] : "-", ds
            }
        }'
}

# A flamegraph of one verifier on one seed: ckb-debugger profiles the run with the .debug
# binary in place of the stripped one (same code, with symbols), cycle-lab renders the SVG.
flamegraph() {
    local v=${1:-} seed=${2:-$REFERENCE_SEED} dir="$ROOT/build/flamegraph"
    case "$v" in
        baseline | baseline-verifier) v=baseline-verifier ;;
        c | c-verifier) v=c-verifier ;;
        compiled | compiled-verifier) v=compiled-verifier ;;
        *) die "usage: ./build.sh flamegraph <baseline|c|compiled> [seed]" ;;
    esac
    local names=() bins=() n i=0 index=""
    mapfile -t names < <(verifier_names)
    for n in "${names[@]}"; do
        bins+=("$RELEASE/$n")
        [ "$n" = "$v" ] && index=$i
        i=$((i + 1))
    done
    [ -n "$index" ] || die "$RELEASE/$v is missing"
    [ -f "$RELEASE/$v.debug" ] || die "$RELEASE/$v.debug is missing"
    mkdir -p "$dir"
    local tx="$dir/tx-$seed.json" folded="$dir/$v-$seed.folded" svg="$dir/$v-$seed.svg" out
    SEED=$seed "$TX_GENERATOR" "$tx" "${bins[@]}" >/dev/null
    out=$(ckb-debugger --tx-file "$tx" --cell-type input --script-group-type lock \
        --cell-index "$index" --bin "$RELEASE/$v.debug" \
        --enable-flamegraph --flamegraph-output "$folded" 2>&1) || die "ckb-debugger failed: $out"
    local result cycles
    read -r result cycles < <(run_debugger "$tx" "$index")
    [ "$result" = 0 ] || die "$v rejected the honest proof of seed $seed: $result"
    "$LAB" flamegraph "$folded" "$svg" --title "$v, seed $seed: $cycles cycles (ckb-debugger)"
    echo "$svg"
    echo "(folded stacks: $folded; the run: ckb-debugger --tx-file $tx --cell-index $index --cell-type input --script-group-type lock)"
}

# The merge kernel proved equal to BLAKE2b-256 for every input, on the bytes the release
# binaries link (tests/kernel-proof); exits non-zero when it does not hold.
kernel_proof() {
    cargo run --quiet --release --locked -p kernel-proof -- --root "$ROOT" --release-dir "$RELEASE" "$@"
}

run_tests() {
    say "checking the Rust formatting (cargo fmt --all --check)"
    cargo fmt --all --check || die "cargo fmt --all --check: run cargo fmt --all"
    say "running the test suite"
    # Everything but the dev chain first: on a fresh machine the node is still building.
    cargo test --release --locked --workspace --exclude baseline-verifier --exclude compiled-verifier \
        --exclude ckb-devnet
    if [ -x contracts/c-verifier/host/run.sh ]; then
        say "running the C verifier core under ASan/UBSan"
        contracts/c-verifier/host/run.sh
    fi
    # Assurance (SECURITY.md): the C core under ASan/UBSan on the assurance corpora, then a
    # bounded differential fuzz run (stable Rust: cargo-fuzz without sanitizer flags).
    say "assurance: C core under ASan/UBSan on the exported assurance corpora"
    cargo run --quiet --release --locked -p assurance --bin export-vectors -- \
        build/tmp/assurance-vectors tests/fuzz/corpus/differential
    contracts/c-verifier/host/run.sh build/tmp/assurance-vectors
    say "assurance: bounded differential fuzz run (300,000 executions)"
    mkdir -p build/tmp/fuzz-corpus
    command -v c++ >/dev/null || export CXX=clang++-19
    # cargo fuzz has no --locked: check tests/fuzz/Cargo.lock against its manifest first, so a lock
    # that no longer pins the fuzz crate's dependencies fails here instead of being rewritten.
    cargo metadata --quiet --locked --format-version 1 --manifest-path tests/fuzz/Cargo.toml >/dev/null \
        || die "tests/fuzz/Cargo.lock is out of date: cargo metadata --manifest-path tests/fuzz/Cargo.toml --format-version 1 rewrites it; commit it"
    # CC=clang-19: the C core gets libFuzzer's coverage counters too (tests/assurance/build.rs).
    CC=clang-19 cargo fuzz run --fuzz-dir tests/fuzz -s none differential build/tmp/fuzz-corpus tests/fuzz/corpus/differential -- \
        -runs=300000 -max_len=1024 -max_total_time=600 -print_final_stats=1
    # What needs the node is built first, so that it overlaps with the node's install on a
    # fresh machine: the dev chain's test binaries and the TypeScript kit's packages.
    say "building ckb-devnet's tests and installing the TypeScript kit's packages"
    cargo test --release --locked -p ckb-devnet --no-run
    (cd js/mmr-lock && npm ci --no-audit --no-fund)
    wait_ckb_node
    say "the dev chain: ckb-devnet's tests on real ckb $CKB_NODE_VERSION nodes (docs/deploy.md)"
    cargo test --release --locked -p ckb-devnet
    run_js_tests
}

# The TypeScript kit: equality with tx-generator's vectors, bad inputs, docs, the dev chain.
run_js_tests() {
    say "js/mmr-lock: npm test"
    (cd js/mmr-lock && npm test)
}

# The store at scale (issue 20, item 4): crates/mmr-store's mmr-store-scale, then the
# TypeScript store's js/mmr-lock/bench/scale.ts on the same leaf counts, one after the other
# (they share the machine), then one table side by side; then `ckb-devnet sync-bench`: an
# accumulator grown on a fresh dev chain, synced into a new store, timed.
scale() {
    local leaves=1e6,1e7,1e8 sync_leaves=1e5
    while [ $# -gt 0 ]; do
        case "$1" in
            --leaves) [ $# -ge 2 ] || die "scale: --leaves needs a value"; leaves=$2; shift 2 ;;
            --sync-leaves) [ $# -ge 2 ] || die "scale: --sync-leaves needs a value"; sync_leaves=$2; shift 2 ;;
            *) die "scale: unknown option '$1' (./build.sh scale [--leaves 1e6,1e7,1e8] [--sync-leaves 1e5])" ;;
        esac
    done
    mkdir -p build/scale
    say "building mmr-store-scale"
    cargo build --quiet --release --locked -p mmr-store --bin mmr-store-scale >&2 || die "building mmr-store-scale failed"
    say "Rust store: $leaves leaves"
    "${CARGO_TARGET_DIR:-$ROOT/target}/release/mmr-store-scale" --leaves "$leaves" \
        --dir build/scale/store --json build/scale/rust.json || die "mmr-store-scale failed"
    say "TypeScript store: $leaves leaves"
    (cd js/mmr-lock && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run --silent build) >&2 \
        || die "building js/mmr-lock failed"
    node js/mmr-lock/dist/bench/scale.js --leaves "$leaves" --dir build/scale/store-ts \
        --json build/scale/ts.json --rust build/scale/rust.json || die "the TypeScript scale bench failed"
    say "acc sync from a local node: ckb-devnet sync-bench, $sync_leaves leaves"
    "$DEVNET" sync-bench --dir build/scale/sync --release "$RELEASE" --leaves "$sync_leaves" \
        --json build/scale/sync.json || die "ckb-devnet sync-bench failed"
}

case "${1:-run}" in
    run) deps; build_all; run ;;
    build) deps; build_all ;;
    deps) start_ckb_node_install; test_deps; wait_ckb_node ;;
    journey) deps; build_all; journey ;;
    growth) deps; build_all; growth ;;
    sweep) deps; build_all; shift; sweep "$@" ;;
    compare) deps; shift; compare "$@" ;;
    flamegraph) deps; build_all; build_lab; shift; flamegraph "$@" ;;
    bless) deps; build_all; build_lab; "$LAB" gate --bless ;;
    checksums) deps; build_all; build_lab; "$LAB" checksums --release-dir "$RELEASE" --write "$ROOT/checksums.txt"; cat "$ROOT/checksums.txt" ;;
    kernel-proof) deps; build_all; shift; kernel_proof "$@" ;;
    scale) start_ckb_node_install; deps; install_node; build_all; wait_ckb_node; shift; scale "$@" ;;
    test) start_ckb_node_install; test_deps; build_all; run_tests ;;
    devnet)
        shift
        case "${1:-scenario}" in
            # The scenario deploys the contracts: build them while the node installs.
            scenario) start_ckb_node_install; deps; build_all; wait_ckb_node ;;
            start) start_ckb_node_install; build_devnet; wait_ckb_node ;;
            # Stopping needs ckb-devnet only, not the node's install.
            *) install_rust; build_devnet ;;
        esac
        devnet "$@" ;;
    help | -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$1' (try: ./build.sh help)" ;;
esac
