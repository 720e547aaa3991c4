//! How the cost grows with the MMR: cycles, witness bytes and the transaction's weight of
//! honest proofs of 1, 10 and 100 leaves in MMRs of 2^4 to 2^40 leaves, and the largest claim
//! one witness can carry (`MAX_WITNESS_SIZE`, 64 KiB), for each release verifier, measured
//! in-process.
//!
//! MMRs this large exist only as proofs, as in the assurance suite's synthetic MMRs: the
//! claimed leaves and every proof item are pseudo-random 32-byte values, and the root follows
//! from them (`assurance::model`, which shares no code with the verifiers). A proof's cost
//! depends on the MMR's shape and the claimed positions, never on the values.

use crate::engine::{Engine, Format, Outcome, ProgramSpec};
use assurance::model::{self, Role};
use ckb_mmr_sdk::weight::Cost;
use doc_blocks::thousands;
use std::collections::HashMap;

/// MMR sizes measured: 2^e leaves (one peak) for these e.
pub const LOG2_LEAVES: [u32; 10] = [4, 8, 12, 16, 20, 24, 28, 32, 36, 40];
/// Proved leaves per claim, besides the largest that fits one witness.
pub const CLAIMS: [u64; 3] = [1, 10, 100];

/// A pseudo-random 32-byte value named by `tag` (splitmix64 from an FNV-1a hash of it).
pub(crate) fn value(tag: &[u64]) -> [u8; 32] {
    let mut x = 0xcbf2_9ce4_8422_2325u64;
    for &t in tag {
        x = (x ^ t).wrapping_mul(0x0100_0000_01b3);
    }
    let mut v = [0u8; 32];
    for chunk in v.chunks_mut(8) {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    v
}

fn role_value(role: Role) -> [u8; 32] {
    match role {
        Role::Node(first, h) => value(&[1, first, h as u64]),
        Role::Peak(k) => value(&[2, k as u64]),
        Role::Bag(k) => value(&[3, k as u64]),
    }
}

/// The lock inputs of one honest claim, in the payload formats.
pub struct Claim {
    pub args: Vec<u8>,
    pub baseline_witness: Vec<u8>,
    pub compiled_witness: Vec<u8>,
    pub compiled_v1_witness: Vec<u8>,
}

impl Claim {
    fn witness(&self, format: Format) -> &[u8] {
        match format {
            Format::Baseline => &self.baseline_witness,
            Format::Compiled => &self.compiled_witness,
            Format::CompiledV1 => &self.compiled_v1_witness,
        }
    }
}

/// `k` leaves spread evenly over an MMR of `leaf_count` leaves (`k <= leaf_count`).
pub fn claim(leaf_count: u64, k: u64) -> Claim {
    let indexes: Vec<u64> = (0..k)
        .map(|j| ((2 * j + 1) as u128 * leaf_count as u128 / (2 * k) as u128) as u64)
        .collect();
    let leaves: Vec<(u64, [u8; 32])> = indexes.iter().map(|&i| (i, value(&[0, i]))).collect();
    let roles = model::gen_proof_roles(leaf_count, &indexes);
    let items: HashMap<Role, [u8; 32]> = roles.iter().map(|&r| (r, role_value(r))).collect();
    let root = model::root_of(leaf_count, &leaves, &items).expect("every item has a value");
    // The compiled proof bags where the baseline proof does, so both prove the same root.
    let bag_at = roles.iter().find_map(|r| match r {
        Role::Bag(k) => Some(*k),
        _ => None,
    });
    let cmds = model::compiled_commands(leaf_count, &indexes, bag_at, &mut role_value);
    let positions: Vec<(u64, [u8; 32])> = leaves
        .iter()
        .map(|&(i, v)| (model::leaf_pos(i), v))
        .collect();
    let item_values: Vec<[u8; 32]> = roles.iter().map(|&r| role_value(r)).collect();
    let mut args = root.to_vec();
    let mmr_size = 2 * leaf_count - u64::from(leaf_count.count_ones());
    args.extend_from_slice(&mmr_size.to_le_bytes());
    Claim {
        args,
        baseline_witness: model::witness_args(&model::encode_baseline(&positions, &item_values)),
        compiled_witness: model::witness_args(
            &compiled_proof::compile_compact(mmr_size, &item_values, &positions)
                .expect("gen_proof's roles compile"),
        ),
        compiled_v1_witness: model::witness_args(&model::encode_compiled(&leaves, &cmds)),
    }
}

/// The most leaves (spread evenly) whose proof in `format` fits one witness.
pub fn largest_claim(leaf_count: u64, format: Format) -> u64 {
    let fits = |k: u64| claim(leaf_count, k).witness(format).len() <= model::MAX_WITNESS_SIZE;
    // A leaf costs at least 40 bytes, so no claim of 1,700 leaves fits.
    let (mut lo, mut hi) = (1u64, leaf_count.min(1_700));
    if fits(hi) {
        return hi;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// One verifier on one claim.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Proved leaves.
    pub leaves: u64,
    /// `None` when the proof does not fit one witness: the lock rejects it with code 4, unread.
    pub cycles: Option<u64>,
    pub witness_bytes: usize,
    /// The measured transaction's size as the node weighs it (one code cell dep, one input,
    /// one output, the witness).
    pub tx_bytes: usize,
}

impl Run {
    /// Bytes, cycles, weight and minimum fee of an accepted run.
    pub fn cost(&self) -> Option<Cost> {
        self.cycles.map(|c| Cost::new(self.tx_bytes, c))
    }

    /// Weight per proved leaf of an accepted run.
    pub fn weight_per_leaf(&self) -> Option<f64> {
        self.cost().map(|c| c.weight as f64 / self.leaves as f64)
    }
}

/// One measured point: a claim of `leaves` leaves in an MMR of 2^`log2` leaves.
pub struct Point {
    pub log2: u32,
    /// `None` for the largest claim (whose size differs per format: `Run::leaves`).
    pub claim: Option<u64>,
    /// Per verifier, in release order.
    pub runs: Vec<Run>,
}

pub struct Growth {
    pub names: Vec<String>,
    pub points: Vec<Point>,
}

/// Measures every point on the release verifiers; fails unless every honest claim is accepted.
pub fn measure(specs: &[ProgramSpec]) -> Result<Growth, String> {
    let engine = Engine::new(specs);
    let mut points = Vec::new();
    for log2 in LOG2_LEAVES {
        let leaf_count = 1u64 << log2;
        let largest =
            [Format::Baseline, Format::Compiled].map(|f| (f, largest_claim(leaf_count, f)));
        let sizes = CLAIMS
            .iter()
            .filter(|&&k| k <= leaf_count)
            .map(|&k| Some(k))
            .chain([None]);
        for size in sizes {
            let mut runs = Vec::new();
            for (program, spec) in specs.iter().enumerate() {
                let k = size.unwrap_or_else(|| {
                    largest
                        .iter()
                        .find(|(f, _)| *f == spec.format)
                        .map_or(1, |l| l.1)
                });
                let c = claim(leaf_count, k);
                let witness = c.witness(spec.format);
                let (outcome, tx_bytes) = engine.run_sized(program, &c.args, witness);
                let too_large = witness.len() > model::MAX_WITNESS_SIZE;
                let cycles = match outcome {
                    Outcome::Accepted(cycles) if !too_large => Some(cycles),
                    // WitnessTooLarge, before the lock reads a byte of it.
                    Outcome::Rejected(4) if too_large => None,
                    other => {
                        return Err(format!(
                            "{}: {k} leaves of 2^{log2}: {other:?} on an honest proof",
                            spec.name
                        ))
                    }
                };
                runs.push(Run {
                    leaves: k,
                    cycles,
                    witness_bytes: witness.len(),
                    tx_bytes,
                });
            }
            points.push(Point {
                log2,
                claim: size,
                runs,
            });
        }
    }
    Ok(Growth {
        names: specs.iter().map(|s| s.name.clone()).collect(),
        points,
    })
}

impl Growth {
    /// The Markdown table: one row per MMR size and claim. The C and compiled verifiers read
    /// one format, so their witnesses and transactions have one size.
    pub fn markdown(&self) -> String {
        let short = |n: &String| n.trim_end_matches("-verifier").to_string();
        let mut s = String::from("| leaves | proved |");
        for n in &self.names {
            s.push_str(&format!(" {} cycles |", short(n)));
        }
        s.push_str(
            " baseline witness bytes | compiled witness bytes | baseline tx bytes | compiled tx bytes |",
        );
        for n in &self.names {
            s.push_str(&format!(" {} weight = min fee (shannons) |", short(n)));
        }
        s.push_str("\n| ---: | ---: |");
        s.push_str(&" ---: |".repeat(2 * self.names.len() + 4));
        s.push('\n');
        for p in &self.points {
            let proved = match p.claim {
                Some(k) => k.to_string(),
                None => {
                    let ks: Vec<String> = p.runs.iter().map(|r| r.leaves.to_string()).collect();
                    format!("largest: {}", ks.join(" / "))
                }
            };
            s.push_str(&format!("| 2^{} | {proved} |", p.log2));
            for r in &p.runs {
                s.push_str(&cell(r.cycles));
            }
            let by_format = |format: &str| {
                self.names
                    .iter()
                    .zip(&p.runs)
                    .find(|(n, _)| witness_format(n) == format)
                    .map(|(_, r)| *r)
            };
            for bytes in [|r: Run| r.witness_bytes, |r: Run| r.tx_bytes] {
                for format in ["baseline", "compiled"] {
                    let b = by_format(format).map_or(0, bytes);
                    s.push_str(&format!(" {} |", thousands(b)));
                }
            }
            for r in &p.runs {
                // The minimum fee in shannons is the weight (1,000 shannons per 1,000 weight).
                debug_assert!(r.cost().is_none_or(|c| c.fee == c.weight));
                s.push_str(&cell(r.cost().map(|c| c.weight)));
            }
            s.push('\n');
        }
        s
    }

    /// Three log-scale line charts side by side, against leaves: cycles, witness bytes, and
    /// the transaction's weight per proved leaf (what each proved leaf costs in fee and block
    /// space).
    pub fn svg(&self) -> String {
        const W: f64 = 1460.0;
        const H: f64 = 470.0;
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
             viewBox=\"0 0 {W} {H}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" \
             font-size=\"12\">\n<rect width=\"{W}\" height=\"{H}\" fill=\"#ffffff\"/>\n\
             <text x=\"20\" y=\"26\" font-size=\"17\" font-weight=\"bold\">Cost against MMR \
             size: honest proofs of 1, 10, 100 leaves and the largest one witness carries</text>\n"
        );
        let cycles: Vec<Series> = (0..self.names.len())
            .flat_map(|v| self.series(v, |r| r.cycles.map(|c| c as f64)))
            .collect();
        let bytes: Vec<Series> = [0, self.names.len() - 1]
            .into_iter()
            .flat_map(|v| self.series(v, |r| Some(r.witness_bytes as f64)))
            .collect();
        let per_leaf: Vec<Series> = (0..self.names.len())
            .flat_map(|v| self.series(v, Run::weight_per_leaf))
            .collect();
        panel(&mut s, 60.0, "cycles (ckb-script)", &cycles);
        panel(&mut s, 540.0, "witness bytes", &bytes);
        panel(
            &mut s,
            1020.0,
            "weight per proved leaf (= min fee, shannons)",
            &per_leaf,
        );
        // Legend: verifier colours, claim dashes.
        let mut x = 60.0;
        for n in &self.names {
            s.push_str(&format!(
                "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" \
                 y=\"{}\">{}</text>\n",
                H - 40.0,
                colour(n),
                x + 17.0,
                H - 30.0,
                n.trim_end_matches("-verifier")
            ));
            x += 120.0;
        }
        for (label, dash) in [
            ("1 leaf", ""),
            ("10", "6,3"),
            ("100", "2,3"),
            ("largest", ""),
        ] {
            let width = if label == "largest" { 3.5 } else { 1.5 };
            s.push_str(&format!(
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\" stroke-width=\
                 \"{width}\" stroke-dasharray=\"{dash}\"/><text x=\"{}\" y=\"{}\">{label}</text>\n",
                H - 34.0,
                x + 26.0,
                H - 34.0,
                x + 31.0,
                H - 30.0
            ));
            x += 95.0;
        }
        s.push_str(&format!(
            "<text x=\"60\" y=\"{}\" fill=\"#444\">x: leaves of the MMR (2^e, one peak). Largest: \
             the most evenly spread leaves whose proof fits the 64 KiB witness. Weight: the \
             transaction's, max(tx bytes, cycles x 0.0001705714), over the proved leaves.</text>\n</svg>\n",
            H - 10.0
        ));
        s
    }

    /// The lines of verifier `v`: one per claim size, points in MMR order.
    fn series(&self, v: usize, y: impl Fn(&Run) -> Option<f64>) -> Vec<Series> {
        let claims = CLAIMS.iter().map(|&k| Some(k)).chain([None]);
        claims
            .map(|claim| Series {
                colour: colour(&self.names[v]),
                dash: match claim {
                    Some(1) | None => "",
                    Some(10) => "6,3",
                    _ => "2,3",
                },
                width: if claim.is_none() { 3.5 } else { 1.5 },
                points: self
                    .points
                    .iter()
                    .filter(|p| p.claim == claim)
                    .filter_map(|p| y(&p.runs[v]).map(|y| (p.log2 as f64, y)))
                    .collect(),
            })
            .collect()
    }
}

/// A cycles cell: the number, or "too large" for a proof that does not fit one witness.
fn cell(v: Option<u64>) -> String {
    match v {
        Some(v) => format!(" {} |", thousands(v)),
        None => " too large |".to_string(),
    }
}

fn witness_format(name: &str) -> &'static str {
    if name.starts_with("baseline") {
        "baseline"
    } else {
        "compiled"
    }
}

