//! The journey table: every tuning step as its own binary (built by `./build.sh journey`),
//! its ckb-debugger cycles on the reference seed, min/median/max over a seed sweep run here
//! in-process, the delta against the step before, the stripped size, and the reference
//! transaction's bytes, weight and minimum fee.

use crate::engine::{Format, ProgramSpec};
use crate::sweep::{self, Progress, Stats};
use ckb_mmr_sdk::weight::Cost;
use doc_blocks::thousands;
use serde_json::json;
use std::path::{Path, PathBuf};

/// One step, as build.sh lists it in the manifest (tab-separated:
/// `tag  label  group  format  binary  debugger-cycles  tx-bytes`).
#[derive(Debug, Clone)]
pub struct Variant {
    pub tag: String,
    pub label: String,
    /// Steps of one group build on each other; the delta is taken within a group.
    pub group: String,
    pub format: Format,
    pub binary: PathBuf,
    /// Cycles ckb-debugger reported for this binary on the reference seed.
    pub debugger_cycles: u64,
    /// The size (as the node weighs it) of the transaction ckb-debugger ran.
    pub tx_bytes: usize,
}

/// A measured step.
#[derive(Debug, Clone)]
pub struct Row {
    pub variant: Variant,
    pub reference_cycles: u64,
    pub delta: Option<i64>,
    pub sweep: Stats,
    pub stripped_bytes: u64,
    /// The reference seed's transaction: bytes, cycles, weight, minimum fee.
    pub cost: Cost,
}

impl Row {
    /// The columns after the delta, in the tables' order: the sweep's min, median and max, the
    /// stripped size, then the reference transaction's bytes, weight and fee.
    fn measured(&self) -> [u64; 7] {
        [
            self.sweep.min,
            self.sweep.median,
            self.sweep.max,
            self.stripped_bytes,
            self.cost.tx_bytes as u64,
            self.cost.weight,
            self.cost.fee,
        ]
    }
}

/// The whole table.
#[derive(Debug, Clone)]
pub struct Journey {
    pub reference_seed: u64,
    pub sweep_seeds: Vec<u64>,
    pub rows: Vec<Row>,
}

pub fn read_manifest(path: &Path) -> Result<Vec<Variant>, String> {
    let text = crate::read(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<&str> = line.split('\t').collect();
            let bad = || format!("{}: line {}: {line:?}", path.display(), i + 1);
            if f.len() != 7 {
                return Err(bad());
            }
            Ok(Variant {
                tag: f[0].to_string(),
                label: f[1].to_string(),
                group: f[2].to_string(),
                format: Format::from_name(f[3]).ok_or_else(bad)?,
                binary: base.join(f[4]),
                debugger_cycles: f[5].parse().map_err(|_| bad())?,
                tx_bytes: f[6].parse().map_err(|_| bad())?,
            })
        })
        .collect()
}

/// Measures every variant on the reference seed (which must give ckb-debugger's number
/// exactly, in a transaction of the same size) and on `sweep_seeds`, on all cores.
pub fn measure(
    variants: Vec<Variant>,
    reference_seed: u64,
    sweep_seeds: Vec<u64>,
    threads: usize,
) -> Result<Journey, String> {
    let specs: Vec<ProgramSpec> = variants
        .iter()
        .map(|v| ProgramSpec::load(&v.label, v.format, &v.binary))
        .collect::<Result<_, _>>()?;
    let reference = sweep::run(&specs, &[reference_seed], 1, "reference", Progress::Quiet)?;
    let sweep = sweep::run(&specs, &sweep_seeds, threads, "sweep", Progress::Bar)?;
    let mut rows: Vec<Row> = Vec::with_capacity(variants.len());
    for (i, v) in variants.into_iter().enumerate() {
        let (in_process, tx_bytes) = (reference.cycles[i], reference.tx_bytes[i] as usize);
        if (in_process, tx_bytes) != (v.debugger_cycles, v.tx_bytes) {
            return Err(format!(
                "{} ({}): ckb-debugger reported {} cycles in a {}-byte transaction on seed \
                 {reference_seed}, ckb-script in-process {in_process} in {tx_bytes} bytes: the \
                 engines disagree",
                v.tag, v.label, v.debugger_cycles, v.tx_bytes
            ));
        }
        let delta = rows
            .last()
            .filter(|prev| prev.variant.group == v.group)
            .map(|prev| in_process as i64 - prev.reference_cycles as i64);
        let stripped_bytes = std::fs::metadata(&v.binary)
            .map_err(|e| format!("{}: {e}", v.binary.display()))?
            .len();
        rows.push(Row {
            variant: v,
            reference_cycles: in_process,
            delta,
            sweep: sweep.stats(i),
            stripped_bytes,
            cost: Cost::new(tx_bytes, in_process),
        });
    }
    Ok(Journey {
        reference_seed,
        sweep_seeds,
        rows,
    })
}

