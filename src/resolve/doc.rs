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

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::rc::Rc;

use memchr::memmem;

use crate::plan::TextEdit;
use crate::text::hashed::PrecomputedHasher;
use crate::text::lines::LineIndex;

/// A run of the current text.
#[derive(Clone, Debug)]
enum Piece {
    /// Bytes `start..end` of the original.
    Orig(Range<usize>),
    /// Bytes `start..end` of the added text ([`Doc::added`]): what edits
    /// inserted. A range, so cutting a piece never copies text.
    Added(Range<usize>),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Orig(r) | Piece::Added(r) => r.len(),
        }
    }
}

/// An Added piece longer than this, searched for a line needle, is not
/// scanned whole: its ends are, and its inside is looked up in the line
/// table of the added text ([`AddedLines`]). Sequential edits one after
/// the other make one growing piece; scanning it for each edit was
/// quadratic.
const BIG_ADDED: usize = 4096;

/// The lines of the added text, by a hash of their text, built lazily
/// (only a big Added piece needs it) and then brought up to date with
/// the text added since: each added byte is hashed once.
#[derive(Clone, Debug, Default)]
struct AddedLines {
    /// Hash of a line's text (without its `\n` and one `\r` before it) →
    /// the last of the lines with that hash, an index into `lines` (a
    /// chain rather than a list per hash: no allocation per line).
    table: HashMap<u64, usize, BuildHasherDefault<PrecomputedHasher>>,
    /// Per line: its added-text offset, and the previous line with the
    /// same hash (`usize::MAX`: none).
    lines: Vec<(usize, usize)>,
    /// The added text before this offset is in the table.
    upto: usize,
    /// How many lines to make room for on first use ([`Doc::reserve`]).
    expected: usize,
}

/// A line longer than this (without its `\n`) is not keyed in
/// [`EdgeLines`]: the boundaries in it are kept as they are and looked at
/// directly, as before the index, by a search whose first line is this
/// long.
const LINE_CAP: usize = 512;

/// Where a byte of the current text came from: stable while edits go on
/// around it (bytes never move relative to each other), looked up with
/// [`Doc::locate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Source {
    /// Byte `o` of the original.
    Orig(usize),
    /// Byte `a` of the added text.
    Added(usize),
    /// The end of the text.
    End,
}

/// The lines of the current text that start at a piece boundary or cross
/// one (the end of the text counts as a boundary), indexed by their text,
/// so that a line search finds the occurrences that straddle edits without
/// looking at every boundary. Kept up to date by each replace, which
/// registers the lines of the boundaries within [`LINE_CAP`] bytes of
/// what it changed (only those lines may have changed); entries whose line
/// changed since are left in place and rejected when looked up (every
/// candidate is compared with the needle).
#[derive(Clone, Debug, Default)]
struct EdgeLines {
    /// Hash of a line's text (without its `\n` and every `\r` before it),
    /// for lines of at most [`LINE_CAP`] bytes → the last of the entries
    /// with that hash, an index into `entries` (a chain, as in
    /// [`AddedLines`]: no list per line).
    short: HashMap<u64, usize, BuildHasherDefault<PrecomputedHasher>>,
    /// Per entry: where its line starts, and the previous entry with the
    /// same hash (`usize::MAX`: none).
    entries: Vec<(Source, usize)>,
    /// The boundaries whose line is longer than [`LINE_CAP`] (or starts
    /// further back than that): looked at one by one by a search whose
    /// first line is that long.
    long: HashSet<Source>,
}

/// Offsets of a search's places: most searches have one or two, held
/// in place (a file's ten blocks made twenty small allocations before).
pub type Places = smallvec::SmallVec<[usize; 2]>;

/// A search's hits in the original text, found once per file
/// (`resolve/hits.rs`), which [`Doc::find`] maps through the edits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrigHits {
    /// Every occurrence of the needle (for a line search: those at a
    /// line start that hold its first line whole), in order.
    pub full: Places,
    /// For a line search of several lines: every line start of the
    /// original whose line is the needle's first line (its text up to the
    /// first `\n`, one `\r` aside), in order. `None` when not collected
    /// (then the text near every change is searched instead).
    pub first_line: Option<Places>,
    /// For a line search on the unedited text: the needle's length and
    /// the hits of `full` that end a line too (`locate::whole_line_hits`),
    /// kept on first use. Every block with this search reads the same
    /// list: 10k blocks over 10k identical lines filtered 10^8 places,
    /// one block at a time, before.
    pub whole_lines: std::sync::OnceLock<(usize, Vec<usize>)>,
}

/// The current text of one file, as pieces of the original and of edits.
#[derive(Clone, Debug)]
pub struct Doc<'o> {
    original: &'o str,
    /// Every text an edit inserted, one after the other (append only).
    added: String,
    /// Where each insertion starts in `added`, in order: a line of the
    /// added text starts there or after a `\n`.
    insertions: Vec<usize>,
    /// Per insertion, where it sits among the original bytes: after every
    /// original byte before this offset still in the text, before every
    /// other one (see [`Doc::anchor_at`]).
    anchors: Vec<usize>,
    pieces: Vec<Piece>,
    /// Current start offset of each piece, plus the total length at the end.
    starts: Vec<usize>,
    /// Indices of the original pieces, in order.
    orig_pieces: Vec<usize>,
    added_lines: RefCell<AddedLines>,
    /// The lines at or across piece boundaries, by their text.
    edges: EdgeLines,
    text: OnceCell<String>,
    /// The original's line index, on first use (shared by the line
    /// passes while nothing is edited, and by the hints and reports).
    orig_index: Rc<OnceCell<LineIndex>>,
}

