//! The ring's exhaustive search (`docs/concurrency-design.md` section 3, "The exhaustive
//! search", item 2): for each K, every history from a `CREATE` or an `IMPORT` through every
//! sequence of `APPEND`/`EXTEND` steps, a whole-ring `KEEP` (a hand-over) at every depth, and
//! at each state every candidate transaction of the spec's classes, run through the ring core
//! (`mmr_accumulator::ring`) and the model ([`crate::ring_model`]). An accepted transaction is
//! held against the truth: the ring after it must have K + 1 cells under one lock, one head,
//! every state one the history had, and the snapshots' sizes, as a multiset, the head's
//! `older` and its own size.
//!
//! The negative controls ([`Variant`]) compose the core's pub rule functions with one rule
//! removed: the harness hands the core cells patched so the removed check passes, which is
//! exactly what a core without it would accept.

use crate::accumulator::{honest_append, honest_proof, model_size, prefix_root, Ref};
use crate::mmr::Mmr;
use crate::report::{add_counters, Findings, Outcome, Report};
use crate::ring_model::{self as model, Cell, APPEND, CREATE, EXTEND, IMPORT, KEEP};
use mmr_accumulator::ring::{self, RingCell, Shape};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

type H = [u8; 32];

const LOCK_A: H = [0xa1; 32];
const LOCK_B: H = [0xb2; 32];
const FOREIGN: H = [0xcc; 32];

/// The core under test, or a copy with one rule removed (a negative control).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `ring::verify_ring` itself.
    Core,
    /// The pub rule functions composed in the spec's order, nothing removed (the harness's
    /// composition must equal the core's entry everywhere).
    Composed,
    /// -103 removed: any snapshot may be consumed (the window shrinks).
    NoOldest,
    /// The step's and the creation's -104 removed: a snapshot may be written with any data.
    NoSnapshotData,
    /// The shift appends the head output's size instead of the input's.
    WrongShift,
    /// Shape (1, 2) taken as a step (its consumed snapshot assumed to be the oldest).
    Shape12,
    /// -106 removed: any lock on any output.
    NoLock,
}

impl Variant {
    pub const CONTROLS: [Variant; 5] = [
        Variant::NoOldest,
        Variant::NoSnapshotData,
        Variant::WrongShift,
        Variant::Shape12,
        Variant::NoLock,
    ];
}

/// Search bounds.
#[derive(Debug, Clone)]
pub struct Config {
    pub ks: Vec<u8>,
    /// Histories grow to this many leaves (steps and creations).
    pub max_leaves: u64,
    pub threads: usize,
}

impl Config {
    pub fn full() -> Config {
        Config {
            ks: vec![2, 3, 4],
            max_leaves: 12,
            threads: 2,
        }
    }

