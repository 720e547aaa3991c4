//! Exhaustive forgery search over small MMRs.
//!
//! For every MMR of `1..=max_leaves` leaves (distinct pseudo-random leaves), the value pool
//! is every node value and the root. Then:
//!
//! - **baseline, one leaf**: every position `0..mmr_size+2` plus `2^50` and `u64::MAX`,
//!   every value of the pool, every proof of `0..=max_items` items drawn from the pool: the
//!   literal payloads, each run through `baseline_proof::verify` and the model. Every payload
//!   whose shape is valid is also translated into the compiled format (items placed by their
//!   role) and run through the compiled Rust and C cores and the model: same verdict.
//! - **compiled, one leaf**: every leaf index `0..=n+1` plus `2^50` and `u64::MAX`, every
//!   command skeleton (sequence of opcodes `0x01..=0x06`) of up to `skeleton_len` commands
//!   with at most `max_items` items. Structural codes (everything but 0 and 9) depend only on
//!   the indexes and the opcodes, never on leaf or item values (spec section 4; the search
//!   checks it on two fillings per skeleton). So each skeleton runs once per filling, and
//!   every skeleton that reaches the root comparison runs with *every* leaf value and item
//!   tuple from the pool.
//! - **two leaves**: every pair of positions (baseline) or indexes (compiled) inside the MMR
//!   and one past it, including duplicates and unsorted pairs; baseline with `0..=max_items`
//!   items, compiled with every skeleton of up to `pair_skeleton_len` commands plus every
//!   single edit (insert, delete, replace, swap) of each honest skeleton. Shape-valid cases
//!   run with every value pair and item tuple from the pool while that is at most
//!   `pair_value_limit` combinations, else from a reduced pool (the honest values, the root,
//!   the two leaves swapped, and two other nodes).
//!
//! Every case checks: compiled Rust and C return the same code; each verifier accepts iff
//! the model does (the compiled ones also agree with the model on structural validity);
//! every code is documented; no verifier (nor the model) accepts a claim whose leaves are
//! not the MMR's; every honest proof is accepted.

use crate::mmr::Mmr;
use crate::model::{self, Cmd, Role};
use crate::native;
use crate::report::{add_counters, Findings, Outcome, Report};

#[derive(Debug, Clone)]
pub struct Config {
    pub max_leaves: u64,
    pub max_items: usize,
    pub skeleton_len: usize,
    pub pair_skeleton_len: usize,
    pub pair_value_limit: u64,
    pub threads: usize,
}

impl Config {
    /// The full search recorded in SECURITY.md.
    pub fn full() -> Config {
        Config {
            max_leaves: 16,
            max_items: 3,
            skeleton_len: 6,
            pair_skeleton_len: 5,
            pair_value_limit: 1 << 20,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }

    /// The reduced search of the default test suite (seconds).
    pub fn reduced() -> Config {
        Config {
            max_leaves: 7,
            max_items: 2,
            skeleton_len: 4,
            pair_skeleton_len: 3,
            pair_value_limit: 1 << 12,
            ..Config::full()
        }
    }
}

/// Counters of one search.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub mmrs: u64,
    /// Baseline single-leaf payloads (literal enumeration).
    pub baseline_single: u64,
    pub baseline_single_accepted: u64,
    /// Their shape-valid ones, translated and run through both compiled cores.
    pub translated: u64,
    /// Compiled single-leaf (index, skeleton) pairs, each run on two fillings.
    pub compiled_single_skeletons: u64,
    /// Compiled single-leaf payloads of the value pass.
    pub compiled_single_values: u64,
    pub compiled_single_accepted: u64,
    pub baseline_pair_shapes: u64,
    pub baseline_pair_values: u64,
    pub baseline_pair_accepted: u64,
    pub compiled_pair_skeletons: u64,
    pub compiled_pair_values: u64,
    pub compiled_pair_accepted: u64,
    /// Honest proofs run (all three cores and the model must accept them).
    pub honest: u64,
    /// Verifier runs in total (each core and the model count once per payload).
    pub runs: u64,
    pub forgeries_baseline: u64,
    pub forgeries_compiled: u64,
    pub forgeries_c: u64,
    pub forgeries_model: u64,
    pub honest_rejected: u64,
    pub disagreements: u64,
    pub undocumented: u64,
    pub findings: Findings<50>,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        add_counters!(
            self, o;
            mmrs,
            baseline_single,
            baseline_single_accepted,
            translated,
            compiled_single_skeletons,
            compiled_single_values,
            compiled_single_accepted,
            baseline_pair_shapes,
            baseline_pair_values,
            baseline_pair_accepted,
            compiled_pair_skeletons,
            compiled_pair_values,
            compiled_pair_accepted,
            honest,
            runs,
            forgeries_baseline,
            forgeries_compiled,
            forgeries_c,
            forgeries_model,
            honest_rejected,
            disagreements,
            undocumented
        );
        self.findings.extend(o.findings.iter().cloned());
    }
}

