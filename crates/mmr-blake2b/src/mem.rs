//! Little-endian 64-bit loads and stores at a compile-time offset into a byte array.
//!
//! `[u8; N]` has alignment 1, so on `riscv64imac` (which does not assume fast misaligned
//! access) LLVM lowers `u64::from_le_bytes` over such an array to eight `lbu` plus fourteen
//! shift/or instructions, and `to_le_bytes` stores to eight `sb`. CKB-VM performs misaligned
//! `ld`/`sd` like aligned ones (2 cycles each), so on riscv64 we emit a single `ld`/`sd` with
//! inline assembly. Everywhere else, and on riscv64 with the `portable` feature, the plain
//! `from_le_bytes`/`to_le_bytes` code is used.
//!
//! The offset is a const generic: the bound `OFF + 8 <= N` is checked at compile time and the
//! offset becomes the instruction's immediate, so neither a bounds check nor an address
//! computation is left at run time.

#[cfg(any(not(target_arch = "riscv64"), feature = "portable"))]
mod imp {
    /// Reads `src[OFF..OFF + 8]` as a little-endian `u64`.
    #[inline(always)]
    pub(crate) fn load<const OFF: usize, const N: usize>(src: &[u8; N]) -> u64 {
        const { assert!(OFF + 8 <= N) };
        let mut w = [0u8; 8];
        w.copy_from_slice(&src[OFF..OFF + 8]);
        u64::from_le_bytes(w)
    }

    /// Writes `x` little-endian to `dst[OFF..OFF + 8]`.
    #[inline(always)]
    pub(crate) fn store<const OFF: usize, const N: usize>(dst: &mut [u8; N], x: u64) {
        const { assert!(OFF + 8 <= N) };
        dst[OFF..OFF + 8].copy_from_slice(&x.to_le_bytes());
    }
}

#[cfg(all(target_arch = "riscv64", not(feature = "portable")))]
#[allow(unsafe_code)]
mod imp {
    /// Reads `src[OFF..OFF + 8]` as a little-endian `u64` with one `ld`.
    #[inline(always)]
    pub(crate) fn load<const OFF: usize, const N: usize>(src: &[u8; N]) -> u64 {
        // `ld` takes a signed 12-bit immediate.
        const { assert!(OFF + 8 <= N && OFF <= 2040) };
        let x: u64;
        // SAFETY: `src` is a live shared reference to `N` bytes and `OFF + 8 <= N` (checked at
        // compile time above), so the eight bytes at `src.as_ptr() + OFF` are initialised,
        // in bounds and not being written concurrently. The instruction only reads them
        // (`readonly`), touches no stack (`nostack`) and no flags. riscv64 is little-endian,
        // so `ld` yields the `from_le_bytes` value. Alignment: CKB-VM executes misaligned
        // `ld` like an aligned one; on other RISC-V machines a misaligned `ld` either works,
        // is emulated or traps, which is a crash and never a wrong value or memory unsafety.
        unsafe {
            core::arch::asm!(
                "ld {x}, {off}({p})",
                x = lateout(reg) x,
                p = in(reg) src.as_ptr(),
                off = const OFF,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        x
    }

    /// Writes `x` little-endian to `dst[OFF..OFF + 8]` with one `sd`.
    #[inline(always)]
    pub(crate) fn store<const OFF: usize, const N: usize>(dst: &mut [u8; N], x: u64) {
        const { assert!(OFF + 8 <= N && OFF <= 2040) };
        // SAFETY: `dst` is a live exclusive reference to `N` bytes and `OFF + 8 <= N`
        // (checked at compile time above), so writing the eight bytes at
        // `dst.as_mut_ptr() + OFF` stays inside memory we may mutate and nobody else observes
        // during the write. No stack use, no flags. The asm is not marked `nomem`, so the
        // compiler treats it as a memory write and orders it correctly. Alignment: as for
        // `load` above.
        unsafe {
            core::arch::asm!(
                "sd {x}, {off}({p})",
                x = in(reg) x,
                p = in(reg) dst.as_mut_ptr(),
                off = const OFF,
                options(nostack, preserves_flags),
            );
        }
    }
}

pub(crate) use imp::{load, store};
