//! Syscall-backed loaders for contracts (feature `ckb`).

use crate::reference::{self, Dep};
use crate::{
    accumulator_fixed, lock_args, owner, parse_reference, split_direct, witness, LockArgs,
    LockError, Mode, ACCUMULATOR_DATA_LEN, ARGS_LEN, MAX_WITNESS_SIZE,
};
use ckb_std::ckb_constants::{CellField, Source};
use ckb_std::error::SysError;
use ckb_std::syscalls;

/// A `Script` with 40-byte args is 93 bytes (41-byte args: 94, 33-byte args: 86); anything
/// that does not fit here has args of the wrong length.
const SCRIPT_BUFFER: usize = 256;

fn read_u32(bytes: &[u8], at: usize) -> Option<usize> {
    let word = bytes.get(at..at + 4)?.first_chunk::<4>()?;
    Some(u32::from_le_bytes(*word) as usize)
}

/// Loads the running script and parses its args. CKB has already verified the `Script`
/// molecule, so only the `args` field (third field, a `Bytes`) is located. By-reference args
/// are followed to the accumulator cell dep, whose data then stands for the args.
pub fn load_args() -> Result<LockArgs<'static>, LockError> {
    // SAFETY: CKB scripts are single-threaded and this is the only place that touches
    // SCRIPT; contracts call it once, so no other reference to the buffer exists. Static,
    // in .bss, so it is not zeroed on every run like a stack array.
    let buf: &'static mut [u8; SCRIPT_BUFFER] = unsafe { &mut *core::ptr::addr_of_mut!(SCRIPT) };
    let len = match syscalls::load_script(buf, 0) {
        Ok(len) => len,
        Err(SysError::LengthNotEnough(_)) => return Err(LockError::ArgsLength),
        Err(_) => return Err(LockError::Syscall),
    };
    let script = &buf[..len];
    let args_offset = read_u32(script, 12).ok_or(LockError::Syscall)?;
    let args_len = read_u32(script, args_offset).ok_or(LockError::Syscall)?;
    let args = script
        .get(args_offset + 4..args_offset + 4 + args_len)
        .ok_or(LockError::Syscall)?;
    // `parse_args`, split so that the plain and owner paths compile as if by-reference mode
    // did not exist: args shorter than 40 bytes take one out-of-line call, which hands back
    // the accumulator's 40 bytes in place of the args' (a pointer and the mode, in registers).
    let (fixed, mode) = if args.len() < ARGS_LEN {
        follow(args)?
    } else {
        split_direct(args)?
    };
    lock_args(fixed, mode)
}

static mut SCRIPT: [u8; SCRIPT_BUFFER] = [0; SCRIPT_BUFFER];

static mut ACCUMULATOR: [u8; ACCUMULATOR_DATA_LEN] = [0; ACCUMULATOR_DATA_LEN];

/// Type script hash of cell dep `index` (`Source::CellDep`) into `out`.
fn dep_type_hash(index: usize, out: &mut [u8; 32]) -> Result<Dep, LockError> {
    match syscalls::load_cell_by_field(out, 0, index, Source::CellDep, CellField::TypeHash) {
        Ok(32) => Ok(Dep::Typed),
        Err(SysError::ItemMissing) => Ok(Dep::Untyped),
        Err(SysError::IndexOutOfBound) => Ok(Dep::End),
        _ => Err(LockError::Syscall),
    }
}

/// Args shorter than 40 bytes: by-reference args ([`parse_reference`]) name the one cell dep
/// with their type hash ([`reference`]), whose data, exactly 40 bytes ([`accumulator_fixed`]),
/// then stands for the args' root and mmr_size. Out of line and cold so that the plain and
/// owner paths, which never get here, keep their code and registers.
#[cold]
#[inline(never)]
fn follow(args: &[u8]) -> Result<(&'static [u8; ARGS_LEN], Mode), LockError> {
    let reference = parse_reference(args)?;
    let index = reference::find_accumulator(reference.type_hash, dep_type_hash)?;
    // SAFETY: CKB scripts are single-threaded and `load_args`, called once, is the only way
    // here, so no other reference to the buffer exists. Static so the returned root can
    // borrow it for the rest of the run.
    let buf: &'static mut [u8; ACCUMULATOR_DATA_LEN] =
        unsafe { &mut *core::ptr::addr_of_mut!(ACCUMULATOR) };
    // The buffer holds exactly the accepted length: longer data reports LengthNotEnough.
    let len = match syscalls::load_cell_data(buf, 0, index, Source::CellDep) {
        Ok(len) => len,
        Err(SysError::LengthNotEnough(_)) => return Err(LockError::AccumulatorDataLength),
        Err(_) => return Err(LockError::Syscall),
    };
    // Ok never reports more than the buffer holds; `get` only keeps panics out.
    let data: &'static [u8] = buf.get(..len).ok_or(LockError::Syscall)?;
    Ok((accumulator_fixed(data)?, reference.mode))
}

static mut WITNESS: [u8; MAX_WITNESS_SIZE] = [0; MAX_WITNESS_SIZE];

/// Loads the first witness of the script group in full into a static buffer (never a prefix)
/// and returns its `WitnessArgs.lock` bytes. The buffer is static so the proof can be borrowed
/// for the rest of the run without copies, and lives in .bss so it costs no load cycles.
///
/// Call once: a second call would overwrite the bytes the first returned.
pub fn load_lock_field() -> Result<&'static [u8], LockError> {
    // SAFETY: CKB scripts are single-threaded and this is the only place that touches
    // WITNESS; contracts call it once, so no other reference to the buffer exists.
    let buf: &'static mut [u8; MAX_WITNESS_SIZE] =
        unsafe { &mut *core::ptr::addr_of_mut!(WITNESS) };
    let len = match syscalls::load_witness(buf, 0, 0, Source::GroupInput) {
        Ok(len) => len,
        Err(SysError::LengthNotEnough(_)) => return Err(LockError::WitnessTooLarge),
        Err(SysError::IndexOutOfBound) => return Err(LockError::WitnessMissing),
        Err(_) => return Err(LockError::Syscall),
    };
    witness::lock_field(&buf[..len])
}

/// Lock script hash of input `index` (`Source::Input`) into `out`: `true`, or `false` past
/// the last input; any other outcome than exactly 32 bytes is `Syscall`.
fn input_lock_hash(index: usize, out: &mut [u8; 32]) -> Result<bool, LockError> {
    match syscalls::load_cell_by_field(out, 0, index, Source::Input, CellField::LockHash) {
        Ok(32) => Ok(true),
        Err(SysError::IndexOutOfBound) => Ok(false),
        _ => Err(LockError::Syscall),
    }
}

/// Owner mode's check ([`owner::find_owner`]) against the running transaction: this script's
/// hash from `load_script_hash`, the inputs' lock hashes from `load_cell_by_field`. Call it
/// only after the proof verified; `leaves` yields the proved leaf values.
#[inline(never)]
pub fn check_owner<'a, F, I>(leaves: F) -> Result<(), LockError>
where
    F: Fn() -> I,
    I: Iterator<Item = &'a [u8; 32]>,
{
    let mut own = [0u8; 32];
    if syscalls::load_script_hash(&mut own, 0) != Ok(32) {
        return Err(LockError::Syscall);
    }
    owner::find_owner(leaves, &own, input_lock_hash)
}
