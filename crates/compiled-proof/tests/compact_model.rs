//! A literal transcription of the compact format's sections 3 and 4 (docs/compiled-format.md)
//! checked against the optimised verifier: the same root or the same code for every input,
//! on honest payloads, their mutations and random byte strings shaped like payloads.
#![cfg(feature = "std")]

mod common;

use common::*;
use compiled_proof::{compact, FormatError};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};

/// READ: one varint, section 3.
fn read(bytes: &[u8], at: &mut usize, truncated: FormatError) -> Result<u64, FormatError> {
    let mut value = 0u64;
    for i in 0.. {
        let Some(&b) = bytes.get(*at) else {
            return Err(truncated);
        };
        *at += 1;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i > 0 && b == 0 {
                return Err(FormatError::VarintNonCanonical);
            }
            return Ok(value);
        }
        if i == 7 {
            return Err(FormatError::VarintTooLong);
        }
    }
    unreachable!()
}

/// Steps 1-7 and the bagging, as written.
fn model(payload: &[u8], leaf_count: u64) -> Result<Hash, FormatError> {
    use FormatError::*;
    if leaf_count == 0 || leaf_count >= 1 << 50 {
        return Err(LeafCountInvalid);
    }
    if payload.is_empty() {
        return Err(HeaderTruncated);
    }
    if payload[0] != 0x02 {
        return Err(VersionUnsupported);
    }
    let mut at = 1;
    let n = read(payload, &mut at, HeaderTruncated)?;
    if n == 0 {
        return Err(NoLeaves);
    }
    let mut indexes = Vec::new();
    let mut next = 0u64;
    for _ in 0..n {
        let gap = read(payload, &mut at, IndexesTruncated)?;
        let index = next + gap;
        if index >= leaf_count {
            return Err(LeafIndexOutOfRange);
        }
        indexes.push(index);
        next = index + 1;
    }
    let n = n as usize;
    if payload.len() - at < 32 * n {
        return Err(LeavesTruncated);
    }
    let values: Vec<Hash> = (0..n)
        .map(|i| payload[at + 32 * i..at + 32 * (i + 1)].try_into().unwrap())
        .collect();
    let mut items = &payload[at + 32 * n..];
    let mut take = || -> Result<Hash, FormatError> {
        if items.len() < 32 {
            return Err(ItemTruncated);
        }
        let item = items[..32].try_into().unwrap();
        items = &items[32..];
        Ok(item)
    };

    // Section 4.
    let mut stack: Vec<Hash> = Vec::new();
    let mut pending: Vec<u32> = Vec::new();
    let mut i = 0;
    let peaks = peaks(leaf_count);
    for (k, &(start, height)) in peaks.iter().enumerate() {
        let end = start + (1 << height);
        if i < n && indexes[i] < end {
            loop {
                let mut node = values[i];
                let stop = if i + 1 < n && indexes[i + 1] < end {
                    63 - (indexes[i] ^ indexes[i + 1]).leading_zeros()
                } else {
                    height
                };
                for h in 0..stop {
                    if indexes[i] >> h & 1 == 0 {
                        node = merge(&node, &take()?);
                    } else if let Some(p) = pending.iter().position(|&x| x == h) {
                        pending.remove(p);
                        let left = stack.pop().unwrap();
                        node = merge(&left, &node);
                    } else {
                        node = merge(&take()?, &node);
                    }
                }
                i += 1;
                stack.push(node);
                if stop == height {
                    break;
                }
                pending.push(stop);
            }
        } else if i == n && k + 1 < peaks.len() {
            stack.push(take()?);
            break;
        } else {
            stack.push(take()?);
        }
    }
    assert!(pending.is_empty() && i == n, "the walk consumes every leaf");
    assert!(stack.len() <= 50);
    if !items.is_empty() {
        return Err(TrailingBytes);
    }
    Ok(bag(&stack))
}

fn optimised(payload: &[u8], leaf_count: u64) -> Result<Hash, FormatError> {
    compact::compute_root::<Blake>(payload, leaf_count)
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[test]
fn honest_payloads_and_their_mutations() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0c10);
    let fixture = Fixture::random(&mut rng, 300);
    let mut cases = 0u64;
    for _ in 0..3_000 {
        let n: u64 = rng.gen_range(1..=300);
        let indexes = random_indexes(&mut rng, n, 12);
        let payload = fixture.compact_payload(n, &indexes);
        assert_eq!(model(&payload, n), Ok(fixture.root(n)));
        assert_eq!(optimised(&payload, n), Ok(fixture.root(n)));
        for _ in 0..40 {
            let mut bad = payload.clone();
            match rng.gen_range(0..6) {
                0 => {
                    let at = rng.gen_range(0..bad.len());
                    bad[at] ^= 1 << rng.gen_range(0..8);
                }
                1 => {
                    // Somewhere in the header, where the bytes are structure.
                    let at = rng.gen_range(0..bad.len().min(2 + 2 * indexes.len()));
                    bad[at] = rng.gen();
                }
                2 => {
                    let at = rng.gen_range(0..=bad.len());
                    bad.insert(at, rng.gen());
                }
                3 => {
                    let at = rng.gen_range(0..bad.len());
                    bad.remove(at);
                }
                4 => bad.truncate(rng.gen_range(0..bad.len())),
                _ => {
                    let extra = rng.gen_range(1..=3) * 32;
                    bad.extend(std::iter::repeat_n(0xab, extra));
                }
            }
            let other = if rng.gen_bool(0.2) {
                rng.gen_range(1..=300)
            } else {
                n
            };
            assert_eq!(optimised(&bad, other), model(&bad, other), "{bad:02x?}");
            cases += 1;
        }
    }
    assert!(cases >= 120_000);
}

/// Payloads built field by field with random (often malformed) varints, gaps and hash counts.
#[test]
fn random_shaped_payloads() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0c11);
    let mut codes = std::collections::BTreeSet::new();
    for _ in 0..200_000 {
        let leaf_count = match rng.gen_range(0..10) {
            0 => 0,
            1 => 1 << 50,
            2 => rng.gen_range(1..1 << 49),
            _ => rng.gen_range(1..=40),
        };
        let mut p = Vec::new();
        p.push(if rng.gen_bool(0.95) { 2 } else { rng.gen() });
        let n: u64 = rng.gen_range(0..=4);
        varint(&mut p, n);
        for _ in 0..n {
            let gap = match rng.gen_range(0..8) {
                0 => rng.gen_range(0..1 << 50),
                1 => u64::MAX >> 8,
                _ => rng.gen_range(0..12),
            };
            varint(&mut p, gap);
            if rng.gen_bool(0.05) {
                // An overlong form: a continuation bit on the last byte and a zero after it.
                let last = p.len() - 1;
                p[last] |= 0x80;
                p.push(0);
            }
        }
        let hashes = rng.gen_range(0..=n as usize + 8);
        for _ in 0..hashes {
            let mut h = [0u8; 32];
            rng.fill_bytes(&mut h);
            p.extend_from_slice(&h);
        }
        if rng.gen_bool(0.1) {
            let cut = rng.gen_range(0..=p.len());
            p.truncate(cut);
        }
        let got = optimised(&p, leaf_count);
        assert_eq!(got, model(&p, leaf_count), "{leaf_count} {p:02x?}");
        if let Err(e) = got {
            codes.insert(e.code());
        }
    }
    // Every code of the spec but the root mismatch (which needs a root) is reached.
    assert_eq!(
        codes.into_iter().collect::<Vec<_>>(),
        vec![40, 41, 42, 43, 45, 46, 49, 65, 66, 67, 68]
    );
}
