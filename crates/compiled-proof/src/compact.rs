//! The compact compiled format, version 2 (spec: `docs/compiled-format.md`).
//!
//! A payload is a version byte, the number of proved leaves and their leaf indexes as
//! varints (gaps between ascending indexes), the leaf values, and the proof items in the order
//! the verifier consumes them. There are no commands: the proof's shape follows from the
//! indexes and `leaf_count`, so every proof has exactly one encoding, and the only bytes
//! above the hashes are the indexes (about one byte per leaf).
//!
//! Verification is one pass over the index section (it is checked whole before any hash, so
//! every rejection of it precedes the hashing) and then one forward pass over the values and
//! items, on a fixed stack of [`STACK_CAPACITY`] entries, with no heap.

use crate::{check_root, FormatError, Hash, Merge, LEAF_COUNT_LIMIT, STACK_CAPACITY};

/// The version byte, the payload's first.
pub const VERSION: u8 = 0x02;
/// At most this many bytes per varint: 56 bits, enough for every value below 2^50.
pub const VARINT_MAX_LEN: usize = 8;
/// Bytes of a leaf value and of a proof item.
pub const HASH_LEN: usize = 32;

/// One varint at the start of `bytes`: its value and the bytes after it, or the code of the
/// rejection. `truncated` is the code when the bytes end inside it.
#[inline(always)]
fn read_varint(bytes: &[u8], truncated: FormatError) -> Result<(u64, &[u8]), FormatError> {
    let mut value = 0u64;
    let mut rest = bytes;
    let mut shift = 0u32;
    loop {
        let Some((&byte, tail)) = rest.split_first() else {
            return Err(truncated);
        };
        rest = tail;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            // A last group of zero only in a one-byte varint: one encoding per value.
            if byte == 0 && shift != 0 {
                return Err(FormatError::VarintNonCanonical);
            }
            return Ok((value, rest));
        }
        shift += 7;
        if shift == 7 * VARINT_MAX_LEN as u32 {
            return Err(FormatError::VarintTooLong);
        }
    }
}

/// A varint the index section check has already accepted: no checks, no panics.
#[inline(always)]
fn next_varint(bytes: &mut &[u8]) -> u64 {
    let mut value = 0u64;
    let mut shift = 0u32;
    while let Some((&byte, tail)) = bytes.split_first() {
        *bytes = tail;
        value |= u64::from(byte & 0x7f).wrapping_shl(shift);
        if byte < 0x80 {
            break;
        }
        shift = shift.wrapping_add(7);
    }
    value
}

/// The sections of a payload whose header and index section passed steps 2-5.
struct Sections<'a> {
    n: u64,
    indexes: &'a [u8],
    values: &'a [u8],
    items: &'a [u8],
}

/// Steps 2-5 of the spec: version, count, every index, the values' length. Not inlined: the
/// walk's registers are allocated better without it (2,172 cycles on the reference seed).
#[inline(never)]
fn split(payload: &[u8], leaf_count: u64) -> Result<Sections<'_>, FormatError> {
    use FormatError::*;
    let Some((&version, rest)) = payload.split_first() else {
        return Err(HeaderTruncated);
    };
    if version != VERSION {
        return Err(VersionUnsupported);
    }
    let (n, indexes) = read_varint(rest, HeaderTruncated)?;
    if n == 0 {
        return Err(NoLeaves);
    }
    // Every index: canonical, ascending by construction, inside the MMR. `next` is the
    // smallest index the next gap can name; it stays below 2^50 + 1 and a gap below 2^56,
    // so the sum cannot wrap.
    let mut rest = indexes;
    let mut next = 0u64;
    let mut left = n;
    while left != 0 {
        let (gap, tail) = read_varint(rest, IndexesTruncated)?;
        let index = next + gap;
        if index >= leaf_count {
            return Err(LeafIndexOutOfRange);
        }
        next = index + 1;
        rest = tail;
        left -= 1;
    }
    let indexes = &indexes[..indexes.len() - rest.len()];
    // n <= index bytes <= payload length, so 32n fits.
    let values_len = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(HASH_LEN))
        .ok_or(LeavesTruncated)?;
    let (values, items) = rest.split_at_checked(values_len).ok_or(LeavesTruncated)?;
    Ok(Sections {
        n,
        indexes,
        values,
        items,
    })
}

/// The proved leaves of a payload, `(leaf index, value)` ascending, for callers that inspect
/// them (an owner binding). The header and the index section are checked (steps 2-5).
pub fn leaves(payload: &[u8], leaf_count: u64) -> Result<Leaves<'_>, FormatError> {
    let s = split(payload, leaf_count)?;
    Ok(Leaves {
        indexes: s.indexes,
        values: s.values,
        next: 0,
    })
}

