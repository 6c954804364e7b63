//! Line hints (`FORMATS.md` §3 "Line hints"): which candidate a
//! `:start_line:` or a hunk header's number picks, and the evidence that a
//! number does not pin a place — a looser match exactly at it, or the
//! file's other hinted edits off by another amount (`stale_hint_rivals`
//! for a diff's hunks; `mod.rs` walks a file's sequential edits).

use std::ops::Range;

use super::locate::{Locator, Miss};
use super::passes::{self, Lines, Pass};

/// A hint picks the candidate within this many lines of it...
pub const HINT_NEAR: usize = 10;
/// ...when no other candidate is within this many lines of it.
pub const HINT_CLEAR: usize = 100;

/// [`choose`] among windows of lines (end exclusive).
pub fn choose_window(
    windows: Vec<Range<usize>>,
    replace_all: bool,
    hint: Option<usize>,
) -> Result<Vec<Range<usize>>, Miss> {
    choose(
        &windows,
        replace_all,
        hint,
        |m| m.start,
        |m| m.start..m.end - 1,
    )
}

/// Candidates → the chosen ones: all for `replace_all`, the only one, or
/// the one a hint picks (`FORMATS.md` §3 "Line hints": exactly at the hint
/// — for a hint of line 1, only when no other is within [`HINT_NEAR`]
/// lines —, else the nearest when it is within [`HINT_NEAR`] lines and no
/// other is within [`HINT_CLEAR`] lines); else ambiguous.
pub fn choose<M: Clone>(
    candidates: &[M],
    replace_all: bool,
    hint: Option<usize>,
    line_of: impl Fn(&M) -> usize,
    span: impl Fn(&M) -> Range<usize>,
) -> Result<Vec<M>, Miss> {
    if candidates.len() == 1 || (replace_all && !candidates.is_empty()) {
        return Ok(candidates.to_vec());
    }
    if let Some(h) = hint {
        // Exactly at the hint. Line 1 is what a model writes when it does
        // not know the line: there it picks only when no other candidate
        // is near enough for a stale hint to have meant it.
        let near_other = |c: &M| {
            h == 0
                && candidates
                    .iter()
                    .any(|o| line_of(o) != line_of(c) && line_of(o).abs_diff(h) <= HINT_NEAR)
        };
        if let Some(c) = candidates
            .iter()
            .find(|c| line_of(c) == h && !near_other(c))
        {
            return Ok(vec![c.clone()]);
        }
        // The nearest candidate (the first of equals) and the distance of
        // the next nearest, in one pass: a hunk over a file of identical
        // lines has a candidate on every line, and sorting them per hunk
        // was most of ten thousand hunks' time.
        let mut best: Option<(usize, &M)> = None;
        let mut second = usize::MAX;
        for c in candidates {
            let d = line_of(c).abs_diff(h);
            match best {
                Some((d0, _)) if d >= d0 => second = second.min(d),
                Some((d0, _)) => {
                    second = d0;
                    best = Some((d, c));
                }
                None => best = Some((d, c)),
            }
        }
        if let Some((d0, best)) = best {
            if d0 <= HINT_NEAR && second > HINT_CLEAR {
                return Ok(vec![best.clone()]);
            }
        }
    }
    // Only the listed ones are measured: a search over identical lines has
    // a candidate on every line, and ten thousand such blocks spent most
    // of their time on spans no message shows.
    Err(Miss::Ambiguous {
        candidates: candidates
            .iter()
            .take(crate::error::LISTED)
            .map(span)
            .collect(),
        total: candidates.len(),
    })
}

impl Locator<'_> {
    /// A line hint that picked a candidate near it, not at it (`FORMATS.md`
    /// §3 "Line hints"), picks nothing when the search also matches, by a
    /// pass after `pass`, exactly at the hint: the place the hint names,
    /// read with the payload's slip (trailing whitespace, indentation), is
    /// the other reading. Both are named.
    pub fn hint_rival(
        &self,
        lines: &Lines,
        search: &[&str],
        pass: Pass,
        picked: usize,
        hint: Option<usize>,
    ) -> Result<(), Miss> {
        let n = search.len();
        let Some(h) = hint.filter(|&h| h != picked && n > 0 && h + n <= lines.len()) else {
            return Ok(());
        };
        let window =
            &lines.text[lines.index.start(h)..lines.index.start(h + n).min(lines.text.len())];
        let window = Lines::new(window);
        let looser = self
            .line_pass_order()
            .into_iter()
            .skip_while(|&p| p != pass)
            .skip(1)
            .find(|&p| passes::find_line_pass(p, &window, search).contains(&0));
        match looser {
            None => Ok(()),
            Some(looser) => Err(Miss::HintRival {
                picked: picked..picked + n - 1,
                at_hint: h..h + n - 1,
                looser,
            }),
        }
    }
}

