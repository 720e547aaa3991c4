//! The reference model of the compiled format's version 2, the compact format
//! (`docs/compiled-format.md`), written from the spec and sharing no code with
//! `compiled_proof::compact` (only the hash, and the MMR vocabulary of [`crate::model`]).
//!
//! The verifier walks the leaves and takes items as it climbs (spec section 4). The model
//! does not walk: it names the items by what they stand for and orders them by a rule stated
//! on the tree, then computes the root by recursion over leaf ranges
//! ([`crate::model::root_of`]):
//!
//! - an item is an opaque node whose parent holds a claimed leaf, a leafless peak, or (for a
//!   leafless peak right of the last claimed leaf with more peaks after it) the bagging of
//!   that peak and all the rest;
//! - peaks come left to right; inside a peak an opaque node `(f, h)` is taken by the last
//!   claimed leaf of its sibling (that leaf's climb is the one that reaches their parent),
//!   at height `h`, so the items are ordered by (that leaf's index, `h`).
//!
//! The search holds this against the verifier code for code, so a walk that took its items
//! in any other order would show.

use crate::hash::merge;
use crate::model::{peaks, role_value, root_of, Role};
use std::collections::HashMap;

/// The version byte.
pub const VERSION: u8 = 0x02;
/// A varint has at most this many bytes.
pub const VARINT_MAX: usize = 8;

/// The exit codes of `docs/error-codes.md`'s compiled section for version 2, by name.
pub mod code {
    pub const ACCEPTED: i8 = 0;
    pub const ROOT_MISMATCH: i8 = 9;
    pub const LEAF_COUNT_INVALID: i8 = 40;
    pub const HEADER_TRUNCATED: i8 = 41;
    pub const NO_LEAVES: i8 = 42;
    pub const LEAVES_TRUNCATED: i8 = 43;
    pub const TRAILING_BYTES: i8 = 45;
    pub const ITEM_TRUNCATED: i8 = 46;
    pub const LEAF_INDEX_OUT_OF_RANGE: i8 = 49;
    pub const VERSION_UNSUPPORTED: i8 = 65;
    pub const VARINT_NON_CANONICAL: i8 = 66;
    pub const VARINT_TOO_LONG: i8 = 67;
    pub const INDEXES_TRUNCATED: i8 = 68;
    /// Every code a version 2 payload can end in (`ACCEPTED` included).
    pub const ALL: [i8; 13] = [
        ACCEPTED,
        ROOT_MISMATCH,
        LEAF_COUNT_INVALID,
        HEADER_TRUNCATED,
        NO_LEAVES,
        LEAVES_TRUNCATED,
        TRAILING_BYTES,
        ITEM_TRUNCATED,
        LEAF_INDEX_OUT_OF_RANGE,
        VERSION_UNSUPPORTED,
        VARINT_NON_CANONICAL,
        VARINT_TOO_LONG,
        INDEXES_TRUNCATED,
    ];
}

/// Is `c` a code a version 2 payload may end in (`tests/compact.rs` holds this list against
/// docs/error-codes.md)?
pub fn documented(c: i8) -> bool {
    code::ALL.contains(&c)
}

/// The canonical varint of `v`: 7 bits a byte, low groups first, the high bit on every byte
/// but the last.
pub fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(low);
            return out;
        }
        out.push(low | 0x80);
    }
}

/// A payload from its parts, varints canonical: version, `n`, the gaps of the ascending
/// `indexes`, then `hashes` (values and items) as given.
pub fn encode(indexes: &[u64], hashes: &[[u8; 32]]) -> Vec<u8> {
    let mut out = vec![VERSION];
    out.extend(varint(indexes.len() as u64));
    let mut next = 0u64;
    for &i in indexes {
        out.extend(varint(i - next));
        next = i + 1;
    }
    for h in hashes {
        out.extend_from_slice(h);
    }
    out
}

