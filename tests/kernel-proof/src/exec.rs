//! Runs an entry of the kernel instruction by instruction from the linked image, on
//! symbolic words (the proof) or on concrete words (counterexamples, and a check of the
//! normaliser). One interpreter for both, so the instruction semantics exist once.
//!
//! The run follows control flow from the entry until a `jalr zero, 0(ra)` whose target is
//! the return address the entry was called with. It refuses (a [`Fault`], so the checker
//! fails) every store, every load it cannot place (symbolically: an input pointer plus a
//! constant whole-word offset inside the 32 input bytes, or a constant address in a
//! non-writable loaded segment), branches on data, other indirect jumps, system
//! instructions, undecodable bytes and runs longer than [`STEP_LIMIT`].

use crate::decode::{decode, BinOp, Inst, LoadKind, Reg, RA};
use crate::elf::Image;
use crate::expr::{Arena, Id, Node, Side, Var};

pub const STEP_LIMIT: usize = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// Bytes that are not an instruction the decoder knows, or code outside an executable
    /// segment.
    Decode,
    /// A load outside the inputs and the read-only constants.
    Load,
    /// Any store: the kernel writes no memory.
    Store,
    /// A branch on data, a jump that is not the return, an instruction without a model.
    Control,
    /// More than [`STEP_LIMIT`] instructions.
    Steps,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub pc: u64,
    pub msg: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at {:#x}: {}", self.pc, self.msg)
    }
}

/// A set of registers as a bit mask (bit n = x{n}).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegSet(pub u32);

impl RegSet {
    pub fn insert(&mut self, r: Reg) {
        self.0 |= 1 << r.0;
    }
    pub fn remove(&mut self, r: Reg) {
        self.0 &= !(1 << r.0);
    }
    pub fn contains(self, r: Reg) -> bool {
        self.0 & (1 << r.0) != 0
    }
    pub fn union(self, o: RegSet) -> RegSet {
        RegSet(self.0 | o.0)
    }
    pub fn minus(self, o: RegSet) -> RegSet {
        RegSet(self.0 & !o.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn regs(self) -> Vec<Reg> {
        (0..32u8)
            .filter(|&i| self.0 & (1 << i) != 0)
            .map(Reg)
            .collect()
    }
    pub fn of(regs: &[Reg]) -> RegSet {
        RegSet(regs.iter().fold(0, |s, r| s | 1 << r.0))
    }
}

impl std::fmt::Display for RegSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.regs().iter().map(|r| r.name()).collect();
        if names.is_empty() {
            f.write_str("(none)")
        } else {
            f.write_str(&names.join(" "))
        }
    }
}

/// The value domain of a run.
pub trait Domain {
    type V: Copy + PartialEq + std::fmt::Debug;
    fn konst(&mut self, c: u64) -> Self::V;
    fn as_const(&self, v: Self::V) -> Option<u64>;
    fn bin(&mut self, op: BinOp, a: Self::V, b: Self::V) -> Self::V;
    /// The value `kind` loads from `addr`, or why the address is refused.
    fn load(&mut self, img: &Image, kind: LoadKind, addr: Self::V) -> Result<Self::V, String>;
}

/// Symbolic words: ids in an arena, inputs as variables.
pub struct Symbolic<'a> {
    pub arena: &'a mut Arena,
}

fn read_const(img: &Image, kind: LoadKind, addr: u64) -> Result<u64, String> {
    let n = kind.bytes();
    let bytes = img.constant_bytes(addr, n).ok_or_else(|| {
        format!("reads {n} bytes at {addr:#x}, outside the image's read-only loaded bytes")
    })?;
    Ok(loaded(kind, bytes))
}

/// The register value `kind` loads from its little-endian `bytes`.
fn loaded(kind: LoadKind, bytes: &[u8]) -> u64 {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    kind.extend(u64::from_le_bytes(raw))
}

