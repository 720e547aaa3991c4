//! docs/internals.md's map must name every package of the tree, and only those: each
//! directory with a `Cargo.toml` (the root workspace manifest aside), the C verifier (its
//! `build.sh` next to C sources), and each npm package under `js/`. A new crate, a moved
//! one or a removed one fails this test until the map says where it lives and what it does.

use std::collections::BTreeSet;
use std::path::Path;
use tests::repo_root as root;

fn skipped(name: &str) -> bool {
    name.starts_with('.') || matches!(name, "target" | "node_modules" | "build" | "dist")
}

/// Package directories under `dir`, relative to the root, with `/` separators.
fn packages(dir: &Path, found: &mut BTreeSet<String>) {
    let root = root();
    let rel = dir
        .strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    let has = |f: &str| dir.join(f).is_file();
    let c_package = has("build.sh")
        && std::fs::read_dir(dir)
            .unwrap()
            .any(|e| e.unwrap().path().extension().is_some_and(|x| x == "c"));
    if !rel.is_empty() && (has("Cargo.toml") || has("package.json") || c_package) {
        found.insert(rel);
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && !skipped(&name) && !path.is_symlink() {
            // A package's own integration tests, examples and sources hold no packages.
            packages(&path, found);
        }
    }
}

fn map() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("docs/internals.md")).unwrap();
    doc_blocks::between(&text, "internals-map")
        .expect("the map's markers")
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| l.split('`').next().unwrap().to_string())
        .collect()
}

#[test]
fn internals_map_lists_every_package_and_only_those() {
    let mut tree = BTreeSet::new();
    packages(&root(), &mut tree);
    let map = map();
    assert!(
        map.contains("crates/ckb-mmr-sdk"),
        "the map is read: {map:?}"
    );
    let missing: Vec<_> = tree.difference(&map).collect();
    let stale: Vec<_> = map.difference(&tree).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/internals.md's map: packages not listed {missing:?}, listed but not in the tree {stale:?}"
    );
}

#[test]
fn code_lives_in_at_most_six_top_level_folders() {
    let mut tree = BTreeSet::new();
    packages(&root(), &mut tree);
    let tops: BTreeSet<_> = tree
        .iter()
        .map(|p| p.split('/').next().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = ["contracts", "crates", "js", "tests", "tools"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(tops, expected, "code-bearing top-level folders");
}
