//! Verifier code cells: deploying a binary (by data hash, or under a type id), finding a
//! deployment again through the indexer, and upgrading a type id deployment.

use crate::chain::progress;
use crate::error::{Error, Result};
use crate::wallet::{exact_output, occupied, script_json, type_cells, type_id_script};
use crate::wallet::{Draft, Pay, Wallet};
use ckb_types::{bytes::Bytes, core::DepType, packed, prelude::*};
use serde::Serialize;
use serde_json::{json, Value};

/// How a lock script names the verifier's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeRef {
    /// `hash_type` data2: the blake2b of this exact binary.
    Data2 { data_hash: [u8; 32] },
    /// `hash_type` type: whatever binary the type id cell holds now.
    TypeId { args: [u8; 32] },
}

impl CodeRef {
    pub fn code_hash(&self) -> [u8; 32] {
        match self {
            CodeRef::Data2 { data_hash } => *data_hash,
            CodeRef::TypeId { args } => crate::bytes32(&type_id_script(*args).calc_script_hash()),
        }
    }

    pub fn hash_type(&self) -> ckb_types::core::ScriptHashType {
        match self {
            CodeRef::Data2 { .. } => ckb_types::core::ScriptHashType::Data2,
            CodeRef::TypeId { .. } => ckb_types::core::ScriptHashType::Type,
        }
    }

    /// The lock script for a cell with `args`.
    pub fn lock(&self, args: &[u8]) -> packed::Script {
        crate::script::new(self.code_hash(), self.hash_type(), args)
    }

    pub fn kind(&self) -> &'static str {
        match self {
            CodeRef::Data2 { .. } => "data2",
            CodeRef::TypeId { .. } => "type",
        }
    }
}

/// A live code cell.
#[derive(Clone, Debug)]
pub struct Deployment {
    pub out_point: packed::OutPoint,
    pub output: packed::CellOutput,
    pub data_hash: [u8; 32],
    pub code: CodeRef,
    /// False when an existing deployment was found instead of sending a transaction.
    pub created: bool,
    /// The fee paid when created, in shannons.
    pub fee: u64,
}

impl Deployment {
    /// A live code cell that was found, not created (no fee paid).
    pub(crate) fn found(
        out_point: packed::OutPoint,
        output: packed::CellOutput,
        data_hash: [u8; 32],
        code: CodeRef,
    ) -> Deployment {
        Deployment {
            out_point,
            output,
            data_hash,
            code,
            created: false,
            fee: 0,
        }
    }

    /// A `data2` code cell of this data hash at a default out point: the drafts' tests.
    #[cfg(test)]
    pub(crate) fn fake_data2(data_hash: [u8; 32]) -> Deployment {
        let code = CodeRef::Data2 { data_hash };
        Deployment::found(Default::default(), Default::default(), data_hash, code)
    }

    pub fn cell_dep(&self) -> packed::CellDep {
        packed::CellDep::new_builder()
            .out_point(self.out_point.clone())
            .dep_type(DepType::Code)
            .build()
    }

    pub fn capacity(&self) -> u64 {
        self.output.capacity().unpack()
    }

    /// The deployment as a report row.
    pub fn row(&self) -> DeploymentRow {
        let type_id_args = match &self.code {
            CodeRef::TypeId { args } => Some(crate::hex(args)),
            CodeRef::Data2 { .. } => None,
        };
        DeploymentRow {
            tx_hash: crate::hex(self.out_point.tx_hash().as_slice()),
            index: self.out_point.index().unpack(),
            data_hash: crate::hex(&self.data_hash),
            code_hash: crate::hex(&self.code.code_hash()),
            hash_type: self.code.kind(),
            type_hash: type_id_args
                .as_ref()
                .map(|_| crate::hex(&self.code.code_hash())),
            type_id_args,
            capacity_shannons: self.capacity(),
            created: self.created,
            fee_shannons: self.fee,
        }
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.row()).expect("a deployment row serializes")
    }
}

/// A deployment as `ckb-devnet deploy` and the scenario report it (`type_hash` and
/// `type_id_args` are null for a data2 deployment).
#[derive(Debug, Clone, Serialize)]
pub struct DeploymentRow {
    pub tx_hash: String,
    pub index: u32,
    pub data_hash: String,
    pub code_hash: String,
    pub hash_type: &'static str,
    pub type_hash: Option<String>,
    pub type_id_args: Option<String>,
    pub capacity_shannons: u64,
    pub created: bool,
    pub fee_shannons: u64,
}

