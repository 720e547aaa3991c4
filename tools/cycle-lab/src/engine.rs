//! One verifier run in ckb-script, the engine behind ckb-debugger, ckb-testtool and CKB itself.
//!
//! An [`Engine`] belongs to one thread. It owns deep copies of the verifier binaries and its own
//! consensus, environment and debug printer, so nothing reference-counted is shared with another
//! thread: every `Arc` and `Bytes` cloned per run lives on this thread's cache lines only (see
//! docs/performance.md, "Seed sweep").

use ckb_chain_spec::consensus::{Consensus, ConsensusBuilder};
use ckb_script::{ScriptGroupType, TransactionScriptsVerifier, TxVerifyEnv};
use ckb_traits::{CellDataProvider, ExtensionProvider, HeaderProvider};
use ckb_types::{
    bytes::Bytes,
    core::{
        cell::{CellMeta, CellMetaBuilder, ResolvedTransaction},
        hardfork::{HardForks, CKB2021, CKB2023},
        DepType, HeaderBuilder, HeaderView, ScriptHashType, TransactionBuilder,
    },
    packed::{Byte32, CellDep, CellInput, CellOutput, OutPoint, Script, WitnessArgs},
    prelude::*,
};
use std::sync::Arc;

/// ckb-script's debug printer type (the verifiers print nothing on honest runs).
type DebugPrinter = Arc<dyn Fn(&Byte32, &str) + Send + Sync>;
use ckb_mmr_sdk::Workload;

/// The cycle limit of one run: far above any honest proof, as in the tests.
pub const MAX_CYCLES: u64 = 70_000_000;

/// The payload format a verifier reads: the SDK's (docs/baseline-format.md,
/// docs/compiled-format.md).
pub use ckb_mmr_sdk::Format;

/// The `WitnessArgs` (lock field = `format`'s payload) for the honest proof of `w`.
pub fn witness(format: Format, w: &Workload) -> Result<Vec<u8>, String> {
    let payload = match format {
        Format::Baseline => Ok(w.baseline_payload()),
        Format::Compiled => w.compiled_payload(),
        Format::CompiledV1 => w.compiled_v1_payload(),
    }
    .map_err(|e| format!("compiling the proof: {e:?}"))?;
    Ok(ckb_mmr_sdk::witness_args_with_lock(&payload))
}

/// The release verifiers, in tx.json input order (0 baseline, 1 C, 2 compiled), with the
/// format each reads.
pub const RELEASE_VERIFIERS: [(&str, Format); 3] = [
    ("baseline-verifier", Format::Baseline),
    ("c-verifier", Format::Compiled),
    ("compiled-verifier", Format::Compiled),
];

/// The release verifiers of `dir`, loaded in [`RELEASE_VERIFIERS`] order.
pub fn release_specs(dir: &std::path::Path) -> Result<Vec<ProgramSpec>, String> {
    RELEASE_VERIFIERS
        .iter()
        .map(|&(name, format)| ProgramSpec::load(name, format, &dir.join(name)))
        .collect()
}

/// A verifier to measure: plain data, shared read-only between threads and copied by each
/// [`Engine`] when it starts.
#[derive(Debug, Clone)]
pub struct ProgramSpec {
    pub name: String,
    pub format: Format,
    pub binary: Vec<u8>,
}

impl ProgramSpec {
    pub fn load(name: &str, format: Format, path: &std::path::Path) -> Result<ProgramSpec, String> {
        let binary = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(ProgramSpec {
            name: name.to_string(),
            format,
            binary,
        })
    }
}

/// What one run gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Accepted(u64),
    /// The script exited with this code.
    Rejected(i8),
    /// Anything else ckb-script reported (a VM fault, exceeded cycles, ...).
    Failed(String),
}

impl Outcome {
    /// The cycles of an accepted run of an honest transition; any other outcome is an error
    /// naming `what`.
    pub fn honest(self, what: impl FnOnce() -> String) -> Result<u64, String> {
        match self {
            Outcome::Accepted(cycles) => Ok(cycles),
            other => Err(format!("{}: {other:?} on an honest transition", what())),
        }
    }
}

/// The cell data of the scripts is always in the resolved transaction, and the verifiers read
/// no headers or extensions: nothing to load.
#[derive(Clone, Copy)]
struct NoLoader;

