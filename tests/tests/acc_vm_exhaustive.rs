//! The accumulator type script's exhaustive search in CKB-VM, on the release binary
//! `build/release/accumulator-type`, in-process (one ckb-testtool context, the binary deployed
//! once; the runs per second are printed).
//!
//! One history of 7 leaves; every (old, new) leaf-count pair 1 <= n < m <= 7, and creation
//! of every prefix of 1-7 leaves:
//!
//! - the honest `APPEND` and `EXTEND` (and `CREATE`) transitions, which must be accepted;
//! - every edit of their witnesses ([`edits`] over the pair's [`pool`]; the leaf count one
//!   less or one more), each run with the honest new commitment as output and with the one its
//!   own bytes compute at face value ([`claimed`]), which is what a submitter would put there;
//! - the honest witnesses against other inputs and outputs ([`update_cases`]); `KEEP` on each
//!   size.
//!
//! Every run's verdict and exit code are compared with the native core
//! (`mmr_accumulator::verify_update`/`verify_creation` with the reference hash, built with the
//! contract's features, through `assurance::accumulator`) and, for `APPEND`, `EXTEND` and
//! `CREATE`, with the assurance model. An accepted run from the history's own old commitment
//! is a forgery unless its output is the truth: for an append, the MMR of the old leaves
//! followed by the body's leaves, built node by node; for an ancestry proof, every old peak in
//! its slot (`assurance::accumulator::classify`: the new leaves are not in the witness, so a
//! new part that is not the history's is counted apart as another true extension, not a
//! forgery); for a creation, the MMR of the body's leaves.
//!
//! Negative controls: the search run on the native core without its old-root check must report
//! forgeries, and on the release binary with every leftover stripped before it runs (the
//! Hyperbridge class) must report acceptances the core refuses.

use assurance::accumulator::{self as acc, Accepted, Variant};
use assurance::mmr::Mmr;
use mmr_accumulator::{tag, Error};
use std::collections::{BTreeMap, BTreeSet};
use tests::accumulator::AccumulatorChain;
use tests::Outcome;

type H = [u8; 32];
/// A cell's data: root || mmr_size (u64 LE).
type Data = [u8; 40];

const MAX_LEAVES: u64 = 7;
/// Cases of the search over 1-7 leaves (one run each).
const SEARCH_CASES: u64 = 8696;

fn data(root: &H, size: u64) -> Data {
    let mut d = [0u8; 40];
    d[..32].copy_from_slice(root);
    d[32..].copy_from_slice(&size.to_le_bytes());
    d
}

fn split(d: &Data) -> (H, u64) {
    (
        d[..32].try_into().unwrap(),
        u64::from_le_bytes(d[32..].try_into().unwrap()),
    )
}

/// One transition as the type script sees it: a new accumulator under its type id (no input;
/// the payload in `WitnessArgs.output_type`), or one accumulator cell in and one out (the
/// payload in `input_type`), with the cells' data.
#[derive(Clone, Debug)]
struct Transition {
    payload: Vec<u8>,
    input: Option<Data>,
    output: Data,
}

impl Transition {
    fn create(payload: Vec<u8>, output: Data) -> Transition {
        Transition {
            payload,
            input: None,
            output,
        }
    }

    fn update(payload: Vec<u8>, input: Data, output: Data) -> Transition {
        Transition {
            payload,
            input: Some(input),
            output,
        }
    }

    fn with_payload(&self, payload: Vec<u8>) -> Transition {
        Transition {
            payload,
            ..self.clone()
        }
    }

    /// The transition's name by its payload's tag.
    fn kind(&self) -> &'static str {
        match (self.input, self.payload.first()) {
            (None, _) => "create",
            (_, Some(&tag::APPEND)) => "append",
            (_, Some(&tag::EXTEND)) => "extend",
            (_, Some(&tag::KEEP)) => "keep",
            _ => "other",
        }
    }

    /// The native core's code (0 = accepted) through `variant`.
    fn native(&self, variant: Variant) -> i8 {
        match &self.input {
            None => acc::creation_code(&self.payload, &self.output),
            Some(input) => acc::update_code(variant, &self.payload, input, &self.output),
        }
    }

    /// The model's code, where the model defines the transition.
    fn model(&self) -> Option<i8> {
        match &self.input {
            None => acc::model_creation_code(&self.payload, &self.output),
            Some(input) => acc::model_update_code(&self.payload, input, &self.output),
        }
    }
}

