//! The proof of one image: each kernel entry run symbolically from its symbol and compared
//! with the specification, then its register effects compared with the callers'
//! declarations and the kernel's own header comment.

use crate::decode::{Reg, RA, SP};
use crate::elf::Image;
use crate::exec::{self, Fault, Input, Outcome, Patch, RegSet, Symbolic};
use crate::expr::{Arena, Id, Side, Var};
use crate::spec;
use crate::wrappers::{CallSite, HeaderConvention, MemDecl};

pub const A0: Reg = Reg(10);
pub const A1: Reg = Reg(11);
pub const A3: Reg = Reg(13);
pub const A4: Reg = Reg(14);
pub const A5: Reg = Reg(15);
pub const A6: Reg = Reg(16);

/// Where every entry leaves the hash: words 0..3 (bytes 0..32, little-endian).
pub const OUTPUTS: [Reg; 4] = [A3, A4, A5, A6];

/// An entry of the kernel and what it takes where, as `merge_rv64.s`'s header states it.
#[derive(Debug)]
pub struct Entry {
    pub name: &'static str,
    pub inputs: &'static [(Reg, Input)],
}

use Input::{Ptr, Word};
use Side::{Left, Right};

pub const ENTRIES: [Entry; 3] = [
    Entry {
        name: "mmr_merge_rv64",
        inputs: &[(A0, Ptr(Left)), (A1, Ptr(Right))],
    },
    Entry {
        name: "mmr_merge_rv64_chain",
        inputs: &[
            (A3, Word(Left, 0)),
            (A4, Word(Left, 1)),
            (A5, Word(Left, 2)),
            (A6, Word(Left, 3)),
            (A1, Ptr(Right)),
        ],
    },
    Entry {
        name: "mmr_merge_rv64_chain_right",
        inputs: &[
            (A0, Ptr(Left)),
            (A3, Word(Right, 0)),
            (A4, Word(Right, 1)),
            (A5, Word(Right, 2)),
            (A6, Word(Right, 3)),
        ],
    },
];

pub fn entry(name: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.name == name)
}

/// Why an entry is not proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The run itself was refused.
    Fault(Fault),
    /// An output word is not the specification's expression.
    Mismatch {
        word: usize,
        reg: Reg,
        kernel: String,
        spec: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Fault(x) => write!(f, "{x}"),
            Failure::Mismatch {
                word,
                reg,
                kernel,
                spec,
            } => write!(
                f,
                "output word {word} ({reg}) differs from the specification's; innermost difference:\n      kernel: {}\n      spec:   {}",
                clip(kernel),
                clip(spec)
            ),
        }
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(160) {
        Some((i, _)) => format!("{} ...", &s[..i]),
        None => s.to_string(),
    }
}

/// A proved entry.
#[derive(Clone, Debug)]
pub struct Proved {
    pub name: &'static str,
    pub addr: u64,
    /// Instructions executed from the entry to the return.
    pub steps: usize,
    pub written: RegSet,
    pub live_in: RegSet,
    /// Whether it loads through an input pointer (so its callers must declare a memory read).
    pub reads_inputs: bool,
    /// Normalised expression nodes in the proof's arena.
    pub nodes: usize,
}

/// The specification's four output words over the input variables, in `arena`.
pub fn spec_outputs(arena: &mut Arena) -> [Id; 4] {
    let left = [0u8, 1, 2, 3].map(|i| arena.var(Var::Word(Left, i)));
    let right = [0u8, 1, 2, 3].map(|i| arena.var(Var::Word(Right, i)));
    spec::merge(arena, left, right)
}

/// Runs `entry` symbolically (with `patch` applied) and returns the outcome in `arena`.
pub fn run_symbolic(
    img: &Image,
    entry: &Entry,
    addr: u64,
    arena: &mut Arena,
    patch: Patch<'_>,
) -> Result<Outcome<Id>, Fault> {
    let init = exec::symbolic_init(arena, entry.inputs);
    exec::run(&mut Symbolic { arena }, img, addr, init, patch)
}