fn colour(name: &str) -> &'static str {
    match name {
        "baseline-verifier" => "#4c72b0",
        "compiled-verifier" => "#dd8452",
        _ => "#55a868",
    }
}

struct Series {
    colour: &'static str,
    dash: &'static str,
    width: f64,
    points: Vec<(f64, f64)>,
}

/// One chart at `left`: x = log2(leaves), y = log10 of the value, gridlines per decade.
fn panel(s: &mut String, left: f64, title: &str, series: &[Series]) {
    let (top, w, h) = (70.0, 380.0, 300.0);
    let ys = series.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let lo = ys.clone().fold(f64::MAX, f64::min).log10().floor();
    let hi = ys.fold(1.0, f64::max).log10().ceil();
    let (x0, x1) = (
        *LOG2_LEAVES.first().unwrap() as f64,
        *LOG2_LEAVES.last().unwrap() as f64,
    );
    let px = |x: f64| left + w * (x - x0) / (x1 - x0);
    let py = |y: f64| top + h * (1.0 - (y.log10() - lo) / (hi - lo));
    s.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\" font-weight=\"bold\">{title}</text>\n",
        top - 12.0
    ));
    let mut d = lo;
    while d <= hi {
        let y = py(10f64.powf(d));
        s.push_str(&format!(
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e3e3e3\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#444\">{}</text>\n",
            left + w,
            left - 6.0,
            y + 4.0,
            short(10f64.powf(d))
        ));
        d += 1.0;
    }
    for &e in &LOG2_LEAVES {
        let x = px(e as f64);
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#f0f0f0\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#444\">2^{e}</text>\n",
            top + h,
            top + h + 16.0
        ));
    }
    for l in series {
        let pts: Vec<String> = l
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        s.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-dasharray=\"{}\" \
             points=\"{}\"/>\n",
            l.colour,
            l.width,
            l.dash,
            pts.join(" ")
        ));
    }
}

