//! What the accumulator's type script (contracts/accumulator-type, docs/accumulator.md)
//! costs: cycles and witness bytes of honest appends of 1, 10 and 100 leaves and of ancestry
//! proofs, in MMRs of 2^4 to 2^40 leaves, and the transitions of the brief's cost table,
//! measured in-process (the type script's group alone, so no lock's cycles are in them).
//!
//! As in [`crate::growth`], MMRs this large exist only as their witnesses: the old peaks, the
//! new leaves and every ancestry item are pseudo-random 32-byte values, and the commitments
//! follow from them through the assurance suite's model (`assurance::accumulator`), which
//! shares no code with the type script. A transition's cost depends on the sizes only.

use crate::engine::{Engine, Format, ProgramSpec};
use crate::growth::{value, LOG2_LEAVES};
use assurance::accumulator::{model_ancestry_roots, model_append, model_bag, model_size};
use ckb_mmr_sdk::weight::Cost;
use doc_blocks::thousands;
use mmr_accumulator::{build, tag, Shape};

/// The type script's binary in the release directory.
pub const BINARY: &str = "accumulator-type";
/// The generated blocks (doc-blocks' markers): docs/accumulator.md's tables, README's rows.
pub const COST_BLOCK: &str = "accumulator-cost-table";
pub const GROWTH_BLOCK: &str = "accumulator-growth-table";
pub const README_BLOCK: &str = "accumulator-cycle-table";
pub const JOURNEY_BLOCK: &str = "accumulator-journey-table";

/// Cycles of one merge on the assembly kernel with its result kept in registers, with the
/// call (docs/hashing.md; held to it by tests/tests/merge_bench.rs).
pub const MERGE_CYCLES: u64 = 1_299;
/// Leaves appended per measured append.
pub const APPENDS: [u64; 3] = [1, 10, 100];

/// One transition of the type script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A new accumulator of this many leaves (the type id checked).
    Create(u64),
    /// A new accumulator from a vouched-for commitment (the type id checked).
    Import,
    /// Append this many leaves to `old` leaves.
    Append { old: u64, leaves: u64 },
    /// An ancestry proof from `old` to `new` leaves.
    Extend { old: u64, new: u64 },
    /// Data unchanged (a hand-over of the cell's lock).
    Keep,
}

/// The type script in the release directory `dir`, measured alone (its format field unused).
pub fn spec(dir: &std::path::Path) -> Result<ProgramSpec, String> {
    ProgramSpec::load(BINARY, Format::Compiled, &dir.join(BINARY))
}

/// An honest transition's inputs: the type args, input and output data, the payload.
pub(crate) struct Case {
    pub(crate) input: Option<Vec<u8>>,
    pub(crate) output: Vec<u8>,
    pub(crate) payload: Vec<u8>,
}

pub(crate) fn data(root: &[u8; 32], size: u64) -> Vec<u8> {
    let mut d = root.to_vec();
    d.extend_from_slice(&size.to_le_bytes());
    d
}

fn leaves(tag: u64, k: u64) -> Vec<[u8; 32]> {
    (0..k).map(|i| value(&[20, tag, i])).collect()
}

/// Peaks of the MMR of `n` leaves, one per 1 bit.
fn peaks(n: u64) -> Vec<[u8; 32]> {
    (0..n.count_ones() as u64)
        .map(|i| value(&[21, n, i]))
        .collect()
}

impl Step {
    /// [`Step::Append`] of `leaves` leaves to `old` leaves.
    pub const fn append(old: u64, leaves: u64) -> Step {
        Step::Append { old, leaves }
    }

    /// [`Step::Extend`] from `old` to `new` leaves.
    pub const fn extend(old: u64, new: u64) -> Step {
        Step::Extend { old, new }
    }

    /// The hashing the script does: old peaks bagged to the input's root, one merge per carry,
    /// the new peaks bagged; for an ancestry proof, its shape's merges.
    pub fn merges(self) -> u64 {
        let bag = |n: u64| u64::from(n.count_ones()).saturating_sub(1);
        let carries = |from: u64, k: u64| {
            (from..from + k)
                .map(|c| u64::from(c.trailing_ones()))
                .sum::<u64>()
        };
        match self {
            Step::Create(k) => carries(0, k) + bag(k),
            Step::Append { old, leaves } => bag(old) + carries(old, leaves) + bag(old + leaves),
            Step::Extend { old, new } => Shape::new(old, new).map_or(0, |s| u64::from(s.merges())),
            Step::Import | Step::Keep => 0,
        }
    }

