//! Owner mode (docs/deploy.md) in ckb-script, for all three verifiers: the MMR cell unlocks
//! only next to an input whose lock hash is a proved leaf, and that input's lock (CKB's real
//! secp256k1_blake160_sighash_all, signed with a real key) is what makes a copied proof
//! useless: replayed with other outputs, the transaction fails at the owner's signature.

use ckb_mmr_sdk::{Mode, Workload};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{DepType, ScriptHashType, TransactionBuilder, TransactionView},
    packed::{CellDep, CellInput},
    prelude::*,
};
use mmr_lock::LockError;
use tests::owner::{failure, owner_costs, Chain, Owner, OwnerCosts};
use tests::{available_verifiers, mmr_witness, output, Verifier};

const OWNER_NOT_FOUND: i8 = LockError::OwnerNotFound.code();

/// 11 leaves with `owner` at index 4, proving indexes 1, 4 and 9.
fn workload(owner: [u8; 32]) -> Workload {
    let mut leaves: Vec<[u8; 32]> = (0..11u8).map(|i| [i.wrapping_mul(29) ^ 0x5a; 32]).collect();
    leaves[4] = owner;
    Workload::from_leaves(&leaves, &[1, 4, 9]).unwrap()
}

/// The MMR cell (lock args `args`, the proof of `w` in its witness) as the only input, paying
/// `to`: no owner input at all.
fn lone_mmr_spend(
    v: Verifier,
    args: &[u8],
    w: &Workload,
    to: ckb_testtool::ckb_types::packed::Script,
) -> (Chain, TransactionView) {
    let mut chain = Chain::new(v);
    let mmr_lock = chain.mmr_lock(args);
    let mmr_input = chain.cell(mmr_lock, 100);
    let tx = TransactionBuilder::default()
        .input(mmr_input)
        .output(output(to, 100))
        .output_data(Bytes::new().pack())
        .witness(mmr_witness(v, w).pack());
    let tx = chain.complete(tx);
    (chain, tx)
}

/// What an honest spend looks like: input 0 the MMR cell (owner-mode args, proof in witness
/// 0), input 1 the owner's cell (signature in witness 1), one output paying `to`.
struct Spend {
    chain: Chain,
    mmr_input: CellInput,
    owner_input: CellInput,
    witness: Bytes,
}

impl Spend {
    fn new(v: Verifier, owner: &Owner, w: &Workload) -> Spend {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
        let mmr_input = chain.cell(mmr_lock, 1_000 * 100_000_000);
        let owner_input = chain.cell(owner.lock(), 200 * 100_000_000);
        Spend {
            chain,
            mmr_input,
            owner_input,
            witness: mmr_witness(v, w),
        }
    }

    fn tx(&mut self, to: ckb_testtool::ckb_types::packed::Script) -> TransactionView {
        let tx = TransactionBuilder::default()
            .input(self.mmr_input.clone())
            .input(self.owner_input.clone())
            .output(output(to, 1_150 * 100_000_000))
            .output_data(Bytes::new().pack())
            .witness(self.witness.pack());
        self.chain.complete(tx)
    }

    /// The spend, back to the owner, signed by the owner (its cell is input 1).
    fn signed(&mut self, owner: &Owner) -> TransactionView {
        owner.sign(self.tx(owner.lock()), &[1])
    }

    /// The signed spend is rejected at the MMR cell's lock with `code`.
    fn assert_rejected(&mut self, owner: &Owner, code: i8, what: &str) {
        let tx = self.signed(owner);
        assert_rejected(&self.chain, &tx, code, what);
    }
}

#[test]
fn owner_present_accepted() {
    let owner = Owner::from_tag("owner A");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut s = Spend::new(v, &owner, &w);
        let tx = s.signed(&owner);
        let cycles = s
            .chain
            .verify(&tx)
            .unwrap_or_else(|e| panic!("{v:?}: honest owner spend rejected: {e}"));
        println!("{v:?}: MMR cell + signed owner input: {cycles} cycles in all");
    }
}

