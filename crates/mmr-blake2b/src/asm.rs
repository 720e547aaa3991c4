//! The merge kernel in assembly (`merge_rv64.s`, shared with the C verifier) and the inline
//! assembly that calls it.
//!
//! The kernel does not follow the C ABI: it keeps the 16 state words and 8 message words in
//! 24 registers and saves none of them. Each call below declares every register the kernel
//! writes as clobbered, so the compiler saves the callee-saved ones once, in the prologue of
//! the function the call is inlined into, and keeps across the call only what it needs.

core::arch::global_asm!(include_str!("merge_rv64.s"));

/// A call of a kernel entry, with the registers it writes besides `a0`, `a1` and its
/// outputs `a3..a6` (which each call names) declared as clobbers. `a2` is absent on
/// purpose: the kernel preserves it, so it can carry the destination.
macro_rules! kernel_call {
    ($entry:literal, $($rest:tt)*) => {
        core::arch::asm!(
            concat!("jal ra, ", $entry),
            $($rest)*
            out("ra") _, out("t0") _, out("t1") _, out("t2") _,
            out("t3") _, out("t4") _, out("t5") _, out("t6") _,
            out("a7") _,
            out("s2") _, out("s3") _, out("s4") _, out("s5") _, out("s6") _,
            out("s7") _, out("s8") _, out("s9") _, out("s10") _, out("s11") _,
        )
    };
}

/// The merge written to the 32 bytes at `out`.
///
/// # Safety
/// `out` must be valid for writes of 32 bytes (any alignment).
#[inline(always)]
unsafe fn merge_to_ptr(left: &[u8; 32], right: &[u8; 32], out: *mut u8) {
    // SAFETY: the kernel reads the 32 bytes behind `a0` and `a1` (live shared references),
    // writes only the registers listed as clobbers or outputs, and uses no stack. The four
    // `sd` write the 32 bytes at `out` (valid by the caller's contract; CKB-VM stores
    // misaligned words at the normal cost). Reads and writes of memory are not declared
    // away (no `nomem`/`readonly`), so the compiler orders them with the surrounding code.
    unsafe {
        kernel_call!(
            "mmr_merge_rv64",
            "sd a3, 0(a2)",
            "sd a4, 8(a2)",
            "sd a5, 16(a2)",
            "sd a6, 24(a2)",
            inout("a0") left.as_ptr() => _,
            inout("a1") right.as_ptr() => _,
            in("a2") out,
            out("a3") _, out("a4") _, out("a5") _, out("a6") _,
            options(nostack),
        );
    }
}

/// [`crate::merge_into`] through the assembly kernel.
#[inline(always)]
pub fn merge_into_asm(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
    // SAFETY: `out` is a live exclusive reference to 32 bytes.
    unsafe { merge_to_ptr(left, right, out.as_mut_ptr()) }
}

/// [`crate::merge_into_uninit`] through the assembly kernel.
#[inline(always)]
pub fn merge_into_uninit_asm<'a>(
    left: &[u8; 32],
    right: &[u8; 32],
    out: &'a mut core::mem::MaybeUninit<[u8; 32]>,
) -> &'a mut [u8; 32] {
    // SAFETY: `out` is a live exclusive reference to 32 (possibly uninitialised) bytes, which
    // the kernel call writes and never reads; after it all 32 are initialised.
    unsafe {
        merge_to_ptr(left, right, out.as_mut_ptr().cast());
        out.assume_init_mut()
    }
}

/// The merge of `left`, given as its four little-endian words, with `right`, returned as
/// four words: consecutive merges along a path keep the hash in registers (no store, no
/// load) when the result is the next left input.
#[inline(always)]
pub fn merge_words_asm(left: [u64; 4], right: &[u8; 32]) -> [u64; 4] {
    let [mut w0, mut w1, mut w2, mut w3] = left;
    // SAFETY: the kernel reads the 32 bytes behind `a1` (a live shared reference), writes
    // only registers listed as clobbers or outputs, no memory, and uses no stack.
    unsafe {
        kernel_call!(
            "mmr_merge_rv64_chain",
            out("a0") _,
            inout("a1") right.as_ptr() => _,
            inout("a3") w0, inout("a4") w1, inout("a5") w2, inout("a6") w3,
            options(nostack, readonly),
        );
    }
    [w0, w1, w2, w3]
}

/// The merge of `left` and `right` returned as four little-endian words, for a path that
/// continues in registers.
#[inline(always)]
pub fn merge_to_words_asm(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
    let (w0, w1, w2, w3);
    // SAFETY: the kernel reads the 32 bytes behind `a0` and `a1` (live shared references),
    // writes only registers listed as clobbers or outputs, no memory, and uses no stack.
    unsafe {
        kernel_call!(
            "mmr_merge_rv64",
            inout("a0") left.as_ptr() => _,
            inout("a1") right.as_ptr() => _,
            out("a3") w0, out("a4") w1, out("a5") w2, out("a6") w3,
            options(nostack, readonly),
        );
    }
    [w0, w1, w2, w3]
}

/// The merge of `left` with `right` given as its four little-endian words, returned as
/// words (the right-child counterpart of [`merge_words_asm`]).
#[inline(always)]
pub fn merge_words_right_asm(left: &[u8; 32], right: [u64; 4]) -> [u64; 4] {
    let [mut w0, mut w1, mut w2, mut w3] = right;
    // SAFETY: the kernel reads the 32 bytes behind `a0` (a live shared reference), writes
    // only registers listed as clobbers or outputs, no memory, and uses no stack.
    unsafe {
        kernel_call!(
            "mmr_merge_rv64_chain_right",
            inout("a0") left.as_ptr() => _,
            out("a1") _,
            inout("a3") w0, inout("a4") w1, inout("a5") w2, inout("a6") w3,
            options(nostack, readonly),
        );
    }
    [w0, w1, w2, w3]
}
