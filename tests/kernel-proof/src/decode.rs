//! An RV64 decoder for the instructions the kernel and the code around it use: RV64I, `mul`,
//! the Zbb rotations and logic-with-negate, the Zba shifted adds, and the compressed (C)
//! forms of RV64. Anything else is an error, never skipped: the checker then fails.
//!
//! Compressed instructions decode to the same [`Inst`] as their 32-bit expansion (the
//! semantics are the expansion's by definition of the C extension); the compressed form is
//! kept only to print the instruction as `llvm-objdump -M no-aliases` does, which is how the
//! decoder is tested.

use std::fmt;

/// An integer register x0..x31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

pub const REG_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6",
];

pub const ZERO: Reg = Reg(0);
pub const RA: Reg = Reg(1);
pub const SP: Reg = Reg(2);

impl Reg {
    pub fn name(self) -> &'static str {
        REG_NAMES[usize::from(self.0 & 31)]
    }

    /// An ABI name (`a0`, `s11`, `zero`; also `fp` and `x5`).
    pub fn parse(name: &str) -> Option<Reg> {
        let name = name.trim();
        if name == "fp" {
            return Some(Reg(8));
        }
        if let Some(i) = REG_NAMES.iter().position(|&n| n == name) {
            return u8::try_from(i).ok().map(Reg);
        }
        let n: u8 = name.strip_prefix('x')?.parse().ok()?;
        (n < 32).then_some(Reg(n))
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The two-operand integer operations, register-register or register-immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    Mul,
    Andn,
    Orn,
    Xnor,
    Ror,
    Rol,
    Sh1add,
    Sh2add,
    Sh3add,
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    Rorw,
    Rolw,
}

fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