    pub fn label(self) -> String {
        match self {
            Step::Create(k) => format!("create from {k} leaves (type id checked)"),
            Step::Import => "import (type id checked)".to_string(),
            Step::Append { old, leaves } => format!(
                "append {leaves} leaf{} to {} leaves",
                if leaves == 1 { "" } else { "s" },
                power(old)
            ),
            Step::Extend { old, new } => {
                format!("ancestry {} -> {} leaves", power(old), power(new))
            }
            Step::Keep => "keep (hand-over)".to_string(),
        }
    }

    pub(crate) fn case(self) -> Result<Case, String> {
        let fail = |code: i8| {
            format!(
                "{}: the model refuses the honest input ({code})",
                self.label()
            )
        };
        let (input, output, payload) = match self {
            Step::Create(k) => {
                let payload = build::create_payload(&leaves(0, k));
                let (root, size) = model_append(None, &payload[1..]).map_err(fail)?;
                (None, data(&root, size), payload)
            }
            Step::Import => (None, data(&value(&[22]), model_size(5)), vec![tag::IMPORT]),
            Step::Append { old, leaves: k } => {
                let peaks = peaks(old);
                let root = model_bag(&peaks).ok_or_else(|| fail(0))?;
                let payload = build::append_payload(&peaks, &leaves(old, k));
                let (new_root, new_size) =
                    model_append(Some((&root, model_size(old))), &payload[1..]).map_err(fail)?;
                let input = data(&root, model_size(old));
                (Some(input), data(&new_root, new_size), payload)
            }
            Step::Extend { old, new } => {
                let items = Shape::new(old, new)
                    .map_err(|e| format!("{}: {e:?}", self.label()))?
                    .items();
                let mut payload = vec![tag::EXTEND];
                for i in 0..u64::from(items) {
                    payload.extend_from_slice(&value(&[23, old, new, i]));
                }
                let (old_root, new_root) =
                    model_ancestry_roots(model_size(old), model_size(new), &payload[1..])
                        .map_err(fail)?;
                let input = data(&old_root, model_size(old));
                (Some(input), data(&new_root, model_size(new)), payload)
            }
            Step::Keep => {
                let d = data(&value(&[24]), model_size((1 << 20) - 1));
                (Some(d.clone()), d, vec![tag::KEEP])
            }
        };
        Ok(Case {
            input,
            output,
            payload,
        })
    }
}

/// 2^e, 2^e - 1, 2^e + 1 for leaf counts next to a power of two, else the number.
fn power(n: u64) -> String {
    for (delta, sign) in [(0i64, ""), (1, " - 1"), (-1, " + 1")] {
        let m = (n as i64 + delta) as u64;
        if m >= 16 && m.is_power_of_two() {
            return format!("2^{}{sign}", m.trailing_zeros());
        }
    }
    thousands(n)
}

/// One measured transition.
#[derive(Debug, Clone)]
pub struct Run {
    pub step: Step,
    pub cycles: u64,
    /// The measured transaction's bytes, weight and minimum fee: one code cell dep, the
    /// accumulator's input and output, the witness (no fee cell, no signature).
    pub cost: Cost,
    /// The whole `WitnessArgs` (what the transaction carries and pays for).
    pub witness_bytes: usize,
    pub payload_bytes: usize,
}

impl Run {
    pub fn hashing(&self) -> u64 {
        self.step.merges() * MERGE_CYCLES
    }
}

/// Runs `step` honestly on the type script; an honest transition that is not accepted is an
/// error.
pub fn run(engine: &Engine, step: Step) -> Result<Run, String> {
    let case = step.case()?;
    let (outcome, tx_bytes) = engine.run_type(
        0,
        &value(&[25]),
        case.input.as_deref(),
        &case.output,
        &case.payload,
    );
    let cycles = outcome.honest(|| step.label())?;
    // WitnessArgs: header 16, the payload field's length 4, the payload.
    Ok(Run {
        step,
        cost: Cost::new(tx_bytes, cycles),
        cycles,
        witness_bytes: 16 + 4 + case.payload.len(),
        payload_bytes: case.payload.len(),
    })
}

