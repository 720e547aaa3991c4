//! Lock-level plumbing shared by every MMR verifier: the args (40-byte plain mode, 41-byte
//! owner mode, 33-byte by-reference mode), the strict `WitnessArgs` parse, the canonical
//! `mmr_size` check, the accumulator lookup among the cell deps, the owner check and the
//! lock-level exit codes. Everything except [`load`] is plain `no_std` code so the host tests
//! exercise the exact bytes-in, code-out behaviour the contracts have.
#![no_std]

#[cfg(feature = "ckb")]
pub mod load;
#[cfg(feature = "ckb")]
mod no_heap;
#[cfg(feature = "ckb")]
pub use no_heap::{__ckb_std, NoHeap};
pub mod mmr;
pub mod owner;
pub mod reference;
pub mod witness;

/// Lock-level rejections, shared by all three verifiers (the C verifier mirrors the values).
/// Codes 1-19 belong here, owner mode's 80-89 and by-reference mode's 90-99; see
/// docs/error-codes.md.
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
    /// By reference: no cell dep has a type script whose hash is the args' 32 bytes.
    AccumulatorNotFound = 90,
    /// By reference: more than one cell dep has that type script hash.
    AccumulatorAmbiguous = 91,
    /// By reference: the accumulator's data is not exactly `root (32) || mmr_size (u64 LE)`.
    AccumulatorDataLength = 92,
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

/// Flags bit 0: owner mode. The only accepted value of the flags byte of 41-byte args.
pub const FLAG_OWNER: u8 = 0x01;

/// By-reference script args: the accumulator's type script hash followed by one flags byte,
/// [`FLAG_BY_REFERENCE`] or [`FLAG_BY_REFERENCE`] | [`FLAG_OWNER`].
pub const REF_ARGS_LEN: usize = 33;

/// Flags bit 1: the root and mmr_size come from the accumulator cell dep the args name.
pub const FLAG_BY_REFERENCE: u8 = 0x02;

/// The accumulator cell's data: `root (32) || mmr_size (u64 LE)`, nothing else.
pub const ACCUMULATOR_DATA_LEN: usize = 40;

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

/// By-reference args: which accumulator to follow, and what the lock requires besides the
/// proof. The root and mmr_size are read from the accumulator at run time
/// ([`reference::find_accumulator`], [`parse_accumulator`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference<'a> {
    /// The accumulator cell's type script hash, borrowed from the args.
    pub type_hash: &'a [u8; 32],
    pub mode: Mode,
}

/// The script args, parsed: the MMR itself, or a reference to the accumulator that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args<'a> {
    /// 40 or 41 bytes: root and mmr_size are in the args (mmr_size already checked).
    Direct(LockArgs<'a>),
    /// 33 bytes: root and mmr_size are in the accumulator cell dep.
    ByReference(Reference<'a>),
}

/// Parses and validates the script args, in this order: the length (40, 41 or 33 bytes, else
/// `ArgsLength`), the flags byte (41 bytes: exactly [`FLAG_OWNER`]; 33 bytes:
/// [`FLAG_BY_REFERENCE`] with or without [`FLAG_OWNER`]; else `ArgsEncoding`), then for 40 and
/// 41 bytes the canonical mmr_size (`MmrSizeInvalid`).
pub fn parse_args(args: &[u8]) -> Result<Args<'_>, LockError> {
    if args.len() < ARGS_LEN {
        parse_reference(args).map(Args::ByReference)
    } else {
        let (fixed, mode) = split_direct(args)?;
        lock_args(fixed, mode).map(Args::Direct)
    }
}

/// The length and flags checks of [`parse_args`] for args of at least 40 bytes (shorter ones
/// are `ArgsLength` here): the 40 bytes that hold root and mmr_size, and the mode.
#[inline(always)]
pub fn split_direct(args: &[u8]) -> Result<(&[u8; ARGS_LEN], Mode), LockError> {
    match args.split_first_chunk::<ARGS_LEN>() {
        Some((fixed, [])) => Ok((fixed, Mode::Plain)),
        Some((fixed, [FLAG_OWNER])) => Ok((fixed, Mode::Owner)),
        Some((_, [_])) => Err(LockError::ArgsEncoding),
        _ => Err(LockError::ArgsLength),
    }
}

/// Root and mmr_size from 40 bytes, the args' or the accumulator's: `MmrSizeInvalid` unless
/// mmr_size is canonical.
#[inline(always)]
pub fn lock_args(fixed: &[u8; ARGS_LEN], mode: Mode) -> Result<LockArgs<'_>, LockError> {
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