/// Iterator over the proved leaves, see [`leaves`].
#[derive(Clone)]
pub struct Leaves<'a> {
    indexes: &'a [u8],
    values: &'a [u8],
    next: u64,
}

impl<'a> Leaves<'a> {
    /// The proved leaves' values alone, in index order (no index decoding).
    pub fn values(&self) -> core::slice::Iter<'a, [u8; 32]> {
        self.values.as_chunks::<HASH_LEN>().0.iter()
    }
}

impl<'a> Iterator for Leaves<'a> {
    type Item = (u64, &'a [u8; 32]);

    fn next(&mut self) -> Option<Self::Item> {
        let (value, rest) = self.values.split_first_chunk::<HASH_LEN>()?;
        self.values = rest;
        let index = self.next.wrapping_add(next_varint(&mut self.indexes));
        self.next = index.wrapping_add(1);
        Some((index, value))
    }
}

/// The verifier's working memory: finished peaks and the nodes waiting for a sibling. An
/// accepted payload needs at most 50 entries (spec, "Stack bound").
pub struct Stack {
    entries: [Hash; STACK_CAPACITY],
}

impl Stack {
    pub const fn new() -> Self {
        Stack {
            entries: [Hash([0; 32]); STACK_CAPACITY],
        }
    }
}

impl Default for Stack {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks a version 2 payload against `root` for an MMR of `leaf_count` leaves.
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

/// [`verify_with`], returning the proved leaves of the accepted payload (for an owner
/// binding) without parsing it again.
pub fn verify_leaves<'a, M: Merge>(
    stack: &mut Stack,
    payload: &'a [u8],
    root: &[u8; 32],
    leaf_count: u64,
) -> Result<Leaves<'a>, FormatError> {
    verify_with::<M>(stack, payload, root, leaf_count)?;
    Ok(verified_leaves(payload))
}

/// The leaves of a payload that passed steps 2-5: the index section's end is the byte after
/// its `n + 1`-th varint end (the count's and the gaps'), found without the checks again.
/// Rescanned rather than kept from the verification, whose walk would carry it in one more
/// register across every hash.
fn verified_leaves(payload: &[u8]) -> Leaves<'_> {
    let body = payload.get(1..).unwrap_or_default();
    let mut count = body;
    let n = next_varint(&mut count);
    let mut ends = 0u64;
    let mut len = 0usize;
    for &byte in count {
        len += 1;
        if byte < 0x80 {
            ends += 1;
            if ends == n {
                break;
            }
        }
    }
    let (indexes, values) = count.split_at_checked(len).unwrap_or_default();
    Leaves {
        indexes,
        values,
        next: 0,
    }
}

/// Steps 1-7 of the spec: the bagged root.
pub fn compute_root<M: Merge>(payload: &[u8], leaf_count: u64) -> Result<[u8; 32], FormatError> {
    let words = root_words::<M>(&mut Stack::new(), payload, leaf_count)?;
    let mut root = Hash([0; 32]);
    M::store_words(words, &mut root.0);
    Ok(root.0)
}

/// The next proof item, or `ItemTruncated`.
#[inline(always)]
fn take_item<'a>(items: &mut &'a [u8]) -> Result<&'a [u8; 32], FormatError> {
    let (item, rest) = items
        .split_first_chunk::<HASH_LEN>()
        .ok_or(FormatError::ItemTruncated)?;
    *items = rest;
    Ok(item)
}

