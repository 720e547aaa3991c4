//! The report as text: the tables docs/deploy.md shows between its markers (only numbers that
//! repeat exactly on every fresh chain) and the terminal table `ckb-devnet scenario` prints.

use crate::scenario::report::{mode_name, Report};
use doc_blocks::{thousands, MissingMarker};

impl Report {
    /// `doc` with its `devnet-table` and `devnet-accumulator-table` blocks rewritten from
    /// this report (what `scenario --doc FILE` does to FILE).
    pub fn write_tables(&self, doc: &str) -> Result<String, MissingMarker> {
        let doc = doc_blocks::replace_between(doc, "devnet-table", &self.markdown())?;
        doc_blocks::replace_between(
            &doc,
            "devnet-accumulator-table",
            &self.accumulator_markdown(),
        )
    }

    /// The accumulator's table docs/deploy.md shows between its `devnet-accumulator-table`
    /// markers.
    pub fn accumulator_markdown(&self) -> String {
        let mut s = String::from(
            "| step | what | verifier | mode | leaves appended | mmr_size after | node cycles (= ckb-debugger) | of which the type script or MMR lock | tx bytes | witness bytes | weight | fee paid (shannons) | min fee (shannons) |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.accumulator {
            let cost = r.cost();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.step,
                r.note,
                r.verifier.unwrap_or(""),
                r.mode.map_or("", mode_name),
                thousands(r.leaves_appended),
                thousands(r.mmr_size_after),
                thousands(r.node_cycles),
                thousands(r.script_cycles),
                thousands(r.tx_bytes),
                thousands(r.witness_bytes),
                thousands(cost.weight),
                thousands(r.fee_shannons),
                thousands(cost.fee)
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
                thousands(d.binary_bytes),
                thousands(d.capacity_shannons / 100_000_000),
                thousands(d.fee_shannons)
            ));
        }
        s.push_str(
            "\n| verifier | mode | deployment | node cycles (= ckb-debugger) | of which the MMR lock | tx bytes | cycle weight | weight | fee paid (shannons) | min fee (shannons) |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.spends {
            let deployment = if r.upgraded {
                "type, after upgrade"
            } else {
                r.deployment
            };
            let cost = r.cost();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.verifier,
                mode_name(r.mode),
                deployment,
                thousands(r.node_cycles),
                thousands(r.mmr_lock_cycles),
                thousands(r.tx_bytes),
                thousands(r.cycles_weight()),
                thousands(cost.weight),
                thousands(r.fee_shannons),
                thousands(cost.fee)
            ));
        }
        s
    }

    /// What `ckb-devnet scenario` prints: every row, with hashes left to report.json.
    pub fn table(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "\n{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>9} {:>10} {:>8}\n",
            "verifier",
            "mode",
            "deploy",
            "upgraded",
            "status",
            "node cycles",
            "debugger",
            "tx bytes",
            "cycle weight",
            "weight",
            "fee paid",
            "min fee"
        ));
        for r in &self.spends {
            let cost = r.cost();
            s.push_str(&format!(
                "{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>9} {:>10} {:>8}\n",
                r.verifier,
                mode_name(r.mode),
                r.deployment,
                r.upgraded,
                r.status,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.cycles_weight(),
                cost.weight,
                r.fee_shannons,
                cost.fee
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
            "\n{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8} {:>9} {:>8}\n",
            "acc step",
            "what",
            "verifier",
            "mode",
            "leaves",
            "mmr_size",
            "node cycles",
            "debugger",
            "tx bytes",
            "witness",
            "weight",
            "min fee"
        ));
        for r in &self.accumulator {
            let cost = r.cost();
            s.push_str(&format!(
                "{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8} {:>9} {:>8}\n",
                r.step,
                r.note,
                r.verifier.unwrap_or("-"),
                r.mode.map_or("-", mode_name),
                r.leaves_appended,
                r.mmr_size_after,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.witness_bytes,
                cost.weight,
                cost.fee
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
    use crate::scenario::report::Report;

    #[test]
    fn writes_both_tables_between_their_markers() {
        let doc = "a\n<!-- devnet-table:start -->\nold\n<!-- devnet-table:end -->\n\
                   <!-- devnet-accumulator-table:start -->\nold\n<!-- devnet-accumulator-table:end -->\n";
        let report = Report::new("http://127.0.0.1:8114", 1);
        let new = report.write_tables(doc).unwrap();
        let shown = |name| doc_blocks::between(&new, name).unwrap();
        assert_eq!(shown("devnet-table"), report.markdown());
        assert_eq!(
            shown("devnet-accumulator-table"),
            report.accumulator_markdown()
        );
        assert!(new.starts_with("a\n"));
        let e = report.write_tables("no markers").unwrap_err();
        assert_eq!(e.to_string(), "no <!-- devnet-table:start --> marker");
    }
}
