//! The contracts' hash: blake2b-256 "ckb-default-hash" of `left || right` on the hashing path
//! the crate's switches pick (docs/performance.md), one `Merge` for every contract on this
//! trait. The assembly entries exist only on riscv64; a host build of a contract (its unit
//! tests) falls back to the Rust kernel.

use crate::Merge;

pub struct KernelMerge;

impl Merge for KernelMerge {
    #[inline(always)]
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        #[cfg(all(feature = "asm-kernel", target_arch = "riscv64"))]
        mmr_blake2b::merge_into_asm(left, right, out);
        #[cfg(all(
            feature = "merge-kernel",
            not(all(feature = "asm-kernel", target_arch = "riscv64"))
        ))]
        mmr_blake2b::merge_into(left, right, out);
        #[cfg(not(feature = "merge-kernel"))]
        mmr_blake2b::merge_const_builder(left, right, out);
    }

    #[cfg(all(feature = "asm-chain", target_arch = "riscv64"))]
    #[inline(always)]
    fn merge_to_words(left: &[u8; 32], right: &[u8; 32]) -> [u64; 4] {
        mmr_blake2b::merge_to_words_asm(left, right)
    }

    #[cfg(all(feature = "asm-chain", target_arch = "riscv64"))]
    #[inline(always)]
    fn merge_words_left(node: [u64; 4], item: &[u8; 32]) -> [u64; 4] {
        mmr_blake2b::merge_words_asm(node, item)
    }

    #[cfg(all(feature = "asm-chain", target_arch = "riscv64"))]
    #[inline(always)]
    fn merge_words_right(item: &[u8; 32], node: [u64; 4]) -> [u64; 4] {
        mmr_blake2b::merge_words_right_asm(item, node)
    }

    #[inline(always)]
    fn store_words(words: [u64; 4], out: &mut [u8; 32]) {
        mmr_blake2b::store_words(words, out);
    }

    #[inline(always)]
    fn load_u64(bytes: &[u8; 8]) -> u64 {
        mmr_blake2b::load_u64(bytes)
    }

    #[inline(always)]
    fn load_words(bytes: &[u8; 32]) -> [u64; 4] {
        mmr_blake2b::load_words(bytes)
    }
}
