//! The accumulator part's steps on the shared context: honest updates and spends by
//! reference, committed and measured as [`AccRow`]s, refusals followed by the honest
//! transaction, and the committed transactions that are no step ([`CheckedTx`]).

use crate::scenario::acc_state::{AccState, RefCells};
use crate::scenario::code::{needed, Verifier};
use crate::scenario::ctx::{Ctx, Measured, Refusal};
use crate::scenario::report::{AccRow, CheckedTx};
use ckb_mmr_sdk::accumulator::{self, Accumulator, Update};
use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::deploy::Deployment;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::mmr_cell::Spend;
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{Built, Wallet};
use ckb_mmr_sdk::{Mode, Workload};
use ckb_types::{packed, H256};

/// What a refusal's honest follow-up is measured as: an update (its step and note), or a
/// spend (its verifier and mode, and note).
pub enum Then {
    Update(&'static str, &'static str),
    Spend((Verifier, Mode), &'static str),
}

/// A step's leaves appended and mmr_size after it.
fn growth(before: &Accumulator, after: &Accumulator) -> (u64, u64) {
    (
        after.leaf_count - before.leaf_count,
        after.commitment.mmr_size,
    )
}

impl Ctx<'_> {
    /// The accumulator's type script deployment.
    pub fn acc_code(&self) -> Result<&Deployment> {
        needed(&self.deployed.accumulator, "the accumulator's type script")
    }

    pub fn acc(&self) -> Result<&AccState> {
        self.acc
            .as_ref()
            .ok_or_else(|| Error::Scenario("the accumulator is not created yet".into()))
    }

    pub fn acc_mut(&mut self) -> Result<&mut AccState> {
        self.acc
            .as_mut()
            .ok_or_else(|| Error::Scenario("the accumulator is not created yet".into()))
    }

    pub fn ref_cells(&self) -> Result<&RefCells> {
        self.ref_cells
            .as_ref()
            .ok_or_else(|| Error::Scenario("no cells are locked by reference yet".into()))
    }

    /// The accumulator's current cell.
    pub fn current(&self) -> Result<&Accumulator> {
        Ok(&self.acc()?.current)
    }

    fn acc_measure(&mut self, hash: &H256, what: &str) -> Result<Measured> {
        let m = self.measure(hash)?;
        progress(&format!(
            "accumulator {what}: node {:?} cycles, ckb-debugger {}",
            m.node_cycles, m.debugger_cycles
        ));
        Ok(m)
    }

    /// Measures a committed transaction of the accumulator's part that is no step.
    pub fn acc_check_only(&mut self, hash: &H256, what: &'static str) -> Result<()> {
        let m = self.acc_measure(hash, what)?;
        self.report.accumulator_other.push(CheckedTx {
            what,
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(0),
            debugger_cycles: m.debugger_cycles,
        });
        Ok(())
    }

    /// Measures a committed step as a row.
    pub fn acc_row(
        &mut self,
        hash: &H256,
        (step, note): (&'static str, &'static str),
        spend: Option<(Verifier, Mode)>,
        (leaves_appended, mmr_size_after): (u64, u64),
    ) -> Result<()> {
        let m = self.acc_measure(hash, &format!("{step} ({note})"))?;
        let script_cycles = if spend.is_some() {
            m.first_lock_cycles
        } else {
            m.type_cycles
        };
        self.report.accumulator.push(AccRow {
            step,
            note,
            verifier: spend.map(|s| s.0.name()),
            mode: spend.map(|s| s.1),
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(0),
            debugger_cycles: m.debugger_cycles,
            script_cycles,
            tx_bytes: m.tx_bytes,
            witness_bytes: m.witness0_bytes,
            fee_shannons: m.fee_shannons,
            leaves_appended,
            mmr_size_after,
        });
        Ok(())
    }

