//! The accumulator type script (docs/accumulator.md) in ckb-script on the release binary
//! `build/release/accumulator-type`: every transition honest, every class it closes with its
//! exact code, and the cycles of the brief's two large transitions.

use ckb_testtool::ckb_types::{
    bytes::Bytes, core::TransactionBuilder, packed::CellInput, prelude::*,
};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::{tag, Commitment, Error, Shape};
use mmr_lock::mmr::mmr_size_of;
use tests::accumulator::{
    commit, leaves, synthetic, synthetic_state, type_id, witness, AccumulatorChain, Host,
    UPDATED_ID,
};
use tests::{release_dir, Outcome, MAX_CYCLES};

/// Cycles of one merge on the assembly kernel (docs/hashing.md).
const MERGE_CYCLES: u64 = 1_299;

fn rejected(e: Error) -> Outcome {
    Outcome::Rejected(e.code())
}

#[test]
fn every_transition_honest() {
    let all = leaves(12);
    let nodes = Nodes::new::<Host>(&all);
    let mut chain = AccumulatorChain::new();
    for index in [0, 2] {
        let (tx, _) =
            chain.creation_at(&commit(&all[..5]), &build::create_payload(&all[..5]), index);
        assert!(chain.run(tx).accepted(), "create at {index}");
    }
    let (tx, _) = chain.creation(&commit(&all), &[tag::IMPORT]);
    assert!(chain.run(tx).accepted());
    for (n, m) in [(1u64, 2u64), (5, 12), (7, 8), (3, 12), (11, 12)] {
        let (old, new) = (commit(&all[..n as usize]), commit(&all[..m as usize]));
        let append = build::append_payload(&nodes.peaks(n), &all[n as usize..m as usize]);
        assert!(
            chain.run_update(&old, &new, &append).accepted(),
            "append {n}->{m}"
        );
        let proof = build::ancestry_proof::<Host>(&all[..m as usize], n).unwrap();
        assert!(
            chain
                .run_update(&old, &new, &build::extend_payload(&proof))
                .accepted(),
            "extend {n}->{m}"
        );
    }
    let c = commit(&all[..5]);
    let tx = chain.update(&c, &c, &[tag::KEEP]);
    assert!(chain.run(tx).accepted());
}

/// Parity 2026 (polkadot-sdk PR 11738): old peaks presented at other places. The proof names
/// no place, so swapped or shifted peaks change the old root.
#[test]
fn fake_old_peaks_at_wrong_positions() {
    let all = leaves(7);
    let (old, new) = (commit(&all[..3]), commit(&all));
    let mut chain = AccumulatorChain::new();
    let proof = build::ancestry_proof::<Host>(&all, 3).unwrap();
    // Items: L2 (old peak), L3, n01 (old peak), tail. Put the old peaks in each other's slots.
    let mut swapped = proof.clone();
    swapped[..32].copy_from_slice(&proof[64..96]);
    swapped[64..96].copy_from_slice(&proof[..32]);
    let tx = chain.update(&old, &new, &build::extend_payload(&swapped));
    assert_eq!(chain.run(tx), rejected(Error::OldRootMismatch));
    // An append whose peaks are shifted by one slot.
    let nodes = Nodes::new::<Host>(&all);
    let mut peaks = nodes.peaks(3);
    peaks.reverse();
    let tx = chain.update(
        &old,
        &commit(&all[..5]),
        &build::append_payload(&peaks, &all[3..5]),
    );
    assert_eq!(chain.run(tx), rejected(Error::OldRootMismatch));
}

/// Hyperbridge 2026 (solidity-merkle-trees PR 57): items or leaves after the last one used.
#[test]
fn items_or_leaves_left_over_after_the_peaks() {
    let all = leaves(7);
    let nodes = Nodes::new::<Host>(&all);
    let (old, new) = (commit(&all[..3]), commit(&all));
    let mut chain = AccumulatorChain::new();
    let mut proof = build::ancestry_proof::<Host>(&all, 3).unwrap();
    proof.extend_from_slice(&all[0]);
    let tx = chain.update(&old, &new, &build::extend_payload(&proof));
    assert_eq!(chain.run(tx), rejected(Error::ItemsLeftOver));
    proof.truncate(proof.len() - 31);
    let tx = chain.update(&old, &new, &build::extend_payload(&proof));
    assert_eq!(chain.run(tx), rejected(Error::ProofTrailingBytes));
    let mut append = build::append_payload(&nodes.peaks(3), &all[3..7]);
    append.extend_from_slice(&all[0]);
    let tx = chain.update(&old, &new, &append);
    assert_eq!(chain.run(tx), rejected(Error::LeavesLeftOver));
    append.truncate(append.len() - 31);
    let tx = chain.update(&old, &new, &append);
    assert_eq!(chain.run(tx), rejected(Error::AppendTrailingBytes));
}

