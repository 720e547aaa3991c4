//! The regression gate: exact cycles of each release verifier on fixed seeds, committed in
//! `tests/expected-cycles.json`, and checked against fresh measurements by the test suite
//! (`tools/cycle-lab/tests/gate.rs`). `./build.sh bless` rewrites the file from the current binaries.

use crate::engine::release_specs;
use crate::sweep::{self, Progress};
use ckb_mmr_sdk::REFERENCE_SEED;
use std::path::{Path, PathBuf};

/// The gate's seeds: the journey's reference workload and three more.
pub const SEEDS: [u64; 4] = [REFERENCE_SEED, 1, 2, 3];

/// The file, relative to the workspace root.
pub const FILE: &str = "tests/expected-cycles.json";

/// One line of a failed comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub verifier: String,
    pub seed: u64,
    pub old: Option<u64>,
    pub new: Option<u64>,
}

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn release_dir() -> PathBuf {
    workspace_root().join("build/release")
}

/// Every release verifier on every gate seed: (verifier, seed, cycles), in file order.
pub fn measure(release_dir: &Path) -> Result<Vec<(String, u64, u64)>, String> {
    let specs = release_specs(release_dir)
        .map_err(|e| format!("{e} (build the release binaries first: ./build.sh build)"))?;
    let threads = sweep::all_threads();
    let s = sweep::run(&specs, &SEEDS, threads, "gate", Progress::Quiet)?;
    let mut out = Vec::new();
    for (p, name) in s.programs.iter().enumerate() {
        for (i, seed) in s.seeds.iter().enumerate() {
            out.push((name.clone(), *seed, s.cycles[i * s.programs.len() + p]));
        }
    }
    Ok(out)
}

/// The file's text for `entries` (hand-written JSON so the order is the file's order).
pub fn render(entries: &[(String, u64, u64)]) -> String {
    let mut s = String::from(
        "{\n  \"about\": \"Exact CKB-VM cycles of each release verifier (build/release) on the \
         honest proof of each seed's workload. The test suite (cargo test -p cycle-lab --test gate) \
         measures them fresh and fails on any difference. Update after an intended change with \
         ./build.sh bless.\",\n  \"cycles\": {\n",
    );
    let mut verifiers: Vec<&str> = Vec::new();
    for (v, _, _) in entries {
        if !verifiers.contains(&v.as_str()) {
            verifiers.push(v);
        }
    }
    for (vi, v) in verifiers.iter().enumerate() {
        s.push_str(&format!("    \"{v}\": {{\n"));
        let rows: Vec<_> = entries.iter().filter(|(n, _, _)| n == v).collect();
        for (ri, (_, seed, cycles)) in rows.iter().enumerate() {
            let comma = if ri + 1 < rows.len() { "," } else { "" };
            s.push_str(&format!("      \"{seed}\": {cycles}{comma}\n"));
        }
        let comma = if vi + 1 < verifiers.len() { "," } else { "" };
        s.push_str(&format!("    }}{comma}\n"));
    }
    s.push_str("  }\n}\n");
    s
}

pub fn parse(text: &str) -> Result<Vec<(String, u64, u64)>, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("{FILE} is not valid JSON: {e}"))?;
    let cycles = v
        .get("cycles")
        .and_then(|c| c.as_object())
        .ok_or_else(|| format!("{FILE}: no \"cycles\" object"))?;
    let mut out = Vec::new();
    for (verifier, seeds) in cycles {
        let seeds = seeds
            .as_object()
            .ok_or_else(|| format!("{FILE}: {verifier} is not an object"))?;
        for (seed, c) in seeds {
            let seed: u64 = seed
                .parse()
                .map_err(|_| format!("{FILE}: {verifier}: bad seed {seed:?}"))?;
            let c = c
                .as_u64()
                .ok_or_else(|| format!("{FILE}: {verifier} seed {seed}: not a cycle count"))?;
            out.push((verifier.clone(), seed, c));
        }
    }
    Ok(out)
}

