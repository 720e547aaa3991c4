//! tx-generator: a seeded MMR workload as a ckb-debugger mock transaction with one input per
//! verifier binary, and the `prove`, `lock-hash`, `code-hash`, `vectors` and `acc-vectors`
//! commands. `tx-generator --help` and `tx-generator COMMAND --help` describe them.

mod acc_vectors;

use ckb_mmr_sdk::script::{self, Script};
use ckb_mmr_sdk::tx::{self, DepCell, OwnerInput};
use ckb_mmr_sdk::{hex, Format, Mode, Workload};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Without a command: builds a random MMR from SEED (environment; default: a time-based seed,
printed), proves a random sample of its leaves, and writes a ckb-debugger mock transaction to
OUT.json with one input per verifier binary, in this order: 0 = baseline, 1 = C, 2 = Rust
compiled. Run input N with:
  ckb-debugger --tx-file OUT.json --cell-type input --script-group-type lock --cell-index N

SCRIPT is CODE_HASH:HASH_TYPE:ARGS (hex; HASH_TYPE one of data, type, data1, data2), e.g. the
default CKB wallet lock of a key whose blake160 is B:
  0x9bd7e06f3ecf4be0f2fcd2188b23f1b9fcc88e5d4b65a8637b17723bbda3cce8:type:0xB

Environment:
  SEED   u64 seed; the journey's reference workload is SEED=1680833947559458126

Exit codes: 0 ok; 2 any error, except that prove --store exits with the store's code (40-53,
docs/error-codes.md) for the store's errors.";

/// Builds a random MMR from a seed, proofs for a sample of its leaves, and a ckb-debugger mock
/// transaction with one input per verifier
#[derive(Parser, Debug)]
#[command(
    name = "tx-generator",
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    journey: JourneyArgs,
}

/// The journey's workload (no command).
#[derive(Args, Debug)]
struct JourneyArgs {
    /// Owner mode (docs/deploy.md), with SCRIPT as the owner
    ///
    /// The verifier cells get 41-byte args (flags 0x01), the first proved leaf becomes
    /// SCRIPT's hash, and one more input, locked by SCRIPT, is added after the verifier
    /// inputs.
    #[arg(long, value_name = "SCRIPT")]
    owner_lock: Option<String>,
    /// By-reference mode (docs/deploy.md)
    ///
    /// The verifier cells get 33-byte args (the accumulator's type script hash, flags 0x02;
    /// 0x03 with --owner-lock) and one more cell dep after the verifiers' code cells: an
    /// accumulator under a type id type script whose data is root || mmr_size.
    #[arg(long)]
    by_reference: bool,
    /// The mock transaction to write
    #[arg(value_name = "OUT.json", required = true)]
    out: Option<String>,
    /// The verifier binaries: baseline, then C, then Rust compiled
    #[arg(value_name = "BINARY", required = true, num_args = 1..=3)]
    binaries: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// An MMR over your leaves and a proof for the leaf indexes in LIST
    ///
    /// Prints leaf_count, mmr_size, root, the lock args, the payload and the witness
    /// (WitnessArgs with the payload as its lock field), all hex.
    Prove(ProveArgs),
    /// The lock script hash (blake2b-256 of the molecule Script) of SCRIPT
    LockHash {
        #[arg(value_name = "SCRIPT")]
        script: String,
    },
    /// The data2/data1 code_hash of BINARY (blake2b-256 of its bytes)
    CodeHash {
        #[arg(value_name = "BINARY")]
        binary: String,
    },
    /// Test vectors for other implementations (js/mmr-lock), one JSON object per line
    ///
    /// leaf_count, indexes, mmr_size, root, proof_items, args (plain, owner) and both
    /// payloads.
    #[command(after_help = VECTORS_HELP)]
    Vectors(VectorsArgs),
    /// The accumulator's bytes (docs/accumulator.md), one JSON object per line
    ///
    /// From mmr_accumulator's builders, each payload checked by the type script's core
    /// first.
    #[command(after_help = ACC_VECTORS_HELP)]
    AccVectors(acc_vectors::AccVectorsArgs),
}

