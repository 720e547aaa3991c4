//! Differential testing: a byte string (from libFuzzer, a corpus file or a PRNG) decodes to
//! an honest proof of a small MMR plus a list of mutations; the mutated transaction inputs
//! (args, witness 0 for each format: the baseline payload, and the compiled format's
//! version 2, which the compiled contracts read) run through the three cores and the model.
//!
//! A [`Case`] is checked by [`check`]: compiled Rust and C return the same code; each
//! verifier accepts iff the model does; every code is documented; nothing accepted claims a
//! leaf the MMR does not hold or other args than the MMR's; and when only
//! format-independent mutations were applied (args, mmr_size, witness encoding), baseline
//! and compiled reach the same verdict, with the same code when it is a lock-level one.

use crate::mmr::Mmr;
use crate::model::{self, Format};
use crate::native;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Reads the fuzz input; past its end every read gives 0.
pub struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, at: 0 }
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(std::array::from_fn(|_| self.u8()))
    }
    /// The unread rest.
    pub fn rest(&mut self) -> &'a [u8] {
        let r = self.data.get(self.at..).unwrap_or(&[]);
        self.at = self.data.len();
        r
    }
    /// `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            self.u8() as usize % n
        } else {
            self.u16() as usize % n
        }
    }
}

/// Largest MMR the scenarios build.
pub const MAX_LEAVES: u64 = 80;

thread_local! {
    static MMRS: RefCell<HashMap<(u64, u8), Rc<Truth>>> = RefCell::new(HashMap::new());
}

/// What the test knows about the MMR the args commit to.
pub struct Truth {
    pub leaf_count: u64,
    pub mmr_size: u64,
    pub root: [u8; 32],
    /// A small MMR built in full, or `None` for a synthetic large one.
    pub mmr: Option<Mmr>,
    /// Synthetic MMRs: the claimed leaves (the only leaves whose values exist) and the value
    /// of every item role of their proof (random opaque nodes; no preimage is known).
    pub claims: Vec<(u64, [u8; 32])>,
    pub roles: HashMap<model::Role, [u8; 32]>,
    /// Values an attacker knows: every node and the root (small), or the claims, the items
    /// and the root (synthetic).
    pub known: Vec<[u8; 32]>,
}

impl Truth {
    /// A small MMR. Leaf values: 0 distinct, 1 all equal, 2 three values repeating.
    fn small(n: u64, kind: u8) -> Rc<Truth> {
        MMRS.with(|m| {
            m.borrow_mut()
                .entry((n, kind))
                .or_insert_with(|| {
                    let leaves: Vec<[u8; 32]> = (0..n)
                        .map(|i| match kind {
                            0 => crate::hash::digest(
                                &[b"leaf".as_slice(), &i.to_le_bytes()].concat(),
                            ),
                            1 => [0xab; 32],
                            _ => [(i % 3) as u8 + 1; 32],
                        })
                        .collect();
                    let mmr = Mmr::build(&leaves);
                    let mut known = mmr.value_pool();
                    known.push([0; 32]);
                    Rc::new(Truth {
                        leaf_count: n,
                        mmr_size: mmr.mmr_size(),
                        root: mmr.root,
                        claims: Vec::new(),
                        roles: HashMap::new(),
                        known,
                        mmr: Some(mmr),
                    })
                })
                .clone()
        })
    }