/// Everything that differs between the expected and the measured entries.
pub fn compare(expected: &[(String, u64, u64)], measured: &[(String, u64, u64)]) -> Vec<Change> {
    let find = |set: &[(String, u64, u64)], v: &str, s: u64| {
        set.iter()
            .find(|(n, seed, _)| n == v && *seed == s)
            .map(|e| e.2)
    };
    let mut keys: Vec<(String, u64)> = measured.iter().map(|(v, s, _)| (v.clone(), *s)).collect();
    for (v, s, _) in expected {
        if !keys.iter().any(|(kv, ks)| kv == v && ks == s) {
            keys.push((v.clone(), *s));
        }
    }
    keys.into_iter()
        .filter_map(|(v, s)| {
            let (old, new) = (find(expected, &v, s), find(measured, &v, s));
            (old != new).then_some(Change {
                verifier: v,
                seed: s,
                old,
                new,
            })
        })
        .collect()
}

/// The failure report: old, new and delta per changed entry.
pub fn report(changes: &[Change]) -> String {
    let show = |c: Option<u64>| c.map(|c| c.to_string()).unwrap_or_else(|| "-".into());
    let mut s = format!(
        "{:<20} {:>20} {:>10} {:>10} {:>9} {:>8}\n",
        "verifier", "seed", "old", "new", "delta", "delta %"
    );
    for c in changes {
        let (delta, pct) = match (c.old, c.new) {
            (Some(o), Some(n)) => (
                format!("{:+}", n as i64 - o as i64),
                format!("{:+.2}", (n as f64 - o as f64) * 100.0 / o as f64),
            ),
            _ => ("".into(), "".into()),
        };
        s.push_str(&format!(
            "{:<20} {:>20} {:>10} {:>10} {:>9} {:>8}\n",
            c.verifier,
            c.seed,
            show(c.old),
            show(c.new),
            delta,
            pct
        ));
    }
    s
}

/// The README's cycle table's block (doc-blocks' markers).
pub const README_BLOCK: &str = "cycle-table";

/// The README's table: each release verifier on the reference seed, in-process: its cycles,
/// its stripped size, its witness (the whole `WitnessArgs`) and the transaction it ran in
/// (one code cell dep, one input, one output, the witness), that transaction's weight and its
/// fee at the default minimum fee rate. `measured` (the gate's) must hold the same cycles.
pub fn readme_table(measured: &[(String, u64, u64)], release_dir: &Path) -> Result<String, String> {
    use doc_blocks::thousands;
    let specs = release_specs(release_dir)?;
    let run = sweep::run(&specs, &[REFERENCE_SEED], 1, "readme", Progress::Quiet)?;
    let w = ckb_mmr_sdk::Workload::from_seed(REFERENCE_SEED);
    let mut s = String::from(
        "| verifier | cycles | stripped bytes | witness bytes | tx bytes | weight | fee (shannons) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (p, spec) in specs.iter().enumerate() {
        let name = spec.name.as_str();
        let gated = measured
            .iter()
            .find(|(v, seed, _)| v == name && *seed == REFERENCE_SEED)
            .map(|e| e.2);
        let cost = ckb_mmr_sdk::weight::Cost::new(run.tx_bytes[p] as usize, run.cycles[p]);
        if gated != Some(cost.cycles) {
            return Err(format!(
                "{name}: {} cycles on the reference seed, the gate measured {gated:?}",
                cost.cycles
            ));
        }
        let witness = crate::engine::witness(spec.format, &w)?;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            name.trim_end_matches("-verifier"),
            thousands(cost.cycles),
            thousands(spec.binary.len()),
            thousands(witness.len()),
            thousands(cost.tx_bytes),
            thousands(cost.weight),
            thousands(cost.fee)
        ));
    }
    Ok(s)
}
