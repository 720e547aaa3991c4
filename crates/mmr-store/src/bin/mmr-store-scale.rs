//! `mmr-store-scale`: the store at scale (a benchmark, not a test). For each leaf count
//! it creates a fresh store, appends that many generated leaves in commits of `--batch`,
//! then proves 1 and 100 random leaves from a read-only handle; and it measures, in the same
//! run, this machine's one-core rate of blake2b-256 64-byte merges, the limit an append
//! (about one merge per leaf) is compared with. Each leaf count runs once per hasher count
//! (`Store::set_hashers`: 1, then one per core), each in its own process, so its peak memory
//! (VmHWM) is its own. Prints a table and writes JSON.
//!
//! `mmr-store-scale --help` lists the options.

use clap::Parser;
use mmr_store::{Hash, Store};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// The store at scale: appends, proofs and peak memory per leaf count, beside this machine's
/// one-core merge rate; prints a table and writes JSON
#[derive(Parser, Debug)]
#[command(
    name = "mmr-store-scale",
    after_help = "Exit codes: 0 ok, 2 any error."
)]
struct Cli {
    /// Leaf counts, comma-separated; 1e6 and 10^6 forms accepted
    #[arg(long, value_name = "LIST", default_value = "1e6,1e7", value_parser = leaf_counts)]
    leaves: Counts,
    /// Threads hashing an append, comma-separated, each count measured on its own fresh store
    /// [default: 1 and this machine's cores, at most 4]
    #[arg(long, value_name = "LIST", value_parser = hasher_counts)]
    hashers: Option<Counts>,
    /// Where the stores are made, one at a time, deleted after each count unless --keep
    #[arg(long, value_name = "DIR", default_value = "build/scale/store")]
    dir: PathBuf,
    /// The results
    #[arg(long, value_name = "FILE", default_value = "build/scale/rust.json")]
    json: PathBuf,
    /// Leaves per commit
    #[arg(long, value_name = "N", default_value = "1048576", value_parser = positive_count)]
    batch: u64,
    /// Keep each store
    #[arg(long)]
    keep: bool,
    /// One leaf count in this process (what the run starts per count)
    #[arg(long, value_name = "N", hide = true, value_parser = parse_count_arg)]
    one: Option<u64>,
}

/// A comma-separated list of counts.
#[derive(Clone, Debug)]
struct Counts(Vec<u64>);

/// The items of `s` parsed by `parse`; `what` names an item it refuses.
fn counts(s: &str, what: &str, parse: impl Fn(&str) -> Option<u64>) -> Result<Counts, String> {
    s.split(',')
        .map(|c| parse(c).ok_or(format!("{what}: {c:?}")))
        .collect::<Result<_, _>>()
        .map(Counts)
}

fn leaf_counts(s: &str) -> Result<Counts, String> {
    counts(s, "not a leaf count", |c| parse_count(c).filter(|&n| n > 0))
}

fn hasher_counts(s: &str) -> Result<Counts, String> {
    counts(s, "not a count from 1 to 4", |c| {
        c.trim().parse().ok().filter(|n| (1..=4).contains(n))
    })
}

fn positive_count(s: &str) -> Result<u64, String> {
    parse_count(s)
        .filter(|&n| n > 0)
        .ok_or("not a positive number".into())
}

fn parse_count_arg(s: &str) -> Result<u64, String> {
    parse_count(s).ok_or("not a number".into())
}

/// The table's header line, right-aligned to the row format's widths.
const HEADER: &str = "     leaves hashers      append/s     merges/s   ratio  \
                      proof1ms   bytes proof100ms    bytes   rss MB  store bytes";

/// One result row; the field names are shared with the TypeScript side. A row goes from the
/// per-count process to the run as one JSON line, rounded as the table shows it.
#[derive(Serialize, Deserialize, Debug)]
struct Row {
    #[serde(rename = "impl")]
    implementation: String,
    leaves: u64,
    hashers: usize,
    append_leaves_per_s: f64,
    merges_per_s: f64,
    append_vs_merge: f64,
    proof1_ms: f64,
    proof1_bytes: usize,
    proof100_ms: f64,
    proof100_bytes: usize,
    peak_rss_mb: f64,
    store_bytes: u64,
}

