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

use core::cell::Cell;

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

    /// When true, runs of `PROOF` commands hash through the word methods below, so a contract
    /// can keep the node's hash in registers from one step to the next and store it once.
    const WORDS: bool = false;

    /// `merge(left, right)` as four little-endian words.
    fn merge_to_words(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
        let mut out = [0u8; 32];
        Self::merge(left, right, &mut out);
        words_of(&out)
    }

    /// `merge(node, item)`, the node given as words.
    fn merge_words_left(node: [u64; 4], item: &[u8; 32]) -> [u64; 4] {
        Self::merge_to_words(&bytes_of(node), item)
    }

    /// `merge(item, node)`, the node given as words.
    fn merge_words_right(item: &[u8; 32], node: [u64; 4]) -> [u64; 4] {
        Self::merge_to_words(item, &bytes_of(node))
    }

    /// Writes a hash given as words.
    fn store_words(words: [u64; 4], out: &mut [u8; 32]) {
        *out = bytes_of(words);
    }

    /// A little-endian u64 from bytes of any alignment (a leaf record's index, a leaf).
    /// A contract may read it with one misaligned load where the portable form is eight
    /// byte loads.
    fn load_u64(bytes: &[u8; 8]) -> u64 {
        u64::from_le_bytes(*bytes)
    }

    /// The four little-endian words of a hash stored at 8-byte alignment (a stack slot).
    fn load_words_aligned(bytes: &[u8; 32]) -> [u64; 4] {
        words_of(bytes)
    }
}

/// The four little-endian words of a hash.
fn words_of(bytes: &[u8; 32]) -> [u64; 4] {
    let mut words = [0u64; 4];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    words
}

/// The hash whose little-endian words these are.
fn bytes_of(words: [u64; 4]) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    bytes
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

/// Set in `Entry::height` of finished peaks. A finished peak is never an operand of `PROOF`
/// or `MERGE`, and with this bit its height never equals the current peak height, so the
/// hash commands need no comparison against `base`.
const FINISHED: u64 = 64;

/// A 32-byte hash at 8-byte alignment, so that copying one in or out is four 64-bit loads
/// and stores (the payload's bytes have no alignment).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct Hash([u8; 32]);

/// One stack entry: a working node `(first, height)` or a finished peak (`FINISHED` set).
/// The hash of a node of height `h` is in `hash[slot::<M>(h)]`; leaves and peaks given as
/// items are copied in at height 0, slot 0. With a word-based merge (`Merge::WORDS`) the
/// slot is always 0: the kernel reads both inputs before the result is stored. Otherwise it
/// is `h & 1`, so every hash step writes the parent into the other half: no aliasing.
#[derive(Clone, Copy)]
struct Entry {
    hash: [Hash; 2],
    first: u64,
    height: u64,
}

impl Entry {
    const EMPTY: Entry = Entry {
        hash: [Hash([0; 32]); 2],
        first: 0,
        height: 0,
    };
}

/// The 32 bytes at offset `at` of the payload, if they exist.
#[inline(always)]
fn item_at(payload: &[u8], at: usize) -> Option<&[u8; 32]> {
    payload.get(at..)?.first_chunk::<ITEM_LEN>()
}

/// Which half of [`Entry::hash`] holds the hash of a node of height `h`.
#[inline(always)]
fn slot<M: Merge>(h: u64) -> usize {
    if M::WORDS {
        0
    } else {
        (h & 1) as usize
    }
}

/// The hash of a stack entry (see [`Entry`]).
#[inline(always)]
fn entry_hash<M: Merge>(entry: &Entry) -> &[u8; 32] {
    &entry.hash[slot::<M>(entry.height & !FINISHED)].0
}

/// Copies 32 payload bytes into a slot.
#[inline(always)]
fn copy_in<M: Merge>(bytes: &[u8; 32], out: &mut Hash) {
    M::store_words(load_words::<M>(bytes), &mut out.0);
}

/// The four little-endian words of 32 bytes, through the contract's loads.
#[inline(always)]
fn load_words<M: Merge>(bytes: &[u8; 32]) -> [u64; 4] {
    match bytes.as_chunks::<8>() {
        ([a, b, c, d], []) => [M::load_u64(a), M::load_u64(b), M::load_u64(c), M::load_u64(d)],
        // 32 = 4 x 8: folded away.
        _ => [0; 4],
    }
}

