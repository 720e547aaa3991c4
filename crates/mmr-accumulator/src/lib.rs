//! The on-chain MMR accumulator's transitions (spec: `docs/accumulator.md`).
//!
//! An accumulator cell's data is the commitment `root (32) || mmr_size (u64 LE)`, the same
//! 40 bytes a lock's args hold: `root` is the MMR's peaks bagged right to left exactly as the
//! locks verify it, and `mmr_size` is canonical (`mmr_lock::mmr::leaf_count`, at most
//! `MAX_MMR_SIZE` = 2^50). The type script lets it grow, append-only:
//!
//! - **append** ([`append_with`]): the witness gives the old peaks and the new leaves; the
//!   peaks' count follows from the old size, they must bag to the old root, and the leaves
//!   are appended the ordinary way; the caller compares the result with the output.
//! - **ancestry** ([`verify_ancestry`]): the old commitment is a prefix of the new one. The
//!   proof is a fixed sequence of 32-byte hashes whose number and roles follow from the two
//!   sizes alone, verified in one forward pass; no position, height or count is read from it.
//! - **create** ([`create_with`]) from initial leaves, and the transition payloads of the type
//!   script ([`verify_creation`], [`verify_update`]).
//!
//! Every rejection is a distinct [`Error`] code in 100..=127, a ring's ([`ring`]) in
//! -100..=-106. The hash is the [`Merge`] trait of `compiled-proof`, so the contract runs it
//! on the assembly kernel with the node in its registers.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
pub mod build;
pub mod ring;
mod transition;
pub mod witness;

pub use transition::{verify_creation, verify_update};

pub use compiled_proof::Merge;
use mmr_lock::mmr::{leaf_count, mmr_size_of, MAX_MMR_SIZE};

/// Bytes of the commitment (cell data): root, then mmr_size as u64 LE.
pub const COMMITMENT_LEN: usize = 40;
/// Bytes of a hash (peak, leaf, proof item).
pub const HASH_LEN: usize = 32;
/// Bytes of the leaf count of an append or create body.
pub const COUNT_LEN: usize = 4;
/// Entries of the append stack: an MMR below `MAX_MMR_SIZE` has at most 50 peaks.
pub const STACK_CAPACITY: usize = 64;

/// The first byte of the type script's witness payload (`WitnessArgs.output_type` on
/// creation, `input_type` otherwise) names the transition.
pub mod tag {
    /// Creation from initial leaves: `u32 LE k || k leaves`.
    pub const CREATE: u8 = 0x01;
    /// Creation by importing the output's (root, size) as given: no body.
    pub const IMPORT: u8 = 0x02;
    /// Append: `old peaks || u32 LE k || k leaves`.
    pub const APPEND: u8 = 0x03;
    /// Extend by an ancestry proof.
    pub const EXTEND: u8 = 0x04;
    /// Keep the data unchanged (a new lock or capacity): no body.
    pub const KEEP: u8 = 0x05;
}

