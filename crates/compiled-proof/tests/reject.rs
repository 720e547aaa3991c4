//! Every soundness class of the brief, with the exact code the spec's check order gives.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::Command::{self, *};
use compiled_proof::FormatError::{self, *};
use rand::{rngs::StdRng, Rng, SeedableRng};

fn fixture() -> Fixture {
    let mut rng = StdRng::seed_from_u64(0xbad_0001);
    Fixture::random(&mut rng, 64)
}

fn run(
    records: &[(u64, Hash)],
    commands: &[Command],
    root: &Hash,
    n: u64,
) -> Result<(), FormatError> {
    verify(&enc(records, commands), root, n)
}

/// Peak hashes of the fixture's MMR with `n` leaves.
fn peak_hashes(f: &Fixture, n: u64) -> Vec<Hash> {
    peaks(n)
        .iter()
        .map(|&(first, h)| node_hash(&f.leaves, first, h))
        .collect()
}

#[test]
fn codes_are_distinct_and_in_range() {
    let all = [
        RootMismatch,
        LeafCountInvalid,
        HeaderTruncated,
        NoLeaves,
        LeavesTruncated,
        UnknownCommand,
        TrailingBytes,
        ItemTruncated,
        StackOverflow,
        LeavesExhausted,
        LeafIndexOutOfRange,
        LeafIndexNotAscending,
        LeafOutsidePeak,
        ProofNoNode,
        ProofOverPeak,
        MergeNoNodes,
        MergeHeightMismatch,
        MergeNotSiblings,
        PeakNoNode,
        PeakPendingNodes,
        PeakMismatch,
        PeakProofPendingNodes,
        BagRhsPendingNodes,
        BagRhsTooFewPeaks,
        PeaksIncomplete,
        LeavesUnconsumed,
    ];
    let codes: Vec<i8> = all.iter().map(|e| e.code()).collect();
    assert_eq!(codes[0], 9);
    assert_eq!(codes[1..], (40..=64).collect::<Vec<i8>>());
}

/// Class 1: no leaves.
#[test]
fn no_leaves() {
    let f = fixture();
    let root1 = f.root(1);
    let root7 = f.root(7);
    let at1 = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root1, 1);
    let at7 = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root7, 7);
    assert_eq!(verify(&[], &root1, 1), Err(HeaderTruncated));
    assert_eq!(verify(&[0, 0, 0], &root1, 1), Err(HeaderTruncated));
    assert_eq!(verify(&[0, 0, 0, 0], &root1, 1), Err(NoLeaves));
    // A root pushed as proof item and made a peak: with no leaf record ...
    assert_eq!(at1(&[], &[PeakProof(root1)]), Err(NoLeaves));
    // ... or with a leaf record that is never pushed.
    let leaf0 = (0, f.leaves[0]);
    assert_eq!(at1(&[leaf0], &[PeakProof(root1)]), Err(LeavesUnconsumed));
    // The root of a 3-peak MMR passed off as the bag of all its peaks.
    assert_eq!(at7(&[leaf0], &[BagRhs(root7)]), Err(LeavesUnconsumed));
    // Every peak given as an item.
    let cmds: Vec<Command> = peak_hashes(&f, 7).into_iter().map(PeakProof).collect();
    assert_eq!(at7(&[leaf0], &cmds), Err(LeavesUnconsumed));
    // Honest control.
    assert_eq!(at1(&[leaf0], &[Leaf, Peak]), Ok(()));
}

