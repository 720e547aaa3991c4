//! What the scenario's cases share: the chain, the two wallets, the reference workloads, the
//! binaries and what has been deployed, the cells one case leaves to another (by name), and
//! the report every measured row and checked transaction goes into.

use crate::scenario::acc_state::{AccState, RefCells};
use crate::scenario::code::{Binaries, Deployed};
use crate::scenario::report::{mode_name, RefusalRow, Report, SpendRow};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::debug;
use ckb_mmr_sdk::deploy::{CodeRef, Deployment};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
use ckb_mmr_sdk::rpc::{CallError, IndexedCell};
use ckb_mmr_sdk::wallet::{exact_output, Built, Draft, Pay, Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{Format, Mode, Workload, REFERENCE_SEED};
use ckb_types::{bytes::Bytes, packed, prelude::*, H256};
use serde_json::Value;
use std::path::Path;

/// One case of the scenario: a small type whose doc comment says what it proves. The cases
/// run in order on one [`Ctx`]; each sends its transactions, measures what commits and
/// records its rows in [`Ctx::report`].
pub trait Case {
    /// What progress lines call it.
    fn name(&self) -> String;
    fn run(&self, ctx: &mut Ctx) -> Result<()>;
}

pub struct Ctx<'a> {
    pub chain: &'a Chain,
    payer_key: &'a Key,
    owner_key: &'a Key,
    /// The reference seed's MMR, and its owner variant: `owner.key`'s lock hash as the first
    /// proved leaf.
    pub plain: Workload,
    pub owned: Workload,
    pub binaries: Binaries,
    pub deployed: Deployed,
    /// Locked under the type id before its upgrade, spent after it.
    pub locked_before_upgrade: Option<IndexedCell>,
    /// The accumulator part's state, from its creation on.
    pub acc: Option<AccState>,
    /// The accumulator part's cells locked by reference.
    pub ref_cells: Option<RefCells>,
    pub report: Report,
    /// Where the mock transactions ckb-debugger runs go.
    dir: &'a Path,
    debugged: usize,
}

/// What the node and ckb-debugger say about one committed transaction.
pub struct Measured {
    pub status: String,
    pub node_cycles: Option<u64>,
    pub debugger_cycles: u64,
    /// The first lock group's (input 0's lock: the MMR lock in a spend).
    pub first_lock_cycles: u64,
    /// The first type group's (the accumulator's type script), 0 if none.
    pub type_cycles: u64,
    pub fee_shannons: u64,
    pub tx_bytes: usize,
    /// Witness 0, the `WitnessArgs` that carries the payload.
    pub witness0_bytes: usize,
    /// The longest output data: a deployment's binary.
    pub max_output_data: usize,
}

