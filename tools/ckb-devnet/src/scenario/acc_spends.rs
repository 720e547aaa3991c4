//! Spends by reference: cells whose lock names the accumulator's type hash instead of a root,
//! opened against whatever the accumulator holds when they are spent, with every verifier and
//! mode; and the refusals of a stale proof, a spend that lost a race to an append, and a
//! counterfeit accumulator.

use crate::scenario::acc_state::{RefCells, AFTER_FIRST_APPEND, AFTER_SECOND_APPEND, CREATED};
use crate::scenario::acc_steps::Then;
use crate::scenario::code::Verifier;
use crate::scenario::ctx::{Case, Ctx, Refusal};
use crate::scenario::report::mode_name;
use ckb_mmr_sdk::accumulator::{self, Update};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{exact_output, Built, Draft, Pay, Wallet};
use ckb_mmr_sdk::{Mode, Workload, REFERENCE_SEED};
use ckb_types::{bytes::Bytes, packed, prelude::*};

/// The checked transactions without a row: the 11 cells locked by reference (one
/// transaction), the plain cell holding the counterfeit accumulator's data.
pub const LOCKED_BY_REFERENCE: &str = "11 cells locked by reference";
pub const COUNTERFEIT_CELL: &str = "counterfeit accumulator's plain cell";

/// While the accumulator holds 7 leaves, one transaction locks by reference a cell per
/// verifier and mode for the reference proof, and the cells the later cases spend.
pub struct LockByReference;

impl Case for LockByReference {
    fn name(&self) -> String {
        "lock cells by reference".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let acc = ctx.current()?;
        let lock = |v: Verifier, mode: Mode| -> Result<packed::Script> {
            Ok(acc.reference_lock(&ctx.deployed.data2(v)?.code, mode))
        };
        let locks = RefCells::reference_order()
            .chain(RefCells::NAMED.map(|v| (v, Mode::Plain)))
            .map(|(v, mode)| lock(v, mode))
            .collect::<Result<Vec<_>>>()?;
        let cap = mmr_cell::DEFAULT_CELL_CAPACITY;
        let (cells, _) = accumulator::lock_cells(&ctx.payer(), &locks, cap)?;
        let hash = cells
            .first()
            .ok_or_else(|| Error::Scenario("no cell locked by reference".into()))?
            .out_point
            .tx_hash()
            .unpack();
        ctx.ref_cells = Some(RefCells::from_outputs(cells)?);
        ctx.acc_check_only(&hash, LOCKED_BY_REFERENCE)
    }
}

/// A cell locked when the accumulator held 7 leaves opens by the leaf appended after it was
/// locked: a reference lock follows the accumulator.
pub struct SpendByAppendedLeaf;

impl Case for SpendByAppendedLeaf {
    fn name(&self) -> String {
        "spend by the leaf appended after locking".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let w = ctx.acc()?.workload(AFTER_FIRST_APPEND, &[CREATED as u64])?;
        let cell = ctx.ref_cells()?.appended_leaf.clone();
        let built = ctx.acc_spend(&cell, Verifier::Compiled, Mode::Plain, &w)?;
        let spend = (Verifier::Compiled, Mode::Plain);
        ctx.acc_commit_spend(&built, spend, "by the leaf appended after locking")
    }
}

/// A proof built against the 7-leaf root, sent once the accumulator holds 8: the baseline
/// verifier computes the old root, not the accumulator's (9; the compiled format would stop
/// earlier, at the old peaks' places: 59 `PeakMismatch`). Rebuilt against the new root, it
/// opens.
pub struct StaleProofAfterAppend;

impl Case for StaleProofAfterAppend {
    fn name(&self) -> String {
        "acc_stale_proof_after_append".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (v, mode) = (Verifier::Baseline, Mode::Plain);
        let cell = ctx.ref_cells()?.stale_proof.clone();
        let stale = ctx.acc()?.workload(CREATED, &[0, 3])?;
        let tx = ctx.acc_spend(&cell, v, mode, &stale)?;
        let fresh = ctx.acc()?.workload(AFTER_FIRST_APPEND, &[0, 3])?;
        let then = ctx.acc_spend(&cell, v, mode, &fresh)?;
        let refused = (&tx.tx, Some(9), None);
        refuse_then_spend(
            ctx,
            "acc_stale_proof_after_append",
            (v, mode),
            &cell,
            refused,
            then,
            "proof rebuilt against the new root",
        )
    }
}

/// A spend built against the 8-leaf accumulator loses the race to the append of 10 leaves,
/// committed first: the pool refuses it (its cell dep is dead); rebuilt against the new
/// accumulator, it opens.
pub struct SpendRacingAppend;