/// Class 2: leaf indexes outside the MMR, moved leaves, peaks shifted.
#[test]
fn bad_leaf_positions() {
    let f = fixture();
    let n = 11; // peaks (0,3) (8,1) (10,0)
    let root = f.root(n);
    for index in [n, n + 1, 1 << 50, u64::MAX] {
        assert_eq!(
            run(&[(index, f.leaves[0])], &[Leaf, Peak], &root, n),
            Err(LeafIndexOutOfRange),
            "{index}"
        );
    }
    // Every honest single-leaf proof with its leaf moved to every other index fails.
    for proved in 0..n {
        let payload = f.payload(n, &[proved]);
        assert_eq!(verify(&payload, &root, n), Ok(()));
        let (mut records, commands) = decode(&payload);
        for moved in (0..n + 2).filter(|&m| m != proved) {
            records[0].0 = moved;
            let got = verify(&enc(&records, &commands), &root, n);
            let peak_of = |i: u64| {
                peaks(n)
                    .iter()
                    .position(|&(s, h)| s <= i && i < s + (1 << h))
            };
            let expected = if moved >= n {
                LeafIndexOutOfRange
            } else if peak_of(moved) == peak_of(proved) {
                RootMismatch
            } else if moved < proved {
                // The leaf now belongs to an earlier peak, which the stream already covered
                // (PEAK_PROOF) before this LEAF: behind next_min.
                LeafIndexNotAscending
            } else {
                LeafOutsidePeak
            };
            assert_eq!(got, Err(expected), "proved {proved} moved {moved}");
        }
    }
    // Leaf at the start of a later peak claimed inside peak 0's stream position.
    let (mut records, commands) = decode(&f.payload(n, &[9]));
    records[0].0 = 1;
    assert_eq!(
        verify(&enc(&records, &commands), &root, n),
        Err(LeafIndexNotAscending)
    );

    // Shifting peaks, n = 3 (peaks (0,1), (2,0)): root = merge(L2, merge(L0, L1)).
    let p = peak_hashes(&f, 3);
    let root3 = f.root(3);
    let at3 = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root3, 3);
    assert_eq!(root3, merge(&p[1], &p[0]));
    // Leaf 2's value claimed at index 0, hashed with peak 0 into "the root" as node (0, 1).
    let forged = [(0, f.leaves[2])];
    assert_eq!(
        at3(&forged, &[Leaf, Proof(p[0]), Peak]),
        Err(PeaksIncomplete)
    );
    assert_eq!(
        at3(&forged, &[Leaf, Proof(p[0]), Peak, PeakProof(p[1])]),
        Err(RootMismatch)
    );
    // Leaf 2 is itself a peak: hashing it with the other peak is a hash over a peak.
    let leaf2 = [(2, f.leaves[2])];
    assert_eq!(
        at3(&leaf2, &[PeakProof(p[0]), Leaf, Proof(p[0])]),
        Err(ProofOverPeak)
    );
    assert_eq!(at3(&leaf2, &[PeakProof(p[0]), Leaf, Peak]), Ok(()));
    // A bagged pair of peaks passed off as one node: n = 6, peaks (0,2), (4,1).
    let p6 = peak_hashes(&f, 6);
    let root6 = f.root(6);
    let at6 = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root6, 6);
    // Leaf 5 with its sibling, then the left peak as if it were a sibling at height 1.
    let leaf5 = [(5, f.leaves[5])];
    assert_eq!(
        at6(
            &leaf5,
            &[PeakProof(p6[0]), Leaf, Proof(f.leaves[4]), Proof(p6[0])]
        ),
        Err(ProofOverPeak)
    );
    assert_eq!(
        at6(&leaf5, &[PeakProof(p6[0]), Leaf, Proof(f.leaves[4]), Peak]),
        Ok(())
    );
    // The same leaf claimed inside the first peak's range fails on the peak check.
    assert_eq!(
        at6(&[(1, f.leaves[5])], &[Leaf, Proof(f.leaves[4]), Peak]),
        Err(PeakMismatch)
    );
}

/// Class 3 (at this level): the leaf count handed over must be canonical-range.
#[test]
fn leaf_count_range() {
    let f = fixture();
    let payload = f.payload(1, &[0]);
    let root = f.root(1);
    for bad in [0, 1 << 50, (1 << 50) + 1, u64::MAX] {
        assert_eq!(verify(&payload, &root, bad), Err(LeafCountInvalid));
        assert_eq!(verify(&[], &root, bad), Err(LeafCountInvalid));
    }
    assert_eq!(verify(&payload, &root, 1), Ok(()));
}