/// The transitions of the cost table (docs/accumulator.md, README): the brief's two, the
/// worst ancestry at 2^20, and the small ones for scale.
pub fn cost_steps() -> Vec<Step> {
    let big = 1u64 << 20;
    vec![
        Step::append(big - 1, 1),
        Step::extend(big / 2 + 1, big - 1),
        Step::extend(big - 1, big),
        Step::Create(5),
        Step::Import,
        Step::Keep,
    ]
}

/// Per MMR size 2^e: appends of [`APPENDS`] leaves to 2^e - 1 leaves (e peaks, every one
/// carried into by the first leaf: the worst case at that size), the ancestry from 2^(e-1) + 1
/// to 2^e - 1 and from 2^e - 1 to 2^e (the most merges).
pub fn growth_steps(log2: u32) -> Vec<Step> {
    let full = 1u64 << log2;
    let appends = APPENDS.map(|leaves| Step::append(full - 1, leaves));
    let ancestries = [
        Step::extend(full / 2 + 1, full - 1),
        Step::extend(full - 1, full),
    ];
    appends.into_iter().chain(ancestries).collect()
}

pub struct AccGrowth {
    pub costs: Vec<Run>,
    /// Per entry of [`LOG2_LEAVES`], the runs of [`growth_steps`].
    pub growth: Vec<(u32, Vec<Run>)>,
}

/// Measures every transition on the type script `spec`.
pub fn measure(spec: &ProgramSpec) -> Result<AccGrowth, String> {
    let engine = Engine::new(std::slice::from_ref(spec));
    let runs = |steps: Vec<Step>| -> Result<Vec<Run>, String> {
        steps.into_iter().map(|s| run(&engine, s)).collect()
    };
    let costs = runs(cost_steps())?;
    let growth = LOG2_LEAVES
        .into_iter()
        .map(|log2| Ok((log2, runs(growth_steps(log2))?)))
        .collect::<Result<_, String>>()?;
    Ok(AccGrowth { costs, growth })
}

fn percent(part: u64, whole: u64) -> String {
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

impl AccGrowth {
    /// The fixed cost of any run: keep's cycles (loading the ELF, the syscalls for both cells'
    /// data, the group probes and the witness, the entry), no merges.
    pub fn floor(&self) -> u64 {
        self.costs
            .iter()
            .find(|r| r.step == Step::Keep)
            .map_or(0, |r| r.cycles)
    }

    /// The cost table: cycles, the hashing in them, and the rest, as a share of the total and
    /// above the fixed floor every run pays.
    pub fn cost_table(&self) -> String {
        let floor = self.floor();
        let mut s = String::from(
            "| transition | witness bytes | tx bytes | merges | cycles | weight | fee (shannons) | \
             merges x 1,299 | beyond the hashing | beyond the hashing and keep's floor |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.costs {
            let beyond = r.cycles - r.hashing();
            let (share, above) = if r.step.merges() == 0 {
                (thousands(beyond), "".to_string())
            } else {
                let above = beyond.saturating_sub(floor);
                (
                    format!("{} ({})", thousands(beyond), percent(beyond, r.cycles)),
                    format!("{} ({})", thousands(above), percent(above, r.cycles)),
                )
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {share} | {above} |\n",
                r.step.label(),
                thousands(r.witness_bytes),
                thousands(r.cost.tx_bytes),
                r.step.merges(),
                thousands(r.cycles),
                thousands(r.cost.weight),
                thousands(r.cost.fee),
                thousands(r.hashing()),
            ));
        }
        s
    }

    /// The growth table: per MMR size, cycles / witness bytes / weight of each growth step
    /// (the fee at the minimum rate is the weight in shannons).
    pub fn growth_table(&self) -> String {
        let mut s = String::from(
            "| leaves (2^e) | append 1 to 2^e - 1 | append 10 | append 100 | ancestry 2^(e-1) + 1 -> 2^e - 1 | ancestry 2^e - 1 -> 2^e |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for (log2, runs) in &self.growth {
            s.push_str(&format!("| 2^{log2} |"));
            for r in runs {
                s.push_str(&format!(
                    " {} / {} B / {} |",
                    thousands(r.cycles),
                    thousands(r.witness_bytes),
                    thousands(r.cost.weight)
                ));
            }
            s.push('\n');
        }
        s
    }

    /// The README's rows: the brief's two transitions, their cycles split into the hashing,
    /// the floor every run pays, and the rest.
    pub fn readme_table(&self) -> String {
        let floor = self.floor();
        let mut s = String::from(
            "| accumulator transition | cycles | witness bytes | tx bytes | weight | fee (shannons) | hashing | fixed floor (keep) | the rest |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in self.costs.iter().take(2) {
            let rest = (r.cycles - r.hashing()).saturating_sub(floor);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) |\n",
                r.step.label(),
                thousands(r.cycles),
                thousands(r.witness_bytes),
                thousands(r.cost.tx_bytes),
                thousands(r.cost.weight),
                thousands(r.cost.fee),
                thousands(r.hashing()),
                thousands(floor),
                thousands(rest),
                percent(rest, r.cycles)
            ));
        }
        s
    }
}