    /// A large MMR (up to the lock's limit, 2^50 nodes) that exists only as a proof: the
    /// claimed leaves and random opaque nodes for every item role; the root follows from
    /// them by the model. Leafless peaks are random too, and a bag is the bagging of its
    /// peaks, so every bagging choice proves the same root.
    fn synthetic(input: &mut Input) -> Truth {
        let leaf_count = match input.u8() % 4 {
            0 => (1u64 << 49) + 1, // the largest: mmr_size 2^50
            1 => (1u64 << 49) - 1 - input.u8() as u64,
            2 => 1u64 << (20 + input.below(30)),
            _ => (input.u64() % ((1 << 49) + 1)).max(1),
        };
        let k = 1 + input.below(4);
        let mut indexes: Vec<u64> = (0..k)
            .map(|_| match input.u8() % 4 {
                0 => leaf_count - 1 - input.u8() as u64 % leaf_count,
                1 => input.u8() as u64 % leaf_count,
                _ => input.u64() % leaf_count,
            })
            .collect();
        indexes.sort();
        indexes.dedup();
        // Random 32-byte values (no hashing needed: nobody knows a preimage of them).
        let seed = input.u64();
        let rnd = |tag: &[u8]| {
            let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
            for &b in tag {
                x = (x ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
            let mut r = Rng(x | 1);
            let mut v = [0u8; 32];
            for chunk in v.chunks_mut(8) {
                chunk.copy_from_slice(&r.next_u64().to_le_bytes());
            }
            v
        };
        let claims: Vec<(u64, [u8; 32])> = indexes
            .iter()
            .map(|&i| (i, rnd(&[b"leaf".as_slice(), &i.to_le_bytes()].concat())))
            .collect();
        let mut roles = HashMap::new();
        let peaks = model::peaks(leaf_count);
        for r in model::gen_proof_roles(leaf_count, &indexes) {
            if let model::Role::Node(f, h) = r {
                roles.insert(
                    r,
                    rnd(&[f.to_le_bytes(), (h as u64).to_le_bytes()].concat()),
                );
            }
        }
        let points = model::bag_points(leaf_count, &indexes);
        let leafless: Vec<usize> = (0..peaks.len())
            .filter(|&k| {
                let (f, h) = peaks[k];
                !indexes.iter().any(|&i| i >= f && i < f + (1u64 << h))
            })
            .collect();
        for &k in &leafless {
            roles.insert(model::Role::Peak(k), rnd(&(k as u64).to_le_bytes()));
        }
        // Bag(k) = bagging of peaks k.. (right to left), for every bag point k.
        if let Some(&first_point) = points.first() {
            let mut acc = roles[&model::Role::Peak(peaks.len() - 1)];
            for k in (first_point..peaks.len() - 1).rev() {
                acc = crate::hash::merge(&acc, &roles[&model::Role::Peak(k)]);
                roles.insert(model::Role::Bag(k), acc);
            }
        }
        let root = model::root_of(leaf_count, &claims, &roles).expect("every role has a value");
        let mut known: Vec<[u8; 32]> = claims.iter().map(|c| c.1).collect();
        // Sorted: the map's order varies by process, and one fuzz input must pick one value.
        let mut values: Vec<[u8; 32]> = roles.values().copied().collect();
        values.sort_unstable();
        known.extend(values);
        known.push(root);
        known.push([0; 32]);
        Truth {
            leaf_count,
            mmr_size: mmr_lock::mmr::mmr_size_of(leaf_count),
            root,
            mmr: None,
            claims,
            roles,
            known,
        }
    }

    pub fn args(&self) -> Vec<u8> {
        let mut a = self.root.to_vec();
        a.extend_from_slice(&self.mmr_size.to_le_bytes());
        a
    }

    /// The value of leaf `i`, if the test knows it.
    fn leaf(&self, i: u64) -> Option<[u8; 32]> {
        match &self.mmr {
            Some(m) => m.leaves.get(i as usize).copied(),
            // A synthetic MMR's leaves are its claims and the height-0 nodes of their proof (a
            // claim's sibling, or a one-leaf peak): those values are leaves too.
            None => self
                .claims
                .iter()
                .find(|c| c.0 == i)
                .map(|c| c.1)
                .or_else(|| self.roles.get(&model::Role::Node(i, 0)).copied())
                .or_else(|| {
                    let k = model::peaks(self.leaf_count)
                        .iter()
                        .position(|&p| p == (i, 0))?;
                    self.roles.get(&model::Role::Peak(k)).copied()
                }),
        }
    }

    /// A leaf index whose value is known.
    fn some_leaf(&self, input: &mut Input) -> u64 {
        match &self.mmr {
            Some(_) => input.below(self.leaf_count as usize) as u64,
            None => self.claims[input.below(self.claims.len())].0,
        }
    }

    fn role_value(&self, role: model::Role) -> [u8; 32] {
        match &self.mmr {
            Some(m) => model::role_value(m, role),
            None => self.roles[&role],
        }
    }

    /// Honest compact (version 2) items for `indexes` (any subset for small MMRs; the claims
    /// for synthetic), in payload order.
    fn honest_items(&self, indexes: &[u64]) -> Vec<[u8; 32]> {
        crate::compact::roles(self.leaf_count, indexes)
            .into_iter()
            .map(|r| self.role_value(r))
            .collect()
    }
}

/// One differential test case: the inputs of a transaction for each format.
#[derive(Clone)]
pub struct Case {
    pub truth: Rc<Truth>,
    pub args: Vec<u8>,
    /// Witness 0 of the baseline lock (`None`: no witness).
    pub baseline_witness: Option<Vec<u8>>,
    /// Witness 0 of the compiled locks (Rust and C): a version 2 (compact) payload.
    pub compiled_witness: Option<Vec<u8>>,
    /// Only mutations that do not depend on the payload format were applied.
    pub format_independent: bool,
    /// Names of the mutations applied, for reports.
    pub mutations: Vec<&'static str>,
}

/// A leaf record: (index or position, value).
type Leaf = (u64, [u8; 32]);

/// A payload under mutation, compact (version 2) or baseline: structured while no
/// byte-level mutation broke it.
struct Payload {
    leaves: Vec<Leaf>,
    items: Vec<[u8; 32]>,
    bytes: Option<Vec<u8>>,
    /// The format's encoder.
    encode: fn(&[Leaf], &[[u8; 32]]) -> Vec<u8>,
}

impl Payload {
    fn bytes(&mut self) -> &mut Vec<u8> {
        self.bytes
            .get_or_insert_with(|| (self.encode)(&self.leaves, &self.items))
    }
}

/// A value an attacker would try: a known node value, the root, zero.
fn pool_value(input: &mut Input, t: &Truth) -> [u8; 32] {
    match input.u8() % 8 {
        0 => t.root,
        1 => [0; 32],
        _ => t.known[input.below(t.known.len())],
    }
}

/// An index or position an attacker would try, near `base`.
fn nasty_u64(input: &mut Input, base: u64, n: u64, size: u64) -> u64 {
    match input.u8() % 12 {
        0 => base.wrapping_add(1),
        1 => base.wrapping_sub(1),
        2 => n,
        3 => size,
        4 => u64::MAX,
        5 => 1 << 50,
        6 => (1 << 50) - 1,
        7 => 0,
        8 => input.below(size as usize + 2) as u64,
        9 => base ^ (1 << input.below(64)),
        10 => n.wrapping_sub(1),
        _ => input.u64(),
    }
}

/// Byte-level mutation of a payload: flip, truncate, insert or delete bytes (which splits
/// and joins items), overwrite a u32 count, append.
fn mutate_bytes(input: &mut Input, p: &mut Vec<u8>) -> &'static str {
    let len = p.len();
    match input.u8() % 7 {
        0 if len > 0 => {
            let at = input.below(len);
            p[at] ^= 1 << (input.u8() % 8);
            "flip bit"
        }
        1 => {
            p.truncate(input.below(len + 1));
            "truncate"
        }
        2 => {
            let at = input.below(len + 1);
            let k = 1 + input.below(40);
            let fill = input.u8();
            p.splice(at..at, std::iter::repeat_n(fill, k));
            "insert bytes"
        }
        3 if len > 0 => {
            let at = input.below(len);
            let k = (1 + input.below(40)).min(len - at);
            p.drain(at..at + k);
            "delete bytes"
        }
        4 if len >= 4 => {
            let v: u32 = match input.u8() % 5 {
                0 => 0,
                1 => u32::MAX,
                2 => u32::from_le_bytes(p[..4].try_into().unwrap()).wrapping_add(1),
                3 => u32::from_le_bytes(p[..4].try_into().unwrap()).wrapping_sub(1),
                _ => input.u16() as u32,
            };
            let at = if input.u8().is_multiple_of(2) {
                0
            } else {
                input.below(len - 3)
            };
            p[at..at + 4].copy_from_slice(&v.to_le_bytes());
            "overwrite u32"
        }
        5 => {
            let k = 1 + input.below(40);
            let fill = input.u8();
            p.extend(std::iter::repeat_n(fill, k));
            "append bytes"
        }
        _ => {
            if len > 0 {
                let at = input.below(len);
                p[at] = input.u8();
            }
            "overwrite byte"
        }
    }
}

fn mutate_compiled(input: &mut Input, mmr: &Truth, c: &mut Payload) -> &'static str {
    if c.bytes.is_some() {
        return mutate_bytes(input, c.bytes());
    }
    let n = mmr.leaf_count;
    let size = mmr.mmr_size;
    let ni = c.items.len();
    match input.u8() % 12 {
        0 if ni > 0 => drop_item(input, &mut c.items),
        1 => insert_item(input, mmr, &mut c.items),
        2 if ni > 1 => swap_items(input, &mut c.items),
        3 if ni > 0 => {
            let i = input.below(ni);
            let v = c.items[i];
            c.items.insert(i, v);
            "duplicate item"
        }
        4 if ni > 0 && !c.leaves.is_empty() => {
            // An item and a leaf value trade places (a hash shifted between sections).
            let i = input.below(ni);
            let j = input.below(c.leaves.len());
            std::mem::swap(&mut c.items[i], &mut c.leaves[j].1);
            "swap item and value"
        }
        5 if ni > 0 => replace_item(input, mmr, &mut c.items),
        6 if !c.leaves.is_empty() => {
            let i = input.below(c.leaves.len());
            c.leaves[i].0 = nasty_u64(input, c.leaves[i].0, n, size);
            "change leaf index"
        }
        7 if !c.leaves.is_empty() => {
            let i = input.below(c.leaves.len());
            c.leaves[i].1 = pool_value(input, mmr);
            "change leaf value"
        }
        8 if !c.leaves.is_empty() => shuffle_leaves(input, &mut c.leaves),
        9 if !c.leaves.is_empty() => {
            // Move a leaf: a genuine (index, value) pair, at the place of another.
            let i = input.below(c.leaves.len());
            let j = mmr.some_leaf(input);
            c.leaves[i] = (j, mmr.leaf(j).unwrap());
            "move leaf"
        }
        10 if mmr.mmr.is_some() => {
            // Items of a different claim (e.g. a neighbour's honest proof).
            let j = input.below(n as usize) as u64;
            c.items = mmr.honest_items(&[j]);
            "items of another leaf"
        }
        _ => mutate_bytes(input, c.bytes()),
    }
}