const VECTORS_HELP: &str = "\
--count N prints N random MMRs (1..=M leaves, M = --max-leaves, one in five of at most
64; random subsets) whose leaf i is
ckb_hash(leaf_seed || i), both u64 LE zero-padded to 32 bytes, leaf_seed a decimal string.";

const ACC_VECTORS_HELP: &str = "\
32 \"type_id\" lines (a first input's CellInput, an output index, the type id, an accumulator
type script with it, its hash and by-reference args), 24 \"create\" lines (cell data, CREATE
payload and witness of k leaves), then \"pair\" lines: for old < new leaf counts the cell data
before and after, the APPEND witness, the EXTEND payload and witness and by-reference args
for a random type hash. Random pairs have old 1..4095, new up to 8191, with old + 1, 2^k and
2^k - 1 among them. Leaves are derived as in vectors, from each line's leaf_seed.";

#[derive(Args, Debug)]
struct ProveArgs {
    /// One 32-byte leaf per line, 64 hex digits, '#' starts a comment; '-' reads standard input
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "store",
        conflicts_with = "store"
    )]
    leaves: Option<String>,
    /// Instead of --leaves: the MMR of a persistent store, read from disk
    ///
    /// A store made by mmr-store init/append (docs/accumulator-guide.md, "The app side: the
    /// store").
    #[arg(long, value_name = "DIR")]
    store: Option<String>,
    /// With --store: prove in the MMR of mmr_size N [default: the store's current size]
    ///
    /// An earlier size the store passed through.
    #[arg(long, value_name = "N", conflicts_with = "leaves")]
    size: Option<u64>,
    /// The leaf indexes to prove, e.g. 0,5,7-9
    #[arg(long, value_name = "LIST")]
    index: String,
    /// Payload format: compiled (C and compiled verifiers) or baseline
    #[arg(long, value_name = "compiled|baseline", default_value = "compiled", value_parser = format)]
    format: Format,
    /// Owner-mode args (41 bytes); implied by --owner-lock
    #[arg(long)]
    owner: bool,
    /// An owner: its lock hash must be a proved leaf (repeatable)
    ///
    /// With --tx it becomes an input with an unsigned secp256k1 witness placeholder (65 zero
    /// bytes).
    #[arg(long, value_name = "SCRIPT")]
    owner_lock: Vec<String>,
    /// With --tx: the verifier binary the MMR cell is locked by (data2)
    #[arg(long, value_name = "BINARY", requires = "tx")]
    verifier: Option<String>,
    /// Write a ckb-debugger mock transaction: input 0 the MMR cell, then owners
    #[arg(long, value_name = "OUT.json", requires = "verifier")]
    tx: Option<String>,
}

#[derive(Args, Debug)]
struct VectorsArgs {
    /// The reference seed's workload with its leaves
    #[arg(long)]
    reference: bool,
    /// With --reference: also the mean nanoseconds of R builds of its payload
    ///
    /// R runs of Workload::from_leaves + compiled_payload on the reference leaves.
    #[arg(long, value_name = "R", default_value_t = 0)]
    time: u32,
    /// N random MMRs
    #[arg(long, value_name = "N", default_value_t = 0)]
    count: u64,
    /// The random MMRs' seed
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// The random MMRs' most leaves
    ///
    /// A small M gives many lone leaves and whole-MMR proofs, the edge shapes of the
    /// compiled format.
    #[arg(long, value_name = "M", default_value_t = 5000,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_leaves: u64,
}

fn format(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| "compiled or baseline".to_string())
}

/// Prints one JSON line, keys in order (as serde_json's map orders them).
fn print_line(row: &impl Serialize) {
    println!(
        "{}",
        serde_json::to_value(row).expect("a vector line serializes")
    );
}

/// Payload formats by input index.
const SLOTS: [Format; 3] = [Format::Baseline, Format::Compiled, Format::Compiled];

