//! The accumulator ring (docs/accumulator.md, section 7) in ckb-script on the release
//! binary `build/release/accumulator-type`:
//!
//! - for K in {2, 3, 8}: creation (`CREATE`, `IMPORT`), then `APPEND` and `EXTEND` steps
//!   alternating over a history longer than the ring, with a `KEEP` in between, all accepted;
//!   at every state every mutation class of the spec's search (item 3) at least once, the
//!   exit code equal to the core's `mmr_accumulator::ring::verify_ring` on the same cells, and
//!   every ring code reached;
//! - the three by-reference locks, unchanged, against ring snapshots
//!   (`locks_accept_ring_snapshots`);
//! - the bound: a spend against a snapshot 7 appends behind the head of a K = 8 ring of 2^20
//!   leaves against a fresh one (`ring_window_spend_within_twice_a_fresh_one`);
//! - the type script's cycles, single accumulator and ring (`ring_and_single_cycles`, printed).

// Shared with by_reference.rs, which uses the rest of it.
#[allow(dead_code)]
mod by_reference_tx;

use by_reference_tx::{hash_of, mmr_witness, spend, Dep};
use ckb_mmr_sdk::{by_reference_args, weight, Mode, Workload};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::TransactionBuilder,
    packed::{CellInput, CellOutput, Script},
    prelude::*,
};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::ring::{self, build as rb};
use mmr_accumulator::{tag, Commitment, Error, Workspace};
use mmr_lock::mmr::mmr_size_of;
use mmr_lock::LockError;
use std::collections::BTreeSet;
use tests::accumulator::{
    leaves, synthetic, synthetic_state, type_id, witness, AccumulatorChain, Host,
};
use tests::{available_verifiers, Outcome, Verifier, MAX_CYCLES};

fn commitment(all: &[[u8; 32]]) -> Commitment {
    build::commitment::<Host>(all).unwrap()
}

/// One candidate transaction: ring cells in (data, lock), ring cells out, the payload at the
/// head's index (input side when there are inputs, else output side).
#[derive(Clone)]
struct Candidate {
    ins: Vec<(Vec<u8>, Script)>,
    outs: Vec<(Vec<u8>, Script)>,
    payload: Vec<u8>,
    /// The group index whose witness holds the payload.
    at: usize,
    /// Args override (else the ring's, or at creation the type id over the head candidate).
    args: Option<Vec<u8>>,
    /// Plain cells before the ring's (outputs at creation, inputs otherwise): group indexes
    /// are not absolute ones.
    shift: usize,
}

struct Ring {
    chain: AccumulatorChain,
    k: u8,
    /// The ring's args once created (updates spend cells under them).
    args: Vec<u8>,
    other_lock: Script,
    /// Codes seen from the VM, for the "every code reached" check.
    seen: BTreeSet<i8>,
    runs: u64,
}

impl Ring {
    /// A ring cell under `t` with `lock`.
    fn ring_output(&self, t: &Script, lock: &Script) -> CellOutput {
        self.chain
            .output(Some(t))
            .as_builder()
            .lock(lock.clone())
            .build()
    }

    /// Notes the exit code among those reached.
    fn record(&mut self, got: Outcome) -> Outcome {
        if let Some(code) = got.code() {
            self.seen.insert(code);
        }
        got
    }

    fn new(k: u8) -> Ring {
        let chain = AccumulatorChain::new();
        let other_lock = tests::with_args(&chain.lock, &[1]);
        Ring {
            chain,
            k,
            args: ring_args(&[0x3c; 32], k),
            other_lock,
            seen: BTreeSet::new(),
            runs: 0,
        }
    }

    /// Imports a ring at `at` through the type script (accepted) and takes its args.
    fn import(&mut self, at: &Commitment) -> Live {
        let outs = rb::creation_data(self.k, at);
        let c = self.candidate(&[], &outs, &[tag::IMPORT], 0);
        let (_, args) = self.tx(&c);
        assert!(self.run(&c).accepted());
        self.args = args;
        Live::new(&outs)
    }

    fn lock(&self) -> Script {
        self.chain.lock.clone()
    }

