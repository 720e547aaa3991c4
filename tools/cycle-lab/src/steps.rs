//! The journey's steps as data, and the builds of each: every row adds one named switch (a
//! cargo feature, or one of contracts/c-verifier/build.sh's settings) to the row before, so the
//! journey table shows what each step buys. `cycle-lab journey` builds every step into its
//! own directory with these functions.

use ckb_mmr_sdk::Format;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The contracts' target.
pub const TARGET: &str = "riscv64imac-unknown-none-elf";

/// How one step is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Build {
    /// A Rust contract built with `--no-default-features --features <features>`.
    Rust {
        package: &'static str,
        features: Vec<&'static str>,
    },
    /// The C verifier (contracts/c-verifier/build.sh's `C_COMPILER`, `MERGE`, `LEAN_ELF`,
    /// `FORMAT`).
    C {
        compiler: &'static str,
        merge: &'static str,
        lean_elf: bool,
        compact: bool,
    },
}

/// One step of a journey.
#[derive(Debug, Clone)]
pub struct Step {
    pub label: &'static str,
    pub build: Build,
}

impl Step {
    /// The journey table's group: steps of one group build on each other.
    pub fn group(&self) -> &'static str {
        match self.build {
            Build::Rust { package, .. } => package,
            Build::C { .. } => "c",
        }
    }

    /// The payload format the step's binary reads: the compiled steps read version 1 until
    /// the step that adds the compact format (the Rust `compact` feature, the C `FORMAT=v2`).
    pub fn format(&self) -> Format {
        match &self.build {
            Build::Rust { package, .. } if *package == "baseline-verifier" => Format::Baseline,
            Build::Rust { features, .. } if features.contains(&"compact") => Format::Compiled,
            Build::Rust { .. } => Format::CompiledV1,
            Build::C { compact: true, .. } => Format::Compiled,
            Build::C { .. } => Format::CompiledV1,
        }
    }

    /// The binary's file name.
    pub fn binary_name(&self) -> &'static str {
        match self.build {
            Build::Rust { package, .. } => package,
            Build::C { .. } => "c-verifier",
        }
    }
}

/// A Rust contract's steps: (label, the cargo feature the step adds to the step before; ""
/// for the first step, built without default features).
type RustSteps = (&'static str, &'static [(&'static str, &'static str)]);

/// The lock scripts' Rust steps, in table order.
const RUST_LOCK_STEPS: [RustSteps; 2] = [
    (
        "baseline-verifier",
        &[
            ("baseline: generic builder per merge", ""),
            ("baseline: + const builder", "const-builder"),
            ("baseline: + finalize_from_ref", "finalize-ref"),
            ("baseline: + zero-copy items", "zero-copy"),
            ("baseline: + merge kernel", "merge-kernel"),
            ("baseline: + uninit merge outputs", "uninit"),
            ("baseline: + bump allocator", "bump-alloc"),
            ("baseline: + asm kernel", "asm-kernel"),
            ("baseline: + one-pointer items", "ref-items"),
            ("baseline: + merge outputs from the arena", "node-arena"),
            ("baseline: + word loads", "word-loads"),
            ("baseline: + lean ELF", "lean-elf"),
        ],
    ),
    (
        "compiled-verifier",
        &[
            ("compiled: const builder", ""),
            ("compiled: + static stack", "static-stack"),
            ("compiled: + merge kernel", "merge-kernel"),
            ("compiled: + asm kernel", "asm-kernel"),
            ("compiled: + PROOF runs in registers", "asm-chain"),
            ("compiled: + lean ELF", "lean-elf"),
            ("compiled: + compact format (version 2)", "compact"),
        ],
    ),
];