fn seed() -> Result<u64, String> {
    match std::env::var("SEED") {
        Ok(s) => s
            .trim()
            .parse()
            .map_err(|_| format!("SEED must be an unsigned 64-bit integer, got {s:?}")),
        Err(_) => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)),
    }
}

fn write_json(path: &str, value: &serde_json::Value) -> Result<(), String> {
    let json = serde_json::to_string_pretty(value).map_err(|e| format!("encoding JSON: {e}"))?;
    std::fs::write(path, json).map_err(|e| format!("writing {path}: {e}"))
}

fn read_binary(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))
}

/// The type script of the accumulator `--by-reference` adds (type id, fixed args: the
/// transaction is synthetic, nothing on a chain is referenced).
fn example_accumulator_type() -> Script {
    script::type_id([0xac; 32])
}

/// Owner mode when there is an owner.
fn mode(owner: bool) -> Mode {
    if owner {
        Mode::Owner
    } else {
        Mode::Plain
    }
}

/// The journey's CLI: seeded workload, one input per verifier binary.
fn run(a: &JourneyArgs) -> Result<(), Failure> {
    let owner = a.owner_lock.as_deref().map(script::parse).transpose()?;
    let out = a.out.as_deref().expect("clap requires OUT.json");
    let seed = seed()?;
    println!("Seed: {seed}");
    let w = match &owner {
        Some(lock) => Workload::from_seed_with_owner(seed, script::hash(lock)),
        None => Workload::from_seed(seed),
    };
    println!(
        "Total leafs: {}, tested leafs: {}",
        w.leaf_count,
        w.proved.len()
    );
    println!("MMR size: {}", w.mmr_size);
    println!("MMR root: {}", hex(&w.root));
    let mode = mode(owner.is_some());
    let accumulator = a.by_reference.then(example_accumulator_type);
    let lock_args = match &accumulator {
        Some(type_script) => ckb_mmr_sdk::by_reference_args(&script::hash(type_script), mode),
        None => w.lock_args_for(mode),
    };
    let mut cells = Vec::new();
    for (path, format) in a.binaries.iter().zip(SLOTS) {
        cells.push(tx::Cell {
            binary: read_binary(path)?,
            lock_args: lock_args.clone(),
            payload: w.payload(format)?,
        });
    }
    let deps: Vec<DepCell> = accumulator
        .map(|type_script| {
            println!(
                "Accumulator type hash: {} (cell dep {}; its data: root || mmr_size)",
                hex(&script::hash(&type_script)),
                cells.len()
            );
            DepCell::accumulator(type_script, w.accumulator_data())
        })
        .into_iter()
        .collect();
    let owners: Vec<OwnerInput> = owner.into_iter().map(OwnerInput::unsigned).collect();
    for owner in &owners {
        println!(
            "Owner lock hash: {} (input {}; the value of proved leaf index {})",
            hex(&script::hash(&owner.lock)),
            cells.len(),
            mmr_index(w.proved[0].0)
        );
    }
    println!(
        "Proof items: {} ({} bytes), baseline payload: {} bytes",
        w.proof_items.len(),
        w.proof_items.len() * 32,
        w.baseline_payload().len()
    );
    Ok(write_json(
        out,
        &tx::mock_transaction_with_deps(&cells, &owners, &deps),
    )?)
}

/// An error and its exit code: 2, or the store's own code for an error of `--store`.
struct Failure {
    code: u8,
    message: String,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { code: 2, message }
    }
}

impl From<ckb_mmr_sdk::error::Error> for Failure {
    fn from(e: ckb_mmr_sdk::error::Error) -> Failure {
        Failure::from(e.to_string())
    }
}

impl From<ckb_mmr_sdk::WorkloadError> for Failure {
    fn from(e: ckb_mmr_sdk::WorkloadError) -> Failure {
        Failure::from(e.to_string())
    }
}

