//! The compiled format's candidate layouts, measured: the bytes each would spend above the
//! hashes (which no layout can shrink) on the reference seed and across the growth range.
//! docs/compiled-format.md's section 6 is this table (`cycle-lab formats --doc`).
//!
//! Every candidate carries the same leaves and items; they differ in how the proof's shape
//! and the leaf indexes are written. Version 1 and version 2 are measured on the payloads the
//! compilers produce; the others are computed from the same proof's leaf indexes and command
//! count, as their layouts define.

use crate::growth;
use ckb_mmr_sdk::Workload;
use doc_blocks::thousands;

/// The block of docs/compiled-format.md.
pub const DOC_BLOCK: &str = "format-candidates";

/// One proof: what every layout must carry.
pub struct Proof {
    pub label: String,
    pub leaf_count: u64,
    pub indexes: Vec<u64>,
    pub items: usize,
    /// Version 1's command count (opcodes).
    pub commands: usize,
    pub v1_len: usize,
    pub v2_len: usize,
    pub baseline_len: usize,
}

impl Proof {
    fn from_payloads(
        label: String,
        leaf_count: u64,
        v1: &[u8],
        v2: &[u8],
        baseline: usize,
    ) -> Self {
        let indexes: Vec<u64> = compiled_proof::compact::leaves(v2, leaf_count)
            .expect("an honest version 2 payload")
            .map(|(i, _)| i)
            .collect();
        let n = indexes.len();
        // Hashes after the values: the items, whatever the layout.
        let items = (v2.len() - header_len(v2, n) - 32 * n) / 32;
        let commands = v1.len() - 4 - 40 * n - 32 * items;
        Proof {
            label,
            leaf_count,
            indexes,
            items,
            commands,
            v1_len: v1.len(),
            v2_len: v2.len(),
            baseline_len: baseline,
        }
    }

    /// The reference seed's workload.
    pub fn reference(seed: u64) -> Proof {
        let w = Workload::from_seed(seed);
        Proof::from_payloads(
            format!(
                "reference seed ({} of {})",
                w.proved.len(),
                thousands(w.leaf_count)
            ),
            w.leaf_count,
            &w.compiled_v1_payload().expect("compiles"),
            &w.compiled_payload().expect("compiles"),
            w.baseline_payload().len(),
        )
    }

    /// The growth range's claim of `k` leaves spread over `2^log2` leaves.
    pub fn growth(log2: u32, k: u64) -> Proof {
        let n = 1u64 << log2;
        let c = growth::claim(n, k);
        let lock = |w: &[u8]| {
            assurance::model::witness_lock(w)
                .expect("a lock field")
                .to_vec()
        };
        Proof::from_payloads(
            format!("2^{log2} leaves, {k} proved"),
            n,
            &lock(&c.compiled_v1_witness),
            &lock(&c.compiled_witness),
            lock(&c.baseline_witness).len(),
        )
    }

    fn hashes(&self) -> usize {
        32 * (self.indexes.len() + self.items)
    }

    /// Each candidate's bytes above the hashes, in table order.
    pub fn candidates(&self) -> Vec<(&'static str, usize)> {
        let n = self.indexes.len();
        let varint_gaps: usize = gaps(&self.indexes).map(varint_len).sum();
        let header = 1 + varint_len(n as u64);
        let width = (64 - (self.leaf_count - 1).leading_zeros()).max(1) as usize;
        vec![
            (
                "baseline (ckb-merkle-mountain-range's, for comparison)",
                self.baseline_len - self.hashes(),
            ),
            (
                "version 1: u64 indexes, one byte per command",
                self.v1_len - self.hashes(),
            ),
            (
                "version 1, opcodes packed 3 bits each",
                4 + 8 * n + (3 * self.commands).div_ceil(8),
            ),
            (
                "version 1, indexes as varint gaps",
                header + varint_gaps + self.commands,
            ),
            ("shape derived, u64 indexes", header + 8 * n),
            (
                "shape derived, indexes packed at log2(leaf count) bits",
                header + (n * width).div_ceil(8),
            ),
            (
                "shape derived, indexes as Rice-coded gaps (best parameter)",
                header + 1 + rice_bits(&self.indexes).div_ceil(8),
            ),
            (
                "version 2: shape derived, indexes as varint gaps",
                self.v2_len - self.hashes(),
            ),
            (
                "information bound: log2 C(leaf count, proved)",
                (log2_binomial(self.leaf_count, n as u64) / 8.0).ceil() as usize,
            ),
        ]
    }
}