/// A type script under search.
trait TypeScript {
    fn name(&self) -> String;
    fn run(&mut self, t: &Transition) -> Outcome;
}

fn outcome(code: i8) -> Outcome {
    match code {
        0 => Outcome::Accepted(0),
        c => Outcome::Rejected(c),
    }
}

/// The release binary in CKB-VM (`tests::accumulator`): every cell locked by always-success.
struct Vm(AccumulatorChain);

impl TypeScript for Vm {
    fn name(&self) -> String {
        "accumulator-type in CKB-VM".into()
    }

    fn run(&mut self, t: &Transition) -> Outcome {
        let tx = match &t.input {
            None => self.0.creation(&t.output, &t.payload).0,
            Some(input) => self.0.update(input, &t.output, &t.payload),
        };
        self.0.run(tx)
    }
}

/// A native core (a broken variant in the negative controls).
struct Native(Variant);

impl TypeScript for Native {
    fn name(&self) -> String {
        format!("native {:?}", self.0)
    }

    fn run(&mut self, t: &Transition) -> Outcome {
        outcome(t.native(self.0))
    }
}

/// The Hyperbridge bug (polytope-labs/solidity-merkle-trees PR 57) on the release binary:
/// whatever is left after the last item used is ignored. Modelled by stripping the leftover
/// the binary reports (leaves or items: 105, 111; bytes: 106, 112) and running the rest.
struct IgnoresLeftovers(Vm);

impl TypeScript for IgnoresLeftovers {
    fn name(&self) -> String {
        "accumulator-type ignoring leftovers".into()
    }

    fn run(&mut self, t: &Transition) -> Outcome {
        let mut t = t.clone();
        loop {
            let got = self.0.run(&t);
            let mut p = t.payload.clone();
            match got.code() {
                Some(105 | 111) => p.truncate(p.len() - 32),
                Some(106 | 112) => p.truncate(p.len() - 1),
                _ => return got,
            }
            t = t.with_payload(p);
        }
    }
}

/// What an accepted transition is, judged against the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    /// The search's own honest transition.
    Honest,
    /// A true transition other than the search's: an append or creation of other leaves, an
    /// ancestry proof with every old peak in place and another new part.
    OtherTrue,
    /// From an input that is not the history's commitment of any size (another MMR).
    CounterfeitInput,
    /// The output is not what the input and the witness prove.
    Forgery,
}

/// The leaves an append or create body names: after `skip` bytes of peaks, as many as its
/// count says (`None`: the body is too short for them).
fn body_leaves(body: &[u8], skip: usize) -> Option<Vec<H>> {
    let count = u32::from_le_bytes(body.get(skip..skip + 4)?.try_into().unwrap()) as usize;
    let leaves = body.get(skip + 4..skip + 4 + 32 * count)?;
    Some(leaves.chunks(32).map(|c| c.try_into().unwrap()).collect())
}

/// What a submitter would put in the output for `payload` on `input` (new size `new_size`):
/// what the witness's own bytes compute at face value, by the model: an append's peaks (not
/// checked against the old root) with its leaves pushed, an ancestry proof's new root, a
/// creation's root. `None` when the model finds the bytes malformed.
fn claimed(payload: &[u8], input: Option<&Data>, new_size: u64) -> Option<Data> {
    let (&t, body) = payload.split_first()?;
    let (r, s) = match (t, input) {
        (tag::CREATE, None) => acc::model_append(None, body).ok()?,
        (tag::APPEND, Some(input)) => {
            let (_, old_size) = split(input);
            let n = acc::model_leaf_count(old_size)?;
            let peaks: Vec<H> = body
                .get(..32 * n.count_ones() as usize)?
                .chunks(32)
                .map(|c| c.try_into().unwrap())
                .collect();
            let bagged = acc::model_bag(&peaks)?;
            acc::model_append(Some((&bagged, old_size)), body).ok()?
        }
        (tag::EXTEND, Some(input)) => {
            let (_, old_size) = split(input);
            let (_, new) = acc::model_ancestry_roots(old_size, new_size, body).ok()?;
            (new, new_size)
        }
        _ => return None,
    };
    Some(data(&r, s))
}

