//! By-reference mode (docs/deploy.md) in ckb-script, for all three verifiers: 33-byte args
//! name an accumulator by its type script hash, the spender adds the accumulator as a cell
//! dep, and the lock verifies against the `root || mmr_size` in its data. Cell deps' type
//! scripts are not run, so here any cell carrying the type script stands in for the
//! accumulator (a type id type script with fixed args; on chain, the accumulator's own type
//! script keeps it unique and lets only appends through).

mod by_reference_tx;

use by_reference_tx::*;
use ckb_mmr_sdk::script::TYPE_ID_CODE_HASH;
use ckb_mmr_sdk::{Mode, Workload, REFERENCE_SEED};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder},
    packed::CellDep,
    prelude::*,
};
use mmr_lock::LockError;
use tests::owner::{failure, Chain, Owner};
use tests::{available_verifiers, Verifier, MAX_CYCLES};

const NOT_FOUND: i8 = LockError::AccumulatorNotFound.code();
const AMBIGUOUS: i8 = LockError::AccumulatorAmbiguous.code();
const DATA_LENGTH: i8 = LockError::AccumulatorDataLength.code();

/// 13 leaves; the proofs prove leaves 1 and 4, both inside the first peak (8 leaves), so a
/// proof of the 11-leaf prefix keeps its shape for the 13-leaf MMR (right of the first peak,
/// two peaks bagged into one item in both).
fn leaves() -> Vec<[u8; 32]> {
    (0..13u8).map(|i| [i.wrapping_mul(29) ^ 0x5a; 32]).collect()
}

fn workload(n: usize) -> Workload {
    Workload::from_leaves(&leaves()[..n], &[1, 4]).unwrap()
}

#[test]
fn honest_spend_accepted() {
    let w = workload(13);
    let acc = Dep::accumulator(w.accumulator_data());
    for v in available_verifiers() {
        let cycles = run_plain(v, &w, std::slice::from_ref(&acc))
            .unwrap_or_else(|code| panic!("{v:?}: honest by-reference spend rejected: {code}"));
        println!("{v:?}: by reference, 13 leaves: {cycles} cycles");
        // Wherever the accumulator sits among other deps, with or without type scripts.
        let untyped = Dep::untyped(w.accumulator_data());
        let typed = Dep::typed(type_script([0x33; 32], &[0xac; 32]), vec![1, 2, 3]);
        for deps in [
            vec![untyped.clone(), acc.clone()],
            vec![acc.clone(), typed.clone(), untyped.clone()],
            vec![typed, untyped, acc.clone()],
        ] {
            run_plain(v, &w, &deps)
                .unwrap_or_else(|code| panic!("{v:?}: rejected with other deps: {code}"));
        }
    }
}

#[test]
fn honest_owner_spend_accepted() {
    // Owner mode by reference (flags 0x03): the accumulator gives root and size, the owner's
    // signed input (CKB's real sighash_all) gives the binding, as in tests/tests/owner.rs.
    let owner = Owner::from_tag("by-reference owner");
    let mut leaves = leaves();
    leaves[4] = owner.lock_hash();
    let w = Workload::from_leaves(&leaves, &[1, 4]).unwrap();
    for v in available_verifiers() {
        let mut chain = Chain::new(v);
        let mmr_lock = chain.mmr_lock(&by_reference(Mode::Owner));
        let mmr_input = chain.cell(mmr_lock, 1_000 * 100_000_000);
        let owner_input = chain.cell(owner.lock(), 200 * 100_000_000);
        let acc = Dep::accumulator(w.accumulator_data()).add(&mut chain.context);
        let build = |with_owner: bool| {
            let mut tx = TransactionBuilder::default()
                .input(mmr_input.clone())
                .output(tests::output(owner.lock(), 1_000u64 * 100_000_000))
                .output_data(Bytes::new().pack())
                .cell_dep(acc.clone())
                .witness(mmr_witness(v, &w).pack());
            if with_owner {
                tx = tx.input(owner_input.clone());
            }
            tx
        };
        let tx = build(true);
        let tx = owner.sign(chain.complete(tx), &[1]);
        chain
            .verify(&tx)
            .unwrap_or_else(|e| panic!("{v:?}: honest owner spend by reference rejected: {e}"));
        // Without the owner's input: the proof verifies against the accumulator, then 80.
        let tx = chain.complete(build(false));
        let err = chain.verify(&tx).expect_err("no owner, accepted");
        assert_eq!(
            failure(&err),
            (
                "Inputs[0].Lock".to_string(),
                LockError::OwnerNotFound.code()
            ),
            "{v:?}"
        );
    }
}

/// Every verifier rejects with `code`.
fn assert_code(args: &[u8], w: &Workload, deps: &[Dep], code: i8, what: &str) {
    for v in available_verifiers() {
        assert_eq!(run(v, args, w, deps), Err(code), "{v:?}: {what}");
    }
}

