//! Exhaustive searches over small MMRs, run in CKB-VM on the release lock binaries,
//! in-process (one ckb-testtool context per verifier, the binary deployed once), and their
//! negative controls. This is the search the native cores run, on the shipped RISC-V paths
//! they cannot reach (the asm kernel, the C word path, the contracts' entries, the cell dep
//! lookup); the runs per second are printed.
//!
//! - Plain mode, every MMR of 1-7 leaves, every non-empty set of proved leaves: each leaf
//!   claimed with its true value or with its neighbour's (a leaf moved to another place), and
//!   the honest proof with something left after it (a forged leaf record the proof never
//!   consumes, a proof item after the peaks: the Hyperbridge class). A claim is accepted iff
//!   every value is true; every false one exits 9; each leftover exits its documented code.
//! - By reference (33-byte args naming the accumulator's type script, root and size from the
//!   cell dep with that type script hash): the same claims against a dep with the true
//!   (root, size), and for every honest proof each dep configuration the lock must refuse
//!   (none, two, counterfeits, data that is not 40 bytes) with its code.
//! - Every run is also held against its verifier's native core (`assurance::native`, the same
//!   crates built with the contracts' features, the C core over FFI, each in its contract's
//!   lock flow with the spend's args, witness and cell deps): the binary's exit code must be
//!   the core's, acceptance included (0).
//! - Negative controls: the same search on deliberately broken verifiers must report
//!   forgeries, so a verifier with such a bug could not pass it; and a deliberately wrong
//!   native core must be reported as disagreeing with the release binaries.

use assurance::native::{self, CellDep as NativeDep, CODE_DEP_ONLY};
use ckb_mmr_sdk::script::TYPE_ID_CODE_HASH;
use ckb_mmr_sdk::{by_reference_args, witness_args_with_lock, Mode, Workload};
use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{DepType, ScriptHashType},
    packed::{CellDep, CellOutput, OutPoint, Script},
    prelude::*,
};
use ckb_testtool::context::Context;
use mmr_lock::LockError;
use tests::{exit_code, payload, Outcome, Verifier, MAX_CYCLES};

const ALL: [Verifier; 3] = [Verifier::Baseline, Verifier::Compiled, Verifier::C];

const ROOT_MISMATCH: i8 = LockError::RootMismatch.code();
const NOT_FOUND: i8 = LockError::AccumulatorNotFound.code();
const AMBIGUOUS: i8 = LockError::AccumulatorAmbiguous.code();
const DATA_LENGTH: i8 = LockError::AccumulatorDataLength.code();
const B_LEAF_OUT_OF_RANGE: i8 = 23;
const B_PROOF_TOO_LONG: i8 = 27;
const C_TRAILING_BYTES: i8 = 45;
const C_LEAVES_UNCONSUMED: i8 = 64;

/// A cell dep next to the verifier's code cell: its type script and data.
#[derive(Clone)]
struct Dep {
    type_: Option<Script>,
    data: Vec<u8>,
}

fn type_script(code_hash: [u8; 32], args: &[u8]) -> Script {
    Script::new_builder()
        .code_hash(code_hash.pack())
        .hash_type(ScriptHashType::Type)
        .args(Bytes::copy_from_slice(args).pack())
        .build()
}

/// The accumulator's type script: a type id (cell deps' type scripts are not run, so any
/// cell carrying it stands in for the accumulator, as in tests/tests/by_reference.rs).
fn accumulator_type() -> Script {
    type_script(TYPE_ID_CODE_HASH, &[0xac; 32])
}

impl Dep {
    fn accumulator(data: Vec<u8>) -> Dep {
        Dep {
            type_: Some(accumulator_type()),
            data,
        }
    }

    /// The dep as the native lock flow sees it: its type script's hash and its data.
    fn native(&self) -> NativeDep<'_> {
        NativeDep {
            type_hash: self
                .type_
                .as_ref()
                .map(|t| t.calc_script_hash().as_slice().try_into().unwrap()),
            data: &self.data,
        }
    }
}