    pub fn reduced() -> Config {
        Config {
            max_leaves: 7,
            ..Config::full()
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// The subject under search besides the core and the model (`None`: those two only).
    pub subject: Option<String>,
    pub histories_started: u64,
    pub states: u64,
    pub candidates: u64,
    pub accepted: u64,
    pub honest: u64,
    pub honest_rejected: u64,
    /// Accepted transactions after which the ring is not sound (sum of the four below).
    pub forgeries: u64,
    pub bad_state: u64,
    pub bad_multiset: u64,
    pub bad_count: u64,
    pub bad_lock: u64,
    /// Creation-shaped candidates on a live ring: the core's rules run, rule 2 (the type id,
    /// the contract's) refuses them; compared, not held against the truth.
    pub second_creations: u64,
    /// Accepted candidates with changed args (another type hash) or a duplicated input (the
    /// node refuses): compared, not held against the truth.
    pub compared_only: u64,
    /// Accepted, not one of the honest candidates, and the ring after it sound (an `IMPORT`
    /// of another state: the history starts wherever an import puts it).
    pub sound_other: u64,
    pub disagreements: u64,
    /// Runs of the subject, and those whose code is not the core's (under 32-byte args, where
    /// the core has no ring verdict: an acceptance).
    pub subject_runs: u64,
    pub subject_disagreements: u64,
    pub undocumented: u64,
    pub codes: BTreeMap<i8, u64>,
    pub findings: Findings<20>,
}

impl Stats {
    /// Ring codes -100..=-106 never returned.
    pub fn missing_ring_codes(&self) -> u64 {
        (-106..=-100i8)
            .filter(|c| !self.codes.contains_key(c))
            .count() as u64
    }

    fn merge(&mut self, o: Stats) {
        add_counters!(
            self, o;
            histories_started,
            states,
            candidates,
            accepted,
            honest,
            honest_rejected,
            forgeries,
            bad_state,
            bad_multiset,
            bad_count,
            bad_lock,
            second_creations,
            compared_only,
            sound_other,
            disagreements,
            subject_runs,
            subject_disagreements,
            undocumented,
        );
        self.subject = self.subject.take().or(o.subject);
        for (c, n) in o.codes {
            *self.codes.entry(c).or_default() += n;
        }
        self.findings.extend(o.findings);
    }
}

impl Outcome for Stats {
    fn problems(&self) -> u64 {
        self.forgeries
            + self.honest_rejected
            + self.disagreements
            + self.subject_disagreements
            + self.undocumented
            + self.missing_ring_codes()
    }

    fn report(&self) -> String {
        // One row a line: the table reads as the report prints it.
        #[rustfmt::skip]
        let rows = [
            ("histories started (CREATE or IMPORT, per K)", self.histories_started),
            ("ring states (prefixes, a KEEP at each)", self.states),
            ("candidate transactions (each: core + model)", self.candidates),
            ("  accepted", self.accepted),
            ("    honest", self.honest - self.honest_rejected),
            ("    second creations (rule 2's type id refuses)", self.second_creations),
            ("    other args or a duplicated input", self.compared_only),
            ("    other, the ring after it sound (IMPORTs)", self.sound_other),
            ("honest transitions (all must be accepted)", self.honest),
            ("honest transitions rejected", self.honest_rejected),
            ("forgeries accepted", self.forgeries),
            ("  a state not in the history", self.bad_state),
            ("  multiset invariant broken", self.bad_multiset),
            ("  cell count not K + 1", self.bad_count),
            ("  a ring cell under another lock", self.bad_lock),
            ("core/model disagreements", self.disagreements),
        ];
        let mut r = Report::new(60, 12);
        r.rows(&rows);
        if let Some(name) = &self.subject {
            r.row(&format!("runs of {name}"), self.subject_runs);
            r.row(
                &format!("  {name}'s code not the core's"),
                self.subject_disagreements,
            );
        }
        r.row("undocumented codes", self.undocumented);
        r.row(
            "ring codes -100..=-106 never reached",
            self.missing_ring_codes(),
        );
        r.codes(&self.codes);
        r.finish("finding", &self.findings)
    }
}

/// One candidate as a [`Subject`] runs it: the group's cells (locks are ids: equal ids, one
/// lock), the payload at the head's group index, and the args.
pub struct Case<'c> {
    /// The ring's K (the honest args' last byte).
    pub k: u8,
    /// The args the group runs under. At a creation with `honest_args`, their first 32 bytes
    /// stand for the type id, which the subject computes (rule 2 is not the core's).
    pub args: &'c [u8],
    pub honest_args: bool,
    pub inputs: &'c [Cell],
    pub outputs: &'c [Cell],
    pub payload: &'c [u8],
    pub what: &'static str,
}

/// Something else the search runs every candidate through (the release binary in CKB-VM):
/// its code (0 accepted) must be the core's, and its acceptances are the ones held against
/// the truth.
pub trait Subject {
    fn name(&self) -> String;
    fn code(&mut self, case: &Case) -> i8;
}

fn ring_cells(cells: &[Cell]) -> Vec<RingCell<'_>> {
    cells
        .iter()
        .map(|c| RingCell {
            data: &c.data,
            lock_hash: &c.lock,
        })
        .collect()
}

fn size_of(data: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(data.get(32..40)?.try_into().ok()?))
}