impl Outcome for Stats {
    fn problems(&self) -> u64 {
        self.forgeries_baseline
            + self.forgeries_compiled
            + self.forgeries_c
            + self.forgeries_model
            + self.honest_rejected
            + self.disagreements
            + self.undocumented
    }

    fn report(&self) -> String {
        // One row a line: the table reads as the report prints it.
        #[rustfmt::skip]
        let rows = [
            ("MMRs searched", self.mmrs),
            ("baseline 1-leaf payloads (literal)", self.baseline_single),
            ("  accepted", self.baseline_single_accepted),
            ("  shape-valid, translated to compiled (Rust, C, model)", self.translated),
            ("compiled 1-leaf (index, skeleton) pairs x 2 fillings", self.compiled_single_skeletons),
            ("compiled 1-leaf payloads, value pass", self.compiled_single_values),
            ("  accepted", self.compiled_single_accepted),
            ("baseline 2-leaf (positions, item count) shapes x 2 fillings", self.baseline_pair_shapes),
            ("baseline 2-leaf payloads, value pass (+ translated)", self.baseline_pair_values),
            ("  accepted", self.baseline_pair_accepted),
            ("compiled 2-leaf (indexes, skeleton) pairs x 2 fillings", self.compiled_pair_skeletons),
            ("compiled 2-leaf payloads, value pass", self.compiled_pair_values),
            ("  accepted", self.compiled_pair_accepted),
            ("honest proofs (all accepted)", self.honest),
            ("verifier runs (baseline, compiled, C, model)", self.runs),
            ("forgeries accepted: baseline", self.forgeries_baseline),
            ("forgeries accepted: compiled (Rust)", self.forgeries_compiled),
            ("forgeries accepted: C", self.forgeries_c),
            ("forgeries accepted: model", self.forgeries_model),
            ("honest proofs rejected", self.honest_rejected),
            ("disagreements", self.disagreements),
            ("undocumented exit codes", self.undocumented),
        ];
        let mut r = Report::new(58, 14);
        r.rows(&rows);
        r.finish("FINDING", &self.findings)
    }
}

/// A native core whose exit codes the search judges.
#[derive(Clone, Copy)]
enum Core {
    Rust,
    C,
    Baseline,
}

impl Core {
    fn name(self) -> &'static str {
        match self {
            Core::Rust => "Rust",
            Core::C => "C",
            Core::Baseline => "baseline",
        }
    }

    /// Is `code` documented for this core's payload format?
    fn documented(self, code: i8) -> bool {
        match self {
            Core::Rust | Core::C => crate::documented_compiled(code),
            Core::Baseline => crate::documented_baseline(code),
        }
    }

    fn forgeries(self, st: &mut Stats) -> &mut u64 {
        match self {
            Core::Rust => &mut st.forgeries_compiled,
            Core::C => &mut st.forgeries_c,
            Core::Baseline => &mut st.forgeries_baseline,
        }
    }
}