/// The history and its honest commitments.
struct History {
    mmr: Mmr,
    /// `commits[n]`: the commitment of the first `n` leaves (`commits[0]` unused).
    commits: Vec<Data>,
}

impl History {
    fn new() -> History {
        let mmr = Mmr::with_leaf_count(MAX_LEAVES, 0xacc);
        let commits = (0..=MAX_LEAVES)
            .map(|n| match n {
                0 => [0; 40],
                n => data(&acc::prefix_root(&mmr, n), acc::model_size(n)),
            })
            .collect();
        History { mmr, commits }
    }

    /// The leaf count whose honest commitment `d` is.
    fn honest_count(&self, d: &Data) -> Option<u64> {
        (1..=MAX_LEAVES).find(|&n| self.commits[n as usize] == *d)
    }

    /// The truth about an accepted transition.
    fn judge(&self, t: &Transition) -> Truth {
        let leaves = &self.mmr.leaves;
        let of_leaves = |all: &[H], output: &Data, own: bool| -> Truth {
            let truth = Mmr::build(all);
            match (data(&truth.root, truth.mmr_size()) == *output, own) {
                (false, _) => Truth::Forgery,
                (true, true) => Truth::Honest,
                (true, false) => Truth::OtherTrue,
            }
        };
        let (payload, output) = (&t.payload, &t.output);
        match &t.input {
            None => {
                if payload.first() != Some(&tag::CREATE) {
                    return Truth::Forgery;
                }
                let Some(new) = body_leaves(&payload[1..], 0).filter(|l| !l.is_empty()) else {
                    return Truth::Forgery;
                };
                let own = new.len() <= leaves.len() && new == leaves[..new.len()];
                of_leaves(&new, output, own)
            }
            Some(input) => {
                let Some(n) = self.honest_count(input) else {
                    return Truth::CounterfeitInput;
                };
                let (new_root, new_size) = split(output);
                match payload.split_first() {
                    Some((&tag::APPEND, body)) => {
                        let Some(new) = body_leaves(body, 32 * n.count_ones() as usize) else {
                            return Truth::Forgery;
                        };
                        let mut all = leaves[..n as usize].to_vec();
                        let own = n as usize + new.len() <= leaves.len()
                            && new == leaves[n as usize..n as usize + new.len()];
                        all.extend(new);
                        of_leaves(&all, output, own)
                    }
                    Some((&tag::EXTEND, proof)) => {
                        match acc::classify(&self.mmr, n, new_size, &new_root, proof) {
                            Accepted::Honest => Truth::Honest,
                            Accepted::NewPartOpaque => Truth::OtherTrue,
                            Accepted::Forgery => Truth::Forgery,
                        }
                    }
                    Some((&tag::KEEP, [])) if output == input => Truth::Honest,
                    _ => Truth::Forgery,
                }
            }
        }
    }
}

