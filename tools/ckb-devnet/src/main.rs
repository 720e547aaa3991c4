//! ckb-devnet: the MMR lock on a real CKB node. See USAGE, and docs/deploy.md.

use ckb_mmr_sdk::acc_store::{self, Leaves};
use ckb_mmr_sdk::accumulator::{self, Accumulator, Update};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::deploy::{self, CodeRef};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::node::{self, Node, Tie};
use ckb_mmr_sdk::rpc::{CallError, POOL_DUPLICATED};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE, SHANNONS_PER_CKB};
use ckb_mmr_sdk::{hex, Format, Mode};
use ckb_mmr_sdk::{out_point_text, parse_hash, parse_out_point};
use ckb_types::{packed, prelude::*, H256};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

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
                        fresh dev chain, the whole devnet scenario, a table and a JSON report
                        (default DIR/report.json; DIR default build/devnet, --release default
                        build/release); --doc rewrites FILE's devnet-table and
                        devnet-accumulator-table sections with the measured tables
  sync-bench [--dir DIR] [--release DIR] [--leaves N] [--json FILE]
                        fresh dev chain (default build/scale/sync), an accumulator grown to N
                        leaves (default 100000) in appends as large as one signed witness
                        holds (1,021 leaves less one per old peak), then `acc sync` into a
                        new store, timed: ms per 1,000 leaves (JSON to FILE too)

Against any node (--rpc URL and --key FILE, a file with one hex private key, are required;
debug, acc show and acc sync send nothing and take --rpc URL without --key):
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
  lock --acc TYPE_ID_ARGS (--verifier BINARY | --type-id ARGS) [--owner] [--capacity CKB]
                        a cell locked by reference: it follows the accumulator's MMR
  spend --acc TYPE_ID_ARGS (--leaves FILE | --store DIR) --index LIST
        (--verifier BINARY | --type-id ARGS) ...
                        spends a by-reference cell: the proof is built against the
                        accumulator's current root, the accumulator joins as a cell dep (a
                        spend that raced an append is rebuilt and resent)
  debug TXHASH | --tx FILE  [--mock-out FILE]
                        rebuilds the transaction from the node's data as a ckb-debugger mock
                        transaction and prints each script group's cycles (a built-in type
                        id group is not a RISC-V program: counted at the node's fixed
                        1,000,000 cycles)

The accumulator (docs/accumulator.md; its code cell: `deploy build/release/accumulator-type`;
--type-script-binary FILE names the binary, default build/release/accumulator-type, or
--code-dep TX:I its code cell):
  acc create (--leaves FILE | --store DIR)
                        a new accumulator holding the MMR of FILE (or of the store, which then
                        records the accumulator), locked by the key; prints its type_id (a
                        rerun finds it and sends nothing)
  acc append --type-id ARGS (--leaves FILE | --store DIR)
                        FILE (or the store) holds the whole MMR's leaves: its first n must be
                        the chain's (else exit 17, or 20 for a store whose root there differs);
                        the rest are appended
  acc extend --type-id ARGS (--leaves FILE | --store DIR)
                        the same growth by an ancestry proof: the new leaves stay off chain
  acc sync --type-id ARGS --store DIR
                        brings the store (created if DIR does not exist; removed again if
                        that first sync fails before it holds a leaf) up to the chain from
                        the leaves of the accumulator's creation and appends, checking each
                        root; resumes where it stopped; stops at an extension or an import
                        (exit 19: the chain has no leaves for it)
  acc show --type-id ARGS
                        root, mmr_size, leaf count, out point and lock (takes no --key)
  acc handover --type-id ARGS --to-key FILE
                        the same data under FILE's key's lock (KEEP)

