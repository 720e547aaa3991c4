//! The refusals the MMR lock must produce, each on a cell of the compiled verifier's data2
//! deployment: the forged transaction is sent, the node must refuse it with the expected exit
//! code, the cell must still be live, and (where the cell can ever open) the honest spend
//! follows. The plain-mode replay, accepted by design, is here too.

use crate::scenario::code::Verifier;
use crate::scenario::ctx::{sweep, Case, Ctx, Refusal};
use ckb_mmr_sdk::deploy::Deployment;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{Built, SHANNONS_PER_CKB};
use ckb_mmr_sdk::{Mode, Workload, REFERENCE_SEED};
use ckb_types::{bytes::Bytes, core::ScriptHashType, packed, prelude::*};

/// secp256k1_blake160_sighash_all's exit code when the signature's public key hash is not the
/// lock's args: what a replayed owner signature gets.
pub const SECP_WRONG_SIGNATURE: i8 = -31;

/// The verifier every refusal here runs.
const VERIFIER: Verifier = Verifier::Compiled;

fn compiled(ctx: &Ctx) -> Result<Deployment> {
    Ok(ctx.deployed.data2(VERIFIER)?.clone())
}

/// The honest plain-mode spend of `cell`.
fn honest_plain(ctx: &Ctx, d: &Deployment, cell: &IndexedCell) -> Result<Built> {
    ctx.honest(cell, d, VERIFIER.format(), Mode::Plain)
}

/// The spend of `cell` by `d` (the verifier's deployment) proving `w` in `mode`.
fn spend(cell: &IndexedCell, d: &Deployment, w: &Workload, mode: Mode) -> Result<Spend> {
    Spend::new(cell.clone(), d.clone(), w, VERIFIER.format(), mode)
}

