//! The compiled verifiers' version 2 core (`compiled_proof::compact`), run natively with the
//! reference hash, in its contract's plain and by-reference lock flow; deliberately broken
//! copies of it (the searches' negative controls); and the hook where the C core's compact
//! verifier plugs in.
//!
//! The lock flow is `native.rs`'s, the one its `compiled_lock` runs; here the payload check
//! is the variant under search.

use crate::native::{CellDep, RefHasher};

/// A payload-level core: the exit code (0 = accepted) for `payload` against (`root`,
/// `leaf_count`).
pub type CoreFn = fn(&[u8], &[u8; 32], u64) -> i8;

/// The C core's compact verifier (`contracts/c-verifier/compact_proof.h` over FFI), compared
/// code for code with the Rust core on every payload of the compact search.
pub const C_COMPACT_CORE: Option<CoreFn> = Some(crate::native::c_compact_payload);

/// `compiled_proof::compact::verify` (payload level).
pub use crate::native::compact_payload as rust_payload;

/// The verifier under search: the core, or a copy with one check removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Core,
    /// Accepts whenever the walk succeeds: the computed root is never compared (the shape
    /// of the Parity 2026 bug, a verifier's output left unchecked).
    NoRootCompare,
    /// Ignores bytes after the last item the walk takes (the Hyperbridge 2026 class).
    IgnoresTrailing,
    /// Reads overlong varints (a last group of zero) as their value: more than one encoding
    /// per proof.
    LaxVarints,
}

impl Variant {
    /// The code of this variant for a payload.
    pub fn payload(self, payload: &[u8], root: &[u8; 32], leaf_count: u64) -> i8 {
        match self {
            Variant::Core => rust_payload(payload, root, leaf_count),
            Variant::NoRootCompare => {
                compiled_proof::compact::compute_root::<RefHasher>(payload, leaf_count)
                    .map_or_else(|e| e.code(), |_| 0)
            }
            Variant::IgnoresTrailing => {
                // Cut one byte at a time while the core says "trailing bytes".
                let mut len = payload.len();
                loop {
                    let c = rust_payload(&payload[..len], root, leaf_count);
                    if c != 45 || len == 0 {
                        return c;
                    }
                    len -= 1;
                }
            }
            Variant::LaxVarints => rust_payload(&canonical_varints(payload), root, leaf_count),
        }
    }
}

/// `payload` with its header and index varints re-encoded canonically where they are overlong
/// (zero high groups, at most 8 bytes read); anything else left as is.
fn canonical_varints(payload: &[u8]) -> Vec<u8> {
    let Some((&version, rest)) = payload.split_first() else {
        return payload.to_vec();
    };
    let mut out = vec![version];
    let mut at = 0;
    let mut read = |out: &mut Vec<u8>| -> Option<u64> {
        let mut v = 0u64;
        for i in 0..8 {
            let b = *rest.get(at + i)?;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                at += i + 1;
                out.extend(crate::compact_model::varint(v));
                return Some(v);
            }
        }
        None
    };
    let Some(n) = read(&mut out) else {
        return payload.to_vec();
    };
    for _ in 0..n.min(rest.len() as u64) {
        if read(&mut out).is_none() {
            return payload.to_vec();
        }
    }
    out.extend_from_slice(&rest[at..]);
    out
}

/// The compiled contract's flow (`contracts/compiled-verifier`, version 2) on these args,
/// witness 0 and cell deps: args (1, 2, 8; by reference 90-92, 8), witness missing (3), too
/// large (4), `WitnessArgs` (5, 6), then the payload through `variant`. Owner mode is not
/// modelled (the searches spend plain and by-reference args).
pub fn lock_with_deps(
    variant: Variant,
    args: &[u8],
    witness: Option<&[u8]>,
    deps: &[CellDep],
) -> i8 {
    crate::native::rust_lock(args, witness, deps, |p, a| {
        variant.payload(p, a.root, a.leaf_count)
    })
}

/// [`lock_with_deps`] of the core.
pub fn rust_lock_with_deps(args: &[u8], witness: Option<&[u8]>, deps: &[CellDep]) -> i8 {
    lock_with_deps(Variant::Core, args, witness, deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lax_varints_rewrites_only_overlong_encodings() {
        let p = [0x02, 0x81, 0x00, 0x80, 0x00, 0x05, 0xaa];
        assert_eq!(canonical_varints(&p), [0x02, 0x01, 0x00, 0x05, 0xaa]);
        let q = [0x02, 0x01, 0x03, 0xaa];
        assert_eq!(canonical_varints(&q), q);
    }
}