/// Rejections, in the numbering of `docs/error-codes.md` (the accumulator owns 100..=127 and
/// the ring's -100..=-106). 100-117 and the ring's rules but -100 are decided by this crate
/// from bytes alone; 118-127 by the type script around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i8)]
pub enum Error {
    /// The input's mmr_size is zero, not an MMR size, or above 2^50.
    OldSizeInvalid = 100,
    /// The output's mmr_size (extend, import) is zero, not an MMR size, or above 2^50.
    NewSizeInvalid = 101,
    /// The old peaks do not bag to the input's root.
    OldRootMismatch = 102,
    /// The append or create body ends before its peaks, its count or its leaves.
    AppendTruncated = 103,
    /// The append or create body declares zero leaves.
    NoLeaves = 104,
    /// At least one whole 32-byte leaf follows the declared leaves.
    LeavesLeftOver = 105,
    /// 1-31 bytes follow the declared leaves.
    AppendTrailingBytes = 106,
    /// The new MMR would be larger than `MAX_MMR_SIZE`.
    SizeOverflow = 107,
    /// Extend: the output's size is below the input's.
    OldSizeAboveNew = 108,
    /// Extend: the sizes are equal (use `KEEP`).
    SizesEqual = 109,
    /// Extend: the proof is shorter than the two sizes require.
    ProofTruncated = 110,
    /// Extend: at least one whole item follows the last one the sizes require.
    ItemsLeftOver = 111,
    /// Extend: 1-31 bytes follow the last item.
    ProofTrailingBytes = 112,
    /// Extend: the proof's new root differs from the output's root.
    NewRootMismatch = 113,
    /// The payload is empty, or its tag is not a transition allowed here.
    UnknownTransition = 114,
    /// `IMPORT` or `KEEP` with bytes after the tag.
    TransitionPayload = 115,
    /// A cell of the group has data other than 40 bytes.
    DataLength = 116,
    /// The output's data is not the computed commitment (create, append) or not the input's
    /// (keep).
    OutputMismatch = 117,
    /// Type script: args are neither 32 bytes (an accumulator) nor 33 (a ring).
    ArgsLength = 118,
    /// Type script, creation: args differ from blake2b(first input || output index).
    TypeIdMismatch = 119,
    /// Type script: two or more inputs carry this type.
    GroupInputs = 120,
    /// Type script: two or more outputs carry this type.
    GroupOutputs = 121,
    /// Type script: the accumulator is consumed and not recreated.
    DestroyRefused = 122,
    /// Type script: no witness at the group's index.
    WitnessMissing = 123,
    /// Type script: the witness is longer than the buffer.
    WitnessTooLarge = 124,
    /// The witness is not a strictly valid molecule `WitnessArgs`.
    WitnessEncoding = 125,
    /// `WitnessArgs.input_type` (update) or `output_type` (creation) is absent.
    TypeFieldMissing = 126,
    /// Type script: any other syscall failure.
    Syscall = 127,
    /// Ring (33-byte args): the K byte is not in 2..=32.
    RingArgs = -100,
    /// Ring: group counts not (0, K + 1), (2, 2) or (K + 1, K + 1), or a tag of another shape.
    RingShape = -101,
    /// Ring: a side without exactly one head, or a cell neither 40 bytes nor the head's length.
    RingRoles = -102,
    /// Ring: the consumed snapshot's size is not the head's `older[0]`.
    RingNotOldest = -103,
    /// Ring: a snapshot written with other data than the head's state, or changed by `KEEP`.
    SnapshotMismatch = -104,
    /// Ring: the head's `older` is not the input's shifted (step) or K - 1 copies (creation).
    RingSizesMismatch = -105,
    /// Ring: a ring cell's lock differs from the head's, or a step changes the head's lock.
    RingLockMismatch = -106,
}

impl Error {
    /// The script exit code.
    pub const fn code(self) -> i8 {
        self as i8
    }

    /// Every code, in order (documentation and tests).
    pub const ALL: [Error; 35] = {
        use Error::*;
        [
            OldSizeInvalid,
            NewSizeInvalid,
            OldRootMismatch,
            AppendTruncated,
            NoLeaves,
            LeavesLeftOver,
            AppendTrailingBytes,
            SizeOverflow,
            OldSizeAboveNew,
            SizesEqual,
            ProofTruncated,
            ItemsLeftOver,
            ProofTrailingBytes,
            NewRootMismatch,
            UnknownTransition,
            TransitionPayload,
            DataLength,
            OutputMismatch,
            ArgsLength,
            TypeIdMismatch,
            GroupInputs,
            GroupOutputs,
            DestroyRefused,
            WitnessMissing,
            WitnessTooLarge,
            WitnessEncoding,
            TypeFieldMissing,
            Syscall,
            RingArgs,
            RingShape,
            RingRoles,
            RingNotOldest,
            SnapshotMismatch,
            RingSizesMismatch,
            RingLockMismatch,
        ]
    };
}

/// A 32-byte hash at 8-byte alignment (a stack slot, a returned root).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(8))]
pub struct Hash(pub [u8; 32]);

/// A commitment: the bagged root and mmr_size.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Commitment {
    pub root: [u8; 32],
    pub mmr_size: u64,
}

impl Commitment {
    /// The 40 bytes of cell data.
    pub fn to_bytes(&self) -> [u8; COMMITMENT_LEN] {
        let mut out = [0u8; COMMITMENT_LEN];
        let (root, size) = out.split_at_mut(HASH_LEN);
        root.copy_from_slice(&self.root);
        size.copy_from_slice(&self.mmr_size.to_le_bytes());
        out
    }
}