    /// The transaction of `c` (not completed) and the type args it runs under.
    fn tx(&mut self, c: &Candidate) -> (TransactionBuilder, Vec<u8>) {
        let creation = c.ins.is_empty();
        let mut tx = TransactionBuilder::default();
        let mut witnesses = Vec::new();
        let args = if creation {
            let cell = self.chain.plain_cell();
            let input = CellInput::new_builder().previous_output(cell).build();
            let data: Vec<Vec<u8>> = c.outs.iter().map(|(d, _)| d.clone()).collect();
            let head = ring::head_candidate(self.k, &cells(&data, &self.lock_hashes(&c.outs)))
                .unwrap_or(0);
            let args = ring_args(&type_id(&input, (c.shift + head) as u64), self.k);
            tx = tx.input(input);
            witnesses.push(Bytes::new());
            for _ in 0..c.shift {
                tx = tx
                    .output(self.chain.output(None))
                    .output_data(Bytes::new().pack());
            }
            c.args.clone().unwrap_or(args)
        } else {
            for _ in 0..c.shift {
                let cell = self.chain.plain_cell();
                tx = tx.input(CellInput::new_builder().previous_output(cell).build());
                witnesses.push(Bytes::new());
            }
            c.args.clone().unwrap_or_else(|| self.args.clone())
        };
        let t = self.chain.type_script(&args);
        for (data, lock) in &c.ins {
            let out = self.ring_output(&t, lock);
            let cell = self
                .chain
                .context
                .create_cell(out, Bytes::copy_from_slice(data));
            tx = tx.input(CellInput::new_builder().previous_output(cell).build());
            witnesses.push(Bytes::new());
        }
        for (data, lock) in &c.outs {
            let out = self.ring_output(&t, lock);
            tx = tx
                .output(out)
                .output_data(Bytes::copy_from_slice(data).pack());
        }
        // The payload at the head's absolute index: the group's index shifted by the plain
        // cells before the ring's.
        let at = c.at + c.shift;
        while witnesses.len() <= at.max(c.outs.len() + c.shift) {
            witnesses.push(Bytes::new());
        }
        witnesses[at] = if creation {
            witness(None, Some(&c.payload))
        } else {
            witness(Some(&c.payload), None)
        };
        for w in witnesses {
            tx = tx.witness(w.pack());
        }
        (tx, args)
    }

    /// Runs `c` in the VM only.
    fn run_raw(&mut self, c: &Candidate) -> Outcome {
        let (tx, _) = self.tx(c);
        let got = self.chain.run(tx);
        self.record(got)
    }

    /// Runs `c` in the VM and in the core; asserts they agree and returns the VM's outcome.
    fn run(&mut self, c: &Candidate) -> Outcome {
        let (tx, args) = self.tx(c);
        let got = self.chain.run(tx);
        self.runs += 1;
        self.record(got);
        let expected = self.core(&args, c);
        assert_eq!(got.code(), expected, "VM (left) and core (right)");
        got
    }

    fn lock_hashes(&self, cells: &[(Vec<u8>, Script)]) -> Vec<[u8; 32]> {
        cells.iter().map(|(_, l)| hash_of(l)).collect()
    }

    /// The core's verdict: rule 0 on the args, then `verify_ring` (the type id is honest
    /// unless the args are overridden, and the witness is well formed).
    fn core(&self, args: &[u8], c: &Candidate) -> Option<i8> {
        let k = match ring::ring_k(args) {
            Ok(Some(k)) => k,
            Ok(None) => panic!("32-byte args are not a ring"),
            Err(e) => return Some(e.code()),
        };
        let ins: Vec<Vec<u8>> = c.ins.iter().map(|(d, _)| d.clone()).collect();
        let outs: Vec<Vec<u8>> = c.outs.iter().map(|(d, _)| d.clone()).collect();
        let (il, ol) = (self.lock_hashes(&c.ins), self.lock_hashes(&c.outs));
        ring::verify_ring::<Host>(
            &mut Workspace::new(),
            k,
            &cells(&ins, &il),
            &cells(&outs, &ol),
            &c.payload,
        )
        .err()
        .map(Error::code)
    }
}

use mmr_accumulator::ring::build::cells;
use tests::edited;

/// A ring's type args: the 32-byte id, then K.
fn ring_args(id: &[u8], k: u8) -> Vec<u8> {
    [id, &[k]].concat()
}

fn rejected(e: Error) -> Option<i8> {
    Some(e.code())
}

/// The live ring's data: the head and the K snapshots (oldest written first).
#[derive(Clone)]
struct Live {
    head: Vec<u8>,
    snapshots: Vec<Vec<u8>>,
}