impl Case for SpendRacingAppend {
    fn name(&self) -> String {
        "acc_spend_racing_append".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (v, mode) = (Verifier::C, Mode::Plain);
        let cell = ctx.ref_cells()?.race.clone();
        let racing_w = ctx.acc()?.workload(AFTER_FIRST_APPEND, &[1, 4])?;
        let racing = ctx.acc_spend(&cell, v, mode, &racing_w)?;
        let payer = ctx.payer();
        let leaves = ctx.acc()?.leaves[..AFTER_SECOND_APPEND].to_vec();
        let append10 = ctx.acc_update(&payer, &Update::Append(&leaves))?;
        ctx.acc_commit_update(&payer, &append10, ("append", "APPEND 10 leaves"))?;
        let rebuilt_w = ctx.acc()?.workload(AFTER_SECOND_APPEND, &[1, 4])?;
        let rebuilt = ctx.acc_spend(&cell, v, mode, &rebuilt_w)?;
        let refused = (&racing.tx, None, Some("Resolve failed"));
        refuse_then_spend(
            ctx,
            "acc_spend_racing_append",
            (v, mode),
            &cell,
            refused,
            rebuilt,
            "rebuilt after racing an append",
        )
    }
}

/// The reference proof (76 leaves of 2520) opens a by-reference cell with the verifier in
/// `mode`: the same proof the data2 spends carry, checked against the accumulator's root.
pub struct ReferenceProofByReference {
    pub verifier: Verifier,
    pub mode: Mode,
}

impl Case for ReferenceProofByReference {
    fn name(&self) -> String {
        format!(
            "reference proof by reference, {} {}",
            self.verifier.name(),
            mode_name(self.mode)
        )
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (verifier, mode) = (self.verifier, self.mode);
        let cell = ctx.ref_cells()?.reference(verifier, mode)?.clone();
        let built = ctx.acc_spend(&cell, verifier, mode, &ctx.owned)?;
        ctx.acc_commit_spend(&built, (verifier, mode), "reference proof")
    }
}

/// `refused` (a spend of `cell` with its expected exit code or words of the node's message) is
/// refused as `case`, then the honest `then` spends the cell (with `spend`), noted `note`.
fn refuse_then_spend(
    ctx: &mut Ctx,
    case: &'static str,
    spend: (Verifier, Mode),
    cell: &IndexedCell,
    refused: (&packed::Transaction, Option<i8>, Option<&'static str>),
    then: Built,
    note: &'static str,
) -> Result<()> {
    let refusal = Refusal {
        case,
        verifier: spend.0.name(),
        tx: refused.0,
        cell,
        expected_code: refused.1,
        expected_message: refused.2,
        then: Ok(then),
    };
    ctx.acc_refuse_then(refusal, Then::Spend(spend, note))
}

/// A plain cell holding `data`, locked by the wallet's key.
fn data_cell(wallet: &Wallet, data: &[u8]) -> Result<IndexedCell> {
    let output = exact_output(wallet.key.lock(), None, data.len());
    let draft = Draft {
        outputs: vec![(output.clone(), Bytes::copy_from_slice(data))],
        ..Draft::default()
    };
    let built = wallet.complete(draft, Pay::Wallet { min_inputs: 1 })?;
    let hash = wallet.chain.send_and_commit(&built.tx)?;
    Ok(IndexedCell {
        out_point: packed::OutPoint::new(hash.pack(), 0),
        output,
        data: Some(data.to_vec()),
    })
}

/// A counterfeit accumulator (a plain cell holding another MMR's commitment, with a valid
/// proof against it) as the cell dep: no dep has the accumulator's type hash (90,
/// `AccumulatorNotFound`). With the accumulator as the dep, the cell opens.
pub struct CounterfeitDep;

impl Case for CounterfeitDep {
    fn name(&self) -> String {
        "acc_counterfeit_dep".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let (v, mode) = (Verifier::Compiled, Mode::Plain);
        let payer = ctx.payer();
        let fake = Workload::from_seed_with_owner(REFERENCE_SEED, [0x5a; 32]);
        let fake_cell = data_cell(&payer, &fake.lock_args())?;
        ctx.acc_check_only(&fake_cell.out_point.tx_hash().unpack(), COUNTERFEIT_CELL)?;
        let cell = ctx.ref_cells()?.counterfeit_dep.clone();
        let d = ctx.deployed.data2(v)?.clone();
        let fake_dep = packed::CellDep::new_builder()
            .out_point(fake_cell.out_point.clone())
            .build();
        let counterfeit = Spend::new(cell.clone(), d, &fake, v.format(), mode)?
            .with_dep(fake_dep)
            .build(&payer)?;
        let then = ctx.acc_spend(&cell, v, mode, &ctx.owned)?;
        let refused = (
            &counterfeit.tx,
            Some(mmr_lock::LockError::AccumulatorNotFound.code()),
            None,
        );
        refuse_then_spend(
            ctx,
            "acc_counterfeit_dep",
            (v, mode),
            &cell,
            refused,
            then,
            "after a counterfeit dep was refused",
        )
    }
}

/// A by-reference cell opens against the handed-over accumulator: a new cell and a new
/// admin, the same type hash.
pub struct SpendAfterHandOver;

impl Case for SpendAfterHandOver {
    fn name(&self) -> String {
        "spend after the hand-over".into()
    }

    fn run(&self, ctx: &mut Ctx) -> Result<()> {
        let spend = (Verifier::Baseline, Mode::Plain);
        let cell = ctx.ref_cells()?.after_handover.clone();
        let built = ctx.acc_spend(&cell, spend.0, spend.1, &ctx.owned)?;
        ctx.acc_commit_spend(&built, spend, "after the hand-over")
    }
}
