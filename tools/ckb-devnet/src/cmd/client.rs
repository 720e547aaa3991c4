//! The client commands that lock and spend: `deploy`, `lock`, `spend` (by value or by
//! reference to an accumulator).

use super::acc::AccCode;
use super::{capacity, format, hash32, out_point, print, write_file, Client};
use ckb_mmr_sdk::acc_store::Leaves;
use ckb_mmr_sdk::accumulator::{self, Accumulator};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::deploy::{self, CodeRef, DeploymentRow};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::mmr_cell::{self, Spend};
use ckb_mmr_sdk::ring::{self, Located};
use ckb_mmr_sdk::rpc::{CallError, IndexedCell, POOL_DUPLICATED};
use ckb_mmr_sdk::wallet::{Built, Wallet};
use ckb_mmr_sdk::weight;
use ckb_mmr_sdk::{hex, out_point_text, Format, Mode};
use ckb_types::{packed, prelude::*, H256};
use clap::Args;
use serde::Serialize;
use std::path::Path;

#[derive(Args, Debug)]
pub struct DeployArgs {
    /// The binary the code cell holds
    #[arg(value_name = "BINARY")]
    pub binary: String,
    /// Deploy under a new type id (its args are printed), so it can be upgraded
    #[arg(long)]
    pub type_id: bool,
    /// Upgrade the type id deployment whose type id args are TYPE_ID_ARGS to BINARY
    #[arg(long, value_name = "TYPE_ID_ARGS", value_parser = hash32, conflicts_with = "type_id")]
    pub upgrade: Option<[u8; 32]>,
    #[command(flatten)]
    pub client: Client,
}

/// The verifier a cell is locked by: a data2 binary, or a deployment's type id.
#[derive(Args, Debug)]
pub struct Verifier {
    /// The verifier binary (a data2 reference to its code)
    #[arg(long, value_name = "BINARY")]
    pub verifier: Option<String>,
    /// The verifier's type id args (a type reference to its code)
    #[arg(long, value_name = "ARGS", value_parser = hash32, conflicts_with = "verifier")]
    pub type_id: Option<[u8; 32]>,
}

impl Verifier {
    /// The code reference, and the binary when it was given.
    fn code_ref(&self) -> Result<(CodeRef, Option<Vec<u8>>)> {
        match (&self.verifier, self.type_id) {
            (Some(path), None) => {
                let binary = deploy::read_binary(path)?;
                Ok((
                    CodeRef::Data2 {
                        data_hash: ckb_hash::blake2b_256(&binary),
                    },
                    Some(binary),
                ))
            }
            (None, Some(args)) => Ok((CodeRef::TypeId { args }, None)),
            _ => Err(Error::Usage(
                "give the verifier as --verifier BINARY or --type-id ARGS (one of them)".into(),
            )),
        }
    }
}

#[derive(Args, Debug)]
pub struct LockArgs {
    /// The leaves, one 32-byte hex leaf per line: the cell is locked by their MMR
    #[arg(long, value_name = "FILE", required_unless_present = "acc")]
    pub leaves: Option<String>,
    /// Lock by reference: the cell follows the MMR of the accumulator TYPE_ID_ARGS
    #[arg(long, value_name = "TYPE_ID_ARGS", value_parser = hash32, conflicts_with = "leaves")]
    pub acc: Option<[u8; 32]>,
    #[command(flatten)]
    pub verifier: Verifier,
    /// Owner mode: a spend also needs an input of the key's own cells, signed
    #[arg(long)]
    pub owner: bool,
    /// The cell's capacity in whole CKB [default: the smallest that holds the lock]
    #[arg(long, value_name = "CKB", value_parser = capacity)]
    pub capacity: Option<u64>,
    /// With --acc: the accumulator's type script binary
    #[arg(long, value_name = "FILE")]
    pub type_script_binary: Option<String>,
    #[command(flatten)]
    pub client: Client,
}

