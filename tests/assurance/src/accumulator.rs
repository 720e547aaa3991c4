//! The accumulator (`docs/accumulator.md`): a host model of its transitions, written from the
//! definitions and sharing no code with `crates/mmr-accumulator` (only the reference hash),
//! and the exhaustive search that holds the core against it over small MMRs.
//!
//! The model:
//! - sizes: the leaf count of a size is found by counting nodes tree by tree
//!   ([`model_leaf_count`]), peaks by splitting the leaves into perfect trees, largest first;
//! - append: the body is split as the spec says, the old root is the model's own bagging of
//!   the given peaks, and the new MMR is built by pushing leaves onto the peaks and merging
//!   the two rightmost while their heights match (the definition of an MMR);
//! - ancestry: the proof's slots (which node each item stands for) are derived by walking the
//!   new MMR's trees with `(first, height)` and a set of old peaks, and the roots are
//!   evaluated by recursion over the trees, filling in the given nodes.
//!
//! Ground truth (for the forgery oracle) comes from [`crate::mmr::Mmr`], built node by node.

use crate::hash::merge;
use crate::mmr::Mmr;
use crate::report::{Findings, Outcome, Report};
use mmr_accumulator::Error;
use std::collections::{HashMap, HashSet};

type H = [u8; 32];

/// Exit codes documented in `docs/error-codes.md` for the accumulator (0 = accepted).
pub fn documented(code: i8) -> bool {
    matches!(code, 0 | 100..=127)
}

/// `MAX_MMR_SIZE` of the spec, written again.
const LIMIT: u64 = 1 << 50;

/// Node count of an MMR of `leaves` leaves: one perfect tree of `2^(h+1) - 1` nodes per
/// power of two in the leaf count's binary split.
pub fn model_size(leaves: u64) -> u64 {
    perfect_trees(leaves)
        .iter()
        .map(|&(_, h)| (2u64 << h) - 1)
        .sum()
}

/// The perfect trees `(first, height)` of `leaves` leaves, largest (leftmost) first.
pub fn perfect_trees(leaves: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut first = 0u64;
    let mut left = leaves;
    while left > 0 {
        let mut h = 0u32;
        while (1u64 << (h + 1)) <= left {
            h += 1;
        }
        out.push((first, h));
        first += 1 << h;
        left -= 1 << h;
    }
    out
}

/// The leaf count whose MMR has `size` nodes (`None`: 0, above 2^50, or no MMR's size).
pub fn model_leaf_count(size: u64) -> Option<u64> {
    if size == 0 || size > LIMIT {
        return None;
    }
    // A size-`s` MMR has more than s/2 leaves and at most s/2 + 64.
    (size / 2..=size / 2 + 64).find(|&n| n >= 1 && model_size(n) == size)
}

/// Bagging right to left: `acc = last; acc = merge(acc, previous)`.
pub fn model_bag(peaks: &[H]) -> Option<H> {
    let (last, rest) = peaks.split_last()?;
    Some(rest.iter().rev().fold(*last, |acc, p| merge(&acc, p)))
}

/// The MMR built from `peaks` (their heights from `old_leaves`' split) by pushing `leaves`;
/// returns the root.
fn model_push(old_leaves: u64, peaks: &[H], leaves: &[H]) -> H {
    let mut stack: Vec<(u32, H)> = perfect_trees(old_leaves)
        .iter()
        .zip(peaks)
        .map(|(&(_, h), p)| (h, *p))
        .collect();
    for leaf in leaves {
        stack.push((0, *leaf));
        while stack.len() >= 2 && stack[stack.len() - 1].0 == stack[stack.len() - 2].0 {
            let (h, r) = stack.pop().unwrap();
            let (_, l) = stack.pop().unwrap();
            stack.push((h + 1, merge(&l, &r)));
        }
    }
    let hashes: Vec<H> = stack.iter().map(|&(_, v)| v).collect();
    model_bag(&hashes).unwrap()
}

/// Append (or create, with `old == None`): the new (root, size) or the exit code.
pub fn model_append(old: Option<(&H, u64)>, body: &[u8]) -> Result<(H, u64), i8> {
    let n = match old {
        Some((_, size)) => model_leaf_count(size).ok_or(100)?,
        None => 0,
    };
    let p = perfect_trees(n).len();
    if body.len() < 32 * p + 4 {
        return Err(103);
    }
    let k = u32::from_le_bytes(body[32 * p..32 * p + 4].try_into().unwrap()) as usize;
    if k == 0 {
        return Err(104);
    }
    let leaves_end = 32 * p + 4 + 32 * k;
    if body.len() < leaves_end {
        return Err(103);
    }
    let extra = body.len() - leaves_end;
    if extra >= 32 {
        return Err(105);
    }
    if extra > 0 {
        return Err(106);
    }
    let m = n + k as u64;
    if model_size(m) > LIMIT {
        return Err(107);
    }
    let hashes = |b: &[u8]| -> Vec<H> { b.chunks(32).map(|c| c.try_into().unwrap()).collect() };
    let peaks = hashes(&body[..32 * p]);
    let leaves = hashes(&body[32 * p + 4..]);
    if let Some((root, _)) = old {
        if model_bag(&peaks).as_ref() != Some(root) {
            return Err(102);
        }
    }
    Ok((model_push(n, &peaks, &leaves), model_size(m)))
}