/// What a search saw. A clean search has every counter from `honest_refused` on at zero.
#[derive(Default, Debug)]
struct Report {
    cases: u64,
    /// Honest transitions run (all must be accepted).
    honest: u64,
    accepted: u64,
    /// Accepted mutations whose result is still an honest transition's (the search's own, or
    /// another true one: other leaves appended or created, another new part of an ancestry
    /// proof with every old peak in place).
    accepted_true: u64,
    /// Accepted from an input that is not the history's commitment of any size.
    accepted_counterfeit_input: u64,
    honest_refused: u64,
    forgeries: u64,
    forgeries_by_kind: BTreeMap<&'static str, u64>,
    /// The subject's outcome (verdict or exit code) is not the native core's.
    core_disagreements: u64,
    /// Of those, one accepts and the other refuses.
    core_verdict_disagreements: u64,
    /// Accepted by the subject and refused by the core, by transition.
    wrongly_accepted_by_kind: BTreeMap<&'static str, u64>,
    /// The native core and the model disagree (where the model applies).
    model_disagreements: u64,
    /// Cases the model was consulted on.
    model_cases: u64,
    undocumented: u64,
    codes: BTreeSet<i8>,
    first: Vec<String>,
}

impl Report {
    fn clean(&self) -> bool {
        self.honest_refused
            + self.forgeries
            + self.core_disagreements
            + self.model_disagreements
            + self.undocumented
            == 0
    }

    fn note(&mut self, what: String) {
        if self.first.len() < 8 {
            self.first.push(what);
        }
    }
}

struct Search<'a> {
    subject: &'a mut dyn TypeScript,
    history: &'a History,
    report: Report,
}

impl Search<'_> {
    fn case(&mut self, what: &dyn Fn() -> String, t: &Transition, honest: bool) {
        let got = self.subject.run(t);
        let named = || format!("{}: {}", self.subject.name(), what());
        let r = &mut self.report;
        r.cases += 1;
        let code = got.code().unwrap_or(0);
        let core = t.native(Variant::Core);
        if code != 0 {
            r.codes.insert(code);
            if !acc::documented(code) {
                r.undocumented += 1;
                r.note(format!("{}: undocumented {code}", what()));
            }
        }
        if code != core {
            r.core_disagreements += 1;
            if (code == 0) != (core == 0) {
                r.core_verdict_disagreements += 1;
            }
            if code == 0 {
                *r.wrongly_accepted_by_kind.entry(t.kind()).or_default() += 1;
            }
            r.note(format!("{}: {code}, core {core}", named()));
        }
        if let Some(model) = t.model() {
            r.model_cases += 1;
            if model != core {
                r.model_disagreements += 1;
                r.note(format!("{}: core {core}, model {model}", what()));
            }
        }
        if honest {
            r.honest += 1;
            if code != 0 {
                r.honest_refused += 1;
                r.note(format!("{}: honest, refused {code}", named()));
            }
            return;
        }
        if code != 0 {
            return;
        }
        r.accepted += 1;
        match self.history.judge(t) {
            Truth::Honest | Truth::OtherTrue => r.accepted_true += 1,
            Truth::CounterfeitInput => r.accepted_counterfeit_input += 1,
            Truth::Forgery => {
                r.forgeries += 1;
                *r.forgeries_by_kind.entry(t.kind()).or_default() += 1;
                r.note(format!("{}: forgery accepted", named()));
            }
        }
    }

    /// `t` with the output the honest transition has, and with the one its own bytes claim
    /// when that differs.
    fn outputs(&mut self, what: &dyn Fn() -> String, t: &Transition) {
        self.case(what, t, false);
        let Some(c) = claimed(&t.payload, t.input.as_ref(), split(&t.output).1) else {
            return;
        };
        if c == t.output {
            return;
        }
        let t = Transition {
            output: c,
            ..t.clone()
        };
        self.case(&|| format!("{}, its claimed output", what()), &t, false);
    }
}