/// Splits 40 bytes of cell data into the root and mmr_size (no size check: the transitions
/// check it with their own codes).
pub fn split_data(data: &[u8]) -> Result<(&[u8; 32], u64), Error> {
    match data.split_first_chunk::<HASH_LEN>() {
        Some((root, size)) => match size.try_into() {
            Ok(size) => Ok((root, u64::from_le_bytes(size))),
            Err(_) => Err(Error::DataLength),
        },
        None => Err(Error::DataLength),
    }
}

/// `words == bytes`, a word at a time, branch-free.
#[inline(always)]
fn words_eq<M: Merge>(words: [u64; 4], bytes: &[u8; 32]) -> bool {
    let expected = M::load_words(bytes);
    // Written out: the fold stays a call in the contract (75 cycles a comparison).
    #[cfg(feature = "word-compare")]
    let diff = (words[0] ^ expected[0])
        | (words[1] ^ expected[1])
        | (words[2] ^ expected[2])
        | (words[3] ^ expected[3]);
    #[cfg(not(feature = "word-compare"))]
    let diff = words
        .iter()
        .zip(expected)
        .fold(0u64, |acc, (a, b)| acc | (a ^ b));
    diff == 0
}

/// The append stack's working memory (2 KiB). A contract may keep one in a `static` and use
/// the `_with` functions to skip its initialisation; its contents between calls do not
/// matter.
pub struct Workspace {
    slots: [Hash; STACK_CAPACITY],
}

impl Workspace {
    pub const fn new() -> Self {
        Workspace {
            slots: [Hash([0; 32]); STACK_CAPACITY],
        }
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(feature = "merge-runs"))]
const SLOT_MASK: usize = STACK_CAPACITY - 1;

/// A parsed append or create body: the old peaks (left to right) and the new leaves.
struct Body<'a> {
    peaks: &'a [[u8; 32]],
    leaves: &'a [[u8; 32]],
}

/// Splits `peaks || u32 LE k || k leaves` for an MMR of `old_leaves` leaves, with the
/// length checks in the spec's order (codes 103-107).
fn split_body(body: &[u8], old_leaves: u64) -> Result<(Body<'_>, u64), Error> {
    use Error::*;
    // popcount <= 64, so 32 * popcount fits in any usize.
    let peaks_len = HASH_LEN * old_leaves.count_ones() as usize;
    let (peaks, rest) = body.split_at_checked(peaks_len).ok_or(AppendTruncated)?;
    let (count, rest) = rest
        .split_first_chunk::<COUNT_LEN>()
        .ok_or(AppendTruncated)?;
    let k = u32::from_le_bytes(*count);
    if k == 0 {
        return Err(NoLeaves);
    }
    // k < 2^32, so 32 * k < 2^37; a length that does not fit usize cannot be available.
    let leaves_len =
        usize::try_from(u64::from(k) * HASH_LEN as u64).map_err(|_| AppendTruncated)?;
    let (leaves, rest) = rest.split_at_checked(leaves_len).ok_or(AppendTruncated)?;
    if rest.len() >= HASH_LEN {
        return Err(LeavesLeftOver);
    }
    if !rest.is_empty() {
        return Err(AppendTrailingBytes);
    }
    // old_leaves < 2^50 and k < 2^32: no overflow.
    let new_leaves = old_leaves + u64::from(k);
    if mmr_size_of(new_leaves) > MAX_MMR_SIZE {
        return Err(SizeOverflow);
    }
    Ok((
        Body {
            peaks: peaks.as_chunks::<HASH_LEN>().0,
            leaves: leaves.as_chunks::<HASH_LEN>().0,
        },
        new_leaves,
    ))
}

/// The root of `peaks` (left to right, at least one), bagged right to left.
#[inline(always)]
fn bag_words<M: Merge>(peaks: &[[u8; 32]]) -> Option<[u64; 4]> {
    let (last, rest) = peaks.split_last()?;
    let mut acc = M::load_words(last);
    for peak in rest.iter().rev() {
        acc = M::merge_words_left(acc, peak);
    }
    Some(acc)
}

