//! Memory a buffer is about to be filled into, mapped ahead in one call.
//!
//! A fresh block's pages are mapped one page fault at a time as they are
//! first written: 1.3-3.5 µs each on this project's virtual machines,
//! where `MADV_POPULATE_WRITE` (Linux 5.14) maps a page in 0.7 µs. A read
//! of W3's 390 KB file faulted ~95 pages in, the line index of its 10k
//! lines 18 (docs/benchmarks.md, eleventh stop).

/// Below this, a block's faults cost less than the call.
const WORTH: usize = 64 << 10;

/// Maps the pages of `buf`'s spare capacity, for a caller about to fill
/// it; true when the system did. The advice changes when pages are
/// mapped, never what they hold; an older kernel (or another system)
/// refuses it, and the writes fault the pages in as before.
pub fn prefault<T>(buf: &mut Vec<T>) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4 << 10;
        let spare = buf.spare_capacity_mut();
        let bytes = std::mem::size_of_val(spare);
        let at = spare.as_mut_ptr() as usize;
        let (start, end) = (at.next_multiple_of(PAGE), (at + bytes) & !(PAGE - 1));
        if bytes < WORTH || end <= start {
            return false;
        }
        // SAFETY: the range lies inside the buffer's spare capacity (its
        // ends rounded inwards to pages), which holds no value; the advice
        // maps the pages not mapped, and leaves the bytes of any page as
        // they are.
        let done = unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            )
        };
        done == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (buf, WORTH);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The process's minor page faults so far (a page mapped in bulk
    /// counts as one too).
    fn minor_faults() -> i64 {
        // SAFETY: `getrusage` fills the struct it is given.
        unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
            usage.ru_minflt
        }
    }

    /// A large spare capacity is mapped by the call itself (where the
    /// kernel takes the advice), not by the writes after it; a small one
    /// is left alone; and the values already in the buffer stay. The
    /// large one is 33 MiB: the C allocator maps a block that large anew
    /// (above its largest threshold, 32 MiB), where a smaller one may
    /// reuse pages another test already mapped.
    #[test]
    fn the_spare_capacity_is_mapped_before_it_is_written() {
        const LEN: usize = 33 << 17;
        let mut big: Vec<u64> = Vec::with_capacity(LEN);
        let before = minor_faults();
        let mapped = prefault(&mut big);
        let during = minor_faults() - before;
        big.extend(0..LEN as u64);
        let after = minor_faults() - before - during;
        if mapped {
            assert!(during >= 8_000 && after < 100, "{during} then {after}");
        }
        let mut small: Vec<u64> = Vec::with_capacity(100);
        assert!(!prefault(&mut small));
        let mut kept: Vec<u32> = (0..1000).collect();
        kept.reserve(1 << 20);
        prefault(&mut kept);
        assert!(kept.iter().copied().eq(0..1000));
    }
}
