//! The honest spends: a cell locked with the reference seed's MMR in the lock args, spent with
//! its proof, per verifier and mode, and across the type id's upgrade. Each adds a spend row:
//! the node's cycles, `estimate_cycles` and ckb-debugger's, which [`Report::check`] holds
//! equal.
//!
//! [`Report::check`]: crate::scenario::Report::check

use crate::scenario::code::{needed, Verifier};
use crate::scenario::ctx::{Case, Ctx};
use crate::scenario::report::mode_name;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::{Format, Mode};

/// A cell locked by the verifier's data2 deployment in `mode` opens to the reference proof
/// (and, in owner mode, the owner's input), for the cycles the cycle gate records.
pub struct LockAndSpend {
    pub verifier: Verifier,
    pub mode: Mode,
}

impl Case for LockAndSpend {
    fn name(&self) -> String {
        format!(
            "lock and spend, {} {} (data2)",
            self.verifier.name(),
            mode_name(self.mode)
        )
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (verifier, mode) = (self.verifier, self.mode);
        let d = ctx.deployed.data2(verifier)?.clone();
        let cell = ctx.lock(&d.code, mode)?;
        let built = ctx.honest(&cell, &d, verifier.format(), mode)?;
        ctx.commit_spend(&built, (verifier.name(), mode), "data2", false)
    }
}

/// A cell locked under the type id opens like a data2 one. A second cell, locked before the
/// upgrade, is left for [`SpendAcrossUpgrade`].
pub struct SpendByTypeId;

impl Case for SpendByTypeId {
    fn name(&self) -> String {
        "lock and spend, compiled plain (type id)".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let typed = needed(&ctx.deployed.type_id, "the type id deployment")?.clone();
        let before = ctx.lock(&typed.code, Mode::Plain)?;
        ctx.locked_before_upgrade = Some(ctx.lock(&typed.code, Mode::Plain)?);
        let built = ctx.honest(&before, &typed, Format::Compiled, Mode::Plain)?;
        ctx.commit_spend(
            &built,
            (Verifier::Compiled.name(), Mode::Plain),
            "type",
            false,
        )
    }
}

/// A cell locked under the type id before its upgrade opens after it, now run by the C
/// verifier: an upgrade keeps every cell spendable.
pub struct SpendAcrossUpgrade;

impl Case for SpendAcrossUpgrade {
    fn name(&self) -> String {
        "spend across the upgrade, c plain (type id)".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let upgraded = needed(&ctx.deployed.upgraded, "the upgrade")?.clone();
        let cell = ctx
            .locked_before_upgrade
            .take()
            .ok_or_else(|| Error::Scenario("no cell was locked before the upgrade".into()))?;
        let built = ctx.honest(&cell, &upgraded, Format::Compiled, Mode::Plain)?;
        ctx.commit_spend(&built, (Verifier::C.name(), Mode::Plain), "type", true)
    }
}