#[test]
fn owner_before_the_mmr_cell_and_among_others_accepted() {
    // Inputs in any order, unrelated inputs around: only "some input is an owner" matters.
    let owner = Owner::from_tag("owner A");
    let other = Owner::from_tag("someone else");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
        let other_input = chain.cell(other.lock(), 100);
        let owner_input = chain.cell(owner.lock(), 100);
        let mmr_input = chain.cell(mmr_lock, 100);
        let tx = TransactionBuilder::default()
            .input(other_input)
            .input(owner_input)
            .input(mmr_input)
            .output(output(owner.lock(), 100))
            .output_data(Bytes::new().pack())
            .witness(Bytes::new().pack())
            .witness(Bytes::new().pack())
            .witness(mmr_witness(v, &w).pack());
        let tx = chain.complete(tx);
        let tx = other.sign(owner.sign(tx, &[1]), &[0]);
        chain
            .verify(&tx)
            .unwrap_or_else(|e| panic!("{v:?}: rejected: {e}"));
    }
}

/// Every verifier rejects `tx` at the MMR cell's lock (input 0) with `code`.
fn assert_rejected(chain: &Chain, tx: &TransactionView, code: i8, what: &str) {
    let err = chain
        .verify(tx)
        .err()
        .unwrap_or_else(|| panic!("{:?}: {what}: accepted", chain.verifier));
    assert_eq!(
        failure(&err),
        ("Inputs[0].Lock".to_string(), code),
        "{:?}: {what}: {err}",
        chain.verifier
    );
}

#[test]
fn owner_absent_rejected() {
    let owner = Owner::from_tag("owner A");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let (chain, tx) = lone_mmr_spend(v, &w.lock_args_for(Mode::Owner), &w, owner.lock());
        assert_rejected(&chain, &tx, OWNER_NOT_FOUND, "no owner");
    }
}

#[test]
fn proved_leaf_without_matching_input_rejected() {
    // Someone else signs their own input: valid signature, but their lock is no proved leaf.
    let owner = Owner::from_tag("owner A");
    let thief = Owner::from_tag("thief");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
        let mmr_input = chain.cell(mmr_lock, 100);
        let thief_input = chain.cell(thief.lock(), 100);
        let tx = TransactionBuilder::default()
            .input(mmr_input)
            .input(thief_input)
            .output(output(thief.lock(), 200))
            .output_data(Bytes::new().pack())
            .witness(mmr_witness(v, &w).pack());
        let tx = thief.sign(chain.complete(tx), &[1]);
        assert_rejected(&chain, &tx, OWNER_NOT_FOUND, "thief");
    }
}

#[test]
fn owner_in_mmr_but_not_proved_rejected() {
    // The owner's hash is a leaf of the MMR, but the proof proves other leaves.
    let owner = Owner::from_tag("owner A");
    let mut leaves: Vec<[u8; 32]> = (0..11u8).map(|i| [i; 32]).collect();
    leaves[4] = owner.lock_hash();
    let w = Workload::from_leaves(&leaves, &[1, 9]).unwrap();
    for v in available_verifiers() {
        let mut s = Spend::new(v, &owner, &w);
        s.assert_rejected(&owner, OWNER_NOT_FOUND, "not proved");
    }
}

#[test]
fn owner_only_in_outputs_or_cell_deps_rejected() {
    let owner = Owner::from_tag("owner A");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
        let mmr_input = chain.cell(mmr_lock.clone(), 100);
        // The owner's live cell, referenced as a cell dep, never spent.
        let owner_cell = chain.cell(owner.lock(), 100).previous_output();
        let tx = TransactionBuilder::default()
            .input(mmr_input)
            .output(output(owner.lock(), 100))
            .output(output(owner.lock(), 100))
            .output_data(Bytes::new().pack())
            .output_data(Bytes::new().pack())
            .cell_dep(
                CellDep::new_builder()
                    .out_point(owner_cell)
                    .dep_type(DepType::Code)
                    .build(),
            )
            .witness(mmr_witness(v, &w).pack());
        let tx = chain.complete(tx);
        assert_eq!(tx.outputs().get(0).unwrap().lock(), owner.lock());
        assert_rejected(
            &chain,
            &tx,
            OWNER_NOT_FOUND,
            "owner in outputs and cell deps only",
        );
    }
}