/// What an ancestry proof's item stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A peak of the old MMR, `(first, height)`.
    OldPeak(u64, u32),
    /// A node of the new MMR covering only new leaves.
    NewNode(u64, u32),
    /// The bagging of these new peaks (all new leaves).
    Tail(Vec<(u64, u32)>),
}

/// The slots of the ancestry proof from `n` to `m > n` leaves, from the trees: the new peak
/// holding old peaks without being one is climbed from its lowest old peak; new peaks
/// without old leaves right of it form the tail; new peaks that are old peaks come last,
/// lowest first.
pub fn model_slots(n: u64, m: u64) -> Vec<Slot> {
    let old: Vec<(u64, u32)> = perfect_trees(n);
    let old_set: HashSet<(u64, u32)> = old.iter().copied().collect();
    let new = perfect_trees(m);
    let inside =
        |(f, h): (u64, u32), (pf, ph): (u64, u32)| pf >= f && pf + (1 << ph) <= f + (1 << h);
    let mut slots = Vec::new();
    let mut tail = Vec::new();
    let mut shared = Vec::new();
    for &peak in &new {
        if old_set.contains(&peak) {
            shared.push(peak);
            continue;
        }
        let olds: Vec<(u64, u32)> = old.iter().copied().filter(|&o| inside(peak, o)).collect();
        if olds.is_empty() {
            tail.push(peak);
            continue;
        }
        // Climb from the lowest old peak inside to `peak`.
        let mut node = *olds.last().unwrap();
        slots.push(Slot::OldPeak(node.0, node.1));
        while node != peak {
            let (f, h) = node;
            let is_left = (f >> h) % 2 == 0;
            if is_left {
                slots.push(Slot::NewNode(f + (1 << h), h));
                node = (f, h + 1);
            } else {
                let sibling = (f - (1 << h), h);
                assert!(
                    old_set.contains(&sibling),
                    "model: a left sibling is no old peak"
                );
                slots.push(Slot::OldPeak(sibling.0, sibling.1));
                node = (sibling.0, h + 1);
            }
        }
    }
    if !tail.is_empty() {
        slots.push(Slot::Tail(tail));
    }
    for &(f, h) in shared.iter().rev() {
        slots.push(Slot::OldPeak(f, h));
    }
    slots
}

/// Ancestry: `Ok(())` or the exit code, for the old commitment (`old_root`, `old_size`) and
/// the new (`new_root`, `new_size`).
pub fn model_ancestry(
    old_root: &H,
    old_size: u64,
    new_root: &H,
    new_size: u64,
    proof: &[u8],
) -> Result<(), i8> {
    let (old, new) = model_ancestry_roots(old_size, new_size, proof)?;
    if &old != old_root {
        return Err(102);
    }
    if &new != new_root {
        return Err(113);
    }
    Ok(())
}

/// The old and the new root an ancestry proof between the two sizes evaluates to (its items
/// taken at face value), or the code of a shape or length error. Also how a benchmark makes
/// honest proofs of MMRs too large to build: any items, and the roots they give.
pub fn model_ancestry_roots(old_size: u64, new_size: u64, proof: &[u8]) -> Result<(H, H), i8> {
    let n = model_leaf_count(old_size).ok_or(100)?;
    let m = model_leaf_count(new_size).ok_or(101)?;
    if n > m {
        return Err(108);
    }
    if n == m {
        return Err(109);
    }
    let slots = model_slots(n, m);
    let need = 32 * slots.len();
    if proof.len() < need {
        return Err(110);
    }
    if proof.len() - need >= 32 {
        return Err(111);
    }
    if proof.len() != need {
        return Err(112);
    }
    let mut given: HashMap<(u64, u32), H> = HashMap::new();
    let mut tail_value = None;
    for (slot, item) in slots.iter().zip(proof.chunks(32)) {
        let item: H = item.try_into().unwrap();
        match slot {
            Slot::OldPeak(f, h) | Slot::NewNode(f, h) => {
                given.insert((*f, *h), item);
            }
            Slot::Tail(_) => tail_value = Some(item),
        }
    }
    // The old root: the old peaks' items, bagged.
    let old_peaks: Vec<H> = perfect_trees(n).iter().map(|p| given[p]).collect();
    // n >= 1: at least one old peak.
    let old_root = model_bag(&old_peaks).ok_or(100)?;
    // The new root: each new peak evaluated from the given nodes, the tail's item standing
    // for the bagging of the peaks it covers (they are the rightmost).
    fn eval(node: (u64, u32), given: &HashMap<(u64, u32), H>) -> H {
        if let Some(v) = given.get(&node) {
            return *v;
        }
        let (f, h) = node;
        assert!(h > 0, "model: a node the proof should give is missing");
        let l = eval((f, h - 1), given);
        let r = eval((f + (1 << (h - 1)), h - 1), given);
        merge(&l, &r)
    }
    let tail: Vec<(u64, u32)> = match slots.iter().find(|s| matches!(s, Slot::Tail(_))) {
        Some(Slot::Tail(t)) => t.clone(),
        _ => Vec::new(),
    };
    let mut new_peaks: Vec<H> = perfect_trees(m)
        .into_iter()
        .filter(|p| !tail.contains(p))
        .map(|p| eval(p, &given))
        .collect();
    new_peaks.extend(tail_value);
    let new_root = model_bag(&new_peaks).ok_or(101)?;
    Ok((old_root, new_root))
}