/// The C verifier's builds: (label, C_COMPILER, MERGE, LEAN_ELF, FORMAT v2). The clang rows
/// end at the deployed build (clang, asm kernel, lean ELF, version 2); the GCC rows follow.
const C_STEPS: [(&str, &str, &str, bool, bool); 8] = [
    (
        "c (gcc 12): ckb-c-stdlib blake2b",
        "gcc",
        "stdlib",
        false,
        false,
    ),
    (
        "c (clang 19): ckb-c-stdlib blake2b",
        "clang",
        "stdlib",
        false,
        false,
    ),
    ("c (clang 19): + asm kernel", "clang", "asm", false, false),
    ("c (clang 19): + lean ELF", "clang", "asm", true, false),
    (
        "c (clang 19): + compact format (version 2)",
        "clang",
        "asm",
        true,
        true,
    ),
    ("c (gcc 12): + asm kernel", "gcc", "asm", false, false),
    ("c (gcc 12): + lean ELF", "gcc", "asm", true, false),
    (
        "c (gcc 12): + compact format (version 2)",
        "gcc",
        "asm",
        true,
        true,
    ),
];

/// The accumulator's type script (docs/accumulator.md, "Cycles"), measured in-process on its
/// cost table's transitions (`cycle-lab acc-journey`); its first step has the lean ELF.
const ACC_STEPS: RustSteps = (
    "accumulator-type",
    &[
        ("Rust merge kernel", "lean-elf"),
        ("+ asm kernel", "asm-kernel"),
        ("+ node in registers (asm chain)", "asm-chain"),
        ("+ merge runs", "merge-runs"),
        ("+ word compare", "word-compare"),
    ],
);

/// Each step with the features of every step before it in its group.
fn cumulative((package, steps): RustSteps) -> impl Iterator<Item = Step> {
    steps
        .iter()
        .scan(Vec::new(), move |features, &(label, added)| {
            if !added.is_empty() {
                features.push(added);
            }
            Some(Step {
                label,
                build: Build::Rust {
                    package,
                    features: features.clone(),
                },
            })
        })
}

/// The lock scripts' steps, in table order: the Rust verifiers', then the C verifier's.
pub fn lock_steps() -> Vec<Step> {
    let c = C_STEPS
        .iter()
        .map(|&(label, compiler, merge, lean_elf, compact)| Step {
            label,
            build: Build::C {
                compiler,
                merge,
                lean_elf,
                compact,
            },
        });
    RUST_LOCK_STEPS
        .into_iter()
        .flat_map(cumulative)
        .chain(c)
        .collect()
}

/// The accumulator's steps.
pub fn acc_steps() -> Vec<Step> {
    cumulative(ACC_STEPS).collect()
}

/// Builds `step` into `dir` (the workspace at `root`): `dir/<binary>` stripped and, for the
/// Rust contracts, `dir/<binary>.debug`. Returns the stripped binary's path.
pub fn build(root: &Path, step: &Step, dir: &Path) -> Result<PathBuf, String> {
    match &step.build {
        Build::Rust { package, features } => {
            let mut args = vec!["--no-default-features".to_string()];
            if !features.is_empty() {
                args.push("--features".into());
                args.push(features.join(","));
            }
            build_rust_contract(root, package, dir, &args)
        }
        Build::C {
            compiler,
            merge,
            lean_elf,
            compact,
        } => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let status = Command::new(root.join("contracts/c-verifier/build.sh"))
                .current_dir(root)
                .env("OUT_DIR", dir)
                .env("OUT_NAME", "c-verifier")
                .env("C_COMPILER", compiler)
                .env("MERGE", merge)
                .env("LEAN_ELF", if *lean_elf { "1" } else { "0" })
                .env("FORMAT", if *compact { "v2" } else { "v1" })
                .stdout(std::process::Stdio::null())
                .status()
                .map_err(|e| format!("contracts/c-verifier/build.sh: {e}"))?;
            check(status, || {
                format!("building the C verifier for {:?}", step.label)
            })?;
            Ok(dir.join("c-verifier"))
        }
    }
}