/// Appends `leaves` to the MMR whose peaks are `peaks` (left to right; empty for the empty
/// MMR of `old_leaves == 0`) and returns the new root as words.
///
/// The stack is the old peaks, read in place from the body, below the new nodes in the
/// workspace: entry `i` is the body's peak `i` while `i < live`, else slot `i`. New nodes are
/// always pushed above every old peak still live, so a slot is never read before it is
/// written. The last leaf's node stays in registers into the bagging.
#[cfg(not(feature = "merge-runs"))]
#[inline(always)]
fn append_words<M: Merge>(
    ws: &mut Workspace,
    peaks: &[[u8; 32]],
    leaves: &[[u8; 32]],
    old_leaves: u64,
) -> [u64; 4] {
    let mut live = peaks.len();
    let mut top = live;
    let mut cur: Option<[u64; 4]> = None;
    for (count, leaf) in (old_leaves..).zip(leaves) {
        if let Some(prev) = cur {
            M::store_words(prev, &mut ws.slots[top & SLOT_MASK].0);
            top += 1;
        }
        let mut node = M::load_words(leaf);
        // One merge per carry: the new leaf completes a peak of each height below the lowest
        // 0 bit of the count, and the popped entries are exactly those peaks.
        for _ in 0..count.trailing_ones() {
            top = top.wrapping_sub(1);
            node = if top < live {
                live = top;
                M::merge_words_right(peak_at(peaks, top), node)
            } else {
                M::merge_words_right(&ws.slots[top & SLOT_MASK].0, node)
            };
        }
        cur = Some(node);
    }
    let mut acc = match cur {
        Some(node) => node,
        // Unreachable: the body has at least one leaf.
        None => return [0; 4],
    };
    for i in (0..top).rev() {
        acc = if i < live {
            M::merge_words_left(acc, peak_at(peaks, i))
        } else {
            M::merge_words_left(acc, &ws.slots[i & SLOT_MASK].0)
        };
    }
    acc
}

/// Appends `leaves` to the MMR whose peaks are `peaks` (left to right; empty for the empty
/// MMR of `old_leaves == 0`) and returns the new root as words.
///
/// The stack is the old peaks, read in place from the body, below the new nodes in the
/// workspace: entries `0..live` are the body's peaks `0..live`, entries `live..top` are slots
/// `live..top`. A leaf pops `trailing_ones(count)` entries, the slots first (all of them
/// when it reaches the peaks), so each carry is at most two runs over contiguous memory, and
/// so is the final bagging. The node stays in registers through a run; new nodes are pushed
/// above every live peak, so a slot is never read before it is written.
#[cfg(feature = "merge-runs")]
#[inline(always)]
fn append_words<M: Merge>(
    ws: &mut Workspace,
    peaks: &[[u8; 32]],
    leaves: &[[u8; 32]],
    old_leaves: u64,
) -> [u64; 4] {
    let Some((first, rest)) = leaves.split_first() else {
        // Unreachable: the body has at least one leaf.
        return [0; 4];
    };
    let mut live = peaks.len();
    let mut top = live;
    let mut node = M::load_words(first);
    let mut count = old_leaves;
    let mut rest = rest.iter();
    loop {
        // One merge per carry: the new leaf completes a peak of each height below the lowest
        // 0 bit of the count, and the popped entries are exactly those peaks. The stack holds
        // one entry per 1 bit of the count, so `carries <= top`; the `get`s and the
        // saturation only keep panics out.
        let carries = count.trailing_ones() as usize;
        let from_slots = carries.min(top - live);
        let start = top - from_slots;
        for slot in ws.slots.get(start..top).unwrap_or(&[]).iter().rev() {
            node = M::merge_words_right(&slot.0, node);
        }
        let start_peaks = live.saturating_sub(carries - from_slots);
        for peak in peaks.get(start_peaks..live).unwrap_or(&[]).iter().rev() {
            node = M::merge_words_right(peak, node);
        }
        // Peaks are popped only once every slot is: then `start == live`.
        top = start - (live - start_peaks);
        live = start_peaks;
        let Some(leaf) = rest.next() else { break };
        if let Some(slot) = ws.slots.get_mut(top) {
            M::store_words(node, &mut slot.0);
        }
        top += 1;
        count += 1;
        node = M::load_words(leaf);
    }
    for slot in ws.slots.get(live..top).unwrap_or(&[]).iter().rev() {
        node = M::merge_words_left(node, &slot.0);
    }
    for peak in peaks.get(..live).unwrap_or(&[]).iter().rev() {
        node = M::merge_words_left(node, peak);
    }
    node
}

/// Peak `i` of the body (`i < peaks.len()` by construction; the fallback keeps panics out).
#[cfg(not(feature = "merge-runs"))]
#[inline(always)]
fn peak_at(peaks: &[[u8; 32]], i: usize) -> &[u8; 32] {
    peaks.get(i).unwrap_or(&[0; 32])
}

