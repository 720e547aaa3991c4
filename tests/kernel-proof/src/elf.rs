//! Just enough ELF64 (little-endian, RISC-V) to read what CKB-VM loads and the symbol table.
//!
//! The checker reads code and constants through the program headers (`PT_LOAD`), as CKB-VM
//! does, not through the section headers: what is proved is the bytes the VM maps, with the
//! permissions it maps them with. Symbols come from `.symtab`, which only the `.debug` copies
//! keep.

use std::collections::BTreeMap;

const PT_LOAD: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const EM_RISCV: u16 = 243;
pub const PF_X: u32 = 1;
pub const PF_W: u32 = 2;

/// One loaded segment: its file bytes (`p_filesz`; the zero-filled rest is not constant data
/// the kernel may rely on) at `vaddr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u64,
    pub flags: u32,
    pub bytes: Vec<u8>,
}

/// A loaded image: segments and the symbols by name (the first definition of a name wins;
/// the kernel's global symbols are unique).
#[derive(Clone, Debug)]
pub struct Image {
    pub segments: Vec<Segment>,
    pub symbols: BTreeMap<String, u64>,
}

/// The `N` bytes at `off`.
fn bytes_at<const N: usize>(b: &[u8], off: usize) -> Result<[u8; N], String> {
    b.get(off..off + N)
        .map(|s| s.try_into().unwrap())
        .ok_or_else(|| format!("ELF truncated at offset {off}"))
}

fn u16_at(b: &[u8], off: usize) -> Result<u16, String> {
    bytes_at(b, off).map(u16::from_le_bytes)
}

fn u32_at(b: &[u8], off: usize) -> Result<u32, String> {
    bytes_at(b, off).map(u32::from_le_bytes)
}

fn u64_at(b: &[u8], off: usize) -> Result<u64, String> {
    bytes_at(b, off).map(u64::from_le_bytes)
}

fn usize_of(v: u64) -> Result<usize, String> {
    usize::try_from(v).map_err(|_| format!("ELF offset {v:#x} does not fit in memory"))
}

fn slice(b: &[u8], off: u64, len: u64) -> Result<&[u8], String> {
    let start = usize_of(off)?;
    let end = start
        .checked_add(usize_of(len)?)
        .ok_or_else(|| "ELF range overflows".to_string())?;
    b.get(start..end)
        .ok_or_else(|| format!("ELF range {off:#x}+{len:#x} outside the file"))
}

impl Image {
    pub fn parse(file: &[u8]) -> Result<Image, String> {
        if file.get(0..4) != Some(b"\x7fELF".as_slice()) {
            return Err("not an ELF file".into());
        }
        // ELFCLASS64, ELFDATA2LSB: the only layout CKB-VM runs.
        if file.get(4) != Some(&2) || file.get(5) != Some(&1) {
            return Err("not a little-endian ELF64 file".into());
        }
        if u16_at(file, 18)? != EM_RISCV {
            return Err("not a RISC-V ELF file".into());
        }
        let phoff = u64_at(file, 32)?;
        let shoff = u64_at(file, 40)?;
        let phentsize = u64::from(u16_at(file, 54)?);
        let phnum = u64::from(u16_at(file, 56)?);
        let shentsize = u64::from(u16_at(file, 58)?);
        let shnum = u64::from(u16_at(file, 60)?);

        let mut segments = Vec::new();
        for i in 0..phnum {
            let ph = slice(file, phoff + i * phentsize, 56)?;
            if u32_at(ph, 0)? != PT_LOAD {
                continue;
            }
            let flags = u32_at(ph, 4)?;
            let offset = u64_at(ph, 8)?;
            let vaddr = u64_at(ph, 16)?;
            let filesz = u64_at(ph, 32)?;
            segments.push(Segment {
                vaddr,
                flags,
                bytes: slice(file, offset, filesz)?.to_vec(),
            });
        }

        let mut symbols = BTreeMap::new();
        for i in 0..shnum {
            let sh = slice(file, shoff + i * shentsize, 64)?;
            if u32_at(sh, 4)? != SHT_SYMTAB {
                continue;
            }
            let sym_off = u64_at(sh, 24)?;
            let sym_size = u64_at(sh, 32)?;
            let link = u64::from(u32_at(sh, 40)?);
            let entsize = u64_at(sh, 56)?.max(24);
            let strtab = slice(file, shoff + link * shentsize, 64)?;
            let str_off = u64_at(strtab, 24)?;
            let str_size = u64_at(strtab, 32)?;
            let strings = slice(file, str_off, str_size)?;
            for j in 0..sym_size / entsize {
                let sym = slice(file, sym_off + j * entsize, 24)?;
                let name_off = usize_of(u64::from(u32_at(sym, 0)?))?;
                let shndx = u16_at(sym, 6)?;
                if shndx == 0 {
                    continue; // undefined
                }
                let value = u64_at(sym, 8)?;
                let name_bytes = strings
                    .get(name_off..)
                    .ok_or_else(|| "symbol name outside .strtab".to_string())?;
                let end = name_bytes
                    .iter()
                    .position(|&c| c == 0)
                    .ok_or_else(|| "unterminated symbol name".to_string())?;
                let name = String::from_utf8_lossy(&name_bytes[..end]).into_owned();
                if !name.is_empty() {
                    symbols.entry(name).or_insert(value);
                }
            }
        }
        Ok(Image { segments, symbols })
    }

    pub fn read_file(path: &std::path::Path) -> Result<Image, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Image::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The index of the segment holding `addr`, and the offset of `addr` in its bytes.
    pub fn locate(&self, addr: u64) -> Option<(usize, usize)> {
        self.segments.iter().enumerate().find_map(|(i, s)| {
            let off = usize::try_from(addr.checked_sub(s.vaddr)?).ok()?;
            (off < s.bytes.len()).then_some((i, off))
        })
    }

    fn segment_of(&self, addr: u64) -> Option<(&Segment, usize)> {
        self.locate(addr).map(|(i, off)| (&self.segments[i], off))
    }

    /// The bytes from `addr` to the end of its segment, if it is executable.
    pub fn code_at(&self, addr: u64) -> Option<&[u8]> {
        let (seg, off) = self.segment_of(addr)?;
        (seg.flags & PF_X != 0).then(|| &seg.bytes[off..])
    }

    /// `len` bytes at `addr` from a segment the program cannot write (so their value is the
    /// file's for the whole run), or None.
    pub fn constant_bytes(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let (seg, off) = self.segment_of(addr)?;
        if seg.flags & PF_W != 0 {
            return None;
        }
        seg.bytes.get(off..off.checked_add(len)?)
    }

    pub fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).copied()
    }
}
