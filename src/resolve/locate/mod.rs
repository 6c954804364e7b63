//! Locating a search in the current text of a file (`FORMATS.md` §3): the
//! passes in order, the first pass with any candidate decides, one
//! candidate wins, a line hint may pick among several, and otherwise the
//! search is ambiguous. What a match writes comes from
//! [`Build`](super::replacement::Build), which refuses when the payload
//! admits two readings that give different text.
//!
//! Here: the pass order and the choice among candidates. Beside it, the
//! [`Locator`]'s other parts: `written` (what a match writes, and the
//! checks that it reads one way), `substring_pass` (searches that are not
//! whole lines), `blank` (blank lines at a search's edges or inside it),
//! `rivals` (near copies that make a tolerant match ambiguous) and
//! `fuzzy_pass` (pass 7 and the closest window a refusal names).

use std::borrow::Cow;
use std::ops::Range;

use super::doc::{Doc, OrigHits, Places};
use super::hints::{choose, choose_window};
use super::indent;
use super::line_numbers;
use super::passes::{self, Lines, Pass};
use super::replacement::Undecided;
use super::MatchMode;
use super::ResolveConfig;
use crate::model::{Format, MatchUnit, Replace};
use crate::syntax::Language;
use crate::text::line_ending::LineEnding;

mod blank;
mod fuzzy_pass;
mod rivals;
mod substring_pass;
mod written;

pub use blank::{blank_lines_variant, edge_blank_deleted, without_blank_boundaries};

/// How much better (similarity) a fuzzy window must be than any other
/// window that does not overlap it.
pub const FUZZY_MARGIN: f64 = 0.05;

/// The most time the closest near-match of one `not_found` search may take
/// (within the run's deadline): past it, the closest seen is reported.
const NEAREST_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// One place a search resolved to, in current byte offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The current bytes replaced.
    pub range: Range<usize>,
    /// Their replacement, in the file's line ending.
    pub text: String,
}

/// The places a search resolved to: one, or every occurrence for
/// `replace_all` (held in place for one: most edits).
pub type Placed = smallvec::SmallVec<[Located; 1]>;

/// Why a search did not resolve. Lines are current 0-based lines.
#[derive(Clone, Debug, PartialEq)]
pub enum Miss {
    /// No pass found anything; the closest window, if any was close.
    NotFound { near: Option<Near> },
    /// Several candidates in the deciding pass: the first and last lines of
    /// the first [`LISTED`](crate::error::LISTED) of them, and how many
    /// there are.
    Ambiguous {
        candidates: Vec<Range<usize>>,
        total: usize,
    },
    /// One place, but what to write there is not determined.
    Undecided { lines: Range<usize>, why: Undecided },
    /// A loose match whose result would not parse where the file did: the
    /// first line of the error (current, 0-based).
    BreaksSyntax {
        lines: Range<usize>,
        error_line: usize,
    },
    /// A hint picked the candidate `picked` near it, but the search also
    /// matches by the `looser` pass exactly at the hint, `at_hint`.
    HintRival {
        picked: Range<usize>,
        at_hint: Range<usize>,
        looser: Pass,
    },
    /// A search with elision markers that cannot be applied.
    Elision(super::elision::ElisionMiss),
    /// A string tool's text matches a fragment of a line that may also be
    /// the line cut short: the two readings write different text.
    FragmentOrLine {
        lines: Range<usize>,
        fragment: String,
        whole: String,
    },
    /// The run's deadline passed before a search that must be complete (a
    /// scan for rivals, the fuzzy pass) finished: what it saw may miss a
    /// rival, so nothing is chosen.
    Deadline,
}

impl Miss {
    /// `ambiguous` over all of `candidates`: the first
    /// [`LISTED`](crate::error::LISTED) are kept, with the count.
    pub fn ambiguous(mut candidates: Vec<Range<usize>>) -> Miss {
        let total = candidates.len();
        candidates.truncate(crate::error::LISTED);
        Miss::Ambiguous { candidates, total }
    }
}