/// The honest ancestry proof from the first `n` leaves of `history` to the first `m`, from
/// the model's slots and the node-by-node MMR.
pub fn honest_proof(history: &Mmr, n: u64, m: u64) -> Vec<u8> {
    let item = |slot| match slot {
        Slot::OldPeak(f, h) | Slot::NewNode(f, h) => history.node(f, h),
        Slot::Tail(peaks) => {
            let vals: Vec<H> = peaks.iter().map(|&(f, h)| history.node(f, h)).collect();
            model_bag(&vals).unwrap()
        }
    };
    model_slots(n, m).into_iter().flat_map(item).collect()
}

/// How an accepted ancestry claim from the history's honest `n`-leaf commitment relates to
/// the truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// The history's own MMR of the claimed size.
    Honest,
    /// Every old peak sits in its slot, so the old MMR is the new one's prefix at the places
    /// the sizes fix; only the part of new leaves differs from the history (other new nodes,
    /// or a tail bagging read as the bagging of another number of peaks). The verifier never
    /// sees the new leaves, so this is what an ancestry proof can promise.
    NewPartOpaque,
    /// An old peak is not the history's: the prefix is broken.
    Forgery,
}

pub fn classify(history: &Mmr, n: u64, new_size: u64, new_root: &H, proof: &[u8]) -> Accepted {
    let Some(m) = model_leaf_count(new_size) else {
        return Accepted::Forgery;
    };
    if m <= history.leaf_count() && prefix_root(history, m) == *new_root {
        return Accepted::Honest;
    }
    if m <= n {
        return Accepted::Forgery;
    }
    for (slot, item) in model_slots(n, m).iter().zip(proof.chunks(32)) {
        if let Slot::OldPeak(f, h) = slot {
            if item != history.node(*f, *h) {
                return Accepted::Forgery;
            }
        }
    }
    Accepted::NewPartOpaque
}

/// The honest append body from `n` to `m` leaves of `history`.
pub fn honest_append(history: &Mmr, n: u64, m: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, h) in perfect_trees(n) {
        out.extend_from_slice(&history.node(f, h));
    }
    out.extend_from_slice(&((m - n) as u32).to_le_bytes());
    for l in &history.leaves[n as usize..m as usize] {
        out.extend_from_slice(l);
    }
    out
}

/// The root of the first `n` leaves of `history`, node by node.
pub fn prefix_root(history: &Mmr, n: u64) -> H {
    Mmr::build(&history.leaves[..n as usize]).root
}

/// The verifier under test: the core, or a deliberately broken copy (negative controls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Core,
    /// Skips the old-root check (append: trusts the given peaks; ancestry: only the new root
    /// is compared).
    NoOldRootCheck,
    /// Accepts bytes after the last required ancestry item (the 2026 Hyperbridge class).
    IgnoresLeftovers,
}

/// The reference hash as the core's merge.
pub(crate) struct Ref;

impl mmr_accumulator::Merge for Ref {
    fn merge(left: &H, right: &H, out: &mut H) {
        *out = merge(left, right);
    }
}

/// Append through the variant.
pub fn run_append(v: Variant, old_root: &H, old_size: u64, body: &[u8]) -> Result<(H, u64), i8> {
    let root = match v {
        Variant::NoOldRootCheck => {
            // Trust the peaks: pretend the input's root is their bagging.
            let p = mmr_lock::mmr::leaf_count(old_size).map_or(0, |n| n.count_ones() as usize);
            body.get(..32 * p)
                .and_then(|b| {
                    let peaks: Vec<H> = b.chunks(32).map(|c| c.try_into().unwrap()).collect();
                    model_bag(&peaks)
                })
                .unwrap_or(*old_root)
        }
        _ => *old_root,
    };
    mmr_accumulator::append::<Ref>(&root, old_size, body)
        .map(|c| (c.root, c.mmr_size))
        .map_err(Error::code)
}

