//! The ring's exhaustive search (docs/concurrency-design.md section 3, "The exhaustive
//! search", item 2) in CKB-VM, on the release binary `build/release/accumulator-type`.
//!
//! The candidates are the host search's (`assurance::ring_search`, its generator unchanged):
//! for K in {2, 3, 4}, every history from a `CREATE` or an `IMPORT` through every sequence of
//! `APPEND`/`EXTEND` steps up to N leaves, a whole-ring `KEEP` hand-over before each step, and
//! at every state the honest transitions and every mutation class. Each candidate runs through
//! the core (`ring::ring_k` and `ring::verify_ring`), the model, and here the binary in
//! ckb-script too (one ckb-testtool context per worker thread, the binary deployed once in
//! each; the runs per second are printed). The VM's code must equal the core's (and so the
//! model's, which the search compares with the core); the VM's acceptances are the ones held
//! against the truth, by the host search's post-state check.
//!
//! The contract's own parts, which the core does not have, are supplied honestly so the codes
//! are comparable: a creation's args carry the type id over the head's output index (rule 2),
//! and the payload is the `WitnessArgs` field at the head's group index. A creation-shaped
//! candidate on a live ring runs as a fresh creation (the chain refuses it by its type id,
//! which tests/tests/acc_ring_vm.rs runs).
//!
//! `every_ring_candidate_to_5_leaves_in_ckb_vm` is the test suite's size; the fuller run is
//! `RING_VM_LEAVES=8 cargo test --release -p tests --test acc_ring_vm_exhaustive -- --ignored
//! --nocapture` (docs/assurance.md records one).

use assurance::ring_model::Cell;
use assurance::ring_search::{run_on, Case, Config, Stats, Subject};
use assurance::Outcome;
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::TransactionBuilder,
    packed::{CellInput, OutPoint, Script},
    prelude::*,
};
use mmr_accumulator::ring::{self, RingCell};
use std::collections::HashMap;
use std::time::Instant;
use tests::accumulator::{type_id, witness, AccumulatorChain};

/// The test suite's history length (leaves).
const SUITE_LEAVES: u64 = 5;
/// Candidates of the search at [`SUITE_LEAVES`], so that it cannot shrink unnoticed.
const SUITE_CANDIDATES: u64 = 120_698;

/// The release binary in CKB-VM: every ring cell under an always-success lock whose args are
/// the search's lock id (equal ids, one lock hash; distinct ids, distinct hashes).
struct Vm {
    chain: AccumulatorChain,
    /// The type script with empty args; each run's has its args.
    template: Script,
    locks: HashMap<[u8; 32], Script>,
    /// Cells created for the current run, removed after it (the context would grow by
    /// millions of cells in the fuller run).
    created: Vec<OutPoint>,
}

impl Vm {
    fn new() -> Vm {
        let mut chain = AccumulatorChain::new();
        // The type script built once: building each run's through the context would hash the
        // binary every time.
        let template = chain.type_script(&[]);
        Vm {
            chain,
            template,
            locks: HashMap::new(),
            created: Vec::new(),
        }
    }

    fn lock(&mut self, id: &[u8; 32]) -> Script {
        let always = &self.chain.lock;
        self.locks
            .entry(*id)
            .or_insert_with(|| tests::with_args(always, id))
            .clone()
    }

    fn type_script(&self, args: &[u8]) -> Script {
        tests::with_args(&self.template, args)
    }

    /// A live cell under the ring's type script.
    fn cell(&mut self, t: &Script, c: &Cell) -> OutPoint {
        let lock = self.lock(&c.lock);
        let out = self.chain.output(Some(t)).as_builder().lock(lock).build();
        let p = self
            .chain
            .context
            .create_cell(out, Bytes::copy_from_slice(&c.data));
        self.created.push(p.clone());
        p
    }