Options: --fee-rate SHANNONS_PER_KB (default 1000), --json (print JSON), --no-generate (never
mine: wait for the node's miner), --allow-mainnet (needed to send to mainnet).
Exit codes: docs/deploy.md (2 usage, 3 unreachable, 4 RPC, 5 file, 6 key, 7 capacity,
8 leaves, 9 index, 10 mainnet, 11 refused, 12 not found, 13 node, 14 timeout, 15 ckb-debugger,
16 scenario, 17 leaves do not extend the accumulator, 18 not the accumulator's key,
19 no leaves on chain for a step, 20 the store disagrees with the chain, 21 a creation too
large for one transaction, 40-53 the store's, 130 interrupted).";

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
            "--acc",
            "--type-script-binary",
        ]),
    )?;
    let (code, _) = code_ref(&a)?;
    let capacity = match a.value("--capacity") {
        Some(v) => v
            .parse::<u64>()
            .ok()
            .and_then(|c| c.checked_mul(SHANNONS_PER_CKB))
            .ok_or_else(|| Error::Usage(format!("--capacity takes whole CKB, got {v:?}")))?,
        None => mmr_cell::DEFAULT_CELL_CAPACITY,
    };
    if a.value("--acc").is_some() {
        return lock_by_reference(&a, &code, capacity);
    }
    let leaves = mmr_cell::read_leaves(a.required("--leaves")?)?;
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
            "--acc",
            "--store",
            "--type-script-binary",
        ]),
    )?;
    if a.value("--acc").is_some() {
        return spend_by_reference(&a);
    }
    let leaves = mmr_cell::read_leaves(a.required("--leaves")?)?;
    let indexes = ckb_mmr_sdk::parse_indexes(a.required("--index")?)?;
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
    let deployment = verifier_deployment(&wallet, &code, binary, code_dep)?;
    let lock = mmr_cell::lock_script(&code, &w, mode);
    let cell = pick_cell(&wallet, &lock, cell_at, &w.lock_args_for(mode))?;
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

/// The live cell locked by `lock`: the one at `at` when given, else the first.
fn pick_cell(
    wallet: &Wallet,
    lock: &packed::Script,
    at: Option<packed::OutPoint>,
    args: &[u8],
) -> Result<ckb_mmr_sdk::rpc::IndexedCell> {
    let cells = mmr_cell::find_locked(wallet, lock)?;
    match at {
        Some(op) => cells
            .into_iter()
            .find(|c| c.out_point.as_slice() == op.as_slice()),
        None => cells.into_iter().next(),
    }
    .ok_or_else(|| {
        Error::NotFound(format!(
            "no live cell locked by {} (args {})",
            hex(lock.calc_script_hash().as_slice()),
            hex(args)
        ))
    })
}

