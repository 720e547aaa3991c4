//! By-reference mode (docs/deploy.md): the lock follows an accumulator, a cell made unique by
//! its type script, whose data is the MMR's `root || mmr_size`. The args name the
//! accumulator by its type script hash; the spender adds the accumulator as a cell dep.
//!
//! The lookup, exactly as all three verifiers implement it:
//! - cell deps are visited in order, `Source::CellDep` index 0, 1, ... until the loader reports
//!   the end (`IndexOutOfBound`); a dep without a type script never matches;
//! - a dep whose type script hash equals the args' 32 bytes matches; a second match is
//!   [`LockError::AccumulatorAmbiguous`] (91) at once, the rest is not visited;
//! - the end without a match is [`LockError::AccumulatorNotFound`] (90); a failing loader
//!   (any syscall error but the end or a missing type script) is its error, `Syscall` (7).
//!
//! Then the matching dep's data goes through [`crate::parse_accumulator`]. The lock trusts
//! whatever the type script lets into such a cell: the type hash is the whole identity, so a
//! cell with the same data under any other type script (other args, other code) is ignored.
//! The loop is the same in `contracts/c-verifier/lock_common.h`.

use crate::LockError;

/// What the loader found at one cell dep index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dep {
    /// The dep has a type script; its hash was written to the loader's output.
    Typed,
    /// The dep has no type script (`ItemMissing`): it can never be the accumulator.
    Untyped,
    /// Past the last cell dep.
    End,
}

/// Finds the index of the one cell dep whose type script hash is `type_hash`.
/// `dep_type_hash(i, out)` reports dep `i` and, for [`Dep::Typed`], writes its type hash.
pub fn find_accumulator<L>(type_hash: &[u8; 32], mut dep_type_hash: L) -> Result<usize, LockError>
where
    L: FnMut(usize, &mut [u8; 32]) -> Result<Dep, LockError>,
{
    let mut hash = [0u8; 32];
    let mut found = None;
    let mut index = 0usize;
    loop {
        match dep_type_hash(index, &mut hash)? {
            Dep::End => break,
            Dep::Typed if same(&hash, type_hash) => {
                if found.is_some() {
                    return Err(LockError::AccumulatorAmbiguous);
                }
                found = Some(index);
            }
            Dep::Typed | Dep::Untyped => {}
        }
        // The number of cell deps of a transaction is far below usize::MAX.
        index = index.wrapping_add(1);
    }
    found.ok_or(LockError::AccumulatorNotFound)
}

/// Whole-hash equality: one byte first (a non-matching type hash nearly always differs
/// there), then four word loads a side and their XORs, where `==` on the arrays calls memcmp
/// (about 490 cycles for 32 equal bytes in CKB-VM).
#[inline(always)]
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let (x, y) = (mmr_blake2b::load_words(a), mmr_blake2b::load_words(b));
    a[0] == b[0] && ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACC: [u8; 32] = [0xac; 32];

    /// `deps[i]`: `Some(hash)` a typed dep, `None` an untyped one.
    fn run(deps: &[Option<[u8; 32]>]) -> Result<usize, LockError> {
        find_accumulator(&ACC, |i, out: &mut [u8; 32]| match deps.get(i) {
            Some(Some(hash)) => {
                *out = *hash;
                Ok(Dep::Typed)
            }
            Some(None) => Ok(Dep::Untyped),
            None => Ok(Dep::End),
        })
    }

    #[test]
    fn exactly_one_match() {
        let code = Some([0x01; 32]);
        assert_eq!(run(&[Some(ACC)]), Ok(0));
        assert_eq!(run(&[code, None, Some(ACC)]), Ok(2));
        assert_eq!(run(&[Some(ACC), None, code]), Ok(0));
    }

    #[test]
    fn none_or_several() {
        assert_eq!(run(&[]), Err(LockError::AccumulatorNotFound));
        assert_eq!(run(&[None, None]), Err(LockError::AccumulatorNotFound));
        let mut near = ACC;
        near[31] ^= 1;
        assert_eq!(
            run(&[Some(near), Some([0; 32])]),
            Err(LockError::AccumulatorNotFound)
        );
        // Every single bit counts, in every word.
        for bit in 0..256 {
            let mut near = ACC;
            near[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                run(&[Some(near)]),
                Err(LockError::AccumulatorNotFound),
                "{bit}"
            );
        }
        assert_eq!(
            run(&[Some(ACC), None, Some(ACC)]),
            Err(LockError::AccumulatorAmbiguous)
        );
        assert_eq!(
            run(&[Some(ACC), Some(ACC), Some(ACC)]),
            Err(LockError::AccumulatorAmbiguous)
        );
    }

    #[test]
    fn loader_errors_propagate_in_order() {
        let failing_at = |bad: usize| {
            find_accumulator(&ACC, move |i, out: &mut [u8; 32]| {
                if i == bad {
                    return Err(LockError::Syscall);
                }
                *out = ACC;
                Ok(Dep::Typed)
            })
        };
        assert_eq!(failing_at(0), Err(LockError::Syscall));
        // After one match the error still comes first...
        assert_eq!(failing_at(1), Err(LockError::Syscall));
        // ...but a second match decides before a later failure is reached.
        assert_eq!(failing_at(2), Err(LockError::AccumulatorAmbiguous));
    }
}
