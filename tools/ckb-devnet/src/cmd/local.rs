//! The commands that own a local dev chain: `node`, `start`, `stop`, `scenario`, `sync-bench`.

use super::write_file;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::node::{self, Node, Tie};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct NodeArgs {
    /// The dev chain's directory
    #[arg(long, value_name = "DIR", default_value = "build/devnet/node")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct ScenarioArgs {
    /// The scenario's directory (its chain, files and report)
    #[arg(long, value_name = "DIR", default_value = "build/devnet")]
    pub dir: PathBuf,
    /// Where the contract binaries are
    #[arg(long, value_name = "DIR", default_value = "build/release")]
    pub release: PathBuf,
    /// The JSON report [default: DIR/report.json]
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Rewrite FILE's devnet-table and devnet-accumulator-table sections with the tables
    #[arg(long, value_name = "FILE")]
    pub doc: Option<String>,
}

#[derive(Args, Debug)]
pub struct SyncBenchArgs {
    /// The benchmark's directory
    #[arg(long, value_name = "DIR", default_value = "build/scale/sync")]
    pub dir: PathBuf,
    /// Where the contract binaries are
    #[arg(long, value_name = "DIR", default_value = "build/release")]
    pub release: PathBuf,
    /// The accumulator's leaf count, 2 to 1e9
    #[arg(long, value_name = "N", default_value = "100000", value_parser = leaf_count)]
    pub leaves: u64,
    /// Write the JSON result to FILE too
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
}

/// A whole number of leaves, 2 to 1e9 (`1e5` is accepted).
fn leaf_count(v: &str) -> std::result::Result<u64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|n| n.fract() == 0.0 && *n >= 2.0 && *n <= 1e9)
        .map(|n| n as u64)
        .ok_or_else(|| "a whole number, 2 to 1e9".to_string())
}

/// The line `ckb-devnet node` prints once the RPC answers.
#[derive(Serialize)]
struct NodeLine<'a> {
    rpc_url: &'a str,
    pid: i32,
    dir: &'a std::path::Path,
    dev_key_file: PathBuf,
    owner_key_file: PathBuf,
}

pub fn node(a: &NodeArgs, tie: Tie) -> Result<()> {
    let dir = &a.dir;
    if tie == Tie::Detached && dir.join("node.pid").exists() {
        node::stop_detached(dir)?;
    }
    node::init(dir)?;
    let n = Node::start(dir, tie)?;
    if tie == Tie::Detached {
        println!("dev chain running: {}", n.rpc_url);
        println!("rpc_url: {}", n.rpc_url);
        println!(
            "pid: {} (ckb-devnet stop --dir {} stops it)",
            n.pid,
            dir.display()
        );
        println!(
            "dev_key_file: {} (a PUBLIC genesis key of the dev spec: never fund it anywhere else)",
            dir.join("dev.key").display()
        );
        println!(
            "dev_key: 0x{} (public; 20 billion CKB on this dev chain only)",
            ckb_mmr_sdk::key::DEV_KEY
        );
        println!(
            "owner_key_file: {} (the dev spec's second genesis key, public too)",
            dir.join("owner.key").display()
        );
        return Ok(());
    }
    let line = NodeLine {
        rpc_url: &n.rpc_url,
        pid: n.pid,
        dir: &n.dir,
        dev_key_file: n.dir.join("dev.key"),
        owner_key_file: n.dir.join("owner.key"),
    };
    println!("{}", serde_json::to_string(&line).expect("json"));
    // Runs until standard input closes or a signal arrives (the handler stops the node).
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    n.stop()
}

pub fn stop(a: &NodeArgs) -> Result<()> {
    if node::stop_detached(&a.dir)? {
        println!("stopped the node of {}", a.dir.display());
    } else {
        println!("no node of {} was running", a.dir.display());
    }
    Ok(())
}

pub fn sync_bench(a: &SyncBenchArgs) -> Result<()> {
    let out = ckb_devnet::sync_bench::run(&a.dir, &a.release, a.leaves)?;
    let text = serde_json::to_string_pretty(&out).expect("json");
    if let Some(path) = &a.json {
        write_file(path, &format!("{text}\n"))?;
    }
    println!("{text}");
    Ok(())
}

pub fn scenario(a: &ScenarioArgs) -> Result<()> {
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| a.dir.join("report.json"));
    let report = ckb_devnet::scenario::run(&a.dir, &a.release)?;
    write_file(
        &report_path.display().to_string(),
        &serde_json::to_string_pretty(&report.to_json()).expect("json"),
    )?;
    print!("{}", report.table());
    println!("report: {}", report_path.display());
    report.check()?;
    if let Some(doc) = &a.doc {
        let text = std::fs::read_to_string(doc).map_err(|e| Error::File {
            path: doc.clone(),
            reason: e.to_string(),
        })?;
        let text = report.write_tables(&text).map_err(|e| Error::File {
            path: doc.clone(),
            reason: e.to_string(),
        })?;
        write_file(doc, &text)?;
        println!("tables written to {doc}");
    }
    Ok(())
}
