//! Seeds x verifiers on every core.
//!
//! The two scaling articles in the project's reference folder show the two ways "pleasingly
//! parallel" runs stop scaling: shared reference counts that every run touches (each increment
//! pulls the cache line away from the other cores), and hot data that does not fit the caches.
//! So here:
//! - every worker builds its own [`Engine`]: deep copies of the binaries and its own consensus,
//!   environment and debug printer. What ckb-script clones per run (`Arc`s, `Bytes`) are this
//!   thread's own; the only shared inputs are plain slices read and never written;
//! - a worker writes only to memory it owns: its result vector, and one progress counter on a
//!   cache line of its own (the main thread reads the counters to draw the bar, so workers
//!   never take the progress bar's lock);
//! - the one shared write is the next-seed counter, once per seed (milliseconds of work apart),
//!   on its own cache line;
//! - results are compact: two `u64`s per run (cycles, transaction bytes), seed-major, merged
//!   after the threads join.

use crate::engine::{Engine, Outcome, ProgramSpec};
use ckb_mmr_sdk::weight;
use ckb_mmr_sdk::Workload;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A value alone on its cache line (128 bytes: two 64-byte lines, as the adjacent-line
/// prefetcher pulls pairs).
#[repr(align(128))]
struct Padded<T>(T);

/// Cycles of every program on every seed.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub seeds: Vec<u64>,
    pub programs: Vec<String>,
    /// `cycles[s * programs.len() + p]`: cycles of program `p` on seed `seeds[s]`.
    pub cycles: Vec<u64>,
    /// The size of each run's transaction as the node weighs it, indexed as `cycles`.
    pub tx_bytes: Vec<u64>,
    pub threads: usize,
    pub elapsed: Duration,
    /// CPU time of the whole process (all threads) during the run, when /proc tells it.
    pub cpu: Option<Duration>,
}

impl Sweep {
    pub fn cycles_of(&self, program: usize) -> impl Iterator<Item = u64> + '_ {
        let n = self.programs.len();
        (0..self.seeds.len()).map(move |s| self.cycles[s * n + program])
    }

    pub fn stats(&self, program: usize) -> Stats {
        Stats::of(self.cycles_of(program).collect())
    }

    /// Each run's (transaction bytes, cycles) of `program`, in seed order.
    fn sized(&self, program: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        let n = self.programs.len();
        (0..self.seeds.len()).map(move |s| {
            let i = s * n + program;
            (self.tx_bytes[i] as usize, self.cycles[i])
        })
    }

    /// Min, median and max of `program`'s transaction bytes.
    pub fn tx_bytes_stats(&self, program: usize) -> Stats {
        Stats::of(self.sized(program).map(|(b, _)| b as u64).collect())
    }

    /// Min, median and max of `program`'s weights; the minimum fee in shannons is the weight.
    pub fn weight_stats(&self, program: usize) -> Stats {
        Stats::of(
            self.sized(program)
                .map(|(b, c)| weight::weight(b, c))
                .collect(),
        )
    }

    /// Per program, min/median/max of cycles, transaction bytes and weight (which, at the
    /// default minimum fee rate, is the fee in shannons), as `cycle-lab sweep` prints them.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<20} {:^32} {:^26} {:^26}",
            "", "cycles", "tx bytes", "weight (= min fee)"
        )
        .trim_end()
        .to_string();
        s.push('\n');
        s.push_str(&format!(
            "{:<20} {:>10} {:>10} {:>10}",
            "verifier", "min", "median", "max"
        ));
        for _ in 0..2 {
            s.push_str(&format!(" {:>8} {:>8} {:>8}", "min", "median", "max"));
        }
        s.push('\n');
        for (p, name) in self.programs.iter().enumerate() {
            let (c, b, w) = (self.stats(p), self.tx_bytes_stats(p), self.weight_stats(p));
            s.push_str(&format!(
                "{:<20} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
                name, c.min, c.median, c.max, b.min, b.median, b.max, w.min, w.median, w.max
            ));
        }
        s
    }

    pub fn seeds_per_second(&self) -> f64 {
        self.seeds.len() as f64 / self.elapsed.as_secs_f64()
    }

    pub fn runs(&self) -> usize {
        self.cycles.len()
    }

    /// The share of `threads` x wall time the process spent on a CPU: near 1 when every worker
    /// ran all the time, lower when other processes took the cores.
    pub fn cpu_share(&self) -> Option<f64> {
        self.cpu
            .map(|c| c.as_secs_f64() / (self.elapsed.as_secs_f64() * self.threads as f64))
    }
}

/// Min, median and max. The median of an even count is the lower of the two middle values,
/// so it is always a measured cycle count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub min: u64,
    pub median: u64,
    pub max: u64,
}