impl Live {
    /// The ring as creation (or a step) writes it: the head, then the snapshots.
    fn new(cells: &[Vec<u8>]) -> Live {
        Live {
            head: cells[0].clone(),
            snapshots: cells[1..].to_vec(),
        }
    }

    fn size(d: &[u8]) -> u64 {
        u64::from_le_bytes(d[32..40].try_into().unwrap())
    }

    /// The honest step to `new`: inputs (head, oldest), outputs (head, snapshot), and the
    /// index of the consumed snapshot among `snapshots`.
    fn step(&self, new: &Commitment) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, usize) {
        let (oldest, head, snap) = rb::step_data(&self.head, new).unwrap();
        let at = self
            .snapshots
            .iter()
            .position(|s| Self::size(s) == oldest)
            .unwrap();
        (
            vec![self.head.clone(), self.snapshots[at].clone()],
            vec![head, snap],
            at,
        )
    }

    fn apply(&mut self, outs: &[Vec<u8>], consumed: usize) {
        self.snapshots.remove(consumed);
        self.head = outs[0].clone();
        self.snapshots.push(outs[1].clone());
    }

    fn whole(&self) -> Vec<Vec<u8>> {
        let mut out = vec![self.head.clone()];
        out.extend(self.snapshots.iter().cloned());
        out
    }
}

impl Ring {
    fn with_lock(&self, data: &[Vec<u8>]) -> Vec<(Vec<u8>, Script)> {
        data.iter().map(|d| (d.clone(), self.lock())).collect()
    }

    fn candidate(&self, ins: &[Vec<u8>], outs: &[Vec<u8>], payload: &[u8], at: usize) -> Candidate {
        Candidate {
            ins: self.with_lock(ins),
            outs: self.with_lock(outs),
            payload: payload.to_vec(),
            at,
            args: None,
            shift: 0,
        }
    }

    /// Creation mutations and honest creations at every head position.
    fn creation_cases(&mut self, state: &Commitment, payload: &[u8]) {
        let k = self.k;
        let outs = rb::creation_data(k, state);
        for head_at in 0..=usize::from(k) {
            let o = edited(&outs, |o| o.swap(0, head_at));
            let c = self.candidate(&[], &o, payload, head_at);
            assert!(self.run(&c).accepted(), "K {k} at {head_at}");
        }
        let honest = self.candidate(&[], &outs, payload, 0);
        // Plain outputs before the ring's: the type id and the witness follow the head's
        // absolute index.
        for shift in [1, 2] {
            for head_at in [0, usize::from(k)] {
                let mut c = honest.clone();
                c.outs.swap(0, head_at);
                c.at = head_at;
                c.shift = shift;
                assert!(self.run(&c).accepted(), "shift {shift}");
            }
        }
        // Counts: 1..=K + 2 outputs.
        for n in 1..=usize::from(k) + 2 {
            if n == usize::from(k) + 1 {
                continue;
            }
            let c = edited(&honest, |c| c.outs.resize(n, c.outs[1].clone()));
            assert_eq!(
                self.run(&c).code(),
                rejected(Error::RingShape),
                "{n} outputs"
            );
        }
        // The type id over another index.
        let c = edited(&honest, |c| c.args = Some(ring_args(&[0x77; 32], k)));
        let got = self.run_unchecked(&c);
        assert_eq!(got.code(), rejected(Error::TypeIdMismatch));
        // older not K - 1 copies; a snapshot flipped; a lock on each output; lengths.
        for slot in 0..usize::from(k) - 1 {
            let c = edited(&honest, |c| c.outs[0].0[40 + 8 * slot] ^= 1);
            assert_eq!(self.run(&c).code(), rejected(Error::RingSizesMismatch));
        }
        for (cell, byte) in [(1, 0), (usize::from(k), 39)] {
            let c = edited(&honest, |c| c.outs[cell].0[byte] ^= 1);
            assert_eq!(self.run(&c).code(), rejected(Error::SnapshotMismatch));
        }
        for i in 0..honest.outs.len() {
            let c = edited(&honest, |c| c.outs[i].1 = self.other_lock.clone());
            assert_eq!(
                self.run(&c).code(),
                rejected(Error::RingLockMismatch),
                "lock {i}"
            );
        }
        for len in self.lengths() {
            for cell in [0, 1] {
                self.run(&edited(&honest, |c| c.outs[cell].0.resize(len, 0)));
            }
        }
        // Every tag on the creation shape.
        for t in 0..=6u8 {
            let c = edited(&honest, |c| c.payload = vec![t]);
            let got = self.run(&c).code();
            if t == tag::CREATE {
                assert_eq!(got, rejected(Error::AppendTruncated));
            } else if (3..=5).contains(&t) {
                assert_eq!(got, rejected(Error::RingShape), "tag {t}");
            }
        }
        // Args: 31, 34 bytes; K 0, 1, 33.
        for args in [vec![0x11; 31], vec![0x11; 34]] {
            let c = edited(&honest, |c| c.args = Some(args));
            assert_eq!(self.run(&c).code(), rejected(Error::ArgsLength));
        }
        for bad_k in [0u8, 1, 33, 255] {
            let c = edited(&honest, |c| c.args = Some(ring_args(&[0x11; 32], bad_k)));
            assert_eq!(self.run(&c).code(), rejected(Error::RingArgs), "K {bad_k}");
        }
    }

