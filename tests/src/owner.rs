//! Owner-mode transactions as they would be sent on chain: the MMR cell locked by a verifier
//! in owner mode, and owners' cells locked by CKB's real default lock,
//! secp256k1_blake160_sighash_all, deployed exactly as in the genesis block (the binary from
//! the published `ckb-system-scripts` crate, in a cell whose type id makes its type hash the
//! well-known code_hash `0x9bd7e06f…`), signed with real keys over the transaction.

use crate::{Verifier, MAX_CYCLES};
use ckb_mmr_sdk::script::{SECP256K1_BLAKE160_CODE_HASH, TYPE_ID_CODE_HASH};
use ckb_mmr_sdk::{Mode, Workload, REFERENCE_SEED};
use ckb_testtool::ckb_crypto::secp::Privkey;
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{DepType, ScriptHashType, TransactionBuilder, TransactionView},
    packed::{self, CellDep, CellInput, CellOutput, OutPoint, Script, WitnessArgs},
    prelude::*,
    H256,
};
use ckb_testtool::context::Context;

/// Genesis out points of the secp256k1 cells on mainnet (RFC 0024): the sighash_all binary
/// and secp256k1_data. Only used as names here; the cells are created in the test context.
const GENESIS_TX: [u8; 32] = [
    0xe2, 0xfb, 0x19, 0x98, 0x10, 0xd4, 0x9a, 0x4d, 0x8b, 0xee, 0xc5, 0x67, 0x18, 0xba, 0x25, 0x93,
    0xb6, 0x65, 0xdb, 0x9d, 0x52, 0x29, 0x9a, 0x0f, 0x9e, 0x6e, 0x75, 0x41, 0x6d, 0x73, 0xff, 0x5c,
];

/// Args of the type id script of the genesis sighash_all cell: its hash is the lock's
/// code_hash (checked in `ckb_mmr_sdk::script`'s tests).
const SIGHASH_TYPE_ID_ARGS: [u8; 32] = [
    0x85, 0x36, 0xc9, 0xd5, 0xd9, 0x08, 0xbd, 0x89, 0xfc, 0x70, 0x09, 0x9e, 0x42, 0x84, 0x87, 0x07,
    0x08, 0xb6, 0x63, 0x23, 0x56, 0xaa, 0xd9, 0x87, 0x34, 0xfc, 0xf4, 0x3f, 0x6f, 0x71, 0xc3, 0x04,
];

/// A key and the default lock it unlocks.
pub struct Owner {
    pub key: Privkey,
    pub blake160: [u8; 20],
}

impl Owner {
    /// A deterministic test key derived from `tag` (public: never fund such a key).
    pub fn from_tag(tag: &str) -> Owner {
        let secret = ckb_testtool::ckb_hash::blake2b_256(tag.as_bytes());
        let key = Privkey::from_slice(&secret);
        let pubkey = key.pubkey().expect("a valid secret key");
        let hash = ckb_testtool::ckb_hash::blake2b_256(pubkey.serialize());
        let mut blake160 = [0u8; 20];
        blake160.copy_from_slice(&hash[..20]);
        Owner { key, blake160 }
    }

    /// The owner's default lock, as the SDK names it.
    pub fn script(&self) -> ckb_mmr_sdk::script::Script {
        ckb_mmr_sdk::script::secp256k1_blake160(self.blake160)
    }

    /// The owner's default lock as a packed `Script`.
    pub fn lock(&self) -> Script {
        crate::type_script(SECP256K1_BLAKE160_CODE_HASH, &self.blake160)
    }

    /// The lock hash an owner-mode leaf names.
    pub fn lock_hash(&self) -> [u8; 32] {
        crate::hash_of(&self.lock())
    }

    /// Signs the inputs at `group` (all locked by this owner's lock) per sighash_all: blake2b
    /// over the tx hash, the group's first witness with a 65-byte zero lock (length-prefixed),
    /// the group's other witnesses and the witnesses past the inputs, then a recoverable
    /// secp256k1 signature in the first witness's lock.
    pub fn sign(&self, tx: TransactionView, group: &[usize]) -> TransactionView {
        let mut witnesses: Vec<packed::Bytes> = tx.witnesses().into_iter().collect();
        let inputs = tx.inputs().len();
        while witnesses.len() < inputs {
            witnesses.push(packed::Bytes::default());
        }
        let first = group[0];
        let zeroed = WitnessArgs::new_builder()
            .lock(Some(Bytes::from(vec![0u8; 65])).pack())
            .build();
        let mut hasher = ckb_testtool::ckb_hash::new_blake2b();
        hasher.update(tx.hash().as_slice());
        let zeroed_bytes = zeroed.as_bytes();
        hasher.update(&(zeroed_bytes.len() as u64).to_le_bytes());
        hasher.update(&zeroed_bytes);
        let mut others: Vec<usize> = group[1..].to_vec();
        others.extend(inputs..witnesses.len());
        for i in others {
            let w = witnesses[i].raw_data();
            hasher.update(&(w.len() as u64).to_le_bytes());
            hasher.update(&w);
        }
        let mut message = [0u8; 32];
        hasher.finalize(&mut message);
        let signature = self
            .key
            .sign_recoverable(&H256::from(message))
            .expect("signing");
        let signed = zeroed
            .as_builder()
            .lock(Some(Bytes::from(signature.serialize())).pack())
            .build();
        witnesses[first] = signed.as_bytes().pack();
        tx.as_advanced_builder().set_witnesses(witnesses).build()
    }
}

/// A context holding a verifier binary and the genesis secp256k1 cells.
pub struct Chain {
    pub context: Context,
    pub verifier: Verifier,
    pub verifier_dep: OutPoint,
    pub secp_deps: [CellDep; 2],
}

