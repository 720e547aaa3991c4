//! `mmr-store`: drive a persistent MMR store from a shell (docs/accumulator.md, "The app
//! side: the store"). Every error is one line on stderr and the exit code of its kind
//! (docs/error-codes.md, "The store"); 2 is a usage error.

use mmr_store::{hex, Error, Hash, LeafReader, Store};
use std::io::BufReader;
use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "\
usage: mmr-store init DIR [--accumulator HEX32]
       mmr-store append DIR --leaves FILE|- [--batch N] [--expect-root HEX32]
       mmr-store root DIR [--size N]
       mmr-store prove DIR --index LIST [--size N] [--format compiled|baseline]
       mmr-store append-payload DIR --from OLD [--to NEW]
       mmr-store ancestry DIR --from OLD [--to NEW]
       mmr-store set-accumulator DIR HEX32
       mmr-store check DIR
       mmr-store info DIR

init             creates an empty store in DIR (created if missing).
append           appends the leaves of FILE ('-': standard input; one 32-byte leaf per line as
                 64 hex digits, '#' starts a comment). The whole file is read and checked
                 first, so a bad line changes nothing; then it is appended in commits of N
                 leaves (default 1048576). --expect-root: one commit, made only if the new root
                 is HEX32 (exit 51 and nothing appended otherwise).
root             the root at the current size or at mmr_size N.
prove            the proof of the leaf indexes LIST (\"0,5,7-9\") at the current size or at N,
                 as a lock payload (default compiled) and its lock args.
append-payload   the accumulator's APPEND payload from mmr_size OLD to NEW (default: current).
ancestry         the ancestry proof (EXTEND body) from mmr_size OLD to NEW (default: current).
set-accumulator  records the accumulator (type id) the store belongs to; once.
check            rehashes every node and every recorded root.
info             size, leaf count, root, commits, accumulator.

Exit codes: 0 ok, 2 usage, 40-53 the store's (docs/error-codes.md).";

enum Fail {
    Usage(String),
    Store(Error),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Store(e)
    }
}

type Res<T> = std::result::Result<T, Fail>;

fn usage<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail::Usage(msg.into()))
}

fn parse_hash(s: &str) -> Res<Hash> {
    match mmr_store::parse_leaf_line(s, 1) {
        Ok(Some(h)) if !s.contains('#') => Ok(h),
        _ => usage(format!("not 32 bytes of hex: {s:?}")),
    }
}

fn parse_u64(flag: &str, s: &str) -> Res<u64> {
    s.parse()
        .or_else(|_| usage(format!("{flag}: not a number: {s:?}")))
}

/// Flags after the directory: `--name value` pairs, then at most `positional` bare values.
struct Flags {
    pairs: Vec<(String, String)>,
    rest: Vec<String>,
}

impl Flags {
    fn parse(args: &[String], known: &[&str], positional: usize) -> Res<Flags> {
        let mut pairs = Vec::new();
        let mut rest = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a.starts_with("--") {
                if !known.contains(&a.as_str()) {
                    return usage(format!("unknown option {a:?}"));
                }
                let v = it
                    .next()
                    .ok_or_else(|| Fail::Usage(format!("{a} needs a value")))?;
                pairs.push((a.clone(), v.clone()));
            } else {
                rest.push(a.clone());
            }
        }
        if rest.len() > positional {
            return usage(format!("unexpected argument {:?}", rest[positional]));
        }
        Ok(Flags { pairs, rest })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn u64(&self, name: &str) -> Res<Option<u64>> {
        self.get(name).map(|v| parse_u64(name, v)).transpose()
    }
}

fn print_state(store: &Store) -> Res<()> {
    let s = store.state()?;
    println!("mmr_size: {}", s.mmr_size);
    println!("leaf_count: {}", s.leaf_count);
    println!("root: {}", hex(&s.root));
    Ok(())
}

