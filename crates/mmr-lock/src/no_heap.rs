//! A global allocator for contracts that never allocate.

/// ckb-std's entry links `alloc`, which needs a global allocator even when nothing allocates.
/// This one owns no memory and refuses every request, so a stray allocation fails loudly
/// instead of quietly reserving a heap.
pub struct NoHeap;

// SAFETY: returning null is GlobalAlloc's documented way to report failure; dealloc is only
// ever called with pointers alloc returned, and it returned none.
unsafe impl core::alloc::GlobalAlloc for NoHeap {
    unsafe fn alloc(&self, _: core::alloc::Layout) -> *mut u8 {
        core::ptr::null_mut()
    }
    unsafe fn dealloc(&self, _: *mut u8, _: core::alloc::Layout) {}
}

#[doc(hidden)]
pub use ckb_std as __ckb_std;

/// A contract's entry point when nothing in it allocates: ckb-std's `entry!` calling `$main`,
/// with [`NoHeap`] as the global allocator its `alloc` link needs. Left out of test builds,
/// where the host's allocator and `main` serve.
#[macro_export]
macro_rules! no_heap_entry {
    ($main:path) => {
        #[cfg(not(test))]
        $crate::__ckb_std::entry!($main);
        #[cfg(not(test))]
        #[global_allocator]
        static ALLOCATOR: $crate::NoHeap = $crate::NoHeap;
    };
}
