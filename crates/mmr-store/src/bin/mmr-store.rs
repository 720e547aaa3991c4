//! `mmr-store`: drive a persistent MMR store from a shell (docs/accumulator-guide.md, "The app
//! side: the store"). Every error is one line on stderr and the exit code of its kind
//! (docs/error-codes.md, "The store"); 2 is a usage error.

use clap::{Args, Parser};
use mmr_store::{hex, Error, Hash, LeafReader, Store};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const AFTER_HELP: &str = "Exit codes: 0 ok, 2 usage, 40-53 the store's (docs/error-codes.md).";

// Parser on the enum itself: clap requires a command and, given none, prints the help and
// exits 2 (arg_required_else_help) as it would for a struct wrapping it.
/// Drive a persistent, crash-safe MMR store from a shell
#[derive(Parser, Debug)]
#[command(name = "mmr-store", after_help = AFTER_HELP, disable_help_subcommand = true)]
enum Command {
    /// Creates an empty store in DIR (created if missing)
    Init {
        dir: PathBuf,
        /// The accumulator (type id) the store belongs to
        #[arg(long, value_name = "HEX32", value_parser = hash32)]
        accumulator: Option<Hash>,
    },
    /// Appends the leaves of FILE
    ///
    /// The whole file is read and checked first, so a bad line changes nothing; then it is
    /// appended in commits of N leaves.
    Append {
        dir: PathBuf,
        /// One 32-byte leaf per line as 64 hex digits ('-': standard input)
        ///
        /// '#' starts a comment.
        #[arg(long, value_name = "FILE")]
        leaves: String,
        /// Leaves per commit
        #[arg(long, value_name = "N", default_value_t = 1 << 20)]
        batch: u64,
        /// One commit, made only if the new root is HEX32
        ///
        /// Exit 51 and nothing appended otherwise.
        #[arg(long, value_name = "HEX32", value_parser = hash32)]
        expect_root: Option<Hash>,
    },
    /// The root at the current size or at mmr_size N
    Root {
        dir: PathBuf,
        /// An earlier mmr_size [default: the current one]
        #[arg(long, value_name = "N")]
        size: Option<u64>,
    },
    /// The proof of the leaf indexes LIST as a lock payload and its lock args
    ///
    /// At the current size, or at mmr_size N.
    Prove {
        dir: PathBuf,
        /// The leaf indexes, e.g. 0,5,7-9
        #[arg(long, value_name = "LIST", value_parser = index_list)]
        index: String,
        /// An earlier mmr_size [default: the current one]
        #[arg(long, value_name = "N")]
        size: Option<u64>,
        /// The payload format
        #[arg(long, value_name = "FORMAT", default_value = "compiled",
              value_parser = ["compiled", "baseline"])]
        format: String,
    },
    /// The accumulator's APPEND payload from mmr_size OLD to NEW
    AppendPayload(Span),
    /// The ancestry proof (EXTEND body) from mmr_size OLD to NEW
    Ancestry(Span),
    /// Records the accumulator (type id) the store belongs to; once
    SetAccumulator {
        dir: PathBuf,
        #[arg(value_name = "HEX32", value_parser = hash32)]
        accumulator: Hash,
    },
    /// Rehashes every node and every recorded root
    Check { dir: PathBuf },
    /// Size, leaf count, root, commits, accumulator
    Info { dir: PathBuf },
}

/// Two sizes of the store's MMR.
#[derive(Args, Debug)]
struct Span {
    dir: PathBuf,
    /// The old mmr_size
    #[arg(long, value_name = "OLD")]
    from: u64,
    /// The new mmr_size [default: the current one]
    #[arg(long, value_name = "NEW")]
    to: Option<u64>,
}