/// The closest near-match of a search that was not found.
#[derive(Clone, Debug, PartialEq)]
pub struct Near {
    /// Current 0-based lines of the window.
    pub lines: Range<usize>,
    /// Similarity, 0.0-1.0.
    pub similarity: f64,
    /// The first differing (search, file) line pair.
    pub differs_at: Option<(String, String)>,
}

/// What the locator needs besides the text.
pub struct Locator<'a> {
    /// Settings.
    pub config: &'a ResolveConfig,
    /// The file's line ending.
    pub line_ending: LineEnding,
    /// The file's indentation style (inferred when first needed).
    pub style: indent::LazyStyle<'a>,
    /// The file's language, when it has a grammar (syntax as evidence).
    pub language: Option<Language>,
    /// Told the match found first, before a long check decides on it
    /// (pass 7's seed window, before its scan of the file): what the
    /// search writes if the check confirms it. Set for a file's only
    /// edit when the caller stages changes early ([`super::Provisional`]).
    pub early: Option<EarlyListener<'a>>,
}

/// Who is told a match early ([`Locator::early`]).
pub type EarlyListener<'a> = &'a dyn Fn(&Located);

/// A search split into lines (without terminators).
pub fn split_lines(text: &str, unit: MatchUnit) -> Vec<&str> {
    match unit {
        // `lines()`, found with `memchr`.
        MatchUnit::Lines => crate::text::lines::split(text),
        MatchUnit::Substring => {
            let t = text.strip_suffix('\n').unwrap_or(text);
            if t.is_empty() {
                Vec::new()
            } else {
                t.split('\n')
                    .map(|l| l.strip_suffix('\r').unwrap_or(l))
                    .collect()
            }
        }
    }
}

/// The exact candidates of a search ([`Locator::exact_on_doc`]): the
/// original's list, shared by every search of the same text while the file
/// is unedited, or this search's own (most often one or two, in place).
pub enum Starts<'h> {
    Shared(&'h [usize]),
    Own(Places),
}

impl std::ops::Deref for Starts<'_> {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match self {
            Starts::Shared(starts) => starts,
            Starts::Own(starts) => starts,
        }
    }
}

