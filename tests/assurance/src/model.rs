//! The reference model: what the lock must accept, written from the definitions in
//! `docs/` as plainly as possible, sharing no code with the verifiers (only the hash).
//!
//! - An MMR of `leaf_count` leaves is a row of perfect binary trees ("peaks"), one per set bit
//!   of `leaf_count`, largest first. A node is named by the leaf range it covers,
//!   `(first, height)` = leaves `[first, first + 2^height)`.
//! - A claim is a set of `(leaf index, value)`. Given the claim, every node of the MMR is
//!   either *claimed* (its range holds a claimed leaf; its hash follows from the claimed
//!   leaves and the proof) or *opaque* (the proof must give its hash). The proof gives
//!   exactly the opaque nodes whose parent is claimed, plus the leafless peaks (a run of two
//!   or more leafless peaks at the right end may be given as one bagged item).
//! - The root is computed by plain recursion over leaf ranges and compared to the args.
//!
//! The two payload formats only differ in how they name the items: by position in
//! `gen_proof` order (baseline) or by a post-order command stream (compiled). The model
//! parses each format into (claim, item per node) by matching it against the one shape the
//! claim allows, so a payload is accepted iff it is that shape and its root is the root.

use crate::accumulator::model_bag;
use crate::hash::merge;
use std::collections::HashMap;

/// `mmr_size` above this is rejected (docs/error-codes.md, code 8).
pub const MAX_MMR_SIZE: u64 = 1 << 50;
pub const MAX_WITNESS_SIZE: usize = 65536;

/// Peaks `(first leaf, height)` of an MMR of `leaf_count` leaves, left to right.
pub fn peaks(leaf_count: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut first = 0u64;
    for h in (0..64u32).rev() {
        if leaf_count & (1u64 << h) != 0 {
            out.push((first, h));
            first += 1u64 << h;
        }
    }
    out
}

/// Nodes of a perfect tree of height `h`.
fn tree_size(h: u32) -> u64 {
    (1u64 << (h + 1)) - 1
}

/// The leaf count of a canonical `mmr_size`: the size must split into perfect trees of
/// strictly decreasing heights (taking the largest tree that fits, each time).
pub fn leaf_count_of_size(mmr_size: u64) -> Option<u64> {
    if mmr_size == 0 || mmr_size > MAX_MMR_SIZE {
        return None;
    }
    let mut rest = mmr_size;
    let mut leaves = 0u64;
    let mut last_height = u32::MAX;
    while rest > 0 {
        let mut h = 0u32;
        while tree_size(h + 1) <= rest {
            h += 1;
        }
        if h >= last_height {
            return None;
        }
        rest -= tree_size(h);
        leaves += 1u64 << h;
        last_height = h;
    }
    Some(leaves)
}

/// MMR position of the leaf with index `i`: each earlier leaf `j` added itself and one
/// parent per trailing one bit of `j` (the merges its push caused), which sums to
/// `2i - popcount(i)`; tests/model.rs checks it against built MMRs.
pub fn leaf_pos(i: u64) -> u64 {
    2 * i - i.count_ones() as u64
}

/// Leaf index of MMR position `pos` in an MMR of `leaf_count` leaves, or `None` when `pos` is
/// an inner node or beyond the MMR. Positions number nodes in post-order, peak after peak.
pub fn leaf_index_of_pos(leaf_count: u64, pos: u64) -> Option<u64> {
    let mut offset = 0u64;
    for (first, h) in peaks(leaf_count) {
        let size = tree_size(h);
        if pos >= offset && pos - offset < size {
            return leaf_in_tree(pos - offset, h).map(|i| first + i);
        }
        offset += size;
    }
    None
}

/// Post-order inside a perfect tree: left subtree, right subtree, root.
fn leaf_in_tree(p: u64, h: u32) -> Option<u64> {
    if h == 0 {
        return (p == 0).then_some(0);
    }
    let sub = tree_size(h - 1);
    if p < sub {
        leaf_in_tree(p, h - 1)
    } else if p < 2 * sub {
        leaf_in_tree(p - sub, h - 1).map(|i| i + (1u64 << (h - 1)))
    } else {
        None
    }
}

/// What a proof item stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// An opaque node `(first, height)` whose parent is claimed.
    Node(u64, u32),
    /// The `k`-th peak, which holds no claimed leaf.
    Peak(usize),
    /// The bagging of peaks `k..`, all leafless (at least two).
    Bag(usize),
}

fn holds_claim(indexes: &[u64], first: u64, h: u32) -> bool {
    let end = first + (1u64 << h);
    indexes.iter().any(|&i| i >= first && i < end)
}

