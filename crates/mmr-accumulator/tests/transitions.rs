//! Honest transitions for every pair of small sizes, merge counts against `Shape`, and every
//! code of the core reached by the case it names.

mod common;

use common::{edited, leaves, take_merges, Blake, H};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::{
    append, create, tag, verify_ancestry, verify_creation, verify_update, Commitment, Error, Shape,
    Workspace,
};
use mmr_lock::mmr::{mmr_size_of, MAX_MMR_SIZE};

fn commit(all: &[H]) -> Commitment {
    build::commitment::<Blake>(all).unwrap()
}

#[test]
fn honest_create_append_and_ancestry_for_all_small_pairs() {
    let all = leaves(80, 0xa1);
    let nodes = Nodes::new::<Blake>(&all);
    for n in 1..=64u64 {
        let old = commit(&all[..n as usize]);
        assert_eq!(
            create::<Blake>(&build::create_body(&all[..n as usize])),
            Ok(old)
        );
        let peaks = nodes.peaks(n);
        for m in n + 1..=80 {
            let new = commit(&all[..m as usize]);
            let body = build::append_body(&peaks, &all[n as usize..m as usize]);
            take_merges();
            assert_eq!(
                append::<Blake>(&old.root, old.mmr_size, &body),
                Ok(new),
                "{n}->{m}"
            );
            // Old bagging, one merge per carry, new bagging.
            let carries: u64 = (n..m).map(|c| u64::from(c.trailing_ones())).sum();
            let expected = u64::from(n.count_ones() - 1) + carries + u64::from(m.count_ones() - 1);
            assert_eq!(take_merges(), expected, "append merges {n}->{m}");

            let proof = build::ancestry_proof::<Blake>(&all[..m as usize], n).unwrap();
            let shape = Shape::new(n, m).unwrap();
            assert_eq!(proof.len(), 32 * shape.items() as usize);
            take_merges();
            assert_eq!(
                verify_ancestry::<Blake>(&old.root, old.mmr_size, &new.root, new.mmr_size, &proof),
                Ok(()),
                "{n}->{m}"
            );
            assert_eq!(take_merges(), u64::from(shape.merges()), "ancestry merges");
        }
    }
}

/// The transition payloads through `verify_creation` / `verify_update`.
#[test]
fn transitions_through_payloads() {
    let all = leaves(12, 0xb2);
    let nodes = Nodes::new::<Blake>(&all);
    let mut ws = Workspace::new();
    let c5 = commit(&all[..5]).to_bytes();
    let c12 = commit(&all).to_bytes();
    let create = build::create_payload(&all[..5]);
    let mut creation = |p: &[u8], out: &[u8]| verify_creation::<Blake>(&mut ws, p, out);
    assert_eq!(creation(&create, &c5), Ok(()));
    assert_eq!(creation(&create, &c12), Err(Error::OutputMismatch));
    assert_eq!(creation(&create, &c5[..39]), Err(Error::DataLength));
    assert_eq!(creation(&[tag::IMPORT], &c12), Ok(()));
    assert_eq!(
        creation(&[tag::IMPORT, 0], &c12),
        Err(Error::TransitionPayload)
    );
    let mut bad = c12;
    bad[32] = 5;
    assert_eq!(creation(&[tag::IMPORT], &bad), Err(Error::NewSizeInvalid));
    for t in [0u8, tag::APPEND, tag::EXTEND, tag::KEEP, 6, 0xff] {
        assert_eq!(creation(&[t], &c12), Err(Error::UnknownTransition));
    }
    assert_eq!(creation(&[], &c12), Err(Error::UnknownTransition));

    let append = build::append_payload(&nodes.peaks(5), &all[5..]);
    let mut update = |p: &[u8], i: &[u8], o: &[u8]| verify_update::<Blake>(&mut ws, p, i, o);
    assert_eq!(update(&append, &c5, &c12), Ok(()));
    assert_eq!(update(&append, &c5, &c5), Err(Error::OutputMismatch));
    let extend = build::extend_payload(&build::ancestry_proof::<Blake>(&all, 5).unwrap());
    assert_eq!(update(&extend, &c5, &c12), Ok(()));
    assert_eq!(update(&extend, &c12, &c5), Err(Error::OldSizeAboveNew));
    assert_eq!(update(&[tag::KEEP], &c5, &c5), Ok(()));
    assert_eq!(update(&[tag::KEEP], &c5, &c12), Err(Error::OutputMismatch));
    assert_eq!(
        update(&[tag::KEEP, 1], &c5, &c5),
        Err(Error::TransitionPayload)
    );
    for t in [0u8, tag::CREATE, tag::IMPORT, 6, 0xff] {
        assert_eq!(update(&[t], &c5, &c12), Err(Error::UnknownTransition));
    }
    assert_eq!(update(&append, &c5[..39], &c12), Err(Error::DataLength));
    assert_eq!(update(&append, &c5, &c12[..0]), Err(Error::DataLength));
}