/// The lines of `text` split at each `\n`, without a `\r` before it (and
/// an empty last line after a final `\n`).
fn raw_lines(text: &str) -> impl Iterator<Item = &str> + Clone {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// The lines of `text` (no `\r` in it) each followed by `\n`: `text`
/// itself, with a last `\n` when it has none (and nothing for nothing).
fn lines_with_lf(text: &str) -> String {
    let mut joined = String::with_capacity(text.len() + 1);
    joined.push_str(text);
    if !joined.is_empty() && !joined.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Read access to the current text, whether the piece table (read in
/// place) or a materialized string, for what an exact match writes.
pub trait TextView {
    /// Length in bytes.
    fn len(&self) -> usize;
    /// No bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The byte at `i`.
    fn byte(&self, i: usize) -> u8;
    /// The text of `range` (on char boundaries).
    fn slice(&self, range: Range<usize>) -> String;
    /// The whole text (materialized, for syntax evidence only).
    fn whole(&self) -> String;
}

impl TextView for Doc<'_> {
    fn len(&self) -> usize {
        Doc::len(self)
    }
    fn byte(&self, i: usize) -> u8 {
        self.byte_at(i)
    }
    fn slice(&self, range: Range<usize>) -> String {
        Doc::slice(self, range)
    }
    fn whole(&self) -> String {
        self.text().to_string()
    }
}

impl TextView for str {
    fn len(&self) -> usize {
        str::len(self)
    }
    fn byte(&self, i: usize) -> u8 {
        self.as_bytes()[i]
    }
    fn slice(&self, range: Range<usize>) -> String {
        self[range].to_string()
    }
    fn whole(&self) -> String {
        self.to_string()
    }
}

/// Where a byte range sits among the lines of a text.
struct Span {
    /// Offset of the first line's start.
    line_start: usize,
    /// Offset just after the last line's content (before its terminator).
    content_end: usize,
}

fn span_of(len: usize, byte: impl Fn(usize) -> u8, m: &Range<usize>) -> Span {
    let mut line_start = m.start;
    while line_start > 0 && byte(line_start - 1) != b'\n' {
        line_start -= 1;
    }
    let mut content_end;
    if m.end > m.start && byte(m.end - 1) == b'\n' {
        // The match ends with its line's newline.
        content_end = m.end - 1;
    } else {
        content_end = m.end;
        while content_end < len && byte(content_end) != b'\n' {
            content_end += 1;
        }
    }
    if content_end > line_start && byte(content_end - 1) == b'\r' {
        content_end -= 1;
    }
    Span {
        line_start,
        content_end: content_end.max(m.start),
    }
}

impl Locator<'_> {
    /// The exact needle of a search in this file's line ending: whole lines
    /// without the last terminator, or the raw substring (borrowed from the
    /// search in an LF file: each search is looked up twice, once for its
    /// original hits and once on the doc).
    pub fn exact_needle<'r>(&self, r: &'r Replace) -> Cow<'r, str> {
        let text = match r.unit {
            MatchUnit::Lines => r.search.strip_suffix('\n').unwrap_or(&r.search),
            MatchUnit::Substring => &r.search,
        };
        self.line_ending.applied(text)
    }

    /// Fast path: exact candidates of a sequential search from the piece
    /// table, without materializing the text: the needle's start offsets
    /// (whole-line matches only, for line searches) and its length.
    pub fn exact_on_doc<'h>(
        &self,
        doc: &Doc,
        r: &Replace,
        orig_hits: &'h OrigHits,
    ) -> (Starts<'h>, usize) {
        let needle = self.exact_needle(r);
        let len = needle.len();
        if len == 0 {
            return (Starts::Shared(&[]), 0);
        }
        // An unedited doc is its original text: its hits are the
        // original's, read there and shared by every block with this
        // search (10k blocks over 10k identical lines checked 10^8 places
        // piece by piece, then 10^8 in the original, one block at a time).
        if !doc.is_edited() {
            return match r.unit {
                MatchUnit::Substring => (Starts::Shared(&orig_hits.full), len),
                MatchUnit::Lines => match whole_line_hits(orig_hits, doc.original(), len) {
                    Cow::Borrowed(starts) => (Starts::Shared(starts), len),
                    Cow::Owned(starts) => (Starts::Own(Places::from_vec(starts)), len),
                },
            };
        }
        let mut starts = doc.find(&needle, orig_hits, r.unit == MatchUnit::Lines);
        if r.unit == MatchUnit::Lines {
            starts.retain(|s| is_whole_lines(doc, &(*s..*s + len)));
        }
        (Starts::Own(starts), len)
    }

    /// Locates a replace in `doc`, given its exact needle's hits in the
    /// original (`orig_hits`) and its hint as a current line (0-based).
    pub fn locate(
        &self,
        doc: &Doc,
        r: &Replace,
        format: Format,
        orig_hits: &OrigHits,
        hint: Option<usize>,
    ) -> Result<Placed, Miss> {
        let (exact, len) = self.exact_on_doc(doc, r, orig_hits);
        if !exact.is_empty() {
            let lines = LazyLines::new(doc);
            let several = exact.len() > 1;
            // One candidate, or all for `replace_all`: what `choose`
            // gives, read in place.
            let chosen: Cow<[usize]> = if !several || r.replace_all {
                Cow::Borrowed(&*exact)
            } else {
                Cow::Owned(choose(
                    &exact,
                    r.replace_all,
                    hint,
                    |&s| lines.get().index.line_of(s),
                    |&s| line_span(&lines.get().index, &(s..s + len)),
                )?)
            };
            if several && !r.replace_all && r.unit == MatchUnit::Lines {
                let search = split_lines(&r.search, r.unit);
                let picked = lines.get().index.line_of(chosen[0]);
                self.hint_rival(lines.get(), &search, Pass::Exact, picked, hint)?;
            }
            return chosen
                .iter()
                .map(|&s| {
                    let m = s..s + len;
                    self.exact_replacement(doc, r, m.clone())
                        .map_err(|e| at_lines(e, line_span(&lines.get().index, &m)))
                })
                .collect();
        }
        self.locate_tolerant(doc_lines(doc), r, format, hint)
    }

    /// Passes 2-6 over the materialized text, the search as written, then
    /// without line numbers, then without blank boundary lines; fuzzy last.
    fn locate_tolerant(
        &self,
        lines: Lines,
        r: &Replace,
        format: Format,
        hint: Option<usize>,
    ) -> Result<Placed, Miss> {
        let text = lines.text;
        let mut variants = vec![r.clone()];
        let unnumbered = r
            .without_line_numbers
            .clone()
            .or_else(|| line_numbers::strip(&r.search, &r.replace))
            .map(|(search, replace)| Replace {
                search,
                replace,
                without_line_numbers: None,
                kept: Vec::new(),
                ..r.clone()
            });
        variants.extend(unnumbered.clone());
        variants.extend(unescaped(r));
        // A variant without blank boundary lines remembers the search it
        // was cut from: its match is loose, and a near-duplicate of that
        // whole search elsewhere is a rival (`near_duplicates`).
        let mut origins: Vec<Option<usize>> = vec![None; variants.len()];
        let blankless: Vec<(Replace, Option<usize>)> = variants
            .iter()
            .enumerate()
            .filter_map(|(k, v)| without_blank_boundaries(v).map(|b| (b, Some(k))))
            .collect();
        for (b, origin) in blankless {
            variants.push(b);
            origins.push(origin);
        }
        for (k, v) in variants.iter().enumerate() {
            let result = self.locate_variant(&lines, text, v, k, format, hint);
            if let (Some(origin), Ok(located)) = (origins[k], &result) {
                let whole = split_lines(&variants[origin].search, variants[origin].unit);
                for l in located {
                    let span = lines.index.line_of(l.range.start)
                        ..lines.index.line_of(l.range.end.max(l.range.start + 1) - 1) + 1;
                    self.no_rival_of_whole(&lines, &whole, &span)?;
                    if edge_blank_deleted(&variants[origin], &lines, &span) {
                        return Err(Miss::Undecided {
                            lines: span.start..span.end - 1,
                            why: Undecided::BlankLine,
                        });
                    }
                }
            }
            // A tolerant match of a search with blank edge lines, when the
            // search cut of them matches exactly elsewhere: a slip in a line
            // here, or a blank line added there? Two places.
            if let (None, Ok(located), false) = (origins[k], &result, r.replace_all) {
                if let Some(cut) = (0..variants.len())
                    .find(|&c| origins[c] == Some(k))
                    .map(|c| &variants[c])
                {
                    let here: Vec<Range<usize>> = located
                        .iter()
                        .map(|l| line_span(&lines.index, &l.range))
                        .collect();
                    let there: Vec<Range<usize>> = self
                        .exact_in_text(text, cut)
                        .iter()
                        .map(|m| line_span(&lines.index, m))
                        .filter(|m| here.iter().all(|h| m.end < h.start || m.start > h.end))
                        .collect();
                    if !there.is_empty() {
                        let mut candidates: Vec<Range<usize>> =
                            here.into_iter().chain(there).collect();
                        candidates.sort_by_key(|c| c.start);
                        return Err(Miss::ambiguous(candidates));
                    }
                }
            }
            match result {
                Err(Miss::NotFound { .. }) => {}
                other => return other,
            }
        }
        // Fuzzy matching never sees line-number prefixes.
        let fuzzy_on = unnumbered.as_ref().unwrap_or(r);
        if self.tolerant() {
            if let Some(result) = self.elided(&lines, fuzzy_on, hint) {
                return result;
            }
            if let Some(result) = self.blank_pass(&lines, fuzzy_on, hint) {
                return result;
            }
        }
        if let Some(result) = self.fuzzy(&lines, fuzzy_on, hint) {
            return result;
        }
        let search = split_lines(&fuzzy_on.search, r.unit);
        Err(Miss::NotFound {
            near: self.nearest(&lines, &search),
        })
    }

    /// One variant of a search (`k` > 0: not as written) through the
    /// exact pass (for variants), passes 2-5 and the raw substring pass.
    fn locate_variant(
        &self,
        lines: &Lines,
        text: &str,
        v: &Replace,
        k: usize,
        format: Format,
        hint: Option<usize>,
    ) -> Result<Placed, Miss> {
        if k > 0 {
            let exact = self.exact_in_text(text, v);
            if !exact.is_empty() {
                let chosen = choose_bytes(&exact, v.replace_all, hint, lines)?;
                return chosen
                    .into_iter()
                    .map(|m| {
                        self.exact_replacement(text, v, m.clone())
                            .map_err(|e| at_lines(e, line_span(&lines.index, &m)))
                    })
                    .collect();
            }
        }
        if !self.tolerant() {
            return Err(Miss::NotFound { near: None });
        }
        match self.line_passes(lines, v, hint) {
            Err(Miss::NotFound { .. }) => {}
            other => return other,
        }
        if format == Format::FindReplace {
            return self.raw_substring(lines, v, hint);
        }
        Err(Miss::NotFound { near: None })
    }

    pub fn tolerant(&self) -> bool {
        self.config.match_mode == MatchMode::Tolerant
    }

    /// Exact candidates over a materialized text.
    fn exact_in_text(&self, text: &str, r: &Replace) -> Vec<Range<usize>> {
        let needle = self.exact_needle(r);
        if needle.is_empty() {
            return Vec::new();
        }
        super::doc::find_overlapping(text.as_bytes(), needle.as_bytes())
            .into_iter()
            .map(|s| s..s + needle.len())
            .filter(|m| r.unit == MatchUnit::Substring || is_whole_lines_text(text, m))
            .collect()
    }

    /// The candidates of a whole-line search over a materialized text: the
    /// first of the passes exact, 2-5 with any, as start lines (fuzzy is
    /// never a candidate for anchors and hunks: they are located exactly
    /// or tolerantly, and refused otherwise).
    pub fn line_candidates(&self, lines: &Lines, search: &[&str]) -> Option<(Pass, Vec<usize>)> {
        self.line_candidates_where(lines, search, |_| true)
    }

    /// [`Locator::line_candidates`] among the start lines `keep` accepts
    /// (after the previous hunk, at the end of the file...): the first
    /// pass with one of those decides.
    pub fn line_candidates_where(
        &self,
        lines: &Lines,
        search: &[&str],
        keep: impl Fn(usize) -> bool,
    ) -> Option<(Pass, Vec<usize>)> {
        if search.is_empty() {
            return None;
        }
        self.line_pass_order().into_iter().find_map(|pass| {
            let mut starts = passes::find_line_pass(pass, lines, search);
            starts.retain(|&s| keep(s));
            (!starts.is_empty()).then_some((pass, starts))
        })
    }

    /// The line passes in order (exact, then 2-5 when tolerant).
    pub fn line_pass_order(&self) -> Vec<Pass> {
        let mut passes = vec![Pass::Exact];
        if self.tolerant() {
            passes.extend([
                Pass::TrailingWhitespace,
                Pass::Trimmed,
                Pass::BoundaryPrefix,
                Pass::Unicode,
            ]);
        }
        passes
    }

    /// Public form of the near-match search.
    pub fn near_match(&self, lines: &Lines, search: &[&str]) -> Option<Near> {
        self.nearest(lines, search)
    }

    /// Passes 2-5, line by line.
    fn line_passes(&self, lines: &Lines, r: &Replace, hint: Option<usize>) -> Result<Placed, Miss> {
        let search = split_lines(&r.search, r.unit);
        let replace = split_lines(&r.replace, r.unit);
        if search.is_empty() {
            return Err(Miss::NotFound { near: None });
        }
        for pass in [
            Pass::TrailingWhitespace,
            Pass::Trimmed,
            Pass::BoundaryPrefix,
            Pass::Unicode,
        ] {
            let starts = passes::find_line_pass(pass, lines, &search);
            if starts.is_empty() {
                continue;
            }
            let n = search.len();
            let several = starts.len() > 1;
            let ranges: Vec<Range<usize>> = starts.into_iter().map(|s| s..s + n).collect();
            let chosen = choose_window(ranges, r.replace_all, hint)?;
            if several && !r.replace_all {
                self.hint_rival(lines, &search, pass, chosen[0].start, hint)?;
            }
            if !r.replace_all {
                self.no_fuzzy_rival(lines, &search, &chosen[0])?;
            }
            return chosen
                .into_iter()
                .map(|m| self.written_match(lines, pass, m, (&search, &replace), r))
                .collect();
        }
        Err(Miss::NotFound { near: None })
    }
}