/// READ of spec section 3: one varint from `bytes[*at..]`, or the code.
fn read(bytes: &[u8], at: &mut usize, truncated: i8) -> Result<u64, i8> {
    let mut value = 0u64;
    for i in 0..VARINT_MAX {
        let Some(&b) = bytes.get(*at) else {
            return Err(truncated);
        };
        *at += 1;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i > 0 && b == 0 {
                return Err(code::VARINT_NON_CANONICAL);
            }
            return Ok(value);
        }
    }
    Err(code::VARINT_TOO_LONG)
}

/// A payload whose header and index section passed steps 1-5.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The claimed `(leaf index, value)`, ascending.
    pub claims: Vec<(u64, [u8; 32])>,
    /// The bytes after the values.
    pub items: Vec<u8>,
}

impl Parsed {
    pub fn indexes(&self) -> Vec<u64> {
        self.claims.iter().map(|c| c.0).collect()
    }
}

/// Steps 1-5 of spec section 3.
pub fn parse(payload: &[u8], leaf_count: u64) -> Result<Parsed, i8> {
    if leaf_count == 0 || leaf_count >= 1 << 50 {
        return Err(code::LEAF_COUNT_INVALID);
    }
    match payload.first() {
        None => return Err(code::HEADER_TRUNCATED),
        Some(&v) if v != VERSION => return Err(code::VERSION_UNSUPPORTED),
        Some(_) => {}
    }
    let mut at = 1;
    let n = read(payload, &mut at, code::HEADER_TRUNCATED)?;
    if n == 0 {
        return Err(code::NO_LEAVES);
    }
    let mut indexes = Vec::new();
    let mut next = 0u64;
    for _ in 0..n {
        let gap = read(payload, &mut at, code::INDEXES_TRUNCATED)?;
        // next <= leaf_count < 2^50 and gap < 2^56: no wrap (checked all the same).
        let index = next.checked_add(gap).expect("spec: next + gap fits");
        if index >= leaf_count {
            return Err(code::LEAF_INDEX_OUT_OF_RANGE);
        }
        indexes.push(index);
        next = index + 1;
    }
    let rest = &payload[at..];
    let values_len = indexes.len() * 32;
    if rest.len() < values_len {
        return Err(code::LEAVES_TRUNCATED);
    }
    let claims = indexes
        .iter()
        .zip(rest[..values_len].chunks(32))
        .map(|(&i, v)| (i, v.try_into().unwrap()))
        .collect();
    Ok(Parsed {
        claims,
        items: rest[values_len..].to_vec(),
    })
}

fn holds(indexes: &[u64], first: u64, h: u32) -> bool {
    indexes
        .iter()
        .any(|&i| i >= first && i - first < (1u64 << h))
}

/// Opaque nodes with a claimed parent inside the claimed node `(first, h)`, each with the
/// last claimed leaf of its sibling.
fn opaque(indexes: &[u64], first: u64, h: u32, out: &mut Vec<((u64, u32), u64)>) {
    if h == 0 {
        return;
    }
    let half = 1u64 << (h - 1);
    let (l, r) = (first, first + half);
    let last_in = |f: u64| {
        *indexes
            .iter()
            .filter(|&&i| i >= f && i - f < half)
            .max()
            .unwrap()
    };
    match (holds(indexes, l, h - 1), holds(indexes, r, h - 1)) {
        (true, true) => {
            opaque(indexes, l, h - 1, out);
            opaque(indexes, r, h - 1, out);
        }
        (true, false) => {
            opaque(indexes, l, h - 1, out);
            out.push(((r, h - 1), last_in(l)));
        }
        (false, true) => {
            opaque(indexes, r, h - 1, out);
            out.push(((l, h - 1), last_in(r)));
        }
        (false, false) => unreachable!("opaque() on a node without claims"),
    }
}

/// What the items of a proof of the (ascending, in range) `indexes` stand for, in payload
/// order (the module's rule).
pub fn roles(leaf_count: u64, indexes: &[u64]) -> Vec<Role> {
    let ps = peaks(leaf_count);
    let last_claimed = ps.iter().rposition(|&(f, h)| holds(indexes, f, h));
    let mut out = Vec::new();
    for (k, &(first, h)) in ps.iter().enumerate() {
        if holds(indexes, first, h) {
            let mut nodes = Vec::new();
            opaque(indexes, first, h, &mut nodes);
            nodes.sort_by_key(|&((_, height), carrier)| (carrier, height));
            out.extend(
                nodes
                    .into_iter()
                    .map(|((f, height), _)| Role::Node(f, height)),
            );
        } else if last_claimed.is_some_and(|l| k > l) && k + 1 < ps.len() {
            out.push(Role::Bag(k));
            break;
        } else {
            out.push(Role::Peak(k));
        }
    }
    out
}

