//! A transaction rebuilt from the node's own data as a ckb-debugger mock transaction (every
//! input's cell, every cell dep with dep groups expanded, header deps), and each of its script
//! groups run in ckb-debugger: the cycles a user can check the node's against.
//!
//! One kind of group is no RISC-V program: CKB's built-in type id (code hash `TYPE_ID`,
//! hash_type type), which the node verifies natively for a fixed [`BUILTIN_TYPE_ID_CYCLES`]
//! and ckb-debugger 1.1.1 cannot run (it panics). Such a group counts that fixed charge; the
//! scenario's node = total check then confirms the figure on every type id deployment.

use crate::debugger::{run_group, DebuggerRun};
use crate::error::{Error, Result};
use crate::rpc::Rpc;
use crate::script::TYPE_ID_CODE_HASH;
use ckb_jsonrpc_types as json;
use ckb_mock_tx_types::{MockCellDep, MockInfo, MockInput, MockTransaction, ReprMockTransaction};
use ckb_types::{core::DepType, packed, prelude::*, H256};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

/// What the node charges for a built-in type id group (ckb-script's `TYPE_ID_CYCLES`).
pub const BUILTIN_TYPE_ID_CYCLES: u64 = 1_000_000;

/// Resolves out points through `get_transaction`, which also knows spent cells.
struct Resolver<'a> {
    rpc: &'a Rpc,
    txs: HashMap<[u8; 32], packed::Transaction>,
}

impl Resolver<'_> {
    fn cell(&mut self, out_point: &packed::OutPoint) -> Result<(packed::CellOutput, Vec<u8>)> {
        let hash: [u8; 32] = crate::bytes32(&out_point.tx_hash());
        if !self.txs.contains_key(&hash) {
            let tx = self
                .rpc
                .transaction(&H256(hash))?
                .and_then(|t| t.tx)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "transaction {} (a cell's origin)",
                        crate::hex(&hash)
                    ))
                })?;
            self.txs.insert(hash, tx);
        }
        let tx = &self.txs[&hash];
        let index: u32 = out_point.index().unpack();
        let output = tx.raw().outputs().get(index as usize);
        let data = tx.raw().outputs_data().get(index as usize);
        match (output, data) {
            (Some(o), Some(d)) => Ok((o, d.raw_data().to_vec())),
            _ => Err(Error::NotFound(format!(
                "output {index} of {}",
                crate::hex(&hash)
            ))),
        }
    }
}

/// The ckb-debugger mock transaction (`ReprMockTransaction` JSON) for `tx`, from the node.
pub fn mock_transaction(rpc: &Rpc, tx: &packed::Transaction) -> Result<Value> {
    let mut resolver = Resolver {
        rpc,
        txs: HashMap::new(),
    };
    let raw = tx.raw();
    let mut info = MockInfo::default();
    for input in raw.inputs() {
        let (output, data) = resolver.cell(&input.previous_output())?;
        info.inputs.push(MockInput {
            input,
            output,
            data: data.into(),
            header: None,
        });
    }
    let mock_dep = |cell_dep, output, data: Vec<u8>| MockCellDep {
        cell_dep,
        output,
        data: data.into(),
        header: None,
    };
    for dep in raw.cell_deps() {
        let (output, data) = resolver.cell(&dep.out_point())?;
        if dep.dep_type() == DepType::DepGroup.into() {
            // ckb-debugger resolves a dep group from the mock's cell deps: its members too.
            let members = packed::OutPointVec::from_slice(&data).map_err(|e| {
                Error::rpc(
                    "get_transaction",
                    format!("a dep group's data is not out points: {e}"),
                )
            })?;
            for member in members {
                let (o, d) = resolver.cell(&member)?;
                let member_dep = packed::CellDep::new_builder()
                    .out_point(member)
                    .dep_type(DepType::Code)
                    .build();
                info.cell_deps.push(mock_dep(member_dep, o, d));
            }
        }
        info.cell_deps.push(mock_dep(dep, output, data));
    }
    for hash in raw.header_deps() {
        let h: H256 = hash.unpack();
        let header: json::HeaderView = serde_json::from_value(rpc.call("get_header", json!([h]))?)
            .map_err(|e| Error::rpc("get_header", e.to_string()))?;
        info.header_deps.push(header.into());
    }
    let mock = MockTransaction {
        mock_info: info,
        tx: tx.clone(),
    };
    Ok(serde_json::to_value(ReprMockTransaction::from(mock)).expect("json"))
}

/// One script group of a transaction and what ckb-debugger reported for it (a built-in type
/// id group is not run: `run` holds [`BUILTIN_TYPE_ID_CYCLES`]).
pub struct GroupRun {
    pub group: Group,
    pub run: std::result::Result<DebuggerRun, String>,
}

