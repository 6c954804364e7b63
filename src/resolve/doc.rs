//! The text of one file while its edits apply: a piece table over the
//! original, so sequential edits never copy or rescan the whole file.
//!
//! ```text
//! original: [────────────────────────────────]
//! current:  [orig 0..120][added "x"][orig 130..900][added "yy"][orig 910..]
//! ```
//!
//! Exact searches use hits found once in the original ([`Doc::find`] is
//! given them): a hit inside one original piece is still there, moved by the
//! length change before it; hits that touch new text or a deletion point
//! are found by searching small windows around those points. Tolerant
//! passes need the whole text and ask for [`Doc::text`], which materializes
//! it once per state.

use std::cell::OnceCell;
use std::ops::Range;

use memchr::memmem;

use crate::plan::TextEdit;

/// A run of the current text.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    /// Bytes `start..end` of the original.
    Orig(Range<usize>),
    /// Text an edit inserted.
    Added(String),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Orig(r) => r.len(),
            Piece::Added(s) => s.len(),
        }
    }
}

/// The current text of one file, as pieces of the original and of edits.
#[derive(Clone, Debug)]
pub struct Doc<'o> {
    original: &'o str,
    pieces: Vec<Piece>,
    /// Current start offset of each piece, plus the total length at the end.
    starts: Vec<usize>,
    /// Indices of the original pieces, in order.
    orig_pieces: Vec<usize>,
    text: OnceCell<String>,
}

impl<'o> Doc<'o> {
    /// The original text, unedited.
    pub fn new(original: &'o str) -> Doc<'o> {
        let pieces = if original.is_empty() {
            Vec::new()
        } else {
            vec![Piece::Orig(0..original.len())]
        };
        let mut doc = Doc {
            original,
            pieces,
            starts: Vec::new(),
            orig_pieces: Vec::new(),
            text: OnceCell::new(),
        };
        doc.reindex();
        doc
    }

    /// The original text.
    pub fn original(&self) -> &'o str {
        self.original
    }

    /// Has any edit been applied?
    pub fn is_edited(&self) -> bool {
        let untouched =
            matches!(self.pieces.as_slice(), [Piece::Orig(r)] if r.len() == self.original.len());
        let still_empty = self.pieces.is_empty() && self.original.is_empty();
        !(untouched || still_empty)
    }

    /// Current length in bytes.
    pub fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    /// The current text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole current text (materialized once per state).
    pub fn text(&self) -> &str {
        if !self.is_edited() {
            return self.original;
        }
        self.text.get_or_init(|| self.slice(0..self.len()))
    }

    /// The current text of `range` (on char boundaries: search windows are
    /// widened to them, see [`Doc::char_floor`]).
    pub fn slice(&self, range: Range<usize>) -> String {
        let mut out = String::with_capacity(range.len());
        if range.is_empty() {
            return out;
        }
        let mut i = self.piece_at(range.start);
        while i < self.pieces.len() && self.starts[i] < range.end {
            let piece_start = self.starts[i];
            let lo = range.start.max(piece_start) - piece_start;
            let hi = range.end.min(self.starts[i + 1]) - piece_start;
            match &self.pieces[i] {
                Piece::Orig(r) => out.push_str(&self.original[r.start + lo..r.start + hi]),
                Piece::Added(s) => out.push_str(&s[lo..hi]),
            }
            i += 1;
        }
        out
    }

    /// The byte just before current offset `at`, if any.
    pub fn byte_before(&self, at: usize) -> Option<u8> {
        (at > 0).then(|| self.byte_at(at - 1))
    }

    /// The current byte at offset `at` (`at < len()`).
    pub fn byte_at(&self, at: usize) -> u8 {
        let i = self.piece_at(at);
        let off = at - self.starts[i];
        match &self.pieces[i] {
            Piece::Orig(r) => self.original.as_bytes()[r.start + off],
            Piece::Added(s) => s.as_bytes()[off],
        }
    }