fn mutate_baseline(input: &mut Input, mmr: &Truth, b: &mut Payload) -> &'static str {
    if b.bytes.is_some() {
        return mutate_bytes(input, b.bytes());
    }
    let n = mmr.leaf_count;
    let size = mmr.mmr_size;
    let ni = b.items.len();
    match input.u8() % 9 {
        0 if !b.leaves.is_empty() => {
            let i = input.below(b.leaves.len());
            b.leaves[i].0 = match input.u8() % 3 {
                0 => model::leaf_pos(mmr.some_leaf(input)),
                _ => nasty_u64(input, b.leaves[i].0, n, size),
            };
            "change position"
        }
        1 if ni > 0 => drop_item(input, &mut b.items),
        2 => insert_item(input, mmr, &mut b.items),
        3 if ni > 1 => swap_items(input, &mut b.items),
        4 if ni > 0 => replace_item(input, mmr, &mut b.items),
        5 if !b.leaves.is_empty() => {
            let i = input.below(b.leaves.len());
            b.leaves[i].1 = pool_value(input, mmr);
            "change leaf value"
        }
        6 if !b.leaves.is_empty() => shuffle_leaves(input, &mut b.leaves),
        7 if !b.leaves.is_empty() => {
            let i = input.below(b.leaves.len());
            let j = mmr.some_leaf(input);
            b.leaves[i] = (model::leaf_pos(j), mmr.leaf(j).unwrap());
            "move leaf"
        }
        _ => mutate_bytes(input, b.bytes()),
    }
}

