//! The baseline lock in ckb-script: honest proofs accepted, every applicable soundness class
//! rejected with its exact code.

use baseline_proof::{encode, BaselineError, BaselineError::*};
use ckb_mmr_sdk::{Workload, REFERENCE_SEED};
use mmr_lock::LockError;
use tests::edited;
use tests::{honest, run, with_payload, LockInput, Verifier};

const V: Verifier = Verifier::Baseline;

fn code_of(w: &Workload, leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Option<i8> {
    payload_code(w, &encode(leaves, items))
}

/// The exit code of `payload` under `w`'s args; `None` if accepted.
fn payload_code(w: &Workload, payload: &[u8]) -> Option<i8> {
    run(V, &with_payload(w, payload)).code()
}

/// The code `e` as an expected exit code.
fn rejected(e: BaselineError) -> Option<i8> {
    Some(e.code())
}

fn lock_rejected(e: LockError) -> Option<i8> {
    Some(e.code())
}

fn small() -> Workload {
    // 11 leaves (peaks of 8, 2 and 1 leaves), proving leaves 1, 4 and 9.
    Workload::from_leaves(&tests::exploits::leaves11(), &[1, 4, 9]).unwrap()
}

#[test]
fn honest_proofs_accepted() {
    for seed in [1, 2, 3, REFERENCE_SEED] {
        let w = Workload::from_seed(seed);
        let cycles = tests::honest_cycles(V, &w);
        assert!(cycles > 0);
        println!(
            "seed {seed}: {} leaves, {} proved, {cycles} cycles",
            w.leaf_count,
            w.proved.len()
        );
    }
    let w = small();
    assert!(run(V, &honest(V, &w)).accepted());
    // The one-leaf MMR: the leaf is the root, the proof is empty.
    let one = Workload::from_leaves(&[[7; 32]], &[0]).unwrap();
    assert!(one.proof_items.is_empty());
    assert!(run(V, &honest(V, &one)).accepted());
}

#[test]
fn flipped_bytes_rejected() {
    let w = small();
    let payload = w.baseline_payload();
    for i in 0..payload.len() {
        let p = edited(&payload, |p| p[i] ^= 0x01);
        let code = payload_code(&w, &p);
        assert!(code.is_some(), "flip at byte {i} accepted");
    }
}

#[test]
fn no_leaves_rejected() {
    let w = small();
    assert_eq!(code_of(&w, &[], &[w.root]), rejected(NoLeaves));
    assert_eq!(code_of(&w, &[], &[]), rejected(NoLeaves));
}

#[test]
fn bad_leaf_positions_rejected() {
    let w = small();
    let mut l = w.proved.clone();
    l[2].0 = w.mmr_size;
    assert_eq!(code_of(&w, &l, &w.proof_items), rejected(LeafOutOfRange));
    l[2].0 = u64::MAX;
    assert_eq!(code_of(&w, &l, &w.proof_items), rejected(LeafOutOfRange));
    let mut l = w.proved.clone();
    l[0].0 = 2; // an inner node
    assert_eq!(code_of(&w, &l, &w.proof_items), rejected(NotALeaf));
    // A leaf value moved to another leaf position.
    let l = edited(&w.proved, |l| l[0].0 = 0);
    assert_eq!(
        code_of(&w, &l, &w.proof_items),
        lock_rejected(LockError::RootMismatch)
    );
    // The bagged pair of right peaks (one proof item) passed off as a leaf value.
    let l = edited(&w.proved, |l| l[2].1 = *w.proof_items.last().unwrap());
    assert_eq!(
        code_of(&w, &l, &w.proof_items),
        lock_rejected(LockError::RootMismatch)
    );
}

#[test]
fn unsorted_and_duplicate_leaves_rejected() {
    let w = small();
    let l = edited(&w.proved, |l| l.swap(0, 1));
    assert_eq!(code_of(&w, &l, &w.proof_items), rejected(LeavesUnsorted));
    let l = edited(&w.proved, |l| l[1] = l[0]);
    assert_eq!(code_of(&w, &l, &w.proof_items), rejected(LeavesUnsorted));
}

#[test]
fn proof_length_and_trailing_bytes_rejected() {
    let w = small();
    let items = edited(&w.proof_items, |items| items.push([0; 32]));
    assert_eq!(code_of(&w, &w.proved, &items), rejected(ProofTooLong));
    assert_eq!(
        code_of(&w, &w.proved, &w.proof_items[1..]),
        rejected(ProofTooShort)
    );
    // An unconsumed leaf: one more leaf than the proof covers.
    let l = edited(&w.proved, |l| l.push((w.mmr_size - 1, [9; 32])));
    assert!(code_of(&w, &l, &w.proof_items).is_some());
    let mut p = w.baseline_payload();
    p.push(0);
    assert_eq!(payload_code(&w, &p), rejected(TrailingBytes));
    let p = w.baseline_payload();
    for cut in [0, 3, 4, 20, p.len() - 1] {
        assert_eq!(
            payload_code(&w, &p[..cut]),
            rejected(Truncated),
            "cut {cut}"
        );
    }
    // Item and leaf lengths cannot split or join bytes: a count that claims more data than
    // there is is a truncation.
    let mut p = w.baseline_payload();
    p[0] = p[0].wrapping_add(1);
    assert_eq!(payload_code(&w, &p), rejected(Truncated));
}

#[test]
fn non_canonical_mmr_size_rejected() {
    let w = small();
    for size in [0u64, 20, 21, 5036, 1 << 51, u64::MAX] {
        let mut args = w.lock_args();
        args[32..].copy_from_slice(&size.to_le_bytes());
        let input = LockInput {
            args: args.into(),
            ..with_payload(&w, &w.baseline_payload())
        };
        assert_eq!(
            run(V, &input).code(),
            lock_rejected(LockError::MmrSizeInvalid),
            "size {size}"
        );
    }
    // A canonical but different size changes the shape: rejected, never accepted.
    let mut args = w.lock_args();
    args[32..].copy_from_slice(&22u64.to_le_bytes());
    let input = LockInput {
        args: args.into(),
        ..with_payload(&w, &w.baseline_payload())
    };
    assert!(run(V, &input).code().is_some());
}

#[test]
fn lock_level_errors() {
    let w = small();
    let good = with_payload(&w, &w.baseline_payload());
    for len in [0usize, 39, 42, 200] {
        let mut args = w.lock_args();
        args.resize(len, 0);
        let input = LockInput {
            args: args.into(),
            witness: good.witness.clone(),
        };
        assert_eq!(
            run(V, &input).code(),
            lock_rejected(LockError::ArgsLength),
            "args len {len}"
        );
    }
    // 41 bytes select owner mode only with flags 0x01 (tests/tests/owner.rs); any other
    // flags byte is an encoding error.
    for flags in [0x00u8, 0x02, 0xff] {
        let mut args = w.lock_args();
        args.push(flags);
        let input = LockInput {
            args: args.into(),
            witness: good.witness.clone(),
        };
        assert_eq!(
            run(V, &input).code(),
            lock_rejected(LockError::ArgsEncoding),
            "flags {flags:#x}"
        );
    }
    let missing = LockInput {
        args: good.args.clone(),
        witness: None,
    };
    assert_eq!(
        run(V, &missing).code(),
        lock_rejected(LockError::WitnessMissing)
    );
    let witness = good.witness.clone().unwrap();
    let truncated = LockInput {
        args: good.args.clone(),
        witness: Some(witness.slice(..witness.len() - 1)),
    };
    assert_eq!(
        run(V, &truncated).code(),
        lock_rejected(LockError::WitnessEncoding)
    );
    let not_molecule = LockInput {
        args: good.args.clone(),
        witness: Some(vec![1, 2, 3].into()),
    };
    assert_eq!(
        run(V, &not_molecule).code(),
        lock_rejected(LockError::WitnessEncoding)
    );
    // WitnessArgs with an absent lock field.
    let no_lock: Vec<u8> = [16u32, 16, 16, 16]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let input = LockInput {
        args: good.args.clone(),
        witness: Some(no_lock.into()),
    };
    assert_eq!(
        run(V, &input).code(),
        lock_rejected(LockError::LockFieldMissing)
    );
    // A witness larger than the buffer is rejected, never read in part.
    let mut payload = w.baseline_payload();
    payload.resize(mmr_lock::MAX_WITNESS_SIZE, 0);
    assert_eq!(
        payload_code(&w, &payload),
        lock_rejected(LockError::WitnessTooLarge)
    );
    // Exactly at the limit fits and reaches the payload checks.
    let exact = mmr_lock::MAX_WITNESS_SIZE - 20;
    let mut payload = w.baseline_payload();
    payload.resize(exact, 0);
    assert_eq!(payload_code(&w, &payload), rejected(TrailingBytes));
}

#[test]
fn largest_witnesses_fit_in_memory() {
    // As many proved leaves as a 64 KiB witness holds, from a large MMR: the bump arena (or
    // the buddy heap) must hold everything the verifier allocates for them.
    let leaves: Vec<[u8; 32]> = (0..40_000u32)
        .map(|i| {
            let mut l = [0u8; 32];
            l[..4].copy_from_slice(&i.to_le_bytes());
            l
        })
        .collect();
    // Every 3rd leaf: many leaves, some shared siblings, fewest bytes per proved leaf.
    let mut k = 200;
    loop {
        let indexes: Vec<u64> = (0..k).map(|i| i * 3).collect();
        let w = Workload::from_leaves(&leaves, &indexes).unwrap();
        let payload = w.baseline_payload();
        if payload.len() + 20 > mmr_lock::MAX_WITNESS_SIZE {
            break;
        }
        if k % 400 == 0 || payload.len() + 20 + 2000 > mmr_lock::MAX_WITNESS_SIZE {
            assert!(run(V, &honest(V, &w)).accepted(), "k {k}");
        }
        k += 50;
    }
    assert!(k > 500, "witness limit reached at only {k} leaves");
}
