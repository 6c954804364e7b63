//! What a match writes: the replacement built for the lines or bytes a
//! pass matched, in the file's line ending and indentation, and the
//! checks that it reads one way only (a syntax error it would bring, a
//! conversion that changes a string's bytes).

use std::ops::Range;

use crate::model::{MatchUnit, Replace};
use crate::resolve::indent::{self, Style};
use crate::resolve::passes::{Lines, Pass};
use crate::resolve::replacement::{Build, Undecided};
use crate::syntax::{self, Language};
use crate::text::line_ending::LineEnding;

use super::{
    line_end_after, lines_with_lf, raw_lines, region_lines, splice_with_starts, split_lines,
    Located, Locator, Miss, Span, TextView,
};

/// How [`Locator::new_syntax_error`] tells an edit's new errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Parse {
    /// Parse every chunk the edit touches: readings still weighed, where
    /// a reading taken without a parse could decide between two.
    Always,
    /// Take an edit that cannot change whether its chunk parses without a
    /// parse (`syntax::new_error_line_quick`: words or numbers swapped,
    /// whole statements in place of whole statements): a decided reading.
    UnlessNeutral,
}

impl Locator<'_> {
    /// Whether a replacement line whose indentation was converted to the
    /// file's style (`new_lines` over `replace`, at current lines `at`)
    /// starts inside a string literal of the result.
    pub(super) fn converted_in_string(
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
    pub(super) fn written_match(
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
    pub(in crate::resolve) fn build(
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
                self.new_syntax_error(language, lines, at.clone(), out, Parse::Always)
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
        // the model meant code, not a syntax error. The reading is decided:
        // an edit that only swaps words or numbers, or puts whole
        // statements in place of whole statements, cannot break it, and is
        // taken without a parse (the rules `examples/syntax_oracle.rs` holds
        // to the parser).
        if pass.is_tolerant() {
            if let Some((language, lines)) = evidence {
                let quick = Parse::UnlessNeutral;
                if let Some(error_line) =
                    self.new_syntax_error(language, lines, at, &new_lines, quick)
                {
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
    /// cleanly: only the top-level chunks around the edit are parsed (and,
    /// with [`Parse::UnlessNeutral`], only when the edit could change
    /// whether they parse).
    pub(super) fn new_syntax_error(
        &self,
        language: Language,
        lines: &Lines,
        at: Range<usize>,
        new_lines: &[String],
        parse: Parse,
    ) -> Option<usize> {
        let start = lines.index.start(at.start.min(lines.len()));
        let end = lines.index.start(at.end.min(lines.len()));
        let mut text = String::new();
        for l in new_lines {
            text.push_str(l);
            text.push_str(self.line_ending.as_str());
        }
        let edits = [(start..end, text.as_str())];
        match parse {
            Parse::Always => syntax::new_error_line(language, lines.text, &edits),
            Parse::UnlessNeutral => syntax::new_error_line_quick(language, lines.text, &edits),
        }
    }

    /// Exact lines `new_lines` in place of file lines `m`, as written.
    pub fn replace_lines(&self, lines: &Lines, m: Range<usize>, new_lines: &[String]) -> Located {
        let range = lines.index.start(m.start)..lines.index.start(m.end);
        self.lines_replacement(lines.text, range, new_lines)
    }

    /// What a whole-line match of file lines `m` writes: the lines, or for
    /// a string tool the literal replace of its text ([`Self::substring_lines`]).
    pub(in crate::resolve) fn written_lines(
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

    /// The replacement of an exact match (`byte`/`slice` read the text).
    pub(super) fn exact_replacement(
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
    pub(super) fn no_conversion_in_string(
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
    pub(super) fn trailing_whitespace_lines(
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
    pub(super) fn line_reading(
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
    pub(super) fn as_written<'t>(
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
    pub(super) fn exact_lines(
        &self,
        search: &[&str],
        replace: &[&str],
    ) -> Result<Option<Vec<String>>, Miss> {
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
    pub(super) fn lines_replacement_with(
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
    pub(super) fn lines_replacement_text(
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
}
