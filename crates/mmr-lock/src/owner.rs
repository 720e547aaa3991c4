//! Owner mode (docs/deploy.md): after the proof verifies, the transaction must also spend a
//! cell whose lock script hash is one of the proved leaves. The owner's own lock then decides
//! (typically a signature over the whole transaction), so a proof copied out of a pending
//! transaction cannot be replayed with other outputs.
//!
//! The rule, exactly as all three verifiers implement it:
//! - inputs are visited in order, `Source::Input` index 0, 1, ... until the loader reports
//!   the end (`IndexOutOfBound`); only inputs count (never outputs, cell deps or headers);
//! - an input whose lock script hash equals this script's own hash is skipped: a cell locked
//!   by this very lock (the MMR cell, or another cell of its script group) is never its own
//!   owner, or the bare proof would unlock it again;
//! - any other input whose lock hash equals *any* proved leaf value accepts;
//! - the end of the inputs without a match is [`LockError::OwnerNotFound`] (80); a failing
//!   loader (any syscall error but the end) is its error, `Syscall` (7) in the contracts.
//!
//! Comparisons are of whole 32-byte values; the loop is the same in `contracts/c-verifier/mmr_lock.h`.

use crate::LockError;

/// Runs the owner check. `leaves` yields the proved leaf values (it is called once per
/// visited input, so it must yield the same values each time); `input_lock_hash(i, out)`
/// writes the lock script hash of input `i` to `out` and returns `true`, or returns `false`
/// past the last input.
pub fn find_owner<'a, F, I, L>(
    leaves: F,
    own_hash: &[u8; 32],
    mut input_lock_hash: L,
) -> Result<(), LockError>
where
    F: Fn() -> I,
    I: Iterator<Item = &'a [u8; 32]>,
    L: FnMut(usize, &mut [u8; 32]) -> Result<bool, LockError>,
{
    let mut hash = [0u8; 32];
    let mut index = 0usize;
    while input_lock_hash(index, &mut hash)? {
        if !same(&hash, own_hash) && leaves().any(|leaf| same(leaf, &hash)) {
            return Ok(());
        }
        // The number of inputs of a transaction is far below usize::MAX.
        index = index.wrapping_add(1);
    }
    Err(LockError::OwnerNotFound)
}

/// Whole-value equality, with a one-byte early out: nearly every leaf differs from a given
/// hash in its first byte, so the full compare runs about once per 256 leaves.
#[inline(always)]
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a[0] == b[0] && a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: [u8; 32] = [0xaa; 32];

    fn run(leaves: &[[u8; 32]], inputs: &[[u8; 32]]) -> Result<(), LockError> {
        find_owner(
            || leaves.iter(),
            &OWN,
            |i, out: &mut [u8; 32]| match inputs.get(i) {
                Some(hash) => {
                    *out = *hash;
                    Ok(true)
                }
                None => Ok(false),
            },
        )
    }

    #[test]
    fn owner_found_among_inputs() {
        let owner = [1u8; 32];
        let other = [2u8; 32];
        assert_eq!(run(&[owner], &[OWN, owner]), Ok(()));
        assert_eq!(run(&[other, owner], &[owner, OWN]), Ok(()));
        assert_eq!(
            run(&[other, [3; 32], owner], &[OWN, [9; 32], owner]),
            Ok(())
        );
    }

    #[test]
    fn owner_missing_rejected() {
        let owner = [1u8; 32];
        assert_eq!(run(&[owner], &[OWN]), Err(LockError::OwnerNotFound));
        assert_eq!(run(&[owner], &[]), Err(LockError::OwnerNotFound));
        assert_eq!(
            run(&[owner], &[OWN, [2; 32]]),
            Err(LockError::OwnerNotFound)
        );
        // A hash that differs in one byte is no owner.
        let mut near = owner;
        near[31] ^= 1;
        assert_eq!(run(&[owner], &[OWN, near]), Err(LockError::OwnerNotFound));
    }

    #[test]
    fn own_lock_never_counts() {
        // Even when this script's own hash is a proved leaf, its cells are no owners.
        assert_eq!(run(&[OWN], &[OWN, OWN]), Err(LockError::OwnerNotFound));
        assert_eq!(run(&[OWN, [1; 32]], &[OWN, [1; 32]]), Ok(()));
    }

    #[test]
    fn loader_errors_propagate_in_order() {
        let owner = [1u8; 32];
        let leaves = [owner];
        let failing = |i: usize, out: &mut [u8; 32]| match i {
            0 => {
                *out = OWN;
                Ok(true)
            }
            _ => Err(LockError::Syscall),
        };
        assert_eq!(
            find_owner(|| leaves.iter(), &OWN, failing),
            Err(LockError::Syscall)
        );
        // A match before the failing index accepts without reaching it.
        let later_failing = |i: usize, out: &mut [u8; 32]| match i {
            0 => {
                *out = owner;
                Ok(true)
            }
            _ => Err(LockError::Syscall),
        };
        assert_eq!(find_owner(|| leaves.iter(), &OWN, later_failing), Ok(()));
    }
}
