#!/usr/bin/env bash
# ckb-mmr-verifiers: build everything, then run the verifiers on one workload.
#
#   SEED=1680833947559458126 ./build.sh     build, write tx.json, print the cycle table (cycles,
#                                           witness bytes, tx bytes, weight, fee per verifier)
#   ./build.sh test                         build, then run the whole test suite
#   ./build.sh build                        build only (contracts, C verifier, the host tools)
#   ./build.sh journey                      every tuning step as its own binary, one cycle table
#                                           (ckb-debugger on SEED, min/median/max over
#                                           JOURNEY_SEEDS=50 seeds in-process; CSV, JSON, SVG;
#                                           the steps are data: tools/cycle-lab/src/steps.rs)
#   ./build.sh growth                       cycles, witness bytes, weight against MMR size (2^4..2^40
#                                           leaves; 1, 10, 100 proved and the most one witness
#                                           carries): docs/growth.svg, table in performance.md
#   ./build.sh sweep [--seeds N ...]        the release verifiers on N (200) seeds on 1 and on
#                                           all cores, in-process; seeds/s and speedup
#   ./build.sh compare <ref-a> <ref-b>      build both git refs in temporary worktrees, print
#                                           their cycles, witness bytes and weights side by side
#                                           (COMPARE_SEEDS="s1 s2")
#   ./build.sh flamegraph <verifier> [seed] build/flamegraph/<verifier>-<seed>.svg
#   ./build.sh bless                        rewrite tests/expected-cycles.json (cycle gate)
#   ./build.sh checksums                    rewrite checksums.txt (sha256 of build/release)
#   (run, journey to checksums are cycle-lab's commands: target/release/cycle-lab <command> --help)
#   ./build.sh kernel-proof [mutants]       prove the merge kernel in build/release and its source
#                                           equal to BLAKE2b-256 for every input (docs/hashing.md);
#                                           `mutants [--bit-flips]`: the mutation run, with counts
#   ./build.sh devnet                       a fresh local CKB dev chain: deploy, lock, spend and refuse
#                                           with all three verifiers on the real node's tx pool;
#                                           table + build/devnet/report.json, then stops the node
#   ./build.sh devnet start | stop          keep a dev chain running for you (prints its RPC URL)
#   ./build.sh devnet load                  one append a block to a ring (K = 8) for 200 blocks while
#                                           50 spends by reference race it from 4 clients;
#                                           build/load/report.json, the table in docs/concurrency.md
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
# are installed when missing, idempotently (tools/deps.sh). Outputs: build/release/<verifier> (stripped) and <verifier>.debug.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"

REFERENCE_SEED=1680833947559458126
TARGET=riscv64imac-unknown-none-elf
RELEASE="$ROOT/build/release"
LAB="${CARGO_TARGET_DIR:-$ROOT/target}/release/cycle-lab"
DEVNET="${CARGO_TARGET_DIR:-$ROOT/target}/release/ckb-devnet"
# Rust contracts, in the order their inputs take in tx.json (the C verifier sits between).
RUST_CONTRACTS=(baseline-verifier compiled-verifier accumulator-type)

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

export PATH="$HOME/.cargo/bin:$PATH"
# The installer: apt packages, Rust, ckb-debugger, cargo-fuzz, Node.js, the CKB node.
# shellcheck source=tools/deps.sh
source "$ROOT/tools/deps.sh"

# ckb-devnet alone, for the commands that only talk to a node (no contracts rebuilt).
build_devnet() {
    say "building ckb-devnet"
    cargo build --quiet --release --locked -p ckb-devnet >&2 || die "building ckb-devnet failed"
}

# Builds one Rust contract with the given cargo feature arguments and installs it under
# <dir>/<name> (stripped) and <name>.debug. The flags (profile, the cargo-home remap that keeps
# checksums.txt independent of where cargo lives, the strip) live in one place, cycle-lab's
# build-contract (tools/cycle-lab/src/steps.rs), which the journey's steps use too.
build_contract() {
    local name=$1 dir=$2
    shift 2
    "$LAB" build-contract "$name" --dir "$dir" --root "$ROOT" -- "$@" >&2 \
        || die "building contract $name failed"
}

build_all() {
    # cycle-lab first: it builds the contracts.
    say "building tx-generator, ckb-devnet and cycle-lab"
    cargo build --quiet --release --locked -p tx-generator -p ckb-devnet -p cycle-lab >&2 \
        || die "building the host tools failed"
    say "building Rust contracts for $TARGET"
    for name in "${RUST_CONTRACTS[@]}"; do
        [ -d "contracts/$name" ] && build_contract "$name" "$RELEASE"
    done
    build_contract merge-bench "$ROOT/build/bench"
    if [ -x contracts/c-verifier/build.sh ]; then
        say "building the C verifier"
        contracts/c-verifier/build.sh >&2 || die "building the C verifier failed"
    fi
}

