//! kernel-proof: proves the assembly merge kernel equal to BLAKE2b-256 for every input.
//! `kernel-proof --help` and `kernel-proof mutants --help` list the options.
//!
//!   kernel-proof [--root DIR] [--release-dir DIR] [--elf FILE.debug]... [--no-source]
//!       the proof: every entry in every `.debug` binary of the release directory (default
//!       <root>/build/release), each stripped binary's loaded bytes against its `.debug`, the
//!       kernel source assembled with clang-19 (unless --no-source), the call sites and the
//!       header. Exit 0 when everything holds, 1 otherwise.
//!   kernel-proof mutants [--root DIR] [--release-dir DIR] [--elf FILE.debug] [--every N] [--bit-flips]
//!       the mutation run on one binary (default <root>/build/release/compiled-verifier.debug,
//!       which links all three entries): counts by verdict, the accepted (equivalent) mutants
//!       with the reason, the declaration mutants of the wrappers and the header, and the
//!       time. Exit 1 if an output mismatch has no concrete counterexample or a declaration
//!       mutant is accepted.

use clap::{Parser, Subcommand};
use kernel_proof::check::{self, ENTRIES};
use kernel_proof::elf::Image;
use kernel_proof::mutate::{self, Baseline, Context};
use kernel_proof::report::{self, Options};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Proves the RV64 assembly merge kernel, as linked into the release binaries, equal to
/// BLAKE2b-256 for every input (exit 0 when everything holds, 1 otherwise, 2 usage)
#[derive(Parser, Debug)]
#[command(name = "kernel-proof", disable_help_subcommand = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The repository [default: the one this binary was built from]
    #[arg(long, value_name = "DIR", global = true)]
    root: Option<PathBuf>,
    /// The release binaries [default: ROOT/build/release]
    #[arg(long, value_name = "DIR", global = true)]
    release_dir: Option<PathBuf>,
    /// A `.debug` binary to check instead of the release directory's (repeatable)
    #[arg(long, value_name = "FILE.debug", global = true)]
    elf: Vec<PathBuf>,
    /// Skip assembling the kernel source with clang-19
    #[arg(long)]
    no_source: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The mutation run on one binary (default RELEASE/compiled-verifier.debug, which links
    /// all three entries): counts by verdict, the accepted mutants with the reason, the
    /// declaration mutants and the time; exit 1 if an output mismatch has no concrete
    /// counterexample or a declaration mutant is accepted
    Mutants {
        /// Try every Nth mutant
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u64).range(1..))]
        every: u64,
        /// Also single bit flips of each instruction
        #[arg(long)]
        bit_flips: bool,
    },
}

fn main() -> ExitCode {
    let cli: Cli = cli_usage::parse("kernel-proof");
    let root = cli.root.unwrap_or_else(report::default_root);
    let (release, elfs, source) = (cli.release_dir, cli.elf, !cli.no_source);
    let mutants = cli
        .command
        .map(|Command::Mutants { every, bit_flips }| (every as usize, bit_flips));
    let release = release.unwrap_or_else(|| root.join("build/release"));
    if let Some((every, bit_flips)) = mutants {
        let elf = elfs
            .first()
            .cloned()
            .unwrap_or_else(|| release.join("compiled-verifier.debug"));
        return run_mutants(&root, &elf, every, bit_flips);
    }
    let mut images: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    if elfs.is_empty() {
        match report::release_images(&release) {
            Ok(v) => images = v,
            Err(e) => {
                eprintln!("kernel-proof: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        for e in elfs {
            let stripped = e.with_extension("");
            let s = (e.extension().is_some_and(|x| x == "debug") && stripped.exists())
                .then_some(stripped);
            images.push((e, s));
        }
    }
    let scratch = std::env::temp_dir().join(format!("kernel-proof-{}", std::process::id()));
    let opts = Options {
        root,
        images,
        assemble_into: source.then(|| scratch.clone()),
        spec_samples: 2000,
        concrete_samples: 200,
    };
    let started = Instant::now();
    let out = report::run(&opts);
    let _ = std::fs::remove_dir_all(&scratch);
    print!("{}", out.text);
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if out.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn run_mutants(
    root: &std::path::Path,
    elf: &std::path::Path,
    every: usize,
    bit_flips: bool,
) -> ExitCode {
    match mutation_run(root, elf, every, bit_flips) {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(e) => {
            eprintln!("kernel-proof mutants: {e}");
            ExitCode::from(1)
        }
    }
}

/// The mutation run; returns whether something needs a look.
fn mutation_run(
    root: &std::path::Path,
    elf: &std::path::Path,
    every: usize,
    bit_flips: bool,
) -> Result<bool, String> {
    let started = Instant::now();
    let mut img = Image::read_file(elf)?;
    let sources = report::declaration_sources(root)?;
    let decl = report::declarations_from(&sources)?;
    let base = Baseline::new(&img)?;
    let ctx = Context {
        sites: &decl.sites,
        header: &decl.header,
        tries: 8,
    };
    let all = mutate::all_mutants(&img, &base)?;
    let chosen: Vec<_> = all.iter().step_by(every).cloned().collect();
    let names: Vec<&str> = base.entries.iter().map(|(e, _, _)| e.name).collect();
    println!(
        "mutation run on {}: {} of {} entries ({}), {} executed instructions",
        elf.display(),
        names.len(),
        ENTRIES.len(),
        names.join(", "),
        base.pcs().len()
    );
    let mut bad = false;
    let s = mutate::run_mutants(&img, &base, &ctx, &chosen);
    bad |= print_summary("instruction mutants", &s, every);
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    let proved: Vec<_> = check::prove_image(&img, &|_| None)
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .collect();
    let (n, rejected, accepted) = mutate::run_declaration_mutants(&sources, &proved);
    println!(
        "declaration mutants (one clobber, output, input, memory option, store offset or header entry wrong in asm.rs, merge_asm.h, merge_rv64.s): {n} total, {rejected} rejected, {} accepted",
        accepted.len()
    );
    for a in &accepted {
        println!("  ACCEPTED: {a}");
    }
    bad |= !accepted.is_empty();
    let t1 = started.elapsed();
    println!("({:.1} s)", t1.as_secs_f64());
    if bit_flips {
        let f = mutate::run_bit_flips(&mut img, &base, &ctx, every);
        bad |= print_summary("single-bit flips of the encodings", &f, every);
        println!("({:.1} s)", (started.elapsed() - t1).as_secs_f64());
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(bad)
}

/// Prints the counts; returns whether something needs a look (unconfirmed rejections).
fn print_summary(title: &str, s: &mutate::Summary, every: usize) -> bool {
    let sample = if every > 1 {
        format!(" (every {every}th)")
    } else {
        String::new()
    };
    println!("{title}{sample}: {} total", s.total);
    for (label, n) in &s.by_verdict {
        println!("  {n:>7}  {label}");
    }
    println!(
        "  rejected {}, equivalent {}, unconfirmed {}",
        s.rejected,
        s.equivalent.len(),
        s.unconfirmed.len()
    );
    for (m, why) in &s.equivalent {
        print_mutant("equivalent at", m, &format!(": {why}"));
    }
    for m in &s.effects {
        print_mutant("effects only at", m, "");
    }
    for m in &s.unconfirmed {
        print_mutant("UNCONFIRMED at", m, "");
    }
    !s.unconfirmed.is_empty()
}

fn print_mutant(label: &str, m: &mutate::Mutant, tail: &str) {
    println!(
        "  {label} {:#x}: {} -> {} ({}){tail}",
        m.pc,
        m.original.render(m.pc),
        m.inst.render(m.pc),
        m.what
    );
}