/// The core's code (0 accepted) for the group under the variant.
pub fn core_code(v: Variant, k: u8, inputs: &[Cell], outputs: &[Cell], payload: &[u8]) -> i8 {
    let mut ws = mmr_accumulator::Workspace::new();
    let result = if v == Variant::Core {
        ring::verify_ring::<Ref>(
            &mut ws,
            k,
            &ring_cells(inputs),
            &ring_cells(outputs),
            payload,
        )
    } else {
        composed(v, &mut ws, k, inputs, outputs, payload)
    };
    result.map_or_else(|e| e.code(), |()| 0)
}

/// Rules 1, 3, 4, 5's fit and 6 from the core's pub functions, less the variant's rule.
fn composed(
    v: Variant,
    ws: &mut mmr_accumulator::Workspace,
    k: u8,
    inputs: &[Cell],
    outputs: &[Cell],
    payload: &[u8],
) -> Result<(), mmr_accumulator::Error> {
    let (mut ins, mut outs) = (inputs.to_vec(), outputs.to_vec());
    let shape = match (v, ins.len(), outs.len()) {
        (Variant::Shape12, 1, 2) => Shape::Step,
        (_, i, o) => ring::shape(k, i, o)?,
    };
    let head_in = ring::roles(k, &ring_cells(&ins))?;
    let head_out = ring::roles(k, &ring_cells(&outs))?.ok_or(mmr_accumulator::Error::RingRoles)?;
    if v == Variant::Shape12 && ins.len() == 1 {
        // The missing input is taken to be the oldest snapshot, under the head's lock.
        let h = &ins[0];
        let mut fake = h.data[..40].to_vec();
        fake[32..40].copy_from_slice(h.data.get(40..48).unwrap_or(&h.data[32..40]));
        ins.push(Cell {
            data: fake,
            lock: h.lock,
        });
    }
    if v == Variant::NoLock {
        let lock = match head_in {
            Some(hi) if shape == Shape::Step => ins[hi].lock,
            _ => outs[head_out].lock,
        };
        outs.iter_mut().for_each(|c| c.lock = lock);
    }
    if v == Variant::NoSnapshotData && shape != Shape::Keep {
        let state = outs[head_out].data[..40].to_vec();
        for (i, c) in outs.iter_mut().enumerate() {
            if i != head_out {
                c.data = state.clone();
            }
        }
    }
    if shape == Shape::Step {
        if let Some(hi) = head_in {
            let si = 1 - hi.min(1);
            if v == Variant::NoOldest && ins[si].data.len() == 40 && ins[hi].data.len() >= 48 {
                let consumed: [u8; 8] = ins[si].data[32..40].try_into().unwrap();
                ins[hi].data[40..48].copy_from_slice(&consumed);
            }
            let (hl, ol) = (ins[hi].data.len(), outs[head_out].data.len());
            if v == Variant::WrongShift && hl == ol && hl >= 48 {
                // The wrong rule's expectation: input older[1..] ++ [the OUTPUT's size].
                let mut wrong = ins[hi].data[48..].to_vec();
                wrong.extend_from_slice(&outs[head_out].data[32..40]);
                let mut right = ins[hi].data[48..].to_vec();
                right.extend_from_slice(&ins[hi].data[32..40]);
                let out_older = &mut outs[head_out].data[40..];
                if *out_older == wrong[..] {
                    out_older.copy_from_slice(&right);
                } else if *out_older == right[..] {
                    out_older[0] ^= 0xff;
                }
            }
        }
    }
    let (ri, ro) = (ring_cells(&ins), ring_cells(&outs));
    match (shape, head_in) {
        (Shape::Creation, None) => ring::check_creation(k, &ro, head_out)?,
        (Shape::Step, Some(hi)) => ring::check_step(&ri, hi, &ro, head_out)?,
        (Shape::Keep, Some(_)) => ring::check_keep(&ri, &ro, head_out)?,
        _ => return Err(mmr_accumulator::Error::RingShape),
    }
    let r = ring::Ring {
        shape,
        head_in,
        head_out,
    };
    ring::check_payload::<Ref>(ws, &r, &ring_cells(inputs), &ring_cells(outputs), payload)
}