/// KEEP's checks, in the order they fail (docs/accumulator.md, section 2): both cells' data
/// lengths (116), a body after the tag (115), the input's size (100), then whether the output
/// is the input byte for byte (117). Each case breaks every later check too, so a reordering
/// changes a code here.
#[test]
fn keep_checks_fail_in_order() {
    let all = leaves(12, 0xb2);
    let ws = &mut Workspace::new();
    let c5 = commit(&all[..5]).to_bytes();
    let c12 = commit(&all).to_bytes();
    let mut bad_size = c5;
    bad_size[32..].copy_from_slice(&6u64.to_le_bytes());
    let keep_body = [tag::KEEP, 0];
    let keep = [tag::KEEP];
    // (payload, input data, output data, verdict)
    type Case<'a> = (&'a [u8], &'a [u8], &'a [u8], Result<(), Error>);
    let cases: [Case; 6] = [
        (&keep_body, &bad_size[..39], &c12, Err(Error::DataLength)),
        (&keep_body, &bad_size, &c12, Err(Error::TransitionPayload)),
        (&keep, &bad_size, &c12, Err(Error::OldSizeInvalid)),
        // Identical bytes do not make a non-MMR size acceptable.
        (&keep, &bad_size, &bad_size, Err(Error::OldSizeInvalid)),
        (&keep, &c5, &c12, Err(Error::OutputMismatch)),
        (&keep, &c5, &c5, Ok(())),
    ];
    for (payload, input, output, expected) in cases {
        assert_eq!(
            verify_update::<Blake>(ws, payload, input, output),
            expected,
            "{payload:?}"
        );
    }
}

#[test]
fn append_codes() {
    let all = leaves(8, 0xc3);
    let nodes = Nodes::new::<Blake>(&all);
    let old = commit(&all[..7]);
    let peaks = nodes.peaks(7);
    let body = build::append_body(&peaks, &all[7..]);
    let run = |b: &[u8]| mmr_accumulator::append::<Blake>(&old.root, old.mmr_size, b);
    assert!(run(&body).is_ok());
    // Missing bytes anywhere: inside the peaks, the count, the leaves.
    for cut in 0..body.len() {
        assert_eq!(run(&body[..cut]), Err(Error::AppendTruncated), "cut {cut}");
    }
    let mut extra = body.clone();
    extra.push(0);
    assert_eq!(run(&extra), Err(Error::AppendTrailingBytes));
    extra.extend_from_slice(&[0; 30]);
    assert_eq!(run(&extra), Err(Error::AppendTrailingBytes));
    extra.push(0);
    assert_eq!(run(&extra), Err(Error::LeavesLeftOver));
    // A count below the leaves given: a leaf left over.
    let mut fewer = build::append_body(&peaks, &[all[7], all[0]]);
    fewer[96] = 1;
    assert_eq!(run(&fewer), Err(Error::LeavesLeftOver));
    let zero = build::append_body(&peaks, &[]);
    assert_eq!(run(&zero), Err(Error::NoLeaves));
    // A peak dropped, one added, two swapped, one replaced.
    let with_peaks = |peaks: &[H]| run(&build::append_body(peaks, &all[7..]));
    assert_eq!(with_peaks(&peaks[1..]), Err(Error::AppendTruncated));
    let more = edited(&peaks, |more| more.push(all[6]));
    // The extra peak's first bytes are read as the count (here 6): the leaves run short.
    assert_eq!(with_peaks(&more), Err(Error::AppendTruncated));
    let swapped = edited(&peaks, |swapped| swapped.swap(0, 1));
    assert_eq!(with_peaks(&swapped), Err(Error::OldRootMismatch));
    let replaced = edited(&peaks, |replaced| replaced[2] = all[5]);
    assert_eq!(with_peaks(&replaced), Err(Error::OldRootMismatch));
    // The old size must be canonical.
    for size in [0, 2, 5, 6, MAX_MMR_SIZE + 1, u64::MAX] {
        assert_eq!(
            append::<Blake>(&old.root, size, &body),
            Err(Error::OldSizeInvalid)
        );
    }
}