    /// The honest update of the current accumulator, signed by `admin`.
    pub fn acc_update(&self, admin: &Wallet, update: &Update) -> Result<Built> {
        let acc = self.current()?;
        let (new, lock, payload) = update.parts(acc)?;
        let draft = accumulator::update_draft(acc, self.acc_code()?, &new, lock, &payload);
        accumulator::complete(admin, draft)
    }

    /// The accumulator `built` leaves behind.
    fn acc_after(&self, built: &Built) -> Result<Accumulator> {
        accumulator::after(self.current()?.code_hash, built)
    }

    /// Makes `after` the current accumulator; returns the one it replaces.
    fn acc_advance(&mut self, after: Accumulator) -> Result<Accumulator> {
        Ok(std::mem::replace(&mut self.acc_mut()?.current, after))
    }

    /// Commits an honest update, measures its row and makes its accumulator the current one.
    pub fn acc_commit_update(
        &mut self,
        admin: &Wallet,
        built: &Built,
        (step, note): (&'static str, &'static str),
    ) -> Result<()> {
        let hash = accumulator::send(admin, built, note)?;
        let after = self.acc_after(built)?;
        let before = self.acc_advance(after.clone())?;
        self.acc_row(&hash, (step, note), None, growth(&before, &after))
    }

    /// The spend of a by-reference `cell` proving `w`'s leaves of the current accumulator.
    pub fn acc_spend(
        &self,
        cell: &IndexedCell,
        verifier: Verifier,
        mode: Mode,
        w: &Workload,
    ) -> Result<Built> {
        let d = self.deployed.data2(verifier)?;
        Spend::new(cell.clone(), d.clone(), w, verifier.format(), mode)?
            .with_dep(self.current()?.cell_dep())
            .build(&self.spender(mode))
    }

    /// Commits a spend by reference and measures its row.
    pub fn acc_commit_spend(
        &mut self,
        built: &Built,
        (verifier, mode): (Verifier, Mode),
        note: &'static str,
    ) -> Result<()> {
        let hash = self.chain.send_and_commit(&built.tx)?;
        let mmr_size = self.current()?.commitment.mmr_size;
        self.acc_row(
            &hash,
            ("spend", note),
            Some((verifier, mode)),
            (0, mmr_size),
        )
    }

    /// Sends `r` (a refusal whose follow-up is the honest `r.then`), records its row, and
    /// measures the follow-up as `then` says: an update makes its accumulator the current
    /// one.
    pub fn acc_refuse_then(&mut self, r: Refusal, then: Then) -> Result<()> {
        let after = match (&then, &r.then) {
            (Then::Update(..), Ok(built)) => Some(self.acc_after(built)?),
            _ => None,
        };
        let row = self.refusal(r)?;
        let hash = row
            .spent_after
            .as_ref()
            .ok()
            .and_then(|h| ckb_mmr_sdk::parse_hash("tx hash", h).ok())
            .map(H256);
        self.report.refusals.push(row);
        match then {
            Then::Update(step, note) => {
                // The honest update is the accumulator from now on; had it not committed,
                // its refusal row would not be as expected.
                let Some(after) = after else { return Ok(()) };
                let before = self.acc_advance(after.clone())?;
                if let Some(h) = hash {
                    self.acc_row(&h, (step, note), None, growth(&before, &after))?;
                }
            }
            Then::Spend(spend, note) => {
                if let Some(h) = hash {
                    let mmr_size = self.current()?.commitment.mmr_size;
                    self.acc_row(&h, ("spend", note), Some(spend), (0, mmr_size))?;
                }
            }
        }
        Ok(())
    }
}

/// The refusal of `forged` on the current accumulator with the type script's `expected` code.
pub fn acc_refusal<'t>(
    case: &'static str,
    forged: &'t packed::Transaction,
    acc: &'t Accumulator,
    expected: mmr_accumulator::Error,
    then: Built,
) -> Refusal<'t> {
    Refusal {
        case,
        verifier: "accumulator",
        tx: forged,
        cell: &acc.cell,
        expected_code: Some(expected.code()),
        expected_message: None,
        then: Ok(then),
    }
}