/// Append on caller-provided working memory: checks the body against the old commitment
/// (`old_root`, `old_size`) and returns the new commitment, which the caller compares with
/// the output (code 117 in the type script).
///
/// Order: 100 (old size), 103-107 (lengths, count, new size), 102 (old root), then the append.
pub fn append_with<M: Merge>(
    ws: &mut Workspace,
    old_root: &[u8; 32],
    old_size: u64,
    body: &[u8],
) -> Result<Commitment, Error> {
    let (words, new_leaves) = append_root::<M>(ws, old_root, old_size, body)?;
    Ok(commitment::<M>(words, new_leaves))
}

/// [`append_with`]'s new root as words, and the new leaf count.
#[inline(always)]
fn append_root<M: Merge>(
    ws: &mut Workspace,
    old_root: &[u8; 32],
    old_size: u64,
    body: &[u8],
) -> Result<([u64; 4], u64), Error> {
    let old_leaves = leaf_count(old_size).ok_or(Error::OldSizeInvalid)?;
    let (body, new_leaves) = split_body(body, old_leaves)?;
    match bag_words::<M>(body.peaks) {
        Some(root) if words_eq::<M>(root, old_root) => {}
        _ => return Err(Error::OldRootMismatch),
    }
    let words = append_words::<M>(ws, body.peaks, body.leaves, old_leaves);
    Ok((words, new_leaves))
}

/// [`append_with`] on a fresh workspace.
pub fn append<M: Merge>(
    old_root: &[u8; 32],
    old_size: u64,
    body: &[u8],
) -> Result<Commitment, Error> {
    append_with::<M>(&mut Workspace::new(), old_root, old_size, body)
}

/// Creation from initial leaves: the body is `u32 LE k || k leaves` (an append body for the
/// empty MMR, which has no peaks). Codes 103-107.
pub fn create_with<M: Merge>(ws: &mut Workspace, body: &[u8]) -> Result<Commitment, Error> {
    let (words, new_leaves) = create_root::<M>(ws, body)?;
    Ok(commitment::<M>(words, new_leaves))
}

/// [`create_with`]'s root as words, and the leaf count.
#[inline(always)]
fn create_root<M: Merge>(ws: &mut Workspace, body: &[u8]) -> Result<([u64; 4], u64), Error> {
    let (body, new_leaves) = split_body(body, 0)?;
    let words = append_words::<M>(ws, &[], body.leaves, 0);
    Ok((words, new_leaves))
}

/// [`create_with`] on a fresh workspace.
pub fn create<M: Merge>(body: &[u8]) -> Result<Commitment, Error> {
    create_with::<M>(&mut Workspace::new(), body)
}

fn commitment<M: Merge>(words: [u64; 4], leaves: u64) -> Commitment {
    let mut root = Hash([0; 32]);
    M::store_words(words, &mut root.0);
    Commitment {
        root: root.0,
        mmr_size: mmr_size_of(leaves),
    }
}

/// The shape of an ancestry proof from `n` to `m > n` leaves, derived from the two leaf
/// counts alone (spec, section "Ancestry proof").
///
/// `b` is the highest bit where `n` and `m` differ (set in `m`). Old peaks of heights above
/// `b` (`high`) are peaks of the new MMR too. The old peaks below `b` (`low`) all lie inside
/// the new peak of height `b`: the climb starts at the lowest of them and goes up to `b`;
/// at each height its sibling is the next old peak when the node is a right child (the bit of
/// `n` is set), else a node of new leaves given by the proof. The new peaks below `b` (and
/// `b` itself when no old peak is below it) are all new leaves and come as one bagged item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub old_leaves: u64,
    pub new_leaves: u64,
    /// Highest bit where the leaf counts differ.
    pub split: u32,
    /// Bits of `n` below `split`: the old peaks the climb consumes.
    pub low: u64,
    /// Bits of `n` above `split`: the peaks both MMRs share.
    pub high: u64,
    /// Whether a tail item (the bagging of the new peaks right of the climb) is present.
    pub tail: bool,
}

