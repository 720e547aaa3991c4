//! What runs under ckb-debugger: the cycle table of `./build.sh` (each release verifier on one
//! seed's tx.json), the journey's reference column, two git revisions side by side
//! (`compare`) and a flamegraph's profile. Every output is read by
//! `ckb_mmr_sdk::debugger::parse`.
//!
//! A verifier's weight is that of its own transaction: its input cut out of tx.json
//! (`ckb_mmr_sdk::tx::single_input`), written beside the other outputs and run in
//! ckb-debugger too, so bytes and cycles come from one transaction (whose cycles must equal
//! the input's in the whole tx.json).

use crate::steps;
use ckb_mmr_sdk::ckb_mock_tx_types::{MockTransaction, ReprMockTransaction};
use ckb_mmr_sdk::debugger::{self, Report};
use ckb_mmr_sdk::weight::{self, Cost};
use ckb_mmr_sdk::{tx, Format, Workload};
use doc_blocks::thousands;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The release verifiers in tx.json's input order, and the payload format each input gets.
pub use crate::engine::RELEASE_VERIFIERS as INPUTS;

/// Writes the mock transaction of `seed`'s workload with one input per release binary
/// ([`release_binaries`]; formats by position, as [`INPUTS`]).
pub fn write_tx(path: &Path, seed: u64, bins: &[(&str, PathBuf)]) -> Result<Workload, String> {
    let paths: Vec<PathBuf> = bins.iter().map(|(_, p)| p.clone()).collect();
    let formats: Vec<Format> = INPUTS.iter().map(|i| i.1).collect();
    write_cells(path, seed, &paths, &formats).map(|(w, _)| w)
}

