//! The mutation run: shows the checker can fail. Every instruction an entry executes is
//! replaced in turn by plausible wrong ones (another register in each operand, another
//! rotation amount, another offset or immediate, add <-> xor, the instruction dropped), and
//! optionally every bit of its encoding is flipped (which also exercises the decoder). Each
//! mutant goes through the same checks as the real kernel; it must be rejected, or, if the
//! checker accepts it, it is equivalent by the checker's own proof and is listed with the
//! reason.
//!
//! A rejection for a wrong output is confirmed with a concrete counterexample (the mutant
//! run concretely on random inputs against the specification), so a rejection never rests on
//! the normaliser merely failing to prove an equality.

use crate::check::{self, Failure, Proved, SplitMix, ENTRIES};
use crate::decode::{decode, BinOp, Inst, Reg, RA, ZERO};
use crate::elf::Image;
use crate::exec::{FaultKind, Patch};
use crate::wrappers::{CallSite, HeaderConvention};
use std::collections::{BTreeMap, BTreeSet};

/// The registers the kernel works in, in the order "another register" cycles through.
const CYCLE: [&str; 24] = [
    "a0", "a1", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
];

fn reg(n: &str) -> Reg {
    Reg::parse(n).unwrap_or(ZERO)
}

/// The next working register after `r` (for a register outside the set, a3).
fn other(r: Reg) -> Reg {
    let names: Vec<Reg> = CYCLE.iter().map(|n| reg(n)).collect();
    match names.iter().position(|&x| x == r) {
        Some(i) => names[(i + 1) % names.len()],
        None => reg("a3"),
    }
}

#[derive(Clone, Debug)]
pub struct Mutant {
    pub pc: u64,
    pub original: Inst,
    pub inst: Inst,
    /// What was changed, e.g. "rs2 a3 -> a4".
    pub what: String,
}

/// The plausible wrong versions of `inst`.
pub fn mutants_of(pc: u64, inst: Inst) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut push = |m: Inst, what: String| {
        if m != inst {
            out.push(Mutant {
                pc,
                original: inst,
                inst: m,
                what,
            });
        }
    };
    push(Inst::NOP, "dropped".into());
    let s0 = reg("s0");
    match inst {
        Inst::Op { op, rd, rs1, rs2 } => {
            let with = |op, rd, rs1, rs2| Inst::Op { op, rd, rs1, rs2 };
            let swapped = match op {
                BinOp::Add => BinOp::Xor,
                _ => BinOp::Add,
            };
            let what = format!("{} -> {}", op.mnemonic(), swapped.mnemonic());
            push(with(swapped, rd, rs1, rs2), what);
            push(
                with(op, other(rd), rs1, rs2),
                format!("rd {rd} -> {}", other(rd)),
            );
            push(
                with(op, rd, other(rs1), rs2),
                format!("rs1 {rs1} -> {}", other(rs1)),
            );
            push(
                with(op, rd, rs1, other(rs2)),
                format!("rs2 {rs2} -> {}", other(rs2)),
            );
            push(with(op, s0, rs1, rs2), format!("rd {rd} -> s0 (preserved)"));
        }
        Inst::OpImm { op, rd, rs1, imm } => {
            let with = |op, rd, rs1, imm| Inst::OpImm { op, rd, rs1, imm };
            match op {
                BinOp::Ror => {
                    for k in [32, 24, 16, 63, imm - 1] {
                        let k = k.rem_euclid(64);
                        if k != imm {
                            push(with(op, rd, rs1, k), format!("rotation {imm} -> {k}"));
                        }
                    }
                }
                BinOp::Add | BinOp::Xor => {
                    let swapped = if op == BinOp::Add {
                        BinOp::Xor
                    } else {
                        BinOp::Add
                    };
                    let what = format!("{} -> {}", op.mnemonic(), swapped.mnemonic());
                    push(with(swapped, rd, rs1, imm), what);
                    let what = format!("immediate {imm} -> {}", imm + 8);
                    push(with(op, rd, rs1, imm + 8), what);
                }
                _ => {}
            }
            if op != BinOp::Ror {
                push(
                    with(op, rd, rs1, imm ^ 1),
                    format!("immediate {imm} -> {}", imm ^ 1),
                );
            }
            push(
                with(op, other(rd), rs1, imm),
                format!("rd {rd} -> {}", other(rd)),
            );
            push(
                with(op, rd, other(rs1), imm),
                format!("rs1 {rs1} -> {}", other(rs1)),
            );
            push(with(op, s0, rs1, imm), format!("rd {rd} -> s0 (preserved)"));
        }
        Inst::Load { kind, rd, rs1, off } => {
            let with = |rd, rs1, off| Inst::Load { kind, rd, rs1, off };
            for o in [off + 8, off - 8] {
                push(with(rd, rs1, o), format!("offset {off} -> {o}"));
            }
            push(
                with(other(rd), rs1, off),
                format!("rd {rd} -> {}", other(rd)),
            );
            push(
                with(rd, other(rs1), off),
                format!("base {rs1} -> {}", other(rs1)),
            );
            push(with(s0, rs1, off), format!("rd {rd} -> s0 (preserved)"));
        }
        Inst::Auipc { rd, imm } => {
            push(
                Inst::Auipc {
                    rd,
                    imm: imm + 4096,
                },
                "page + 1".into(),
            );
            let what = format!("rd {rd} -> {}", other(rd));
            push(Inst::Auipc { rd: other(rd), imm }, what);
        }
        Inst::Jal { rd, off } => {
            for o in [off + 4, off - 4] {
                push(Inst::Jal { rd, off: o }, format!("target {off:+} -> {o:+}"));
            }
            push(Inst::Jal { rd: RA, off }, format!("rd {rd} -> ra"));
        }
        Inst::Jalr { rd, rs1, off } => {
            let with = |rs1, off| Inst::Jalr { rd, rs1, off };
            push(
                with(other(rs1), off),
                format!("rs1 {rs1} -> {}", other(rs1)),
            );
            push(with(rs1, off + 4), format!("offset {off} -> {}", off + 4));
        }
        _ => {}
    }
    out
}

