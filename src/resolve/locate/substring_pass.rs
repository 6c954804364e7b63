//! Searches that are not whole lines: a substring of one line or a span
//! across lines, exactly or with the tolerances that apply to it.

use std::ops::Range;

use crate::model::{MatchUnit, Replace};
use crate::resolve::indent;
use crate::resolve::passes::{boundary_prefix, substring, Lines, Pass};
use crate::resolve::replacement::surely_truncated;
use crate::syntax;

use super::{
    choose_bytes, region_lines, span_of, split_lines, Located, Locator, Miss, Placed, TextView,
};

impl Locator<'_> {
    /// A string tool's whole-line match written as the literal replace of
    /// its text would be: the old text covers the lines' content, and their
    /// last terminator only when it ended with a newline; the new text ends
    /// with one only when `new_string` does.
    pub(super) fn substring_lines(
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
    pub(super) fn raw_substring(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Result<Placed, Miss> {
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
        let chosen = choose_bytes(&ranges, r.replace_all, hint, lines)?;
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

    /// A string tool's exact match (`FORMATS.md` §3): the text replaced
    /// where it is; widened to the line start when `old_string` dropped the
    /// first line's indentation and `new_string` did not; a text that starts
    /// a line and ends inside one is the text or the line cut short —
    /// applied when both readings write the same, or syntax rules one out.
    pub(super) fn exact_substring(
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
    pub(super) fn exact_substring_text(
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
}
