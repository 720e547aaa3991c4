//! The ring's syscalls (docs/accumulator.md, section 7): the group's cells, their data
//! and lock hashes into static buffers, the type id over the head's output index at creation,
//! the witness at the head's group index; the rules are `mmr_accumulator::ring`'s.

use super::{check_type_id, exists, witness_field, workspace};
use ckb_std::ckb_constants::{CellField, Source};
use ckb_std::error::SysError;
use ckb_std::syscalls;
use compiled_proof::KernelMerge;
use core::mem::MaybeUninit;
use mmr_accumulator::ring::{self, RingCell, MAX_HEAD_LEN, MAX_K};
use mmr_accumulator::{witness, Error};

/// The most cells a side loads: the whole ring at K = 32.
const SIDE: usize = MAX_K as usize + 1;
/// One byte more than the longest head: a longer cell is loaded truncated to this length,
/// which no role has, so rule 3 refuses it (-102) in its turn.
const CELL_BUFFER: usize = MAX_HEAD_LEN + 1;

/// One side's cells: data, its length, lock hash.
struct Side {
    data: [[u8; CELL_BUFFER]; SIDE],
    len: [usize; SIDE],
    lock: [[u8; 32]; SIDE],
}

impl Side {
    const fn new() -> Side {
        Side {
            data: [[0; CELL_BUFFER]; SIDE],
            len: [0; SIDE],
            lock: [[0; 32]; SIDE],
        }
    }
}

// Static, in .bss: 20 KiB that cost nothing to load or zero.
static mut INPUTS: Side = Side::new();
static mut OUTPUTS: Side = Side::new();

/// Loads the data and lock hashes of the group's cells of `source`, up to K + 1: their count,
/// or K + 2 when a cell exists beyond (no shape has that many).
// Not inlined: one copy for both sides (every byte of the binary costs every run a quarter
// cycle to load).
#[inline(never)]
fn load(k: u8, source: Source, side: &mut Side) -> Result<usize, Error> {
    let whole = usize::from(k) + 1;
    for i in 0..whole {
        side.len[i] = match syscalls::load_cell_data(&mut side.data[i], 0, i, source) {
            Ok(len) => len,
            Err(SysError::LengthNotEnough(_)) => CELL_BUFFER,
            Err(SysError::IndexOutOfBound) => return Ok(i),
            Err(_) => return Err(Error::Syscall),
        };
        match syscalls::load_cell_by_field(&mut side.lock[i], 0, i, source, CellField::LockHash) {
            Ok(32) => {}
            _ => return Err(Error::Syscall),
        }
    }
    Ok(whole + usize::from(exists(whole, source)?))
}

/// The side's first `count` cells as the rules see them, written into `out` in place (no
/// array initialised or copied: that cost code on every run, the single accumulator's too).
#[inline(never)]
fn cells<'a>(
    side: &'a Side,
    count: usize,
    out: &'a mut [MaybeUninit<RingCell<'a>>; SIDE],
) -> &'a [RingCell<'a>] {
    let count = count.min(SIDE);
    for (i, cell) in out.iter_mut().enumerate().take(count) {
        cell.write(RingCell {
            data: &side.data[i][..side.len[i]],
            lock_hash: &side.lock[i],
        });
    }
    // SAFETY: the first `count` entries were written just above.
    unsafe { core::slice::from_raw_parts(out.as_ptr().cast::<RingCell<'a>>(), count) }
}

/// A ring's run: `k` is valid (rule 0 passed), `args` the 33 bytes.
#[inline(never)]
pub fn run(k: u8, args: &[u8]) -> Result<(), Error> {
    // SAFETY: single-threaded, and `run` is called once per script run: the only references.
    let (ins, outs) = unsafe {
        (
            &mut *core::ptr::addr_of_mut!(INPUTS),
            &mut *core::ptr::addr_of_mut!(OUTPUTS),
        )
    };
    let n_in = load(k, Source::GroupInput, ins)?;
    let n_out = load(k, Source::GroupOutput, outs)?;
    ring::shape(k, n_in, n_out)?;
    let mut in_cells = [MaybeUninit::uninit(); SIDE];
    let mut out_cells = [MaybeUninit::uninit(); SIDE];
    let ins = cells(ins, n_in, &mut in_cells);
    let outs = cells(outs, n_out, &mut out_cells);
    if n_in == 0 {
        // Creation. Rule 2 before rule 3: without a head-length output, rule 3 refuses.
        if let Some(head) = ring::head_candidate(k, outs) {
            check_type_id(args, head)?;
        }
    }
    let found = ring::check_cells(k, ins, outs)?;
    let payload = match found.head_in {
        None => witness_field(found.head_out, Source::GroupOutput, witness::OUTPUT_TYPE)?,
        Some(head) => witness_field(head, Source::GroupInput, witness::INPUT_TYPE)?,
    };
    ring::check_payload::<KernelMerge>(workspace(), &found, ins, outs, payload)
}
