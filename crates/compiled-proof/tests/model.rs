//! Differential test against a literal transcription of the spec's pseudo-code
//! (docs/compiled-format.md, section 4): same root or same code for every input. The
//! optimised verifier caches, defers and restructures; this model does none of that.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::{Command, FormatError};
use rand::{rngs::StdRng, Rng, SeedableRng};

struct Node {
    first: u64,
    height: u32,
    hash: Hash,
}

/// Steps 1-8 of the spec, verbatim. Returns the bagged root or the exit code.
fn model(payload: &[u8], leaf_count: u64) -> Result<Hash, i8> {
    // 1.
    if leaf_count == 0 || leaf_count >= 1 << 50 {
        return Err(40);
    }
    // 2.-5.
    let len = payload.len();
    if len < 4 {
        return Err(41);
    }
    let n = u32::from_le_bytes(payload[0..4].try_into().unwrap()) as usize;
    if n == 0 {
        return Err(42);
    }
    if len - 4 < 40 * n {
        return Err(43);
    }
    let leaves = &payload[4..4 + 40 * n];
    let mut cmds = &payload[4 + 40 * n..];
    let mut stack: Vec<Node> = Vec::new();
    let mut base = 0usize;
    let mut used = 0usize;
    let mut rem = leaf_count;
    let (mut h_peak, mut start, mut end, mut next_min) = (0u32, 0u64, 0u64, 0u64);
    let set_peak = |rem: u64, h: &mut u32, s: &mut u64, e: &mut u64, m: &mut u64| {
        *h = 63 - rem.leading_zeros();
        *s = leaf_count - rem;
        *e = *s + (1u64 << *h);
        *m = *s;
    };
    set_peak(rem, &mut h_peak, &mut start, &mut end, &mut next_min);
    // 6.
    loop {
        if cmds.is_empty() {
            if rem != 0 {
                return Err(63);
            }
            break;
        }
        if rem == 0 {
            return Err(45);
        }
        let op = cmds[0];
        cmds = &cmds[1..];
        if !(1..=6).contains(&op) {
            return Err(44);
        }
        let mut item = [0u8; 32];
        if matches!(op, 3 | 5 | 6) {
            if cmds.len() < 32 {
                return Err(46);
            }
            item.copy_from_slice(&cmds[..32]);
            cmds = &cmds[32..];
        }
        let depth = stack.len();
        match op {
            1 => {
                if depth == 64 {
                    return Err(47);
                }
                if used == n {
                    return Err(48);
                }
                let rec = &leaves[40 * used..40 * used + 40];
                let index = u64::from_le_bytes(rec[..8].try_into().unwrap());
                let value: Hash = rec[8..].try_into().unwrap();
                used += 1;
                if index >= leaf_count {
                    return Err(49);
                }
                if index < next_min {
                    return Err(50);
                }
                if index >= end {
                    return Err(51);
                }
                next_min = index + 1;
                stack.push(Node {
                    first: index,
                    height: 0,
                    hash: value,
                });
            }
            2 => {
                if depth - base < 2 {
                    return Err(54);
                }
                let r = stack.pop().unwrap();
                let l = stack.last_mut().unwrap();
                let h = l.height;
                if r.height != h {
                    return Err(55);
                }
                if l.first & (1 << h) != 0 || r.first != l.first + (1 << h) {
                    return Err(56);
                }
                l.hash = merge(&l.hash, &r.hash);
                l.height = h + 1;
            }
            3 => {
                if depth == base {
                    return Err(52);
                }
                let t = stack.last_mut().unwrap();
                let h = t.height;
                if h == h_peak {
                    return Err(53);
                }
                t.hash = if t.first & (1 << h) == 0 {
                    merge(&t.hash, &item)
                } else {
                    merge(&item, &t.hash)
                };
                t.first &= !(1 << h);
                t.height = h + 1;
            }
            4 => {
                if depth == base {
                    return Err(57);
                }
                if depth - base > 1 {
                    return Err(58);
                }
                let t = stack.last().unwrap();
                if t.height != h_peak || t.first != start {
                    return Err(59);
                }
                base += 1;
                rem -= 1 << h_peak;
                if rem != 0 {
                    set_peak(rem, &mut h_peak, &mut start, &mut end, &mut next_min);
                }
            }
            5 => {
                if depth != base {
                    return Err(60);
                }
                stack.push(Node {
                    first: 0,
                    height: 0,
                    hash: item,
                });
                base += 1;
                rem -= 1 << h_peak;
                if rem != 0 {
                    set_peak(rem, &mut h_peak, &mut start, &mut end, &mut next_min);
                }
            }
            6 => {
                if depth != base {
                    return Err(61);
                }
                if rem.count_ones() < 2 {
                    return Err(62);
                }
                stack.push(Node {
                    first: 0,
                    height: 0,
                    hash: item,
                });
                base += 1;
                rem = 0;
            }
            _ => unreachable!(),
        }
    }
    // 7.
    if used != n {
        return Err(64);
    }
    // 8.
    let mut acc = stack.last().unwrap().hash;
    for p in stack.iter().rev().skip(1) {
        acc = merge(&acc, &p.hash);
    }
    Ok(acc)
}