#[test]
fn size_overflow_at_the_limit() {
    // The largest leaf count whose size is within MAX_MMR_SIZE, as a synthetic MMR: its peaks
    // are arbitrary values and the root follows from them.
    let mut n = MAX_MMR_SIZE / 2;
    while mmr_size_of(n + 1) <= MAX_MMR_SIZE {
        n += 1;
    }
    assert_eq!(n, (1 << 49) + 1);
    assert!(mmr_size_of(n + 1) > MAX_MMR_SIZE);
    // One leaf below the limit, so that one more fits and two do not.
    let n = n - 1;
    let peaks: Vec<H> = (0..n.count_ones()).map(|i| [i as u8 + 1; 32]).collect();
    let root = build::bag::<Blake>(&peaks).unwrap();
    let one = build::append_body(&peaks, &[[0xee; 32]]);
    let ok = append::<Blake>(&root, mmr_size_of(n), &one).unwrap();
    assert_eq!(ok.mmr_size, mmr_size_of(n + 1));
    let two = build::append_body(&peaks, &[[0xee; 32], [0xef; 32]]);
    assert_eq!(
        append::<Blake>(&root, mmr_size_of(n), &two),
        Err(Error::SizeOverflow)
    );
}

#[test]
fn ancestry_codes() {
    let all = leaves(12, 0xd4);
    let old = commit(&all[..5]);
    let new = commit(&all);
    let proof = build::ancestry_proof::<Blake>(&all, 5).unwrap();
    let run =
        |p: &[u8]| verify_ancestry::<Blake>(&old.root, old.mmr_size, &new.root, new.mmr_size, p);
    assert_eq!(run(&proof), Ok(()));
    for cut in 0..proof.len() {
        assert_eq!(run(&proof[..cut]), Err(Error::ProofTruncated), "cut {cut}");
    }
    let mut extra = proof.clone();
    extra.push(0);
    assert_eq!(run(&extra), Err(Error::ProofTrailingBytes));
    extra.extend_from_slice(&[0; 31]);
    assert_eq!(run(&extra), Err(Error::ItemsLeftOver));
    // Every single item replaced by another node's value or a root fails on a root.
    let nodes = Nodes::new::<Blake>(&all);
    for i in 0..proof.len() / 32 {
        for other in [
            all[0],
            all[11],
            old.root,
            new.root,
            nodes.node(8, 2).unwrap(),
        ] {
            let mut p = proof.clone();
            if p[32 * i..32 * i + 32] == other {
                continue;
            }
            p[32 * i..32 * i + 32].copy_from_slice(&other);
            let r = run(&p);
            assert!(
                matches!(r, Err(Error::OldRootMismatch | Error::NewRootMismatch)),
                "{i}: {r:?}"
            );
        }
    }
    let swap = |a: &Commitment, b: &Commitment, p: &[u8]| {
        verify_ancestry::<Blake>(&a.root, a.mmr_size, &b.root, b.mmr_size, p)
    };
    assert_eq!(swap(&new, &old, &proof), Err(Error::OldSizeAboveNew));
    assert_eq!(swap(&old, &old, &proof), Err(Error::SizesEqual));
    let mut bad = new;
    bad.mmr_size = 21; // 12 leaves have size 22; 21 is no MMR size
    assert_eq!(swap(&old, &bad, &proof), Err(Error::NewSizeInvalid));
    bad.mmr_size = 0;
    assert_eq!(swap(&old, &bad, &proof), Err(Error::NewSizeInvalid));
    let mut bad_old = old;
    bad_old.mmr_size = MAX_MMR_SIZE + 1;
    assert_eq!(swap(&bad_old, &new, &proof), Err(Error::OldSizeInvalid));
    // Another root of the right size.
    let mut other = new;
    other.root[0] ^= 1;
    assert_eq!(swap(&old, &other, &proof), Err(Error::NewRootMismatch));
    let mut other_old = old;
    other_old.root[31] ^= 0x80;
    assert_eq!(swap(&other_old, &new, &proof), Err(Error::OldRootMismatch));
}

#[test]
fn codes_are_the_documented_range() {
    let codes: Vec<i8> = Error::ALL.iter().map(|e| e.code()).collect();
    let expected: Vec<i8> = (100..=127).chain((-106..=-100).rev()).collect();
    assert_eq!(codes, expected);
}