#[test]
fn replayed_proof_fails_at_the_owners_lock() {
    let owner = Owner::from_tag("owner A");
    let thief = Owner::from_tag("thief");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut s = Spend::new(v, &owner, &w);
        let honest = s.signed(&owner);
        s.chain.verify(&honest).expect("the honest spend");
        // Everything the mempool saw, outputs redirected to the thief.
        let replay = honest
            .as_advanced_builder()
            .set_outputs(vec![output(thief.lock(), 1_150 * 100_000_000)])
            .build();
        // -31 is sighash_all's ERROR_PUBKEY_BLAKE160_HASH: the owner's signature does not
        // recover the owner's key for the new transaction hash. The MMR lock (input 0) has
        // nothing against the replay: its proof and its owner input are both still there.
        let err = s.chain.verify(&replay).expect_err("replay accepted");
        assert_eq!(
            failure(&err),
            ("Inputs[1].Lock".to_string(), -31),
            "{v:?}: replay must fail at the owner: {err}"
        );
        // The thief's own signature over the new outputs does not help: it is not the key.
        let resigned = thief.sign(replay, &[1]);
        let (at, _) = failure(&s.chain.verify(&resigned).unwrap_err());
        assert_eq!(at, "Inputs[1].Lock", "{v:?}");
        // Dropping the owner's input leaves the MMR lock without an owner.
        let (chain, tx) = lone_mmr_spend(v, &w.lock_args_for(Mode::Owner), &w, thief.lock());
        assert_rejected(&chain, &tx, OWNER_NOT_FOUND, "no owner");
    }
}

#[test]
fn proof_checked_before_owner() {
    // No owner and a broken proof: the proof's code, the same in all verifiers' order.
    let owner = Owner::from_tag("owner A");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        let mut bad = w.clone();
        bad.root[0] ^= 1;
        let (chain, tx) = lone_mmr_spend(v, &bad.lock_args_for(Mode::Owner), &w, owner.lock());
        assert_rejected(&chain, &tx, LockError::RootMismatch.code(), "root mismatch");
        // With the owner present, the proof still decides first.
        let mut s = Spend::new(v, &owner, &bad);
        s.witness = mmr_witness(v, &w);
        s.assert_rejected(
            &owner,
            LockError::RootMismatch.code(),
            "root mismatch, owner present",
        );
    }
}

#[test]
fn args_flags_and_lengths() {
    let owner = Owner::from_tag("owner A");
    let w = workload(owner.lock_hash());
    for v in available_verifiers() {
        // The 40-byte args with these flags (and length) in place of owner mode's 0x01.
        for (flags, code) in [
            (&[0x00][..], LockError::ArgsEncoding),
            (&[0x02], LockError::ArgsEncoding),
            (&[0x81], LockError::ArgsEncoding),
            (&[0x01, 0x00], LockError::ArgsLength),
        ] {
            let mut chain = Chain::new(v);
            let mmr_lock = chain.mmr_lock(&[&w.lock_args()[..], flags].concat());
            let mmr_input = chain.cell(mmr_lock, 100);
            let owner_input = chain.cell(owner.lock(), 100);
            let tx = TransactionBuilder::default()
                .input(mmr_input)
                .input(owner_input)
                .output(output(owner.lock(), 200))
                .output_data(Bytes::new().pack())
                .witness(mmr_witness(v, &w).pack());
            let tx = owner.sign(chain.complete(tx), &[1]);
            assert_rejected(&chain, &tx, code.code(), "args");
        }
    }
}