/// Class 4: lengths that split or join bytes.
#[test]
fn lengths() {
    let f = fixture();
    let root = f.root(5);
    let payload = f.payload(5, &[0, 3]);
    let mut p = payload.clone();
    p[0] = 5; // 5 records need 204 bytes
    assert_eq!(verify(&p, &root, 5), Err(LeavesTruncated));
    let short = enc(&[(0, f.leaves[0])], &[]);
    assert_eq!(verify(&short[..43], &root, 5), Err(LeavesTruncated));
    assert_eq!(verify(&short, &root, 5), Err(PeaksIncomplete));
    // An item one byte short, followed by nothing.
    let mut p = enc(&[(0, f.leaves[0])], &[Leaf, Proof(f.leaves[1])]);
    p.pop();
    assert_eq!(verify(&p, &root, 5), Err(ItemTruncated));
    for cmd in [PeakProof([7; 32]), BagRhs([7; 32])] {
        let mut p = enc(&[(4, f.leaves[4])], &[cmd]);
        p.truncate(p.len() - 1);
        assert_eq!(verify(&p, &root, 5), Err(ItemTruncated));
    }
}

/// Class 5: duplicate or unsorted leaves.
#[test]
fn duplicate_and_unsorted_leaves() {
    let f = fixture();
    let n = 8;
    let root = f.root(n);
    let (records, commands) = decode(&f.payload(n, &[2, 3]));
    assert_eq!(run(&records, &commands, &root, n), Ok(()));
    let dup = [records[0], records[0]];
    assert_eq!(run(&dup, &commands, &root, n), Err(LeafIndexNotAscending));
    let swapped = [records[1], records[0]];
    assert_eq!(
        run(&swapped, &commands, &root, n),
        Err(LeafIndexNotAscending)
    );
    // Same value twice at consecutive indexes is a different (false) statement.
    let twice = [records[0], (3, records[0].1)];
    assert_eq!(run(&twice, &commands, &root, n), Err(RootMismatch));
}

/// Class 6: unused items, unconsumed leaves, trailing bytes, unknown commands, final stack.
#[test]
fn leftovers() {
    let f = fixture();
    let n = 13; // peaks (0,3) (8,2) (12,0)
    let root = f.root(n);
    let payload = f.payload(n, &[1, 9]);
    assert_eq!(verify(&payload, &root, n), Ok(()));
    let (records, commands) = decode(&payload);
    let at = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root, n);
    assert_eq!(commands.last(), Some(&PeakProof(f.leaves[12])));

    // Unused proof item: after the end, or on a finished peak node.
    let extra = edited(&commands, |extra| extra.push(Proof([1; 32])));
    assert_eq!(at(&records, &extra), Err(TrailingBytes));
    let first_peak = commands.iter().position(|c| *c == Peak).unwrap();
    let extra = edited(&commands, |extra| extra.insert(first_peak, Proof([1; 32])));
    assert_eq!(at(&records, &extra), Err(ProofOverPeak));

    // Unconsumed leaf: an extra record never pushed.
    let more = edited(&records, |more| more.push((12, f.leaves[12])));
    assert_eq!(at(&more, &commands), Err(LeavesUnconsumed));
    // ... and one LEAF too many.
    let extra = edited(&commands, |extra| extra.insert(commands.len() - 1, Leaf));
    assert_eq!(at(&records, &extra), Err(LeavesExhausted));
    // A LEAF before its peak's turn.
    let early = edited(&commands, |early| early.insert(0, Leaf));
    assert_eq!(at(&records, &early), Err(LeafOutsidePeak));

    // Trailing bytes of any value.
    for b in [0x00, 0x01, 0x04, 0xff] {
        let p = edited(&payload, |p| p.push(b));
        assert_eq!(verify(&p, &root, n), Err(TrailingBytes));
    }
    // Unknown commands in every command position.
    let first_cmd = 4 + 40 * records.len();
    for b in [0x00, 0x07, 0x80, 0xff] {
        let p = edited(&payload, |p| p[first_cmd] = b);
        assert_eq!(verify(&p, &root, n), Err(UnknownCommand));
    }
    // Final stack: the last peak missing, a working node left over.
    assert_eq!(
        at(&records, &commands[..commands.len() - 1]),
        Err(PeaksIncomplete)
    );
    let two = [(0, f.leaves[0]), (1, f.leaves[1])];
    assert_eq!(at(&two, &[Leaf, Leaf, Peak]), Err(PeakPendingNodes));
    assert_eq!(
        at(&two, &[Leaf, Leaf, PeakProof([0; 32])]),
        Err(PeakProofPendingNodes)
    );
    assert_eq!(at(&two, &[Leaf, BagRhs([0; 32])]), Err(BagRhsPendingNodes));
    assert_eq!(at(&two, &[]), Err(PeaksIncomplete));
}

