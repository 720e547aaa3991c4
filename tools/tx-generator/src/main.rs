//! tx-generator [--owner-lock SCRIPT] [--by-reference] <out.json> <verifier binaries…>
//! tx-generator prove --leaves FILE --index LIST [options]
//! tx-generator lock-hash SCRIPT
//! tx-generator code-hash BINARY
//! tx-generator vectors [--reference] [--count N] [--seed S] [--time R]
//! tx-generator acc-vectors [--seed S] [--pairs N] [--small K]
//!
//! The first form builds the workload for SEED (or a time-based seed, printed) and writes a
//! ckb-debugger mock transaction with one input per binary. The position of a binary fixes
//! the payload format its input gets: 0 = baseline, 1 = C (compiled format), 2 = Rust
//! compiled. `prove` does the same for your own leaves; `lock-hash` names an owner;
//! `code-hash` names a deployed binary.

mod acc_vectors;

use ckb_mmr_sdk::script::{self, Script};
use ckb_mmr_sdk::tx::{self, DepCell, OwnerInput};
use ckb_mmr_sdk::{hex, Format, Mode, Workload};
use std::process::ExitCode;

const USAGE: &str = "\
usage: tx-generator [--owner-lock SCRIPT] [--by-reference] <out.json> <baseline-binary> [<c-binary> [<compiled-binary>]]
       tx-generator prove (--leaves FILE | --store DIR [--size N]) --index LIST
                          [--format compiled|baseline] [--owner]
                          [--owner-lock SCRIPT]... [--verifier BINARY --tx OUT.json]
       tx-generator lock-hash SCRIPT
       tx-generator code-hash BINARY
       tx-generator vectors [--reference] [--count N] [--seed S] [--time R]
       tx-generator acc-vectors [--seed S] [--pairs N] [--small K]

Builds a random MMR from SEED (environment; default: a time-based seed, printed), proves a
random sample of its leaves, and writes a ckb-debugger mock transaction to <out.json> with one
input per verifier binary, in this order: 0 = baseline, 1 = C, 2 = Rust compiled. Run input N
with:
  ckb-debugger --tx-file <out.json> --cell-type input --script-group-type lock --cell-index N

--owner-lock SCRIPT  owner mode (docs/deploy.md): the verifier cells get 41-byte args (flags
                     0x01), the first proved leaf becomes SCRIPT's hash, and one more input,
                     locked by SCRIPT, is added after the verifier inputs.
--by-reference       by-reference mode (docs/deploy.md): the verifier cells get 33-byte args
                     (the accumulator's type script hash, flags 0x02; 0x03 with
                     --owner-lock) and one more cell dep, after the verifiers' code cells: an
                     accumulator under a type id type script whose data is root || mmr_size.

prove: an MMR over your leaves (FILE: one 32-byte leaf per line, 64 hex digits, '#' starts a
comment; '-' reads standard input) and a proof for the leaf indexes in LIST (\"0,5,7-9\").
Prints leaf_count, mmr_size, root, the lock args, the payload and the witness (WitnessArgs
with the payload as its lock field), all hex.
  --store DIR         instead of --leaves: the MMR of a persistent store (mmr-store init/append;
                      docs/accumulator.md, \"The app side: the store\"), read from disk
  --size N            with --store: prove in the MMR of mmr_size N (an earlier size the store
                      passed through); default its current size
  --format F          payload format: compiled (C and compiled verifiers; default) or baseline
  --owner             owner-mode args (41 bytes); implied by --owner-lock
  --owner-lock SCRIPT an owner: its lock hash must be a proved leaf; with --tx it becomes an
                      input with an unsigned secp256k1 witness placeholder (65 zero bytes)
  --verifier BINARY   with --tx: the verifier binary the MMR cell is locked by (data2)
  --tx OUT.json       write a ckb-debugger mock transaction: input 0 the MMR cell, then owners

lock-hash: prints the lock script hash (blake2b-256 of the molecule Script) of SCRIPT.
code-hash: prints the data2/data1 code_hash of BINARY (blake2b-256 of its bytes).

Exit codes: 0 ok; 2 any error, except that prove --store exits with the store's code (40-53,
docs/error-codes.md) for the store's errors.

vectors: test vectors for other implementations (js/mmr-lock), one JSON object per line:
leaf_count, indexes, mmr_size, root, proof_items, args (plain, owner) and both payloads.
--reference prints the reference seed's workload with its leaves (with --time R also the mean
nanoseconds of R runs of Workload::from_leaves + compiled_payload on them). --count N prints N
random MMRs (1..=5000 leaves, random subsets; --seed S, default 1) whose leaf i is
ckb_hash(leaf_seed || i), both u64 LE zero-padded to 32 bytes, leaf_seed a decimal string.

