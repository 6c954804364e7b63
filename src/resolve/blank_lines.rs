//! The blank-line-insensitive pass (`FORMATS.md` §3, "Blank lines"): a
//! search that adds or drops blank lines (at its edges or inside) is
//! matched by its non-blank lines alone, with the same uniqueness rule as
//! every pass; the file's blank lines are kept.
//!
//! A match is a window of file lines from the first to the last matched
//! non-blank line. The search and the replacement are then rewritten onto
//! the window's blank lines — a blank line the search dropped is put back
//! into both (where the replacement keeps the lines around it), one the
//! search added is taken out of both — so that what the match writes is
//! built by [`super::replacement::Build`] like any other, line by line.

use std::ops::Range;

use super::passes::keys::View;
use super::passes::{self, Lines, Pass};
use super::replacement::{pairing, Undecided};

/// The passes that compare the non-blank lines: the tolerant line passes
/// but the boundary prefix (a cut line and a moved blank line at once are
/// too little of the search left to trust).
const PASSES: [Pass; 3] = [Pass::TrailingWhitespace, Pass::Trimmed, Pass::Unicode];

/// The windows (file lines, end exclusive) where the search's non-blank
/// lines match the file's non-blank lines, by the first pass that finds
/// any; `None` when none does, or the search has fewer than two non-blank
/// lines (one line is no evidence of where blank lines go). The file's
/// non-blank lines are a view of its line-key index (no copy of the text).
pub fn find(lines: &Lines, search: &[&str]) -> Option<(Pass, Vec<Range<usize>>)> {
    let wanted: Vec<&str> = search
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if wanted.len() < 2 {
        return None;
    }
    PASSES.into_iter().find_map(|pass| {
        let starts = passes::find_line_pass_in(pass, lines, View::NonBlank, &wanted);
        (!starts.is_empty()).then(|| {
            let at = lines.non_blank();
            let windows = starts
                .into_iter()
                .map(|s| at[s] as usize..at[s + wanted.len() - 1] as usize + 1)
                .collect();
            (pass, windows)
        })
    })
}

/// The search and replacement rewritten onto `window` (the matched file
/// lines): the search then has the window's blank lines and no others,
/// line for line, and the replacement keeps the file's blank lines where
/// it keeps the lines around them.
pub fn rewrite(
    window: &[&str],
    search: &[&str],
    replace: &[&str],
) -> Result<(Vec<String>, Vec<String>), Undecided> {
    // Both pairings of the search with the replacement, and both ways of
    // aligning a run of blank lines the search wrote shorter than the file
    // (the left-out blank lines at the run's end, or at its start) must
    // give one result: else the text says two things.
    let forward = rewrite_with(window, search, replace, false, false)?;
    for (reversed, late) in [(true, false), (false, true), (true, true)] {
        if rewrite_with(window, search, replace, reversed, late)? != forward {
            return Err(Undecided::Alignment);
        }
    }
    Ok(forward)
}

fn rewrite_with(
    window: &[&str],
    search: &[&str],
    replace: &[&str],
    reversed: bool,
    late: bool,
) -> Result<(Vec<String>, Vec<String>), Undecided> {
    let blank = |l: &str| l.trim().is_empty();
    let run = |lines: &[&str], from: usize| lines[from..].iter().take_while(|l| blank(l)).count();
    // The search's edge blank lines were cut before (the window has none).
    let first = search.iter().position(|l| !blank(l)).unwrap_or(0);
    let last = search.iter().rposition(|l| !blank(l)).unwrap_or(0);
    if first != 0 || last + 1 != search.len() {
        return Err(Undecided::AddedBlankLine);
    }
    let paired = pairing(search, replace, reversed);
    // A line in both the search and the replacement but not paired was
    // moved: which lines the edit keeps in place is then a guess.
    let moved = (0..search.len())
        .any(|j| paired[j].is_none() && !blank(search[j]) && replace.contains(&search[j]));
    let mut out_search: Vec<String> = Vec::with_capacity(window.len());
    // Blank lines to put in before a replacement line (or at its end).
    let mut inserted: Vec<(usize, String)> = Vec::new();
    let (mut i, mut j) = (0, first);
    while i < window.len() || j <= last {
        let w_blank = i < window.len() && blank(window[i]);
        let mut s_blank = j <= last && blank(search[j]);
        if late && w_blank && s_blank && run(window, i) > run(search, j) {
            // The left-out blank lines at the start of the file's run.
            s_blank = false;
        }
        if w_blank && s_blank || (!w_blank && !s_blank) {
            if i >= window.len() || j > last {
                // Non-blank lines on one side only: not this window's match.
                return Err(Undecided::Alignment);
            }
            out_search.push(search[j].to_string());
            i += 1;
            j += 1;
        } else if w_blank {
            // A file blank line the search dropped: it stays where the
            // replacement keeps a line next to it.
            // A blank line stays between the lines it separates: between
            // two kept lines kept together, after changed lines and before
            // a kept line, after a kept line and before a changed line the
            // replacement changes in place (its first new line is like it).
            // Where new lines come between a kept line and it, they could
            // go before or after it (both happen in real edits). Next to
            // the search's own blank lines, the other alignments of the
            // run (`late`) must agree: the replacement's count of blank
            // lines may be meant as the new count or as one more. Where
            // the edit moves lines, only a blank line between two kept
            // lines kept together has its place (both pairings agreeing).
            let together =
                matches!((paired[j - 1], paired[j]), (Some(k), Some(next)) if next == k + 1);
            if moved && !together {
                return Err(Undecided::BlankLine);
            }
            let blank_at = |k: usize| replace.get(k).is_some_and(|l| blank(l));
            let at = match (paired[j - 1], paired[j]) {
                // Two kept lines kept together.
                (Some(_), Some(next)) if together => next,
                // Changed lines, then a kept line.
                (None, Some(next)) if next == 0 || !blank_at(next - 1) => next,
                (Some(k), None)
                    if replace
                        .get(k + 1)
                        .is_some_and(|l| !blank(l) && alike(l, search[j])) =>
                {
                    k + 1
                }
                _ => return Err(Undecided::BlankLine),
            };
            out_search.push(window[i].to_string());
            inserted.push((at, window[i].to_string()));
            i += 1;
        } else {
            // A blank line the search has and the file does not: one the
            // edit deletes is gone; one the replacement keeps may be a
            // slip or the blank line as it will be after the edit.
            if paired[j].is_some() {
                return Err(Undecided::AddedBlankLine);
            }
            j += 1;
        }
    }
    let mut out_replace: Vec<String> = Vec::with_capacity(replace.len() + inserted.len());
    for (k, line) in replace.iter().enumerate() {
        out_replace.extend(
            inserted
                .iter()
                .filter(|(at, _)| *at == k)
                .map(|(_, l)| l.clone()),
        );
        out_replace.push((*line).to_string());
    }
    out_replace.extend(
        inserted
            .iter()
            .filter(|(at, _)| *at >= replace.len())
            .map(|(_, l)| l.clone()),
    );
    Ok((out_search, out_replace))
}

