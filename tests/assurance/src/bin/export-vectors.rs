//! Writes assurance corpora in the C host harness's vector format (docs/c-verifier.md), so
//! `contracts/c-verifier/host/run.sh DIR` runs the C core, with ckb-c-stdlib's blake2b.h, under ASan + UBSan
//! on them. Expected codes are the compiled Rust core's; every vector is
//! first checked to give the same code from the C core natively.
//!
//!   cargo run --release -p assurance --bin export-vectors -- OUT_DIR [CORPUS_DIR...]
//!
//! - `OUT_DIR/structural.vec`: P lines, every opcode skeleton of up to 4 commands (at most 2
//!   items) for every leaf index 0..=n+1 of every MMR of 1..=9 leaves, and honest proofs of
//!   every leaf subset of up to 7 leaves with every bagging choice;
//! - `OUT_DIR/corpus.vec`: L lines (raw args and witness), every file of every CORPUS_DIR
//!   decoded by assurance::diff (the fuzz corpus), compiled witness.

use assurance::exhaustive::skeletons;
use assurance::mmr::Mmr;
use assurance::model::{self, Cmd};
use assurance::{hex, native};
use clap::Parser;
use std::fmt::Write as _;

/// Writes assurance corpora in the C host harness's vector format (docs/c-verifier.md)
#[derive(Parser, Debug)]
#[command(name = "export-vectors")]
struct Cli {
    /// Where structural.vec and corpus.vec are written
    #[arg(value_name = "OUT_DIR")]
    out: String,
    /// Fuzz corpus directories, every file decoded into corpus.vec
    #[arg(value_name = "CORPUS_DIR")]
    corpora: Vec<String>,
}

fn main() {
    let cli: Cli = cli_usage::parse("export-vectors");
    let out = cli.out;
    std::fs::create_dir_all(&out).expect("create OUT_DIR");

    let mut structural = String::new();
    let mut count = 0usize;
    let mut p_line = |s: &mut String, mmr: &Mmr, payload: &[u8], label: &str| {
        let r = native::compiled_payload(payload, &mmr.root, mmr.leaf_count());
        let c = native::c_payload(payload, &mmr.root, mmr.leaf_count());
        assert_eq!(r, c, "Rust and C differ on {}", hex(payload));
        let p = if payload.is_empty() {
            "-".to_string()
        } else {
            hex(payload)
        };
        writeln!(s, "P {p} {} {} {r} {label}", hex(&mmr.root), mmr.mmr_size()).unwrap();
        count += 1;
    };
    let sk = skeletons(4, 2);
    for n in 1..=9u64 {
        let mmr = Mmr::with_leaf_count(n, 0x5eed);
        let pool = mmr.value_pool();
        for index in 0..=n + 1 {
            let value = if index < n {
                mmr.leaves[index as usize]
            } else {
                pool[0]
            };
            for ops in &sk {
                let mut j = 0;
                let cmds: Vec<Cmd> = ops
                    .iter()
                    .map(|&o| {
                        j += 1;
                        Cmd::from_op(o, pool[(j * 7) % pool.len()]).unwrap()
                    })
                    .collect();
                let payload = model::encode_compiled(&[(index, value)], &cmds);
                p_line(
                    &mut structural,
                    &mmr,
                    &payload,
                    &format!("n{n}-i{index}-ops{ops:?}").replace(' ', ""),
                );
            }
        }
        if n <= 7 {
            for m in 1..(1u64 << n) {
                let indexes: Vec<u64> = (0..n).filter(|i| m >> i & 1 == 1).collect();
                let choices = std::iter::once(None)
                    .chain(model::bag_points(n, &indexes).into_iter().map(Some));
                for bag in choices {
                    let leaves: Vec<(u64, [u8; 32])> = indexes
                        .iter()
                        .map(|&i| (i, mmr.leaves[i as usize]))
                        .collect();
                    let payload = model::encode_compiled(
                        &leaves,
                        &model::honest_commands(&mmr, &indexes, bag),
                    );
                    p_line(
                        &mut structural,
                        &mmr,
                        &payload,
                        &format!("honest-n{n}-m{m}-bag{bag:?}"),
                    );
                }
            }
        }
    }
    std::fs::write(format!("{out}/structural.vec"), &structural).expect("write");

    let mut corpus = String::new();
    let mut files = 0usize;
    for dir in cli.corpora {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        for path in entries {
            let data = std::fs::read(&path).expect("read corpus file");
            let case = assurance::diff::decode(&data);
            let w = case.compiled_witness.as_deref();
            let r = native::compiled_lock(&case.args, w);
            let c = native::c_lock(&case.args, w);
            assert_eq!(r, c, "Rust and C differ on {}", path.display());
            let a = if case.args.is_empty() {
                "-".to_string()
            } else {
                hex(&case.args)
            };
            let w = match w {
                None => "none".to_string(),
                Some([]) => "-".to_string(),
                Some(w) => hex(w),
            };
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            writeln!(corpus, "L {a} {w} {r} {name}").unwrap();
            files += 1;
        }
    }
    std::fs::write(format!("{out}/corpus.vec"), &corpus).expect("write");
    println!("{count} structural vectors and {files} corpus vectors written to {out}");
}
