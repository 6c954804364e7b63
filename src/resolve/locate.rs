//! Locating a search in the current text of a file: the passes in order,
//! the first pass with any candidate decides, one candidate wins, a line
//! hint may pick among several, and otherwise the search is ambiguous.

use std::ops::Range;
use std::time::Instant;

use super::doc::Doc;
use super::passes::{self, fuzzy, substring, Lines, Pass};
use super::replacement;
use super::ResolveConfig;
use crate::engine::MatchMode;
use crate::model::{MatchUnit, Replace};
use crate::text::line_ending::LineEnding;

/// How far (in lines) a hint reaches to pick the nearest candidate.
pub const HINT_REACH: usize = 40;

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
    /// Several candidates in the deciding pass: their first and last lines.
    Ambiguous { candidates: Vec<Range<usize>> },
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
}

/// A search split into lines (without terminators).
pub fn split_lines(text: &str, unit: MatchUnit) -> Vec<&str> {
    match unit {
        MatchUnit::Lines => text.lines().collect(),
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

impl Locator<'_> {
    /// The exact needle of a search in this file's line ending: whole lines
    /// without the last terminator, or the raw substring.
    pub fn exact_needle(&self, r: &Replace) -> String {
        let text = match r.unit {
            MatchUnit::Lines => r.search.strip_suffix('\n').unwrap_or(&r.search),
            MatchUnit::Substring => &r.search,
        };
        self.line_ending.apply(text)
    }

    /// Fast path: exact candidates of a sequential search from the piece
    /// table, without materializing the text. Returns byte ranges of the
    /// needle (whole-line matches only, for line searches).
    pub fn exact_on_doc(&self, doc: &Doc, r: &Replace, orig_hits: &[usize]) -> Vec<Range<usize>> {
        let needle = self.exact_needle(r);
        let hits = doc.find(&needle, orig_hits);
        hits.into_iter()
            .map(|s| s..s + needle.len())
            .filter(|m| r.unit == MatchUnit::Substring || is_whole_lines(doc, m))
            .collect()
    }

    /// Locates a replace in `doc`, given its exact needle's hits in the
    /// original (`orig_hits`) and its hint as a current line (0-based).
    pub fn locate(
        &self,
        doc: &Doc,
        r: &Replace,
        orig_hits: &[usize],
        hint: Option<usize>,
    ) -> Result<Vec<Located>, Miss> {
        let exact = self.exact_on_doc(doc, r, orig_hits);
        if !exact.is_empty() {
            let lines = LazyLines::new(doc);
            let chosen = choose(
                exact,
                r.replace_all,
                hint,
                |m| lines.get().index.line_of(m.start),
                |m| line_span(&lines.get().index, m),
            )?;
            return Ok(chosen
                .into_iter()
                .map(|m| self.exact_replacement(doc, r, m))
                .collect());
        }
        self.locate_tolerant(doc.text(), r, hint, true)
    }

    /// The tolerant passes (2-7) over the materialized text, then the
    /// re-tries without blank boundary lines and without line numbers.
    fn locate_tolerant(
        &self,
        text: &str,
        r: &Replace,
        hint: Option<usize>,
        retry: bool,
    ) -> Result<Vec<Located>, Miss> {
        let lines = Lines::new(text);
        let search = split_lines(&r.search, r.unit);
        let replace = split_lines(&r.replace, r.unit);
        let mut result = self.line_passes(&lines, &search, &replace, r, hint);
        if matches!(result, Err(Miss::NotFound { .. }))
            && r.unit == MatchUnit::Lines
            && self.tolerant()
        {
            result = self.raw_substring(text, r, hint);
        }
        if !retry || !matches!(result, Err(Miss::NotFound { .. })) {
            return result;
        }
        for alt in [
            without_blank_boundaries(r),
            r.without_line_numbers.as_ref().map(|(s, p)| Replace {
                search: s.clone(),
                replace: p.clone(),
                without_line_numbers: None,
                ..r.clone()
            }),
        ]
        .into_iter()
        .flatten()
        {
            let exact = self.exact_in_text(text, &alt);
            let again = if exact.is_empty() {
                self.locate_tolerant(text, &alt, hint, false)
            } else {
                choose(
                    exact,
                    alt.replace_all,
                    hint,
                    |m| lines.index.line_of(m.start),
                    |m| line_span(&lines.index, m),
                )
                .map(|ms| {
                    ms.into_iter()
                        .map(|m| self.exact_replacement_in(text, &alt, m))
                        .collect()
                })
            };
            if !matches!(again, Err(Miss::NotFound { .. })) {
                return again;
            }
        }
        match result {
            Err(Miss::NotFound { .. }) => Err(Miss::NotFound {
                near: self.nearest(&lines, &search),
            }),
            other => other,
        }
    }

    fn tolerant(&self) -> bool {
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
    /// first pass (exact, then 2-5, then fuzzy) with any, as start lines.
    pub fn line_candidates(&self, lines: &Lines, search: &[&str]) -> Option<(Pass, Vec<usize>)> {
        self.first_pass_with_candidates(lines, search, Pass::Exact, None)
    }

    /// Runs the line passes from `from` on (exact, 2-5, fuzzy) and returns
    /// the first one with any candidate. With a `hint`, fuzzy matching looks
    /// within the hint's reach first: the hint would pick a candidate there
    /// over any farther one.
    fn first_pass_with_candidates(
        &self,
        lines: &Lines,
        search: &[&str],
        from: Pass,
        hint: Option<usize>,
    ) -> Option<(Pass, Vec<usize>)> {
        if search.is_empty() {
            return None;
        }
        let mut passes = vec![Pass::Exact];
        if self.tolerant() {
            passes.extend([
                Pass::TrailingWhitespace,
                Pass::Trimmed,
                Pass::BoundaryPrefix,
                Pass::Unicode,
            ]);
        }
        for pass in passes.into_iter().filter(|p| *p >= from) {
            let starts = passes::find_line_pass(pass, lines, search);
            if !starts.is_empty() {
                return Some((pass, starts));
            }
        }
        let (MatchMode::Tolerant, Some(threshold)) = (self.config.match_mode, self.config.fuzzy)
        else {
            return None;
        };
        let deadline = Instant::now() + self.config.fuzzy_deadline;
        let near_hint = hint.map(|h| {
            let reach = h.saturating_sub(HINT_REACH)..h + HINT_REACH + 1;
            fuzzy::find_near(lines, search, threshold, deadline, reach)
        });
        let scan = match near_hint {
            Some(scan) if !scan.candidates.is_empty() => scan,
            _ => fuzzy::find(lines, search, threshold, deadline),
        };
        let starts: Vec<usize> = scan.candidates.iter().map(|c| c.start).collect();
        (!starts.is_empty()).then_some((Pass::Fuzzy, starts))
    }

    /// The replacement of file lines `m` matched by `pass`.
    pub fn build_at(
        &self,
        lines: &Lines,
        search: &[&str],
        replace: &[&str],
        pass: Pass,
        m: Range<usize>,
    ) -> Located {
        let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
        let new_lines = replacement::build(pass, &file, search, replace);
        let range = lines.index.start(m.start)..lines.index.start(m.end);
        self.lines_replacement(lines.text, range, &new_lines, false)
    }

    /// Exact lines `new_lines` in place of file lines `m`, as written.
    pub fn replace_lines(&self, lines: &Lines, m: Range<usize>, new_lines: &[String]) -> Located {
        let range = lines.index.start(m.start)..lines.index.start(m.end);
        self.lines_replacement(lines.text, range, new_lines, false)
    }

    /// Public form of the near-match search.
    pub fn near_match(&self, lines: &Lines, search: &[&str]) -> Option<Near> {
        self.nearest(lines, search)
    }

    /// Passes 2-5 and 7, line by line.
    fn line_passes(
        &self,
        lines: &Lines,
        search: &[&str],
        replace: &[&str],
        r: &Replace,
        hint: Option<usize>,
    ) -> Result<Vec<Located>, Miss> {
        match self.first_pass_with_candidates(lines, search, Pass::TrailingWhitespace, hint) {
            Some((pass, starts)) => {
                self.finish_line_match(lines, search, replace, r, hint, pass, starts)
            }
            None => Err(Miss::NotFound { near: None }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_line_match(
        &self,
        lines: &Lines,
        search: &[&str],
        replace: &[&str],
        r: &Replace,
        hint: Option<usize>,
        pass: Pass,
        starts: Vec<usize>,
    ) -> Result<Vec<Located>, Miss> {
        let n = search.len();
        let ranges: Vec<Range<usize>> = starts.into_iter().map(|s| s..s + n).collect();
        let chosen = choose(
            ranges,
            r.replace_all,
            hint,
            |m| m.start,
            |m| m.start..m.end - 1,
        )?;
        Ok(chosen
            .into_iter()
            .map(|m| {
                let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
                let new_lines = replacement::build(pass, &file, search, replace);
                let range = lines.index.start(m.start)..lines.index.start(m.end);
                self.lines_replacement(
                    lines.text,
                    range,
                    &new_lines,
                    r.unit == MatchUnit::Substring
                        && !r.replace.ends_with('\n')
                        && r.search.ends_with('\n'),
                )
            })
            .collect())
    }

    /// Pass 6: the search as a raw substring (block formats only).
    fn raw_substring(
        &self,
        text: &str,
        r: &Replace,
        hint: Option<usize>,
    ) -> Result<Vec<Located>, Miss> {
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
        let index = crate::text::lines::LineIndex::new(text);
        let ranges: Vec<Range<usize>> = hits.into_iter().map(|s| s..s + needle.len()).collect();
        let chosen = choose(
            ranges,
            r.replace_all,
            hint,
            |m| index.line_of(m.start),
            |m| line_span(&index, m),
        )?;
        Ok(chosen
            .into_iter()
            .map(|m| Located {
                range: m,
                text: replace.clone(),
            })
            .collect())
    }

    /// The replacement of an exact match on the piece table.
    fn exact_replacement(&self, doc: &Doc, r: &Replace, m: Range<usize>) -> Located {
        match r.unit {
            MatchUnit::Substring => self.widened_substring(|i| doc.byte_at(i), r, m),
            MatchUnit::Lines => {
                let end = line_end_after(doc.len(), |i| doc.byte_at(i), m.end);
                let new_lines: Vec<&str> = r.replace.lines().collect();
                let new_lines: Vec<String> = new_lines.iter().map(|s| s.to_string()).collect();
                self.lines_replacement_with(
                    doc.len(),
                    |i| doc.byte_at(i),
                    m.start..end,
                    &new_lines,
                    false,
                )
            }
        }
    }

    /// The replacement of an exact match on a materialized text.
    fn exact_replacement_in(&self, text: &str, r: &Replace, m: Range<usize>) -> Located {
        let bytes = text.as_bytes();
        match r.unit {
            MatchUnit::Substring => self.widened_substring(|i| bytes[i], r, m),
            MatchUnit::Lines => {
                let end = line_end_after(text.len(), |i| bytes[i], m.end);
                let new_lines: Vec<String> = r.replace.lines().map(str::to_string).collect();
                self.lines_replacement(text, m.start..end, &new_lines, false)
            }
        }
    }

    /// A substring replacement, widened to the line start when the model
    /// dropped the indentation from `old_string` only (`FORMATS.md` §3).
    fn widened_substring(
        &self,
        byte: impl Fn(usize) -> u8,
        r: &Replace,
        m: Range<usize>,
    ) -> Located {
        let new_indented = r.replace.starts_with([' ', '\t']);
        let old_indented = r.search.starts_with([' ', '\t']);
        let mut start = m.start;
        if new_indented && !old_indented {
            let mut s = m.start;
            while s > 0 && matches!(byte(s - 1), b' ' | b'\t') {
                s -= 1;
            }
            if s < m.start && (s == 0 || byte(s - 1) == b'\n') {
                start = s;
            }
        }
        Located {
            range: start..m.end,
            text: self.line_ending.apply(&r.replace),
        }
    }

    fn lines_replacement(
        &self,
        text: &str,
        range: Range<usize>,
        new_lines: &[String],
        drop_last_terminator: bool,
    ) -> Located {
        let bytes = text.as_bytes();
        self.lines_replacement_with(
            text.len(),
            |i| bytes[i],
            range,
            new_lines,
            drop_last_terminator,
        )
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
        new_lines: &[String],
        drop_last_terminator: bool,
    ) -> Located {
        let le = self.line_ending.as_str();
        let has_terminator = range.end > range.start && byte(range.end - 1) == b'\n';
        let mut text = String::new();
        for l in new_lines {
            text.push_str(l);
            text.push_str(le);
        }
        let mut start = range.start;
        if !has_terminator && range.end == len && range.end > range.start || drop_last_terminator {
            if text.ends_with(le) {
                text.truncate(text.len() - le.len());
            } else if new_lines.is_empty() && start > 0 && byte(start - 1) == b'\n' {
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
        let deadline = Instant::now()
            + self
                .config
                .fuzzy_deadline
                .min(std::time::Duration::from_millis(500));
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

/// Candidates → the chosen ones: all for `replace_all`, the only one, or
/// the one a hint picks (exactly at the hint, else the nearest within
/// [`HINT_REACH`] lines unless another is as near); else ambiguous.
pub fn choose<M: Clone>(
    candidates: Vec<M>,
    replace_all: bool,
    hint: Option<usize>,
    line_of: impl Fn(&M) -> usize,
    span: impl Fn(&M) -> Range<usize>,
) -> Result<Vec<M>, Miss> {
    if candidates.len() == 1 || (replace_all && !candidates.is_empty()) {
        return Ok(candidates);
    }
    if let Some(h) = hint {
        if let Some(c) = candidates.iter().find(|c| line_of(c) == h) {
            return Ok(vec![c.clone()]);
        }
        let mut by_distance: Vec<(usize, &M)> = candidates
            .iter()
            .map(|c| (line_of(c).abs_diff(h), c))
            .collect();
        by_distance.sort_by_key(|(d, _)| *d);
        if let [(d0, best), rest @ ..] = by_distance.as_slice() {
            let tie = rest.first().is_some_and(|(d1, _)| d1 == d0);
            if *d0 <= HINT_REACH && !tie {
                return Ok(vec![(*best).clone()]);
            }
        }
    }
    Err(Miss::Ambiguous {
        candidates: candidates.iter().map(span).collect(),
    })
}

/// The 0-based lines `first..last` (inclusive, as a range's start/end)
/// spanned by bytes `m`.
fn line_span(index: &crate::text::lines::LineIndex, m: &Range<usize>) -> Range<usize> {
    index.line_of(m.start)..index.line_of(m.end.saturating_sub(1).max(m.start))
}

/// Does `m` start at a line start and end at a line end (in the doc)?
fn is_whole_lines(doc: &Doc, m: &Range<usize>) -> bool {
    let starts_line = m.start == 0 || doc.byte_before(m.start) == Some(b'\n');
    let ends_line = m.end == doc.len()
        || doc.byte_at(m.end) == b'\n'
        || (doc.byte_at(m.end) == b'\r'
            && m.end + 1 < doc.len()
            && doc.byte_at(m.end + 1) == b'\n');
    starts_line && ends_line
}

fn is_whole_lines_text(text: &str, m: &Range<usize>) -> bool {
    let b = text.as_bytes();
    let starts_line = m.start == 0 || b[m.start - 1] == b'\n';
    let ends_line = m.end == b.len()
        || b[m.end] == b'\n'
        || (b[m.end] == b'\r' && b.get(m.end + 1) == Some(&b'\n'));
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

/// The search without its leading/trailing blank lines (and the
/// replacement without the same blank lines), when it has any.
fn without_blank_boundaries(r: &Replace) -> Option<Replace> {
    if r.unit != MatchUnit::Lines {
        return None;
    }
    let search: Vec<&str> = r.search.lines().collect();
    let replace: Vec<&str> = r.replace.lines().collect();
    let lead = search.iter().take_while(|l| l.trim().is_empty()).count();
    if lead == search.len() {
        return None;
    }
    let trail = search
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    if lead == 0 && trail == 0 {
        return None;
    }
    let rlead = replace
        .iter()
        .take_while(|l| l.trim().is_empty())
        .count()
        .min(lead);
    let rtrail = replace
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count()
        .min(trail)
        .min(replace.len() - rlead);
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    Some(Replace {
        search: join(&search[lead..search.len() - trail]),
        replace: join(&replace[rlead..replace.len() - rtrail]),
        ..r.clone()
    })
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
        self.lines.get_or_init(|| Lines::new(self.doc.text()))
    }
}