/// Builds one Rust contract with cargo (`--profile contract`) and installs it under `dir`
/// (created if missing) stripped, with its `.debug` copy. The one definition of the contract
/// build: build.sh's default build runs it too (`cycle-lab build-contract`), so checksums.txt's
/// binaries and the journey's steps share these flags.
pub fn build_rust_contract(
    root: &Path,
    package: &str,
    dir: &Path,
    cargo_args: &[String],
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Registry sources are named by absolute path in panic locations: map cargo's home to a
    // fixed prefix so the binaries (checksums.txt) do not depend on where it is. Workspace
    // sources are named relative to the workspace root, the standard library by
    // /rustc/<commit>/. (Cargo adds this to the rustflags of .cargo/config.toml.)
    let cargo_home = std::env::var("CARGO_HOME")
        .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap_or_default()));
    let var = "CARGO_TARGET_RISCV64IMAC_UNKNOWN_NONE_ELF_RUSTFLAGS";
    let flags = format!(
        "{} --remap-path-prefix={cargo_home}=/cargo",
        std::env::var(var).unwrap_or_default()
    );
    let status = Command::new("cargo")
        .current_dir(root)
        .env(var, flags)
        .args(["build", "--quiet", "--profile", "contract", "--locked"])
        .args(["--target", TARGET, "-p", package])
        .args(cargo_args)
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    check(status, || {
        format!("building contract {package} with {cargo_args:?}")
    })?;
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let built = target_dir.join(TARGET).join("contract").join(package);
    let debug = dir.join(format!("{package}.debug"));
    let stripped = dir.join(package);
    std::fs::copy(&built, &debug).map_err(|e| format!("{}: {e}", built.display()))?;
    let status = Command::new("llvm-objcopy-19")
        .arg("--strip-all")
        .arg(&debug)
        .arg(&stripped)
        .status()
        .map_err(|e| format!("llvm-objcopy-19: {e}"))?;
    check(status, || format!("stripping {}", debug.display()))?;
    Ok(stripped)
}

fn check(status: std::process::ExitStatus, what: impl Fn() -> String) -> Result<(), String> {
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", what()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The features of the journey's steps: the release build's at the end of each group, as
    /// build.sh builds build/release (default features).
    #[test]
    fn steps_accumulate_their_features() {
        let steps = lock_steps();
        assert_eq!(steps.len(), 27);
        let features = |label: &str| match &steps.iter().find(|s| s.label == label).unwrap().build {
            Build::Rust { features, .. } => features.join(","),
            Build::C { .. } => unreachable!(),
        };
        assert_eq!(features("baseline: generic builder per merge"), "");
        assert_eq!(
            features("baseline: + zero-copy items"),
            "const-builder,finalize-ref,zero-copy"
        );
        assert_eq!(
            features("compiled: + lean ELF"),
            "static-stack,merge-kernel,asm-kernel,asm-chain,lean-elf"
        );
        let acc = acc_steps();
        assert_eq!(acc.len(), 5);
        assert_eq!(
            acc[4].build,
            Build::Rust {
                package: "accumulator-type",
                features: vec![
                    "lean-elf",
                    "asm-kernel",
                    "asm-chain",
                    "merge-runs",
                    "word-compare"
                ],
            }
        );
        assert_eq!(
            features("compiled: + compact format (version 2)"),
            "static-stack,merge-kernel,asm-kernel,asm-chain,lean-elf,compact"
        );
        // Each group reads version 1 until its compact step, as the release build does after.
        let format = |label: &str| steps.iter().find(|s| s.label == label).unwrap().format();
        for (label, expected) in [
            ("compiled: + lean ELF", Format::CompiledV1),
            ("compiled: + compact format (version 2)", Format::Compiled),
            ("c (gcc 12): + lean ELF", Format::CompiledV1),
            ("c (gcc 12): + compact format (version 2)", Format::Compiled),
            ("baseline: + lean ELF", Format::Baseline),
            (
                "c (clang 19): + compact format (version 2)",
                Format::Compiled,
            ),
        ] {
            assert_eq!(format(label), expected, "{label}");
        }
        assert_eq!(steps[26].group(), "c");
        assert_eq!(steps[26].binary_name(), "c-verifier");
    }
}