    /// Data lengths of the spec: 39, 40, 41 and the head's ± 8.
    fn lengths(&self) -> [usize; 5] {
        let h = ring::head_len(self.k);
        [39, 40, 41, h - 8, h + 8]
    }

    /// [`Self::run`] without the core comparison, for the type id (the core has no rule 2).
    fn run_unchecked(&mut self, c: &Candidate) -> Outcome {
        let mut tx = TransactionBuilder::default();
        let cell = self.chain.plain_cell();
        tx = tx.input(CellInput::new_builder().previous_output(cell).build());
        let t = self.chain.type_script(c.args.as_ref().unwrap());
        for (data, lock) in &c.outs {
            let out = self.ring_output(&t, lock);
            tx = tx
                .output(out)
                .output_data(Bytes::copy_from_slice(data).pack())
                .witness(witness(None, Some(&c.payload)).pack());
        }
        let got = self.chain.run(tx);
        self.record(got)
    }

    /// The step mutations at one state (`all` the history's commitments, for other states).
    fn step_cases(&mut self, live: &Live, honest: &Candidate, history: &[Commitment], full: bool) {
        let k = self.k;
        // Counts: the whole grid once per K, else a few.
        let whole = live.whole();
        let extra = live.snapshots[0].clone();
        let counts: Vec<(usize, usize)> = if full {
            (1..=usize::from(k) + 2)
                .flat_map(|i| (0..=usize::from(k) + 2).map(move |o| (i, o)))
                .collect()
        } else {
            vec![(1, 2), (3, 2), (2, 1), (2, 3), (2, 0)]
        };
        for (i, o) in counts {
            let mut ins: Vec<Vec<u8>> = honest.ins.iter().map(|(d, _)| d.clone()).collect();
            if i <= 2 {
                ins.truncate(i);
            } else {
                ins = whole.clone();
                ins.resize(i, extra.clone());
            }
            let mut outs: Vec<Vec<u8>> = honest.outs.iter().map(|(d, _)| d.clone()).collect();
            outs.resize(o, outs[1].clone());
            let c = self.candidate(&ins, &outs, &honest.payload, 0);
            self.run(&c);
        }
        // The same cells under other args (31, 34 bytes; K 0, 1, 33: rule 0 first), or another
        // valid K (the head's length is another K's).
        let mut bad_args = vec![vec![0x3c; 31], vec![0x3c; 34]];
        for bad_k in [0u8, 1, 33, if k == 2 { 3 } else { 2 }] {
            bad_args.push(ring_args(&self.args[..32], bad_k));
        }
        for args in bad_args {
            self.run(&edited(honest, |c| c.args = Some(args)));
        }
        // Each live snapshot consumed.
        for s in &live.snapshots {
            self.run(&edited(honest, |c| c.ins[1].0 = s.clone()));
        }
        // The snapshot output with every other state of the history, a byte flipped.
        for h in history {
            self.run(&edited(honest, |c| c.outs[1].0 = h.to_bytes().to_vec()));
        }
        for byte in [0, 31, 32, 39] {
            let c = edited(honest, |c| c.outs[1].0[byte] ^= 1);
            assert_eq!(self.run(&c).code(), rejected(Error::SnapshotMismatch));
        }
        // older unshifted (the same list while the ring still holds creation's copies), each
        // slot changed.
        let c = edited(honest, |c| {
            c.outs[0].0[40..].copy_from_slice(&honest.ins[0].0[40..])
        });
        let expected = if c.outs[0].0 == honest.outs[0].0 {
            None
        } else {
            rejected(Error::RingSizesMismatch)
        };
        assert_eq!(self.run(&c).code(), expected);
        for slot in 0..usize::from(k) - 1 {
            let c = edited(honest, |c| c.outs[0].0[40 + 8 * slot] ^= 2);
            assert_eq!(self.run(&c).code(), rejected(Error::RingSizesMismatch));
        }
        // Lengths on each cell of each side.
        for len in self.lengths() {
            for side in 0..4 {
                let mut c = honest.clone();
                let cell = if side < 2 {
                    &mut c.ins[side].0
                } else {
                    &mut c.outs[side - 2].0
                };
                cell.resize(len, 0);
                self.run(&c);
            }
        }
        // A different lock on each output, on the head input; the snapshot input's is free.
        for i in 0..2 {
            let c = edited(honest, |c| c.outs[i].1 = self.other_lock.clone());
            assert_eq!(self.run(&c).code(), rejected(Error::RingLockMismatch));
        }
        let c = edited(honest, |c| c.ins[0].1 = self.other_lock.clone());
        assert_eq!(self.run(&c).code(), rejected(Error::RingLockMismatch));
        let c = edited(honest, |c| c.ins[1].1 = self.other_lock.clone());
        assert!(self.run(&c).accepted());
        // Every tag on the step and on KEEP.
        for t in 0..=6u8 {
            self.run(&edited(honest, |c| c.payload = vec![t]));
            let mut c = self.candidate(&whole, &whole, &[t], 0);
            let got = self.run(&c).code();
            if t == tag::KEEP {
                assert_eq!(got, None);
            }
            c.payload = vec![tag::KEEP];
            // KEEP changing one cell, under another lock (a hand-over), one lock differing.
            if t == 0 {
                for cell in 0..whole.len() {
                    let d = edited(&c, |d| d.outs[cell].0[3] ^= 1);
                    assert_eq!(self.run(&d).code(), rejected(Error::SnapshotMismatch));
                    let d = edited(&c, |d| d.outs[cell].1 = self.other_lock.clone());
                    assert_eq!(self.run(&d).code(), rejected(Error::RingLockMismatch));
                }
                let mut d = c.clone();
                for o in &mut d.outs {
                    o.1 = self.other_lock.clone();
                }
                assert_eq!(self.run(&d).code(), None);
            }
        }
    }
}

