//! A blocking JSON-RPC 2.0 client for a CKB node: the calls this project makes, typed with
//! ckb-jsonrpc-types where the node's JSON round-trips through them, plain JSON elsewhere
//! (the indexer's request types are server-side only in that crate).

use crate::error::{Error, Result};
use ckb_jsonrpc_types as json;
use ckb_types::{packed, prelude::*, H256};
use serde_json::{json, Value};
use std::cell::Cell;
use std::time::Duration;

/// The node's error code for a transaction whose script failed (`TransactionFailedToVerify`).
pub const TRANSACTION_FAILED_TO_VERIFY: i64 = -302;
/// The node's error code for a transaction already in its pool.
pub const POOL_DUPLICATED: i64 = -1107;

pub struct Rpc {
    url: String,
    agent: ureq::Agent,
    next_id: Cell<u64>,
}

/// An error object the node returned (as opposed to not answering at all).
#[derive(Debug, Clone)]
pub struct NodeError {
    pub code: i64,
    pub message: String,
}

impl NodeError {
    /// The script exit code in a `ValidationFailure: see error code N` message, as the node
    /// prints it (an i8).
    pub fn script_code(&self) -> Option<i8> {
        let rest = self.message.split("see error code ").nth(1)?;
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        rest[..end].parse().ok()
    }

    pub fn into_error(self, method: &str) -> Error {
        if self.code == TRANSACTION_FAILED_TO_VERIFY {
            return Error::Refused {
                code: self.script_code(),
                message: self.message,
            };
        }
        Error::rpc(method, format!("{} (code {})", self.message, self.code))
    }
}

/// Either the node's own error object or a failure to talk to it at all.
pub enum CallError {
    Node(NodeError),
    Other(Error),
}

impl CallError {
    pub(crate) fn into_error(self, method: &str) -> Error {
        match self {
            CallError::Node(n) => n.into_error(method),
            CallError::Other(e) => e,
        }
    }
}

/// The node answered `method` with something other than the `what` it should have.
fn unexpected(method: &str, what: &str, e: impl std::fmt::Display) -> Error {
    Error::rpc(method, format!("unexpected {what}: {e}"))
}