/// Whether a new line is the old line changed in place (most of its text
/// the same).
fn alike(new: &str, old: &str) -> bool {
    super::passes::fuzzy::similarity(&[new], &[old]) >= 0.6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finds_a_search_that_dropped_an_inner_blank_line() {
        let text = "a\nb\n\nc\nd\n";
        let lines = Lines::new(text);
        let (pass, windows) = find(&lines, &["b", "c"]).unwrap();
        assert_eq!(pass, Pass::TrailingWhitespace);
        assert_eq!(windows, vec![1..4]);
    }

    #[test]
    fn a_dropped_blank_line_is_put_back_into_both() {
        let window = ["b", "", "c"];
        let (s, r) = rewrite(&window, &["b", "c"], &["b", "c", "x"]).unwrap();
        assert_eq!(s, strings(&["b", "", "c"]));
        // Between `b` and `c`, which the replacement keeps together.
        assert_eq!(r, strings(&["b", "", "c", "x"]));
        // Before `c` changed in place.
        let (_, r) = rewrite(&window, &["b", "c = 1"], &["b", "c = 2"]).unwrap();
        assert_eq!(r, strings(&["b", "", "c = 2"]));
    }

    #[test]
    fn a_run_of_blank_lines_kept_whole_keeps_the_files_count() {
        // Two blank lines in the file, one in the search and the
        // replacement: the edit does not touch the run.
        let window = ["a", "", "", "b"];
        let (s, r) = rewrite(&window, &["a", "", "b"], &["a2", "", "b"]).unwrap();
        assert_eq!(s, strings(&["a", "", "", "b"]));
        assert_eq!(r, strings(&["a2", "", "", "b"]));
        // A blank line added to the run: the new count, or one more?
        assert_eq!(
            rewrite(&window, &["a", "", "b"], &["a", "", "", "b"]),
            Err(Undecided::BlankLine)
        );
        assert_eq!(
            rewrite(&window, &["a", "", "b"], &["a", "x", "", "", "b"]),
            Err(Undecided::BlankLine)
        );
    }

    #[test]
    fn lines_moved_elsewhere_leave_a_blank_line_between_kept_lines_in_place() {
        // `b` and `c` trade places; the blank line between `x` and `y`
        // (kept together) stays there.
        let window = ["b", "c", "x", "", "y"];
        let (_, r) = rewrite(&window, &["b", "c", "x", "y"], &["c", "b", "x", "y"]).unwrap();
        assert_eq!(r, strings(&["c", "b", "x", "", "y"]));
        // Next to the moved lines, its place is a guess.
        let window = ["b", "", "c", "x"];
        assert!(rewrite(&window, &["b", "c", "x"], &["c", "b", "x"]).is_err());
    }

    #[test]
    fn a_run_of_blank_lines_next_to_new_lines_is_undecided() {
        // New lines after `b`, then the search's one blank line of two:
        // before the file's two blank lines, or between them?
        let window = ["b", "", "", "c"];
        assert_eq!(
            rewrite(&window, &["b", "", "c"], &["b", "x", "", "c"]),
            Err(Undecided::BlankLine)
        );
    }

    #[test]
    fn an_added_blank_line_is_deleted_from_nothing_or_undecided() {
        let window = ["b", "c"];
        let (s, r) = rewrite(&window, &["b", "", "c"], &["b", "c", "d"]).unwrap();
        assert_eq!(s, strings(&["b", "c"]));
        assert_eq!(r, strings(&["b", "c", "d"]));
        // Kept by the replacement: a slip, or the blank line the edit adds?
        assert_eq!(
            rewrite(&window, &["b", "", "c"], &["b", "", "c", "d"]),
            Err(Undecided::AddedBlankLine)
        );
    }

    #[test]
    fn a_dropped_blank_line_inside_changed_lines_is_undecided() {
        let window = ["b", "", "c"];
        assert_eq!(
            rewrite(&window, &["b", "c"], &["x", "y"]),
            Err(Undecided::BlankLine)
        );
        // New lines between the kept lines: before or after the blank?
        assert_eq!(
            rewrite(&window, &["b", "c"], &["b", "x", "c"]),
            Err(Undecided::BlankLine)
        );
    }
}