/// Sends `tx` against `cell`, then `then`, and records the row.
fn refuse(
    ctx: &mut Ctx,
    case: &'static str,
    (tx, cell): (&packed::Transaction, &IndexedCell),
    (expected_code, expected_message): (Option<i8>, Option<&'static str>),
    then: std::result::Result<Built, String>,
) -> Result<()> {
    let row = ctx.refusal(Refusal {
        case,
        verifier: VERIFIER.name(),
        tx,
        cell,
        expected_code,
        expected_message,
        then,
    })?;
    ctx.report.refusals.push(row);
    Ok(())
}

/// A plain cell spent with `forged`'s proof instead of its own: the lock computes another
/// root than its args' (9).
fn refuse_forged_proof(ctx: &mut Ctx, case: &'static str, forged: &Workload) -> Result<()> {
    let d = compiled(ctx)?;
    let cell = ctx.lock(&d.code, Mode::Plain)?;
    let tx = spend(&cell, &d, forged, Mode::Plain)?
        .build(&ctx.payer())?
        .tx;
    let honest = honest_plain(ctx, &d, &cell)?;
    refuse(ctx, case, (&tx, &cell), (Some(9), None), Ok(honest))
}

/// One flipped byte in the first proved leaf makes the proof compute another root: refused.
pub struct FlippedLeafByte;

impl Case for FlippedLeafByte {
    fn name(&self) -> String {
        "flipped_leaf_byte".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let mut flipped = ctx.plain.clone();
        flipped.proved[0].1[0] ^= 1;
        refuse_forged_proof(ctx, "flipped_leaf_byte", &flipped)
    }
}

/// A valid proof of another MMR of the same shape (other leaf values) opens nothing.
pub struct ProofForAnotherMmr;

impl Case for ProofForAnotherMmr {
    fn name(&self) -> String {
        "proof_for_another_mmr".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let other = Workload::from_seed_with_owner(REFERENCE_SEED, [0x5a; 32]);
        refuse_forged_proof(ctx, "proof_for_another_mmr", &other)
    }
}

/// `tx` with witness `i` replaced.
fn with_witness(tx: &packed::Transaction, i: usize, witness: Bytes) -> packed::Transaction {
    let mut ws: Vec<packed::Bytes> = tx.witnesses().into_iter().collect();
    ws[i] = witness.pack();
    tx.clone().as_builder().witnesses(ws.pack()).build()
}

/// The honest witness cut in half is no longer a `WitnessArgs`: refused (5) before any proof
/// is read.
pub struct TruncatedWitness;

impl Case for TruncatedWitness {
    fn name(&self) -> String {
        "truncated_witness".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let cell = ctx.lock(&d.code, Mode::Plain)?;
        let honest = honest_plain(ctx, &d, &cell)?;
        let witness = honest.tx.witnesses().get(0).expect("witness").raw_data();
        let tx = with_witness(&honest.tx, 0, witness.slice(..witness.len() / 2));
        let expected = (Some(5), None);
        refuse(ctx, "truncated_witness", (&tx, &cell), expected, Ok(honest))
    }
}

/// An owner-mode cell with a valid proof but no input of the owner's: refused (80).
pub struct OwnerInputMissing;

impl Case for OwnerInputMissing {
    fn name(&self) -> String {
        "owner_input_missing".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let cell = ctx.lock(&d.code, Mode::Owner)?;
        let witness = spend(&cell, &d, &ctx.owned, Mode::Owner)?.witness;
        let no_owner = sweep(&ctx.payer(), &cell, d.cell_dep(), witness)?;
        let honest = ctx.honest(&cell, &d, VERIFIER.format(), Mode::Owner)?;
        refuse(
            ctx,
            "owner_input_missing",
            (&no_owner.tx, &cell),
            (Some(80), None),
            Ok(honest),
        )
    }
}

/// An owner-mode spend seen in the mempool, replayed with its outputs redirected: the owner's
/// signature covers the outputs, so the owner's lock refuses it.
pub struct OwnerReplayOtherOutputs;

impl Case for OwnerReplayOtherOutputs {
    fn name(&self) -> String {
        "owner_replay_other_outputs".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let cell = ctx.lock(&d.code, Mode::Owner)?;
        let honest = ctx.honest(&cell, &d, VERIFIER.format(), Mode::Owner)?;
        let thief = ctx.payer().key.lock();
        let outputs: Vec<packed::CellOutput> = honest
            .tx
            .raw()
            .outputs()
            .into_iter()
            .map(|o| o.as_builder().lock(thief.clone()).build())
            .collect();
        let raw = honest.tx.raw().as_builder().outputs(outputs.pack()).build();
        let replay = honest.tx.clone().as_builder().raw(raw).build();
        refuse(
            ctx,
            "owner_replay_other_outputs",
            (&replay, &cell),
            (Some(SECP_WRONG_SIGNATURE), None),
            Ok(honest),
        )
    }
}

/// hash_type data runs VM version 0, which cannot run these binaries (no B extension; loading
/// already fails with MemWriteOnExecutablePage): a cell locked this way never opens.
pub struct HashTypeData;

impl Case for HashTypeData {
    fn name(&self) -> String {
        "hash_type_data".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let data_lock = packed::Script::new_builder()
            .code_hash(d.code.code_hash().pack())
            .hash_type(ScriptHashType::Data)
            .args(Bytes::from(ctx.plain.lock_args()).pack())
            .build();
        let cell = mmr_cell::lock_cell(&ctx.payer(), data_lock, 81 * SHANNONS_PER_CKB)?.0;
        let tx = honest_plain(ctx, &d, &cell)?.tx;
        refuse(
            ctx,
            "hash_type_data",
            (&tx, &cell),
            (None, Some("VM Internal Error")),
            Err("unspendable: VM version 0 cannot run the binary".into()),
        )
    }
}

/// 39-byte args are refused with ArgsLength (1) before anything else, forever.
pub struct Args39Bytes;

impl Case for Args39Bytes {
    fn name(&self) -> String {
        "args_39_bytes".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let short = d.code.lock(&ctx.plain.lock_args()[..39]);
        let cell = mmr_cell::lock_cell(&ctx.payer(), short, 80 * SHANNONS_PER_CKB)?.0;
        let tx = honest_plain(ctx, &d, &cell)?.tx;
        let then = Err("unspendable: the args can never be valid".into());
        refuse(ctx, "args_39_bytes", (&tx, &cell), (Some(1), None), then)
    }
}

/// Plain mode's documented limit: a proof seen once opens every cell with the same args. The
/// replay is accepted.
pub struct PlainReplayAccepted;

impl Case for PlainReplayAccepted {
    fn name(&self) -> String {
        "plain_replay_accepted".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let d = compiled(ctx)?;
        let first = ctx.lock(&d.code, Mode::Plain)?;
        let second = ctx.lock(&d.code, Mode::Plain)?;
        let seen = honest_plain(ctx, &d, &first)?;
        ctx.chain.send_and_commit(&seen.tx)?;
        let mut theft = spend(&second, &d, &ctx.plain, Mode::Plain)?;
        theft.witness = seen.tx.witnesses().get(0).expect("witness").raw_data();
        let replay = theft.build(&ctx.owner())?;
        refuse(
            ctx,
            "plain_replay_accepted",
            (&replay.tx, &second),
            (None, None),
            Err("spent by the replay".into()),
        )
    }
}
