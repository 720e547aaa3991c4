//! The accumulator's part of the devnet scenario: on the reference seed's leaves (the owner
//! variant, so `owner.key` is a leaf), create an accumulator with the first 7, lock cells by
//! reference with each verifier, append 1 leaf and then 10, extend to all 2520 leaves by an
//! ancestry proof, hand the accumulator to `owner.key`, and spend by reference after each step;
//! send the refusals the type script and the by-reference locks must produce. Every committed
//! transaction is measured by the node and by ckb-debugger: a row for each step, a
//! [`CheckedTx`] for the two that are none (the cells locked by reference, the counterfeit
//! accumulator's plain cell).

use crate::scenario::{Ctx, RefusalRow};
use ckb_mmr_sdk::accumulator::{self, Accumulator, Update};
use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::deploy::Deployment;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{exact_output, Built, Draft, Pay, Wallet};
use ckb_mmr_sdk::{Format, Mode, Workload, REFERENCE_SEED};
use ckb_types::{bytes::Bytes, packed, prelude::*, H256};
use mmr_accumulator::tag;

/// Leaves of the created accumulator: 7 (three peaks), so that one appended leaf carries
/// through all three.
pub const CREATED: usize = 7;
/// The two appends: 1 leaf (7 -> 8), then 10 (8 -> 18).
pub const APPENDS: [usize; 2] = [1, 10];

/// The [`CheckedTx`]s: the 11 cells locked by reference (one transaction), the plain cell
/// holding the counterfeit accumulator's data.
pub const LOCKED_BY_REFERENCE: &str = "11 cells locked by reference";
pub const COUNTERFEIT_CELL: &str = "counterfeit accumulator's plain cell";

/// One committed transaction of the accumulator's part.
pub struct AccRow {
    /// `create`, `append`, `extend`, `handover` or `spend`.
    pub step: &'static str,
    /// What the row shows (which spend, which admin).
    pub note: &'static str,
    /// Spends only.
    pub verifier: Option<&'static str>,
    pub mode: Option<Mode>,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub debugger_cycles: u64,
    /// The accumulator's type script group (create, append, extend, handover) or the MMR
    /// lock's group (spend), from ckb-debugger.
    pub script_cycles: u64,
    pub tx_bytes: usize,
    /// Witness 0: the type script's payload (with the admin's signature in its `lock`), or
    /// the MMR lock's proof.
    pub witness_bytes: usize,
    pub fee_shannons: u64,
    pub leaves_appended: u64,
    pub mmr_size_after: u64,
}

/// A committed transaction of the accumulator's part that is no step of [`AccRow`] (the cells
/// locked by reference, the counterfeit's plain cell): measured as a row is and held to the
/// same check (committed, node cycles = ckb-debugger's), but not in report.json, whose
/// `accumulator[]` rows are steps.
pub struct CheckedTx {
    pub what: &'static str,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub debugger_cycles: u64,
}

/// What the accumulator's part committed and refused.
pub struct AccPart {
    pub rows: Vec<AccRow>,
    pub refusals: Vec<RefusalRow>,
    pub checked: Vec<CheckedTx>,
}

struct Acc<'c, 'a> {
    ctx: &'c Ctx<'a>,
    code: Deployment,
    /// Every leaf the accumulator will hold (the owner variant of the reference seed's).
    leaves: Vec<[u8; 32]>,
    rows: Vec<AccRow>,
    refusals: Vec<RefusalRow>,
    checked: Vec<CheckedTx>,
}

impl Acc<'_, '_> {
    /// Measures a committed transaction: the node's and ckb-debugger's view of it.
    fn measure(&self, hash: &H256, what: &str) -> Result<crate::scenario::Measured> {
        let m = self.ctx.measure(hash)?;
        progress(&format!(
            "accumulator {what}: node {:?} cycles, ckb-debugger {}",
            m.node_cycles, m.debugger_cycles
        ));
        Ok(m)
    }