/// Steps 1-7; the root as words.
///
/// Each proved leaf rises from height 0 to its stop height: the height where the next proved
/// leaf joins it (the highest bit in which their indexes differ), or its peak's height when
/// the next leaf is in a later peak or there is none. At each height below the stop, a left
/// child takes the next item as its right sibling; a right child takes the node waiting at
/// that height (the left neighbour's subtree, see `pending`) or else the next item. A node
/// that stops below its peak waits on the stack; one that reaches its peak is a finished
/// peak. Indexes ascend, so waiting nodes have strictly decreasing heights and the one a
/// right child meets is always the top of the stack.
#[inline(never)]
fn root_words<M: Merge>(
    stack: &mut Stack,
    payload: &[u8],
    leaf_count: u64,
) -> Result<[u64; 4], FormatError> {
    // 1.
    if leaf_count == 0 || leaf_count >= LEAF_COUNT_LIMIT {
        return Err(FormatError::LeafCountInvalid);
    }
    // 2.-5.
    let Sections {
        n,
        mut indexes,
        mut values,
        mut items,
    } = split(payload, leaf_count)?;
    let entries = &mut stack.entries;
    // Stack slots are indexed masked with MASK: no bounds checks, and an accepted payload
    // never uses more than 50 (spec, "Stack bound").
    const MASK: usize = STACK_CAPACITY - 1;
    let mut top = 0usize; // entries in use
    let mut pending = 0u64; // bit h: a node of height h waits on the top of the stack
    let mut left = n; // leaves not pushed yet
    let mut index = next_varint(&mut indexes);
    let mut rem = leaf_count;

    // 6. Arithmetic: indexes were checked below leaf_count < 2^50, so nothing wraps.
    while rem != 0 {
        let hbit = 1u64 << (63 - rem.leading_zeros());
        let height = hbit.trailing_zeros();
        let end = leaf_count.wrapping_sub(rem).wrapping_add(hbit);
        rem ^= hbit;
        let peak = if left != 0 && index < end {
            // The peak holds proved leaves: each rises to its stop height.
            loop {
                let Some((value, rest)) = values.split_first_chunk::<HASH_LEN>() else {
                    // Step 5 sized the values for every leaf: unreachable.
                    return Err(FormatError::LeavesTruncated);
                };
                values = rest;
                left = left.wrapping_sub(1);
                let next = if left != 0 {
                    index
                        .wrapping_add(1)
                        .wrapping_add(next_varint(&mut indexes))
                } else {
                    u64::MAX
                };
                let stop = if next < end {
                    63 - (index ^ next).leading_zeros()
                } else {
                    height
                };
                let mut node = M::load_words(value);
                // The heights below `stop` where this leaf's node is a right child and meets a
                // waiting node; every other height takes an item. So the rise takes exactly
                // `needed` items, checked once (the walk's only failure is a short item).
                let low = (1u64 << stop) - 1;
                let merges = index & pending & low;
                pending ^= merges;
                let needed = stop.wrapping_sub(merges.count_ones()) as usize * HASH_LEN;
                let Some((mut run, rest)) = items.split_at_checked(needed) else {
                    return Err(FormatError::ItemTruncated);
                };
                items = rest;
                // Runs of items between the merges: in a run only the items' cursor and end
                // and `x` (the sides still to go) live across a hash, the three registers the
                // assembly kernel leaves alone. `run` holds exactly the items the rise takes,
                // so the fallback of the split is never taken.
                let mut h = 0u32;
                loop {
                    let ahead = merges >> h;
                    let run_end = if ahead != 0 {
                        h.wrapping_add(ahead.trailing_zeros())
                    } else {
                        stop
                    };
                    let (segment, after) = run
                        .split_at_checked(run_end.wrapping_sub(h) as usize * HASH_LEN)
                        .unwrap_or_default();
                    run = after;
                    let mut x = index >> h;
                    for item in segment.as_chunks::<HASH_LEN>().0 {
                        node = if x & 1 == 0 {
                            M::merge_words_left(node, item)
                        } else {
                            M::merge_words_right(item, node)
                        };
                        x >>= 1;
                    }
                    if run_end == stop {
                        break;
                    }
                    // A right child meets the node waiting at this height: the stack's top.
                    top = top.wrapping_sub(1);
                    node = M::merge_words_right(&entries[top & MASK].0, node);
                    h = run_end.wrapping_add(1);
                }
                index = next;
                if stop == height {
                    break node;
                }
                pending |= 1 << stop;
                M::store_words(node, &mut entries[top & MASK].0);
                top = top.wrapping_add(1);
            }
        } else if left == 0 && rem != 0 {
            // No proved leaf here or later, and at least one more peak: one item bags this
            // peak and all the following ones. (Folding the two leafless arms into one costs
            // the walk 0.2% more cycles: its code is laid out differently.)
            rem = 0;
            M::load_words(take_item(&mut items)?)
        } else {
            M::load_words(take_item(&mut items)?)
        };
        M::store_words(peak, &mut entries[top & MASK].0);
        top = top.wrapping_add(1);
    }
    // 7.
    if !items.is_empty() {
        return Err(FormatError::TrailingBytes);
    }
    // Bag the peaks from the right (at least one: rem reached 0 through a peak).
    let mut acc = M::load_words(&entries[top.wrapping_sub(1) & MASK].0);
    let mut i = top.wrapping_sub(1);
    while i != 0 {
        i -= 1;
        acc = M::merge_words_left(acc, &entries[i & MASK].0);
    }
    Ok(acc)
}