/// How a mutant fared.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Refused by the run itself (decode, load, store, control, steps).
    Fault(FaultKind),
    /// A wrong output word, with a concrete counterexample found.
    Output,
    /// A wrong output word by the normal forms, and no counterexample found in the tries:
    /// possibly a false alarm of the normaliser.
    OutputUnconfirmed,
    /// Outputs right, but its register or memory effects differ from the declarations.
    Effects,
    /// Accepted: equal to the specification by the checker's proof, effects as declared.
    Equivalent(String),
}

impl Verdict {
    pub fn label(&self) -> String {
        match self {
            Verdict::Fault(k) => format!("rejected: {}", fault_label(*k)),
            Verdict::Output => "rejected: wrong output (counterexample found)".into(),
            Verdict::OutputUnconfirmed => {
                "UNCONFIRMED: normal forms differ, no counterexample".into()
            }
            Verdict::Effects => {
                "rejected: register/memory effects differ from the declarations".into()
            }
            Verdict::Equivalent(_) => "equivalent (accepted)".into(),
        }
    }
}

pub fn fault_label(k: FaultKind) -> &'static str {
    match k {
        FaultKind::Decode => "undecodable or outside the code",
        FaultKind::Load => "load outside the inputs and constants",
        FaultKind::Store => "writes memory",
        FaultKind::Control => "control flow (branch on data, wrong jump)",
        FaultKind::Steps => "does not return",
    }
}

/// What the checks need besides the image.
pub struct Context<'a> {
    pub sites: &'a [CallSite],
    pub header: &'a HeaderConvention,
    /// Random inputs tried per entry to confirm an output mismatch.
    pub tries: usize,
}

/// The real kernel's runs: which entries execute which addresses.
pub struct Baseline {
    pub entries: Vec<(&'static check::Entry, u64, BTreeSet<u64>)>,
}

impl Baseline {
    pub fn new(img: &Image) -> Result<Baseline, String> {
        let mut entries = Vec::new();
        for e in ENTRIES.iter() {
            let Some(addr) = img.symbol(e.name) else {
                continue;
            };
            let mut arena = crate::expr::Arena::new();
            let out = check::run_symbolic(img, e, addr, &mut arena, &|_| None)
                .map_err(|f| format!("{}: the unmutated kernel fails: {f}", e.name))?;
            entries.push((e, addr, out.trace.into_iter().collect()));
        }
        if entries.is_empty() {
            return Err("no kernel entry in the image".into());
        }
        Ok(Baseline { entries })
    }

