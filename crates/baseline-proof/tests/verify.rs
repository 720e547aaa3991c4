use baseline_proof::{encode, verify, BaselineError, Error, Hasher};
use ckb_merkle_mountain_range::{util::MemStore, Merge, MMR};
use rand::{rngs::StdRng, Rng, SeedableRng};

struct RefHasher;
// SAFETY: the default merge_uninit initialises `out` before merging into it.
unsafe impl Hasher for RefHasher {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        let mut h = blake2b_rs::Blake2bBuilder::new(32)
            .personal(b"ckb-default-hash")
            .build();
        h.update(left);
        h.update(right);
        h.finalize(out);
    }
}

fn ref_merge(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    RefHasher::merge(left, right, &mut out);
    out
}

#[derive(Debug)]
struct M;
impl Merge for M {
    type Item = [u8; 32];
    fn merge(l: &[u8; 32], r: &[u8; 32]) -> ckb_merkle_mountain_range::Result<[u8; 32]> {
        Ok(ref_merge(l, r))
    }
}

struct Case {
    root: [u8; 32],
    mmr_size: u64,
    leaf_count: u64,
    leaves: Vec<(u64, [u8; 32])>,
    items: Vec<[u8; 32]>,
}

fn case(rng: &mut StdRng, n: u64, k: usize) -> Case {
    let store = MemStore::default();
    let mut mmr = MMR::<[u8; 32], M, _>::new(0, &store);
    let mut all = Vec::new();
    for _ in 0..n {
        let v: [u8; 32] = rng.gen();
        all.push((mmr.push(v).unwrap(), v));
    }
    let mut picks: Vec<usize> = (0..n as usize).collect();
    for i in 0..k {
        let j = rng.gen_range(i..picks.len());
        picks.swap(i, j);
    }
    let mut leaves: Vec<(u64, [u8; 32])> = picks[..k].iter().map(|&i| all[i]).collect();
    leaves.sort();
    let proof = mmr.gen_proof(leaves.iter().map(|l| l.0).collect()).unwrap();
    Case {
        root: mmr.get_root().unwrap(),
        mmr_size: mmr.mmr_size(),
        leaf_count: n,
        leaves,
        items: proof.proof_items().to_vec(),
    }
}

fn run(c: &Case, leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Result<(), Error> {
    verify_payload(c, &encode(leaves, items))
}

fn verify_payload(c: &Case, payload: &[u8]) -> Result<(), Error> {
    verify::<RefHasher>(payload, &c.root, c.mmr_size, c.leaf_count)
}

#[test]
fn honest_proofs_accepted_and_shape_matches_gen_proof() {
    let mut rng = StdRng::seed_from_u64(7);
    for round in 0..400 {
        let n = if round < 64 {
            round + 1
        } else {
            rng.gen_range(1..3000)
        };
        let k = rng.gen_range(1..=n.min(100) as usize);
        let c = case(&mut rng, n, k);
        assert_eq!(run(&c, &c.leaves, &c.items), Ok(()), "n={n} k={k}");
        // One fewer or one more item than the shape fixes is refused before hashing.
        if let Some((_, shorter)) = c.items.split_last() {
            assert_eq!(
                run(&c, &c.leaves, shorter),
                Err(Error::Payload(BaselineError::ProofTooShort))
            );
        }
        let mut longer = c.items.clone();
        longer.push(c.root);
        assert_eq!(
            run(&c, &c.leaves, &longer),
            Err(Error::Payload(BaselineError::ProofTooLong))
        );
    }
}

#[test]
fn soundness_classes_rejected() {
    let mut rng = StdRng::seed_from_u64(11);
    let c = case(&mut rng, 11, 3);
    let e = |b| Err(Error::Payload(b));
    // No leaves: the root passed as the only proof item.
    assert_eq!(run(&c, &[], &[c.root]), e(BaselineError::NoLeaves));
    // Leaf at or beyond mmr_size, at an inner node, unsorted, duplicated.
    let mut l = c.leaves.clone();
    l[2].0 = c.mmr_size;
    assert_eq!(run(&c, &l, &c.items), e(BaselineError::LeafOutOfRange));
    let mut l = c.leaves.clone();
    l[2].0 = u64::MAX;
    assert_eq!(run(&c, &l, &c.items), e(BaselineError::LeafOutOfRange));
    let mut l = c.leaves.clone();
    l[0].0 = 2;
    assert_eq!(run(&c, &l, &c.items), e(BaselineError::NotALeaf));
    let mut l = c.leaves.clone();
    l.swap(0, 1);
    assert_eq!(run(&c, &l, &c.items), e(BaselineError::LeavesUnsorted));
    let mut l = c.leaves.clone();
    l[1] = l[0];
    assert_eq!(run(&c, &l, &c.items), e(BaselineError::LeavesUnsorted));
    // A wrong leaf value or item is a root mismatch.
    let mut l = c.leaves.clone();
    l[0].1[5] ^= 1;
    assert_eq!(run(&c, &l, &c.items), Err(Error::RootMismatch));
    // Every truncation and every single bit flip of the encoded payload is rejected.
    let honest = encode(&c.leaves, &c.items);
    for cut in 0..honest.len() {
        assert!(verify_payload(&c, &honest[..cut]).is_err());
    }
    for i in 0..honest.len() {
        for bit in 0..8 {
            let mut p = honest.clone();
            p[i] ^= 1 << bit;
            assert!(verify_payload(&c, &p).is_err(), "byte {i} bit {bit}");
        }
    }
    let mut trailing = honest.clone();
    trailing.push(0);
    assert_eq!(
        verify_payload(&c, &trailing),
        e(BaselineError::TrailingBytes)
    );
}

#[test]
fn moved_leaf_and_shifted_peaks_rejected() {
    // 3 leaves: peaks at positions 2 (height 1) and 3 (a lone leaf). Claiming the bagged
    // pair of peaks as something else, or a leaf at another position, must fail.
    let mut rng = StdRng::seed_from_u64(3);
    let c = case(&mut rng, 3, 1);
    for pos in [0u64, 1, 3] {
        for value in [
            c.root,
            c.leaves[0].1,
            c.items.first().copied().unwrap_or(c.root),
        ] {
            let claim = [(pos, value)];
            let honest = pos == c.leaves[0].0 && value == c.leaves[0].1;
            let r = run(&c, &claim, &c.items);
            assert_eq!(r.is_ok(), honest, "pos {pos}");
        }
    }
}
