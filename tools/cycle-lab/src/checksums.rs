//! `checksums.txt` at the workspace root: sha256 of the stripped release binaries, in
//! `sha256sum` format (`sha256sum -c checksums.txt` in build/release checks them too).
//! `./build.sh checksums` rewrites it; `tools/cycle-lab/tests/checksums.rs` checks the rebuilt binaries.

use sha2::{Digest, Sha256};
use std::path::Path;

/// The binaries listed, in file order.
pub const BINARIES: [&str; 4] = [
    "baseline-verifier",
    "compiled-verifier",
    "c-verifier",
    "accumulator-type",
];

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// (hash, file name) per line of a `sha256sum` listing.
pub fn parse(text: &str) -> Result<Vec<(String, String)>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (hash, name) = l
                .split_once("  ")
                .ok_or_else(|| format!("not a sha256sum line: {l:?}"))?;
            if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("not a sha256 hash: {l:?}"));
            }
            Ok((hash.to_string(), name.trim().to_string()))
        })
        .collect()
}

/// The listing for the binaries in `release_dir`.
pub fn render(release_dir: &Path) -> Result<String, String> {
    let mut s = String::new();
    for name in BINARIES {
        let path = release_dir.join(name);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        s.push_str(&format!("{}  {name}\n", sha256_hex(&bytes)));
    }
    Ok(s)
}
