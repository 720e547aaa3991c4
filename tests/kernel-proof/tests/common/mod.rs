//! Shared by the tests: paths, the release binaries, running tools.

#![allow(dead_code)]

use kernel_proof::elf::Image;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    kernel_proof::report::default_root()
}

/// The release binaries: `build/release` (built by `./build.sh build`/`test` before the
/// tests run), or KERNEL_PROOF_RELEASE_DIR.
pub fn release_dir() -> PathBuf {
    std::env::var_os("KERNEL_PROOF_RELEASE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("build/release"))
}

pub fn release_image(name: &str) -> Image {
    let p = release_dir().join(name);
    Image::read_file(&p)
        .unwrap_or_else(|e| panic!("{e} (the tests need the release binaries: ./build.sh build)"))
}

/// A scratch directory of this test process.
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kernel-proof-test-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// The kernel source assembled with clang-19 and linked alone.
pub fn assembled_source(tag: &str) -> Image {
    let elf = kernel_proof::report::assemble(&root(), &scratch(tag)).expect("clang-19 / ld.lld-19");
    Image::read_file(&elf).expect("assembled ELF")
}

pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `llvm-objdump-19 -d -M no-aliases` of `elf`: (address, text without `<symbol>`).
pub fn objdump(elf: &Path) -> Vec<(u64, String)> {
    let text = run(Command::new("llvm-objdump-19")
        .args([
            "-d",
            "-M",
            "no-aliases",
            "--mattr=+zbb,+zba,+c",
            "--no-show-raw-insn",
        ])
        .arg(elf));
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((addr, rest)) = line.split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let rest = rest.trim();
        let rest = match rest.find(" <") {
            Some(i) => &rest[..i],
            None => rest,
        };
        out.push((addr, rest.trim().to_string()));
    }
    out
}