impl<'o> Doc<'o> {
    /// The original text, unedited.
    pub fn new(original: &'o str) -> Doc<'o> {
        Doc::with_index(original, Rc::default())
    }

    /// The same, with `orig_index` as the original's line index cell
    /// (shared with the indentation style, which reads its lines).
    pub fn with_index(original: &'o str, orig_index: Rc<OnceCell<LineIndex>>) -> Doc<'o> {
        let pieces = if original.is_empty() {
            Vec::new()
        } else {
            vec![Piece::Orig(0..original.len())]
        };
        let mut doc = Doc {
            original,
            added: String::new(),
            insertions: Vec::new(),
            anchors: Vec::new(),
            pieces,
            starts: Vec::new(),
            orig_pieces: Vec::new(),
            added_lines: RefCell::default(),
            edges: EdgeLines::default(),
            text: OnceCell::new(),
            orig_index,
        };
        doc.reindex_from(0);
        doc
    }

    /// The original text.
    pub fn original(&self) -> &'o str {
        self.original
    }

    /// Room for `edits` replaces that add `lines` lines of `bytes` bytes
    /// in all (a file's edits are known before the first applies): the
    /// lists and tables are sized once rather than grown by doubling
    /// (a dozen reallocations and rehashes per file, most of them for
    /// a file of a few edits). The line table is sized on first use.
    pub fn reserve(&mut self, edits: usize, lines: usize, bytes: usize) {
        self.added.reserve(bytes);
        self.insertions.reserve(edits);
        self.anchors.reserve(edits);
        // An edit inside a piece cuts it in two around its own piece.
        self.pieces.reserve(2 * edits);
        self.starts.reserve(2 * edits);
        self.orig_pieces.reserve(edits);
        // About two boundaries and their lines per change.
        self.edges.short.reserve(4 * edits);
        self.edges.entries.reserve(4 * edits);
        self.added_lines.get_mut().expected = lines;
    }

    /// The original's line index (built once).
    pub fn original_index(&self) -> &LineIndex {
        self.orig_index
            .get_or_init(|| LineIndex::new(self.original))
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

    /// The bytes of a piece.
    fn piece_text(&self, piece: &Piece) -> &str {
        match piece {
            Piece::Orig(r) => &self.original[r.clone()],
            Piece::Added(r) => &self.added[r.clone()],
        }
    }

    /// The current text of `range` (on char boundaries: search windows are
    /// widened to them, see [`Doc::char_floor`]).
    pub fn slice(&self, range: Range<usize>) -> String {
        let mut out = String::with_capacity(range.len());
        for part in self.parts(range) {
            out.push_str(part);
        }
        out
    }

    /// The line breaks in the current text of `range`, counted piece by
    /// piece (no copy of the range).
    pub fn newlines(&self, range: Range<usize>) -> usize {
        self.parts(range).map(crate::text::lines::newlines).sum()
    }

    /// The current text of `range`, in the pieces it spans, in order.
    fn parts(&self, range: Range<usize>) -> impl Iterator<Item = &str> + '_ {
        let mut i = if range.is_empty() {
            self.pieces.len()
        } else {
            self.piece_at(range.start)
        };
        std::iter::from_fn(move || {
            if i >= self.pieces.len() || self.starts[i] >= range.end {
                return None;
            }
            let piece_start = self.starts[i];
            let lo = range.start.max(piece_start) - piece_start;
            let hi = range.end.min(self.starts[i + 1]) - piece_start;
            i += 1;
            Some(&self.piece_text(&self.pieces[i - 1])[lo..hi])
        })
    }

    /// The byte just before current offset `at`, if any.
    pub fn byte_before(&self, at: usize) -> Option<u8> {
        (at > 0).then(|| self.byte_at(at - 1))
    }

    /// The current byte at offset `at` (`at < len()`).
    pub fn byte_at(&self, at: usize) -> u8 {
        let i = self.piece_at(at);
        let off = at - self.starts[i];
        self.piece_text(&self.pieces[i]).as_bytes()[off]
    }

    /// The original offset of current offset `at`: itself mapped back when
    /// it lies in original text, the insertion point when in new text.
    pub fn to_original(&self, at: usize) -> usize {
        let i = self.piece_at(at);
        match self.pieces.get(i) {
            None => 0,
            Some(Piece::Orig(r)) => r.start + (at - self.starts[i]).min(r.len()),
            Some(Piece::Added(_)) => {
                // The original piece before it, found among the original
                // pieces (in order) rather than by walking back.
                let k = self.orig_pieces.partition_point(|&j| j < i);
                k.checked_sub(1)
                    .map_or(0, |k| self.orig_range(self.orig_pieces[k]).end)
            }
        }
    }

    /// Every current occurrence of `needle`, given `orig`: its hits in
    /// the original text. With `lines`, the caller keeps only whole-line
    /// matches (a line start, then a line end): other occurrences may be
    /// left out.
    pub fn find(&self, needle: &str, orig: &OrigHits, lines: bool) -> Places {
        if needle.is_empty() {
            return Places::new();
        }
        if !self.is_edited() {
            return orig.full.clone();
        }
        // A one-line needle's first line is itself.
        let first_line = match &orig.first_line {
            _ if !needle.contains('\n') => Some(&orig.full),
            first_line => first_line.as_ref(),
        };
        let places = first_line.filter(|_| lines).map_or(0, |p| p.len());
        // Sized for the mapped hits and the places: held in place when
        // they are two or fewer (most searches), grown when changes add some.
        let mut hits = Places::with_capacity(orig.full.len() + places);
        hits.extend(
            orig.full
                .iter()
                .filter_map(|&s| self.map_orig(s, needle.len())),
        );
        match first_line {
            Some(first_line) if lines => self.line_candidates(needle, first_line, &mut hits),
            _ => hits.extend(self.find_near_changes(needle, lines)),
        }
        hits.sort_unstable();
        hits.dedup();
        hits
    }

    /// The whole-line occurrences of a line needle that the mapped
    /// original hits miss, from its first line's places rather than from
    /// the text near every change: O(places × log pieces) per search, not
    /// O(changes × needle) nor O(pieces). A whole-line occurrence at `p`
    /// has its first line (up to its `\n`, or the end of the text):
    /// - inside one original piece, not at its start: an original line,
    ///   one of `first_line` (the original line starts holding it);
    /// - inside one added piece, not at its start: a line of the added
    ///   text's table ([`AddedLines`]);
    /// - starting at a piece's start, or crossing a piece boundary or a
    ///   cut end of the text: a line of [`EdgeLines`] (by its text, or
    ///   for a first line longer than [`LINE_CAP`], the line at or around
    ///   each long line's boundary, looked at directly).
    ///
    /// Each candidate is compared with the needle in full; those that
    /// hold it are added to `out` (in no particular order).
    fn line_candidates(&self, needle: &str, first_line: &[usize], out: &mut Places) {
        let bytes = needle.as_bytes();
        let n = bytes.len();
        let first = &bytes[..memchr::memchr(b'\n', bytes).unwrap_or(n)];
        let base = out.len();
        out.extend(
            first_line
                .iter()
                .filter_map(|&o| self.map_orig(o, first.len())),
        );
        let mut lines = self.added_lines.borrow_mut();
        lines.update(&self.added, &self.insertions);
        lines.for_each_start(first, |a| out.extend(self.locate(Source::Added(a))));
        if n == first.len() && first.ends_with(b"\r") {
            // A one-line needle ending in `\r` is a whole line before a
            // `\r\n` too: that line's key is the needle itself.
            let key = [first, b"\r"].concat();
            lines.for_each_start(&key, |a| out.extend(self.locate(Source::Added(a))));
        }
        drop(lines);
        self.edge_candidates(first, out);
        // Only the candidates added here are checked (the caller's own
        // entries before `base` are kept as they are).
        let mut kept = base;
        for i in base..out.len() {
            if self.holds_at(out[i], bytes) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
    }

    /// The candidates [`EdgeLines`] gives for a needle's first line
    /// `first`: the lines at or across a boundary whose text is `first`
    /// (one `\r` more or less at its end aside).
    fn edge_candidates(&self, first: &[u8], out: &mut Places) {
        let trimmed = trim_cr(first);
        if trimmed.len() <= LINE_CAP {
            let key = xxhash_rust::xxh3::xxh3_64(trimmed);
            let mut k = self.edges.short.get(&key).copied().unwrap_or(usize::MAX);
            while k != usize::MAX {
                let (s, previous) = self.edges.entries[k];
                k = previous;
                if let Some(p) = self.locate(s) {
                    if p < self.len() && (p == 0 || self.byte_at(p - 1) == b'\n') {
                        out.push(p);
                    }
                }
            }
        }
        // A line longer than the cap may be the occurrence's first line,
        // plus one `\r` (before a `\r\n`, for a one-line needle).
        if first.len() >= LINE_CAP {
            for &s in &self.edges.long {
                if let Some(j) = self.locate(s) {
                    self.boundary_candidates(j, first.len(), out);
                }
            }
        }
    }

    /// The plain scan [`Doc::edge_candidates`] stands for: the candidates
    /// of every piece boundary and of the end of the text (O(pieces)).
    #[cfg(test)]
    fn scanned_edge_candidates(&self, first_len: usize) -> Places {
        let mut out = Places::new();
        for &s in &self.starts {
            self.boundary_candidates(s, first_len, &mut out);
        }
        out
    }

    /// The source of current offset `at` ([`Source::End`] at the end).
    fn source_of(&self, at: usize) -> Source {
        if at >= self.len() {
            return Source::End;
        }
        let i = self.piece_at(at);
        let off = at - self.starts[i];
        match &self.pieces[i] {
            Piece::Orig(r) => Source::Orig(r.start + off),
            Piece::Added(r) => Source::Added(r.start + off),
        }
    }

    /// The current offset of a source byte, if it is still in the text:
    /// an original byte among the original pieces (in order); an added
    /// byte among the pieces between the original pieces around its
    /// insertion's anchor (usually one or two).
    fn locate(&self, source: Source) -> Option<usize> {
        match source {
            Source::End => Some(self.len()),
            Source::Orig(o) => {
                let k = self
                    .orig_pieces
                    .partition_point(|&i| self.orig_range(i).end <= o);
                let &i = self.orig_pieces.get(k)?;
                let r = self.orig_range(i);
                (r.start <= o).then(|| self.starts[i] + (o - r.start))
            }
            Source::Added(a) => {
                let k = self
                    .insertions
                    .partition_point(|&x| x <= a)
                    .checked_sub(1)?;
                let anchor = self.anchors[k];
                let j = self
                    .orig_pieces
                    .partition_point(|&i| self.orig_range(i).start < anchor);
                let lo = j.checked_sub(1).map_or(0, |j| self.orig_pieces[j] + 1);
                let hi = self
                    .orig_pieces
                    .get(j)
                    .copied()
                    .unwrap_or(self.pieces.len());
                (lo..hi).find_map(|i| match &self.pieces[i] {
                    Piece::Added(r) if r.contains(&a) => Some(self.starts[i] + (a - r.start)),
                    _ => None,
                })
            }
        }
    }

    /// Where text inserted at current offset `at` sits among the original
    /// bytes: after the original bytes before `at` (the last of them + 1),
    /// before the others. Edits never reorder bytes, so this stays true.
    fn anchor_at(&self, at: usize) -> usize {
        if at == 0 || self.pieces.is_empty() {
            return 0;
        }
        let i = self.piece_at(at - 1);
        match &self.pieces[i] {
            Piece::Orig(r) => r.start + (at - self.starts[i]).min(r.len()),
            Piece::Added(_) => {
                let k = self.orig_pieces.partition_point(|&j| j < i);
                k.checked_sub(1)
                    .map_or(0, |k| self.orig_range(self.orig_pieces[k]).end)
            }
        }
    }

    /// Registers in [`EdgeLines`] the lines of the boundaries near a change
    /// that now spans current `start..end` (its new text): the boundaries
    /// within [`LINE_CAP`] + 2 bytes of it, its two ends and the end of the
    /// text. A line that changed holds the change; a short one is within
    /// reach of it, and a long one's boundaries are already registered or
    /// were in a short line within reach before.
    fn register_edges(&mut self, start: usize, end: usize) {
        let len = self.len();
        let lo = start.saturating_sub(LINE_CAP + 2);
        let hi = (end + LINE_CAP + 2).min(len);
        self.register_edge(start);
        if end != start {
            self.register_edge(end);
        }
        let mut i = self.starts.partition_point(|&s| s < lo);
        while i < self.pieces.len() && self.starts[i] <= hi {
            let j = self.starts[i];
            if j != start && j != end {
                self.register_edge(j);
            }
            i += 1;
        }
        if hi == len && len != start && len != end {
            self.register_edge(len);
        }
    }

    /// Registers the line at or across current offset `j` (as
    /// [`Doc::boundary_candidates`] would find it there).
    fn register_edge(&mut self, j: usize) {
        let starts_line = j == 0 || self.byte_at(j - 1) == b'\n';
        let p = match starts_line {
            true => Some(j),
            false => self.line_start_after(j.saturating_sub(LINE_CAP + 2), j - 1),
        };
        if p == Some(self.len()) {
            // An empty text, or `j` after its last `\n`: no line there.
            return;
        }
        match p.and_then(|p| self.short_line_key(p).map(|k| (p, k))) {
            Some((p, key)) => {
                let source = self.source_of(p);
                let edges = &mut self.edges;
                let k = edges.entries.len();
                let previous = edges.short.get(&key).copied().unwrap_or(usize::MAX);
                if edges.entries.get(previous).map(|e| e.0) != Some(source) {
                    edges.entries.push((source, previous));
                    edges.short.insert(key, k);
                }
            }
            None => {
                let source = self.source_of(j);
                self.edges.long.insert(source);
            }
        }
    }

    /// The key of the line starting at current offset `p` (its text
    /// without its `\n` and every `\r` before it), if it is at most
    /// [`LINE_CAP`] bytes long.
    fn short_line_key(&self, p: usize) -> Option<u64> {
        let i = self.piece_at(p);
        let part = &self.piece_text(&self.pieces[i]).as_bytes()[p - self.starts[i]..];
        let reach = &part[..part.len().min(LINE_CAP + 1)];
        if let Some(stop) = memchr::memchr(b'\n', reach) {
            // The whole line in one piece (the usual case): no copy.
            return Some(xxhash_rust::xxh3::xxh3_64(trim_cr(&part[..stop])));
        }
        if reach.len() > LINE_CAP {
            return None;
        }
        let mut buf = [0u8; LINE_CAP];
        let mut n = 0;
        let mut i = self.piece_at(p);
        let mut at = p;
        while i < self.pieces.len() {
            let text = self.piece_text(&self.pieces[i]).as_bytes();
            let part = &text[at - self.starts[i]..];
            let stop = memchr::memchr(b'\n', part);
            let take = stop.unwrap_or(part.len());
            if n + take > LINE_CAP {
                return None;
            }
            buf[n..n + take].copy_from_slice(&part[..take]);
            n += take;
            if stop.is_some() {
                break;
            }
            i += 1;
            at = self.starts[i];
        }
        Some(xxhash_rust::xxh3::xxh3_64(trim_cr(&buf[..n])))
    }

    /// The candidates a piece boundary (or the end of the text) at `j`
    /// gives: `j` when a line starts there, and the start of the line
    /// that crosses it, if that line may be the first line (`first_len`
    /// bytes) of an occurrence.
    fn boundary_candidates(&self, j: usize, first_len: usize, out: &mut Places) {
        let line_starts_at_j = j == 0 || self.byte_at(j - 1) == b'\n';
        if line_starts_at_j {
            if j < self.len() {
                out.push(j);
            }
            return;
        }
        // The line crossing `j` starts at most `first_len` bytes (and a
        // `\r`) before it, or it is longer than the needle's first line.
        let floor = j.saturating_sub(first_len + 2);
        if let Some(p) = self.line_start_after(floor, j - 1) {
            out.push(p);
        }
    }

    /// The start of the line holding current offset `at`, if it is after
    /// `floor` (or at the start of the text): the byte after the last
    /// `\n` in `floor..at`, searched piece by piece.
    fn line_start_after(&self, floor: usize, at: usize) -> Option<usize> {
        let mut i = self.piece_at(at);
        let mut end = at;
        loop {
            let start = self.starts[i].max(floor);
            let text = self.piece_text(&self.pieces[i]).as_bytes();
            let base = self.starts[i];
            if let Some(k) = memchr::memrchr(b'\n', &text[start - base..end - base]) {
                return Some(start + k + 1);
            }
            if start == 0 {
                return Some(0);
            }
            if start == floor || i == 0 {
                return None;
            }
            i -= 1;
            end = start;
        }
    }

    /// Does the current text hold `needle` at `at`?
    fn holds_at(&self, at: usize, needle: &[u8]) -> bool {
        if at + needle.len() > self.len() {
            return false;
        }
        let mut i = self.piece_at(at);
        let mut done = 0;
        while done < needle.len() {
            let text = self.piece_text(&self.pieces[i]).as_bytes();
            let off = at + done - self.starts[i];
            let take = (text.len() - off).min(needle.len() - done);
            if text[off..off + take] != needle[done..done + take] {
                return false;
            }
            done += take;
            i += 1;
        }
        true
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

    /// Occurrences that touch inserted text or a deletion point, from the
    /// text near every change (for a needle whose first line's places
    /// are not known). With `lines`, the inside of a big Added piece is
    /// looked up in the line table rather than scanned: there an
    /// occurrence that starts a line starts one of the table's lines (see
    /// [`Doc::big_piece_hits`]). A line needle's original hits are only
    /// those at a line start and, for one line, before a line end: next
    /// to a change, where the bytes around an occurrence are no longer
    /// the original's, the windows reach two bytes further and what they
    /// find there is kept.
    fn find_near_changes(&self, needle: &str, lines: bool) -> Vec<usize> {
        let n = needle.len();
        let reach = n - 1;
        // How far before and after a change an occurrence may start.
        let (before, after) = if lines { (n + 2, n) } else { (reach, reach) };
        let mut windows: Vec<Range<usize>> = Vec::new();
        let mut big: Vec<usize> = Vec::new();
        let push = |windows: &mut Vec<Range<usize>>, d: Range<usize>| {
            let w = self.char_floor(d.start)..self.char_ceil(d.end.min(self.len()));
            match windows.last_mut() {
                Some(last) if last.end >= w.start => last.end = last.end.max(w.end),
                _ => windows.push(w),
            }
        };
        for (i, piece) in self.pieces.iter().enumerate() {
            let (start, end) = (self.starts[i], self.starts[i + 1]);
            match piece {
                Piece::Added(_) if lines && end - start > BIG_ADDED.max(2 * n + 4) => {
                    // Its two ends (an occurrence that crosses one, or
                    // starts at its start, or ends at its end or one byte
                    // before it, before a `\r\n` of the next piece) ...
                    push(&mut windows, start.saturating_sub(before)..start + n);
                    push(&mut windows, end - n - 2..end + after);
                    // ... and its inside, from the table.
                    big.push(i);
                }
                Piece::Added(_) => push(&mut windows, start.saturating_sub(before)..end + after),
                Piece::Orig(r) => {
                    // A junction with the previous original piece is a deletion point.
                    let joined =
                        i > 0 && matches!(&self.pieces[i - 1], Piece::Orig(p) if p.end != r.start);
                    let cut_start = i == 0 && r.start != 0;
                    if joined || cut_start {
                        push(&mut windows, start.saturating_sub(before)..start + after);
                    }
                }
            }
        }
        // The end of the text is a deletion point when the original tail is gone.
        if let Some(Piece::Orig(r)) = self.pieces.last() {
            if r.end != self.original.len() {
                push(&mut windows, self.len().saturating_sub(before)..self.len());
            }
        }
        let mut hits = self.big_piece_hits(needle, &big);
        // One searcher for every window (building one costs as much as
        // searching a small window); none when the windows are so small
        // that comparing at each place their first byte matches costs less.
        let total: usize = windows.iter().map(|w| w.len()).sum();
        let finder = (total.saturating_mul(n) > NAIVE_SEARCH_BYTES)
            .then(|| memmem::Finder::new(needle.as_bytes()));
        for w in windows {
            let text = self.slice(w.clone());
            let found = match &finder {
                Some(finder) => find_overlapping_with(finder, text.as_bytes()),
                None => find_overlapping_naive(text.as_bytes(), needle.as_bytes()),
            };
            for pos in found {
                let start = w.start + pos;
                let mapped = match lines {
                    true => self.well_inside_one_orig_piece(start, n),
                    false => self.inside_one_orig_piece(start, n),
                };
                if !mapped {
                    hits.push(start);
                }
            }
        }
        hits
    }

    /// The occurrences of `needle` that start a line of the added text
    /// inside the big Added pieces `big` (indices) and end in the same
    /// piece. An occurrence inside a piece that starts a line of the
    /// current text and is not at the piece's start follows a `\n` of the
    /// piece: it starts a line of the table, whose text, up to its `\n`,
    /// is the needle's first line — or the whole needle, ending where the
    /// line's insertion ended, unless a later edit cut the piece short
    /// there, and then the occurrence ends at the piece's end or one byte
    /// before it: in the window searched there.
    fn big_piece_hits(&self, needle: &str, big: &[usize]) -> Vec<usize> {
        if big.is_empty() {
            return Vec::new();
        }
        let mut lines = self.added_lines.borrow_mut();
        lines.update(&self.added, &self.insertions);
        let bytes = needle.as_bytes();
        let first = &bytes[..memchr::memchr(b'\n', bytes).unwrap_or(bytes.len())];
        let at = lines.starts_of(first);
        let added = self.added.as_bytes();
        let mut hits = Vec::new();
        for &i in big {
            let Piece::Added(r) = &self.pieces[i] else {
                continue;
            };
            let from = at.partition_point(|&a| a < r.start);
            for &a in at[from..].iter().take_while(|&&a| a < r.end) {
                if a + bytes.len() <= r.end && added[a..].starts_with(bytes) {
                    hits.push(self.starts[i] + (a - r.start));
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

    /// Does current `start..start + len` lie inside one original piece,
    /// not at its start and two bytes or more before its end? Then the
    /// bytes a line hit's filter looked at are the original's, and the
    /// original hits hold it if it is a line hit.
    fn well_inside_one_orig_piece(&self, start: usize, len: usize) -> bool {
        let i = self.piece_at(start);
        matches!(self.pieces.get(i), Some(Piece::Orig(_)))
            && start > self.starts[i]
            && start + len + 2 <= self.starts[i + 1]
    }

    /// Index of the piece holding current offset `at` (the last piece for
    /// the end offset).
    fn piece_at(&self, at: usize) -> usize {
        let i = self.starts.partition_point(|&s| s <= at);
        i.saturating_sub(1).min(self.pieces.len().saturating_sub(1))
    }

    /// Replaces current `range` by `text`: the pieces it touches are
    /// spliced in place, and only the pieces after them are renumbered
    /// (sequential edits down a file touch the last few pieces only).
    pub fn replace(&mut self, range: Range<usize>, text: &str) {
        let count = self.pieces.len();
        // The pieces `lo..hi` overlap the range (none for an insertion at
        // a piece boundary: it goes before piece `lo`).
        let lo = self.starts[1..].partition_point(|&end| end <= range.start);
        let hi = self.starts[..count]
            .partition_point(|&s| s < range.end)
            .max(lo);
        let anchor = self.anchor_at(range.start);
        // At most three new pieces (the cut head, the insertion, the cut
        // tail) between at most one neighbour on each side: held on the
        // stack, no list per edit.
        let head = (lo < count && self.starts[lo] < range.start)
            .then(|| cut(&self.pieces[lo], 0..range.start - self.starts[lo]));
        let added = (!text.is_empty()).then(|| {
            let at = self.added.len();
            self.added.push_str(text);
            self.insertions.push(at);
            self.anchors.push(anchor);
            Piece::Added(at..self.added.len())
        });
        let tail = (hi > lo && self.starts[hi] > range.end).then(|| {
            let last = hi - 1;
            let ps = self.starts[last];
            cut(
                &self.pieces[last],
                range.end.max(ps) - ps..self.starts[hi] - ps,
            )
        });
        // Neighbours that continue each other are joined (see `joins`).
        let from = lo.saturating_sub(1);
        let upto = (hi + 1).min(count);
        let mut local: [Option<Piece>; 5] = [None, None, None, None, None];
        let mut n: usize = 0;
        for piece in self.pieces[from..lo]
            .iter()
            .cloned()
            .chain(head)
            .chain(added)
            .chain(tail)
            .chain(self.pieces[hi..upto].iter().cloned())
        {
            match n.checked_sub(1).and_then(|l| local[l].as_mut()) {
                Some(last) if self.joins(last, &piece) => grow(last, &piece),
                _ => {
                    local[n] = Some(piece);
                    n += 1;
                }
            }
        }
        // An exact-size iterator: the pieces after are moved once.
        self.pieces.splice(
            from..upto,
            local[..n].iter_mut().map(|p| p.take().expect("a piece")),
        );
        self.reindex_from(from);
        self.register_edges(range.start, range.start + text.len());
    }

    /// Replaces several disjoint current ranges at once, as replacing
    /// each (from the last) would, in one pass over the pieces: a group of
    /// ten thousand hunks would otherwise splice the piece list per hunk.
    /// `edits` are sorted by start and do not overlap.
    pub fn replace_disjoint(&mut self, edits: &[(Range<usize>, &str)]) {
        let mut out: Vec<Piece> = Vec::with_capacity(self.pieces.len() + 2 * edits.len());
        // `k` only moves forward: each range kept starts at or after the
        // previous one's end.
        let mut k = 0;
        let mut at = 0;
        let anchors: Vec<usize> = edits.iter().map(|(r, _)| self.anchor_at(r.start)).collect();
        for ((range, text), anchor) in edits.iter().zip(anchors) {
            keep_range(
                &self.pieces,
                &self.starts,
                &mut k,
                &mut out,
                at..range.start,
            );
            if !text.is_empty() {
                let start = self.added.len();
                self.added.push_str(text);
                self.insertions.push(start);
                self.anchors.push(anchor);
                out.push(Piece::Added(start..self.added.len()));
            }
            at = range.end;
        }
        keep_range(&self.pieces, &self.starts, &mut k, &mut out, at..self.len());
        // Neighbours that continue each other are joined (see `joins`).
        let mut joined: Vec<Piece> = Vec::with_capacity(out.len());
        for piece in out {
            match joined.last_mut() {
                Some(last) if self.joins(last, &piece) => grow(last, &piece),
                _ => joined.push(piece),
            }
        }
        self.pieces = joined;
        self.reindex_from(0);
        // The lines [`Doc::register_edges`] registers for each change, each
        // once: changes close together share their boundaries (50,000
        // one-line hunks on identical lines registered each ~80 times),
        // and each piece is visited by the first change that reaches it.
        let len = self.len();
        let mut offsets = Vec::with_capacity(2 * edits.len() + 1);
        let mut next_piece = 0;
        // Each change's place now: its start moved by the changes before it.
        let mut shift: isize = 0;
        for (range, text) in edits {
            let start = range.start.checked_add_signed(shift).unwrap_or(0);
            let end = start + text.len();
            shift += text.len() as isize - range.len() as isize;
            offsets.extend([start, end]);
            let lo = start.saturating_sub(LINE_CAP + 2);
            let hi = (end + LINE_CAP + 2).min(len);
            let mut i = self.starts.partition_point(|&s| s < lo).max(next_piece);
            while i < self.pieces.len() && self.starts[i] <= hi {
                offsets.push(self.starts[i]);
                i += 1;
            }
            next_piece = next_piece.max(i);
            if hi == len {
                offsets.push(len);
            }
        }
        offsets.sort_unstable();
        offsets.dedup();
        for j in offsets {
            self.register_edge(j);
        }
    }

    /// Whether piece `b` continues piece `a` and may be joined with it.
    /// Original pieces always are, so that a piece boundary always marks
    /// a change (an exact search relies on it: a match across two
    /// contiguous original pieces would be missed). Added pieces only when
    /// `a` ends a line: the line table keys each line by its text up to
    /// the end of its insertion, which must not continue in the next.
    fn joins(&self, a: &Piece, b: &Piece) -> bool {
        match (a, b) {
            (Piece::Orig(a), Piece::Orig(b)) => a.end == b.start,
            (Piece::Added(a), Piece::Added(b)) => {
                a.end == b.start && (a.is_empty() || self.added.as_bytes()[a.end - 1] == b'\n')
            }
            _ => false,
        }
    }

    /// Recomputes the start offsets and the original pieces' list from
    /// piece `from` on.
    fn reindex_from(&mut self, from: usize) {
        self.starts.truncate(from);
        let keep = self.orig_pieces.partition_point(|&i| i < from);
        self.orig_pieces.truncate(keep);
        let mut at = if from == 0 {
            0
        } else {
            // `starts[from]` before truncation: the previous piece's end.
            self.starts[from - 1] + self.pieces[from - 1].len()
        };
        for (i, p) in self.pieces.iter().enumerate().skip(from) {
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
        // At most one edit per added piece or gap between original pieces.
        let mut edits = Vec::with_capacity(self.pieces.len() / 2 + 1);
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
                Piece::Added(r) => {
                    let s = &self.added[r.clone()];
                    match &mut pending {
                        Some(e) => e.text.push_str(s),
                        None => pending = Some(TextEdit::insert(orig_at, s)),
                    }
                }
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

/// A line without every `\r` at its end (the key of [`EdgeLines`]: an
/// occurrence's first line is the needle's, or for a one-line needle
/// before a `\r\n`, the needle and a `\r`).
fn trim_cr(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && line[end - 1] == b'\r' {
        end -= 1;
    }
    &line[..end]
}

/// A line's text as a table key: without one `\r` at its end (a needle's
/// first line in a CRLF file ends in `\r`, a one-line needle does not).
fn line_key(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl AddedLines {
    /// Adds the lines of the insertions made since the last update: a
    /// line starts at each insertion's start and after each `\n`, and
    /// ends at its `\n` or at its insertion's end (`insertions`: where
    /// each insertion of `added` starts, in order).
    fn update(&mut self, added: &str, insertions: &[usize]) {
        let bytes = added.as_bytes();
        if self.lines.is_empty() {
            self.table.reserve(self.expected);
            self.lines.reserve(self.expected);
        }
        let first = insertions.partition_point(|&s| s < self.upto);
        for (k, &start) in insertions.iter().enumerate().skip(first) {
            let end = insertions.get(k + 1).copied().unwrap_or(bytes.len());
            let mut at = start;
            while at < end {
                let stop = memchr::memchr(b'\n', &bytes[at..end]).map_or(end, |p| at + p);
                let hash = xxhash_rust::xxh3::xxh3_64(line_key(&bytes[at..stop]));
                let k = self.lines.len();
                let previous = self.table.insert(hash, k).unwrap_or(usize::MAX);
                self.lines.push((at, previous));
                at = stop + 1;
            }
        }
        self.upto = bytes.len();
    }

    /// The offsets of the lines whose text is `line`'s (by hash), in order.
    fn starts_of(&self, line: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        self.for_each_start(line, |at| out.push(at));
        out.reverse();
        out
    }

    /// `f` of the offset of each line whose text is `line`'s (by hash),
    /// the last first.
    fn for_each_start(&self, line: &[u8], mut f: impl FnMut(usize)) {
        let mut k = self
            .table
            .get(&xxhash_rust::xxh3::xxh3_64(line_key(line)))
            .copied()
            .unwrap_or(usize::MAX);
        while k != usize::MAX {
            let (at, previous) = self.lines[k];
            f(at);
            k = previous;
        }
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

/// Pushes the parts of `pieces` (current offsets `starts`) that cover
/// current range `range`, from piece `k` on; leaves `k` at the last piece
/// it reached.
fn keep_range(
    pieces: &[Piece],
    starts: &[usize],
    k: &mut usize,
    out: &mut Vec<Piece>,
    range: Range<usize>,
) {
    while *k < pieces.len() && starts[*k + 1] <= range.start {
        *k += 1;
    }
    while *k < pieces.len() && starts[*k] < range.end {
        let (ps, pe) = (starts[*k], starts[*k + 1]);
        let (a, b) = (range.start.max(ps) - ps, range.end.min(pe) - ps);
        if a < b {
            out.push(cut(&pieces[*k], a..b));
        }
        if pe > range.end {
            break;
        }
        *k += 1;
    }
}

/// Makes `a` cover `b` too (`b` continues it: [`Doc::joins`]).
fn grow(a: &mut Piece, b: &Piece) {
    match (a, b) {
        (Piece::Orig(a), Piece::Orig(b)) | (Piece::Added(a), Piece::Added(b)) => a.end = b.end,
        _ => {}
    }
}

/// The part `range` (relative to the piece) of a piece.
fn cut(piece: &Piece, range: Range<usize>) -> Piece {
    match piece {
        Piece::Orig(r) => Piece::Orig(r.start + range.start..r.start + range.end),
        Piece::Added(r) => Piece::Added(r.start + range.start..r.start + range.end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_at_once_equals_replacing_one_by_one() {
        let original = "one\ntwo\nthree\nfour\nfive\nsix\n";
        let mut rng = crate::test_rng::Rng::new(0x0005_DEEC_E66D);
        let mut below = |n: usize| rng.below(n);
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
            assert_eq!(a.edits(), b.edits());
        }
    }

    #[test]
    fn a_range_counts_the_newlines_its_text_holds() {
        // Over pieces cut and added by edits, against a plain string given
        // the same edits.
        let mut rng = crate::test_rng::Rng::new(0x0ACE_11E5);
        for _ in 0..300 {
            let original = "one\ntwo\n\nthree\nfour";
            let (mut doc, mut plain) = (Doc::new(original), original.to_owned());
            for _ in 0..rng.below(5) {
                let len = plain.len();
                let s = rng.below(len + 1);
                let e = s + rng.below(len - s + 1);
                let text = ["", "x", "new\n", "\n\ny"][rng.below(4)];
                doc.replace(s..e, text);
                plain.replace_range(s..e, text);
            }
            let len = plain.len();
            let s = rng.below(len + 1);
            let e = s + rng.below(len - s + 1);
            let want = plain[s..e].matches('\n').count();
            assert_eq!(doc.newlines(s..e), want, "{plain:?} {s}..{e}");
            assert_eq!(doc.slice(s..e), plain[s..e]);
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

    fn full(hits: Vec<usize>) -> OrigHits {
        OrigHits {
            full: hits.into(),
            ..OrigHits::default()
        }
    }

    /// A line needle's original hits as `resolve/hits.rs` gives them,
    /// computed plainly: occurrences at a line start (one line: before a
    /// line end), and the line starts holding its first line.
    fn line_hits(original: &str, needle: &str, with_first_line: bool) -> OrigHits {
        let b = original.as_bytes();
        let full = find_overlapping(b, needle.as_bytes())
            .into_iter()
            .filter(|&s| {
                let rest = &b[s + needle.len()..];
                (s == 0 || b[s - 1] == b'\n')
                    && (needle.contains('\n')
                        || rest.is_empty()
                        || rest.starts_with(b"\n")
                        || rest.starts_with(b"\r\n"))
            })
            .collect();
        let first = needle.split('\n').next().unwrap_or("");
        let first = first.strip_suffix('\r').unwrap_or(first);
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', b).map(|i| i + 1));
        let first_line = starts
            .into_iter()
            .filter(|&s| s < b.len() || s == 0)
            .filter(|&s| {
                let line = original[s..].split('\n').next().unwrap_or("");
                line.strip_suffix('\r').unwrap_or(line) == first
            })
            .collect();
        OrigHits {
            full,
            first_line: with_first_line.then_some(first_line),
            ..OrigHits::default()
        }
    }

    /// A line needle whose occurrence starts where a deletion cut an
    /// original line: the original's line hits do not hold it (it was
    /// not at a line start there), yet it is a whole-line match now —
    /// and a second one, so the search is ambiguous.
    #[test]
    fn a_cut_line_start_is_found() {
        let original = "xxabc\nfoo\nabc\nfoo\n";
        for with_first_line in [false, true] {
            let mut doc = Doc::new(original);
            doc.replace(0..2, "");
            let hits = line_hits(original, "abc\nfoo", with_first_line);
            assert_eq!(hits.full[..], [10]);
            assert_eq!(doc.find("abc\nfoo", &hits, true)[..], [0, 8]);
            // A cut line end: "ab" is a whole line now.
            let mut doc = Doc::new("ab\nabc\n");
            doc.replace(5..6, "");
            let hits = line_hits("ab\nabc\n", "ab", with_first_line);
            assert_eq!(doc.find("ab", &hits, true)[..], [0, 3]);
        }
    }

    /// The search of the lines straddling edits as it was before
    /// [`EdgeLines`]: every piece boundary looked at, and every line start
    /// inside the added pieces.
    fn scanned_line_candidates(doc: &Doc, needle: &str, first_line: &[usize]) -> Vec<usize> {
        let bytes = needle.as_bytes();
        let first = &bytes[..memchr::memchr(b'\n', bytes).unwrap_or(bytes.len())];
        let mut out: Vec<usize> = first_line
            .iter()
            .filter_map(|&o| doc.map_orig(o, first.len()))
            .collect();
        for (i, piece) in doc.pieces.iter().enumerate() {
            if let Piece::Added(_) = piece {
                out.extend(
                    (doc.starts[i] + 1..doc.starts[i + 1]).filter(|&k| doc.byte_at(k - 1) == b'\n'),
                );
            }
        }
        out.extend(doc.scanned_edge_candidates(first.len()));
        out.retain(|&p| doc.holds_at(p, bytes));
        out
    }

    /// The whole-line occurrences of `needle` among `hits` in `text`,
    /// sorted, once each.
    fn whole_lines(text: &str, needle: &str, hits: &[usize]) -> Vec<usize> {
        let b = text.as_bytes();
        let mut out: Vec<usize> = hits
            .iter()
            .copied()
            .filter(|&at| {
                let end = at + needle.len();
                b[at..].starts_with(needle.as_bytes())
                    && (at == 0 || b[at - 1] == b'\n')
                    && (end == b.len()
                        || b[end] == b'\n'
                        || (b[end] == b'\r' && b.get(end + 1) == Some(&b'\n')))
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The index of the lines at piece boundaries finds what looking at
    /// every boundary finds, and what a plain search of the text finds,
    /// over random edit sequences: cuts inside lines, lines joined by
    /// deletions, texts without their last `\n`, lines longer than the
    /// index's cap, `\r`s, several changes at once.
    #[test]
    fn the_edge_index_finds_what_the_boundary_scan_finds() {
        let mut rng = crate::test_rng::Rng::new(0x00ED_6E11_4E5D);
        let mut next = move |n: usize| rng.below(n);
        let long = "w".repeat(LINE_CAP - 1);
        let words = [
            "a",
            "b",
            "ab",
            "x = 1",
            "",
            "a\r",
            "a\r\r",
            long.as_str(),
            "wwv",
        ];
        let line = |next: &mut dyn FnMut(usize) -> usize| {
            let mut l = String::from(words[next(words.len())]);
            if next(6) == 0 {
                l.push_str(words[next(words.len())]);
            }
            l.push('\n');
            l
        };
        for round in 0..60 {
            let original: String = (0..40 + next(80)).map(|_| line(&mut next)).collect();
            let mut doc = Doc::new(&original);
            let mut plain = original.clone();
            for _ in 0..30 {
                let len = plain.len();
                let mut text: String = (0..next(4)).map(|_| line(&mut next)).collect();
                if next(3) == 0 {
                    text.push_str(words[next(words.len())]);
                }
                if next(4) == 0 {
                    // Several changes at once.
                    let mut cuts: Vec<usize> =
                        (0..2 * (1 + next(4))).map(|_| next(len + 1)).collect();
                    cuts.sort_unstable();
                    let edits: Vec<(Range<usize>, &str)> = cuts
                        .chunks_exact(2)
                        .map(|c| (c[0]..c[1], if next(2) == 0 { "" } else { text.as_str() }))
                        .collect();
                    for (r, t) in edits.iter().rev() {
                        plain.replace_range(r.clone(), t);
                    }
                    doc.replace_disjoint(&edits);
                } else {
                    let start = next(len + 1);
                    let reach = if next(5) == 0 { 700 } else { 12 };
                    let end = (start + next(reach)).min(len);
                    doc.replace(start..end, &text);
                    plain.replace_range(start..end, &text);
                }
                assert_eq!(doc.text(), plain, "round {round}");
                // Needles: lines of the text now (with the next line
                // sometimes), and their first bytes.
                for _ in 0..6 {
                    let lines: Vec<&str> = plain.split('\n').collect();
                    let k = next(lines.len());
                    let mut needle = lines[k].to_string();
                    match next(4) {
                        0 if k + 1 < lines.len() => {
                            needle.push('\n');
                            needle.push_str(lines[k + 1]);
                        }
                        1 if !needle.is_empty() => {
                            let cut = next(needle.len());
                            needle.truncate(cut);
                        }
                        _ => {}
                    }
                    if needle.is_empty() {
                        continue;
                    }
                    let hits = line_hits(&original, &needle, true);
                    // As `find` gives it: a one-line needle's first line is itself.
                    let first_line = match needle.contains('\n') {
                        true => hits.first_line.clone().unwrap(),
                        false => hits.full.clone(),
                    };
                    let all = find_overlapping(plain.as_bytes(), needle.as_bytes());
                    let want = whole_lines(&plain, &needle, &all);
                    let scanned = scanned_line_candidates(&doc, &needle, &first_line);
                    let mut indexed = Places::from_elem(usize::MAX, 1);
                    doc.line_candidates(&needle, &first_line, &mut indexed);
                    assert_eq!(indexed.remove(0), usize::MAX);
                    assert_eq!(whole_lines(&plain, &needle, &scanned), want, "{needle:?}");
                    assert_eq!(whole_lines(&plain, &needle, &indexed), want, "{needle:?}");
                    let found = doc.find(&needle, &hits, true);
                    assert_eq!(whole_lines(&plain, &needle, &found), want, "{needle:?}");
                    assert!(found.iter().all(|at| all.contains(at)), "{needle:?}");
                }
            }
        }
    }

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
        assert_eq!(doc.find("x = 1", &full(hits), false)[..], [0, 6, 12]);
        // A deletion joins text into a new occurrence.
        let mut doc = Doc::new("ab--cd");
        doc.replace(2..4, "");
        assert_eq!(doc.find("bc", &full(vec![]), false)[..], [1]);
    }

    #[test]
    fn searches_windows_that_cut_multibyte_characters() {
        let original = "第一行 line one\n第二行 line two\n第三行\n";
        let mut doc = Doc::new(original);
        let at = original.find("one").unwrap();
        doc.replace(at..at + 3, "1");
        assert_eq!(doc.find("二行 line", &full(vec![]), false)[..], [0usize; 0]);
        assert_eq!(doc.find("e 1\n第", &full(vec![]), false)[..], [at - 2]);
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

    /// Random edits on a doc and on a plain `String` side by side: same
    /// text, same edits, and `find` gives what a plain search of the
    /// text gives (for a line needle: at least every whole-line
    /// occurrence). Inserted texts are many short lines, so that big
    /// Added pieces (searched through the line table) grow, are cut and
    /// joined.
    #[test]
    fn random_edits_match_a_plain_string() {
        let mut rng = crate::test_rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |n: usize| rng.below(n);
        let words = ["a", "b", "ab", "x = 1", "", "  b", "a\r"];
        let line = |next: &mut dyn FnMut(usize) -> usize| {
            let mut l = String::from(words[next(words.len())]);
            l.push('\n');
            l
        };
        for round in 0..16 {
            let original: String = (0..200).map(|_| line(&mut next)).collect();
            let mut doc = Doc::new(&original);
            if round % 4 < 2 {
                // Room made ahead changes nothing read.
                doc.reserve(40, 10 * round, 100 * round);
            }
            let mut plain = original.clone();
            for _ in 0..40 {
                let len = plain.len();
                let start = next(len + 1);
                let end = (start + next(12)).min(len);
                let lines = if next(4) == 0 {
                    1500 + next(1500)
                } else {
                    next(4)
                };
                let mut text: String = (0..lines).map(|_| line(&mut next)).collect();
                if round % 2 == 1 && !text.is_empty() && next(2) == 0 {
                    text.pop();
                }
                doc.replace(start..end, &text);
                plain.replace_range(start..end, &text);
                assert_eq!(doc.text(), plain);
                let needle_lines = 1 + next(3);
                let needle: String = (0..needle_lines)
                    .map(|_| line(&mut next))
                    .collect::<String>();
                let needle = needle.strip_suffix('\n').unwrap_or(&needle);
                if needle.is_empty() {
                    continue;
                }
                let orig_hits = full(find_overlapping(original.as_bytes(), needle.as_bytes()));
                let all = find_overlapping(plain.as_bytes(), needle.as_bytes());
                assert_eq!(
                    doc.find(needle, &orig_hits, false).to_vec(),
                    all,
                    "{needle:?}"
                );
                let found = doc.find(needle, &line_hits(&original, needle, next(2) == 0), true);
                let b = plain.as_bytes();
                let whole_lines = |at: usize| {
                    let end = at + needle.len();
                    (at == 0 || b[at - 1] == b'\n')
                        && (end == b.len()
                            || b[end] == b'\n'
                            || (b[end] == b'\r' && b.get(end + 1) == Some(&b'\n')))
                };
                for &at in all.iter().filter(|&&at| whole_lines(at)) {
                    assert!(found.contains(&at), "{needle:?} at {at}");
                }
                assert!(found.iter().all(|at| all.contains(at)), "{needle:?}");
            }
            let edits = TextEdits::new(doc.edits()).unwrap();
            assert_eq!(edits.apply(&original), plain);
        }
    }
}