    /// Measures a committed transaction that is no step (see [`CheckedTx`]).
    fn check_only(&mut self, hash: &H256, what: &'static str) -> Result<()> {
        let m = self.measure(hash, what)?;
        self.checked.push(CheckedTx {
            what,
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(0),
            debugger_cycles: m.debugger_cycles,
        });
        Ok(())
    }

    /// Measures a committed transaction as a row.
    fn row(
        &mut self,
        hash: &H256,
        step: &'static str,
        note: &'static str,
        spend: Option<(&'static str, Mode)>,
        leaves_appended: u64,
        mmr_size_after: u64,
    ) -> Result<()> {
        let m = self.measure(hash, &format!("{step} ({note})"))?;
        let script_cycles = if spend.is_some() {
            m.first_lock_cycles
        } else {
            m.type_cycles
        };
        self.rows.push(AccRow {
            step,
            note,
            verifier: spend.map(|s| s.0),
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

    /// The honest update of `acc`, signed by `admin`.
    fn update(
        &self,
        admin: &Wallet,
        acc: &Accumulator,
        update: &Update,
    ) -> Result<(Built, mmr_accumulator::Commitment)> {
        let (new, lock, payload) = update.parts(acc)?;
        let draft = accumulator::update_draft(acc, &self.code, &new, lock, &payload);
        Ok((accumulator::complete(admin, draft)?, new))
    }

    /// Commits an honest update and returns the accumulator after it.
    fn commit_update(
        &mut self,
        admin: &Wallet,
        acc: &Accumulator,
        built: &Built,
        step: &'static str,
        note: &'static str,
    ) -> Result<Accumulator> {
        let hash = accumulator::send(admin, built, note)?;
        let after = accumulator::after(acc.code_hash, built)?;
        self.row(
            &hash,
            step,
            note,
            None,
            after.leaf_count - acc.leaf_count,
            after.commitment.mmr_size,
        )?;
        Ok(after)
    }

    /// The spend of a by-reference `cell` proving `indexes` of the accumulator's current MMR.
    fn spend(
        &self,
        acc: &Accumulator,
        cell: &IndexedCell,
        verifier: &Deployment,
        format: Format,
        mode: Mode,
        w: &Workload,
    ) -> Result<Built> {
        Spend::new(cell.clone(), verifier.clone(), w, format, mode)?
            .with_dep(acc.cell_dep())
            .build(self.ctx.spender(mode))
    }

    /// The accumulator's MMR over its first `n` leaves, proving `indexes`.
    fn workload(&self, n: usize, indexes: &[u64]) -> Result<Workload> {
        mmr_cell::prove(&self.leaves[..n], indexes)
    }

    /// Commits `built` (a spend) and measures it.
    fn commit_spend(
        &mut self,
        built: &Built,
        verifier: &'static str,
        mode: Mode,
        note: &'static str,
        acc: &Accumulator,
    ) -> Result<()> {
        let hash = self.ctx.chain.send_and_commit(&built.tx)?;
        self.row(
            &hash,
            "spend",
            note,
            Some((verifier, mode)),
            0,
            acc.commitment.mmr_size,
        )
    }

    /// A refusal whose honest follow-up is measured as a row.
    #[allow(clippy::too_many_arguments)]
    fn refuse_then(
        &mut self,
        case: &'static str,
        verifier: &'static str,
        tx: &packed::Transaction,
        cell: &IndexedCell,
        expected_code: Option<i8>,
        expected_message: Option<&'static str>,
        then: Built,
    ) -> Result<Option<H256>> {
        let r = self.ctx.refusal(
            case,
            verifier,
            tx,
            cell,
            expected_code,
            expected_message,
            Ok(then),
        )?;
        let hash = r
            .spent_after
            .as_ref()
            .ok()
            .and_then(|h| ckb_mmr_sdk::parse_hash("tx hash", h).ok())
            .map(H256);
        self.refusals.push(r);
        Ok(hash)
    }

    /// Refuses `forged` with the type script's `expected` code, then commits the honest
    /// update `then` of `acc` and returns the accumulator after it, its row measured.
    fn refuse_then_update(
        &mut self,
        case: &'static str,
        forged: &packed::Transaction,
        acc: &Accumulator,
        expected: mmr_accumulator::Error,
        then: Built,
        (step, note): (&'static str, &'static str),
    ) -> Result<Accumulator> {
        let after = accumulator::after(acc.code_hash, &then)?;
        let hash = self.refuse_then(
            case,
            "accumulator",
            forged,
            &acc.cell,
            Some(expected.code()),
            None,
            then,
        )?;
        if let Some(h) = hash {
            let appended = after.leaf_count - acc.leaf_count;
            self.row(&h, step, note, None, appended, after.commitment.mmr_size)?;
        }
        Ok(after)
    }

    /// Refuses the spend `forged` of `cell` (by `verifier`), then commits the spend `then`
    /// against `acc`, its row measured.
    #[allow(clippy::too_many_arguments)]
    fn refuse_then_spend(
        &mut self,
        case: &'static str,
        (verifier, mode): (&'static str, Mode),
        forged: &packed::Transaction,
        cell: &IndexedCell,
        (expected_code, expected_message): (Option<i8>, Option<&'static str>),
        then: Built,
        note: &'static str,
        acc: &Accumulator,
    ) -> Result<()> {
        let hash = self.refuse_then(
            case,
            verifier,
            forged,
            cell,
            expected_code,
            expected_message,
            then,
        )?;
        if let Some(h) = hash {
            let spend = Some((verifier, mode));
            self.row(&h, "spend", note, spend, 0, acc.commitment.mmr_size)?;
        }
        Ok(())
    }
}

/// The accumulator's part of the scenario. `verifiers` are the three data2 deployments
/// (baseline, c, compiled), `binary` the type script.
pub(crate) fn run(
    ctx: &Ctx,
    verifiers: &[(&'static str, &Deployment, Format)],
    code: Deployment,
) -> Result<AccPart> {
    let (mut leaves, indexes) = ckb_mmr_sdk::seeded_leaves(REFERENCE_SEED);
    // The owner variant: the first proved leaf is owner.key's lock hash (ctx.owned's MMR).
    let first = *indexes.iter().min().expect("proved leaves");
    leaves[first as usize] = ctx.owner.key.lock_hash();
    let mut s = Acc {
        ctx,
        code,
        leaves,
        rows: Vec::new(),
        refusals: Vec::new(),
        checked: Vec::new(),
    };
    let payer = &ctx.payer;
    let code_hash = s.code.data_hash;
    let compiled = verifiers[2].1;
    let c_verifier = verifiers[1].1;

    // Creation by the payer (the first admin).
    let draft = accumulator::create_draft(&s.code, payer.key.lock(), &s.leaves[..CREATED])?;
    let built = accumulator::complete(payer, draft)?;
    let hash = accumulator::send(payer, &built, "creating the accumulator")?;
    let mut acc = accumulator::after(code_hash, &built)?;
    s.row(
        &hash,
        "create",
        "CREATE",
        None,
        CREATED as u64,
        acc.commitment.mmr_size,
    )?;

    // Cells locked by reference while the accumulator holds 7 leaves: one per verifier and
    // mode for the reference proof, and the ones the other steps spend.
    let mut locks = Vec::new();
    for (_, d, _) in verifiers {
        for mode in [Mode::Plain, Mode::Owner] {
            locks.push(acc.reference_lock(&d.code, mode));
        }
    }
    let plain = |d: &Deployment| acc.reference_lock(&d.code, Mode::Plain);
    // 6: a leaf appended later; 7: the race; 8: the stale proof; 9: the counterfeit dep;
    // 10: after the hand-over.
    locks.extend([
        plain(compiled),
        plain(c_verifier),
        plain(verifiers[0].1),
        plain(compiled),
        plain(verifiers[0].1),
    ]);
    let (cells, _) = accumulator::lock_cells(payer, &locks, mmr_cell::DEFAULT_CELL_CAPACITY)?;
    s.check_only(&cells[0].out_point.tx_hash().unpack(), LOCKED_BY_REFERENCE)?;

    // A forged append (the first old peak altered): 102, then the honest append of 1 leaf.
    let n1 = CREATED + APPENDS[0];
    let (honest, _) = s.update(payer, &acc, &Update::Append(&s.leaves[..n1]))?;
    let (new, lock, mut payload) = Update::Append(&s.leaves[..n1]).parts(&acc)?;
    payload[1] ^= 1;
    let draft = accumulator::update_draft(&acc, &s.code, &new, lock, &payload);
    let forged = accumulator::complete(payer, draft)?;
    acc = s.refuse_then_update(
        "acc_forged_append",
        &forged.tx,
        &acc,
        mmr_accumulator::Error::OldRootMismatch,
        honest,
        ("append", "APPEND 1 leaf"),
    )?;

    // A cell locked at 7 leaves, spent by the leaf appended after it was locked.
    let w = s.workload(n1, &[CREATED as u64])?;
    let built = s.spend(&acc, &cells[6], compiled, Format::Compiled, Mode::Plain, &w)?;
    s.commit_spend(
        &built,
        "compiled",
        Mode::Plain,
        "by the leaf appended after locking",
        &acc,
    )?;

    // A proof built against the 7-leaf root, sent with the 8-leaf accumulator: the baseline
    // verifier computes the root and finds it is not the accumulator's (9; the compiled
    // format already stops at the old peaks' places, 59 `PeakMismatch`).
    let stale = s.workload(CREATED, &[0, 3])?;
    let tx = s.spend(
        &acc,
        &cells[8],
        verifiers[0].1,
        Format::Baseline,
        Mode::Plain,
        &stale,
    )?;
    let fresh = s.workload(n1, &[0, 3])?;
    let then = s.spend(
        &acc,
        &cells[8],
        verifiers[0].1,
        Format::Baseline,
        Mode::Plain,
        &fresh,
    )?;
    s.refuse_then_spend(
        "acc_stale_proof_after_append",
        ("baseline", Mode::Plain),
        &tx.tx,
        &cells[8],
        (Some(9), None),
        then,
        "proof rebuilt against the new root",
        &acc,
    )?;

    // The race: a spend built against the 8-leaf accumulator, the append of 10 committed
    // first; the pool refuses the spend (its cell dep is dead), which is rebuilt and resent.
    let n2 = n1 + APPENDS[1];
    let racing_w = s.workload(n1, &[1, 4])?;
    let racing = s.spend(
        &acc,
        &cells[7],
        c_verifier,
        Format::Compiled,
        Mode::Plain,
        &racing_w,
    )?;
    let (append10, _) = s.update(payer, &acc, &Update::Append(&s.leaves[..n2]))?;
    acc = s.commit_update(payer, &acc, &append10, "append", "APPEND 10 leaves")?;
    let rebuilt_w = s.workload(n2, &[1, 4])?;
    let rebuilt = s.spend(
        &acc,
        &cells[7],
        c_verifier,
        Format::Compiled,
        Mode::Plain,
        &rebuilt_w,
    )?;
    s.refuse_then_spend(
        "acc_spend_racing_append",
        ("c", Mode::Plain),
        &racing.tx,
        &cells[7],
        (None, Some("Resolve failed")),
        rebuilt,
        "rebuilt after racing an append",
        &acc,
    )?;

    // Extend to the whole reference MMR by an ancestry proof; first a forgery: the honest
    // proof with the output claiming another MMR of the same size (113).
    let all = s.leaves.len();
    let (honest, _) = s.update(payer, &acc, &Update::Extend(&s.leaves))?;
    let mut other = s.leaves.clone();
    other[all - 1][0] ^= 1;
    let (_, lock, payload) = Update::Extend(&s.leaves).parts(&acc)?;
    let forged_new = accumulator::commitment(&other)?;
    let draft = accumulator::update_draft(&acc, &s.code, &forged_new, lock, &payload);
    let forged = accumulator::complete(payer, draft)?;
    acc = s.refuse_then_update(
        "acc_forged_ancestry",
        &forged.tx,
        &acc,
        mmr_accumulator::Error::NewRootMismatch,
        honest,
        ("extend", "EXTEND by an ancestry proof"),
    )?;

    // The reference proof (76 leaves of 2520) by reference, each verifier and mode: the same
    // proofs the data2 spends carry, now against the accumulator's root.
    for (i, (name, d, format)) in verifiers.iter().enumerate() {
        for (j, mode) in [Mode::Plain, Mode::Owner].into_iter().enumerate() {
            let built = s.spend(&acc, &cells[2 * i + j], d, *format, mode, &ctx.owned)?;
            s.commit_spend(&built, name, mode, "reference proof", &acc)?;
        }
    }

    // A counterfeit accumulator: a plain cell holding another MMR's commitment, with a valid
    // proof against it, as the cell dep: no dep has the accumulator's type hash (90).
    let fake = Workload::from_seed_with_owner(REFERENCE_SEED, [0x5a; 32]);
    let fake_cell = data_cell(payer, &fake.lock_args())?;
    s.check_only(&fake_cell.out_point.tx_hash().unpack(), COUNTERFEIT_CELL)?;
    let counterfeit = Spend::new(
        cells[9].clone(),
        compiled.clone(),
        &fake,
        Format::Compiled,
        Mode::Plain,
    )?
    .with_dep(
        packed::CellDep::new_builder()
            .out_point(fake_cell.out_point.clone())
            .build(),
    )
    .build(payer)?;
    let then = s.spend(
        &acc,
        &cells[9],
        compiled,
        Format::Compiled,
        Mode::Plain,
        &ctx.owned,
    )?;
    s.refuse_then_spend(
        "acc_counterfeit_dep",
        ("compiled", Mode::Plain),
        &counterfeit.tx,
        &cells[9],
        (Some(mmr_lock::LockError::AccumulatorNotFound.code()), None),
        then,
        "after a counterfeit dep was refused",
        &acc,
    )?;

    // Hand-over to owner.key (KEEP, signed by the payer), then a spend against the new cell.
    let (handover, _) = s.update(payer, &acc, &Update::Keep(ctx.owner.key.lock()))?;
    acc = s.commit_update(payer, &acc, &handover, "handover", "KEEP under owner.key")?;
    let built = s.spend(
        &acc,
        &cells[10],
        verifiers[0].1,
        verifiers[0].2,
        Mode::Plain,
        &ctx.owned,
    )?;
    s.commit_spend(&built, "baseline", Mode::Plain, "after the hand-over", &acc)?;

    // The new admin tries to destroy it (122), then appends a leaf of its own.
    let owner = &ctx.owner;
    let destroy = owner.complete(
        Draft {
            cell_deps: vec![s.code.cell_dep()],
            inputs: vec![(acc.cell.out_point.clone(), acc.cell.output.clone())],
            outputs: vec![(
                exact_output(owner.key.lock(), None, 0)
                    .as_builder()
                    .capacity(acc.cell.capacity())
                    .build(),
                Bytes::new(),
            )],
            witnesses: vec![packed::WitnessArgs::new_builder()
                .input_type(Some(Bytes::from(vec![tag::KEEP])).pack())
                .build()
                .as_bytes()],
            type_id_output: None,
        },
        Pay::FromOutput(0),
    )?;
    s.leaves.push(ctx.owner.key.lock_hash());
    let (append, _) = s.update(owner, &acc, &Update::Append(&s.leaves))?;
    acc = s.refuse_then_update(
        "acc_destroy",
        &destroy.tx,
        &acc,
        mmr_accumulator::Error::DestroyRefused,
        append,
        ("append", "APPEND 1 leaf by the new admin"),
    )?;
    if accumulator::find(ctx.chain, code_hash, acc.type_id)?.commitment != acc.commitment {
        return Err(Error::Scenario(
            "the accumulator on chain is not the scenario's last one".into(),
        ));
    }
    Ok(AccPart {
        rows: s.rows,
        refusals: s.refusals,
        checked: s.checked,
    })
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
