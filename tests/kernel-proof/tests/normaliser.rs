//! The normaliser is part of what the proof trusts: its identities are checked one by one,
//! and the normalised expressions of the kernel's outputs are evaluated on random inputs
//! against the concrete interpreter and blake2b-rs.

mod common;

use kernel_proof::check::{self, words, SplitMix, ENTRIES};
use kernel_proof::decode::BinOp;
use kernel_proof::expr::{Arena, Node, Side, Var};
use std::collections::HashMap;

fn vars(a: &mut Arena) -> [u32; 3] {
    [0u8, 1, 2].map(|i| a.var(Var::Word(Side::Left, i)))
}

#[test]
fn identities() {
    let mut a = Arena::new();
    let [x, y, z] = vars(&mut a);
    let (c1, c2) = (a.konst(0xffff_ffff_ffff_fff0), a.konst(0x20));
    // Associativity and commutativity of + and ^, constant folding.
    let l = a.add(x, y);
    let l = a.add(l, z);
    let r = a.add(z, x);
    let r = a.add(y, r);
    assert_eq!(l, r);
    let l = a.add(x, c1);
    let l = a.add(l, c2);
    let k = a.konst(0x10);
    assert_eq!(l, a.add(k, x));
    let l = a.xor(x, y);
    let l = a.xor(z, l);
    let r = a.xor(y, z);
    assert_eq!(l, a.xor(r, x));
    // x ^ x = 0, x ^ 0 = x, x + 0 = x.
    let xx = a.xor(l, x);
    let expect = a.xor(y, z);
    assert_eq!(xx, expect);
    let zero = a.konst(0);
    assert_eq!(a.xor(x, x), zero);
    assert_eq!(a.xor(x, zero), x);
    assert_eq!(a.add(x, zero), x);
    // Rotations compose, and rotr by 0 or 64 is the identity.
    let r1 = a.rotr(x, 24);
    let r2 = a.rotr(r1, 40);
    assert_eq!(r2, x);
    let r3 = a.rotr(r1, 8);
    assert_eq!(r3, a.rotr(x, 32));
    let (k80, k1) = (a.konst(64 + 16), a.konst(1));
    assert_eq!(a.bin(BinOp::Ror, x, k80), a.rotr(x, 16));
    assert_eq!(a.bin(BinOp::Rol, x, k1), a.rotr(x, 63));
    // What must stay apart: + is not ^, rotations by different amounts, x + x is not 0.
    assert_ne!(a.add(x, y), a.xor(x, y));
    assert_ne!(a.rotr(x, 16), a.rotr(x, 24));
    assert_ne!(a.add(x, x), zero);
    // Operations without a normal form stay opaque but fold on constants.
    let s = a.bin(BinOp::Sub, x, x);
    assert!(matches!(a.node(s), Node::Op(BinOp::Sub, _, _)));
    let c = a.bin(BinOp::Sub, c2, c1);
    assert_eq!(a.as_const(c), Some(0x30));
}

#[test]
fn normalised_kernel_outputs_evaluate_to_the_hash() {
    let img = common::release_image("compiled-verifier.debug");
    let mut rng = SplitMix(3);
    for e in ENTRIES.iter() {
        let addr = img.symbol(e.name).expect("entry");
        let mut arena = Arena::new();
        let out = check::run_symbolic(&img, e, addr, &mut arena, &|_| None).expect("run");
        for _ in 0..100 {
            let (l, r) = (rng.bytes32(), rng.bytes32());
            let (lw, rw) = (words(&l), words(&r));
            let env = |v: Var| match v {
                Var::Word(Side::Left, i) => lw[usize::from(i)],
                Var::Word(Side::Right, i) => rw[usize::from(i)],
                _ => panic!("an output depends on {v:?}"),
            };
            let mut memo = HashMap::new();
            let sym =
                check::OUTPUTS.map(|reg| arena.eval(out.regs[usize::from(reg.0)], &env, &mut memo));
            let conc = check::run_concrete(&img, e, addr, l, r, &mut rng, &|_| None)
                .expect("concrete run");
            let mut data = [0u8; 64];
            data[..32].copy_from_slice(&l);
            data[32..].copy_from_slice(&r);
            let mut want = [0u8; 32];
            let mut h = blake2b_rs::Blake2bBuilder::new(32)
                .personal(b"ckb-default-hash")
                .build();
            h.update(&data);
            h.finalize(&mut want);
            assert_eq!(sym, words(&want), "{}", e.name);
            assert_eq!(conc, words(&want), "{}", e.name);
        }
    }
}
