//! Exhaustive forgery search over the compiled format's version 2 (the compact format,
//! `docs/compiled-format.md`), natively.
//!
//! For every MMR of `1..=max_leaves` leaves (distinct pseudo-random leaves; the value pool is
//! every node value, the root and the bagging of every shorter suffix of two or more peaks,
//! what a bagging item stands for), every claim of `1..=max_claim` leaves written as gaps,
//! each gap from `0..=leaf_count` (every index inside the MMR and one past it after any
//! earlier one) or `2^49`, `2^50`, `2^56 - 1` (the largest 8-byte varint):
//!
//! - **structural**: every total of `0..=needed + extra_hashes` 32-byte hashes after the
//!   index section (`needed` = the claim's values and the items its walk takes; a claim
//!   outside the MMR needs its values only), plus the lengths one byte short of the values,
//!   one byte short of `needed` and one byte past it; each on two fillings (the honest
//!   values and items, and other pool values), whose codes must be equal unless the payload
//!   reaches the root comparison (0 or 9: only the values may decide between those);
//! - **byte level**, on the honest filling: every version byte but `0x02`; declared leaf
//!   counts `0..=4`, 127, 128 and `2^56 - 1` other than the claim's; and for the count and
//!   each gap, every malformed encoding: one overlong group (`.. 0x80 0x00`), padded to 8
//!   bytes, 8 bytes all with the continuation bit (too long), the continuation bit set on
//!   its last byte (it swallows the next byte), and the payload cut before it and inside
//!   it; also the empty payload, the version byte alone, and leaf counts 0, `2^50`,
//!   `u64::MAX` given to the verifier;
//! - **values**: for every claim inside the MMR at exactly `needed` hashes (the only length
//!   that reaches the root comparison), every filling of its values and items from the pool
//!   when `|pool|^slots <= full_limit`, else every filling that differs from the honest one
//!   in at most `changes` slots (each changed slot taking every other pool value).
//!
//! Every payload: the Rust core (or a broken [`Variant`]) and the model
//! ([`crate::compact_model`]) return the same code; with the C hook set
//! ([`crate::compact_native::C_COMPACT_CORE`]) the C core returns the Rust code; every code is
//! documented; no accepted claim has a value that is not the MMR's leaf at its index
//! (soundness); every honest proof is accepted; and every accepted payload is the only
//! encoding of its claim: the SDK's compiler (`compiled_proof::compile_compact`, which
//! `ckb_mmr_sdk::Workload::payload(Format::Compiled)` calls), given the claim and the items
//! `MMR::gen_proof` would give, produces exactly its bytes.

use crate::compact_model::{self as model, code, varint};
use crate::compact_native::{CoreFn, Variant, C_COMPACT_CORE};
use crate::mmr::Mmr;
use crate::report::{add_counters, Findings, Outcome, Report};
use crate::tuples;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Config {
    pub max_leaves: u64,
    pub max_claim: usize,
    pub extra_hashes: usize,
    pub full_limit: u64,
    pub changes: usize,
    pub threads: usize,
    /// The verifier under search (negative controls: a broken copy).
    pub variant: Variant,
    /// The C core compared with it ([`C_COMPACT_CORE`] unless a control injects one).
    pub c_core: Option<CoreFn>,
}

impl Config {
    /// The full search recorded in docs/assurance.md.
    pub fn full() -> Config {
        Config {
            max_leaves: 12,
            max_claim: 3,
            extra_hashes: 2,
            full_limit: 1 << 16,
            changes: 2,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            variant: Variant::Core,
            c_core: C_COMPACT_CORE,
        }
    }

    /// The reduced search of the default test suite (seconds).
    pub fn reduced() -> Config {
        Config {
            max_leaves: 7,
            full_limit: 1 << 10,
            changes: 1,
            ..Config::full()
        }
    }
}

