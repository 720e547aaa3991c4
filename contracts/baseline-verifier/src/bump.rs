//! A bump allocator for one script run (feature `bump-alloc`).
//!
//! A lock script allocates, verifies and exits; nothing outlives the run, so freeing is wasted
//! work. Allocation is a pointer bump in a static arena and `dealloc` does nothing. The arena
//! bounds what the largest witness can need (module `tests` of the integration suite feeds
//! it); running out exits with the documented `OutOfMemory` code instead of a panic.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;

const ARENA_SIZE: usize = 1 << 20;

#[repr(C, align(16))]
struct Arena {
    bytes: UnsafeCell<[u8; ARENA_SIZE]>,
    next: UnsafeCell<usize>,
}

// SAFETY: CKB scripts run on one thread; nothing can observe the arena concurrently.
unsafe impl Sync for Arena {}

pub struct BumpAlloc(Arena);

impl BumpAlloc {
    pub const fn new() -> Self {
        BumpAlloc(Arena {
            bytes: UnsafeCell::new([0; ARENA_SIZE]),
            next: UnsafeCell::new(0),
        })
    }
}

// SAFETY: every block handed out lies inside the arena, is aligned as requested, and never
// overlaps another block, because `next` only grows.
unsafe impl GlobalAlloc for BumpAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let base = self.0.bytes.get() as usize;
        // SAFETY: single-threaded, and no reference to `next` escapes this function.
        let next = unsafe { &mut *self.0.next.get() };
        let start = (base + *next).next_multiple_of(layout.align()) - base;
        match start.checked_add(layout.size()) {
            Some(end) if end <= ARENA_SIZE => {
                *next = end;
                (base + start) as *mut u8
            }
            _ => ckb_std::syscalls::exit(mmr_lock::LockError::OutOfMemory.code()),
        }
    }

    unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
}

#[cfg(feature = "node-arena")]
impl BumpAlloc {
    /// 32 bytes (alignment 1) for one merge result, from the same arena as every other block:
    /// one bound check, no alignment arithmetic, no null check (the global allocator's path
    /// costs about twice as much per merge).
    #[inline(always)]
    pub fn node_slot(&'static self) -> &'static mut core::mem::MaybeUninit<[u8; 32]> {
        // SAFETY: single-threaded, and no reference to `next` escapes this function.
        let next = unsafe { &mut *self.0.next.get() };
        let start = *next;
        // `next <= ARENA_SIZE` always holds, so this cannot underflow.
        if start > ARENA_SIZE - 32 {
            ckb_std::syscalls::exit(mmr_lock::LockError::OutOfMemory.code());
        }
        *next = start + 32;
        // SAFETY: bytes start..start + 32 lie inside the arena and, as `next` only grows, were
        // never handed out before and never will be again; `MaybeUninit<[u8; 32]>` has
        // alignment 1 and allows any contents.
        unsafe {
            &mut *self
                .0
                .bytes
                .get()
                .cast::<u8>()
                .add(start)
                .cast::<core::mem::MaybeUninit<[u8; 32]>>()
        }
    }
}