/// Every edit of the payload's 32-byte items at byte offsets `slots`: each replaced by each
/// pool value it is not, dropped, duplicated, swapped with each other item; each pool value
/// inserted before each item and after the last; then the framing: one byte cut off, one byte
/// or one zero item appended, the body empty.
fn edits(payload: &[u8], slots: &[usize], pool: &[H]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let item = |at: usize| &payload[at..at + 32];
    for (i, &a) in slots.iter().enumerate() {
        for (j, &b) in slots.iter().enumerate().skip(i + 1) {
            if item(a) != item(b) {
                let mut p = payload.to_vec();
                p[a..a + 32].copy_from_slice(item(b));
                p[b..b + 32].copy_from_slice(item(a));
                out.push((format!("items {i} and {j} swapped"), p));
            }
        }
    }
    let ends = slots.iter().copied().chain(slots.last().map(|&at| at + 32));
    for (i, at) in ends.enumerate() {
        for (j, v) in pool.iter().enumerate() {
            let mut p = payload.to_vec();
            p.splice(at..at, v.iter().copied());
            out.push((format!("pool {j} inserted before item {i}"), p));
        }
    }
    for (i, &at) in slots.iter().enumerate() {
        for (j, v) in pool.iter().enumerate() {
            if payload[at..at + 32] != *v {
                let mut p = payload.to_vec();
                p[at..at + 32].copy_from_slice(v);
                out.push((format!("item {i} := pool {j}"), p));
            }
        }
        let mut p = payload.to_vec();
        p.drain(at..at + 32);
        out.push((format!("item {i} dropped"), p));
        let mut p = payload.to_vec();
        p.splice(at..at, payload[at..at + 32].to_vec());
        out.push((format!("item {i} duplicated"), p));
    }
    out.push((
        "one byte cut off".into(),
        payload[..payload.len() - 1].to_vec(),
    ));
    out.push(("one byte appended".into(), [payload, &[0x5a]].concat()));
    out.push(("a zero item appended".into(), [payload, &[0; 32]].concat()));
    out.push(("body empty".into(), payload[..1].to_vec()));
    out
}

/// The pool of a pair: the assurance search's (every node of the larger MMR, both roots, every
/// bagging of a suffix of either MMR's peaks) and zero.
fn pool(history: &History, n: u64, m: u64) -> Vec<H> {
    let mut pool = acc::pool(&history.mmr, n, m);
    if !pool.contains(&[0; 32]) {
        pool.push([0; 32]);
    }
    pool
}

/// The sizes other than `size(n)` a commitment may claim: every other size of 1-7 leaves, the
/// first size above `size(n)` that is no MMR's, and zero.
fn other_sizes(n: u64) -> Vec<u64> {
    let mut out: Vec<u64> = (1..=MAX_LEAVES)
        .filter(|&c| c != n)
        .map(acc::model_size)
        .collect();
    let mut s = acc::model_size(n) + 1;
    while acc::model_leaf_count(s).is_some() {
        s += 1;
    }
    out.push(s);
    out.push(0);
    out
}

/// The honest update `n -> m` with `payload`, then every edit of it and every other input and
/// output.
fn update_cases(s: &mut Search, what: &str, payload: Vec<u8>, slots: &[usize], n: u64, m: u64) {
    let h = s.history;
    let (input, output) = (h.commits[n as usize], h.commits[m as usize]);
    let (old_root, _) = split(&input);
    let (new_root, new_size) = split(&output);
    let pool = pool(h, n, m);
    let honest = Transition::update(payload.clone(), input, output);
    s.case(&|| format!("{what} {n}->{m}, honest"), &honest, true);
    for (edit, p) in edits(&payload, slots, &pool) {
        s.outputs(
            &|| format!("{what} {n}->{m}, {edit}"),
            &honest.with_payload(p),
        );
    }
    for (j, v) in pool.iter().enumerate().filter(|(_, v)| **v != old_root) {
        let t = Transition::update(payload.clone(), data(v, acc::model_size(n)), output);
        s.case(
            &|| format!("{what} {n}->{m}, old root := pool {j}"),
            &t,
            false,
        );
    }
    for size in other_sizes(n) {
        let t = Transition::update(payload.clone(), data(&old_root, size), output);
        s.outputs(&|| format!("{what} {n}->{m}, old size := {size}"), &t);
    }
    let mut outputs: Vec<(String, Data)> = other_sizes(m)
        .into_iter()
        .map(|size| (format!("new size := {size}"), data(&new_root, size)))
        .collect();
    outputs.push(("new root := old root".into(), data(&old_root, new_size)));
    outputs.push(("new root := zero".into(), data(&[0; 32], new_size)));
    outputs.push(("output := input".into(), input));
    for (edit, output) in outputs {
        let t = Transition::update(payload.clone(), input, output);
        s.case(&|| format!("{what} {n}->{m}, {edit}"), &t, false);
    }
}