// The proof-item edits both formats' mutators make; the callers' guards keep them in range.

fn drop_item(input: &mut Input, items: &mut Vec<[u8; 32]>) -> &'static str {
    items.remove(input.below(items.len()));
    "drop item"
}

fn insert_item(input: &mut Input, mmr: &Truth, items: &mut Vec<[u8; 32]>) -> &'static str {
    let v = pool_value(input, mmr);
    items.insert(input.below(items.len() + 1), v);
    "insert item"
}

fn swap_items(input: &mut Input, items: &mut [[u8; 32]]) -> &'static str {
    let i = input.below(items.len() - 1);
    items.swap(i, i + 1);
    "swap items"
}

fn replace_item(input: &mut Input, mmr: &Truth, items: &mut [[u8; 32]]) -> &'static str {
    let i = input.below(items.len());
    items[i] = pool_value(input, mmr);
    "replace item"
}

/// Drops, duplicates or swaps a leaf record.
fn shuffle_leaves(input: &mut Input, leaves: &mut Vec<Leaf>) -> &'static str {
    let i = input.below(leaves.len());
    match input.u8() % 3 {
        0 => {
            leaves.remove(i);
        }
        1 => leaves.insert(i, leaves[i]),
        _ => {
            let j = input.below(leaves.len());
            leaves.swap(i, j);
        }
    }
    "drop, duplicate or swap leaf records"
}