/// Counters of one search.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub mmrs: u64,
    pub claims: u64,
    pub structural: u64,
    pub byte_level: u64,
    /// Value passes over every tuple of the pool, and over the changes of the honest filling.
    pub value_shapes_full: u64,
    pub value_shapes_changes: u64,
    pub value_payloads: u64,
    pub accepted: u64,
    pub honest: u64,
    /// Payloads run; each is run by the core and the model (and the C core when hooked).
    pub payloads: u64,
    pub c_runs: u64,
    /// Accepted payloads whose claim is false, or that state no claim the spec can read
    /// (an accepted payload the model cannot parse is a forgery too).
    pub forgeries: u64,
    pub forgeries_model: u64,
    pub forgeries_c: u64,
    pub honest_rejected: u64,
    /// The core's code is not the model's.
    pub disagreements: u64,
    /// The C core's code is not the Rust core's.
    pub c_disagreements: u64,
    pub undocumented: u64,
    /// Accepted payloads that are not the compiler's encoding of their claim.
    pub not_unique: u64,
    /// A structural code (not 0 or 9) that changed with the filling.
    pub value_dependent: u64,
    /// The core's codes and how often each came.
    pub codes: BTreeMap<i8, u64>,
    pub findings: Findings<50>,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        add_counters!(
            self, o;
            mmrs,
            claims,
            structural,
            byte_level,
            value_shapes_full,
            value_shapes_changes,
            value_payloads,
            accepted,
            honest,
            payloads,
            c_runs,
            forgeries,
            forgeries_model,
            forgeries_c,
            honest_rejected,
            disagreements,
            c_disagreements,
            undocumented,
            not_unique,
            value_dependent
        );
        for (c, k) in &o.codes {
            *self.codes.entry(*c).or_default() += k;
        }
        self.findings.extend(o.findings.iter().cloned());
    }
}

impl Outcome for Stats {
    fn problems(&self) -> u64 {
        self.forgeries
            + self.forgeries_model
            + self.forgeries_c
            + self.honest_rejected
            + self.disagreements
            + self.c_disagreements
            + self.undocumented
            + self.not_unique
            + self.value_dependent
    }

    fn report(&self) -> String {
        #[rustfmt::skip]
        let rows = [
            ("MMRs searched", self.mmrs),
            ("claims (gap tuples)", self.claims),
            ("structural payloads (hash counts x 2 fillings)", self.structural),
            ("byte-level payloads (version, count, varints, cuts)", self.byte_level),
            ("value passes over every pool tuple", self.value_shapes_full),
            ("value passes over changes of the honest filling", self.value_shapes_changes),
            ("value-pass payloads", self.value_payloads),
            ("payloads in total (each: core + model)", self.payloads),
            ("  of them also run by the C core", self.c_runs),
            ("accepted", self.accepted),
            ("honest proofs (all accepted)", self.honest),
            ("forgeries accepted (false or unreadable claim): core", self.forgeries),
            ("forgeries accepted: model", self.forgeries_model),
            ("forgeries accepted: C", self.forgeries_c),
            ("honest proofs rejected", self.honest_rejected),
            ("core/model disagreements", self.disagreements),
            ("C/Rust disagreements", self.c_disagreements),
            ("undocumented exit codes", self.undocumented),
            ("accepted, not the one encoding", self.not_unique),
            ("structural codes that depend on values", self.value_dependent),
        ];
        let mut r = Report::new(58, 14);
        r.rows(&rows);
        r.codes(&self.codes);
        r.finish("FINDING", &self.findings)
    }
}

/// One MMR under search.
struct Ctx {
    mmr: Mmr,
    n: u64,
    pool: Vec<[u8; 32]>,
    gaps: Vec<u64>,
}

impl Ctx {
    fn new(n: u64) -> Ctx {
        let mmr = Mmr::with_leaf_count(n, 0xc0de);
        let mut pool = mmr.value_pool();
        // The bagging of every suffix of two or more peaks: what a bagging item stands for.
        let peaks: Vec<[u8; 32]> = mmr.peaks.iter().map(|&p| mmr.nodes[p]).collect();
        for from in 1..peaks.len().saturating_sub(1) {
            let b = model::bag(&peaks[from..]);
            if !pool.contains(&b) {
                pool.push(b);
            }
        }
        let mut gaps: Vec<u64> = (0..=n).collect();
        gaps.extend([1 << 49, 1 << 50, (1 << 56) - 1]);
        Ctx { mmr, n, pool, gaps }
    }

    fn genuine(&self, claims: &[(u64, [u8; 32])]) -> bool {
        claims
            .iter()
            .all(|&(i, v)| i < self.n && self.mmr.leaves[i as usize] == v)
    }