/// 1k, 10k, 1M, ...
fn short(v: f64) -> String {
    let v = v.round() as u64;
    match v {
        1_000_000.. => format!("{}M", v / 1_000_000),
        1_000.. => format!("{}k", v / 1_000),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact verifier on the host, hashing with blake2b-rs.
    struct Blake;
    impl compiled_proof::Merge for Blake {
        fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
            *out = ckb_mmr_sdk::ckb_hash(&[left, right]);
        }
    }

    #[test]
    fn claims_are_honest_in_the_model() {
        for (log2, k) in [(4, 1), (4, 16), (20, 10), (40, 100)] {
            let n = 1u64 << log2;
            let c = claim(n, k);
            let root: [u8; 32] = c.args[..32].try_into().unwrap();
            let lock = model::witness_lock(&c.compiled_witness).unwrap();
            assert_eq!(
                compiled_proof::compact::verify::<Blake>(lock, &root, n),
                Ok(()),
                "compiled 2^{log2} x {k}"
            );
            let lock = model::witness_lock(&c.compiled_v1_witness).unwrap();
            assert!(
                model::compiled_accepts(lock, &root, n),
                "compiled version 1 2^{log2} x {k}"
            );
            let lock = model::witness_lock(&c.baseline_witness).unwrap();
            assert!(
                model::baseline_accepts(lock, &root, n),
                "baseline 2^{log2} x {k}"
            );
        }
    }

    #[test]
    fn the_largest_claim_fits_and_one_more_does_not() {
        for format in [Format::Baseline, Format::Compiled, Format::CompiledV1] {
            let n = 1u64 << 24;
            let k = largest_claim(n, format);
            assert!(claim(n, k).witness(format).len() <= model::MAX_WITNESS_SIZE);
            assert!(claim(n, k + 1).witness(format).len() > model::MAX_WITNESS_SIZE);
        }
    }
}
