//! The blank-line passes: a search whose blank lines at its edges, or
//! inside it, the file does not hold as written.

use std::ops::Range;

use crate::model::{MatchUnit, Replace};
use crate::resolve::blank_lines;
use crate::resolve::hints::choose_window;
use crate::resolve::passes::{Lines, Pass};

use super::{split_lines, Locator, Miss, Placed};

impl Locator<'_> {
    /// The blank-line-insensitive pass ([`blank_lines`]); `None` when it
    /// finds no candidate.
    pub(super) fn blank_pass(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Option<Result<Placed, Miss>> {
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
}

/// How many blank lines `lines` starts and ends with (all of them, both
/// ways, when every line is blank).
pub(super) fn blank_edges(lines: &[&str]) -> (usize, usize) {
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
