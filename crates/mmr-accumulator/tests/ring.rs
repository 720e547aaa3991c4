//! The ring's rules (docs/accumulator.md, section 7): every honest shape accepted for
//! K in 2..=32 over a history of appends and extends, and every ring code reached by the case
//! it names, in the rules' order.

mod common;

use common::{edited, leaves, Blake, H};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::ring::{self, build as rb, Shape};
use mmr_accumulator::{tag, Commitment, Error, Workspace};

const LOCK: [u8; 32] = [0xaa; 32];
const OTHER: [u8; 32] = [0xbb; 32];

fn commit(all: &[H]) -> Commitment {
    build::commitment::<Blake>(all).unwrap()
}

use mmr_accumulator::ring::build::cells;

fn verify(k: u8, ins: &[Vec<u8>], outs: &[Vec<u8>], payload: &[u8]) -> Result<(), Error> {
    let (il, ol) = (vec![LOCK; ins.len()], vec![LOCK; outs.len()]);
    let (ins, outs) = (cells(ins, &il), cells(outs, &ol));
    ring::verify_ring::<Blake>(&mut Workspace::new(), k, &ins, &outs, payload)
}

/// A live ring: the head's data and the K snapshots' data, in the order the steps wrote them.
struct Live {
    head: Vec<u8>,
    snapshots: Vec<Vec<u8>>,
}

impl Live {
    fn create(k: u8, state: &Commitment) -> (Live, Vec<Vec<u8>>) {
        let outs = rb::creation_data(k, state);
        let live = Live {
            head: outs[0].clone(),
            snapshots: outs[1..].to_vec(),
        };
        (live, outs)
    }

    /// The step's inputs and outputs (head first on both sides), and the ring after it.
    fn step(&mut self, new: &Commitment) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let (oldest, head, snap) = rb::step_data(&self.head, new).unwrap();
        let at = self
            .snapshots
            .iter()
            .position(|s| s[32..] == oldest.to_le_bytes())
            .expect("the oldest is live");
        let consumed = self.snapshots.remove(at);
        let ins = vec![self.head.clone(), consumed];
        self.head = head.clone();
        self.snapshots.push(snap.clone());
        (ins, vec![head, snap])
    }

    fn all(&self) -> Vec<Vec<u8>> {
        let mut out = vec![self.head.clone()];
        out.extend(self.snapshots.iter().cloned());
        out
    }
}

#[test]
fn args() {
    assert_eq!(ring::ring_k(&[0; 32]), Ok(None));
    for k in 0..=255u8 {
        let mut args = [7u8; 33];
        args[32] = k;
        let expected = if (2..=32).contains(&k) {
            Ok(Some(k))
        } else {
            Err(Error::RingArgs)
        };
        assert_eq!(ring::ring_k(&args), expected, "K {k}");
    }
    for len in [0, 31, 34, 40, 64] {
        assert_eq!(ring::ring_k(&vec![2; len]), Err(Error::ArgsLength));
    }
    assert_eq!(ring::head_len(2), 48);
    assert_eq!(ring::head_len(8), 96);
    assert_eq!(ring::MAX_HEAD_LEN, 288);
}

#[test]
fn shapes() {
    for k in 2..=32u8 {
        let w = usize::from(k) + 1;
        for i in 0..=w + 1 {
            for o in 0..=w + 1 {
                let expected = match (i, o) {
                    (0, o) if o == w => Ok(Shape::Creation),
                    (2, 2) => Ok(Shape::Step),
                    (i, o) if i == w && o == w => Ok(Shape::Keep),
                    (i, 0) if i > 0 => Err(Error::DestroyRefused),
                    _ => Err(Error::RingShape),
                };
                assert_eq!(ring::shape(k, i, o), expected, "K {k} ({i}, {o})");
            }
        }
    }
}

