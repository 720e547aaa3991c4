//! `acc`: the accumulator's commands (docs/accumulator-guide.md): create, append, extend, show,
//! handover, sync. Each finds by the type id whether a plain accumulator or a ring
//! (docs/concurrency.md, "The ring's clients") lives there and acts on it; only `create`
//! needs `--ring K` to make a ring.

use super::{hash32, out_point, print, Client, Reader};
use ckb_mmr_sdk::acc_store::{self, Leaves};
use ckb_mmr_sdk::accumulator::{self, Accumulator, AccumulatorRow, Update};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::deploy;
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::ring::{self, Located, Ring};
use ckb_mmr_sdk::wallet::{Built, Wallet};
use ckb_mmr_sdk::weight;
use ckb_mmr_sdk::{hex, out_point_text};
use ckb_types::{packed, prelude::*, H256};
use clap::{Args, Subcommand};
use mmr_accumulator::Commitment;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum AccCommand {
    /// A new accumulator holding the MMR of FILE or of the store, locked by the key
    ///
    /// Prints its type_id; a store then records the accumulator. A rerun finds it and sends
    /// nothing. With --ring K: a ring of a head and K snapshot cells (K + 1 cells, args
    /// type_id || K) that by-reference spends take as their dep while appends go on.
    Create(CreateRingArgs),
    /// Appends the leaves of FILE (or the store) past the chain's
    ///
    /// FILE (or the store) holds the whole MMR's leaves: its first n must be the chain's (else
    /// exit 17, or 20 for a store whose root there differs); the rest are appended. On a ring:
    /// the head and its oldest snapshot are consumed, the snapshot rewritten with the new state.
    Append(GrowArgs),
    /// The same growth by an ancestry proof: the new leaves stay off chain (a ring as append)
    Extend(GrowArgs),
    /// Brings a store up to the chain from the accumulator's history
    ///
    /// The store is created if DIR does not exist (and removed again if that first sync fails
    /// before it holds a leaf), filled from the leaves of the accumulator's creation and
    /// appends, checking each root; resumes where it stopped; stops at an extension or an
    /// import (exit 19: the chain has no leaves for it).
    Sync(SyncArgs),
    /// Root, mmr_size, leaf count, out point and lock (takes no --key); a ring's snapshots too
    Show(ShowArgs),
    /// The same data under FILE's key's lock (KEEP; a ring: all K + 1 cells in one KEEP)
    #[command(visible_alias = "keep")]
    Handover(HandoverArgs),
}

/// Where the accumulator's code is: its binary, or its code cell.
#[derive(Args, Debug)]
pub struct AccCodeArgs {
    /// The accumulator type script binary [default: build/release/accumulator-type, unless
    /// --code-dep names its code cell]
    #[arg(long, value_name = "FILE")]
    pub type_script_binary: Option<String>,
    /// The accumulator type script's code cell, instead of its binary
    #[arg(long, value_name = "TX:I", value_parser = out_point)]
    pub code_dep: Option<packed::OutPoint>,
}

/// The MMR's leaves: a file or a store.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub struct Source {
    /// The leaves, one 32-byte hex leaf per line
    #[arg(long, value_name = "FILE")]
    pub leaves: Option<String>,
    /// A persistent store (mmr-store) holding the leaves
    #[arg(long, value_name = "DIR")]
    pub store: Option<String>,
}

impl Source {
    fn open(&self) -> Result<Leaves> {
        Leaves::from_args(self.store.as_deref(), self.leaves.as_deref())
    }
}

#[derive(Args, Debug)]
pub struct CreateArgs {
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub code: AccCodeArgs,
    #[command(flatten)]
    pub client: Client,
}

/// `acc create`'s options: create's own, and --ring.
#[derive(Args, Debug)]
pub struct CreateRingArgs {
    #[command(flatten)]
    pub with: CreateArgs,
    /// A ring of K snapshot cells, 2 to 32 (8 is the documented choice), instead of one cell
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u8).range(2..=32))]
    pub ring: Option<u8>,
}

#[derive(Args, Debug)]
pub struct GrowArgs {
    /// The accumulator's type id args
    #[arg(long, value_name = "ARGS", value_parser = hash32)]
    pub type_id: [u8; 32],
    // The leaves, the code and the node, as create takes them (and in the same order).
    #[command(flatten)]
    pub with: CreateArgs,
}