/// A leaf index list, checked here so a bad one is a usage error before the store is opened.
fn index_list(s: &str) -> Result<String, String> {
    mmr_store::parse_indexes(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

fn hash32(s: &str) -> Result<Hash, String> {
    match mmr_store::parse_leaf_line(s, 1) {
        Ok(Some(h)) if !s.contains('#') => Ok(h),
        _ => Err("not 32 bytes of hex".into()),
    }
}

fn print_state(store: &Store) -> Res<()> {
    let s = store.state()?;
    println!("mmr_size: {}", s.mmr_size);
    println!("leaf_count: {}", s.leaf_count);
    println!("root: {}", hex(&s.root));
    Ok(())
}

fn append(dir: &Path, file: &str, batch: u64, expect: Option<Hash>) -> Res<()> {
    let batch = batch.max(1) as usize;
    let mut store = Store::open(dir)?;
    let open = || -> Res<BufReader<std::fs::File>> {
        std::fs::File::open(file)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|e| Error::Io {
                what: format!("reading {file}"),
                err: e,
            })
    };
    // Stdin cannot be read twice: it is held in memory. A file is read twice, first only to
    // check every line, so a bad line is found before anything is appended.
    let from_stdin: Option<Vec<Hash>> = if file == "-" {
        Some(LeafReader::new(std::io::stdin().lock()).collect::<Result<_, _>>()?)
    } else {
        mmr_store::count_leaves(open()?)?;
        None
    };
    let mut leaves: Box<dyn Iterator<Item = Result<Hash, Error>>> = match from_stdin {
        Some(all) => Box::new(all.into_iter().map(Ok)),
        None => Box::new(LeafReader::new(open()?)),
    };
    if expect.is_some() {
        let all: Vec<Hash> = leaves.collect::<Result<_, _>>()?;
        store.append_expecting(&all, expect.as_ref())?;
    } else {
        let mut chunk = Vec::with_capacity(batch.min(1 << 20));
        loop {
            chunk.clear();
            for leaf in leaves.by_ref().take(batch) {
                chunk.push(leaf?);
            }
            if chunk.is_empty() {
                break;
            }
            store.append(&chunk)?;
        }
    }
    println!("commits: {}", store.commit_count());
    print_state(&store)
}

type Res<T> = std::result::Result<T, Error>;

fn run(command: Command) -> Res<()> {
    match command {
        Command::Init { dir, accumulator } => {
            let store = Store::create(&dir, accumulator)?;
            println!("created: {}", store.dir().display());
            Ok(())
        }
        Command::Append {
            dir,
            leaves,
            batch,
            expect_root,
        } => append(&dir, &leaves, batch, expect_root),
        Command::Root { dir, size } => {
            let store = Store::open_read_only(&dir)?;
            let size = size.unwrap_or(store.mmr_size());
            println!("mmr_size: {size}");
            println!("root: {}", hex(&store.root_at(size)?));
            Ok(())
        }
        Command::Prove {
            dir,
            index,
            size,
            format,
        } => {
            let store = Store::open_read_only(&dir)?;
            let indexes = mmr_store::parse_indexes(&index).expect("checked by clap");
            let size = size.unwrap_or(store.mmr_size());
            let proof = store.proof(size, &indexes)?;
            let payload = match format.as_str() {
                "baseline" => proof.baseline_payload(),
                _ => proof.compiled_payload()?,
            };
            let args = [&proof.root[..], &proof.mmr_size.to_le_bytes()].concat();
            let indexes: Vec<String> = proof.indexes().iter().map(u64::to_string).collect();
            println!("mmr_size: {}", proof.mmr_size);
            println!("leaf_count: {}", proof.leaf_count);
            println!("root: {}", hex(&proof.root));
            println!("proved_indexes: {}", indexes.join(","));
            println!("proof_items: {}", proof.items.len());
            println!("args: {}", hex(&args));
            println!("payload: {}", hex(&payload));
            Ok(())
        }
        Command::AppendPayload(span) => payload(span, false),
        Command::Ancestry(span) => payload(span, true),
        Command::SetAccumulator { dir, accumulator } => {
            Store::open(&dir)?.set_accumulator(accumulator)?;
            println!("accumulator: {}", hex(&accumulator));
            Ok(())
        }
        Command::Check { dir } => {
            let store = Store::open_read_only(&dir)?;
            let r = store.check()?;
            println!(
                "ok: {} nodes ({} leaves) rehashed, {} recorded roots match",
                r.nodes, r.leaves, r.commits
            );
            Ok(())
        }
        Command::Info { dir } => {
            let store = Store::open_read_only(&dir)?;
            println!("format_version: {}", mmr_store::FORMAT_VERSION);
            println!(
                "accumulator: {}",
                store.accumulator().map_or("none".into(), |id| hex(&id))
            );
            println!("commits: {}", store.commit_count());
            if store.mmr_size() == 0 {
                println!("mmr_size: 0");
                println!("leaf_count: 0");
                Ok(())
            } else {
                print_state(&store)
            }
        }
    }
}

/// `append-payload` and `ancestry`.
fn payload(span: Span, ancestry: bool) -> Res<()> {
    let store = Store::open_read_only(&span.dir)?;
    let (from, to) = (span.from, span.to.unwrap_or(store.mmr_size()));
    let bytes = if ancestry {
        store.ancestry_proof(from, to)?
    } else {
        store.append_payload(from, to)?
    };
    println!("old_root: {}", hex(&store.root_at(from)?));
    println!("new_mmr_size: {to}");
    println!("new_root: {}", hex(&store.root_at(to)?));
    println!("payload: {}", hex(&bytes));
    Ok(())
}

fn main() -> ExitCode {
    let command: Command = cli_usage::parse("mmr-store");
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mmr-store: {e}");
            ExitCode::from(e.code())
        }
    }
}