#[test]
fn old_size_above_new_and_non_mmr_sizes() {
    let all = leaves(7);
    let (old, new) = (commit(&all[..3]), commit(&all));
    let mut chain = AccumulatorChain::new();
    let proof = build::extend_payload(&build::ancestry_proof::<Host>(&all, 3).unwrap());
    let tx = chain.update(&new, &old, &proof);
    assert_eq!(chain.run(tx), rejected(Error::OldSizeAboveNew));
    let tx = chain.update(&old, &old, &proof);
    assert_eq!(chain.run(tx), rejected(Error::SizesEqual));
    // 9 and 12 are no MMR's size (8 and 10 are: 5 and 6 leaves).
    for size in [0u64, 9, 12, 1 << 51] {
        let mut bad = new;
        bad[32..].copy_from_slice(&size.to_le_bytes());
        assert_eq!(
            chain.run_update(&old, &bad, &proof),
            rejected(Error::NewSizeInvalid),
            "size {size}"
        );
        assert_eq!(
            chain.run_creation(&bad, &[tag::IMPORT]),
            rejected(Error::NewSizeInvalid),
            "import size {size}"
        );
        // As the input's size (no cell the script let through holds one): checked first.
        assert_eq!(
            chain.run_update(&bad, &new, &proof),
            rejected(Error::OldSizeInvalid),
            "old size {size}"
        );
    }
    let tx = chain.update(&old, &new, &build::extend_payload(&[]));
    assert_eq!(chain.run(tx), rejected(Error::ProofTruncated));
}

#[test]
fn output_not_the_computed_commitment() {
    let all = leaves(7);
    let nodes = Nodes::new::<Host>(&all);
    let (old, new) = (commit(&all[..3]), commit(&all));
    let mut chain = AccumulatorChain::new();
    let append = build::append_payload(&nodes.peaks(3), &all[3..7]);
    for byte in [0usize, 31, 32, 39] {
        let mut bad = new;
        bad[byte] ^= 1;
        assert_eq!(
            chain.run_update(&old, &bad, &append),
            rejected(Error::OutputMismatch),
            "byte {byte}"
        );
    }
    let mut bad = new;
    bad[0] ^= 1;
    let proof = build::extend_payload(&build::ancestry_proof::<Host>(&all, 3).unwrap());
    let tx = chain.update(&old, &bad, &proof);
    assert_eq!(chain.run(tx), rejected(Error::NewRootMismatch));
    let (tx, _) = chain.creation(&bad, &build::create_payload(&all));
    assert_eq!(chain.run(tx), rejected(Error::OutputMismatch));
    let tx = chain.update(&old, &new, &[tag::KEEP]);
    assert_eq!(chain.run(tx), rejected(Error::OutputMismatch));
    let tx = chain.update(&old, &new[..39], &append);
    assert_eq!(chain.run(tx), rejected(Error::DataLength));
}