/// Honest histories and every mutation class, for K in {2, 3, 8}.
#[test]
fn ring_transitions_in_the_vm() {
    let all = leaves(40);
    let nodes = Nodes::new::<Host>(&all);
    let start = std::time::Instant::now();
    let mut total = 0;
    for k in [2u8, 3, 8] {
        let mut r = Ring::new(k);
        for import in [false, true] {
            let mut n = 2usize;
            let first = commitment(&all[..n]);
            let payload = if import {
                vec![tag::IMPORT]
            } else {
                build::create_payload(&all[..n])
            };
            r.creation_cases(&first, &payload);
            let outs = rb::creation_data(k, &first);
            let mut live = Live::new(&outs);
            let mut history = vec![first];
            for step in 0..usize::from(k) + 3 {
                let m = n + 1 + step % 2;
                let new = commitment(&all[..m]);
                let (ins, outs, consumed) = live.step(&new);
                let payload = if step % 2 == 0 {
                    build::append_payload(&nodes.peaks(n as u64), &all[n..m])
                } else {
                    let proof = build::ancestry_proof::<Host>(&all[..m], n as u64).unwrap();
                    build::extend_payload(&proof)
                };
                let honest = r.candidate(&ins, &outs, &payload, 0);
                // Either order on each side.
                let mut swapped = honest.clone();
                swapped.ins.reverse();
                swapped.outs.reverse();
                swapped.at = 1;
                assert!(r.run(&honest).accepted(), "K {k} {n}->{m}");
                assert!(r.run(&swapped).accepted());
                // KEEP with the head last on both sides, after plain inputs.
                let mut whole = live.whole();
                whole.rotate_left(1);
                let mut keep = r.candidate(&whole, &whole, &[tag::KEEP], usize::from(k));
                keep.shift = 1;
                assert!(r.run(&keep).accepted(), "KEEP, head last");
                // Plain inputs before the ring's.
                swapped.shift = 2;
                assert!(r.run(&swapped).accepted());
                // The payload at the snapshot's index instead of the head's: no payload there.
                let wrong = edited(&honest, |wrong| wrong.at = 1);
                assert_eq!(r.run_raw(&wrong).code(), rejected(Error::WitnessEncoding));
                if !import {
                    r.step_cases(&live, &honest, &history, step == 2);
                }
                live.apply(&outs, consumed);
                history.push(new);
                n = m;
                // The ring's sizes are the history's last K.
                let mut sizes: Vec<u64> = live.snapshots.iter().map(|s| Live::size(s)).collect();
                sizes.sort();
                let mut last: Vec<u64> = history
                    .iter()
                    .rev()
                    .take(usize::from(k))
                    .map(|c| c.mmr_size)
                    .collect();
                last.resize(usize::from(k), first.mmr_size);
                last.sort();
                assert_eq!(sizes, last);
            }
        }
        let ring_codes: BTreeSet<i8> = (-106..=-100).collect();
        let missing: Vec<i8> = ring_codes.difference(&r.seen).copied().collect();
        assert!(
            missing.is_empty(),
            "K {k}: ring codes never reached: {missing:?}"
        );
        for code in [114, 118, 119, 122] {
            assert!(r.seen.contains(&code), "K {k}: {code} never reached");
        }
        total += r.runs;
    }
    println!(
        "ring transitions: {total} VM runs in {:.1?}, every one's code equal to the core's",
        start.elapsed()
    );
}

