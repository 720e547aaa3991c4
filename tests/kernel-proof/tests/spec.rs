//! The specification transcription is part of what the proof trusts: it is checked here on
//! concrete words against RFC 7693's own test vector, blake2b-rs (the BLAKE2 reference C
//! code) and mmr-blake2b's Rust merge, and its symbolic evaluation against its concrete one.

use kernel_proof::check::{spec_concrete, spec_outputs, words, SplitMix};
use kernel_proof::expr::{Arena, Side, Var};
use kernel_proof::report::spec_self_check;
use kernel_proof::spec;
use std::collections::HashMap;

#[test]
fn rfc_vector_and_blake2b_rs() {
    // RFC 7693 Appendix A, 5,000 random merges and every length 0..=300 with keys,
    // digest lengths and personalizations, all against blake2b-rs.
    let n = spec_self_check(5000).expect("specification agrees");
    assert_eq!(n, 1 + 5000 + 301);
}

#[test]
fn merge_equals_mmr_blake2b() {
    let mut rng = SplitMix(7);
    for _ in 0..5000 {
        let (l, r) = (rng.bytes32(), rng.bytes32());
        assert_eq!(words(&mmr_blake2b::merge(&l, &r)), spec_concrete(&l, &r));
    }
}

#[test]
fn symbolic_spec_evaluates_to_concrete_spec() {
    let mut arena = Arena::new();
    let outs = spec_outputs(&mut arena);
    let mut rng = SplitMix(11);
    for _ in 0..200 {
        let (l, r) = (rng.bytes32(), rng.bytes32());
        let (lw, rw) = (words(&l), words(&r));
        let env = |v: Var| match v {
            Var::Word(Side::Left, i) => lw[usize::from(i)],
            Var::Word(Side::Right, i) => rw[usize::from(i)],
            _ => panic!("the specification depends on {v:?}"),
        };
        let mut memo = HashMap::new();
        let got = outs.map(|o| arena.eval(o, &env, &mut memo));
        assert_eq!(got, spec_concrete(&l, &r));
    }
}

#[test]
fn a_wrong_parameter_changes_the_expressions() {
    // The proof compares ids: a specification with another personalization, counter or
    // final flag must give other ids for the same inputs.
    let mut arena = Arena::new();
    let want = spec_outputs(&mut arena);
    let left = [0u8, 1, 2, 3].map(|i| arena.var(Var::Word(Side::Left, i)));
    let right = [0u8, 1, 2, 3].map(|i| arena.var(Var::Word(Side::Right, i)));
    let ckb = spec::parameter_block(32, 0, &[0; 16], &spec::CKB_PERSONAL);
    let other_personal = spec::parameter_block(32, 0, &[0; 16], b"ckb-default-hasH");
    for (p, t, last) in [
        (other_personal, 64u128, true),
        (ckb, 65, true),
        (ckb, 64, false),
    ] {
        let h = std::array::from_fn(|i| arena.konst(spec::IV[i] ^ p[i]));
        let zero = arena.konst(0);
        let mut m = [zero; 16];
        m[..4].copy_from_slice(&left);
        m[4..8].copy_from_slice(&right);
        let out = spec::compress(&mut arena, h, m, t, last);
        for i in 0..4 {
            assert_ne!(out[i], want[i]);
        }
    }
}
