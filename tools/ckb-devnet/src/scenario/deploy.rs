//! The deployment cases: the verifiers as data2 code cells and under a type id, the type id's
//! upgrade, the accumulator's type script. Each adds a row to the report's deployments.

use crate::scenario::code::{needed, Verifier};
use crate::scenario::ctx::{Case, Ctx};
use crate::scenario::report::DeployRow;
use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::deploy::{self, CodeRef, Deployment};
use ckb_mmr_sdk::error::{Error, Result};

fn deploy_row(verifier: &'static str, d: &Deployment, binary_bytes: usize) -> DeployRow {
    DeployRow {
        verifier,
        deployment: d.code.kind(),
        out_point: ckb_mmr_sdk::out_point_text(&d.out_point),
        binary_bytes,
        capacity_shannons: d.capacity(),
        fee_shannons: d.fee,
    }
}

/// A verifier deploys as a data2 code cell: 1 CKB a byte of binary, lock and capacity field.
pub struct DeployData2(pub Verifier);

impl Case for DeployData2 {
    fn name(&self) -> String {
        format!("deploy {} (data2)", self.0.name())
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let v = self.0;
        progress(&format!("deploying {} (data2)", v.name()));
        let binary = ctx.binaries.verifier(v);
        let d = deploy::deploy(&ctx.payer(), binary, false)?;
        let row = deploy_row(v.name(), &d, binary.len());
        ctx.report.deployments.push(row);
        ctx.deployed.set_data2(v, d);
        Ok(())
    }
}

/// The compiled verifier deploys under a type id (the type script's 65 bytes on top).
pub struct DeployTypeId;

impl Case for DeployTypeId {
    fn name(&self) -> String {
        "deploy compiled (type id)".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        progress("deploying compiled (type id)");
        let binary = ctx.binaries.verifier(Verifier::Compiled);
        let d = deploy::deploy(&ctx.payer(), binary, true)?;
        let row = deploy_row(Verifier::Compiled.name(), &d, binary.len());
        ctx.report.deployments.push(row);
        ctx.deployed.type_id = Some(d);
        Ok(())
    }
}

/// The type id deployment upgrades in place to the C verifier (same compiled format): the
/// type hash every lock names now runs the new binary.
pub struct Upgrade;

impl Case for Upgrade {
    fn name(&self) -> String {
        "upgrade the type id to c".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let typed = needed(&ctx.deployed.type_id, "the type id deployment")?;
        let CodeRef::TypeId { args } = typed.code else {
            return Err(Error::Scenario(
                "the type id deployment has no type id".into(),
            ));
        };
        progress("upgrading the type id deployment to the C verifier");
        let binary = ctx.binaries.verifier(Verifier::C);
        let upgraded = deploy::upgrade(&ctx.payer(), args, binary)?;
        let row = deploy_row(Verifier::C.name(), &upgraded, binary.len());
        ctx.report.deployments.push(row);
        ctx.deployed.upgraded = Some(upgraded);
        Ok(())
    }
}

/// The accumulator's type script deploys as a data2 code cell.
pub struct DeployAccumulator;

impl Case for DeployAccumulator {
    fn name(&self) -> String {
        "deploy the accumulator (data2)".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        progress("deploying the accumulator type script (data2)");
        let binary = &ctx.binaries.accumulator;
        let d = deploy::deploy(&ctx.payer(), binary, false)?;
        let row = deploy_row("accumulator", &d, binary.len());
        ctx.report.deployments.push(row);
        ctx.deployed.accumulator = Some(d);
        Ok(())
    }
}
