//! Rivals: near copies of a search elsewhere in the file, which make a
//! tolerant match ambiguous rather than let it pick one of them.

use std::ops::Range;

use crate::resolve::passes::{fuzzy, Lines};
use crate::resolve::MatchMode;

use super::{Locator, Miss};

impl Locator<'_> {
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

    pub(super) fn no_rival(
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
}

/// Start lines of windows (searches of three lines or more) where all
/// search lines but one equal the file's, trimmed.
pub(super) fn near_duplicates(lines: &Lines, search: &[&str]) -> Vec<usize> {
    near_windows(lines, search, 3)
}

/// [`near_duplicates`] for searches of `min` lines or more.
pub(super) fn near_windows(lines: &Lines, search: &[&str], min: usize) -> Vec<usize> {
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