impl BinOp {
    /// The RISC-V semantics on 64-bit registers (shift amounts masked as the ISA does).
    pub fn eval(self, a: u64, b: u64) -> u64 {
        let sh = (b & 63) as u32;
        let sh32 = (b & 31) as u32;
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Sll => a << sh,
            BinOp::Slt => u64::from((a as i64) < (b as i64)),
            BinOp::Sltu => u64::from(a < b),
            BinOp::Xor => a ^ b,
            BinOp::Srl => a >> sh,
            BinOp::Sra => ((a as i64) >> sh) as u64,
            BinOp::Or => a | b,
            BinOp::And => a & b,
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Andn => a & !b,
            BinOp::Orn => a | !b,
            BinOp::Xnor => !(a ^ b),
            BinOp::Ror => a.rotate_right(sh),
            BinOp::Rol => a.rotate_left(sh),
            BinOp::Sh1add => (a << 1).wrapping_add(b),
            BinOp::Sh2add => (a << 2).wrapping_add(b),
            BinOp::Sh3add => (a << 3).wrapping_add(b),
            BinOp::Addw => sext32((a as u32).wrapping_add(b as u32)),
            BinOp::Subw => sext32((a as u32).wrapping_sub(b as u32)),
            BinOp::Sllw => sext32((a as u32) << sh32),
            BinOp::Srlw => sext32((a as u32) >> sh32),
            BinOp::Sraw => ((a as u32 as i32) >> sh32) as i64 as u64,
            BinOp::Rorw => sext32((a as u32).rotate_right(sh32)),
            BinOp::Rolw => sext32((a as u32).rotate_left(sh32)),
        }
    }

    /// The variant's name in lower case (`add`, `sh1add`, `rorw`).
    pub fn mnemonic(self) -> String {
        format!("{self:?}").to_lowercase()
    }

    /// The immediate form's mnemonic, for the operations that have one.
    pub fn imm_mnemonic(self) -> Option<&'static str> {
        Some(match self {
            BinOp::Add => "addi",
            BinOp::Slt => "slti",
            BinOp::Sltu => "sltiu",
            BinOp::Xor => "xori",
            BinOp::Or => "ori",
            BinOp::And => "andi",
            BinOp::Sll => "slli",
            BinOp::Srl => "srli",
            BinOp::Sra => "srai",
            BinOp::Ror => "rori",
            BinOp::Addw => "addiw",
            BinOp::Sllw => "slliw",
            BinOp::Srlw => "srliw",
            BinOp::Sraw => "sraiw",
            BinOp::Rorw => "roriw",
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadKind {
    Lb,
    Lh,
    Lw,
    Ld,
    Lbu,
    Lhu,
    Lwu,
}

impl LoadKind {
    pub fn bytes(self) -> usize {
        match self {
            LoadKind::Lb | LoadKind::Lbu => 1,
            LoadKind::Lh | LoadKind::Lhu => 2,
            LoadKind::Lw | LoadKind::Lwu => 4,
            LoadKind::Ld => 8,
        }
    }

    /// The register value for the loaded little-endian bytes.
    pub fn extend(self, raw: u64) -> u64 {
        match self {
            LoadKind::Lb => raw as u8 as i8 as i64 as u64,
            LoadKind::Lh => raw as u16 as i16 as i64 as u64,
            LoadKind::Lw => raw as u32 as i32 as i64 as u64,
            LoadKind::Ld => raw,
            LoadKind::Lbu => raw & 0xff,
            LoadKind::Lhu => raw & 0xffff,
            LoadKind::Lwu => raw & 0xffff_ffff,
        }
    }

    fn mnemonic(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchOp {
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
}

impl BranchOp {
    pub fn taken(self, a: u64, b: u64) -> bool {
        match self {
            BranchOp::Beq => a == b,
            BranchOp::Bne => a != b,
            BranchOp::Blt => (a as i64) < (b as i64),
            BranchOp::Bge => (a as i64) >= (b as i64),
            BranchOp::Bltu => a < b,
            BranchOp::Bgeu => a >= b,
        }
    }

    fn mnemonic(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// One instruction's semantics. Immediates are the values the instruction adds or uses
/// (`Lui`/`Auipc` hold `imm << 12`, sign-extended; branch and jump offsets are relative to
/// the instruction's own address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    Lui {
        rd: Reg,
        imm: i64,
    },
    Auipc {
        rd: Reg,
        imm: i64,
    },
    Jal {
        rd: Reg,
        off: i64,
    },
    Jalr {
        rd: Reg,
        rs1: Reg,
        off: i64,
    },
    Branch {
        op: BranchOp,
        rs1: Reg,
        rs2: Reg,
        off: i64,
    },
    Load {
        kind: LoadKind,
        rd: Reg,
        rs1: Reg,
        off: i64,
    },
    Store {
        bytes: u8,
        rs1: Reg,
        rs2: Reg,
        off: i64,
    },
    OpImm {
        op: BinOp,
        rd: Reg,
        rs1: Reg,
        imm: i64,
    },
    Op {
        op: BinOp,
        rd: Reg,
        rs1: Reg,
        rs2: Reg,
    },
    Ecall,
    Ebreak,
}

impl Inst {
    /// A no-op (`addi zero, zero, 0`), what a dropped instruction becomes.
    pub const NOP: Inst = Inst::OpImm {
        op: BinOp::Add,
        rd: ZERO,
        rs1: ZERO,
        imm: 0,
    };

    /// The destination register, if the instruction writes one (x0 never counts).
    pub fn rd(&self) -> Option<Reg> {
        let rd = match *self {
            Inst::Lui { rd, .. }
            | Inst::Auipc { rd, .. }
            | Inst::Jal { rd, .. }
            | Inst::Jalr { rd, .. }
            | Inst::Load { rd, .. }
            | Inst::OpImm { rd, .. }
            | Inst::Op { rd, .. } => rd,
            _ => return None,
        };
        (rd != ZERO).then_some(rd)
    }

    /// The registers the instruction reads (x0 never counts).
    pub fn sources(&self) -> Vec<Reg> {
        let regs = match *self {
            Inst::Jalr { rs1, .. } | Inst::Load { rs1, .. } | Inst::OpImm { rs1, .. } => {
                vec![rs1]
            }
            Inst::Branch { rs1, rs2, .. }
            | Inst::Store { rs1, rs2, .. }
            | Inst::Op { rs1, rs2, .. } => vec![rs1, rs2],
            _ => vec![],
        };
        regs.into_iter().filter(|&r| r != ZERO).collect()
    }

    /// The uncompressed assembly syntax `llvm-objdump -M no-aliases` prints (targets of
    /// jumps and branches as absolute addresses).
    pub fn render(&self, pc: u64) -> String {
        let target = |off: i64| format!("{:#x}", pc.wrapping_add(off as u64));
        match *self {
            Inst::Lui { rd, imm } => format!("lui\t{rd}, {:#x}", (imm >> 12) & 0xfffff),
            Inst::Auipc { rd, imm } => format!("auipc\t{rd}, {:#x}", (imm >> 12) & 0xfffff),
            Inst::Jal { rd, off } => format!("jal\t{rd}, {}", target(off)),
            Inst::Jalr { rd, rs1, off } => format!("jalr\t{rd}, {}({rs1})", hex(off)),
            Inst::Branch { op, rs1, rs2, off } => {
                format!("{}\t{rs1}, {rs2}, {}", op.mnemonic(), target(off))
            }
            Inst::Load { kind, rd, rs1, off } => {
                format!("{}\t{rd}, {}({rs1})", kind.mnemonic(), hex(off))
            }
            Inst::Store {
                bytes,
                rs1,
                rs2,
                off,
            } => {
                let m = match bytes {
                    1 => "sb",
                    2 => "sh",
                    4 => "sw",
                    _ => "sd",
                };
                format!("{m}\t{rs2}, {}({rs1})", hex(off))
            }
            Inst::OpImm { op, rd, rs1, imm } => {
                let m = op.imm_mnemonic().unwrap_or("?imm");
                format!("{m}\t{rd}, {rs1}, {}", hex(imm))
            }
            Inst::Op { op, rd, rs1, rs2 } => format!("{}\t{rd}, {rs1}, {rs2}", op.mnemonic()),
            Inst::Ecall => "ecall".into(),
            Inst::Ebreak => "ebreak".into(),
        }
    }
}

fn hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

/// The compressed forms, kept for printing only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CForm {
    Addi4spn,
    Lw,
    Ld,
    Sw,
    Sd,
    Nop,
    Addi,
    Addiw,
    Li,
    Addi16sp,
    Lui,
    Srli,
    Srai,
    Andi,
    Sub,
    Xor,
    Or,
    And,
    Subw,
    Addw,
    J,
    Beqz,
    Bnez,
    Slli,
    Lwsp,
    Ldsp,
    Jr,
    Mv,
    Ebreak,
    Jalr,
    Add,
    Swsp,
    Sdsp,
}

/// A decoded instruction: its semantics and its length in bytes (2 or 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub inst: Inst,
    pub len: u8,
    cform: Option<CForm>,
}

impl Decoded {
    /// `llvm-objdump -M no-aliases` syntax (without the `<symbol+offset>` after targets).
    pub fn render(&self, pc: u64) -> String {
        let Some(c) = self.cform else {
            return self.inst.render(pc);
        };
        let (rd, rs1, rs2, imm) = match self.inst {
            Inst::OpImm { rd, rs1, imm, .. } => (rd, rs1, ZERO, imm),
            Inst::Op { rd, rs1, rs2, .. } => (rd, rs1, rs2, 0),
            Inst::Load { rd, rs1, off, .. } => (rd, rs1, ZERO, off),
            Inst::Store { rs1, rs2, off, .. } => (ZERO, rs1, rs2, off),
            Inst::Lui { rd, imm } => (rd, ZERO, ZERO, imm),
            Inst::Jal { off, .. } => (ZERO, ZERO, ZERO, off),
            Inst::Branch { rs1, off, .. } => (ZERO, rs1, ZERO, off),
            Inst::Jalr { rs1, .. } => (ZERO, rs1, ZERO, 0),
            _ => (ZERO, ZERO, ZERO, 0),
        };
        let target = format!("{:#x}", pc.wrapping_add(imm as u64));
        let upper = format!("{:#x}", (imm >> 12) & 0xfffff);
        // The mnemonic is the form's name in lower case after `c.`.
        let name = format!("c.{c:?}").to_lowercase();
        let imm = hex(imm);
        use CForm::*;
        match c {
            Nop | Ebreak => name,
            Addi4spn => format!("{name}\t{rd}, sp, {imm}"),
            Lw | Ld => format!("{name}\t{rd}, {imm}({rs1})"),
            Sw | Sd => format!("{name}\t{rs2}, {imm}({rs1})"),
            Addi | Addiw | Li | Srli | Srai | Andi | Slli => format!("{name}\t{rd}, {imm}"),
            Addi16sp => format!("{name}\tsp, {imm}"),
            Lui => format!("{name}\t{rd}, {upper}"),
            Sub | Xor | Or | And | Subw | Addw | Mv | Add => format!("{name}\t{rd}, {rs2}"),
            J => format!("{name}\t{target}"),
            Beqz | Bnez => format!("{name}\t{rs1}, {target}"),
            Lwsp | Ldsp => format!("{name}\t{rd}, {imm}(sp)"),
            Swsp | Sdsp => format!("{name}\t{rs2}, {imm}(sp)"),
            Jr | Jalr => format!("{name}\t{rs1}"),
        }
    }
}

fn sext(v: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    (((v as u64) << shift) as i64) >> shift
}

fn r(v: u32) -> Reg {
    Reg((v & 31) as u8)
}

/// Decodes the instruction at the start of `bytes` (little-endian parcels).
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let lo = match bytes {
        [a, b, ..] => u16::from_le_bytes([*a, *b]),
        _ => return Err("instruction runs past the end of the code".into()),
    };
    if lo & 3 != 3 {
        return decode_compressed(lo).map(|(inst, c)| Decoded {
            inst,
            len: 2,
            cform: Some(c),
        });
    }
    if lo & 0x1c == 0x1c {
        return Err(format!("{lo:#06x}: instruction longer than 32 bits"));
    }
    let w = match bytes {
        [a, b, c, d, ..] => u32::from_le_bytes([*a, *b, *c, *d]),
        _ => return Err("instruction runs past the end of the code".into()),
    };
    decode32(w)
        .map(|inst| Decoded {
            inst,
            len: 4,
            cform: None,
        })
        .ok_or_else(|| format!("{w:#010x}: instruction the checker does not decode"))
}

fn decode32(w: u32) -> Option<Inst> {
    let rd = r(w >> 7);
    let rs1 = r(w >> 15);
    let rs2 = r(w >> 20);
    let f3 = (w >> 12) & 7;
    let f7 = w >> 25;
    let imm_i = sext(w >> 20, 12);
    let imm_s = sext(((w >> 25) << 5) | ((w >> 7) & 31), 12);
    let imm_b = sext(
        ((w >> 31) << 12)
            | (((w >> 7) & 1) << 11)
            | (((w >> 25) & 0x3f) << 5)
            | (((w >> 8) & 0xf) << 1),
        13,
    );
    let imm_u = (w & 0xffff_f000) as i32 as i64;
    let imm_j = sext(
        ((w >> 31) << 20)
            | (((w >> 12) & 0xff) << 12)
            | (((w >> 20) & 1) << 11)
            | (((w >> 21) & 0x3ff) << 1),
        21,
    );
    Some(match w & 0x7f {
        0x37 => Inst::Lui { rd, imm: imm_u },
        0x17 => Inst::Auipc { rd, imm: imm_u },
        0x6f => Inst::Jal { rd, off: imm_j },
        0x67 if f3 == 0 => Inst::Jalr {
            rd,
            rs1,
            off: imm_i,
        },
        0x63 => Inst::Branch {
            op: match f3 {
                0 => BranchOp::Beq,
                1 => BranchOp::Bne,
                4 => BranchOp::Blt,
                5 => BranchOp::Bge,
                6 => BranchOp::Bltu,
                7 => BranchOp::Bgeu,
                _ => return None,
            },
            rs1,
            rs2,
            off: imm_b,
        },
        0x03 => Inst::Load {
            kind: match f3 {
                0 => LoadKind::Lb,
                1 => LoadKind::Lh,
                2 => LoadKind::Lw,
                3 => LoadKind::Ld,
                4 => LoadKind::Lbu,
                5 => LoadKind::Lhu,
                6 => LoadKind::Lwu,
                _ => return None,
            },
            rd,
            rs1,
            off: imm_i,
        },
        0x23 if f3 <= 3 => Inst::Store {
            bytes: 1 << f3,
            rs1,
            rs2,
            off: imm_s,
        },
        0x13 => {
            let shamt = i64::from((w >> 20) & 63);
            let top6 = w >> 26;
            let (op, imm) = match f3 {
                0 => (BinOp::Add, imm_i),
                1 if top6 == 0 => (BinOp::Sll, shamt),
                2 => (BinOp::Slt, imm_i),
                3 => (BinOp::Sltu, imm_i),
                4 => (BinOp::Xor, imm_i),
                5 if top6 == 0 => (BinOp::Srl, shamt),
                5 if top6 == 0x10 => (BinOp::Sra, shamt),
                5 if top6 == 0x18 => (BinOp::Ror, shamt),
                6 => (BinOp::Or, imm_i),
                7 => (BinOp::And, imm_i),
                _ => return None,
            };
            Inst::OpImm { op, rd, rs1, imm }
        }
        0x1b => {
            let shamt = i64::from((w >> 20) & 31);
            let (op, imm) = match (f3, f7) {
                (0, _) => (BinOp::Addw, imm_i),
                (1, 0) => (BinOp::Sllw, shamt),
                (5, 0) => (BinOp::Srlw, shamt),
                (5, 0x20) => (BinOp::Sraw, shamt),
                (5, 0x30) => (BinOp::Rorw, shamt),
                _ => return None,
            };
            Inst::OpImm { op, rd, rs1, imm }
        }
        0x33 => {
            let op = match (f7, f3) {
                (0, 0) => BinOp::Add,
                (0x20, 0) => BinOp::Sub,
                (0, 1) => BinOp::Sll,
                (0, 2) => BinOp::Slt,
                (0, 3) => BinOp::Sltu,
                (0, 4) => BinOp::Xor,
                (0, 5) => BinOp::Srl,
                (0x20, 5) => BinOp::Sra,
                (0, 6) => BinOp::Or,
                (0, 7) => BinOp::And,
                (1, 0) => BinOp::Mul,
                (0x20, 7) => BinOp::Andn,
                (0x20, 6) => BinOp::Orn,
                (0x20, 4) => BinOp::Xnor,
                (0x30, 5) => BinOp::Ror,
                (0x30, 1) => BinOp::Rol,
                (0x10, 2) => BinOp::Sh1add,
                (0x10, 4) => BinOp::Sh2add,
                (0x10, 6) => BinOp::Sh3add,
                _ => return None,
            };
            Inst::Op { op, rd, rs1, rs2 }
        }
        0x3b => {
            let op = match (f7, f3) {
                (0, 0) => BinOp::Addw,
                (0x20, 0) => BinOp::Subw,
                (0, 1) => BinOp::Sllw,
                (0, 5) => BinOp::Srlw,
                (0x20, 5) => BinOp::Sraw,
                (0x30, 5) => BinOp::Rorw,
                (0x30, 1) => BinOp::Rolw,
                _ => return None,
            };
            Inst::Op { op, rd, rs1, rs2 }
        }
        0x73 if w == 0x0000_0073 => Inst::Ecall,
        0x73 if w == 0x0010_0073 => Inst::Ebreak,
        _ => return None,
    })
}

fn decode_compressed(h: u16) -> Result<(Inst, CForm), String> {
    let unknown = || format!("{h:#06x}: compressed instruction the checker does not decode");
    let h = u32::from(h);
    let f3 = h >> 13;
    let rdp = Reg(8 + ((h >> 2) & 7) as u8);
    let rs1p = Reg(8 + ((h >> 7) & 7) as u8);
    let rd = r(h >> 7);
    let rs2 = r(h >> 2);
    let imm6 = sext(((h >> 7) & 0x20) | ((h >> 2) & 0x1f), 6);
    let shamt = i64::from(((h >> 7) & 0x20) | ((h >> 2) & 0x1f));
    let lw_imm = i64::from(((h >> 7) & 0x38) | ((h >> 4) & 0x4) | ((h << 1) & 0x40));
    let ld_imm = i64::from(((h >> 7) & 0x38) | ((h << 1) & 0xc0));
    let op_imm = |op, rd, rs1, imm| Inst::OpImm { op, rd, rs1, imm };
    let op = |op, rd, rs1, rs2| Inst::Op { op, rd, rs1, rs2 };
    let load = |kind, rd, rs1, off| Inst::Load { kind, rd, rs1, off };
    let store = |bytes, rs1, rs2, off| Inst::Store {
        bytes,
        rs1,
        rs2,
        off,
    };
    let jalr = |rd, rs1| Inst::Jalr { rd, rs1, off: 0 };
    Ok(match (h & 3, f3) {
        (0, 0) => {
            let imm = ((h >> 7) & 0x30) | ((h >> 1) & 0x3c0) | ((h >> 4) & 0x4) | ((h >> 2) & 0x8);
            if imm == 0 {
                return Err(unknown());
            }
            (op_imm(BinOp::Add, rdp, SP, i64::from(imm)), CForm::Addi4spn)
        }
        (0, 2) => (load(LoadKind::Lw, rdp, rs1p, lw_imm), CForm::Lw),
        (0, 3) => (load(LoadKind::Ld, rdp, rs1p, ld_imm), CForm::Ld),
        (0, 6) => (store(4, rs1p, rdp, lw_imm), CForm::Sw),
        (0, 7) => (store(8, rs1p, rdp, ld_imm), CForm::Sd),
        (1, 0) if rd == ZERO && imm6 == 0 => (Inst::NOP, CForm::Nop),
        (1, 0) if rd != ZERO && imm6 != 0 => (op_imm(BinOp::Add, rd, rd, imm6), CForm::Addi),
        (1, 1) if rd != ZERO => (op_imm(BinOp::Addw, rd, rd, imm6), CForm::Addiw),
        (1, 2) if rd != ZERO => (op_imm(BinOp::Add, rd, ZERO, imm6), CForm::Li),
        (1, 3) if rd == SP => {
            let imm = sext(
                ((h >> 3) & 0x200)
                    | ((h >> 2) & 0x10)
                    | ((h << 1) & 0x40)
                    | ((h << 4) & 0x180)
                    | ((h << 3) & 0x20),
                10,
            );
            if imm == 0 {
                return Err(unknown());
            }
            (op_imm(BinOp::Add, SP, SP, imm), CForm::Addi16sp)
        }
        (1, 3) if rd != ZERO => {
            let imm = sext(((h << 5) & 0x20000) | ((h << 10) & 0x1f000), 18);
            if imm == 0 {
                return Err(unknown());
            }
            (Inst::Lui { rd, imm }, CForm::Lui)
        }
        (1, 4) => match (h >> 10) & 3 {
            0 if shamt != 0 => (op_imm(BinOp::Srl, rs1p, rs1p, shamt), CForm::Srli),
            1 if shamt != 0 => (op_imm(BinOp::Sra, rs1p, rs1p, shamt), CForm::Srai),
            2 => (op_imm(BinOp::And, rs1p, rs1p, imm6), CForm::Andi),
            3 => {
                let (o, c) = match ((h >> 12) & 1, (h >> 5) & 3) {
                    (0, 0) => (BinOp::Sub, CForm::Sub),
                    (0, 1) => (BinOp::Xor, CForm::Xor),
                    (0, 2) => (BinOp::Or, CForm::Or),
                    (0, 3) => (BinOp::And, CForm::And),
                    (1, 0) => (BinOp::Subw, CForm::Subw),
                    (1, 1) => (BinOp::Addw, CForm::Addw),
                    _ => return Err(unknown()),
                };
                (op(o, rs1p, rs1p, rdp), c)
            }
            _ => return Err(unknown()),
        },
        (1, 5) => {
            let off = sext(
                ((h >> 1) & 0x800)
                    | ((h >> 7) & 0x10)
                    | ((h >> 1) & 0x300)
                    | ((h << 2) & 0x400)
                    | ((h >> 1) & 0x40)
                    | ((h << 1) & 0x80)
                    | ((h >> 2) & 0xe)
                    | ((h << 3) & 0x20),
                12,
            );
            (Inst::Jal { rd: ZERO, off }, CForm::J)
        }
        (1, 6) | (1, 7) => {
            let off = sext(
                ((h >> 4) & 0x100)
                    | ((h >> 7) & 0x18)
                    | ((h << 1) & 0xc0)
                    | ((h >> 2) & 0x6)
                    | ((h << 3) & 0x20),
                9,
            );
            let (bop, c) = if f3 == 6 {
                (BranchOp::Beq, CForm::Beqz)
            } else {
                (BranchOp::Bne, CForm::Bnez)
            };
            (
                Inst::Branch {
                    op: bop,
                    rs1: rs1p,
                    rs2: ZERO,
                    off,
                },
                c,
            )
        }
        (2, 0) if rd != ZERO && shamt != 0 => (op_imm(BinOp::Sll, rd, rd, shamt), CForm::Slli),
        (2, 2) if rd != ZERO => {
            let off = i64::from(((h >> 7) & 0x20) | ((h >> 2) & 0x1c) | ((h << 4) & 0xc0));
            (load(LoadKind::Lw, rd, SP, off), CForm::Lwsp)
        }
        (2, 3) if rd != ZERO => {
            let off = i64::from(((h >> 7) & 0x20) | ((h >> 2) & 0x18) | ((h << 4) & 0x1c0));
            (load(LoadKind::Ld, rd, SP, off), CForm::Ldsp)
        }
        (2, 4) => match ((h >> 12) & 1, rd, rs2) {
            (0, ZERO, _) => return Err(unknown()),
            (0, rs1, ZERO) => (jalr(ZERO, rs1), CForm::Jr),
            (0, rd, rs2) => (op(BinOp::Add, rd, ZERO, rs2), CForm::Mv),
            (1, ZERO, ZERO) => (Inst::Ebreak, CForm::Ebreak),
            (1, rs1, ZERO) => (jalr(RA, rs1), CForm::Jalr),
            (1, ZERO, _) => return Err(unknown()),
            (_, rd, rs2) => (op(BinOp::Add, rd, rd, rs2), CForm::Add),
        },
        (2, 6) => (
            store(4, SP, rs2, i64::from(((h >> 7) & 0x3c) | ((h >> 1) & 0xc0))),
            CForm::Swsp,
        ),
        (2, 7) => {
            let off = i64::from(((h >> 7) & 0x38) | ((h >> 1) & 0x1c0));
            (store(8, SP, rs2, off), CForm::Sdsp)
        }
        _ => return Err(unknown()),
    })
}