/// Opaque nodes with a claimed parent below the claimed node `(first, h)`, in any order.
fn opaque_children(indexes: &[u64], first: u64, h: u32, out: &mut Vec<(u64, u32)>) {
    if h == 0 {
        return;
    }
    let half = 1u64 << (h - 1);
    for child in [first, first + half] {
        if holds_claim(indexes, child, h - 1) {
            opaque_children(indexes, child, h - 1, out);
        } else {
            out.push((child, h - 1));
        }
    }
}

/// The roles of the items of an honest baseline proof for the claimed (sorted, in range)
/// `indexes`, in `MMR::gen_proof` order: peak by peak, the opaque nodes of a claimed peak by
/// height then from left to right; a leafless peak by itself; a trailing run of two or more
/// leafless peaks as one bagged item.
pub fn gen_proof_roles(leaf_count: u64, indexes: &[u64]) -> Vec<Role> {
    let mut roles = Vec::new();
    let mut run = 0usize;
    for (k, (first, h)) in peaks(leaf_count).into_iter().enumerate() {
        if holds_claim(indexes, first, h) {
            let mut nodes = Vec::new();
            opaque_children(indexes, first, h, &mut nodes);
            nodes.sort_by_key(|&(f, h)| (h, f));
            roles.extend(nodes.into_iter().map(|(f, h)| Role::Node(f, h)));
            run = 0;
        } else {
            roles.push(Role::Peak(k));
            run += 1;
        }
    }
    if run >= 2 {
        let k = peaks(leaf_count).len() - run;
        roles.truncate(roles.len() - run);
        roles.push(Role::Bag(k));
    }
    roles
}

/// The root implied by claimed leaves and items by role; `None` if a needed item is missing.
pub fn root_of(
    leaf_count: u64,
    claims: &[(u64, [u8; 32])],
    items: &HashMap<Role, [u8; 32]>,
) -> Option<[u8; 32]> {
    let indexes: Vec<u64> = claims.iter().map(|c| c.0).collect();
    let node =
        |first: u64, h: u32| -> Option<[u8; 32]> { node_hash(claims, &indexes, items, first, h) };
    let mut peak_hashes = Vec::new();
    for (k, (first, h)) in peaks(leaf_count).into_iter().enumerate() {
        if holds_claim(&indexes, first, h) {
            peak_hashes.push(node(first, h)?);
        } else if let Some(bag) = items.get(&Role::Bag(k)) {
            peak_hashes.push(*bag);
            break;
        } else {
            peak_hashes.push(*items.get(&Role::Peak(k))?);
        }
    }
    model_bag(&peak_hashes)
}

/// Bagging right to left: the last peak, merged with each one before it.
fn node_hash(
    claims: &[(u64, [u8; 32])],
    indexes: &[u64],
    items: &HashMap<Role, [u8; 32]>,
    first: u64,
    h: u32,
) -> Option<[u8; 32]> {
    if !holds_claim(indexes, first, h) {
        return items.get(&Role::Node(first, h)).copied();
    }
    if h == 0 {
        return claims.iter().find(|c| c.0 == first).map(|c| c.1);
    }
    let half = 1u64 << (h - 1);
    let l = node_hash(claims, indexes, items, first, h - 1)?;
    let r = node_hash(claims, indexes, items, first + half, h - 1)?;
    Some(merge(&l, &r))
}

/// A little-endian reader that fails instead of reading past the end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u32(&mut self) -> Option<u64> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?) as u64)
    }
    fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }
    fn item(&mut self) -> Option<[u8; 32]> {
        self.take(32)?.try_into().ok()
    }
}

/// Strictly increasing?
fn ascending(indexes: &[u64]) -> bool {
    indexes.windows(2).all(|w| w[0] < w[1])
}

// ---- baseline payload ------------------------------------------------------------------

/// A parsed baseline payload: `(position, value)` records and items.
pub struct BaselinePayload {
    pub leaves: Vec<(u64, [u8; 32])>,
    pub items: Vec<[u8; 32]>,
}

pub fn parse_baseline(payload: &[u8]) -> Option<BaselinePayload> {
    let mut r = Reader(payload);
    let n = r.u32()?;
    let mut leaves = Vec::new();
    for _ in 0..n {
        let pos = r.u64()?;
        leaves.push((pos, r.item()?));
    }
    let m = r.u32()?;
    let mut items = Vec::new();
    for _ in 0..m {
        items.push(r.item()?);
    }
    r.0.is_empty().then_some(BaselinePayload { leaves, items })
}

