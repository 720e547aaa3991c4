//! cycle-lab: the command-line front of the cycle lab (docs/performance.md). `cycle-lab
//! --help` lists the commands, `cycle-lab <command> --help` each one's options. Exit codes: 0
//! done; 1 a measurement or a build failed (one line on stderr says what); 2 a usage error
//! (one line naming it, nothing read or written).

use ckb_mmr_sdk::REFERENCE_SEED;
use clap::{Args, Parser, Subcommand};
use cycle_lab::engine::{release_specs, RELEASE_VERIFIERS};
use cycle_lab::sweep::{self, Progress};
use cycle_lab::{acc_growth, acc_ring, chart, checksums, formats, gate, growth, journey, runs};
use cycle_lab::{read, splice_file, write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The cycle lab: the verifiers measured in-process on ckb-script (the engine behind
/// ckb-debugger) and under ckb-debugger itself.
#[derive(Parser)]
#[command(name = "cycle-lab")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Each release verifier on one seed's tx.json in ckb-debugger: input, verifier, run
    /// result, cycles, witness bytes, its own transaction's bytes, weight and minimum fee,
    /// stripped bytes. Fails when one rejects the honest transaction.
    Run {
        /// The workload's seed.
        #[arg(long, default_value_t = REFERENCE_SEED)]
        seed: u64,
        #[command(flatten)]
        release: Release,
        /// The mock transaction written (and run).
        #[arg(long, default_value = "tx.json")]
        tx: PathBuf,
        /// Where each verifier's own transaction (its input of tx.json alone) is written, as
        /// tx-<verifier>.json.
        #[arg(long, default_value = "build/run")]
        dir: PathBuf,
    },
    /// Run the release verifiers on many seeds in-process, first on one thread, then on all;
    /// print min/median/max cycles, seeds per second on each and the speedup.
    Sweep(SweepArgs),
    /// Build every journey step (steps.rs: cargo features, the C verifier's settings), run each
    /// on the reference seed in ckb-debugger, then measure them in-process (that seed, which
    /// must give ckb-debugger's cycles, and a seed sweep); write journey.{csv,json,svg,md} and
    /// the accumulator's steps' table.
    Journey(JourneyArgs),
    /// The accumulator type script's steps (a manifest `journey` wrote): the cost table's
    /// large transitions and keep per step.
    AccJourney {
        #[arg(long, default_value = "build/journey/acc-variants.tsv")]
        manifest: PathBuf,
        /// Replace FILE's accumulator-journey-table block.
        #[arg(long, value_name = "FILE")]
        doc: Option<PathBuf>,
    },
    /// Profile one release verifier on one seed under ckb-debugger (its .debug binary) and
    /// render the flamegraph: DIR/<verifier>-<seed>.svg and .folded.
    Flamegraph {
        /// baseline, c or compiled.
        verifier: String,
        /// The workload's seed.
        #[arg(default_value_t = REFERENCE_SEED)]
        seed: u64,
        #[command(flatten)]
        release: Release,
        #[arg(long, default_value = "build/flamegraph")]
        dir: PathBuf,
    },
    /// Render ckb-debugger's --flamegraph-output (folded stacks) as an SVG (inferno).
    Render {
        folded: PathBuf,
        out: PathBuf,
        #[arg(long, default_value = "CKB-VM cycles")]
        title: String,
    },
    /// Build two git revisions in temporary worktrees and print their cycles (ckb-debugger)
    /// and sizes side by side.
    Compare {
        a: String,
        b: String,
        /// Seeds, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [REFERENCE_SEED])]
        seeds: Vec<u64>,
    },
    /// Measure the release verifiers on the gate seeds and compare with
    /// tests/expected-cycles.json.
    Gate {
        /// Rewrite the file (and README's cycle table) instead.
        #[arg(long)]
        bless: bool,
    },
    /// Build one Rust contract (`--profile contract`, cargo's home remapped to /cargo) and
    /// install it under DIR stripped, with its `.debug` copy: build.sh's default build and the
    /// journey's steps, so the binaries of checksums.txt come from one place.
    BuildContract {
        /// The contract's package.
        package: String,
        /// Where `<package>` and `<package>.debug` are written.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// The workspace to build.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Further cargo arguments (features), after `--`.
        #[arg(last = true)]
        cargo_args: Vec<String>,
    },
    /// Print the sha256 of the release binaries (sha256sum format).
    Checksums {
        #[command(flatten)]
        release: Release,
        /// Write them to FILE instead.
        #[arg(long, value_name = "FILE")]
        write: Option<PathBuf>,
    },
    /// Cycles and witness bytes against MMR size (2^4..2^40 leaves): the release verifiers
    /// on honest proofs of 1, 10, 100 leaves and the largest claim one witness carries; the
    /// accumulator's appends and ancestry proofs.
    Growth {
        #[command(flatten)]
        release: Release,
        /// Write the SVG chart.
        #[arg(long, value_name = "FILE")]
        chart: Option<PathBuf>,
        /// Replace FILE's growth-table block.
        #[arg(long, value_name = "FILE")]
        doc: Option<PathBuf>,
        /// Replace FILE's accumulator-cost-table, accumulator-ring-cost-table and
        /// accumulator-growth-table blocks.
        #[arg(long, value_name = "FILE")]
        acc_doc: Option<PathBuf>,
        /// Replace FILE's accumulator-cycle-table block.
        #[arg(long, value_name = "FILE")]
        readme: Option<PathBuf>,
    },
    /// The compiled format's candidate layouts: bytes above the hashes on the reference seed
    /// and across the growth range (docs/compiled-format.md, section 6).
    Formats {
        /// The workload's seed.
        #[arg(long, default_value_t = REFERENCE_SEED)]
        seed: u64,
        /// Replace FILE's format-candidates block.
        #[arg(long, value_name = "FILE")]
        doc: Option<PathBuf>,
    },
}

#[derive(Args)]
struct Release {
    /// The release binaries.
    #[arg(long, default_value = "build/release")]
    release_dir: PathBuf,
}

#[derive(Args)]
struct SweepArgs {
    /// Number of seeds.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    seeds: u64,
    /// Seeds S, S+1, ...
    #[arg(long, default_value_t = 1)]
    first_seed: u64,
    /// The parallel run's threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    release: Release,
    /// Rounds of (1 thread, all threads); the fastest of each counts.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Fail when the speedup is below X.
    #[arg(long, value_name = "X")]
    min_speedup: Option<f64>,
    /// Also write the result as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Args)]
struct JourneyArgs {
    /// Measure the steps listed in this manifest instead of building them.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Where the steps are built.
    #[arg(long, default_value = "build/journey")]
    dir: PathBuf,
    /// Sweep seeds 1..=N.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    seeds: u64,
    /// The seed ckb-debugger runs.
    #[arg(long, default_value_t = REFERENCE_SEED)]
    reference_seed: u64,
    /// With the reference seed: update docs/journey.svg, performance.md's journey table and
    /// accumulator.md's accumulator-journey-table (the other options name files one by one).
    #[arg(long)]
    update_docs: bool,
    /// Also copy the SVG chart here.
    #[arg(long, value_name = "FILE")]
    chart: Option<PathBuf>,
    /// Also write the table as Markdown.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Replace the table between FILE's journey-table markers.
    #[arg(long, value_name = "FILE")]
    doc: Option<PathBuf>,
    /// Replace FILE's accumulator-journey-table block.
    #[arg(long, value_name = "FILE")]
    acc_doc: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli: Cli = cli_usage::parse("cycle-lab");
    let result = match cli.command {
        Command::Run {
            seed,
            release,
            tx,
            dir,
        } => runs::run_table(&release.release_dir, seed, &tx, &dir),
        Command::Sweep(a) => cmd_sweep(a),
        Command::Journey(a) => cmd_journey(a),
        Command::AccJourney { manifest, doc } => cmd_acc_journey(&manifest, doc),
        Command::Flamegraph {
            verifier,
            seed,
            release,
            dir,
        } => cmd_flamegraph(&verifier, seed, &release.release_dir, &dir),
        Command::Render { folded, out, title } => render(&folded, &out, &title),
        Command::Compare { a, b, seeds } => {
            runs::compare(&gate::workspace_root(), [a.as_str(), b.as_str()], &seeds)
        }
        Command::Gate { bless } => cmd_gate(bless),
        Command::BuildContract {
            package,
            dir,
            root,
            cargo_args,
        } => cycle_lab::steps::build_rust_contract(&root, &package, &dir, &cargo_args).map(|_| ()),
        Command::Checksums { release, write } => cmd_checksums(&release.release_dir, write),
        Command::Growth {
            release,
            chart,
            doc,
            acc_doc,
            readme,
        } => cmd_growth(&release.release_dir, chart, doc, acc_doc, readme),
        Command::Formats { seed, doc } => {
            let table = formats::markdown(&formats::proofs(seed));
            print!("{table}");
            splice_into(doc, &[(formats::DOC_BLOCK, &table)])
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cycle-lab: {e}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_sweep(args: SweepArgs) -> Result<(), String> {
    let (n, first, repeat) = (args.seeds, args.first_seed, args.repeat);
    let threads = args.threads.unwrap_or_else(sweep::all_threads);
    let specs = release_specs(&args.release.release_dir)?;
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
    let warm_up = &seeds[..seeds.len().min(4)];
    sweep::run(&specs, warm_up, threads, "warm-up", Progress::Quiet)?;
    // Alternate 1-thread and parallel runs and keep the fastest of each: a run that another
    // process slowed down says nothing about the sweep.
    let mut one: Option<sweep::Sweep> = None;
    let mut all: Option<sweep::Sweep> = None;
    for round in 1..=repeat {
        let labels = [
            format!("1 thread #{round}"),
            format!("{threads} threads #{round}"),
        ];
        let a = sweep::run(&specs, &seeds, 1, &labels[0], Progress::Bar)?;
        let b = sweep::run(&specs, &seeds, threads, &labels[1], Progress::Bar)?;
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
    print!("{}", all.table());
    let speedup = all.seeds_per_second() / one.seeds_per_second();
    println!();
    for (label, run) in [
        ("1 thread: ".to_string(), &one),
        (format!("{} threads:", all.threads), &all),
    ] {
        let share = run
            .cpu_share()
            .map(|c| format!(", on CPU {:.0}% of threads x wall time", c * 100.0))
            .unwrap_or_default();
        println!(
            "{label} {:>8.1} seeds/s ({} runs in {:.3} s{share})",
            run.seeds_per_second(),
            run.runs(),
            run.elapsed.as_secs_f64(),
        );
    }
    println!(
        "speedup:   {speedup:.2}x on {} threads (fastest of {repeat} rounds each; every round \
         measured identical cycles)",
        all.threads
    );
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "seeds": { "first": first, "count": n },
            "verifiers": all.programs.iter().enumerate().map(|(p, name)| {
                let (s, b, w) = (all.stats(p), all.tx_bytes_stats(p), all.weight_stats(p));
                serde_json::json!({
                    "verifier": name, "min": s.min, "median": s.median, "max": s.max,
                    "tx_bytes": { "min": b.min, "median": b.median, "max": b.max },
                    "weight": { "min": w.min, "median": w.median, "max": w.max },
                    "fee": {
                        "rate": ckb_mmr_sdk::weight::DEFAULT_MIN_FEE_RATE,
                        "min": ckb_mmr_sdk::weight::min_fee(w.min),
                        "median": ckb_mmr_sdk::weight::min_fee(w.median),
                        "max": ckb_mmr_sdk::weight::min_fee(w.max),
                    },
                })
            }).collect::<Vec<_>>(),
            "one_thread": { "seconds": one.elapsed.as_secs_f64(), "seeds_per_second": one.seeds_per_second() },
            "all_threads": { "threads": all.threads, "seconds": all.elapsed.as_secs_f64(), "seeds_per_second": all.seeds_per_second() },
            "speedup": speedup,
        });
        write(path, &serde_json::to_string_pretty(&json).expect("json"))?;
    }
    if let Some(min) = args.min_speedup.filter(|&min| speedup < min) {
        return Err(format!("speedup {speedup:.2} is below {min}"));
    }
    Ok(())
}

fn cmd_journey(a: JourneyArgs) -> Result<(), String> {
    let root = gate::workspace_root();
    let docs = a.update_docs && a.reference_seed == REFERENCE_SEED;
    if a.update_docs && !docs {
        eprintln!("note: the docs record the reference seed's journey; not updating them");
    }
    let doc_path =
        |given: Option<PathBuf>, default: &str| given.or(docs.then(|| root.join(default)));
    let manifest = match a.manifest {
        Some(m) => m,
        None => {
            runs::build_journey(&root, &a.dir, a.reference_seed)?;
            a.dir.join("variants.tsv")
        }
    };
    let variants = journey::read_manifest(&manifest)?;
    let seeds = (1..=a.seeds).collect();
    let j = journey::measure(variants, a.reference_seed, seeds, sweep::all_threads())?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    println!();
    print!("{}", j.table());
    write(&dir.join("journey.csv"), &j.csv())?;
    write(
        &dir.join("journey.json"),
        &(serde_json::to_string_pretty(&j.json()).expect("json") + "\n"),
    )?;
    let svg = chart::svg(&j);
    write(&dir.join("journey.svg"), &svg)?;
    write(&dir.join("journey.md"), &j.markdown())?;
    if let Some(path) = doc_path(a.chart, "docs/journey.svg") {
        write(&path, &svg)?;
    }
    if let Some(path) = a.markdown {
        write(&path, &j.markdown())?;
    }
    let doc = doc_path(a.doc, "docs/performance.md");
    splice_into(doc, &[(journey::DOC_BLOCK, &j.markdown())])?;
    println!();
    println!(
        "reference seed {}: ckb-debugger's cycles, equal to ckb-script in-process \
         for every variant (checked); min/median/max over {}",
        a.reference_seed,
        j.sweep_description()
    );
    let flat = j.non_decreasing_steps();
    if !flat.is_empty() {
        println!("note: steps that did not lower the reference-seed cycles: {flat:?}");
    }
    let acc_manifest = dir.join("acc-variants.tsv");
    if acc_manifest.is_file() {
        println!();
        println!("The accumulator's type script, per step (in-process, the type script alone):");
        cmd_acc_journey(&acc_manifest, doc_path(a.acc_doc, "docs/accumulator.md"))?;
    }
    println!();
    println!(
        "Binaries and tx.json per step in {}/NN/; journey.{{csv,json,svg,md}} beside them{}",
        dir.display(),
        if docs {
            "; docs/journey.svg, performance.md and accumulator.md updated"
        } else {
            ""
        }
    );
    Ok(())
}

/// The growth table's block in docs/performance.md.
const GROWTH_BLOCK: &str = "growth-table";

fn cmd_growth(
    dir: &Path,
    chart: Option<PathBuf>,
    doc: Option<PathBuf>,
    acc_doc: Option<PathBuf>,
    readme: Option<PathBuf>,
) -> Result<(), String> {
    let g = growth::measure(&release_specs(dir)?)?;
    let table = g.markdown();
    print!("{table}");
    if let Some(path) = chart {
        write(&path, &g.svg())?;
    }
    splice_into(doc, &[(GROWTH_BLOCK, &table)])?;
    let spec = acc_growth::spec(dir)?;
    let acc = acc_growth::measure(&spec)?;
    let (costs, rows, readme_rows) = (acc.cost_table(), acc.growth_table(), acc.readme_table());
    println!(
        "\naccumulator type script, transitions (keep's floor: {} cycles):\n{costs}",
        acc.floor()
    );
    println!("accumulator type script, cycles / witness bytes / weight against MMR size:\n{rows}");
    let ring = acc_ring::table(&acc_ring::measure(&spec)?);
    println!("accumulator ring beside the single accumulator:\n{ring}");
    let acc_blocks = [
        (acc_growth::COST_BLOCK, costs.as_str()),
        (acc_ring::RING_BLOCK, &ring),
        (acc_growth::GROWTH_BLOCK, &rows),
    ];
    splice_into(acc_doc, &acc_blocks)?;
    splice_into(readme, &[(acc_growth::README_BLOCK, &readme_rows)])
}

fn cmd_acc_journey(manifest: &Path, doc: Option<PathBuf>) -> Result<(), String> {
    let table = acc_growth::journey(manifest)?;
    print!("{table}");
    splice_into(doc, &[(acc_growth::JOURNEY_BLOCK, &table)])
}

/// [`splice_file`] when a file is given.
fn splice_into(path: Option<PathBuf>, blocks: &[(&str, &str)]) -> Result<(), String> {
    path.map_or(Ok(()), |path| splice_file(&path, blocks))
}

fn cmd_flamegraph(verifier: &str, seed: u64, release: &Path, dir: &Path) -> Result<(), String> {
    let v = RELEASE_VERIFIERS
        .iter()
        .map(|&(name, _)| name)
        .find(|name| *name == verifier || name.strip_suffix("-verifier") == Some(verifier))
        .ok_or_else(|| format!("unknown verifier {verifier:?} (baseline, c or compiled)"))?;
    let (folded, cycles, index) = runs::profile(release, v, seed, dir)?;
    let svg = dir.join(format!("{v}-{seed}.svg"));
    render(
        &folded,
        &svg,
        &format!("{v}, seed {seed}: {cycles} cycles (ckb-debugger)"),
    )?;
    println!("{}", svg.display());
    println!(
        "(folded stacks: {}; the run: ckb-debugger --tx-file {}/tx-{seed}.json --cell-type input \
         --script-group-type lock --cell-index {index})",
        folded.display(),
        dir.display()
    );
    Ok(())
}

fn render(folded: &Path, out: &Path, title: &str) -> Result<(), String> {
    let input = short_frames(&read(folded)?);
    if input.trim().is_empty() {
        return Err(format!("{} holds no stacks", folded.display()));
    }
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "cycles".to_string();
    options.name_type = "Function:".to_string();
    let mut svg = Vec::new();
    inferno::flamegraph::from_reader(&mut options, input.as_bytes(), &mut svg)
        .map_err(|e| format!("rendering {}: {e}", folded.display()))?;
    std::fs::write(out, svg).map_err(|e| format!("{}: {e}", out.display()))
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
        out.push_str(&format!("{} {count}\n", frames.join(";")));
    }
    out
}

fn cmd_gate(bless: bool) -> Result<(), String> {
    let root = gate::workspace_root();
    let file = root.join(gate::FILE);
    let measured = gate::measure(&gate::release_dir())?;
    if bless {
        write(&file, &gate::render(&measured))?;
        println!("wrote {} ({} entries)", gate::FILE, measured.len());
        // The README's cycle table shows the same reference-seed numbers.
        let table = gate::readme_table(&measured, &gate::release_dir())?;
        splice_file(&root.join("README.md"), &[(gate::README_BLOCK, &table)])?;
        println!("updated the cycle table in README.md:\n{table}");
        return Ok(());
    }
    let changes = gate::compare(&gate::parse(&read(&file)?)?, &measured);
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

fn cmd_checksums(dir: &Path, out: Option<PathBuf>) -> Result<(), String> {
    let text = checksums::render(dir)?;
    if let Some(path) = out {
        return write(&path, &text);
    }
    print!("{text}");
    Ok(())
}