/// The (old, new) roots a proof stands for, or the structural code, through the variant.
pub fn run_ancestry_roots(
    v: Variant,
    old_size: u64,
    new_size: u64,
    proof: &[u8],
) -> Result<(H, H), i8> {
    let proof = match v {
        Variant::IgnoresLeftovers => {
            let need = mmr_lock::mmr::leaf_count(old_size)
                .zip(mmr_lock::mmr::leaf_count(new_size))
                .and_then(|(n, m)| mmr_accumulator::Shape::new(n, m).ok())
                .map_or(proof.len(), |s| 32 * s.items() as usize);
            &proof[..need.min(proof.len())]
        }
        _ => proof,
    };
    mmr_accumulator::ancestry_roots::<Ref>(old_size, new_size, proof).map_err(Error::code)
}

/// The verdict of the variant for given roots, from [`run_ancestry_roots`]'s result (so one
/// proof's hashing serves every claimed root).
pub fn ancestry_verdict(
    v: Variant,
    roots: &Result<(H, H), i8>,
    old_root: &H,
    new_root: &H,
) -> Result<(), i8> {
    let (old, new) = roots.as_ref().map_err(|c| *c)?;
    if v != Variant::NoOldRootCheck && old != old_root {
        return Err(102);
    }
    if new != new_root {
        return Err(113);
    }
    Ok(())
}

/// The type script's update flow after its loads (`verify_update`: `payload` from
/// `WitnessArgs.input_type`, `input`/`output` the two cells' data) through the variant: 0 or
/// the exit code. `Core` is `mmr_accumulator::verify_update` itself; the broken variants
/// change only `APPEND` and `EXTEND` (through [`run_append`] and [`run_ancestry_roots`]) and
/// leave everything else to the core.
pub fn update_code(v: Variant, payload: &[u8], input: &[u8], output: &[u8]) -> i8 {
    let core = || {
        let mut ws = mmr_accumulator::Workspace::new();
        mmr_accumulator::verify_update::<Ref>(&mut ws, payload, input, output)
            .map_or_else(Error::code, |()| 0)
    };
    let (Ok((old_root, old_size)), Ok((new_root, new_size))) = (
        mmr_accumulator::split_data(input),
        mmr_accumulator::split_data(output),
    ) else {
        return core();
    };
    match (v, payload.split_first()) {
        (Variant::Core, _) => core(),
        (_, Some((&mmr_accumulator::tag::APPEND, body))) => {
            match run_append(v, old_root, old_size, body) {
                Ok(c) if c == (*new_root, new_size) => 0,
                Ok(_) => Error::OutputMismatch.code(),
                Err(c) => c,
            }
        }
        (_, Some((&mmr_accumulator::tag::EXTEND, proof))) => {
            let roots = run_ancestry_roots(v, old_size, new_size, proof);
            ancestry_verdict(v, &roots, old_root, new_root).map_or_else(|c| c, |()| 0)
        }
        _ => core(),
    }
}

/// The type script's creation flow after its loads and the type-id check
/// (`verify_creation`: `payload` from `WitnessArgs.output_type`, `output` the cell's data),
/// on the core: 0 or the exit code.
pub fn creation_code(payload: &[u8], output: &[u8]) -> i8 {
    let mut ws = mmr_accumulator::Workspace::new();
    mmr_accumulator::verify_creation::<Ref>(&mut ws, payload, output)
        .map_or_else(Error::code, |()| 0)
}

/// The model's code for an update with 40-byte `input` and `output` (0 = accepted), where the
/// model defines the transition: `APPEND` ([`model_append`], then the output compared, 117)
/// and `EXTEND` ([`model_ancestry`]); `None` for anything else.
pub fn model_update_code(payload: &[u8], input: &[u8; 40], output: &[u8; 40]) -> Option<i8> {
    let split = |d: &[u8; 40]| -> (H, u64) {
        (
            d[..32].try_into().unwrap(),
            u64::from_le_bytes(d[32..].try_into().unwrap()),
        )
    };
    let ((old_root, old_size), (new_root, new_size)) = (split(input), split(output));
    let verdict = match payload.split_first()? {
        (&mmr_accumulator::tag::APPEND, body) => {
            match model_append(Some((&old_root, old_size)), body) {
                Ok(c) if c == (new_root, new_size) => Ok(()),
                Ok(_) => Err(117),
                Err(c) => Err(c),
            }
        }
        (&mmr_accumulator::tag::EXTEND, proof) => {
            model_ancestry(&old_root, old_size, &new_root, new_size, proof)
        }
        _ => return None,
    };
    Some(verdict.map_or_else(|c| c, |()| 0))
}

/// The model's code for a creation by `CREATE` with a 40-byte `output`; `None` for any other
/// payload.
pub fn model_creation_code(payload: &[u8], output: &[u8; 40]) -> Option<i8> {
    let body = match payload.split_first()? {
        (&mmr_accumulator::tag::CREATE, body) => body,
        _ => return None,
    };
    let new_root: H = output[..32].try_into().unwrap();
    let new_size = u64::from_le_bytes(output[32..].try_into().unwrap());
    Some(match model_append(None, body) {
        Ok(c) if c == (new_root, new_size) => 0,
        Ok(_) => 117,
        Err(c) => c,
    })
}

