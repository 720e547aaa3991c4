//! `debug`: a transaction rebuilt from the node's data as a ckb-debugger mock transaction, and
//! every script group's cycles.

use super::{hash32, read_text, Reader};
use ckb_devnet::fresh_chain::file_error;
use ckb_mmr_sdk::debug::{self, GroupRow};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_types::H256;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct DebugArgs {
    /// The committed transaction's hash
    #[arg(value_name = "TXHASH", value_parser = hash32, required_unless_present = "tx")]
    pub tx_hash: Option<[u8; 32]>,
    /// A transaction as JSON (spend --save-tx) instead of TXHASH
    #[arg(long, value_name = "FILE", conflicts_with = "tx_hash")]
    pub tx: Option<String>,
    /// Where the mock transaction is written
    #[arg(
        long,
        value_name = "FILE",
        default_value = "build/devnet/debug-tx.json"
    )]
    pub mock_out: PathBuf,
    #[command(flatten)]
    pub read: Reader,
}

#[derive(Serialize)]
struct DebugRow<'a> {
    mock_tx: &'a Path,
    groups: &'a [GroupRow],
    debugger_cycles: Option<u64>,
    node_cycles: Option<u64>,
}

pub fn run(a: &DebugArgs) -> Result<()> {
    let rpc = ckb_mmr_sdk::rpc::Rpc::new(&a.read.rpc)?;
    let (tx, node_cycles) = match (a.tx_hash, &a.tx) {
        (Some(hash), None) => {
            let text = ckb_mmr_sdk::hex(&hash);
            let t = rpc
                .transaction(&H256(hash))?
                .ok_or_else(|| Error::NotFound(format!("transaction {text} on the node")))?;
            (
                t.tx.ok_or_else(|| Error::NotFound(format!("the body of {text}")))?,
                t.cycles,
            )
        }
        (None, Some(path)) => {
            let tx: ckb_jsonrpc_types::Transaction = serde_json::from_str(&read_text(path)?)
                .map_err(|e| file_error(path, format!("not a transaction: {e}")))?;
            (tx.into(), None)
        }
        _ => unreachable!("clap takes one TXHASH or --tx FILE"),
    };
    let out = &a.mock_out;
    if let Some(parent) = out.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let (_, runs) = debug::debug(&rpc, &tx, out)?;
    let groups: Vec<GroupRow> = runs.iter().map(|r| r.row()).collect();
    let total = debug::total_cycles(&runs);
    if a.read.json {
        let row = DebugRow {
            mock_tx: out,
            groups: &groups,
            debugger_cycles: total.as_ref().ok().copied(),
            node_cycles,
        };
        println!("{}", serde_json::to_value(&row).expect("json"));
    } else {
        println!(
            "{:<6} {:<7} {:>5}  {:<66} {:>8} {:>12}",
            "group", "cell", "index", "script hash", "result", "cycles"
        );
        for g in &groups {
            let cycles = g.cycles.map_or("null".to_string(), |c| c.to_string());
            println!(
                "{:<6} {:<7} {:>5}  {:<66} {:>8} {:>12}",
                g.group,
                g.cell_type,
                g.index,
                g.script_hash,
                g.result.to_string(),
                cycles
            );
        }
        match &total {
            Ok(t) if runs.iter().any(|r| r.group.builtin) => println!(
                "ckb-debugger total: {t} cycles (a built-in type id group counted at the node's fixed {} cycles)",
                debug::BUILTIN_TYPE_ID_CYCLES
            ),
            Ok(t) => println!("ckb-debugger total: {t} cycles"),
            Err(e) => println!("ckb-debugger total: - ({e})"),
        }
        if let Some(c) = node_cycles {
            println!("node: {c} cycles");
        }
        println!("mock transaction: {} (ckb-debugger --tx-file {} --script-group-type lock --cell-type input --cell-index N)", out.display(), out.display());
    }
    total.map(|_| ())
}