fn check(payload: &[u8], leaf_count: u64) -> bool {
    let got = compute_root(payload, leaf_count).map_err(FormatError::code);
    let want = model(payload, leaf_count);
    assert_eq!(got, want, "leaf_count {leaf_count} payload {payload:02x?}");
    got.is_ok()
}

/// Random command streams from a grammar biased towards almost-valid proofs.
#[test]
fn random_streams_match_model() {
    let mut rng = StdRng::seed_from_u64(0x30de_0001);
    let f = Fixture::random(&mut rng, 64);
    let mut accepted = 0;
    let cases = 200_000;
    for _ in 0..cases {
        let n: u64 = match rng.gen_range(0..10) {
            0 => rng.gen_range(0..3),
            1 => (1 << 50) - rng.gen_range(0..3),
            2 => rng.gen_range(1..1 << 20),
            _ => rng.gen_range(1..=64),
        };
        let k = rng.gen_range(0..5usize);
        let mut records: Vec<(u64, Hash)> = Vec::new();
        let mut index = 0u64;
        for _ in 0..k {
            index += rng.gen_range(0..4);
            let i = if rng.gen_ratio(1, 20) {
                rng.gen()
            } else {
                index
            };
            records.push((i, f.leaves[(i % 64) as usize]));
        }
        let items: Vec<Hash> = (0..4).map(|_| f.node(rng.gen_range(0..100))).collect();
        let len = rng.gen_range(0..12);
        let commands: Vec<Command> = (0..len)
            .map(|_| {
                let item = items[rng.gen_range(0..items.len())];
                match rng.gen_range(0..12) {
                    0..=2 => Command::Leaf,
                    3..=5 => Command::Proof(item),
                    6 => Command::Merge,
                    7 | 8 => Command::Peak,
                    9 | 10 => Command::PeakProof(item),
                    _ => Command::BagRhs(item),
                }
            })
            .collect();
        let mut payload = enc(&records, &commands);
        match rng.gen_range(0..8) {
            0 => payload.truncate(rng.gen_range(0..=payload.len())),
            1 => payload.push(rng.gen()),
            2 if !payload.is_empty() => {
                let at = rng.gen_range(0..payload.len());
                payload[at] = rng.gen();
            }
            _ => {}
        }
        if check(&payload, n) {
            accepted += 1;
        }
    }
    eprintln!("{cases} random streams, {accepted} well formed");
}

/// Honest proofs mutated at the command level (delete, duplicate, swap, replace commands;
/// move, add or drop leaf records; other leaf counts). Every code must be reached.
#[test]
fn mutated_streams_match_model() {
    let mut rng = StdRng::seed_from_u64(0x30de_0003);
    let f = Fixture::random(&mut rng, 200);
    let mut seen = std::collections::BTreeMap::<i8, usize>::new();
    for _ in 0..100_000 {
        let mut n = rng.gen_range(1..=200u64);
        let indexes = random_indexes(&mut rng, n, 6);
        let (mut records, mut commands) = decode(&f.payload(n, &indexes));
        for _ in 0..rng.gen_range(1..=3) {
            let c = commands.len();
            let item = f.node(rng.gen_range(0..300));
            match rng.gen_range(0..10) {
                0 if c > 0 => {
                    commands.remove(rng.gen_range(0..c));
                }
                1 if c > 0 => {
                    let i = rng.gen_range(0..c);
                    commands.insert(i, commands[i]);
                }
                2 if c > 1 => {
                    let i = rng.gen_range(0..c - 1);
                    commands.swap(i, i + 1);
                }
                3 | 4 => {
                    let new = match rng.gen_range(0..6) {
                        0 => Command::Leaf,
                        1 => Command::Merge,
                        2 => Command::Proof(item),
                        3 => Command::Peak,
                        4 => Command::PeakProof(item),
                        _ => Command::BagRhs(item),
                    };
                    let i = rng.gen_range(0..=c);
                    if rng.gen() && c > 0 {
                        commands[i.min(c - 1)] = new;
                    } else {
                        commands.insert(i, new);
                    }
                }
                5 => {
                    let i = rng.gen_range(0..records.len());
                    records[i].0 = match rng.gen_range(0..3) {
                        0 => records[i].0.wrapping_add(rng.gen_range(1..4)),
                        1 => records[i].0.wrapping_sub(rng.gen_range(1..4)),
                        _ => rng.gen_range(0..n + 3),
                    };
                }
                6 if records.len() > 1 => {
                    records.remove(rng.gen_range(0..records.len()));
                }
                7 => records.push((rng.gen_range(0..n + 2), [7; 32])),
                8 => n = rng.gen_range(1..=n + 3),
                _ => {
                    // A 65-leaf push run into a tall peak.
                    n = 1 << 40;
                    records = (0..65).map(|i| (i, [1; 32])).collect();
                    commands = vec![Command::Leaf; rng.gen_range(60..70)];
                }
            }
        }
        let mut payload = enc(&records, &commands);
        match rng.gen_range(0..12) {
            0 => payload.truncate(rng.gen_range(0..=payload.len())),
            1 => payload.push(rng.gen()),
            2 => payload[..4].copy_from_slice(&rng.gen_range(0..4u32).to_le_bytes()),
            3 => n = [0, 1 << 50, u64::MAX][rng.gen_range(0..3)],
            _ => {}
        }
        let got = compute_root(&payload, n).map_err(FormatError::code);
        assert_eq!(got, model(&payload, n), "n {n} payload {payload:02x?}");
        let code = match got {
            Ok(root) if n <= 200 && root == f.root(n) => {
                // Accepted against the real root: every claimed leaf must be true.
                for &(index, value) in &records {
                    assert_eq!(f.leaves.get(index as usize), Some(&value), "forgery");
                    assert!(index < n);
                }
                0
            }
            Ok(_) => 9,
            Err(c) => c,
        };
        *seen.entry(code).or_default() += 1;
    }
    eprintln!("codes reached: {seen:?}");
    for code in [0, 9].into_iter().chain(40..=64) {
        assert!(seen.contains_key(&code), "code {code} never reached");
    }
}

