//! Cells locked by a deployed verifier: locking one with an MMR's args, finding it, and the
//! transaction that spends it with a proof. Args, payloads and witnesses come from
//! tx-generator's `Workload`, the builders every other tool of the project uses.

use crate::chain::progress;
use crate::deploy::{CodeRef, Deployment};
use crate::error::{Error, Result};
use crate::rpc::IndexedCell;
use crate::wallet::{exact_output, script_json, Built, Draft, Pay, Wallet, SHANNONS_PER_CKB};
use crate::{Format, Mode, Workload};
use ckb_types::{bytes::Bytes, packed, prelude::*};
use serde_json::json;

/// Capacity of a new MMR cell when none is given: its occupied 81-82 CKB rounded up to 100,
/// so that spending it pays the fee and still leaves a valid 61-CKB output.
pub const DEFAULT_CELL_CAPACITY: u64 = 100 * SHANNONS_PER_CKB;

/// The leaves of a leaves file (docs/usage.md: one 32-byte leaf per line as hex).
pub fn read_leaves(path: &str) -> Result<Vec<[u8; 32]>> {
    let error = |reason: String| Error::Leaves {
        path: path.to_string(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    let leaves = mmr_store::parse_leaves(&text).map_err(|e| error(e.to_string()))?;
    if leaves.is_empty() {
        return Err(error("no leaves".into()));
    }
    Ok(leaves)
}

/// The MMR over `leaves` with a proof of `indexes` (each must be a leaf index).
pub fn prove(leaves: &[[u8; 32]], indexes: &[u64]) -> Result<Workload> {
    check_indexes(indexes, leaves.len() as u64, "the MMR")?;
    Workload::from_leaves(leaves, indexes).map_err(|e| Error::Index(e.to_string()))
}

/// Refuses (9) an index at or beyond `leaf_count`, the leaves of `mmr` (at least one).
pub fn check_indexes(indexes: &[u64], leaf_count: u64, mmr: &str) -> Result<()> {
    match indexes.iter().find(|&&i| i >= leaf_count) {
        Some(bad) if leaf_count == 0 => Err(Error::Index(format!(
            "leaf index {bad} is not in {mmr}: it has no leaves"
        ))),
        Some(bad) => Err(Error::Index(format!(
            "leaf index {bad} is not in {mmr}: it has {leaf_count} leaves (indexes 0..={})",
            leaf_count - 1
        ))),
        None => Ok(()),
    }
}

/// The lock of an MMR cell: the verifier's code and the MMR's args in `mode`.
pub fn lock_script(code: &CodeRef, w: &Workload, mode: Mode) -> packed::Script {
    code.lock(&w.lock_args_for(mode))
}

/// A new cell locked by `lock`, paid by the wallet's key.
pub fn lock_cell(
    wallet: &Wallet,
    lock: packed::Script,
    capacity: u64,
) -> Result<(IndexedCell, Built)> {
    let out = exact_output(lock, None, 0);
    let occupied: u64 = out.capacity().unpack();
    if capacity < occupied {
        return Err(Error::Usage(format!(
            "--capacity must be at least the cell's occupied {} CKB",
            occupied / SHANNONS_PER_CKB
        )));
    }
    let output = out.as_builder().capacity(capacity).build();
    let draft = Draft {
        outputs: vec![(output.clone(), Bytes::new())],
        ..Draft::default()
    };
    let built = wallet.complete(draft, Pay::Wallet { min_inputs: 1 })?;
    progress(&format!("locking a cell of {capacity} shannons"));
    let hash = wallet.chain.send_and_commit(&built.tx)?;
    let cell = IndexedCell {
        out_point: packed::OutPoint::new(hash.pack(), 0),
        output,
        data: Some(Vec::new()),
    };
    Ok((cell, built))
}

/// Live cells locked by exactly `lock`.
pub fn find_locked(wallet: &Wallet, lock: &packed::Script) -> Result<Vec<IndexedCell>> {
    wallet.chain.rpc.cells(&json!({
        "script": script_json(lock),
        "script_type": "lock",
        "script_search_mode": "exact",
        "with_data": false,
    }))
}

/// What a spend carries in its MMR cell's witness.
#[derive(Clone)]
pub struct Spend {
    pub cell: IndexedCell,
    pub code: Deployment,
    /// The whole `WitnessArgs` at the MMR cell's input.
    pub witness: Bytes,
    pub mode: Mode,
    /// Cell deps after the code's: the accumulator of a by-reference lock.
    pub deps: Vec<packed::CellDep>,
}

impl Spend {
    /// The honest spend of `cell` with the proof of `w` in `format`.
    pub fn new(
        cell: IndexedCell,
        code: Deployment,
        w: &Workload,
        format: Format,
        mode: Mode,
    ) -> Result<Spend> {
        let payload = w.payload(format)?;
        Ok(Spend {
            cell,
            code,
            witness: Bytes::from(crate::witness_args_with_lock(&payload)),
            mode,
            deps: Vec::new(),
        })
    }

    /// The same spend with `dep` as a further cell dep.
    pub fn with_dep(mut self, dep: packed::CellDep) -> Spend {
        self.deps.push(dep);
        self
    }

    /// The transaction: in plain mode the MMR cell alone, paying its capacity less the fee to
    /// the key; in owner mode with one of the key's cells as the owner's input, signed.
    pub fn build(&self, wallet: &Wallet) -> Result<Built> {
        let to_key = exact_output(wallet.key.lock(), None, 0)
            .as_builder()
            .capacity(self.cell.capacity())
            .build();
        let draft = Draft {
            cell_deps: [vec![self.code.cell_dep()], self.deps.clone()].concat(),
            inputs: vec![(self.cell.out_point.clone(), self.cell.output.clone())],
            outputs: vec![(to_key, Bytes::new())],
            witnesses: vec![self.witness.clone()],
            type_id_output: None,
        };
        match self.mode {
            Mode::Plain => wallet.complete(draft, Pay::FromOutput(0)),
            Mode::Owner => wallet.complete(draft, Pay::Wallet { min_inputs: 1 }),
        }
    }
}

/// Checks that the key can act as owner of `w`: its lock hash must be a proved leaf.
pub fn check_owner(wallet: &Wallet, w: &Workload) -> Result<()> {
    let hash = wallet.key.lock_hash();
    if w.proves(&hash) {
        return Ok(());
    }
    Err(Error::Index(format!(
        "owner mode: the key's lock hash {} is not among the proved leaves; put it in the \
         leaves file and prove its index, or the lock exits with 80 (OwnerNotFound)",
        crate::hex(&hash)
    )))
}
