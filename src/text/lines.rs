//! A line index over a `&str`: where each line starts, what it holds.
//!
//! Line `i` (0-based) spans `starts[i]..starts[i + 1]` including its
//! terminator; [`LineIndex::content`] gives it without `\n` / `\r\n`.
//! A text ending in `\n` has no extra empty last line: `"a\nb\n"` has two
//! lines, `"a\nb"` too, `""` none.

use std::ops::Range;

/// How many `\n` a text (or bytes) holds: its line breaks, counted by
/// `memchr`, the one way the code counts them.
pub fn newlines(text: impl AsRef<[u8]>) -> usize {
    memchr::memchr_iter(b'\n', text.as_ref()).count()
}

/// Line starts of one text. Built once per text, O(n) with `memchr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of each line's start, plus the text length at the end.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        // Sized once from a count of the line ends (which reads the text
        // far faster than the loop below): grown by doubling from a guess,
        // a file of short lines had its index copied and written into
        // fresh pages twice.
        let ends = newlines(text);
        let mut starts = Vec::with_capacity(ends + 2);
        crate::memory::prefault(&mut starts);
        starts.push(0);
        for_each_newline(text.as_bytes(), |i| starts.push(i + 1));
        if *starts.last().unwrap_or(&0) != text.len() {
            starts.push(text.len());
        }
        LineIndex { starts }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// No lines (empty text).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte range of line `i` including its terminator.
    pub fn full_range(&self, i: usize) -> Range<usize> {
        self.starts[i]..self.starts[i + 1]
    }

    /// Byte offset where line `i` starts (`i == len()` gives the text end).
    pub fn start(&self, i: usize) -> usize {
        self.starts[i]
    }

    /// Line `i` without its terminator.
    pub fn content<'t>(&self, text: &'t str, i: usize) -> &'t str {
        let line = &text[self.full_range(i)];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The 0-based line holding byte `offset` (the last line for the end).
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i.min(self.len().saturating_sub(1)),
            Err(i) => i - 1,
        }
    }
}

/// Calls `f` with the offset of each `\n` in `bytes`, in order. On
/// x86-64, 32 bytes are compared at a time with SSE2 (part of every x86-64
/// CPU: no feature check at run time, which costs a trapped `cpuid` on a
/// virtual machine) and the hits read off a bit mask; elsewhere, and for
/// the tail, eight at a time in a `u64`. On text of short lines (code),
/// `memchr_iter` pays a call per line.
pub fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let base = sse2::for_each_newline(bytes, &mut f);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let base = 0;
    for_each_newline_swar(&bytes[base..], |i| f(base + i));
}

/// [`for_each_newline`] eight bytes at a time in a `u64`.
fn for_each_newline_swar(bytes: &[u8], mut f: impl FnMut(usize)) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ NEWLINES;
        // The high bit of each byte that is zero in `x` (a `\n` in the
        // chunk), exactly: no carry crosses a byte.
        let mut mask = !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
        while mask != 0 {
            f(base + (mask.trailing_zeros() / 8) as usize);
            mask &= mask - 1;
        }
        base += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b == b'\n' {
            f(base + i);
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };

    /// Calls `f` with the offset of each `\n` in the whole 32-byte chunks
    /// of `bytes`, in order; returns where the chunks end (the tail is the
    /// caller's).
    pub fn for_each_newline(bytes: &[u8], f: &mut impl FnMut(usize)) -> usize {
        let mut chunks = bytes.chunks_exact(32);
        let mut base = 0;
        for chunk in &mut chunks {
            // SAFETY: SSE2 is enabled for this build (the module's `cfg`;
            // every x86-64 CPU has it); `chunk` holds 32 bytes, read as two
            // unaligned 16-byte loads inside it (`loadu` needs no alignment).
            let mut mask = unsafe {
                let newlines = _mm_set1_epi8(b'\n' as i8);
                let p = chunk.as_ptr().cast::<__m128i>();
                let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p), newlines));
                let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p.add(1)), newlines));
                // Bit k: byte k of the chunk is a `\n`.
                (lo as u32 & 0xffff) | ((hi as u32 & 0xffff) << 16)
            };
            while mask != 0 {
                f(base + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
            base += 32;
        }
        base
    }
}

/// `text.lines()` collected, split with [`for_each_newline`]: each line
/// without its `\n` and one `\r` before it; no empty last line after a
/// final `\n`.
pub fn split(text: &str) -> Vec<&str> {
    split_into(text, Vec::with_capacity(text.len() / 32 + 1))
}

/// [`split`], the lines pushed after those of `out` (a caller that joins
/// the lines of two halves gives the first room for both).
pub fn split_into<'t>(text: &'t str, mut out: Vec<&'t str>) -> Vec<&'t str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    for_each_newline(bytes, |end| {
        let line = &text[start..end];
        out.push(line.strip_suffix('\r').unwrap_or(line));
        start = end + 1;
    });
    if start < text.len() {
        // The last line keeps a `\r` no `\n` follows, as `lines()` does.
        out.push(&text[start..]);
    }
    out
}