impl Shape {
    /// The shape for two leaf counts, or the code for sizes that cannot be an extension.
    pub fn new(old_leaves: u64, new_leaves: u64) -> Result<Shape, Error> {
        if old_leaves > new_leaves {
            return Err(Error::OldSizeAboveNew);
        }
        if old_leaves == new_leaves {
            return Err(Error::SizesEqual);
        }
        let split = 63 - (old_leaves ^ new_leaves).leading_zeros();
        let below = (1u64 << split) - 1;
        let low = old_leaves & below;
        let high = old_leaves & !(below | 1 << split);
        // Without an old peak below the split the new peak of height `split` is new leaves
        // only, so it belongs to the tail.
        let tail_bits = if low != 0 {
            new_leaves & below
        } else {
            new_leaves & (below | 1 << split)
        };
        Ok(Shape {
            old_leaves,
            new_leaves,
            split,
            low,
            high,
            tail: tail_bits != 0,
        })
    }

    /// Items of the climb: the lowest old peak below the split, then one sibling per height
    /// up to the split.
    pub fn climb_items(&self) -> u32 {
        if self.low == 0 {
            0
        } else {
            1 + self.split - self.low.trailing_zeros()
        }
    }

    /// Items of the proof.
    pub fn items(&self) -> u32 {
        self.climb_items() + u32::from(self.tail) + self.high.count_ones()
    }

    /// Merges the verifier runs: the old bagging (`popcount(n) - 1`), the climb, and the new
    /// bagging.
    pub fn merges(&self) -> u32 {
        let old = self.old_leaves.count_ones() - 1;
        let climb = self.climb_items().saturating_sub(1);
        // With a climb, the tail (if any) joins its peak, then each shared peak; without one
        // the tail item starts the bagging and each shared peak joins it.
        let new = u32::from(self.tail && self.low != 0) + self.high.count_ones();
        old + climb + new
    }
}

/// Runs an ancestry proof: checks the sizes and the length (codes 100, 101, 108-112) and
/// returns the old and the new root as words.
fn ancestry_words<M: Merge>(
    old_size: u64,
    new_size: u64,
    proof: &[u8],
) -> Result<([u64; 4], [u64; 4]), Error> {
    use Error::*;
    let n = leaf_count(old_size).ok_or(OldSizeInvalid)?;
    let m = leaf_count(new_size).ok_or(NewSizeInvalid)?;
    let shape = Shape::new(n, m)?;
    // At most 1 + 50 + 1 + 50 items: no overflow.
    let expected = HASH_LEN * shape.items() as usize;
    if proof.len() < expected {
        return Err(ProofTruncated);
    }
    if proof.len() - expected >= HASH_LEN {
        return Err(ItemsLeftOver);
    }
    if proof.len() != expected {
        return Err(ProofTrailingBytes);
    }
    let items = proof.as_chunks::<HASH_LEN>().0;
    #[cfg(feature = "merge-runs")]
    return Ok(ancestry_runs::<M>(&shape, items));
    #[cfg(not(feature = "merge-runs"))]
    {
        let mut items = items.iter();
        // The length check makes every `next` succeed; the fallback keeps panics out.
        let mut next = || items.next().unwrap_or(&[0; 32]);

        let mut high = shape.high;
        let (mut old, mut new);
        if shape.low != 0 {
            let h0 = shape.low.trailing_zeros();
            // Bits of the old peaks the climb meets as left siblings.
            let lefts = shape.low ^ (1 << h0);
            old = M::load_words(next());
            let mut node = old;
            for j in h0..shape.split {
                let sibling = next();
                if lefts >> j & 1 != 0 {
                    node = M::merge_words_right(sibling, node);
                    old = M::merge_words_left(old, sibling);
                } else {
                    node = M::merge_words_left(node, sibling);
                }
            }
            new = if shape.tail {
                M::merge_words_right(next(), node)
            } else {
                node
            };
        } else {
            // n >= 1 and no old peak below the split: at least one shared peak, and the tail.
            new = M::load_words(next());
            let peak = next();
            old = M::load_words(peak);
            new = M::merge_words_left(new, peak);
            high &= high.wrapping_sub(1);
        }
        while high != 0 {
            let peak = next();
            old = M::merge_words_left(old, peak);
            new = M::merge_words_left(new, peak);
            high &= high - 1;
        }
        Ok((old, new))
    }
}