#[derive(Args, Debug)]
pub struct SpendArgs {
    /// The leaves of the MMR the cell is locked by (or, with --acc, the accumulator's)
    #[arg(long, value_name = "FILE", required_unless_present = "store")]
    pub leaves: Option<String>,
    /// With --acc: the accumulator's leaves from a store instead of a file
    #[arg(long, value_name = "DIR", requires = "acc", conflicts_with = "leaves")]
    pub store: Option<String>,
    /// The leaf indexes proved, e.g. 0,5,7-9
    #[arg(long, value_name = "LIST")]
    pub index: String,
    /// Spend a cell locked by reference to the accumulator TYPE_ID_ARGS
    #[arg(long, value_name = "TYPE_ID_ARGS", value_parser = hash32)]
    pub acc: Option<[u8; 32]>,
    #[command(flatten)]
    pub verifier: Verifier,
    /// The verifier's code cell [default: the key's own deployment of BINARY]
    #[arg(long, value_name = "TX:I", value_parser = out_point)]
    pub code_dep: Option<packed::OutPoint>,
    /// The proof's payload format [default: baseline for a baseline binary, else compiled]
    #[arg(long, value_name = "baseline|compiled", value_parser = format)]
    pub format: Option<Format>,
    /// Owner mode: adds one of the key's cells as the owner's input and signs it
    #[arg(long)]
    pub owner: bool,
    /// The locked cell to spend [default: the first found]
    #[arg(long, value_name = "TX:I", value_parser = out_point)]
    pub cell: Option<packed::OutPoint>,
    /// Write the transaction as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub save_tx: Option<String>,
    /// With --acc: the accumulator's type script binary
    #[arg(long, value_name = "FILE")]
    pub type_script_binary: Option<String>,
    /// With --acc on a ring: give up (exit 14) when no spend has committed after SECS; the
    /// spend is rebuilt on the newest snapshot as often as an append consumes its dep
    #[arg(long, value_name = "SECS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub time_limit: u64,
    #[command(flatten)]
    pub client: Client,
}

fn mode(owner: bool) -> Mode {
    if owner {
        Mode::Owner
    } else {
        Mode::Plain
    }
}

/// The format `--format` names, else the verifier binary's: the baseline verifier reads its
/// own payload; the C and compiled verifiers share one.
fn format_of(a: &SpendArgs) -> Format {
    let baseline = a.verifier.verifier.as_deref().is_some_and(|v| {
        Path::new(v)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("baseline"))
    });
    a.format.unwrap_or(if baseline {
        Format::Baseline
    } else {
        Format::Compiled
    })
}

#[derive(Serialize)]
struct DeployRow<'a> {
    #[serde(flatten)]
    deployment: DeploymentRow,
    binary: &'a str,
    out_point: String,
}

pub fn deploy(a: &DeployArgs) -> Result<()> {
    let binary = deploy::read_binary(&a.binary)?;
    let (chain, key, fee_rate) = a.client.connect()?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let d = match a.upgrade {
        Some(args) => deploy::upgrade(&wallet, args, &binary)?,
        None => deploy::deploy(&wallet, &binary, a.type_id)?,
    };
    let row = DeployRow {
        deployment: d.row(),
        binary: &a.binary,
        out_point: out_point_text(&d.out_point),
    };
    print(a.client.read.json, &row);
    Ok(())
}

#[derive(Serialize)]
struct LockRow {
    out_point: String,
    tx_hash: String,
    args: String,
    code_hash: String,
    hash_type: &'static str,
    lock_hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mmr_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accumulator_type_hash: Option<String>,
    capacity_shannons: u64,
    fee_shannons: u64,
}

