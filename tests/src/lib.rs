//! Runs the release binaries in `build/release` through ckb-script, the engine behind
//! ckb-debugger and CKB itself, and reports accepted cycles or the exit code.
//! Build them first: `./build.sh build` (`./build.sh test` does both).

use ckb_mmr_sdk::Workload;
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{DepType, ScriptHashType, TransactionBuilder, TransactionView},
    packed::{CellDep, CellInput, CellOutput, OutPoint, Script},
    prelude::*,
};
use ckb_testtool::context::Context;
use std::path::PathBuf;

/// A script of `code_hash` with hash_type type and these args.
pub fn type_script(code_hash: [u8; 32], args: &[u8]) -> Script {
    Script::new_builder()
        .code_hash(code_hash.pack())
        .hash_type(ScriptHashType::Type)
        .args(Bytes::copy_from_slice(args).pack())
        .build()
}

/// An output of `capacity` shannons under `lock`, with no type script.
pub fn output(lock: Script, capacity: u64) -> CellOutput {
    CellOutput::new_builder()
        .capacity(capacity)
        .lock(lock)
        .build()
}

/// `script` with `args` in place of its own.
pub fn with_args(script: &Script, args: &[u8]) -> Script {
    script
        .clone()
        .as_builder()
        .args(Bytes::copy_from_slice(args).pack())
        .build()
}

/// The accumulator's type script in the by-reference tests: a type id (code hash "TYPE_ID",
/// hash_type type). Cell deps' type scripts are not run, so any cell carrying it stands in
/// for the accumulator.
pub fn accumulator_type() -> Script {
    type_script(ckb_mmr_sdk::script::TYPE_ID_CODE_HASH, &[0xac; 32])
}

/// A script's hash, as a lock or cell dep carries it.
pub fn hash_of(script: &Script) -> [u8; 32] {
    script.calc_script_hash().as_slice().try_into().unwrap()
}

/// A cell dep next to the verifier's code cell: its type script (posing as the accumulator's
/// or not) and its data.
#[derive(Clone)]
pub struct Dep {
    pub type_: Option<Script>,
    pub data: Vec<u8>,
}

impl Dep {
    pub fn accumulator(data: Vec<u8>) -> Dep {
        Dep::typed(accumulator_type(), data)
    }

    pub fn typed(type_: Script, data: Vec<u8>) -> Dep {
        Dep {
            type_: Some(type_),
            data,
        }
    }

    pub fn untyped(data: Vec<u8>) -> Dep {
        Dep { type_: None, data }
    }

    /// Creates the dep's cell (1,000 CKB) in `context`.
    pub fn add(&self, context: &mut Context) -> CellDep {
        let cell = CellOutput::new_builder()
            .capacity(1_000u64 * 100_000_000)
            .lock(type_script([0x01; 32], &[]))
            .type_(self.type_.clone().pack())
            .build();
        let out_point = context.create_cell(cell, Bytes::from(self.data.clone()));
        CellDep::new_builder()
            .out_point(out_point)
            .dep_type(DepType::Code)
            .build()
    }
}

pub mod accumulator;
pub mod exploits;
pub mod owner;

pub const MAX_CYCLES: u64 = 70_000_000;

/// The verifiers, by the payload format they read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verifier {
    Baseline,
    C,
    Compiled,
}

impl Verifier {
    pub fn binary_name(self) -> &'static str {
        match self {
            Verifier::Baseline => "baseline-verifier",
            Verifier::C => "c-verifier",
            Verifier::Compiled => "compiled-verifier",
        }
    }

    pub fn binary(self) -> Bytes {
        let path = release_dir().join(self.binary_name());
        std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; build it with ./build.sh build", path.display()))
            .into()
    }
}

/// Verifiers in tx.json input order (0 baseline, 1 C, 2 compiled), as far as they are wired in.
pub fn available_verifiers() -> Vec<Verifier> {
    vec![Verifier::Baseline, Verifier::C, Verifier::Compiled]
}

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn release_dir() -> PathBuf {
    repo_root().join("build/release")
}

/// What one script run gave: accepted with its cycles, or the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Accepted(u64),
    Rejected(i8),
}

impl Outcome {
    pub fn accepted(self) -> bool {
        matches!(self, Outcome::Accepted(_))
    }

    pub fn code(self) -> Option<i8> {
        match self {
            Outcome::Accepted(_) => None,
            Outcome::Rejected(c) => Some(c),
        }
    }
}

/// A copy of `x` with `edit` applied.
pub fn edited<T: Clone>(x: &T, edit: impl FnOnce(&mut T)) -> T {
    let mut out = x.clone();
    edit(&mut out);
    out
}