    /// The SDK compiler's payload for a genuine claim: `MMR::gen_proof`'s items (in upstream
    /// order, `model::gen_proof_roles`) through `compile_compact`.
    fn compiled(&self, indexes: &[u64]) -> Vec<u8> {
        let items: Vec<[u8; 32]> = crate::model::gen_proof_roles(self.n, indexes)
            .into_iter()
            .map(|r| crate::model::role_value(&self.mmr, r))
            .collect();
        let leaves: Vec<(u64, [u8; 32])> = indexes
            .iter()
            .map(|&i| (self.mmr.leaf_pos[i as usize], self.mmr.leaves[i as usize]))
            .collect();
        compiled_proof::compile_compact(self.mmr.mmr_size(), &items, &leaves)
            .expect("a gen_proof proof compiles")
    }

    /// Runs one payload through the core, the model and the C core; returns the core's code.
    fn judge(&self, st: &mut Stats, cfg: &Config, payload: &[u8], honest: bool) -> i8 {
        self.judge_at(st, cfg, payload, honest, self.n)
    }

    fn judge_at(
        &self,
        st: &mut Stats,
        cfg: &Config,
        payload: &[u8],
        honest: bool,
        leaf_count: u64,
    ) -> i8 {
        let root = &self.mmr.root;
        let r = cfg.variant.payload(payload, root, leaf_count);
        let m = model::code(payload, root, leaf_count);
        st.payloads += 1;
        *st.codes.entry(r).or_default() += 1;
        let tag = || format!("n={} payload {}", self.n, crate::hex(payload));
        if r != m {
            st.disagreements += 1;
            st.findings.push(format!("{}: core {r}, model {m}", tag()));
        }
        if !model::documented(r) || !model::documented(m) {
            st.undocumented += 1;
            st.findings
                .push(format!("{}: undocumented (core {r}, model {m})", tag()));
        }
        let claim = model::parse(payload, leaf_count).ok();
        let genuine =
            leaf_count == self.n && claim.as_ref().is_some_and(|p| self.genuine(&p.claims));
        if let Some(c_core) = cfg.c_core {
            st.c_runs += 1;
            let c = c_core(payload, root, leaf_count);
            if c != r {
                st.c_disagreements += 1;
                st.findings.push(format!("{}: Rust {r}, C {c}", tag()));
            }
            if c == 0 && !genuine {
                st.forgeries_c += 1;
                st.findings
                    .push(format!("{}: FORGERY accepted by C", tag()));
            }
        }
        if r == 0 {
            st.accepted += 1;
            if !genuine {
                st.forgeries += 1;
                st.findings
                    .push(format!("{}: FORGERY accepted by the core", tag()));
            } else if let Some(p) = &claim {
                if self.compiled(&p.indexes()) != payload {
                    st.not_unique += 1;
                    st.findings
                        .push(format!("{}: accepted, not the compiler's bytes", tag()));
                }
            }
        }
        if m == 0 && !genuine {
            st.forgeries_model += 1;
            st.findings
                .push(format!("{}: FORGERY accepted by the model", tag()));
        }
        if honest {
            st.honest += 1;
            if r != 0 || m != 0 {
                st.honest_rejected += 1;
                st.findings
                    .push(format!("{}: honest, core {r}, model {m}", tag()));
            }
        }
        r
    }
}

/// A payload from encoded parts: version, count, gaps, hashes, then cut to `len` bytes of
/// hashes (extended with `0xa5` if longer).
fn assemble(
    version: u8,
    count: &[u8],
    gaps: &[Vec<u8>],
    hashes: &[[u8; 32]],
    len: usize,
) -> Vec<u8> {
    let mut p = vec![version];
    p.extend_from_slice(count);
    for g in gaps {
        p.extend_from_slice(g);
    }
    let body: Vec<u8> = hashes.iter().flatten().copied().collect();
    let at = p.len();
    p.extend_from_slice(&body[..len.min(body.len())]);
    p.resize(at + len, 0xa5);
    p
}

