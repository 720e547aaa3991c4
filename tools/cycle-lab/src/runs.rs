//! What runs under ckb-debugger: the cycle table of `./build.sh` (each release verifier on one
//! seed's tx.json), the journey's reference column, two git revisions side by side
//! (`compare`) and a flamegraph's profile. Every output is read by
//! `ckb_mmr_sdk::debugger::parse`.

use crate::steps;
use ckb_mmr_sdk::debugger::{self, Report};
use ckb_mmr_sdk::{tx, Format, Workload};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The release verifiers in tx.json's input order, and the payload format each input gets.
pub const INPUTS: [(&str, Format); 3] = [
    ("baseline-verifier", Format::Baseline),
    ("c-verifier", Format::Compiled),
    ("compiled-verifier", Format::Compiled),
];

/// Writes the mock transaction of `seed`'s workload with one input per binary (formats by
/// position, as [`INPUTS`]).
pub fn write_tx(path: &Path, seed: u64, binaries: &[PathBuf]) -> Result<Workload, String> {
    let inputs: Vec<(PathBuf, Format)> = binaries
        .iter()
        .zip(INPUTS)
        .map(|(bin, (_, format))| (bin.clone(), format))
        .collect();
    write_tx_formats(path, seed, &inputs)
}

/// [`write_tx`] with each input's payload format given (the journey's version 1 steps).
pub fn write_tx_formats(
    path: &Path,
    seed: u64,
    inputs: &[(PathBuf, Format)],
) -> Result<Workload, String> {
    let w = Workload::from_seed(seed);
    let cells = inputs
        .iter()
        .map(|&(ref bin, format)| {
            Ok(tx::Cell {
                binary: std::fs::read(bin).map_err(|e| format!("{}: {e}", bin.display()))?,
                lock_args: w.lock_args(),
                payload: w.payload(format).map_err(|e| e.to_string())?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let json = serde_json::to_string_pretty(&tx::mock_transaction(&cells)).expect("json");
    crate::write(path, &json)?;
    Ok(w)
}

/// ckb-debugger on input `index`'s lock.
pub fn lock(tx_file: &Path, index: usize) -> Result<Report, String> {
    debugger::report(debugger::command(tx_file, "lock", "input", index))
}

/// The release verifiers present in `dir`, in input order; the baseline (input 0) must be.
pub fn release_binaries(dir: &Path) -> Result<Vec<(&'static str, PathBuf)>, String> {
    let present: Vec<_> = INPUTS
        .iter()
        .map(|(name, _)| (*name, dir.join(name)))
        .take_while(|(_, p)| p.is_file())
        .collect();
    if present.is_empty() {
        return Err(format!("no verifier binaries in {}", dir.display()));
    }
    Ok(present)
}

/// The cycle table: every release verifier on `seed` in ckb-debugger. Fails when one rejects.
pub fn run_table(release: &Path, seed: u64, tx_file: &Path) -> Result<(), String> {
    let bins = release_binaries(release)?;
    let paths: Vec<PathBuf> = bins.iter().map(|(_, p)| p.clone()).collect();
    let w = write_tx(tx_file, seed, &paths)?;
    println!(
        "Seed: {seed}; leaves: {}, proved: {}, MMR size: {}; wrote {}",
        w.leaf_count,
        w.proved.len(),
        w.mmr_size,
        tx_file.display()
    );
    println!();
    println!(
        "{:<6} {:<20} {:<11} {:>12} {:>14}",
        "input", "verifier", "run result", "cycles", "stripped bytes"
    );
    let mut failed = false;
    for (i, (name, path)) in bins.iter().enumerate() {
        let r = lock(tx_file, i)?;
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let cycles = r.cycles.map(|c| c.to_string()).unwrap_or("-".into());
        println!(
            "{:<6} {:<20} {:<11} {:>12} {:>14}",
            i, name, r.result, cycles, bytes
        );
        failed |= r.result != 0;
    }
    println!();
    println!(
        "Reproduce one row: ckb-debugger --tx-file {} --cell-type input --script-group-type \
         lock --cell-index N",
        tx_file.display()
    );
    if failed {
        return Err("a verifier rejected the honest transaction".into());
    }
    Ok(())
}

/// Builds every journey step under `dir/NN` and runs it on `seed` in ckb-debugger (a
/// baseline step as input 0, any other as input 1 beside the release baseline); writes the
/// manifests `dir/variants.tsv` and `dir/acc-variants.tsv` the measurements read.
pub fn build_journey(root: &Path, dir: &Path, release: &Path, seed: u64) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut manifest = String::new();
    for (i, step) in steps::lock_steps().iter().enumerate() {
        let tag = format!("{i:02}");
        eprintln!("==> journey {tag}: {}", step.label);
        let bin = steps::build(root, step, &dir.join(&tag))?;
        let txf = dir.join(&tag).join("tx.json");
        let format = step.format();
        let (index, inputs) = if step.group() == "baseline-verifier" {
            (0, vec![(bin.clone(), format)])
        } else {
            (
                1,
                vec![
                    (release.join("baseline-verifier"), Format::Baseline),
                    (bin.clone(), format),
                ],
            )
        };
        write_tx_formats(&txf, seed, &inputs)?;
        let format = format.name();
        let r = lock(&txf, index)?;
        let cycles = match (r.result, r.cycles) {
            (0, Some(c)) => c,
            _ => {
                return Err(format!(
                    "journey {tag} ({}) rejected the honest proof: {}",
                    step.label, r.result
                ))
            }
        };
        manifest.push_str(&format!(
            "{tag}\t{}\t{}\t{format}\t{tag}/{}\t{cycles}\n",
            step.label,
            step.group(),
            step.binary_name()
        ));
    }
    crate::write(&dir.join("variants.tsv"), &manifest)?;
    let mut acc = String::new();
    for (i, step) in steps::acc_steps().iter().enumerate() {
        let tag = format!("acc-{i:02}");
        eprintln!("==> journey {tag}: accumulator: {}", step.label);
        steps::build(root, step, &dir.join(&tag))?;
        acc.push_str(&format!(
            "{tag}\t{}\t{tag}/{}\n",
            step.label,
            step.binary_name()
        ));
    }
    crate::write(&dir.join("acc-variants.tsv"), &acc)
}

/// Every verifier of a built tree on `seeds`, each side's tx.json written by its own
/// tx-generator (`txgen`): (verifier, seed, report, stripped bytes).
type Measured = Vec<(String, u64, Report, u64)>;

fn measure_tree(tree: &Path, txgen: &Path, seeds: &[u64]) -> Result<Measured, String> {
    let bins = release_binaries(&tree.join("build/release"))?;
    let mut out = Vec::new();
    for &seed in seeds {
        let txf = tree.join(format!("tx-{seed}.json"));
        let status = Command::new(txgen)
            .env("SEED", seed.to_string())
            .arg(&txf)
            .args(bins.iter().map(|(_, p)| p))
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", txgen.display()))?;
        if !status.success() {
            return Err(format!(
                "{}: tx-generator failed for seed {seed}",
                tree.display()
            ));
        }
        for (i, (name, path)) in bins.iter().enumerate() {
            let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            out.push((name.to_string(), seed, lock(&txf, i)?, bytes));
        }
    }
    Ok(out)
}

/// A temporary worktree, removed when dropped.
struct Worktree<'a> {
    root: &'a Path,
    path: PathBuf,
}

impl Drop for Worktree<'_> {
    fn drop(&mut self) {
        let _ = Command::new("git")
            .current_dir(self.root)
            .args(["worktree", "remove", "--force"])
            .arg(&self.path)
            .status();
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = Command::new("git")
            .current_dir(self.root)
            .args(["worktree", "prune"])
            .status();
    }
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Builds two git revisions in temporary worktrees (each with its own build.sh, tx-generator
/// and binaries, one target directory for both), runs every verifier of each on `seeds` in
/// ckb-debugger and prints cycles and sizes side by side.
pub fn compare(root: &Path, refs: [&str; 2], seeds: &[u64]) -> Result<(), String> {
    let commits = refs
        .iter()
        .map(|r| {
            git(
                root,
                &[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("{r}^{{commit}}"),
                ],
            )
            .map_err(|_| format!("not a commit: {r}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("compare");
    let work = std::env::temp_dir().join(format!("mmr-compare-{}", std::process::id()));
    let mut sides = Vec::new();
    for (r, c) in refs.iter().zip(&commits) {
        let path = work.join(&c[..10]);
        eprintln!("==> building {r} ({}) in a temporary worktree", &c[..10]);
        git(
            root,
            &[
                "worktree",
                "add",
                "--detach",
                "--quiet",
                &path.to_string_lossy(),
                c,
            ],
        )?;
        let tree = Worktree { root, path };
        let status = Command::new(tree.path.join("build.sh"))
            .arg("build")
            .current_dir(&tree.path)
            .env("CARGO_TARGET_DIR", &target)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("build.sh: {e}"))?;
        if !status.success() {
            return Err(format!("building {r} failed"));
        }
        eprintln!("==> measuring {r} on seeds {seeds:?}");
        // Measured now: the next side's build replaces the shared tx-generator.
        sides.push(measure_tree(
            &tree.path,
            &target.join("release/tx-generator"),
            seeds,
        )?);
    }
    let _ = std::fs::remove_dir_all(&work);
    println!();
    println!(
        "A = {} ({}), B = {} ({}); cycles from ckb-debugger",
        refs[0],
        &commits[0][..10],
        refs[1],
        &commits[1][..10]
    );
    print!("{}", compare_table(&sides[0], &sides[1]));
    Ok(())
}

/// The side-by-side table of two measurements.
pub fn compare_table(a: &Measured, b: &Measured) -> String {
    let mut keys: Vec<(String, u64)> = a.iter().map(|m| (m.0.clone(), m.1)).collect();
    for m in b {
        if !keys.contains(&(m.0.clone(), m.1)) {
            keys.push((m.0.clone(), m.1));
        }
    }
    let find =
        |set: &Measured, k: &(String, u64)| set.iter().find(|m| m.0 == k.0 && m.1 == k.1).cloned();
    let show = |m: &Option<(String, u64, Report, u64)>| match m {
        None => "-".to_string(),
        Some((_, _, r, _)) if r.result != 0 => format!("exit {}", r.result),
        Some((_, _, r, _)) => r.cycles.map(|c| c.to_string()).unwrap_or("-".into()),
    };
    let mut s = format!(
        "{:<18} {:>20} {:>12} {:>12} {:>10} {:>8} {:>8} {:>8} {:>7}\n",
        "verifier",
        "seed",
        "A cycles",
        "B cycles",
        "delta",
        "delta %",
        "A bytes",
        "B bytes",
        "delta"
    );
    for k in &keys {
        let (ma, mb) = (find(a, k), find(b, k));
        let (mut d, mut p, mut ds) = (String::new(), String::new(), String::new());
        if let (Some(x), Some(y)) = (&ma, &mb) {
            if let (0, 0, Some(ca), Some(cb)) = (x.2.result, y.2.result, x.2.cycles, y.2.cycles) {
                d = format!("{:+}", cb as i64 - ca as i64);
                p = format!("{:+.2}", (cb as f64 - ca as f64) * 100.0 / ca as f64);
            }
            ds = format!("{:+}", y.3 as i64 - x.3 as i64);
        }
        let bytes = |m: &Option<(String, u64, Report, u64)>| {
            m.as_ref().map(|m| m.3.to_string()).unwrap_or("-".into())
        };
        s.push_str(&format!(
            "{:<18} {:>20} {:>12} {:>12} {:>10} {:>8} {:>8} {:>8} {:>7}\n",
            k.0,
            k.1,
            show(&ma),
            show(&mb),
            d,
            p,
            bytes(&ma),
            bytes(&mb),
            ds
        ));
    }
    s
}

/// Profiles `verifier` on `seed` in ckb-debugger with its `.debug` binary in place of the
/// stripped one (same code, with symbols): writes the folded stacks and returns them with the
/// run's cycles and the input index.
pub fn profile(
    release: &Path,
    verifier: &str,
    seed: u64,
    dir: &Path,
) -> Result<(PathBuf, u64, usize), String> {
    let bins = release_binaries(release)?;
    let index = bins
        .iter()
        .position(|(n, _)| *n == verifier)
        .ok_or_else(|| format!("{} is missing", release.join(verifier).display()))?;
    let debug = release.join(format!("{verifier}.debug"));
    if !debug.is_file() {
        return Err(format!("{} is missing", debug.display()));
    }
    let paths: Vec<PathBuf> = bins.iter().map(|(_, p)| p.clone()).collect();
    let txf = dir.join(format!("tx-{seed}.json"));
    write_tx(&txf, seed, &paths)?;
    let folded = dir.join(format!("{verifier}-{seed}.folded"));
    let mut c = debugger::command(&txf, "lock", "input", index);
    c.arg("--bin")
        .arg(&debug)
        .arg("--enable-flamegraph")
        .arg("--flamegraph-output")
        .arg(&folded);
    debugger::report(c)?;
    // The title's cycles are the stripped binary's, as the cycle table shows them.
    let r = lock(&txf, index)?;
    match (r.result, r.cycles) {
        (0, Some(cycles)) => Ok((folded, cycles, index)),
        _ => Err(format!(
            "{verifier} rejected the honest proof of seed {seed}: {}",
            r.result
        )),
    }
}
