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

#[cfg(feature = "kernel")]
mod kernel;
#[cfg(feature = "kernel")]
pub use kernel::KernelMerge;

pub mod compact;

#[cfg(feature = "std")]
mod compile;
#[cfg(feature = "std")]
pub use compile::{compile, compile_compact, encode, encode_compact, Command, CompileError};

/// The node hash: `merge(left, right)` written to `out`. For CKB this is blake2b-256 with
/// personalization `ckb-default-hash` over `left || right`.
///
/// The verifier carries the node it is working on as four little-endian words, so a contract
/// whose hash keeps its result in registers (the assembly kernel's `_chain` entries) can
/// hash a whole run of `PROOF`s without storing the node in between. The word methods'
/// defaults go through `merge` and an aligned buffer; a contract overrides them, and the
/// loads and stores, with its own.
pub trait Merge {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]);

    /// `merge(left, right)` as four little-endian words.
    fn merge_to_words(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
        let mut out = Hash([0; 32]);
        Self::merge(left, right, &mut out.0);
        Self::load_words(&out.0)
    }

    /// `merge(node, item)`, the node given as words.
    fn merge_words_left(node: [u64; 4], item: &[u8; 32]) -> [u64; 4] {
        let mut left = Hash([0; 32]);
        Self::store_words(node, &mut left.0);
        Self::merge_to_words(&left.0, item)
    }

    /// `merge(item, node)`, the node given as words.
    fn merge_words_right(item: &[u8; 32], node: [u64; 4]) -> [u64; 4] {
        let mut right = Hash([0; 32]);
        Self::store_words(node, &mut right.0);
        Self::merge_to_words(item, &right.0)
    }

    /// Writes a hash given as words.
    fn store_words(words: [u64; 4], out: &mut [u8; 32]) {
        for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// A little-endian u64 from bytes of any alignment (a leaf record's index, a leaf).
    /// A contract may read it with one misaligned load where the portable form is eight
    /// byte loads.
    fn load_u64(bytes: &[u8; 8]) -> u64 {
        u64::from_le_bytes(*bytes)
    }

    /// The four little-endian words of 32 bytes of any alignment (a leaf, an item, a stack
    /// slot).
    fn load_words(bytes: &[u8; 32]) -> [u64; 4] {
        words_via_u64::<Self>(bytes)
    }
}

/// The four little-endian words of 32 bytes of any alignment, through `M::load_u64`.
#[inline(always)]
fn words_via_u64<M: Merge + ?Sized>(bytes: &[u8; 32]) -> [u64; 4] {
    match bytes.as_chunks::<8>() {
        ([a, b, c, d], []) => [
            M::load_u64(a),
            M::load_u64(b),
            M::load_u64(c),
            M::load_u64(d),
        ],
        // 32 = 4 x 8: folded away.
        _ => [0; 4],
    }
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
    /// Version 2: the first byte is not the version byte `0x02`.
    VersionUnsupported = 65,
    /// Version 2: a varint with a zero last group (an overlong encoding).
    VarintNonCanonical = 66,
    /// Version 2: a varint of more than 8 bytes.
    VarintTooLong = 67,
    /// Version 2: the payload ends inside the index section.
    IndexesTruncated = 68,
}

impl FormatError {
    /// The script exit code.
    pub const fn code(self) -> i8 {
        self as i8
    }
}

/// A 32-byte hash at 8-byte alignment, so that copying one in or out is four 64-bit loads
/// and stores (the payload's bytes have no alignment).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct Hash([u8; 32]);

/// One stack entry. `x` names the node relative to the current peak, which covers
/// `[start, end)` with `end = start + 2^H` and `start` a multiple of `2^(H+1)`:
///
/// ```text
/// x = (first XOR end) >> height
/// ```
///
/// that is `2^(H - height)` (a marker) over the bits of `first` between `height` and `H - 1`.
/// For a working node `x >= 1`, and: bit 0 of `x` is bit `height` of `first` (1: a right
/// child); `x == 1` iff the node is the whole current peak (`height == H`, `first ==
/// start`); the parent is `x >> 1`; two nodes are left and right siblings of one height iff
/// `x_right == x_left + 1` with `x_left` even; two nodes have the same height iff their `x`
/// have the same bit length. `x == 0` marks a finished peak and the two sentinels below the
/// stack, so "no working node" (P1, M1, K1, Q1, B1) is `x == 0`. All working nodes belong to
/// the current peak (it changes only when none is left), so they share one `end`.
#[derive(Clone, Copy)]
struct Entry {
    x: u64,
    hash: Hash,
}