/// The type script's cycles (the transaction's minus its locks') of an accepted `tx`.
fn type_cycles(chain: &mut AccumulatorChain, tx: TransactionBuilder) -> u64 {
    let tx = chain.context.complete_tx(tx.build());
    let total = chain
        .context
        .verify_tx(&tx, MAX_CYCLES)
        .unwrap_or_else(|e| panic!("refused: {e}"));
    total - chain.lock_cycles(&tx)
}

/// The large transitions of docs/accumulator.md's cost table: (name, old, new, payload).
fn large_transitions() -> Vec<(&'static str, Commitment, Commitment, Vec<u8>)> {
    let big = 1u64 << 20;
    let n = big - 1;
    let (peaks, old) = synthetic_state(n);
    let payload = build::append_payload(&peaks, &[[0x42; 32]]);
    let new = mmr_accumulator::append::<Host>(&old.root, old.mmr_size, &payload[1..]).unwrap();
    let mut out = vec![("append 1 leaf to 2^20 - 1", old, new, payload)];
    let (n, m) = ((1u64 << 19) + 1, big - 1);
    let proof = build::ancestry_proof_from_nodes::<Host>(n, m, synthetic).unwrap();
    let (old_root, new_root) =
        mmr_accumulator::ancestry_roots::<Host>(mmr_size_of(n), mmr_size_of(m), &proof).unwrap();
    let c = |root, leaves| Commitment {
        root,
        mmr_size: mmr_size_of(leaves),
    };
    out.push((
        "extend 2^19 + 1 -> 2^20 - 1",
        c(old_root, n),
        c(new_root, m),
        build::extend_payload(&proof),
    ));
    out
}