pub fn read_binary(path: &str) -> Result<Vec<u8>> {
    let error = |reason: String| Error::File {
        path: path.to_string(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| error(e.to_string()))?;
    if bytes.is_empty() {
        return Err(error("the file is empty".into()));
    }
    Ok(bytes)
}

fn type_args_of(output: &packed::CellOutput) -> Option<[u8; 32]> {
    let t = output.type_().to_opt()?;
    let code_hash: [u8; 32] = crate::bytes32(&t.code_hash());
    let args = t.args().raw_data();
    (code_hash == crate::wallet::TYPE_ID_CODE_HASH && args.len() == 32)
        .then(|| args[..].try_into().expect("32 bytes"))
}

/// The key's code cells holding `binary`: with a type id (`type_id`) or without any type.
pub fn find_own(wallet: &Wallet, binary: &[u8], type_id: bool) -> Result<Option<Deployment>> {
    let data_hash = ckb_hash::blake2b_256(binary);
    let cells = wallet.chain.rpc.cells(&json!({
        "script": script_json(&wallet.key.lock()),
        "script_type": "lock",
        "script_search_mode": "exact",
        "filter": { "output_data_len_range": [format!("{:#x}", binary.len()), format!("{:#x}", binary.len() + 1)] },
        "with_data": true,
    }))?;
    for cell in cells {
        if cell.data.as_deref().map(ckb_hash::blake2b_256) != Some(data_hash) {
            continue;
        }
        let code = match (
            type_args_of(&cell.output),
            type_id,
            cell.output.type_().is_none(),
        ) {
            (Some(args), true, _) => CodeRef::TypeId { args },
            (None, false, true) => CodeRef::Data2 { data_hash },
            _ => continue,
        };
        return Ok(Some(Deployment::found(
            cell.out_point,
            cell.output,
            data_hash,
            code,
        )));
    }
    Ok(None)
}

/// Deploys `binary` as a code cell locked by the wallet's key, unless the key already has one
/// (found through the indexer: a rerun pays nothing).
pub fn deploy(wallet: &Wallet, binary: &[u8], type_id: bool) -> Result<Deployment> {
    if let Some(found) = find_own(wallet, binary, type_id)? {
        progress("found an existing deployment of this binary; nothing sent");
        return Ok(found);
    }
    let type_ = type_id.then(|| type_id_script([0; 32]));
    let output = exact_output(wallet.key.lock(), type_, binary.len());
    let draft = Draft {
        outputs: vec![(output, Bytes::copy_from_slice(binary))],
        type_id_output: type_id.then_some(0),
        ..Draft::default()
    };
    let built = wallet.complete(draft, Pay::Wallet { min_inputs: 1 })?;
    progress(&format!(
        "deploying {} bytes ({} tx bytes, fee {} shannons)",
        binary.len(),
        built.size(),
        built.fee
    ));
    let hash = wallet.chain.send_and_commit(&built.tx)?;
    let output = built.tx.raw().outputs().get(0).expect("the code cell");
    let data_hash = ckb_hash::blake2b_256(binary);
    let code = match type_args_of(&output) {
        Some(args) => CodeRef::TypeId { args },
        None => CodeRef::Data2 { data_hash },
    };
    let out_point = packed::OutPoint::new(hash.pack(), 0);
    Ok(Deployment {
        created: true,
        fee: built.fee,
        ..Deployment::found(out_point, output, data_hash, code)
    })
}

/// The live code cell of a type id deployment.
pub fn find_type_id(wallet: &Wallet, args: [u8; 32]) -> Result<Deployment> {
    let cells = type_cells(wallet.chain, &type_id_script(args), "exact")?;
    let [cell] = &cells[..] else {
        return Err(Error::NotFound(format!(
            "{} live cells with type id {}: expected one",
            cells.len(),
            crate::hex(&args)
        )));
    };
    Ok(Deployment::found(
        cell.out_point.clone(),
        cell.output.clone(),
        ckb_hash::blake2b_256(cell.data.as_deref().unwrap_or_default()),
        CodeRef::TypeId { args },
    ))
}

/// A data2 deployment at a known out point, checked to hold `binary`.
pub fn at_out_point(
    wallet: &Wallet,
    out_point: packed::OutPoint,
    binary: &[u8],
) -> Result<Deployment> {
    let (output, data) = wallet.chain.rpc.live_cell(&out_point)?.ok_or_else(|| {
        Error::NotFound(format!(
            "no live cell at {}",
            crate::out_point_text(&out_point)
        ))
    })?;
    let data_hash = ckb_hash::blake2b_256(&data);
    if data_hash != ckb_hash::blake2b_256(binary) {
        return Err(Error::NotFound(format!(
            "the cell at {} does not hold this binary",
            crate::out_point_text(&out_point)
        )));
    }
    let code = CodeRef::Data2 { data_hash };
    Ok(Deployment::found(out_point, output, data_hash, code))
}

/// Replaces the code of the type id deployment `args` with `binary`: the code cell is spent
/// and recreated with the same type script, so every lock naming the type hash runs the new
/// code from then on. Needs the key that locks the code cell.
pub fn upgrade(wallet: &Wallet, args: [u8; 32], binary: &[u8]) -> Result<Deployment> {
    let current = find_type_id(wallet, args)?;
    if current.data_hash == ckb_hash::blake2b_256(binary) {
        progress("the type id cell already holds this binary; nothing sent");
        return Ok(current);
    }
    if current.output.lock().as_slice() != wallet.key.lock().as_slice() {
        return Err(Error::Usage(
            "the type id cell is not locked by this key: only its owner can upgrade it".into(),
        ));
    }
    let output = exact_output(
        wallet.key.lock(),
        current.output.type_().to_opt(),
        binary.len(),
    );
    debug_assert_eq!(
        occupied(&output, binary.len()),
        Unpack::<u64>::unpack(&output.capacity())
    );
    let draft = Draft {
        inputs: vec![(current.out_point.clone(), current.output.clone())],
        outputs: vec![(output, Bytes::copy_from_slice(binary))],
        ..Draft::default()
    };
    let built = wallet.complete(draft, Pay::Wallet { min_inputs: 0 })?;
    progress(&format!(
        "upgrading type id {} to {} bytes",
        crate::hex(&args),
        binary.len()
    ));
    let hash = wallet.chain.send_and_commit(&built.tx)?;
    let output = built.tx.raw().outputs().get(0).expect("the code cell");
    let data_hash = ckb_hash::blake2b_256(binary);
    let out_point = packed::OutPoint::new(hash.pack(), 0);
    Ok(Deployment {
        created: true,
        fee: built.fee,
        ..Deployment::found(out_point, output, data_hash, CodeRef::TypeId { args })
    })
}