/// Mutations of the args: root bits, mmr_size, length (never 41 bytes: owner mode has its
/// own tests, and these adapters model the plain 40-byte mode).
fn mutate_args(input: &mut Input, mmr: &Truth, args: &mut Vec<u8>) -> &'static str {
    match input.u8() % 4 {
        0 if !args.is_empty() => {
            let at = input.below(args.len().min(32));
            args[at] ^= 1 << (input.u8() % 8);
            "flip root bit"
        }
        1 | 2 if args.len() >= 40 => {
            let size = mmr.mmr_size;
            let v = match input.u8() % 10 {
                0 => size + 1,
                1 => size - 1,
                2 => 0,
                3 => 1 << 50,
                4 => (1 << 50) + 1,
                5 => u64::MAX,
                6 => mmr_lock::mmr::mmr_size_of(mmr.leaf_count + 1),
                7 => mmr_lock::mmr::mmr_size_of((mmr.leaf_count - 1).max(1)),
                8 => mmr_lock::mmr::mmr_size_of(1 + input.below(200) as u64),
                _ => input.u64(),
            };
            args[32..40].copy_from_slice(&v.to_le_bytes());
            if model::leaf_count_of_size(v).is_some() {
                // Another canonical size over the same root reinterprets the proof's shape
                // (e.g. a leafless peak's item becomes a peak of another height), which the
                // formats express differently: not format-independent.
                "change mmr_size to another canonical size"
            } else {
                "change mmr_size"
            }
        }
        _ => {
            let len = match input.u8() % 6 {
                0 => 0,
                1 => 32,
                2 => 39,
                3 => 42,
                4 => 200,
                _ => input.below(300),
            };
            let len = if len == 41 { 42 } else { len };
            args.resize(len, 0x5a);
            "change args length"
        }
    }
}

/// A molecule mutation of `WitnessArgs`, the same for both formats (it touches the header
/// and field framing only, never the lock field's content).
#[derive(Clone, Copy)]
enum WitnessMutation {
    Missing,
    TotalSize(u32),
    Offset(usize, u32),
    LockLength(u32),
    Truncate(usize),
    Append(u8),
    LockNone,
    InputType,
    Oversize,
}

fn witness_mutation(input: &mut Input) -> WitnessMutation {
    match input.u8() % 9 {
        0 => WitnessMutation::Missing,
        1 => WitnessMutation::TotalSize(match input.u8() % 3 {
            0 => 0,
            1 => u32::MAX,
            _ => input.u16() as u32,
        }),
        2 => WitnessMutation::Offset(input.below(3), input.u8() as u32),
        3 => WitnessMutation::LockLength(input.u8() as u32),
        4 => WitnessMutation::Truncate(input.below(24)),
        5 => WitnessMutation::Append(input.u8()),
        6 => WitnessMutation::LockNone,
        7 => WitnessMutation::InputType,
        _ => WitnessMutation::Oversize,
    }
}