#[test]
fn second_cell_minted_with_an_existing_type_id() {
    let all = leaves(4);
    let data = commit(&all);
    let mut chain = AccumulatorChain::new();
    let (tx, id) = chain.creation(&data, &build::create_payload(&all));
    assert!(chain.run(tx).accepted());
    // The accumulator created from a fresh plain input under the type args `args`.
    let mint = |chain: &mut AccumulatorChain, args: &[u8]| {
        let cell = chain.plain_cell();
        let t = chain.type_script(args);
        TransactionBuilder::default()
            .input(CellInput::new_builder().previous_output(cell).build())
            .output(chain.output(Some(&t)))
            .output_data(Bytes::copy_from_slice(&data).pack())
            .witness(witness(None, Some(&build::create_payload(&all))).pack())
    };
    // The same args again, from another first input: not this input's type id.
    let tx = mint(&mut chain, &id);
    assert_eq!(chain.run(tx), rejected(Error::TypeIdMismatch));
    // A wrong output index in the preimage.
    let cell = chain.plain_cell();
    let input = CellInput::new_builder().previous_output(cell).build();
    let wrong = type_id(&input, 0);
    let t = chain.type_script(&wrong);
    let tx = TransactionBuilder::default()
        .input(input)
        .output(chain.output(None))
        .output_data(Bytes::new().pack())
        .witness(Bytes::new().pack())
        .output(chain.output(Some(&t)))
        .output_data(Bytes::copy_from_slice(&data).pack())
        .witness(witness(None, Some(&build::create_payload(&all))).pack());
    assert_eq!(chain.run(tx), rejected(Error::TypeIdMismatch));
    let tx = mint(&mut chain, &[0u8; 31]);
    assert_eq!(chain.run(tx), rejected(Error::ArgsLength));
}

#[test]
fn two_group_outputs_two_group_inputs_and_destroy() {
    let all = leaves(4);
    let data = commit(&all);
    let mut chain = AccumulatorChain::new();
    let (tx, id) = chain.creation(&data, &build::create_payload(&all));
    let t = chain.type_script(&id);
    let tx = tx
        .output(chain.output(Some(&t)))
        .output_data(Bytes::copy_from_slice(&data).pack());
    assert_eq!(chain.run(tx), rejected(Error::GroupOutputs));
    let keep = [tag::KEEP];
    let tx = chain.update(&data, &data, &keep);
    let second = chain.accumulator(&UPDATED_ID, &data);
    let tx = tx.input(CellInput::new_builder().previous_output(second).build());
    assert_eq!(chain.run(tx), rejected(Error::GroupInputs));
    // Destroy: the accumulator in, nothing with its type out.
    let id = UPDATED_ID;
    let cell = chain.accumulator(&id, &data);
    let tx = TransactionBuilder::default()
        .input(CellInput::new_builder().previous_output(cell).build())
        .output(chain.output(None))
        .output_data(Bytes::new().pack())
        .witness(witness(Some(&keep), None).pack());
    assert_eq!(chain.run(tx), rejected(Error::DestroyRefused));
}

#[test]
fn witness_and_payload_framing() {
    let all = leaves(4);
    let data = commit(&all);
    let mut chain = AccumulatorChain::new();
    let id = UPDATED_ID;
    let t = chain.type_script(&id);
    let mk = |chain: &mut AccumulatorChain, w: Option<Bytes>| {
        let cell = chain.accumulator(&id, &data);
        let mut tx = TransactionBuilder::default()
            .input(CellInput::new_builder().previous_output(cell).build())
            .output(chain.output(Some(&t)))
            .output_data(Bytes::copy_from_slice(&data).pack());
        if let Some(w) = w {
            tx = tx.witness(w.pack());
        }
        tx
    };
    let tx = mk(&mut chain, None);
    assert_eq!(chain.run(tx), rejected(Error::WitnessMissing));
    let tx = mk(&mut chain, Some(Bytes::from_static(&[1, 2, 3])));
    assert_eq!(chain.run(tx), rejected(Error::WitnessEncoding));
    let tx = mk(&mut chain, Some(witness(None, Some(&[tag::KEEP]))));
    assert_eq!(chain.run(tx), rejected(Error::TypeFieldMissing));
    let tx = mk(&mut chain, Some(Bytes::from(vec![0u8; 65537])));
    assert_eq!(chain.run(tx), rejected(Error::WitnessTooLarge));
    for payload in [&[][..], &[0x00], &[tag::CREATE], &[0x06]] {
        let tx = mk(&mut chain, Some(witness(Some(payload), None)));
        assert_eq!(
            chain.run(tx),
            rejected(Error::UnknownTransition),
            "{payload:?}"
        );
    }
    let tx = mk(&mut chain, Some(witness(Some(&[tag::KEEP, 0]), None)));
    assert_eq!(chain.run(tx), rejected(Error::TransitionPayload));
    let (tx, _) = chain.creation(&data, &[tag::APPEND]);
    assert_eq!(chain.run(tx), rejected(Error::UnknownTransition));
}

