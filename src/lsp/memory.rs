//! Keeps the server's resident memory close to what it holds.
//!
//! glibc raises its mmap threshold each time a large block is freed, so
//! after the first multi-megabyte `didOpen` (the message, its JSON string,
//! the text copies of one analysis) later large blocks come from the heap
//! and stay resident once freed: a 10 MB document cost 5x its size. A fixed
//! threshold keeps every block over 128 KiB in its own mapping, returned to
//! the system when freed (2.3x, most of the rest being the rope and the
//! transport's read buffer).

/// Fixes glibc's mmap threshold (a no-op on other allocators).
pub fn return_large_blocks_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only adjusts allocator parameters, under glibc's
    // own lock; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