/// The verifier's live code cell: by type id, at `--code-dep`, or among the key's cells.
fn verifier_deployment(
    wallet: &Wallet,
    code: &CodeRef,
    binary: Option<Vec<u8>>,
    code_dep: Option<packed::OutPoint>,
) -> Result<deploy::Deployment> {
    Ok(match (code, binary, code_dep) {
        (CodeRef::TypeId { args }, _, _) => deploy::find_type_id(wallet, *args)?,
        (CodeRef::Data2 { .. }, Some(b), Some(op)) => deploy::at_out_point(wallet, op, &b)?,
        (CodeRef::Data2 { .. }, Some(b), None) => {
            deploy::find_own(wallet, &b, false)?.ok_or_else(|| {
                Error::NotFound(
                    "no deployment of this binary among the key's cells: pass --code-dep TX:INDEX"
                        .into(),
                )
            })?
        }
        (CodeRef::Data2 { .. }, None, _) => unreachable!("a data2 reference comes with its binary"),
    })
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
    let rpc = ckb_mmr_sdk::rpc::Rpc::new(a.required("--rpc")?)?;
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
    let (_, runs) = ckb_mmr_sdk::debug::debug(&rpc, &tx, &out)?;
    let groups: Vec<Value> = runs
        .iter()
        .map(|r| {
            let (result, cycles) = match &r.run {
                Ok(_) if r.group.builtin => (
                    json!("built-in type id"),
                    json!(ckb_mmr_sdk::debug::BUILTIN_TYPE_ID_CYCLES),
                ),
                Ok(run) => (json!(run.result), json!(run.cycles)),
                Err(e) => (json!(e), Value::Null),
            };
            json!({ "group": r.group.group_type, "cell_type": r.group.cell_type, "index": r.group.index,
                    "script_hash": hex(&r.group.script_hash), "result": result, "cycles": cycles,
                    "builtin": r.group.builtin })
        })
        .collect();
    let total = ckb_mmr_sdk::debug::total_cycles(&runs);
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
                g["result"]
                    .as_str()
                    .map_or_else(|| g["result"].to_string(), str::to_string),
                g["cycles"].to_string()
            );
        }
        match &total {
            Ok(t) if runs.iter().any(|r| r.group.builtin) => println!(
                "ckb-debugger total: {t} cycles (a built-in type id group counted at the node's fixed {} cycles)",
                ckb_mmr_sdk::debug::BUILTIN_TYPE_ID_CYCLES
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

/// The accumulator's type script code hash: the code cell's data hash when `--code-dep` names
/// it, else the hash of `--type-script-binary` (default build/release/accumulator-type),
/// whose bytes also find the key's own deployment.
struct AccCode {
    code_hash: Option<[u8; 32]>,
    binary: Option<Vec<u8>>,
    code_dep: Option<packed::OutPoint>,
}

impl AccCode {
    fn from_args(a: &Args) -> Result<AccCode> {
        let code_dep = a.value("--code-dep").map(parse_out_point).transpose()?;
        AccCode::new(a, code_dep)
    }

    fn new(a: &Args, code_dep: Option<packed::OutPoint>) -> Result<AccCode> {
        let binary = match (a.value("--type-script-binary"), &code_dep) {
            (Some(path), _) => Some(deploy::read_binary(path)?),
            (None, Some(_)) => None,
            (None, None) => Some(deploy::read_binary(accumulator::DEFAULT_BINARY)?),
        };
        Ok(AccCode {
            code_hash: binary.as_deref().map(ckb_hash::blake2b_256),
            binary,
            code_dep,
        })
    }

    /// The code hash, reading the `--code-dep` cell when no binary was given.
    fn code_hash(&self, chain: &Chain) -> Result<[u8; 32]> {
        if let Some(h) = self.code_hash {
            return Ok(h);
        }
        let op = self.code_dep.clone().expect("a code dep when no binary");
        let (_, data) = chain
            .rpc
            .live_cell(&op)?
            .ok_or_else(|| Error::NotFound(format!("no live cell at {}", out_point_text(&op))))?;
        Ok(ckb_hash::blake2b_256(&data))
    }

    fn deployment(
        &self,
        wallet: &Wallet,
        code_hash: [u8; 32],
        acc: Option<&Accumulator>,
    ) -> Result<deploy::Deployment> {
        accumulator::find_code(
            wallet,
            code_hash,
            self.binary.as_deref(),
            self.code_dep.clone(),
            acc,
        )
    }
}

const ACC_CODE: [&str; 2] = ["--type-script-binary", "--code-dep"];

fn acc_json(acc: &Accumulator, extra: Value) -> Value {
    let mut fields = acc.to_json();
    if let (Value::Object(map), Value::Object(more)) = (&mut fields, extra) {
        map.extend(more);
    }
    fields
}

fn cmd_acc(raw: &[String]) -> Result<()> {
    let Some((sub, rest)) = raw.split_first() else {
        return Err(Error::Usage(format!(
            "acc takes create, append, extend, show, handover or sync\n\n{USAGE}"
        )));
    };
    match sub.as_str() {
        "create" => acc_create(rest),
        "append" | "extend" => acc_grow(rest, sub == "extend"),
        "show" => acc_show(rest),
        "handover" => acc_handover(rest),
        "sync" => acc_sync(rest),
        other => Err(Error::Usage(format!(
            "unknown acc command {other:?}: create, append, extend, show, handover or \
             sync\n\n{USAGE}"
        ))),
    }
}

fn acc_create(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &options(&[&["--leaves", "--store"][..], &ACC_CODE].concat()),
    )?;
    let source = Leaves::from_args(a.value("--store"), a.value("--leaves"))?;
    let leaves = source.all()?;
    let most = accumulator::max_leaves_per_tx(0);
    if leaves.len() as u64 > most {
        return Err(Error::TooLarge(format!(
            "a creation carries its leaves in the witness the secp256k1 lock reads (32,768 bytes): \
             at most {most} leaves; create with the first {most} and acc append the rest (appends \
             are split into transactions as needed)"
        )));
    }
    let code = AccCode::from_args(&a)?;
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let code_hash = code.code_hash(&chain)?;
    let c = accumulator::commitment(&leaves)?;
    if let Some(found) = accumulator::find_held(&wallet, code_hash, &c)?
        .into_iter()
        .next()
    {
        progress("the key already holds an accumulator with this MMR; nothing sent");
        record_in_store(&a, &found)?;
        print(&a, acc_json(&found, json!({ "created": false })));
        return Ok(());
    }
    let deployment = code.deployment(&wallet, code_hash, None)?;
    let draft = accumulator::create_draft(&deployment, key.lock(), &leaves)?;
    let built = accumulator::complete(&wallet, draft)?;
    let acc = accumulator::after(code_hash, &built)?;
    if let Leaves::Store(store) = &source {
        // A store that already belongs to an accumulator is refused before anything is sent.
        store.expect_accumulator(&acc.type_id)?;
    }
    let cycles = chain.rpc.estimate_cycles(&built.tx)?;
    let hash = accumulator::send(&wallet, &built, "creating the accumulator")?;
    record_in_store(&a, &acc)?;
    print(
        &a,
        acc_json(
            &acc,
            json!({ "created": true, "tx_hash": format!("{hash:#x}"), "cycles": cycles,
                    "tx_bytes": built.size(), "fee_shannons": built.fee }),
        ),
    );
    Ok(())
}

/// Records the accumulator in `--store`'s meta, so the store refuses another one later (41).
fn record_in_store(a: &Args, acc: &Accumulator) -> Result<()> {
    if let Some(dir) = a.value("--store") {
        mmr_store::Store::open(Path::new(dir))?.set_accumulator(acc.type_id)?;
    }
    Ok(())
}

/// The accumulator `--type-id` names, with the code hash it was found under.
fn acc_of(a: &Args, chain: &Chain, code: &AccCode) -> Result<Accumulator> {
    let type_id = parse_hash("--type-id", a.required("--type-id")?)?;
    accumulator::find(chain, code.code_hash(chain)?, type_id)
}

fn acc_show(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &[
            &["--rpc", "--type-id", "--json", "--allow-mainnet"][..],
            &ACC_CODE,
        ]
        .concat(),
    )?;
    let code = AccCode::from_args(&a)?;
    let chain = Chain::connect(a.required("--rpc")?, a.flag("--allow-mainnet"))?;
    let acc = acc_of(&a, &chain, &code)?;
    print(&a, acc.to_json());
    Ok(())
}