    /// The original offset of current offset `at`: itself mapped back when
    /// it lies in original text, the insertion point when in new text.
    pub fn to_original(&self, at: usize) -> usize {
        let i = self.piece_at(at);
        match self.pieces.get(i) {
            None => 0,
            Some(Piece::Orig(r)) => r.start + (at - self.starts[i]).min(r.len()),
            Some(Piece::Added(_)) => self.pieces[..i]
                .iter()
                .rev()
                .find_map(|p| match p {
                    Piece::Orig(r) => Some(r.end),
                    Piece::Added(_) => None,
                })
                .unwrap_or(0),
        }
    }

    /// Every current occurrence of `needle`, given `orig_hits`: the start of
    /// every occurrence of the same needle in the original text.
    pub fn find(&self, needle: &str, orig_hits: &[usize]) -> Vec<usize> {
        if needle.is_empty() {
            return Vec::new();
        }
        if !self.is_edited() {
            return orig_hits.to_vec();
        }
        let mut hits: Vec<usize> = orig_hits
            .iter()
            .filter_map(|&s| self.map_orig(s, needle.len()))
            .collect();
        hits.extend(self.find_near_changes(needle));
        hits.sort_unstable();
        hits.dedup();
        hits
    }

    /// Where original bytes `start..start + len` sit now, if untouched.
    fn map_orig(&self, start: usize, len: usize) -> Option<usize> {
        // Original pieces keep their original order, so binary search them.
        let k = self
            .orig_pieces
            .partition_point(|&i| self.orig_range(i).end <= start);
        let &i = self.orig_pieces.get(k)?;
        let r = self.orig_range(i);
        (r.start <= start && start + len <= r.end).then(|| self.starts[i] + (start - r.start))
    }

    /// The original range of piece `i`, which is an original piece.
    fn orig_range(&self, i: usize) -> Range<usize> {
        match &self.pieces[i] {
            Piece::Orig(r) => r.clone(),
            Piece::Added(_) => 0..0,
        }
    }