/// Malformed encodings of the varint `v`: one overlong group, padded to 8 bytes, too long
/// (8 bytes with the continuation bit), the continuation bit on the last byte.
fn malformed(v: u64) -> Vec<Vec<u8>> {
    let c = varint(v);
    let mut out = Vec::new();
    if c.len() < 8 {
        let mut over = c.clone();
        *over.last_mut().unwrap() |= 0x80;
        over.push(0x00);
        out.push(over.clone());
        let mut padded = c.clone();
        while padded.len() < 8 {
            *padded.last_mut().unwrap() |= 0x80;
            padded.push(0x00);
        }
        out.push(padded);
    }
    let mut long = c.clone();
    for b in long.iter_mut() {
        *b |= 0x80;
    }
    long.resize(8, 0x80);
    out.push(long);
    let mut swallow = c;
    *swallow.last_mut().unwrap() |= 0x80;
    out.push(swallow);
    out
}

/// Every choice of at most `changes` distinct slots of `slots`, ascending.
fn slot_sets(slots: usize, changes: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    let mut frontier = vec![vec![]];
    for _ in 0..changes {
        let mut next = Vec::new();
        for s in &frontier {
            let from = s.last().map_or(0, |&l: &usize| l + 1);
            for j in from..slots {
                let mut t: Vec<usize> = s.clone();
                t.push(j);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

/// One claim: its structural, byte-level and value passes.
fn claim(ctx: &Ctx, cfg: &Config, gaps: &[u64], st: &mut Stats) {
    st.claims += 1;
    let k = gaps.len();
    let mut indexes = Vec::new();
    let mut next = 0u64;
    for &g in gaps {
        let i = next.saturating_add(g);
        indexes.push(i);
        next = i.saturating_add(1);
    }
    let inside = indexes.iter().all(|&i| i < ctx.n);
    let honest_hashes = if inside {
        model::honest_hashes(&ctx.mmr, &indexes)
    } else {
        (0..k).map(|j| ctx.pool[j % ctx.pool.len()]).collect()
    };
    let need = honest_hashes.len();
    let top = need + cfg.extra_hashes;
    let fill_a: Vec<[u8; 32]> = (0..top)
        .map(|j| {
            honest_hashes
                .get(j)
                .copied()
                .unwrap_or(ctx.pool[(j * 5) % ctx.pool.len()])
        })
        .collect();
    let fill_b: Vec<[u8; 32]> = (0..top)
        .map(|j| ctx.pool[(j * 7 + 3) % ctx.pool.len()])
        .collect();
    let count = varint(k as u64);
    let enc: Vec<Vec<u8>> = gaps.iter().map(|&g| varint(g)).collect();

    // Structural.
    let mut lens: Vec<usize> = (0..=top).map(|t| 32 * t).collect();
    lens.extend([32 * k - 1, 32 * need - 1, 32 * need + 1]);
    for len in lens {
        let a = assemble(model::VERSION, &count, &enc, &fill_a, len);
        let b = assemble(model::VERSION, &count, &enc, &fill_b, len);
        let ca = ctx.judge(st, cfg, &a, inside && len == 32 * need);
        let cb = ctx.judge(st, cfg, &b, false);
        st.structural += 2;
        let reaches = |c: i8| c == 0 || c == 9;
        if ca != cb && !(reaches(ca) && reaches(cb)) {
            st.value_dependent += 1;
            st.findings
                .push(format!("n={} gaps {gaps:?} len {len}: {ca} vs {cb}", ctx.n));
        }
    }

    // Byte level, on the honest filling at the honest length.
    let len = 32 * need;
    let run = |st: &mut Stats, p: Vec<u8>| {
        ctx.judge(st, cfg, &p, false);
        st.byte_level += 1;
    };
    for v in (0..=255u8).filter(|&v| v != model::VERSION) {
        run(st, assemble(v, &count, &enc, &fill_a, len));
    }
    for n in [0u64, 1, 2, 3, 4, 127, 128, (1 << 56) - 1] {
        if n != k as u64 {
            run(st, assemble(model::VERSION, &varint(n), &enc, &fill_a, len));
        }
    }
    let full = assemble(model::VERSION, &count, &enc, &fill_a, len);
    // Each varint: slot 0 is the count, slot j the gap j - 1.
    let mut starts = vec![1usize];
    for e in std::iter::once(&count).chain(&enc) {
        starts.push(starts.last().unwrap() + e.len());
    }
    for (slot, value) in std::iter::once(k as u64)
        .chain(gaps.iter().copied())
        .enumerate()
    {
        let (from, to) = (starts[slot], starts[slot + 1]);
        for bad in malformed(value) {
            run(st, [&full[..from], &bad[..], &full[to..]].concat());
        }
        for cut in from..to {
            run(st, full[..cut].to_vec());
        }
    }

    // Values: only a claim inside the MMR at exactly `need` hashes reaches the root compare.
    if !inside {
        return;
    }
    let pool = &ctx.pool;
    let slots = need;
    let honest_at: Vec<usize> = honest_hashes
        .iter()
        .map(|h| {
            pool.iter()
                .position(|p| p == h)
                .expect("honest values are in the pool")
        })
        .collect();
    let value = |st: &mut Stats, pick: &[usize]| {
        let hashes: Vec<[u8; 32]> = pick.iter().map(|&j| pool[j]).collect();
        let p = assemble(model::VERSION, &count, &enc, &hashes, len);
        ctx.judge(st, cfg, &p, pick == honest_at.as_slice());
        st.value_payloads += 1;
    };
    if (pool.len() as u64).saturating_pow(slots as u32) <= cfg.full_limit {
        st.value_shapes_full += 1;
        for pick in tuples(pool.len(), slots) {
            value(st, &pick);
        }
        return;
    }
    st.value_shapes_changes += 1;
    for set in slot_sets(slots, cfg.changes) {
        // Every assignment of other pool values to the chosen slots.
        for alt in tuples(pool.len() - 1, set.len()) {
            let mut pick = honest_at.clone();
            for (&s, &a) in set.iter().zip(&alt) {
                pick[s] = if a >= honest_at[s] { a + 1 } else { a };
            }
            value(st, &pick);
        }
    }
}

/// Payloads that are not about one claim: empty, the version alone, invalid leaf counts.
fn headers(ctx: &Ctx, cfg: &Config, st: &mut Stats) {
    for p in [vec![], vec![model::VERSION], vec![0x01]] {
        ctx.judge(st, cfg, &p, false);
        st.byte_level += 1;
    }
    let honest = model::honest(&ctx.mmr, &[0]);
    for leaf_count in [0u64, 1 << 50, u64::MAX] {
        let c = ctx.judge_at(st, cfg, &honest, false, leaf_count);
        st.byte_level += 1;
        if c != code::LEAF_COUNT_INVALID {
            st.disagreements += 1;
            st.findings
                .push(format!("leaf_count {leaf_count}: {c}, not 40"));
        }
    }
}

/// Every gap tuple of length `1..=max_claim` over `ctx.gaps`.
fn gap_tuples(ctx: &Ctx, max_claim: usize) -> Vec<Vec<u64>> {
    (1..=max_claim)
        .flat_map(|k| tuples(ctx.gaps.len(), k))
        .map(|t| t.into_iter().map(|j| ctx.gaps[j]).collect())
        .collect()
}

/// Runs the search.
pub fn run(cfg: &Config) -> Stats {
    let ctxs: Vec<Ctx> = (1..=cfg.max_leaves).map(Ctx::new).collect();
    let mut tasks: Vec<(usize, Option<Vec<u64>>)> = Vec::new();
    for (c, ctx) in ctxs.iter().enumerate() {
        tasks.push((c, None));
        tasks.extend(
            gap_tuples(ctx, cfg.max_claim)
                .into_iter()
                .map(|g| (c, Some(g))),
        );
    }
    // The largest MMRs' claims first: the long tasks do not end up last on one thread.
    tasks.reverse();
    let mut total = Stats {
        mmrs: ctxs.len() as u64,
        ..Stats::default()
    };
    let workers = crate::on_threads(&tasks, cfg.threads, |(c, gaps), st| match gaps {
        None => headers(&ctxs[*c], cfg, st),
        Some(g) => claim(&ctxs[*c], cfg, g, st),
    });
    for st in &workers {
        total.add(st);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_sets_count() {
        // 1 + 5 + 10 sets of at most 2 of 5 slots.
        assert_eq!(slot_sets(5, 2).len(), 16);
        assert_eq!(slot_sets(3, 1), vec![vec![], vec![0], vec![1], vec![2]]);
    }

    #[test]
    fn malformed_encodings() {
        assert_eq!(
            malformed(1),
            vec![
                vec![0x81, 0x00],
                vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
                vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
                vec![0x81],
            ]
        );
    }
}