    /// Every executed address, in order.
    pub fn pcs(&self) -> Vec<u64> {
        let all: BTreeSet<u64> = self
            .entries
            .iter()
            .flat_map(|(_, _, t)| t.iter().copied())
            .collect();
        all.into_iter().collect()
    }
}

/// Judges one mutation: `patch` replaces instructions (or `img` has flipped bits) at `pc`.
pub fn judge(
    img: &Image,
    base: &Baseline,
    ctx: &Context<'_>,
    pc: u64,
    patch: Patch<'_>,
) -> Verdict {
    let mut proved: Vec<Proved> = Vec::new();
    for (e, addr, trace) in &base.entries {
        if !trace.contains(&pc) {
            continue;
        }
        match check::prove_entry(img, e, *addr, patch) {
            Ok(p) => proved.push(p),
            Err(Failure::Fault(f)) => return Verdict::Fault(f.kind),
            Err(Failure::Mismatch { .. }) => {
                let mut rng = SplitMix(pc ^ 0x5eed);
                for t in 0..ctx.tries {
                    let (l, r) = rng.pair(t, [[0; 32]; 2]);
                    match check::run_concrete(img, e, *addr, l, r, &mut rng, patch) {
                        Ok(out) if out == check::spec_concrete(&l, &r) => {}
                        _ => return Verdict::Output,
                    }
                }
                return Verdict::OutputUnconfirmed;
            }
        }
    }
    for p in &proved {
        if !check::check_header(p, ctx.header).is_empty() {
            return Verdict::Effects;
        }
        for s in ctx.sites.iter().filter(|s| s.entry == p.name) {
            if !check::check_site(p, s).is_empty() {
                return Verdict::Effects;
            }
        }
    }
    Verdict::Equivalent(String::new())
}

/// Why an accepted mutant is equivalent, in words: the original and the mutant run in one
/// arena, so their values compare by id.
pub fn explain(img: &Image, base: &Baseline, m: &Mutant) -> String {
    let patch = |p: u64| (p == m.pc).then_some(m.inst);
    let mut reasons = Vec::new();
    for (e, addr, trace) in &base.entries {
        if !trace.contains(&m.pc) {
            continue;
        }
        let mut arena = crate::expr::Arena::new();
        let (Ok(o), Ok(x)) = (
            check::run_symbolic(img, e, *addr, &mut arena, &|_| None),
            check::run_symbolic(img, e, *addr, &mut arena, &patch),
        ) else {
            return "(the runs could not be repeated)".into();
        };
        let at = |out: &crate::exec::Outcome<crate::expr::Id>| {
            out.trace
                .iter()
                .rposition(|&p| p == m.pc)
                .and_then(|i| out.values[i])
        };
        let (vo, vx) = (at(&o), at(&x));
        let why = if m.original.rd() == m.inst.rd() && vo == vx {
            match vo {
                Some(v) => format!(
                    "it writes the same value to {} ({})",
                    m.inst.rd().map(|r| r.name()).unwrap_or("-"),
                    arena.show(v, 2)
                ),
                None => "it writes no register, as the original".into(),
            }
        } else {
            let differ: Vec<&str> = (1..32usize)
                .filter(|&r| o.regs[r] != x.regs[r])
                .map(|r| Reg(r as u8).name())
                .collect();
            format!(
                "the outputs' normal forms are equal (sums and xors are compared as flattened multisets); the final registers differ only in {}, which no output reads",
                if differ.is_empty() { "none".to_string() } else { differ.join(" ") }
            )
        };
        if !reasons.contains(&why) {
            reasons.push(why);
        }
    }
    reasons.join("; ")
}

/// Counts by verdict, and the accepted and unconfirmed mutants listed.
#[derive(Default, Debug)]
pub struct Summary {
    pub total: usize,
    pub by_verdict: BTreeMap<String, usize>,
    pub equivalent: Vec<(Mutant, String)>,
    pub unconfirmed: Vec<Mutant>,
    /// Rejected only for their effects (listed: they show the effect checks at work).
    pub effects: Vec<Mutant>,
    pub rejected: usize,
}

impl Summary {
    /// Counts one judged mutant; `why` explains it if it was accepted.
    fn record(&mut self, v: Verdict, m: Mutant, why: impl FnOnce(&Mutant) -> String) {
        self.total += 1;
        *self.by_verdict.entry(v.label()).or_default() += 1;
        match v {
            Verdict::Equivalent(_) => {
                let why = why(&m);
                self.equivalent.push((m, why));
            }
            Verdict::OutputUnconfirmed => self.unconfirmed.push(m),
            Verdict::Effects => {
                self.effects.push(m);
                self.rejected += 1;
            }
            _ => self.rejected += 1,
        }
    }
}

/// The instruction-level mutants of every executed instruction (every `step`-th one when
/// sampling, starting at `offset`).
pub fn all_mutants(img: &Image, base: &Baseline) -> Result<Vec<Mutant>, String> {
    let mut out = Vec::new();
    for pc in base.pcs() {
        let code = img.code_at(pc).ok_or("executed address outside the code")?;
        let d = decode(code)?;
        out.extend(mutants_of(pc, d.inst));
    }
    Ok(out)
}

pub fn run_mutants(img: &Image, base: &Baseline, ctx: &Context<'_>, mutants: &[Mutant]) -> Summary {
    let mut s = Summary::default();
    for m in mutants {
        let patch = |p: u64| (p == m.pc).then_some(m.inst);
        let v = judge(img, base, ctx, m.pc, &patch);
        s.record(v, m.clone(), |m| explain(img, base, m));
    }
    s
}

/// Every single-bit flip of the encoding of every `every`-th executed instruction, judged on
/// the image with that bit flipped.
pub fn run_bit_flips(img: &mut Image, base: &Baseline, ctx: &Context<'_>, every: usize) -> Summary {
    let mut s = Summary::default();
    for pc in base.pcs().into_iter().step_by(every.max(1)) {
        let Some(len) = img.code_at(pc).and_then(|c| decode(c).ok()).map(|d| d.len) else {
            continue;
        };
        for bit in 0..u32::from(len) * 8 {
            let Some((si, off)) = img.locate(pc + u64::from(bit / 8)) else {
                continue;
            };
            let mask = 1u8 << (bit % 8);
            let original = img
                .code_at(pc)
                .and_then(|c| decode(c).ok())
                .map(|d| d.inst)
                .unwrap_or(Inst::NOP);
            img.segments[si].bytes[off] ^= mask;
            let flipped_d = img.code_at(pc).and_then(|c| decode(c).ok());
            let flipped = flipped_d.map(|d| d.inst);
            let same_len = flipped_d.map(|d| d.len) == Some(len);
            let v = judge(img, base, ctx, pc, &|_| None);
            img.segments[si].bytes[off] ^= mask;
            let m = Mutant {
                pc,
                original,
                inst: flipped.unwrap_or(Inst::NOP),
                what: format!("bit {bit} flipped"),
            };
            // The flipped bytes decode to one instruction of the same length (else the run
            // would differ): explain it as an instruction mutant.
            s.record(v, m, |m| {
                if same_len {
                    explain(img, base, m)
                } else {
                    "accepted by the proof (the flip changes the instruction's length)".into()
                }
            });
        }
    }
    s
}

/// One edit of the declarations' source texts (asm.rs, merge_asm.h, merge_rv64.s).
#[derive(Clone, Debug)]
pub struct TextMutant {
    pub file: usize,
    pub what: String,
    pub text: String,
}

fn is_reg_name(s: &str) -> bool {
    Reg::parse(s).is_some()
}

/// Every `(start, end)` of `pat` in `text`.
fn find_all(text: &str, pat: &str) -> Vec<(usize, usize)> {
    text.match_indices(pat)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

fn replace_at(text: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{}{}", &text[..start], with, &text[end..])
}

/// The line of `text` at byte `at`, for the description.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Edits that each make one declaration wrong: a clobber or an output dropped, an input
/// dropped or turned into an output, a memory declaration weakened, a store offset moved,
/// a register dropped from the header's clobbers or added to its preserved list.
pub fn declaration_mutants(src: &[String; 3]) -> Vec<TextMutant> {
    let names = [
        "crates/mmr-blake2b/src/asm.rs",
        "contracts/c-verifier/merge_asm.h",
        "crates/mmr-blake2b/src/merge_rv64.s",
    ];
    let mut out = Vec::new();
    let mut push = |file: usize, at: usize, what: String, text: String| {
        out.push(TextMutant {
            file,
            what: format!("{}:{}: {what}", names[file], line_of(&src[file], at)),
            text,
        });
    };
    // Rust: `out("r") _,` dropped; `inout("r")` -> `in("r")`; `in("r")` -> `out("r") _`.
    let rust = &src[0];
    for (i, j) in find_all(rust, "out(\"") {
        let prev = rust[..i].chars().next_back();
        let Some(close) = rust[j..].find("\")").map(|k| j + k) else {
            continue;
        };
        let reg = &rust[j..close];
        if prev.is_some_and(|c| c.is_alphanumeric()) || !is_reg_name(reg) {
            continue;
        }
        if rust[close + 2..].starts_with(" _,") {
            push(
                0,
                i,
                format!("out(\"{reg}\") _ dropped"),
                replace_at(rust, i, close + 5, ""),
            );
        }
    }
    for (i, j) in find_all(rust, "inout(\"") {
        push(0, i, "inout -> in".into(), replace_at(rust, i, j, "in(\""));
    }
    for (i, j) in find_all(rust, "in(\"") {
        if rust[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric())
        {
            continue;
        }
        let Some(close) = rust[j..].find(')').map(|k| j + k) else {
            continue;
        };
        let Some(end) = rust[close..].find(',').map(|k| close + k) else {
            continue;
        };
        let reg = rust[j..close].trim_end_matches('"').to_string();
        push(
            0,
            i,
            format!("in(\"{reg}\") -> out(\"{reg}\") _"),
            replace_at(rust, i, end, &format!("out(\"{reg}\") _")),
        );
    }
    for (i, j) in find_all(rust, "options(nostack, readonly)") {
        push(
            0,
            i,
            "readonly -> nomem".into(),
            replace_at(rust, i, j, "options(nostack, nomem)"),
        );
    }
    for (i, j) in find_all(rust, "options(nostack)") {
        push(
            0,
            i,
            "options(nostack) -> options(nostack, readonly)".into(),
            replace_at(rust, i, j, "options(nostack, readonly)"),
        );
    }
    // Stores in either language's template: the offset moved by 8.
    for (file, t) in src.iter().enumerate().take(2) {
        for (_, j) in find_all(t, "sd a") {
            let Some(comma) = t[j..].find(", ").map(|k| j + k + 2) else {
                continue;
            };
            let Some(paren) = t[comma..].find('(').map(|k| comma + k) else {
                continue;
            };
            let Ok(off) = t[comma..paren].parse::<i64>() else {
                continue;
            };
            let moved = (off + 8) % 32;
            push(
                file,
                comma,
                format!("store offset {off} -> {moved}"),
                replace_at(t, comma, paren, &moved.to_string()),
            );
        }
    }
    // C: each clobber string dropped (not the `__asm__("r")` register bindings), "+r" -> "=r".
    let c = &src[1];
    for (i, _) in c.match_indices('"') {
        let Some(len) = c[i + 1..].find('"') else {
            continue;
        };
        let lit = &c[i + 1..i + 1 + len];
        let end = i + len + 2;
        let prev = c[..i].trim_end().chars().next_back();
        if !(is_reg_name(lit) || lit == "memory") || prev == Some('(') {
            continue;
        }
        // Drop the literal and one adjacent comma.
        let after = c[end..].trim_start();
        let (s, e) = if after.starts_with(',') {
            (i, end + (c[end..].len() - after.len()) + 1)
        } else {
            let before = c[..i].trim_end();
            if !before.ends_with(',') {
                continue;
            }
            (before.len() - 1, end)
        };
        push(
            1,
            i,
            format!("clobber \"{lit}\" dropped"),
            replace_at(c, s, e, ""),
        );
    }
    for (i, j) in find_all(c, "\"+r\"") {
        push(
            1,
            i,
            "\"+r\" -> \"=r\"".into(),
            replace_at(c, i, j, "\"=r\""),
        );
    }
    // The header: each clobbered register dropped; a written register declared preserved.
    let h = &src[2];
    if let Some(line_at) = h.find("clobbers:") {
        let list_start = line_at + "clobbers:".len();
        let list_end = h[list_start..]
            .find("preserves:")
            .map(|k| list_start + k)
            .unwrap_or(list_start);
        let mut pos = list_start;
        for item in h[list_start..list_end].split(',') {
            let start = pos;
            pos += item.len() + 1;
            let name = item.trim().trim_end_matches('.');
            if name.is_empty() {
                continue;
            }
            let s = start + item.find(name).unwrap_or(0);
            push(
                2,
                s,
                format!("header clobbers without {name}"),
                replace_at(h, s, s + name.len(), "zero"),
            );
        }
        push(
            2,
            list_end,
            "header preserves t0 too".into(),
            replace_at(h, list_end, list_end + "preserves:".len(), "preserves: t0,"),
        );
    }
    out
}

/// Judges every declaration mutant against the proved entries: (total, rejected, the
/// accepted ones).
pub fn run_declaration_mutants(
    src: &[String; 3],
    proved: &[Proved],
) -> (usize, usize, Vec<String>) {
    let muts = declaration_mutants(src);
    let mut accepted = Vec::new();
    let mut rejected = 0;
    for m in &muts {
        let mut texts = src.clone();
        texts[m.file] = m.text.clone();
        let bad = match crate::report::declarations_from(&texts) {
            Ok(d) => !crate::report::declaration_errors(&d, proved).is_empty(),
            Err(_) => true,
        };
        if bad {
            rejected += 1;
        } else {
            accepted.push(m.what.clone());
        }
    }
    (muts.len(), rejected, accepted)
}
