//! The accumulator ring (docs/concurrency-design.md, section 3) in ckb-script on the release
//! binary `build/release/accumulator-type`:
//!
//! - for K in {2, 3, 8}: creation (`CREATE`, `IMPORT`), then `APPEND` and `EXTEND` steps
//!   alternating over a history longer than the ring, with a `KEEP` in between, all accepted;
//!   at every state every mutation class of the spec's search (item 3) at least once, the
//!   exit code equal to the core's `mmr_accumulator::ring::verify_ring` on the same cells, and
//!   every ring code reached;
//! - the three by-reference locks, unchanged, against ring snapshots (acc_ring_locks below);
//! - the bound: a spend against a snapshot 7 appends behind the head of a K = 8 ring of 2^20
//!   leaves against a fresh one (acc_ring_bound below).

mod by_reference_tx;

use by_reference_tx::hash_of;
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::TransactionBuilder,
    packed::{CellInput, Script},
    prelude::*,
};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::ring::{self, build as rb, RingCell};
use mmr_accumulator::{tag, Commitment, Error, Workspace};
use std::collections::BTreeSet;
use tests::accumulator::{leaves, type_id, witness, AccumulatorChain, Host};
use tests::Outcome;

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
    fn new(k: u8) -> Ring {
        let chain = AccumulatorChain::new();
        let other_lock = chain
            .lock
            .clone()
            .as_builder()
            .args(Bytes::from(vec![1u8]).pack())
            .build();
        let mut args = vec![0x3c; 32];
        args.push(k);
        Ring {
            chain,
            k,
            args,
            other_lock,
            seen: BTreeSet::new(),
            runs: 0,
        }
    }

    fn lock(&self) -> Script {
        self.chain.lock.clone()
    }

    /// Runs `c` in the VM and in the core; asserts they agree and returns the VM's outcome.
    fn run(&mut self, c: &Candidate) -> Outcome {
        let creation = c.ins.is_empty();
        let mut tx = TransactionBuilder::default();
        let mut witnesses = Vec::new();
        let args = if creation {
            let cell = self.chain.plain_cell();
            let input = CellInput::new_builder().previous_output(cell).build();
            let data: Vec<Vec<u8>> = c.outs.iter().map(|(d, _)| d.clone()).collect();
            let head = ring::head_candidate(self.k, &cells(&data, &self.lock_hashes(&c.outs)))
                .unwrap_or(0);
            let mut args = type_id(&input, head as u64).to_vec();
            args.push(self.k);
            tx = tx.input(input);
            witnesses.push(Bytes::new());
            c.args.clone().unwrap_or(args)
        } else {
            c.args.clone().unwrap_or_else(|| self.args.clone())
        };
        let t = self.chain.type_script(&args);
        for (data, lock) in &c.ins {
            let out = self
                .chain
                .output(Some(&t))
                .as_builder()
                .lock(lock.clone())
                .build();
            let cell = self
                .chain
                .context
                .create_cell(out, Bytes::copy_from_slice(data));
            tx = tx.input(CellInput::new_builder().previous_output(cell).build());
            witnesses.push(Bytes::new());
        }
        for (data, lock) in &c.outs {
            let out = self
                .chain
                .output(Some(&t))
                .as_builder()
                .lock(lock.clone())
                .build();
            tx = tx
                .output(out)
                .output_data(Bytes::copy_from_slice(data).pack());
        }
        // Only ring cells on each side (the creation's plain input has no witness role): the
        // group index is the absolute one.
        let at = c.at;
        while witnesses.len() <= at.max(c.outs.len()) {
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
        let got = self.chain.run(tx);
        self.runs += 1;
        if let Some(code) = got.code() {
            self.seen.insert(code);
        }
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

fn cells<'a>(data: &'a [Vec<u8>], locks: &'a [[u8; 32]]) -> Vec<RingCell<'a>> {
    data.iter()
        .zip(locks)
        .map(|(d, l)| RingCell {
            data: d,
            lock_hash: l,
        })
        .collect()
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
        }
    }

    /// Creation mutations and honest creations at every head position.
    fn creation_cases(&mut self, state: &Commitment, payload: &[u8]) {
        let k = self.k;
        let outs = rb::creation_data(k, state);
        for head_at in 0..=usize::from(k) {
            let mut o = outs.clone();
            o.swap(0, head_at);
            let c = self.candidate(&[], &o, payload, head_at);
            assert!(
                matches!(self.run(&c), Outcome::Accepted(_)),
                "K {k} at {head_at}"
            );
        }
        let honest = self.candidate(&[], &outs, payload, 0);
        // Counts: 1..=K + 2 outputs.
        for n in 1..=usize::from(k) + 2 {
            if n == usize::from(k) + 1 {
                continue;
            }
            let mut c = honest.clone();
            c.outs.resize(n, c.outs[1].clone());
            assert_eq!(
                self.run(&c).code(),
                rejected(Error::RingShape),
                "{n} outputs"
            );
        }
        // The type id over another index.
        let mut c = honest.clone();
        c.args = Some({
            let mut a = vec![0x77; 32];
            a.push(k);
            a
        });
        let got = self.run_unchecked(&c);
        assert_eq!(got.code(), rejected(Error::TypeIdMismatch));
        // older not K - 1 copies; a snapshot flipped; a lock on each output; lengths.
        for slot in 0..usize::from(k) - 1 {
            let mut c = honest.clone();
            c.outs[0].0[40 + 8 * slot] ^= 1;
            assert_eq!(self.run(&c).code(), rejected(Error::RingSizesMismatch));
        }
        for (cell, byte) in [(1, 0), (usize::from(k), 39)] {
            let mut c = honest.clone();
            c.outs[cell].0[byte] ^= 1;
            assert_eq!(self.run(&c).code(), rejected(Error::SnapshotMismatch));
        }
        for i in 0..c_len(&honest) {
            let mut c = honest.clone();
            c.outs[i].1 = self.other_lock.clone();
            assert_eq!(
                self.run(&c).code(),
                rejected(Error::RingLockMismatch),
                "lock {i}"
            );
        }
        for len in self.lengths() {
            for cell in [0, 1] {
                let mut c = honest.clone();
                c.outs[cell].0.resize(len, 0);
                self.run(&c);
            }
        }
        // Every tag on the creation shape.
        for t in 0..=6u8 {
            let mut c = honest.clone();
            c.payload = vec![t];
            let got = self.run(&c).code();
            if t == tag::CREATE {
                assert_eq!(got, rejected(Error::AppendTruncated));
            } else if (3..=5).contains(&t) {
                assert_eq!(got, rejected(Error::RingShape), "tag {t}");
            }
        }
        // Args: 31, 34 bytes; K 0, 1, 33.
        for args in [vec![0x11; 31], vec![0x11; 34]] {
            let mut c = honest.clone();
            c.args = Some(args);
            assert_eq!(self.run(&c).code(), rejected(Error::ArgsLength));
        }
        for bad_k in [0u8, 1, 33, 255] {
            let mut c = honest.clone();
            let mut a = vec![0x11; 32];
            a.push(bad_k);
            c.args = Some(a);
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
            let out = self
                .chain
                .output(Some(&t))
                .as_builder()
                .lock(lock.clone())
                .build();
            tx = tx
                .output(out)
                .output_data(Bytes::copy_from_slice(data).pack())
                .witness(witness(None, Some(&c.payload)).pack());
        }
        let got = self.chain.run(tx);
        if let Some(code) = got.code() {
            self.seen.insert(code);
        }
        got
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
        // Each live snapshot consumed.
        for s in &live.snapshots {
            let mut c = honest.clone();
            c.ins[1].0 = s.clone();
            self.run(&c);
        }
        // The snapshot output with every other state of the history, a byte flipped.
        for h in history {
            let mut c = honest.clone();
            c.outs[1].0 = h.to_bytes().to_vec();
            self.run(&c);
        }
        for byte in [0, 31, 32, 39] {
            let mut c = honest.clone();
            c.outs[1].0[byte] ^= 1;
            assert_eq!(self.run(&c).code(), rejected(Error::SnapshotMismatch));
        }
        // older unshifted (the same list while the ring still holds creation's copies), each
        // slot changed.
        let mut c = honest.clone();
        c.outs[0].0[40..].copy_from_slice(&honest.ins[0].0[40..]);
        let expected = if c.outs[0].0 == honest.outs[0].0 {
            None
        } else {
            rejected(Error::RingSizesMismatch)
        };
        assert_eq!(self.run(&c).code(), expected);
        for slot in 0..usize::from(k) - 1 {
            let mut c = honest.clone();
            c.outs[0].0[40 + 8 * slot] ^= 2;
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
            let mut c = honest.clone();
            c.outs[i].1 = self.other_lock.clone();
            assert_eq!(self.run(&c).code(), rejected(Error::RingLockMismatch));
        }
        let mut c = honest.clone();
        c.ins[0].1 = self.other_lock.clone();
        assert_eq!(self.run(&c).code(), rejected(Error::RingLockMismatch));
        let mut c = honest.clone();
        c.ins[1].1 = self.other_lock.clone();
        assert!(matches!(self.run(&c), Outcome::Accepted(_)));
        // Every tag on the step and on KEEP.
        for t in 0..=6u8 {
            let mut c = honest.clone();
            c.payload = vec![t];
            self.run(&c);
            let mut c = self.candidate(&whole, &whole, &[t], 0);
            let got = self.run(&c).code();
            if t == tag::KEEP {
                assert_eq!(got, None);
            }
            c.payload = vec![tag::KEEP];
            // KEEP changing one cell, under another lock (a hand-over), one lock differing.
            if t == 0 {
                for cell in 0..whole.len() {
                    let mut d = c.clone();
                    d.outs[cell].0[3] ^= 1;
                    assert_eq!(self.run(&d).code(), rejected(Error::SnapshotMismatch));
                    let mut d = c.clone();
                    d.outs[cell].1 = self.other_lock.clone();
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

fn c_len(c: &Candidate) -> usize {
    c.outs.len()
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
            let mut live = Live {
                head: outs[0].clone(),
                snapshots: outs[1..].to_vec(),
            };
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
                assert!(
                    matches!(r.run(&honest), Outcome::Accepted(_)),
                    "K {k} {n}->{m}"
                );
                assert!(matches!(r.run(&swapped), Outcome::Accepted(_)));
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