/// What a spend puts around the payload: the lock args and the cell deps.
#[derive(Clone)]
struct Spend {
    args: Vec<u8>,
    deps: Vec<Dep>,
}

impl Spend {
    fn plain(w: &Workload) -> Spend {
        Spend {
            args: w.lock_args(),
            deps: Vec::new(),
        }
    }

    fn by_reference(deps: Vec<Dep>) -> Spend {
        let hash: [u8; 32] = accumulator_type()
            .calc_script_hash()
            .as_slice()
            .try_into()
            .unwrap();
        Spend {
            args: by_reference_args(&hash, Mode::Plain),
            deps,
        }
    }

    /// The cell deps of the transaction `Vm::run` builds, in its order: the spend's, then
    /// the verifier's code cell (`complete_tx` appends it; it never carries the
    /// accumulator's type script, which `CODE_DEP_ONLY` stands for).
    fn native_deps(&self) -> Vec<NativeDep<'_>> {
        self.deps
            .iter()
            .map(Dep::native)
            .chain(CODE_DEP_ONLY.iter().copied())
            .collect()
    }
}

/// A verifier's native core in its contract's lock flow: the exit code (0 = accepted) for
/// these args, witness 0 and cell deps.
type Native = fn(Verifier, &[u8], &[u8], &[NativeDep]) -> i8;

/// The assurance crate's cores (`tests/assurance/src/native.rs`).
fn native_core(format: Verifier, args: &[u8], witness: &[u8], deps: &[NativeDep]) -> i8 {
    match format {
        Verifier::Baseline => native::baseline_lock_with_deps(args, Some(witness), deps),
        Verifier::Compiled => native::compiled_lock_with_deps(args, Some(witness), deps),
        Verifier::C => native::c_lock_with_deps(args, Some(witness), deps),
    }
}

/// A verifier under search: it reads `format`'s payload and runs one spend.
trait Lock {
    fn name(&self) -> String;
    fn format(&self) -> Verifier;
    fn run(&mut self, spend: &Spend, payload: &[u8]) -> Outcome;
}

/// A release binary in CKB-VM.
struct Vm {
    verifier: Verifier,
    context: Context,
    code: OutPoint,
}

impl Vm {
    fn new(verifier: Verifier) -> Vm {
        let mut context = Context::default();
        let code = context.deploy_cell(verifier.binary());
        Vm {
            verifier,
            context,
            code,
        }
    }
}

impl Lock for Vm {
    fn name(&self) -> String {
        format!("{:?} in CKB-VM", self.verifier)
    }

    fn format(&self) -> Verifier {
        self.verifier
    }

    fn run(&mut self, spend: &Spend, payload: &[u8]) -> Outcome {
        let witness = Bytes::from(witness_args_with_lock(payload));
        let mut tx = tests::spend(
            &mut self.context,
            &self.code,
            spend.args.clone().into(),
            Some(witness),
        );
        for dep in &spend.deps {
            let out_point = self.context.create_cell(
                CellOutput::new_builder()
                    .capacity(100_000_000_000u64)
                    .lock(type_script([0x01; 32], &[]))
                    .type_(dep.type_.clone().pack())
                    .build(),
                Bytes::from(dep.data.clone()),
            );
            tx = tx.cell_dep(
                CellDep::new_builder()
                    .out_point(out_point)
                    .dep_type(DepType::Code)
                    .build(),
            );
        }
        let tx = self.context.complete_tx(tx.build());
        match self.context.verify_tx(&tx, MAX_CYCLES) {
            Ok(cycles) => Outcome::Accepted(cycles),
            Err(e) => Outcome::Rejected(exit_code(&e.to_string())),
        }
    }
}

/// What a case must give: acceptance, or a code per payload format.
#[derive(Clone, Copy)]
enum Expect {
    Accept,
    Reject { baseline: i8, compiled: i8 },
}

impl Expect {
    fn both(code: i8) -> Expect {
        Expect::Reject {
            baseline: code,
            compiled: code,
        }
    }