/// As [`splice`], with the offset where each new line starts.
fn splice_with_starts(
    lines: &Lines,
    at: Range<usize>,
    new_lines: &[String],
    le: LineEnding,
) -> (String, Vec<usize>) {
    let start = lines.index.start(at.start.min(lines.len()));
    let end = lines.index.start(at.end.min(lines.len()));
    let mut text = String::with_capacity(lines.text.len() + 64);
    text.push_str(&lines.text[..start]);
    let mut starts = Vec::with_capacity(new_lines.len());
    for l in new_lines {
        starts.push(text.len() + indent::indent(l).len());
        text.push_str(l);
        text.push_str(le.as_str());
    }
    text.push_str(&lines.text[end..]);
    (text, starts)
}

/// A miss found on an exact match, placed at the match's lines.
fn at_lines(miss: Miss, at: Range<usize>) -> Miss {
    match miss {
        Miss::Undecided { why, .. } => Miss::Undecided { lines: at, why },
        Miss::FragmentOrLine {
            fragment, whole, ..
        } => Miss::FragmentOrLine {
            lines: at,
            fragment,
            whole,
        },
        other => other,
    }
}

/// The 0-based lines `first..last` (inclusive, as a range's start/end)
/// spanned by bytes `m`.
fn line_span(index: &crate::text::lines::LineIndex, m: &Range<usize>) -> Range<usize> {
    index.line_of(m.start)..index.line_of(m.end.saturating_sub(1).max(m.start))
}