impl Chain {
    pub fn new(verifier: Verifier) -> Chain {
        let mut context = Context::default();
        let verifier_dep = context.deploy_cell(verifier.binary());
        let bundled = |name: &str| -> Bytes {
            ckb_system_scripts::BUNDLED_CELL
                .get(&format!("specs/cells/{name}"))
                .expect("bundled system script")
                .into_owned()
                .into()
        };
        let type_id = crate::type_script(TYPE_ID_CODE_HASH, &SIGHASH_TYPE_ID_ARGS);
        let mut deps = Vec::new();
        for (index, name, type_) in [
            (1u32, "secp256k1_blake160_sighash_all", Some(type_id)),
            (3, "secp256k1_data", None),
        ] {
            let out_point = OutPoint::new_builder()
                .tx_hash(GENESIS_TX.pack())
                .index(index)
                .build();
            let cell = CellOutput::new_builder()
                .capacity(0u64)
                .type_(type_)
                .build();
            context.create_cell_with_out_point(out_point.clone(), cell, bundled(name));
            deps.push(
                CellDep::new_builder()
                    .out_point(out_point)
                    .dep_type(DepType::Code)
                    .build(),
            );
        }
        let secp_deps = [deps[0].clone(), deps[1].clone()];
        Chain {
            context,
            verifier,
            verifier_dep,
            secp_deps,
        }
    }

    /// The verifier's lock with `args` (hash_type data2).
    pub fn mmr_lock(&mut self, args: &[u8]) -> Script {
        self.context
            .build_script_with_hash_type(
                &self.verifier_dep,
                ScriptHashType::Data2,
                Bytes::copy_from_slice(args),
            )
            .expect("verifier deployed")
    }

    /// CKB's always-success lock, deployed here: an owner whose lock costs constant cycles.
    pub fn always_success_lock(&mut self) -> Script {
        let dep = self
            .context
            .deploy_cell(ckb_testtool::builtin::ALWAYS_SUCCESS.clone());
        self.context
            .build_script_with_hash_type(&dep, ScriptHashType::Data2, Bytes::new())
            .expect("always-success deployed")
    }

    /// A live cell locked by `lock`, as an input.
    pub fn cell(&mut self, lock: Script, capacity: u64) -> CellInput {
        let out_point = self
            .context
            .create_cell(crate::output(lock, capacity), Bytes::new());
        CellInput::new_builder().previous_output(out_point).build()
    }

    /// Adds the cell deps of every script the transaction runs: the verifier and, when any
    /// input uses it, the secp256k1 lock with its data cell.
    pub fn complete(&mut self, tx: TransactionBuilder) -> TransactionView {
        let tx = tx.cell_deps(self.secp_deps.clone());
        self.context.complete_tx(tx.build())
    }

    pub fn verify(&self, tx: &TransactionView) -> Result<u64, String> {
        self.context
            .verify_tx(tx, MAX_CYCLES)
            .map_err(|e| e.to_string())
    }
}

/// What owner mode costs `v` on the reference seed: the plain spend, the owner as the first
/// proved leaf (as tx-generator builds it) and as the last (the scan's worst case).
pub struct OwnerCosts {
    pub plain: u64,
    pub owner: u64,
    pub owner_last: u64,
}

pub fn owner_costs(v: Verifier) -> OwnerCosts {
    let owner_hash = crate::hash_of(&Chain::new(v).always_success_lock());
    let first = Workload::from_seed_with_owner(REFERENCE_SEED, owner_hash);
    assert_eq!(
        (first.leaf_count, first.proved.len(), first.mmr_size),
        (2520, 76, 5034)
    );
    let (mut leaves, indexes) = ckb_mmr_sdk::seeded_leaves(REFERENCE_SEED);
    leaves[*indexes.iter().max().unwrap() as usize] = owner_hash;
    let last = Workload::from_leaves(&leaves, &indexes).unwrap();
    OwnerCosts {
        plain: crate::honest_cycles(v, &Workload::from_seed(REFERENCE_SEED)),
        owner: owner_mode_cycles(v, &first),
        owner_last: owner_mode_cycles(v, &last),
    }
}

/// Cycles of the MMR lock alone in a two-input owner-mode spend (the MMR cell, then the
/// owner's always-success cell): the transaction's total less the owner's lock run alone.
pub fn owner_mode_cycles(v: Verifier, w: &Workload) -> u64 {
    let mut chain = Chain::new(v);
    let owner_lock = chain.always_success_lock();
    let paying = |lock: Script, capacity: u64| {
        TransactionBuilder::default()
            .output(crate::output(lock, capacity))
            .output_data(Bytes::new().pack())
    };
    let owner_alone = {
        let input = chain.cell(owner_lock.clone(), 100);
        let tx = chain.complete(paying(owner_lock.clone(), 100).input(input));
        chain.verify(&tx).expect("always success")
    };
    let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
    let mmr_input = chain.cell(mmr_lock, 100);
    let owner_input = chain.cell(owner_lock.clone(), 100);
    let tx = paying(owner_lock, 200)
        .input(mmr_input)
        .input(owner_input)
        .witness(crate::mmr_witness(v, w).pack());
    let tx = chain.complete(tx);
    let total = chain
        .verify(&tx)
        .unwrap_or_else(|e| panic!("{v:?}: owner-mode spend rejected: {e}"));
    total - owner_alone
}

/// The exit code and failing script of a rejected transaction: ckb-script reports which
/// script group failed ("Inputs[1].Lock") and its exit code.
pub fn failure(err: &str) -> (String, i8) {
    let source = err
        .split("source: ")
        .nth(1)
        .and_then(|s| s.split([' ', ',', ')']).next())
        .unwrap_or_else(|| panic!("no failing script in: {err}"))
        .to_string();
    (source, crate::exit_code(err))
}