/// Records one payload's verdicts: the cores' exit `codes` (all must agree) against the
/// model's `accepts`, each code documented, no forgery accepted (`genuine` false) and an
/// `honest` proof accepted by all.
fn judge(
    st: &mut Stats,
    tag: &str,
    codes: &[(Core, i8)],
    accepts: bool,
    genuine: bool,
    honest: bool,
) {
    st.runs += codes.len() as u64 + 1;
    let listed = || {
        let each: Vec<String> = codes
            .iter()
            .map(|(k, c)| format!("{} {c}", k.name()))
            .collect();
        each.join(", ")
    };
    let (first, code) = codes[0];
    for &(core, other) in &codes[1..] {
        if other != code {
            st.disagreements += 1;
            st.findings.push(format!(
                "{tag}: {} {code} != {} {other}",
                first.name(),
                core.name()
            ));
        }
    }
    if (code == 0) != accepts {
        st.disagreements += 1;
        st.findings.push(format!(
            "{tag}: {} {code}, model accepts={accepts}",
            first.name()
        ));
    }
    if !codes.iter().all(|&(core, c)| core.documented(c)) {
        st.undocumented += 1;
        st.findings
            .push(format!("{tag}: undocumented code ({})", listed()));
    }
    if !genuine {
        for &(core, c) in codes {
            if c == 0 {
                *core.forgeries(st) += 1;
                st.findings
                    .push(format!("{tag}: FORGERY accepted by {}", core.name()));
            }
        }
        if accepts {
            st.forgeries_model += 1;
            st.findings
                .push(format!("{tag}: FORGERY accepted by the model"));
        }
    }
    if honest {
        st.honest += 1;
        if codes.iter().any(|&(_, c)| c != 0) || !accepts {
            st.honest_rejected += 1;
            st.findings.push(format!(
                "{tag}: honest proof rejected ({}, model {accepts})",
                listed()
            ));
        }
    }
}

/// One MMR under search.
struct Ctx {
    mmr: Mmr,
    n: u64,
    size: u64,
    pool: Vec<[u8; 32]>,
}

impl Ctx {
    fn new(n: u64) -> Ctx {
        let mmr = Mmr::with_leaf_count(n, 0x5eed);
        let pool = mmr.value_pool();
        Ctx {
            n,
            size: mmr.mmr_size(),
            mmr,
            pool,
        }
    }

    fn genuine_index(&self, index: u64, value: &[u8; 32]) -> bool {
        index < self.n && self.mmr.leaves[index as usize] == *value
    }

    fn genuine_pos(&self, pos: u64, value: &[u8; 32]) -> bool {
        self.mmr
            .leaf_pos
            .iter()
            .position(|&p| p == pos)
            .is_some_and(|i| self.mmr.leaves[i] == *value)
    }

    /// Runs a compiled payload through Rust, C and the model. Returns the Rust code.
    fn compiled(&self, st: &mut Stats, payload: &[u8], genuine: bool, honest: bool) -> i8 {
        let root = &self.mmr.root;
        let r = native::compiled_payload(payload, root, self.n);
        let c = native::c_payload(payload, root, self.n);
        let m = model::compiled_accepts(payload, root, self.n);
        let codes = [(Core::Rust, r), (Core::C, c)];
        let tag = format!("n={} compiled payload {}", self.n, crate::hex(payload));
        judge(st, &tag, &codes, m, genuine, honest);
        r
    }

    /// Runs a baseline payload through the baseline core and the model; returns the code.
    fn baseline(&self, st: &mut Stats, payload: &[u8], genuine: bool, honest: bool) -> i8 {
        let root = &self.mmr.root;
        let b = native::baseline_payload(payload, root, self.size, self.n);
        let m = model::baseline_accepts(payload, root, self.n);
        let tag = format!("n={} baseline payload {}", self.n, crate::hex(payload));
        let codes = [(Core::Baseline, b)];
        judge(st, &tag, &codes, m, genuine, honest);
        b
    }

