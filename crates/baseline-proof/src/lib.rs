//! The baseline verifier's payload (`WitnessArgs.lock`) and its verification through
//! `ckb-merkle-mountain-range`'s `MerkleProof`, hardened so that the upstream verifier only
//! ever runs on inputs whose shape is fixed by the leaf positions and mmr_size.
//!
//! Payload layout (docs/baseline-format.md):
//! `u32 LE leaf_count | leaf_count × (u64 LE position | 32-byte value) | u32 LE item_count |
//! item_count × 32-byte item`, nothing after.
//!
//! Why the upstream verifier needs guarding: `MerkleProof::verify` accepts a proof without
//! leaves (a root passed as a peak), sorts and dedups leaves itself, and stops reading peaks
//! when the proof runs out, so the same root can be reached with more than one shape. Once the
//! positions are strictly increasing leaf positions below mmr_size and the item count equals
//! the count `gen_proof` produces for those positions, every hash the verifier computes has a
//! fixed place in the MMR, and a forged leaf needs a blake2b collision.
#![no_std]

extern crate alloc;

mod node;
pub mod shape;

use alloc::vec::Vec;
use ckb_merkle_mountain_range::{Merge, MerkleProof};
use core::marker::PhantomData;
pub use node::Node;

/// The merge function the proof is verified with: blake2b-256 "ckb-default-hash" of
/// left || right. Contracts pass their tuned kernel; host tests pass a reference.
///
/// # Safety
/// `merge_uninit` must write all 32 bytes of `out` before returning: the `uninit` feature
/// treats the box it wrote into as initialised.
pub unsafe trait Hasher {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]);

    fn merge_uninit(left: &[u8; 32], right: &[u8; 32], out: &mut core::mem::MaybeUninit<[u8; 32]>) {
        Self::merge(left, right, out.write([0; 32]));
    }

    /// Storage for one merge result (feature `ref-items`), never freed: by default a leaked
    /// heap box. An implementation must return 32 bytes that no other reference (earlier
    /// slot, leaf, item or root) can reach, valid for the rest of the program.
    #[cfg(feature = "ref-items")]
    #[inline(always)]
    fn node_slot() -> &'static mut core::mem::MaybeUninit<[u8; 32]> {
        alloc::boxed::Box::leak(alloc::boxed::Box::new_uninit())
    }
}

/// Rejections of the baseline payload, codes 20-39 (docs/error-codes.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i8)]
pub enum BaselineError {
    /// The payload ends before a length field or the data it announces.
    Truncated = 20,
    /// Bytes remain after the last proof item.
    TrailingBytes = 21,
    /// The payload proves no leaf.
    NoLeaves = 22,
    /// A leaf position is at or beyond mmr_size.
    LeafOutOfRange = 23,
    /// A leaf position names an inner node, not a leaf.
    NotALeaf = 24,
    /// Leaf positions are not strictly increasing (unsorted or duplicated).
    LeavesUnsorted = 25,
    /// Fewer proof items than the positions require.
    ProofTooShort = 26,
    /// More proof items than the positions require.
    ProofTooLong = 27,
    /// `MerkleProof::verify` itself returned an error.
    Mmr = 28,
}

impl BaselineError {
    pub const fn code(self) -> i8 {
        self as i8
    }
}

/// Every failure of [`verify`]: a payload rejection, or a well-formed proof whose root differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    Payload(BaselineError),
    RootMismatch,
}

impl Error {
    pub const fn code(self) -> i8 {
        match self {
            Error::Payload(e) => e.code(),
            Error::RootMismatch => mmr_lock::LockError::RootMismatch.code(),
        }
    }
}

impl From<BaselineError> for Error {
    fn from(e: BaselineError) -> Self {
        Error::Payload(e)
    }
}

pub const LEAF_SIZE: usize = 8 + 32;
pub const ITEM_SIZE: usize = 32;

/// A parsed payload: the leaf records and proof items, still borrowed from the witness.
#[derive(Debug, Clone, Copy)]
pub struct Payload<'a> {
    leaves: &'a [u8],
    items: &'a [u8],
}

fn split_u32(bytes: &[u8]) -> Result<(usize, &[u8]), BaselineError> {
    let (len, rest) = bytes
        .split_first_chunk::<4>()
        .ok_or(BaselineError::Truncated)?;
    Ok((u32::from_le_bytes(*len) as usize, rest))
}

fn split_records(bytes: &[u8], count: usize, size: usize) -> Result<(&[u8], &[u8]), BaselineError> {
    let len = count.checked_mul(size).ok_or(BaselineError::Truncated)?;
    if bytes.len() < len {
        return Err(BaselineError::Truncated);
    }
    Ok(bytes.split_at(len))
}

/// A little-endian u64 from 8 bytes at any alignment.
#[cfg(not(feature = "word-loads"))]
#[inline(always)]
fn read_u64_le(bytes: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*bytes)
}

/// A little-endian u64 from 8 bytes at any alignment with one `ld` on riscv64 (feature
/// `word-loads`, through `mmr-blake2b`'s loads): the compiler, not told that misaligned loads
/// are cheap, would assemble it from 8 `lbu`. Elsewhere the portable form.
#[cfg(feature = "word-loads")]
#[inline(always)]
fn read_u64_le(bytes: &[u8; 8]) -> u64 {
    mmr_blake2b::load_u64(bytes)
}

#[cfg(not(feature = "word-loads"))]
fn eq32(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a == b
}