#[test]
fn sdk_owner_lock_hash_is_what_the_lock_sees() {
    // The SDK names an owner by `script::hash` of its lock; the verifiers compare proved
    // leaves with the lock hash `load_cell_by_field` gives for each input. The owner's cell
    // here is locked by the test's own Script (tests/src/owner.rs), built apart from the SDK.
    let owner = Owner::from_tag("owner A");
    let named = ckb_mmr_sdk::script::hash(&owner.script());
    let w = workload(named);
    for v in available_verifiers() {
        let mut s = Spend::new(v, &owner, &w);
        let tx = s.signed(&owner);
        s.chain
            .verify(&tx)
            .unwrap_or_else(|e| panic!("{v:?}: the owner the SDK named was not found: {e}"));
    }
    // The same key under another hash type is another lock: its hash names no input here.
    let other = ckb_mmr_sdk::script::new(
        ckb_mmr_sdk::script::SECP256K1_BLAKE160_CODE_HASH,
        ScriptHashType::Data1,
        &owner.blake160,
    );
    let w = workload(ckb_mmr_sdk::script::hash(&other));
    for v in available_verifiers() {
        let mut s = Spend::new(v, &owner, &w);
        s.assert_rejected(&owner, OWNER_NOT_FOUND, "other lock");
    }
}

#[test]
fn owner_mode_cycles_on_the_reference_seed() {
    for v in available_verifiers() {
        // The owner as the first proved leaf, then (the scan's worst case) as the last.
        let OwnerCosts {
            plain,
            owner,
            owner_last,
        } = owner_costs(v);
        println!(
            "{v:?}: plain {plain}, owner mode {owner} (+{}), owner as last proved leaf {owner_last} (+{})",
            owner as i64 - plain as i64,
            owner_last as i64 - plain as i64,
        );
        assert!(owner > plain && owner < plain + 10_000);
    }
}

/// The example owner of docs/examples (a public key: never fund it).
const EXAMPLE_OWNER: &str = "ckb-mmr-verifiers example owner (public key, never fund it)";

fn example_path() -> std::path::PathBuf {
    tests::repo_root().join("docs/examples/owner-tx.json")
}

fn example() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(example_path()).unwrap()).unwrap()
}

fn unhex(v: &serde_json::Value) -> Vec<u8> {
    ckb_mmr_sdk::parse_hex(v.as_str().unwrap()).unwrap()
}

#[test]
fn example_transaction_accepted_by_ckb_debugger() {
    let run = ckb_mmr_sdk::debugger::run_lock(&example_path(), 0).unwrap();
    assert_eq!(run.result, 0);
}

#[test]
fn example_transaction_accepted_when_signed() {
    // docs/examples/owner-tx.json's args and witness with today's binaries, the example
    // owner's input really signed, every script run (the owner's sighash_all included).
    let json = example();
    let owner = Owner::from_tag(EXAMPLE_OWNER);
    let owner_lock = &json["tx"]["outputs"][1]["lock"];
    assert_eq!(unhex(&owner_lock["args"]), owner.blake160);
    assert_eq!(
        unhex(&owner_lock["code_hash"]),
        ckb_mmr_sdk::script::SECP256K1_BLAKE160_CODE_HASH
    );
    let args = unhex(&json["mock_info"]["inputs"][0]["output"]["lock"]["args"]);
    assert_eq!(args.len(), 41);
    let witness = unhex(&json["tx"]["witnesses"][0]);
    for v in [Verifier::C, Verifier::Compiled] {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&args);
        let mmr_input = chain.cell(mmr_lock.clone(), 100);
        let owner_input = chain.cell(owner.lock(), 100);
        let tx = TransactionBuilder::default()
            .input(mmr_input)
            .input(owner_input)
            .output(output(mmr_lock, 100))
            .output(output(owner.lock(), 100))
            .output_data(Bytes::new().pack())
            .output_data(Bytes::new().pack())
            .witness(Bytes::from(witness.clone()).pack());
        let tx = owner.sign(chain.complete(tx), &[1]);
        chain
            .verify(&tx)
            .unwrap_or_else(|e| panic!("{v:?}: the signed example rejected: {e}"));
    }
}