/// Class 7: hash over two proof items or over a peak; PEAK out of order; stack overflow.
#[test]
fn stack_misuse() {
    let f = fixture();
    let n = 7; // peaks (0,2) (4,1) (6,0)
    let root = f.root(n);
    let p = peak_hashes(&f, n);
    let leaf6 = [(6, f.leaves[6])];
    let at = |records: &[(u64, Hash)], commands: &[Command]| run(records, commands, &root, n);
    // Two proof items (as peaks) merged.
    assert_eq!(
        at(&leaf6, &[PeakProof(p[0]), PeakProof(p[1]), Merge]),
        Err(MergeNoNodes)
    );
    // A proof item as the only operand of a hash.
    assert_eq!(
        at(&leaf6, &[PeakProof(p[0]), Proof(p[1])]),
        Err(ProofNoNode)
    );
    assert_eq!(at(&leaf6, &[Proof(p[1])]), Err(ProofNoNode));
    // A node hashed with the finished peak below it.
    let leaf4 = [(4, f.leaves[4])];
    assert_eq!(
        at(&leaf4, &[PeakProof(p[0]), Leaf, Merge]),
        Err(MergeNoNodes)
    );
    // Hash over a peak node: the leaf's peak is complete.
    assert_eq!(
        at(
            &leaf6,
            &[PeakProof(p[0]), PeakProof(p[1]), Leaf, Proof(p[1])]
        ),
        Err(ProofOverPeak)
    );
    assert_eq!(
        at(&leaf6, &[PeakProof(p[0]), PeakProof(p[1]), Leaf, Peak]),
        Ok(())
    );
    // PEAK out of order: too early (height 0 or 1 of a height-2 peak), or missing.
    let leaf0 = [(0, f.leaves[0])];
    assert_eq!(at(&leaf0, &[Leaf, Peak]), Err(PeakMismatch));
    assert_eq!(
        at(&leaf0, &[Leaf, Proof(f.leaves[1]), Peak]),
        Err(PeakMismatch)
    );
    assert_eq!(at(&leaf0, &[Peak]), Err(PeakNoNode));
    assert_eq!(at(&leaf4, &[Leaf]), Err(LeafOutsidePeak));
    // MERGE shapes.
    let l = |i: u64| (i, f.leaves[i as usize]);
    assert_eq!(
        at(&[l(0), l(1)], &[Leaf, Leaf, Merge, Peak]),
        Err(PeakMismatch)
    );
    assert_eq!(
        at(&[l(1), l(2)], &[Leaf, Leaf, Merge]),
        Err(MergeNotSiblings)
    );
    assert_eq!(
        at(&[l(0), l(2)], &[Leaf, Leaf, Merge]),
        Err(MergeNotSiblings)
    );
    assert_eq!(
        at(&[l(0), l(2)], &[Leaf, Proof(f.leaves[1]), Leaf, Merge]),
        Err(MergeHeightMismatch)
    );
    assert_eq!(at(&[l(0)], &[Leaf, Merge]), Err(MergeNoNodes));
    // BAG_RHS needs two remaining peaks.
    assert_eq!(
        at(&leaf0, &[PeakProof(p[0]), PeakProof(p[1]), BagRhs(p[2])]),
        Err(BagRhsTooFewPeaks)
    );
    assert_eq!(
        run(&leaf0, &[BagRhs(root)], &f.root(4), 4),
        Err(BagRhsTooFewPeaks)
    );
    // With one peak left, the same stream ends rightly in PEAK_PROOF, never in BAG_RHS.
    for (last, verdict) in [
        (BagRhs(p[2]), Err(BagRhsTooFewPeaks)),
        (PeakProof(p[2]), Ok(())),
    ] {
        let cmds = [PeakProof(p[0]), Leaf, Proof(f.leaves[5]), Peak, last];
        assert_eq!(at(&leaf4, &cmds), verdict, "ending in {last:?}");
    }

    // Stack overflow: 65 leaves pushed into a 2^49-leaf peak.
    let big = 1u64 << 49;
    let records: Vec<(u64, Hash)> = (0..65).map(|i| (i, [i as u8; 32])).collect();
    let pushes = vec![Leaf; 65];
    assert_eq!(run(&records, &pushes, &root, big), Err(StackOverflow));
    assert_eq!(
        run(&records[..64], &pushes[..64], &root, big),
        Err(PeaksIncomplete)
    );
    let mut cmds = pushes[..64].to_vec();
    cmds.push(Peak);
    assert_eq!(
        run(&records[..64], &cmds, &root, big),
        Err(PeakPendingNodes)
    );
}