pub fn lock(a: &LockArgs) -> Result<()> {
    let (code, _) = a.verifier.code_ref()?;
    let capacity = a.capacity.unwrap_or(mmr_cell::DEFAULT_CELL_CAPACITY);
    let mode = mode(a.owner);
    let by_value = |leaves: &str| -> Result<_> {
        let w = mmr_cell::prove(&mmr_cell::read_leaves(leaves)?, &[0])?;
        Ok((mmr_cell::lock_script(&code, &w, mode), w))
    };
    // A by-value lock's leaves are checked before anything is sent; a by-reference lock's
    // accumulator is looked up on the chain.
    let (by_value, acc_code) = match (a.acc, &a.leaves) {
        (Some(_), _) => (
            None,
            Some(AccCode::new(a.type_script_binary.as_deref(), None)?),
        ),
        (None, Some(leaves)) => (Some(by_value(leaves)?), None),
        (None, None) => unreachable!("clap requires --leaves without --acc"),
    };
    let (chain, key, fee_rate) = a.client.connect()?;
    let (lock, args, root, mmr_size, accumulator_type_hash) = match (by_value, acc_code, a.acc) {
        (Some((lock, w)), _, _) => (
            lock,
            w.lock_args_for(mode),
            Some(hex(&w.root)),
            Some(w.mmr_size),
            None,
        ),
        (None, Some(acc_code), Some(type_id)) => {
            // A ring's cells all carry its type hash: the lock follows the ring.
            let acc = match ring::locate(&chain, acc_code.code_hash(&chain)?, type_id)? {
                Located::Plain(acc) => acc,
                Located::Ring(r) => r.head,
            };
            let lock = acc.reference_lock(&code, mode);
            let args = lock.args().raw_data().to_vec();
            (lock, args, None, None, Some(hex(&acc.type_hash())))
        }
        _ => unreachable!("one of the two"),
    };
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let (cell, built) = mmr_cell::lock_cell(&wallet, lock.clone(), capacity)?;
    let row = LockRow {
        out_point: out_point_text(&cell.out_point),
        tx_hash: hex(cell.out_point.tx_hash().as_slice()),
        args: hex(&args),
        code_hash: hex(&code.code_hash()),
        hash_type: code.kind(),
        lock_hash: hex(lock.calc_script_hash().as_slice()),
        root,
        mmr_size,
        accumulator_type_hash,
        capacity_shannons: capacity,
        fee_shannons: built.fee,
    };
    print(a.client.read.json, &row);
    Ok(())
}

#[derive(Serialize)]
struct SpendRow {
    tx_hash: String,
    status: &'static str,
    cycles: Option<u64>,
    tx_bytes: usize,
    /// max(tx bytes, cycles x 0.0001705714): what the node charges for (ckb_mmr_sdk::weight).
    weight: Option<u64>,
    fee_shannons: u64,
    spent: String,
    #[serde(flatten)]
    by_reference: Option<ByReferenceRow>,
}

/// What a by-reference spend adds: the accumulator it was proved against.
#[derive(Serialize)]
struct ByReferenceRow {
    accumulator: String,
    root: String,
    mmr_size: u64,
    rebuilt: usize,
}

pub fn spend(a: &SpendArgs) -> Result<()> {
    if let Some(type_id) = a.acc {
        return spend_by_reference(a, type_id);
    }
    let leaves = a
        .leaves
        .as_deref()
        .expect("clap requires --leaves without --store");
    let leaves = mmr_cell::read_leaves(leaves)?;
    let indexes = ckb_mmr_sdk::parse_indexes(&a.index)?;
    let w = mmr_cell::prove(&leaves, &indexes)?;
    let (code, binary) = a.verifier.code_ref()?;
    let format = format_of(a);
    let mode = mode(a.owner);
    let (chain, key, fee_rate) = a.client.connect()?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    if mode == Mode::Owner {
        mmr_cell::check_owner(&wallet, &w)?;
    }
    let deployment = verifier_deployment(&wallet, &code, binary, a.code_dep.clone())?;
    let lock = mmr_cell::lock_script(&code, &w, mode);
    let cell = pick_cell(&wallet, &lock, a.cell.clone(), &w.lock_args_for(mode))?;
    let spend = Spend::new(cell.clone(), deployment, &w, format, mode)?;
    let built = spend.build(&wallet)?;
    if let Some(path) = &a.save_tx {
        save_tx(path, &built.tx)?;
    }
    let cycles = chain.rpc.estimate_cycles(&built.tx)?;
    let hash = chain.send_and_commit(&built.tx)?;
    let row = SpendRow {
        tx_hash: format!("{hash:#x}"),
        status: "committed",
        cycles: Some(cycles),
        tx_bytes: built.size(),
        weight: Some(weight::weight(built.size(), cycles)),
        fee_shannons: built.fee,
        spent: out_point_text(&cell.out_point),
        by_reference: None,
    };
    print(a.client.read.json, &row);
    Ok(())
}

/// How often a by-reference spend is rebuilt after its accumulator moved on under it.
const DEAD_DEP_RETRIES: usize = 3;

