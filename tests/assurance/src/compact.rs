//! The reference model of the compact payload (the compiled format's version 2, which the
//! deployed compiled verifiers read), beside [`crate::model`]'s version 1: the same claim
//! and item roles, in another encoding. A version 2 proof has one shape per claim: its items
//! are the roles of version 1's post-order walk in that order, with the `gen_proof` bagging
//! (one item for all the leafless peaks after the last claimed one, when there are two or
//! more), so the model reuses [`model::compiled_commands`] for the order and
//! [`model::root_of`] for the root.

use crate::model::{self, Role};
use std::collections::HashMap;

/// A parsed compact payload: the claim and the items, in payload order.
pub struct CompactPayload {
    pub leaves: Vec<(u64, [u8; 32])>,
    pub items: Vec<[u8; 32]>,
}

/// One canonical varint (at most 8 bytes, no zero last group but in a one-byte varint).
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for k in 0..8 {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(b & 0x7f) << (7 * k);
        if b < 0x80 {
            return (b != 0 || k == 0).then_some(value);
        }
    }
    None
}

/// The claim and items of a well-formed compact payload: version 2, n >= 1 canonical
/// varints for the gaps, n values and whole 32-byte items. Indexes are not range-checked.
pub fn parse(payload: &[u8]) -> Option<CompactPayload> {
    let (&version, mut rest) = payload.split_first()?;
    if version != 0x02 {
        return None;
    }
    let n = varint(&mut rest)?;
    if n == 0 || n > payload.len() as u64 {
        return None;
    }
    let mut indexes = Vec::new();
    let mut next = 0u64;
    for _ in 0..n {
        let index = next.checked_add(varint(&mut rest)?)?;
        indexes.push(index);
        next = index.checked_add(1)?;
    }
    let mut leaves = Vec::new();
    for index in indexes {
        let (value, tail) = rest.split_first_chunk::<32>()?;
        leaves.push((index, *value));
        rest = tail;
    }
    if rest.len() % 32 != 0 {
        return None;
    }
    let items = rest
        .chunks_exact(32)
        .map(|c| c.try_into().unwrap())
        .collect();
    Some(CompactPayload { leaves, items })
}

/// The roles of a compact proof's items for the claimed (sorted, in range) `indexes`, in
/// payload order.
pub fn roles(leaf_count: u64, indexes: &[u64]) -> Vec<Role> {
    let bag_at = model::bag_points(leaf_count, indexes).first().copied();
    let mut roles = Vec::new();
    model::compiled_commands(leaf_count, indexes, bag_at, &mut |r| {
        roles.push(r);
        [0; 32]
    });
    roles
}

/// Does a compiled verifier (version 2) have to accept `payload` for (`root`, `leaf_count`)?
pub fn accepts(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> bool {
    let Some(p) = parse(payload) else {
        return false;
    };
    let indexes: Vec<u64> = p.leaves.iter().map(|l| l.0).collect();
    if indexes.iter().any(|&i| i >= leaf_count) {
        return false;
    }
    let roles = roles(leaf_count, &indexes);
    if roles.len() != p.items.len() {
        return false;
    }
    let items: HashMap<Role, [u8; 32]> = roles.into_iter().zip(p.items).collect();
    model::root_of(leaf_count, &p.leaves, &items).as_ref() == Some(root)
}

/// Serialises a claim and items (no checks: also for malformed payloads, so gaps wrap).
pub fn encode(leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Vec<u8> {
    use crate::compact_model::varint;
    let mut out = vec![0x02];
    out.extend(varint(leaves.len() as u64));
    let mut next = 0u64;
    for &(i, _) in leaves {
        out.extend(varint(i.wrapping_sub(next)));
        next = i.wrapping_add(1);
    }
    for (_, v) in leaves {
        out.extend_from_slice(v);
    }
    for i in items {
        out.extend_from_slice(i);
    }
    out
}

/// The honest compact payload proving the leaves of `mmr` at (sorted, distinct) `indexes`.
/// The item order here comes from version 1's post-order walk; [`crate::compact_model`]
/// derives it by another rule, and a test holds the two equal.
pub fn honest(mmr: &crate::mmr::Mmr, indexes: &[u64]) -> Vec<u8> {
    let leaves: Vec<(u64, [u8; 32])> = indexes
        .iter()
        .map(|&i| (i, mmr.leaves[i as usize]))
        .collect();
    let items: Vec<[u8; 32]> = roles(mmr.leaf_count(), indexes)
        .into_iter()
        .map(|r| model::role_value(mmr, r))
        .collect();
    encode(&leaves, &items)
}

#[cfg(test)]
mod tests {
    /// Two derivations of the items' order, one from version 1's post-order walk (here), one
    /// from a rule on the tree (`compact_model`): the same roles for every claim of up to 3
    /// leaves in every MMR of 1..=12 leaves, and for every claim of the MMRs of 1..=8 leaves.
    #[test]
    fn both_models_order_the_items_alike() {
        let mut claims = 0;
        for n in 1..=12u64 {
            for mask in 1u32..(1 << n) {
                let indexes: Vec<u64> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
                if n > 8 && indexes.len() > 3 {
                    continue;
                }
                assert_eq!(
                    super::roles(n, &indexes),
                    crate::compact_model::roles(n, &indexes),
                    "{n} {indexes:?}"
                );
                claims += 1;
            }
        }
        assert!(claims > 1_000, "{claims}");
    }
}