/// [`ancestry_words`]'s pass over the items as runs: the new root first (the climb, the tail,
/// the shared peaks), then the old root (the climb's first item, the old peaks the climb met
/// as left siblings, the shared peaks), each with its node in the kernel's registers. The
/// items and their roles are those of the single loop; only the order of the merges of the
/// two independent roots differs.
#[cfg(feature = "merge-runs")]
#[inline(always)]
fn ancestry_runs<M: Merge>(shape: &Shape, items: &[[u8; 32]]) -> ([u64; 4], [u64; 4]) {
    // The length check made `items` exactly `shape.items()` long; the fallbacks only keep
    // panics out.
    let climb_len = shape.climb_items() as usize;
    let (climb, rest) = items.split_at_checked(climb_len).unwrap_or((&[], items));
    let (tail, high) = match rest.split_first() {
        Some((t, h)) if shape.tail => (Some(t), h),
        _ => (None, rest),
    };
    let Some((first, siblings)) = climb.split_first() else {
        // n >= 1 and no old peak below the split: the tail, then at least one shared peak.
        let mut new = M::load_words(tail.unwrap_or(&[0; 32]));
        for peak in high {
            new = M::merge_words_left(new, peak);
        }
        let (first, shared) = high.split_first().unwrap_or((&[0; 32], &[]));
        let mut old = M::load_words(first);
        for peak in shared {
            old = M::merge_words_left(old, peak);
        }
        return (old, new);
    };
    let h0 = shape.low.trailing_zeros();
    // Bit `i` set: sibling `i` is an old peak, met as a left sibling.
    let lefts = (shape.low ^ (1 << h0)) >> h0;
    let mut new = M::load_words(first);
    let mut bits = lefts;
    for sibling in siblings {
        new = if bits & 1 != 0 {
            M::merge_words_right(sibling, new)
        } else {
            M::merge_words_left(new, sibling)
        };
        bits >>= 1;
    }
    if let Some(t) = tail {
        new = M::merge_words_right(t, new);
    }
    for peak in high {
        new = M::merge_words_left(new, peak);
    }
    let mut old = M::load_words(first);
    let mut bits = lefts;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        old = M::merge_words_left(old, siblings.get(i).unwrap_or(&[0; 32]));
        bits &= bits - 1;
    }
    for peak in high {
        old = M::merge_words_left(old, peak);
    }
    (old, new)
}

/// Checks that the MMR committed to by (`new_root`, `new_size`) extends the one committed to
/// by (`old_root`, `old_size`). Order: 100, 101, 108-112 (sizes and length, from the sizes
/// alone), 102 (old root), 113 (new root).
pub fn verify_ancestry<M: Merge>(
    old_root: &[u8; 32],
    old_size: u64,
    new_root: &[u8; 32],
    new_size: u64,
    proof: &[u8],
) -> Result<(), Error> {
    let (old, new) = ancestry_words::<M>(old_size, new_size, proof)?;
    if !words_eq::<M>(old, old_root) {
        return Err(Error::OldRootMismatch);
    }
    if !words_eq::<M>(new, new_root) {
        return Err(Error::NewRootMismatch);
    }
    Ok(())
}

/// The (old root, new root) an ancestry proof stands for, after the size and length checks;
/// for tools that build commitments around a proof.
pub fn ancestry_roots<M: Merge>(
    old_size: u64,
    new_size: u64,
    proof: &[u8],
) -> Result<([u8; 32], [u8; 32]), Error> {
    let (old, new) = ancestry_words::<M>(old_size, new_size, proof)?;
    let (mut a, mut b) = (Hash([0; 32]), Hash([0; 32]));
    M::store_words(old, &mut a.0);
    M::store_words(new, &mut b.0);
    Ok((a.0, b.0))
}

/// The output's data (`new_root`, `new_size`) is the computed root, given as words, and the
/// size of `new_leaves` leaves (code 117).
#[cfg(feature = "word-compare")]
#[inline(always)]
fn output_matches<M: Merge>(
    words: [u64; 4],
    new_leaves: u64,
    new_root: &[u8; 32],
    new_size: u64,
) -> Result<(), Error> {
    if new_size != mmr_size_of(new_leaves) || !words_eq::<M>(words, new_root) {
        return Err(Error::OutputMismatch);
    }
    Ok(())
}

/// `out == computed` as 40 bytes of cell data.
#[cfg(not(feature = "word-compare"))]
fn output_is<M: Merge>(output: &[u8], computed: &Commitment) -> Result<(), Error> {
    let (root, size) = split_data(output)?;
    if size != computed.mmr_size || !words_eq::<M>(M::load_words(&computed.root), root) {
        return Err(Error::OutputMismatch);
    }
    Ok(())
}
