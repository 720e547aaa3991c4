//! The compiled MMR proof format (spec: `docs/compiled-format.md`).
//!
//! A payload is a 4-byte leaf count, the leaf records (u64 LE leaf index + 32-byte value) and
//! a stream of one-byte commands, three of which carry a 32-byte proof item inline. It is
//! verified in one forward pass over the borrowed bytes, on a fixed stack of
//! [`STACK_CAPACITY`] entries: no heap, no copies of proof items, no loops over heights or
//! positions, and every rejection is a distinct [`FormatError`] code in 40..=79 (plus the
//! lock-level `RootMismatch`, 9).
//!
//! The hash is a type parameter ([`Merge`]) so host tests use `blake2b-rs` and the contract
//! uses its specialised kernel.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
mod compile;
#[cfg(feature = "std")]
pub use compile::{compile, encode, Command, CompileError};

/// The node hash: `merge(left, right)` written to `out`. For CKB this is blake2b-256 with
/// personalization `ckb-default-hash` over `left || right`.
pub trait Merge {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]);
}

/// Command opcodes.
pub mod op {
    /// Push the next leaf record as node `(index, 0)`.
    pub const LEAF: u8 = 0x01;
    /// Replace the two top nodes (left sibling below, right on top) by their parent.
    pub const MERGE: u8 = 0x02;
    /// `+ 32-byte item`: replace the top node by its parent, the item being its sibling.
    pub const PROOF: u8 = 0x03;
    /// The top node, exactly the current peak, becomes a finished peak.
    pub const PEAK: u8 = 0x04;
    /// `+ 32-byte item`: the item is the current peak (a peak without proved leaves).
    pub const PEAK_PROOF: u8 = 0x05;
    /// `+ 32-byte item`: the item is the bagging of all remaining (>= 2) peaks.
    pub const BAG_RHS: u8 = 0x06;
}

/// Stack entries. An honest proof needs at most 50 (see the spec, section 3).
pub const STACK_CAPACITY: usize = 64;
/// `leaf_count` must be below this: `mmr_size <= 2^50` implies `leaf_count <= 2^49 + 1`.
pub const LEAF_COUNT_LIMIT: u64 = 1 << 50;
/// Bytes of the header (u32 LE number of leaf records).
pub const HEADER_LEN: usize = 4;
/// Bytes of one leaf record: u64 LE leaf index, 32-byte value.
pub const LEAF_RECORD_LEN: usize = 40;
/// Bytes of a proof item operand.
pub const ITEM_LEN: usize = 32;

/// Rejections of the compiled format, in the numbering of `docs/error-codes.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i8)]
pub enum FormatError {
    /// The well-formed proof's root differs from the expected root (lock code 9).
    RootMismatch = 9,
    LeafCountInvalid = 40,
    HeaderTruncated = 41,
    NoLeaves = 42,
    LeavesTruncated = 43,
    UnknownCommand = 44,
    TrailingBytes = 45,
    ItemTruncated = 46,
    StackOverflow = 47,
    LeavesExhausted = 48,
    LeafIndexOutOfRange = 49,
    LeafIndexNotAscending = 50,
    LeafOutsidePeak = 51,
    ProofNoNode = 52,
    ProofOverPeak = 53,
    MergeNoNodes = 54,
    MergeHeightMismatch = 55,
    MergeNotSiblings = 56,
    PeakNoNode = 57,
    PeakPendingNodes = 58,
    PeakMismatch = 59,
    PeakProofPendingNodes = 60,
    BagRhsPendingNodes = 61,
    BagRhsTooFewPeaks = 62,
    PeaksIncomplete = 63,
    LeavesUnconsumed = 64,
}

impl FormatError {
    /// The script exit code.
    pub const fn code(self) -> i8 {
        self as i8
    }
}

