//! The checker must be able to fail. A fast sample of the mutation run (the full run is
//! `./build.sh kernel-proof mutants --bit-flips`), hand-picked mutants with the verdict each
//! must get, and every declaration mutant.

mod common;

use kernel_proof::check::{prove_image, A1, A3, A4, A6};
use kernel_proof::decode::{decode, BinOp, BranchOp, Inst, LoadKind, Reg, RA};
use kernel_proof::elf::Image;
use kernel_proof::exec::FaultKind;
use kernel_proof::mutate::{self, judge, Baseline, Context, Verdict};
use kernel_proof::report;

struct Setup {
    img: Image,
    base: Baseline,
    decl: report::Declarations,
    sources: [String; 3],
}

fn setup() -> Setup {
    let img = common::release_image("compiled-verifier.debug");
    let base = Baseline::new(&img).expect("the kernel runs");
    assert_eq!(
        base.entries.len(),
        3,
        "compiled-verifier links all three entries"
    );
    let sources = report::declaration_sources(&common::root()).expect("sources");
    let decl = report::declarations_from(&sources).expect("declarations");
    Setup {
        img,
        base,
        decl,
        sources,
    }
}

fn ctx(s: &Setup) -> Context<'_> {
    Context {
        sites: &s.decl.sites,
        header: &s.decl.header,
        tries: 8,
    }
}

/// The first executed instruction of `entry` (in execution order) that `pred` accepts.
fn find(s: &Setup, entry: &str, pred: &dyn Fn(&Inst) -> bool) -> (u64, Inst) {
    let addr = s.img.symbol(entry).expect("entry");
    let e = kernel_proof::check::entry(entry).expect("known entry");
    let mut arena = kernel_proof::expr::Arena::new();
    let out =
        kernel_proof::check::run_symbolic(&s.img, e, addr, &mut arena, &|_| None).expect("run");
    for pc in out.trace {
        let inst = decode(s.img.code_at(pc).expect("code"))
            .expect("decodes")
            .inst;
        if pred(&inst) {
            return (pc, inst);
        }
    }
    panic!("no such instruction in {entry}")
}

fn verdict(s: &Setup, pc: u64, inst: Inst) -> Verdict {
    judge(&s.img, &s.base, &ctx(s), pc, &|p| (p == pc).then_some(inst))
}

fn r(name: &str) -> Reg {
    Reg::parse(name).expect("register")
}