/// The type script's cycles, single accumulator (32-byte args) and ring (K = 8), printed for
/// the cost tables (no assertion on the numbers: docs/accumulator.md's tables are checked by
/// tests/tests/accumulator.rs and doc_tables.rs).
#[test]
fn ring_and_single_cycles() {
    let five = leaves(5);
    let c5 = commitment(&five);
    let create = build::create_payload(&five);
    let mut chain = AccumulatorChain::new();
    let mut rows = Vec::new();
    let (tx, _) = chain.creation(&c5.to_bytes(), &create);
    rows.push(("single: create 5 leaves", type_cycles(&mut chain, tx)));
    let (tx, _) = chain.creation(&c5.to_bytes(), &[tag::IMPORT]);
    rows.push(("single: import", type_cycles(&mut chain, tx)));
    for (name, old, new, payload) in large_transitions() {
        let tx = chain.update(&old.to_bytes(), &new.to_bytes(), &payload);
        rows.push((name, type_cycles(&mut chain, tx)));
    }
    let tx = chain.update(&c5.to_bytes(), &c5.to_bytes(), &[tag::KEEP]);
    rows.push(("single: keep", type_cycles(&mut chain, tx)));
    for (name, cycles) in rows.drain(..) {
        println!("{name}: {cycles}");
    }
    if std::env::var_os("RING_CYCLES_SINGLE_ONLY").is_some() {
        return;
    }
    let k = 8;
    let mut r = Ring::new(k);
    let outs = rb::creation_data(k, &c5);
    for (name, payload) in [("create 5 leaves", &create[..]), ("import", &[tag::IMPORT])] {
        let c = r.candidate(&[], &outs, payload, 0);
        let (tx, _) = r.tx(&c);
        rows.push((name, type_cycles(&mut r.chain, tx)));
    }
    for (name, old, new, payload) in large_transitions() {
        // A ring 3 steps after creation at `old`'s size: older = [old; 7] shifted in.
        let head = rb::head_data(&old, &[old.mmr_size; 7]);
        let live = Live {
            head,
            snapshots: vec![old.to_bytes().to_vec(); 8],
        };
        let (ins, outs, _) = live.step(&new);
        let c = r.candidate(&ins, &outs, &payload, 0);
        let (tx, _) = r.tx(&c);
        rows.push((name, type_cycles(&mut r.chain, tx)));
    }
    let c = r.candidate(&outs, &outs, &[tag::KEEP], 0);
    let (tx, _) = r.tx(&c);
    rows.push(("keep (9 cells)", type_cycles(&mut r.chain, tx)));
    for (name, cycles) in rows {
        println!("ring K = 8: {name}: {cycles}");
    }
}

/// One by-reference spend of `w` with `deps` (the ring's cells as deps): cycles and the
/// transaction's bytes, or the exit code.
fn spend_ring(
    v: Verifier,
    ring: &Script,
    w: &Workload,
    deps: &[&[u8]],
) -> Result<(u64, usize), i8> {
    let args = by_reference_args(&hash_of(ring), Mode::Plain);
    let deps: Vec<Dep> = deps
        .iter()
        .map(|d| Dep::typed(ring.clone(), d.to_vec()))
        .collect();
    let (context, tx) = spend(v, &args, mmr_witness(v, w), &deps);
    let bytes = weight::tx_bytes(&tx.data());
    context
        .verify_tx(&tx, MAX_CYCLES)
        .map(|cycles| (cycles, bytes))
        .map_err(|e| tests::exit_code(&e.to_string()))
}

/// The locks, unchanged, on a ring (K in {2, 3}) grown step by step through the type script:
/// at every state, each live snapshot as the one dep with a proof against its own state
/// (accepted by all three verifiers), against every other state of the history (refused,
/// the same code in all three), the head as dep (92), two ring cells (91).
#[test]
fn locks_accept_ring_snapshots() {
    let all = leaves(24);
    let nodes = Nodes::new::<Host>(&all);
    let mut runs = 0;
    let mut refusals = BTreeSet::new();
    for k in [2u8, 3] {
        let mut r = Ring::new(k);
        let mut live = r.import(&commitment(&all[..3]));
        let script = r.chain.type_script(&r.args);
        let mut history = vec![3usize];
        let mut n = 3;
        for step in 0..usize::from(k) + 2 {
            let m = n + 1 + step % 3;
            let (ins, outs, consumed) = live.step(&commitment(&all[..m]));
            let payload = build::append_payload(&nodes.peaks(n as u64), &all[n..m]);
            let c = r.candidate(&ins, &outs, &payload, 0);
            assert!(r.run(&c).accepted());
            live.apply(&outs, consumed);
            history.push(m);
            n = m;
            let workloads: Vec<(usize, Vec<Workload>)> = history
                .iter()
                .map(|&h| {
                    let n = h as u64;
                    let claims = [vec![0], vec![n - 1], vec![0, n / 2, n - 1]];
                    let ws = claims
                        .iter()
                        .map(|c| Workload::from_leaves(&all[..h], c).unwrap())
                        .collect();
                    (h, ws)
                })
                .collect();
            for snapshot in &live.snapshots {
                let size = Live::size(snapshot);
                for (h, ws) in &workloads {
                    for w in ws {
                        let own = w.mmr_size == size;
                        if own {
                            assert_eq!(w.accumulator_data(), *snapshot, "the store's root");
                        }
                        let codes: Vec<Result<u64, i8>> = available_verifiers()
                            .into_iter()
                            .map(|v| spend_ring(v, &script, w, &[snapshot]).map(|(c, _)| c))
                            .collect();
                        runs += codes.len();
                        if own {
                            assert!(codes.iter().all(Result::is_ok), "K {k} {h}: {codes:?}");
                        } else {
                            // Refused by all three; the two compiled-format verifiers with
                            // one code. The formats' structural codes differ (a proof of
                            // another size: baseline 2x, compiled 4x), so only a proof whose
                            // shape fits reaches 9 in all three.
                            let c: Vec<i8> = codes
                                .iter()
                                .map(|c| c.expect_err("accepted against another state"))
                                .collect();
                            let what = format!("K {k}: {h} leaves against {size}: {c:?}");
                            assert_eq!(c[1], c[2], "{what}");
                            assert!(c[0] != 9 || c[1] == 9, "{what}");
                            refusals.insert((c[0], c[1]));
                        }
                    }
                }
            }
            let w = &workloads.last().unwrap().1[0];
            for v in available_verifiers() {
                let head = spend_ring(v, &script, w, &[&live.head]);
                assert_eq!(head, Err(LockError::AccumulatorDataLength.code()), "{v:?}");
                let two = spend_ring(v, &script, w, &[&live.snapshots[0], &live.snapshots[1]]);
                assert_eq!(two, Err(LockError::AccumulatorAmbiguous.code()), "{v:?}");
                runs += 2;
            }
        }
    }
    println!(
        "locks on ring snapshots: {runs} spends; (baseline, compiled and C) codes refusing \
         other states: {refusals:?}"
    );
    let nine = LockError::RootMismatch.code();
    assert!(refusals.contains(&(nine, nine)), "{refusals:?}");
}