impl CellDataProvider for NoLoader {
    fn get_cell_data(&self, _: &OutPoint) -> Option<Bytes> {
        None
    }
    fn get_cell_data_hash(&self, _: &OutPoint) -> Option<Byte32> {
        None
    }
}

impl HeaderProvider for NoLoader {
    fn get_header(&self, _: &Byte32) -> Option<HeaderView> {
        None
    }
}

impl ExtensionProvider for NoLoader {
    fn get_block_extension(&self, _: &Byte32) -> Option<ckb_types::packed::Bytes> {
        None
    }
}

/// A deployed verifier: its code cell, resolved once.
struct Program {
    format: Format,
    dep_meta: CellMeta,
    code_hash: Byte32,
}

/// One thread's ckb-script setup. Not `Sync` on purpose: build one per thread.
pub struct Engine {
    consensus: Arc<Consensus>,
    env: Arc<TxVerifyEnv>,
    printer: DebugPrinter,
    programs: Vec<Program>,
    _not_sync: std::marker::PhantomData<std::cell::Cell<()>>,
}

/// The input that spends `out_point(tag, index)`.
fn cell_input(tag: u8, index: u32) -> CellInput {
    CellInput::new_builder()
        .previous_output(out_point(tag, index))
        .build()
}

impl Program {
    /// The script that runs this program (`data2`), with `args`.
    fn script(&self, args: &[u8]) -> Script {
        Script::new_builder()
            .code_hash(self.code_hash.clone())
            .hash_type(ScriptHashType::Data2)
            .args(Bytes::copy_from_slice(args).pack())
            .build()
    }
}

fn out_point(tag: u8, index: u32) -> OutPoint {
    let mut tx_hash = [tag; 32];
    tx_hash[28..].copy_from_slice(&index.to_le_bytes());
    OutPoint::new_builder()
        .tx_hash(tx_hash.pack())
        .index(index)
        .build()
}