    /// Occurrences that touch inserted text or a deletion point.
    fn find_near_changes(&self, needle: &str) -> Vec<usize> {
        let reach = needle.len() - 1;
        let mut windows: Vec<Range<usize>> = Vec::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            let (start, end) = (self.starts[i], self.starts[i + 1]);
            let dirty = match piece {
                Piece::Added(_) => Some(start..end),
                Piece::Orig(r) => {
                    // A junction with the previous original piece is a deletion point.
                    let joined =
                        i > 0 && matches!(&self.pieces[i - 1], Piece::Orig(p) if p.end != r.start);
                    let cut_start = i == 0 && r.start != 0;
                    (joined || cut_start).then_some(start..start)
                }
            };
            if let Some(d) = dirty {
                let w = self.char_floor(d.start.saturating_sub(reach))
                    ..self.char_ceil((d.end + reach).min(self.len()));
                match windows.last_mut() {
                    Some(last) if last.end >= w.start => last.end = last.end.max(w.end),
                    _ => windows.push(w),
                }
            }
        }
        // The end of the text is a deletion point when the original tail is gone.
        if let Some(Piece::Orig(r)) = self.pieces.last() {
            if r.end != self.original.len() {
                let w = self.char_floor(self.len().saturating_sub(reach))..self.len();
                windows.push(w);
            }
        }
        let mut hits = Vec::new();
        // One searcher for every window (building one costs as much as
        // searching a small window); none when the windows are so small
        // that comparing at each place their first byte matches costs less.
        let total: usize = windows.iter().map(|w| w.len()).sum();
        let finder = (total.saturating_mul(needle.len()) > NAIVE_SEARCH_BYTES)
            .then(|| memmem::Finder::new(needle.as_bytes()));
        for w in windows {
            let text = self.slice(w.clone());
            let found = match &finder {
                Some(finder) => find_overlapping_with(finder, text.as_bytes()),
                None => find_overlapping_naive(text.as_bytes(), needle.as_bytes()),
            };
            for pos in found {
                let start = w.start + pos;
                if !self.inside_one_orig_piece(start, needle.len()) {
                    hits.push(start);
                }
            }
        }
        hits
    }

    /// The char boundary at or before current offset `at`.
    fn char_floor(&self, mut at: usize) -> usize {
        while at > 0 && at < self.len() && is_continuation(self.byte_at(at)) {
            at -= 1;
        }
        at
    }

    /// The char boundary at or after current offset `at`.
    fn char_ceil(&self, mut at: usize) -> usize {
        while at < self.len() && is_continuation(self.byte_at(at)) {
            at += 1;
        }
        at
    }

    /// Does current `start..start + len` lie inside one original piece?
    fn inside_one_orig_piece(&self, start: usize, len: usize) -> bool {
        let i = self.piece_at(start);
        matches!(self.pieces.get(i), Some(Piece::Orig(_))) && start + len <= self.starts[i + 1]
    }

    /// Index of the piece holding current offset `at` (the last piece for
    /// the end offset).
    fn piece_at(&self, at: usize) -> usize {
        let i = self.starts.partition_point(|&s| s <= at);
        i.saturating_sub(1).min(self.pieces.len().saturating_sub(1))
    }

    /// Replaces current `range` by `text`.
    pub fn replace(&mut self, range: Range<usize>, text: &str) {
        let mut out: Vec<Piece> = Vec::with_capacity(self.pieces.len() + 2);
        let mut inserted = false;
        for (i, piece) in self.pieces.iter().enumerate() {
            let (ps, pe) = (self.starts[i], self.starts[i + 1]);
            if pe <= range.start {
                out.push(piece.clone());
                continue;
            }
            // The piece reaches past the range start: keep what lies
            // before the range, insert once, keep what lies after it.
            if ps < range.start {
                out.push(cut(piece, 0..range.start - ps));
            }
            if !inserted {
                push_added(&mut out, text);
                inserted = true;
            }
            if pe > range.end {
                out.push(cut(piece, range.end.max(ps) - ps..pe - ps));
            }
        }
        if !inserted {
            push_added(&mut out, text);
        }
        self.pieces = coalesce(out);
        self.reindex();
    }

    /// Replaces several disjoint current ranges at once, as replacing
    /// each (from the last) would, in one pass over the pieces: a group of
    /// ten thousand hunks would otherwise copy the piece list per hunk.
    /// `edits` are sorted by start and do not overlap.
    pub fn replace_disjoint(&mut self, edits: &[(Range<usize>, &str)]) {
        let mut out: Vec<Piece> = Vec::with_capacity(self.pieces.len() + 2 * edits.len());
        // The pieces' text from `from` to `to` (current offsets, `from`
        // not before the previous call's `to`); `k` only moves forward.
        let mut k = 0;
        let mut keep = |out: &mut Vec<Piece>, from: usize, to: usize| {
            while k < self.pieces.len() && self.starts[k + 1] <= from {
                k += 1;
            }
            while k < self.pieces.len() && self.starts[k] < to {
                let (ps, pe) = (self.starts[k], self.starts[k + 1]);
                let (a, b) = (from.max(ps) - ps, to.min(pe) - ps);
                if a < b {
                    out.push(cut(&self.pieces[k], a..b));
                }
                if pe > to {
                    break;
                }
                k += 1;
            }
        };
        let mut at = 0;
        for (range, text) in edits {
            keep(&mut out, at, range.start);
            push_added(&mut out, text);
            at = range.end;
        }
        keep(&mut out, at, self.len());
        self.pieces = coalesce(out);
        self.reindex();
    }

    fn reindex(&mut self) {
        self.starts.clear();
        self.orig_pieces.clear();
        let mut at = 0;
        for (i, p) in self.pieces.iter().enumerate() {
            if matches!(p, Piece::Orig(_)) {
                self.orig_pieces.push(i);
            }
            self.starts.push(at);
            at += p.len();
        }
        self.starts.push(at);
        self.text = OnceCell::new();
    }

    /// The edits that turn the original into the current text, in original
    /// coordinates, sorted and disjoint.
    pub fn edits(&self) -> Vec<TextEdit> {
        let mut edits = Vec::new();
        let mut orig_at = 0;
        let mut pending: Option<TextEdit> = None;
        for piece in &self.pieces {
            match piece {
                Piece::Orig(r) => {
                    if r.start > orig_at || pending.is_some() {
                        let mut e = pending
                            .take()
                            .unwrap_or_else(|| TextEdit::insert(orig_at, ""));
                        e.range.end = r.start;
                        edits.push(e);
                    }
                    orig_at = r.end;
                }
                Piece::Added(s) => match &mut pending {
                    Some(e) => e.text.push_str(s),
                    None => pending = Some(TextEdit::insert(orig_at, s.clone())),
                },
            }
        }
        if orig_at < self.original.len() || pending.is_some() {
            let mut e = pending
                .take()
                .unwrap_or_else(|| TextEdit::insert(orig_at, ""));
            e.range.end = self.original.len();
            edits.push(e);
        }
        edits
    }
}