impl GroupRun {
    /// The run as a report row: a built-in type id group at its fixed charge, a failed run
    /// with its message and no cycles.
    pub fn row(&self) -> GroupRow {
        let (result, cycles) = match &self.run {
            Ok(_) if self.group.builtin => (
                GroupResult::Text("built-in type id".into()),
                Some(BUILTIN_TYPE_ID_CYCLES),
            ),
            Ok(run) => (GroupResult::Exit(run.result), Some(run.cycles)),
            Err(e) => (GroupResult::Text(e.clone()), None),
        };
        GroupRow {
            group: self.group.group_type,
            cell_type: self.group.cell_type,
            index: self.group.index,
            script_hash: crate::hex(&self.group.script_hash),
            result,
            cycles,
            builtin: self.group.builtin,
        }
    }
}

/// A script group's run as `ckb-devnet debug` reports it.
#[derive(Debug, Clone, Serialize)]
pub struct GroupRow {
    pub group: &'static str,
    pub cell_type: &'static str,
    pub index: usize,
    pub script_hash: String,
    pub result: GroupResult,
    pub cycles: Option<u64>,
    pub builtin: bool,
}

/// A group's result: the script's exit code, or what stopped it from running.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum GroupResult {
    Exit(i64),
    Text(String),
}

impl std::fmt::Display for GroupResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GroupResult::Exit(code) => write!(f, "{code}"),
            GroupResult::Text(text) => f.write_str(text),
        }
    }
}

/// One script group to run: kind (`lock`/`type`), the cell that selects it (`input`/`output`,
/// index), its script hash, and whether it is the built-in type id.
pub struct Group {
    pub group_type: &'static str,
    pub cell_type: &'static str,
    pub index: usize,
    pub script_hash: [u8; 32],
    pub builtin: bool,
}

/// The transaction's script groups in the node's order: lock groups by first input, then type
/// groups of inputs, then type groups first seen in outputs.
pub fn script_groups(mock: &Value) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let script = |s: &Value| -> Option<packed::Script> {
        let script: json::Script = serde_json::from_value(s.clone()).ok()?;
        Some(script.into())
    };
    let mut add = |group_type, cell_type, index, s: packed::Script| {
        let script_hash = crate::bytes32(&s.calc_script_hash());
        if groups
            .iter()
            .any(|g| g.group_type == group_type && g.script_hash == script_hash)
        {
            return;
        }
        let builtin = group_type == "type"
            && crate::bytes32(&s.code_hash()) == TYPE_ID_CODE_HASH
            && s.hash_type() == ckb_types::core::ScriptHashType::Type.into();
        groups.push(Group {
            group_type,
            cell_type,
            index,
            script_hash,
            builtin,
        });
    };
    let array = |pointer| {
        mock.pointer(pointer)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let inputs = array("/mock_info/inputs");
    for (i, input) in inputs.iter().enumerate() {
        if let Some(s) = script(&input["output"]["lock"]) {
            add("lock", "input", i, s);
        }
    }
    let outputs = array("/tx/outputs");
    let types = inputs
        .iter()
        .map(|c| ("input", &c["output"]["type"]))
        .chain(outputs.iter().map(|o| ("output", &o["type"])));
    let mut counters = HashMap::from([("input", 0usize), ("output", 0usize)]);
    for (cell_type, t) in types {
        let index = counters[cell_type];
        *counters.get_mut(cell_type).expect("both kinds") += 1;
        if t.is_null() {
            continue;
        }
        if let Some(s) = script(t) {
            add("type", cell_type, index, s);
        }
    }
    groups
}

/// Writes the mock transaction of `tx` to `file` and runs every script group in it; returns
/// the mock transaction too (its inputs carry the spent cells' capacities).
pub fn debug(rpc: &Rpc, tx: &packed::Transaction, file: &Path) -> Result<(Value, Vec<GroupRun>)> {
    let mock = mock_transaction(rpc, tx)?;
    let text = serde_json::to_string_pretty(&mock).expect("json");
    std::fs::write(file, text).map_err(|e| Error::File {
        path: file.display().to_string(),
        reason: e.to_string(),
    })?;
    let runs = script_groups(&mock)
        .into_iter()
        .map(|g| GroupRun {
            run: if g.builtin {
                Ok(DebuggerRun {
                    result: 0,
                    cycles: BUILTIN_TYPE_ID_CYCLES,
                })
            } else {
                run_group(file, g.group_type, g.cell_type, g.index).map_err(|e| e.to_string())
            },
            group: g,
        })
        .collect();
    Ok((mock, runs))
}

/// The sum of the groups' cycles (a built-in type id group's fixed charge included), or the
/// first group that failed.
pub fn total_cycles(runs: &[GroupRun]) -> Result<u64> {
    let mut total = 0;
    for r in runs {
        match &r.run {
            Ok(DebuggerRun { result: 0, cycles }) => total += cycles,
            Ok(DebuggerRun { result, .. }) => {
                return Err(Error::Debugger(format!(
                    "{} group of {} {} exited {result}",
                    r.group.group_type, r.group.cell_type, r.group.index
                )))
            }
            Err(e) => return Err(Error::Debugger(e.clone())),
        }
    }
    Ok(total)
}