/// [`parse_args`] for args shorter than 40 bytes: exactly 33 with a by-reference flags byte,
/// or rejected.
pub fn parse_reference(args: &[u8]) -> Result<Reference<'_>, LockError> {
    const OWNER_BY_REFERENCE: u8 = FLAG_BY_REFERENCE | FLAG_OWNER;
    let (type_hash, mode) = match args.split_first_chunk::<32>() {
        Some((hash, [FLAG_BY_REFERENCE])) => (hash, Mode::Plain),
        Some((hash, [OWNER_BY_REFERENCE])) => (hash, Mode::Owner),
        Some((_, [_])) => return Err(LockError::ArgsEncoding),
        _ => return Err(LockError::ArgsLength),
    };
    Ok(Reference { type_hash, mode })
}

/// The length check of the accumulator cell's data: exactly [`ACCUMULATOR_DATA_LEN`] bytes
/// (`AccumulatorDataLength` otherwise), `root || mmr_size (u64 LE)`.
pub fn accumulator_fixed(data: &[u8]) -> Result<&[u8; ACCUMULATOR_DATA_LEN], LockError> {
    match data.split_first_chunk::<ACCUMULATOR_DATA_LEN>() {
        Some((fixed, [])) => Ok(fixed),
        _ => Err(LockError::AccumulatorDataLength),
    }
}

/// The accumulator cell's data as the MMR the lock verifies against: the length
/// ([`accumulator_fixed`]), then the same canonical mmr_size check as args
/// (`MmrSizeInvalid`). `mode` comes from the args.
pub fn parse_accumulator(data: &[u8], mode: Mode) -> Result<LockArgs<'_>, LockError> {
    lock_args(accumulator_fixed(data)?, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct_args(args: &[u8]) -> Result<LockArgs<'_>, LockError> {
        match parse_args(args)? {
            Args::Direct(a) => Ok(a),
            Args::ByReference(r) => panic!("{} bytes parsed as a reference {r:?}", args.len()),
        }
    }

    #[test]
    fn args_modes_and_codes() {
        let mut args = [0u8; 42];
        args[32] = 4; // mmr_size 4: 3 leaves
        let plain = direct_args(&args[..40]).unwrap();
        assert_eq!(
            (plain.mode, plain.leaf_count, plain.mmr_size),
            (Mode::Plain, 3, 4)
        );
        assert_eq!(plain.root, &[0; 32]);
        let mut owner_args = args;
        owner_args[40] = FLAG_OWNER;
        let owner = direct_args(&owner_args[..41]).unwrap();
        assert_eq!(
            owner,
            LockArgs {
                mode: Mode::Owner,
                ..plain
            }
        );
        args[40] = FLAG_OWNER;
        for len in [0, 1, 31, 32, 34, 39, 42] {
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

    #[test]
    fn by_reference_args() {
        let mut args = [0x77u8; 33];
        args[0] = 1;
        for (flags, mode) in [(0x02u8, Mode::Plain), (0x03, Mode::Owner)] {
            args[32] = flags;
            assert_eq!(
                parse_args(&args),
                Ok(Args::ByReference(Reference {
                    type_hash: args[..32].try_into().unwrap(),
                    mode,
                })),
                "{flags:#x}"
            );
        }
        // Every other flags value, bit 0 and bit 1 included on their own.
        for flags in (0..=255u8).filter(|f| !matches!(f, 0x02 | 0x03)) {
            args[32] = flags;
            assert_eq!(
                parse_args(&args),
                Err(LockError::ArgsEncoding),
                "{flags:#x}"
            );
        }
        // By-reference flags only mean something in 33-byte args.
        let mut long = [0u8; 41];
        long[32] = 1;
        for flags in [0x02u8, 0x03] {
            long[40] = flags;
            assert_eq!(parse_args(&long), Err(LockError::ArgsEncoding));
            assert_eq!(parse_args(&long[..32]), Err(LockError::ArgsLength));
            assert_eq!(
                parse_args(&[&long[..33], &[flags]].concat()),
                Err(LockError::ArgsLength)
            );
        }
    }

    #[test]
    fn accumulator_data() {
        let mut data = [0x11u8; 41];
        data[32..40].copy_from_slice(&5034u64.to_le_bytes());
        for mode in [Mode::Plain, Mode::Owner] {
            let a = parse_accumulator(&data[..40], mode).unwrap();
            assert_eq!(
                (a.root, a.mmr_size, a.leaf_count, a.mode),
                (&[0x11; 32], 5034, 2520, mode)
            );
        }
        for len in [0, 1, 32, 39, 41] {
            assert_eq!(
                parse_accumulator(&data[..len], Mode::Plain),
                Err(LockError::AccumulatorDataLength),
                "len {len}"
            );
        }
        let long = [&data[..], &[0; 100]].concat();
        assert_eq!(
            parse_accumulator(&long, Mode::Plain),
            Err(LockError::AccumulatorDataLength)
        );
        for size in [0u64, 2, 5, 5036, (1 << 50) + 1, u64::MAX] {
            data[32..40].copy_from_slice(&size.to_le_bytes());
            assert_eq!(
                parse_accumulator(&data[..40], Mode::Plain),
                Err(LockError::MmrSizeInvalid),
                "size {size}"
            );
        }
    }
}
