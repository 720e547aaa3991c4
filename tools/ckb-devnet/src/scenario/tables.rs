//! The report as text: the tables docs/deploy.md shows between its markers (only numbers that
//! repeat exactly on every fresh chain) and the terminal table `ckb-devnet scenario` prints.

use crate::scenario::report::{mode_name, Report};

/// 1234567 -> "1,234,567".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Report {
    /// The accumulator's table docs/deploy.md shows between its `devnet-accumulator-table`
    /// markers.
    pub fn accumulator_markdown(&self) -> String {
        let mut s = String::from(
            "| step | what | verifier | mode | leaves appended | mmr_size after | node cycles (= ckb-debugger) | of which the type script or MMR lock | tx bytes | witness bytes | fee (shannons) |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.accumulator {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.step,
                r.note,
                r.verifier.unwrap_or(""),
                r.mode.map_or("", mode_name),
                group(r.leaves_appended),
                group(r.mmr_size_after),
                group(r.node_cycles),
                group(r.script_cycles),
                group(r.tx_bytes as u64),
                group(r.witness_bytes as u64),
                group(r.fee_shannons)
            ));
        }
        s
    }

    /// The deployments' and spends' tables docs/deploy.md shows between its `devnet-table`
    /// markers (no hashes, no timings).
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| deployment | verifier | binary bytes | capacity locked (CKB) | fee (shannons) |\n| --- | --- | ---: | ---: | ---: |\n",
        );
        for d in &self.deployments {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                d.deployment,
                d.verifier,
                group(d.binary_bytes as u64),
                group(d.capacity_shannons / 100_000_000),
                group(d.fee_shannons)
            ));
        }
        s.push_str(
            "\n| verifier | mode | deployment | node cycles (= ckb-debugger) | of which the MMR lock | tx bytes | cycle weight | fee (shannons) |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.spends {
            let deployment = if r.upgraded {
                "type, after upgrade"
            } else {
                r.deployment
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.verifier,
                mode_name(r.mode),
                deployment,
                group(r.node_cycles),
                group(r.mmr_lock_cycles),
                group(r.tx_bytes as u64),
                group(r.cycles_weight()),
                group(r.fee_shannons)
            ));
        }
        s
    }

    /// What `ckb-devnet scenario` prints: every row, with hashes left to report.json.
    pub fn table(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "\n{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>10}\n",
            "verifier",
            "mode",
            "deploy",
            "upgraded",
            "status",
            "node cycles",
            "debugger",
            "tx bytes",
            "cycle weight",
            "fee"
        ));
        for r in &self.spends {
            s.push_str(&format!(
                "{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>10}\n",
                r.verifier,
                mode_name(r.mode),
                r.deployment,
                r.upgraded,
                r.status,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.cycles_weight(),
                r.fee_shannons
            ));
        }
        s.push_str(&format!(
            "\n{:<28} {:>8} {:>9} {:>8} {:>10} {:>10}\n",
            "refusal", "expected", "node code", "refused", "live after", "as expected"
        ));
        for r in &self.refusals {
            let expected = match (r.expected_code, r.expected_message) {
                (Some(c), _) => c.to_string(),
                (None, Some(m)) => m.chars().take(8).collect(),
                (None, None) => "accept".into(),
            };
            s.push_str(&format!(
                "{:<28} {:>8} {:>9} {:>8} {:>10} {:>10}\n",
                r.case,
                expected,
                r.node_code.map_or("-".into(), |c| c.to_string()),
                r.refused,
                r.cell_live_after,
                r.as_expected()
            ));
        }
        s.push_str(&format!(
            "\n{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8}\n",
            "acc step",
            "what",
            "verifier",
            "mode",
            "leaves",
            "mmr_size",
            "node cycles",
            "debugger",
            "tx bytes",
            "witness"
        ));
        for r in &self.accumulator {
            s.push_str(&format!(
                "{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8}\n",
                r.step,
                r.note,
                r.verifier.unwrap_or("-"),
                r.mode.map_or("-", mode_name),
                r.leaves_appended,
                r.mmr_size_after,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.witness_bytes
            ));
        }
        for t in &self.accumulator_other {
            s.push_str(&format!(
                "{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12}\n",
                "(no row)", t.what, "-", "-", "-", "-", t.node_cycles, t.debugger_cycles
            ));
        }
        s.push_str(&format!(
            "\n{} deployments, {} spends, {} accumulator transactions (and {} checked without a \
             row), {} refusal cases in {:.0} s; {} transactions committed, every one with node \
             cycles = ckb-debugger's ({} without a row: deployments, locked cells, spends after \
             refusals)\n",
            self.deployments.len(),
            self.spends.len(),
            self.accumulator.len(),
            self.accumulator_other.len(),
            self.refusals.len(),
            self.seconds,
            self.committed_total,
            self.other_committed.len()
        ));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::group;

    #[test]
    fn groups_thousands() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ];
        for (n, text) in cases {
            assert_eq!(group(n), text);
        }
    }
}