acc-vectors: the accumulator's bytes (docs/accumulator.md), one JSON object per line, from
mmr_accumulator's builders, each payload checked by the type script's core first: 32
\"type_id\" lines (a first input's CellInput, an output index, the type id, an accumulator
type script with it, its hash and by-reference args), 24 \"create\" lines (cell data, CREATE
payload and witness of k leaves), then \"pair\" lines: for old < new leaf counts the cell data
before and after, the APPEND witness, the EXTEND payload and witness and by-reference args
for a random type hash. --pairs N random pairs (default 1000; old 1..4095, new up to 8191,
with old + 1, 2^k and 2^k - 1 among them), --small K also every pair old < new <= K (at most
256), --seed S (default 1). Leaves are derived as in vectors, from each line's leaf_seed.

SCRIPT is CODE_HASH:HASH_TYPE:ARGS (hex; HASH_TYPE one of data, type, data1, data2), e.g. the
default CKB wallet lock of a key whose blake160 is B:
  0x9bd7e06f3ecf4be0f2fcd2188b23f1b9fcc88e5d4b65a8637b17723bbda3cce8:type:0xB

Environment:
  SEED   u64 seed; the journey's reference workload is SEED=1680833947559458126";

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

/// The journey's CLI: seeded workload, one input per verifier binary.
fn run(args: &[String]) -> Result<(), String> {
    let mut owner = None;
    let mut by_reference = false;
    let mut args = args;
    loop {
        match args {
            [flag, spec, rest @ ..] if flag == "--owner-lock" => {
                owner = Some(script::parse(spec).map_err(|e| e.to_string())?);
                args = rest;
            }
            [flag, rest @ ..] if flag == "--by-reference" => {
                by_reference = true;
                args = rest;
            }
            _ => break,
        }
    }
    let (out, binaries) = match args {
        [out, binaries @ ..] if !binaries.is_empty() && binaries.len() <= SLOTS.len() => {
            (out, binaries)
        }
        _ => {
            return Err(format!(
                "expected an output file and 1 to 3 verifier binaries\n\n{USAGE}"
            ))
        }
    };
    let seed = seed()?;
    println!("Seed: {seed}");
    let w = match &owner {
        Some(lock) => Workload::from_seed_with_owner(seed, script::hash(&lock)),
        None => Workload::from_seed(seed),
    };
    println!(
        "Total leafs: {}, tested leafs: {}",
        w.leaf_count,
        w.proved.len()
    );
    println!("MMR size: {}", w.mmr_size);
    println!("MMR root: {}", hex(&w.root));
    let mode = if owner.is_some() {
        Mode::Owner
    } else {
        Mode::Plain
    };
    let accumulator = by_reference.then(example_accumulator_type);
    let lock_args = match &accumulator {
        Some(type_script) => ckb_mmr_sdk::by_reference_args(&script::hash(&type_script), mode),
        None => w.lock_args_for(mode),
    };
    let mut cells = Vec::new();
    for (path, format) in binaries.iter().zip(SLOTS) {
        cells.push(tx::Cell {
            binary: read_binary(path)?,
            lock_args: lock_args.clone(),
            payload: w.payload(format).map_err(|e| e.to_string())?,
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
    write_json(out, &tx::mock_transaction_with_deps(&cells, &owners, &deps))
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

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::from(message.to_string())
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
fn prove(args: &[String]) -> Result<(), Failure> {
    let mut leaves_file = None;
    let mut store_dir = None;
    let mut size = None;
    let mut indexes = None;
    let mut format = Format::Compiled;
    let mut mode = Mode::Plain;
    let mut owners = Vec::new();
    let mut verifier = None;
    let mut tx_out = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--owner" {
            mode = Mode::Owner;
            continue;
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n\n{USAGE}"))?;
        match flag.as_str() {
            "--leaves" => leaves_file = Some(value.clone()),
            "--store" => store_dir = Some(value.clone()),
            "--size" => {
                size = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("--size: not a number: {value:?}"))?,
                )
            }
            "--index" => indexes = Some(ckb_mmr_sdk::parse_indexes(value)?),
            "--format" => {
                format = Format::from_name(value)
                    .ok_or_else(|| format!("--format is compiled or baseline, got {value:?}"))?
            }
            "--owner-lock" => {
                mode = Mode::Owner;
                owners.push(script::parse(value)?);
            }
            "--verifier" => verifier = Some(value.clone()),
            "--tx" => tx_out = Some(value.clone()),
            _ => return Err(format!("unknown option {flag:?}\n\n{USAGE}").into()),
        }
    }
    let indexes = indexes.ok_or("prove needs --index LIST")?;
    let w = match (leaves_file, store_dir) {
        (Some(leaves_file), None) => {
            if size.is_some() {
                return Err("--size goes with --store".into());
            }
            let text = if leaves_file == "-" {
                std::io::read_to_string(std::io::stdin())
                    .map_err(|e| format!("reading stdin: {e}"))?
            } else {
                std::fs::read_to_string(&leaves_file)
                    .map_err(|e| format!("reading {leaves_file}: {e}"))?
            };
            let leaves =
                ckb_mmr_sdk::parse_leaves(&text).map_err(|e| format!("{leaves_file}: {e}"))?;
            Workload::from_leaves(&leaves, &indexes).map_err(|e| e.to_string())?
        }
        (None, Some(dir)) => {
            let store = mmr_store::Store::open_read_only(std::path::Path::new(&dir))?;
            Workload::from_store(&store, size.unwrap_or(store.mmr_size()), &indexes)?
        }
        _ => return Err("prove needs one of --leaves FILE and --store DIR".into()),
    };
    for lock in &owners {
        if !w.proves(&script::hash(&lock)) {
            return Err(format!(
                "the owner lock hash {} is not a proved leaf: add it to the leaves and prove \
                 its index, or the lock rejects with 80 OwnerNotFound",
                hex(&script::hash(&lock))
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
        println!("owner_lock_hash: {} (owner {j})", hex(&script::hash(&lock)));
    }
    match (verifier, tx_out) {
        (Some(verifier), Some(out)) => {
            let cell = tx::Cell {
                binary: read_binary(&verifier)?,
                lock_args: args,
                payload,
            };
            let owners: Vec<OwnerInput> = owners.into_iter().map(OwnerInput::unsigned).collect();
            write_json(&out, &tx::mock_transaction_with_owners(&[cell], &owners))?;
            println!("tx: {out} (input 0: the MMR cell; inputs 1..: owners)");
            Ok(())
        }
        (None, None) => Ok(()),
        _ => Err("--verifier and --tx go together".into()),
    }
}

/// Leaf index of an MMR leaf position (positions of proved leaves are always leaves).
fn mmr_index(pos: u64) -> u64 {
    mmr_lock::mmr::leaf_pos_to_index(pos).unwrap_or(u64::MAX)
}

fn lock_hash(args: &[String]) -> Result<(), String> {
    match args {
        [spec] => {
            println!(
                "{}",
                hex(&script::hash(
                    &script::parse(spec).map_err(|e| e.to_string())?
                ))
            );
            Ok(())
        }
        _ => Err(format!("lock-hash takes one SCRIPT\n\n{USAGE}")),
    }
}

fn code_hash(args: &[String]) -> Result<(), String> {
    match args {
        [path] => {
            println!("{}", hex(&ckb_mmr_sdk::ckb_hash(&[&read_binary(path)?])));
            Ok(())
        }
        _ => Err(format!("code-hash takes one BINARY\n\n{USAGE}")),
    }
}

/// `vectors`: JSON lines of workloads for implementations in other languages to match.
fn vectors(args: &[String]) -> Result<(), String> {
    use rand::{seq::index::sample, Rng, RngCore, SeedableRng};
    use serde_json::json;
    let (mut reference, mut count, mut seed, mut time) = (false, 0u64, 1u64, 0u32);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut num = || -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("{flag} needs a number"))?;
            v.parse()
                .map_err(|_| format!("{flag}: not a number: {v:?}"))
        };
        match flag.as_str() {
            "--reference" => reference = true,
            "--count" => count = num()?,
            "--seed" => seed = num()?,
            "--time" => time = num()? as u32,
            _ => return Err(format!("unknown option {flag:?}\n\n{USAGE}")),
        }
    }
    let line = |w: &Workload, extra: serde_json::Value| -> Result<(), String> {
        let mut v = json!({
            "leaf_count": w.leaf_count,
            "indexes": w.proved.iter().map(|(pos, _)| mmr_index(*pos)).collect::<Vec<_>>(),
            "mmr_size": w.mmr_size,
            "root": hex(&w.root),
            "proof_items": w.proof_items.iter().map(|i| hex(i)).collect::<Vec<_>>(),
            "args_plain": hex(&w.lock_args_for(Mode::Plain)),
            "args_owner": hex(&w.lock_args_for(Mode::Owner)),
            "compiled": hex(&w.payload(Format::Compiled).map_err(|e| e.to_string())?),
            "baseline": hex(&w.payload(Format::Baseline).map_err(|e| e.to_string())?),
            "witness_compiled": hex(&ckb_mmr_sdk::witness_args_with_lock(&w.payload(Format::Compiled).map_err(|e| e.to_string())?)),
        });
        if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            v.extend(extra.clone());
        }
        println!("{v}");
        Ok(())
    };
    if reference {
        let (leaves, indexes) = ckb_mmr_sdk::seeded_leaves(ckb_mmr_sdk::REFERENCE_SEED);
        let w = Workload::from_leaves(&leaves, &indexes).map_err(|e| e.to_string())?;
        let mut extra = json!({
            "seed": ckb_mmr_sdk::REFERENCE_SEED.to_string(),
            "leaves": leaves.iter().map(|l| hex(l)).collect::<Vec<_>>(),
        });
        if time > 0 {
            let start = std::time::Instant::now();
            for _ in 0..time {
                let w = Workload::from_leaves(&leaves, &indexes).map_err(|e| e.to_string())?;
                std::hint::black_box(w.compiled_payload().map_err(|e| format!("{e:?}"))?);
            }
            extra["rust_build_ns"] = json!(start.elapsed().as_nanos() as u64 / time as u64);
            extra["rust_build_runs"] = json!(time);
        }
        line(&w, extra)?;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for _ in 0..count {
        // One in five is small (edge shapes: a lone leaf, few peaks), the rest up to 5000.
        let leaf_count = match rng.gen_bool(0.2) {
            true => rng.gen_range(1..=64u64),
            false => rng.gen_range(1..=5000u64),
        };
        let leaf_seed = rng.next_u64();
        let proved = match rng.gen_bool(0.1) {
            true => rng.gen_range(1..=leaf_count),
            false => rng.gen_range(1..=leaf_count.min(100)),
        };
        // Leaf i = merge(leaf_seed, i), each a u64 LE zero-padded to 32 bytes: one compression.
        let word = |x: u64| {
            let mut w = [0u8; 32];
            w[..8].copy_from_slice(&x.to_le_bytes());
            w
        };
        let leaves: Vec<[u8; 32]> = (0..leaf_count)
            .map(|i| ckb_mmr_sdk::ckb_hash(&[&word(leaf_seed), &word(i)]))
            .collect();
        let mut indexes: Vec<u64> = sample(&mut rng, leaf_count as usize, proved as usize)
            .into_iter()
            .map(|i| i as u64)
            .collect();
        indexes.sort();
        let w = Workload::from_leaves(&leaves, &indexes).map_err(|e| e.to_string())?;
        line(&w, json!({ "leaf_seed": leaf_seed.to_string() }))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let result = match args.first().map(String::as_str) {
        Some("prove") => prove(&args[1..]),
        Some("lock-hash") => lock_hash(&args[1..]).map_err(Failure::from),
        Some("code-hash") => code_hash(&args[1..]).map_err(Failure::from),
        Some("vectors") => vectors(&args[1..]).map_err(Failure::from),
        Some("acc-vectors") => acc_vectors::run(&args[1..], USAGE).map_err(Failure::from),
        _ => run(&args).map_err(Failure::from),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tx-generator: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