/// The tuning steps of the type script (each a build of `./build.sh journey`, listed in a
/// manifest of `tag<TAB>label<TAB>binary` lines, binaries relative to it): the cost table's
/// three large transitions and keep, per step, with what each step saved on the append.
pub fn journey(manifest: &std::path::Path) -> Result<String, String> {
    let text = crate::read(manifest)?;
    let base = manifest.parent().unwrap_or(std::path::Path::new("."));
    let steps: Vec<Step> = cost_steps()
        .into_iter()
        .filter(|s| matches!(s, Step::Append { .. } | Step::Extend { .. } | Step::Keep))
        .collect();
    let mut s = String::from("| step | stripped bytes |");
    for step in &steps {
        s.push_str(&format!(" {} |", step.label()));
    }
    s.push_str(" append: what the step saved | append: tx bytes / weight / fee (shannons) |\n| --- | ---: |");
    s.push_str(&" ---: |".repeat(steps.len() + 2));
    s.push('\n');
    let mut previous: Option<u64> = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [_, label, binary] = f[..] else {
            return Err(format!("{}: bad line {line:?}", manifest.display()));
        };
        let spec = ProgramSpec::load(label, Format::Compiled, &base.join(binary))?;
        let engine = Engine::new(std::slice::from_ref(&spec));
        s.push_str(&format!("| {label} | {} |", thousands(spec.binary.len())));
        let mut append = 0;
        let mut cost = None;
        for &step in &steps {
            let r = run(&engine, step).map_err(|e| format!("{label}: {e}"))?;
            if matches!(step, Step::Append { .. }) {
                append = r.cycles;
                cost = Some(r.cost);
            }
            s.push_str(&format!(" {} |", thousands(r.cycles)));
        }
        match previous {
            Some(p) => s.push_str(&format!(" {} |", thousands(p as i64 - append as i64))),
            None => s.push_str(" |"),
        }
        let cost = cost.ok_or("the steps hold no append")?;
        s.push_str(&format!(
            " {} / {} / {} |\n",
            thousands(cost.tx_bytes),
            thousands(cost.weight),
            thousands(cost.fee)
        ));
        previous = Some(append);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_match_the_brief() {
        let big = 1u64 << 20;
        assert_eq!(Step::append(big - 1, 1).merges(), 39);
        assert_eq!(Step::extend(big / 2 + 1, big - 1).merges(), 21);
        assert_eq!(Step::extend(big - 1, big).merges(), 39);
        // 5 leaves: carries 0+1+0+2+0, peaks of 4 and 1 bagged once.
        assert_eq!(Step::Create(5).merges(), 4);
    }

    #[test]
    fn labels() {
        assert_eq!(power((1 << 20) - 1), "2^20 - 1");
        assert_eq!(power((1 << 19) + 1), "2^19 + 1");
        assert_eq!(power(1 << 40), "2^40");
        assert_eq!(power(5), "5");
    }

    #[test]
    fn honest_cases_hold_in_the_model() {
        for log2 in [4, 20, 40] {
            for step in growth_steps(log2) {
                step.case().unwrap();
            }
        }
    }
}