#[test]
fn hand_picked_mutants_get_their_verdicts() {
    let s = setup();
    let m = "mmr_merge_rv64";
    let mut cases: Vec<(&str, u64, Inst, Verdict)> = Vec::new();
    let op_inst = |op, rd, rs1, rs2| Inst::Op { op, rd, rs1, rs2 };
    let op_imm_inst = |op, rd, rs1, imm| Inst::OpImm { op, rd, rs1, imm };
    let load_inst = |kind, rd, rs1, off| Inst::Load { kind, rd, rs1, off };
    // The first rotation by 32 (round 0's first G) rotates by 24 instead.
    let (pc, i) = find(&s, m, &|i| {
        matches!(
            i,
            Inst::OpImm {
                op: BinOp::Ror,
                imm: 32,
                ..
            }
        )
    });
    let Inst::OpImm { rd, rs1, .. } = i else {
        unreachable!()
    };
    cases.push((
        "rotation 32 -> 24",
        pc,
        op_imm_inst(BinOp::Ror, rd, rs1, 24),
        Verdict::Output,
    ));
    // v12 = IV4 ^ t without the byte counter.
    let (pc, i) = find(&s, m, &|i| {
        matches!(
            i,
            Inst::OpImm {
                op: BinOp::Xor,
                imm: 64,
                ..
            }
        )
    });
    let Inst::OpImm { rd, rs1, .. } = i else {
        unreachable!()
    };
    cases.push((
        "counter t dropped",
        pc,
        op_imm_inst(BinOp::Xor, rd, rs1, 0),
        Verdict::Output,
    ));
    // v14 (the final-block flag) loaded from the neighbouring table word.
    let (pc, i) = find(&s, m, &|i| matches!(i, Inst::Load { off: 72, .. }));
    let Inst::Load { kind, rd, rs1, .. } = i else {
        unreachable!()
    };
    cases.push((
        "final flag word",
        pc,
        load_inst(kind, rd, rs1, 64),
        Verdict::Output,
    ));
    // Round 0's precomputed v1 = IV1 + h5 from h6 instead.
    let (pc, i) = find(
        &s,
        m,
        &|i| matches!(i, Inst::Op { op: BinOp::Add, rd, rs1, .. } if rd != rs1),
    );
    let Inst::Op { op, rd, rs1, rs2 } = i else {
        unreachable!()
    };
    cases.push((
        "round 0 precompute",
        pc,
        op_inst(op, rd, rs1, Reg(rs2.0 + 1)),
        Verdict::Output,
    ));
    // The last output xor as an add.
    let (pc, i) = find(
        &s,
        m,
        &|i| matches!(i, Inst::Op { op: BinOp::Xor, rd, rs1, .. } if *rd == A6 && *rs1 == A6),
    );
    let Inst::Op { rd, rs1, rs2, .. } = i else {
        unreachable!()
    };
    cases.push((
        "output xor -> add",
        pc,
        op_inst(BinOp::Add, rd, rs1, rs2),
        Verdict::Output,
    ));
    // A message word read from a2, which no caller declares as an input.
    let (pc, i) = find(
        &s,
        m,
        &|i| matches!(i, Inst::Op { op: BinOp::Add, rs2, .. } if *rs2 == A3),
    );
    let Inst::Op { op, rd, rs1, .. } = i else {
        unreachable!()
    };
    cases.push((
        "reads a2",
        pc,
        op_inst(op, rd, rs1, r("a2")),
        Verdict::Output,
    ));
    // Past the end of the right input.
    let (pc, i) = find(
        &s,
        m,
        &|i| matches!(i, Inst::Load { rs1, off: 0, .. } if *rs1 == A1),
    );
    let Inst::Load { rd, .. } = i else {
        unreachable!()
    };
    cases.push((
        "load past the input",
        pc,
        load_inst(LoadKind::Ld, rd, A1, 32),
        Verdict::Fault(FaultKind::Load),
    ));
    // A byte load of an input: not a whole word.
    cases.push((
        "byte load",
        pc,
        load_inst(LoadKind::Lbu, rd, A1, 0),
        Verdict::Fault(FaultKind::Load),
    ));
    // A store, a branch on data, a return through another register.
    let (pc, _) = find(&s, m, &|i| matches!(i, Inst::Op { op: BinOp::Add, .. }));
    cases.push((
        "store",
        pc,
        Inst::Store {
            bytes: 8,
            rs1: r("a2"),
            rs2: A3,
            off: 0,
        },
        Verdict::Fault(FaultKind::Store),
    ));
    cases.push((
        "branch",
        pc,
        Inst::Branch {
            op: BranchOp::Beq,
            rs1: A3,
            rs2: A4,
            off: 4,
        },
        Verdict::Fault(FaultKind::Control),
    ));
    let (pc, _) = find(&s, m, &|i| matches!(i, Inst::Jalr { .. }));
    cases.push((
        "return via t0",
        pc,
        Inst::Jalr {
            rd: Reg(0),
            rs1: r("t0"),
            off: 0,
        },
        Verdict::Fault(FaultKind::Control),
    ));
    // chain_right's jump links through s0, a register every caller expects preserved.
    let cr = "mmr_merge_rv64_chain_right";
    let (pc, i) = find(&s, cr, &|i| matches!(i, Inst::Jal { .. }));
    let Inst::Jal { off, .. } = i else {
        unreachable!()
    };
    cases.push((
        "jump links s0",
        pc,
        Inst::Jal { rd: r("s0"), off },
        Verdict::Effects,
    ));
    cases.push((
        "jump links ra",
        pc,
        Inst::Jal { rd: RA, off },
        Verdict::Fault(FaultKind::Control),
    ));
    // Its first move as an xor with zero: the same value.
    let (pc, i) = find(&s, cr, &|i| matches!(i, Inst::Op { rs1, .. } if rs1.0 == 0));
    let Inst::Op { rd, rs1, rs2, .. } = i else {
        unreachable!()
    };
    cases.push((
        "mv as xor",
        pc,
        op_inst(BinOp::Xor, rd, rs1, rs2),
        Verdict::Equivalent(String::new()),
    ));
    for (name, pc, inst, want) in cases {
        assert_eq!(
            verdict(&s, pc, inst),
            want,
            "{name} at {pc:#x}: {}",
            inst.render(pc)
        );
    }
}

#[test]
fn sampled_instruction_mutants_are_rejected_or_explained() {
    let s = setup();
    let all = mutate::all_mutants(&s.img, &s.base).expect("mutants");
    assert!(all.len() > 8000, "{} mutants", all.len());
    let sample: Vec<_> = all.iter().step_by(20).cloned().collect();
    let sum = mutate::run_mutants(&s.img, &s.base, &ctx(&s), &sample);
    assert!(sum.unconfirmed.is_empty(), "{:?}", sum.unconfirmed);
    assert!(sum.rejected >= sample.len() - 10, "{sum:?}");
    for (m, why) in &sum.equivalent {
        assert!(!why.is_empty() && !why.starts_with('('), "{m:?}");
    }
}

#[test]
fn bit_flip_sample_is_rejected_or_explained() {
    let mut s = setup();
    let ctx = Context {
        sites: &s.decl.sites,
        header: &s.decl.header,
        tries: 8,
    };
    let sum = mutate::run_bit_flips(&mut s.img, &s.base, &ctx, 40);
    assert!(sum.total > 500, "{}", sum.total);
    assert!(sum.unconfirmed.is_empty(), "{:?}", sum.unconfirmed);
    assert!(sum.rejected + sum.equivalent.len() == sum.total);
    assert!(sum.equivalent.len() <= 4, "{:?}", sum.equivalent);
}

#[test]
fn every_declaration_mutant_is_rejected() {
    let s = setup();
    let proved: Vec<_> = prove_image(&s.img, &|_| None)
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .collect();
    assert_eq!(proved.len(), 3);
    assert!(report::declaration_errors(&s.decl, &proved).is_empty());
    let (n, rejected, accepted) = mutate::run_declaration_mutants(&s.sources, &proved);
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
    assert_eq!(rejected, n);
    assert!(n >= 100, "{n} declaration mutants");
}