    fn code(self, format: Verifier) -> Option<i8> {
        match (self, format) {
            (Expect::Accept, _) => None,
            (Expect::Reject { baseline, .. }, Verifier::Baseline) => Some(baseline),
            (Expect::Reject { compiled, .. }, _) => Some(compiled),
        }
    }
}

/// What a search saw. A clean search has every counter after `accepted` at zero.
#[derive(Default, Debug)]
struct Report {
    cases: u64,
    runs: u64,
    /// Runs that had to accept and did.
    accepted: u64,
    /// Runs that had to accept and did not.
    honest_rejected: u64,
    /// Accepted runs of a false claim (a value that is not the leaf's, a leaf that does
    /// not exist).
    forgeries: u64,
    /// Accepted runs that had to be refused, forgeries included (a leftover after a true
    /// claim, a spend without its one accumulator).
    wrongly_accepted: u64,
    /// Refused with another code than the documented one.
    wrong_codes: u64,
    /// The compiled Rust and the C verifier gave different outcomes.
    disagreements: u64,
    /// Runs whose outcome is not their native core's (another exit code, or one accepts and
    /// the other does not).
    native_disagreements: u64,
    /// Of those, the runs where only one of the two accepts.
    native_verdict_disagreements: u64,
    /// The first failures, for the assertion message.
    first: Vec<String>,
}

impl Report {
    fn clean(&self) -> bool {
        self.honest_rejected == 0
            && self.wrongly_accepted == 0
            && self.wrong_codes == 0
            && self.disagreements == 0
            && self.native_disagreements == 0
    }

    fn note(&mut self, what: String) {
        if self.first.len() < 8 {
            self.first.push(what);
        }
    }
}

/// The search: its verifiers, the native cores they are held against, and what they gave so
/// far.
struct Search<'a> {
    locks: Vec<&'a mut dyn Lock>,
    native: Native,
    report: Report,
}