/// The code the compiled verifiers must return for `payload` against (`root`, `leaf_count`):
/// 0 to accept.
pub fn code(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    match verdict(payload, root, leaf_count) {
        Ok(()) => code::ACCEPTED,
        Err(c) => c,
    }
}

fn verdict(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> Result<(), i8> {
    let p = parse(payload, leaf_count)?;
    let roles = roles(leaf_count, &p.indexes());
    let need = 32 * roles.len();
    if p.items.len() < need {
        return Err(code::ITEM_TRUNCATED);
    }
    if p.items.len() > need {
        return Err(code::TRAILING_BYTES);
    }
    let items: HashMap<Role, [u8; 32]> = roles
        .into_iter()
        .zip(p.items.chunks(32).map(|c| c.try_into().unwrap()))
        .collect();
    match root_of(leaf_count, &p.claims, &items) {
        Some(r) if r == *root => Ok(()),
        _ => Err(code::ROOT_MISMATCH),
    }
}

/// The honest payload proving the leaves at the ascending `indexes` of `mmr`.
pub fn honest(mmr: &crate::mmr::Mmr, indexes: &[u64]) -> Vec<u8> {
    encode(indexes, &honest_hashes(mmr, indexes))
}

/// The values and items of the honest proof of `indexes`, in payload order.
pub fn honest_hashes(mmr: &crate::mmr::Mmr, indexes: &[u64]) -> Vec<[u8; 32]> {
    let mut out: Vec<[u8; 32]> = indexes.iter().map(|&i| mmr.leaves[i as usize]).collect();
    out.extend(
        roles(mmr.leaf_count(), indexes)
            .into_iter()
            .map(|r| role_value(mmr, r)),
    );
    out
}

/// Bags peak hashes right to left (the root of a row of peaks).
pub fn bag(peak_hashes: &[[u8; 32]]) -> [u8; 32] {
    let mut acc = *peak_hashes.last().expect("at least one peak");
    for p in peak_hashes.iter().rev().skip(1) {
        acc = merge(&acc, p);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's worked example (section 7): its payload, byte for byte, and its listed
    /// rejections.
    #[test]
    fn the_worked_example() {
        let leaves: Vec<[u8; 32]> = (0..5u8).map(|i| [0x11 * (i + 1); 32]).collect();
        let mmr = crate::mmr::Mmr::build(&leaves);
        let p = honest(&mmr, &[0, 3]);
        let mut want = vec![0x02, 0x02, 0x00, 0x02];
        for b in [0x11u8, 0x44, 0x22, 0x33, 0x55] {
            want.extend([b; 32]);
        }
        assert_eq!(p, want);
        assert_eq!(
            crate::hex(&mmr.root),
            "723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
        );
        let c = |p: &[u8]| code(p, &mmr.root, 5);
        assert_eq!(c(&p), 0);
        assert_eq!(c(&p[..p.len() - 1]), 46);
        assert_eq!(c(&[&p[..], &[0]].concat()), 45);
        let edit = |at: usize, b: u8| {
            let mut q = p.clone();
            q[at] = b;
            q
        };
        assert_eq!(c(&edit(0, 0x01)), 65);
        assert_eq!(c(&edit(1, 0x00)), 42);
        assert_eq!(c(&edit(3, 0x03)), 45);
        assert_eq!(c(&edit(3, 0x04)), 49);
        let overlong = [&p[..2], &[0x80, 0x00], &p[3..]].concat();
        assert_eq!(c(&overlong), 66);
        let three = [&p[..1], &[0x03], &p[2..4], &[0x00], &p[4..]].concat();
        assert_eq!(c(&three), 9);
    }
}