/// docs/error-codes.md's accumulator table and docs/accumulator.md's section 5 list exactly
/// the codes of `mmr_accumulator::Error`, each under its variant's name.
#[test]
fn exit_code_tables_are_the_error_enum() {
    let expected: Vec<(i8, String)> = Error::ALL
        .iter()
        .map(|e| (e.code(), format!("{e:?}")))
        .collect();
    for (doc, from, to) in [
        ("error-codes.md", "## Accumulator (100-127)", "## The store"),
        ("accumulator.md", "## 5. Exit codes", "## 6. Costs"),
    ] {
        let path = format!("{}/../docs/{doc}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let section = text
            .split(from)
            .nth(1)
            .and_then(|t| t.split(to).next())
            .unwrap_or_else(|| panic!("{doc}: no section {from:?}"));
        let rows: Vec<(i8, String)> = section.lines().filter_map(tests::doc_code_row).collect();
        assert_eq!(rows, expected, "{doc}'s table (left), Error::ALL (right)");
    }
}

/// SECURITY.md's accumulator classes: each parenthesis that names a test of this file gives
/// the codes it asserts; the test exists (`#[test]`) and asserts each code by its name.
#[test]
fn security_md_names_a_test_asserting_each_class_code() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../SECURITY.md")).unwrap();
    let section = text
        .split("## The accumulator (type script)")
        .nth(1)
        .and_then(|t| t.split("**Assurance**").next())
        .expect("SECURITY.md's accumulator section");
    let classes = section
        .split("classes it closes")
        .nth(1)
        .and_then(|t| t.split("That test file checks").next())
        .expect("the classes sentence");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/accumulator.rs");
    let source = std::fs::read_to_string(path).unwrap();
    let mut named = Vec::new();
    for group in classes.split('(').skip(1) {
        let inner = group.split(')').next().unwrap();
        let Some(name) = inner.split('`').nth(1) else {
            continue;
        };
        let head = format!("#[test]\nfn {name}() {{\n");
        let at = source
            .find(&head)
            .unwrap_or_else(|| panic!("SECURITY.md names {name}, not a test of {path}"));
        let body = &source[at..at + source[at..].find("\n}\n").unwrap()];
        let mut codes = Vec::new();
        for word in inner.split(|c: char| !(c.is_ascii_digit() || c == '-')) {
            let mut ends = word.splitn(2, '-').map(str::parse::<i8>);
            match (ends.next(), ends.next()) {
                (Some(Ok(a)), None) => codes.push(a),
                (Some(Ok(a)), Some(Ok(b))) => codes.extend(a..=b),
                _ => {}
            }
        }
        let codes: Vec<i8> = codes.into_iter().filter(|c| *c >= 100).collect();
        assert!(!codes.is_empty(), "no code given for {name}: ({inner})");
        for code in codes {
            let e = Error::ALL.iter().find(|e| e.code() == code).unwrap();
            assert!(
                body.contains(&format!("Error::{e:?})")),
                "{name} does not assert {code} {e:?}, as SECURITY.md says"
            );
        }
        named.push(name);
    }
    assert_eq!(named.len(), 7, "{named:?}");
}