impl<'a> Search<'a> {
    fn new(locks: Vec<&'a mut dyn Lock>, native: Native) -> Search<'a> {
        Search {
            locks,
            native,
            report: Report::default(),
        }
    }

    /// One case on every verifier: `payload` gives each format's bytes.
    fn case(
        &mut self,
        what: &dyn Fn() -> String,
        spend: &Spend,
        payload: &dyn Fn(Verifier) -> Vec<u8>,
        expect: Expect,
        true_claim: bool,
    ) {
        let r = &mut self.report;
        r.cases += 1;
        let deps = spend.native_deps();
        let mut compiled_outcomes = Vec::new();
        for lock in self.locks.iter_mut() {
            let format = lock.format();
            let bytes = payload(format);
            let got = lock.run(spend, &bytes);
            r.runs += 1;
            if format != Verifier::Baseline {
                compiled_outcomes.push(got.code());
            }
            let witness = witness_args_with_lock(&bytes);
            let core = (self.native)(format, &spend.args, &witness, &deps);
            // An exit code is never 0: 0 is acceptance on both sides.
            let vm = got.code().unwrap_or(0);
            if vm != core {
                r.native_disagreements += 1;
                if (vm == 0) != (core == 0) {
                    r.native_verdict_disagreements += 1;
                }
                r.note(format!(
                    "{}: {}: {got:?}, native core {core}",
                    lock.name(),
                    what()
                ));
            }
            match (expect.code(format), got) {
                (None, Outcome::Accepted(_)) => r.accepted += 1,
                (None, Outcome::Rejected(c)) => {
                    r.honest_rejected += 1;
                    r.note(format!("{}: {}: honest, rejected {c}", lock.name(), what()));
                }
                (Some(_), Outcome::Accepted(_)) => {
                    r.wrongly_accepted += 1;
                    if !true_claim {
                        r.forgeries += 1;
                    }
                    r.note(format!("{}: {}: accepted", lock.name(), what()));
                }
                (Some(want), Outcome::Rejected(c)) if c != want => {
                    r.wrong_codes += 1;
                    r.note(format!("{}: {}: {c}, not {want}", lock.name(), what()));
                }
                (Some(_), Outcome::Rejected(_)) => {}
            }
        }
        if compiled_outcomes.windows(2).any(|p| p[0] != p[1]) {
            r.disagreements += 1;
            r.note(format!("{}: compiled Rust and C differ", what()));
        }
    }
}

fn leaves(n: usize) -> Vec<[u8; 32]> {
    (0..n)
        .map(|i| {
            let mut l = [0x3c; 32];
            l[0] = i as u8;
            l[1] = n as u8;
            l
        })
        .collect()
}

const FORGED: [u8; 32] = [0xf0; 32];

/// The honest compiled payload of `w` with one more leaf record (a phantom leaf past the MMR,
/// `FORGED`) that no command pushes.
fn compiled_with_leaf_left_over(w: &Workload) -> Vec<u8> {
    let honest = w.compiled_payload().unwrap();
    let n = u32::from_le_bytes(honest[..4].try_into().unwrap());
    let at = 4 + 40 * n as usize;
    let mut p = (n + 1).to_le_bytes().to_vec();
    p.extend_from_slice(&honest[4..at]);
    p.extend_from_slice(&w.leaf_count.to_le_bytes());
    p.extend_from_slice(&FORGED);
    p.extend_from_slice(&honest[at..]);
    p
}

/// Every claim about the leaf set `indexes` of the MMR over `all`, spent as `spend`: each proved
/// leaf with its true value or its neighbour's (a one-leaf MMR's "neighbour" is a value of no
/// leaf), then, when `leftovers`, the honest proof with something left after it.
fn claims(search: &mut Search, all: &[[u8; 32]], indexes: &[u64], spend: &Spend, leftovers: bool) {
    let n = all.len();
    let honest = Workload::from_leaves(all, indexes).unwrap();
    let k = indexes.len();
    for lie in 0u32..(1 << k) {
        let mut w = honest.clone();
        for (j, (_, value)) in w.proved.iter_mut().enumerate() {
            if lie & (1 << j) != 0 {
                let i = indexes[j] as usize;
                *value = if n == 1 { [0xee; 32] } else { all[(i + 1) % n] };
            }
        }
        let expect = if lie == 0 {
            Expect::Accept
        } else {
            Expect::both(ROOT_MISMATCH)
        };
        search.case(
            &|| format!("{n} leaves, proving {indexes:?}, lies {lie:b}"),
            spend,
            &|v| payload(v, &w),
            expect,
            lie == 0,
        );
    }
    if !leftovers {
        return;
    }
    // A forged leaf the proof never consumes: past the MMR in the baseline format (its
    // positions are checked first), a record no command pushes in the compiled one.
    let mut forged = honest.proved.clone();
    forged.push((honest.mmr_size, FORGED));
    search.case(
        &|| format!("{n} leaves, proving {indexes:?}, a forged leaf left over"),
        spend,
        &|v| match v {
            Verifier::Baseline => baseline_proof::encode(&forged, &honest.proof_items),
            _ => compiled_with_leaf_left_over(&honest),
        },
        Expect::Reject {
            baseline: B_LEAF_OUT_OF_RANGE,
            compiled: C_LEAVES_UNCONSUMED,
        },
        false,
    );
    // A proof item after the peaks (a true claim, an encoding nobody may accept).
    let mut items = honest.proof_items.clone();
    items.push(FORGED);
    search.case(
        &|| format!("{n} leaves, proving {indexes:?}, an item after the peaks"),
        spend,
        &|v| match v {
            Verifier::Baseline => baseline_proof::encode(&honest.proved, &items),
            _ => {
                let mut p = honest.compiled_payload().unwrap();
                p.push(compiled_proof::op::PROOF);
                p.extend_from_slice(&FORGED);
                p
            }
        },
        Expect::Reject {
            baseline: B_PROOF_TOO_LONG,
            compiled: C_TRAILING_BYTES,
        },
        true,
    );
}

/// Plain mode: every claim and leftover of every leaf set of every MMR of 1..=max leaves.
fn plain_search(search: &mut Search, max: usize) {
    for n in 1..=max {
        let all = leaves(n);
        for mask in 1u32..(1 << n) {
            let indexes: Vec<u64> = (0..n as u64).filter(|i| mask & (1 << i) != 0).collect();
            let spend = Spend::plain(&Workload::from_leaves(&all, &indexes).unwrap());
            claims(search, &all, &indexes, &spend, true);
        }
    }
}

/// By reference: every claim of every leaf set of every MMR of 1..=max leaves against the
/// accumulator holding the true (root, size), then the honest proof with each dep
/// configuration the lock must refuse.
fn by_reference_search(search: &mut Search, max: usize) {
    for n in 1..=max {
        let all = leaves(n);
        for mask in 1u32..(1 << n) {
            let indexes: Vec<u64> = (0..n as u64).filter(|i| mask & (1 << i) != 0).collect();
            let honest = Workload::from_leaves(&all, &indexes).unwrap();
            let data = honest.accumulator_data();
            let acc = Dep::accumulator(data.clone());
            claims(
                search,
                &all,
                &indexes,
                &Spend::by_reference(vec![acc.clone()]),
                false,
            );
            let mut other_args = [0xac; 32];
            other_args[31] ^= 1;
            let configurations = [
                ("no dep", vec![], NOT_FOUND),
                (
                    "two matching deps",
                    vec![acc.clone(), acc.clone()],
                    AMBIGUOUS,
                ),
                (
                    "the data under the same code with other args",
                    vec![Dep {
                        type_: Some(type_script(TYPE_ID_CODE_HASH, &other_args)),
                        data: data.clone(),
                    }],
                    NOT_FOUND,
                ),
                (
                    "the data under another code with the same args",
                    vec![Dep {
                        type_: Some(type_script([0x42; 32], &[0xac; 32])),
                        data: data.clone(),
                    }],
                    NOT_FOUND,
                ),
                (
                    "39 bytes of data",
                    vec![Dep::accumulator(data[..39].to_vec())],
                    DATA_LENGTH,
                ),
                (
                    "41 bytes of data",
                    vec![Dep::accumulator([&data[..], &[0]].concat())],
                    DATA_LENGTH,
                ),
                ("no data", vec![Dep::accumulator(Vec::new())], DATA_LENGTH),
            ];
            for (what, deps, code) in configurations {
                search.case(
                    &|| format!("{n} leaves, proving {indexes:?}, by reference: {what}"),
                    &Spend::by_reference(deps),
                    &|v| payload(v, &honest),
                    Expect::both(code),
                    true,
                );
            }
        }
    }
}

fn release_vms() -> Vec<Vm> {
    ALL.into_iter().map(Vm::new).collect()
}

/// `body` on the three release binaries in CKB-VM, held against `native`.
fn release_search(native: Native, body: impl FnOnce(&mut Search), what: &str) -> Report {
    let mut vms = release_vms();
    let locks = vms.iter_mut().map(|v| v as &mut dyn Lock).collect();
    run_search(locks, native, body, what)
}

fn run_search(
    locks: Vec<&mut dyn Lock>,
    native: Native,
    body: impl FnOnce(&mut Search),
    what: &str,
) -> Report {
    let mut search = Search::new(locks, native);
    let start = std::time::Instant::now();
    body(&mut search);
    let secs = start.elapsed().as_secs_f64();
    let r = search.report;
    println!(
        "{what}: {} cases x {} verifiers = {} runs in {secs:.2} s, {:.0} runs/s; \
         accepted {}, forgeries {}, wrongly accepted {}, honest rejected {}, wrong codes {}, \
         disagreements {}, native disagreements {} ({} verdicts)",
        r.cases,
        r.runs / r.cases.max(1),
        r.runs,
        r.runs as f64 / secs,
        r.accepted,
        r.forgeries,
        r.wrongly_accepted,
        r.honest_rejected,
        r.wrong_codes,
        r.disagreements,
        r.native_disagreements,
        r.native_verdict_disagreements
    );
    r
}

/// Leaf sets of MMRs of 1..=max leaves, and claims (true or neighbour's value per leaf).
fn sets_and_claims(max: u32) -> (u64, u64) {
    (
        (1..=max).map(|n| (1u64 << n) - 1).sum(),
        (1..=max).map(|n| 3u64.pow(n) - 1).sum(),
    )
}

#[test]
fn every_claim_of_every_mmr_up_to_7_leaves_in_ckb_vm() {
    let r = release_search(native_core, |s| plain_search(s, 7), "plain, 1-7 leaves");
    assert!(r.clean(), "{r:#?}");
    let (sets, claims) = sets_and_claims(7);
    assert_eq!((sets, claims), (247, 3272));
    assert_eq!(r.cases, claims + 2 * sets);
    assert_eq!(r.runs, 3 * r.cases);
    assert_eq!(r.accepted, 3 * sets, "exactly the true claims");
}

#[test]
fn every_claim_by_reference_up_to_7_leaves_in_ckb_vm() {
    let r = release_search(
        native_core,
        |s| by_reference_search(s, 7),
        "by reference, 1-7 leaves",
    );
    assert!(r.clean(), "{r:#?}");
    let (sets, claims) = sets_and_claims(7);
    assert_eq!(r.cases, claims + 7 * sets);
    assert_eq!(r.runs, 3 * r.cases);
    assert_eq!(r.accepted, 3 * sets, "exactly the true claims");
}

// ---------------------------------------------------------------------------------------
// Negative controls: broken verifiers the search must catch.

/// The Hyperbridge bug (polytope-labs/solidity-merkle-trees PR 57) on the release binaries:
/// once the proof has reached the root, whatever is left is ignored. Modelled by stripping
/// the leftover the real binary reports (items past the shape, unconsumed leaf records,
/// bytes after the last peak) and running the rest in CKB-VM.
struct StopsAtTheRoot(Vm);

impl Lock for StopsAtTheRoot {
    fn name(&self) -> String {
        format!("{:?} ignoring leftovers", self.0.verifier)
    }