impl Stats {
    pub fn of(mut values: Vec<u64>) -> Stats {
        assert!(!values.is_empty(), "statistics of no values");
        values.sort_unstable();
        Stats {
            min: values[0],
            median: values[(values.len() - 1) / 2],
            max: values[values.len() - 1],
        }
    }
}

/// How the sweep reports progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar on stderr (hidden when stderr is not a terminal).
    Bar,
    Quiet,
}

/// Runs every program on the honest proof of every seed's workload on `threads` threads.
/// Fails on the first run that is not accepted, naming program and seed.
pub fn run(
    specs: &[ProgramSpec],
    seeds: &[u64],
    threads: usize,
    label: &str,
    progress: Progress,
) -> Result<Sweep, String> {
    let threads = threads.max(1).min(seeds.len().max(1));
    let next = Padded(AtomicUsize::new(0));
    let done: Vec<Padded<AtomicUsize>> =
        (0..threads).map(|_| Padded(AtomicUsize::new(0))).collect();
    let bar = match progress {
        Progress::Bar => ProgressBar::with_draw_target(
            Some(seeds.len() as u64),
            ProgressDrawTarget::stderr_with_hz(10),
        ),
        Progress::Quiet => ProgressBar::hidden(),
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>14} [{bar:40}] {pos}/{len} seeds, {elapsed} elapsed, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());

    let cpu_start = process_cpu_time();
    let start = Instant::now();
    let parts: Vec<Result<Vec<u64>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = done
            .iter()
            .map(|done| {
                let next = &next.0;
                scope.spawn(move || worker(specs, seeds, next, &done.0))
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            let n: usize = done.iter().map(|d| d.0.load(Ordering::Relaxed)).sum();
            bar.set_position(n as u64);
            std::thread::sleep(Duration::from_millis(20));
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect()
    });
    let elapsed = start.elapsed();
    let cpu = process_cpu_time()
        .zip(cpu_start)
        .map(|(end, start)| end.saturating_sub(start));
    bar.finish_and_clear();

    let width = specs.len();
    let mut cycles = vec![0u64; seeds.len() * width];
    let mut tx_bytes = vec![0u64; seeds.len() * width];
    for part in parts {
        // Each record: seed index, then cycles and transaction bytes per program.
        for record in part?.chunks_exact(2 * width + 1) {
            let s = record[0] as usize;
            for (p, run) in record[1..].chunks_exact(2).enumerate() {
                cycles[s * width + p] = run[0];
                tx_bytes[s * width + p] = run[1];
            }
        }
    }
    Ok(Sweep {
        seeds: seeds.to_vec(),
        programs: specs.iter().map(|s| s.name.clone()).collect(),
        cycles,
        tx_bytes,
        threads,
        elapsed,
        cpu,
    })
}

fn worker(
    specs: &[ProgramSpec],
    seeds: &[u64],
    next: &AtomicUsize,
    done: &AtomicUsize,
) -> Result<Vec<u64>, String> {
    let engine = Engine::new(specs);
    let mut out = Vec::with_capacity((seeds.len() / 2 + 1) * (2 * specs.len() + 1));
    let mut count = 0;
    loop {
        let s = next.fetch_add(1, Ordering::Relaxed);
        let Some(&seed) = seeds.get(s) else { break };
        let w = Workload::from_seed(seed);
        let args = w.lock_args();
        // Payloads per format, built once per seed.
        let mut witnesses: Vec<(crate::engine::Format, Vec<u8>)> = Vec::with_capacity(2);
        out.push(s as u64);
        for (p, spec) in specs.iter().enumerate() {
            let witness = match witnesses.iter().find(|(f, _)| *f == spec.format) {
                Some((_, wt)) => wt,
                None => {
                    let wt = crate::engine::witness(spec.format, &w)?;
                    witnesses.push((spec.format, wt));
                    &witnesses.last().expect("just pushed").1
                }
            };
            match engine.run_sized(p, &args, witness) {
                (Outcome::Accepted(cycles), tx_bytes) => {
                    out.push(cycles);
                    out.push(tx_bytes as u64);
                }
                (other, _) => {
                    // Stop the other workers early: no more seeds to take.
                    next.store(seeds.len(), Ordering::Relaxed);
                    return Err(format!(
                        "{} rejected the honest proof of seed {seed}: {other:?}",
                        spec.name
                    ));
                }
            }
        }
        count += 1;
        done.store(count, Ordering::Relaxed);
    }
    Ok(out)
}

/// The machine's parallelism (all cores).
pub fn all_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The 1-minute load average, to judge timings on a shared machine.
pub fn load_average() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
}

/// User + system CPU time of this process so far (all threads), from /proc/self/stat.
pub fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel reports them in USER_HZ, 100 on Linux.
    Some(Duration::from_millis(ticks * 10))
}
