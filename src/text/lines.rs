//! A line index over a `&str`: where each line starts, what it holds.
//!
//! Line `i` (0-based) spans `starts[i]..starts[i + 1]` including its
//! terminator; [`LineIndex::content`] gives it without `\n` / `\r\n`.
//! A text ending in `\n` has no extra empty last line: `"a\nb\n"` has two
//! lines, `"a\nb"` too, `""` none.

use std::ops::Range;

/// Line starts of one text. Built once per text, O(n) with `memchr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of each line's start, plus the text length at the end.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 40 + 2);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
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

/// `text.lines()` collected, split with `memchr`: each line without its
/// `\n` and one `\r` before it; no empty last line after a final `\n`.
pub fn split(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 32 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = &text[start..end];
        out.push(line.strip_suffix('\r').unwrap_or(line));
        start = end + 1;
    }
    if start < text.len() {
        // The last line keeps a `\r` no `\n` follows, as `lines()` does.
        out.push(&text[start..]);
    }
    out
}

/// Length of the common prefix made of whole lines (ends after a `\n`).
pub fn common_prefix(a: &str, b: &str) -> usize {
    let mut len = 0;
    for (la, lb) in a.split_inclusive('\n').zip(b.split_inclusive('\n')) {
        if la != lb || !la.ends_with('\n') {
            break;
        }
        len += la.len();
    }
    len
}

/// Length of the common suffix made of whole lines (starts after a `\n`).
pub fn common_suffix(a: &str, b: &str) -> usize {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let mut n = 0;
    let mut last_boundary = 0;
    while n < ab.len() && n < bb.len() && ab[ab.len() - 1 - n] == bb[bb.len() - 1 - n] {
        n += 1;
        // A suffix that starts right after a '\n' (or at the start of both) is whole lines.
        let at_a = ab.len() - n;
        let at_b = bb.len() - n;
        let line_start_a = at_a == 0 || ab[at_a - 1] == b'\n';
        let line_start_b = at_b == 0 || bb[at_b - 1] == b'\n';
        if line_start_a && line_start_b {
            last_boundary = n;
        }
    }
    last_boundary
}

#[cfg(test)]
mod tests {
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
