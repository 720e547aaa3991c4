//! The declarations are parsed from the sources, not copied: these tests pin what the
//! parsers read from the real files, that they refuse what they do not model, and that the
//! checker's table of entry interfaces (check::ENTRIES) is what merge_rv64.s's header says.

mod common;

use kernel_proof::check::{Entry, ENTRIES};
use kernel_proof::decode::Reg;
use kernel_proof::exec::{Input, RegSet};
use kernel_proof::expr::Side;
use kernel_proof::report::{self, C_WRAPPER, KERNEL_SOURCE, RUST_WRAPPER};
use kernel_proof::wrappers::{parse_c, parse_header, parse_rust, MemDecl};

fn regs(names: &str) -> RegSet {
    RegSet::of(
        &names
            .split_whitespace()
            .map(|n| Reg::parse(n).expect("register"))
            .collect::<Vec<_>>(),
    )
}

const KERNEL_WRITES: &str =
    "ra t0 t1 t2 t3 t4 t5 t6 a0 a1 a3 a4 a5 a6 a7 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11";

#[test]
fn real_declarations() {
    let decl = report::declarations(&common::root()).expect("parse");
    let got: Vec<(String, String, RegSet, RegSet)> = decl
        .sites
        .iter()
        .map(|s| (s.origin.clone(), s.entry.clone(), s.inputs, s.modified))
        .collect();
    let want = [
        (
            format!("{RUST_WRAPPER}: fn merge_to_ptr"),
            "mmr_merge_rv64",
            "a0 a1 a2",
        ),
        (
            format!("{RUST_WRAPPER}: fn merge_words_asm"),
            "mmr_merge_rv64_chain",
            "a1 a3 a4 a5 a6",
        ),
        (
            format!("{RUST_WRAPPER}: fn merge_to_words_asm"),
            "mmr_merge_rv64",
            "a0 a1",
        ),
        (
            format!("{RUST_WRAPPER}: fn merge_words_right_asm"),
            "mmr_merge_rv64_chain_right",
            "a0 a3 a4 a5 a6",
        ),
        (
            format!("{C_WRAPPER}: fn cp_merge"),
            "mmr_merge_rv64",
            "a0 a1 a2",
        ),
        (
            format!("{C_WRAPPER}: fn cp_merge_to_words"),
            "mmr_merge_rv64",
            "a0 a1",
        ),
        (
            format!("{C_WRAPPER}: fn cp_merge_words_left"),
            "mmr_merge_rv64_chain",
            "a1 a3 a4 a5 a6",
        ),
        (
            format!("{C_WRAPPER}: fn cp_merge_words_right"),
            "mmr_merge_rv64_chain_right",
            "a0 a3 a4 a5 a6",
        ),
    ];
    assert_eq!(got.len(), want.len());
    for ((origin, entry, inputs, modified), (wo, we, wi)) in got.iter().zip(want.iter()) {
        assert_eq!(origin, wo);
        assert_eq!(entry, we);
        assert_eq!(*inputs, regs(wi), "{origin}");
        assert_eq!(*modified, regs(KERNEL_WRITES), "{origin}");
    }
    assert!(decl.sites.iter().all(|s| match &s.mem {
        MemDecl::Rust(o) => o.iter().any(|x| x == "nostack"),
        MemDecl::C { memory } => *memory,
    }));
    assert_eq!(decl.header.clobbers, regs(KERNEL_WRITES));
    assert_eq!(decl.header.preserves, regs("a2 s0 s1 sp gp tp"));
}

#[test]
fn unmodelled_forms_are_refused() {
    let rust = |body: &str| {
        format!(
            "macro_rules! k {{ ($entry:literal, $($rest:tt)*) => {{ core::arch::asm!(concat!(\"jal ra, \", $entry), $($rest)* out(\"ra\") _,) }}; }}\nfn f() {{ unsafe {{ k!(\"mmr_merge_rv64\", {body}) }} }}"
        )
    };
    assert!(parse_rust(&rust("inout(\"a0\") x => _, inout(\"a1\") y => _,"), "t.rs").is_ok());
    for bad in [
        "in(reg) x,",
        "clobber_abi(\"C\"),",
        "\"mv a0, a1\", in(\"a0\") x,",
        "inout(\"q9\") x,",
        "sym foo,",
    ] {
        assert!(parse_rust(&rust(bad), "t.rs").is_err(), "{bad}");
    }
    let c = |ops: &str| {
        format!(
            "static void f(const unsigned char *p) {{\n  register const unsigned char *a0 __asm__(\"a0\") = p;\n  int x;\n  __asm__ volatile(\"jal ra, mmr_merge_rv64\" {ops});\n}}"
        )
    };
    assert!(parse_c(&c(": \"+r\"(a0) : : \"ra\", \"memory\""), "t.h").is_ok());
    for bad in [
        ": \"+r\"(x) : : \"ra\"",
        ": \"+m\"(a0) : : \"ra\"",
        ": : \"+r\"(a0) : \"ra\"",
        ": \"+r\"(a0) : : \"ra\", \"q9\"",
        ": \"+r\"(a0) : : \"ra\" : label",
    ] {
        assert!(parse_c(&c(bad), "t.h").is_err(), "{bad}");
    }
    let hdr = "#   clobbers: ra, t0-t6.  preserves: a2.\n";
    let h = parse_header(hdr, "t.s").expect("header");
    assert_eq!(h.clobbers, regs("ra t0 t1 t2 t3 t4 t5 t6"));
    assert!(parse_header("#   clobbers: ra, t6-t0.  preserves: a2.\n", "t.s").is_err());
}

/// The `in:` lines of the header: `entry in: a0 = left (32 bytes), a1 = right` and
/// `a3..a6 = left as four little-endian words`.
fn header_interfaces(src: &str) -> Vec<(String, Vec<(Reg, Input)>)> {
    let mut out = Vec::new();
    for line in src.lines().take_while(|l| l.starts_with('#')) {
        let Some((head, list)) = line.trim_start_matches('#').split_once("in:") else {
            continue;
        };
        let name = head.trim().to_string();
        let mut inputs = Vec::new();
        for item in list.split(',') {
            let (lhs, rhs) = item.split_once('=').expect("reg = input");
            let side = if rhs.trim().starts_with("left") {
                Side::Left
            } else {
                Side::Right
            };
            match lhs.trim().split_once("..") {
                Some((a, b)) => {
                    let (a, b) = (Reg::parse(a).expect("reg"), Reg::parse(b).expect("reg"));
                    assert!(rhs.contains("four") && rhs.contains("words"), "{line}");
                    for (i, n) in (a.0..=b.0).enumerate() {
                        inputs.push((Reg(n), Input::Word(side, i as u8)));
                    }
                }
                None => inputs.push((Reg::parse(lhs).expect("reg"), Input::Ptr(side))),
            }
        }
        out.push((name, inputs));
    }
    out
}

#[test]
fn entry_table_is_the_headers() {
    let src = std::fs::read_to_string(common::root().join(KERNEL_SOURCE)).expect("source");
    let mut header = header_interfaces(&src);
    header.sort_by(|a, b| a.0.cmp(&b.0));
    let mut table: Vec<(String, Vec<(Reg, Input)>)> = ENTRIES
        .iter()
        .map(|e: &Entry| (e.name.to_string(), e.inputs.to_vec()))
        .collect();
    table.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, v) in header.iter_mut().chain(table.iter_mut()) {
        v.sort_by_key(|(r, _)| r.0);
    }
    assert_eq!(header, table);
    assert!(src.contains(
        "#   all                    out: a3..a6 = the 32-byte hash as four little-endian words"
    ));
}