/// Bytes of a well-formed version 2 payload of `n` proved leaves before its hashes: the
/// version byte, then n + 1 varints (the count and the gaps), each ending at a byte < 0x80.
pub fn header_len(v2: &[u8], n: usize) -> usize {
    let mut ends = 0;
    let mut at = 1;
    while ends < n + 1 {
        if v2[at] < 0x80 {
            ends += 1;
        }
        at += 1;
    }
    at
}

fn gaps(indexes: &[u64]) -> impl Iterator<Item = u64> + '_ {
    let mut next = 0;
    indexes.iter().map(move |&i| {
        let gap = i - next;
        next = i + 1;
        gap
    })
}

fn varint_len(v: u64) -> usize {
    ((64 - v.leading_zeros() as usize).max(1)).div_ceil(7)
}

/// Bits of the gaps Rice-coded with the best parameter (unary quotient, stop bit, k bits).
fn rice_bits(indexes: &[u64]) -> usize {
    (0..50)
        .map(|k| {
            gaps(indexes)
                .map(|g| (g >> k) as usize + 1 + k as usize)
                .sum::<usize>()
        })
        .min()
        .unwrap_or(0)
}

fn log2_binomial(n: u64, k: u64) -> f64 {
    // Sum of log2((n - i) / (i + 1)), exact enough for a byte count.
    (0..k)
        .map(|i| ((n - i) as f64 / (i + 1) as f64).log2())
        .sum()
}

/// The proofs of the table: the reference seed and the growth range's corners.
pub fn proofs(seed: u64) -> Vec<Proof> {
    let mut out = vec![Proof::reference(seed)];
    for (log2, k) in [(4, 1), (20, 1), (20, 10), (40, 100)] {
        out.push(Proof::growth(log2, k));
    }
    out
}

/// The markdown table: bytes above the hashes, per candidate and proof.
pub fn markdown(proofs: &[Proof]) -> String {
    let mut s = String::from("\n| layout |");
    for p in proofs {
        s.push_str(&format!(" {} |", p.label));
    }
    s.push_str("\n| --- |");
    s.push_str(&" ---: |".repeat(proofs.len()));
    s.push('\n');
    let columns: Vec<_> = proofs.iter().map(Proof::candidates).collect();
    for (row, (name, _)) in columns[0].iter().enumerate() {
        s.push_str(&format!("| {name} |"));
        for c in &columns {
            s.push_str(&format!(" {} |", thousands(c[row].1 as u64)));
        }
        s.push('\n');
    }
    s.push_str("| the hashes themselves (leaves and items) |");
    for p in proofs {
        s.push_str(&format!(" {} |", thousands(p.hashes() as u64)));
    }
    s.push('\n');
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts measured from payloads agree with the arithmetic of the computed ones, and
    /// version 2 stays the chosen trade: within a few bytes per leaf of the bound.
    #[test]
    fn version_2_is_near_the_bound() {
        for p in proofs(1680833947559458126) {
            let c = p.candidates();
            let get = |prefix: &str| c.iter().find(|(n, _)| n.starts_with(prefix)).unwrap().1;
            let n = p.indexes.len();
            // Version 2 as its layout defines: header plus one varint per gap.
            let computed: usize =
                1 + varint_len(n as u64) + gaps(&p.indexes).map(varint_len).sum::<usize>();
            assert_eq!(get("version 2"), computed, "{}", p.label);
            assert!(get("version 2") <= get("shape derived, u64"), "{}", p.label);
            assert!(get("version 2") < get("version 1:"), "{}", p.label);
            assert!(get("version 2") < get("baseline"), "{}", p.label);
            assert!(
                get("version 2") <= get("information bound") + 2 * n + 2,
                "{}",
                p.label
            );
        }
    }

    /// docs/compiled-format.md shows this table (regenerate: `cycle-lab formats --doc
    /// docs/compiled-format.md`).
    #[test]
    fn the_spec_shows_this_table() {
        let path = crate::gate::workspace_root().join("docs/compiled-format.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let shown = doc_blocks::between(&doc, DOC_BLOCK).unwrap();
        assert_eq!(shown, markdown(&proofs(ckb_mmr_sdk::REFERENCE_SEED)));
    }

    /// Across the growth range (2^4 to 2^40 leaves, 1 to 100 proved) version 2's payload is
    /// never larger than the baseline's for the same proof.
    #[test]
    fn version_2_never_heavier_in_bytes_than_the_baseline() {
        for log2 in growth::LOG2_LEAVES {
            for k in [1, 2, 3, 5, 10, 16, 30, 50, 64, 100] {
                if k > 1u64 << log2 {
                    continue;
                }
                let p = Proof::growth(log2, k);
                assert!(p.v2_len < p.baseline_len, "{}", p.label);
            }
        }
    }
}