/// `x` to `digits` decimals.
fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// A small, fast, deterministic generator (splitmix64): the leaves' cost stays far below a
/// merge, and it is outside the timed appends anyway.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn leaf(&mut self) -> Hash {
        let mut out = [0u8; 32];
        for chunk in out.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        out
    }
}

/// `n` chained merges (each output is the next left input, so none can be skipped or
/// overlapped) with the store's kernel; returns the time they took.
fn merge_chain(n: u64) -> Duration {
    let right = std::hint::black_box([0x5au8; 32]);
    let mut node = std::hint::black_box([0x11u8; 32]);
    let start = Instant::now();
    for _ in 0..n {
        let left = node;
        mmr_blake2b::merge_into(&left, &right, &mut node);
    }
    std::hint::black_box(node);
    start.elapsed()
}

/// The same rate through blake2b-rs (the C reference), to show the kernel the store uses
/// is the faster of the two on this machine.
fn merge_rate_blake2b_rs(min: Duration) -> f64 {
    let right = [0x5au8; 32];
    let mut node = [0x11u8; 32];
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < min {
        for _ in 0..1024 {
            let mut h = blake2b_rs::Blake2bBuilder::new(32)
                .personal(b"ckb-default-hash")
                .build();
            h.update(&node);
            h.update(&right);
            h.finalize(&mut node);
        }
        n += 1024;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn vm_hwm_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Mean milliseconds of `proof(size, k random indexes)` and its compiled payload, and the
/// payload's mean bytes.
fn time_proofs(
    store: &Store,
    k: usize,
    runs: usize,
    rng: &mut Gen,
) -> Result<(f64, usize), String> {
    let (size, leaves) = (store.mmr_size(), store.leaf_count());
    let mut total = Duration::ZERO;
    let mut bytes = 0;
    for _ in 0..runs {
        let indexes: Vec<u64> = (0..k).map(|_| rng.next() % leaves).collect();
        let start = Instant::now();
        let proof = store.proof(size, &indexes).map_err(|e| e.to_string())?;
        let payload = proof.compiled_payload().map_err(|e| e.to_string())?;
        total += start.elapsed();
        bytes += payload.len();
    }
    Ok((total.as_secs_f64() * 1e3 / runs as f64, bytes / runs))
}

/// One leaf count, in this process: prints its row as JSON.
fn one(leaves: u64, hashers: usize, dir: &Path, batch: u64, keep: bool) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    let mut store = Store::create(dir, None).map_err(|e| e.to_string())?;
    store.set_hashers(hashers);
    let mut gen = Gen(leaves);
    let mut chunk: Vec<Hash> = Vec::with_capacity(batch as usize);
    let mut appending = Duration::ZERO;
    // The merge rate is sampled between the appends, a quarter as many merges as leaves,
    // so both see the same load on this shared machine and their ratio is fair.
    let (mut merging, mut merges) = (Duration::ZERO, 0u64);
    let mut done = 0;
    while done < leaves {
        let k = batch.min(leaves - done);
        chunk.clear();
        chunk.extend((0..k).map(|_| gen.leaf()));
        merging += merge_chain(k / 4 + 1);
        merges += k / 4 + 1;
        let start = Instant::now();
        store.append(&chunk).map_err(|e| e.to_string())?;
        appending += start.elapsed();
        done += k;
    }
    let merges_per_s = merges as f64 / merging.as_secs_f64();
    drop(chunk);
    drop(store);
    let store = Store::open_read_only(dir).map_err(|e| e.to_string())?;
    let mut rng = Gen(7);
    // One untimed proof first: it faults in the pages of the upper levels.
    time_proofs(&store, 1, 1, &mut rng)?;
    let (proof1_ms, proof1_bytes) = time_proofs(&store, 1, 200, &mut rng)?;
    let (proof100_ms, proof100_bytes) = time_proofs(&store, 100, 20, &mut rng)?;
    let append_leaves_per_s = leaves as f64 / appending.as_secs_f64();
    let row = Row {
        implementation: "rust".into(),
        leaves,
        hashers,
        append_leaves_per_s: round(append_leaves_per_s, 0),
        merges_per_s: round(merges_per_s, 0),
        append_vs_merge: round(append_leaves_per_s / merges_per_s, 3),
        proof1_ms: round(proof1_ms, 4),
        proof1_bytes,
        proof100_ms: round(proof100_ms, 3),
        proof100_bytes,
        peak_rss_mb: round(vm_hwm_mb(), 1),
        store_bytes: dir_bytes(dir),
    };
    drop(store);
    if !keep {
        let _ = std::fs::remove_dir_all(dir);
    }
    println!("{}", serde_json::to_string(&row).expect("a row serializes"));
    Ok(())
}

fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim();
    let pow = |base: &str, exp: &str| -> Option<u64> {
        let b: u64 = base.parse().ok()?;
        let e: u32 = exp.parse().ok()?;
        b.checked_pow(e)
    };
    if let Some((m, e)) = s.split_once('e') {
        return m.parse::<u64>().ok()?.checked_mul(pow("10", e)?);
    }
    if let Some((b, e)) = s.split_once('^') {
        return pow(b, e);
    }
    s.parse().ok()
}

