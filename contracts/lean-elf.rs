//! The contracts' build script (both name it as `package.build`): with the `lean-elf`
//! feature, link with `contracts/lean-elf.ld`, which loads only code, constants and data
//! (no ELF headers, no unwind tables); see the script's header for what that saves.
fn main() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../lean-elf.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    let target = std::env::var("TARGET").unwrap_or_default();
    if std::env::var_os("CARGO_FEATURE_LEAN_ELF").is_some() && target.starts_with("riscv64") {
        println!("cargo:rustc-link-arg=-T{}", script.display());
    }
}
