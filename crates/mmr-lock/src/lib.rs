//! Lock-level plumbing shared by every MMR verifier: the 40-byte args, the strict
//! `WitnessArgs` parse, the canonical `mmr_size` check and the lock-level exit codes.
//! Everything except [`load`] is plain `no_std` code so the host tests exercise the
//! exact bytes-in, code-out behaviour the contracts have.
#![no_std]

#[cfg(feature = "ckb")]
pub mod load;
pub mod mmr;
pub mod witness;

/// Lock-level rejections, shared by all three verifiers (the C verifier mirrors the values).
/// Codes 1-19 belong here; see docs/error-codes.md.
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
}

impl LockError {
    pub const fn code(self) -> i8 {
        self as i8
    }
}

/// Script args: the MMR root followed by mmr_size as u64 little endian.
pub const ARGS_LEN: usize = 40;

/// Largest witness we load. Larger witnesses are rejected, never truncated.
pub const MAX_WITNESS_SIZE: usize = 65536;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockArgs {
    pub root: [u8; 32],
    pub mmr_size: u64,
    /// Number of leaves of the MMR, derived from (and proving canonical) `mmr_size`.
    pub leaf_count: u64,
}

/// Parses and validates the script args.
pub fn parse_args(args: &[u8]) -> Result<LockArgs, LockError> {
    let args: &[u8; ARGS_LEN] = args.try_into().map_err(|_| LockError::ArgsLength)?;
    let mut root = [0u8; 32];
    root.copy_from_slice(&args[..32]);
    let mut size = [0u8; 8];
    size.copy_from_slice(&args[32..]);
    let mmr_size = u64::from_le_bytes(size);
    let leaf_count = mmr::leaf_count(mmr_size).ok_or(LockError::MmrSizeInvalid)?;
    Ok(LockArgs {
        root,
        mmr_size,
        leaf_count,
    })
}