    fn format(&self) -> Verifier {
        self.0.verifier
    }

    fn run(&mut self, spend: &Spend, payload: &[u8]) -> Outcome {
        let mut p = payload.to_vec();
        loop {
            let got = self.0.run(spend, &p);
            match (self.0.verifier, got) {
                (Verifier::Baseline, Outcome::Rejected(B_PROOF_TOO_LONG)) => {
                    // The last item off, its count one less.
                    p.truncate(p.len() - 32);
                    let n = u32::from_le_bytes(p[..4].try_into().unwrap()) as usize;
                    let at = 4 + 40 * n;
                    let m = u32::from_le_bytes(p[at..at + 4].try_into().unwrap());
                    p[at..at + 4].copy_from_slice(&(m - 1).to_le_bytes());
                }
                (Verifier::Compiled | Verifier::C, Outcome::Rejected(C_LEAVES_UNCONSUMED)) => {
                    // The last leaf record off.
                    let n = u32::from_le_bytes(p[..4].try_into().unwrap());
                    let at = 4 + 40 * (n as usize - 1);
                    p.drain(at..at + 40);
                    p[..4].copy_from_slice(&(n - 1).to_le_bytes());
                }
                (Verifier::Compiled | Verifier::C, Outcome::Rejected(C_TRAILING_BYTES)) => {
                    p.pop();
                }
                _ => return got,
            }
        }
    }
}

/// The host hash for the native core.
struct Host;

impl compiled_proof::Merge for Host {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        mmr_blake2b::merge_into(left, right, out);
    }
}