/// Writes the mutated-stream corpus as vectors for the C harness (`contracts/c-verifier/host/harness.c`
/// format: `P payload root mmr_size code`), with the Rust verdicts as the expected codes:
/// `CP_VECTORS_OUT=/tmp/rust.vec cargo test -p compiled-proof --features std --release
/// --test model -- --ignored dump_vectors`.
#[test]
#[ignore]
fn dump_vectors() {
    use std::io::Write;
    let path = std::env::var("CP_VECTORS_OUT").expect("set CP_VECTORS_OUT");
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let hex = |b: &[u8]| -> String {
        if b.is_empty() {
            "-".into()
        } else {
            b.iter().map(|x| format!("{x:02x}")).collect()
        }
    };
    let mut rng = StdRng::seed_from_u64(0x30de_0004);
    let f = Fixture::random(&mut rng, 200);
    for case in 0..20_000 {
        let n = rng.gen_range(1..=200u64);
        let indexes = random_indexes(&mut rng, n, 6);
        let (mut records, mut commands) = decode(&f.payload(n, &indexes));
        for _ in 0..rng.gen_range(0..=2) {
            let c = commands.len();
            let item = f.node(rng.gen_range(0..300));
            match rng.gen_range(0..6) {
                0 if c > 0 => {
                    commands.remove(rng.gen_range(0..c));
                }
                1 if c > 1 => {
                    let i = rng.gen_range(0..c - 1);
                    commands.swap(i, i + 1);
                }
                2 => commands.insert(rng.gen_range(0..=c), Command::Proof(item)),
                3 => commands.insert(rng.gen_range(0..=c), Command::Leaf),
                4 => {
                    let i = rng.gen_range(0..records.len());
                    records[i].0 = rng.gen_range(0..n + 2);
                }
                _ => records.push((rng.gen_range(0..n + 2), [7; 32])),
            }
        }
        let mut payload = enc(&records, &commands);
        if rng.gen_ratio(1, 4) {
            let at = rng.gen_range(0..payload.len());
            payload[at] = rng.gen();
        }
        let root = f.root(n);
        let code = match verify(&payload, &root, n) {
            Ok(()) => 0,
            Err(e) => e.code(),
        };
        let size = mmr_lock::mmr::mmr_size_of(n);
        writeln!(
            out,
            "P {} {} {size} {code} rust-{case}",
            hex(&payload),
            hex(&root)
        )
        .unwrap();
    }
}

/// Honest proofs and their single-byte mutations.
#[test]
fn mutated_honest_proofs_match_model() {
    let mut rng = StdRng::seed_from_u64(0x30de_0002);
    let f = Fixture::random(&mut rng, 500);
    for _ in 0..3000 {
        let n = rng.gen_range(1..=500u64);
        let indexes = random_indexes(&mut rng, n, 12);
        let payload = f.payload(n, &indexes);
        assert!(check(&payload, n));
        for _ in 0..5 {
            let mut p = payload.clone();
            let at = rng.gen_range(0..p.len());
            p[at] = rng.gen();
            check(&p, n);
            let p = edited(&payload, |p| p.truncate(rng.gen_range(0..payload.len())));
            check(&p, n);
        }
        // Same payload against other leaf counts.
        check(&payload, rng.gen_range(1..=600));
    }
}