/// The item roles a baseline claim at `positions` requires, with the claim's leaf indexes;
/// `None` when no proof can make it valid (no leaves, a position that is not a leaf of this
/// MMR, positions not strictly increasing).
pub fn baseline_shape(leaf_count: u64, positions: &[u64]) -> Option<(Vec<u64>, Vec<Role>)> {
    if positions.is_empty() {
        return None;
    }
    let indexes: Option<Vec<u64>> = positions
        .iter()
        .map(|&p| leaf_index_of_pos(leaf_count, p))
        .collect();
    let indexes = indexes?;
    if !ascending(&indexes) {
        return None;
    }
    let roles = gen_proof_roles(leaf_count, &indexes);
    Some((indexes, roles))
}

/// Does the baseline verifier have to accept `payload` for (`root`, `leaf_count`)?
pub fn baseline_accepts(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> bool {
    let Some(p) = parse_baseline(payload) else {
        return false;
    };
    let positions: Vec<u64> = p.leaves.iter().map(|l| l.0).collect();
    let Some((indexes, roles)) = baseline_shape(leaf_count, &positions) else {
        return false;
    };
    if roles.len() != p.items.len() {
        return false;
    }
    let claims: Vec<(u64, [u8; 32])> = indexes
        .iter()
        .zip(&p.leaves)
        .map(|(&i, l)| (i, l.1))
        .collect();
    let items: HashMap<Role, [u8; 32]> = roles.into_iter().zip(p.items).collect();
    root_of(leaf_count, &claims, &items).as_ref() == Some(root)
}

pub fn encode_baseline(leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
    for (pos, v) in leaves {
        out.extend_from_slice(&pos.to_le_bytes());
        out.extend_from_slice(v);
    }
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for i in items {
        out.extend_from_slice(i);
    }
    out
}

// ---- compiled payload ------------------------------------------------------------------

/// A command of the compiled format (docs/compiled-format.md, section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmd {
    Leaf,
    Merge,
    Proof([u8; 32]),
    Peak,
    PeakProof([u8; 32]),
    BagRhs([u8; 32]),
}

impl Cmd {
    pub fn opcode(&self) -> u8 {
        match self {
            Cmd::Leaf => 1,
            Cmd::Merge => 2,
            Cmd::Proof(_) => 3,
            Cmd::Peak => 4,
            Cmd::PeakProof(_) => 5,
            Cmd::BagRhs(_) => 6,
        }
    }

    pub fn item(&self) -> Option<&[u8; 32]> {
        match self {
            Cmd::Proof(i) | Cmd::PeakProof(i) | Cmd::BagRhs(i) => Some(i),
            _ => None,
        }
    }

    /// The command with opcode `op` (1..=6) carrying `item` where it takes one.
    pub fn from_op(op: u8, item: [u8; 32]) -> Option<Cmd> {
        Some(match op {
            1 => Cmd::Leaf,
            2 => Cmd::Merge,
            3 => Cmd::Proof(item),
            4 => Cmd::Peak,
            5 => Cmd::PeakProof(item),
            6 => Cmd::BagRhs(item),
            _ => return None,
        })
    }
}

pub struct CompiledPayload {
    /// `(leaf index, value)` records.
    pub leaves: Vec<(u64, [u8; 32])>,
    pub cmds: Vec<Cmd>,
}

pub fn parse_compiled(payload: &[u8]) -> Option<CompiledPayload> {
    let mut r = Reader(payload);
    let n = r.u32()?;
    if n == 0 {
        return None;
    }
    let mut leaves = Vec::new();
    for _ in 0..n {
        let index = r.u64()?;
        leaves.push((index, r.item()?));
    }
    let mut cmds = Vec::new();
    while let Some(op) = r.take(1) {
        let op = op[0];
        let item = if matches!(op, 3 | 5 | 6) {
            r.item()?
        } else {
            [0; 32]
        };
        cmds.push(Cmd::from_op(op, item)?);
    }
    Some(CompiledPayload { leaves, cmds })
}

/// Where a valid compiled proof for `indexes` may use `BAG_RHS`: at any leafless peak `k`
/// such that at least two peaks remain from `k` on and none of them holds a claimed leaf.
pub fn bag_points(leaf_count: u64, indexes: &[u64]) -> Vec<usize> {
    let peaks = peaks(leaf_count);
    (0..peaks.len())
        .filter(|&k| {
            peaks.len() - k >= 2 && peaks[k..].iter().all(|&(f, h)| !holds_claim(indexes, f, h))
        })
        .collect()
}

