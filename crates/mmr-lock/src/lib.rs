//! Lock-level plumbing shared by every MMR verifier: the args (40-byte plain mode, 41-byte
//! owner mode), the strict `WitnessArgs` parse, the canonical `mmr_size` check, the owner
//! check and the lock-level exit codes. Everything except [`load`] is plain `no_std` code so
//! the host tests exercise the exact bytes-in, code-out behaviour the contracts have.
#![no_std]

#[cfg(feature = "ckb")]
pub mod load;
#[cfg(feature = "ckb")]
mod no_heap;
#[cfg(feature = "ckb")]
pub use no_heap::NoHeap;
pub mod mmr;
pub mod owner;
pub mod witness;

/// Lock-level rejections, shared by all three verifiers (the C verifier mirrors the values).
/// Codes 1-19 belong here, and owner mode's 80-89; see docs/error-codes.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i8)]
pub enum LockError {
    ArgsLength = 1,
    ArgsEncoding = 2,
    WitnessMissing = 3,
    WitnessTooLarge = 4,
    WitnessEncoding = 5,
    LockFieldMissing = 6,
    Syscall = 7,
    MmrSizeInvalid = 8,
    RootMismatch = 9,
    /// The baseline verifier's heap ran out (its only heap user; unreachable for witnesses
    /// within `MAX_WITNESS_SIZE`).
    OutOfMemory = 10,
    /// Owner mode: the proof is valid, but no input of the transaction other than the cells
    /// locked by this very script has a lock script hash equal to one of the proved leaves.
    OwnerNotFound = 80,
}

impl LockError {
    pub const fn code(self) -> i8 {
        self as i8
    }
}

/// Plain-mode script args: the MMR root followed by mmr_size as u64 little endian.
pub const ARGS_LEN: usize = 40;

/// Owner-mode script args: the plain args followed by one flags byte equal to [`FLAG_OWNER`].
pub const OWNER_ARGS_LEN: usize = 41;

/// The only accepted value of the flags byte of 41-byte args: owner mode.
pub const FLAG_OWNER: u8 = 0x01;

/// Largest witness we load. Larger witnesses are rejected, never truncated.
pub const MAX_WITNESS_SIZE: usize = 65536;

/// What the lock requires besides a valid proof (docs/deploy.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// 40-byte args: the proof alone unlocks (replayable once seen; README, security model).
    Plain,
    /// 41-byte args with flags `0x01`: after the proof verifies, some input of the transaction
    /// that is not locked by this script must have a lock script hash equal to a proved leaf
    /// ([`owner::find_owner`]).
    Owner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockArgs<'a> {
    /// Borrowed from the args (no copy).
    pub root: &'a [u8; 32],
    pub mmr_size: u64,
    /// Number of leaves of the MMR, derived from (and proving canonical) `mmr_size`.
    pub leaf_count: u64,
    pub mode: Mode,
}

/// Parses and validates the script args, in this order: the length (40 or 41 bytes, else
/// `ArgsLength`), the flags byte of 41-byte args (exactly [`FLAG_OWNER`], else
/// `ArgsEncoding`), then the canonical mmr_size (`MmrSizeInvalid`).
pub fn parse_args(args: &[u8]) -> Result<LockArgs<'_>, LockError> {
    let (fixed, mode) = match args.split_first_chunk::<ARGS_LEN>() {
        Some((fixed, [])) => (fixed, Mode::Plain),
        Some((fixed, [FLAG_OWNER])) => (fixed, Mode::Owner),
        Some((_, [_])) => return Err(LockError::ArgsEncoding),
        _ => return Err(LockError::ArgsLength),
    };
    let (root, size) = fixed.split_at(32);
    // 40 = 32 + 8: both conversions always succeed; the fallbacks only keep panics out.
    let root = root.first_chunk::<32>().ok_or(LockError::ArgsLength)?;
    let mmr_size = u64::from_le_bytes(*size.first_chunk::<8>().ok_or(LockError::ArgsLength)?);
    let leaf_count = mmr::leaf_count(mmr_size).ok_or(LockError::MmrSizeInvalid)?;
    Ok(LockArgs {
        root,
        mmr_size,
        leaf_count,
        mode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_modes_and_codes() {
        let mut args = [0u8; 42];
        args[32] = 4; // mmr_size 4: 3 leaves
        let plain = parse_args(&args[..40]).unwrap();
        assert_eq!(
            (plain.mode, plain.leaf_count, plain.mmr_size),
            (Mode::Plain, 3, 4)
        );
        assert_eq!(plain.root, &[0; 32]);
        let mut owner_args = args;
        owner_args[40] = FLAG_OWNER;
        let owner = parse_args(&owner_args[..41]).unwrap();
        assert_eq!(
            owner,
            LockArgs {
                mode: Mode::Owner,
                ..plain
            }
        );
        args[40] = FLAG_OWNER;
        for len in [0, 1, 32, 39, 42] {
            assert_eq!(
                parse_args(&args[..len]),
                Err(LockError::ArgsLength),
                "len {len}"
            );
        }
        for flags in [0x00u8, 0x02, 0x03, 0x80, 0x81, 0xff] {
            args[40] = flags;
            assert_eq!(
                parse_args(&args[..41]),
                Err(LockError::ArgsEncoding),
                "{flags:#x}"
            );
        }
        // The flags byte is checked before mmr_size: a bad flag wins over a bad size.
        args[32] = 5;
        assert_eq!(parse_args(&args[..41]), Err(LockError::ArgsEncoding));
        args[40] = FLAG_OWNER;
        assert_eq!(parse_args(&args[..41]), Err(LockError::MmrSizeInvalid));
        assert_eq!(parse_args(&args[..40]), Err(LockError::MmrSizeInvalid));
    }
}
