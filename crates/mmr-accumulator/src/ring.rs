//! The accumulator ring (spec: `docs/accumulator.md`, section 7): a head and K snapshot
//! cells under one accumulator type script with 33-byte args `type_id || K`.
//!
//! ```text
//! snapshot  (40 bytes)          root || mmr_size (u64 LE)
//! head      (40 + 8 (K - 1))    root || mmr_size || older[K - 1] (u64 LE each, oldest first)
//! ```
//!
//! A cell's role is its data length. Each rule of the spec is its own function, so a search
//! can compose the core minus one rule; [`verify_ring`] composes them in the fixed order
//! (rules 1, 3, 4, the tag's fit of rule 5, and 6). Rule 0 (args, [`ring_k`]), rule 2 (the
//! type id) and loading the witness are the contract's, around it. No heap.

use crate::{split_data, tag, verify_creation, verify_update, Error, Merge, Workspace};
use crate::{COMMITMENT_LEN, HASH_LEN};

/// The smallest K (snapshots) a ring may have.
pub const MIN_K: u8 = 2;
/// The largest K.
pub const MAX_K: u8 = 32;
/// Bytes of a snapshot's data: the accumulator's state.
pub const SNAPSHOT_LEN: usize = COMMITMENT_LEN;
/// Bytes of a ring's args: the type id and K.
pub const RING_ARGS_LEN: usize = HASH_LEN + 1;
/// The longest head (K = 32).
pub const MAX_HEAD_LEN: usize = head_len(MAX_K);

/// Bytes of the head's data for `k` snapshots: `40 + 8 (k - 1)` (`k` at least 1).
pub const fn head_len(k: u8) -> usize {
    SNAPSHOT_LEN + 8 * (k as usize).saturating_sub(1)
}

/// Rule 0: `None` for 32-byte args (the single accumulator), `Some(K)` for a ring's 33 bytes
/// with K in `MIN_K..=MAX_K` (else -100 `RingArgs`); any other length 118 `ArgsLength`.
pub fn ring_k(args: &[u8]) -> Result<Option<u8>, Error> {
    match args.len() {
        HASH_LEN => Ok(None),
        RING_ARGS_LEN => match args[HASH_LEN] {
            k @ MIN_K..=MAX_K => Ok(Some(k)),
            _ => Err(Error::RingArgs),
        },
        _ => Err(Error::ArgsLength),
    }
}

/// One cell of the group, as the rules see it: its data and its lock's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingCell<'a> {
    pub data: &'a [u8],
    pub lock_hash: &'a [u8; 32],
}

/// The transaction's kind, from the group's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// No input, K + 1 outputs: `CREATE` or `IMPORT`.
    Creation,
    /// The head and the oldest snapshot in, two out: `APPEND` or `EXTEND`.
    Step,
    /// The whole ring in and out: `KEEP`.
    Keep,
}

/// Rule 1: the shape from the group's input and output counts.
pub fn shape(k: u8, inputs: usize, outputs: usize) -> Result<Shape, Error> {
    let whole = usize::from(k) + 1;
    match (inputs, outputs) {
        (0, o) if o == whole => Ok(Shape::Creation),
        (2, 2) => Ok(Shape::Step),
        (i, o) if i == whole && o == whole => Ok(Shape::Keep),
        (i, 0) if i >= 1 => Err(Error::DestroyRefused),
        _ => Err(Error::RingShape),
    }
}

/// Rule 3 on one side: every cell 40 bytes or the head's length, exactly one head when the
/// side is not empty (else -102 `RingRoles`). The head's index, `None` for an empty side.
pub fn roles(k: u8, cells: &[RingCell]) -> Result<Option<usize>, Error> {
    let head = head_len(k);
    let mut found = None;
    for (i, cell) in cells.iter().enumerate() {
        match cell.data.len() {
            SNAPSHOT_LEN => {}
            len if len == head && found.is_none() => found = Some(i),
            _ => return Err(Error::RingRoles),
        }
    }
    match (found, cells.is_empty()) {
        (None, false) => Err(Error::RingRoles),
        (found, _) => Ok(found),
    }
}

/// Rule 2's index before rule 3 has run: the first cell of the head's length (the type id is
/// computed over its output index). `None`: rule 3 will refuse the side (-102).
pub fn head_candidate(k: u8, cells: &[RingCell]) -> Option<usize> {
    cells.iter().position(|c| c.data.len() == head_len(k))
}

/// The head's `older` list, 8 bytes an entry (empty when `head` is shorter than a snapshot).
fn older(head: &[u8]) -> &[u8] {
    head.get(SNAPSHOT_LEN..).unwrap_or(&[])
}

/// The state part of a cell: its first 40 bytes (all of a snapshot's data).
fn state(data: &[u8]) -> &[u8] {
    data.get(..SNAPSHOT_LEN).unwrap_or(data)
}