impl Engine {
    /// Copies every binary (new allocations owned by this thread) and resolves its code cell.
    pub fn new(specs: &[ProgramSpec]) -> Engine {
        // The same consensus ckb-testtool (and so the tests) verify with: ckb2021 and ckb2023
        // active from genesis, so `data2` scripts run on VM version 2 with the B extension.
        let consensus = ConsensusBuilder::default()
            .hardfork_switch(HardForks {
                ckb2021: CKB2021::new_dev_default(),
                ckb2023: CKB2023::new_dev_default(),
            })
            .build();
        let tip = HeaderBuilder::default().number(0u64).build();
        let programs = specs
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let data = Bytes::from(spec.binary.clone());
                let output = CellOutput::new_builder()
                    .capacity((data.len() as u64 + 200) * 100_000_000)
                    .build();
                let code_hash = CellOutput::calc_data_hash(&data);
                let dep_meta = CellMetaBuilder::from_cell_output(output, data)
                    .out_point(out_point(0xd0, i as u32))
                    .build();
                Program {
                    format: spec.format,
                    dep_meta,
                    code_hash,
                }
            })
            .collect();
        Engine {
            consensus: Arc::new(consensus),
            env: Arc::new(TxVerifyEnv::new_submit(&tip)),
            printer: Arc::new(|_: &Byte32, _: &str| {}),
            programs,
            _not_sync: std::marker::PhantomData,
        }
    }

    pub fn format(&self, program: usize) -> Format {
        self.programs[program].format
    }

    /// Runs `program` as the lock of one input with `args`, `witness` at index 0: the
    /// transaction shape of ckb-testtool's tests (one code cell dep, one input, one output).
    pub fn run(&self, program: usize, args: &[u8], witness: &[u8]) -> Outcome {
        self.run_sized(program, args, witness).0
    }

    /// [`Engine::run`], with the size the node weighs the transaction it ran in as
    /// (`ckb_mmr_sdk::weight::tx_bytes`): the same shape and size as the SDK's mock transaction
    /// of that one cell (`ckb_mmr_sdk::tx::mock`), which ckb-debugger runs.
    pub fn run_sized(&self, program: usize, args: &[u8], witness: &[u8]) -> (Outcome, usize) {
        let p = &self.programs[program];
        let lock = p.script(args);
        let input = cell_input(0x1a, 0);
        let spent = CellOutput::new_builder()
            .capacity(1_000_000_000_000u64)
            .lock(lock.clone())
            .build();
        let output = CellOutput::new_builder()
            .capacity(900_000_000_000u64)
            .lock(lock)
            .build();
        let witness = Bytes::copy_from_slice(witness);
        let (verifier, tx_bytes) = self.verifier(
            p,
            vec![(input, spent, Bytes::new())],
            vec![(output, Bytes::new())],
            vec![witness],
        );
        (outcome(verifier.verify(MAX_CYCLES)), tx_bytes)
    }

    /// Runs `program` as the type script of one accumulator cell (docs/accumulator.md), alone
    /// (its script group only; the cells' lock never runs). With `input_data`, an update: the
    /// input and the output carry the type with `args`, the payload is the input's
    /// `WitnessArgs.input_type`. Without, a creation: a plain input, the output carries the
    /// type under CKB's type-id rule (args from that input and output index 0), the payload is
    /// `output_type`.
    ///
    /// Also returns the size the node weighs that transaction as.
    pub fn run_type(
        &self,
        program: usize,
        args: &[u8; 32],
        input_data: Option<&[u8]>,
        output_data: &[u8],
        payload: &[u8],
    ) -> (Outcome, usize) {
        let inputs: Vec<Vec<u8>> = input_data.map(<[u8]>::to_vec).into_iter().collect();
        let outputs = [output_data.to_vec()];
        self.run_group(program, (args, None), &inputs, &outputs, 0, payload)
    }

    /// Runs `program` as the type script of an accumulator ring's group (docs/accumulator.md,
    /// section 7), alone like [`Engine::run_type`]: one cell per entry of `inputs` and
    /// `outputs`, in order, under the type with 33-byte args `type_id || k` and one lock
    /// (never run). `head` is the head's index on the side that carries the payload: an
    /// update's inputs (`input_type`), or a creation's outputs (`output_type`; the type id
    /// from a plain input and output `head`). The witnesses before `head` are empty.
    ///
    /// Also returns the size the node weighs that transaction as.
    pub fn run_ring_type(
        &self,
        program: usize,
        (type_id, k): (&[u8; 32], u8),
        inputs: &[Vec<u8>],
        outputs: &[Vec<u8>],
        head: usize,
        payload: &[u8],
    ) -> (Outcome, usize) {
        self.run_group(program, (type_id, Some(k)), inputs, outputs, head, payload)
    }

    /// [`Engine::run_ring_type`] with `k` (33-byte args), or [`Engine::run_type`] without
    /// (32-byte args); each names its inputs' out points apart.
    fn run_group(
        &self,
        program: usize,
        (type_id, k): (&[u8; 32], Option<u8>),
        inputs: &[Vec<u8>],
        outputs: &[Vec<u8>],
        head: usize,
        payload: &[u8],
    ) -> (Outcome, usize) {
        let p = &self.programs[program];
        let creation = inputs.is_empty();
        let tag = if k.is_some() { 0x1c } else { 0x1b };
        let plain = cell_input(tag, 0);
        let mut args = match creation {
            true => ckb_mmr_sdk::ckb_hash(&[plain.as_slice(), &(head as u64).to_le_bytes()]),
            false => *type_id,
        }
        .to_vec();
        args.extend(k);
        let type_script = p.script(&args);
        let lock = Script::new_builder()
            .hash_type(ScriptHashType::Data2)
            .build();
        let cell = |capacity: u64, typed: bool| {
            let mut b = CellOutput::new_builder()
                .capacity(capacity)
                .lock(lock.clone());
            if typed {
                b = b.type_(Some(type_script.clone()).pack());
            }
            b.build()
        };
        let spent: Vec<(CellInput, CellOutput, Bytes)> = match creation {
            true => vec![(plain, cell(1_000_000_000_000, false), Bytes::new())],
            false => inputs
                .iter()
                .enumerate()
                .map(|(i, data)| {
                    let spent = cell(1_000_000_000_000, true);
                    (
                        cell_input(tag, i as u32),
                        spent,
                        Bytes::copy_from_slice(data),
                    )
                })
                .collect(),
        };
        let created = outputs
            .iter()
            .map(|data| (cell(900_000_000_000, true), Bytes::copy_from_slice(data)))
            .collect();
        let payload = Some(Bytes::copy_from_slice(payload)).pack();
        let witness = match creation {
            true => WitnessArgs::new_builder().output_type(payload),
            false => WitnessArgs::new_builder().input_type(payload),
        }
        .build();
        let mut witnesses = vec![Bytes::new(); head];
        witnesses.push(witness.as_bytes());
        let (verifier, tx_bytes) = self.verifier(p, spent, created, witnesses);
        let outcome = outcome(verifier.verify_single(
            ScriptGroupType::Type,
            &type_script.calc_script_hash(),
            MAX_CYCLES,
        ));
        (outcome, tx_bytes)
    }

    /// The transaction shape of every run, resolved: `p`'s code cell as the one cell dep, the
    /// inputs (each its out point, the cell it spends and that cell's data), the outputs with
    /// their data, the witnesses from index 0; with the transaction's size as the node weighs
    /// it.
    fn verifier(
        &self,
        p: &Program,
        inputs: Vec<(CellInput, CellOutput, Bytes)>,
        outputs: Vec<(CellOutput, Bytes)>,
        witnesses: Vec<Bytes>,
    ) -> (TransactionScriptsVerifier<NoLoader>, usize) {
        let mut tx = TransactionBuilder::default().cell_dep(
            CellDep::new_builder()
                .out_point(p.dep_meta.out_point.clone())
                .dep_type(DepType::Code)
                .build(),
        );
        let mut resolved_inputs = Vec::with_capacity(inputs.len());
        for (input, spent, spent_data) in inputs {
            resolved_inputs.push(
                CellMetaBuilder::from_cell_output(spent, spent_data)
                    .out_point(input.previous_output())
                    .build(),
            );
            tx = tx.input(input);
        }
        for (output, data) in outputs {
            tx = tx.output(output).output_data(data.pack());
        }
        for witness in witnesses {
            tx = tx.witness(witness.pack());
        }
        let tx = tx.build();
        let tx_bytes = ckb_mmr_sdk::weight::tx_bytes(&tx.data());
        let rtx = ResolvedTransaction {
            transaction: tx,
            resolved_cell_deps: vec![p.dep_meta.clone()],
            resolved_inputs,
            resolved_dep_groups: vec![],
        };
        let verifier = TransactionScriptsVerifier::new_with_debug_printer(
            Arc::new(rtx),
            NoLoader,
            Arc::clone(&self.consensus),
            Arc::clone(&self.env),
            Arc::clone(&self.printer),
        );
        (verifier, tx_bytes)
    }

    /// Runs `program` on the honest proof of `w`.
    pub fn run_honest(&self, program: usize, w: &Workload) -> Outcome {
        match witness(self.format(program), w) {
            Ok(witness) => self.run(program, &w.lock_args(), &witness),
            Err(e) => Outcome::Failed(e),
        }
    }
}