    fn transaction(&mut self, case: &Case) -> TransactionBuilder {
        let creation = case.inputs.is_empty();
        let mut tx = TransactionBuilder::default();
        let side = if creation { case.outputs } else { case.inputs };
        let cells: Vec<RingCell> = side
            .iter()
            .map(|c| RingCell {
                data: &c.data,
                lock_hash: &c.lock,
            })
            .collect();
        // The head's group index: its witness holds the payload (and at a creation the type
        // id is over its output index). Without a head the rules refuse before either is read.
        let head = ring::head_candidate(case.k, &cells).unwrap_or(0);
        let args = if creation {
            let plain = self.chain.plain_cell();
            self.created.push(plain.clone());
            let input = CellInput::new_builder().previous_output(plain).build();
            tx = tx.input(input.clone());
            if case.honest_args {
                let mut args = type_id(&input, head as u64).to_vec();
                args.push(case.k);
                args
            } else {
                case.args.to_vec()
            }
        } else {
            case.args.to_vec()
        };
        let t = self.type_script(&args);
        for c in case.inputs {
            let p = self.cell(&t, c);
            tx = tx.input(CellInput::new_builder().previous_output(p).build());
        }
        for c in case.outputs {
            let lock = self.lock(&c.lock);
            let out = self.chain.output(Some(&t)).as_builder().lock(lock).build();
            tx = tx
                .output(out)
                .output_data(Bytes::copy_from_slice(&c.data).pack());
        }
        let count = case.inputs.len().max(case.outputs.len()).max(head + 1);
        for i in 0..count {
            let w = match (i == head, creation) {
                (false, _) => Bytes::new(),
                (true, true) => witness(None, Some(case.payload)),
                (true, false) => witness(Some(case.payload), None),
            };
            tx = tx.witness(w.pack());
        }
        tx
    }
}

impl Subject for Vm {
    fn name(&self) -> String {
        "accumulator-type in CKB-VM".into()
    }

    fn code(&mut self, case: &Case) -> i8 {
        let tx = self.transaction(case);
        let got = self.chain.run(tx);
        for p in self.created.drain(..) {
            self.chain.context.cells.remove(&p);
        }
        got.code().unwrap_or(0)
    }
}

fn search(leaves: u64) -> (Stats, f64) {
    let cfg = Config {
        ks: vec![2, 3, 4],
        max_leaves: leaves,
        threads: 2,
    };
    let start = Instant::now();
    let st = run_on(&cfg, &Vm::new);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "ring search in CKB-VM, K in {{2, 3, 4}}, 1-{leaves} leaves: {} VM runs in {secs:.1} s, \
         {:.0} runs/s (2 threads)\n{}",
        st.subject_runs,
        st.subject_runs as f64 / secs,
        st.report()
    );
    (st, secs)
}

fn check(st: &Stats) {
    assert_eq!(st.problems(), 0, "{}", st.report());
    // Every candidate ran in the VM, and the search reached acceptances and every ring code.
    assert_eq!(st.subject_runs, st.candidates, "{}", st.report());
    assert!(
        st.honest > 0 && st.accepted > st.honest / 2,
        "{}",
        st.report()
    );
    for c in -106..=-100i8 {
        assert!(st.codes.contains_key(&c), "code {c} never reached");
    }
}

#[test]
fn every_ring_candidate_to_5_leaves_in_ckb_vm() {
    let (st, _) = search(SUITE_LEAVES);
    check(&st);
    assert_eq!(st.candidates, SUITE_CANDIDATES, "{}", st.report());
}

/// The fuller run: `RING_VM_LEAVES` leaves (default 6).
#[test]
#[ignore]
fn every_ring_candidate_fuller_in_ckb_vm() {
    let leaves = std::env::var("RING_VM_LEAVES")
        .ok()
        .map(|v| v.parse().expect("RING_VM_LEAVES: a leaf count"))
        .unwrap_or(6);
    let (st, _) = search(leaves);
    check(&st);
}

/// The binary with its -103 and -106 refusals turned into acceptances (a subject without the
/// oldest check and the lock check): the hook must report the disagreements and the search
/// the unsound rings those acceptances leave.
struct WithoutOldestAndLockChecks(Vm);

impl Subject for WithoutOldestAndLockChecks {
    fn name(&self) -> String {
        "accumulator-type, -103 and -106 ignored".into()
    }

    fn code(&mut self, case: &Case) -> i8 {
        match self.0.code(case) {
            -103 | -106 => 0,
            c => c,
        }
    }
}

#[test]
fn negative_control_a_binary_without_the_oldest_and_lock_checks_is_caught() {
    let cfg = Config {
        ks: vec![2, 3],
        max_leaves: 3,
        threads: 2,
    };
    let st = run_on(&cfg, &|| WithoutOldestAndLockChecks(Vm::new()));
    println!("{}", st.report());
    assert!(st.subject_disagreements > 0, "{}", st.report());
    assert!(st.bad_multiset > 0 && st.bad_lock > 0, "{}", st.report());
    assert_eq!(st.honest_rejected, 0, "{}", st.report());
}