/// The cell `i` of a side whose roles passed; a wrong index is a roles error, never a panic.
fn cell<'a>(cells: &[RingCell<'a>], i: usize) -> Result<RingCell<'a>, Error> {
    cells.get(i).copied().ok_or(Error::RingRoles)
}

/// Rule 4, creation (roles passed, `head` the outputs' head): the head's `older` is K - 1
/// copies of its size (-105), every snapshot equals the head's state (-104), every output's
/// lock is the head's (-106).
pub fn check_creation(k: u8, outputs: &[RingCell], head: usize) -> Result<(), Error> {
    let h = *outputs.get(head).ok_or(Error::RingRoles)?;
    let d = h.data;
    if d.len() != head_len(k) {
        return Err(Error::RingRoles);
    }
    let size = &d[HASH_LEN..SNAPSHOT_LEN];
    if d[SNAPSHOT_LEN..].chunks_exact(8).any(|s| s != size) {
        return Err(Error::RingSizesMismatch);
    }
    let state = &d[..SNAPSHOT_LEN];
    for (i, c) in outputs.iter().enumerate() {
        if i != head && c.data != state {
            return Err(Error::SnapshotMismatch);
        }
    }
    if outputs.iter().any(|c| c.lock_hash != h.lock_hash) {
        return Err(Error::RingLockMismatch);
    }
    Ok(())
}

/// Rule 4, `APPEND`/`EXTEND` (2 -> 2, roles passed): the consumed snapshot is the oldest
/// (-103), the head's `older` is shifted by one with the input's size last (-105), the
/// snapshot output holds the head output's state (-104), and the head's lock, the head
/// output's and the snapshot output's are one (-106).
pub fn check_step(
    inputs: &[RingCell],
    head_in: usize,
    outputs: &[RingCell],
    head_out: usize,
) -> Result<(), Error> {
    let (hi, si) = pair(inputs, head_in)?;
    let (ho, so) = pair(outputs, head_out)?;
    let (h, o, n) = (hi.data, ho.data, hi.data.len());
    if n < head_len(MIN_K) || o.len() != n || si.data.len() != SNAPSHOT_LEN {
        return Err(Error::RingRoles);
    }
    if si.data[HASH_LEN..] != h[SNAPSHOT_LEN..SNAPSHOT_LEN + 8] {
        return Err(Error::RingNotOldest);
    }
    if o[SNAPSHOT_LEN..n - 8] != h[SNAPSHOT_LEN + 8..] || o[n - 8..] != h[HASH_LEN..SNAPSHOT_LEN] {
        return Err(Error::RingSizesMismatch);
    }
    if so.data != &o[..SNAPSHOT_LEN] {
        return Err(Error::SnapshotMismatch);
    }
    if ho.lock_hash != hi.lock_hash || so.lock_hash != ho.lock_hash {
        return Err(Error::RingLockMismatch);
    }
    Ok(())
}

/// A two-cell side as (head, snapshot).
fn pair<'a>(cells: &[RingCell<'a>], head: usize) -> Result<(RingCell<'a>, RingCell<'a>), Error> {
    match (cells, head) {
        ([h, s], 0) | ([s, h], 1) => Ok((*h, *s)),
        _ => Err(Error::RingRoles),
    }
}

/// Rule 4, `KEEP` (K + 1 -> K + 1, roles passed): the n-th output's data is the n-th input's
/// (-104), every output's lock is the head output's (-106).
pub fn check_keep(inputs: &[RingCell], outputs: &[RingCell], head_out: usize) -> Result<(), Error> {
    if inputs.len() != outputs.len() {
        return Err(Error::RingShape);
    }
    if inputs.iter().zip(outputs).any(|(i, o)| i.data != o.data) {
        return Err(Error::SnapshotMismatch);
    }
    let lock = cell(outputs, head_out)?.lock_hash;
    if outputs.iter().any(|c| c.lock_hash != lock) {
        return Err(Error::RingLockMismatch);
    }
    Ok(())
}

/// Rule 5's fit: a known tag on another shape's transaction is -101 `RingShape`; an empty
/// payload or an unknown tag 114 `UnknownTransition`, as for the single accumulator.
pub fn check_tag(shape: Shape, payload: &[u8]) -> Result<(), Error> {
    let fits = match (payload.first(), shape) {
        (Some(&(tag::CREATE | tag::IMPORT)), Shape::Creation)
        | (Some(&(tag::APPEND | tag::EXTEND)), Shape::Step)
        | (Some(&tag::KEEP), Shape::Keep) => true,
        (Some(&(tag::CREATE..=tag::KEEP)), _) => false,
        _ => return Err(Error::UnknownTransition),
    };
    if fits {
        Ok(())
    } else {
        Err(Error::RingShape)
    }
}