fn run(cli: Cli) -> Result<(), String> {
    let counts = cli.leaves.0;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) as u64;
    let hashers: Vec<usize> = match cli.hashers {
        Some(Counts(h)) => h.into_iter().map(|n| n as usize).collect(),
        None if cores > 1 => vec![1, cores as usize],
        None => vec![1],
    };
    let (dir, json, batch, keep, single) = (cli.dir, cli.json, cli.batch, cli.keep, cli.one);
    if let Some(n) = single {
        return one(n, hashers[0], &dir, batch, keep);
    }
    let exe = std::env::current_exe().map_err(|e| format!("finding myself: {e}"))?;
    let b2rs = merge_rate_blake2b_rs(Duration::from_millis(500));
    let mut rows = Vec::new();
    println!("{HEADER}");
    for (n, h) in counts
        .iter()
        .flat_map(|&n| hashers.iter().map(move |&h| (n, h)))
    {
        let mut cmd = Command::new(&exe);
        cmd.args(["--one", &n.to_string(), "--batch", &batch.to_string()]);
        cmd.args(["--hashers", &h.to_string()]);
        cmd.arg("--dir").arg(&dir);
        if keep {
            cmd.arg("--keep");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("running {}: {e}", exe.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{n} leaves: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let row = text
            .lines()
            .find_map(|l| serde_json::from_str::<Row>(l).ok())
            .ok_or(format!("{n} leaves: no result in {text:?}"))?;
        println!(
            "{:>11} {:>7} {:>13.0} {:>12.0} {:>7.3} {:>9.4} {:>7} {:>10.3} {:>8} {:>8.1} {:>12}",
            row.leaves,
            row.hashers,
            row.append_leaves_per_s,
            row.merges_per_s,
            row.append_vs_merge,
            row.proof1_ms,
            row.proof1_bytes,
            row.proof100_ms,
            row.proof100_bytes,
            row.peak_rss_mb,
            row.store_bytes
        );
        rows.push(row);
    }
    println!(
        "merges/s: mmr-blake2b's merge kernel (the store's), chained on one core, sampled between the appends; blake2b-rs (C reference) on the same core: {b2rs:.0}/s"
    );
    if let Some(parent) = json.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("creating {}: {e}", parent.display()))?;
    }
    let text = serde_json::to_string_pretty(&rows).expect("rows serialize");
    std::fs::write(&json, format!("{text}\n"))
        .map_err(|e| format!("writing {}: {e}", json.display()))?;
    println!("wrote {}", json.display());
    Ok(())
}

fn main() -> ExitCode {
    let cli: Cli = cli_usage::parse("mmr-store-scale");
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mmr-store-scale: {e}");
            ExitCode::from(2)
        }
    }
}