#[derive(Args, Debug)]
pub struct HandoverArgs {
    /// The accumulator's type id args
    #[arg(long, value_name = "ARGS", value_parser = hash32)]
    pub type_id: [u8; 32],
    /// A file with the private key whose lock takes the accumulator over
    #[arg(long, value_name = "FILE")]
    pub to_key: String,
    #[command(flatten)]
    pub code: AccCodeArgs,
    #[command(flatten)]
    pub client: Client,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The accumulator's type id args
    #[arg(long, value_name = "ARGS", value_parser = hash32)]
    pub type_id: [u8; 32],
    #[command(flatten)]
    pub code: AccCodeArgs,
    #[command(flatten)]
    pub read: Reader,
}

#[derive(Args, Debug)]
pub struct SyncArgs {
    /// The accumulator's type id args
    #[arg(long, value_name = "ARGS", value_parser = hash32)]
    pub type_id: [u8; 32],
    /// The store brought up to the chain (created if DIR does not exist)
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    #[command(flatten)]
    pub code: AccCodeArgs,
    #[command(flatten)]
    pub read: Reader,
}

pub fn run(command: &AccCommand) -> Result<()> {
    match command {
        AccCommand::Create(a) => match a.ring {
            Some(k) => create_ring(&a.with, k),
            None => create(&a.with),
        },
        AccCommand::Append(a) => grow(a, false),
        AccCommand::Extend(a) => grow(a, true),
        AccCommand::Sync(a) => sync(a),
        AccCommand::Show(a) => show(a),
        AccCommand::Handover(a) => handover(a),
    }
}

/// The accumulator's type script code hash: the code cell's data hash when `--code-dep` names
/// it, else the hash of `--type-script-binary` (default build/release/accumulator-type),
/// whose bytes also find the key's own deployment.
pub struct AccCode {
    code_hash: Option<[u8; 32]>,
    binary: Option<Vec<u8>>,
    code_dep: Option<packed::OutPoint>,
}

impl AccCode {
    fn from_args(a: &AccCodeArgs) -> Result<AccCode> {
        AccCode::new(a.type_script_binary.as_deref(), a.code_dep.clone())
    }

