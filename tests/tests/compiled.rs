//! The compiled format (the compact version 2, which both deployed binaries read) in
//! ckb-script, Rust and C side by side: honest proofs accepted, and for every vector of the
//! shared corpus (contracts/c-verifier/host/vectors, generated from an independent model of
//! docs/compiled-format.md by contracts/c-verifier/host/gen_vectors.py) both binaries return
//! exactly the expected code, every code of the format among them.

use ckb_mmr_sdk::{Workload, REFERENCE_SEED};
use tests::edited;
use tests::exploits::leaves11;
use tests::{run, with_payload, LockInput, Verifier};

const BOTH: [Verifier; 2] = [Verifier::Compiled, Verifier::C];

/// The vectors' hex ("-": no bytes).
fn unhex(s: &str) -> Vec<u8> {
    match s {
        "-" => Vec::new(),
        _ => ckb_mmr_sdk::parse_hex(s).expect("hex"),
    }
}

fn parse_u64(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// (label, input, expected code or 0) for every line of the vector files.
fn vectors() -> Vec<(String, LockInput, i8)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../contracts/c-verifier/host/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "vec"))
    {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let label = format!(
                "{}:{} {}",
                file.file_name().unwrap().to_string_lossy(),
                n + 1,
                f.last().unwrap_or(&"")
            );
            match f.first() {
                Some(&"P") => {
                    let mut args = unhex(f[2]);
                    args.extend_from_slice(&parse_u64(f[3]).to_le_bytes());
                    let witness = ckb_mmr_sdk::witness_args_with_lock(&unhex(f[1]));
                    let input = LockInput {
                        args: args.into(),
                        witness: Some(witness.into()),
                    };
                    out.push((label, input, f[4].parse().unwrap()));
                }
                Some(&"L") => {
                    let witness = (f[2] != "none").then(|| unhex(f[2]).into());
                    let input = LockInput {
                        args: unhex(f[1]).into(),
                        witness,
                    };
                    out.push((label, input, f[3].parse().unwrap()));
                }
                _ => {}
            }
        }
    }
    out
}

/// Every exit code of the version 2 payload (docs/error-codes.md), and the lock-level ones
/// the corpus reaches through `L` lines. 40 (`LeafCountInvalid`) is unreachable through the
/// lock, which refuses such sizes with 8.
const V2_CODES: [i8; 11] = [41, 42, 43, 45, 46, 49, 65, 66, 67, 68, 9];
const LOCK_CODES: [i8; 9] = [1, 2, 3, 4, 5, 6, 8, 80, 90];

/// The verifiers' codes on every vector, and the vectors whose code differs from the
/// expected one.
fn run_corpus(vectors: &[(String, LockInput, i8)]) -> (Vec<[i8; 2]>, Vec<String>) {
    let mut codes = Vec::new();
    let mut failures = Vec::new();
    for (label, input, expected) in vectors {
        let mut got = [0i8; 2];
        for (slot, v) in got.iter_mut().zip(BOTH) {
            *slot = run(v, input).code().unwrap_or(0);
            if *slot != *expected {
                failures.push(format!("{v:?} {label}: expected {expected}, got {slot}"));
            }
        }
        codes.push(got);
    }
    (codes, failures)
}

#[test]
fn corpus_codes_identical_in_vm() {
    let vectors = vectors();
    assert!(vectors.len() > 1000, "corpus too small: {}", vectors.len());
    let (codes, failures) = run_corpus(&vectors);
    println!(
        "{} vectors x 2 verifiers, {} failures",
        vectors.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every code is reached, by both binaries alike (each equals the expected code).
    for code in V2_CODES.iter().chain(&LOCK_CODES).chain(&[0]) {
        let n = codes
            .iter()
            .filter(|c| c[0] == *code && c[1] == *code)
            .count();
        assert!(n > 0, "no vector reaches code {code} in both verifiers");
    }
}

/// Negative controls: the corpus check fails when an expected code is wrong (so a pass
/// means something), and a version 1 payload of an honest proof is no version 2 proof.
#[test]
fn corpus_check_negative_controls() {
    let vectors = vectors();
    let mut wrong: Vec<(String, LockInput, i8)> = Vec::new();
    for code in [0i8, 9, 46, 66] {
        let (label, input, expected) = vectors
            .iter()
            .find(|v| v.2 == code)
            .expect("the corpus reaches the code");
        let other = if *expected == 0 { 9 } else { 0 };
        wrong.push((label.clone(), input.clone(), other));
    }
    let (_, failures) = run_corpus(&wrong);
    assert_eq!(failures.len(), 2 * wrong.len(), "{failures:?}");
    for seed in [1, 2, REFERENCE_SEED] {
        let w = Workload::from_seed(seed);
        let v1 = w.compiled_v1_payload().unwrap();
        let codes: Vec<Option<i8>> = BOTH
            .iter()
            .map(|&v| run(v, &with_payload(&w, &v1)).code())
            .collect();
        // A version 1 payload starts with its u32 leaf count: version byte 2 only for two
        // leaves, and then the next byte is 0 (NoLeaves).
        let expected = if v1[0] == 2 { 42 } else { 65 };
        assert_eq!(codes, vec![Some(expected); 2], "seed {seed}");
    }
}

#[test]
fn honest_proofs_accepted() {
    for seed in [1, 2, 3, REFERENCE_SEED] {
        let w = Workload::from_seed(seed);
        for v in BOTH {
            let cycles = tests::honest_cycles(v, &w);
            println!("{v:?} seed {seed}: {cycles} cycles");
        }
    }
}

#[test]
fn every_flip_and_cut_rejected_with_the_same_code() {
    let w = Workload::from_leaves(&leaves11(), &[1, 4, 9]).unwrap();
    let payload = w.compiled_payload().unwrap();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for i in 0..payload.len() {
        for bit in [0x01u8, 0x80] {
            let p = edited(&payload, |p| p[i] ^= bit);
            cases.push(p);
        }
    }
    cases.extend((0..payload.len()).map(|cut| payload[..cut].to_vec()));
    let extended = edited(&payload, |extended| extended.push(0x01));
    cases.push(extended);
    for p in cases {
        let codes: Vec<Option<i8>> = BOTH
            .iter()
            .map(|&v| run(v, &with_payload(&w, &p)).code())
            .collect();
        assert!(
            codes[0].is_some(),
            "accepted a mutated payload {}",
            ckb_mmr_sdk::hex(&p)
        );
        assert_eq!(
            codes[0],
            codes[1],
            "Rust and C disagree on {}",
            ckb_mmr_sdk::hex(&p)
        );
    }
}