/// The brief's measurements: total cycles of the type script and what is left after the
/// merges at 1,299 cycles each.
#[test]
fn large_transitions_cycles() {
    let mut chain = AccumulatorChain::new();
    let big = 1u64 << 20;
    let mut report = Vec::new();

    // Append 1 leaf to 2^20 - 1 leaves: 20 peaks.
    let n = big - 1;
    let (peaks, old) = synthetic_state(n);
    let leaf = [0x42; 32];
    let payload = build::append_payload(&peaks, &[leaf]);
    let new = mmr_accumulator::append::<Host>(&old.root, old.mmr_size, &payload[1..]).unwrap();
    let merges = u64::from(n.count_ones() - 1) + u64::from(n.trailing_ones());
    let tx = chain.update(&old.to_bytes(), &new.to_bytes(), &payload);
    report.push(("append 1 leaf to 2^20-1", tx, merges, payload.len()));

    // Ancestry 2^19 + 1 -> 2^20 - 1, and 2^20 - 1 -> 2^20.
    for (n, m, name) in [
        ((1u64 << 19) + 1, big - 1, "ancestry 2^19+1 -> 2^20-1"),
        (big - 1, big, "ancestry 2^20-1 -> 2^20"),
    ] {
        let proof = build::ancestry_proof_from_nodes::<Host>(n, m, synthetic).unwrap();
        let (old_root, new_root) =
            mmr_accumulator::ancestry_roots::<Host>(mmr_size_of(n), mmr_size_of(m), &proof)
                .unwrap();
        let commitment = |root, leaves| Commitment {
            root,
            mmr_size: mmr_size_of(leaves),
        };
        let (old, new) = (commitment(old_root, n), commitment(new_root, m));
        let payload = build::extend_payload(&proof);
        let merges = u64::from(Shape::new(n, m).unwrap().merges());
        let tx = chain.update(&old.to_bytes(), &new.to_bytes(), &payload);
        report.push((name, tx, merges, payload.len()));
    }

    // Small transitions, for scale: create 5 leaves, import, keep.
    let all = leaves(5);
    let c5 = commit(&all);
    let (tx, _) = chain.creation(&c5, &build::create_payload(&all));
    let create_merges = (0..5u64).map(|c| u64::from(c.trailing_ones())).sum::<u64>() + 1;
    report.push(("create 5 leaves", tx, create_merges, 1 + 4 + 5 * 32));
    let (tx, _) = chain.creation(&c5, &[tag::IMPORT]);
    report.push(("import", tx, 0, 1));
    let tx = chain.update(&c5, &c5, &[tag::KEEP]);
    report.push(("keep", tx, 0, 1));

    // The rows of docs/accumulator.md's cost table (cycle-lab growth, in-process) that are the
    // same transitions: ckb-testtool must find the same cycles (keep there is on 2^20 - 1
    // leaves, here on 5).
    let doc = std::fs::read_to_string(release_dir().join("../../docs/accumulator.md")).unwrap();
    // The cycles column, found by its header (the table also has bytes and weight columns).
    let column = doc
        .lines()
        .filter(|l| l.starts_with("| transition |"))
        .find_map(|h| h.split('|').position(|c| c.trim() == "cycles"))
        .expect("docs/accumulator.md: the cost table's header names a cycles column");
    let documented = |label: &str| -> u64 {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("docs/accumulator.md: no cost row {label:?}"));
        row.split('|')
            .nth(column)
            .unwrap()
            .trim()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    let doc_rows = [
        (
            "append 1 leaf to 2^20-1",
            "append 1 leaf to 2^20 - 1 leaves",
        ),
        (
            "ancestry 2^19+1 -> 2^20-1",
            "ancestry 2^19 + 1 -> 2^20 - 1 leaves",
        ),
        (
            "ancestry 2^20-1 -> 2^20",
            "ancestry 2^20 - 1 -> 2^20 leaves",
        ),
        ("create 5 leaves", "create from 5 leaves (type id checked)"),
        ("import", "import (type id checked)"),
    ];
    for (name, tx, merges, bytes) in report {
        let tx = chain.context.complete_tx(tx.build());
        let total = chain.context.verify_tx(&tx, MAX_CYCLES).expect(name);
        let lock = chain.lock_cycles(&tx);
        // For ckb-debugger: --tx-file F --script-group-type type --cell-type input
        // --cell-index 0 (docs/accumulator.md, costs).
        let dir = release_dir().join("../tmp");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!(
            "accumulator-{}.json",
            name.replace([' ', '^', '>'], "")
        ));
        let json = serde_json::to_string_pretty(&chain.context.dump_tx(&tx).unwrap()).unwrap();
        std::fs::write(&file, json).unwrap();
        let cycles = total - lock;
        let hashing = merges * MERGE_CYCLES;
        let beyond = cycles - hashing;
        let share = if hashing == 0 {
            String::from("no merges")
        } else {
            format!("{:.1}%", 100.0 * beyond as f64 / hashing as f64)
        };
        println!(
            "{name}: type script {cycles} cycles ({total} with the always-success lock's {lock}), \
             {merges} merges x {MERGE_CYCLES} = {hashing}, beyond hashing {beyond} ({share}), payload {bytes} B"
        );
        if let Some((_, label)) = doc_rows.iter().find(|(n, _)| *n == name) {
            assert_eq!(
                cycles,
                documented(label),
                "{name}: ckb-testtool and docs/accumulator.md (./build.sh growth) differ"
            );
        }
    }
}