/// The history every ring of the search follows: one MMR, its prefixes the states.
pub struct History {
    max: u64,
    mmr: Mmr,
    /// `states[n]`: the 40-byte state of the first `n` leaves (`n` in 1..=max + 1).
    states: Vec<Vec<u8>>,
    /// `payloads[(n, m, tag)]`: the honest `APPEND`/`EXTEND` payload from n to m leaves.
    steps: BTreeMap<(u64, u64, u8), Vec<u8>>,
}

impl History {
    pub fn new(max: u64) -> History {
        // One leaf past the bound: every state, the last too, has a base step.
        let mmr = Mmr::with_leaf_count(max + 1, 0x5249_4e47);
        let mut states = vec![Vec::new()];
        for n in 1..=max + 1 {
            let mut d = prefix_root(&mmr, n).to_vec();
            d.extend_from_slice(&model_size(n).to_le_bytes());
            states.push(d);
        }
        let mut steps = BTreeMap::new();
        for n in 1..=max {
            for m in n + 1..=max + 1 {
                let mut a = vec![APPEND];
                a.extend(honest_append(&mmr, n, m));
                steps.insert((n, m, APPEND), a);
                let mut e = vec![EXTEND];
                e.extend(honest_proof(&mmr, n, m));
                steps.insert((n, m, EXTEND), e);
            }
        }
        History {
            max,
            mmr,
            states,
            steps,
        }
    }

    fn create(&self, n: u64) -> Vec<u8> {
        let mut p = vec![CREATE];
        p.extend_from_slice(&(n as u32).to_le_bytes());
        for l in &self.mmr.leaves[..n as usize] {
            p.extend_from_slice(l);
        }
        p
    }
}

/// A live ring: its K + 1 cells (any order) and the history's leaf counts it went through.
#[derive(Clone)]
struct Live {
    cells: Vec<Cell>,
    /// States the accumulator had (`None`: an imported state outside the history's MMR).
    path: Vec<Vec<u8>>,
    n: u64,
}

impl Live {
    fn head(&self, k: u8) -> usize {
        self.cells
            .iter()
            .position(|c| c.data.len() == model::head_len(k))
            .unwrap()
    }
}

/// One candidate: the group's inputs (indexes into the live ring, or a synthetic cell) and
/// outputs, the payload, the args' K byte (`None`: honest args) and whether it is honest.
struct Tx {
    ins: Vec<usize>,
    extra_in: Option<Cell>,
    outs: Vec<Cell>,
    payload: Vec<u8>,
    args: Option<Vec<u8>>,
    honest: bool,
    what: &'static str,
}

fn tx(ins: Vec<usize>, outs: Vec<Cell>, payload: &[u8], what: &'static str) -> Tx {
    Tx {
        ins,
        extra_in: None,
        outs,
        payload: payload.to_vec(),
        args: None,
        honest: false,
        what,
    }
}

fn head_cell(state: &[u8], older: &[u64], lock: H) -> Cell {
    let mut data = state.to_vec();
    older
        .iter()
        .for_each(|o| data.extend_from_slice(&o.to_le_bytes()));
    Cell { data, lock }
}