/// WitnessArgs with the lock field and the given input_type.
fn witness_with(lock: Option<&[u8]>, input_type: Option<&[u8]>) -> Vec<u8> {
    let mut body = Vec::new();
    let mut offsets = Vec::new();
    for f in [lock, input_type, None] {
        offsets.push(16 + body.len() as u32);
        if let Some(b) = f {
            body.extend_from_slice(&(b.len() as u32).to_le_bytes());
            body.extend_from_slice(b);
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&(16 + body.len() as u32).to_le_bytes());
    for o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&body);
    out
}

fn apply_witness(m: WitnessMutation, w: &mut Option<Vec<u8>>) {
    let Some(bytes) = w.as_mut() else { return };
    // Overwrites a u32 of the framing with a value that differs from the current one (an
    // equal value would be a no-op in one format and a change in the other).
    let put = |b: &mut Vec<u8>, at: usize, v: u32| {
        if b.len() >= at + 4 {
            let old = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            let v = if v == old { v.wrapping_add(1) } else { v };
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    };
    let lock = model::witness_lock(bytes).map(|l| l.to_vec());
    match m {
        WitnessMutation::Missing => *w = None,
        WitnessMutation::TotalSize(v) => put(bytes, 0, v),
        WitnessMutation::Offset(i, v) => put(bytes, 4 + 4 * i, v),
        WitnessMutation::LockLength(v) => put(bytes, 16, v),
        WitnessMutation::Truncate(k) => {
            let len = bytes.len();
            bytes.truncate(len.saturating_sub(k + 1));
        }
        WitnessMutation::Append(b) => bytes.push(b),
        WitnessMutation::LockNone => *bytes = witness_with(None, lock.as_deref()),
        WitnessMutation::InputType => *bytes = witness_with(lock.as_deref(), Some(b"input")),
        WitnessMutation::Oversize => {
            // A valid WitnessArgs of 65537 bytes: the lock-level size check comes first.
            let pad = 65537 - 16 - 4 - 4;
            *bytes = witness_with(lock.as_deref(), Some(&vec![0u8; pad][..]));
            bytes.truncate(65537);
            let len = (bytes.len() as u32).to_le_bytes();
            bytes[0..4].copy_from_slice(&len);
            bytes[12..16].copy_from_slice(&len);
        }
    }
}

/// Decodes a case from fuzz input.
pub fn decode(data: &[u8]) -> Case {
    let mut input = Input::new(data);
    let mode = input.u8();
    let truth = if mode % 16 == 13 {
        Rc::new(Truth::synthetic(&mut input))
    } else {
        let n = 1 + input.below(MAX_LEAVES as usize) as u64;
        Truth::small(n, input.u8() % 3)
    };
    let mmr = truth.clone();
    let n = mmr.leaf_count;
    let args = mmr.args();
    if mode % 16 == 15 {
        // Raw mode: the rest of the input is the payload, in both formats.
        let raw = input.rest();
        return Case {
            args,
            baseline_witness: Some(model::witness_args(raw)),
            compiled_witness: Some(model::witness_args(raw)),
            format_independent: false,
            mutations: vec!["raw payload"],
            truth,
        };
    }
    let indexes: Vec<u64> = if mmr.mmr.is_some() {
        let count = 1 + input.below(6);
        let mut indexes: Vec<u64> = (0..count).map(|_| input.below(n as usize) as u64).collect();
        indexes.sort();
        indexes.dedup();
        indexes
    } else {
        mmr.claims.iter().map(|c| c.0).collect()
    };
    // Version 1 chose a bagging with this byte; version 2 has one shape per claim. Still
    // read, so the corpus's inputs keep decoding to the same claims and mutations.
    let _ = input.u8();
    let mut compiled = Payload {
        leaves: indexes.iter().map(|&i| (i, mmr.leaf(i).unwrap())).collect(),
        items: mmr.honest_items(&indexes),
        bytes: None,
        encode: crate::compact::encode,
    };
    let baseline_items: Vec<[u8; 32]> = model::gen_proof_roles(n, &indexes)
        .into_iter()
        .map(|r| mmr.role_value(r))
        .collect();
    let mut baseline = Payload {
        leaves: indexes
            .iter()
            .map(|&i| (model::leaf_pos(i), mmr.leaf(i).unwrap()))
            .collect(),
        items: baseline_items,
        bytes: None,
        encode: model::encode_baseline,
    };
    let mut args = args;
    let mut witness_mutations = Vec::new();
    let mut format_independent = true;
    let mut mutations = Vec::new();
    let rounds = input.u8() % 6;
    for _ in 0..rounds {
        let m = match input.u8() % 8 {
            0..=2 => {
                format_independent = false;
                mutate_compiled(&mut input, &mmr, &mut compiled)
            }
            3..=4 => {
                format_independent = false;
                mutate_baseline(&mut input, &mmr, &mut baseline)
            }
            5 => {
                let m = mutate_args(&mut input, &mmr, &mut args);
                if m == "change mmr_size to another canonical size" {
                    format_independent = false;
                }
                m
            }
            _ => {
                // One framing mutation per case: two could cancel out in one format and not
                // in the other (truncate a byte, append the same byte back).
                let m = witness_mutation(&mut input);
                if witness_mutations.is_empty() {
                    witness_mutations.push(m);
                }
                "witness encoding"
            }
        };
        mutations.push(m);
    }
    let mut bw = Some(model::witness_args(baseline.bytes()));
    let mut cw = Some(model::witness_args(compiled.bytes()));
    for m in witness_mutations {
        apply_witness(m, &mut bw);
        apply_witness(m, &mut cw);
    }
    Case {
        truth,
        args,
        baseline_witness: bw,
        compiled_witness: cw,
        format_independent,
        mutations,
    }
}

/// Exit codes of one case: baseline, compiled Rust, C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codes {
    pub baseline: i8,
    pub compiled: i8,
    pub c: i8,
}