    /// A baseline claim with items by `roles`, in the compiled format.
    fn translate(&self, claims: &[(u64, [u8; 32])], roles: &[Role], items: &[[u8; 32]]) -> Vec<u8> {
        let indexes: Vec<u64> = claims.iter().map(|c| c.0).collect();
        let bag_at = roles.iter().find_map(|r| match r {
            Role::Bag(k) => Some(*k),
            _ => None,
        });
        let by_role: std::collections::HashMap<Role, [u8; 32]> =
            roles.iter().copied().zip(items.iter().copied()).collect();
        let cmds = model::compiled_commands(self.n, &indexes, bag_at, &mut |r| by_role[&r]);
        model::encode_compiled(claims, &cmds)
    }

    /// Baseline payload for `leaves`, run, and (when shape-valid) translated.
    #[allow(clippy::too_many_arguments)]
    fn baseline_case(
        &self,
        st: &mut Stats,
        leaves: &[(u64, [u8; 32])],
        items: &[[u8; 32]],
        shape: Option<&(Vec<u64>, Vec<Role>)>,
    ) -> i8 {
        let genuine = leaves.iter().all(|(p, v)| self.genuine_pos(*p, v));
        let payload = model::encode_baseline(leaves, items);
        let honest = genuine
            && shape.is_some_and(|(indexes, roles)| {
                roles.len() == items.len()
                    && indexes.windows(2).all(|w| w[0] < w[1])
                    && roles
                        .iter()
                        .zip(items)
                        .all(|(r, i)| model::role_value(&self.mmr, *r) == *i)
            });
        let b = self.baseline(st, &payload, genuine, honest);
        if let Some((indexes, roles)) = shape {
            if roles.len() == items.len() {
                st.translated += 1;
                let claims: Vec<(u64, [u8; 32])> =
                    indexes.iter().zip(leaves).map(|(&i, l)| (i, l.1)).collect();
                let compiled = self.translate(&claims, roles, items);
                let r = self.compiled(st, &compiled, genuine, honest);
                if (r == 0) != (b == 0) {
                    st.disagreements += 1;
                    st.findings.push(format!(
                        "n={} baseline {} gives {b}, its compiled translation {} gives {r}",
                        self.n,
                        crate::hex(&payload),
                        crate::hex(&compiled)
                    ));
                }
            }
        }
        b
    }

    /// Fixed fillings for structural passes: `k` items from the pool, starting at `shift`.
    fn filling(&self, k: usize, shift: usize) -> Vec<[u8; 32]> {
        (0..k)
            .map(|j| self.pool[(j * 7 + shift) % self.pool.len()])
            .collect()
    }

    /// Is `cmds` one of the honest command streams for the (sorted, in range) `indexes`?
    fn honest_compiled(&self, indexes: &[u64], leaves: &[(u64, [u8; 32])], cmds: &[Cmd]) -> bool {
        if !indexes.windows(2).all(|w| w[0] < w[1]) || indexes.iter().any(|&i| i >= self.n) {
            return false;
        }
        if !leaves.iter().all(|(i, v)| self.genuine_index(*i, v)) {
            return false;
        }
        let choices =
            std::iter::once(None).chain(model::bag_points(self.n, indexes).into_iter().map(Some));
        for bag_at in choices {
            if model::honest_commands(&self.mmr, indexes, bag_at) == cmds {
                return true;
            }
        }
        false
    }

