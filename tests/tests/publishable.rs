//! The crates others depend on stay publishable: one version for every workspace member and
//! the TypeScript kit; the library crates below carry the registry's metadata, depend on
//! nothing unpublishable and name their workspace dependencies by version as well as path;
//! every other member says `publish = false`. `cargo package` itself (which builds each crate
//! from its packaged files alone, so a file outside a crate's directory fails it) is the
//! ignored test at the end: `cargo test --release --locked -p tests --test publishable --
//! --ignored`.

use serde_json::Value;
use std::process::Command;
use tests::repo_root as root;

/// The library crates meant for crates.io, dependencies first (the order `cargo package`
/// packages them in).
const PUBLISHABLE: [&str; 8] = [
    "mmr-blake2b",
    "mmr-lock",
    "compiled-proof",
    "baseline-proof",
    "mmr-accumulator",
    "cli-usage",
    "mmr-store",
    "ckb-mmr-sdk",
];

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// The workspace's own packages, as `cargo metadata` reads their manifests.
fn members() -> Vec<Value> {
    let out = cargo()
        .args(["metadata", "--locked", "--offline", "--no-deps"])
        .args(["--format-version", "1"])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"].as_array().unwrap().clone()
}

fn name(p: &Value) -> &str {
    p["name"].as_str().unwrap()
}

/// `publish = false` is an empty list of allowed registries; unset is null.
fn publishable(p: &Value) -> bool {
    p["publish"] != Value::Array(vec![])
}

#[test]
fn one_version_across_crates_and_kit() {
    let members = members();
    let version = members[0]["version"].as_str().unwrap().to_string();
    for p in &members {
        assert_eq!(p["version"], version.as_str(), "{}'s version", name(p));
    }
    let kit: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("js/mmr-lock/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(kit["version"], version.as_str(), "js/mmr-lock's version");
}

#[test]
fn only_the_library_crates_are_publishable_and_they_are_complete() {
    let members = members();
    let mut found: Vec<&str> = members
        .iter()
        .filter(|p| publishable(p))
        .map(name)
        .collect();
    found.sort_unstable();
    let mut expected = PUBLISHABLE.to_vec();
    expected.sort_unstable();
    assert_eq!(
        found, expected,
        "publishable members (the others need publish = false)"
    );
    for p in members.iter().filter(|p| publishable(p)) {
        let n = name(p);
        for field in ["description", "license", "documentation", "rust_version"] {
            assert!(p[field].is_string(), "{n} has no {field}");
        }
        for dep in p["dependencies"].as_array().unwrap() {
            // Dev-dependencies by path alone are dropped from the package; anything else
            // by path must be a publishable crate, named by the version it has.
            if dep["path"].is_null() || dep["kind"] == "dev" {
                continue;
            }
            let d = dep["name"].as_str().unwrap();
            assert!(PUBLISHABLE.contains(&d), "{n} depends on unpublishable {d}");
            let target = members.iter().find(|m| name(m) == d).unwrap();
            assert_eq!(
                dep["req"].as_str().unwrap(),
                format!("^{}", target["version"].as_str().unwrap()),
                "{n}'s dependency on {d} names no version, or another"
            );
        }
    }
}

/// `cargo package` of every publishable crate together (each verified against the others'
/// packaged files through a local registry). It builds in the dev profile in a target
/// directory of its own, so it never waits on the lock of the build running this test: many
/// minutes the first time (the SDK's dependencies), seconds after that. Opt-in.
#[test]
#[ignore]
fn cargo_package_verifies() {
    let mut cmd = cargo();
    cmd.env("CARGO_TARGET_DIR", root().join("target/package-check"));
    cmd.args(["package", "--locked", "--offline", "--allow-dirty"]);
    for p in PUBLISHABLE {
        cmd.args(["-p", p]);
    }
    let out = cmd.output().expect("cargo package runs");
    assert!(
        out.status.success(),
        "cargo package: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