fn older_of(head: &Cell) -> Vec<u64> {
    head.data[40..]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A state with one byte flipped: root bytes 0 and 31, size bytes 0 and 7.
fn flips(state: &[u8]) -> Vec<Vec<u8>> {
    [0usize, 31, 32, 39]
        .iter()
        .map(|&at| {
            let mut d = state.to_vec();
            d[at] ^= 0x01;
            d
        })
        .collect()
}

/// A cell's data at another length: cut, or padded with copies of its size.
fn resized(data: &[u8], len: usize) -> Vec<u8> {
    let mut d = data.to_vec();
    while d.len() < len {
        d.extend_from_slice(&data[32..40]);
    }
    d.truncate(len);
    d
}

struct Search<'a, 's> {
    k: u8,
    h: &'a History,
    v: Variant,
    subject: Option<&'s mut dyn Subject>,
    st: Stats,
    /// The leaf count the current history was created with.
    n0: u64,
}

impl Search<'_, '_> {
    /// Runs one candidate on the live ring (`None`: before creation) and checks it.
    fn run(&mut self, live: Option<&Live>, t: &Tx, creation_of: Option<u8>) {
        let k = self.k;
        let mut ins: Vec<Cell> = match live {
            Some(l) => t.ins.iter().map(|&i| l.cells[i].clone()).collect(),
            None => Vec::new(),
        };
        ins.extend(t.extra_in.clone());
        let mut args = vec![0x77u8; 32];
        args.push(k);
        let args = t.args.clone().unwrap_or(args);
        let core = match ring::ring_k(&args) {
            Ok(None) => None,
            Ok(Some(kk)) => Some(core_code(self.v, kk, &ins, &t.outs, &t.payload)),
            Err(e) => Some(e.code()),
        };
        let modeled = model::model_script(&args, &ins, &t.outs, &t.payload);
        self.st.candidates += 1;
        if let Some(c) = core {
            *self.st.codes.entry(c).or_default() += 1;
            if !model::documented(c) {
                self.st.undocumented += 1;
                self.st
                    .findings
                    .push(format!("undocumented {c}: K {k} {}", t.what));
            }
        }
        if core != modeled && matches!(self.v, Variant::Core | Variant::Composed) {
            self.st.disagreements += 1;
            self.st.findings.push(format!(
                "K {k} at {:?} {}: core {core:?} model {modeled:?}; ins {} outs {} payload {}",
                live.map(|l| l.n),
                t.what,
                cells_hex(&ins),
                cells_hex(&t.outs),
                crate::hex(&t.payload)
            ));
        }
        let verdict = match self.subject.as_deref_mut() {
            None => core,
            Some(subject) => {
                let case = Case {
                    k,
                    args: &args,
                    honest_args: t.args.is_none(),
                    inputs: &ins,
                    outputs: &t.outs,
                    payload: &t.payload,
                    what: t.what,
                };
                let got = subject.code(&case);
                self.st.subject_runs += 1;
                // Under 32-byte args (no ring) the single accumulator's rules refuse a ring's
                // group; elsewhere the code is the core's.
                if core.map_or(got == 0, |c| c != got) {
                    self.st.subject_disagreements += 1;
                    let name = subject.name();
                    self.st.findings.push(format!(
                        "K {k} at {:?} {}: {name} {got}, core {core:?}; args {} ins {} outs {} \
                         payload {}",
                        live.map(|l| l.n),
                        t.what,
                        crate::hex(&args),
                        cells_hex(&ins),
                        cells_hex(&t.outs),
                        crate::hex(&t.payload)
                    ));
                }
                Some(got)
            }
        };
        let accepted = verdict == Some(0);
        if t.honest {
            self.st.honest += 1;
            if !accepted {
                self.st.honest_rejected += 1;
                self.st
                    .findings
                    .push(format!("K {k} honest {} rejected: {verdict:?}", t.what));
            }
        }
        if !accepted {
            return;
        }
        self.st.accepted += 1;
        if t.args.is_some() || t.extra_in.is_some() {
            self.st.compared_only += 1;
            return;
        }
        // Creation-shaped on a live ring: the type id (rule 2) refuses it.
        if live.is_some() && t.ins.is_empty() {
            self.st.second_creations += 1;
            return;
        }
        // The ring after the transaction, and the states it may hold.
        let (mut after, mut allowed): (Vec<Cell>, Vec<Vec<u8>>) = match live {
            Some(l) => (
                l.cells
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !t.ins.contains(i))
                    .map(|(_, c)| c.clone())
                    .collect(),
                l.path.clone(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        after.extend(t.outs.iter().cloned());
        let new_head = t.outs.iter().find(|c| c.data.len() == model::head_len(k));
        if let Some(hd) = new_head {
            let state = hd.data[..40].to_vec();
            // The head may move only to a later state of the history (or, on IMPORT, to
            // whatever it imports: the history starts there).
            let ok = match (live, creation_of) {
                (Some(l), _) => (l.n..=self.h.max + 1).any(|m| self.h.states[m as usize] == state),
                (None, Some(IMPORT)) => true,
                (None, _) => self.h.states[self.n0 as usize] == state,
            };
            if ok {
                allowed.push(state);
            }
        }
        let mut bad = Vec::new();
        if after.len() != k as usize + 1 {
            self.st.bad_count += 1;
            bad.push("count");
        }
        if after.iter().any(|c| c.lock != after[0].lock) {
            self.st.bad_lock += 1;
            bad.push("lock");
        }
        if after
            .iter()
            .any(|c| c.data.len() < 40 || !allowed.contains(&c.data[..40].to_vec()))
        {
            self.st.bad_state += 1;
            bad.push("state");
        }
        let heads: Vec<&Cell> = after
            .iter()
            .filter(|c| c.data.len() == model::head_len(k))
            .collect();
        let multiset_ok = heads.len() == 1 && {
            let mut listed = older_of(heads[0]);
            listed.push(size_of(&heads[0].data).unwrap());
            let mut held: Vec<u64> = after
                .iter()
                .filter(|c| c.data.len() == 40)
                .filter_map(|c| size_of(&c.data))
                .collect();
            listed.sort_unstable();
            held.sort_unstable();
            listed == held && held.len() + 1 == after.len()
        };
        if !multiset_ok {
            self.st.bad_multiset += 1;
            bad.push("multiset");
        }
        if bad.is_empty() && !t.honest {
            self.st.sound_other += 1;
        }
        if !bad.is_empty() {
            self.st.forgeries += 1;
            self.st.findings.push(format!(
                "K {k} at {:?} {} accepted, ring unsound ({}): outs {}",
                live.map(|l| l.n),
                t.what,
                bad.join(", "),
                cells_hex(&t.outs)
            ));
        }
    }
}

fn cells_hex(cells: &[Cell]) -> String {
    let v: Vec<String> = cells
        .iter()
        .map(|c| format!("{}@{:02x}", crate::hex(&c.data), c.lock[0]))
        .collect();
    format!("[{}]", v.join(", "))
}

mod candidates;

/// Runs the search under the variant.
pub fn run(cfg: &Config, v: Variant) -> Stats {
    run_jobs(cfg, v, &|| None)
}

/// Runs the search on the core with `make()`'s subject too, one made per thread: every
/// candidate's code must be the core's, and the subject's acceptances are held against the
/// truth.
pub fn run_on<S: Subject + 'static>(cfg: &Config, make: &(dyn Fn() -> S + Sync)) -> Stats {
    let mut st = run_jobs(cfg, Variant::Core, &|| {
        Some(Box::new(make()) as Box<dyn Subject>)
    });
    if st.subject.is_none() {
        st.subject = Some(make().name());
    }
    st
}

type MakeSubject<'m> = dyn Fn() -> Option<Box<dyn Subject>> + Sync + 'm;

fn run_jobs(cfg: &Config, v: Variant, make: &MakeSubject) -> Stats {
    let h = History::new(cfg.max_leaves);
    // Jobs: (K, CREATE or IMPORT, first leaf count), largest trees first.
    let mut jobs: Vec<(u8, u8, u64)> = Vec::new();
    for n0 in 1..=cfg.max_leaves {
        for &k in &cfg.ks {
            for tag in [CREATE, IMPORT] {
                jobs.push((k, tag, n0));
            }
        }
    }
    let next = AtomicUsize::new(0);
    let total = Mutex::new(Stats::default());
    std::thread::scope(|s| {
        for _ in 0..cfg.threads.max(1) {
            s.spawn(|| {
                let mut subject = make();
                let name = subject.as_ref().map(|s| s.name());
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(k, tag, n0)) = jobs.get(i) else {
                        break;
                    };
                    let mut search = Search {
                        k,
                        h: &h,
                        v,
                        subject: subject.as_deref_mut().map(|s| s as &mut dyn Subject),
                        st: Stats {
                            subject: name.clone(),
                            ..Stats::default()
                        },
                        n0,
                    };
                    candidates::history(&mut search, tag, n0);
                    let st = std::mem::take(&mut search.st);
                    total.lock().unwrap().merge(st);
                }
            });
        }
    });
    total.into_inner().unwrap()
}
