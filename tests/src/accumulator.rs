//! A minimal chain around the accumulator type script's release binary
//! (`build/release/accumulator-type`, docs/accumulator.md): one ckb-testtool context with the
//! binary's code cell and an always-success lock for every cell, and the two transactions the
//! type script judges from bytes: an update of one accumulator cell and a creation under CKB's
//! type-id rule.

use crate::{exit_code, release_dir, Outcome, MAX_CYCLES};
use ckb_testtool::builtin::ALWAYS_SUCCESS;
use ckb_testtool::ckb_hash::blake2b_256;
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder, TransactionView},
    packed::{CellInput, CellOutput, OutPoint, Script, WitnessArgs},
    prelude::*,
};
use ckb_testtool::context::Context;

/// The type args of the accumulator [`AccumulatorChain::update`] spends.
pub const UPDATED_ID: [u8; 32] = [0x1d; 32];

/// `build/release/accumulator-type`.
pub fn binary() -> Bytes {
    let path = release_dir().join("accumulator-type");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; build it with ./build.sh build", path.display()))
        .into()
}

/// CKB's type id of the output at `index` of a transaction whose first input is `input`.
pub fn type_id(input: &CellInput, index: u64) -> [u8; 32] {
    let mut preimage = input.as_slice().to_vec();
    preimage.extend_from_slice(&index.to_le_bytes());
    blake2b_256(preimage)
}

/// A `WitnessArgs` with these `input_type` and `output_type` fields (no lock).
pub fn witness(input_type: Option<&[u8]>, output_type: Option<&[u8]>) -> Bytes {
    WitnessArgs::new_builder()
        .input_type(input_type.map(Bytes::copy_from_slice).pack())
        .output_type(output_type.map(Bytes::copy_from_slice).pack())
        .build()
        .as_bytes()
}

pub struct AccumulatorChain {
    pub context: Context,
    /// The type script's code cell.
    pub code: OutPoint,
    /// The always-success lock of every cell.
    pub lock: Script,
}

impl Default for AccumulatorChain {
    fn default() -> Self {
        Self::new()
    }
}

impl AccumulatorChain {
    /// Cycles of the same transaction without any type script: the always-success lock's,
    /// subtracted from a run to leave the type script's own cycles.
    pub fn lock_cycles(&mut self, tx: &TransactionView) -> u64 {
        let outputs: Vec<CellOutput> = tx
            .outputs()
            .into_iter()
            .map(|o| o.as_builder().type_(None::<Script>.pack()).build())
            .collect();
        let mut plain = TransactionBuilder::default()
            .outputs_data(tx.outputs_data())
            .outputs(outputs);
        for _ in tx.inputs() {
            let cell = self.plain_cell();
            plain = plain.input(CellInput::new_builder().previous_output(cell).build());
        }
        let plain = self.context.complete_tx(plain.build());
        self.context.verify_tx(&plain, MAX_CYCLES).unwrap()
    }

    pub fn new() -> AccumulatorChain {
        let mut context = Context::default();
        let code = context.deploy_cell(binary());
        let always = context.deploy_cell(ALWAYS_SUCCESS.clone());
        let lock = context
            .build_script_with_hash_type(&always, ScriptHashType::Data2, Bytes::new())
            .unwrap();
        AccumulatorChain {
            context,
            code,
            lock,
        }
    }

    /// The accumulator's type script with these args.
    pub fn type_script(&mut self, args: &[u8]) -> Script {
        self.context
            .build_script_with_hash_type(
                &self.code,
                ScriptHashType::Data2,
                Bytes::copy_from_slice(args),
            )
            .unwrap()
    }

    /// An output (500 CKB) with the always-success lock and this type script.
    pub fn output(&self, type_script: Option<&Script>) -> CellOutput {
        CellOutput::new_builder()
            .capacity(500_000_000_000u64)
            .lock(self.lock.clone())
            .type_(type_script.cloned().pack())
            .build()
    }

    /// A live cell (1,000 CKB) with no type script and no data.
    pub fn plain_cell(&mut self) -> OutPoint {
        self.context.create_cell(
            crate::output(self.lock.clone(), 1_000_000_000_000u64),
            Bytes::new(),
        )
    }

    /// A live accumulator cell holding `data`, its type args `id` (created directly, as a
    /// chain can hold any data a past transaction wrote).
    pub fn accumulator(&mut self, id: &[u8], data: &[u8]) -> OutPoint {
        let t = self.type_script(id);
        let out = self.output(Some(&t));
        self.context.create_cell(out, Bytes::copy_from_slice(data))
    }

