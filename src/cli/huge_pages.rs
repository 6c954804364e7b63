//! Large blocks on transparent huge pages, for `apply`.
//!
//! A 10 MB file is read into a fresh 10 MB block and its new text built in
//! another: with 4 KiB pages that is 5,000 page faults, about 4 ms of the
//! W1 run (its engine takes 1.3 ms). Where the system hands out huge pages
//! only on request (`transparent_hugepage` set to `madvise`, a common
//! default), blocks of 4 MiB and more ask for them (`MADV_HUGEPAGE` on
//! their 2 MiB-aligned interior), which takes a few hundred faults.
//! Allocation itself is the system allocator's; nothing else changes.
//! Off until [`enable`] (the language server, whose resident memory is
//! measured against the documents it holds, keeps 4 KiB pages).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, asking huge pages for large blocks once enabled.
pub struct LargeOnHugePages;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Blocks from this size on ask for huge pages.
const LARGE: usize = 4 << 20;

/// Large blocks ask for huge pages from now on.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Asks huge pages for the 2 MiB-aligned interior of the block `ptr` of
/// `size` bytes, when large; a refusal (no transparent huge pages in this
/// kernel) leaves it on small pages.
fn advise(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if size >= LARGE && !ptr.is_null() && ENABLED.load(Ordering::Relaxed) {
        const HUGE_PAGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
        let end = (ptr as usize + size) & !(HUGE_PAGE - 1);
        if end > start {
            // SAFETY: the range lies inside the block just allocated (its
            // start and end rounded inwards to page boundaries); the advice
            // changes how its pages are faulted in, never their content.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size);
}

// SAFETY: every call is the system allocator's, with the same arguments;
// `advise` only gives advice about memory the block owns.
unsafe impl GlobalAlloc for LargeOnHugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        advise(new, new_size);
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_hold_what_is_written() {
        enable();
        let layout = Layout::from_size_align(9 << 20, 8).unwrap();
        // SAFETY: a non-zero layout; the block is written within its size
        // and freed with the same layout.
        unsafe {
            let ptr = LargeOnHugePages.alloc_zeroed(layout);
            assert!(!ptr.is_null());
            assert_eq!(*ptr.add(5 << 20), 0);
            ptr.write_bytes(7, layout.size());
            let ptr = LargeOnHugePages.realloc(ptr, layout, 13 << 20);
            assert_eq!(*ptr.add((9 << 20) - 1), 7);
            LargeOnHugePages.dealloc(ptr, Layout::from_size_align(13 << 20, 8).unwrap());
        }
    }
}
