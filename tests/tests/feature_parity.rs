//! The assurance suite (exhaustive search, differential fuzzing, the native half of the VM
//! test) runs the verifier crates natively; its findings only speak for the shipped code if
//! those crates are built with the features the contracts build them with. This test asks
//! cargo's own resolver (`cargo tree`) for the features each shared crate gets in every
//! contract's RISC-V build and in the assurance package's host builds (library, and library
//! plus dev-dependencies as `cargo test` builds it), and fails on any difference that is not
//! listed below with its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use tests::repo_root as root;

/// The crates both sides compile from source.
const SHARED: [&str; 5] = [
    "baseline-proof",
    "compiled-proof",
    "mmr-accumulator",
    "mmr-blake2b",
    "mmr-lock",
];

/// Contract-side features with no host counterpart: `mmr-lock/ckb` is the syscall loaders
/// (`load_args`, `load_lock_field`, ...), which exist only inside CKB-VM; the native adapters
/// replace them with the same parsers over byte slices. `compiled-proof`'s `kernel` switches
/// pick the contracts' `Merge` (`KernelMerge`: which blake2b path, the assembly entries on
/// riscv64); the native cores are generic over `Merge` and run with the reference blake2b,
/// and the kernel itself is proved equal to it (kernel-proof, tests/tests/merge_kernel_vm.rs).
const CONTRACT_ONLY: [(&str, &str); 5] = [
    ("mmr-lock", "ckb"),
    ("compiled-proof", "kernel"),
    ("compiled-proof", "merge-kernel"),
    ("compiled-proof", "asm-kernel"),
    ("compiled-proof", "asm-chain"),
];

/// Host-side additions that change no verification code: the builders behind `std`
/// (`compiled_proof::compile`, `mmr_accumulator::build`), which tests use to make payloads.
const HOST_ONLY: [(&str, &str); 2] = [("compiled-proof", "std"), ("mmr-accumulator", "std")];

const TARGET: &str = "riscv64imac-unknown-none-elf";

/// crate -> enabled features (without the `default` marker, which only names others), as
/// cargo resolves them for `package` with `edges` on `target` (None: the host).
fn resolved(
    package: &str,
    target: Option<&str>,
    edges: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root())
        .args(["tree", "--locked", "--offline", "-p", package, "-e", edges])
        .args(["--prefix", "none", "-f", "{p}|{f}"]);
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    let out = cmd.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8(out.stdout).unwrap())
}

fn parse(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        let name = package.split_whitespace().next().unwrap_or("");
        if !SHARED.contains(&name) {
            continue;
        }
        let features: BTreeSet<String> = features
            .trim_end_matches(" (*)")
            .split(',')
            .filter(|f| !f.is_empty() && *f != "default")
            .map(str::to_string)
            .collect();
        // One resolution gives one feature set per crate; a second, different one would mean
        // the crate is built twice and the comparison below ambiguous.
        let previous = map.insert(name.to_string(), features.clone());
        assert!(
            previous.is_none_or(|p| p == features),
            "{name} resolved twice with different features"
        );
    }
    map
}

/// The differences between a contract's and the host's feature sets of each crate both use,
/// after the listed exceptions: (crate, only in the contract, only on the host).
type Drift = Vec<(String, BTreeSet<String>, BTreeSet<String>)>;

fn drift(
    contract: &BTreeMap<String, BTreeSet<String>>,
    host: &BTreeMap<String, BTreeSet<String>>,
) -> Drift {
    let mut out = Vec::new();
    for (name, c) in contract {
        let Some(h) = host.get(name) else { continue };
        let c_only: BTreeSet<String> = c
            .difference(h)
            .filter(|f| !CONTRACT_ONLY.contains(&(name.as_str(), f.as_str())))
            .cloned()
            .collect();
        let h_only: BTreeSet<String> = h
            .difference(c)
            .filter(|f| !HOST_ONLY.contains(&(name.as_str(), f.as_str())))
            .cloned()
            .collect();
        if !c_only.is_empty() || !h_only.is_empty() {
            out.push((name.clone(), c_only, h_only));
        }
    }
    out
}

fn contracts() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("contracts"))
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            path.join("Cargo.toml")
                .is_file()
                .then(|| path.file_name().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names
}

#[test]
fn assurance_builds_the_shared_crates_with_the_contracts_features() {
    let hosts = [
        ("assurance library", resolved("assurance", None, "normal")),
        (
            "assurance tests (with dev-dependencies)",
            resolved("assurance", None, "normal,dev"),
        ),
    ];
    for (_, host) in &hosts {
        for name in ["baseline-proof", "compiled-proof", "mmr-accumulator"] {
            assert!(host.contains_key(name), "assurance no longer builds {name}");
        }
    }
    let mut failures = Vec::new();
    let mut covered = BTreeSet::new();
    for contract in contracts() {
        let resolved_contract = resolved(&contract, Some(TARGET), "normal");
        for (name, features) in &resolved_contract {
            println!(
                "{contract}: {name} [{}]",
                Vec::from_iter(features.clone()).join(", ")
            );
            covered.insert(name.clone());
        }
        for (host_name, host) in &hosts {
            for (name, c_only, h_only) in drift(&resolved_contract, host) {
                failures.push(format!(
                    "{name}: {contract} has {c_only:?} that the {host_name} lacks, the {host_name} has {h_only:?} that {contract} lacks"
                ));
            }
        }
    }
    // Every verifier crate a contract ships is compared (a contract that stops using one
    // would silently shrink this test).
    for name in ["baseline-proof", "compiled-proof", "mmr-accumulator"] {
        assert!(covered.contains(name), "no contract builds {name}");
    }
    assert!(
        failures.is_empty(),
        "feature sets drifted apart:\n{}",
        failures.join("\n")
    );
}

/// The comparison itself catches a missing and an extra feature, and ignores only the listed
/// ones.
#[test]
fn drift_detects_missing_and_extra_features() {
    let set = |fs: &[&str]| -> BTreeSet<String> { fs.iter().map(|f| f.to_string()).collect() };
    let contract = BTreeMap::from([
        (
            "baseline-proof".to_string(),
            set(&["ref-items", "zero-copy"]),
        ),
        ("mmr-lock".to_string(), set(&["ckb"])),
        ("compiled-proof".to_string(), set(&[])),
    ]);
    let host = BTreeMap::from([
        ("baseline-proof".to_string(), set(&["zero-copy", "uninit"])),
        ("mmr-lock".to_string(), set(&[])),
        ("compiled-proof".to_string(), set(&["std"])),
    ]);
    assert_eq!(
        drift(&contract, &host),
        vec![(
            "baseline-proof".to_string(),
            set(&["ref-items"]),
            set(&["uninit"])
        )]
    );
    let parsed = parse(
        "baseline-proof v0.1.0 (/x)|default,uninit,zero-copy\nmmr-lock v0.1.0 (/y)|ckb (*)\nother v1|a\n",
    );
    assert_eq!(parsed["baseline-proof"], set(&["uninit", "zero-copy"]));
    assert_eq!(parsed["mmr-lock"], set(&["ckb"]));
    assert_eq!(parsed.len(), 2);
}
