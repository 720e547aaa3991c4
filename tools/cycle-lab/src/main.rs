//! cycle-lab: the command-line front of the cycle lab (docs/performance.md).

use ckb_mmr_sdk::REFERENCE_SEED;
use cycle_lab::engine::Format;
use cycle_lab::engine::{ProgramSpec, RELEASE_VERIFIERS};
use cycle_lab::sweep::{self, Progress};
use cycle_lab::{acc_growth, chart, checksums, gate, growth, journey};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cycle-lab <command> [options]

commands:
  sweep      run the release verifiers on many seeds in-process (ckb-script), first on one
             thread, then on all threads; print per-verifier min/median/max cycles, seeds per
             second on each and the speedup
               --seeds N          number of seeds (default 200)
               --first-seed S     seeds S, S+1, ... (default 1)
               --threads T        the parallel run's threads (default: all cores)
               --release-dir D    the binaries (default build/release)
               --repeat R         rounds of (1 thread, all threads); the fastest of each
                                  counts (default 3)
               --min-speedup X    fail when the speedup is below X
               --json FILE        also write the result as JSON
  journey    measure every journey variant listed in a manifest (written by ./build.sh
             journey): reference-seed cycles (must equal ckb-debugger's), min/median/max
             over a seed sweep; write journey.csv, journey.json, journey.svg
               --manifest FILE    (default build/journey/variants.tsv)
               --seeds N          sweep seeds 1..=N (default 50)
               --reference-seed S the seed ckb-debugger ran (default: the journey's)
               --chart FILE       also copy the SVG chart here (e.g. docs/journey.svg)
               --markdown FILE    also write the table as Markdown
               --doc FILE         replace the table between FILE's journey-table markers
  flamegraph <folded> <out.svg> [--title T]
             render ckb-debugger's --flamegraph-output (folded stacks) as an SVG (inferno)
  gate       measure the release verifiers on the gate seeds and compare with
             tests/expected-cycles.json; --bless rewrites the file instead (and the cycle
             table in README.md)
  checksums  print sha256 of the release binaries (sha256sum format); --write FILE
  growth     cycles and witness bytes of the release verifiers on honest proofs of 1, 10, 100
             leaves and of the largest claim one witness carries, in MMRs of 2^4..2^40 leaves
               --release-dir D    the binaries (default build/release)
               --chart FILE       write the SVG chart (e.g. docs/growth.svg)
               --doc FILE         replace the table between FILE's growth-table markers
             and the accumulator's type script (build/release/accumulator-type): appends of
             1, 10, 100 leaves to 2^e - 1 leaves and ancestry proofs, e = 4..40, and the
             cost table of docs/accumulator.md
               --acc-doc FILE     replace FILE's accumulator-cost-table and
                                  accumulator-growth-table blocks (docs/accumulator.md)
               --readme FILE      replace FILE's accumulator-cycle-table block (README.md)
  acc-journey  the accumulator type script's tuning steps (written by ./build.sh journey):
             the cost table's large transitions and keep per step
               --manifest FILE    (default build/journey/acc-variants.tsv)
               --doc FILE         replace FILE's accumulator-journey-table block";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("sweep") => cmd_sweep(&args[1..]),
        Some("journey") => cmd_journey(&args[1..]),
        Some("flamegraph") => cmd_flamegraph(&args[1..]),
        Some("gate") => cmd_gate(&args[1..]),
        Some("checksums") => cmd_checksums(&args[1..]),
        Some("growth") => cmd_growth(&args[1..]),
        Some("acc-journey") => cmd_acc_journey(&args[1..]),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("expected a command\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cycle-lab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--name value` options and positional arguments.
struct Opts {
    pairs: Vec<(String, String)>,
    flags: Vec<String>,
    positional: Vec<String>,
}

impl Opts {
    fn parse(args: &[String], flags: &[&str]) -> Result<Opts, String> {
        let mut o = Opts {
            pairs: vec![],
            flags: vec![],
            positional: vec![],
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if flags.contains(&a.as_str()) {
                o.flags.push(a.clone());
            } else if a.starts_with("--") {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                o.pairs.push((a.clone(), v.clone()));
            } else {
                o.positional.push(a.clone());
            }
        }
        Ok(o)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name}: bad value {v:?}")),
        }
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn release_specs(dir: &Path) -> Result<Vec<ProgramSpec>, String> {
    RELEASE_VERIFIERS
        .iter()
        .map(|&(name, format)| ProgramSpec::load(name, format, &dir.join(name)))
        .collect()
}

fn cmd_sweep(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let n: u64 = o.num("--seeds", 200)?;
    let first: u64 = o.num("--first-seed", 1)?;
    let threads: usize = o.num("--threads", sweep::all_threads())?;
    let repeat: u32 = o.num("--repeat", 3)?;
    let dir = PathBuf::from(o.get("--release-dir").unwrap_or("build/release"));
    if n == 0 || repeat == 0 {
        return Err("--seeds and --repeat must be at least 1".into());
    }
    let specs = release_specs(&dir)?;
    let seeds: Vec<u64> = (first..first + n).collect();
    println!(
        "sweep: {} seeds ({}..={}) x {} verifiers = {} runs in ckb-script, in-process; {} cores{}",
        seeds.len(),
        first,
        first + n - 1,
        specs.len(),
        seeds.len() * specs.len(),
        sweep::all_threads(),
        sweep::load_average()
            .map(|l| format!(", load average {l}"))
            .unwrap_or_default()
    );
    // Warm up (page cache, allocator, CPU frequency) on a few seeds, untimed.
    sweep::run(
        &specs,
        &seeds[..seeds.len().min(4)],
        threads,
        "warm-up",
        Progress::Quiet,
    )?;
    // Alternate 1-thread and parallel runs and keep the fastest of each: a run that another
    // process slowed down says nothing about the sweep.
    let mut one: Option<sweep::Sweep> = None;
    let mut all: Option<sweep::Sweep> = None;
    for round in 1..=repeat {
        let a = sweep::run(
            &specs,
            &seeds,
            1,
            &format!("1 thread #{round}"),
            Progress::Bar,
        )?;
        let b = sweep::run(
            &specs,
            &seeds,
            threads,
            &format!("{threads} threads #{round}"),
            Progress::Bar,
        )?;
        if a.cycles != b.cycles {
            return Err("the 1-thread and the parallel run measured different cycles".into());
        }
        eprintln!(
            "round {round}: 1 thread {:.1} seeds/s, {} threads {:.1} seeds/s",
            a.seeds_per_second(),
            b.threads,
            b.seeds_per_second()
        );
        if one.as_ref().is_none_or(|o| a.elapsed < o.elapsed) {
            one = Some(a);
        }
        if all.as_ref().is_none_or(|o| b.elapsed < o.elapsed) {
            all = Some(b);
        }
    }
    let (one, all) = (one.expect("one round"), all.expect("one round"));
    println!();
    println!(
        "{:<20} {:>10} {:>10} {:>10}",
        "verifier", "min", "median", "max"
    );
    for (p, name) in all.programs.iter().enumerate() {
        let s = all.stats(p);
        println!("{:<20} {:>10} {:>10} {:>10}", name, s.min, s.median, s.max);
    }
    let speedup = all.seeds_per_second() / one.seeds_per_second();
    println!();
    let share = |s: &sweep::Sweep| {
        s.cpu_share()
            .map(|c| format!(", on CPU {:.0}% of threads x wall time", c * 100.0))
            .unwrap_or_default()
    };
    println!(
        "1 thread:  {:>8.1} seeds/s ({} runs in {:.3} s{})",
        one.seeds_per_second(),
        one.runs(),
        one.elapsed.as_secs_f64(),
        share(&one)
    );
    println!(
        "{} threads: {:>8.1} seeds/s ({} runs in {:.3} s{})",
        all.threads,
        all.seeds_per_second(),
        all.runs(),
        all.elapsed.as_secs_f64(),
        share(&all)
    );
    println!(
        "speedup:   {speedup:.2}x on {} threads (fastest of {repeat} rounds each; every round \
         measured identical cycles)",
        all.threads
    );
    if let Some(path) = o.get("--json") {
        let json = serde_json::json!({
            "seeds": { "first": first, "count": n },
            "verifiers": all.programs.iter().enumerate().map(|(p, name)| {
                let s = all.stats(p);
                serde_json::json!({ "verifier": name, "min": s.min, "median": s.median, "max": s.max })
            }).collect::<Vec<_>>(),
            "one_thread": { "seconds": one.elapsed.as_secs_f64(), "seeds_per_second": one.seeds_per_second() },
            "all_threads": { "threads": all.threads, "seconds": all.elapsed.as_secs_f64(), "seeds_per_second": all.seeds_per_second() },
            "speedup": speedup,
        });
        write(
            Path::new(path),
            &serde_json::to_string_pretty(&json).expect("json"),
        )?;
    }
    if let Some(min) = o.get("--min-speedup") {
        let min: f64 = min
            .parse()
            .map_err(|_| format!("--min-speedup: bad value {min:?}"))?;
        if speedup < min {
            return Err(format!("speedup {speedup:.2} is below {min}"));
        }
    }
    Ok(())
}

fn cmd_journey(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let manifest = PathBuf::from(o.get("--manifest").unwrap_or("build/journey/variants.tsv"));
    let n: u64 = o.num("--seeds", 50)?;
    if n == 0 {
        return Err("--seeds must be at least 1".into());
    }
    let variants = journey::read_manifest(&manifest)?;
    let reference_seed: u64 = o.num("--reference-seed", REFERENCE_SEED)?;
    let j = journey::measure(
        variants,
        reference_seed,
        (1..=n).collect(),
        sweep::all_threads(),
    )?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    print!("{}", j.table());
    write(&dir.join("journey.csv"), &j.csv())?;
    write(
        &dir.join("journey.json"),
        &(serde_json::to_string_pretty(&j.json()).expect("json") + "\n"),
    )?;
    let svg = chart::svg(&j);
    write(&dir.join("journey.svg"), &svg)?;
    if let Some(path) = o.get("--chart") {
        write(Path::new(path), &svg)?;
    }
    if let Some(path) = o.get("--markdown") {
        write(Path::new(path), &j.markdown())?;
    }
    if let Some(path) = o.get("--doc") {
        splice_file(path, &[(journey::DOC_BLOCK, &j.markdown())])?;
    }
    println!();
    println!(
        "reference seed {reference_seed}: ckb-debugger's cycles, equal to ckb-script in-process \
         for every variant (checked); min/median/max over {}",
        j.sweep_description()
    );
    let flat = j.non_decreasing_steps();
    if !flat.is_empty() {
        println!("note: steps that did not lower the reference-seed cycles: {flat:?}");
    }
    Ok(())
}

/// The growth table's block in docs/performance.md.
const GROWTH_BLOCK: &str = "growth-table";

fn cmd_growth(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let dir = PathBuf::from(o.get("--release-dir").unwrap_or("build/release"));
    let g = growth::measure(&release_specs(&dir)?)?;
    let table = g.markdown();
    print!("{table}");
    if let Some(path) = o.get("--chart") {
        write(Path::new(path), &g.svg())?;
    }
    if let Some(path) = o.get("--doc") {
        splice_file(path, &[(GROWTH_BLOCK, &table)])?;
    }
    // The type script is measured alone: its format field is unused.
    let spec = ProgramSpec::load(
        acc_growth::BINARY,
        Format::Compiled,
        &dir.join(acc_growth::BINARY),
    )?;
    let acc = acc_growth::measure(&spec)?;
    let (costs, rows, readme) = (acc.cost_table(), acc.growth_table(), acc.readme_table());
    println!(
        "\naccumulator type script, transitions (keep's floor: {} cycles):\n{costs}",
        acc.floor()
    );
    println!("accumulator type script, cycles / witness bytes against MMR size:\n{rows}");
    if let Some(path) = o.get("--acc-doc") {
        splice_file(
            path,
            &[
                (acc_growth::COST_BLOCK, &costs),
                (acc_growth::GROWTH_BLOCK, &rows),
            ],
        )?;
    }
    if let Some(path) = o.get("--readme") {
        splice_file(path, &[(acc_growth::README_BLOCK, &readme)])?;
    }
    Ok(())
}

fn cmd_acc_journey(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let manifest = PathBuf::from(
        o.get("--manifest")
            .unwrap_or("build/journey/acc-variants.tsv"),
    );
    let table = acc_growth::journey(&manifest)?;
    print!("{table}");
    if let Some(path) = o.get("--doc") {
        splice_file(path, &[(acc_growth::JOURNEY_BLOCK, &table)])?;
    }
    Ok(())
}

/// Replaces each (block name, table) block of the file at `path`.
fn splice_file(path: &str, blocks: &[(&str, &str)]) -> Result<(), String> {
    let mut doc = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    for (name, table) in blocks {
        doc = doc_blocks::replace_between(&doc, name, table).map_err(|e| format!("{path}: {e}"))?;
    }
    write(Path::new(path), &doc)
}

fn cmd_flamegraph(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let [folded, out] = o.positional.as_slice() else {
        return Err(format!("flamegraph needs <folded> <out.svg>\n\n{USAGE}"));
    };
    let raw = std::fs::read_to_string(folded).map_err(|e| format!("{folded}: {e}"))?;
    let input = short_frames(&raw);
    if input.trim().is_empty() {
        return Err(format!("{folded} holds no stacks"));
    }
    let mut options = inferno::flamegraph::Options::default();
    options.title = o.get("--title").unwrap_or("CKB-VM cycles").to_string();
    options.count_name = "cycles".to_string();
    options.name_type = "Function:".to_string();
    let mut svg = Vec::new();
    inferno::flamegraph::from_reader(&mut options, input.as_bytes(), &mut svg)
        .map_err(|e| format!("rendering {folded}: {e}"))?;
    std::fs::write(out, svg).map_err(|e| format!("{out}: {e}"))?;
    Ok(())
}

/// ckb-debugger names each frame `source-path:function` ("??:func_0x…" without symbols) and
/// separates frames with "; ". The chart shows function names only; the folded file keeps
/// the paths.
fn short_frames(folded: &str) -> String {
    let mut out = String::with_capacity(folded.len() / 2);
    for line in folded.lines() {
        let Some((stack, count)) = line.trim_end().rsplit_once(' ') else {
            continue;
        };
        let frames: Vec<&str> = stack
            .split(';')
            .map(|f| {
                let f = f.trim();
                // The path never holds a colon; the function may hold "::".
                match f.find(':') {
                    Some(i) if !f[i + 1..].starts_with(':') => &f[i + 1..],
                    _ => f,
                }
            })
            .collect();
        out.push_str(&frames.join(";"));
        out.push(' ');
        out.push_str(count);
        out.push('\n');
    }
    out
}

fn cmd_gate(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &["--bless"])?;
    let root = gate::workspace_root();
    let file = root.join(gate::FILE);
    let measured = gate::measure(&gate::release_dir())?;
    if o.flag("--bless") {
        write(&file, &gate::render(&measured))?;
        println!("wrote {} ({} entries)", gate::FILE, measured.len());
        // The README's cycle table shows the same reference-seed numbers.
        let readme = root.join("README.md");
        let text =
            std::fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
        let table = gate::readme_table(&measured, &gate::release_dir())?;
        let text = doc_blocks::replace_between(&text, gate::README_BLOCK, &table)
            .map_err(|e| format!("{}: {e}", readme.display()))?;
        write(&readme, &text)?;
        println!("updated the cycle table in README.md:\n{table}");
        return Ok(());
    }
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let changes = gate::compare(&gate::parse(&text)?, &measured);
    if changes.is_empty() {
        println!("{}: all {} entries match", gate::FILE, measured.len());
        Ok(())
    } else {
        Err(format!(
            "cycles differ from {}:\n{}",
            gate::FILE,
            gate::report(&changes)
        ))
    }
}

fn cmd_checksums(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &[])?;
    let dir = PathBuf::from(o.get("--release-dir").unwrap_or("build/release"));
    let text = checksums::render(&dir)?;
    match o.get("--write") {
        Some(path) => write(Path::new(path), &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