fn outcome<E: std::fmt::Display>(result: Result<u64, E>) -> Outcome {
    match result {
        Ok(cycles) => Outcome::Accepted(cycles),
        Err(e) => {
            let text = e.to_string();
            exit_code(&text).map_or(Outcome::Failed(text), Outcome::Rejected)
        }
    }
}

/// The exit code in ckb-script's error text ("... error code N ...").
fn exit_code(err: &str) -> Option<i8> {
    let at = err.find("error code ")?;
    let digits: String = err[at + 11..]
        .chars()
        .take_while(|c| *c == '-' || c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-process transaction weighs what the mock transaction ckb-debugger runs weighs,
    /// so sweeps and growth report the sizes `cycle-lab run` and the journey measure.
    #[test]
    fn the_engine_transaction_is_the_mock_transaction_in_size() {
        let binary = vec![0x13u8; 1_000];
        let engine = Engine::new(&[ProgramSpec {
            name: "any".into(),
            format: Format::Compiled,
            binary: binary.clone(),
        }]);
        for (args, payload) in [(40, 13_855), (41, 100), (33, 0)] {
            let cell = ckb_mmr_sdk::tx::Cell {
                binary: binary.clone(),
                lock_args: vec![1; args],
                payload: vec![2; payload],
            };
            let witness = ckb_mmr_sdk::witness_args_with_lock(&cell.payload);
            let (_, tx_bytes) = engine.run_sized(0, &cell.lock_args, &witness);
            let mock = ckb_mmr_sdk::tx::mock(&[cell], &[], &[]);
            assert_eq!(tx_bytes, ckb_mmr_sdk::weight::tx_bytes(&mock.tx));
        }
    }
}
