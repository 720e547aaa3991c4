//! Ctrl-C at any moment: `ckb-devnet` exits 130, says nothing misleading and leaves no
//! process, whatever its main thread was doing when the signal came, with every core busy
//! (the test keeps them busy itself, as CI's machine or a user's laptop may be).

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Spinning threads, one per core, until dropped.
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<u64>>,
}

impl Load {
    fn start() -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                    x
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// splitmix64: enough to spread the moments; the seed is printed so a failure can be rerun
/// (`CTRL_C_SEED=...`).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

fn seed() -> u64 {
    std::env::var("CTRL_C_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// The moments of the scenario the interrupt is aimed at: after the `1..=max`-th progress
/// line containing the text, plus a random delay.
const MOMENTS: &[(&str, &str, u64)] = &[
    ("starting the node", "initialising a dev chain", 1),
    ("deploying", "ckb-devnet: deploying", 4),
    ("locking", "ckb-devnet: locking a cell", 3),
    ("waiting for commit", "waiting for it to be committed", 6),
    ("spending", ": committed, node", 3),
    ("sending a forgery", "ckb-devnet: refusal", 2),
];

/// What one interrupted command printed on stderr, and how it ended.
struct Interrupted {
    code: Option<i32>,
    before: Vec<String>,
    after: Vec<String>,
}

/// Runs `ckb-devnet ARGS`, waits for the `occurrence`-th stderr line containing `needle`,
/// waits `delay`, sends SIGINT, and collects the rest of stderr and the exit status.
fn interrupt(args: &[&str], needle: &str, occurrence: u64, delay: Duration) -> Interrupted {
    let mut child = Command::new(common::BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs ckb-devnet");
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    let mut before = Vec::new();
    let mut seen = 0;
    for line in lines.by_ref() {
        let line = line.expect("stderr is text");
        let hit = line.contains(needle);
        before.push(line);
        if hit {
            seen += 1;
            if seen == occurrence {
                break;
            }
        }
    }
    assert_eq!(
        seen,
        occurrence,
        "{args:?} ended ({:?}) before the moment: {before:#?}",
        child.wait()
    );
    std::thread::sleep(delay);
    common::signal(child.id(), libc::SIGINT);
    let after: Vec<String> = lines.map_while(|l| l.ok()).collect();
    let code = child.wait().expect("waits for ckb-devnet").code();
    Interrupted {
        code,
        before,
        after,
    }
}

fn check(what: &str, run: &Interrupted, dir: &Path) {
    assert_eq!(
        run.code,
        Some(130),
        "{what}: exit {:?}\nbefore the signal: {:#?}\nafter: {:#?}",
        run.code,
        run.before,
        run.after
    );
    // Progress lines may still come (the pipe holds what was written before the signal, and
    // the main thread goes on until the handler ends the process), but no error: nothing
    // that blames the node, the RPC or a panic for what the interrupt did.
    for line in &run.after {
        assert!(
            !line.contains("error") && !line.contains("panicked"),
            "{what}: misleading line after the signal: {line:?}\nall: {:#?}",
            run.after
        );
    }
    // A node was running: its stop is announced.
    if run.before.iter().any(|l| l.contains("node up at")) {
        assert!(
            run.after
                .iter()
                .any(|l| l.starts_with("ckb-devnet: interrupted, stopping node (pid ")),
            "{what}: the node's stop is not announced: {:#?}",
            run.after
        );
    }
    assert!(
        common::no_process_left(dir, 30),
        "{what}: a process still runs in {}",
        dir.display()
    );
    assert!(
        !dir.join("chain/node.pid").exists(),
        "{what}: the node's pid file is left behind"
    );
}

#[test]
fn ctrl_c_at_any_moment_of_the_scenario_exits_130_and_leaves_no_process() {
    let runs: usize = std::env::var("CTRL_C_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let seed = seed();
    eprintln!("CTRL_C_SEED={seed} CTRL_C_RUNS={runs}");
    let mut rng = Rng(seed);
    let root = common::test_dir("scenario-ctrl-c");
    let release = common::release().display().to_string();
    let _load = Load::start();
    let started = Instant::now();
    for i in 0..runs {
        let (moment, needle, max) = MOMENTS[i % MOMENTS.len()];
        let occurrence = 1 + rng.below(max);
        let delay = Duration::from_millis(rng.below(250));
        let dir = root.join(format!("run-{i:02}"));
        let dir_s = dir.display().to_string();
        let args = ["scenario", "--dir", &dir_s, "--release", &release];
        let what = format!("run {i} (seed {seed}): {moment} #{occurrence} + {delay:?}");
        let run = interrupt(&args, needle, occurrence, delay);
        check(&what, &run, &dir);
        eprintln!("{what}: exit 130, no process left");
    }
    eprintln!(
        "{runs} interrupted scenarios in {:.1} s under load",
        started.elapsed().as_secs_f64()
    );
}

/// A client command against a node it does not own, interrupted while it waits for a miner
/// that never comes: 130 at once, nothing said, and the node it talked to is left alone.
#[test]
fn ctrl_c_while_a_client_waits_for_commit_exits_130() {
    let common::Client {
        node,
        rpc,
        key,
        verifier,
        ..
    } = common::client("client-ctrl-c");
    let _load = Load::start();
    let start = Instant::now();
    let run = interrupt(
        &[common::deploy(&verifier, &rpc, &key), vec!["--no-generate"]].concat(),
        "waiting for it to be committed",
        1,
        Duration::from_millis(100),
    );
    assert_eq!(run.code, Some(130), "{:#?} {:#?}", run.before, run.after);
    assert!(run.after.is_empty(), "{:#?}", run.after);
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took {:?}",
        start.elapsed()
    );
    // The node belongs to the test, not to the client: still there, still answering.
    let chain = ckb_mmr_sdk::chain::Chain::connect(&rpc, false).unwrap();
    assert!(chain.rpc.tip_block_number().is_ok());
    assert!(!common::processes_in(&node.dir).is_empty());
}
