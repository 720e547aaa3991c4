//! Type script of the MMR accumulator (docs/accumulator.md): args = a 32-byte type id, data =
//! root || mmr_size. Creation checks CKB's type-id rule and the `CREATE`/`IMPORT` payload in
//! `WitnessArgs.output_type`; an update (one group input, one group output) checks the
//! `APPEND`/`EXTEND`/`KEEP` payload in `input_type`; destroying is refused. 33-byte args
//! (type id || K) make the group a ring of a head and K snapshots ([`ring`],
//! docs/accumulator.md section 7). The transitions themselves are `mmr-accumulator`'s;
//! this file only does the syscalls. No heap.
#![no_std]
#![cfg_attr(not(test), no_main)]

mmr_lock::no_heap_entry!(program_entry);

use ckb_std::ckb_constants::{CellField, Source};
use ckb_std::error::SysError;
use ckb_std::syscalls;
use compiled_proof::KernelMerge;
use mmr_accumulator::{witness, Error, Workspace, COMMITMENT_LEN};

mod ring;

/// Largest witness loaded; longer ones are refused (124), never truncated.
const MAX_WITNESS_SIZE: usize = 65536;
/// A `Script` with 33-byte args is 86 bytes; anything that does not fit has args of the
/// wrong length.
const SCRIPT_BUFFER: usize = 96;
/// Where a `Script`'s args bytes start ([`load_args`]).
const ARGS_AT: usize = 53;
/// A `CellInput` (since u64, out point: tx hash 32, index u32) and the output index u64.
const TYPE_ID_PREIMAGE: usize = 44 + 8;

static mut WITNESS: [u8; MAX_WITNESS_SIZE] = [0; MAX_WITNESS_SIZE];
static mut SCRIPT: [u8; SCRIPT_BUFFER] = [0; SCRIPT_BUFFER];
static mut WORKSPACE: Workspace = Workspace::new();

/// Whether cell `index` of `source` exists: one syscall that copies nothing.
fn exists(index: usize, source: Source) -> Result<bool, Error> {
    match syscalls::load_cell_data(&mut [], 0, index, source) {
        Ok(_) | Err(SysError::LengthNotEnough(_)) => Ok(true),
        Err(SysError::IndexOutOfBound) => Ok(false),
        Err(_) => Err(Error::Syscall),
    }
}

/// The 40 bytes of data of cell 0 of `source`, `None` when there is no such cell.
fn data(source: Source, buf: &mut [u8; COMMITMENT_LEN]) -> Result<bool, Error> {
    match syscalls::load_cell_data(buf, 0, 0, source) {
        Ok(COMMITMENT_LEN) => Ok(true),
        Ok(_) | Err(SysError::LengthNotEnough(_)) => Err(Error::DataLength),
        Err(SysError::IndexOutOfBound) => Ok(false),
        Err(_) => Err(Error::Syscall),
    }
}

/// Field `field` of the `WitnessArgs` at the index of the group's cell `index` of `source`,
/// loaded in full into the static buffer.
fn witness_field(index: usize, source: Source, field: usize) -> Result<&'static [u8], Error> {
    // SAFETY: CKB scripts are single-threaded and this is called once per run, so this is the
    // only reference to WITNESS. Static, in .bss: no load cost, no zeroing.
    let buf: &'static mut [u8; MAX_WITNESS_SIZE] =
        unsafe { &mut *core::ptr::addr_of_mut!(WITNESS) };
    let len = match syscalls::load_witness(buf, 0, index, source) {
        Ok(len) => len,
        Err(SysError::LengthNotEnough(_)) => return Err(Error::WitnessTooLarge),
        Err(SysError::IndexOutOfBound) => return Err(Error::WitnessMissing),
        Err(_) => return Err(Error::Syscall),
    };
    witness::field(&buf[..len], field)
}

fn workspace() -> &'static mut Workspace {
    // SAFETY: single-threaded, and only one transition runs per script run.
    unsafe { &mut *core::ptr::addr_of_mut!(WORKSPACE) }
}

