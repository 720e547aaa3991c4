//! The in-VM search harness of vm_exhaustive.rs: release binaries in one ckb-testtool
//! context each, the spends they run (plain or by reference, with cell deps), and the report
//! that holds every run against its expectation, its native core and the model.

use assurance::compact_model as model;
use assurance::native::{CellDep as NativeDep, CODE_DEP_ONLY};
use ckb_mmr_sdk::{by_reference_args, witness_args_with_lock, Mode, Workload};
use ckb_testtool::ckb_types::{bytes::Bytes, packed::OutPoint};
use ckb_testtool::context::Context;
use tests::{exit_code, Outcome, Verifier, MAX_CYCLES};

pub use tests::{accumulator_type, type_script, Dep};

/// The dep as the native lock flow sees it: its type script's hash and its data.
pub fn native_dep(dep: &Dep) -> NativeDep<'_> {
    NativeDep {
        type_hash: dep.type_.as_ref().map(tests::hash_of),
        data: &dep.data,
    }
}

/// What a spend puts around the payload: the lock args and the cell deps, and the (root,
/// leaf count) the verifier is handed when the lock-level checks pass.
#[derive(Clone)]
pub struct Spend {
    pub args: Vec<u8>,
    pub deps: Vec<Dep>,
    pub commitment: Option<([u8; 32], u64)>,
}

impl Spend {
    pub fn plain(w: &Workload) -> Spend {
        Spend {
            args: w.lock_args(),
            deps: Vec::new(),
            commitment: Some((w.root, w.leaf_count)),
        }
    }

    /// By reference; `commitment` when the deps hold exactly one valid accumulator.
    pub fn by_reference(deps: Vec<Dep>, commitment: Option<([u8; 32], u64)>) -> Spend {
        Spend {
            args: by_reference_args(&tests::hash_of(&accumulator_type()), Mode::Plain),
            deps,
            commitment,
        }
    }

    /// The cell deps of the transaction `Vm::run` builds, in its order: the spend's, then
    /// the verifier's code cell (`complete_tx` appends it; it never carries the
    /// accumulator's type script, which `CODE_DEP_ONLY` stands for).
    pub fn native_deps(&self) -> Vec<NativeDep<'_>> {
        self.deps
            .iter()
            .map(native_dep)
            .chain(CODE_DEP_ONLY.iter().copied())
            .collect()
    }
}

/// A verifier's native core in its contract's lock flow: the exit code (0 = accepted) for
/// these args, witness 0 and cell deps.
pub type Native = fn(Verifier, &[u8], &[u8], &[NativeDep]) -> i8;

/// A verifier under search: it reads `format`'s payload and runs one spend.
pub trait Lock {
    fn name(&self) -> String;
    fn format(&self) -> Verifier;
    fn run(&mut self, spend: &Spend, payload: &[u8]) -> Outcome;
}

/// A release binary in CKB-VM.
pub struct Vm {
    pub verifier: Verifier,
    pub context: Context,
    pub code: OutPoint,
}