/// The whole search over every pair of 1..=max leaves.
fn search(s: &mut Search, max: u64) {
    let h = s.history;
    for k in 1..=max {
        let body = acc::honest_append(&h.mmr, 0, k);
        let payload = [&[tag::CREATE][..], &body].concat();
        let output = h.commits[k as usize];
        let honest = Transition::create(payload.clone(), output);
        s.case(&|| format!("create {k}, honest"), &honest, true);
        let slots: Vec<usize> = (0..k as usize).map(|i| 5 + 32 * i).collect();
        let mut all = edits(&payload, &slots, &pool(h, k, k));
        for count in [k - 1, k + 1] {
            let mut p = payload.clone();
            p[1..5].copy_from_slice(&(count as u32).to_le_bytes());
            all.push((format!("count := {count}"), p));
        }
        for (edit, p) in all {
            s.outputs(&|| format!("create {k}, {edit}"), &honest.with_payload(p));
        }
        let (root, _) = split(&output);
        for size in other_sizes(k) {
            let t = Transition::create(payload.clone(), data(&root, size));
            s.case(&|| format!("create {k}, size := {size}"), &t, false);
        }
    }
    for n in 1..=max {
        let keep = Transition::update(
            vec![tag::KEEP],
            h.commits[n as usize],
            h.commits[n as usize],
        );
        s.case(&|| format!("keep {n}, honest"), &keep, true);
        for m in n + 1..=max {
            let t = Transition::update(
                vec![tag::KEEP],
                h.commits[n as usize],
                h.commits[m as usize],
            );
            s.case(&|| format!("keep {n} as {m}"), &t, false);

            let body = acc::honest_append(&h.mmr, n, m);
            let p = n.count_ones() as usize;
            let mut payload = vec![tag::APPEND];
            payload.extend_from_slice(&body);
            let slots: Vec<usize> = (0..p)
                .map(|i| 1 + 32 * i)
                .chain((0..(m - n) as usize).map(|j| 1 + 32 * p + 4 + 32 * j))
                .collect();
            let mut counted = payload.clone();
            let k = (m - n) as u32;
            for count in [k - 1, k + 1] {
                counted[1 + 32 * p..5 + 32 * p].copy_from_slice(&count.to_le_bytes());
                let t = Transition::update(
                    counted.clone(),
                    h.commits[n as usize],
                    h.commits[m as usize],
                );
                s.outputs(&|| format!("append {n}->{m}, count := {count}"), &t);
            }
            update_cases(s, "append", payload, &slots, n, m);

            let proof = acc::honest_proof(&h.mmr, n, m);
            let mut payload = vec![tag::EXTEND];
            payload.extend_from_slice(&proof);
            let slots: Vec<usize> = (0..proof.len() / 32).map(|i| 1 + 32 * i).collect();
            update_cases(s, "extend", payload, &slots, n, m);
        }
    }
}

fn run_search(subject: &mut dyn TypeScript, max: u64, what: &str) -> Report {
    let history = History::new();
    let mut s = Search {
        subject,
        history: &history,
        report: Report::default(),
    };
    let start = std::time::Instant::now();
    search(&mut s, max);
    let secs = start.elapsed().as_secs_f64();
    let r = s.report;
    println!(
        "{what}: {} runs in {secs:.2} s, {:.0} runs/s; honest {} (refused {}), accepted \
         mutations {} (still true {}, from counterfeit inputs {}), forgeries {} {:?}, core \
         disagreements {} ({} verdicts; accepted, the core refuses: {:?}), model \
         disagreements {} of {}, undocumented {}; codes {:?}",
        r.cases,
        r.cases as f64 / secs,
        r.honest,
        r.honest_refused,
        r.accepted,
        r.accepted_true,
        r.accepted_counterfeit_input,
        r.forgeries,
        r.forgeries_by_kind,
        r.core_disagreements,
        r.core_verdict_disagreements,
        r.wrongly_accepted_by_kind,
        r.model_disagreements,
        r.model_cases,
        r.undocumented,
        r.codes
    );
    r
}