/// Length of the common prefix made of whole lines (ends after a `\n`):
/// up to the last `\n` before the first byte that differs.
pub fn common_prefix(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let same = same_prefix(a, b);
    memchr::memrchr(b'\n', &a[..same]).map_or(0, |i| i + 1)
}

/// Length of the common suffix made of whole lines (starts after a `\n`,
/// or at the start, in both).
pub fn common_suffix(a: &str, b: &str) -> usize {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let same = same_suffix(ab, bb);
    // All of it, when it starts a line in both.
    let starts_line = |t: &[u8]| t.len() == same || t[t.len() - same - 1] == b'\n';
    if starts_line(ab) && starts_line(bb) {
        return same;
    }
    // Else from just after its first `\n` (the bytes before each line
    // start inside it are the same in both).
    let tail = &ab[ab.len() - same..];
    memchr::memchr(b'\n', tail).map_or(0, |i| same - i - 1)
}

/// How many leading bytes `a` and `b` share (compared 32 at a time).
fn same_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 32 <= n && a[i..i + 32] == b[i..i + 32] {
        i += 32;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// How many trailing bytes `a` and `b` share.
fn same_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + 32 <= n && a[n - i - 32..n - i] == b[n - i - 32..n - i] {
        i += 32;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    #[test]
    fn newlines_as_memchr_finds_them() {
        let mut rng = crate::test_rng::Rng::new(7);
        for len in (0..300).chain([1000, 4099]) {
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.below(8) {
                    0 | 1 => b'\n',
                    2 => b'\r',
                    3 => 0x8a,
                    4 => 0x0b,
                    5 => 0x09,
                    6 => rng.below(256) as u8,
                    _ => b'a',
                })
                .collect();
            let mut got = Vec::new();
            super::for_each_newline(&bytes, |i| got.push(i));
            let want: Vec<usize> = memchr::memchr_iter(b'\n', &bytes).collect();
            assert_eq!(got, want, "{bytes:?}");
            // Slices at every alignment.
            for from in 0..len.min(33) {
                let mut got = Vec::new();
                super::for_each_newline(&bytes[from..], |i| got.push(i + from));
                let want: Vec<usize> = want.iter().copied().filter(|&i| i >= from).collect();
                assert_eq!(got, want, "{bytes:?} from {from}");
            }
        }
    }

    #[test]
    fn split_is_lines_on_random_texts() {
        let mut rng = crate::test_rng::Rng::new(5);
        let parts = ["\n", "\r\n", "\r", "a", "bc", " ", "é", "\n\n", "x\ty"];
        for _ in 0..3_000 {
            let text: String = (0..rng.below(40)).map(|_| *rng.pick(&parts)).collect();
            assert_eq!(split(&text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn split_is_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\r\nb",
            "a\r\n\r\nb\r",
            "\r",
            "a\rb\n",
            "x\n\n",
            "é\r\n",
        ] {
            assert_eq!(split(text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    use super::*;

    /// The common whole-line prefix and suffix, against plain line-by-line
    /// definitions, on every pair of a set of short texts.
    #[test]
    fn common_prefix_and_suffix_are_whole_lines() {
        fn prefix(a: &str, b: &str) -> usize {
            let mut len = 0;
            for (la, lb) in a.split_inclusive('\n').zip(b.split_inclusive('\n')) {
                if la != lb || !la.ends_with('\n') {
                    break;
                }
                len += la.len();
            }
            len
        }
        fn suffix(a: &str, b: &str) -> usize {
            // The longest common tail that starts a line in both.
            (0..=a.len().min(b.len()))
                .rev()
                .find(|&n| {
                    let (ta, tb) = (&a[a.len() - n..], &b[b.len() - n..]);
                    let starts =
                        |t: &str, n: usize| n == t.len() || t.as_bytes()[t.len() - n - 1] == b'\n';
                    ta == tb && starts(a, n) && starts(b, n)
                })
                .unwrap_or(0)
        }
        let pieces = ["", "a", "\n", "ab\n", "x\n", "a\nb", "\n\n", "b\nab\n"];
        let mut texts = Vec::new();
        for p in pieces {
            for q in pieces {
                for r in ["", "a", "\n", "x\ny\n"] {
                    texts.push(format!("{p}{q}{r}"));
                }
            }
        }
        texts.push("0123456789".repeat(10) + "\n" + &"z".repeat(70));
        texts.push("0123456789".repeat(10) + "\n" + &"z".repeat(69) + "y");
        for a in &texts {
            for b in &texts {
                assert_eq!(common_prefix(a, b), prefix(a, b), "{a:?} {b:?}");
                assert_eq!(common_suffix(a, b), suffix(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn indexes_lines() {
        let text = "a\r\nbb\nc";
        let idx = LineIndex::new(text);
        assert_eq!(idx.len(), 3);
        assert_eq!(idx.content(text, 0), "a");
        assert_eq!(idx.content(text, 1), "bb");
        assert_eq!(idx.content(text, 2), "c");
        assert_eq!(idx.line_of(4), 1);
        assert_eq!(LineIndex::new("a\n").len(), 1);
        assert_eq!(LineIndex::new("").len(), 0);
    }
}
