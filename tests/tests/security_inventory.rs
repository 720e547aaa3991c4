//! SECURITY.md's "Unsafe code" table must list every file of the project's Rust sources that
//! uses the `unsafe` keyword, with the exact count: every `.rs` file of the repository (the
//! contracts, the crates and their binaries, tx-generator, lab, devnet, assurance, the
//! merge bench, the fuzz target, the build scripts), except packages' integration tests
//! (`<package>/tests/`, which SECURITY.md says why) and what is not source (`target/`,
//! `build/`, `node_modules/`, hidden directories). A new `unsafe` anywhere fails this test
//! until the inventory says what it is for.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tests::repo_root as root;

/// Whether the walk skips `dir`: build outputs, dependencies, hidden directories, and a
/// package's integration tests (a `tests` directory next to a `Cargo.toml` that is not a
/// package itself: the `tests` package at the root is walked, its `tests/tests` is not).
fn skipped(dir: &Path) -> bool {
    let root = root();
    let name = dir.file_name().unwrap().to_string_lossy();
    let parent = dir.parent().unwrap();
    name.starts_with('.')
        || name == "target"
        || name == "node_modules"
        || (name == "build" && parent == root)
        || (name == "tests"
            && parent.join("Cargo.toml").exists()
            && !dir.join("Cargo.toml").exists())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if !skipped(&path) {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Occurrences of the keyword in code: line comments (and so doc comments) are dropped, and
/// `unsafe_code` (the lint's name) is not the keyword.
fn count_unsafe(text: &str) -> usize {
    text.lines()
        .map(|line| {
            let code = line.split("//").next().unwrap_or("");
            code.match_indices("unsafe")
                .filter(|&(at, _)| {
                    let before = code[..at].chars().next_back();
                    let after = code[at + 6..].chars().next();
                    let ident =
                        |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    !ident(before) && !ident(after)
                })
                .count()
        })
        .sum()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Every Rust source the inventory covers.
fn all_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&root(), &mut files);
    files
}

fn sources() -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for f in all_sources() {
        let n = count_unsafe(&std::fs::read_to_string(&f).unwrap());
        if n > 0 {
            counts.insert(relative(&f), n);
        }
    }
    counts
}

fn inventory() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(root().join("SECURITY.md")).unwrap();
    let block = doc_blocks::between(&text, "unsafe-inventory").expect("the inventory's markers");
    let mut out = BTreeMap::new();
    for line in block.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `file` | count | what for |
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let file = cells[1].trim_matches('`').to_string();
        let n: usize = cells[2]
            .parse()
            .unwrap_or_else(|_| panic!("count of {file}"));
        assert!(out.insert(file.clone(), n).is_none(), "{file} listed twice");
    }
    out
}

#[test]
fn security_md_lists_every_unsafe_in_the_shipped_rust() {
    let actual = sources();
    let listed = inventory();
    let total: usize = actual.values().sum();
    println!("{total} `unsafe` in {} files", actual.len());
    assert_eq!(
        listed, actual,
        "SECURITY.md's unsafe inventory (left) differs from the sources (right)"
    );
}

/// The walk reaches every package's sources (the workspace's members, the fuzz package, the
/// contracts' shared build script) and no integration test.
#[test]
fn the_walk_covers_every_package() {
    let files: Vec<String> = all_sources().iter().map(|f| relative(f)).collect();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|m| m.split(']').next())
        .expect("workspace members");
    let mut packages: Vec<String> = Vec::new();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')) {
        if let Some(dir) = member.strip_suffix("/*") {
            for p in std::fs::read_dir(root().join(dir)).unwrap() {
                let p = p.unwrap().path();
                if p.join("Cargo.toml").exists() {
                    packages.push(relative(&p));
                }
            }
        } else if !member.is_empty() {
            packages.push(member.to_string());
        }
    }
    let mut dirs: Vec<String> = packages.iter().map(|p| format!("{p}/src/")).collect();
    dirs.push("tests/fuzz/fuzz_targets/".into());
    for src in &dirs {
        assert!(
            files.iter().any(|f| f.starts_with(src.as_str())),
            "no file of {src} in the walk"
        );
    }
    println!(
        "{} files, {} packages and the fuzz target",
        files.len(),
        packages.len()
    );
    for must in [
        "contracts/lean-elf.rs",
        "tests/assurance/build.rs",
        "crates/mmr-store/src/bin",
        "crates/ckb-mmr-sdk/src/node.rs",
    ] {
        assert!(
            files.iter().any(|f| f.starts_with(must)),
            "{must} not walked"
        );
    }
    for never in [
        "tests/tests/",
        "tools/ckb-devnet/tests/",
        "target/",
        "crates/baseline-proof/tests/",
    ] {
        assert!(
            !files.iter().any(|f| f.starts_with(never)),
            "{never} walked"
        );
    }
}

#[test]
fn the_counter_sees_keywords_only() {
    assert_eq!(count_unsafe("unsafe { x }"), 1);
    assert_eq!(
        count_unsafe("unsafe impl Sync for A {}\nunsafe fn f() {}"),
        2
    );
    assert_eq!(count_unsafe("// SAFETY: unsafe here\n/// unsafe trait"), 0);
    assert_eq!(
        count_unsafe("#![forbid(unsafe_code)]\nlet x = 1; // unsafe"),
        0
    );
    assert_eq!(
        count_unsafe("let p = unsafe { &mut *q }; unsafe { f() }"),
        2
    );
}
