//! The commands that own a local dev chain: `node`, `start`, `stop`, `scenario`, `sync-bench`,
//! `load`.

use super::{read_text, write_file};
use ckb_devnet::fresh_chain::file_error;
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

#[derive(Args, Debug)]
pub struct LoadArgs {
    /// The run's directory (its chain and report)
    #[arg(long, value_name = "DIR", default_value = "build/load")]
    pub dir: PathBuf,
    /// Where the contract binaries are
    #[arg(long, value_name = "DIR", default_value = "build/release")]
    pub release: PathBuf,
    /// The JSON report [default: DIR/report.json]
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Blocks that each commit one append, 3 to 100,000
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u64).range(3..=100_000))]
    pub blocks: u64,
    /// By-reference spends, 1 to 1,000
    #[arg(long, value_name = "N", default_value_t = 50,
          value_parser = clap::value_parser!(u64).range(1..=1_000))]
    pub spends: u64,
    /// Concurrent clients, 1 to 64 (and at most --spends)
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub clients: u64,
    /// The pause before each block, in which spends race the append, 100 to 60,000 ms
    #[arg(long, value_name = "MS", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(100..=60_000))]
    pub block_ms: u64,
    /// Seeds the spends' keys and arrival moments
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// The accumulator and the cell the clients take as their dep: ring (a ring of --ring K
    /// snapshots, the newest committed one), or a plain accumulator's committed cell (the
    /// indexer's) or tip (the newest, pooled appends included), for comparison
    #[arg(long, value_name = "WHICH", default_value = "ring",
          value_parser = ["ring", "committed", "tip"])]
    pub dep: String,
    /// With --dep ring: the ring's K, 2 to 32
    #[arg(long, value_name = "K", default_value_t = 8,
          value_parser = clap::value_parser!(u8).range(2..=32))]
    pub ring: u8,
    /// When the admin sends each append: at the start of the block interval, or at a random
    /// moment within it (--seed)
    #[arg(long, value_name = "WHEN", default_value = "start",
          value_parser = ["start", "random"])]
    pub append_at: String,
    /// A griefing client: before each append it lists the cell the append will consume as a
    /// cell dep, then replaces itself by RBF, evicting the append (the admin resends it)
    #[arg(long)]
    pub griefer: bool,
    /// Rewrite FILE's table section for the run's --dep (load-ring-table, load-table,
    /// load-tip-table) with the run's table
    #[arg(long, value_name = "FILE")]
    pub doc: Option<String>,
    /// Run nothing: print (and with --doc write) the table of this earlier report
    #[arg(long, value_name = "FILE")]
    pub from_report: Option<String>,
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
        let text = report
            .write_tables(&read_text(doc)?)
            .map_err(|e| file_error(doc, e))?;
        write_file(doc, &text)?;
        println!("tables written to {doc}");
    }
    Ok(())
}

pub fn load(a: &LoadArgs) -> Result<()> {
    if a.clients > a.spends {
        return Err(Error::Usage(format!(
            "--clients {} is more than --spends {}: every client needs a spend",
            a.clients, a.spends
        )));
    }
    let o = ckb_devnet::load::Options {
        blocks: a.blocks,
        spends: a.spends as usize,
        clients: a.clients as usize,
        block_ms: a.block_ms,
        seed: a.seed,
        dep: match a.dep.as_str() {
            "tip" => ckb_devnet::load::Dep::Tip,
            "committed" => ckb_devnet::load::Dep::Committed,
            _ => ckb_devnet::load::Dep::Ring,
        },
        ring_k: a.ring,
        append_at: if a.append_at == "random" {
            ckb_devnet::load::AppendAt::Random
        } else {
            ckb_devnet::load::AppendAt::Start
        },
        griefer: a.griefer,
    };
    if let Some(path) = &a.from_report {
        let text = read_text(path)?;
        let report: ckb_devnet::load::LoadReport = serde_json::from_str(&text)
            .map_err(|e| file_error(path, format!("not a load report: {e}")))?;
        print!("{}", report.markdown());
        return write_load_table(&report, a.doc.as_deref());
    }
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| a.dir.join("report.json"));
    let report = ckb_devnet::load::run(&a.dir, &a.release, &o)?;
    write_file(
        &report_path.display().to_string(),
        &format!(
            "{}\n",
            serde_json::to_string_pretty(&report).expect("the report is plain JSON")
        ),
    )?;
    print!("{}", report.markdown());
    println!("report: {}", report_path.display());
    report.check(&o)?;
    write_load_table(&report, a.doc.as_deref())
}

/// Rewrites `doc`'s table section for the report's dep (`load-ring-table`, `load-table`,
/// `load-tip-table`), when
/// there is a `doc`.
fn write_load_table(report: &ckb_devnet::load::LoadReport, doc: Option<&str>) -> Result<()> {
    let Some(doc) = doc else { return Ok(()) };
    let text = report
        .write_table(&read_text(doc)?)
        .map_err(|e| file_error(doc, e))?;
    write_file(doc, &text)?;
    println!("table written to {doc}");
    Ok(())
}