/// [`choose`] among byte ranges of `lines`' text, each read at its lines.
fn choose_bytes(
    ranges: &[Range<usize>],
    replace_all: bool,
    hint: Option<usize>,
    lines: &Lines,
) -> Result<Vec<Range<usize>>, Miss> {
    choose(
        ranges,
        replace_all,
        hint,
        |m| lines.index.line_of(m.start),
        |m| line_span(&lines.index, m),
    )
}

/// Does `m` start at a line start and end at a line end (in the doc)?
/// A needle whose last line is blank ends with a newline: it needs that
/// blank line's own terminator after it, never the end of the text (a text
/// ending in a newline has no empty last line).
fn is_whole_lines(doc: &Doc, m: &Range<usize>) -> bool {
    let starts_line = m.start == 0 || doc.byte_before(m.start) == Some(b'\n');
    let blank_last = m.end > m.start && doc.byte_at(m.end - 1) == b'\n';
    let ends_line = if m.end == doc.len() {
        !blank_last
    } else {
        doc.byte_at(m.end) == b'\n'
            || (doc.byte_at(m.end) == b'\r'
                && m.end + 1 < doc.len()
                && doc.byte_at(m.end + 1) == b'\n')
    };
    starts_line && ends_line
}

/// The hits of a line search's `full` list that are whole lines of the
/// unedited `original` (`len`: the needle's length): computed once per
/// search and file, and kept in `orig`.
fn whole_line_hits<'h>(orig: &'h OrigHits, original: &str, len: usize) -> Cow<'h, [usize]> {
    let filter = || -> Vec<usize> {
        orig.full
            .iter()
            .copied()
            .filter(|&s| is_whole_lines_text(original, &(s..s + len)))
            .collect()
    };
    match orig.whole_lines.get_or_init(|| (len, filter())) {
        (kept, starts) if *kept == len => Cow::Borrowed(starts),
        // Hits shared by another needle length: not this search's list.
        _ => Cow::Owned(filter()),
    }
}