    pub fn new(binary: Option<&str>, code_dep: Option<packed::OutPoint>) -> Result<AccCode> {
        let binary = match (binary, &code_dep) {
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
    pub fn code_hash(&self, chain: &Chain) -> Result<[u8; 32]> {
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

/// An accumulator's row and what a command adds to it.
#[derive(Serialize)]
struct AccRow<T: Serialize> {
    #[serde(flatten)]
    acc: AccumulatorRow,
    #[serde(flatten)]
    extra: T,
}

fn acc_row<T: Serialize>(acc: &Accumulator, extra: T) -> AccRow<T> {
    AccRow {
        acc: acc.row(),
        extra,
    }
}

#[derive(Serialize, Default)]
struct Created {
    created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    tx_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tx_bytes: Option<usize>,
    /// max(tx bytes, cycles x 0.0001705714): what the node charges for (ckb_mmr_sdk::weight).
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fee_shannons: Option<u64>,
}

impl Created {
    /// The row of a creation just sent: its hash, cycles, bytes, weight and fee.
    fn sent(tx_hash: String, cycles: u64, built: &Built) -> Created {
        Created {
            created: true,
            tx_hash: Some(tx_hash),
            cycles: Some(cycles),
            tx_bytes: Some(built.size()),
            weight: Some(weight::weight(built.size(), cycles)),
            fee_shannons: Some(built.fee),
        }
    }
}

/// Nothing was sent: the chain already held what was asked.
#[derive(Serialize)]
struct NotSent {
    sent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    leaves_added: Option<u64>,
}

/// The updates one command sent.
#[derive(Serialize)]
struct SentRow {
    sent: bool,
    tx_hash: String,
    cycles: u64,
    tx_bytes: usize,
    /// The last transaction's weight (ckb_mmr_sdk::weight).
    weight: u64,
    fee_shannons: u64,
    transactions: usize,
    tx_hashes: Vec<String>,
    leaves_added: u64,
}

/// What `acc create` and `acc create --ring` start from, in this order (so that the same bad
/// input fails the same way in both): the leaves, at most one creation's (else `TooLarge`,
/// `too_many` giving its text from the most), the code, the connected chain and key, the code
/// hash and the leaves' commitment.
struct Creating<'a> {
    args: &'a CreateArgs,
    source: Leaves,
    leaves: Vec<[u8; 32]>,
    code: AccCode,
    chain: Chain,
    key: Key,
    fee_rate: u64,
    code_hash: [u8; 32],
    commitment: Commitment,
}

impl<'a> Creating<'a> {
    fn open(args: &'a CreateArgs, too_many: impl FnOnce(u64) -> String) -> Result<Creating<'a>> {
        let source = args.source.open()?;
        let leaves = source.all()?;
        let most = accumulator::max_leaves_per_tx(0);
        if leaves.len() as u64 > most {
            return Err(Error::TooLarge(too_many(most)));
        }
        let code = AccCode::from_args(&args.code)?;
        let (chain, key, fee_rate) = args.client.connect()?;
        let code_hash = code.code_hash(&chain)?;
        let commitment = accumulator::commitment(&leaves)?;
        Ok(Creating {
            args,
            source,
            leaves,
            code,
            chain,
            key,
            fee_rate,
            code_hash,
            commitment,
        })
    }

    /// --json: the row as JSON.
    fn json(&self) -> bool {
        self.args.client.read.json
    }

    fn wallet(&self) -> Wallet<'_> {
        Wallet::new(&self.chain, &self.key, self.fee_rate)
    }

    /// The accumulator type's live code cell: `--code-dep`'s, else the key's own deployment.
    fn deployment(&self, wallet: &Wallet) -> Result<deploy::Deployment> {
        self.code.deployment(wallet, self.code_hash, None)
    }

    /// `found` (a ring's head), which the key already holds as `held` says, recorded in the
    /// store: nothing to send.
    fn found(&self, found: &Accumulator, held: &str) -> Result<Created> {
        progress(&format!("the key already holds {held}; nothing sent"));
        record_in_store(self.args.source.store.as_deref(), found)?;
        Ok(Created::default())
    }

    /// Sends `built`, the creation of `acc` (a ring's head): a store that already belongs to an
    /// accumulator is refused before anything is sent, and records `acc` once it is.
    fn send(
        &self,
        wallet: &Wallet,
        built: &Built,
        acc: &Accumulator,
        what: &str,
    ) -> Result<Created> {
        if let Leaves::Store(store) = &self.source {
            store.expect_accumulator(&acc.type_id)?;
        }
        let cycles = self.chain.rpc.estimate_cycles(&built.tx)?;
        let hash = accumulator::send(wallet, built, what)?;
        record_in_store(self.args.source.store.as_deref(), acc)?;
        Ok(Created::sent(format!("{hash:#x}"), cycles, built))
    }
}

fn create(a: &CreateArgs) -> Result<()> {
    let c = Creating::open(a, |most| {
        format!(
            "a creation carries its leaves in the witness the secp256k1 lock reads (32,768 bytes): \
             at most {most} leaves; create with the first {most} and acc append the rest (appends \
             are split into transactions as needed)"
        )
    })?;
    let wallet = c.wallet();
    if let Some(found) = accumulator::find_held(&wallet, c.code_hash, &c.commitment)?
        .into_iter()
        .next()
    {
        let row = c.found(&found, "an accumulator with this MMR")?;
        print(c.json(), &acc_row(&found, row));
        return Ok(());
    }
    let deployment = c.deployment(&wallet)?;
    let draft = accumulator::create_draft(&deployment, c.key.lock(), &c.leaves)?;
    let built = accumulator::complete(&wallet, draft)?;
    let acc = accumulator::after(c.code_hash, &built)?;
    let row = c.send(&wallet, &built, &acc, "creating the accumulator")?;
    print(c.json(), &acc_row(&acc, row));
    Ok(())
}

/// A ring's creation as printed.
#[derive(Serialize)]
struct CreatedRing {
    #[serde(flatten)]
    created: Created,
    #[serde(flatten)]
    ring: RingExtra,
}

/// `acc create --ring K`: the head and K snapshots in one creation (`CREATE` of the leaves).
fn create_ring(a: &CreateArgs, k: u8) -> Result<()> {
    let c = Creating::open(a, |most| {
        format!(
            "a ring's creation carries its leaves in the witness the secp256k1 lock reads: at \
             most {most} leaves; create with the first {most} and acc append the rest"
        )
    })?;
    let wallet = c.wallet();
    let print_ring = |r: &Ring, created: Created| {
        let ring = ring_extra(r);
        print(c.json(), &acc_row(&r.head, CreatedRing { created, ring }));
    };
    if let Some(found) = ring::find_held(&wallet, c.code_hash, k, &c.commitment)?
        .into_iter()
        .next()
    {
        print_ring(&found, c.found(&found.head, "a ring with this MMR and K")?);
        return Ok(());
    }
    let deployment = c.deployment(&wallet)?;
    let creation = ring::Creation::Create(&c.leaves);
    let draft = ring::create_draft(&deployment, c.key.lock(), k, creation)?;
    let built = accumulator::complete(&wallet, draft)?;
    let r = ring::after_creation(c.code_hash, &built)?;
    let what = format!("creating a ring of K = {k}");
    print_ring(&r, c.send(&wallet, &built, &r.head, &what)?);
    Ok(())
}

/// Records the accumulator in `--store`'s meta, so the store refuses another one later (41).
fn record_in_store(store: Option<&str>, acc: &Accumulator) -> Result<()> {
    if let Some(dir) = store {
        mmr_store::Store::open(Path::new(dir))?.set_accumulator(acc.type_id)?;
    }
    Ok(())
}

fn show(a: &ShowArgs) -> Result<()> {
    let code = AccCode::from_args(&a.code)?;
    let chain = Chain::connect(&a.read.rpc, a.read.allow_mainnet)?;
    match ring::locate(&chain, code.code_hash(&chain)?, a.type_id)? {
        Located::Plain(acc) => print(a.read.json, &acc.row()),
        Located::Ring(r) => print(a.read.json, &acc_row(&r.head, ring_extra(&r))),
    }
    Ok(())
}

/// A ring's snapshots, as `acc show` and the ring's commands print them.
#[derive(Serialize)]
struct RingExtra {
    older: Vec<u64>,
    /// The snapshot a spend takes now (the largest mmr_size).
    newest_snapshot: String,
    snapshots: Vec<String>,
}

fn ring_extra(r: &Ring) -> RingExtra {
    RingExtra {
        older: r.older.clone(),
        newest_snapshot: out_point_text(&r.newest().cell.out_point),
        snapshots: r
            .snapshots
            .iter()
            .map(|s| {
                format!(
                    "{} mmr_size {}",
                    out_point_text(&s.cell.out_point),
                    s.commitment.mmr_size
                )
            })
            .collect(),
    }
}

/// A plain accumulator or a ring, as the update commands act on it.
#[derive(Clone)]
enum Target {
    Plain(Accumulator),
    Ring(Ring),
}

impl Target {
    fn find(chain: &Chain, code_hash: [u8; 32], type_id: [u8; 32]) -> Result<Target> {
        Ok(match ring::locate(chain, code_hash, type_id)? {
            Located::Plain(a) => Target::Plain(a),
            Located::Ring(r) => Target::Ring(r),
        })
    }

    /// The accumulator's state: the cell, or the ring's head.
    fn head(&self) -> &Accumulator {
        match self {
            Target::Plain(a) => a,
            Target::Ring(r) => &r.head,
        }
    }
}

/// One update of the accumulator, paid and signed by the key that holds it, sent and
/// committed.
struct Sent {
    after: Target,
    hash: H256,
    cycles: u64,
    tx_bytes: usize,
    fee: u64,
}

fn send_update(
    wallet: &Wallet,
    code: &AccCode,
    target: &Target,
    update: Update,
    what: &str,
) -> Result<Sent> {
    let acc = target.head();
    acc.check_holder(wallet)?;
    let (new, lock, payload) = update.parts(acc)?;
    let deployment = code.deployment(wallet, acc.code_hash, Some(acc))?;
    let draft = match (target, &update) {
        (Target::Plain(_), _) => accumulator::update_draft(acc, &deployment, &new, lock, &payload),
        (Target::Ring(r), Update::Keep(_)) => ring::keep_draft(r, &deployment, &lock),
        (Target::Ring(r), _) => ring::step_draft(r, &deployment, &new, &payload)?,
    };
    let built = accumulator::complete(wallet, draft)?;
    let cycles = wallet.chain.rpc.estimate_cycles(&built.tx)?;
    let hash = accumulator::send(wallet, &built, what)?;
    let after = match target {
        Target::Plain(_) => Target::Plain(accumulator::after(acc.code_hash, &built)?),
        Target::Ring(r) => Target::Ring(r.after(&built.tx)?),
    };
    Ok(Sent {
        after,
        hash,
        cycles,
        tx_bytes: built.size(),
        fee: built.fee,
    })
}

/// The updates one command sent, and the ring's snapshots when it is one.
#[derive(Serialize)]
struct SentRing {
    #[serde(flatten)]
    sent: SentRow,
    #[serde(flatten)]
    ring: Option<RingExtra>,
}

/// Prints what the last of `sent` left, after the accumulator `before`.
fn print_sent(json: bool, before: &Accumulator, sent: &[Sent]) {
    let last = sent.last().expect("at least one update sent");
    let after = last.after.head();
    let row = SentRow {
        sent: true,
        tx_hash: format!("{:#x}", last.hash),
        cycles: last.cycles,
        tx_bytes: last.tx_bytes,
        weight: weight::weight(last.tx_bytes, last.cycles),
        fee_shannons: sent.iter().map(|s| s.fee).sum(),
        transactions: sent.len(),
        tx_hashes: sent.iter().map(|s| format!("{:#x}", s.hash)).collect(),
        leaves_added: after.leaf_count - before.leaf_count,
    };
    let ring = match &last.after {
        Target::Ring(r) => Some(ring_extra(r)),
        Target::Plain(_) => None,
    };
    print(json, &acc_row(after, SentRing { sent: row, ring }));
}

fn grow(a: &GrowArgs, extend: bool) -> Result<()> {
    let source = a.with.source.open()?;
    let code = AccCode::from_args(&a.with.code)?;
    let (chain, key, fee_rate) = a.with.client.connect()?;
    let json = a.with.client.read.json;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let target = Target::find(&chain, code.code_hash(&chain)?, a.type_id)?;
    let acc = target.head().clone();
    source.check_prefix(&acc)?;
    if source.leaf_count() == acc.leaf_count {
        // A rerun after the update was committed: the chain already holds the MMR.
        progress("the accumulator already holds every leaf of the MMR; nothing sent");
        let row = NotSent {
            sent: false,
            leaves_added: Some(0),
        };
        print(json, &acc_row(&acc, row));
        return Ok(());
    }
    acc.check_holder(&wallet)?;
    // An append's leaves travel in the witness the secp256k1 lock reads, 32 KiB at most: a
    // longer one goes in several transactions, each a committed state a rerun resumes from.
    let mut sent: Vec<Sent> = Vec::new();
    let mut now = target;
    while now.head().leaf_count < source.leaf_count() {
        let n = now.head().leaf_count;
        let target = if extend {
            source.leaf_count()
        } else {
            source
                .leaf_count()
                .min(n + accumulator::max_leaves_per_tx(n))
        };
        let (new, payload) = source.growth(now.head(), extend, target)?;
        let what = if extend {
            "extending the accumulator".to_string()
        } else {
            format!("appending leaves {n}..{target} to the accumulator")
        };
        let s = send_update(&wallet, &code, &now, Update::Grow(new, payload), &what)?;
        now = s.after.clone();
        sent.push(s);
    }
    print_sent(json, &acc, &sent);
    Ok(())
}

fn handover(a: &HandoverArgs) -> Result<()> {
    let to = Key::from_file(&a.to_key)?;
    let code = AccCode::from_args(&a.code)?;
    let (chain, key, fee_rate) = a.client.connect()?;
    let wallet = Wallet::new(&chain, &key, fee_rate);
    let target = Target::find(&chain, code.code_hash(&chain)?, a.type_id)?;
    let acc = target.head().clone();
    if acc.lock().as_slice() == to.lock().as_slice() {
        progress("the accumulator is already locked by that key; nothing sent");
        let row = NotSent {
            sent: false,
            leaves_added: None,
        };
        print(a.client.read.json, &acc_row(&acc, row));
        return Ok(());
    }
    let s = send_update(
        &wallet,
        &code,
        &target,
        Update::Keep(to.lock()),
        "handing the accumulator over",
    )?;
    print_sent(a.client.read.json, &acc, &[s]);
    Ok(())
}

fn sync(a: &SyncArgs) -> Result<()> {
    let dir = a.store.as_path();
    let code = AccCode::from_args(&a.code)?;
    let chain = Chain::connect(&a.read.rpc, a.read.allow_mainnet)?;
    let code_hash = code.code_hash(&chain)?;
    let created = !dir.exists();
    let mut store = if created {
        mmr_store::Store::create(dir, Some(a.type_id))?
    } else {
        mmr_store::Store::open(dir)?
    };
    let synced = acc_store::sync(&chain, code_hash, a.type_id, &mut store);
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
    print(a.read.json, &report.row(&a.type_id));
    Ok(())
}
