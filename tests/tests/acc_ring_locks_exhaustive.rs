//! The by-reference locks over every ring state (docs/concurrency-design.md section 3, "The
//! exhaustive search", item 4), differentially across the three release verifiers
//! (`build/release/baseline-verifier`, `compiled-verifier`, `c-verifier`) in ckb-script.
//!
//! For K in {2, 3}: every ring state a history reaches up to [`LEAVES`] leaves (a creation of
//! each prefix, then every sequence of steps; `APPEND` and `EXTEND` leave the same cells, so
//! a state is its sequence of leaf counts; the cells are built by the core's builders, whose
//! transitions tests/tests/acc_ring_vm_exhaustive.rs runs through the type script). At each:
//!
//! - every live snapshot as the one dep, with every claim of 1-3 leaves of every prefix state:
//!   proved against the snapshot's own state, accepted by all three; against any other state,
//!   refused, compiled and C with one code, baseline's allowed to differ only by a structural
//!   code of its format coming before the root check (the pairs are printed);
//! - the head as the dep (92), every two ring cells as deps (91), a snapshot's data under a
//!   type script with K changed or one type-id byte changed (90).
//!
//! "Accepted against a root the accumulator never had" counts every acceptance but a proof
//! against its own snapshot: it must be 0. A spend's verdict is a function of its
//! transaction, which is the dep's data and type script and the proof (the rest of the ring
//! is not in it): identical spends are run once per verifier and counted at every state.

use ckb_mmr_sdk::{by_reference_args, Mode, Workload};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{DepType, ScriptHashType, TransactionBuilder},
    packed::{CellDep, CellInput, CellOutput, OutPoint, Script},
    prelude::*,
};
use ckb_testtool::context::Context;
use mmr_accumulator::build;
use mmr_accumulator::ring::build as rb;
use mmr_lock::LockError;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;
use tests::accumulator::{binary, leaves, Host};
use tests::{available_verifiers, hash_of, mmr_witness, Verifier, MAX_CYCLES};

/// Histories grow to this many leaves (`RING_LOCKS_LEAVES` overrides it for a fuller run).
const LEAVES: u64 = 10;

/// One verifier's context, its code deployed once.
struct Spender {
    context: Context,
    lock: Script,
    created: Vec<OutPoint>,
}

impl Spender {
    fn new(v: Verifier, args: &[u8]) -> Spender {
        let mut context = Context::new_with_deterministic_rng();
        let code = context.deploy_cell(v.binary());
        let lock = context
            .build_script_with_hash_type(&code, ScriptHashType::Data2, Bytes::copy_from_slice(args))
            .unwrap();
        Spender {
            context,
            lock,
            created: Vec::new(),
        }
    }

    fn create(&mut self, out: CellOutput, data: &[u8]) -> OutPoint {
        let p = self.context.create_cell(out, Bytes::copy_from_slice(data));
        self.created.push(p.clone());
        p
    }

    /// One MMR cell under the lock spent, `witness` at its input, `deps` (type, data) first.
    fn spend(&mut self, witness: &Bytes, deps: &[(&Script, &[u8])]) -> Result<(), i8> {
        let cell = |lock: Script, type_: Option<&Script>, ckb: u64| {
            CellOutput::new_builder()
                .capacity(ckb * 100_000_000)
                .lock(lock)
                .type_(type_.cloned().pack())
                .build()
        };
        let input = self.create(cell(self.lock.clone(), None, 1_000), &[]);
        let mut tx = TransactionBuilder::default()
            .input(CellInput::new_builder().previous_output(input).build())
            .output(cell(self.lock.clone(), None, 900))
            .output_data(Bytes::new().pack())
            .witness(witness.pack());
        for (type_, data) in deps {
            let p = self.create(cell(Script::default(), Some(type_), 1_000), data);
            tx = tx.cell_dep(
                CellDep::new_builder()
                    .out_point(p)
                    .dep_type(DepType::Code)
                    .build(),
            );
        }
        let tx = self.context.complete_tx(tx.build());
        let got = self
            .context
            .verify_tx(&tx, MAX_CYCLES)
            .map(|_| ())
            .map_err(|e| tests::exit_code(&e.to_string()));
        for p in self.created.drain(..) {
            self.context.cells.remove(&p);
        }
        got
    }
}

/// The accumulator type script with these args (never run here: a dep's type is only hashed).
fn ring_type(args: &[u8]) -> Script {
    Script::new_builder()
        .code_hash(CellOutput::calc_data_hash(&binary()))
        .hash_type(ScriptHashType::Data2)
        .args(Bytes::copy_from_slice(args).pack())
        .build()
}

/// Every claim (sorted leaf indexes) of 1-3 leaves of `n`.
fn claims(n: u64) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for a in 0..n {
        out.push(vec![a]);
        for b in a + 1..n {
            out.push(vec![a, b]);
            for c in b + 1..n {
                out.push(vec![a, b, c]);
            }
        }
    }
    out
}