/// One update of the accumulator, paid and signed by the key that holds it, sent and
/// committed.
struct Sent {
    after: Accumulator,
    hash: H256,
    cycles: u64,
    tx_bytes: usize,
    fee: u64,
}

fn send_update(
    wallet: &Wallet,
    code: &AccCode,
    acc: &Accumulator,
    update: Update,
    what: &str,
) -> Result<Sent> {
    acc.check_holder(wallet)?;
    let (new, lock, payload) = update.parts(acc)?;
    let deployment = code.deployment(wallet, acc.code_hash, Some(acc))?;
    let draft = accumulator::update_draft(acc, &deployment, &new, lock, &payload);
    let built = accumulator::complete(wallet, draft)?;
    let cycles = wallet.chain.rpc.estimate_cycles(&built.tx)?;
    let hash = accumulator::send(wallet, &built, what)?;
    Ok(Sent {
        after: accumulator::after(acc.code_hash, &built)?,
        hash,
        cycles,
        tx_bytes: built.size(),
        fee: built.fee,
    })
}

/// Prints what the last of `sent` left, after the accumulator `before`.
fn print_sent(a: &Args, before: &Accumulator, sent: &[Sent]) {
    let last = sent.last().expect("at least one update sent");
    print(
        a,
        acc_json(
            &last.after,
            json!({ "sent": true, "tx_hash": format!("{:#x}", last.hash), "cycles": last.cycles,
                    "tx_bytes": last.tx_bytes,
                    "fee_shannons": sent.iter().map(|s| s.fee).sum::<u64>(),
                    "transactions": sent.len(),
                    "tx_hashes": sent.iter().map(|s| format!("{:#x}", s.hash)).collect::<Vec<_>>(),
                    "leaves_added": last.after.leaf_count - before.leaf_count }),
        ),
    );
}