    /// Compiled structural pass for one (indexes, skeleton), then the value pass if the
    /// skeleton reaches the root comparison. `pair` selects the counters and value limits.
    fn compiled_skeleton(
        &self,
        st: &mut Stats,
        cfg: &Config,
        indexes: &[u64],
        ops: &[u8],
        pair: bool,
    ) {
        let k = ops.iter().filter(|&&o| matches!(o, 3 | 5 | 6)).count();
        let cmds_with = |items: &[[u8; 32]]| -> Vec<Cmd> {
            let mut it = items.iter();
            ops.iter()
                .map(|&o| {
                    let item = if matches!(o, 3 | 5 | 6) {
                        *it.next().unwrap()
                    } else {
                        [0; 32]
                    };
                    Cmd::from_op(o, item).unwrap()
                })
                .collect()
        };
        let true_value = |i: u64| {
            if i < self.n {
                self.mmr.leaves[i as usize]
            } else {
                self.pool[0]
            }
        };
        // Two fillings: true leaf values with pool items, then other values.
        let leaves_a: Vec<(u64, [u8; 32])> = indexes.iter().map(|&i| (i, true_value(i))).collect();
        let leaves_b: Vec<(u64, [u8; 32])> = indexes
            .iter()
            .enumerate()
            .map(|(j, &i)| (i, self.pool[(j + 3) % self.pool.len()]))
            .collect();
        let mut codes = [0i8; 2];
        for (f, leaves) in [&leaves_a, &leaves_b].into_iter().enumerate() {
            let cmds = cmds_with(&self.filling(k, 1 + f * 5));
            let payload = model::encode_compiled(leaves, &cmds);
            let genuine = leaves.iter().all(|(i, v)| self.genuine_index(*i, v));
            let honest = self.honest_compiled(indexes, leaves, &cmds);
            codes[f] = self.compiled(st, &payload, genuine, honest);
        }
        if pair {
            st.compiled_pair_skeletons += 1;
        } else {
            st.compiled_single_skeletons += 1;
        }
        let structural_ok = |c: i8| c == 0 || c == 9;
        if structural_ok(codes[0]) != structural_ok(codes[1])
            || (!structural_ok(codes[0]) && codes[0] != codes[1])
        {
            st.disagreements += 1;
            st.findings.push(format!(
                "n={} indexes {indexes:?} ops {ops:?}: structural code depends on values ({} vs {})",
                self.n, codes[0], codes[1]
            ));
        }
        // The model's own structural verdict must match.
        let sorted = indexes.windows(2).all(|w| w[0] < w[1]) && indexes.iter().all(|&i| i < self.n);
        let model_shape = sorted
            && model::compiled_items(self.n, indexes, &cmds_with(&self.filling(k, 0))).is_some();
        if model_shape != structural_ok(codes[0]) {
            st.disagreements += 1;
            st.findings.push(format!(
                "n={} indexes {indexes:?} ops {ops:?}: Rust code {} but model shape valid={model_shape}",
                self.n, codes[0]
            ));
        }
        if !structural_ok(codes[0]) || k > cfg.max_items {
            return;
        }
        // Value pass: every leaf value(s) and item tuple from the pool (or a reduced pool).
        let slots = indexes.len() + k;
        let pool = self.value_pool_for(indexes, slots, pair, cfg);
        for vals in tuples(&pool, slots) {
            let leaves: Vec<(u64, [u8; 32])> =
                indexes.iter().zip(&vals).map(|(&i, v)| (i, *v)).collect();
            let cmds = cmds_with(&vals[indexes.len()..]);
            let payload = model::encode_compiled(&leaves, &cmds);
            let genuine = leaves.iter().all(|(i, v)| self.genuine_index(*i, v));
            let honest = self.honest_compiled(indexes, &leaves, &cmds);
            let r = self.compiled(st, &payload, genuine, honest);
            if pair {
                st.compiled_pair_values += 1;
                st.compiled_pair_accepted += (r == 0) as u64;
            } else {
                st.compiled_single_values += 1;
                st.compiled_single_accepted += (r == 0) as u64;
            }
        }
    }

    /// The pool of a value pass: the full pool unless two-leaf combinations exceed the limit.
    fn value_pool_for(
        &self,
        indexes: &[u64],
        slots: usize,
        pair: bool,
        cfg: &Config,
    ) -> Vec<[u8; 32]> {
        if !pair || (self.pool.len() as u64).saturating_pow(slots as u32) <= cfg.pair_value_limit {
            return self.pool.clone();
        }
        let mut reduced: Vec<[u8; 32]> = Vec::new();
        let mut add = |v: [u8; 32]| {
            if !reduced.contains(&v) {
                reduced.push(v);
            }
        };
        for &i in indexes {
            if i < self.n {
                add(self.mmr.leaves[i as usize]);
            }
        }
        if indexes.iter().all(|&i| i < self.n) && indexes.windows(2).all(|w| w[0] < w[1]) {
            for r in model::gen_proof_roles(self.n, indexes) {
                add(model::role_value(&self.mmr, r));
            }
        }
        add(self.mmr.root);
        let last = self.mmr.nodes.len() - 1;
        add(self.mmr.nodes[last / 2]);
        add(self.mmr.nodes[last]);
        reduced
    }
}

