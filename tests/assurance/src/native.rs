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

    /// The contract's `ref-items` path leaks every merge result into its bump arena; the
    /// searches run it hundreds of millions of times, so here the slots come from a per-thread
    /// arena that `baseline_payload` rewinds after each verification.
    fn node_slot() -> &'static mut core::mem::MaybeUninit<[u8; 32]> {
        node_arena::slot()
    }
}

/// Merge-result storage for `RefHasher::node_slot`: chunks that are never freed or moved
/// (each a `Box` of its own), a cursor that only `rewind` moves back.
mod node_arena {
    use core::cell::{Cell, RefCell};
    use core::mem::MaybeUninit;

    const CHUNK: usize = 4096;
    type Chunk = [MaybeUninit<[u8; 32]>; CHUNK];

    thread_local! {
        static CHUNKS: RefCell<Vec<Box<Chunk>>> = const { RefCell::new(Vec::new()) };
        static NEXT: Cell<usize> = const { Cell::new(0) };
    }

    pub fn slot() -> &'static mut MaybeUninit<[u8; 32]> {
        let next = NEXT.with(|n| n.replace(n.get() + 1));
        CHUNKS.with(|chunks| {
            let mut chunks = chunks.borrow_mut();
            if next / CHUNK == chunks.len() {
                chunks.push(Box::new([MaybeUninit::uninit(); CHUNK]));
            }
            let p: *mut MaybeUninit<[u8; 32]> = &mut chunks[next / CHUNK][next % CHUNK];
            // SAFETY: the chunk's heap block is never freed or moved (the Vec holds the Box,
            // only the pointer moves when it grows), and slot `next` is handed out once until
            // `rewind`, which runs only when every reference from the last verification is
            // gone.
            unsafe { &mut *p }
        })
    }

    /// Called after `baseline_proof::verify` returned: it returns no node, so none of the
    /// slots it was given is reachable any more.
    pub fn rewind() {
        NEXT.with(|n| n.set(0));
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
    fn assurance_c_verify_compact(
        payload: *const u8,
        len: u64,
        leaf_count: u64,
        root: *const u8,
    ) -> i32;
    fn assurance_c_lock(
        args: *mut u8,
        args_len: u64,
        room: u64,
        witness: *const u8,
        witness_len: u64,
        has_witness: i32,
        deps: *const CellDepFfi,
        dep_count: u64,
    ) -> i32;
}

/// A cell dep as a by-reference lock sees it: its type script hash (`None`: no type script)
/// and its data.
#[derive(Debug, Clone, Copy)]
pub struct CellDep<'a> {
    pub type_hash: Option<[u8; 32]>,
    pub data: &'a [u8],
}

/// The cell deps of the differential and VM checks' transactions (`tests::run`): only the
/// verifier's code cell, which is never the accumulator a by-reference args names (in
/// ckb-testtool it has a type id of random args), so by-reference args exit 90 there.
pub const CODE_DEP_ONLY: &[CellDep<'static>] = &[CellDep {
    type_hash: None,
    data: &[],
}];

/// `assurance_dep_t` of csrc/c_core.c.
#[repr(C)]
struct CellDepFfi {
    typed: i32,
    type_hash: [u8; 32],
    data: *const u8,
    data_len: u64,
}

/// `baseline_proof::verify` (payload level; `mmr_size` and `leaf_count` already valid).
pub fn baseline_payload(payload: &[u8], root: &[u8; 32], mmr_size: u64, leaf_count: u64) -> i8 {
    let result = baseline_proof::verify::<RefHasher>(payload, root, mmr_size, leaf_count);
    node_arena::rewind();
    result.map_or_else(|e| e.code(), |()| 0)
}

/// `compiled_proof::verify`, version 1 (payload level): the exhaustive search of command
/// streams. The contracts read version 2: [`compact_payload`].
pub fn compiled_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    compiled_proof::verify::<RefHasher>(payload, root, leaf_count).map_or_else(|e| e.code(), |()| 0)
}

/// `compiled_proof::compact::verify`, version 2 (payload level), what the compiled contract
/// runs.
pub fn compact_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    compiled_proof::compact::verify::<RefHasher>(payload, root, leaf_count)
        .map_or_else(|e| e.code(), |()| 0)
}