/// What rules 1, 3 and 4 found: the shape and the heads' indexes on each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring {
    pub shape: Shape,
    /// The head input's group index (`None` at creation): its witness holds the payload.
    pub head_in: Option<usize>,
    /// The head output's group index (at creation, its witness holds the payload).
    pub head_out: usize,
}

/// Rules 1, 3 and 4, everything about the cells (the contract reads the witness after these).
pub fn check_cells(k: u8, inputs: &[RingCell], outputs: &[RingCell]) -> Result<Ring, Error> {
    let shape = shape(k, inputs.len(), outputs.len())?;
    let head_in = roles(k, inputs)?;
    let head_out = roles(k, outputs)?.ok_or(Error::RingRoles)?;
    match (shape, head_in) {
        (Shape::Creation, None) => check_creation(k, outputs, head_out)?,
        (Shape::Step, Some(hi)) => check_step(inputs, hi, outputs, head_out)?,
        (Shape::Keep, Some(_)) => check_keep(inputs, outputs, head_out)?,
        _ => return Err(Error::RingShape),
    }
    Ok(Ring {
        shape,
        head_in,
        head_out,
    })
}

/// Rule 5's fit and rule 6: the payload of today's transitions, with old = the head input's
/// state and new = the head output's.
pub fn check_payload<M: Merge>(
    ws: &mut Workspace,
    ring: &Ring,
    inputs: &[RingCell],
    outputs: &[RingCell],
    payload: &[u8],
) -> Result<(), Error> {
    check_tag(ring.shape, payload)?;
    let new = state(cell(outputs, ring.head_out)?.data);
    match ring.head_in {
        None => verify_creation::<M>(ws, payload, new),
        Some(hi) => verify_update::<M>(ws, payload, state(cell(inputs, hi)?.data), new),
    }
}

/// Rules 1, 3, 4, 5 (the tag's fit) and 6 in order, the first failure deciding: everything
/// but the args, the type id and loading the witness (the contract's syscalls).
pub fn verify_ring<M: Merge>(
    ws: &mut Workspace,
    k: u8,
    inputs: &[RingCell],
    outputs: &[RingCell],
    payload: &[u8],
) -> Result<(), Error> {
    let ring = check_cells(k, inputs, outputs)?;
    check_payload::<M>(ws, &ring, inputs, outputs, payload)
}

/// A head's state and `older` sizes (host and tests): `None` unless `head` is a head for K.
pub fn split_head(
    k: u8,
    head: &[u8],
) -> Option<((&[u8; 32], u64), impl Iterator<Item = u64> + '_)> {
    if head.len() != head_len(k) {
        return None;
    }
    let state = split_data(state(head)).ok()?;
    let older = older(head)
        .chunks_exact(8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])));
    Some((state, older))
}

/// Host builders of ring cells (feature `std`).
#[cfg(feature = "std")]
pub mod build {
    use super::{head_len, older, RingCell, SNAPSHOT_LEN};
    use crate::{Commitment, Error, HASH_LEN};
    use std::vec::Vec;

    /// One side of a transaction as the rules see it: each cell's data with its lock's hash.
    pub fn cells<'a>(data: &'a [Vec<u8>], locks: &'a [[u8; 32]]) -> Vec<RingCell<'a>> {
        data.iter()
            .zip(locks)
            .map(|(d, l)| RingCell {
                data: d,
                lock_hash: l,
            })
            .collect()
    }

    /// A head's data: the state, then `older` (oldest first).
    pub fn head_data(state: &Commitment, older: &[u64]) -> Vec<u8> {
        let mut out = state.to_bytes().to_vec();
        for size in older {
            out.extend_from_slice(&size.to_le_bytes());
        }
        out
    }

    /// A creation's K + 1 output data, the head first, then the K snapshots.
    pub fn creation_data(k: u8, state: &Commitment) -> Vec<Vec<u8>> {
        let older = std::vec![state.mmr_size; usize::from(k) - 1];
        let mut out = std::vec![head_data(state, &older)];
        out.extend((0..k).map(|_| state.to_bytes().to_vec()));
        out
    }

    /// One `APPEND`/`EXTEND` step from the head input's data to `new`: the size of the
    /// snapshot to consume (`older[0]`), the head output's data, the snapshot output's data.
    pub fn step_data(head_in: &[u8], new: &Commitment) -> Result<(u64, Vec<u8>, Vec<u8>), Error> {
        let olds = older(head_in);
        if head_in.len() < head_len(2) || !olds.len().is_multiple_of(8) {
            return Err(Error::RingRoles);
        }
        let oldest = u64::from_le_bytes(olds[..8].try_into().map_err(|_| Error::RingRoles)?);
        let mut head = new.to_bytes().to_vec();
        head.extend_from_slice(&olds[8..]);
        head.extend_from_slice(&head_in[HASH_LEN..SNAPSHOT_LEN]);
        Ok((oldest, head, new.to_bytes().to_vec()))
    }
}