/// The worked examples of docs/accumulator.md, byte for byte.
#[test]
fn doc_examples() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/accumulator.md"
    ))
    .unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let leaf = |i: u8| [0x11 * (i + 1); 32];
    let all: Vec<H> = (0..7).map(leaf).collect();
    let nodes = Nodes::new::<Blake>(&all);
    for (n, m) in [(3u64, 5u64), (3, 7)] {
        let old = commit(&all[..n as usize]);
        let new = commit(&all[..m as usize]);
        let lines = [
            format!("old {n}: root {} size {}", hex(&old.root), old.mmr_size),
            format!("new {m}: root {} size {}", hex(&new.root), new.mmr_size),
        ];
        for l in &lines {
            assert!(doc.contains(l.as_str()), "docs/accumulator.md lacks: {l}");
        }
    }
    let append = build::append_payload(&nodes.peaks(3), &all[3..5]);
    let extend = build::extend_payload(&build::ancestry_proof::<Blake>(&all, 3).unwrap());
    // The rejections and the reinterpretation the doc states.
    let (c3, c5, c7) = (commit(&all[..3]), commit(&all[..5]), commit(&all));
    let run_a = |b: &[u8]| mmr_accumulator::append::<Blake>(&c3.root, c3.mmr_size, &b[1..]);
    assert_eq!(run_a(&append[..132]), Err(Error::AppendTruncated));
    let mut k1 = append.clone();
    k1[65] = 1;
    assert_eq!(run_a(&k1), Err(Error::LeavesLeftOver));
    k1[65] = 0;
    assert_eq!(run_a(&k1), Err(Error::NoLeaves));
    let run_e = |c: &Commitment, b: &[u8]| {
        verify_ancestry::<Blake>(&c3.root, c3.mmr_size, &c.root, c.mmr_size, &b[1..])
    };
    assert_eq!(run_e(&c7, &extend), Ok(()));
    assert_eq!(run_e(&c5, &extend), Err(Error::NewRootMismatch));
    let swapped = edited(&extend, |swapped| {
        swapped[1..65].copy_from_slice(&[&extend[33..65], &extend[1..33]].concat())
    });
    assert_eq!(run_e(&c7, &swapped), Err(Error::OldRootMismatch));
    let as_six = Commitment {
        root: c7.root,
        mmr_size: 10,
    };
    assert_eq!(run_e(&as_six, &extend), Ok(()));
    let n45 = nodes.node(4, 1).unwrap();
    let six = build::append_body(&nodes.peaks(3), &[all[3], all[6], n45]);
    assert_eq!(
        mmr_accumulator::append::<Blake>(&c3.root, c3.mmr_size, &six),
        Ok(as_six)
    );
    for (name, bytes) in [("append 3->5", append), ("extend 3->7", extend)] {
        let wrapped: Vec<String> = hex(&bytes)
            .as_bytes()
            .chunks(64)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        let block = wrapped.join("\n");
        assert!(
            doc.contains(&block),
            "docs/accumulator.md lacks the {name} payload:\n{block}"
        );
    }
}

/// Prints the values docs/accumulator.md quotes (`-- --ignored --nocapture`).
#[test]
#[ignore = "prints the doc's values"]
fn print_doc_examples() {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let leaf = |i: u8| [0x11 * (i + 1); 32];
    let all: Vec<H> = (0..7).map(leaf).collect();
    let nodes = Nodes::new::<Blake>(&all);
    for (first, h) in [(0, 1), (2, 1), (4, 1), (0, 2)] {
        println!("node ({first},{h}) {}", hex(&nodes.node(first, h).unwrap()));
    }
    let tail = common::merge(&all[6], &nodes.node(4, 1).unwrap());
    println!("tail bag merge(L6, n45) {}", hex(&tail));
    for n in [3u64, 5, 7] {
        let c = commit(&all[..n as usize]);
        println!("old/new {n}: root {} size {}", hex(&c.root), c.mmr_size);
    }
    let append = build::append_payload(&nodes.peaks(3), &all[3..5]);
    println!("append 3->5 ({} bytes):\n{}", append.len(), hex(&append));
    let extend = build::extend_payload(&build::ancestry_proof::<Blake>(&all, 3).unwrap());
    println!("extend 3->7 ({} bytes):\n{}", extend.len(), hex(&extend));
    let create = build::create_payload(&all[..3]);
    println!("create 3 ({} bytes):\n{}", create.len(), hex(&create));
}