/// The Parity bug's shape (paritytech/polkadot-sdk PR 11738, a verifier's computed root never
/// compared): the compiled core, natively, with every check of the proof but not the last
/// one; plain-mode args only.
struct TrustsItsOwnRoot;

impl Lock for TrustsItsOwnRoot {
    fn name(&self) -> String {
        "compiled core without the root compare".into()
    }

    fn format(&self) -> Verifier {
        Verifier::Compiled
    }

    fn run(&mut self, spend: &Spend, payload: &[u8]) -> Outcome {
        let args = match mmr_lock::parse_args(&spend.args) {
            Ok(mmr_lock::Args::Direct(a)) => a,
            other => panic!("plain-mode args only: {other:?}"),
        };
        match compiled_proof::compute_root::<Host>(payload, args.leaf_count) {
            Ok(_) => Outcome::Accepted(0),
            Err(e) => Outcome::Rejected(e.code()),
        }
    }
}

#[test]
fn negative_control_a_verifier_that_ignores_leftovers_is_caught() {
    let mut broken: Vec<StopsAtTheRoot> = release_vms().into_iter().map(StopsAtTheRoot).collect();
    let locks = broken.iter_mut().map(|v| v as &mut dyn Lock).collect();
    let r = run_search(
        locks,
        native_core,
        |s| plain_search(s, 4),
        "control: leftovers ignored, 1-4 leaves",
    );
    let (sets, _) = sets_and_claims(4);
    // Every forged leaf record is accepted by both compiled-format binaries (the baseline
    // checks positions before anything else: 23), every item after the peaks by all three.
    assert_eq!(r.forgeries, 2 * sets, "{r:#?}");
    assert_eq!(r.wrongly_accepted, 2 * sets + 3 * sets, "{r:#?}");
    // The native cores refuse each of them: the comparison alone catches the bug too.
    assert_eq!(r.native_disagreements, r.wrongly_accepted, "{r:#?}");
    assert_eq!(r.native_verdict_disagreements, r.wrongly_accepted);
    assert!(!r.clean());
    assert_eq!(r.honest_rejected + r.wrong_codes + r.disagreements, 0);
}

