# The prerequisites of build.sh's commands, installed when missing and idempotently: Debian
# packages, the pinned Rust toolchain and its RISC-V target, ckb-debugger, cargo-fuzz, Node.js
# and the CKB node (built in the background, see start_ckb_node_install). Sourced by build.sh,
# which defines ROOT, TARGET, say and die; `./build.sh deps` installs all of it.

CKB_DEBUGGER_VERSION=1.1.1
CKB_NODE_VERSION=0.210.0
CARGO_FUZZ_VERSION=0.13.1
# What building and running the verifiers needs (protobuf-compiler builds ckb-debugger).
APT_PACKAGES=(clang-19 lld-19 llvm-19 protobuf-compiler gcc-riscv64-unknown-elf)
# The CKB node's build only (openssl-sys, RocksDB's bindgen).
NODE_APT_PACKAGES=(libssl-dev pkg-config libclang-dev)

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
# registry, RocksDB included, once. It is the test command's longest build, so `test` and
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
    say "installing the CKB node $CKB_NODE_VERSION with cargo install, in the background (the longest build, once; log: ${CKB_INSTALL_LOG#"$ROOT/"})"
    CKB_INSTALL_START=$SECONDS
    # Lighter than ckb's own release profile (opt-level 3): a dev chain's node needs no peak
    # speed. OpenSSL from Debian (libssl-dev, above) instead of a vendored copy built from
    # source, and RocksDB's C++ (most of the build, cargo --timings) unoptimised.
    OPENSSL_NO_VENDOR=1 CXXFLAGS=-O0 \
        CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL=1 \
        CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
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
    cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $CARGO_FUZZ_VERSION" || {
        say "installing cargo-fuzz $CARGO_FUZZ_VERSION with cargo install (a minute or two, once)"
        cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked >&2 \
            || die "cargo install cargo-fuzz $CARGO_FUZZ_VERSION failed"
    }
}