/// Equality of two 32-byte nodes as four word compares (feature `word-loads`) instead of a
/// call to `memcmp` (on riscv64 each word is one `ld`; host builds run the same code).
#[cfg(feature = "word-loads")]
fn eq32(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let mut diff = 0u64;
    for (a, b) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        // Chunks of 8 bytes; the fallback is unreachable and only keeps panics out.
        let a = a.first_chunk::<8>().unwrap_or(&[0; 8]);
        let b = b.first_chunk::<8>().unwrap_or(&[0; 8]);
        diff |= read_u64_le(a) ^ read_u64_le(b);
    }
    diff == 0
}

fn as_array(bytes: &[u8]) -> &[u8; 32] {
    // Callers only pass exactly 32 bytes (a chunk of 32, or bytes 8..40 of a 40-byte record),
    // so the fallback is unreachable; it exists to keep a panic path out of the contract.
    bytes.first_chunk::<32>().unwrap_or(&[0; 32])
}

impl<'a> Payload<'a> {
    pub fn parse(payload: &'a [u8]) -> Result<Self, BaselineError> {
        let (leaf_count, rest) = split_u32(payload)?;
        let (leaves, rest) = split_records(rest, leaf_count, LEAF_SIZE)?;
        let (item_count, rest) = split_u32(rest)?;
        let (items, rest) = split_records(rest, item_count, ITEM_SIZE)?;
        if !rest.is_empty() {
            return Err(BaselineError::TrailingBytes);
        }
        Ok(Payload { leaves, items })
    }

    pub fn leaf_count(&self) -> usize {
        self.leaves.len() / LEAF_SIZE
    }

    pub fn item_count(&self) -> usize {
        self.items.len() / ITEM_SIZE
    }

    /// (position, value) of each leaf, in payload order.
    pub fn leaves(&self) -> impl Iterator<Item = (u64, &'a [u8; 32])> + 'a {
        self.leaves.chunks_exact(LEAF_SIZE).map(|record| {
            let (pos, value) = record.split_at(8);
            // Exactly 8 bytes (a 40-byte record split at 8): the fallback is unreachable and
            // only keeps a panic path out of the contract.
            let pos = pos.first_chunk::<8>().unwrap_or(&[0; 8]);
            (read_u64_le(pos), as_array(value))
        })
    }

    pub fn items(&self) -> impl Iterator<Item = &'a [u8; 32]> + 'a {
        self.items.chunks_exact(ITEM_SIZE).map(as_array)
    }
}

struct MergeWith<'a, H>(PhantomData<(&'a (), H)>);

impl<'a, H: Hasher> Merge for MergeWith<'a, H> {
    type Item = Node<'a>;

    fn merge(left: &Node<'a>, right: &Node<'a>) -> ckb_merkle_mountain_range::Result<Node<'a>> {
        Ok(Node::merged::<H>(left.bytes(), right.bytes()))
    }
}

/// Checks the payload against `root` and `mmr_size` (already validated by
/// `mmr_lock::parse_args`, which also gives `leaf_count`).
pub fn verify<H: Hasher>(
    payload: &[u8],
    root: &[u8; 32],
    mmr_size: u64,
    leaf_count: u64,
) -> Result<(), Error> {
    let payload = Payload::parse(payload)?;
    if payload.leaf_count() == 0 {
        return Err(BaselineError::NoLeaves.into());
    }
    // The leaves are checked and collected for `MerkleProof::verify` in one pass, so each
    // position is read once.
    let mut leaves: Vec<(u64, Node)> = Vec::with_capacity(payload.leaf_count());
    let mut shape = shape::ProofLen::new(leaf_count);
    let mut previous: Option<u64> = None;
    for (pos, value) in payload.leaves() {
        if pos >= mmr_size {
            return Err(BaselineError::LeafOutOfRange.into());
        }
        let index = mmr_lock::mmr::leaf_pos_to_index(pos).ok_or(BaselineError::NotALeaf)?;
        if previous.is_some_and(|p| p >= pos) {
            return Err(BaselineError::LeavesUnsorted.into());
        }
        previous = Some(pos);
        shape.push(index);
        leaves.push((pos, Node::borrowed(value)));
    }
    let expected = shape.finish();
    match payload.item_count().cmp(&expected) {
        core::cmp::Ordering::Less => return Err(BaselineError::ProofTooShort.into()),
        core::cmp::Ordering::Greater => return Err(BaselineError::ProofTooLong.into()),
        core::cmp::Ordering::Equal => {}
    }
    let items: Vec<Node> = payload.items().map(Node::borrowed).collect();
    let proof = MerkleProof::<Node, MergeWith<H>>::new(mmr_size, items);
    match proof.verify(Node::borrowed(root), leaves) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::RootMismatch),
        Err(_) => Err(BaselineError::Mmr.into()),
    }
}

/// Encodes a payload (tx-generator, tests).
pub fn encode(leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + leaves.len() * LEAF_SIZE + items.len() * ITEM_SIZE);
    out.extend_from_slice(&(leaves.len() as u32).to_le_bytes());
    for (pos, value) in leaves {
        out.extend_from_slice(&pos.to_le_bytes());
        out.extend_from_slice(value);
    }
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn eq32_sees_every_byte() {
        let a: [u8; 32] = core::array::from_fn(|i| i as u8 * 7 + 1);
        assert!(super::eq32(&a, &a.clone()));
        for i in 0..32 {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!super::eq32(&a, &b), "byte {i} bit {bit}");
            }
        }
    }
}
