//! ckb-devnet: the MMR lock on a real CKB node. See USAGE, and docs/deploy.md.

use ckb_types::{packed, prelude::*, H256};
use devnet::chain::Chain;
use devnet::deploy::{self, CodeRef};
use devnet::error::{Error, Result};
use devnet::key::Key;
use devnet::mmr_cell::{self, Spend};
use devnet::node::{self, Node, Tie};
use devnet::wallet::{Wallet, DEFAULT_FEE_RATE, SHANNONS_PER_CKB};
use devnet::{out_point_text, parse_hash, parse_out_point};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tx_generator::{hex, Format, Mode};

const USAGE: &str = "\
usage: ckb-devnet <command> [options]

A local dev chain:
  node  [--dir DIR]     init a fresh dev chain in DIR (default build/devnet/node) and run its
                        node in the foreground; prints one JSON line when the RPC answers
                        ({\"rpc_url\", \"pid\", \"dir\", \"dev_key_file\", \"owner_key_file\"}) and
                        stops the node on Ctrl-C, SIGTERM or when standard input closes
  start [--dir DIR]     the same, but leaves the node running in the background
  stop  [--dir DIR]     stops the node `start` left running (by the PID it recorded)
  scenario [--dir DIR] [--release DIR] [--report FILE] [--doc FILE]
                        fresh dev chain, the whole devnet scenario, a table and a JSON report;
                        --doc rewrites FILE's devnet-table section with the measured tables

Against any node (--rpc URL and --key FILE, a file with one hex private key, are required):
  deploy BINARY [--type-id | --upgrade TYPE_ID_ARGS]
                        a code cell holding BINARY, locked by the key; a rerun finds it
                        through the indexer and pays nothing
  lock --leaves FILE (--verifier BINARY | --type-id ARGS) [--owner] [--capacity CKB]
                        a cell locked by the verifier with the MMR of FILE (args printed)
  spend --leaves FILE --index LIST (--verifier BINARY [--code-dep TX:I] | --type-id ARGS)
        [--format baseline|compiled] [--owner] [--cell TX:I] [--save-tx FILE]
                        spends a cell locked by `lock` with a proof of the leaves at LIST;
                        the capacity goes to the key's lock; --owner adds one of the key's
                        cells as the owner's input and signs it
  debug TXHASH | --tx FILE  [--mock-out FILE]
                        rebuilds the transaction from the node's data as a ckb-debugger mock
                        transaction and prints each script group's cycles

Options: --fee-rate SHANNONS_PER_KB (default 1000), --json (print JSON), --no-generate (never
mine: wait for the node's miner), --allow-mainnet (needed to send to mainnet).
Exit codes: docs/deploy.md (2 usage, 3 unreachable, 4 RPC, 5 file, 6 key, 7 capacity,
8 leaves, 9 index, 10 mainnet, 11 refused, 12 not found, 13 node, 14 timeout, 15 ckb-debugger,
16 scenario).";

/// Options and positionals, checked against what each command takes.
struct Args {
    positional: Vec<String>,
    values: Vec<(String, String)>,
    flags: Vec<String>,
}

const FLAGS: &[&str] = &[
    "--type-id-new",
    "--owner",
    "--json",
    "--no-generate",
    "--allow-mainnet",
];

impl Args {
    fn parse(raw: &[String], allowed: &[&str]) -> Result<Args> {
        let mut a = Args {
            positional: Vec::new(),
            values: Vec::new(),
            flags: Vec::new(),
        };
        let mut it = raw.iter();
        while let Some(arg) = it.next() {
            if !arg.starts_with("--") {
                a.positional.push(arg.clone());
                continue;
            }
            if !allowed.contains(&arg.as_str()) {
                return Err(Error::Usage(format!(
                    "unknown option {arg} for this command\n\n{USAGE}"
                )));
            }
            if FLAGS.contains(&arg.as_str()) {
                a.flags.push(arg.clone());
            } else {
                let v = it
                    .next()
                    .ok_or_else(|| Error::Usage(format!("{arg} needs a value")))?;
                a.values.push((arg.clone(), v.clone()));
            }
        }
        Ok(a)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn required(&self, name: &str) -> Result<&str> {
        self.value(name)
            .ok_or_else(|| Error::Usage(format!("this command needs {name}")))
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    fn dir(&self) -> PathBuf {
        PathBuf::from(self.value("--dir").unwrap_or("build/devnet/node"))
    }
}

const CLIENT: &[&str] = &[
    "--rpc",
    "--key",
    "--fee-rate",
    "--json",
    "--no-generate",
    "--allow-mainnet",
];

fn options(extra: &[&'static str]) -> Vec<&'static str> {
    CLIENT.iter().chain(extra).copied().collect()
}

/// The chain and the key of a client command; the key is read before anything is sent.
fn connect(a: &Args) -> Result<(Chain, Key, u64)> {
    let key = Key::from_file(a.required("--key")?)?;
    let fee_rate = match a.value("--fee-rate") {
        Some(v) => v.parse().map_err(|_| {
            Error::Usage(format!(
                "--fee-rate takes shannons per 1,000 bytes, got {v:?}"
            ))
        })?,
        None => DEFAULT_FEE_RATE,
    };
    let mut chain = Chain::connect(a.required("--rpc")?, a.flag("--allow-mainnet"))?;
    if a.flag("--no-generate") {
        chain = chain.no_generate();
    }
    Ok((chain, key, fee_rate))
}

/// Prints `fields` as JSON (`--json`) or as `name: value` lines.
fn print(a: &Args, fields: Value) {
    if a.flag("--json") {
        println!("{fields}");
        return;
    }
    if let Value::Object(map) = fields {
        for (k, v) in map {
            match v {
                Value::String(s) => println!("{k}: {s}"),
                other => println!("{k}: {other}"),
            }
        }
    }
}

/// The verifier a lock or spend names: a data2 binary or a type id.
fn code_ref(a: &Args) -> Result<(CodeRef, Option<Vec<u8>>)> {
    match (a.value("--verifier"), a.value("--type-id")) {
        (Some(path), None) => {
            let binary = deploy::read_binary(path)?;
            Ok((
                CodeRef::Data2 {
                    data_hash: ckb_hash::blake2b_256(&binary),
                },
                Some(binary),
            ))
        }
        (None, Some(args)) => Ok((
            CodeRef::TypeId {
                args: parse_hash("--type-id", args)?,
            },
            None,
        )),
        _ => Err(Error::Usage(
            "give the verifier as --verifier BINARY or --type-id ARGS (one of them)".into(),
        )),
    }
}

fn format_of(a: &Args) -> Result<Format> {
    if let Some(f) = a.value("--format") {
        return Format::from_name(f)
            .ok_or_else(|| Error::Usage(format!("--format is baseline or compiled, got {f:?}")));
    }
    // The baseline verifier reads its own payload; the C and compiled verifiers share one.
    let baseline = a.value("--verifier").is_some_and(|v| {
        Path::new(v)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("baseline"))
    });
    Ok(if baseline {
        Format::Baseline
    } else {
        Format::Compiled
    })
}

fn mode_of(a: &Args) -> Mode {
    if a.flag("--owner") {
        Mode::Owner
    } else {
        Mode::Plain
    }
}

fn cmd_deploy(raw: &[String]) -> Result<()> {
    let a = Args::parse(raw, &options(&["--type-id-new", "--upgrade"]))?;
    let [path] = &a.positional[..] else {
        return Err(Error::Usage(format!("deploy takes one BINARY\n\n{USAGE}")));
    };
    let binary = deploy::read_binary(path)?;
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let d = match a.value("--upgrade") {
        Some(args) => deploy::upgrade(&wallet, parse_hash("--upgrade", args)?, &binary)?,
        None => deploy::deploy(&wallet, &binary, a.flag("--type-id-new"))?,
    };
    let mut fields = d.to_json();
    fields["binary"] = json!(path);
    fields["out_point"] = json!(out_point_text(&d.out_point));
    print(&a, fields);
    Ok(())
}

fn cmd_lock(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &options(&[
            "--leaves",
            "--verifier",
            "--type-id",
            "--owner",
            "--capacity",
        ]),
    )?;
    let leaves_path = a.required("--leaves")?;
    let leaves = mmr_cell::read_leaves(leaves_path)?;
    let (code, _) = code_ref(&a)?;
    let capacity = match a.value("--capacity") {
        Some(v) => v
            .parse::<u64>()
            .ok()
            .and_then(|c| c.checked_mul(SHANNONS_PER_CKB))
            .ok_or_else(|| Error::Usage(format!("--capacity takes whole CKB, got {v:?}")))?,
        None => mmr_cell::DEFAULT_CELL_CAPACITY,
    };
    let w = mmr_cell::prove(&leaves, &[0])?;
    let mode = mode_of(&a);
    let lock = mmr_cell::lock_script(&code, &w, mode);
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let (cell, built) = mmr_cell::lock_cell(&wallet, lock.clone(), capacity)?;
    print(
        &a,
        json!({
            "out_point": out_point_text(&cell.out_point),
            "tx_hash": hex(cell.out_point.tx_hash().as_slice()),
            "args": hex(&w.lock_args_for(mode)),
            "code_hash": hex(&code.code_hash()),
            "hash_type": code.kind(),
            "lock_hash": hex(lock.calc_script_hash().as_slice()),
            "root": hex(&w.root),
            "mmr_size": w.mmr_size,
            "capacity_shannons": capacity,
            "fee_shannons": built.fee,
        }),
    );
    Ok(())
}

fn cmd_spend(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &options(&[
            "--leaves",
            "--index",
            "--verifier",
            "--type-id",
            "--code-dep",
            "--format",
            "--owner",
            "--cell",
            "--save-tx",
        ]),
    )?;
    let leaves = mmr_cell::read_leaves(a.required("--leaves")?)?;
    let indexes = tx_generator::parse_indexes(a.required("--index")?).map_err(Error::Index)?;
    let w = mmr_cell::prove(&leaves, &indexes)?;
    let (code, binary) = code_ref(&a)?;
    let format = format_of(&a)?;
    let mode = mode_of(&a);
    let code_dep = a.value("--code-dep").map(parse_out_point).transpose()?;
    let cell_at = a.value("--cell").map(parse_out_point).transpose()?;
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    if mode == Mode::Owner {
        mmr_cell::check_owner(&wallet, &w)?;
    }
    let deployment = match (&code, binary, code_dep) {
        (CodeRef::TypeId { args }, _, _) => deploy::find_type_id(&wallet, *args)?,
        (CodeRef::Data2 { .. }, Some(b), Some(op)) => deploy::at_out_point(&wallet, op, &b)?,
        (CodeRef::Data2 { .. }, Some(b), None) => deploy::find_own(&wallet, &b, false)?
            .ok_or_else(|| {
                Error::NotFound(
                    "no deployment of this binary among the key's cells: pass --code-dep TX:INDEX"
                        .into(),
                )
            })?,
        (CodeRef::Data2 { .. }, None, _) => unreachable!("a data2 reference comes with its binary"),
    };
    let lock = mmr_cell::lock_script(&code, &w, mode);
    let cells = mmr_cell::find_locked(&wallet, &lock)?;
    let cell = match cell_at {
        Some(op) => cells
            .into_iter()
            .find(|c| c.out_point.as_slice() == op.as_slice()),
        None => cells.into_iter().next(),
    }
    .ok_or_else(|| {
        Error::NotFound(format!(
            "no live cell locked by {} (args {})",
            hex(lock.calc_script_hash().as_slice()),
            hex(&w.lock_args_for(mode))
        ))
    })?;
    let spend = Spend::new(cell.clone(), deployment, &w, format, mode)?;
    let built = spend.build(&wallet)?;
    if let Some(path) = a.value("--save-tx") {
        save_tx(path, &built.tx)?;
    }
    let cycles = chain.rpc.estimate_cycles(&built.tx)?;
    let hash = chain.send_and_commit(&built.tx)?;
    print(
        &a,
        json!({
            "tx_hash": format!("{hash:#x}"),
            "status": "committed",
            "cycles": cycles,
            "tx_bytes": built.size(),
            "fee_shannons": built.fee,
            "spent": out_point_text(&cell.out_point),
        }),
    );
    Ok(())
}

fn save_tx(path: &str, tx: &packed::Transaction) -> Result<()> {
    let text = serde_json::to_string_pretty(&ckb_jsonrpc_types::Transaction::from(tx.clone()))
        .expect("json");
    std::fs::write(path, text).map_err(|e| Error::File {
        path: path.into(),
        reason: e.to_string(),
    })
}

fn cmd_debug(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &["--rpc", "--tx", "--mock-out", "--json", "--allow-mainnet"],
    )?;
    let rpc = devnet::rpc::Rpc::new(a.required("--rpc")?)?;
    let (tx, node_cycles) = match (&a.positional[..], a.value("--tx")) {
        ([hash], None) => {
            let h: H256 = H256(parse_hash("TXHASH", hash)?);
            let t = rpc
                .transaction(&h)?
                .ok_or_else(|| Error::NotFound(format!("transaction {hash} on the node")))?;
            (
                t.tx.ok_or_else(|| Error::NotFound(format!("the body of {hash}")))?,
                t.cycles,
            )
        }
        ([], Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::File {
                path: path.into(),
                reason: e.to_string(),
            })?;
            let tx: ckb_jsonrpc_types::Transaction =
                serde_json::from_str(&text).map_err(|e| Error::File {
                    path: path.into(),
                    reason: format!("not a transaction: {e}"),
                })?;
            (tx.into(), None)
        }
        _ => {
            return Err(Error::Usage(format!(
                "debug takes one TXHASH or --tx FILE\n\n{USAGE}"
            )))
        }
    };
    let out = PathBuf::from(
        a.value("--mock-out")
            .unwrap_or("build/devnet/debug-tx.json"),
    );
    if let Some(parent) = out.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let (_, runs) = devnet::debug::debug(&rpc, &tx, &out)?;
    let groups: Vec<Value> = runs
        .iter()
        .map(|r| {
            let (result, cycles) = match &r.run {
                Ok(run) => (json!(run.result), json!(run.cycles)),
                Err(e) => (json!(e), Value::Null),
            };
            json!({ "group": r.group_type, "cell_type": r.cell_type, "index": r.index,
                    "script_hash": hex(&r.script_hash), "result": result, "cycles": cycles })
        })
        .collect();
    let total = devnet::debug::total_cycles(&runs);
    if a.flag("--json") {
        println!(
            "{}",
            json!({ "mock_tx": out, "groups": groups, "debugger_cycles": total.as_ref().ok(), "node_cycles": node_cycles })
        );
    } else {
        println!(
            "{:<6} {:<7} {:>5}  {:<66} {:>8} {:>12}",
            "group", "cell", "index", "script hash", "result", "cycles"
        );
        for g in &groups {
            println!(
                "{:<6} {:<7} {:>5}  {:<66} {:>8} {:>12}",
                g["group"].as_str().unwrap_or(""),
                g["cell_type"].as_str().unwrap_or(""),
                g["index"],
                g["script_hash"].as_str().unwrap_or(""),
                g["result"].to_string(),
                g["cycles"].to_string()
            );
        }
        match &total {
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

fn node_line(node: &Node) -> Value {
    json!({
        "rpc_url": node.rpc_url,
        "pid": node.pid,
        "dir": node.dir,
        "dev_key_file": node.dir.join("dev.key"),
        "owner_key_file": node.dir.join("owner.key"),
    })
}

fn cmd_node(raw: &[String], tie: Tie) -> Result<()> {
    let a = Args::parse(raw, &["--dir"])?;
    let dir = a.dir();
    if tie == Tie::Detached && dir.join("node.pid").exists() {
        node::stop_detached(&dir)?;
    }
    node::init(&dir)?;
    let n = Node::start(&dir, tie)?;
    let line = node_line(&n);
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
            devnet::key::DEV_KEY
        );
        println!(
            "owner_key_file: {} (the dev spec's second genesis key, public too)",
            dir.join("owner.key").display()
        );
        return Ok(());
    }
    println!("{line}");
    // Runs until standard input closes or a signal arrives (the handler stops the node).
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    n.stop()
}

fn cmd_stop(raw: &[String]) -> Result<()> {
    let a = Args::parse(raw, &["--dir"])?;
    let dir = a.dir();
    if node::stop_detached(&dir)? {
        println!("stopped the node of {}", dir.display());
    } else {
        println!("no node of {} was running", dir.display());
    }
    Ok(())
}

fn cmd_scenario(raw: &[String]) -> Result<()> {
    let a = Args::parse(raw, &["--dir", "--release", "--report", "--doc"])?;
    let dir = PathBuf::from(a.value("--dir").unwrap_or("build/devnet"));
    let release = PathBuf::from(a.value("--release").unwrap_or("build/release"));
    let report_path = a
        .value("--report")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("report.json"));
    let report = devnet::scenario::run(&dir, &release)?;
    std::fs::write(
        &report_path,
        serde_json::to_string_pretty(&report.to_json()).expect("json"),
    )
    .map_err(|e| Error::File {
        path: report_path.display().to_string(),
        reason: e.to_string(),
    })?;
    print!("{}", report.table());
    println!("report: {}", report_path.display());
    report.check()?;
    if let Some(doc) = a.value("--doc") {
        let text = std::fs::read_to_string(doc).map_err(|e| Error::File {
            path: doc.into(),
            reason: e.to_string(),
        })?;
        let text = devnet::scenario::replace_between(&text, "devnet-table", &report.markdown())
            .ok_or_else(|| Error::File {
                path: doc.into(),
                reason: "no devnet-table markers".into(),
            })?;
        std::fs::write(doc, text).map_err(|e| Error::File {
            path: doc.into(),
            reason: e.to_string(),
        })?;
        println!("tables written to {doc}");
    }
    Ok(())
}

fn main() {
    node::install_signal_handler();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        node::exit(if args.is_empty() { 2 } else { 0 });
    }
    // `--type-id` names an existing deployment everywhere but deploy, where it asks for one.
    let mut rest: Vec<String> = args[1..].to_vec();
    if args[0] == "deploy" {
        for a in rest.iter_mut().filter(|a| *a == "--type-id") {
            *a = "--type-id-new".into();
        }
    }
    let result = match args[0].as_str() {
        "node" => cmd_node(&rest, Tie::Owner),
        "start" => cmd_node(&rest, Tie::Detached),
        "stop" => cmd_stop(&rest),
        "scenario" => cmd_scenario(&rest),
        "deploy" => cmd_deploy(&rest),
        "lock" => cmd_lock(&rest),
        "spend" => cmd_spend(&rest),
        "debug" => cmd_debug(&rest),
        other => Err(Error::Usage(format!(
            "unknown command {other:?}\n\n{USAGE}"
        ))),
    };
    let code = match result {
        Ok(()) => 0,
        // After an interrupt the failure is the interrupt's doing (the handler stopped the
        // node this command was talking to): `node::exit` says 130, and nothing else is said.
        Err(_) if node::interrupted() => 130,
        Err(e) => {
            eprintln!("ckb-devnet: error: {e}");
            e.exit_code()
        }
    };
    node::exit(code)
}