/// The commands of a valid compiled proof for the claimed (sorted, in range) `indexes`,
/// with each item taken from `item`: peak by peak, a post-order walk of a claimed peak and
/// `PEAK`, or `PEAK_PROOF` for a leafless one, except that at `bag_at` (one of
/// [`bag_points`]) one `BAG_RHS` stands for all remaining peaks.
pub fn compiled_commands(
    leaf_count: u64,
    indexes: &[u64],
    bag_at: Option<usize>,
    item: &mut dyn FnMut(Role) -> [u8; 32],
) -> Vec<Cmd> {
    let peaks = peaks(leaf_count);
    let mut out = Vec::new();
    for (k, &(first, h)) in peaks.iter().enumerate() {
        if holds_claim(indexes, first, h) {
            post_order(indexes, first, h, item, &mut out);
            out.push(Cmd::Peak);
        } else if bag_at == Some(k) {
            out.push(Cmd::BagRhs(item(Role::Bag(k))));
            break;
        } else {
            out.push(Cmd::PeakProof(item(Role::Peak(k))));
        }
    }
    out
}

fn post_order(
    indexes: &[u64],
    first: u64,
    h: u32,
    item: &mut dyn FnMut(Role) -> [u8; 32],
    out: &mut Vec<Cmd>,
) {
    if h == 0 {
        out.push(Cmd::Leaf);
        return;
    }
    let half = 1u64 << (h - 1);
    let (l, r) = (first, first + half);
    match (
        holds_claim(indexes, l, h - 1),
        holds_claim(indexes, r, h - 1),
    ) {
        (true, true) => {
            post_order(indexes, l, h - 1, item, out);
            post_order(indexes, r, h - 1, item, out);
            out.push(Cmd::Merge);
        }
        (true, false) => {
            post_order(indexes, l, h - 1, item, out);
            out.push(Cmd::Proof(item(Role::Node(r, h - 1))));
        }
        (false, true) => {
            post_order(indexes, r, h - 1, item, out);
            out.push(Cmd::Proof(item(Role::Node(l, h - 1))));
        }
        (false, false) => unreachable!("post_order on a node without claims"),
    }
}

/// Matches the commands against the shape of the claim: `Some(items by role)` iff the
/// commands are exactly `compiled_commands` for the claim with some choice of bagging.
pub fn compiled_items(
    leaf_count: u64,
    indexes: &[u64],
    cmds: &[Cmd],
) -> Option<HashMap<Role, [u8; 32]>> {
    let choices =
        std::iter::once(None).chain(bag_points(leaf_count, indexes).into_iter().map(Some));
    for bag in choices {
        // Generate the expected shape with placeholder items, then compare opcodes and
        // collect the real items by role.
        let mut roles = Vec::new();
        let expected = compiled_commands(leaf_count, indexes, bag, &mut |role| {
            roles.push(role);
            [0; 32]
        });
        if expected.len() != cmds.len()
            || expected
                .iter()
                .zip(cmds)
                .any(|(e, c)| e.opcode() != c.opcode())
        {
            continue;
        }
        let items: Vec<[u8; 32]> = cmds.iter().filter_map(|c| c.item().copied()).collect();
        return Some(roles.into_iter().zip(items).collect());
    }
    None
}

/// Does a compiled verifier have to accept `payload` for (`root`, `leaf_count`)?
pub fn compiled_accepts(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> bool {
    let Some(p) = parse_compiled(payload) else {
        return false;
    };
    let indexes: Vec<u64> = p.leaves.iter().map(|l| l.0).collect();
    if !ascending(&indexes) || indexes.iter().any(|&i| i >= leaf_count) {
        return false;
    }
    let Some(items) = compiled_items(leaf_count, &indexes, &p.cmds) else {
        return false;
    };
    root_of(leaf_count, &p.leaves, &items).as_ref() == Some(root)
}

pub fn encode_compiled(leaves: &[(u64, [u8; 32])], cmds: &[Cmd]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
    for (i, v) in leaves {
        out.extend_from_slice(&i.to_le_bytes());
        out.extend_from_slice(v);
    }
    for c in cmds {
        out.push(c.opcode());
        if let Some(i) = c.item() {
            out.extend_from_slice(i);
        }
    }
    out
}

// ---- the lock --------------------------------------------------------------------------

/// `(root, mmr_size, leaf_count)` of valid args: exactly 40 bytes, canonical size.
pub fn parse_args(args: &[u8]) -> Option<([u8; 32], u64, u64)> {
    if args.len() != 40 {
        return None;
    }
    let root: [u8; 32] = args[..32].try_into().ok()?;
    let size = u64::from_le_bytes(args[32..].try_into().ok()?);
    Some((root, size, leaf_count_of_size(size)?))
}

/// The `lock` bytes of a strictly valid molecule `WitnessArgs` (a table of three
/// `BytesOpt`), if present.
pub fn witness_lock(w: &[u8]) -> Option<&[u8]> {
    let mut r = Reader(w);
    let total = r.u32()? as usize;
    if total != w.len() {
        return None;
    }
    let first = r.u32()? as usize;
    if first != 16 {
        return None; // 16 = 4 * (1 + 3 fields)
    }
    let offsets = [first, r.u32()? as usize, r.u32()? as usize, total];
    let mut fields = Vec::new();
    for k in 0..3 {
        let (s, e) = (offsets[k], offsets[k + 1]);
        if s > e || e > w.len() {
            return None;
        }
        let f = &w[s..e];
        if f.is_empty() {
            fields.push(None);
        } else {
            let mut fr = Reader(f);
            let len = fr.u32()? as usize;
            if len != fr.0.len() {
                return None;
            }
            fields.push(Some(fr.0));
        }
    }
    fields[0]
}

/// Which payload format a lock reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Baseline,
    /// The compiled format's version 1 (command stream).
    Compiled,
    /// The compiled format's version 2 (compact), what the compiled contracts read.
    Compact,
}