fn is_whole_lines_text(text: &str, m: &Range<usize>) -> bool {
    let b = text.as_bytes();
    let starts_line = m.start == 0 || b[m.start - 1] == b'\n';
    let blank_last = m.end > m.start && b[m.end - 1] == b'\n';
    let ends_line = if m.end == b.len() {
        !blank_last
    } else {
        b[m.end] == b'\n' || (b[m.end] == b'\r' && b.get(m.end + 1) == Some(&b'\n'))
    };
    starts_line && ends_line
}

/// The offset after the line terminator at `end` (if any).
fn line_end_after(len: usize, byte: impl Fn(usize) -> u8, end: usize) -> usize {
    if end < len && byte(end) == b'\n' {
        end + 1
    } else if end + 1 < len && byte(end) == b'\r' && byte(end + 1) == b'\n' {
        end + 2
    } else {
        end
    }
}

/// The lines of a text region, without their terminators.
fn region_lines(region: &str) -> Vec<&str> {
    region
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// The current text's lines, indexed on first use only (the exact fast
/// path needs them only to report or pick among several candidates).
struct LazyLines<'d, 'o> {
    doc: &'d Doc<'o>,
    lines: std::cell::OnceCell<Lines<'d>>,
}

impl<'d, 'o> LazyLines<'d, 'o> {
    fn new(doc: &'d Doc<'o>) -> LazyLines<'d, 'o> {
        LazyLines {
            doc,
            lines: std::cell::OnceCell::new(),
        }
    }

    fn get(&self) -> &Lines<'d> {
        self.lines.get_or_init(|| doc_lines(self.doc))
    }
}