impl From<mmr_store::Error> for Failure {
    fn from(e: mmr_store::Error) -> Failure {
        Failure {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// `prove`: your leaves, your indexes.
fn prove(a: &ProveArgs) -> Result<(), Failure> {
    let indexes = ckb_mmr_sdk::parse_indexes(&a.index)?;
    let owners = a
        .owner_lock
        .iter()
        .map(|s| script::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = mode(a.owner || !owners.is_empty());
    let format = a.format;
    let w = match (&a.leaves, &a.store) {
        (Some(leaves_file), None) => {
            let text = if leaves_file == "-" {
                std::io::read_to_string(std::io::stdin())
                    .map_err(|e| format!("reading stdin: {e}"))?
            } else {
                std::fs::read_to_string(leaves_file)
                    .map_err(|e| format!("reading {leaves_file}: {e}"))?
            };
            let leaves =
                ckb_mmr_sdk::parse_leaves(&text).map_err(|e| format!("{leaves_file}: {e}"))?;
            Workload::from_leaves(&leaves, &indexes)?
        }
        (None, Some(dir)) => {
            let store = mmr_store::Store::open_read_only(std::path::Path::new(dir))?;
            Workload::from_store(&store, a.size.unwrap_or(store.mmr_size()), &indexes)?
        }
        _ => unreachable!("clap takes one of --leaves and --store"),
    };
    for lock in &owners {
        if !w.proves(&script::hash(lock)) {
            return Err(format!(
                "the owner lock hash {} is not a proved leaf: add it to the leaves and prove \
                 its index, or the lock rejects with 80 OwnerNotFound",
                hex(&script::hash(lock))
            )
            .into());
        }
    }
    let payload = w.payload(format)?;
    let args = w.lock_args_for(mode);
    let witness = ckb_mmr_sdk::witness_args_with_lock(&payload);
    let proved: Vec<String> = w
        .proved
        .iter()
        .map(|(pos, _)| mmr_index(*pos).to_string())
        .collect();
    println!("leaf_count: {}", w.leaf_count);
    println!("mmr_size: {}", w.mmr_size);
    println!("root: {}", hex(&w.root));
    println!("proved_indexes: {}", proved.join(","));
    println!(
        "mode: {}",
        match mode {
            Mode::Plain => "plain",
            Mode::Owner => "owner",
        }
    );
    println!("args: {}", hex(&args));
    println!("format: {}", format.name());
    println!("payload: {}", hex(&payload));
    println!("witness: {}", hex(&witness));
    for (j, lock) in owners.iter().enumerate() {
        println!("owner_lock_hash: {} (owner {j})", hex(&script::hash(lock)));
    }
    match (&a.verifier, &a.tx) {
        (Some(verifier), Some(out)) => {
            let cell = tx::Cell {
                binary: read_binary(verifier)?,
                lock_args: args,
                payload,
            };
            let owners: Vec<OwnerInput> = owners.into_iter().map(OwnerInput::unsigned).collect();
            write_json(out, &tx::mock_transaction_with_owners(&[cell], &owners))?;
            println!("tx: {out} (input 0: the MMR cell; inputs 1..: owners)");
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Leaf index of an MMR leaf position (positions of proved leaves are always leaves).
fn mmr_index(pos: u64) -> u64 {
    mmr_lock::mmr::leaf_pos_to_index(pos).unwrap_or(u64::MAX)
}

fn lock_hash(script: &str) -> Result<(), Failure> {
    println!("{}", hex(&script::hash(&script::parse(script)?)));
    Ok(())
}

fn code_hash(path: &str) -> Result<(), String> {
    println!("{}", hex(&ckb_mmr_sdk::ckb_hash(&[&read_binary(path)?])));
    Ok(())
}

/// One line of `vectors`.
#[derive(Serialize)]
struct VectorLine {
    leaf_count: u64,
    indexes: Vec<u64>,
    mmr_size: u64,
    root: String,
    proof_items: Vec<String>,
    args_plain: String,
    args_owner: String,
    compiled: String,
    baseline: String,
    witness_compiled: String,
    /// A random MMR's leaf seed (decimal: JavaScript numbers cannot hold a u64).
    #[serde(skip_serializing_if = "Option::is_none")]
    leaf_seed: Option<String>,
    #[serde(flatten)]
    reference: Option<ReferenceLine>,
}

/// What the reference workload's line adds.
#[derive(Serialize)]
struct ReferenceLine {
    seed: String,
    leaves: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rust_build_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rust_build_runs: Option<u32>,
}

impl VectorLine {
    fn new(w: &Workload) -> Result<VectorLine, Failure> {
        let compiled = w.payload(Format::Compiled)?;
        Ok(VectorLine {
            leaf_count: w.leaf_count,
            indexes: w.proved.iter().map(|(pos, _)| mmr_index(*pos)).collect(),
            mmr_size: w.mmr_size,
            root: hex(&w.root),
            proof_items: w.proof_items.iter().map(|i| hex(i)).collect(),
            args_plain: hex(&w.lock_args_for(Mode::Plain)),
            args_owner: hex(&w.lock_args_for(Mode::Owner)),
            compiled: hex(&compiled),
            baseline: hex(&w.payload(Format::Baseline)?),
            witness_compiled: hex(&ckb_mmr_sdk::witness_args_with_lock(&compiled)),
            leaf_seed: None,
            reference: None,
        })
    }
}

/// `vectors`: JSON lines of workloads for implementations in other languages to match.
fn vectors(a: &VectorsArgs) -> Result<(), Failure> {
    use rand::{seq::index::sample, Rng, RngCore, SeedableRng};
    let (count, seed, time, max) = (a.count, a.seed, a.time, a.max_leaves);
    if a.reference {
        let (leaves, indexes) = ckb_mmr_sdk::seeded_leaves(ckb_mmr_sdk::REFERENCE_SEED);
        let w = Workload::from_leaves(&leaves, &indexes)?;
        let mut extra = ReferenceLine {
            seed: ckb_mmr_sdk::REFERENCE_SEED.to_string(),
            leaves: leaves.iter().map(|l| hex(l)).collect(),
            rust_build_ns: None,
            rust_build_runs: None,
        };
        if time > 0 {
            let start = std::time::Instant::now();
            for _ in 0..time {
                let w = Workload::from_leaves(&leaves, &indexes)?;
                std::hint::black_box(w.compiled_payload().map_err(|e| format!("{e:?}"))?);
            }
            extra.rust_build_ns = Some(start.elapsed().as_nanos() as u64 / time as u64);
            extra.rust_build_runs = Some(time);
        }
        print_line(&VectorLine {
            reference: Some(extra),
            ..VectorLine::new(&w)?
        });
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for _ in 0..count {
        // One in five is small (edge shapes: a lone leaf, few peaks), the rest up to max
        // (5000 unless given; the same draws as before --max-leaves existed).
        let leaf_count = match rng.gen_bool(0.2) {
            true => rng.gen_range(1..=max.min(64)),
            false => rng.gen_range(1..=max),
        };
        let leaf_seed = rng.next_u64();
        let proved = match rng.gen_bool(0.1) {
            true => rng.gen_range(1..=leaf_count),
            false => rng.gen_range(1..=leaf_count.min(100)),
        };
        // Leaf i = merge(leaf_seed, i), each a u64 LE zero-padded to 32 bytes: one compression.
        let leaves = acc_vectors::leaves(leaf_seed, leaf_count);
        let mut indexes: Vec<u64> = sample(&mut rng, leaf_count as usize, proved as usize)
            .into_iter()
            .map(|i| i as u64)
            .collect();
        indexes.sort();
        let w = Workload::from_leaves(&leaves, &indexes)?;
        print_line(&VectorLine {
            leaf_seed: Some(leaf_seed.to_string()),
            ..VectorLine::new(&w)?
        });
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli: Cli = cli_usage::parse("tx-generator");
    let result = match &cli.command {
        Some(Command::Prove(a)) => prove(a),
        Some(Command::LockHash { script }) => lock_hash(script),
        Some(Command::CodeHash { binary }) => code_hash(binary).map_err(Failure::from),
        Some(Command::Vectors(a)) => vectors(a),
        Some(Command::AccVectors(a)) => acc_vectors::run(a).map_err(Failure::from),
        None => run(&cli.journey),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tx-generator: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