fn spend_by_reference(a: &SpendArgs, type_id: [u8; 32]) -> Result<()> {
    let mut source = acc_store_leaves(a)?;
    let indexes = ckb_mmr_sdk::parse_indexes(&a.index)?;
    let (code, binary) = a.verifier.code_ref()?;
    // Here --code-dep is the verifier's: the accumulator's code is named by its binary.
    let acc_code = AccCode::new(a.type_script_binary.as_deref(), None)?;
    let (chain, key, fee_rate) = a.client.connect()?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let deployment = verifier_deployment(&wallet, &code, binary, a.code_dep.clone())?;
    // The spend of the cell locked by reference to `acc` (an accumulator or a ring's
    // snapshot), proved against it and saved with --save-tx.
    let build = |source: &Leaves, acc: &Accumulator| -> Result<(IndexedCell, Built)> {
        let (format, mode) = (format_of(a), mode(a.owner));
        let w = source.prove(acc, &indexes)?;
        if mode == Mode::Owner {
            mmr_cell::check_owner(&wallet, &w)?;
        }
        let lock = acc.reference_lock(&code, mode);
        let cell = pick_cell(&wallet, &lock, a.cell.clone(), &lock.args().raw_data())?;
        let built = Spend::new(cell.clone(), deployment.clone(), &w, format, mode)?
            .with_dep(acc.cell_dep())
            .build(&wallet)?;
        if let Some(path) = &a.save_tx {
            save_tx(path, &built.tx)?;
        }
        Ok((cell, built))
    };
    let code_hash = acc_code.code_hash(&chain)?;
    if let Located::Ring(r) = ring::locate(&chain, code_hash, type_id)? {
        // A ring: the spender takes the newest committed snapshot, and rebuilds on the newest
        // again whenever an append consumed it, until the time limit.
        let limit = std::time::Duration::from_secs(a.time_limit);
        let mut cell = None;
        let spent = ring::spend(&chain, code_hash, type_id, r.k, limit, |snapshot| {
            source.refresh()?;
            let (c, built) = build(&source, snapshot)?;
            cell = Some(c);
            Ok(built)
        })?;
        let cell = cell.expect("a spend was built");
        let (hash, snapshot) = (&spent.hash, &spent.snapshot);
        let row = by_reference_row(&chain, hash, &spent.built, &cell, snapshot, spent.rebuilds)?;
        print(a.client.read.json, &row);
        return Ok(());
    }
    let mut attempt = 0;
    loop {
        let acc = accumulator::find(&chain, code_hash, type_id)?;
        let (cell, built) = build(&source, &acc)?;
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
        let row = by_reference_row(&chain, &hash, &built, &cell, &acc, attempt)?;
        print(a.client.read.json, &row);
        return Ok(());
    }
}

/// The row of a by-reference spend committed as `hash`, proved against `acc` after `rebuilt`
/// rebuilds.
fn by_reference_row(
    chain: &Chain,
    hash: &H256,
    built: &Built,
    cell: &IndexedCell,
    acc: &Accumulator,
    rebuilt: usize,
) -> Result<SpendRow> {
    let cycles = chain.rpc.transaction(hash)?.and_then(|t| t.cycles);
    Ok(SpendRow {
        tx_hash: format!("{hash:#x}"),
        status: "committed",
        cycles,
        tx_bytes: built.size(),
        weight: cycles.map(|c| weight::weight(built.size(), c)),
        fee_shannons: built.fee,
        spent: out_point_text(&cell.out_point),
        by_reference: Some(ByReferenceRow {
            accumulator: out_point_text(&acc.cell.out_point),
            root: hex(&acc.commitment.root),
            mmr_size: acc.commitment.mmr_size,
            rebuilt,
        }),
    })
}

fn acc_store_leaves(a: &SpendArgs) -> Result<Leaves> {
    Leaves::from_args(a.store.as_deref(), a.leaves.as_deref())
}

/// The live cell locked by `lock`: the one at `at` when given, else the first.
fn pick_cell(
    wallet: &Wallet,
    lock: &packed::Script,
    at: Option<packed::OutPoint>,
    args: &[u8],
) -> Result<IndexedCell> {
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
    write_file(path, &text)
}
