//! Runs `count` chained merges with one hashing path, chosen by the script args:
//! `args = path (u8) || count (u32 LE)`. The cycles of a run with `count = 0` are the fixed
//! cost, so `(cycles(n) - cycles(0)) / n` is the cost of one merge (tests/tests/merge_bench.rs).
//!
//! Paths: 0 = builder computed at run time per merge, 1 = const builder per merge,
//! 2 = const builder re-initialising one hasher, 3 = the merge kernel. `count` must be even.
#![no_std]
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
ckb_std::entry!(program_entry);

#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: mmr_lock::NoHeap = mmr_lock::NoHeap;

fn args() -> Option<(u8, u32)> {
    let mut script = [0u8; 128];
    let len = ckb_std::syscalls::load_script(&mut script, 0).ok()?;
    // Script molecule: the args Bytes is the last field; its 5 bytes end the script.
    let args = script.get(len.checked_sub(5)?..len)?;
    Some((args[0], u32::from_le_bytes(args[1..5].try_into().ok()?)))
}

/// `count` chained merges with one path; two buffers feed each other, so no merge needs a
/// copy of its input and none can be skipped (every output is the next merge's input).
/// Generic over the path so the loop has no dispatch in it.
#[inline(never)]
fn chain(count: u32, mut merge: impl FnMut(&[u8; 32], &[u8; 32], &mut [u8; 32])) -> [u8; 32] {
    let right = core::hint::black_box([0x5a; 32]);
    let (mut a, mut b) = ([0x11u8; 32], [0u8; 32]);
    for _ in 0..count / 2 {
        merge(&a, &right, &mut b);
        merge(&b, &right, &mut a);
    }
    a
}

pub fn program_entry() -> i8 {
    let Some((path, count)) = args() else {
        return 1;
    };
    if count % 2 != 0 {
        return 2;
    }
    let mut hasher = mmr_blake2b::CKB_HASH_BUILDER.build();
    let result = match path {
        0 => chain(count, mmr_blake2b::merge_generic),
        1 => chain(count, mmr_blake2b::merge_const_builder),
        2 => chain(count, |l, r, out| {
            mmr_blake2b::merge_const_builder_with(&mut hasher, l, r, out)
        }),
        3 => chain(count, mmr_blake2b::merge_into),
        _ => return 2,
    };
    core::hint::black_box(result);
    0
}