impl Rpc {
    pub fn new(url: &str) -> Result<Rpc> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::Usage(format!(
                "--rpc takes an http:// or https:// URL, got {url:?}"
            )));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Ok(Rpc {
            url: url.to_string(),
            agent,
            next_id: Cell::new(1),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// One call, keeping the node's error object apart from transport failures.
    pub fn try_call(&self, method: &str, params: Value) -> std::result::Result<Value, CallError> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let unreachable = |reason: String| {
            CallError::Other(Error::Unreachable {
                url: self.url.clone(),
                reason,
            })
        };
        let mut response = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .send(body.to_string())
            .map_err(|e| unreachable(e.to_string()))?;
        let text = response
            .body_mut()
            .with_config()
            .limit(256 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| unreachable(e.to_string()))?;
        let mut reply: Value = serde_json::from_str(&text).map_err(|e| {
            let message = format!("not a JSON-RPC answer ({e}): {}", truncate(&text));
            CallError::Other(Error::rpc(method, message))
        })?;
        if let Some(err) = reply.get("error").filter(|e| !e.is_null()) {
            return Err(CallError::Node(NodeError {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            }));
        }
        Ok(reply
            .get_mut("result")
            .map(Value::take)
            .unwrap_or(Value::Null))
    }

    pub fn call(&self, method: &str, params: Value) -> Result<Value> {
        self.try_call(method, params)
            .map_err(|e| e.into_error(method))
    }

    /// A call whose result deserialises into `T`.
    pub fn typed<T: serde::de::DeserializeOwned>(&self, method: &str, params: Value) -> Result<T> {
        self.try_typed(method, params)
            .map_err(|e| e.into_error(method))
    }

    /// [`Rpc::typed`], keeping the node's error object apart from other failures.
    fn try_typed<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> std::result::Result<T, CallError> {
        let value = self.try_call(method, params)?;
        serde_json::from_value(value).map_err(|e| CallError::Other(unexpected(method, "result", e)))
    }

    pub fn chain_name(&self) -> Result<String> {
        let info = self.call("get_blockchain_info", json!([]))?;
        info.get("chain")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| Error::rpc("get_blockchain_info", "no chain name"))
    }

    pub fn tip_block_number(&self) -> Result<u64> {
        let n: json::BlockNumber = self.typed("get_tip_block_number", json!([]))?;
        Ok(n.value())
    }

    pub fn block_by_number(&self, number: u64) -> Result<json::BlockView> {
        self.typed("get_block_by_number", json!([format!("{number:#x}")]))
    }

    /// The transaction and its status; `None` when the node does not know it.
    pub fn transaction(&self, hash: &H256) -> Result<Option<TxWithStatus>> {
        let value = self.call("get_transaction", json!([hash]))?;
        let status = value
            .pointer("/tx_status/status")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string();
        if status == "unknown" {
            return Ok(None);
        }
        let tx = value
            .get("transaction")
            .filter(|t| !t.is_null())
            .map(|t| serde_json::from_value::<json::TransactionView>(t.clone()))
            .transpose()
            .map_err(|e| unexpected("get_transaction", "transaction", e))?
            .map(|t| t.inner.into());
        let cycles = value
            .get("cycles")
            .and_then(|c| serde_json::from_value::<json::Uint64>(c.clone()).ok())
            .map(|c| c.value());
        let reason = value
            .pointer("/tx_status/reason")
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(Some(TxWithStatus {
            tx,
            status,
            cycles,
            reason,
        }))
    }

    /// A cell's output and data if it is live; `None` if it is dead or unknown.
    pub fn live_cell(
        &self,
        out_point: &packed::OutPoint,
    ) -> Result<Option<(packed::CellOutput, Vec<u8>)>> {
        self.live_cell_in(out_point, false)
    }

    /// [`Rpc::live_cell`] with the pool overlaid on the chain (`get_live_cell`'s
    /// `include_tx_pool`): an output of a pooled transaction is live, a committed cell that a
    /// pooled transaction consumes is not (ckb 0.210 answers `unknown` for both kinds of
    /// non-live cell, `TxPoolService::get_live_cell`).
    pub fn pool_live_cell(
        &self,
        out_point: &packed::OutPoint,
    ) -> Result<Option<(packed::CellOutput, Vec<u8>)>> {
        self.live_cell_in(out_point, true)
    }

    fn live_cell_in(
        &self,
        out_point: &packed::OutPoint,
        include_tx_pool: bool,
    ) -> Result<Option<(packed::CellOutput, Vec<u8>)>> {
        let op: json::OutPoint = out_point.clone().into();
        let value = self.call("get_live_cell", json!([op, true, include_tx_pool]))?;
        if value.get("status").and_then(Value::as_str) != Some("live") {
            return Ok(None);
        }
        let cell: json::CellInfo = serde_json::from_value(value["cell"].clone())
            .map_err(|e| unexpected("get_live_cell", "cell", e))?;
        let data = cell
            .data
            .map(|d| d.content.into_bytes().to_vec())
            .unwrap_or_default();
        Ok(Some((cell.output.into(), data)))
    }

    /// The hashes of every transaction in the pool: pending (gap included) and proposed.
    pub fn pool_hashes(&self) -> Result<Vec<H256>> {
        let ids: json::TxPoolIds = self.typed("get_raw_tx_pool", json!([false]))?;
        Ok(ids.pending.into_iter().chain(ids.proposed).collect())
    }

    /// Sends `tx` with the default (passthrough) outputs validator; the node runs its scripts
    /// before it answers.
    pub fn send_transaction(
        &self,
        tx: &packed::Transaction,
    ) -> std::result::Result<H256, CallError> {
        let tx: json::Transaction = tx.clone().into();
        self.try_typed("send_transaction", json!([tx, "passthrough"]))
    }

    /// The cycles the node's script verification spends on `tx` (nothing is pooled).
    pub fn estimate_cycles(&self, tx: &packed::Transaction) -> Result<u64> {
        let tx: json::Transaction = tx.clone().into();
        let value: json::EstimateCycles = self.typed("estimate_cycles", json!([tx]))?;
        Ok(value.cycles.value())
    }

    /// Mines one block on a dev chain (`IntegrationTest` module).
    pub fn generate_block(&self) -> std::result::Result<H256, CallError> {
        self.try_typed("generate_block", json!([]))
    }

    /// One page of the indexer's live cells for `search_key` (JSON as the RPC takes it).
    pub fn cells_page(
        &self,
        search_key: &Value,
        after: Option<&str>,
    ) -> Result<(Vec<IndexedCell>, String)> {
        let value = self.call("get_cells", json!([search_key, "asc", "0x64", after]))?;
        let cursor = value
            .get("last_cursor")
            .and_then(Value::as_str)
            .unwrap_or("0x")
            .to_string();
        let mut cells = Vec::new();
        for object in value
            .get("objects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let parse = || -> std::result::Result<IndexedCell, serde_json::Error> {
                let output: json::CellOutput = serde_json::from_value(object["output"].clone())?;
                let out_point: json::OutPoint =
                    serde_json::from_value(object["out_point"].clone())?;
                let data = object
                    .get("output_data")
                    .filter(|d| !d.is_null())
                    .map(|d| serde_json::from_value::<json::JsonBytes>(d.clone()))
                    .transpose()?
                    .map(|d| d.into_bytes().to_vec());
                Ok(IndexedCell {
                    out_point: out_point.into(),
                    output: output.into(),
                    data,
                })
            };
            cells.push(parse().map_err(|e| unexpected("get_cells", "cell", e))?);
        }
        Ok((cells, cursor))
    }

    /// Every live cell the indexer has for `search_key`, in block order.
    pub fn cells(&self, search_key: &Value) -> Result<Vec<IndexedCell>> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let (page, cursor) = self.cells_page(search_key, after.as_deref())?;
            let done = page.len() < 100;
            all.extend(page);
            if done {
                return Ok(all);
            }
            after = Some(cursor);
        }
    }

    /// The hashes of every transaction the indexer has for `search_key` (a cell of the script
    /// among its inputs or outputs), oldest first, each once: the history of a type id.
    pub fn transaction_hashes(&self, search_key: &Value) -> Result<Vec<H256>> {
        let bad = |e: String| unexpected("get_transactions", "answer", e);
        let mut all: Vec<H256> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut after: Option<String> = None;
        loop {
            let value = self.call(
                "get_transactions",
                json!([search_key, "asc", "0x64", after]),
            )?;
            let objects = value
                .get("objects")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("no objects".into()))?;
            for object in objects {
                let hash: H256 = serde_json::from_value(object["tx_hash"].clone())
                    .map_err(|e| bad(e.to_string()))?;
                // A transaction with the script in an input and an output is listed twice.
                if seen.insert(hash.clone()) {
                    all.push(hash);
                }
            }
            if objects.len() < 100 {
                return Ok(all);
            }
            after = value
                .get("last_cursor")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    }

    /// The indexer's tip; its cell queries lag the chain until this reaches the chain's tip.
    pub fn indexer_tip(&self) -> Result<Option<u64>> {
        let value = self.call("get_indexer_tip", json!([]))?;
        Ok(value
            .get("block_number")
            .and_then(|n| serde_json::from_value::<json::Uint64>(n.clone()).ok())
            .map(|n| n.value()))
    }
}

/// A transaction as `get_transaction` returns it.
pub struct TxWithStatus {
    pub tx: Option<packed::Transaction>,
    /// `pending`, `proposed`, `committed`, `rejected`.
    pub status: String,
    pub cycles: Option<u64>,
    pub reason: Option<String>,
}

/// A live cell found through the indexer.
#[derive(Debug, Clone)]
pub struct IndexedCell {
    pub out_point: packed::OutPoint,
    pub output: packed::CellOutput,
    /// Present when the search asked for data.
    pub data: Option<Vec<u8>>,
}

impl IndexedCell {
    pub fn capacity(&self) -> u64 {
        self.output.capacity().unpack()
    }

    /// Output `index` of `tx`, whose hash is `tx_hash`, with its data if `tx` has it.
    pub(crate) fn of_output(
        tx: &packed::Transaction,
        tx_hash: packed::Byte32,
        index: usize,
    ) -> Option<IndexedCell> {
        let raw = tx.raw();
        Some(IndexedCell {
            out_point: packed::OutPoint::new(tx_hash, index as u32),
            output: raw.outputs().get(index)?,
            data: raw.outputs_data().get(index).map(|d| d.raw_data().to_vec()),
        })
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(200).collect()
}