/// The bound: proving 1 leaf of 2^20 by reference to a K = 8 ring's snapshot 7 appends behind
/// the head costs at most twice a fresh spend against the newest snapshot (cycles and bytes),
/// for every verifier. The ring is imported at 2^20 leaves and appended to one leaf at a
/// time through the type script.
#[test]
fn ring_window_spend_within_twice_a_fresh_one() {
    let big = 1usize << 20;
    let mut all: Vec<[u8; 32]> = (0..big as u64 + 7)
        .map(|i| {
            let mut l = [0x6b; 32];
            l[..8].copy_from_slice(&i.to_le_bytes());
            l
        })
        .collect();
    all[12_345][8] = 1;
    let old = Workload::from_leaves(&all[..big], &[12_345]).unwrap();
    let fresh = Workload::from_leaves(&all, &[12_345]).unwrap();
    let k = 8;
    let mut r = Ring::new(k);
    let root = Commitment {
        root: old.root,
        mmr_size: old.mmr_size,
    };
    let mut live = r.import(&root);
    // 2^20 leaves are one peak (the root); the appended ones' peaks follow it.
    let tail = Nodes::new::<Host>(&all[big..]);
    let mut state = root;
    for j in 0..7 {
        let mut peaks = vec![old.root];
        peaks.extend(tail.peaks(j as u64));
        let payload = build::append_payload(&peaks, &all[big + j..big + j + 1]);
        let new =
            mmr_accumulator::append::<Host>(&state.root, state.mmr_size, &payload[1..]).unwrap();
        let (ins, outs, consumed) = live.step(&new);
        let c = r.candidate(&ins, &outs, &payload, 0);
        assert!(r.run(&c).accepted(), "append {j}");
        live.apply(&outs, consumed);
        state = new;
    }
    assert_eq!(state.to_bytes().to_vec(), fresh.accumulator_data());
    let behind = old.accumulator_data();
    assert!(
        live.snapshots.contains(&behind),
        "the snapshot 7 appends behind is live"
    );
    let script = r.chain.type_script(&r.args);
    for v in available_verifiers() {
        let (c_old, b_old) = spend_ring(v, &script, &old, &[&behind]).unwrap();
        let (c_new, b_new) = spend_ring(v, &script, &fresh, &[&fresh.accumulator_data()]).unwrap();
        println!(
            "{v:?}: 1 of 2^20 leaves, snapshot 7 appends behind: {c_old} cycles, {b_old} tx bytes; \
             fresh (2^20 + 7): {c_new} cycles, {b_new} tx bytes; ratio {:.3} cycles, {:.3} bytes",
            c_old as f64 / c_new as f64,
            b_old as f64 / b_new as f64
        );
        assert!(c_old <= 2 * c_new && b_old <= 2 * b_new, "{v:?}");
    }
}
