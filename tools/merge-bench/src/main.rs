//! Runs `count` chained merges with one hashing path, chosen by the script args:
//! `args = path (u8) || count (u32 LE)`. The cycles of a run with `count = 0` are the fixed
//! cost, so `(cycles(n) - cycles(0)) / n` is the cost of one merge (tests/tests/merge_bench.rs).
//!
//! Paths: 0 = builder computed at run time per merge, 1 = const builder per merge,
//! 2 = const builder re-initialising one hasher, 3 = the merge kernel, 4 = the assembly
//! kernel (`merge_rv64.s`) from memory to memory, 5 = the assembly kernel with each result
//! kept in registers as the next left input. `count` must be even.
//!
//! Path 6 is the assembly kernel's differential check (tests/tests/merge_kernel_vm.rs):
//! `args = 6 || count (u32 LE) || seed (u64 LE)`, and witness 0 of the group holds the
//! expected hashes, computed with blake2b-rs on the host: `count` merges of
//! `check_inputs::pair(seed, i)` through `merge_into_asm`, then `count / 4` merges chained in
//! registers through `merge_words_asm` (the running hash as the left input), then `count / 4`
//! through `merge_words_right_asm` (as the right input). Exit codes: 0 all equal, 3 a
//! memory-to-memory hash differs, 4 a left-chained one, 6 a right-chained one, 5 the witness
//! is missing or too short.
#![no_std]
#![cfg_attr(not(test), no_main)]

mmr_lock::no_heap_entry!(program_entry);

/// `(path, count, seed)`; `seed` is 0 unless the args carry one.
fn args() -> Option<(u8, u32, u64)> {
    let mut script = [0u8; 128];
    let len = ckb_std::syscalls::load_script(&mut script, 0).ok()?;
    // Script molecule: 4-byte size, 3 offsets, code_hash (32), hash_type (1), then the args
    // Bytes (u32 length, data), the last field.
    let script = script.get(..len)?;
    let args_len = u32::from_le_bytes(script.get(49..53)?.try_into().ok()?) as usize;
    let args = script.get(53..53usize.checked_add(args_len)?)?;
    let path = *args.first()?;
    let count = u32::from_le_bytes(args.get(1..5)?.try_into().ok()?);
    let seed = match args.get(5..13) {
        Some(seed) => u64::from_le_bytes(seed.try_into().ok()?),
        None => 0,
    };
    Some((path, count, seed))
}

/// `count` chained merges with one path; two buffers feed each other, so no merge needs a
/// copy of its input and none can be skipped (every output is the next merge's input).
/// Generic over the path so the loop has no dispatch in it.
#[inline(never)]
fn chain(count: u32, mut merge: impl FnMut(&[u8; 32], &[u8; 32], &mut [u8; 32])) -> [u8; 32] {
    let right = core::hint::black_box([0x5a; 32]);
    let (mut a, mut b) = ([0x11u8; 32], [0u8; 32]);
    for _ in 0..count / 2 {
        merge(&a, &right, &mut b);
        merge(&b, &right, &mut a);
    }
    a
}

/// The same chain as [`chain`], with the running hash in registers.
#[cfg(target_arch = "riscv64")]
#[inline(never)]
fn chain_words(count: u32) -> [u64; 4] {
    let right = core::hint::black_box([0x5a; 32]);
    let mut words = [u64::from_le_bytes([0x11; 8]); 4];
    for _ in 0..count {
        words = mmr_blake2b::merge_words_asm(words, &right);
    }
    words
}

/// Reads witness 0 of the group 32 bytes at a time, a few KiB per syscall.
#[cfg(target_arch = "riscv64")]
struct Expected {
    buf: [u8; 4096],
    /// Witness offset of `buf[0]`, bytes valid in `buf`, bytes of `buf` consumed.
    offset: usize,
    valid: usize,
    used: usize,
}

#[cfg(target_arch = "riscv64")]
impl Expected {
    fn next(&mut self) -> Option<[u8; 32]> {
        if self.used + 32 > self.valid {
            self.offset += self.used;
            self.used = 0;
            let source = ckb_std::ckb_constants::Source::GroupInput;
            self.valid =
                match ckb_std::syscalls::load_witness(&mut self.buf, self.offset, 0, source) {
                    Ok(n) => n,
                    // A longer rest than the buffer: the buffer is full.
                    Err(ckb_std::error::SysError::LengthNotEnough(_)) => self.buf.len(),
                    Err(_) => return None,
                };
        }
        let hash = self
            .buf
            .get(..self.valid)?
            .get(self.used..self.used + 32)?
            .try_into()
            .ok()?;
        self.used += 32;
        Some(hash)
    }
}

/// Path 6; the chained parts start from `chain_right(seed, u64::MAX)`, the right-chained
/// one's items are `chain_right(seed, count / 4 + i)`.
#[cfg(target_arch = "riscv64")]
fn check(count: u32, seed: u64) -> i8 {
    use mmr_blake2b::check_inputs;
    let mut expected = Expected {
        buf: [0; 4096],
        offset: 0,
        valid: 0,
        used: 0,
    };
    for i in 0..u64::from(count) {
        let block = check_inputs::pair(seed, i);
        let (Some(left), Some(right)) = (block.first_chunk::<32>(), block.last_chunk::<32>())
        else {
            return 5;
        };
        let mut out = [0u8; 32];
        mmr_blake2b::merge_into_asm(left, right, &mut out);
        match expected.next() {
            None => return 5,
            Some(hash) if hash != out => return 3,
            Some(_) => {}
        }
    }
    let start = check_inputs::chain_right(seed, u64::MAX);
    let mut words = [0u64; 4];
    for (w, bytes) in words.iter_mut().zip(start.chunks_exact(8)) {
        *w = u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    }
    let chained = u64::from(count / 4);
    for i in 0..2 * chained {
        let item = check_inputs::chain_right(seed, i);
        let (next, code) = if i < chained {
            (mmr_blake2b::merge_words_asm(words, &item), 4)
        } else {
            (mmr_blake2b::merge_words_right_asm(&item, words), 6)
        };
        words = next;
        let mut out = [0u8; 32];
        mmr_blake2b::store_words(words, &mut out);
        match expected.next() {
            None => return 5,
            Some(hash) if hash != out => return code,
            Some(_) => {}
        }
    }
    0
}

pub fn program_entry() -> i8 {
    let Some((path, count, seed)) = args() else {
        return 1;
    };
    if count % 2 != 0 {
        return 2;
    }
    let mut hasher = mmr_blake2b::CKB_HASH_BUILDER.build();
    let result = match path {
        0 => chain(count, mmr_blake2b::merge_generic),
        1 => chain(count, mmr_blake2b::merge_const_builder),
        2 => chain(count, |l, r, out| {
            mmr_blake2b::merge_const_builder_with(&mut hasher, l, r, out)
        }),
        3 => chain(count, mmr_blake2b::merge_into),
        #[cfg(target_arch = "riscv64")]
        4 => chain(count, mmr_blake2b::merge_into_asm),
        #[cfg(target_arch = "riscv64")]
        5 => {
            core::hint::black_box(chain_words(count));
            return 0;
        }
        #[cfg(target_arch = "riscv64")]
        6 => return check(count, seed),
        _ => return 2,
    };
    core::hint::black_box(result);
    0
}
