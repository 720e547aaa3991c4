//! The decoder is part of what the proof trusts: it is checked here against llvm-objdump-19
//! on every instruction form it knows (tests/data/forms.s, assembled by clang-19) and on every
//! instruction of the release binaries it decodes (the kernel and all the compiler's code
//! around it), and it must refuse encodings it does not know.

mod common;

use kernel_proof::decode::decode;
use kernel_proof::elf::Image;
use kernel_proof::mutate::Baseline;
use std::path::Path;
use std::process::Command;

fn compare(elf: &Path, must_decode: &dyn Fn(u64) -> bool) -> (usize, usize) {
    let img = Image::read_file(elf).expect("ELF");
    let mut decoded = 0;
    let mut refused = 0;
    for (addr, want) in common::objdump(elf) {
        let Some(code) = img.code_at(addr) else {
            continue;
        };
        match decode(code) {
            Ok(d) => {
                decoded += 1;
                assert_eq!(d.render(addr), want, "{} at {addr:#x}", elf.display());
            }
            Err(e) => {
                refused += 1;
                assert!(
                    !must_decode(addr),
                    "{} at {addr:#x}: {want}: {e}",
                    elf.display()
                );
            }
        }
    }
    (decoded, refused)
}

#[test]
fn every_form_matches_llvm_objdump() {
    let dir = common::scratch("forms");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/forms.s");
    let obj = dir.join("forms.o");
    let elf = dir.join("forms.elf");
    common::run(
        Command::new("clang-19")
            .args(["--target=riscv64", "-march=rv64imc_zba_zbb_zbc_zbs", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(&obj),
    );
    common::run(Command::new("ld.lld-19").arg("-o").arg(&elf).arg(&obj));
    let (decoded, refused) = compare(&elf, &|_| true);
    assert_eq!(refused, 0);
    assert!(decoded >= 130, "{decoded} instructions");
}

#[test]
fn release_binaries_match_llvm_objdump() {
    for name in [
        "baseline-verifier.debug",
        "compiled-verifier.debug",
        "c-verifier.debug",
    ] {
        let path = common::release_dir().join(name);
        let img = common::release_image(name);
        let kernel = Baseline::new(&img).expect("kernel entries").pcs();
        let (decoded, refused) = compare(&path, &|a| kernel.contains(&a));
        println!("{name}: {decoded} instructions equal to llvm-objdump's, {refused} not decoded (none in the kernel)");
        assert!(decoded >= kernel.len(), "{name}: {decoded}");
    }
}

#[test]
fn unknown_encodings_are_refused() {
    let halves: [u16; 6] = [
        0x0000, // c.unimp (all zero)
        0x3000, // c.fld
        0xa000, // c.fsd
        0x8000, // reserved slot of quadrant 0
        0x2001, // c.addiw with rd = zero (reserved)
        0x8002, // c.jr zero (reserved)
    ];
    let words: [u32; 7] = [
        0x0ff0_000f, // fence
        0x0010_2573, // csrrs a0, fflags, zero
        0x02b5_0553, // fadd.d
        0x6005_1513, // clz a0, a0 (zbb, not modelled)
        0x1005_262f, // lr.w
        0x0200_7033, // remu zero, zero, zero (M, not modelled)
        0xffff_ffff, // longer than 32 bits
    ];
    let mut cases: Vec<Vec<u8>> = halves.iter().map(|h| h.to_le_bytes().to_vec()).collect();
    cases.extend(words.iter().map(|w| w.to_le_bytes().to_vec()));
    cases.push(vec![0x13]); // truncated
    cases.push(vec![0x13, 0x00, 0x00]); // truncated 32-bit instruction
    for bytes in cases {
        assert!(
            decode(&bytes).is_err(),
            "{bytes:02x?} decoded as {:?}",
            decode(&bytes)
        );
    }
}
