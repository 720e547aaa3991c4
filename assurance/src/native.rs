//! The three verifier cores, run natively: the code the contracts run, with the reference
//! hash. Each returns the exit code its contract would return (0 = accepted).

use crate::hash::merge;

/// The reference hash for all three cores.
pub struct RefHasher;

// SAFETY: `merge` writes all 32 bytes of `out` (the default `merge_uninit` relies on it).
unsafe impl baseline_proof::Hasher for RefHasher {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        *out = merge(left, right);
    }
}

impl compiled_proof::Merge for RefHasher {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        *out = merge(left, right);
    }
}

/// `cp_merge` of the C core. `out` may alias `left` or `right`: both are read first.
///
/// # Safety
/// The three pointers must be valid for 32 bytes (the C core only passes stack entries,
/// payload items and its root buffer).
#[no_mangle]
pub unsafe extern "C" fn assurance_merge(out: *mut u8, left: *const u8, right: *const u8) {
    let l: [u8; 32] = unsafe { *(left as *const [u8; 32]) };
    let r: [u8; 32] = unsafe { *(right as *const [u8; 32]) };
    let h = merge(&l, &r);
    unsafe { core::ptr::copy_nonoverlapping(h.as_ptr(), out, 32) };
}

extern "C" {
    fn assurance_c_verify(payload: *const u8, len: u64, leaf_count: u64, root: *const u8) -> i32;
    fn assurance_c_lock(
        args: *const u8,
        args_len: u64,
        witness: *const u8,
        witness_len: u64,
        has_witness: i32,
    ) -> i32;
}

fn code<E>(r: Result<(), E>, f: impl Fn(E) -> i8) -> i8 {
    match r {
        Ok(()) => 0,
        Err(e) => f(e),
    }
}

/// `baseline_proof::verify` (payload level; `mmr_size` and `leaf_count` already valid).
pub fn baseline_payload(payload: &[u8], root: &[u8; 32], mmr_size: u64, leaf_count: u64) -> i8 {
    code(
        baseline_proof::verify::<RefHasher>(payload, root, mmr_size, leaf_count),
        |e| e.code(),
    )
}

/// `compiled_proof::verify` (payload level).
pub fn compiled_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    code(
        compiled_proof::verify::<RefHasher>(payload, root, leaf_count),
        |e| e.code(),
    )
}

/// The C core's `cp_verify` (payload level).
pub fn c_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    // SAFETY: the C core reads at most `len` bytes of `payload` and 32 of `root`.
    let rc = unsafe {
        assurance_c_verify(
            payload.as_ptr(),
            payload.len() as u64,
            leaf_count,
            root.as_ptr(),
        )
    };
    rc as i8
}

/// Both Rust contracts' flow after the loads: args (1, 8), witness missing (3), too large
/// (4), `WitnessArgs` (5, 6), then the payload.
fn rust_lock(
    args: &[u8],
    witness: Option<&[u8]>,
    payload: impl FnOnce(&[u8], &mmr_lock::LockArgs) -> i8,
) -> i8 {
    let a = match mmr_lock::parse_args(args) {
        Ok(a) => a,
        Err(e) => return e.code(),
    };
    let Some(w) = witness else {
        return mmr_lock::LockError::WitnessMissing.code();
    };
    if w.len() > mmr_lock::MAX_WITNESS_SIZE {
        return mmr_lock::LockError::WitnessTooLarge.code();
    }
    match mmr_lock::witness::lock_field(w) {
        Ok(p) => payload(p, &a),
        Err(e) => e.code(),
    }
}

/// The baseline contract (`contracts/baseline-verifier`) on these args and witness 0.
pub fn baseline_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    rust_lock(args, witness, |p, a| {
        baseline_payload(p, &a.root, a.mmr_size, a.leaf_count)
    })
}

/// The compiled Rust contract (`contracts/compiled-verifier`).
pub fn compiled_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    rust_lock(args, witness, |p, a| {
        compiled_payload(p, &a.root, a.leaf_count)
    })
}

/// The C contract (`c/verifier.c`).
pub fn c_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    let (ptr, len, has) = match witness {
        Some(w) => (w.as_ptr(), w.len() as u64, 1),
        None => (core::ptr::null(), 0, 0),
    };
    // SAFETY: the C core reads at most `args_len` / `witness_len` bytes.
    let rc = unsafe { assurance_c_lock(args.as_ptr(), args.len() as u64, ptr, len, has) };
    rc as i8
}