/// One stack entry. The hash of a node of height `h` lives in `hash[h & 1]`, so every hash
/// step writes the parent into the other half of the same slot: no aliasing, no copy.
/// Finished peaks pushed from an item (`PEAK_PROOF`, `BAG_RHS`) have height 0.
#[derive(Clone, Copy)]
struct Entry {
    hash: [[u8; 32]; 2],
    first: u64,
    height: u32,
}

impl Entry {
    const EMPTY: Entry = Entry {
        hash: [[0; 32]; 2],
        first: 0,
        height: 0,
    };

    #[inline(always)]
    fn hash(&self) -> &[u8; 32] {
        &self.hash[(self.height & 1) as usize]
    }
}

/// The verifier's working memory (about 5 KiB). [`verify`] and [`compute_root`] put one on
/// the call stack; a contract may keep one in a `static` and use [`compute_root_with`] to
/// skip its initialisation. Its contents between calls do not matter.
pub struct Stack {
    entries: [Entry; STACK_CAPACITY],
}

impl Stack {
    pub const fn new() -> Self {
        Stack {
            entries: [Entry::EMPTY; STACK_CAPACITY],
        }
    }
}

impl Default for Stack {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks the payload against `root` for an MMR of `leaf_count` leaves (from
/// `mmr_lock::mmr::leaf_count(mmr_size)`).
pub fn verify<M: Merge>(
    payload: &[u8],
    root: &[u8; 32],
    leaf_count: u64,
) -> Result<(), FormatError> {
    verify_with::<M>(&mut Stack::new(), payload, root, leaf_count)
}

/// [`verify`] on caller-provided working memory.
pub fn verify_with<M: Merge>(
    stack: &mut Stack,
    payload: &[u8],
    root: &[u8; 32],
    leaf_count: u64,
) -> Result<(), FormatError> {
    let computed = compute_root_with::<M>(stack, payload, leaf_count)?;
    if &computed != root {
        return Err(FormatError::RootMismatch);
    }
    Ok(())
}

/// Runs steps 1-8 of the spec and returns the bagged root.
pub fn compute_root<M: Merge>(payload: &[u8], leaf_count: u64) -> Result<[u8; 32], FormatError> {
    compute_root_with::<M>(&mut Stack::new(), payload, leaf_count)
}

/// Splits the header and the leaves section off the payload (steps 2-4 of the spec).
#[inline(always)]
fn split_payload(payload: &[u8]) -> Result<(&[u8], &[u8]), FormatError> {
    let (header, rest) = payload
        .split_first_chunk::<HEADER_LEN>()
        .ok_or(FormatError::HeaderTruncated)?;
    let n = u32::from_le_bytes(*header);
    if n == 0 {
        return Err(FormatError::NoLeaves);
    }
    // n < 2^32, so 40 * n < 2^38: no overflow in u64; a length that does not fit usize
    // cannot be available either.
    let leaves_len = u64::from(n) * LEAF_RECORD_LEN as u64;
    let leaves_len = usize::try_from(leaves_len).map_err(|_| FormatError::LeavesTruncated)?;
    rest.split_at_checked(leaves_len)
        .ok_or(FormatError::LeavesTruncated)
}

/// The leaf records of a payload, for callers that inspect the leaves (for example an owner
/// binding) after or before verification. Only the header is checked here (codes 41-43).
pub fn leaves(payload: &[u8]) -> Result<Leaves<'_>, FormatError> {
    let (records, _) = split_payload(payload)?;
    Ok(Leaves { records })
}

/// Iterator over `(leaf index, value)` of the leaf records, in payload order.
#[derive(Clone)]
pub struct Leaves<'a> {
    records: &'a [u8],
}