/// Search bounds.
#[derive(Debug, Clone)]
pub struct Config {
    /// Every MMR of 1..=max_leaves leaves (one history: all are prefixes of one another).
    pub max_leaves: u64,
    /// Proofs of at most this many items take every tuple from the pool.
    pub full_tuple_items: usize,
    /// Longer proofs: every change of up to this many items to pool values.
    pub max_changes: usize,
}

impl Config {
    pub fn reduced() -> Config {
        Config {
            max_leaves: 8,
            full_tuple_items: 2,
            max_changes: 1,
        }
    }

    pub fn full() -> Config {
        Config {
            max_leaves: 16,
            full_tuple_items: 3,
            max_changes: 2,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub pairs: u64,
    pub append_cases: u64,
    pub append_accepted: u64,
    pub create_cases: u64,
    pub ancestry_structural: u64,
    pub ancestry_proofs: u64,
    pub ancestry_cases: u64,
    pub ancestry_accepted: u64,
    /// Accepted claims whose old peaks are all in place but whose part of new leaves is not
    /// the history's ([`Accepted::NewPartOpaque`]).
    pub ancestry_opaque: u64,
    pub honest: u64,
    pub forgeries: u64,
    pub honest_rejected: u64,
    pub disagreements: u64,
    pub undocumented: u64,
    pub codes_seen: std::collections::BTreeSet<i8>,
    pub findings: Findings<20>,
}

impl Stats {
    /// Counts the core's code and any disagreement with the model, described by `what`.
    fn compare<T: PartialEq + std::fmt::Debug>(
        &mut self,
        core: &Result<T, i8>,
        model: &Result<T, i8>,
        what: impl FnOnce() -> String,
    ) {
        if let Err(c) = *core {
            if !documented(c) {
                self.undocumented += 1;
            }
            self.codes_seen.insert(c);
        }
        if core != model {
            self.disagreements += 1;
            self.findings
                .push(format!("{}: core {core:?} model {model:?}", what()));
        }
    }

    /// Counts an accepted ancestry claim from an honest input: opaque, or a forgery
    /// described by `what`.
    fn accepted_ancestry(&mut self, accepted: Accepted, what: impl FnOnce() -> String) {
        match accepted {
            Accepted::Honest => {}
            Accepted::NewPartOpaque => self.ancestry_opaque += 1,
            Accepted::Forgery => {
                self.forgeries += 1;
                self.findings.push(what());
            }
        }
    }
}

impl Outcome for Stats {
    fn problems(&self) -> u64 {
        self.forgeries + self.honest_rejected + self.disagreements + self.undocumented
    }

    fn report(&self) -> String {
        // One row a line: the table reads as the report prints it.
        #[rustfmt::skip]
        let rows = [
            ("(old, new) leaf-count pairs", self.pairs),
            ("append cases (core + model)", self.append_cases),
            ("  accepted", self.append_accepted),
            ("create cases", self.create_cases),
            ("ancestry structural cases (sizes x lengths)", self.ancestry_structural),
            ("ancestry proofs of the right length (hashed once)", self.ancestry_proofs),
            ("ancestry cases (proof x old root x new root)", self.ancestry_cases),
            ("  accepted", self.ancestry_accepted),
            ("  of which: old peaks in place, new part not the history's", self.ancestry_opaque),
            ("honest transitions (all must be accepted)", self.honest),
            ("forgeries accepted", self.forgeries),
            ("honest transitions rejected", self.honest_rejected),
            ("core/model disagreements", self.disagreements),
            ("undocumented codes", self.undocumented),
        ];
        let mut r = Report::new(52, 12);
        r.rows(&rows);
        r.line(&format!("codes seen: {:?}", self.codes_seen));
        r.finish("finding", &self.findings)
    }
}

/// Every value of the search's pool for a pair: every node of the larger MMR (which holds
/// every node of the smaller), both roots, every bagging of a suffix of either MMR's peaks
/// (the old peaks are nodes; the tails are baggings).
pub fn pool(history: &Mmr, n: u64, m: u64) -> Vec<H> {
    let big = n.max(m) as usize;
    let mut out: Vec<H> = Vec::new();
    let mut add = |v: H| {
        if !out.contains(&v) {
            out.push(v)
        }
    };
    let prefix = Mmr::build(&history.leaves[..big]);
    for v in &prefix.nodes {
        add(*v);
    }
    for c in [n, m] {
        add(prefix_root(history, c));
        let peaks: Vec<H> = perfect_trees(c)
            .iter()
            .map(|&(f, h)| history.node(f, h))
            .collect();
        for i in 0..peaks.len() {
            add(model_bag(&peaks[i..]).unwrap());
        }
    }
    out
}

/// All tuples of `len` values from `pool` (odometer order), or the tuples that differ from
/// `base` in at most `changes` positions.
fn proofs(
    pool: &[H],
    len: usize,
    base: Option<&[u8]>,
    full: usize,
    changes: usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if len <= full || base.is_none() {
        if len > full {
            return out;
        }
        return crate::tuples(pool.len(), len)
            .map(|t| t.iter().flat_map(|&i| pool[i]).collect())
            .collect();
    }
    let base = base.unwrap().to_vec();
    out.push(base.clone());
    let mut frontier = vec![(base, 0usize)];
    for _ in 0..changes {
        let mut next = Vec::new();
        for (p, from) in &frontier {
            for slot in *from..len {
                for v in pool {
                    if p[32 * slot..32 * slot + 32] == *v {
                        continue;
                    }
                    let mut q = p.clone();
                    q[32 * slot..32 * slot + 32].copy_from_slice(v);
                    out.push(q.clone());
                    next.push((q, slot + 1));
                }
            }
        }
        frontier = next;
    }
    out
}

/// A copy of `x` with `edit` applied.
fn edited<T: Clone>(x: &T, edit: impl FnOnce(&mut T)) -> T {
    let mut out = x.clone();
    edit(&mut out);
    out
}

/// The exhaustive search against `variant`.
pub fn run(cfg: &Config, variant: Variant) -> Stats {
    let mut st = Stats::default();
    let history = Mmr::with_leaf_count(cfg.max_leaves, 0xacc);
    let size = |c: u64| model_size(c);
    let max = cfg.max_leaves;

    // Create: every prefix, truncated, extended, with count edits.
    for k in 1..=max {
        let mut body = Vec::new();
        body.extend_from_slice(&(k as u32).to_le_bytes());
        for l in &history.leaves[..k as usize] {
            body.extend_from_slice(l);
        }
        let mut cases: Vec<Vec<u8>> = (0..body.len()).map(|c| body[..c].to_vec()).collect();
        cases.push(body.clone());
        for extra in [1usize, 31, 32, 33] {
            cases.push(edited(&body, |b| {
                b.extend(std::iter::repeat_n(0xee, extra))
            }));
        }
        for count in [0u32, k as u32 - 1, k as u32 + 1, u32::MAX] {
            cases.push(edited(&body, |b| {
                b[..4].copy_from_slice(&count.to_le_bytes())
            }));
        }
        for b in cases {
            st.create_cases += 1;
            let core = mmr_accumulator::create::<Ref>(&b)
                .map(|c| (c.root, c.mmr_size))
                .map_err(Error::code);
            let model = model_append(None, &b);
            st.compare(&core, &model, || format!("create k={k} len={}", b.len()));
            if b == body {
                st.honest += 1;
                if core != Ok((prefix_root(&history, k), size(k))) {
                    st.honest_rejected += 1;
                    st.findings.push(format!("create {k} rejected: {core:?}"));
                }
            }
        }
    }

    for n in 1..=max {
        let root_n = prefix_root(&history, n);
        let size_n = size(n);
        // Old sizes to claim: the right one, non-canonical ones, other canonical ones.
        let mut old_sizes = vec![size_n, 0, size_n + 1, LIMIT + 1, u64::MAX];
        if n == 1 {
            old_sizes.push(model_size((1 << 49) + 1));
        }
        for c in 1..=max {
            if c != n {
                old_sizes.push(size(c));
            }
        }
        for m in n..=max {
            st.pairs += 1;
            let pool = pool(&history, n, m);
            // Append: the honest body (k = m - n) and every edit.
            if m > n {
                let body = honest_append(&history, n, m);
                let p = perfect_trees(n).len();
                let mut cases: Vec<Vec<u8>> = vec![body.clone()];
                for cut in 0..body.len() {
                    cases.push(body[..cut].to_vec());
                }
                for extra in [1usize, 31, 32, 33, 64] {
                    cases.push(edited(&body, |b| {
                        b.extend(std::iter::repeat_n(0x5a, extra))
                    }));
                }
                let k = (m - n) as u32;
                for count in [0u32, k - 1, k + 1, u32::MAX] {
                    cases.push(edited(&body, |b| {
                        b[32 * p..32 * p + 4].copy_from_slice(&count.to_le_bytes())
                    }));
                }
                for slot in 0..p {
                    let at = 32 * slot;
                    for v in &pool {
                        cases.push(edited(&body, |b| b[at..at + 32].copy_from_slice(v)));
                    }
                    // A peak dropped.
                    cases.push(edited(&body, |b| drop(b.drain(at..at + 32))));
                    for other in slot + 1..p {
                        cases.push(edited(&body, |b| {
                            let (left, right) = b.split_at_mut(32 * other);
                            left[at..at + 32].swap_with_slice(&mut right[..32]);
                        }));
                    }
                }
                for at in 0..=p {
                    for v in &pool {
                        cases.push(edited(&body, |b| drop(b.splice(32 * at..32 * at, *v))));
                    }
                }
                // Leaves replaced by pool values (still honest appends of other leaves).
                for leaf in 0..k as usize {
                    let at = 32 * p + 4 + 32 * leaf;
                    for v in pool.iter().take(8) {
                        cases.push(edited(&body, |b| b[at..at + 32].copy_from_slice(v)));
                    }
                }
                if n == 1 {
                    // Near the limit (2^49 + 1 leaves, two peaks): one more leaf fits, two
                    // do not.
                    for k in [1u32, 2] {
                        let mut b = body[..32].to_vec();
                        b.extend_from_slice(&body[..32]);
                        b.extend_from_slice(&k.to_le_bytes());
                        for _ in 0..k {
                            b.extend_from_slice(&body[..32]);
                        }
                        cases.push(b);
                    }
                }
                let mut roots = vec![root_n];
                roots.extend(pool.iter().copied().filter(|v| *v != root_n).take(4));
                for b in &cases {
                    for (ri, old_root) in roots.iter().enumerate() {
                        let sizes: &[u64] = if ri == 0 { &old_sizes } else { &old_sizes[..1] };
                        for &old_size in sizes {
                            st.append_cases += 1;
                            let core = run_append(variant, old_root, old_size, b);
                            let model = model_append(Some((old_root, old_size)), b);
                            st.compare(&core, &model, || {
                                format!("append {n}->{m} old size {old_size} len {}", b.len())
                            });
                            let honest_old = *old_root == root_n && old_size == size_n;
                            if let Ok((root, sz)) = core {
                                st.append_accepted += 1;
                                // Forgery: an honest input whose result is not the input's
                                // leaves followed by the body's leaves, node by node.
                                if honest_old {
                                    let body_leaves = b.len().saturating_sub(32 * p + 4) / 32;
                                    let mut leaves = history.leaves[..n as usize].to_vec();
                                    leaves.extend(
                                        b[b.len() - 32 * body_leaves..]
                                            .chunks(32)
                                            .map(|c| <H>::try_from(c).unwrap()),
                                    );
                                    let truth = Mmr::build(&leaves);
                                    if (root, sz) != (truth.root, truth.mmr_size()) {
                                        st.forgeries += 1;
                                        st.findings.push(format!(
                                            "append forgery {n}->{m} len {}",
                                            b.len()
                                        ));
                                    }
                                }
                            }
                            if b == &body && honest_old {
                                st.honest += 1;
                                if core != Ok((prefix_root(&history, m), size(m))) {
                                    st.honest_rejected += 1;
                                    st.findings
                                        .push(format!("append {n}->{m} rejected: {core:?}"));
                                }
                            }
                        }
                    }
                }
            }

            // Ancestry, claimed new size = size(m) (and, for m == n, the equal-size case).
            let mut new_sizes = vec![size(m)];
            if m == max {
                new_sizes.extend([0, size(m) + 1, LIMIT + 1, size(max + 3)]);
            }
            for &new_size in &new_sizes {
                let mreal = model_leaf_count(new_size);
                let honest = mreal
                    .filter(|&c| c > n && c <= max)
                    .map(|c| honest_proof(&history, n, c));
                let need = mreal.filter(|&c| c > n).map(|c| model_slots(n, c).len());
                // Structural: every length up to one item past the right one, on one filling
                // (the honest bytes where there are, else a pool value repeated).
                let fill: Vec<u8> = match &honest {
                    Some(h) => h
                        .iter()
                        .copied()
                        .chain(std::iter::repeat_n(0x77, 65))
                        .collect(),
                    None => std::iter::repeat_n(pool[0], need.unwrap_or(2) + 2)
                        .flatten()
                        .collect(),
                };
                let max_len = 32 * need.unwrap_or(2) + 33;
                for len in 0..=max_len.min(fill.len()) {
                    for &old_size in &old_sizes[..5.min(old_sizes.len())] {
                        st.ancestry_structural += 1;
                        let proof = &fill[..len];
                        let roots = run_ancestry_roots(variant, old_size, new_size, proof);
                        let new_root = prefix_root(&history, m);
                        let core = ancestry_verdict(variant, &roots, &root_n, &new_root);
                        let model = model_ancestry(&root_n, old_size, &new_root, new_size, proof);
                        st.compare(&core, &model, || {
                            format!("ancestry {n}->{new_size} size old {old_size} len {len}")
                        });
                        let honest_case = honest.as_deref() == Some(proof)
                            && old_size == size_n
                            && Some(m) == mreal;
                        if honest_case {
                            st.honest += 1;
                            if core.is_err() {
                                st.honest_rejected += 1;
                                st.findings
                                    .push(format!("ancestry {n}->{m} rejected: {core:?}"));
                            }
                        }
                        if core.is_ok() && !honest_case && old_size == size_n {
                            let new_root = prefix_root(&history, m);
                            let accepted = classify(&history, n, new_size, &new_root, proof);
                            st.accepted_ancestry(accepted, || {
                                format!("ancestry forgery {n}->{new_size} len {len}")
                            });
                        }
                    }
                }
                // Values: every proof of the right length, every claimed old and new root.
                let Some(need) = need else { continue };
                let mut old_roots = vec![root_n];
                old_roots.extend(pool.iter().copied().filter(|v| *v != root_n).take(3));
                for proof in proofs(
                    &pool,
                    need,
                    honest.as_deref(),
                    cfg.full_tuple_items,
                    cfg.max_changes,
                ) {
                    st.ancestry_proofs += 1;
                    let roots = run_ancestry_roots(variant, size_n, new_size, &proof);
                    for old_root in &old_roots {
                        let honest_old = *old_root == root_n;
                        let claims: Vec<H> = if honest_old {
                            pool.clone()
                        } else {
                            pool.iter().copied().take(4).collect()
                        };
                        for new_root in &claims {
                            st.ancestry_cases += 1;
                            let core = ancestry_verdict(variant, &roots, old_root, new_root);
                            let model =
                                model_ancestry(old_root, size_n, new_root, new_size, &proof);
                            st.compare(&core, &model, || format!("ancestry {n}->{new_size}"));
                            if core.is_ok() {
                                st.ancestry_accepted += 1;
                                // Forgery: an honest input extended to anything but the
                                // history's MMR of the claimed size.
                                if honest_old {
                                    let accepted =
                                        classify(&history, n, new_size, new_root, &proof);
                                    st.accepted_ancestry(accepted, || {
                                        let root = crate::hex(new_root);
                                        format!("ancestry forgery {n}->{new_size} root {root}")
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    st
}

/// One seeded random differential case: a history of up to `max` leaves, an honest transition
/// or a mutated one, core against model. Returns a description of a disagreement or forgery.
pub fn random_case(seed: u64, max: u64) -> Result<(), String> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let total = 2 + next() % (max - 1);
    let history = Mmr::with_leaf_count(total, next());
    let n = 1 + next() % (total - 1);
    let m = n + 1 + next() % (total - n);
    let m = m.min(total);
    let (root_n, size_n) = (prefix_root(&history, n), model_size(n));
    let (root_m, size_m) = (prefix_root(&history, m), model_size(m));
    let append = next() % 2 == 0;
    let mut bytes = if append {
        honest_append(&history, n, m)
    } else {
        honest_proof(&history, n, m)
    };
    let (mut old_size, mut new_size) = (size_n, size_m);
    let mutations = next() % 4;
    for _ in 0..mutations {
        let r = next();
        match r % 8 {
            0 if !bytes.is_empty() => {
                let i = (next() as usize) % bytes.len();
                bytes[i] ^= 1 << (next() % 8);
            }
            1 => {
                let cut = (next() as usize) % (bytes.len() + 1);
                bytes.truncate(cut);
            }
            2 => bytes.extend(std::iter::repeat_n(0x42, (next() % 70) as usize)),
            3 if bytes.len() >= 64 => {
                let a = (next() as usize) % (bytes.len() / 32);
                let b = (next() as usize) % (bytes.len() / 32);
                for i in 0..32 {
                    bytes.swap(32 * a + i, 32 * b + i);
                }
            }
            4 => old_size = model_size(1 + next() % total),
            5 => new_size = model_size(1 + next() % (total + 5)),
            6 => new_size = new_size.wrapping_add(next() % 3).wrapping_sub(1),
            _ => {
                if bytes.len() >= 32 {
                    let at = 32 * ((next() as usize) % (bytes.len() / 32));
                    let node = history.nodes[(next() as usize) % history.nodes.len()];
                    bytes[at..at + 32].copy_from_slice(&node);
                }
            }
        }
    }
    if append {
        let core = run_append(Variant::Core, &root_n, old_size, &bytes);
        let model = model_append(Some((&root_n, old_size)), &bytes);
        if core != model {
            return Err(format!(
                "seed {seed}: append {n}->{m}: core {core:?} model {model:?}"
            ));
        }
        if let Err(c) = core {
            if !documented(c) {
                return Err(format!("seed {seed}: undocumented {c}"));
            }
        }
    } else {
        let roots = run_ancestry_roots(Variant::Core, old_size, new_size, &bytes);
        for new_root in [root_m, root_n, history.root] {
            let core = ancestry_verdict(Variant::Core, &roots, &root_n, &new_root);
            let model = model_ancestry(&root_n, old_size, &new_root, new_size, &bytes);
            if core != model {
                return Err(format!(
                    "seed {seed}: ancestry {n}->{m}: core {core:?} model {model:?}"
                ));
            }
            // Only an honest input is checked: an input of another size reinterprets the
            // same hashes as another MMR, about which true statements can be proved.
            if core.is_ok()
                && old_size == size_n
                && classify(&history, n, new_size, &new_root, &bytes) == Accepted::Forgery
            {
                return Err(format!(
                    "seed {seed}: ancestry forgery {n}->{m} (sizes {old_size}->{new_size}, total {total}), proof {}",
                    crate::hex(&bytes)
                ));
            }
        }
    }
    Ok(())
}