#[test]
fn every_transition_edit_of_every_pair_up_to_7_leaves_in_ckb_vm() {
    let mut vm = Vm(AccumulatorChain::new());
    let r = run_search(&mut vm, MAX_LEAVES, "accumulator, 1-7 leaves");
    assert!(r.clean(), "{r:#?}");
    // Creates of 1-7, keeps of 1-7, an append and an extend per pair; the search's size, so
    // that it cannot shrink unnoticed (every case has a model verdict but the 28 keeps).
    assert_eq!(r.honest, 7 + 7 + 2 * 21, "{r:#?}");
    assert_eq!((r.cases, r.model_cases), (SEARCH_CASES, SEARCH_CASES - 28));
    // Mutations that are still true transitions are accepted (other leaves appended or
    // created, another new part of an ancestry proof), so the outputs the search claims are
    // reached, not only refused.
    assert!(r.accepted_true > 1000, "{r:#?}");
    // The codes the transitions decide, each reached in the VM (114-127 are framing and
    // cell-level codes this search does not vary, 116 included: data is always 40 bytes).
    for e in [
        Error::OldSizeInvalid,
        Error::NewSizeInvalid,
        Error::OldRootMismatch,
        Error::AppendTruncated,
        Error::NoLeaves,
        Error::LeavesLeftOver,
        Error::AppendTrailingBytes,
        Error::OldSizeAboveNew,
        Error::SizesEqual,
        Error::ProofTruncated,
        Error::ItemsLeftOver,
        Error::ProofTrailingBytes,
        Error::NewRootMismatch,
        Error::OutputMismatch,
    ] {
        assert!(r.codes.contains(&e.code()), "{e:?} never reached: {r:#?}");
    }
}

// ---------------------------------------------------------------------------------------
// Negative controls.

/// The core without its old-root check (assurance's `Variant::NoOldRootCheck`), natively: an
/// append from made-up peaks and an ancestry proof with made-up old peaks, each with the output
/// its bytes claim, are accepted and must be reported as forgeries.
#[test]
fn negative_control_a_missing_old_root_check_is_caught() {
    let mut broken = Native(Variant::NoOldRootCheck);
    let r = run_search(
        &mut broken,
        MAX_LEAVES,
        "control: no old-root check, 1-7 leaves",
    );
    for kind in ["append", "extend"] {
        assert!(r.forgeries_by_kind.get(kind) > Some(&0), "{kind}: {r:#?}");
    }
    // The core refuses every one of them.
    assert!(r.core_verdict_disagreements >= r.forgeries, "{r:#?}");
    assert_eq!(r.honest_refused + r.model_disagreements, 0, "{r:#?}");
}

/// The release binary with every leftover stripped before it runs: the items, leaves and bytes
/// appended after honest witnesses are accepted, which the core refuses.
#[test]
fn negative_control_a_binary_that_ignores_leftovers_is_caught() {
    let mut broken = IgnoresLeftovers(Vm(AccumulatorChain::new()));
    let r = run_search(&mut broken, 4, "control: leftovers ignored, 1-4 leaves");
    // Leaves after a creation's or an append's, items after an ancestry proof's.
    for kind in ["create", "append", "extend"] {
        assert!(
            r.wrongly_accepted_by_kind.get(kind) > Some(&0),
            "{kind}: {r:#?}"
        );
    }
    // What is left over changes nothing the transition proves: no forgery, only refusals
    // missing.
    assert_eq!(
        r.honest_refused + r.forgeries + r.model_disagreements,
        0,
        "{r:#?}"
    );
}