/// Exit code from ckb-script's error text ("... error code N ..."). A VM fault or any other
/// failure has no such code and fails the test loudly.
pub fn exit_code(err: &str) -> i8 {
    let at = err
        .find("error code ")
        .unwrap_or_else(|| panic!("script failed without an exit code: {err}"));
    let digits: String = err[at + 11..]
        .chars()
        .take_while(|c| *c == '-' || c.is_ascii_digit())
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("unparsable exit code in: {err}"))
}

/// Inputs of a transaction locked by one verifier.
#[derive(Clone)]
pub struct LockInput {
    pub args: Bytes,
    /// The witness at the input's index; `None` leaves the witness list empty.
    pub witness: Option<Bytes>,
}

/// A transaction spending one cell locked by `verifier`, as ckb-testtool would send it.
pub fn build_tx(context: &mut Context, verifier: Verifier, input: &LockInput) -> TransactionView {
    let out_point = context.deploy_cell(verifier.binary());
    let tx = spend(
        context,
        &out_point,
        input.args.clone(),
        input.witness.clone(),
    );
    context.complete_tx(tx.build())
}

/// A transaction, not yet completed with its cell deps: one input locked by the code at
/// `code` (hash_type data2) with `args`, one output under the same lock, and `witness` (if
/// any) as witness 0.
pub fn spend(
    context: &mut Context,
    code: &OutPoint,
    args: Bytes,
    witness: Option<Bytes>,
) -> TransactionBuilder {
    let lock = context
        .build_script_with_hash_type(code, ScriptHashType::Data2, args)
        .expect("script");
    let cell = context.create_cell(output(lock.clone(), 1_000_000_000_000u64), Bytes::new());
    let tx = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(cell).build())
        .output(output(lock, 900_000_000_000u64))
        .output_data(Bytes::new().pack());
    match witness {
        Some(w) => tx.witness(w.pack()),
        None => tx,
    }
}

/// Runs one lock script in ckb-script.
pub fn run(verifier: Verifier, input: &LockInput) -> Outcome {
    let mut context = Context::default();
    let tx = build_tx(&mut context, verifier, input);
    match context.verify_tx(&tx, MAX_CYCLES) {
        Ok(cycles) => Outcome::Accepted(cycles),
        Err(e) => Outcome::Rejected(exit_code(&e.to_string())),
    }
}

/// The cycles of `w`'s honest proof on `v`, which must be accepted.
pub fn honest_cycles(v: Verifier, w: &Workload) -> u64 {
    match run(v, &honest(v, w)) {
        Outcome::Accepted(c) => c,
        other => panic!("{v:?} seed {:?}: {other:?}", w.seed),
    }
}

/// The payload format `verifier` reads, for a workload.
pub fn payload(verifier: Verifier, w: &Workload) -> Vec<u8> {
    match verifier {
        Verifier::Baseline => w.baseline_payload(),
        Verifier::C | Verifier::Compiled => w.compiled_payload().expect("honest proofs compile"),
    }
}

/// `w`'s honest proof for `v` as witness 0: WitnessArgs with the payload in its lock field.
pub fn mmr_witness(v: Verifier, w: &Workload) -> Bytes {
    ckb_mmr_sdk::witness_args_with_lock(&payload(v, w)).into()
}

/// A mock transaction's cell (`ckb_mmr_sdk::tx`) for each verifier: its binary, `args` and
/// `w`'s payload in its format.
pub fn mock_cells(verifiers: &[Verifier], w: &Workload, args: &[u8]) -> Vec<ckb_mmr_sdk::tx::Cell> {
    verifiers
        .iter()
        .map(|&v| ckb_mmr_sdk::tx::Cell {
            binary: v.binary().to_vec(),
            lock_args: args.to_vec(),
            payload: payload(v, w),
        })
        .collect()
}

/// `json` as `tx.json` in a fresh temporary directory (`name`, then the process id): the
/// directory and the file.
pub fn write_tx_json(name: &str, json: &serde_json::Value) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tx.json");
    std::fs::write(&file, serde_json::to_string(json).unwrap()).unwrap();
    (dir, file)
}

/// Args and witness for the honest proof of a workload.
pub fn honest(verifier: Verifier, w: &Workload) -> LockInput {
    with_payload(w, &payload(verifier, w))
}

/// Args of `w` with a witness whose lock field is `payload`.
pub fn with_payload(w: &Workload, payload: &[u8]) -> LockInput {
    LockInput {
        args: w.lock_args().into(),
        witness: Some(ckb_mmr_sdk::witness_args_with_lock(payload).into()),
    }
}

/// A row `| code | `Name` | ... |` of an exit-code table in docs/ as (code, Name); `None` for
/// any other line (the header, its rule, prose).
pub fn doc_code_row(line: &str) -> Option<(i8, String)> {
    let mut cells = line.split('|').skip(1).map(str::trim);
    let code = cells.next()?.parse().ok()?;
    let name = cells.next()?.trim_matches('`');
    Some((code, name.to_string()))
}