# The dev chain (devnet/): the scenario on a fresh chain, or a node kept running for a user.
devnet() {
    case "${1:-scenario}" in
        scenario) "$DEVNET" scenario --dir "$ROOT/build/devnet" --release "$RELEASE" --doc "$ROOT/docs/deploy.md" ;;
        start) "$DEVNET" start --dir "$ROOT/build/devnet/node" ;;
        stop) "$DEVNET" stop --dir "$ROOT/build/devnet/node" ;;
        load) "$DEVNET" load --dir "$ROOT/build/load" --release "$RELEASE" --doc "$ROOT/docs/concurrency.md" ;;
        *) die "usage: ./build.sh devnet [start|stop|load]" ;;
    esac
}

build_lab() {
    say "building cycle-lab"
    cargo build --quiet --release --locked -p cycle-lab >&2 || die "building cycle-lab failed"
}

# The cycle table: each verifier on SEED's tx.json in ckb-debugger, with its witness bytes and
# its own transaction's bytes, weight and fee (build/run/tx-<verifier>.json).
run() { "$LAB" run --seed "${SEED:-$REFERENCE_SEED}" --release-dir "$RELEASE" --tx tx.json; }

# Every tuning step built and measured (cycle-lab journey; the reference seed's run updates
# docs/journey.svg and the journey tables), then build/release rebuilt as the default build.
journey() {
    "$LAB" journey --update-docs --seeds "${JOURNEY_SEEDS:-50}" \
        --reference-seed "${SEED:-$REFERENCE_SEED}" --dir "$ROOT/build/journey"
    build_all >/dev/null 2>&1 || die "rebuilding the default binaries failed"
}

# Cost against MMR size: rewrites docs/growth.svg and the tables.
growth() {
    "$LAB" growth --release-dir "$RELEASE" --chart "$ROOT/docs/growth.svg" \
        --doc "$ROOT/docs/performance.md" --acc-doc "$ROOT/docs/accumulator.md" --readme "$ROOT/README.md"
}

on_exit() { stop_ckb_node_install; }
trap on_exit EXIT
# An interrupt ends build.sh with the shell's usual code for it (after the foreground command,
# which got the same signal from the terminal, has ended), and the EXIT trap still stops the
# node's background install, which runs in a session of its own and never sees the signal.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

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
        --exclude ckb-devnet --exclude ckb-mmr-sdk
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
    say "building the dev chain's tests (ckb-devnet, ckb-mmr-sdk) and the TypeScript kit's packages"
    cargo test --release --locked -p ckb-devnet -p ckb-mmr-sdk --no-run
    (cd js/mmr-lock && npm ci --no-audit --no-fund)
    wait_ckb_node
    # The SDK's chain tests are #[ignore]d (they need the node): they run here.
    say "the dev chain: ckb-devnet's and the SDK's tests on real ckb $CKB_NODE_VERSION nodes (docs/deploy.md)"
    cargo test --release --locked -p ckb-devnet -p ckb-mmr-sdk -- --include-ignored
    run_js_tests
}

# The TypeScript kit: equality with tx-generator's vectors, bad inputs, docs, the dev chain.
run_js_tests() {
    say "js/mmr-lock: npm test"
    (cd js/mmr-lock && npm test)
}

# The store at scale: crates/mmr-store's mmr-store-scale, then the
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
    sweep) deps; build_all; shift; "$LAB" sweep --release-dir "$RELEASE" --json "$ROOT/build/sweep/sweep.json" "$@" ;;
    compare) deps; build_lab; shift; "$LAB" compare "$@" --seeds "$(tr -s ' ' , <<<"${COMPARE_SEEDS:-$REFERENCE_SEED}")" ;;
    flamegraph) deps; build_all; shift; "$LAB" flamegraph "$@" --release-dir "$RELEASE" --dir "$ROOT/build/flamegraph" ;;
    bless) deps; build_all; "$LAB" gate --bless ;;
    checksums) deps; build_all; "$LAB" checksums --release-dir "$RELEASE" --write "$ROOT/checksums.txt"; cat "$ROOT/checksums.txt" ;;
    kernel-proof) deps; build_all; shift; kernel_proof "$@" ;;
    scale) start_ckb_node_install; deps; install_node; build_all; wait_ckb_node; shift; scale "$@" ;;
    test) start_ckb_node_install; test_deps; build_all; run_tests ;;
    devnet)
        shift
        case "${1:-scenario}" in
            # The scenario deploys the contracts: build them while the node installs.
            scenario | load) start_ckb_node_install; deps; build_all; wait_ckb_node ;;
            start) start_ckb_node_install; build_devnet; wait_ckb_node ;;
            # Stopping needs ckb-devnet only, not the node's install.
            *) install_rust; build_devnet ;;
        esac
        devnet "$@" ;;
    help | -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$1' (try: ./build.sh help)" ;;
esac