/// Every ring state of K reached from a creation of 1..=`max` leaves through every sequence
/// of steps: the head's data and the K snapshots'.
fn ring_states(k: u8, all: &[[u8; 32]], max: u64) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
    fn walk(
        all: &[[u8; 32]],
        max: u64,
        n: u64,
        ring: (Vec<u8>, Vec<Vec<u8>>),
        out: &mut Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    ) {
        out.push(ring.clone());
        for m in n + 1..=max {
            let new = build::commitment::<Host>(&all[..m as usize]).unwrap();
            let (oldest, head, snap) = rb::step_data(&ring.0, &new).unwrap();
            let mut snaps = ring.1.clone();
            let at = snaps
                .iter()
                .position(|s| s[32..40] == oldest.to_le_bytes())
                .expect("the oldest snapshot is live");
            snaps.remove(at);
            snaps.push(snap);
            walk(all, max, m, (head, snaps), out);
        }
    }
    let mut out = Vec::new();
    for n0 in 1..=max {
        let c = build::commitment::<Host>(&all[..n0 as usize]).unwrap();
        let cells = rb::creation_data(k, &c);
        let ring = (cells[0].clone(), cells[1..].to_vec());
        walk(all, max, n0, ring, &mut out);
    }
    out
}

#[derive(Default, Debug)]
struct Count {
    ring_states: u64,
    /// Spends checked (each counted at every ring state where it arises, per verifier).
    checks: u64,
    /// Distinct spends run in the VM.
    vm_runs: u64,
    own_accepted: u64,
    other_refused: u64,
    head: u64,
    two_cells: u64,
    foreign_type: u64,
    /// Must be 0.
    accepted_never_had: u64,
    /// (baseline, compiled = C) codes refusing a proof against another state.
    pairs: BTreeMap<(i8, i8), u64>,
}