/// A delta with its sign: "+1,234", "-56", "0".
pub fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{}", thousands(n))
    } else {
        thousands(n)
    }
}

fn seeds_text(seeds: &[u64]) -> String {
    let contiguous = seeds.windows(2).all(|w| w[1] == w[0] + 1);
    match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if contiguous => format!("seeds {a}..={b}"),
        _ => format!("{} seeds", seeds.len()),
    }
}

impl Journey {
    pub fn sweep_description(&self) -> String {
        seeds_text(&self.sweep_seeds)
    }

    /// The table as printed (fixed-width text).
    pub fn table(&self) -> String {
        // The widths of the columns after the delta (`Row::measured`).
        let widths = [10, 10, 10, 8, 8, 7, 7];
        let mut s = format!(
            "{:<3} {:<40} {:>10} {:>9}",
            "#", "variant", "ref seed", "delta"
        );
        let names = ["min", "median", "max", "bytes", "tx bytes", "weight", "fee"];
        for (name, width) in names.into_iter().zip(widths) {
            s.push_str(&format!(" {name:>width$}"));
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!(
                "{:<3} {:<40} {:>10} {:>9}",
                r.variant.tag,
                r.variant.label,
                r.reference_cycles,
                r.delta.map(|d| format!("{d:+}")).unwrap_or_default(),
            ));
            for (n, width) in r.measured().into_iter().zip(widths) {
                s.push_str(&format!(" {n:>width$}"));
            }
            s.push('\n');
        }
        s
    }

    /// The table in Markdown, for docs/performance.md.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "| # | variant | cycles, seed {} | delta | min | median | max | stripped bytes | \
             tx bytes | weight | fee (shannons) |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
            self.reference_seed
        );
        for r in &self.rows {
            let measured: Vec<String> = r.measured().into_iter().map(thousands).collect();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                r.variant.tag,
                r.variant.label,
                thousands(r.reference_cycles),
                r.delta.map(signed).unwrap_or_default(),
                measured.join(" | ")
            ));
        }
        s
    }

    pub fn csv(&self) -> String {
        let mut s = String::from(
            "tag,variant,group,reference_cycles,delta,sweep_min,sweep_median,sweep_max,stripped_bytes,\
             tx_bytes,weight,fee\n",
        );
        for r in &self.rows {
            let measured: Vec<String> = r.measured().iter().map(u64::to_string).collect();
            s.push_str(&format!(
                "{},{},{},{},{},{}\n",
                r.variant.tag,
                csv_field(&r.variant.label),
                r.variant.group,
                r.reference_cycles,
                r.delta.map(|d| d.to_string()).unwrap_or_default(),
                measured.join(",")
            ));
        }
        s
    }

    pub fn json(&self) -> serde_json::Value {
        json!({
            "reference_seed": self.reference_seed,
            "sweep_seeds": self.sweep_seeds,
            "median": "the lower middle value for an even number of seeds",
            "engine": "reference_cycles: ckb-debugger on tx.json, checked equal to ckb-script \
                       in-process; sweep: ckb-script in-process",
            "weight": "tx_bytes: the reference seed's tx.json, serialized + 4; weight: \
                       max(tx_bytes, cycles x 0.0001705714); fee: shannons at 1,000 per 1,000 weight",
            "variants": self.rows.iter().map(|r| json!({
                "tag": r.variant.tag,
                "variant": r.variant.label,
                "group": r.variant.group,
                "format": r.variant.format.name(),
                "reference_cycles": r.reference_cycles,
                "delta": r.delta,
                "sweep": { "min": r.sweep.min, "median": r.sweep.median, "max": r.sweep.max },
                "stripped_bytes": r.stripped_bytes,
                "tx_bytes": r.cost.tx_bytes,
                "weight": r.cost.weight,
                "fee": r.cost.fee,
            })).collect::<Vec<_>>(),
        })
    }

    /// Steps of a group whose reference-seed cycles do not go down.
    pub fn non_decreasing_steps(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.variant.group != "c")
            .filter_map(|r| {
                let d = r.delta.filter(|&d| d >= 0)?;
                Some(format!("{} {} ({d:+})", r.variant.tag, r.variant.label))
            })
            .collect()
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The generated table's block in docs/performance.md (doc-blocks' markers).
pub const DOC_BLOCK: &str = "journey-table";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(signed(317_486), "+317,486");
        assert_eq!(signed(-5), "-5");
        assert_eq!(signed(0), "0");
    }
}
