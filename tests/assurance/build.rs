//! Compiles the C verifier's core (`contracts/c-verifier/lock_common.h`, `compact_proof.h`, `compiled_proof.h`, shared with the
//! contract) natively
//! through `csrc/c_core.c` for the FFI adapter in `src/native.rs`.
//!
//! Under cargo-fuzz (`--cfg fuzzing`) with a clang host compiler, the C code also gets
//! libFuzzer's coverage instrumentation, so the fuzzer is guided by the C branches too.

fn main() {
    let c_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/c-verifier");
    for f in [
        "compact_proof.h",
        "compiled_proof.h",
        "proof_common.h",
        "lock_common.h",
    ] {
        println!("cargo:rerun-if-changed={}", c_dir.join(f).display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        c_dir.join("host/emulated_deps.h").display()
    );
    println!("cargo:rerun-if-changed=csrc/c_core.c");
    println!("cargo:rerun-if-env-changed=CC");
    let mut build = cc::Build::new();
    build
        .file("csrc/c_core.c")
        .include(&c_dir)
        .include(c_dir.join("host"))
        .std("gnu11")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-Wno-unused-function");
    if std::env::var_os("CARGO_CFG_FUZZING").is_some() && build.get_compiler().is_like_clang() {
        build.flag("-fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp");
    }
    build.compile("assurance_c_core");
}