/// [`assert_code`] with plain by-reference args.
fn assert_plain(w: &Workload, deps: &[Dep], code: i8, what: &str) {
    assert_code(&by_reference(Mode::Plain), w, deps, code, what);
}

/// [`run`] with plain by-reference args.
fn run_plain(v: Verifier, w: &Workload, deps: &[Dep]) -> Result<u64, i8> {
    run(v, &by_reference(Mode::Plain), w, deps)
}

#[test]
fn no_matching_dep_rejected() {
    let w = workload(13);
    // Only the verifier's code cell.
    assert_plain(&w, &[], NOT_FOUND, "no dep");
    assert_code(
        &by_reference(Mode::Owner),
        &w,
        &[],
        NOT_FOUND,
        "no dep, owner",
    );
    // The accumulator's data without its type script.
    let untyped = Dep::untyped(w.accumulator_data());
    assert_plain(&w, &[untyped], NOT_FOUND, "untyped");
}

#[test]
fn two_matching_deps_rejected() {
    let w = workload(13);
    let acc = Dep::accumulator(w.accumulator_data());
    let older = Dep::accumulator(workload(11).accumulator_data());
    for deps in [vec![acc.clone(), acc.clone()], vec![older, acc]] {
        assert_plain(&w, &deps, AMBIGUOUS, "two");
    }
}

#[test]
fn counterfeit_accumulator_rejected() {
    // The very data of the accumulator under another type script: other args of the same
    // code, or the same args under another code hash. Neither is the accumulator.
    let w = workload(13);
    let data = w.accumulator_data();
    let mut other_args = [0xac; 32];
    other_args[31] ^= 1;
    let counterfeits = [
        type_script(TYPE_ID_CODE_HASH, &other_args),
        type_script([0x42; 32], &[0xac; 32]),
        // The same code hash and args with hash_type data1: another script, another hash.
        accumulator_type()
            .as_builder()
            .hash_type(ScriptHashType::Data1)
            .build(),
    ];
    for fake in &counterfeits {
        assert_ne!(hash_of(fake), hash_of(&accumulator_type()));
        let dep = Dep::typed(fake.clone(), data.clone());
        assert_plain(&w, &[dep], NOT_FOUND, "counterfeit");
    }
    // A counterfeit next to the real accumulator is ignored: a proof of the counterfeit's
    // MMR fails against the real root, the honest proof passes.
    let forged = Workload::from_leaves(&[[0xee; 32]; 13], &[1, 4]).unwrap();
    let deps = [
        Dep::typed(counterfeits[0].clone(), forged.accumulator_data()),
        Dep::accumulator(data),
    ];
    assert_plain(
        &forged,
        &deps,
        LockError::RootMismatch.code(),
        "proof of the counterfeit",
    );
    for v in available_verifiers() {
        assert!(run_plain(v, &w, &deps).is_ok(), "{v:?}");
    }
}

#[test]
fn accumulator_data_of_wrong_length_rejected() {
    let w = workload(13);
    let data = w.accumulator_data();
    for bad in [
        data[..39].to_vec(),
        [&data[..], &[0]].concat(),
        Vec::new(),
        [&data[..], &data[..]].concat(),
    ] {
        let len = bad.len();
        assert_plain(
            &w,
            &[Dep::accumulator(bad)],
            DATA_LENGTH,
            &format!("{len} bytes"),
        );
    }
}

#[test]
fn accumulator_with_non_canonical_size_rejected() {
    let w = workload(13);
    for size in [0u64, 5, w.mmr_size + 1, (1 << 50) + 1, u64::MAX] {
        let mut data = w.accumulator_data();
        data[32..].copy_from_slice(&size.to_le_bytes());
        assert_plain(
            &w,
            &[Dep::accumulator(data)],
            LockError::MmrSizeInvalid.code(),
            &format!("size {size}"),
        );
    }
}

#[test]
fn proof_of_a_root_the_accumulator_has_left_rejected() {
    // Proved against the 11-leaf MMR; the accumulator has since grown to 13 leaves.
    let old = workload(11);
    let new = workload(13);
    let acc = [Dep::accumulator(new.accumulator_data())];
    for v in available_verifiers() {
        let (context, tx) = spend(v, &by_reference(Mode::Plain), mmr_witness(v, &old), &acc);
        let code = context
            .verify_tx(&tx, MAX_CYCLES)
            .map(|_| 0)
            .unwrap_or_else(|e| tests::exit_code(&e.to_string()));
        assert_eq!(code, LockError::RootMismatch.code(), "{v:?}");
        // The same proof against the old accumulator, and a fresh proof against the new one.
        let was = [Dep::accumulator(old.accumulator_data())];
        assert!(run_plain(v, &old, &was).is_ok());
        assert!(run_plain(v, &new, &acc).is_ok());
    }
}

