//! Runs the shell block of docs/accumulator-guide.md ("The app side: the store", between the
//! `store-snippet` markers) with this build's `mmr-store` first on PATH.

mod common;

use common::*;
use std::process::Command;

#[test]
fn the_documented_commands_run() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/accumulator-guide.md"
    ))
    .unwrap();
    let start = doc.find("<!-- store-snippet -->").expect("start marker");
    let end = doc.find("<!-- /store-snippet -->").expect("end marker");
    let block = &doc[start..end];
    let script = block
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block");
    assert!(script.contains("mmr-store check"), "{script}");
    let t = TempDir::new("snippet");
    write_leaves(&t.path().join("leaves.txt"), &leaves(9, 5));
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(t.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("leaf_count: 5"), "{stdout}");
    assert!(
        stdout.contains("ok: 8 nodes (5 leaves) rehashed, 1 recorded roots match"),
        "{stdout}"
    );
}