/// Class 8: extreme indexes and heights: the largest MMRs, the tallest peaks.
#[test]
fn extreme_sizes() {
    // leaf_count = 2^50 - 1: 50 peaks of heights 49..0. Prove leaf 0 (49 PROOFs, PEAK,
    // BAG_RHS over the other 49 peaks) and the last leaf (49 PEAK_PROOFs, LEAF, PEAK).
    let n = (1u64 << 50) - 1;
    let sib = |h: u32| [h as u8 + 1; 32];
    let leaf = [0xaa; 32];
    let mut node = leaf;
    let mut cmds = vec![Leaf];
    for h in 0..49 {
        node = merge(&node, &sib(h));
        cmds.push(Proof(sib(h)));
    }
    cmds.push(Peak);
    let rest = [0xbb; 32];
    cmds.push(BagRhs(rest));
    let root = merge(&rest, &node);
    assert_eq!(run(&[(0, leaf)], &cmds, &root, n), Ok(()));
    // One PROOF too many reaches past the peak.
    let mut over = cmds[..50].to_vec();
    over.push(Proof([0; 32]));
    assert_eq!(run(&[(0, leaf)], &over, &root, n), Err(ProofOverPeak));

    let peaks_items: Vec<Hash> = (0..49).map(|k| [k as u8; 32]).collect();
    let mut cmds: Vec<Command> = peaks_items.iter().copied().map(PeakProof).collect();
    cmds.extend([Leaf, Peak]);
    let all = edited(&peaks_items, |all| all.push(leaf));
    assert_eq!(run(&[(n - 1, leaf)], &cmds, &bag(&all), n), Ok(()));
    assert_eq!(
        run(&[(n, leaf)], &cmds, &bag(&all), n),
        Err(LeafIndexOutOfRange)
    );
    assert_eq!(
        run(&[(n - 2, leaf)], &cmds, &bag(&all), n),
        Err(LeafIndexNotAscending)
    );

    // leaf_count = 2^49 + 1 (mmr_size exactly 2^50): the last leaf is a height-0 peak.
    let n = (1u64 << 49) + 1;
    assert_eq!(mmr_lock::mmr::leaf_count(1 << 50), Some(n));
    let p0 = [0x77; 32];
    assert_eq!(
        run(
            &[(1 << 49, leaf)],
            &[PeakProof(p0), Leaf, Peak],
            &merge(&leaf, &p0),
            n
        ),
        Ok(())
    );
}

