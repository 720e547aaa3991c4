//! The reference model against independent ground truth: upstream
//! `ckb-merkle-mountain-range` (through tx-generator) for proof shapes and roots, the slow
//! MMR build for positions and sizes, and the project's compiler for the compiled encoding.

use assurance::mmr::Mmr;
use assurance::{model, native};

#[test]
fn sizes_and_positions_match_the_built_mmr() {
    let mut sizes = std::collections::HashMap::new();
    for n in 1..=300u64 {
        let mmr = Mmr::with_leaf_count(n, 1);
        sizes.insert(mmr.mmr_size(), n);
        assert_eq!(model::leaf_count_of_size(mmr.mmr_size()), Some(n));
        assert_eq!(mmr_lock::mmr::leaf_count(mmr.mmr_size()), Some(n));
        for (i, &pos) in mmr.leaf_pos.iter().enumerate() {
            assert_eq!(model::leaf_pos(i as u64), pos);
        }
        for pos in 0..mmr.mmr_size() + 3 {
            let want = mmr
                .leaf_pos
                .iter()
                .position(|&p| p == pos)
                .map(|i| i as u64);
            assert_eq!(model::leaf_index_of_pos(n, pos), want, "n {n} pos {pos}");
        }
    }
    let largest = *sizes.keys().max().unwrap();
    for size in 0..=largest {
        assert_eq!(
            model::leaf_count_of_size(size),
            sizes.get(&size).copied(),
            "size {size}"
        );
        assert_eq!(
            model::leaf_count_of_size(size),
            mmr_lock::mmr::leaf_count(size)
        );
    }
    let limit = 1u64 << 50;
    for size in [limit, limit + 1, limit - 1, u64::MAX, limit - 50] {
        assert_eq!(
            model::leaf_count_of_size(size),
            mmr_lock::mmr::leaf_count(size),
            "{size}"
        );
    }
}

/// Every non-empty subset of leaves for small MMRs, and random ones for larger: the model's
/// honest baseline payload is upstream's `gen_proof`, its compiled payload is the project's
/// compiler output, and the model and all three cores accept both.
#[test]
fn honest_proofs_match_upstream_and_are_accepted() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    for n in 1..=70u64 {
        let mmr = Mmr::with_leaf_count(n, n);
        let subsets: Vec<Vec<u64>> = if n <= 7 {
            (1..(1u64 << n))
                .map(|m| (0..n).filter(|i| m >> i & 1 == 1).collect())
                .collect()
        } else {
            (0..40)
                .map(|_| {
                    let mut s: Vec<u64> = (0..1 + rnd() % 6).map(|_| rnd() % n).collect();
                    s.sort();
                    s.dedup();
                    s
                })
                .collect()
        };
        for indexes in subsets {
            let w = ckb_mmr_sdk::Workload::from_leaves(&mmr.leaves, &indexes).unwrap();
            assert_eq!(w.root, mmr.root);
            assert_eq!(w.mmr_size, mmr.mmr_size());
            let baseline = model::honest_baseline(&mmr, &indexes);
            assert_eq!(baseline, w.baseline_payload(), "n {n} {indexes:?}");
            let compiled = model::honest_compiled(&mmr, &indexes);
            assert_eq!(
                compiled,
                w.compiled_v1_payload().unwrap(),
                "n {n} {indexes:?}"
            );
            let compact = assurance::compact::honest(&mmr, &indexes);
            assert_eq!(compact, w.compiled_payload().unwrap(), "n {n} {indexes:?}");
            assert!(model::baseline_accepts(&baseline, &mmr.root, n));
            assert!(model::compiled_accepts(&compiled, &mmr.root, n));
            assert!(assurance::compact::accepts(&compact, &mmr.root, n));
            assert_eq!(native::compact_payload(&compact, &mmr.root, n), 0);
            assert_eq!(native::c_compact_payload(&compact, &mmr.root, n), 0);
            let args = mmr.args();
            for (format, payload) in [
                (model::Format::Baseline, &baseline),
                (model::Format::Compiled, &compiled),
                (model::Format::Compact, &compact),
            ] {
                let w = model::witness_args(payload);
                assert!(model::lock_accepts(format, &args, Some(&w)));
            }
            let (baseline_w, compact_w) = (
                model::witness_args(&baseline),
                model::witness_args(&compact),
            );
            assert_eq!(native::baseline_lock(&args, Some(&baseline_w)), 0);
            assert_eq!(native::compiled_lock(&args, Some(&compact_w)), 0);
            assert_eq!(native::c_lock(&args, Some(&compact_w)), 0);
            // Every other bagging choice is valid too, for the model and both compiled cores.
            for k in model::bag_points(n, &indexes)
                .into_iter()
                .map(Some)
                .chain([None])
            {
                let leaves: Vec<(u64, [u8; 32])> = indexes
                    .iter()
                    .map(|&i| (i, mmr.leaves[i as usize]))
                    .collect();
                let p = model::encode_compiled(&leaves, &model::honest_commands(&mmr, &indexes, k));
                assert!(model::compiled_accepts(&p, &mmr.root, n));
                assert_eq!(native::compiled_payload(&p, &mmr.root, n), 0);
                assert_eq!(native::c_payload(&p, &mmr.root, n), 0);
            }
            checked += 1;
        }
    }
    println!("{checked} honest proofs checked");
}

#[test]
fn the_spec_worked_example() {
    // docs/compiled-format.md section 6 and docs/baseline-format.md.
    let leaves: Vec<[u8; 32]> = (0..5u8).map(|i| [0x11 * (i + 1); 32]).collect();
    let mmr = Mmr::build(&leaves);
    assert_eq!(
        assurance::hex(&mmr.root),
        "723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
    );
    let compiled = model::honest_compiled(&mmr, &[0, 3]);
    assert_eq!(compiled.len(), 187);
    assert!(model::compiled_accepts(&compiled, &mmr.root, 5));
    // Version 2: crates/compiled-proof/tests/compact.rs, worked_example.
    let compact = assurance::compact::honest(&mmr, &[0, 3]);
    assert_eq!(compact.len(), 164);
    assert_eq!(&compact[..4], &[0x02, 0x02, 0x00, 0x02]);
    assert!(assurance::compact::accepts(&compact, &mmr.root, 5));
    assert_eq!(model::honest_baseline(&mmr, &[0, 3]).len(), 184);
}

#[test]
fn node_lookup_is_the_recursive_hash() {
    fn rec(mmr: &Mmr, first: u64, h: u32) -> [u8; 32] {
        if h == 0 {
            return mmr.leaves[first as usize];
        }
        let half = 1u64 << (h - 1);
        assurance::hash::merge(&rec(mmr, first, h - 1), &rec(mmr, first + half, h - 1))
    }
    for n in 1..=40u64 {
        let mmr = Mmr::with_leaf_count(n, 3);
        assert_eq!(mmr.node_pos.len() as u64, mmr.mmr_size());
        for (&(first, h), &pos) in &mmr.node_pos {
            assert_eq!(mmr.nodes[pos], rec(&mmr, first, h));
            assert_eq!(mmr.heights[pos], h);
        }
    }
}