fn append(dir: &Path, flags: &Flags) -> Res<()> {
    let file = flags
        .get("--leaves")
        .ok_or_else(|| Fail::Usage("append needs --leaves FILE".into()))?;
    let batch = flags.u64("--batch")?.unwrap_or(1 << 20).max(1) as usize;
    let expect = flags.get("--expect-root").map(parse_hash).transpose()?;
    let mut store = Store::open(dir)?;
    let open = || -> Res<BufReader<std::fs::File>> {
        std::fs::File::open(file)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|e| {
                Fail::Store(Error::Io {
                    what: format!("reading {file}"),
                    err: e,
                })
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

fn run(args: &[String]) -> Res<()> {
    let (cmd, dir, rest) = match args {
        [cmd, dir, rest @ ..] => (cmd.as_str(), Path::new(dir), rest),
        _ => return usage("a command and a store directory are needed"),
    };
    match cmd {
        "init" => {
            let flags = Flags::parse(rest, &["--accumulator"], 0)?;
            let id = flags.get("--accumulator").map(parse_hash).transpose()?;
            let store = Store::create(dir, id)?;
            println!("created: {}", store.dir().display());
            Ok(())
        }
        "append" => append(
            dir,
            &Flags::parse(rest, &["--leaves", "--batch", "--expect-root"], 0)?,
        ),
        "root" => {
            let flags = Flags::parse(rest, &["--size"], 0)?;
            let store = Store::open_read_only(dir)?;
            let size = flags.u64("--size")?.unwrap_or(store.mmr_size());
            println!("mmr_size: {size}");
            println!("root: {}", hex(&store.root_at(size)?));
            Ok(())
        }
        "prove" => {
            let flags = Flags::parse(rest, &["--index", "--size", "--format"], 0)?;
            let store = Store::open_read_only(dir)?;
            let indexes = mmr_store::parse_indexes(
                flags
                    .get("--index")
                    .ok_or_else(|| Fail::Usage("prove needs --index LIST".into()))?,
            )
            .map_err(|e| Fail::Usage(format!("--index: {e}")))?;
            let size = flags.u64("--size")?.unwrap_or(store.mmr_size());
            let proof = store.proof(size, &indexes)?;
            let payload = match flags.get("--format").unwrap_or("compiled") {
                "compiled" => proof.compiled_payload()?,
                "baseline" => proof.baseline_payload(),
                f => return usage(format!("--format is compiled or baseline, got {f:?}")),
            };
            let mut args = proof.root.to_vec();
            args.extend_from_slice(&proof.mmr_size.to_le_bytes());
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
        "append-payload" | "ancestry" => {
            let flags = Flags::parse(rest, &["--from", "--to"], 0)?;
            let store = Store::open_read_only(dir)?;
            let from = flags
                .u64("--from")?
                .ok_or_else(|| Fail::Usage(format!("{cmd} needs --from OLD")))?;
            let to = flags.u64("--to")?.unwrap_or(store.mmr_size());
            let bytes = match cmd {
                "ancestry" => store.ancestry_proof(from, to)?,
                _ => store.append_payload(from, to)?,
            };
            println!("old_root: {}", hex(&store.root_at(from)?));
            println!("new_mmr_size: {to}");
            println!("new_root: {}", hex(&store.root_at(to)?));
            println!("payload: {}", hex(&bytes));
            Ok(())
        }
        "set-accumulator" => {
            let flags = Flags::parse(rest, &[], 1)?;
            let id = match flags.rest.first() {
                Some(v) => parse_hash(v)?,
                None => return usage("set-accumulator needs HEX32"),
            };
            Store::open(dir)?.set_accumulator(id)?;
            println!("accumulator: {}", hex(&id));
            Ok(())
        }
        "check" => {
            Flags::parse(rest, &[], 0)?;
            let store = Store::open_read_only(dir)?;
            let r = store.check()?;
            println!(
                "ok: {} nodes ({} leaves) rehashed, {} recorded roots match",
                r.nodes, r.leaves, r.commits
            );
            Ok(())
        }
        "info" => {
            Flags::parse(rest, &[], 0)?;
            let store = Store::open_read_only(dir)?;
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
        _ => usage(format!("unknown command {cmd:?}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::from(if args.is_empty() { 2 } else { 0 });
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Usage(msg)) => {
            eprintln!("mmr-store: {msg} (mmr-store --help)");
            ExitCode::from(2)
        }
        Err(Fail::Store(e)) => {
            eprintln!("mmr-store: {e}");
            ExitCode::from(e.code())
        }
    }
}