/// Proves `entry` at `addr`: for every value of the inputs, the four output registers hold
/// the specification's words. The proof is that both sides normalise to the same
/// expression ids.
pub fn prove_entry(
    img: &Image,
    entry: &Entry,
    addr: u64,
    patch: Patch<'_>,
) -> Result<Proved, Failure> {
    let mut arena = Arena::new();
    let want = spec_outputs(&mut arena);
    let out = run_symbolic(img, entry, addr, &mut arena, patch).map_err(Failure::Fault)?;
    for (i, &reg) in OUTPUTS.iter().enumerate() {
        let got = out.regs[usize::from(reg.0)];
        if got != want[i] {
            let (kernel, spec) = arena.difference(got, want[i]);
            return Err(Failure::Mismatch {
                word: i,
                reg,
                kernel,
                spec,
            });
        }
    }
    let reads_inputs = entry.inputs.iter().any(|(_, i)| matches!(i, Ptr(_)));
    Ok(Proved {
        name: entry.name,
        addr,
        steps: out.trace.len(),
        written: out.written,
        live_in: out.live_in,
        reads_inputs,
        nodes: arena.len(),
    })
}

/// Every entry whose symbol the image defines, proved or not.
pub fn prove_image(
    img: &Image,
    patch: Patch<'_>,
) -> Vec<(&'static Entry, Result<Proved, Failure>)> {
    ENTRIES
        .iter()
        .filter_map(|e| {
            img.symbol(e.name)
                .map(|a| (e, prove_entry(img, e, a, patch)))
        })
        .collect()
}

/// The effect of a whole asm statement: `jal ra, entry` (writes ra), the entry, then the
/// template's stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementEffect {
    pub written: RegSet,
    pub read: RegSet,
    pub writes_memory: bool,
    pub reads_memory: bool,
}

pub fn statement_effect(p: &Proved, site: &CallSite) -> StatementEffect {
    let mut written = p.written;
    written.insert(RA);
    let mut read = p.live_in;
    // The return address is the jal's, not the statement's input.
    read.remove(RA);
    for s in &site.stores {
        for r in [s.rs1, s.rs2] {
            if !written.contains(r) {
                read.insert(r);
            }
        }
    }
    StatementEffect {
        written,
        read,
        writes_memory: !site.stores.is_empty(),
        reads_memory: p.reads_inputs,
    }
}

/// The disagreements between one call site's declarations and the proved effects of its
/// entry (empty when they agree).
pub fn check_site(p: &Proved, site: &CallSite) -> Vec<String> {
    let eff = statement_effect(p, site);
    let mut errs = Vec::new();
    let undeclared = eff.written.minus(site.modified);
    if !undeclared.is_empty() {
        errs.push(format!(
            "writes {undeclared}, which the statement neither clobbers nor outputs (the compiler may keep live values there)"
        ));
    }
    let stale = site.modified.minus(eff.written);
    if !stale.is_empty() {
        errs.push(format!("declares {stale} modified, which it never writes"));
    }
    let unread = eff.read.minus(site.inputs);
    if !unread.is_empty() {
        errs.push(format!(
            "reads {unread}, which the statement does not take as inputs"
        ));
    }
    let unused = site.inputs.minus(eff.read);
    if !unused.is_empty() {
        errs.push(format!("takes {unused} as inputs, which it never reads"));
    }
    let not_output = site.bound_outputs.minus(RegSet::of(&OUTPUTS));
    if matches!(site.mem, MemDecl::Rust(_)) && !not_output.is_empty() {
        errs.push(format!(
            "binds {not_output} as results, which are not the hash"
        ));
    }
    if eff.written.contains(SP) || eff.read.contains(SP) {
        errs.push("uses the stack pointer".into());
    }
    match &site.mem {
        MemDecl::Rust(opts) => {
            let has = |o: &str| opts.iter().any(|x| x == o);
            if eff.writes_memory && (has("readonly") || has("nomem") || has("pure")) {
                errs.push("writes memory but is declared readonly/nomem/pure".into());
            }
            if eff.reads_memory && has("nomem") {
                errs.push("reads memory but is declared nomem".into());
            }
        }
        MemDecl::C { memory } => {
            if (eff.writes_memory || eff.reads_memory) && !memory {
                errs.push("reads or writes memory without a \"memory\" clobber".into());
            }
        }
    }
    // The template's stores must write the four hash words to 32 bytes at one base register
    // the kernel preserves.
    if !site.stores.is_empty() {
        let bases: Vec<Reg> = site.stores.iter().map(|s| s.rs1).collect();
        let mut offs: Vec<i64> = Vec::new();
        for s in &site.stores {
            match OUTPUTS.iter().position(|&r| r == s.rs2) {
                Some(k) if s.off == 8 * k as i64 => offs.push(s.off),
                _ => errs.push(format!(
                    "stores {} at {}({}): not hash word offset/8",
                    s.rs2, s.off, s.rs1
                )),
            }
        }
        offs.sort_unstable();
        if offs != [0, 8, 16, 24] {
            errs.push("the stores do not write each of the four hash words once".into());
        }
        if bases
            .iter()
            .any(|&b| b != bases[0] || eff.written.contains(b))
        {
            errs.push("the stores' base is not one register the statement preserves".into());
        }
    }
    errs
}