impl Vm {
    pub fn new(verifier: Verifier) -> Vm {
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
            tx = tx.cell_dep(dep.add(&mut self.context));
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
pub enum Expect {
    Accept,
    Reject { baseline: i8, compiled: i8 },
}

impl Expect {
    pub fn both(code: i8) -> Expect {
        Expect::Reject {
            baseline: code,
            compiled: code,
        }
    }

    pub fn code(self, format: Verifier) -> Option<i8> {
        match (self, format) {
            (Expect::Accept, _) => None,
            (Expect::Reject { baseline, .. }, Verifier::Baseline) => Some(baseline),
            (Expect::Reject { compiled, .. }, _) => Some(compiled),
        }
    }
}

/// What a search saw. A clean search has every counter after `accepted` at zero.
#[derive(Default, Debug)]
pub struct Report {
    pub cases: u64,
    pub runs: u64,
    /// Runs that had to accept and did.
    pub accepted: u64,
    /// Runs that had to accept and did not.
    pub honest_rejected: u64,
    /// Accepted runs of a false claim (a value that is not the leaf's, a leaf that does
    /// not exist).
    pub forgeries: u64,
    /// Accepted runs that had to be refused, forgeries included (a leftover after a true
    /// claim, a spend without its one accumulator).
    pub wrongly_accepted: u64,
    /// Refused with another code than the documented one.
    pub wrong_codes: u64,
    /// The compiled Rust and the C verifier gave different outcomes.
    pub disagreements: u64,
    /// Version 2 runs whose code is not the model's (`compact_model::code`).
    pub model_disagreements: u64,
    /// Runs whose outcome is not their native core's (another exit code, or one accepts and
    /// the other does not).
    pub native_disagreements: u64,
    /// Of those, the runs where only one of the two accepts.
    pub native_verdict_disagreements: u64,
    /// The first failures, for the assertion message.
    pub first: Vec<String>,
}

impl Report {
    pub fn clean(&self) -> bool {
        self.honest_rejected == 0
            && self.wrongly_accepted == 0
            && self.wrong_codes == 0
            && self.disagreements == 0
            && self.model_disagreements == 0
            && self.native_disagreements == 0
    }

    pub fn note(&mut self, what: String) {
        if self.first.len() < 8 {
            self.first.push(what);
        }
    }
}

/// The search: its verifiers, the native cores they are held against, and what they gave so
/// far.
pub struct Search<'a> {
    pub locks: Vec<&'a mut dyn Lock>,
    pub native: Native,
    pub report: Report,
}

impl<'a> Search<'a> {
    pub fn new(locks: Vec<&'a mut dyn Lock>, native: Native) -> Search<'a> {
        Search {
            locks,
            native,
            report: Report::default(),
        }
    }

    /// One case on every verifier: `payload` gives each format's bytes (`None`: the case
    /// does not exist in that format).
    pub fn case(
        &mut self,
        what: &dyn Fn() -> String,
        spend: &Spend,
        payload: &dyn Fn(Verifier) -> Option<Vec<u8>>,
        expect: Expect,
        true_claim: bool,
    ) {
        let r = &mut self.report;
        r.cases += 1;
        let deps = spend.native_deps();
        let mut compiled_outcomes = Vec::new();
        for lock in self.locks.iter_mut() {
            let format = lock.format();
            let Some(bytes) = payload(format) else {
                continue;
            };
            let got = lock.run(spend, &bytes);
            r.runs += 1;
            if format != Verifier::Baseline {
                compiled_outcomes.push(got.code());
                if let Some((root, leaf_count)) = spend.commitment {
                    let m = model::code(&bytes, &root, leaf_count);
                    if got.code().unwrap_or(0) != m {
                        r.model_disagreements += 1;
                        r.note(format!("{}: {}: {got:?}, model {m}", lock.name(), what()));
                    }
                }
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
pub fn release_vms(verifiers: &[Verifier]) -> Vec<Vm> {
    verifiers.iter().copied().map(Vm::new).collect()
}

/// `body` on the `verifiers`' release binaries in CKB-VM, held against `native`.
pub fn release_search(
    verifiers: &[Verifier],
    native: Native,
    body: impl FnOnce(&mut Search),
    what: &str,
) -> Report {
    let mut vms = release_vms(verifiers);
    let locks = vms.iter_mut().map(|v| v as &mut dyn Lock).collect();
    run_search(locks, native, body, what)
}

pub fn run_search(
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
        "{what}: {} cases, {} runs in {secs:.2} s, {:.0} runs/s; \
         accepted {}, forgeries {}, wrongly accepted {}, honest rejected {}, wrong codes {}, \
         disagreements {}, model disagreements {}, native disagreements {} ({} verdicts)",
        r.cases,
        r.runs,
        r.runs as f64 / secs,
        r.accepted,
        r.forgeries,
        r.wrongly_accepted,
        r.honest_rejected,
        r.wrong_codes,
        r.disagreements,
        r.model_disagreements,
        r.native_disagreements,
        r.native_verdict_disagreements
    );
    r
}
