//! The by-reference spends of tests/tests/by_reference.rs, shared with doc_tables.rs (which
//! checks docs/deploy.md's by-reference cost table against `reference_costs`): one MMR cell
//! locked by a release verifier with by-reference args, the accumulator (and any other cell)
//! as a cell dep, in ckb-script (ckb-testtool).

use ckb_mmr_sdk::{by_reference_args, Mode, Workload, REFERENCE_SEED};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder, TransactionView},
    packed::CellInput,
    prelude::*,
};
use ckb_testtool::context::Context;
use tests::{Verifier, MAX_CYCLES};

pub use tests::{accumulator_type, hash_of, mmr_witness, type_script, Dep};

/// A fresh context with `v`'s code cell, one MMR cell (1,000 CKB) locked by `v` with `args`,
/// and a transaction spending it into one 900 CKB output under the same lock, no witness and
/// no cell deps yet.
///
/// The context has ckb-testtool's deterministic rng: `deploy_cell` then derives the code
/// cell's type id args (and out point) from the binary's data hash instead of drawing them at
/// random. The lock compares every typed dep's type hash with the args' one byte first
/// (`mmr_lock::reference`), so a random code cell type hash whose first byte was the
/// accumulator's (0x26), one run in 256, cost 19 cycles more (7 in C) and made the
/// per-dep costs below flaky. Today's binaries' code cells hash to 0x0e.., 0xb0.., 0x22..
/// (baseline, C, compiled); a rebuild landing on 0x26.. would add those cycles to
/// `by_reference`. `create_cell` still draws random out points (ckb-testtool 1.1.1, in this
/// mode too): the lock reads none, and fixed ones give the same cycles.
pub fn spend_builder(v: Verifier, args: &[u8]) -> (Context, TransactionBuilder) {
    let mut context = Context::new_with_deterministic_rng();
    let code = context.deploy_cell(v.binary());
    let lock = context
        .build_script_with_hash_type(&code, ScriptHashType::Data2, Bytes::copy_from_slice(args))
        .unwrap();
    let input = context.create_cell(
        tests::output(lock.clone(), 1_000u64 * 100_000_000),
        Bytes::new(),
    );
    let tx = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(input).build())
        .output(tests::output(lock, 900u64 * 100_000_000))
        .output_data(Bytes::new().pack());
    (context, tx)
}

/// One MMR cell locked by `v` with `args` ([`spend_builder`]), `witness` at its input; cell
/// deps: `deps` first, then the verifier's code cell (added by ckb-testtool, which deploys it
/// under a type id of its own).
pub fn spend(v: Verifier, args: &[u8], witness: Bytes, deps: &[Dep]) -> (Context, TransactionView) {
    let (mut context, mut tx) = spend_builder(v, args);
    tx = tx.witness(witness.pack());
    for dep in deps {
        tx = tx.cell_dep(dep.add(&mut context));
    }
    let tx = context.complete_tx(tx.build());
    (context, tx)
}

/// Cycles, or the exit code of the failing script (the MMR lock is the only script run).
pub fn run(v: Verifier, args: &[u8], w: &Workload, deps: &[Dep]) -> Result<u64, i8> {
    let (context, tx) = spend(v, args, mmr_witness(v, w), deps);
    context
        .verify_tx(&tx, MAX_CYCLES)
        .map_err(|e| tests::exit_code(&e.to_string()))
}

pub fn by_reference(mode: Mode) -> Vec<u8> {
    by_reference_args(&hash_of(&accumulator_type()), mode)
}

/// Cycles of a plain spend and of by-reference spends of `w` with the verifier's code cell
/// plus the accumulator, and with `extra` more deps.
fn reference_cycles(v: Verifier, w: &Workload, extra: &[Dep]) -> (u64, u64) {
    let plain = run(v, &w.lock_args(), w, &[]).unwrap();
    let mut deps = vec![Dep::accumulator(w.accumulator_data())];
    deps.extend_from_slice(extra);
    let by_ref = run(v, &by_reference(Mode::Plain), w, &deps).unwrap();
    (plain, by_ref)
}

/// What by-reference mode costs one verifier on the reference seed.
pub struct ReferenceCosts {
    /// The MMR lock in plain mode (40-byte args, no dep read).
    pub plain: u64,
    /// By reference, with the two deps a spend needs: the code cell and the accumulator.
    pub by_reference: u64,
    /// Each further cell dep the lock looks past: with a type script, without (four cost
    /// exactly four times one, asserted).
    pub per_typed_dep: u64,
    pub per_untyped_dep: u64,
}

pub fn reference_costs(v: Verifier) -> ReferenceCosts {
    let w = Workload::from_seed(REFERENCE_SEED);
    assert_eq!((w.leaf_count, w.proved.len(), w.mmr_size), (2520, 76, 5034));
    let untyped = Dep::untyped(vec![0; 100]);
    let typed = Dep::typed(type_script([0x33; 32], &[1]), vec![0; 100]);
    let (plain, by_ref) = reference_cycles(v, &w, &[]);
    let per_dep = |dep: &Dep| -> u64 {
        let (_, one) = reference_cycles(v, &w, std::slice::from_ref(dep));
        let (_, four) = reference_cycles(v, &w, &vec![dep.clone(); 4]);
        // Exact since the code cell's type hash is no longer random (`spend_builder`).
        assert_eq!(
            four - by_ref,
            4 * (one - by_ref),
            "{v:?}: four deps {:?} cost {} cycles, one {}",
            dep.type_.as_ref().map(hash_of),
            four - by_ref,
            one - by_ref
        );
        one - by_ref
    };
    ReferenceCosts {
        plain,
        by_reference: by_ref,
        per_typed_dep: per_dep(&typed),
        per_untyped_dep: per_dep(&untyped),
    }
}