/// Every start of `needle` in `haystack`, overlapping occurrences included
/// (`"}\n}"` is twice in `"}\n}\n}"`: an ambiguity, not one match).
pub fn find_overlapping(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    find_overlapping_with(&memmem::Finder::new(needle), haystack)
}

/// [`find_overlapping`] with a searcher built once for its needle.
pub fn find_overlapping_with(finder: &memmem::Finder, haystack: &[u8]) -> Vec<usize> {
    let mut hits = Vec::new();
    let mut from = 0;
    while let Some(pos) = haystack.get(from..).and_then(|h| finder.find(h)) {
        hits.push(from + pos);
        from += pos + 1;
    }
    hits
}

/// Up to this many bytes compared at worst (window bytes × needle
/// length), the windows near changes are searched without a searcher.
const NAIVE_SEARCH_BYTES: usize = 1 << 22;

/// [`find_overlapping`] by comparing the needle wherever its first byte
/// is: no searcher to build, at worst haystack × needle comparisons.
fn find_overlapping_naive(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    // The needle's first byte after its indentation: spaces are
    // everywhere in code, the first letter of a line much less so.
    let k = needle
        .iter()
        .take(64)
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(0);
    memchr::memchr_iter(needle[k], haystack.get(k..).unwrap_or_default())
        .filter(|&at| haystack[at..].starts_with(needle))
        .collect()
}

/// A UTF-8 continuation byte (not the first byte of a char).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Joins neighbouring pieces that continue each other, so that a piece
/// boundary always marks a change (an exact search relies on it: a match
/// across two contiguous original pieces would be missed).
fn coalesce(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match (out.last_mut(), piece) {
            (Some(Piece::Orig(last)), Piece::Orig(r)) if last.end == r.start => last.end = r.end,
            (Some(Piece::Added(last)), Piece::Added(s)) => last.push_str(&s),
            (_, piece) => out.push(piece),
        }
    }
    out
}

fn push_added(out: &mut Vec<Piece>, text: &str) {
    if !text.is_empty() {
        out.push(Piece::Added(text.to_string()));
    }
}