#[test]
fn bad_flags_and_lengths_rejected() {
    let w = workload(13);
    let acc = [Dep::accumulator(w.accumulator_data())];
    let hash = hash_of(&accumulator_type());
    for flags in [0x00u8, 0x01, 0x04, 0x06, 0x07, 0x12, 0x82, 0xff] {
        let args = [&hash[..], &[flags]].concat();
        assert_code(
            &args,
            &w,
            &acc,
            LockError::ArgsEncoding.code(),
            &format!("{flags:#x}"),
        );
    }
    for args in [
        hash.to_vec(),
        [&hash[..], &[0x02, 0x00]].concat(),
        [&hash[..], &[0x02], &[0; 6]].concat(),
    ] {
        let len = args.len();
        assert_code(
            &args,
            &w,
            &acc,
            LockError::ArgsLength.code(),
            &format!("{len} bytes"),
        );
    }
    // By-reference flags in 41-byte args stay invalid there.
    for flags in [0x02u8, 0x03] {
        let args = [&w.lock_args()[..], &[flags]].concat();
        assert_code(&args, &w, &acc, LockError::ArgsEncoding.code(), "41 bytes");
    }
}

#[test]
fn plain_args_ignore_cell_deps() {
    // 40-byte args never look at cell deps: an accumulator holding another MMR changes
    // nothing.
    let w = workload(13);
    let other = Dep::accumulator(workload(11).accumulator_data());
    for v in available_verifiers() {
        let alone = run(v, &w.lock_args(), &w, &[]).unwrap();
        let with = run(v, &w.lock_args(), &w, std::slice::from_ref(&other)).unwrap();
        assert_eq!(alone, with, "{v:?}");
    }
}

/// docs/deploy.md's table of these is checked by tests/tests/doc_tables.rs.
#[test]
fn cycles_on_the_reference_seed() {
    for v in available_verifiers() {
        let c = reference_costs(v);
        let (plain, by_ref) = (c.plain, c.by_reference);
        println!(
            "{v:?}: plain {plain}, by reference {by_ref} (+{}; code cell + accumulator), \
             per extra dep: {} with a type script, {} without",
            by_ref - plain,
            c.per_typed_dep,
            c.per_untyped_dep,
        );
        // The target: at most 3,000 cycles more than plain mode with the two
        // cell deps a spend needs.
        assert!(by_ref > plain && by_ref - plain <= 3_000, "{v:?}");
    }
}

#[test]
fn mock_transaction_for_ckb_debugger() {
    // tx-generator's by-reference mock transaction (what `tx-generator --by-reference`
    // writes): ckb-debugger accepts every input with the cycles ckb-script measures here
    // for the same transaction shape.
    let w = Workload::from_seed(REFERENCE_SEED);
    let verifiers = available_verifiers();
    let acc_type = ckb_mmr_sdk::script::type_id([0xac; 32]);
    assert_eq!(
        ckb_mmr_sdk::script::hash(&acc_type),
        hash_of(&accumulator_type())
    );
    let cells = tests::mock_cells(&verifiers, &w, &by_reference(Mode::Plain));
    let deps = [ckb_mmr_sdk::tx::DepCell::accumulator(
        acc_type,
        w.accumulator_data(),
    )];
    let json = ckb_mmr_sdk::tx::mock_transaction_with_deps(&cells, &[], &deps);
    let (dir, file) = tests::write_tx_json("mmr-by-reference", &json);
    for (i, &v) in verifiers.iter().enumerate() {
        let dbg = ckb_mmr_sdk::debugger::run_lock(&file, i).unwrap();
        assert_eq!(dbg.result, 0, "{v:?}");
        // The same cell deps in ckb-script: every verifier's code cell (untyped there, as
        // here), then the accumulator.
        let code_cells: Vec<Dep> = verifiers
            .iter()
            .map(|&u| Dep::untyped(u.binary().to_vec()))
            .collect();
        let in_script = {
            // The plain spend's transaction (900 CKB out; the lock reads no output), its
            // deps chosen here.
            let (mut context, tx) = spend_builder(v, &by_reference(Mode::Plain));
            // ckb-testtool's own code cell has a type id; replace it by untyped copies.
            let mut deps: Vec<CellDep> = code_cells.iter().map(|d| d.add(&mut context)).collect();
            deps.push(Dep::accumulator(w.accumulator_data()).add(&mut context));
            let tx = tx
                .cell_deps(deps)
                .witness(mmr_witness(v, &w).pack())
                .build();
            context.verify_tx(&tx, MAX_CYCLES).unwrap()
        };
        assert_eq!(dbg.cycles, in_script, "{v:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