fn acc_grow(raw: &[String], extend: bool) -> Result<()> {
    let a = Args::parse(
        raw,
        &options(&[&["--type-id", "--leaves", "--store"][..], &ACC_CODE].concat()),
    )?;
    let source = Leaves::from_args(a.value("--store"), a.value("--leaves"))?;
    let code = AccCode::from_args(&a)?;
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let acc = acc_of(&a, &chain, &code)?;
    source.check_prefix(&acc)?;
    if source.leaf_count() == acc.leaf_count {
        // A rerun after the update was committed: the chain already holds the MMR.
        progress("the accumulator already holds every leaf of the MMR; nothing sent");
        print(
            &a,
            acc_json(&acc, json!({ "sent": false, "leaves_added": 0 })),
        );
        return Ok(());
    }
    acc.check_holder(&wallet)?;
    // An append's leaves travel in the witness the secp256k1 lock reads, 32 KiB at most: a
    // longer one goes in several transactions, each a committed state a rerun resumes from.
    let mut sent: Vec<Sent> = Vec::new();
    let mut now = acc.clone();
    while now.leaf_count < source.leaf_count() {
        let target = if extend {
            source.leaf_count()
        } else {
            source
                .leaf_count()
                .min(now.leaf_count + accumulator::max_leaves_per_tx(now.leaf_count))
        };
        let (new, payload) = source.growth(&now, extend, target)?;
        let what = if extend {
            "extending the accumulator".to_string()
        } else {
            format!(
                "appending leaves {}..{target} to the accumulator",
                now.leaf_count
            )
        };
        let s = send_update(&wallet, &code, &now, Update::Grow(new, payload), &what)?;
        now = s.after.clone();
        sent.push(s);
    }
    print_sent(&a, &acc, &sent);
    Ok(())
}

fn acc_handover(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &options(&[&["--type-id", "--to-key"][..], &ACC_CODE].concat()),
    )?;
    let to = Key::from_file(a.required("--to-key")?)?;
    let code = AccCode::from_args(&a)?;
    let (chain, key, fee_rate) = connect(&a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let acc = acc_of(&a, &chain, &code)?;
    if acc.lock().as_slice() == to.lock().as_slice() {
        progress("the accumulator is already locked by that key; nothing sent");
        print(&a, acc_json(&acc, json!({ "sent": false })));
        return Ok(());
    }
    let s = send_update(
        &wallet,
        &code,
        &acc,
        Update::Keep(to.lock()),
        "handing the accumulator over",
    )?;
    print_sent(&a, &acc, &[s]);
    Ok(())
}