impl Case {
    pub fn describe(&self) -> String {
        format!(
            "mutations {:?}\nargs {}\nbaseline witness {}\ncompiled witness {}",
            self.mutations,
            crate::hex(&self.args),
            self.baseline_witness
                .as_deref()
                .map_or("none".into(), crate::hex),
            self.compiled_witness
                .as_deref()
                .map_or("none".into(), crate::hex),
        )
    }

    /// Do the claims of an accepted lock hold?
    ///
    /// - Args with the MMR's root and size: every claimed leaf must be the MMR's leaf at that
    ///   index (for a synthetic MMR, one of the claims it was built from or a height-0 node of
    ///   their proof: any other leaf's value would need a preimage of a random node).
    /// - The same root with another canonical size commits to a different shape over the
    ///   same hashes: a peak may stand for a bagged pair, an inner node for a leaf. That is a
    ///   true statement about that root, not a forgery, so then every claimed value must be
    ///   a value the test knows (a node, item or root; anything else needs a preimage).
    /// - Another root (mutated args): only a one-leaf MMR, whose root is its leaf, can be
    ///   proved without a preimage; the claimed value must be that root.
    fn genuine(&self, format: Format) -> bool {
        let t = &self.truth;
        let Some((root, size, n)) = model::parse_args(&self.args) else {
            return false;
        };
        let Some(payload) = self.witness(format).and_then(model::witness_lock) else {
            return false;
        };
        let leaves = match format {
            Format::Baseline => model::parse_baseline(payload).map(|p| p.leaves),
            Format::Compiled => model::parse_compiled(payload).map(|p| p.leaves),
            Format::Compact => crate::compact::parse(payload).map(|p| p.leaves),
        };
        let Some(leaves) = leaves.filter(|l| !l.is_empty()) else {
            return false;
        };
        if root != t.root {
            return n == 1 && leaves.iter().all(|(_, v)| *v == root);
        }
        if size != t.mmr_size {
            return leaves.iter().all(|(_, v)| t.known.contains(v));
        }
        leaves.iter().all(|&(at, v)| {
            let index = match format {
                Format::Baseline => model::leaf_index_of_pos(n, at),
                Format::Compiled | Format::Compact => Some(at).filter(|&i| i < n),
            };
            index.is_some_and(|i| t.leaf(i) == Some(v))
        })
    }