/// For each placed hunk `(start, hint, by_hint)` of a group: when its
/// hint picked it among several places, and the nearest hunk before or
/// after it that was placed without that help sits at another offset
/// from its own hint, that hunk's `(index, start, hint)`. The hunks of
/// one diff number one version of the file: a neighbour exactly at its
/// number says a near pick's number was not stale (the place it names,
/// where the lines differ, may be meant); a neighbour off by some amount
/// says an exact pick's number is stale by as much (the exact hit is a
/// coincidence among several places) (`FORMATS.md` §3 "Line hints").
pub fn stale_hint_rivals(
    placed: &[(usize, Option<usize>, bool)],
) -> Vec<Option<(usize, usize, usize)>> {
    let pinned = |j: usize| pinned(placed, j);
    // The nearest pinned hunk before each hunk and after it, in one pass
    // each way (a search from every hunk was quadratic: 100,000 hunks of a
    // diff over identical lines, each picked by its hint, took seconds).
    let mut before = Vec::with_capacity(placed.len());
    let mut last = None;
    for j in 0..placed.len() {
        before.push(last);
        last = pinned(j).or(last);
    }
    let mut after = vec![None; placed.len()];
    let mut next = None;
    for j in (0..placed.len()).rev() {
        after[j] = next;
        next = pinned(j).or(next);
    }
    (0..placed.len())
        .map(|i| {
            let (start, Some(hint), true) = placed[i] else {
                return None;
            };
            let own = offset((i, start, hint));
            [before[i], after[i]]
                .into_iter()
                .flatten()
                .find(|&n| offset(n) != own)
        })
        .collect()
}

/// Hunk `j` as `(index, start, hint)` when it was placed without its hint's
/// help and has one.
fn pinned(placed: &[(usize, Option<usize>, bool)], j: usize) -> Option<(usize, usize, usize)> {
    match placed[j] {
        (start, Some(hint), false) => Some((j, start, hint)),
        _ => None,
    }
}

/// How far a placed hunk sits from its hint.
fn offset((_, start, hint): (usize, usize, usize)) -> i64 {
    start as i64 - hint as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule as `FORMATS.md` §3 words it, by sorting the candidates by
    /// their distance to the hint.
    fn reference(candidates: &[usize], h: usize) -> Option<usize> {
        if candidates.len() == 1 {
            return Some(candidates[0]);
        }
        let near_other = |c: usize| {
            h == 0
                && candidates
                    .iter()
                    .any(|&o| o != c && o.abs_diff(h) <= HINT_NEAR)
        };
        if let Some(&c) = candidates.iter().find(|&&c| c == h && !near_other(c)) {
            return Some(c);
        }
        let mut by_distance: Vec<(usize, usize)> =
            candidates.iter().map(|&c| (c.abs_diff(h), c)).collect();
        by_distance.sort_by_key(|(d, _)| *d);
        match by_distance.as_slice() {
            [(d0, best), rest @ ..]
                if *d0 <= HINT_NEAR && rest.first().is_none_or(|(d1, _)| *d1 > HINT_CLEAR) =>
            {
                Some(*best)
            }
            _ => None,
        }
    }

    /// [`stale_hint_rivals`] by its definition: the nearest pinned hunk
    /// searched from each hunk, both ways.
    fn stale_hint_rivals_plain(
        placed: &[(usize, Option<usize>, bool)],
    ) -> Vec<Option<(usize, usize, usize)>> {
        let pinned = |j: usize| pinned(placed, j);
        (0..placed.len())
            .map(|i| {
                let (start, Some(hint), true) = placed[i] else {
                    return None;
                };
                let own = offset((i, start, hint));
                let before = (0..i).rev().find_map(pinned);
                let after = (i + 1..placed.len()).find_map(pinned);
                [before, after]
                    .into_iter()
                    .flatten()
                    .find(|&n| offset(n) != own)
            })
            .collect()
    }

    #[test]
    fn stale_hint_rivals_as_searched_from_each_hunk() {
        let mut rng = crate::test_rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..5_000 {
            let len = rng.below(12);
            let placed: Vec<(usize, Option<usize>, bool)> = (0..len)
                .map(|_| {
                    let start = rng.below(40);
                    let hint = (rng.below(4) != 0).then(|| start + rng.below(3) - 1.min(start));
                    (start, hint, rng.below(2) == 0)
                })
                .collect();
            assert_eq!(
                stale_hint_rivals(&placed),
                stale_hint_rivals_plain(&placed),
                "{placed:?}"
            );
        }
    }

    #[test]
    fn a_hint_picks_as_the_sorted_rule_does() {
        let mut rng = crate::test_rng::Rng::new(0x2545_F491_4F6C_DD1D);
        let mut below = |n: usize| rng.below(n);
        for _ in 0..20_000 {
            let spread = [5, 30, 300, 3000][below(4)];
            let count = 1 + below(6);
            let mut candidates: Vec<usize> = (0..count).map(|_| below(spread)).collect();
            candidates.dedup();
            let h = below(spread);
            let got = choose(&candidates, false, Some(h), |&c| c, |&c| c..c).ok();
            let want = reference(&candidates, h).map(|c| vec![c]);
            assert_eq!(got, want, "{candidates:?} hint {h}");
        }
    }
}