/// The C core's `cc_verify`, version 2 (payload level).
pub fn c_compact_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    c_verify(assurance_c_verify_compact, payload, root, leaf_count)
}

/// The C core's `cp_verify`, version 1 (payload level).
pub fn c_payload(payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
    c_verify(assurance_c_verify, payload, root, leaf_count)
}

/// One of the C core's payload verifiers, `cp_verify` or `cc_verify`, through its shim.
fn c_verify(
    verify: unsafe extern "C" fn(*const u8, u64, u64, *const u8) -> i32,
    payload: &[u8],
    root: &[u8; 32],
    leaf_count: u64,
) -> i8 {
    // SAFETY: the C core reads at most `len` bytes of `payload` and 32 of `root`.
    let rc = unsafe {
        verify(
            payload.as_ptr(),
            payload.len() as u64,
            leaf_count,
            root.as_ptr(),
        )
    };
    rc as i8
}

/// `mmr_lock::load::load_args` on `args` with `deps` as the transaction's cell deps: the args
/// themselves, or by reference the one accumulator's data.
fn rust_args<'a>(args: &'a [u8], deps: &[CellDep<'a>]) -> Result<mmr_lock::LockArgs<'a>, i8> {
    use mmr_lock::reference::{find_accumulator, Dep};
    let reference = match mmr_lock::parse_args(args).map_err(|e| e.code())? {
        mmr_lock::Args::Direct(a) => return Ok(a),
        mmr_lock::Args::ByReference(r) => r,
    };
    let index = find_accumulator(reference.type_hash, |i, out: &mut [u8; 32]| {
        Ok(match deps.get(i) {
            Some(CellDep {
                type_hash: Some(hash),
                ..
            }) => {
                *out = *hash;
                Dep::Typed
            }
            Some(_) => Dep::Untyped,
            None => Dep::End,
        })
    })
    .map_err(|e| e.code())?;
    let data = deps.get(index).map_or(&[][..], |d| d.data);
    mmr_lock::parse_accumulator(data, reference.mode).map_err(|e| e.code())
}

/// Both Rust contracts' flow after the loads: args (1, 2, 8; by reference 90-92, 8), witness
/// missing (3), too large (4), `WitnessArgs` (5, 6), then the payload.
pub(crate) fn rust_lock(
    args: &[u8],
    witness: Option<&[u8]>,
    deps: &[CellDep],
    payload: impl FnOnce(&[u8], &mmr_lock::LockArgs) -> i8,
) -> i8 {
    let a = match rust_args(args, deps) {
        Ok(a) => a,
        Err(code) => return code,
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

/// The baseline contract (`contracts/baseline-verifier`) on these args and witness 0, in a
/// transaction whose only cell dep is its code ([`CODE_DEP_ONLY`]).
pub fn baseline_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    baseline_lock_with_deps(args, witness, CODE_DEP_ONLY)
}

/// [`baseline_lock`] with the given cell deps (by reference: the accumulator among them).
pub fn baseline_lock_with_deps(args: &[u8], witness: Option<&[u8]>, deps: &[CellDep]) -> i8 {
    rust_lock(args, witness, deps, |p, a| {
        baseline_payload(p, a.root, a.mmr_size, a.leaf_count)
    })
}

/// The compiled Rust contract (`contracts/compiled-verifier`), on version 2 payloads.
pub fn compiled_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    compiled_lock_with_deps(args, witness, CODE_DEP_ONLY)
}

/// [`compiled_lock`] with the given cell deps.
pub fn compiled_lock_with_deps(args: &[u8], witness: Option<&[u8]>, deps: &[CellDep]) -> i8 {
    rust_lock(args, witness, deps, |p, a| {
        compact_payload(p, a.root, a.leaf_count)
    })
}

/// The C contract (`contracts/c-verifier/verifier.c`), on version 2 payloads.
pub fn c_lock(args: &[u8], witness: Option<&[u8]>) -> i8 {
    c_lock_with_deps(args, witness, CODE_DEP_ONLY)
}

/// [`c_lock`] with the given cell deps.
pub fn c_lock_with_deps(args: &[u8], witness: Option<&[u8]>, deps: &[CellDep]) -> i8 {
    let (ptr, len, has) = match witness {
        Some(w) => (w.as_ptr(), w.len() as u64, 1),
        None => (core::ptr::null(), 0, 0),
    };
    // The contract's args sit in its 256-byte script buffer, writable and with room for the
    // accumulator's 41 bytes to be loaded over them by reference.
    let mut writable = args.to_vec();
    writable.resize(args.len().max(mmr_lock::OWNER_ARGS_LEN), 0);
    let ffi: Vec<CellDepFfi> = deps
        .iter()
        .map(|d| CellDepFfi {
            typed: d.type_hash.is_some() as i32,
            type_hash: d.type_hash.unwrap_or([0; 32]),
            data: d.data.as_ptr(),
            data_len: d.data.len() as u64,
        })
        .collect();
    // SAFETY: the C core reads at most `args_len` bytes of args and writes at most `room`,
    // reads at most `witness_len` bytes of the witness, `dep_count` deps and `data_len`
    // bytes of each dep's data.
    let rc = unsafe {
        assurance_c_lock(
            writable.as_mut_ptr(),
            args.len() as u64,
            writable.len() as u64,
            ptr,
            len,
            has,
            ffi.as_ptr(),
            ffi.len() as u64,
        )
    };
    rc as i8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{mmr::Mmr, model};

    #[test]
    fn by_reference_codes_agree() {
        // An honest proof of leaf 1 of a three-leaf MMR, in both formats; the accumulator
        // holds that MMR's root || mmr_size (its plain args).
        let mmr = Mmr::build(&[[1; 32], [2; 32], [3; 32]]);
        let baseline = model::witness_args(&model::honest_baseline(&mmr, &[1]));
        let compiled = model::witness_args(&crate::compact::honest(&mmr, &[1]));
        let codes = |args: &[u8], deps: &[CellDep]| {
            [
                baseline_lock_with_deps(args, Some(&baseline), deps),
                compiled_lock_with_deps(args, Some(&compiled), deps),
                c_lock_with_deps(args, Some(&compiled), deps),
            ]
        };
        let data = mmr.args();
        let mut newer = data.clone();
        newer[0] ^= 1;
        let mut non_canonical = data.clone();
        non_canonical[32..].copy_from_slice(&5u64.to_le_bytes());
        let longer = [&data[..], &[0]].concat();
        let acc = [0xac; 32];
        let mut other = acc;
        other[31] ^= 1;
        let args = |flags: u8| [&acc[..], &[flags]].concat();
        let dep = |hash: Option<[u8; 32]>, data: &'static [u8]| CellDep {
            type_hash: hash,
            data,
        };
        let leak = |v: &Vec<u8>| -> &'static [u8] { Box::leak(v.clone().into_boxed_slice()) };
        let (data, newer, non_canonical, longer) = (
            leak(&data),
            leak(&newer),
            leak(&non_canonical),
            leak(&longer),
        );
        let code = dep(None, &[]);
        let honest = [code, dep(Some(acc), data)];
        // The owner step is not part of these adapters: owner mode (0x03) verifies as 0x02.
        for flags in [0x02, 0x03] {
            assert_eq!(codes(&args(flags), &honest), [0; 3], "{flags:#x}");
        }
        let cases: Vec<(u8, Vec<CellDep>, i8)> = vec![
            (0x02, vec![code], 90),
            (0x02, vec![], 90),
            (0x02, vec![code, dep(Some(other), data)], 90),
            (
                0x02,
                vec![dep(Some(acc), data), code, dep(Some(acc), data)],
                91,
            ),
            (0x02, vec![dep(Some(acc), &data[..39])], 92),
            (0x02, vec![dep(Some(acc), longer)], 92),
            (0x02, vec![dep(Some(acc), &[])], 92),
            (0x02, vec![dep(Some(acc), non_canonical)], 8),
            (0x02, vec![dep(Some(acc), newer)], 9),
            (0x01, honest.to_vec(), 2),
            (0x06, honest.to_vec(), 2),
        ];
        for (flags, deps, code) in cases {
            assert_eq!(codes(&args(flags), &deps), [code; 3], "{flags:#x} {deps:?}");
        }
        // Lengths other than 33, 40 and 41.
        for len in [0usize, 32, 34, 39, 42] {
            assert_eq!(codes(&vec![0x02; len], &honest), [1; 3], "len {len}");
        }
        // The plain args still verify with any cell deps.
        assert_eq!(codes(&mmr.args(), &honest), [0; 3]);
    }
}