/// Class 9 (format level): truncation at every byte offset of an honest payload.
#[test]
fn truncation_everywhere() {
    let mut rng = StdRng::seed_from_u64(0xbad_0002);
    let f = Fixture::random(&mut rng, 2520);
    let n = 2520;
    let indexes = sample_indexes(&mut rng, n, 76);
    let payload = f.payload(n, &indexes);
    let root = f.root(n);
    assert_eq!(verify(&payload, &root, n), Ok(()));
    // Command boundaries.
    let start = 4 + 40 * indexes.len();
    let mut boundaries = vec![start];
    let mut at = start;
    while at < payload.len() {
        at += if matches!(payload[at], 3 | 5 | 6) {
            33
        } else {
            1
        };
        boundaries.push(at);
    }
    for cut in 0..payload.len() {
        let expected = if cut < 4 {
            HeaderTruncated
        } else if cut < start {
            LeavesTruncated
        } else if boundaries.binary_search(&cut).is_ok() {
            PeaksIncomplete
        } else {
            ItemTruncated
        };
        assert_eq!(
            verify(&payload[..cut], &root, n),
            Err(expected),
            "cut {cut}"
        );
    }
}

/// A flipped bit anywhere in a small honest payload, and a changed byte anywhere in a
/// large one, is rejected.
#[test]
fn bit_flips_everywhere() {
    let mut rng = StdRng::seed_from_u64(0xbad_0003);
    let f = Fixture::random(&mut rng, 2520);
    for (n, indexes) in [
        (5u64, vec![0u64, 3]),
        (13, vec![1, 9]),
        (40, vec![0, 7, 8, 21, 39]),
    ] {
        let payload = f.payload(n, &indexes);
        let root = f.root(n);
        assert_eq!(verify(&payload, &root, n), Ok(()));
        for byte in 0..payload.len() {
            for bit in 0..8 {
                let p = edited(&payload, |p| p[byte] ^= 1 << bit);
                assert!(verify(&p, &root, n).is_err(), "n {n} byte {byte} bit {bit}");
            }
        }
    }
    let n = 2520;
    let indexes = sample_indexes(&mut rng, n, 76);
    let payload = f.payload(n, &indexes);
    let root = f.root(n);
    for byte in 0..payload.len() {
        let p = edited(&payload, |p| p[byte] ^= rng.gen_range(1..=255u8));
        assert!(verify(&p, &root, n).is_err(), "byte {byte}");
    }
}

/// Random structural mutations of honest payloads are never accepted.
#[test]
fn random_mutations() {
    let mut rng = StdRng::seed_from_u64(0xbad_0004);
    let f = Fixture::random(&mut rng, 300);
    let mut rejected = 0;
    for _ in 0..3000 {
        let n = rng.gen_range(1..=300u64);
        let indexes = random_indexes(&mut rng, n, 8);
        let payload = f.payload(n, &indexes);
        let root = f.root(n);
        let mut p = payload.clone();
        match rng.gen_range(0..5) {
            0 => {
                let at = rng.gen_range(0..=p.len());
                p.insert(at, rng.gen());
            }
            1 => {
                let at = rng.gen_range(0..p.len());
                p.remove(at);
            }
            2 => {
                let a = rng.gen_range(0..p.len());
                let len = rng.gen_range(1..=40.min(p.len() - a));
                let chunk: Vec<u8> = p[a..a + len].to_vec();
                let at = rng.gen_range(0..=p.len());
                p.splice(at..at, chunk);
            }
            3 => {
                let a = rng.gen_range(0..p.len());
                let b = rng.gen_range(0..p.len());
                p.swap(a, b);
            }
            _ => {
                let (mut records, mut commands) = decode(&payload);
                if rng.gen() && commands.len() > 1 {
                    let i = rng.gen_range(0..commands.len());
                    commands.remove(i);
                } else {
                    let i = rng.gen_range(0..records.len());
                    records[i].0 = rng.gen_range(0..n + 2);
                }
                p = enc(&records, &commands);
            }
        }
        if p == payload {
            continue;
        }
        assert!(verify(&p, &root, n).is_err(), "n {n} {indexes:?}");
        rejected += 1;
    }
    eprintln!("{rejected} mutations rejected");
}