/// Does the lock (of either format) have to accept these args and witness 0?
pub fn lock_accepts(format: Format, args: &[u8], witness: Option<&[u8]>) -> bool {
    let Some((root, _size, leaf_count)) = parse_args(args) else {
        return false;
    };
    let Some(w) = witness else {
        return false;
    };
    if w.len() > MAX_WITNESS_SIZE {
        return false;
    }
    let Some(payload) = witness_lock(w) else {
        return false;
    };
    match format {
        Format::Baseline => baseline_accepts(payload, &root, leaf_count),
        Format::Compiled => compiled_accepts(payload, &root, leaf_count),
        Format::Compact => crate::compact::accepts(payload, &root, leaf_count),
    }
}

/// Molecule `WitnessArgs { lock: Some(lock), input_type: None, output_type: None }`.
pub fn witness_args(lock: &[u8]) -> Vec<u8> {
    let total = 16 + 4 + lock.len() as u32;
    let mut out = Vec::new();
    for word in [total, 16, total, total] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&(lock.len() as u32).to_le_bytes());
    out.extend_from_slice(lock);
    out
}

// ---- honest proofs from the ground truth -------------------------------------------------

use crate::mmr::Mmr;

/// The value of an item role in `mmr`.
pub fn role_value(mmr: &Mmr, role: Role) -> [u8; 32] {
    let peaks = peaks(mmr.leaf_count());
    match role {
        Role::Node(first, h) => mmr.node(first, h),
        Role::Peak(k) => mmr.node(peaks[k].0, peaks[k].1),
        Role::Bag(k) => {
            let hashes: Vec<[u8; 32]> = peaks[k..].iter().map(|&(f, h)| mmr.node(f, h)).collect();
            model_bag(&hashes).unwrap()
        }
    }
}

/// The honest baseline payload proving the leaves at (sorted, distinct) `indexes`.
pub fn honest_baseline(mmr: &Mmr, indexes: &[u64]) -> Vec<u8> {
    let leaves: Vec<(u64, [u8; 32])> = indexes
        .iter()
        .map(|&i| (mmr.leaf_pos[i as usize], mmr.leaves[i as usize]))
        .collect();
    let items: Vec<[u8; 32]> = gen_proof_roles(mmr.leaf_count(), indexes)
        .into_iter()
        .map(|r| role_value(mmr, r))
        .collect();
    encode_baseline(&leaves, &items)
}

/// The honest compiled commands proving the leaves at (sorted, distinct) `indexes`, bagging
/// at `bag_at` (one of [`bag_points`], or none).
pub fn honest_commands(mmr: &Mmr, indexes: &[u64], bag_at: Option<usize>) -> Vec<Cmd> {
    compiled_commands(mmr.leaf_count(), indexes, bag_at, &mut |r| {
        role_value(mmr, r)
    })
}

/// The honest compiled payload in the `gen_proof` form: a trailing run of two or more
/// leafless peaks is one `BAG_RHS`.
pub fn honest_compiled(mmr: &Mmr, indexes: &[u64]) -> Vec<u8> {
    let leaves: Vec<(u64, [u8; 32])> = indexes
        .iter()
        .map(|&i| (i, mmr.leaves[i as usize]))
        .collect();
    let bag_at = bag_points(mmr.leaf_count(), indexes).first().copied();
    encode_compiled(&leaves, &honest_commands(mmr, indexes, bag_at))
}