/// Every honest transition over a history: creation by CREATE and IMPORT, appends of 1-3
/// leaves and extends alternating, a KEEP in between, for every K; each step's outputs are
/// what the builders make and the ring keeps its multiset invariant.
#[test]
fn honest_histories() {
    let all = leaves(256, 0x5c);
    let nodes = Nodes::new::<Blake>(&all);
    for k in 2..=32u8 {
        for import in [false, true] {
            let mut n = 3usize;
            let c = commit(&all[..n]);
            let (mut live, outs) = Live::create(k, &c);
            let payload = if import {
                vec![tag::IMPORT]
            } else {
                build::create_payload(&all[..n])
            };
            assert_eq!(verify(k, &[], &outs, &payload), Ok(()), "K {k} creation");
            // Any order of the outputs: the head is found by its length.
            let rotated = edited(&outs, |rotated| rotated.rotate_left(usize::from(k) / 2));
            assert_eq!(verify(k, &[], &rotated, &payload), Ok(()));
            let mut sizes = vec![c.mmr_size; usize::from(k)];
            for step in 0..2 * usize::from(k) + 3 {
                let m = n + 1 + step % 3;
                let new = commit(&all[..m]);
                let (ins, outs) = live.step(&new);
                let payload = if step % 2 == 0 {
                    build::append_payload(&nodes.peaks(n as u64), &all[n..m])
                } else {
                    build::extend_payload(
                        &build::ancestry_proof::<Blake>(&all[..m], n as u64).unwrap(),
                    )
                };
                assert_eq!(verify(k, &ins, &outs, &payload), Ok(()), "K {k} {n}->{m}");
                // Either side in either order.
                let rev = |v: &Vec<Vec<u8>>| v.iter().rev().cloned().collect::<Vec<_>>();
                assert_eq!(verify(k, &rev(&ins), &rev(&outs), &payload), Ok(()));
                sizes.remove(0);
                sizes.push(new.mmr_size);
                let mut live_sizes: Vec<u64> = live
                    .snapshots
                    .iter()
                    .map(|s| u64::from_le_bytes(s[32..].try_into().unwrap()))
                    .collect();
                live_sizes.sort();
                let want = edited(&sizes, |want| want.sort());
                assert_eq!(live_sizes, want, "multiset K {k}");
                n = m;
                if step == 4 {
                    let whole = live.all();
                    assert_eq!(verify(k, &whole, &whole, &[tag::KEEP]), Ok(()));
                }
            }
        }
    }
}

/// One honest state of a K-ring after a few steps, for the mutations.
struct Fixture {
    creation: Vec<Vec<u8>>,
    creation_payload: Vec<u8>,
    ins: Vec<Vec<u8>>,
    outs: Vec<Vec<u8>>,
    payload: Vec<u8>,
    whole: Vec<Vec<u8>>,
}

fn fixture(k: u8) -> Fixture {
    let all = leaves(16, 0x77);
    let nodes = Nodes::new::<Blake>(&all);
    let c = commit(&all[..2]);
    let (mut live, creation) = Live::create(k, &c);
    for m in 3..6 {
        live.step(&commit(&all[..m]));
    }
    let (ins, outs) = live.step(&commit(&all[..7]));
    Fixture {
        creation,
        creation_payload: build::create_payload(&all[..2]),
        ins,
        outs,
        payload: build::append_payload(&nodes.peaks(5), &all[5..7]),
        whole: live.all(),
    }
}