impl<'a> Iterator for Leaves<'a> {
    type Item = (u64, &'a [u8; 32]);

    fn next(&mut self) -> Option<Self::Item> {
        let (record, rest) = self.records.split_first_chunk::<LEAF_RECORD_LEN>()?;
        self.records = rest;
        Some(split_record(record))
    }
}

#[inline(always)]
fn split_record(record: &[u8; LEAF_RECORD_LEN]) -> (u64, &[u8; 32]) {
    // 8 + 32 = 40: both splits always succeed and the fallbacks are folded away; they only
    // keep the code free of panics.
    const ZERO: [u8; 32] = [0; 32];
    match record.split_first_chunk::<8>() {
        Some((index, value)) => (
            u64::from_le_bytes(*index),
            value.first_chunk::<32>().unwrap_or(&ZERO),
        ),
        None => (u64::MAX, &ZERO),
    }
}

/// [`compute_root`] on caller-provided working memory.
///
/// Arithmetic: `leaf_count < 2^50`, leaf indexes are checked `< leaf_count` and every node
/// lies inside its peak, so `first < 2^50` and heights are at most 49; the wrapping
/// operations below can therefore never wrap (spec section 3).
pub fn compute_root_with<M: Merge>(
    stack: &mut Stack,
    payload: &[u8],
    leaf_count: u64,
) -> Result<[u8; 32], FormatError> {
    use FormatError::*;

    // 1.
    if leaf_count == 0 || leaf_count >= LEAF_COUNT_LIMIT {
        return Err(LeafCountInvalid);
    }
    // 2.-5.
    let (mut leaves, mut cmds) = split_payload(payload)?;
    let entries = &mut stack.entries;
    let mut depth: usize = 0;
    let mut base: usize = 0;

    // Current peak: the highest set bit of `rem`. `leaf_count - rem` is the sum of the higher
    // bits of leaf_count, i.e. the start of the peak.
    let mut rem = leaf_count;
    let mut peak_h = 63 - rem.leading_zeros();
    let mut peak_start: u64 = 0;
    let mut peak_end = 1u64 << peak_h;
    let mut next_min: u64 = 0;

    // 6. Inside this loop `rem != 0`; the commands that account for the last peak leave it.
    'run: loop {
        let Some((&opcode, rest)) = cmds.split_first() else {
            return Err(PeaksIncomplete);
        };
        cmds = rest;
        match opcode {
            op::LEAF => {
                let Some(entry) = entries.get_mut(depth) else {
                    return Err(StackOverflow);
                };
                let Some((record, rest)) = leaves.split_first_chunk::<LEAF_RECORD_LEN>() else {
                    return Err(LeavesExhausted);
                };
                leaves = rest;
                let (index, value) = split_record(record);
                if index >= leaf_count {
                    return Err(LeafIndexOutOfRange);
                }
                if index < next_min {
                    return Err(LeafIndexNotAscending);
                }
                if index >= peak_end {
                    return Err(LeafOutsidePeak);
                }
                next_min = index.wrapping_add(1);
                entry.first = index;
                entry.height = 0;
                entry.hash[0] = *value;
                depth = depth.wrapping_add(1);
            }
            op::MERGE => {
                if depth < base.wrapping_add(2) {
                    return Err(MergeNoNodes);
                }
                // depth >= 2 here; the fallbacks are unreachable.
                let Some((lower, upper)) = entries.split_at_mut_checked(depth.wrapping_sub(1))
                else {
                    return Err(MergeNoNodes);
                };
                let (Some(left), Some(right)) = (lower.last_mut(), upper.first()) else {
                    return Err(MergeNoNodes);
                };
                let h = left.height;
                if right.height != h {
                    return Err(MergeHeightMismatch);
                }
                let bit = 1u64.wrapping_shl(h);
                if left.first & bit != 0 || right.first != left.first.wrapping_add(bit) {
                    return Err(MergeNotSiblings);
                }
                let [even, odd] = &mut left.hash;
                let r = &right.hash[(h & 1) as usize];
                if h & 1 == 0 {
                    M::merge(even, r, odd);
                } else {
                    M::merge(odd, r, even);
                }
                left.height = h.wrapping_add(1);
                depth = depth.wrapping_sub(1);
            }
            op::PROOF => {
                let Some((item, rest)) = cmds.split_first_chunk::<ITEM_LEN>() else {
                    return Err(ItemTruncated);
                };
                cmds = rest;
                if depth == base {
                    return Err(ProofNoNode);
                }
                let Some(top) = entries.get_mut(depth.wrapping_sub(1)) else {
                    return Err(ProofNoNode);
                };
                let h = top.height;
                if h == peak_h {
                    return Err(ProofOverPeak);
                }
                let bit = 1u64.wrapping_shl(h);
                let left_child = top.first & bit == 0;
                let [even, odd] = &mut top.hash;
                let (node, out) = if h & 1 == 0 {
                    (&*even, odd)
                } else {
                    (&*odd, even)
                };
                if left_child {
                    M::merge(node, item, out);
                } else {
                    M::merge(item, node, out);
                }
                top.first &= !bit;
                top.height = h.wrapping_add(1);
            }
            op::PEAK => {
                if depth == base {
                    return Err(PeakNoNode);
                }
                if depth.wrapping_sub(base) > 1 {
                    return Err(PeakPendingNodes);
                }
                let Some(top) = entries.get(depth.wrapping_sub(1)) else {
                    return Err(PeakNoNode);
                };
                if top.height != peak_h || top.first != peak_start {
                    return Err(PeakMismatch);
                }
                base = depth;
                rem ^= 1u64.wrapping_shl(peak_h);
                if rem == 0 {
                    break 'run;
                }
                peak_h = 63 - rem.leading_zeros();
                peak_start = peak_end;
                peak_end = peak_start.wrapping_add(1u64.wrapping_shl(peak_h));
                next_min = peak_start;
            }
            op::PEAK_PROOF => {
                let Some((item, rest)) = cmds.split_first_chunk::<ITEM_LEN>() else {
                    return Err(ItemTruncated);
                };
                cmds = rest;
                if depth != base {
                    return Err(PeakProofPendingNodes);
                }
                // depth == base <= 49: unreachable fallback.
                let Some(entry) = entries.get_mut(depth) else {
                    return Err(StackOverflow);
                };
                entry.hash[0] = *item;
                entry.height = 0;
                depth = depth.wrapping_add(1);
                base = depth;
                rem ^= 1u64.wrapping_shl(peak_h);
                if rem == 0 {
                    break 'run;
                }
                peak_h = 63 - rem.leading_zeros();
                peak_start = peak_end;
                peak_end = peak_start.wrapping_add(1u64.wrapping_shl(peak_h));
                next_min = peak_start;
            }
            op::BAG_RHS => {
                let Some((item, rest)) = cmds.split_first_chunk::<ITEM_LEN>() else {
                    return Err(ItemTruncated);
                };
                cmds = rest;
                if depth != base {
                    return Err(BagRhsPendingNodes);
                }
                if rem.count_ones() < 2 {
                    return Err(BagRhsTooFewPeaks);
                }
                let Some(entry) = entries.get_mut(depth) else {
                    return Err(StackOverflow);
                };
                entry.hash[0] = *item;
                entry.height = 0;
                depth = depth.wrapping_add(1);
                break 'run;
            }
            _ => return Err(UnknownCommand),
        }
    }

    // 6.2 / 7.
    if !cmds.is_empty() {
        return Err(TrailingBytes);
    }
    if !leaves.is_empty() {
        return Err(LeavesUnconsumed);
    }
    // 8. The stack holds exactly the finished peaks, left to right; bag from the right.
    let Some((last, others)) = entries.get(..depth).and_then(|peaks| peaks.split_last()) else {
        return Err(PeaksIncomplete);
    };
    let mut acc = *last.hash();
    let mut out = [0u8; 32];
    for peak in others.iter().rev() {
        M::merge(&acc, peak.hash(), &mut out);
        acc = out;
    }
    Ok(acc)
}
