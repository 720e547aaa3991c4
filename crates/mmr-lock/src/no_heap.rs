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