    /// Completes and verifies `tx`: accepted with its cycles, or the exit code.
    pub fn run(&mut self, tx: TransactionBuilder) -> Outcome {
        let tx = self.context.complete_tx(tx.build());
        match self.context.verify_tx(&tx, MAX_CYCLES) {
            Ok(cycles) => Outcome::Accepted(cycles),
            Err(e) => Outcome::Rejected(exit_code(&e.to_string())),
        }
    }

    /// An update: an accumulator cell (type args [`UPDATED_ID`]) holding `old`, created
    /// directly ([`Self::accumulator`]), as input 0, spent into one holding `new` as output 0,
    /// `payload` in `input_type`.
    pub fn update(&mut self, old: &[u8], new: &[u8], payload: &[u8]) -> TransactionBuilder {
        let cell = self.accumulator(&UPDATED_ID, old);
        let t = self.type_script(&UPDATED_ID);
        TransactionBuilder::default()
            .input(CellInput::new_builder().previous_output(cell).build())
            .output(self.output(Some(&t)))
            .output_data(Bytes::copy_from_slice(new).pack())
            .witness(witness(Some(payload), None).pack())
    }

    /// [`Self::update`], completed and verified ([`Self::run`]).
    pub fn run_update(&mut self, old: &[u8], new: &[u8], payload: &[u8]) -> Outcome {
        let tx = self.update(old, new, payload);
        self.run(tx)
    }

    /// A creation: a plain input, the accumulator holding `data` as output 0 under the type
    /// id of that input and index, `payload` in `output_type`. Returns the type args too.
    pub fn creation(&mut self, data: &[u8], payload: &[u8]) -> (TransactionBuilder, [u8; 32]) {
        self.creation_at(data, payload, 0)
    }

    /// [`Self::creation`] with the accumulator as output `index`: `index` plain outputs
    /// (no data, empty witnesses) before it, `payload` in the `output_type` at `index`.
    pub fn creation_at(
        &mut self,
        data: &[u8],
        payload: &[u8],
        index: usize,
    ) -> (TransactionBuilder, [u8; 32]) {
        let cell = self.plain_cell();
        let input = CellInput::new_builder().previous_output(cell).build();
        let id = type_id(&input, index as u64);
        let t = self.type_script(&id);
        let mut tx = TransactionBuilder::default().input(input);
        for _ in 0..index {
            tx = tx
                .output(self.output(None))
                .output_data(Bytes::new().pack())
                .witness(Bytes::new().pack());
        }
        let tx = tx
            .output(self.output(Some(&t)))
            .output_data(Bytes::copy_from_slice(data).pack())
            .witness(witness(None, Some(payload)).pack());
        (tx, id)
    }

    /// [`Self::creation`], completed and verified ([`Self::run`]).
    pub fn run_creation(&mut self, data: &[u8], payload: &[u8]) -> Outcome {
        let (tx, _) = self.creation(data, payload);
        self.run(tx)
    }
}

/// The host hash for building MMRs and accumulator payloads (mmr-blake2b's portable path).
pub struct Host;

impl mmr_accumulator::Merge for Host {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        mmr_blake2b::merge_into(left, right, out);
    }
}

/// `n` distinct leaves of the accumulator tests: `0xa5` bytes with `i` in the first eight.
pub fn leaves(n: u64) -> Vec<[u8; 32]> {
    (0..n)
        .map(|i| {
            let mut l = [0xa5; 32];
            l[..8].copy_from_slice(&i.to_le_bytes());
            l
        })
        .collect()
}

/// The commitment (root || mmr_size) of the MMR of `all`.
pub fn commit(all: &[[u8; 32]]) -> [u8; 40] {
    mmr_accumulator::build::commitment::<Host>(all)
        .unwrap()
        .to_bytes()
}

/// A synthetic node hash of an MMR too large to build: any function of (first leaf, height)
/// gives consistent nodes for the disjoint subtrees an append body or ancestry proof names.
pub fn synthetic(first: u64, height: u32) -> [u8; 32] {
    let mut seed = [0u8; 12];
    seed[..8].copy_from_slice(&first.to_le_bytes());
    seed[8..].copy_from_slice(&height.to_le_bytes());
    blake2b_256(seed)
}

/// The synthetic MMR of `n` leaves: its peaks (left to right) and its commitment.
pub fn synthetic_state(n: u64) -> (Vec<[u8; 32]>, mmr_accumulator::Commitment) {
    let peaks: Vec<[u8; 32]> = mmr_accumulator::build::peak_nodes(n)
        .iter()
        .map(|&(f, h)| synthetic(f, h))
        .collect();
    let old = mmr_accumulator::Commitment {
        root: mmr_accumulator::build::bag::<Host>(&peaks).unwrap(),
        mmr_size: mmr_lock::mmr::mmr_size_of(n),
    };
    (peaks, old)
}