#[test]
fn every_ring_code_in_order() {
    for k in [2u8, 3, 8, 32] {
        let f = fixture(k);
        let hl = ring::head_len(k);
        let ok = |ins: &[Vec<u8>], outs: &[Vec<u8>], p: &[u8]| verify(k, ins, outs, p);
        let create = |outs: &[Vec<u8>]| ok(&[], outs, &f.creation_payload);
        assert_eq!(ok(&f.ins, &f.outs, &f.payload), Ok(()));
        assert_eq!(create(&f.creation), Ok(()));
        assert_eq!(ok(&f.whole, &f.whole, &[tag::KEEP]), Ok(()));

        // -101: counts.
        assert_eq!(ok(&f.ins[..1], &f.outs, &f.payload), Err(Error::RingShape));
        assert_eq!(ok(&f.ins, &f.outs[..1], &f.payload), Err(Error::RingShape));
        assert_eq!(ok(&[], &f.creation[..2], &f.payload), Err(Error::RingShape));
        assert_eq!(ok(&f.ins, &[], &f.payload), Err(Error::DestroyRefused));
        // K of the K + 1 cells: -101, but for K = 2, where two cells are the step's shape
        // (the head and the oldest, rewritten unchanged: the sizes are not shifted).
        let part = &f.whole[..usize::from(k)];
        let expected = if k == 2 {
            Error::RingSizesMismatch
        } else {
            Error::RingShape
        };
        assert_eq!(ok(part, part, &[tag::KEEP]), Err(expected));

        // -102: lengths 39, 41, the head's ± 8; two heads; no head.
        for len in [39, 41, hl - 8, hl + 8] {
            let outs = edited(&f.outs, |outs| outs[1].resize(len, 0));
            if len != 40 && len != hl {
                assert_eq!(
                    ok(&f.ins, &outs, &f.payload),
                    Err(Error::RingRoles),
                    "{len}"
                );
            }
            let ins = edited(&f.ins, |ins| ins[0].resize(len, 0));
            assert_eq!(
                ok(&ins, &f.outs, &f.payload),
                Err(Error::RingRoles),
                "{len}"
            );
        }
        let two_heads = vec![f.outs[0].clone(), f.outs[0].clone()];
        assert_eq!(ok(&f.ins, &two_heads, &f.payload), Err(Error::RingRoles));
        let no_head = vec![f.outs[1].clone(), f.outs[1].clone()];
        assert_eq!(ok(&f.ins, &no_head, &f.payload), Err(Error::RingRoles));
        let creation = edited(&f.creation, |creation| creation[0].truncate(40));
        assert_eq!(create(&creation), Err(Error::RingRoles));

        // -103: a snapshot other than the oldest consumed (its size differs from older[0]).
        let ins = edited(&f.ins, |ins| ins[1][32] ^= 1);
        assert_eq!(ok(&ins, &f.outs, &f.payload), Err(Error::RingNotOldest));

        // -105: older unshifted, each slot changed; creation's copies.
        let outs = edited(&f.outs, |outs| {
            outs[0][40..].copy_from_slice(&f.ins[0][40..])
        });
        assert_eq!(ok(&f.ins, &outs, &f.payload), Err(Error::RingSizesMismatch));
        for slot in 0..usize::from(k) - 1 {
            let outs = edited(&f.outs, |outs| outs[0][40 + 8 * slot] ^= 0x10);
            assert_eq!(ok(&f.ins, &outs, &f.payload), Err(Error::RingSizesMismatch));
            let creation = edited(&f.creation, |creation| creation[0][40 + 8 * slot] ^= 0x10);
            assert_eq!(create(&creation), Err(Error::RingSizesMismatch));
        }

        // -104: the snapshot output with another state, a flipped byte; a creation snapshot;
        // a KEEP changing any cell.
        for byte in [0, 31, 32, 39] {
            let outs = edited(&f.outs, |outs| outs[1][byte] ^= 1);
            assert_eq!(ok(&f.ins, &outs, &f.payload), Err(Error::SnapshotMismatch));
            let creation = edited(&f.creation, |creation| creation[usize::from(k)][byte] ^= 1);
            assert_eq!(create(&creation), Err(Error::SnapshotMismatch));
        }
        let outs = edited(&f.outs, |outs| outs[1] = f.ins[1].clone());
        assert_eq!(ok(&f.ins, &outs, &f.payload), Err(Error::SnapshotMismatch));
        for cell in 0..f.whole.len() {
            let outs = edited(&f.whole, |outs| outs[cell][7] ^= 1);
            assert_eq!(
                ok(&f.whole, &outs, &[tag::KEEP]),
                Err(Error::SnapshotMismatch)
            );
        }

        // -106: a different lock on each output, and on the head input.
        let ws = &mut Workspace::new();
        let lockings = |n: usize, odd: Option<usize>| {
            (0..n)
                .map(|i| if Some(i) == odd { OTHER } else { LOCK })
                .collect::<Vec<_>>()
        };
        for (ins, outs, p) in [
            (&f.ins, &f.outs, &f.payload),
            (&vec![], &f.creation, &f.creation_payload),
            (&f.whole, &f.whole, &vec![tag::KEEP]),
        ] {
            let il = lockings(ins.len(), None);
            for odd in 0..outs.len() {
                let ol = lockings(outs.len(), Some(odd));
                assert_eq!(
                    ring::verify_ring::<Blake>(ws, k, &cells(ins, &il), &cells(outs, &ol), p),
                    Err(Error::RingLockMismatch),
                    "K {k} output {odd}"
                );
            }
            // The consumed snapshot's lock is not checked (its own lock ran); KEEP's inputs
            // may carry any lock (a hand-over).
            if !ins.is_empty() {
                let il = lockings(ins.len(), Some(1));
                let ol = lockings(outs.len(), None);
                assert_eq!(
                    ring::verify_ring::<Blake>(ws, k, &cells(ins, &il), &cells(outs, &ol), p),
                    Ok(())
                );
            }
        }
        let (il, ol) = (lockings(2, Some(0)), lockings(2, None));
        let (ins, outs) = (cells(&f.ins, &il), cells(&f.outs, &ol));
        let got = ring::verify_ring::<Blake>(ws, k, &ins, &outs, &f.payload);
        assert_eq!(got, Err(Error::RingLockMismatch));

        // Rule 5: every tag on every shape; rule 6: the payload decides last.
        for t in 0..=6u8 {
            for (ins, outs, fits) in [
                (&vec![], &f.creation, [tag::CREATE, tag::IMPORT]),
                (&f.ins, &f.outs, [tag::APPEND, tag::EXTEND]),
                (&f.whole, &f.whole, [tag::KEEP, tag::KEEP]),
            ] {
                let got = ok(ins, outs, &[t]);
                if !(1..=5).contains(&t) {
                    assert_eq!(got, Err(Error::UnknownTransition), "tag {t}");
                } else if !fits.contains(&t) {
                    assert_eq!(got, Err(Error::RingShape), "tag {t}");
                } else {
                    assert_ne!(got, Err(Error::RingShape), "tag {t}");
                }
            }
        }
        assert_eq!(ok(&f.ins, &f.outs, &[]), Err(Error::UnknownTransition));
        // A payload against another state: today's codes (the head input's state is old).
        let p = edited(&f.payload, |p| p[1] ^= 1);
        assert_eq!(ok(&f.ins, &f.outs, &p), Err(Error::OldRootMismatch));
        assert_eq!(
            ok(&f.whole, &f.whole, &[tag::KEEP, 0]),
            Err(Error::TransitionPayload)
        );
        // A ring code decides before a broken payload.
        let ins = edited(&f.ins, |ins| ins[1][32] ^= 1);
        assert_eq!(ok(&ins, &f.outs, &p), Err(Error::RingNotOldest));
    }
}

/// The contract's head index for the type id before rule 3: the first head-length cell.
#[test]
fn head_candidate() {
    let f = fixture(8);
    let locks = vec![LOCK; f.creation.len()];
    let mut data = f.creation.clone();
    data.rotate_left(3);
    assert_eq!(ring::head_candidate(8, &cells(&data, &locks)), Some(6));
    data[6].truncate(40);
    assert_eq!(ring::head_candidate(8, &cells(&data, &locks)), None);
    let head = rb::head_data(&commit(&leaves(1, 1)), &[1; 7]);
    let ((_, size), older) = ring::split_head(8, &head).unwrap();
    assert_eq!(size, 1);
    assert_eq!(older.collect::<Vec<_>>(), vec![1; 7]);
}
