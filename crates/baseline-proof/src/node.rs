//! The item type `MerkleProof` works on. The journey's steps change its representation, so
//! each representation is one cargo feature of this crate.

use crate::Hasher;
#[cfg(all(feature = "zero-copy", not(feature = "ref-items")))]
use alloc::boxed::Box;
#[cfg(not(feature = "zero-copy"))]
use alloc::vec::Vec;
#[cfg(not(feature = "zero-copy"))]
use core::marker::PhantomData;

/// A 32-byte MMR node: one pointer, to the witness (leaves, proof items), the args (root) or a
/// merge result leaked from the heap. One word per queue element and no match per access;
/// merge results are never freed, which costs nothing under the contract's bump allocator
/// (and leaks 32 bytes per merge elsewhere, so host users keep the default `Node`).
#[cfg(feature = "ref-items")]
#[derive(Debug, Clone, Copy)]
#[repr(transparent)]
pub struct Node<'a>(&'a [u8; 32]);

/// A 32-byte MMR node: a leaf, a proof item, the root or a computed parent.
#[cfg(all(feature = "zero-copy", not(feature = "ref-items")))]
#[derive(Debug, Clone)]
pub enum Node<'a> {
    /// Borrowed from the witness (leaves, proof items) or the args (root): no copy.
    Borrowed(&'a [u8; 32]),
    /// A merge result, on the heap so the enum stays two words wide.
    Owned(Box<[u8; 32]>),
}

/// A 32-byte MMR node, copied into its own heap buffer like the journey's `VariableBytes`.
#[cfg(not(any(feature = "zero-copy", feature = "ref-items")))]
#[derive(Debug, Clone)]
pub struct Node<'a>(Vec<u8>, PhantomData<&'a ()>);

#[cfg(feature = "ref-items")]
impl<'a> Node<'a> {
    pub fn borrowed(bytes: &'a [u8; 32]) -> Self {
        Node(bytes)
    }

    #[inline(always)]
    pub fn bytes(&self) -> &'a [u8; 32] {
        self.0
    }

    #[inline(always)]
    pub fn merged<H: Hasher>(left: &[u8; 32], right: &[u8; 32]) -> Self {
        let out: &'a mut core::mem::MaybeUninit<[u8; 32]> = H::node_slot();
        H::merge_uninit(left, right, out);
        // SAFETY: `Hasher` is an unsafe trait whose contract is that `merge_uninit` wrote all
        // 32 bytes.
        Node(unsafe { out.assume_init_ref() })
    }
}

#[cfg(not(feature = "ref-items"))]
impl<'a> Node<'a> {
    #[cfg(feature = "zero-copy")]
    pub fn borrowed(bytes: &'a [u8; 32]) -> Self {
        Node::Borrowed(bytes)
    }

    #[cfg(not(feature = "zero-copy"))]
    pub fn borrowed(bytes: &'a [u8; 32]) -> Self {
        Node(bytes.to_vec(), PhantomData)
    }

    #[cfg(feature = "zero-copy")]
    pub fn bytes(&self) -> &[u8; 32] {
        match self {
            Node::Borrowed(b) => b,
            Node::Owned(b) => b,
        }
    }

    #[cfg(not(feature = "zero-copy"))]
    pub fn bytes(&self) -> &[u8; 32] {
        // Every constructor stores exactly 32 bytes; the fallback keeps panics out.
        self.0.first_chunk::<32>().unwrap_or(&[0; 32])
    }

    #[cfg(all(feature = "zero-copy", feature = "uninit"))]
    pub fn merged<H: Hasher>(left: &[u8; 32], right: &[u8; 32]) -> Self {
        let mut out = Box::<[u8; 32]>::new_uninit();
        H::merge_uninit(left, right, &mut out);
        // SAFETY: `Hasher` is an unsafe trait whose contract is that `merge_uninit` wrote all
        // 32 bytes.
        Node::Owned(unsafe { out.assume_init() })
    }

    #[cfg(all(feature = "zero-copy", not(feature = "uninit")))]
    pub fn merged<H: Hasher>(left: &[u8; 32], right: &[u8; 32]) -> Self {
        let mut out = Box::new([0u8; 32]);
        H::merge(left, right, &mut out);
        Node::Owned(out)
    }

    #[cfg(not(feature = "zero-copy"))]
    pub fn merged<H: Hasher>(left: &[u8; 32], right: &[u8; 32]) -> Self {
        let mut out = [0u8; 32];
        H::merge(left, right, &mut out);
        Node(out.to_vec(), PhantomData)
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        crate::eq32(self.bytes(), other.bytes())
    }
}
