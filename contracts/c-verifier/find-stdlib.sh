# Sourced by contracts/c-verifier/build.sh and contracts/c-verifier/host/run.sh (cwd = repository root): defines find_stdlib,
# which prints the path of ckb-c-stdlib or nothing.
#
# ckb-c-stdlib is a dependency, never copied: it ships inside the published ckb-std crate
# (c/ckb-c-stdlib in the package) which the workspace depends on. It is found through
# `cargo metadata`, falling back to the ckb-std version pinned in Cargo.lock unpacked in the
# local cargo registry (for moments when the workspace does not resolve, e.g. a crate being
# added). CKB_C_STDLIB overrides both.
find_stdlib() {
    if [ -n "${CKB_C_STDLIB:-}" ]; then
        echo "$CKB_C_STDLIB"
        return
    fi
    local manifest=""
    if command -v cargo >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
        manifest="$(cargo metadata --format-version 1 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "ckb-std":
        print(p["manifest_path"])
        break
' 2>/dev/null || true)"
    fi
    if [ -n "$manifest" ] && [ -d "$(dirname "$manifest")/c/ckb-c-stdlib" ]; then
        echo "$(dirname "$manifest")/c/ckb-c-stdlib"
        return
    fi
    local ver d
    ver="$(awk '$0 == "name = \"ckb-std\"" { getline; gsub(/version = |"/, ""); print; exit }' \
        Cargo.lock 2>/dev/null || true)"
    [ -n "$ver" ] || return 0
    for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ckb-std-"$ver"/c/ckb-c-stdlib; do
        if [ -d "$d" ]; then
            echo "$d"
            return
        fi
    done
}
