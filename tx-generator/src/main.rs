//! tx-generator <out.json> <verifier binaries…>
//!
//! Builds the workload for SEED (or a time-based seed, printed) and writes a ckb-debugger mock
//! transaction with one input per binary. The position of a binary fixes the payload format
//! its input gets: 0 = baseline, 1 = C (compiled format), 2 = Rust compiled.

use std::process::ExitCode;
use tx_generator::{tx, Workload};

const USAGE: &str = "\
usage: tx-generator <out.json> <baseline-binary> [<c-binary> [<compiled-binary>]]

Builds a random MMR from SEED (environment; default: a time-based seed, printed), proves a
random sample of its leaves, and writes a ckb-debugger mock transaction to <out.json> with one
input per verifier binary, in this order: 0 = baseline, 1 = C, 2 = Rust compiled. Run input N
with:
  ckb-debugger --tx-file <out.json> --cell-type input --script-group-type lock --cell-index N

Environment:
  SEED   u64 seed; the journey's reference workload is SEED=1680833947559458126";

/// Payload formats by input index.
#[derive(Clone, Copy)]
enum Format {
    Baseline,
    Compiled,
}

const SLOTS: [Format; 3] = [Format::Baseline, Format::Compiled, Format::Compiled];

fn payload(w: &Workload, format: Format) -> Result<Vec<u8>, String> {
    match format {
        Format::Baseline => Ok(w.baseline_payload()),
        Format::Compiled => w
            .compiled_payload()
            .map_err(|e| format!("compiling the proof: {e:?}")),
    }
}

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

fn run(args: &[String]) -> Result<(), String> {
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
    let w = Workload::from_seed(seed);
    println!(
        "Total leafs: {}, tested leafs: {}",
        w.leaf_count,
        w.proved.len()
    );
    println!("MMR size: {}", w.mmr_size);
    println!("MMR root: {}", tx_generator::hex(&w.root));
    let mut cells = Vec::new();
    for (path, format) in binaries.iter().zip(SLOTS) {
        let binary = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
        cells.push(tx::Cell {
            binary,
            lock_args: w.lock_args(),
            payload: payload(&w, format)?,
        });
    }
    println!(
        "Proof items: {} ({} bytes), baseline payload: {} bytes",
        w.proof_items.len(),
        w.proof_items.len() * 32,
        w.baseline_payload().len()
    );
    let json = serde_json::to_string_pretty(&tx::mock_transaction(&cells))
        .map_err(|e| format!("encoding JSON: {e}"))?;
    std::fs::write(out, json).map_err(|e| format!("writing {out}: {e}"))?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tx-generator: {e}");
            ExitCode::from(2)
        }
    }
}
