//! Adversarial assurance for the three MMR verifiers (`SECURITY.md`).
//!
//! - [`model`]: a host reference model of the lock and of both payload formats, written to
//!   be obviously correct rather than fast: it shares no code with the verifiers (only the
//!   hash, through the reference `blake2b-rs`, [`hash`]); [`compact`], the compiled format's
//!   version 2 in the same model.
//! - [`mmr`]: honest MMRs built the slow way, node by node, as the ground truth.
//! - [`native`]: adapters that run the verifier cores natively: `baseline_proof::verify`,
//!   `compiled_proof::verify` and the C core (`contracts/c-verifier/mmr_lock.h`, compiled by `build.rs` and
//!   called over FFI), each also wrapped in the lock flow of its contract.
//! - [`exhaustive`]: the exhaustive forgery search over small MMRs (version 1 of the compiled
//!   format, and the baseline format).
//! - [`compact_model`], [`compact_native`], [`compact_search`]: the same for version 2 of the
//!   compiled format (the compact format the deployed verifiers read): its model from the
//!   spec, its native core in the lock flow (and the C core's hook), its exhaustive search.
//! - [`ring_model`]: the accumulator ring's type-script rules, a model from the spec.
//! - [`diff`]: scenarios, mutations and the differential check shared by the fuzz target,
//!   the corpus replay test and the VM test.
//! - [`report`]: the searches' findings (capped) and their reports' counter tables.

pub mod accumulator;
pub mod compact;
pub mod compact_model;
pub mod compact_native;
pub mod compact_search;
pub mod diff;
pub mod exhaustive;
pub mod hash;
pub mod mmr;
pub mod model;
pub mod native;
pub mod report;
pub mod ring_model;
pub mod ring_search;

pub use report::Outcome;

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exit codes documented in `docs/error-codes.md`, per payload format (0 = accepted).
pub fn documented_baseline(code: i8) -> bool {
    matches!(code, 0..=10 | 20..=28 | 90..=92)
}

/// See [`documented_baseline`]; the compiled format (Rust and C) has 40..=68 (version 1
/// 40..=64, version 2 40..=43, 45, 46, 49 and 65..=68). Both include
/// by-reference mode's 90..=92: the args mutations can make 33-byte args, and the checks'
/// transactions have no accumulator.
pub fn documented_compiled(code: i8) -> bool {
    matches!(code, 0..=9 | 40..=68 | 90..=92)
}

/// Every `slots`-tuple of indexes below `base` (`base^slots` of them), the first slot turning
/// fastest.
pub fn tuples(base: usize, slots: usize) -> impl Iterator<Item = Vec<usize>> {
    (0..(base as u64).pow(slots as u32)).map(move |mut x| {
        (0..slots)
            .map(|_| {
                let v = (x % base as u64) as usize;
                x /= base as u64;
                v
            })
            .collect()
    })
}

/// Runs `each` on every task over `threads` scoped worker threads, which take the tasks in
/// order, one at a time (callers put the long ones first); returns each worker's counters.
pub fn on_threads<T: Sync, S: Default + Send>(
    tasks: &[T],
    threads: usize,
    each: impl Fn(&T, &mut S) + Sync,
) -> Vec<S> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut st = S::default();
                    while let Some(task) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        each(task, &mut st);
                    }
                    st
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    })
}

/// One search of a search binary: prints `{title}: {cfg:?}`, runs it, prints its report and
/// the elapsed time. Returns its problems.
pub fn timed<C: std::fmt::Debug, S: Outcome>(
    title: &str,
    cfg: &C,
    run: impl FnOnce(&C) -> S,
) -> u64 {
    println!("{title}: {cfg:?}");
    let start = std::time::Instant::now();
    let outcome = run(cfg);
    print!("{}", outcome.report());
    println!("elapsed: {:.1} s", start.elapsed().as_secs_f64());
    outcome.problems()
}

/// The end of a search binary: exit 1 with the number of problems, or the `clean` line.
pub fn finish(problems: u64, clean: &str) {
    if problems != 0 {
        println!("RESULT: {problems} problems");
        std::process::exit(1);
    }
    println!("RESULT: {clean}");
}
