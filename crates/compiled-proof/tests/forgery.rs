//! Exhaustive search for forgeries in small MMRs: every command stream up to a length bound,
//! over every leaf record built from the MMR's own hashes, with proof items drawn from every
//! node hash, every bagging of a run of peaks and the root. Whenever the verifier accepts,
//! each claimed leaf must really be at its index. Prefixes are extended only while they end
//! in `PeaksIncomplete`: any other verdict is final for every extension (one forward pass).
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::Command;
use compiled_proof::FormatError;
use mmr_lock::mmr::mmr_size_of;
use rand::{rngs::StdRng, SeedableRng};
use std::ops::RangeInclusive;

struct Search<'a> {
    n: u64,
    root: Hash,
    leaves: &'a [Hash],
    alphabet: Vec<Command>,
    max_len: usize,
    runs: u64,
    accepted: u64,
}

impl Search<'_> {
    fn dfs(&mut self, records: &[(u64, Hash)], commands: &mut Vec<Command>) {
        self.runs += 1;
        match verify(&enc(records, commands), &self.root, self.n) {
            Ok(()) => {
                self.accepted += 1;
                for &(index, value) in records {
                    assert_eq!(
                        self.leaves.get(index as usize),
                        Some(&value),
                        "forgery: n {} records {records:?} commands {commands:?}",
                        self.n
                    );
                }
            }
            Err(FormatError::PeaksIncomplete) if commands.len() < self.max_len => {
                for i in 0..self.alphabet.len() {
                    commands.push(self.alphabet[i]);
                    self.dfs(records, commands);
                    commands.pop();
                }
            }
            Err(_) => {}
        }
    }
}

fn candidates(f: &Fixture, n: u64) -> Vec<Hash> {
    let mut items: Vec<Hash> = (0..mmr_size_of(n)).map(|pos| f.node(pos)).collect();
    let peak_hashes: Vec<Hash> = peaks(n)
        .iter()
        .map(|&(first, h)| node_hash(&f.leaves, first, h))
        .collect();
    for a in 0..peak_hashes.len() {
        for b in a + 1..=peak_hashes.len() {
            items.push(bag(&peak_hashes[a..b]));
        }
    }
    items.push(f.root(n));
    items.sort_unstable();
    items.dedup();
    items
}

fn alphabet(items: &[Hash]) -> Vec<Command> {
    let mut a = vec![Command::Leaf, Command::Merge, Command::Peak];
    for &x in items {
        a.extend([Command::Proof(x), Command::PeakProof(x), Command::BagRhs(x)]);
    }
    a
}

/// Runs `search` on a random MMR of each size in `sizes` (one fixture of the largest size, so
/// every smaller MMR is its prefix), with the size's candidates as the values and items.
fn each_size(
    seed: u64,
    sizes: RangeInclusive<u64>,
    what: &str,
    search: impl Fn(&Fixture, &mut Search, &[Hash]),
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let f = Fixture::random(&mut rng, *sizes.end() as usize);
    let (mut runs, mut accepted) = (0, 0);
    for n in sizes {
        let items = candidates(&f, n);
        let mut s = Search {
            n,
            root: f.root(n),
            leaves: &f.leaves[..n as usize],
            alphabet: alphabet(&items),
            max_len: 6,
            runs: 0,
            accepted: 0,
        };
        search(&f, &mut s, &items);
        eprintln!("n {n}: {} runs", s.runs);
        runs += s.runs;
        accepted += s.accepted;
    }
    eprintln!("{what}: {runs} streams run, {accepted} accepted, all true");
}

#[test]
fn no_forgeries_one_leaf() {
    each_size(0xf0_0001, 1..=6, "one leaf", |_, s, items| {
        for index in 0..=s.n {
            for &value in items {
                s.dfs(&[(index, value)], &mut Vec::new());
            }
        }
        // Every leaf has at least one accepted proof.
        assert!(s.accepted >= s.n);
    });
}

#[test]
fn no_forgeries_two_leaves() {
    each_size(0xf0_0002, 2..=4, "two leaves", |f, s, _| {
        let n = s.n;
        // Values: the leaves and the nodes of height 1 (internal nodes posing as leaves).
        let values: Vec<Hash> = (0..mmr_size_of(n)).map(|pos| f.node(pos)).collect();
        for i in 0..n {
            for j in i + 1..n {
                for &a in &values {
                    for &b in &values {
                        s.dfs(&[(i, a), (j, b)], &mut Vec::new());
                    }
                }
            }
        }
        assert!(s.accepted >= n * (n - 1) / 2);
    });
}