impl Entry {
    const EMPTY: Entry = Entry {
        x: 0,
        hash: Hash([0; 32]),
    };
}

/// Stack slots: two sentinels (`x == 0`), then the `STACK_CAPACITY` entries, padded to a
/// power of two so that an index masked with `SLOTS - 1` needs no bounds check. The top
/// index is 1 for an empty stack and `FULL` for a full one; it never leaves `1..=FULL`.
const SLOTS: usize = 128;
const FULL: usize = STACK_CAPACITY + 1;

/// The verifier's working memory (about 5 KiB). [`verify`] and [`compute_root`] put one on
/// the call stack; a contract may keep one in a `static` and use [`compute_root_with`] to
/// skip its initialisation. Its contents between calls do not matter.
pub struct Stack {
    entries: [Entry; SLOTS],
}

impl Stack {
    pub const fn new() -> Self {
        Stack {
            entries: [Entry::EMPTY; SLOTS],
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
    check_root::<M>(root_words::<M>(stack, payload, leaf_count)?, root)
}

/// The last step of both formats: the computed root equals the expected one, compared a word
/// at a time and branch-free (cheaper than a memcmp call on the contract target).
#[inline(always)]
fn check_root<M: Merge>(computed: [u64; 4], root: &[u8; 32]) -> Result<(), FormatError> {
    let diff = computed
        .iter()
        .zip(M::load_words(root))
        .fold(0u64, |acc, (a, b)| acc | (a ^ b));
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

/// The state of the current peak and the leaf cursor: what the peak commands change and
/// `LEAF` reads. It lives in memory (see [`root_words`]), out of the registers the hash
/// loop needs.
struct Peaks<'a> {
    /// The leaf records not pushed yet.
    leaves: Cell<&'a [u8]>,
    /// Bits of `leaf_count` not accounted for yet; the current peak is the highest.
    rem: Cell<u64>,
    /// `2^H` of the current peak.
    hbit: Cell<u64>,
    /// `end - next_min`, where `next_min` is the smallest acceptable next leaf index: a leaf
    /// index is acceptable (L4, L5) iff `end - 1 - index < room` in wrapping arithmetic, one
    /// comparison, whose left side is the next `room`. 0 once `rem == 0`.
    room: Cell<u64>,
    /// The current peak's `start + 2^H`; 0 once `rem == 0`, which fails `LEAF`'s fast test.
    end: Cell<u64>,
    /// Index of the top stack entry: 1 when the stack is empty, `FULL` when it is full.
    top: Cell<usize>,
}

impl Peaks<'_> {
    /// ADVANCE(): the current peak is accounted for.
    fn advance(&self) {
        let rem = self.rem.get() ^ self.hbit.get();
        self.rem.set(rem);
        if rem == 0 {
            self.end.set(0);
            self.room.set(0);
            return;
        }
        let hbit = 1u64.wrapping_shl(63 - rem.leading_zeros());
        let start = self.end.get();
        self.hbit.set(hbit);
        self.room.set(hbit);
        self.end.set(start.wrapping_add(hbit));
    }
}

/// [`compute_root`] on caller-provided working memory.
pub fn compute_root_with<M: Merge>(
    stack: &mut Stack,
    payload: &[u8],
    leaf_count: u64,
) -> Result<[u8; 32], FormatError> {
    let words = root_words::<M>(stack, payload, leaf_count)?;
    let mut root = Hash([0; 32]);
    M::store_words(words, &mut root.0);
    Ok(root.0)
}

/// Steps 1-8 of the spec; the root as words.
///
/// Step 6 has a fast path and a slow path. The fast path runs `PROOF`, `LEAF`, `MERGE` and
/// `PEAK` when at least 33 bytes are left (so an opcode and an item surely fit) and the
/// command's checks all pass; it tests a condition that implies all of them (6.1-6.3 and the
/// command's own). Anything else (the last 32 bytes, `PEAK_PROOF`, `BAG_RHS`, every failure)
/// goes to [`slow_step`], which executes the one command with the checks in exactly the
/// spec's order, so every rejection has the spec's code. 6.2 (`rem == 0`) needs no fast test:
/// then no working node is left, which fails `PROOF`'s, `MERGE`'s and `PEAK`'s tests, and
/// `end == 0` fails `LEAF`'s.
///
/// The node a command produces stays in words (`words`, its `x` in `x`) while `PROOF`s
/// follow, and is stored once. Across each merge the loop keeps only the remaining commands
/// and `x`, which the assembly kernel leaves registers for.
///
/// Arithmetic: `leaf_count < 2^50`, leaf indexes are checked `< end <= leaf_count` and every
/// node lies inside its peak, so no addition can wrap (spec section 3).
#[inline(never)]
fn root_words<M: Merge>(
    stack: &mut Stack,
    payload: &[u8],
    leaf_count: u64,
) -> Result<[u64; 4], FormatError> {
    use FormatError::*;

    // 1.
    if leaf_count == 0 || leaf_count >= LEAF_COUNT_LIMIT {
        return Err(LeafCountInvalid);
    }
    // 2.-5.
    let (leaves, cmds) = split_payload(payload)?;
    let hbit = 1u64.wrapping_shl(63 - leaf_count.leading_zeros());
    let peaks = Peaks {
        leaves: Cell::new(leaves),
        rem: Cell::new(leaf_count),
        hbit: Cell::new(hbit),
        room: Cell::new(hbit),
        end: Cell::new(hbit),
        top: Cell::new(1),
    };
    // Kept in memory: the optimiser must not hold these in registers across the loop.
    let peaks = core::hint::black_box(&peaks);
    let entries = &mut stack.entries;
    entries[0].x = 0;
    entries[1].x = 0;
    let mut rest = cmds;

    // Runs one command on the slow path; leaves the loop when the stream is done.
    macro_rules! slow {
        () => {{
            match slow_step::<M>(peaks, entries, rest, leaf_count)? {
                Some(tail) => rest = tail,
                None => break,
            }
            continue;
        }};
    }

    // 6.
    loop {
        let (mut words, mut x);
        match rest.split_first_chunk::<{ 1 + ITEM_LEN }>() {
            Some(([op::PROOF, ..], _)) => {
                let entry = &entries[peaks.top.get() & MASK];
                x = entry.x;
                if x <= 1 {
                    // P1 (or 6.2), P2.
                    slow!();
                }
                words = M::load_words(&entry.hash.0);
                // The loop below takes this PROOF too.
            }
            Some(([op::LEAF, ..], _)) => {
                let Some(leaf) = fast_leaf::<M>(peaks) else {
                    slow!();
                };
                (words, x) = leaf;
                rest = rest.get(1..).unwrap_or_default();
            }
            Some(([op::MERGE, ..], _)) => {
                let top = peaks.top.get();
                let (lx, rx) = (entries[top.wrapping_sub(1) & MASK].x, entries[top & MASK].x);
                if !siblings(lx, rx) {
                    slow!();
                }
                words = M::merge_to_words(
                    &entries[top.wrapping_sub(1) & MASK].hash.0,
                    &entries[top & MASK].hash.0,
                );
                peaks.top.set(top.wrapping_sub(1));
                x = lx >> 1;
                rest = rest.get(1..).unwrap_or_default();
            }
            Some(([op::PEAK, ..], _)) => {
                let top = peaks.top.get();
                if entries[top & MASK].x != 1 || entries[top.wrapping_sub(1) & MASK].x != 0 {
                    slow!();
                }
                entries[top & MASK].x = 0;
                peaks.advance();
                rest = rest.get(1..).unwrap_or_default();
                continue;
            }
            _ => slow!(),
        }
        loop {
            // The PROOFs that follow, on this node: 6.1-6.3 and P1 hold for each (an opcode
            // and an item fit, the node is a working node, so rem != 0). A PROOF with a
            // short item ends the run and fails on the slow path.
            // The run's own cursor: with it LLVM keeps the cursor, its length and `x` in the
            // three registers the kernel leaves alone (s0, s1, a2) and spills nothing in the
            // loop; stepping `rest` itself measured 5,858 cycles more on the reference seed.
            let mut run = rest;
            while let Some(([op::PROOF, item @ ..], tail)) =
                run.split_first_chunk::<{ 1 + ITEM_LEN }>()
            {
                // Shifted before the merge, so only `x` and `run` live across it. P2 is
                // checked after the run: a PROOF over the peak (x == 1) leaves x == 0 for
                // good, and the hashes after it are never used.
                let right_child = x & 1 != 0;
                x >>= 1;
                run = tail;
                words = if right_child {
                    M::merge_words_right(item, words)
                } else {
                    M::merge_words_left(words, item)
                };
            }
            rest = run;
            // A MERGE with this node as the right sibling takes it from the registers.
            if let Some(([op::MERGE, ..], _)) = rest.split_first_chunk::<{ 1 + ITEM_LEN }>() {
                let top = peaks.top.get();
                let left = &entries[top.wrapping_sub(1) & MASK];
                let lx = left.x;
                if siblings(lx, x) {
                    words = M::merge_words_right(&left.hash.0, words);
                    peaks.top.set(top.wrapping_sub(1));
                    x = lx >> 1;
                    rest = rest.get(1..).unwrap_or_default();
                    continue;
                }
            }
            break;
        }
        if x == 0 {
            return Err(ProofOverPeak); // P2
        }
        let entry = &mut entries[peaks.top.get() & MASK];
        entry.x = x;
        M::store_words(words, &mut entry.hash.0);
    }

    // 7.
    if !peaks.leaves.get().is_empty() {
        return Err(LeavesUnconsumed);
    }
    // 8. The stack holds exactly the finished peaks, left to right, in entries 2..=top (at
    // least one: rem reached 0 through a peak command); bag from the right.
    let top = peaks.top.get();
    if top < 2 {
        return Err(PeaksIncomplete);
    }
    let mut acc = M::load_words(&entries[top & MASK].hash.0);
    for i in (2..top).rev() {
        acc = M::merge_words_left(acc, &entries[i & MASK].hash.0);
    }
    Ok(acc)
}

/// `LEAF` on the fast path: if the leaf can be pushed with every check passing (L1-L5, and
/// 6.2 through `end == 0`), pushes it (its hash and `x` not stored yet) and returns them.
#[inline(always)]
fn fast_leaf<M: Merge>(peaks: &Peaks<'_>) -> Option<([u64; 4], u64)> {
    let (record, more) = peaks.leaves.get().split_first_chunk()?;
    let (index, value) = record_fields(record);
    let index = M::load_u64(index);
    let end = peaks.end.get();
    let top = peaks.top.get();
    // L4 and L5 (see `Peaks::room`); L3 is implied by L5: end <= leaf_count.
    let room = end.wrapping_sub(1).wrapping_sub(index);
    if top >= FULL || room >= peaks.room.get() {
        return None;
    }
    peaks.room.set(room);
    peaks.leaves.set(more);
    peaks.top.set(top.wrapping_add(1));
    Some((M::load_words(value), index ^ end))
}

/// `MERGE`'s fast test on the two top entries' `x`: M1 (`lx == 0`, or `rx == 0 != lx + 1`),
/// M2 and M3 (see [`Entry`]).
#[inline(always)]
fn siblings(lx: u64, rx: u64) -> bool {
    lx != 0 && lx & 1 == 0 && rx == lx.wrapping_add(1)
}

/// Index mask of the stack slots.
const MASK: usize = SLOTS - 1;

/// Step 6 for the one command at `rest` (or the end of the stream), with every check in the
/// spec's order. Returns the stream after the command, or `None` once it is finished (6.1
/// with `rem == 0`). `rest` goes by value: had the fast loop lent its cursor by reference,
/// the cursor would live in memory and every merge (an asm block that may read memory)
/// would force a store of it first (one `sd` per PROOF).
#[cold]
#[inline(never)]
fn slow_step<'a, M: Merge>(
    peaks: &Peaks<'_>,
    entries: &mut [Entry; SLOTS],
    rest: &'a [u8],
    leaf_count: u64,
) -> Result<Option<&'a [u8]>, FormatError> {
    use FormatError::*;
    // 6.1
    let Some((&opcode, mut tail)) = rest.split_first() else {
        return if peaks.rem.get() != 0 {
            Err(PeaksIncomplete)
        } else {
            Ok(None)
        };
    };
    // 6.2
    if peaks.rem.get() == 0 {
        return Err(TrailingBytes);
    }
    // 6.3
    if !(op::LEAF..=op::BAG_RHS).contains(&opcode) {
        return Err(UnknownCommand);
    }
    let mut item = None;
    if matches!(opcode, op::PROOF | op::PEAK_PROOF | op::BAG_RHS) {
        let Some((bytes, after)) = tail.split_first_chunk::<ITEM_LEN>() else {
            return Err(ItemTruncated);
        };
        item = Some(bytes);
        tail = after;
    }
    // 6.4
    let t = peaks.top.get();
    let below = t.wrapping_sub(1) & MASK;
    let tx = entries[t & MASK].x;
    match (opcode, item) {
        (op::LEAF, _) => {
            if t >= FULL {
                return Err(StackOverflow); // L1
            }
            let Some((record, more)) = peaks.leaves.get().split_first_chunk() else {
                return Err(LeavesExhausted); // L2
            };
            let (index, value) = record_fields(record);
            let index = M::load_u64(index);
            if index >= leaf_count {
                return Err(LeafIndexOutOfRange); // L3
            }
            let end = peaks.end.get();
            if index < end.wrapping_sub(peaks.room.get()) {
                return Err(LeafIndexNotAscending); // L4
            }
            if index >= end {
                return Err(LeafOutsidePeak); // L5
            }
            peaks.room.set(end.wrapping_sub(1).wrapping_sub(index));
            peaks.leaves.set(more);
            let entry = &mut entries[t.wrapping_add(1) & MASK];
            entry.x = index ^ end;
            M::store_words(M::load_words(value), &mut entry.hash.0);
            peaks.top.set(t.wrapping_add(1));
        }
        (op::MERGE, _) => {
            let lx = entries[below].x;
            if tx == 0 || lx == 0 {
                return Err(MergeNoNodes); // M1
            }
            if tx.leading_zeros() != lx.leading_zeros() {
                return Err(MergeHeightMismatch); // M2
            }
            if lx & 1 != 0 || tx != lx.wrapping_add(1) {
                return Err(MergeNotSiblings); // M3
            }
            let words = M::merge_to_words(&entries[below].hash.0, &entries[t & MASK].hash.0);
            let entry = &mut entries[below];
            entry.x = lx >> 1;
            M::store_words(words, &mut entry.hash.0);
            peaks.top.set(t.wrapping_sub(1));
        }
        (op::PROOF, Some(item)) => {
            if tx == 0 {
                return Err(ProofNoNode); // P1
            }
            if tx == 1 {
                return Err(ProofOverPeak); // P2
            }
            let entry = &mut entries[t & MASK];
            let node = M::load_words(&entry.hash.0);
            let words = if tx & 1 != 0 {
                M::merge_words_right(item, node)
            } else {
                M::merge_words_left(node, item)
            };
            entry.x = tx >> 1;
            M::store_words(words, &mut entry.hash.0);
        }
        (op::PEAK, _) => {
            if tx == 0 {
                return Err(PeakNoNode); // K1
            }
            if entries[below].x != 0 {
                return Err(PeakPendingNodes); // K2
            }
            if tx != 1 {
                return Err(PeakMismatch); // K3
            }
            entries[t & MASK].x = 0;
            peaks.advance();
        }
        (op::PEAK_PROOF | op::BAG_RHS, Some(item)) => {
            let bag = opcode == op::BAG_RHS;
            if tx != 0 {
                return Err(if bag {
                    BagRhsPendingNodes // B1
                } else {
                    PeakProofPendingNodes // Q1
                });
            }
            if bag && peaks.rem.get().count_ones() < 2 {
                return Err(BagRhsTooFewPeaks); // B2
            }
            // Only finished peaks are on the stack, at most 49: unreachable fallback.
            if t >= FULL {
                return Err(StackOverflow);
            }
            let entry = &mut entries[t.wrapping_add(1) & MASK];
            entry.x = 0;
            M::store_words(M::load_words(item), &mut entry.hash.0);
            peaks.top.set(t.wrapping_add(1));
            if bag {
                peaks.rem.set(0);
                peaks.end.set(0);
                peaks.room.set(0);
            } else {
                peaks.advance();
            }
        }
        // Every opcode in 1..=6 with its item is matched above.
        _ => return Err(UnknownCommand),
    }
    Ok(Some(tail))
}