/// The part `range` (relative to the piece) of a piece.
fn cut(piece: &Piece, range: Range<usize>) -> Piece {
    match piece {
        Piece::Orig(r) => Piece::Orig(r.start + range.start..r.start + range.end),
        Piece::Added(s) => Piece::Added(s[range].to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_at_once_equals_replacing_one_by_one() {
        let original = "one\ntwo\nthree\nfour\nfive\nsix\n";
        let mut seed = 0x0005_DEEC_E66D_u64;
        let mut below = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..500 {
            let mut a = Doc::new(original);
            let mut b = Doc::new(original);
            // Some earlier edits, so that pieces are cut and added.
            for _ in 0..below(4) {
                let len = a.len();
                let s = below(len + 1);
                let e = s + below(len - s + 1);
                let text = ["", "x", "new\n", "yz"][below(4)];
                a.replace(s..e, text);
                b.replace(s..e, text);
            }
            let len = a.len();
            let mut cuts: Vec<usize> = (0..below(8)).map(|_| below(len + 1)).collect();
            cuts.sort_unstable();
            let texts = ["", "A", "BB\n", "CCC"];
            let edits: Vec<(Range<usize>, &str)> = cuts
                .chunks_exact(2)
                .map(|c| (c[0]..c[1], texts[below(4)]))
                .collect();
            for (r, t) in edits.iter().rev() {
                a.replace(r.clone(), t);
            }
            b.replace_disjoint(&edits);
            assert_eq!(a.text(), b.text());
            assert_eq!(a.pieces, b.pieces, "{edits:?}");
            assert_eq!(a.edits(), b.edits());
        }
    }

    #[test]
    fn the_naive_search_finds_what_the_searcher_finds() {
        let haystacks = [
            "",
            "aaaa",
            "abababa",
            "  x\n  x\n",
            "é x é",
            "xx",
            " \t x  x",
            "    ",
        ];
        let needles = [
            "a", "aa", "aba", "  x", "\n  x\n", "é", "xxx", " ", "  ", "\t x",
        ];
        for h in haystacks {
            for n in needles {
                assert_eq!(
                    find_overlapping_naive(h.as_bytes(), n.as_bytes()),
                    find_overlapping(h.as_bytes(), n.as_bytes()),
                    "{n:?} in {h:?}"
                );
            }
        }
    }
    use crate::plan::TextEdits;

    fn all_hits(text: &str, needle: &str) -> Vec<usize> {
        memmem::find_iter(text.as_bytes(), needle.as_bytes()).collect()
    }

    #[test]
    fn replaces_and_reports_edits() {
        let original = "aaa bbb ccc ddd";
        let mut doc = Doc::new(original);
        doc.replace(4..7, "BB");
        assert_eq!(doc.text(), "aaa BB ccc ddd");
        doc.replace(0..0, ">");
        assert_eq!(doc.text(), ">aaa BB ccc ddd");
        doc.replace(5..12, "");
        assert_eq!(doc.text(), ">aaa ddd");
        let edits = TextEdits::new(doc.edits()).unwrap();
        assert_eq!(edits.apply(original), ">aaa ddd");
    }

    #[test]
    fn finds_moved_and_new_occurrences() {
        let original = "x = 1\ny = 2\nx = 1\n";
        let mut doc = Doc::new(original);
        let hits = all_hits(original, "x = 1");
        doc.replace(6..11, "x = 1");
        assert_eq!(doc.text(), "x = 1\nx = 1\nx = 1\n");
        assert_eq!(doc.find("x = 1", &hits), vec![0, 6, 12]);
        // A deletion joins text into a new occurrence.
        let mut doc = Doc::new("ab--cd");
        doc.replace(2..4, "");
        assert_eq!(doc.find("bc", &[]), vec![1]);
    }

    #[test]
    fn searches_windows_that_cut_multibyte_characters() {
        let original = "第一行 line one\n第二行 line two\n第三行\n";
        let mut doc = Doc::new(original);
        let at = original.find("one").unwrap();
        doc.replace(at..at + 3, "1");
        assert_eq!(doc.find("二行 line", &[]), Vec::<usize>::new());
        assert_eq!(doc.find("e 1\n第", &[]), vec![at - 2]);
    }

    #[test]
    fn edits_at_both_ends() {
        let original = "hello";
        let mut doc = Doc::new(original);
        doc.replace(5..5, "!");
        doc.replace(0..1, "J");
        assert_eq!(doc.text(), "Jello!");
        assert_eq!(
            TextEdits::new(doc.edits()).unwrap().apply(original),
            "Jello!"
        );
        let mut doc = Doc::new("");
        doc.replace(0..0, "new");
        assert_eq!(doc.text(), "new");
    }
}
