//! The deployed binaries are linked with contracts/lean-elf.ld: CKB-VM charges a cycle per 4
//! loaded bytes and a deployment a CKByte per byte, so they must load nothing but code,
//! constants and data. This checks the layout the script promises on each release binary.
use tests::{available_verifiers, release_dir, Verifier};

struct Segment {
    kind: u32,
    flags: u32,
    offset: u64,
    filesz: u64,
}

const PT_LOAD: u32 = 1;

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) as usize
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Program headers and section names of a little-endian ELF64 file.
fn parse(elf: &[u8]) -> (Vec<Segment>, Vec<String>) {
    assert_eq!(
        &elf[..6],
        b"\x7fELF\x02\x01",
        "not a little-endian ELF64 file"
    );
    let (phoff, phentsize, phnum) = (
        u64_at(elf, 0x20) as usize,
        u16_at(elf, 0x36),
        u16_at(elf, 0x38),
    );
    let segments = (0..phnum)
        .map(|i| {
            let h = phoff + i * phentsize;
            Segment {
                kind: u32_at(elf, h),
                flags: u32_at(elf, h + 4),
                offset: u64_at(elf, h + 8),
                filesz: u64_at(elf, h + 32),
            }
        })
        .collect();
    let (shoff, shentsize, shnum, shstrndx) = (
        u64_at(elf, 0x28) as usize,
        u16_at(elf, 0x3a),
        u16_at(elf, 0x3c),
        u16_at(elf, 0x3e),
    );
    let strtab = u64_at(elf, shoff + shstrndx * shentsize + 0x18) as usize;
    let names = (0..shnum)
        .map(|i| {
            let name = strtab + u32_at(elf, shoff + i * shentsize) as usize;
            let end = name + elf[name..].iter().position(|&c| c == 0).unwrap();
            String::from_utf8_lossy(&elf[name..end]).into_owned()
        })
        .collect();
    (segments, names)
}

#[test]
fn release_binaries_load_only_code_constants_and_data() {
    // The lock verifiers and the accumulator's type script (same linker script).
    let mut binaries: Vec<(String, Vec<u8>)> = available_verifiers()
        .into_iter()
        .map(|v| (v.binary_name().to_string(), v.binary().to_vec()))
        .collect();
    let acc = release_dir().join("accumulator-type");
    binaries.push((
        "accumulator-type".to_string(),
        std::fs::read(&acc).unwrap_or_else(|e| panic!("{}: {e}", acc.display())),
    ));
    for (name, elf) in &binaries {
        let (segments, names) = parse(elf);
        let loads: Vec<&Segment> = segments.iter().filter(|s| s.kind == PT_LOAD).collect();
        assert_eq!(loads.len(), 2, "{name}: expected a code and a data segment");
        assert_eq!(
            loads[0].flags, 5,
            "{name}: the first segment is read + execute"
        );
        assert_eq!(
            loads[1].flags, 6,
            "{name}: the second segment is read + write"
        );
        let headers_end = 0x40 + segments.len() as u64 * 56;
        assert!(
            loads
                .iter()
                .all(|s| s.offset >= headers_end || s.filesz == 0),
            "{name}: a segment loads the ELF or program headers"
        );
        assert!(
            !names.iter().any(|n| n.starts_with(".eh_frame")),
            "{name}: unwind tables are linked in: {names:?}"
        );
        // Nothing but the headers and the segments' bytes (and the section table) in the file.
        let loaded: u64 = loads.iter().map(|s| s.filesz).sum();
        assert!(
            (elf.len() as u64) < loaded + 1024,
            "{name}: {} file bytes for {loaded} loaded bytes",
            elf.len()
        );
    }
    assert!(available_verifiers().contains(&Verifier::C));
}