fn acc_sync(raw: &[String]) -> Result<()> {
    let a = Args::parse(
        raw,
        &[
            &["--rpc", "--type-id", "--store", "--json", "--allow-mainnet"][..],
            &ACC_CODE,
        ]
        .concat(),
    )?;
    let type_id = parse_hash("--type-id", a.required("--type-id")?)?;
    let dir = Path::new(a.required("--store")?);
    let code = AccCode::from_args(&a)?;
    let chain = Chain::connect(a.required("--rpc")?, a.flag("--allow-mainnet"))?;
    let code_hash = code.code_hash(&chain)?;
    let created = !dir.exists();
    let mut store = if created {
        mmr_store::Store::create(dir, Some(type_id))?
    } else {
        mmr_store::Store::open(dir)?
    };
    let synced = acc_store::sync(&chain, code_hash, type_id, &mut store);
    // A store this call created and left empty is removed again, so a failed first sync (no
    // such accumulator, a disagreeing chain) leaves nothing behind. Stopping at an import or
    // extension (19) keeps it: the message says to append the missing leaves to it.
    if created
        && store.leaf_count() == 0
        && matches!(&synced, Err(e) if !matches!(e, Error::NoChainLeaves(_)))
    {
        drop(store);
        let _ = std::fs::remove_dir_all(dir);
    }
    let report = synced?;
    progress(&format!(
        "the store holds {} leaves (mmr_size {}), the accumulator's root {}",
        report.state.leaf_count,
        report.state.mmr_size,
        hex(&report.state.root)
    ));
    print(&a, report.to_json(&type_id));
    Ok(())
}

