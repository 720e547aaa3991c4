//! Writes assurance corpora in the C host harness's vector format (docs/c-verifier.md), so
//! `contracts/c-verifier/host/run.sh DIR` runs the C core, with ckb-c-stdlib's blake2b.h, under ASan + UBSan
//! on them. Expected codes are the compiled Rust core's; every vector is
//! first checked to give the same code from the C core natively.
//!
//!   cargo run --release -p assurance --bin export-vectors -- OUT_DIR [CORPUS_DIR...]
//!
//! - `OUT_DIR/structural.vec`: P lines in the compiled format's version 2 (what the contracts
//!   read): one leaf at every index 0..=n+1 of every MMR of 1..=9 leaves with 0..=6 items
//!   (the MMR's nodes, its root, zero), and honest proofs of every leaf subset of up to 7
//!   leaves;
//! - `OUT_DIR/corpus.vec`: L lines (raw args and witness), every file of every CORPUS_DIR
//!   decoded by assurance::diff (the fuzz corpus), compiled witness.

use assurance::mmr::Mmr;
use assurance::{compact, hex, native};
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
    let mut p_line = |mmr: &Mmr, payload: &[u8], label: &str| {
        let r = native::compact_payload(payload, &mmr.root, mmr.leaf_count());
        let c = native::c_compact_payload(payload, &mmr.root, mmr.leaf_count());
        assert_eq!(r, c, "Rust and C differ on {}", hex(payload));
        let (p, root, size) = (hex_or_dash(payload), hex(&mmr.root), mmr.mmr_size());
        writeln!(structural, "P {p} {root} {size} {r} {label}").unwrap();
        count += 1;
    };
    for n in 1..=9u64 {
        let mmr = Mmr::with_leaf_count(n, 0x5eed);
        let mut pool = mmr.value_pool();
        pool.push([0; 32]);
        for index in 0..=n + 1 {
            let value = if index < n {
                mmr.leaves[index as usize]
            } else {
                pool[0]
            };
            for k in 0..=6usize {
                for start in [0, 3, 11] {
                    let items: Vec<[u8; 32]> =
                        (0..k).map(|j| pool[(start + 7 * j) % pool.len()]).collect();
                    let payload = compact::encode(&[(index, value)], &items);
                    p_line(
                        &mmr,
                        &payload,
                        &format!("n{n}-i{index}-items{k}-from{start}"),
                    );
                }
            }
        }
        if n <= 7 {
            for m in 1..(1u64 << n) {
                let indexes: Vec<u64> = (0..n).filter(|i| m >> i & 1 == 1).collect();
                p_line(
                    &mmr,
                    &compact::honest(&mmr, &indexes),
                    &format!("honest-n{n}-m{m}"),
                );
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
            let a = hex_or_dash(&case.args);
            let w = w.map_or("none".to_string(), hex_or_dash);
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            writeln!(corpus, "L {a} {w} {r} {name}").unwrap();
            files += 1;
        }
    }
    std::fs::write(format!("{out}/corpus.vec"), &corpus).expect("write");
    println!("{count} structural vectors and {files} corpus vectors written to {out}");
}

/// Hex, or `-` for no bytes.
fn hex_or_dash(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        "-".to_string()
    } else {
        hex(bytes)
    }
}