/// The current text's lines: while nothing is edited, with the original's
/// line index (built once per file).
pub fn doc_lines<'d>(doc: &'d Doc) -> Lines<'d> {
    if doc.is_edited() {
        Lines::new(doc.text())
    } else {
        Lines::with_index(doc.text(), doc.original_index())
    }
}

/// A string tool's text escaped twice by the model (`FORMATS.md` §3 is
/// silent; issue "careful reader"): an `old_string` with no line break but
/// literal `\n` escapes is read once more with its escapes (`\n`, `\t`,
/// `\"`, `\\`) decoded, and so is `new_string` when it has no line break
/// either (the same call was escaped the same way). Tried only when the
/// text as written matched nothing; `None` when there is nothing to decode.
fn unescaped(r: &Replace) -> Option<Replace> {
    let double = |t: &str| !t.contains('\n') && t.contains("\\n");
    if r.unit != MatchUnit::Substring || !double(&r.search) {
        return None;
    }
    let decode = |t: &str| -> String {
        let mut out = String::with_capacity(t.len());
        let mut chars = t.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            }
        }
        out
    };
    let replace = if r.replace.contains('\n') {
        r.replace.clone()
    } else {
        decode(&r.replace)
    };
    Some(Replace {
        search: decode(&r.search),
        replace,
        without_line_numbers: None,
        kept: Vec::new(),
        ..r.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact path's shortcut writes what joining the replacement's
    /// lines (as `split_lines` reads them) with `\n` after each writes.
    #[test]
    fn lines_with_lf_is_the_lines_joined() {
        let mut rng = crate::test_rng::Rng::new(7);
        let parts = ["a", "  b", "", "\n", "\n\n", "x y", "é"];
        for _ in 0..5000 {
            let n = rng.below(6);
            let text: String = (0..n).map(|_| *rng.pick(&parts)).collect();
            let joined: String = split_lines(&text, MatchUnit::Lines)
                .iter()
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(lines_with_lf(&text), joined, "{text:?}");
        }
    }
}