/// The header comment's calling convention against an entry's proved effects.
pub fn check_header(p: &Proved, h: &HeaderConvention) -> Vec<String> {
    let mut errs = Vec::new();
    // The header's clobbers include ra, which the caller's jal writes.
    let mut written = p.written;
    written.insert(RA);
    if written != h.clobbers {
        errs.push(format!(
            "{}: writes {written} (with the caller's ra); the header says clobbers {}",
            p.name, h.clobbers
        ));
    }
    let touched = p.written.0 & h.preserves.0;
    if touched != 0 {
        errs.push(format!(
            "{}: writes {}, which the header says it preserves",
            p.name,
            RegSet(touched)
        ));
    }
    errs
}

/// Splitmix64, for reproducible random inputs without a dependency.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for c in b.chunks_mut(8) {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        b
    }

    /// Input `i` of a sample: `first` when `i` is 0, else a random (left, right) pair.
    pub fn pair(&mut self, i: usize, first: [[u8; 32]; 2]) -> ([u8; 32], [u8; 32]) {
        match i {
            0 => (first[0], first[1]),
            _ => (self.bytes32(), self.bytes32()),
        }
    }
}

pub fn words(b: &[u8; 32]) -> [u64; 4] {
    std::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()))
}

/// Where the concrete runs put the inputs and the return address: outside any image the
/// builds produce (they load at 0x10000 and up, a few hundred KiB at most).
pub const LEFT_ADDR: u64 = 0x4000_0000;
pub const RIGHT_ADDR: u64 = 0x4100_0003;
pub const RETURN_ADDR: u64 = 0x7654_3210;

/// Runs `entry` on concrete inputs (other registers random) and returns the four output
/// words, or the fault.
pub fn run_concrete(
    img: &Image,
    entry: &Entry,
    addr: u64,
    left: [u8; 32],
    right: [u8; 32],
    rng: &mut SplitMix,
    patch: Patch<'_>,
) -> Result<[u64; 4], Fault> {
    let mut init = [0u64; 32];
    for r in init.iter_mut() {
        *r = rng.next_u64();
    }
    init[usize::from(RA.0)] = RETURN_ADDR;
    let (lw, rw) = (words(&left), words(&right));
    for &(r, input) in entry.inputs {
        init[usize::from(r.0)] = match input {
            Ptr(Left) => LEFT_ADDR,
            Ptr(Right) => RIGHT_ADDR,
            Word(Left, i) => lw[usize::from(i)],
            Word(Right, i) => rw[usize::from(i)],
        };
    }
    let mut d = exec::ConcreteRun {
        left_addr: LEFT_ADDR,
        left,
        right_addr: RIGHT_ADDR,
        right,
    };
    let out = exec::run(&mut d, img, addr, init, patch)?;
    Ok(OUTPUTS.map(|r| out.regs[usize::from(r.0)]))
}

/// The specification's merge on concrete inputs.
pub fn spec_concrete(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
    spec::merge(&mut spec::Concrete, words(left), words(right))
}