/// What a refusal case sends, and what it must come to.
pub struct Refusal<'t> {
    pub case: &'static str,
    pub verifier: &'static str,
    /// The transaction that must be refused (or, with neither expectation, accepted).
    pub tx: &'t packed::Transaction,
    /// The cell it tries to spend.
    pub cell: &'t IndexedCell,
    pub expected_code: Option<i8>,
    pub expected_message: Option<&'static str>,
    /// The honest spend sent afterwards, or why there is none.
    pub then: std::result::Result<Built, String>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        chain: &'a Chain,
        (payer_key, owner_key): (&'a Key, &'a Key),
        binaries: Binaries,
        dir: &'a Path,
        rpc_url: &str,
    ) -> Ctx<'a> {
        Ctx {
            chain,
            payer_key,
            owner_key,
            plain: Workload::from_seed(REFERENCE_SEED),
            owned: Workload::from_seed_with_owner(REFERENCE_SEED, owner_key.lock_hash()),
            binaries,
            deployed: Deployed::default(),
            locked_before_upgrade: None,
            acc: None,
            ref_cells: None,
            report: Report::new(rpc_url, REFERENCE_SEED),
            dir,
            debugged: 0,
        }
    }

    /// The dev chain's first key: deployer, payer and the accumulator's first admin.
    pub fn payer(&self) -> Wallet<'a> {
        Wallet::new(self.chain, self.payer_key, DEFAULT_FEE_RATE)
    }

    /// `owner.key`: the owner of owner-mode cells and the accumulator's second admin.
    pub fn owner(&self) -> Wallet<'a> {
        Wallet::new(self.chain, self.owner_key, DEFAULT_FEE_RATE)
    }

    /// Who signs a spend in `mode`: anyone (the payer) in plain mode, the owner in owner mode.
    pub fn spender(&self, mode: Mode) -> Wallet<'a> {
        match mode {
            Mode::Plain => self.payer(),
            Mode::Owner => self.owner(),
        }
    }

    pub fn workload(&self, mode: Mode) -> &Workload {
        match mode {
            Mode::Plain => &self.plain,
            Mode::Owner => &self.owned,
        }
    }

    /// A cell locked by the MMR lock of `code` over the reference workload of `mode`.
    pub fn lock(&self, code: &CodeRef, mode: Mode) -> Result<IndexedCell> {
        let lock = mmr_cell::lock_script(code, self.workload(mode), mode);
        Ok(mmr_cell::lock_cell(&self.payer(), lock, DEFAULT_CELL_CAPACITY)?.0)
    }

    /// The honest spend of `cell` with the reference workload of `mode`.
    pub fn honest(
        &self,
        cell: &IndexedCell,
        d: &Deployment,
        format: Format,
        mode: Mode,
    ) -> Result<Built> {
        Spend::new(cell.clone(), d.clone(), self.workload(mode), format, mode)?
            .build(&self.spender(mode))
    }

    /// Sends an honest spend, waits for the commit, measures it three ways and adds its row.
    pub fn commit_spend(
        &mut self,
        built: &Built,
        (verifier, mode): (&'static str, Mode),
        deployment: &'static str,
        upgraded: bool,
    ) -> Result<()> {
        let estimate = self.chain.rpc.estimate_cycles(&built.tx)?;
        let hash = self.chain.send_and_commit(&built.tx)?;
        let m = self.measure(&hash)?;
        let row = SpendRow {
            verifier,
            mode,
            deployment,
            upgraded,
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(estimate),
            estimate_cycles: estimate,
            debugger_cycles: m.debugger_cycles,
            mmr_lock_cycles: m.first_lock_cycles,
            tx_bytes: built.size(),
            fee_shannons: m.fee_shannons,
        };
        progress(&format!(
            "{verifier} {} {deployment}: committed, node {} cycles, ckb-debugger {}",
            mode_name(mode),
            row.node_cycles,
            row.debugger_cycles
        ));
        self.report.spends.push(row);
        Ok(())
    }

    /// A committed transaction as the node has it, rebuilt as a mock transaction and run in
    /// ckb-debugger group by group.
    pub fn measure(&mut self, hash: &H256) -> Result<Measured> {
        let status = self
            .chain
            .rpc
            .transaction(hash)?
            .ok_or_else(|| Error::NotFound(format!("{hash:#x}")))?;
        let mock_file = self.dir.join(format!("debug-{:02}.json", self.debugged));
        self.debugged += 1;
        let tx = status
            .tx
            .clone()
            .ok_or_else(|| Error::NotFound("the committed body".into()))?;
        let (mock, runs) = debug::debug(&self.chain.rpc, &tx, &mock_file)?;
        let debugger_cycles = debug::total_cycles(&runs)?;
        let group = |kind: &str| {
            runs.iter()
                .find(|r| r.group.group_type == kind)
                .and_then(|r| r.run.as_ref().ok())
                .map_or(0, |r| r.cycles)
        };
        Ok(Measured {
            status: status.status,
            node_cycles: status.cycles,
            debugger_cycles,
            first_lock_cycles: group("lock"),
            type_cycles: group("type"),
            fee_shannons: fee_from_mock(&mock),
            tx_bytes: ckb_mmr_sdk::weight::tx_bytes(&tx),
            witness0_bytes: tx.witnesses().get(0).map_or(0, |w| w.raw_data().len()),
            max_output_data: tx
                .raw()
                .outputs_data()
                .into_iter()
                .map(|d| d.raw_data().len())
                .max()
                .unwrap_or(0),
        })
    }

    /// Sends a transaction that must be refused (or accepted, see [`Refusal::tx`]), checks
    /// the cell afterwards and sends the honest spend when there is one. The row is the
    /// caller's to record.
    pub fn refusal(&self, r: Refusal) -> Result<RefusalRow> {
        let (refused, node_code, node_message) = match self.chain.rpc.send_transaction(r.tx) {
            Ok(hash) => {
                self.chain.wait_committed(&hash)?;
                (false, None, format!("accepted and committed as {hash:#x}"))
            }
            Err(CallError::Node(e)) => (true, e.script_code(), e.message.clone()),
            Err(CallError::Other(e)) => return Err(e),
        };
        let cell_live_after = self.chain.rpc.live_cell(&r.cell.out_point)?.is_some();
        let spent_after = match r.then {
            Ok(built) if cell_live_after => {
                let hash = self.chain.send_and_commit(&built.tx)?;
                Ok(format!("{hash:#x}"))
            }
            Ok(_) => Err("the cell is gone".into()),
            Err(why) => Err(why),
        };
        progress(&format!(
            "refusal {}: refused {refused}, code {node_code:?}, cell live after {cell_live_after}",
            r.case
        ));
        Ok(RefusalRow {
            case: r.case,
            verifier: r.verifier,
            expected_code: r.expected_code,
            expected_message: r.expected_message,
            expect_refused: r.expected_code.is_some() || r.expected_message.is_some(),
            refused,
            node_code,
            node_message,
            cell_live_after,
            spent_after,
        })
    }
}

/// `cell` spent whole to `wallet`'s lock (its fee taken from that output), with `dep` and
/// witness 0 `witness`: the shape of a forged spend.
pub fn sweep(
    wallet: &Wallet,
    cell: &IndexedCell,
    dep: packed::CellDep,
    witness: Bytes,
) -> Result<Built> {
    let output = exact_output(wallet.key.lock(), None, 0)
        .as_builder()
        .capacity(cell.capacity())
        .build();
    let draft = Draft {
        cell_deps: vec![dep],
        inputs: vec![(cell.out_point.clone(), cell.output.clone())],
        outputs: vec![(output, Bytes::new())],
        witnesses: vec![witness],
        ..Draft::default()
    };
    wallet.complete(draft, Pay::FromOutput(0))
}

/// Inputs' capacity (as the node resolved them) minus outputs' capacity.
fn fee_from_mock(mock: &Value) -> u64 {
    // The capacities at `capacity` in each cell of the list at `cells`, summed.
    let total = |cells: &str, capacity: &str| -> u64 {
        let cells = mock.pointer(cells).and_then(Value::as_array);
        let hex = cells
            .into_iter()
            .flatten()
            .filter_map(|c| c.pointer(capacity)?.as_str());
        hex.filter_map(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .sum()
    };
    total("/mock_info/inputs", "/output/capacity").saturating_sub(total("/tx/outputs", "/capacity"))
}