#[test]
fn locks_over_every_ring_state_three_verifiers() {
    let start = Instant::now();
    let max = std::env::var("RING_LOCKS_LEAVES")
        .ok()
        .map(|v| v.parse().expect("RING_LOCKS_LEAVES: a leaf count"))
        .unwrap_or(LEAVES);
    let all = leaves(max);
    let verifiers = available_verifiers();
    // Every prefix state's claims and each verifier's witness for them.
    let mut proofs: Vec<(u64, [u8; 40], Vec<Vec<Bytes>>)> = Vec::new();
    for n in 1..=max {
        let mut ws = Vec::new();
        let mut data = [0u8; 40];
        for claim in claims(n) {
            let w = Workload::from_leaves(&all[..n as usize], &claim).unwrap();
            data.copy_from_slice(&w.accumulator_data());
            ws.push(verifiers.iter().map(|&v| mmr_witness(v, &w)).collect());
        }
        proofs.push((n, data, ws));
    }
    let mut c = Count::default();
    for k in [2u8, 3] {
        let mut id = vec![0x5a; 32];
        id.push(k);
        let ring = ring_type(&id);
        let lock_args = by_reference_args(&hash_of(&ring), Mode::Plain);
        let foreign: Vec<Script> = [(32, k + 1), (32, k - 1), (0, id[0] ^ 1), (31, id[31] ^ 1)]
            .iter()
            .map(|&(at, b)| {
                let mut a = id.clone();
                a[at] = b;
                ring_type(&a)
            })
            .collect();
        let mut spenders: Vec<Spender> = verifiers
            .iter()
            .map(|&v| Spender::new(v, &lock_args))
            .collect();
        // (deps' (type index: 0 the ring's, 1.. foreign), data), proof (state, claim)) ->
        // each verifier's verdict.
        type Key = (Vec<(usize, Vec<u8>)>, usize, usize);
        let mut memo: HashMap<Key, Vec<Result<(), i8>>> = HashMap::new();
        let mut verdicts = |deps: Vec<(usize, Vec<u8>)>, p: usize, claim: usize, c: &mut Count| {
            c.checks += verifiers.len() as u64;
            memo.entry((deps.clone(), p, claim))
                .or_insert_with(|| {
                    c.vm_runs += verifiers.len() as u64;
                    spenders
                        .iter_mut()
                        .enumerate()
                        .map(|(i, s)| {
                            let d: Vec<(&Script, &[u8])> = deps
                                .iter()
                                .map(|(t, data)| {
                                    let t = if *t == 0 { &ring } else { &foreign[t - 1] };
                                    (t, &data[..])
                                })
                                .collect();
                            s.spend(&proofs[p].2[claim][i], &d)
                        })
                        .collect()
                })
                .clone()
        };
        for (head, snaps) in ring_states(k, &all, max) {
            c.ring_states += 1;
            for snap in &snaps {
                for (p, (n, data, ws)) in proofs.iter().enumerate() {
                    let own = snap[..] == data[..];
                    for claim in 0..ws.len() {
                        let got = verdicts(vec![(0, snap.clone())], p, claim, &mut c);
                        let what = format!("K {k}: {n} leaves, claim {claim}, dep {snap:02x?}");
                        if own {
                            assert!(got.iter().all(Result::is_ok), "{what}: {got:?}");
                            c.own_accepted += got.len() as u64;
                            continue;
                        }
                        c.accepted_never_had += got.iter().filter(|r| r.is_ok()).count() as u64;
                        let codes: Vec<i8> = got.iter().map(|r| r.err().unwrap_or(0)).collect();
                        // available_verifiers: baseline, C, compiled.
                        let (b, cc, comp) = (codes[0], codes[1], codes[2]);
                        assert_eq!(cc, comp, "{what}: C and compiled");
                        // Baseline differs only by refusing earlier, structurally: never by
                        // the root check where the compiled format passes it.
                        let nine = LockError::RootMismatch.code();
                        assert!(b == comp || (b != nine && b != 0), "{what}: {codes:?}");
                        *c.pairs.entry((b, comp)).or_default() += 1;
                        c.other_refused += got.len() as u64;
                    }
                }
            }
            let p = (max - 1) as usize;
            let mut cells = vec![head.clone()];
            cells.extend(snaps.iter().cloned());
            // Every verifier refuses with `e`; an acceptance is counted before the assertion.
            let expect = |got: Vec<Result<(), i8>>, e: LockError, c: &mut Count| {
                c.accepted_never_had += got.iter().filter(|r| r.is_ok()).count() as u64;
                assert!(got.iter().all(|r| *r == Err(e.code())), "{e:?}: {got:?}");
                got.len() as u64
            };
            let got = verdicts(vec![(0, head.clone())], p, 0, &mut c);
            c.head += expect(got, LockError::AccumulatorDataLength, &mut c);
            for i in 0..cells.len() {
                for j in i + 1..cells.len() {
                    let deps = vec![(0, cells[i].clone()), (0, cells[j].clone())];
                    let got = verdicts(deps, p, 0, &mut c);
                    c.two_cells += expect(got, LockError::AccumulatorAmbiguous, &mut c);
                }
            }
            for snap in &snaps {
                for t in 1..=foreign.len() {
                    let own = proofs
                        .iter()
                        .position(|(_, d, _)| d[..] == snap[..])
                        .unwrap();
                    let got = verdicts(vec![(t, snap.clone())], own, 0, &mut c);
                    c.foreign_type += expect(got, LockError::AccumulatorNotFound, &mut c);
                }
            }
        }
    }
    println!(
        "locks over every ring state, K in {{2, 3}}, 1-{max} leaves, three verifiers: \
         {:.1} s\n{c:?}",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(c.accepted_never_had, 0, "{c:#?}");
    // Every history: 2^max - 1 states per K (each increasing sequence of leaf counts).
    assert_eq!(c.ring_states, 2 * ((1 << max) - 1), "{c:#?}");
    let nine = LockError::RootMismatch.code();
    assert!(c.pairs.contains_key(&(nine, nine)), "{c:#?}");
    assert!(c.own_accepted > 0 && c.head > 0 && c.two_cells > 0 && c.foreign_type > 0);
}

/// The negative control: the locks trust their dep, so a 40-byte cell under the ring's type
/// hash holding a state the accumulator never had (here the MMR of other leaves) is accepted
/// by all three with a proof against it, and the count above would see it. Such a cell is
/// what the ring's rules must make impossible to create (tests/assurance's ring search and
/// acc_ring_vm_exhaustive.rs: 0 forgeries); this shows the locks add no defence of their own.
#[test]
fn a_counterfeit_snapshot_would_be_counted() {
    let honest = leaves(6);
    let forged: Vec<[u8; 32]> = honest.iter().rev().copied().collect();
    let w = Workload::from_leaves(&forged, &[1, 4]).unwrap();
    let data = w.accumulator_data();
    let truth = Workload::from_leaves(&honest, &[1, 4]).unwrap();
    assert_ne!(data[..], truth.accumulator_data()[..]);
    let mut id = vec![0x5a; 32];
    id.push(3);
    let ring = ring_type(&id);
    let lock_args = by_reference_args(&hash_of(&ring), Mode::Plain);
    let mut accepted_never_had = 0;
    for v in available_verifiers() {
        let mut s = Spender::new(v, &lock_args);
        let witness = mmr_witness(v, &w);
        let got = s.spend(&witness, &[(&ring, &data[..])]);
        assert_eq!(got, Ok(()), "{v:?}");
        accepted_never_had += 1;
    }
    // Baseline, C and compiled: the control means nothing with a verifier missing.
    assert_eq!(accepted_never_had, 3);
}
