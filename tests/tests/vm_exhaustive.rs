//! Exhaustive searches over small MMRs, run in CKB-VM on the release lock binaries,
//! in-process (one ckb-testtool context per verifier, the binary deployed once), and their
//! negative controls. This is the search the native cores run, on the shipped RISC-V paths
//! they cannot reach (the asm kernel, the C word path, the contracts' entries, the cell dep
//! lookup); the runs per second are printed.
//!
//! The compiled binaries read version 2 of the compiled format only (the compact format,
//! docs/compiled-format.md); the baseline reads its own.
//!
//! - Plain mode, every MMR of 1-7 leaves, every non-empty set of proved leaves: each leaf
//!   claimed with its true value or with its neighbour's (a leaf moved to another place), the
//!   honest proof with something left after it (the Hyperbridge class) and every malformed
//!   version 2 payload ([`claims`], [`malformed_v2`]). A claim is accepted iff every value is
//!   true; every false one exits 9; each malformed payload exits its documented code.
//! - By reference (33-byte args naming the accumulator's type script, root and size from the
//!   cell dep with that type script hash): the same claims against a dep with the true
//!   (root, size), and for every honest proof each dep configuration the lock must refuse
//!   (none, two, counterfeits, data that is not 40 bytes) with its code.
//! - Every run is also held against its verifier's native core (`assurance::native`, the same
//!   crates built with the contracts' features, the C core over FFI, each in its contract's
//!   lock flow with the spend's args, witness and cell deps): the binary's exit code must be
//!   the core's, acceptance included (0). Both compiled binaries (Rust and C) are held against
//!   the Rust core of version 2 (`assurance::compact_native`), and every version 2 payload's
//!   code against the model written from the spec (`assurance::compact_model`).
//! - Negative controls: the same search on deliberately broken verifiers must report
//!   forgeries, so a verifier with such a bug could not pass it; and a deliberately wrong
//!   native core must be reported as disagreeing with the release binaries.

mod vm_search;

use assurance::compact_model::{self as model, code as v2};
use assurance::compact_native;
use assurance::mmr::Mmr;
use assurance::native::{self, CellDep as NativeDep};
use ckb_mmr_sdk::script::TYPE_ID_CODE_HASH;
use ckb_mmr_sdk::Workload;
use mmr_lock::LockError;
use tests::{payload, Outcome, Verifier};
use vm_search::{
    release_search, release_vms, run_search, type_script, Dep, Expect, Lock, Search, Spend, Vm,
};

const ALL: [Verifier; 3] = [Verifier::Baseline, Verifier::Compiled, Verifier::C];
/// The negative controls measure the search, on the Rust binaries: their counts do not wait
/// for the C port of version 2.
const RUST_BINARIES: [Verifier; 2] = [Verifier::Baseline, Verifier::Compiled];

const ROOT_MISMATCH: i8 = LockError::RootMismatch.code();
const NOT_FOUND: i8 = LockError::AccumulatorNotFound.code();
const AMBIGUOUS: i8 = LockError::AccumulatorAmbiguous.code();
const DATA_LENGTH: i8 = LockError::AccumulatorDataLength.code();
const B_LEAF_OUT_OF_RANGE: i8 = 23;
const B_PROOF_TOO_LONG: i8 = 27;
/// The malformed version 2 payloads of a leaf set run on the compiled binaries only, the
/// two leftovers on all three.
const V2_ONLY: u64 = 7;
const LEFTOVERS: u64 = 2;