/// The two hash halves of an entry as (current, next) for a node of height `h`.
#[inline(always)]
fn halves(hash: &mut [Hash; 2], h: u64) -> (&mut Hash, &mut Hash) {
    let [even, odd] = hash;
    if h & 1 == 0 {
        (even, odd)
    } else {
        (odd, even)
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
    // Branch-free byte compare: cheaper than a memcmp call on the contract target.
    let diff = computed
        .iter()
        .zip(root.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 {
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
    let (index, value) = record_fields(record);
    (u64::from_le_bytes(*index), value)
}

/// A leaf record's index bytes and value.
#[inline(always)]
fn record_fields(record: &[u8; LEAF_RECORD_LEN]) -> (&[u8; 8], &[u8; 32]) {
    // 8 + 32 = 40: both splits always succeed and the fallbacks are folded away; they only
    // keep the code free of panics.
    const ZERO: [u8; 40] = [0; 40];
    let (index, value) = match record.split_first_chunk::<8>() {
        Some(fields) => fields,
        None => (&[0; 8], &ZERO[..]),
    };
    (index, value.first_chunk::<32>().unwrap_or(&[0; 32]))
}

/// State that only `LEAF` and the peak commands use. It lives in memory behind a shared
/// reference to `Cell`s, which the optimiser cannot keep in registers across the merge
/// calls: the registers of the hash loop ([`run_peak`]) stay free for the hot values.
struct Cursor {
    /// Offset of the next leaf record, and the end of the leaves section.
    leaf: Cell<usize>,
    leaves_end: usize,
    leaf_count: u64,
    next_min: Cell<u64>,
    peak_end: Cell<u64>,
    depth: Cell<usize>,
}

/// Runs `PROOF`, `LEAF` and `MERGE` commands from offset `pos` (spec 6.3-6.4 for these
/// three) and returns the offset of the first other opcode, or of the end of the payload,
/// without consuming it. Out of line so that its handful of live values stay in registers
/// across the merge calls.
///
/// Working nodes are the entries above the finished peaks; a finished peak has `FINISHED`
/// in its height, so "no working node on top" (P1, M1) is "no entry, or a finished one".
/// The top entry's `first` and `height` are kept in registers (`t_first`, `t_h`; `t_h` is
/// `FINISHED` for an empty stack) and written back when another entry is pushed and on exit.
///
/// A run of `PROOF`s on one node keeps one word, `x`, instead of `first` and the height:
/// bits `h..peak_h` of `first` (the node's side at each level, 1 = right child) over a marker
/// bit at `peak_h - h`. Each step reads the side from bit 0 and shifts; `x == 1` (only the
/// marker left) is `h == peak_h` (P2); the marker's position gives the height at the end.
/// With the remaining command bytes that is all the loop keeps across a merge, so under the
/// assembly kernel (which leaves the caller three registers) nothing goes through the stack.
#[inline(never)]
fn run_peak<M: Merge>(
    entries: &mut [Entry; STACK_CAPACITY],
    payload: &[u8],
    pos: usize,
    peak_h: u64,
    cursor: &Cursor,
) -> Result<usize, FormatError> {
    use FormatError::*;
    let mut rest = payload.get(pos..).unwrap_or_default();
    let mut depth = cursor.depth.get();
    let (mut t_first, mut t_h) = match entries.get(depth.wrapping_sub(1)) {
        Some(top) => (top.first, top.height),
        None => (0, FINISHED),
    };
    while let Some((&opcode, tail)) = rest.split_first() {
        if opcode == op::PROOF {
            if tail.len() < ITEM_LEN {
                return Err(ItemTruncated);
            }
            if t_h >= peak_h {
                // A working node never exceeds the peak height: only equality is possible.
                return Err(if t_h & FINISHED != 0 {
                    ProofNoNode
                } else {
                    ProofOverPeak
                });
            }
            // t_h < FINISHED: the top entry exists (unreachable fallback).
            let Some(top) = entries.get_mut(depth.wrapping_sub(1)) else {
                return Err(ProofNoNode);
            };
            // 1 <= peak_h - t_h <= 49.
            let marker = 1u64.wrapping_shl(peak_h.wrapping_sub(t_h) as u32);
            let mut x = (t_first.wrapping_shr(t_h as u32) & marker.wrapping_sub(1)) | marker;
            // The loops below take every PROOF of the run, this one included (its opcode is
            // read again). A PROOF with a short item ends the run and fails (46) above.
            if M::WORDS {
                let mut words = M::load_words_aligned(&top.hash[0].0);
                while let Some(([op::PROOF, item @ ..], tail)) =
                    rest.split_first_chunk::<{ 1 + ITEM_LEN }>()
                {
                    if x == 1 {
                        return Err(ProofOverPeak);
                    }
                    let right_child = x & 1 != 0;
                    x >>= 1;
                    rest = tail;
                    words = if right_child {
                        M::merge_words_right(item, words)
                    } else {
                        M::merge_words_left(words, item)
                    };
                }
                M::store_words(words, &mut top.hash[0].0);
            } else {
                // From memory to memory, alternating between the halves of the slot.
                let (a, b) = halves(&mut top.hash, t_h);
                loop {
                    let Some(([op::PROOF, item @ ..], tail)) =
                        rest.split_first_chunk::<{ 1 + ITEM_LEN }>()
                    else {
                        break;
                    };
                    if x == 1 {
                        return Err(ProofOverPeak);
                    }
                    merge_sided::<M>(x, &a.0, item, &mut b.0);
                    x >>= 1;
                    rest = tail;
                    let Some(([op::PROOF, item @ ..], tail)) =
                        rest.split_first_chunk::<{ 1 + ITEM_LEN }>()
                    else {
                        break;
                    };
                    if x == 1 {
                        return Err(ProofOverPeak);
                    }
                    merge_sided::<M>(x, &b.0, item, &mut a.0);
                    x >>= 1;
                    rest = tail;
                }
            }
            // x >= 1 always holds the marker.
            t_h = peak_h.wrapping_sub(u64::from(63 - x.leading_zeros()));
            t_first &= u64::MAX.wrapping_shl(t_h as u32);
        } else if opcode == op::LEAF {
            rest = tail;
            if depth >= STACK_CAPACITY {
                return Err(StackOverflow);
            }
            let at = cursor.leaf.get();
            if at >= cursor.leaves_end {
                return Err(LeavesExhausted);
            }
            let Some(record) = payload
                .get(at..)
                .and_then(<[u8]>::first_chunk::<LEAF_RECORD_LEN>)
            else {
                return Err(LeavesExhausted);
            };
            let (index, value) = record_fields(record);
            let index = M::load_u64(index);
            if index >= cursor.leaf_count {
                return Err(LeafIndexOutOfRange);
            }
            if index < cursor.next_min.get() {
                return Err(LeafIndexNotAscending);
            }
            if index >= cursor.peak_end.get() {
                return Err(LeafOutsidePeak);
            }
            cursor.next_min.set(index.wrapping_add(1));
            cursor.leaf.set(at.wrapping_add(LEAF_RECORD_LEN));
            if let Some(below) = entries.get_mut(depth.wrapping_sub(1)) {
                below.first = t_first;
                below.height = t_h;
            }
            // depth < STACK_CAPACITY: unreachable fallback.
            let Some(entry) = entries.get_mut(depth) else {
                return Err(StackOverflow);
            };
            copy_in::<M>(value, &mut entry.hash[0]);
            t_first = index;
            t_h = 0;
            depth = depth.wrapping_add(1);
        } else if opcode == op::MERGE {
            rest = tail;
            // Two working nodes: the lower one exists and is not a finished peak (finished
            // peaks are all below the working nodes). The upper one is the cached top.
            let Some([left, right]) = entries.get_mut(depth.wrapping_sub(2)..depth) else {
                return Err(MergeNoNodes);
            };
            let h = left.height;
            if h & FINISHED != 0 {
                return Err(MergeNoNodes);
            }
            if t_h != h {
                return Err(MergeHeightMismatch);
            }
            let bit = 1u64.wrapping_shl(h as u32);
            if left.first & bit != 0 || t_first != left.first.wrapping_add(bit) {
                return Err(MergeNotSiblings);
            }
            if M::WORDS {
                let words = M::merge_to_words(&left.hash[0].0, &right.hash[0].0);
                M::store_words(words, &mut left.hash[0].0);
            } else {
                let r = &right.hash[slot::<M>(h)];
                let (x, y) = halves(&mut left.hash, h);
                M::merge(&x.0, &r.0, &mut y.0);
            }
            t_first = left.first;
            t_h = h.wrapping_add(1);
            depth = depth.wrapping_sub(1);
        } else {
            break;
        }
    }
    if let Some(top) = entries.get_mut(depth.wrapping_sub(1)) {
        top.first = t_first;
        top.height = t_h;
    }
    cursor.depth.set(depth);
    Ok(payload.len().wrapping_sub(rest.len()))
}

/// `merge(node, item)` for a left child (bit 0 of `x` clear), else `merge(item, node)`.
#[inline(always)]
fn merge_sided<M: Merge>(x: u64, node: &[u8; 32], item: &[u8; 32], out: &mut [u8; 32]) {
    if x & 1 == 0 {
        M::merge(node, item, out);
    } else {
        M::merge(item, node, out);
    }
}

/// [`compute_root`] on caller-provided working memory.
///
/// Arithmetic: `leaf_count < 2^50`, leaf indexes are checked `< leaf_count` and every node
/// lies inside its peak, so `first < 2^50` and heights are at most 49; offsets are below
/// `payload.len()`. The wrapping operations can therefore never wrap (spec section 3).
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
    let (leaves, _) = split_payload(payload)?;
    let leaves_end = HEADER_LEN.wrapping_add(leaves.len());
    let entries = &mut stack.entries;

    // Current peak: the highest set bit of `rem`; it covers [peak_end - 2^peak_h, peak_end),
    // and its start is `leaf_count ^ rem` (the sum of the higher bits of leaf_count).
    let mut rem = leaf_count;
    let mut peak_h = u64::from(63 - rem.leading_zeros());
    let cursor = Cursor {
        leaf: Cell::new(HEADER_LEN),
        leaves_end,
        leaf_count,
        next_min: Cell::new(0),
        peak_end: Cell::new(1u64.wrapping_shl(peak_h as u32)),
        depth: Cell::new(0),
    };
    // Finished peaks: entries [0, base).
    let mut base: usize = 0;
    let mut pos = leaves_end;

    // 6. Inside this loop `rem != 0`; the commands that account for the last peak leave it.
    loop {
        pos = run_peak::<M>(entries, payload, pos, peak_h, &cursor)?;
        let Some(&opcode) = payload.get(pos) else {
            return Err(PeaksIncomplete);
        };
        pos = pos.wrapping_add(1);
        let depth = cursor.depth.get();
        match opcode {
            op::PEAK => {
                if depth == base {
                    return Err(PeakNoNode);
                }
                if depth.wrapping_sub(base) > 1 {
                    return Err(PeakPendingNodes);
                }
                let Some(top) = entries.get_mut(depth.wrapping_sub(1)) else {
                    return Err(PeakNoNode);
                };
                // The start test is implied by the height test (spec K3 remark).
                if top.height != peak_h || top.first != leaf_count ^ rem {
                    return Err(PeakMismatch);
                }
                top.height |= FINISHED;
                base = depth;
            }
            op::PEAK_PROOF | op::BAG_RHS => {
                let Some(item) = item_at(payload, pos) else {
                    return Err(ItemTruncated);
                };
                pos = pos.wrapping_add(ITEM_LEN);
                let bag = opcode == op::BAG_RHS;
                if depth != base {
                    return Err(if bag {
                        BagRhsPendingNodes
                    } else {
                        PeakProofPendingNodes
                    });
                }
                if bag && rem.count_ones() < 2 {
                    return Err(BagRhsTooFewPeaks);
                }
                // depth == base <= 49: unreachable fallback.
                let Some(entry) = entries.get_mut(depth) else {
                    return Err(StackOverflow);
                };
                entry.height = FINISHED;
                copy_in::<M>(item, &mut entry.hash[0]);
                base = depth.wrapping_add(1);
                cursor.depth.set(base);
                if bag {
                    break;
                }
            }
            // PROOF, LEAF and MERGE never stop run_peak.
            _ => return Err(UnknownCommand),
        }
        rem ^= 1u64.wrapping_shl(peak_h as u32);
        if rem == 0 {
            break;
        }
        peak_h = u64::from(63 - rem.leading_zeros());
        let peak_start = cursor.peak_end.get();
        cursor.next_min.set(peak_start);
        cursor
            .peak_end
            .set(peak_start.wrapping_add(1u64.wrapping_shl(peak_h as u32)));
    }

    // 6.2 / 7.
    if pos != payload.len() {
        return Err(TrailingBytes);
    }
    if cursor.leaf.get() != leaves_end {
        return Err(LeavesUnconsumed);
    }
    // 8. The stack holds exactly the finished peaks, left to right; bag from the right,
    // alternating between two buffers.
    let Some((last, others)) = entries.get(..base).and_then(|peaks| peaks.split_last()) else {
        return Err(PeaksIncomplete);
    };
    let mut peaks = others.iter().rev();
    let last = entry_hash::<M>(last);
    let Some(peak) = peaks.next() else {
        return Ok(*last);
    };
    let mut a = [0u8; 32];
    let mut b = [0u8; 32];
    M::merge(last, entry_hash::<M>(peak), &mut a);
    loop {
        let Some(peak) = peaks.next() else {
            return Ok(a);
        };
        M::merge(&a, entry_hash::<M>(peak), &mut b);
        let Some(peak) = peaks.next() else {
            return Ok(b);
        };
        M::merge(&b, entry_hash::<M>(peak), &mut a);
    }
}