/// Every opcode sequence of length `0..=max_len` with at most `max_items` item commands.
pub fn skeletons(max_len: usize, max_items: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    let mut frontier = vec![Vec::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for s in &frontier {
            for op in 1..=6u8 {
                let mut t: Vec<u8> = s.clone();
                t.push(op);
                if t.iter().filter(|&&o| matches!(o, 3 | 5 | 6)).count() <= max_items {
                    next.push(t);
                }
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

/// Single edits of an opcode sequence: delete, insert, replace, swap adjacent.
fn edits(ops: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..ops.len() {
        let mut d = ops.to_vec();
        d.remove(i);
        out.push(d);
        for op in 1..=6u8 {
            if op != ops[i] {
                let mut r = ops.to_vec();
                r[i] = op;
                out.push(r);
            }
        }
        if i + 1 < ops.len() && ops[i] != ops[i + 1] {
            let mut s = ops.to_vec();
            s.swap(i, i + 1);
            out.push(s);
        }
    }
    for i in 0..=ops.len() {
        for op in 1..=6u8 {
            let mut t = ops.to_vec();
            t.insert(i, op);
            out.push(t);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A leaf record: (position or index, value).
type Leaf = (u64, [u8; 32]);

enum Task {
    BaselineSingle(u64, u64),
    CompiledSingle(u64, u64),
    BaselinePair(u64, u64),
    CompiledPair(u64, u64),
}

/// Runs the search; `progress` is told each finished MMR section.
pub fn run(cfg: &Config) -> Stats {
    let ctxs: Vec<Ctx> = (1..=cfg.max_leaves).map(Ctx::new).collect();
    let single_skeletons = skeletons(cfg.skeleton_len, cfg.max_items);
    let pair_skeletons = skeletons(cfg.pair_skeleton_len, cfg.max_items);
    let mut tasks = Vec::new();
    for ctx in &ctxs {
        let positions = single_positions(ctx);
        for &p in &positions {
            tasks.push(Task::BaselineSingle(ctx.n, p));
        }
        for i in single_indexes(ctx) {
            tasks.push(Task::CompiledSingle(ctx.n, i));
        }
        for p in 0..=ctx.size {
            tasks.push(Task::BaselinePair(ctx.n, p));
        }
        for i in 0..=ctx.n {
            tasks.push(Task::CompiledPair(ctx.n, i));
        }
    }
    let mut total = Stats {
        mmrs: ctxs.len() as u64,
        ..Stats::default()
    };
    let workers = crate::on_threads(&tasks, cfg.threads, |task, st| match *task {
        Task::BaselineSingle(n, p) => baseline_single(&ctxs[n as usize - 1], cfg, p, st),
        Task::CompiledSingle(n, i) => {
            let ctx = &ctxs[n as usize - 1];
            for ops in &single_skeletons {
                ctx.compiled_skeleton(st, cfg, &[i], ops, false);
            }
        }
        Task::BaselinePair(n, p) => baseline_pair(&ctxs[n as usize - 1], cfg, p, st),
        Task::CompiledPair(n, i) => {
            compiled_pair(&ctxs[n as usize - 1], cfg, i, &pair_skeletons, st)
        }
    });
    for st in &workers {
        total.add(st);
    }
    total
}

fn single_positions(ctx: &Ctx) -> Vec<u64> {
    let mut v: Vec<u64> = (0..ctx.size + 2).collect();
    v.extend([1u64 << 50, u64::MAX]);
    v
}

fn single_indexes(ctx: &Ctx) -> Vec<u64> {
    let mut v: Vec<u64> = (0..=ctx.n + 1).collect();
    v.extend([1u64 << 50, u64::MAX]);
    v
}

/// Every `slots`-tuple of values from `pool` (|pool|^slots of them), the first slot turning
/// fastest.
fn tuples(pool: &[[u8; 32]], slots: usize) -> impl Iterator<Item = Vec<[u8; 32]>> + '_ {
    crate::tuples(pool.len(), slots).map(|t| t.into_iter().map(|i| pool[i]).collect())
}

fn baseline_single(ctx: &Ctx, cfg: &Config, pos: u64, st: &mut Stats) {
    let shape = model::baseline_shape(ctx.n, &[pos]);
    let pool = &ctx.pool;
    for k in 0..=cfg.max_items {
        for value in pool {
            for items in tuples(pool, k) {
                let b = ctx.baseline_case(st, &[(pos, *value)], &items, shape.as_ref());
                st.baseline_single += 1;
                st.baseline_single_accepted += (b == 0) as u64;
            }
        }
    }
}

fn baseline_pair(ctx: &Ctx, cfg: &Config, p1: u64, st: &mut Stats) {
    for p2 in 0..=ctx.size {
        let positions = [p1, p2];
        let shape = model::baseline_shape(ctx.n, &positions);
        for k in 0..=cfg.max_items {
            // Structural pass: two fillings; the code must not depend on them unless the
            // shape is valid.
            let fill = |shift: usize| -> (Vec<Leaf>, Vec<[u8; 32]>) {
                let leaves = positions
                    .iter()
                    .enumerate()
                    .map(|(j, &p)| (p, ctx.pool[(j + shift) % ctx.pool.len()]))
                    .collect();
                (leaves, ctx.filling(k, shift))
            };
            let (la, ia) = fill(0);
            let (lb, ib) = fill(3);
            let a = ctx.baseline_case(st, &la, &ia, shape.as_ref());
            let b = ctx.baseline_case(st, &lb, &ib, shape.as_ref());
            st.baseline_pair_shapes += 1;
            let valid = shape.as_ref().is_some_and(|(_, roles)| roles.len() == k);
            if !valid && a != b {
                st.disagreements += 1;
                st.findings.push(format!(
                    "n={} positions {positions:?} k={k}: code depends on values ({a} vs {b})",
                    ctx.n
                ));
            }
            if !valid || k > cfg.max_items {
                continue;
            }
            let (indexes, _) = shape.as_ref().unwrap();
            let slots = 2 + k;
            let pool = ctx.value_pool_for(indexes, slots, true, cfg);
            for vals in tuples(&pool, slots) {
                let leaves = [(p1, vals[0]), (p2, vals[1])];
                let r = ctx.baseline_case(st, &leaves, &vals[2..], shape.as_ref());
                st.baseline_pair_values += 1;
                st.baseline_pair_accepted += (r == 0) as u64;
            }
        }
    }
}

fn compiled_pair(ctx: &Ctx, cfg: &Config, i: u64, sweep: &[Vec<u8>], st: &mut Stats) {
    for j in 0..=ctx.n {
        let indexes = [i, j];
        for ops in sweep {
            ctx.compiled_skeleton(st, cfg, &indexes, ops, true);
        }
        if i < j && j < ctx.n {
            // Every single edit of each honest skeleton (all bagging choices).
            let mut seen: Vec<Vec<u8>> = Vec::new();
            let choices = std::iter::once(None)
                .chain(model::bag_points(ctx.n, &indexes).into_iter().map(Some));
            for bag_at in choices {
                let honest: Vec<u8> = model::honest_commands(&ctx.mmr, &indexes, bag_at)
                    .iter()
                    .map(|c| c.opcode())
                    .collect();
                for e in std::iter::once(honest.clone()).chain(edits(&honest)) {
                    if e.len() > cfg.pair_skeleton_len && !seen.contains(&e) {
                        seen.push(e);
                    }
                }
            }
            for ops in &seen {
                ctx.compiled_skeleton(st, cfg, &indexes, ops, true);
            }
        }
    }
}
