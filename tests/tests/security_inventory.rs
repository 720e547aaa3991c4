//! SECURITY.md's "Unsafe code" table must list every file of the shipped Rust sources
//! (`crates/*/src`, `contracts/*/src`) that uses the `unsafe` keyword, with the exact count:
//! a new `unsafe` anywhere fails this test until the inventory says what it is for.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let path = e.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
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

fn sources() -> BTreeMap<String, usize> {
    let root = root();
    let mut files = Vec::new();
    for top in ["crates", "contracts"] {
        for package in std::fs::read_dir(root.join(top)).unwrap() {
            rust_files(&package.unwrap().path().join("src"), &mut files);
        }
    }
    let mut counts = BTreeMap::new();
    for f in files {
        let n = count_unsafe(&std::fs::read_to_string(&f).unwrap());
        if n > 0 {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            counts.insert(rel, n);
        }
    }
    counts
}

fn inventory() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(root().join("SECURITY.md")).unwrap();
    let start = text
        .find("<!-- unsafe-inventory:start -->")
        .expect("start marker");
    let end = text
        .find("<!-- unsafe-inventory:end -->")
        .expect("end marker");
    let mut out = BTreeMap::new();
    for line in text[start..end].lines() {
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