    fn witness(&self, format: Format) -> Option<&[u8]> {
        match format {
            Format::Baseline => self.baseline_witness.as_deref(),
            // The compiled verifiers read version 2; no case carries a version 1 witness.
            Format::Compiled | Format::Compact => self.compiled_witness.as_deref(),
        }
    }

    /// Runs the three cores natively.
    pub fn run_native(&self) -> Codes {
        Codes {
            baseline: native::baseline_lock(&self.args, self.baseline_witness.as_deref()),
            compiled: native::compiled_lock(&self.args, self.compiled_witness.as_deref()),
            c: native::c_lock(&self.args, self.compiled_witness.as_deref()),
        }
    }

    /// The differential check on the given codes (from the native cores or the VM).
    pub fn check(&self, codes: Codes) -> Result<(), String> {
        let Codes {
            baseline: b,
            compiled: r,
            c,
        } = codes;
        let fail = |why: String| Err(format!("{why} (codes {codes:?})\n{}", self.describe()));
        if r != c {
            return fail(format!("compiled Rust {r} != C {c}"));
        }
        if !crate::documented_baseline(b) || !crate::documented_compiled(r) {
            return fail("undocumented exit code".into());
        }
        let mb = model::lock_accepts(Format::Baseline, &self.args, self.witness(Format::Baseline));
        let mc = model::lock_accepts(Format::Compact, &self.args, self.witness(Format::Compact));
        if (b == 0) != mb {
            return fail(format!("baseline {b} but the model says accept={mb}"));
        }
        if (r == 0) != mc {
            return fail(format!("compiled {r} but the model says accept={mc}"));
        }
        if b == 0 && !self.genuine(Format::Baseline) {
            return fail("FORGERY accepted by baseline".into());
        }
        if r == 0 && !self.genuine(Format::Compact) {
            return fail("FORGERY accepted by the compiled verifiers".into());
        }
        if self.format_independent {
            if (b == 0) != (r == 0) {
                return fail("format-independent mutation, different verdicts".into());
            }
            let lock_level = |x: i8| (1..=8).contains(&x) || (90..=99).contains(&x);
            if (lock_level(b) || lock_level(r)) && b != r {
                return fail("format-independent mutation, different lock-level codes".into());
            }
        }
        Ok(())
    }
}

/// The fuzz target's body: decode, run natively, check.
pub fn run_one(data: &[u8]) -> Result<Codes, String> {
    let case = decode(data);
    let codes = case.run_native();
    case.check(codes)?;
    Ok(codes)
}

/// A small deterministic PRNG (xorshift64*) for corpus seeds and the VM test.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// Seed inputs for the fuzzer: honest proofs of every shape class (no mutation), each
/// mutation family alone, and random mixes.
pub fn seed_inputs(count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    for n in [1u8, 2, 3, 5, 7, 8, 11, 15, 16, 31, 63, 79] {
        for kind in 0..3u8 {
            // mode 0, n, kind, count byte, index bytes..., bag choice, 0 rounds
            let mut d = vec![0u8, n - 1, kind, 2];
            d.extend(rng.bytes(8));
            d.push(1);
            d.push(0);
            out.push(d);
        }
    }
    for i in 0..24u8 {
        // Synthetic large MMRs (mode 13): size class, leaf count bytes, claims, seed.
        // Short inputs end before the mutation count (read as 0): honest proofs.
        let mut d = vec![13u8, i % 4];
        d.extend(rng.bytes(if i % 2 == 0 { 12 } else { 60 }));
        out.push(d);
    }
    while out.len() < count {
        let len = 16 + (rng.next_u64() % 96) as usize;
        let mut d = rng.bytes(len);
        d[0] &= 0x0e; // structured mode
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_synthetic_mmr_knows_its_values_in_one_order() {
        // Each map gets its own hash seed, so two builds from one input differ unless the
        // values are ordered.
        let data: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37) ^ 0x5a).collect();
        let a = Truth::synthetic(&mut Input::new(&data));
        let b = Truth::synthetic(&mut Input::new(&data));
        assert!(a.known.len() > 4, "{}", a.known.len());
        assert_eq!(a.known, b.known);
    }
}