/// Writes the mock transaction of `seed`'s workload with one input per binary, each reading
/// the format at its position; returns the workload and the transaction.
fn write_cells(
    path: &Path,
    seed: u64,
    binaries: &[PathBuf],
    formats: &[Format],
) -> Result<(Workload, MockTransaction), String> {
    let w = Workload::from_seed(seed);
    let cells = binaries
        .iter()
        .zip(formats)
        .map(|(bin, &format)| {
            Ok(tx::Cell {
                binary: std::fs::read(bin).map_err(|e| format!("{}: {e}", bin.display()))?,
                lock_args: w.lock_args(),
                payload: w.payload(format).map_err(|e| e.to_string())?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mock = tx::mock(&cells, &[], &[]);
    write_mock(path, &mock)?;
    Ok((w, mock))
}

fn write_mock(path: &Path, mock: &MockTransaction) -> Result<(), String> {
    let repr = ReprMockTransaction::from(mock.clone());
    crate::write(path, &serde_json::to_string_pretty(&repr).expect("json"))
}

/// One verifier's own transaction, run: what ckb-debugger reported, its witness and its size.
#[derive(Debug, Clone, Copy)]
pub struct Own {
    pub report: Report,
    pub witness_bytes: usize,
    pub tx_bytes: usize,
}

impl Own {
    /// Bytes, cycles, weight and minimum fee, when the lock accepted.
    pub fn cost(&self) -> Option<Cost> {
        accepted(self.report).map(|c| Cost::new(self.tx_bytes, c))
    }
}

/// The cycles of a run the lock accepted.
fn accepted(report: Report) -> Option<u64> {
    report.cycles.filter(|_| report.result == 0)
}

/// Input `index` of `tx_file` as a transaction of its own (`tx::single_input`), written to
/// `out` and run in ckb-debugger; fails unless it runs as the input does in the whole file.
pub fn own_transaction(tx_file: &Path, index: usize, out: &Path) -> Result<Own, String> {
    let whole = tx::read(tx_file)?;
    let one = tx::single_input(&whole, index)
        .ok_or_else(|| format!("{}: no input {index} with its code", tx_file.display()))?;
    write_mock(out, &one)?;
    let (report, in_whole) = (lock(out, 0)?, lock(tx_file, index)?);
    if report != in_whole {
        return Err(format!(
            "input {index} of {} alone ({}) ran {report:?}, in the whole file {in_whole:?}",
            tx_file.display(),
            out.display()
        ));
    }
    let witness = one
        .tx
        .witnesses()
        .get(0)
        .expect("single_input keeps the witness");
    Ok(Own {
        report,
        witness_bytes: witness.raw_data().len(),
        tx_bytes: weight::tx_bytes(&one.tx),
    })
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

/// The cycle table: every release verifier on `seed` in ckb-debugger, with its witness and
/// its own transaction's bytes, weight and minimum fee (each written to `dir`). Fails when one
/// rejects.
pub fn run_table(release: &Path, seed: u64, tx_file: &Path, dir: &Path) -> Result<(), String> {
    let bins = release_binaries(release)?;
    let w = write_tx(tx_file, seed, &bins)?;
    println!(
        "Seed: {seed}; leaves: {}, proved: {}, MMR size: {}; wrote {}",
        w.leaf_count,
        w.proved.len(),
        w.mmr_size,
        tx_file.display()
    );
    println!();
    let line = |[input, name, result, cycles, witness, tx, weight, fee, size]: [&str; 9]| {
        format!(
            "{input:<6} {name:<18} {result:<6} {cycles:>9} {witness:>8} {tx:>8} {weight:>7} \
             {fee:>8} {size:>9}"
        )
    };
    println!(
        "{}",
        line([
            "input", "verifier", "result", "cycles", "witness", "tx bytes", "weight", "fee",
            "stripped"
        ])
    );
    let mut failed = false;
    for (i, (name, path)) in bins.iter().enumerate() {
        let own = own_transaction(tx_file, i, &dir.join(format!("tx-{name}.json")))?;
        let stripped = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let cost = own.cost();
        let show = |v: Option<u64>| v.map_or("-".to_string(), thousands);
        println!(
            "{}",
            line([
                &i.to_string(),
                name,
                &own.report.result.to_string(),
                &show(own.report.cycles),
                &thousands(own.witness_bytes),
                &thousands(own.tx_bytes),
                &show(cost.map(|c| c.weight)),
                &show(cost.map(|c| c.fee)),
                &thousands(stripped),
            ])
        );
        failed |= own.report.result != 0;
    }
    println!();
    println!(
        "witness: the WitnessArgs bytes. tx bytes: the verifier's own transaction (its input,\n\
         code cell dep, output and witness: {}/tx-<verifier>.json), serialized + 4, as the\n\
         node weighs it. weight = max(tx bytes, cycles x {}). fee: shannons at the\n\
         default minimum rate, {} per 1,000 weight.",
        dir.display(),
        weight::BYTES_PER_CYCLE,
        thousands(weight::DEFAULT_MIN_FEE_RATE)
    );
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

/// Builds every journey step under `dir/NN` and runs it on `seed` in ckb-debugger, in a
/// transaction of its own (`dir/NN/tx.json`, input 0); writes the manifests
/// `dir/variants.tsv` (with each step's cycles and transaction bytes) and
/// `dir/acc-variants.tsv` the measurements read.
pub fn build_journey(root: &Path, dir: &Path, seed: u64) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut manifest = String::new();
    for (i, step) in steps::lock_steps().iter().enumerate() {
        let tag = format!("{i:02}");
        eprintln!("==> journey {tag}: {}", step.label);
        let bin = steps::build(root, step, &dir.join(&tag))?;
        let txf = dir.join(&tag).join("tx.json");
        // The step's own format: the journey's earlier compiled steps read version 1.
        let format = step.format();
        let (_, mock) = write_cells(&txf, seed, &[bin], &[format])?;
        let tx_bytes = weight::tx_bytes(&mock.tx);
        let r = lock(&txf, 0)?;
        let cycles = accepted(r).ok_or_else(|| {
            format!(
                "journey {tag} ({}) rejected the honest proof: {}",
                step.label, r.result
            )
        })?;
        manifest.push_str(&format!(
            "{tag}\t{}\t{}\t{}\t{tag}/{}\t{cycles}\t{tx_bytes}\n",
            step.label,
            step.group(),
            format.name(),
            step.binary_name()
        ));
    }
    crate::write(&dir.join("variants.tsv"), &manifest)?;
    let mut acc = String::new();
    for (i, step) in steps::acc_steps().iter().enumerate() {
        let tag = format!("acc-{i:02}");
        eprintln!("==> journey {tag}: accumulator: {}", step.label);
        steps::build(root, step, &dir.join(&tag))?;
        let (label, binary) = (step.label, step.binary_name());
        acc.push_str(&format!("{tag}\t{label}\t{tag}/{binary}\n"));
    }
    crate::write(&dir.join("acc-variants.tsv"), &acc)
}

/// One verifier of a built tree on one seed: its own transaction's run and its stripped size.
#[derive(Debug, Clone)]
pub struct Measure {
    pub verifier: String,
    pub seed: u64,
    pub own: Own,
    pub stripped: u64,
}

/// Every verifier of a built tree on `seeds`, each side's tx.json written by its own
/// tx-generator (`txgen`).
type Measured = Vec<Measure>;

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
            let own = tree.join(format!("tx-{seed}-{name}.json"));
            out.push(Measure {
                verifier: name.to_string(),
                seed,
                own: own_transaction(&txf, i, &own)?,
                stripped: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            });
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
            let commit = format!("{r}^{{commit}}");
            git(root, &["rev-parse", "--verify", "--quiet", &commit])
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
        let at = path.to_string_lossy();
        git(root, &["worktree", "add", "--detach", "--quiet", &at, c])?;
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

/// The side-by-side table of two measurements: cycles, witness bytes, weight (whose minimum
/// fee in shannons is the same number) and stripped bytes, each with its delta.
pub fn compare_table(a: &Measured, b: &Measured) -> String {
    let mut keys: Vec<(String, u64)> = a.iter().map(|m| (m.verifier.clone(), m.seed)).collect();
    for m in b {
        if !keys.contains(&(m.verifier.clone(), m.seed)) {
            keys.push((m.verifier.clone(), m.seed));
        }
    }
    let find = |set: &Measured, k: &(String, u64)| {
        set.iter()
            .find(|m| m.verifier == k.0 && m.seed == k.1)
            .cloned()
    };
    let show = |m: &Option<Measure>| match m {
        None => "-".to_string(),
        Some(m) if m.own.report.result != 0 => format!("exit {}", m.own.report.result),
        Some(m) => m.own.report.cycles.map_or("-".into(), |c| c.to_string()),
    };
    // A column pair (A, B) with B - A, from a number each side may have.
    let pair = |ma: &Option<Measure>, mb: &Option<Measure>, f: &dyn Fn(&Measure) -> Option<u64>| {
        let (x, y) = (ma.as_ref().and_then(f), mb.as_ref().and_then(f));
        let text = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
        let delta = match (x, y) {
            (Some(x), Some(y)) => format!("{:+}", y as i64 - x as i64),
            _ => String::new(),
        };
        format!("{:>8} {:>8} {:>7}", text(x), text(y), delta)
    };
    let mut s = format!(
        "{:<18} {:>20} {:>10} {:>10} {:>9} {:>8}",
        "verifier", "seed", "A cycles", "B cycles", "delta", "delta %"
    );
    for column in ["witness", "weight", "bytes"] {
        let (a, b) = (format!("A {column}"), format!("B {column}"));
        s.push_str(&format!(" {a:>8} {b:>8} {:>7}", "delta"));
    }
    s.push('\n');
    for k in &keys {
        let (ma, mb) = (find(a, k), find(b, k));
        let (mut d, mut p) = (String::new(), String::new());
        let cycles = |m: &Option<Measure>| m.as_ref().and_then(|m| accepted(m.own.report));
        if let (Some(ca), Some(cb)) = (cycles(&ma), cycles(&mb)) {
            d = format!("{:+}", cb as i64 - ca as i64);
            p = format!("{:+.2}", (cb as f64 - ca as f64) * 100.0 / ca as f64);
        }
        s.push_str(&format!(
            "{:<18} {:>20} {:>10} {:>10} {:>9} {:>8} {} {} {}\n",
            k.0,
            k.1,
            show(&ma),
            show(&mb),
            d,
            p,
            pair(&ma, &mb, &|m| Some(m.own.witness_bytes as u64)),
            pair(&ma, &mb, &|m| m.own.cost().map(|c| c.weight)),
            pair(&ma, &mb, &|m| Some(m.stripped)),
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
    let txf = dir.join(format!("tx-{seed}.json"));
    write_tx(&txf, seed, &bins)?;
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
    let cycles = accepted(r).ok_or_else(|| {
        format!(
            "{verifier} rejected the honest proof of seed {seed}: {}",
            r.result
        )
    })?;
    Ok((folded, cycles, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(verifier: &str, cycles: Option<u64>, witness: usize, tx: usize) -> Measure {
        Measure {
            verifier: verifier.into(),
            seed: 7,
            own: Own {
                report: Report {
                    result: if cycles.is_some() { 0 } else { 9 },
                    cycles,
                },
                witness_bytes: witness,
                tx_bytes: tx,
            },
            stripped: 8_000,
        }
    }

    /// Cycles, witness bytes and weight side by side with their deltas; a refusal shows its
    /// exit code and no weight.
    #[test]
    fn compare_shows_witness_and_weight_deltas() {
        let a = vec![
            measure("compiled-verifier", Some(542_707), 13_875, 14_165),
            measure("c-verifier", Some(543_954), 13_875, 14_165),
        ];
        let b = vec![
            measure("compiled-verifier", Some(550_000), 12_900, 13_190),
            measure("c-verifier", None, 12_900, 13_190),
        ];
        let table = compare_table(&a, &b);
        // Each row's cells, single-spaced (no cell holds a space).
        let rows: Vec<String> = table
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(
            rows[0],
            "compiled-verifier 7 542707 550000 +7293 +1.34 13875 12900 -975 14165 13190 -975 \
             8000 8000 +0"
        );
        assert_eq!(
            rows[1],
            "c-verifier 7 543954 exit 9 13875 12900 -975 14165 - 8000 8000 +0"
        );
    }
}