/// The script's args: 118 when they do not fit the buffer (no accumulator's or ring's args are
/// that long). CKB verified the `Script` molecule, a table of three fields: a 16-byte header,
/// code_hash (32), hash_type (1), then args as `Bytes` (u32 length, the bytes to the end), so
/// the args are the bytes from [`ARGS_AT`] to the script's length.
fn load_args() -> Result<&'static [u8], Error> {
    // SAFETY: single-threaded, called once per run: the only reference to SCRIPT. Static, in
    // .bss: no zeroing on every run.
    let script: &'static mut [u8; SCRIPT_BUFFER] = unsafe { &mut *core::ptr::addr_of_mut!(SCRIPT) };
    let len = match syscalls::load_script(script, 0) {
        Ok(len) => len,
        Err(SysError::LengthNotEnough(_)) => return Err(Error::ArgsLength),
        Err(_) => return Err(Error::Syscall),
    };
    script.get(ARGS_AT..len).ok_or(Error::Syscall)
}

/// CKB's type-id rule on creation: the type id (args' first 32 bytes) == blake2b(first input
/// || index among all outputs of the group's output `group_index`).
fn check_type_id(args: &[u8], group_index: usize) -> Result<(), Error> {
    let args = args.first_chunk::<32>().ok_or(Error::ArgsLength)?;
    let mut preimage = [0u8; TYPE_ID_PREIMAGE];
    match syscalls::load_input(&mut preimage[..44], 0, 0, Source::Input) {
        Ok(44) => {}
        _ => return Err(Error::Syscall),
    }
    let mut own = [0u8; 32];
    if syscalls::load_script_hash(&mut own, 0) != Ok(32) {
        return Err(Error::Syscall);
    }
    // The index among all outputs of the group's output `group_index`.
    let (mut index, mut seen) = (0usize, 0usize);
    loop {
        let mut hash = [0u8; 32];
        match syscalls::load_cell_by_field(&mut hash, 0, index, Source::Output, CellField::TypeHash)
        {
            Ok(32) if hash == own => {
                if seen == group_index {
                    break;
                }
                seen += 1;
                index += 1;
            }
            Ok(32) | Err(SysError::ItemMissing) => index += 1,
            // The group has that output, so the search cannot run past the last one.
            _ => return Err(Error::Syscall),
        }
    }
    preimage[44..].copy_from_slice(&(index as u64).to_le_bytes());
    // The compact hash: the unrolled one would add about 5 KB to every run's ELF for a hash
    // that only creation computes.
    if mmr_blake2b::ckb_blake2b_256_small(&preimage).as_ref() != Some(args) {
        return Err(Error::TypeIdMismatch);
    }
    Ok(())
}

fn run() -> Result<(), Error> {
    let args = load_args()?;
    if let Some(k) = mmr_accumulator::ring::ring_k(args)? {
        return ring::run(k, args);
    }
    if exists(1, Source::GroupInput)? {
        return Err(Error::GroupInputs);
    }
    if exists(1, Source::GroupOutput)? {
        return Err(Error::GroupOutputs);
    }
    let mut input = [0u8; COMMITMENT_LEN];
    let mut output = [0u8; COMMITMENT_LEN];
    let has_input = data(Source::GroupInput, &mut input)?;
    if !has_input {
        // Creation: the script runs only because the group has an output.
        check_type_id(args, 0)?;
        data(Source::GroupOutput, &mut output)?;
        let payload = witness_field(0, Source::GroupOutput, witness::OUTPUT_TYPE)?;
        return mmr_accumulator::verify_creation::<KernelMerge>(workspace(), payload, &output);
    }
    if !data(Source::GroupOutput, &mut output)? {
        return Err(Error::DestroyRefused);
    }
    let payload = witness_field(0, Source::GroupInput, witness::INPUT_TYPE)?;
    mmr_accumulator::verify_update::<KernelMerge>(workspace(), payload, &input, &output)
}

pub fn program_entry() -> i8 {
    match run() {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}