/// The assurance crate's cores: the baseline's (`tests/assurance/src/native.rs`), and for
/// both compiled binaries the version 2 Rust core (`compact_native.rs`; the C core's own
/// version 2 flow plugs into the native search, `compact_native::C_COMPACT_CORE`).
fn native_core(format: Verifier, args: &[u8], witness: &[u8], deps: &[NativeDep]) -> i8 {
    match format {
        Verifier::Baseline => native::baseline_lock_with_deps(args, Some(witness), deps),
        Verifier::Compiled | Verifier::C => {
            compact_native::rust_lock_with_deps(args, Some(witness), deps)
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

/// The version 2 payload of `w`'s proof, after checking that the SDK's compiler gives the
/// bytes the model of the spec gives (`compact_model::honest`).
fn honest_v2(w: &Workload, all: &[[u8; 32]], indexes: &[u64]) -> Vec<u8> {
    let p = w.compiled_payload().unwrap();
    assert_eq!(p, model::honest(&Mmr::build(all), indexes), "SDK vs spec");
    p
}

/// The honest version 2 proof `p` of `indexes` with one more leaf claimed past the MMR of
/// `leaf_count` leaves (`FORGED`, after the true values).
fn forged_past(p: &[u8], indexes: &[u64], leaf_count: u64) -> Vec<u8> {
    let k = indexes.len();
    // The index section: n and the gaps, one byte each here (at most 7 leaves).
    let at = 2 + k;
    let mut forged = vec![model::VERSION, k as u8 + 1];
    forged.extend_from_slice(&p[2..at]);
    forged.push((leaf_count - indexes[k - 1] - 1) as u8);
    forged.extend_from_slice(&p[at..at + 32 * k]);
    forged.extend_from_slice(&FORGED);
    forged.extend_from_slice(&p[at + 32 * k..]);
    forged
}

/// The malformed version 2 payloads of the honest proof `p` of `indexes`, each with its
/// code: every way but the two leftovers of [`claims`].
fn malformed_v2(w: &Workload, p: &[u8], indexes: &[u64]) -> Vec<(&'static str, Vec<u8>, i8)> {
    let k = indexes.len();
    let at = 2 + k;
    let edit = |i: usize, b: &[u8]| [&p[..i], b, &p[i + 1..]].concat();
    // A proof without items (every leaf of a 1-leaf MMR) ends in its last value.
    let cut = if p.len() == at + 32 * k {
        v2::LEAVES_TRUNCATED
    } else {
        v2::ITEM_TRUNCATED
    };
    // A version 1 payload starts with its u32 leaf count: for 2 leaves that is the byte
    // 0x02, and the count varint after it reads 0.
    let v1 = if k == 2 {
        v2::NO_LEAVES
    } else {
        v2::VERSION_UNSUPPORTED
    };
    vec![
        ("a trailing byte", [p, &[0]].concat(), v2::TRAILING_BYTES),
        ("the last byte cut", p[..p.len() - 1].to_vec(), cut),
        (
            "the values cut",
            p[..at + 32 * k - 1].to_vec(),
            v2::LEAVES_TRUNCATED,
        ),
        (
            "version byte 0x01",
            edit(0, &[0x01]),
            v2::VERSION_UNSUPPORTED,
        ),
        ("a count of zero", edit(1, &[0x00]), v2::NO_LEAVES),
        (
            "the first gap overlong",
            edit(2, &[p[2] | 0x80, 0x00]),
            v2::VARINT_NON_CANONICAL,
        ),
        (
            "the proof in version 1",
            w.compiled_v1_payload().unwrap(),
            v1,
        ),
    ]
}

/// Every claim about the leaf set `indexes` of the MMR over `all`, spent as `spend`: each proved
/// leaf with its true value or its neighbour's (a one-leaf MMR's "neighbour" is a value of no
/// leaf), then, when `leftovers`, the honest proof with something left after it and every
/// malformed version 2 payload of [`malformed_v2`].
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
            &|v| Some(payload(v, &w)),
            expect,
            lie == 0,
        );
    }
    if !leftovers {
        return;
    }
    let p = honest_v2(&honest, all, indexes);
    // A forged leaf past the MMR, the proof unchanged: the baseline checks positions first;
    // version 2 states the leaf count, so the leaf is claimed and out of range.
    let mut forged = honest.proved.clone();
    forged.push((honest.mmr_size, FORGED));
    let past = forged_past(&p, indexes, n as u64);
    search.case(
        &|| format!("{n} leaves, proving {indexes:?}, a forged leaf past the MMR"),
        spend,
        &|v| {
            Some(match v {
                Verifier::Baseline => baseline_proof::encode(&forged, &honest.proof_items),
                _ => past.clone(),
            })
        },
        Expect::Reject {
            baseline: B_LEAF_OUT_OF_RANGE,
            compiled: v2::LEAF_INDEX_OUT_OF_RANGE,
        },
        false,
    );
    // A proof item after the last one taken (a true claim, an encoding nobody may accept).
    let mut items = honest.proof_items.clone();
    items.push(FORGED);
    search.case(
        &|| format!("{n} leaves, proving {indexes:?}, an item after the peaks"),
        spend,
        &|v| {
            Some(match v {
                Verifier::Baseline => baseline_proof::encode(&honest.proved, &items),
                _ => [&p[..], &FORGED].concat(),
            })
        },
        Expect::Reject {
            baseline: B_PROOF_TOO_LONG,
            compiled: v2::TRAILING_BYTES,
        },
        true,
    );
    for (what, bytes, code) in malformed_v2(&honest, &p, indexes) {
        search.case(
            &|| format!("{n} leaves, proving {indexes:?}, {what}"),
            spend,
            &|v| (v != Verifier::Baseline).then(|| bytes.clone()),
            Expect::both(code),
            true,
        );
    }
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
                &Spend::by_reference(vec![acc.clone()], Some((honest.root, honest.leaf_count))),
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
                    vec![Dep::typed(
                        type_script(TYPE_ID_CODE_HASH, &other_args),
                        data.clone(),
                    )],
                    NOT_FOUND,
                ),
                (
                    "the data under another code with the same args",
                    vec![Dep::typed(
                        type_script([0x42; 32], &[0xac; 32]),
                        data.clone(),
                    )],
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
                    &Spend::by_reference(deps, None),
                    &|v| Some(payload(v, &honest)),
                    Expect::both(code),
                    true,
                );
            }
        }
    }
}

