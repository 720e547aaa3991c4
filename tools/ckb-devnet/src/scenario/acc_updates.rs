//! The accumulator's administration: its creation, the refused forgeries of an append, an
//! extension and a destruction (each followed by the honest update), the hand-over to a new
//! admin, and the check that the chain holds the accumulator the cases tracked.

use crate::scenario::acc_state::{AccState, AFTER_FIRST_APPEND, CREATED};
use crate::scenario::acc_steps::{acc_refusal, Then};
use crate::scenario::ctx::{sweep, Case, Ctx};
use ckb_mmr_sdk::accumulator::{self, Update};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::REFERENCE_SEED;
use ckb_types::{bytes::Bytes, packed, prelude::*};
use mmr_accumulator::tag;

/// An accumulator is created by the payer (its first admin) with 7 of the reference seed's
/// leaves (three peaks, so that one appended leaf carries through all three). The leaves are
/// the owner variant's: `owner.key`'s lock hash is the first proved one.
pub struct CreateAccumulator;

impl Case for CreateAccumulator {
    fn name(&self) -> String {
        "create the accumulator".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (mut leaves, indexes) = ckb_mmr_sdk::seeded_leaves(REFERENCE_SEED);
        let first = *indexes.iter().min().expect("proved leaves");
        leaves[first as usize] = ctx.owner().key.lock_hash();
        let code = ctx.acc_code()?.clone();
        let payer = ctx.payer();
        let draft = accumulator::create_draft(&code, payer.key.lock(), &leaves[..CREATED])?;
        let built = accumulator::complete(&payer, draft)?;
        let hash = accumulator::send(&payer, &built, "creating the accumulator")?;
        let current = accumulator::after(code.data_hash, &built)?;
        let mmr_size = current.commitment.mmr_size;
        ctx.acc = Some(AccState { leaves, current });
        ctx.acc_row(
            &hash,
            ("create", "CREATE"),
            None,
            (CREATED as u64, mmr_size),
        )
    }
}

/// An append whose payload alters the first old peak is refused (102, `OldRootMismatch`);
/// the honest append of 1 leaf follows.
pub struct ForgedAppend;

impl Case for ForgedAppend {
    fn name(&self) -> String {
        "acc_forged_append".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let payer = ctx.payer();
        let acc = ctx.current()?.clone();
        let leaves = ctx.acc()?.leaves[..AFTER_FIRST_APPEND].to_vec();
        let honest = ctx.acc_update(&payer, &Update::Append(&leaves))?;
        let (new, lock, mut payload) = Update::Append(&leaves).parts(&acc)?;
        payload[1] ^= 1;
        let draft = accumulator::update_draft(&acc, ctx.acc_code()?, &new, lock, &payload);
        let forged = accumulator::complete(&payer, draft)?;
        let expected = mmr_accumulator::Error::OldRootMismatch;
        let refusal = acc_refusal("acc_forged_append", &forged.tx, &acc, expected, honest);
        ctx.acc_refuse_then(refusal, Then::Update("append", "APPEND 1 leaf"))
    }
}

/// An extension to all 2520 reference leaves whose output claims another MMR of the same
/// size is refused (113, `NewRootMismatch`); the honest extension by an ancestry proof
/// follows.
pub struct ForgedAncestry;

impl Case for ForgedAncestry {
    fn name(&self) -> String {
        "acc_forged_ancestry".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let payer = ctx.payer();
        let acc = ctx.current()?.clone();
        let leaves = ctx.acc()?.leaves.clone();
        let honest = ctx.acc_update(&payer, &Update::Extend(&leaves))?;
        let mut other = leaves.clone();
        other.last_mut().expect("leaves")[0] ^= 1;
        let (_, lock, payload) = Update::Extend(&leaves).parts(&acc)?;
        let forged_new = accumulator::commitment(&other)?;
        let draft = accumulator::update_draft(&acc, ctx.acc_code()?, &forged_new, lock, &payload);
        let forged = accumulator::complete(&payer, draft)?;
        let expected = mmr_accumulator::Error::NewRootMismatch;
        let refusal = acc_refusal("acc_forged_ancestry", &forged.tx, &acc, expected, honest);
        ctx.acc_refuse_then(
            refusal,
            Then::Update("extend", "EXTEND by an ancestry proof"),
        )
    }
}

/// The admin hands the accumulator to `owner.key` (`KEEP`, signed by the payer): the data
/// stays, the lock changes.
pub struct HandOver;

impl Case for HandOver {
    fn name(&self) -> String {
        "hand the accumulator over".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let payer = ctx.payer();
        let handover = ctx.acc_update(&payer, &Update::Keep(ctx.owner().key.lock()))?;
        ctx.acc_commit_update(&payer, &handover, ("handover", "KEEP under owner.key"))
    }
}

/// The new admin's spend of the accumulator without a successor is refused (122,
/// `DestroyRefused`); its append of a leaf of its own follows.
pub struct DestroyRefused;

impl Case for DestroyRefused {
    fn name(&self) -> String {
        "acc_destroy".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let owner = ctx.owner();
        let acc = ctx.current()?.clone();
        let keep = packed::WitnessArgs::new_builder()
            .input_type(Some(Bytes::from(vec![tag::KEEP])).pack())
            .build();
        let destroy = sweep(
            &owner,
            &acc.cell,
            ctx.acc_code()?.cell_dep(),
            keep.as_bytes(),
        )?;
        ctx.acc_mut()?.leaves.push(owner.key.lock_hash());
        let leaves = ctx.acc()?.leaves.clone();
        let append = ctx.acc_update(&owner, &Update::Append(&leaves))?;
        let expected = mmr_accumulator::Error::DestroyRefused;
        let refusal = acc_refusal("acc_destroy", &destroy.tx, &acc, expected, append);
        ctx.acc_refuse_then(
            refusal,
            Then::Update("append", "APPEND 1 leaf by the new admin"),
        )
    }
}

/// The accumulator the chain holds is the one the cases tracked, update by update.
pub struct AccumulatorOnChain;

impl Case for AccumulatorOnChain {
    fn name(&self) -> String {
        "the accumulator on chain".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let acc = ctx.current()?;
        let code_hash = ctx.acc_code()?.data_hash;
        if accumulator::find(ctx.chain, code_hash, acc.type_id)?.commitment != acc.commitment {
            return Err(Error::Scenario(
                "the accumulator on chain is not the scenario's last one".into(),
            ));
        }
        Ok(())
    }
}
