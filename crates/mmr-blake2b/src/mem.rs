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

    /// Writes `x` little-endian to bytes `OFF..OFF + 8` of a possibly uninitialised array.
    #[inline(always)]
    pub(crate) fn store_uninit<const OFF: usize, const N: usize>(
        dst: &mut core::mem::MaybeUninit<[u8; N]>,
        x: u64,
    ) {
        const { assert!(OFF + 8 <= N) };
        // Writing through the raw pointer never reads the uninitialised bytes, and
        // `OFF + 8 <= N` keeps the write inside `dst`.
        let p = dst.as_mut_ptr().cast::<[u8; 8]>();
        // SAFETY: see above; `[u8; 8]` has alignment 1, so any address is aligned for it.
        #[allow(unsafe_code)]
        unsafe {
            p.byte_add(OFF).write(x.to_le_bytes())
        };
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
        // (checked at compile time above).
        unsafe { sd::<OFF>(dst.as_mut_ptr(), x) }
    }

    /// Writes `x` little-endian to bytes `OFF..OFF + 8` of a possibly uninitialised array
    /// with one `sd`; the bytes are never read.
    #[inline(always)]
    pub(crate) fn store_uninit<const OFF: usize, const N: usize>(
        dst: &mut core::mem::MaybeUninit<[u8; N]>,
        x: u64,
    ) {
        const { assert!(OFF + 8 <= N && OFF <= 2040) };
        // SAFETY: `dst` is a live exclusive reference to `N` (possibly uninitialised) bytes
        // and `OFF + 8 <= N` (checked at compile time above); `sd` only writes them.
        unsafe { sd::<OFF>(dst.as_mut_ptr().cast(), x) }
    }

    /// One `sd` of `x` at `p + OFF`.
    ///
    /// # Safety
    /// The eight bytes at `p + OFF` must be valid for writes and not observed by anyone else
    /// during the write. No stack use, no flags. The asm is not marked `nomem`, so the
    /// compiler treats it as a memory write and orders it correctly. Alignment: as for
    /// `load` above.
    #[inline(always)]
    unsafe fn sd<const OFF: usize>(p: *mut u8, x: u64) {
        unsafe {
            core::arch::asm!(
                "sd {x}, {off}({p})",
                x = in(reg) x,
                p = in(reg) p,
                off = const OFF,
                options(nostack, preserves_flags),
            );
        }
    }
}

pub(crate) use imp::{load, store, store_uninit};