/// Leaf sets of MMRs of 1..=max leaves, and claims (true or neighbour's value per leaf).
fn sets_and_claims(max: u32) -> (u64, u64) {
    (
        (1..=max).map(|n| (1u64 << n) - 1).sum(),
        (1..=max).map(|n| 3u64.pow(n) - 1).sum(),
    )
}

/// The C binary is held against the same expectations as the compiled Rust one: it passes
/// once the C verifier reads version 2.
#[test]
fn every_claim_of_every_mmr_up_to_7_leaves_in_ckb_vm() {
    let r = release_search(
        &ALL,
        native_core,
        |s| plain_search(s, 7),
        "plain, 1-7 leaves",
    );
    assert!(r.clean(), "{r:#?}");
    let (sets, claims) = sets_and_claims(7);
    assert_eq!((sets, claims), (247, 3272));
    assert_eq!(r.cases, claims + (LEFTOVERS + V2_ONLY) * sets);
    assert_eq!(r.runs, 3 * (claims + LEFTOVERS * sets) + 2 * V2_ONLY * sets);
    assert_eq!(r.accepted, 3 * sets, "exactly the true claims");
}

#[test]
fn every_claim_by_reference_up_to_7_leaves_in_ckb_vm() {
    let r = release_search(
        &ALL,
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
/// the leftover the real binary reports (items past the shape; in version 2 bytes after the
/// last item the walk takes) and running the rest in CKB-VM.
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
                (Verifier::Compiled | Verifier::C, Outcome::Rejected(v2::TRAILING_BYTES)) => {
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
/// compared): the version 2 core, natively, with every check of the proof but not the last
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
        match compiled_proof::compact::compute_root::<Host>(payload, args.leaf_count) {
            Ok(_) => Outcome::Accepted(0),
            Err(e) => Outcome::Rejected(e.code()),
        }
    }
}

#[test]
fn negative_control_a_verifier_that_ignores_leftovers_is_caught() {
    let mut broken: Vec<StopsAtTheRoot> = release_vms(&RUST_BINARIES)
        .into_iter()
        .map(StopsAtTheRoot)
        .collect();
    let locks = broken.iter_mut().map(|v| v as &mut dyn Lock).collect();
    let r = run_search(
        locks,
        native_core,
        |s| plain_search(s, 4),
        "control: leftovers ignored, 1-4 leaves",
    );
    let (sets, _) = sets_and_claims(4);
    // Every item after the peaks (both binaries) and every trailing byte (version 2): true
    // claims in an encoding nobody may accept. Version 2 states its leaf count, so a forged
    // leaf is never a leftover (49 before any hash): no forgery.
    assert_eq!(r.wrongly_accepted, 2 * sets + sets, "{r:#?}");
    assert_eq!(r.forgeries, 0, "{r:#?}");
    // The native cores and the model refuse each of them: the comparisons alone catch it too.
    assert_eq!(r.native_disagreements, r.wrongly_accepted, "{r:#?}");
    assert_eq!(r.native_verdict_disagreements, r.wrongly_accepted);
    assert_eq!(r.model_disagreements, 2 * sets, "{r:#?}");
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
    // Every false claim is accepted; the malformed payloads still fail the core's own checks.
    assert_eq!(r.forgeries, claims - sets, "{r:#?}");
    assert_eq!(r.wrongly_accepted, claims - sets);
    assert_eq!(r.accepted, sets);
    // The whole core and the model refuse every one of them (9).
    assert_eq!(r.native_disagreements, claims - sets, "{r:#?}");
    assert_eq!(r.model_disagreements, claims - sets, "{r:#?}");
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
        &RUST_BINARIES,
        wrong_native,
        |s| plain_search(s, 4),
        "control: wrong native core, 1-4 leaves",
    );
    let (sets, claims) = sets_and_claims(4);
    // Every false claim on both (the binaries say 9, the wrong core accepts), every
    // leftover's and malformed payload's code (23, 27; 49, 45 and the 7 others: the wrong
    // core says 9).
    assert_eq!(
        r.native_verdict_disagreements,
        2 * (claims - sets),
        "{r:#?}"
    );
    assert_eq!(
        r.native_disagreements,
        2 * (claims - sets) + (2 * LEFTOVERS + V2_ONLY) * sets,
        "{r:#?}"
    );
    // The binaries themselves are right.
    assert_eq!(
        r.honest_rejected
            + r.wrongly_accepted
            + r.wrong_codes
            + r.disagreements
            + r.model_disagreements,
        0
    );
}
