//! Locating a search in the current text of a file (`FORMATS.md` §3): the
//! passes in order, the first pass with any candidate decides, one
//! candidate wins, a line hint may pick among several, and otherwise the
//! search is ambiguous. What a match writes comes from
//! [`replacement::Build`], which refuses when the payload admits two
//! readings that give different text.

use std::borrow::Cow;
use std::ops::Range;
use std::time::Instant;

use super::blank_lines;
use super::doc::{Doc, OrigHits};
use super::hints::{choose, choose_window, HINT_CLEAR, HINT_NEAR};
use super::indent::{self, Style};
use super::line_numbers;
use super::passes::{self, boundary_prefix, fuzzy, substring, Lines, Pass};
use super::replacement::{surely_truncated, Build, Undecided};
use super::MatchMode;
use super::ResolveConfig;
use crate::model::{Format, MatchUnit, Replace};
use crate::syntax::{self, Language};
use crate::text::line_ending::LineEnding;

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
}

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
    ) -> (Cow<'h, [usize]>, usize) {
        let needle = self.exact_needle(r);
        let len = needle.len();
        if len == 0 {
            return (Cow::Borrowed(&[]), 0);
        }
        // An unedited doc is its original text: its hits are the
        // original's, read there and shared by every block with this
        // search (10k blocks over 10k identical lines checked 10^8 places
        // piece by piece, then 10^8 in the original, one block at a time).
        if !doc.is_edited() {
            return match r.unit {
                MatchUnit::Substring => (Cow::Borrowed(&orig_hits.full), len),
                MatchUnit::Lines => (whole_line_hits(orig_hits, doc.original(), len), len),
            };
        }
        let hits = doc.find(&needle, orig_hits, r.unit == MatchUnit::Lines);
        let starts = hits
            .into_iter()
            .filter(|&s| r.unit == MatchUnit::Substring || is_whole_lines(doc, &(s..s + len)))
            .collect();
        (Cow::Owned(starts), len)
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
    ) -> Result<Vec<Located>, Miss> {
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
    ) -> Result<Vec<Located>, Miss> {
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

    /// The blank-line-insensitive pass ([`blank_lines`]); `None` when it
    /// finds no candidate.
    fn blank_pass(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Option<Result<Vec<Located>, Miss>> {
        let r = &blank_lines_variant(r)?;
        let search = split_lines(&r.search, r.unit);
        let (pass, windows) = blank_lines::find(lines, &search)?;
        let chosen = match choose_window(windows, r.replace_all, hint) {
            Ok(chosen) => chosen,
            Err(miss) => return Some(Err(miss)),
        };
        Some(
            chosen
                .into_iter()
                .map(|m| {
                    let new_lines = self.build_blank(lines, r, pass, m.clone(), !r.replace_all)?;
                    Ok(self.written_lines(lines, m, &new_lines, r))
                })
                .collect(),
        )
    }

    /// What a blank-line-insensitive match of `r` over file lines `m`
    /// writes there (with a near-duplicate rival check when `rivals`).
    pub fn build_blank(
        &self,
        lines: &Lines,
        r: &Replace,
        pass: Pass,
        m: Range<usize>,
        rivals: bool,
    ) -> Result<Vec<String>, Miss> {
        let search = split_lines(&r.search, r.unit);
        let replace = split_lines(&r.replace, r.unit);
        let window: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
        let (s, rp) =
            blank_lines::rewrite(&window, &search, &replace).map_err(|why| Miss::Undecided {
                lines: m.start..m.end - 1,
                why,
            })?;
        let s: Vec<&str> = s.iter().map(String::as_str).collect();
        let rp: Vec<&str> = rp.iter().map(String::as_str).collect();
        if rivals {
            self.no_fuzzy_rival(lines, &s, &m)?;
        }
        self.build(pass, &window, &s, &rp, m, Some(lines), &[])
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
    ) -> Result<Vec<Located>, Miss> {
        if k > 0 {
            let exact = self.exact_in_text(text, v);
            if !exact.is_empty() {
                let chosen = choose(
                    &exact,
                    v.replace_all,
                    hint,
                    |m| lines.index.line_of(m.start),
                    |m| line_span(&lines.index, m),
                )?;
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

    /// Whether a replacement line whose indentation was converted to the
    /// file's style (`new_lines` over `replace`, at current lines `at`)
    /// starts inside a string literal of the result.
    fn converted_in_string(
        &self,
        language: Language,
        lines: &Lines,
        at: Range<usize>,
        replace: &[&str],
        new_lines: &[String],
    ) -> bool {
        let converted: Vec<usize> = (0..new_lines.len().min(replace.len()))
            .filter(|&k| {
                new_lines[k] != replace[k]
                    && indent::indent(&new_lines[k]) != indent::indent(replace[k])
            })
            .collect();
        if converted.is_empty() {
            return false;
        }
        let (text, starts) = splice_with_starts(lines, at, new_lines, self.line_ending);
        let offsets: Vec<usize> = converted.iter().map(|&k| starts[k]).collect();
        syntax::in_string(language, &text, &offsets).is_some_and(|inside| inside.contains(&true))
    }

    /// The replacement of file lines `m` matched by `pass`.
    pub fn build_at(
        &self,
        lines: &Lines,
        search: &[&str],
        replace: &[&str],
        pass: Pass,
        m: Range<usize>,
        kept: &[(usize, usize)],
    ) -> Result<Located, Miss> {
        let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
        let new_lines = self.build(pass, &file, search, replace, m.clone(), Some(lines), kept)?;
        let range = lines.index.start(m.start)..lines.index.start(m.end);
        Ok(self.lines_replacement(lines.text, range, &new_lines))
    }

    /// What a match of `r` by `pass` over file lines `m` writes there, as
    /// the edit's located text.
    fn written_match(
        &self,
        lines: &Lines,
        pass: Pass,
        m: Range<usize>,
        (search, replace): (&[&str], &[&str]),
        r: &Replace,
    ) -> Result<Located, Miss> {
        let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
        let new_lines = self.build(
            pass,
            &file,
            search,
            replace,
            m.clone(),
            Some(lines),
            &r.kept,
        )?;
        Ok(self.written_lines(lines, m, &new_lines, r))
    }

    /// What `pass` writes over `file` lines (current lines `at` of
    /// `whole`, when the whole text is at hand for syntax evidence), with
    /// a diff hunk's `kept` context pairs.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn build(
        &self,
        pass: Pass,
        file: &[&str],
        search: &[&str],
        replace: &[&str],
        at: Range<usize>,
        whole: Option<&Lines>,
        kept: &[(usize, usize)],
    ) -> Result<Vec<String>, Miss> {
        let report = at.start..at.end.saturating_sub(1).max(at.start);
        let evidence = self.language.zip(whole);
        let base = std::cell::OnceCell::new();
        let base_errors = |language: Language, lines: &Lines| -> Option<usize> {
            *base.get_or_init(|| syntax::errors(language, lines.text).map(|e| e.count()))
        };
        // A reading that brings a parse error into the region it edits is
        // ruled out (evidence only where that region parsed cleanly).
        let parses = |out: &[String]| -> bool {
            evidence.is_none_or(|(language, lines)| {
                self.new_syntax_error(language, lines, at.clone(), out)
                    .is_none()
            })
        };
        let new_lines = Build {
            pass,
            file,
            search,
            replace,
            style: self.style,
            kept,
        }
        .lines_with(parses)
        .map_err(|why| Miss::Undecided {
            lines: report.clone(),
            why,
        })?;
        // Converting a foreign payload's spaces to tabs inside a string
        // literal (a Go raw string's text in a tab-indented file) would
        // change the string's text: not a reading to guess. (Tabs to spaces
        // inside a space-indented file's docstring is what its author writes.)
        // (The file's style is asked only of a payload that would be
        // foreign to tabs: a space-indented match never infers it.)
        if let Some((language, lines)) = evidence {
            let payload = search.iter().chain(replace).copied();
            let pairs = search.iter().copied().zip(file.iter().copied());
            if indent::foreign(Style::Tabs.into(), pairs, payload)
                && self.style.get() == Style::Tabs
                && base_errors(language, lines) == Some(0)
                && self.converted_in_string(language, lines, at.clone(), replace, &new_lines)
            {
                return Err(Miss::Undecided {
                    lines: report.clone(),
                    why: Undecided::InString,
                });
            }
        }
        // A loose match must not break a file that parsed (`FORMATS.md` §3):
        // the model meant code, not a syntax error.
        if pass.is_tolerant() {
            if let Some((language, lines)) = evidence {
                if let Some(error_line) = self.new_syntax_error(language, lines, at, &new_lines) {
                    return Err(Miss::BreaksSyntax {
                        lines: report,
                        error_line,
                    });
                }
            }
        }
        Ok(new_lines)
    }

    /// The first line (0-based, in the text after) of a parse error that
    /// writing `new_lines` over lines `at` brings into a region that parsed
    /// cleanly: only the top-level chunks around the edit are parsed.
    fn new_syntax_error(
        &self,
        language: Language,
        lines: &Lines,
        at: Range<usize>,
        new_lines: &[String],
    ) -> Option<usize> {
        let start = lines.index.start(at.start.min(lines.len()));
        let end = lines.index.start(at.end.min(lines.len()));
        let mut text = String::new();
        for l in new_lines {
            text.push_str(l);
            text.push_str(self.line_ending.as_str());
        }
        syntax::new_error_line(language, lines.text, &[(start..end, text.as_str())])
    }

    /// Exact lines `new_lines` in place of file lines `m`, as written.
    pub fn replace_lines(&self, lines: &Lines, m: Range<usize>, new_lines: &[String]) -> Located {
        let range = lines.index.start(m.start)..lines.index.start(m.end);
        self.lines_replacement(lines.text, range, new_lines)
    }

    /// Public form of the near-match search.
    pub fn near_match(&self, lines: &Lines, search: &[&str]) -> Option<Near> {
        self.nearest(lines, search)
    }

    /// Passes 2-5, line by line.
    fn line_passes(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Result<Vec<Located>, Miss> {
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

    /// A loose match with a rival elsewhere — a window where every search
    /// line but one is the file's line (trimmed), or, with fuzzy matching
    /// on, a window within the fuzzy threshold — was likely blended from
    /// two near-duplicate places: `ambiguous`.
    pub fn no_fuzzy_rival(
        &self,
        lines: &Lines,
        search: &[&str],
        chosen: &Range<usize>,
    ) -> Result<(), Miss> {
        self.no_rival(lines, search, chosen, near_duplicates(lines, search))
    }

    /// [`Self::no_fuzzy_rival`] for a match of a search cut from `whole`
    /// (its blank boundary lines dropped): a window elsewhere where all of
    /// `whole` fits but one line, and that line is a near copy of the
    /// search's (`def test_a():` for `def test_b():`), is the place the
    /// search was more likely copied from, a line mistyped.
    pub fn no_rival_of_whole(
        &self,
        lines: &Lines,
        whole: &[&str],
        chosen: &Range<usize>,
    ) -> Result<(), Miss> {
        let near: Vec<usize> = near_windows(lines, whole, 2)
            .into_iter()
            .filter(|&s| {
                whole.iter().enumerate().all(|(j, w)| {
                    let f = lines.line(s + j);
                    f.trim() == w.trim()
                        || (!w.trim().is_empty()
                            && !f.trim().is_empty()
                            && fuzzy::similarity(&[w], &[f]) >= 0.6)
                })
            })
            .collect();
        self.no_rival(lines, whole, chosen, near)
    }

    fn no_rival(
        &self,
        lines: &Lines,
        search: &[&str],
        chosen: &Range<usize>,
        near: Vec<usize>,
    ) -> Result<(), Miss> {
        let n = search.len();
        let apart = |s: usize| s + n <= chosen.start || s >= chosen.end;
        let mut rivals: Vec<Range<usize>> = near
            .into_iter()
            .filter(|&s| apart(s))
            .map(|s| s..s + n - 1)
            .collect();
        if let (MatchMode::Tolerant, Some(threshold)) = (self.config.match_mode, self.config.fuzzy)
        {
            let scan = fuzzy::find(lines, search, threshold, self.config.deadline);
            if scan.timed_out {
                return Err(Miss::Deadline);
            }
            rivals.extend(
                scan.above(threshold)
                    .iter()
                    .filter(|c| apart(c.start) && !rivals.iter().any(|r| r.start == c.start))
                    .map(|c| c.start..c.start + n - 1)
                    .collect::<Vec<_>>(),
            );
        }
        if rivals.is_empty() {
            return Ok(());
        }
        let mut candidates = rivals;
        candidates.push(chosen.start..chosen.end - 1);
        candidates.sort_by_key(|c| c.start);
        Err(Miss::ambiguous(candidates))
    }

    /// What a whole-line match of file lines `m` writes: the lines, or for
    /// a string tool the literal replace of its text ([`Self::substring_lines`]).
    pub(super) fn written_lines(
        &self,
        lines: &Lines,
        m: Range<usize>,
        new_lines: &[String],
        r: &Replace,
    ) -> Located {
        match r.unit {
            MatchUnit::Lines => {
                let range = lines.index.start(m.start)..lines.index.start(m.end);
                self.lines_replacement(lines.text, range, new_lines)
            }
            MatchUnit::Substring => self.substring_lines(lines, m, new_lines, r),
        }
    }

    /// A string tool's whole-line match written as the literal replace of
    /// its text would be: the old text covers the lines' content, and their
    /// last terminator only when it ended with a newline; the new text ends
    /// with one only when `new_string` does.
    fn substring_lines(
        &self,
        lines: &Lines,
        m: Range<usize>,
        new_lines: &[String],
        r: &Replace,
    ) -> Located {
        let start = lines.index.start(m.start);
        let last = m.end - 1;
        let content_end = lines.index.start(last) + lines.line(last).len();
        let end = if r.search.ends_with('\n') {
            lines.index.start(m.end)
        } else {
            content_end
        };
        let le = self.line_ending.as_str();
        let mut text = new_lines.join(le);
        if r.replace.ends_with('\n') {
            text.push_str(le);
        }
        Located {
            range: start..end.max(start),
            text,
        }
    }

    /// Pass 6 (`find_replace` only): the search as a raw substring. A match
    /// that starts a line but ends inside one (or the reverse) may be the
    /// line cut short: that reading is refused, not guessed.
    fn raw_substring(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Result<Vec<Located>, Miss> {
        let text = lines.text;
        let needle = self
            .line_ending
            .apply(r.search.strip_suffix('\n').unwrap_or(&r.search));
        let replace = self
            .line_ending
            .apply(r.replace.strip_suffix('\n').unwrap_or(&r.replace));
        let hits = substring::find(text, &needle);
        if hits.is_empty() {
            return Err(Miss::NotFound { near: None });
        }
        let ranges: Vec<Range<usize>> = hits.into_iter().map(|s| s..s + needle.len()).collect();
        let chosen = choose(
            &ranges,
            r.replace_all,
            hint,
            |m| lines.index.line_of(m.start),
            |m| line_span(&lines.index, m),
        )?;
        if !r.replace_all {
            // A loose pass: the search's lines, near-copied elsewhere whole,
            // are a rival (as for a search cut of its blank edges).
            let whole = split_lines(&r.search, MatchUnit::Lines);
            let m = &chosen[0];
            let span = lines.index.line_of(m.start)
                ..lines.index.line_of(m.end.saturating_sub(1).max(m.start)) + 1;
            self.no_rival_of_whole(lines, &whole, &span)?;
        }
        let bytes = text.as_bytes();
        chosen
            .into_iter()
            .map(|m| {
                let span = span_of(text.len(), |i| bytes[i], &m);
                let starts_line = text[span.line_start..m.start].trim().is_empty();
                let ends_line = m.end >= span.content_end;
                if starts_line != ends_line {
                    let line = lines.index.line_of(m.start);
                    let last = lines.index.line_of(m.end.saturating_sub(1).max(m.start));
                    let whole = format!("{}{}", &text[span.line_start..m.start], replace);
                    let fragment = format!(
                        "{}{}{}",
                        &text[span.line_start..m.start],
                        replace,
                        &text[m.end.min(span.content_end)..span.content_end]
                    );
                    return Err(Miss::FragmentOrLine {
                        lines: line..last,
                        fragment,
                        whole,
                    });
                }
                Ok(Located {
                    range: m,
                    text: replace.clone(),
                })
            })
            .collect()
    }

    /// Pass 7, when a threshold is set: the one window clearly closest to
    /// the search, its lines paired one to one with the search's.
    fn fuzzy(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Option<Result<Vec<Located>, Miss>> {
        let (MatchMode::Tolerant, Some(threshold)) = (self.config.match_mode, self.config.fuzzy)
        else {
            return None;
        };
        let search = split_lines(&r.search, r.unit);
        let replace = split_lines(&r.replace, r.unit);
        if search.is_empty() || line_numbers::numbered(&r.search) {
            return None;
        }
        // One scan serves both questions: the windows above the
        // threshold, and any nearly as close as the best of them.
        let floor = (threshold - FUZZY_MARGIN).max(0.0);
        let deadline = self.config.deadline;
        let scan = self
            .fuzzy_near_hint(
                lines,
                &search,
                (threshold, floor),
                r.replace_all,
                hint,
                deadline,
            )
            .unwrap_or_else(|| match hint {
                // The window chosen, if any, is then the only candidate.
                None => fuzzy::find_deciding(lines, &search, (threshold, FUZZY_MARGIN), deadline),
                Some(_) => fuzzy::find(lines, &search, floor, deadline),
            });
        // A scan cut short may have missed the best window or its rival.
        if scan.timed_out {
            return Some(Err(Miss::Deadline));
        }
        let candidates = scan.above(threshold);
        if candidates.is_empty() {
            return None;
        }
        let n = search.len();
        let ranges: Vec<Range<usize>> = candidates.iter().map(|c| c.start..c.start + n).collect();
        let chosen = match choose_window(ranges, r.replace_all, hint) {
            Ok(c) => c,
            Err(miss) => return Some(Err(miss)),
        };
        if !r.replace_all {
            let best = candidates
                .iter()
                .find(|c| c.start == chosen[0].start)
                .copied()?;
            // A window nearly as close elsewhere: the search does not pin one.
            let others: Vec<Range<usize>> = scan
                .above((best.similarity - FUZZY_MARGIN).max(0.0))
                .iter()
                .filter(|c| c.start + n <= best.start || c.start >= best.start + n)
                .map(|c| c.start..c.start + n - 1)
                .collect();
            if !others.is_empty() {
                let mut candidates = others;
                candidates.push(best.start..best.start + n - 1);
                candidates.sort_by_key(|c| c.start);
                return Some(Err(Miss::ambiguous(candidates)));
            }
        }
        Some(
            chosen
                .into_iter()
                .map(|m| {
                    let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
                    // Lines are paired by position: only when each pair is
                    // plainly the same line (no line inserted or dropped).
                    let outside = (
                        m.start.checked_sub(1).map(|i| lines.line(i)),
                        (m.end < lines.len()).then(|| lines.line(m.end)),
                    );
                    if !fuzzy::pairs_line_by_line(&file, &search, outside) {
                        return Err(Miss::NotFound {
                            near: self.nearest(lines, &search),
                        });
                    }
                    self.written_match(lines, Pass::Fuzzy, m, (&search, &replace), r)
                })
                .collect(),
        )
    }

    /// The fuzzy scan of the windows within [`HINT_CLEAR`] lines of a line
    /// hint (or as many more on each side as the search has lines, when a
    /// run of overlapping windows reaches the first reach's edges), when
    /// that decides (`FORMATS.md` §3 "Line hints"): a window
    /// there above the threshold that the hint picks — at the hint, or
    /// within [`HINT_NEAR`] lines of it with no other within
    /// [`HINT_CLEAR`] — is picked whatever lies farther away, so windows
    /// beyond are neither candidates nor rivals. `None`: scan the file.
    fn fuzzy_near_hint(
        &self,
        lines: &Lines,
        search: &[&str],
        (threshold, floor): (f64, f64),
        replace_all: bool,
        hint: Option<usize>,
        deadline: Instant,
    ) -> Option<fuzzy::FuzzyScan> {
        let h = hint.filter(|_| !replace_all)?;
        let n = search.len();
        let last_start = lines.len().saturating_sub(n);
        let reach = |more: usize| h.saturating_sub(HINT_CLEAR + more)..h + HINT_CLEAR + more + 1;
        // Whether a scan of `reach` holds its runs of overlapping windows
        // (a run is one candidate): none reaches an edge of it that is not
        // the file's. `None`: no window, or the deadline (the file decides).
        let holds = |scan: &fuzzy::FuzzyScan, reach: Range<usize>| {
            let (first, last) = scan.span().filter(|_| !scan.timed_out)?;
            let inner = |s: usize, edge: usize| s.abs_diff(edge) > n;
            Some(
                (reach.start == 0 || inner(first, reach.start))
                    && (reach.end > last_start || inner(last, reach.end - 1)),
            )
        };
        // Read `n` lines more on each side when a run reaches an edge
        // (only the two bands the first reach left out: its windows are
        // read), then, if a run still does, the file decides. (A search
        // longer than HINT_CLEAR lines has every window near an edge of
        // the first reach.)
        let mut near = fuzzy::find_near(lines, search, floor, deadline, reach(0));
        if !holds(&near, reach(0))? {
            let read = fuzzy::window_starts(lines, n, reach(0));
            let wide = fuzzy::window_starts(lines, n, reach(n));
            let band = |starts: Range<usize>| {
                (!starts.is_empty())
                    .then(|| fuzzy::find_near(lines, search, floor, deadline, starts))
            };
            let below = band(wide.start..read.start);
            let above = band(read.end..wide.end);
            near = fuzzy::FuzzyScan::joined(below.into_iter().chain([near]).chain(above));
            if !holds(&near, reach(n))? {
                return None;
            }
        }
        let ranges: Vec<Range<usize>> = near
            .above(threshold)
            .iter()
            .map(|c| c.start..c.start + n)
            .collect();
        let chosen = choose_window(ranges, false, hint).ok()?;
        (chosen.first()?.start.abs_diff(h) <= HINT_NEAR).then_some(near)
    }

    /// The replacement of an exact match (`byte`/`slice` read the text).
    fn exact_replacement(
        &self,
        text: &(impl TextView + ?Sized),
        r: &Replace,
        m: Range<usize>,
    ) -> Result<Located, Miss> {
        let (len, byte) = (text.len(), |i| text.byte(i));
        match r.unit {
            MatchUnit::Lines => {
                let end = line_end_after(len, byte, m.end);
                // Most often: an LF file, and the replacement written in its
                // style with no `\r`. Its lines joined with `\n` after each
                // are the replacement itself, with a last `\n`: no split.
                if self.line_ending == LineEnding::Lf
                    && memchr::memchr(b'\r', r.replace.as_bytes()).is_none()
                    && self.as_written(raw_lines(&r.search), raw_lines(&r.replace))
                {
                    let joined = lines_with_lf(&r.replace);
                    let located = self.lines_replacement_text(len, byte, m.start..end, joined);
                    self.no_conversion_in_string(text, &located, r)?;
                    return Ok(located);
                }
                let search = split_lines(&r.search, MatchUnit::Lines);
                let replace = split_lines(&r.replace, MatchUnit::Lines);
                // The replacement as written (most often) is joined from
                // its own lines, with no copy of each.
                let located = match self.exact_lines(&search, &replace)? {
                    None => self.lines_replacement_with(len, byte, m.start..end, &replace),
                    Some(built) => self.lines_replacement_with(len, byte, m.start..end, &built),
                };
                self.no_conversion_in_string(text, &located, r)?;
                Ok(located)
            }
            MatchUnit::Substring => {
                let located = self.exact_substring(text, r, m)?;
                self.no_conversion_in_string(text, &located, r)?;
                Ok(located)
            }
        }
    }

    /// An exact match's text converted to the file's tabs must not convert
    /// a line inside a string literal (the check `build` makes for loose
    /// matches): that changes the string's text. Evidence only where the
    /// file parsed cleanly.
    fn no_conversion_in_string(
        &self,
        text: &(impl TextView + ?Sized),
        located: &Located,
        r: &Replace,
    ) -> Result<(), Miss> {
        // Nothing converted (the text as written): nothing to check, and
        // the file's style need not be inferred.
        if self.language.is_none() || located.text == r.replace {
            return Ok(());
        }
        let (Some(language), Style::Tabs) = (self.language, self.style.get()) else {
            return Ok(());
        };
        fn split(t: &str) -> Vec<&str> {
            t.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect()
        }
        let (new, written) = (split(&located.text), split(&r.replace));
        if new.len() != written.len() || new == written {
            return Ok(());
        }
        let mut offsets = Vec::new();
        let mut at = located.range.start;
        for ((raw, n), w) in located.text.split('\n').zip(&new).zip(&written) {
            if n != w && indent::indent(n) != indent::indent(w) {
                offsets.push(at + indent::indent(n).len());
            }
            at += raw.len() + 1;
        }
        if offsets.is_empty() {
            return Ok(());
        }
        let whole = text.whole();
        if syntax::errors(language, &whole).is_none_or(|e| e.count() != 0) {
            return Ok(());
        }
        let result = format!(
            "{}{}{}",
            &whole[..located.range.start],
            located.text,
            &whole[located.range.end..]
        );
        if !syntax::in_string(language, &result, &offsets)
            .is_some_and(|inside| inside.contains(&true))
        {
            return Ok(());
        }
        let index = crate::text::lines::LineIndex::new(&whole);
        let first = index.line_of(located.range.start);
        let last = index.line_of(located.range.end.saturating_sub(1).max(located.range.start));
        Err(Miss::Undecided {
            lines: first..last,
            why: Undecided::InString,
        })
    }

    /// A string tool's exact match that ends before its last line's
    /// trailing whitespace, read as whole lines by pass 2.
    fn trailing_whitespace_lines(
        &self,
        r: &Replace,
        before: &str,
        region: &str,
        search: &[&str],
        replace: &[&str],
        span: Span,
    ) -> Result<Located, Miss> {
        let file = region_lines(region);
        if search.len() != file.len() {
            return Err(Miss::NotFound { near: None });
        }
        let text =
            self.line_reading(Pass::TrailingWhitespace, r, before, &file, search, replace)?;
        Ok(Located {
            range: span.line_start..span.content_end,
            text,
        })
    }

    /// A string tool's text starting after a line's indentation (`before`),
    /// read as whole lines by `pass`: the first search and replacement
    /// lines get that indentation back (a replacement line that has its
    /// own keeps it), and the new lines are joined as the text to write.
    fn line_reading(
        &self,
        pass: Pass,
        r: &Replace,
        before: &str,
        file: &[&str],
        search: &[&str],
        replace: &[&str],
    ) -> Result<String, Miss> {
        let first_search = format!("{before}{}", search.first().copied().unwrap_or(""));
        let first_replace = match replace.first() {
            Some(l) if !l.starts_with([' ', '\t']) => format!("{before}{l}"),
            Some(l) => l.to_string(),
            None => String::new(),
        };
        let mut s_lines: Vec<&str> = search.to_vec();
        if let Some(first) = s_lines.first_mut() {
            *first = &first_search;
        }
        let mut r_lines: Vec<&str> = replace.to_vec();
        if let Some(first) = r_lines.first_mut() {
            *first = &first_replace;
        }
        let new_lines = Build {
            pass,
            file,
            search: &s_lines,
            replace: &r_lines,
            style: self.style,
            kept: &[],
        }
        .lines()
        .map_err(|why| Miss::Undecided { lines: 0..0, why })?;
        let le = self.line_ending.as_str();
        let mut text = new_lines.join(le);
        if r.replace.ends_with('\n') {
            text.push_str(le);
        }
        Ok(text)
    }

    /// Whether an exact match writes its replacement as written: the
    /// payload's indentation is the file's own style. `search` and
    /// `replace` are the lines of each (empty lines may be included: they
    /// tell nothing).
    fn as_written<'t>(
        &self,
        search: impl Iterator<Item = &'t str> + Clone,
        replace: impl Iterator<Item = &'t str>,
    ) -> bool {
        // A search line with an indentation shows the payload writes the
        // file's own (what `foreign` finds first, without the file's style).
        let indented = |l: &str| !l.trim().is_empty() && !indent::indent(l).is_empty();
        let lines = search.clone().chain(replace);
        let pairs = search.clone().map(|s| (s, s));
        search.clone().any(indented) || !indent::foreign(self.style, pairs, lines)
    }

    /// The lines an exact whole-line match writes: the replacement as
    /// written (`None`), or in the file's indentation style when the
    /// payload uses the other one.
    fn exact_lines(&self, search: &[&str], replace: &[&str]) -> Result<Option<Vec<String>>, Miss> {
        if self.as_written(search.iter().copied(), replace.iter().copied()) {
            return Ok(None);
        }
        Build {
            pass: Pass::Exact,
            file: search,
            search,
            replace,
            style: self.style,
            kept: &[],
        }
        .lines()
        .map(Some)
        .map_err(|why| Miss::Undecided { lines: 0..0, why })
    }

    /// A string tool's exact match (`FORMATS.md` §3): the text replaced
    /// where it is; widened to the line start when `old_string` dropped the
    /// first line's indentation and `new_string` did not; a text that starts
    /// a line and ends inside one is the text or the line cut short —
    /// applied when both readings write the same, or syntax rules one out.
    fn exact_substring(
        &self,
        text: &(impl TextView + ?Sized),
        r: &Replace,
        m: Range<usize>,
    ) -> Result<Located, Miss> {
        let slice = |range| text.slice(range);
        let span = span_of(text.len(), |i| text.byte(i), &m);
        let before = slice(span.line_start..m.start);
        let ends_line = m.end >= span.content_end;
        let literal = Located {
            range: m.clone(),
            text: self.exact_substring_text(r, before.is_empty(), ends_line)?,
        };
        if m.is_empty() || !before.trim().is_empty() {
            return Ok(literal);
        }
        let search = split_lines(&r.search, MatchUnit::Substring);
        let replace = split_lines(&r.replace, MatchUnit::Substring);
        if ends_line {
            // Whole lines. When old_string dropped the first line's
            // indentation and new_string's first line is indented, the
            // model dropped it from old_string only: widened to the line.
            let widen = !before.is_empty()
                && search.first().is_some_and(|l| !l.starts_with([' ', '\t']))
                && replace.first().is_some_and(|l| l.starts_with([' ', '\t']));
            return Ok(if widen {
                Located {
                    range: span.line_start..m.end,
                    text: self.exact_substring_text(r, true, true)?,
                }
            } else {
                literal
            });
        }
        let region = slice(span.line_start..span.content_end);
        let rest = slice(m.end..span.content_end);
        if rest.trim().is_empty() {
            // Ends where only the line's trailing whitespace is left, which
            // the model could not see: whole lines, the trailing whitespace
            // kept on its own line (pass 2), never moved to the end of the
            // new text.
            return self.trailing_whitespace_lines(r, &before, &region, &search, &replace, span);
        }
        // Ends inside a line: the text, or the line cut short?
        let file = region_lines(&region);
        let last = search.len().saturating_sub(1);
        if search.len() != file.len() || search.is_empty() {
            return Ok(literal);
        }
        let cut = if last == 0 {
            search[0].trim()
        } else {
            search[last].trim_start()
        };
        if !boundary_prefix::is_truncated_prefix(cut.trim_end(), file[last].trim()) {
            return Ok(literal);
        }
        // The line reading, with the first line as the file has it (the
        // text starts after its indentation, which the literal reading keeps).
        let whole =
            self.line_reading(Pass::BoundaryPrefix, r, &before, &file, &search, &replace)?;
        let fragment = format!("{before}{}{}", literal.text, slice(m.end..span.content_end));
        if fragment == whole {
            // The cut line is repeated as context: a copy cut short, or the
            // line as it will be after the edit?
            let repeated = replace
                .get(last)
                .is_some_and(|l| l.trim_start() == search[last].trim_start());
            if repeated && !surely_truncated(cut.trim_end(), file[last].trim()) {
                let line = search[last].trim().to_string();
                return Err(Miss::FragmentOrLine {
                    lines: 0..0,
                    whole: line,
                    fragment,
                });
            }
            return Ok(literal);
        }
        // Syntax as evidence: a reading that breaks the file is ruled out.
        if let Some(language) = self.language {
            let text = text.whole();
            let splice = |with: &str| {
                format!(
                    "{}{with}{}",
                    &text[..span.line_start],
                    &text[span.content_end..]
                )
            };
            let count = |t: &str| syntax::errors(language, t).map(|e| e.count());
            if count(&text) == Some(0) {
                let fragment_ok = count(&splice(&fragment)) == Some(0);
                let whole_ok = count(&splice(&whole)) == Some(0);
                match (fragment_ok, whole_ok) {
                    (true, false) => return Ok(literal),
                    (false, true) => {
                        return Ok(Located {
                            range: span.line_start..span.content_end,
                            text: whole,
                        })
                    }
                    _ => {}
                }
            }
        }
        Err(Miss::FragmentOrLine {
            lines: 0..0,
            fragment,
            whole,
        })
    }

    /// `new_string` in the file's line ending, and in the file's
    /// indentation style when the payload uses the other one (its first
    /// line only when it starts a line).
    fn exact_substring_text(
        &self,
        r: &Replace,
        starts_line: bool,
        ends_line: bool,
    ) -> Result<String, Miss> {
        let search = split_lines(&r.search, MatchUnit::Substring);
        let replace = split_lines(&r.replace, MatchUnit::Substring);
        let lines = search.iter().chain(&replace).copied();
        let pairs = search.iter().map(|s| (*s, *s));
        // A string tool's text is literal: converted only when it is whole
        // lines (it starts a line, or with a line break, and ends with one).
        let code_like = (starts_line || r.search.starts_with('\n')) && ends_line;
        if replace.is_empty() || !code_like || !indent::foreign(self.style, pairs, lines) {
            return Ok(self.line_ending.apply(&r.replace));
        }
        let mut new_lines = match self.exact_lines(&search, &replace)? {
            Some(built) => built,
            None => replace.iter().map(|l| l.to_string()).collect(),
        };
        if !starts_line {
            new_lines[0] = replace[0].to_string();
        }
        let mut text = new_lines.join("\n");
        if r.replace.ends_with('\n') {
            text.push('\n');
        }
        Ok(self.line_ending.apply(&text))
    }

    pub fn lines_replacement(
        &self,
        text: &str,
        range: Range<usize>,
        new_lines: &[String],
    ) -> Located {
        let bytes = text.as_bytes();
        self.lines_replacement_with(text.len(), |i| bytes[i], range, new_lines)
    }

    /// Whole lines `range` (terminator of the last included when it has
    /// one) replaced by `new_lines`, each with the file's terminator; at the
    /// end of a file without final newline, none is added, and deleting the
    /// last lines removes the terminator before them.
    fn lines_replacement_with(
        &self,
        len: usize,
        byte: impl Fn(usize) -> u8,
        range: Range<usize>,
        new_lines: &[impl AsRef<str>],
    ) -> Located {
        let le = self.line_ending.as_str();
        let mut text = String::with_capacity(
            new_lines
                .iter()
                .map(|l| l.as_ref().len() + le.len())
                .sum::<usize>(),
        );
        for l in new_lines {
            text.push_str(l.as_ref());
            text.push_str(le);
        }
        self.lines_replacement_text(len, byte, range, text)
    }

    /// [`Self::lines_replacement_with`] of lines already joined, each with
    /// the file's line ending after it (empty: no line).
    fn lines_replacement_text(
        &self,
        len: usize,
        byte: impl Fn(usize) -> u8,
        range: Range<usize>,
        mut text: String,
    ) -> Located {
        let le = self.line_ending.as_str();
        let has_terminator = range.end > range.start && byte(range.end - 1) == b'\n';
        let mut start = range.start;
        if !has_terminator && range.end == len && range.end > range.start {
            if text.ends_with(le) {
                text.truncate(text.len() - le.len());
            } else if text.is_empty() && start > 0 && byte(start - 1) == b'\n' {
                start -= 1;
                if start > 0 && byte(start - 1) == b'\r' {
                    start -= 1;
                }
            }
        }
        Located {
            range: start..range.end,
            text,
        }
    }

    /// The closest near-match of a search that was not found.
    fn nearest(&self, lines: &Lines, search: &[&str]) -> Option<Near> {
        // The near-match only helps the message: it gets at most
        // NEAREST_BUDGET of what is left of the run.
        let deadline = self.config.deadline.min(Instant::now() + NEAREST_BUDGET);
        let best = fuzzy::nearest(lines, search, deadline)?;
        let n = search.len().min(lines.len() - best.start);
        let differs_at = (0..n).find_map(|j| {
            let f = lines.line(best.start + j);
            (f.trim() != search[j].trim()).then(|| (search[j].to_string(), f.to_string()))
        });
        Some(Near {
            lines: best.start..best.start + n,
            similarity: best.similarity,
            differs_at,
        })
    }
}

/// Start lines of windows (searches of three lines or more) where all
/// search lines but one equal the file's, trimmed.
fn near_duplicates(lines: &Lines, search: &[&str]) -> Vec<usize> {
    near_windows(lines, search, 3)
}

/// [`near_duplicates`] for searches of `min` lines or more.
fn near_windows(lines: &Lines, search: &[&str], min: usize) -> Vec<usize> {
    let n = search.len();
    if n < min || n > lines.len() {
        return Vec::new();
    }
    let want: Vec<&str> = search.iter().map(|l| l.trim()).collect();
    (0..=lines.len() - n)
        .filter(|&s| {
            let mut misses = 0;
            for (j, w) in want.iter().enumerate() {
                if lines.line(s + j).trim() != *w {
                    misses += 1;
                    if misses > 1 {
                        return false;
                    }
                }
            }
            true
        })
        .collect()
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

/// How many blank lines `lines` starts and ends with (all of them, both
/// ways, when every line is blank).
fn blank_edges(lines: &[&str]) -> (usize, usize) {
    let blank = |l: &&&str| l.trim().is_empty();
    let lead = lines.iter().take_while(blank).count();
    (lead, lines.iter().rev().take_while(blank).count())
}

/// The search without its leading/trailing blank lines (and the
/// replacement without the same blank lines), when it has any.
pub fn without_blank_boundaries(r: &Replace) -> Option<Replace> {
    let search: Vec<&str> = split_lines(&r.search, r.unit);
    let replace: Vec<&str> = split_lines(&r.replace, r.unit);
    let (lead, trail) = blank_edges(&search);
    if lead == search.len() || (lead == 0 && trail == 0) {
        return None;
    }
    let (rlead, rtrail) = blank_edges(&replace);
    let rlead = rlead.min(lead);
    let rtrail = rtrail.min(trail).min(replace.len() - rlead);
    // A dropped blank line the replacement keeps elsewhere (the diff pairs
    // it with a blank line inside the replacement) is context that is not
    // there: dropping it would move the edit. One the edit deletes, or one
    // the replacement drops at the same edge, can go — where the file has
    // no blank line there ([`edge_blank_deleted`]).
    if rlead != lead || rtrail != trail {
        let kept = similar::capture_diff_slices(similar::Algorithm::Patience, &search, &replace);
        let dropped = |j: usize| {
            (j >= rlead && j < lead) || (j + trail >= search.len() && j + rtrail < search.len())
        };
        let paired = kept.iter().any(|op| match *op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                (old_index..old_index + len).any(dropped)
            }
            _ => false,
        });
        if paired {
            return None;
        }
    }
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (search, replace) = (
        join(&search[lead..search.len() - trail]),
        join(&replace[rlead..replace.len() - rtrail]),
    );
    let (search, replace) = match r.unit {
        MatchUnit::Lines => (search, replace),
        // A string tool keeps its own final newlines.
        MatchUnit::Substring => (
            if r.search.ends_with('\n') {
                search
            } else {
                search.trim_end_matches('\n').to_string()
            },
            if r.replace.ends_with('\n') {
                replace
            } else {
                replace.trim_end_matches('\n').to_string()
            },
        ),
    };
    Some(Replace {
        search,
        replace,
        without_line_numbers: None,
        kept: Vec::new(),
        ..r.clone()
    })
}

/// Whether a search cut of its blank edge lines, matched at file lines
/// `span`, cut blank lines the edit deletes (the replacement has fewer at
/// that edge) where the file has a blank line next to the match: the
/// edit would then lose that deletion and report success. Where the file
/// has none, the search's blank lines were not the file's to delete.
pub fn edge_blank_deleted(whole: &Replace, lines: &Lines, span: &Range<usize>) -> bool {
    let search = split_lines(&whole.search, whole.unit);
    let replace = split_lines(&whole.replace, whole.unit);
    let ((lead, trail), (rlead, rtrail)) = (blank_edges(&search), blank_edges(&replace));
    let file_blank = |i: usize| i < lines.len() && lines.line(i).trim().is_empty();
    (rlead < lead && span.start > 0 && file_blank(span.start - 1))
        || (rtrail < trail && file_blank(span.end))
}

/// The search the blank-line pass reads: without its blank edge lines
/// when it has any, as the blank-edge retry cuts them — `None` when that
/// retry would not (an edge blank line the replacement keeps inside is
/// context that is not there, perhaps the line as it will be).
pub fn blank_lines_variant(r: &Replace) -> Option<Replace> {
    if blank_edges(&split_lines(&r.search, r.unit)) != (0, 0) {
        without_blank_boundaries(r)
    } else {
        Some(r.clone())
    }
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