fn lock_by_reference(a: &Args, code: &CodeRef, capacity: u64) -> Result<()> {
    let acc_code = AccCode::from_args(a)?;
    let type_id = parse_hash("--acc", a.required("--acc")?)?;
    let mode = mode_of(a);
    let (chain, key, fee_rate) = connect(a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let acc = accumulator::find(&chain, acc_code.code_hash(&chain)?, type_id)?;
    let lock = acc.reference_lock(code, mode);
    let (cell, built) = mmr_cell::lock_cell(&wallet, lock.clone(), capacity)?;
    print(
        a,
        json!({
            "out_point": out_point_text(&cell.out_point),
            "tx_hash": hex(cell.out_point.tx_hash().as_slice()),
            "args": hex(&lock.args().raw_data()),
            "code_hash": hex(&code.code_hash()),
            "hash_type": code.kind(),
            "lock_hash": hex(lock.calc_script_hash().as_slice()),
            "accumulator_type_hash": hex(&acc.type_hash()),
            "capacity_shannons": capacity,
            "fee_shannons": built.fee,
        }),
    );
    Ok(())
}

/// How often a by-reference spend is rebuilt after its accumulator moved on under it.
const DEAD_DEP_RETRIES: usize = 3;

fn spend_by_reference(a: &Args) -> Result<()> {
    let mut source = Leaves::from_args(a.value("--store"), a.value("--leaves"))?;
    let indexes = ckb_mmr_sdk::parse_indexes(a.required("--index")?)?;
    let type_id = parse_hash("--acc", a.required("--acc")?)?;
    let (code, binary) = code_ref(a)?;
    let format = format_of(a)?;
    let mode = mode_of(a);
    let code_dep = a.value("--code-dep").map(parse_out_point).transpose()?;
    let cell_at = a.value("--cell").map(parse_out_point).transpose()?;
    // Here --code-dep is the verifier's: the accumulator's code is named by its binary.
    let acc_code = AccCode::new(a, None)?;
    let (chain, key, fee_rate) = connect(a)?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let deployment = verifier_deployment(&wallet, &code, binary, code_dep)?;
    let code_hash = acc_code.code_hash(&chain)?;
    let mut attempt = 0;
    loop {
        let acc = accumulator::find(&chain, code_hash, type_id)?;
        let w = source.prove(&acc, &indexes)?;
        if mode == Mode::Owner {
            mmr_cell::check_owner(&wallet, &w)?;
        }
        let lock = acc.reference_lock(&code, mode);
        let cell = pick_cell(&wallet, &lock, cell_at.clone(), &lock.args().raw_data())?;
        let spend = Spend::new(cell.clone(), deployment.clone(), &w, format, mode)?
            .with_dep(acc.cell_dep());
        let built = spend.build(&wallet)?;
        if let Some(path) = a.value("--save-tx") {
            save_tx(path, &built.tx)?;
        }
        let sent = match chain.rpc.send_transaction(&built.tx) {
            Ok(hash) => Ok(hash),
            Err(CallError::Node(e)) if e.code == POOL_DUPLICATED => {
                Ok(built.tx.calc_tx_hash().unpack())
            }
            Err(CallError::Node(e))
                if accumulator::is_dead_cell(&e) && attempt < DEAD_DEP_RETRIES =>
            {
                attempt += 1;
                progress(&format!(
                    "the accumulator moved on while the spend was sent ({}): rebuilding",
                    e.message
                ));
                chain.next_block()?;
                chain.wait_indexer()?;
                source.refresh()?;
                continue;
            }
            Err(CallError::Node(e)) => Err(e.into_error("send_transaction")),
            Err(CallError::Other(e)) => Err(e),
        };
        let hash = sent?;
        progress(&format!("sent {hash:#x}, waiting for it to be committed"));
        chain.wait_committed(&hash)?;
        let cycles = chain.rpc.transaction(&hash)?.and_then(|t| t.cycles);
        print(
            a,
            json!({
                "tx_hash": format!("{hash:#x}"),
                "status": "committed",
                "cycles": cycles,
                "tx_bytes": built.size(),
                "fee_shannons": built.fee,
                "spent": out_point_text(&cell.out_point),
                "accumulator": out_point_text(&acc.cell.out_point),
                "root": hex(&acc.commitment.root),
                "mmr_size": acc.commitment.mmr_size,
                "rebuilt": attempt,
            }),
        );
        return Ok(());
    }
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
            ckb_mmr_sdk::key::DEV_KEY
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

fn cmd_sync_bench(raw: &[String]) -> Result<()> {
    let a = Args::parse(raw, &["--dir", "--release", "--leaves", "--json"])?;
    let dir = PathBuf::from(a.value("--dir").unwrap_or("build/scale/sync"));
    let release = PathBuf::from(a.value("--release").unwrap_or("build/release"));
    let leaves = match a.value("--leaves") {
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|n| n.fract() == 0.0 && *n >= 2.0 && *n <= 1e9)
            .map(|n| n as u64)
            .ok_or_else(|| Error::Usage(format!("--leaves {v:?}: a whole number, 2 to 1e9")))?,
        None => 100_000,
    };
    let out = ckb_devnet::sync_bench::run(&dir, &release, leaves)?;
    let text = serde_json::to_string_pretty(&out).expect("json");
    if let Some(path) = a.value("--json") {
        std::fs::write(path, format!("{text}\n")).map_err(|e| Error::File {
            path: path.into(),
            reason: e.to_string(),
        })?;
    }
    println!("{text}");
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
    let report = ckb_devnet::scenario::run(&dir, &release)?;
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
        let text = ckb_devnet::scenario::replace_between(&text, "devnet-table", &report.markdown())
            .and_then(|t| {
                ckb_devnet::scenario::replace_between(
                    &t,
                    "devnet-accumulator-table",
                    &report.accumulator_markdown(),
                )
            })
            .ok_or_else(|| Error::File {
                path: doc.into(),
                reason: "no devnet-table or devnet-accumulator-table markers".into(),
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
        "acc" => cmd_acc(&rest),
        "sync-bench" => cmd_sync_bench(&rest),
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