#[test]
fn negative_control_a_verifier_that_trusts_its_own_root_is_caught() {
    let mut broken = TrustsItsOwnRoot;
    let r = run_search(
        vec![&mut broken],
        native_core,
        |s| plain_search(s, 4),
        "control: root never compared, 1-4 leaves",
    );
    let (sets, claims) = sets_and_claims(4);
    // Every false claim is accepted; the leftovers still fail the core's own checks.
    assert_eq!(r.forgeries, claims - sets, "{r:#?}");
    assert_eq!(r.wrongly_accepted, claims - sets);
    assert_eq!(r.accepted, sets);
    // The whole core refuses every one of them (9).
    assert_eq!(r.native_disagreements, claims - sets, "{r:#?}");
    assert!(!r.clean());
}

/// A native core that is wrong in two ways: it accepts a proof whose root does not match
/// (9, the Parity bug's verdict) and reports every other refusal as 9 (a wrong code, the
/// verdict right).
fn wrong_native(format: Verifier, args: &[u8], witness: &[u8], deps: &[NativeDep]) -> i8 {
    match native_core(format, args, witness, deps) {
        0 | ROOT_MISMATCH => 0,
        _ => ROOT_MISMATCH,
    }
}

/// The comparison with the native cores is live: the release binaries, held against a wrong
/// native core, disagree with it on exactly the runs where it is wrong, verdicts and codes
/// counted apart.
#[test]
fn negative_control_a_wrong_native_core_is_caught() {
    let r = release_search(
        wrong_native,
        |s| plain_search(s, 4),
        "control: wrong native core, 1-4 leaves",
    );
    let (sets, claims) = sets_and_claims(4);
    // Every false claim on all three (the binaries say 9, the wrong core accepts), every
    // leftover's code on all three (23, 27, 64, 45: the wrong core says 9).
    assert_eq!(
        r.native_verdict_disagreements,
        3 * (claims - sets),
        "{r:#?}"
    );
    assert_eq!(
        r.native_disagreements,
        3 * (claims - sets) + 3 * 2 * sets,
        "{r:#?}"
    );
    // The binaries themselves are right.
    assert_eq!(
        r.honest_rejected + r.wrongly_accepted + r.wrong_codes + r.disagreements,
        0
    );
}