impl Domain for Symbolic<'_> {
    type V = Id;
    fn konst(&mut self, c: u64) -> Id {
        self.arena.konst(c)
    }
    fn as_const(&self, v: Id) -> Option<u64> {
        self.arena.as_const(v)
    }
    fn bin(&mut self, op: BinOp, a: Id, b: Id) -> Id {
        self.arena.bin(op, a, b)
    }
    fn load(&mut self, img: &Image, kind: LoadKind, addr: Id) -> Result<Id, String> {
        if let Some(a) = self.arena.as_const(addr) {
            let v = read_const(img, kind, a)?;
            return Ok(self.arena.konst(v));
        }
        let placed = match self.arena.node(addr) {
            Node::Var(Var::Ptr(s)) => Some((*s, 0u64)),
            Node::Add(ts) if ts.len() == 2 => {
                match (self.arena.node(ts[0]), self.arena.node(ts[1])) {
                    (Node::Var(Var::Ptr(s)), Node::Const(c))
                    | (Node::Const(c), Node::Var(Var::Ptr(s))) => Some((*s, *c)),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((side, off)) = placed else {
            return Err(format!(
                "reads through an address that is neither constant nor an input pointer \
                 plus a constant: {}",
                self.arena.show(addr, 3)
            ));
        };
        let name = crate::expr::side_name(side);
        if kind != LoadKind::Ld || off % 8 != 0 || off >= 32 {
            return Err(format!(
                "reads {} bytes at &{name}{:+}: not one of the four words of the 32 input bytes",
                kind.bytes(),
                off as i64
            ));
        }
        Ok(self.arena.var(Var::Word(side, (off / 8) as u8)))
    }
}

/// Concrete words, the inputs at two fixed addresses outside the image.
pub struct ConcreteRun {
    pub left_addr: u64,
    pub left: [u8; 32],
    pub right_addr: u64,
    pub right: [u8; 32],
}

impl Domain for ConcreteRun {
    type V = u64;
    fn konst(&mut self, c: u64) -> u64 {
        c
    }
    fn as_const(&self, v: u64) -> Option<u64> {
        Some(v)
    }
    fn bin(&mut self, op: BinOp, a: u64, b: u64) -> u64 {
        op.eval(a, b)
    }
    fn load(&mut self, img: &Image, kind: LoadKind, addr: u64) -> Result<u64, String> {
        let n = kind.bytes() as u64;
        for (base, bytes) in [(self.left_addr, &self.left), (self.right_addr, &self.right)] {
            if let Some(off) = addr.checked_sub(base) {
                if off + n <= 32 {
                    return Ok(loaded(kind, &bytes[off as usize..(off + n) as usize]));
                }
            }
        }
        read_const(img, kind, addr)
    }
}

/// The state when the entry returned.
#[derive(Clone, Debug)]
pub struct Outcome<V> {
    pub regs: [V; 32],
    /// Registers some executed instruction wrote.
    pub written: RegSet,
    /// Registers read before any executed instruction wrote them (inputs of the run).
    pub live_in: RegSet,
    /// The address of every executed instruction, in order.
    pub trace: Vec<u64>,
    /// The value each executed instruction wrote to its destination (None: no register).
    pub values: Vec<Option<V>>,
}

/// A replacement for the instruction at an address (the mutation run), keeping its length.
pub type Patch<'a> = &'a dyn Fn(u64) -> Option<Inst>;

/// Runs from `entry` with registers `init` until the return to `init[ra]`.
pub fn run<D: Domain>(
    d: &mut D,
    img: &Image,
    entry: u64,
    init: [D::V; 32],
    patch: Patch<'_>,
) -> Result<Outcome<D::V>, Fault> {
    let mut regs = init;
    let ret_to = init[usize::from(RA.0)];
    let zero = d.konst(0);
    regs[0] = zero;
    let mut written = RegSet::default();
    let mut live_in = RegSet::default();
    let mut trace = Vec::new();
    let mut values = Vec::new();
    let mut pc = entry;
    loop {
        if trace.len() >= STEP_LIMIT {
            return Err(Fault {
                kind: FaultKind::Steps,
                pc,
                msg: format!("no return within {STEP_LIMIT} instructions"),
            });
        }
        trace.push(pc);
        let fault = |kind, msg: String| Fault { kind, pc, msg };
        let code = img.code_at(pc).ok_or_else(|| {
            fault(
                FaultKind::Decode,
                "jumps outside the executable segments".into(),
            )
        })?;
        let decoded = decode(code).map_err(|e| fault(FaultKind::Decode, e))?;
        let inst = patch(pc).unwrap_or(decoded.inst);
        let next = pc.wrapping_add(u64::from(decoded.len));
        for r in inst.sources() {
            if !written.contains(r) {
                live_in.insert(r);
            }
        }
        let refuse = |kind, why: &str| Err(fault(kind, format!("{}: {why}", inst.render(pc))));
        let get = |r: Reg| regs[usize::from(r.0)];
        let mut dest: Option<(Reg, D::V)> = None;
        let mut new_pc = next;
        match inst {
            Inst::Lui { rd, imm } => dest = Some((rd, d.konst(imm as u64))),
            Inst::Auipc { rd, imm } => dest = Some((rd, d.konst(pc.wrapping_add(imm as u64)))),
            Inst::Jal { rd, off } => {
                dest = Some((rd, d.konst(next)));
                new_pc = pc.wrapping_add(off as u64);
            }
            Inst::Jalr { rd, rs1, off } => {
                let base = get(rs1);
                if rd.0 == 0 && off == 0 && base == ret_to {
                    values.push(None);
                    return Ok(Outcome {
                        regs,
                        written,
                        live_in,
                        trace,
                        values,
                    });
                }
                let why = "an indirect jump that is not the return to the caller";
                return refuse(FaultKind::Control, why);
            }
            Inst::Branch { op, rs1, rs2, off } => {
                match (d.as_const(get(rs1)), d.as_const(get(rs2))) {
                    (Some(a), Some(b)) => {
                        if op.taken(a, b) {
                            new_pc = pc.wrapping_add(off as u64);
                        }
                    }
                    _ => return refuse(FaultKind::Control, "a branch on input data"),
                }
            }
            Inst::Load { kind, rd, rs1, off } => {
                let k = d.konst(off as u64);
                let addr = d.bin(BinOp::Add, get(rs1), k);
                let v = d
                    .load(img, kind, addr)
                    .map_err(|e| fault(FaultKind::Load, format!("{}: {e}", inst.render(pc))))?;
                dest = Some((rd, v));
            }
            Inst::Store { .. } => {
                return refuse(FaultKind::Store, "the kernel must not write memory");
            }
            Inst::OpImm { op, rd, rs1, imm } => {
                let k = d.konst(imm as u64);
                dest = Some((rd, d.bin(op, get(rs1), k)));
            }
            Inst::Op { op, rd, rs1, rs2 } => dest = Some((rd, d.bin(op, get(rs1), get(rs2)))),
            Inst::Ecall | Inst::Ebreak => {
                return refuse(FaultKind::Control, "a system instruction");
            }
        }
        let mut wrote = None;
        if let Some((rd, v)) = dest {
            if rd.0 != 0 {
                regs[usize::from(rd.0)] = v;
                written.insert(rd);
                wrote = Some(v);
            }
        }
        values.push(wrote);
        pc = new_pc;
    }
}

/// What an entry receives, register by register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The address of a 32-byte input.
    Ptr(Side),
    /// A little-endian word of an input.
    Word(Side, u8),
}

/// The initial symbolic registers: inputs as variables, everything else as an opaque
/// variable of its own (so an output that depends on it cannot equal the specification).
pub fn symbolic_init(arena: &mut Arena, inputs: &[(Reg, Input)]) -> [Id; 32] {
    let mut regs = [0; 32];
    for (i, slot) in regs.iter_mut().enumerate() {
        *slot = arena.var(Var::Entry(i as u8));
    }
    regs[0] = arena.konst(0);
    for &(r, input) in inputs {
        regs[usize::from(r.0)] = match input {
            Input::Ptr(s) => arena.var(Var::Ptr(s)),
            Input::Word(s, i) => arena.var(Var::Word(s, i)),
        };
    }
    regs
}
