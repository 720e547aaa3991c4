//! Shared fixtures: the reference blake2b merge (blake2b-rs), counted per thread.
#![allow(dead_code)]

use std::cell::Cell;

pub type H = [u8; 32];

thread_local! {
    static MERGES: Cell<u64> = const { Cell::new(0) };
}

pub fn merge(left: &H, right: &H) -> H {
    MERGES.with(|c| c.set(c.get() + 1));
    reference_merge::merge(left, right)
}

/// Merges counted on this thread since the last call.
pub fn take_merges() -> u64 {
    MERGES.with(|c| c.replace(0))
}

pub struct Blake;

impl mmr_accumulator::Merge for Blake {
    fn merge(left: &H, right: &H, out: &mut H) {
        *out = merge(left, right);
    }
}

/// Distinct pseudo-random leaves.
pub fn leaves(n: u64, tag: u8) -> Vec<H> {
    (0..n)
        .map(|i| {
            let mut l = [tag; 32];
            l[..8].copy_from_slice(&i.to_le_bytes());
            l
        })
        .collect()
}

/// A copy of `x` with `edit` applied.
pub fn edited<T: Clone>(x: &T, edit: impl FnOnce(&mut T)) -> T {
    let mut out = x.clone();
    edit(&mut out);
    out
}
