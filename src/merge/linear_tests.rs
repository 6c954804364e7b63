//! The merge's diffs against a plain reference: a longest common
//! subsequence by dynamic programming (`O(n · m)`, small inputs only), and
//! the merge run on that reference diff.

use std::ops::Range;
use std::time::Duration;

use proptest::prelude::*;

use super::hunks::{diff_hunks, Hunk, Limits, Who};
use super::{merge, merge_with, Interner, MergeOutcome, Side};

/// Whole-text Myers when small (the default).
const DEFAULT: Limits = Limits::DEFAULT;
/// The anchored diff alone, Myers only in its gaps.
const ANCHORED: Limits = Limits {
    myers_max_changed: 0,
    gap_time: Duration::from_secs(60),
    compact: true,
};
/// The same, its changes not slid together (as a coarse diff's are not).
const ANCHORED_AS_DIFFED: Limits = Limits {
    compact: false,
    ..ANCHORED
};
/// The anchored diff with no time for its gaps: every gap changed on both
/// sides is one coarse hunk (and, like the diff it is compared with, not
/// compacted when no gap is coarse).
const COARSE: Limits = Limits {
    myers_max_changed: 0,
    gap_time: Duration::ZERO,
    compact: false,
};

/// The reference diff: an LCS by dynamic programming, its unmatched runs
/// as hunks (base range, side range).
fn reference_hunks(old: &[u32], new: &[u32], who: Who) -> Vec<Hunk> {
    let (n, m) = (old.len(), new.len());
    // lcs[i][j]: the LCS length of old[i..] and new[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    loop {
        let matched = i < n && j < m && old[i] == new[j] && lcs[i][j] == lcs[i + 1][j + 1] + 1;
        if matched || (i == n && j == m) {
            if let Some((a, b)) = open.take() {
                hunks.push(Hunk {
                    who,
                    base: a..i,
                    side: b..j,
                    coarse: false,
                });
            }
            if i == n && j == m {
                return hunks;
            }
            (i, j) = (i + 1, j + 1);
            continue;
        }
        open.get_or_insert((i, j));
        if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// The LCS length, for the minimal number of changed lines.
fn lcs_len(old: &[u32], new: &[u32]) -> usize {
    let changed: usize = reference_hunks(old, new, Who::Ours)
        .iter()
        .map(|h| h.base.len())
        .sum();
    old.len() - changed
}

/// Applies hunks to `old`, checking that they are sorted, disjoint, and
/// that the lines between them are equal on both sides.
fn apply(old: &[u32], new: &[u32], hunks: &[Hunk]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    for h in hunks {
        assert!(h.base.start >= i && h.side.start >= j, "{hunks:?}");
        assert_eq!(h.base.start - i, h.side.start - j, "{hunks:?}");
        assert_eq!(old[i..h.base.start], new[j..h.side.start], "{hunks:?}");
        out.extend_from_slice(&old[i..h.base.start]);
        out.extend_from_slice(&new[h.side.clone()]);
        (i, j) = (h.base.end, h.side.end);
    }
    assert_eq!(old[i..], new[j..], "{hunks:?}");
    out.extend_from_slice(&old[i..]);
    out
}

fn changed(hunks: &[Hunk]) -> usize {
    hunks.iter().map(|h| h.base.len() + h.side.len()).sum()
}

fn hunks(old: &[u32], new: &[u32], limits: &Limits) -> Vec<Hunk> {
    // No alignment known: the bound of deleting and inserting every line.
    diff_hunks(old, new, old.len() + new.len(), 16, Who::Theirs, limits)
}

/// A merge on the reference diff.
fn reference_merge(base: &str, ours: &str, theirs: &str) -> MergeOutcome {
    merge_with(base, ours, theirs, &|b, s, _, who| {
        reference_hunks(b, &s.ids, who)
    })
}

/// A merge with the given limits.
fn merge_limited(base: &str, ours: &str, theirs: &str, limits: Limits) -> MergeOutcome {
    merge_with(base, ours, theirs, &move |b, s, distinct, who| {
        diff_hunks(b, &s.ids, s.changed_bound, distinct, who, &limits)
    })
}

/// What one side does to a base line: keep it, delete it, or replace it
/// by a new line; and the new lines it inserts before it.
fn side_strategy(n: usize) -> impl Strategy<Value = Vec<(u8, Vec<u8>)>> {
    prop::collection::vec(
        (
            prop_oneof![6 => Just(0u8), 1 => Just(1u8), 2 => 2u8..5],
            prop::collection::vec(0u8..3, 0..2),
        ),
        n + 1,
    )
}

/// Base: lines `b0`.. all distinct. A side: kept base lines, and new
/// lines `n0`..`n2` (never in base, possibly repeated, shared by both
/// sides so that identical changes happen). Every common line is unique,
/// so every diff finds the same hunks.
fn render(n: usize, side: &[(u8, Vec<u8>)]) -> String {
    let mut out = String::new();
    for (i, (op, inserted)) in side.iter().enumerate() {
        for k in inserted {
            out.push_str(&format!("n{k}\n"));
        }
        if i == n {
            break;
        }
        match op {
            0 => out.push_str(&format!("b{i}\n")),
            1 => {}
            k => out.push_str(&format!("n{}\n", k - 2)),
        }
    }
    out
}

fn unique_lines_case() -> impl Strategy<Value = (String, String, String)> {
    (0usize..14).prop_flat_map(|n| {
        (side_strategy(n), side_strategy(n)).prop_map(move |(ours, theirs)| {
            let base: String = (0..n).map(|i| format!("b{i}\n")).collect();
            (base, render(n, &ours), render(n, &theirs))
        })
    })
}

/// Texts of lines from a small alphabet: repeated lines, few anchors.
fn small_alphabet_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a\n", "b\n", "c\n", "d\n"]),
        0..16,
    )
    .prop_map(|lines| lines.concat())
}

fn text_of(outcome: &MergeOutcome) -> Option<&str> {
    match outcome {
        MergeOutcome::Merged(m) => Some(&m.text),
        MergeOutcome::Conflicts(_) => None,
    }
}

#[test]
fn the_reference_diff_is_an_lcs() {
    let (old, new) = ([1, 2, 3, 4, 5], [1, 3, 9, 4, 6]);
    let h = reference_hunks(&old, &new, Who::Ours);
    assert_eq!(apply(&old, &new, &h), new);
    assert_eq!(lcs_len(&old, &new), 3);
    let ranges: Vec<(Range<usize>, Range<usize>)> =
        h.iter().map(|h| (h.base.clone(), h.side.clone())).collect();
    assert_eq!(ranges, [(1..2, 1..1), (3..3, 2..3), (4..5, 4..5)]);
}

#[test]
fn a_gap_past_its_deadline_is_one_coarse_hunk_between_anchors() {
    // 7 is a unique anchor; the gaps around it have repeated lines only,
    // so each goes to Myers, out of time at once.
    let old = [1, 2, 1, 2, 7, 3, 4, 3, 4, 8];
    let new = [2, 1, 2, 1, 7, 4, 3, 4, 3, 8];
    let h = hunks(&old, &new, &COARSE);
    assert_eq!(apply(&old, &new, &h), new);
    let ranges: Vec<(Range<usize>, bool)> = h.iter().map(|h| (h.base.clone(), h.coarse)).collect();
    assert_eq!(ranges, [(0..4, true), (5..9, true)]);
    // With time, the same gaps are minimal.
    assert_eq!(changed(&hunks(&old, &new, &ANCHORED)), 4);
}

#[test]
fn an_insertion_at_a_coarse_hunks_edge_conflicts() {
    // The LLM's gaps (a → x, c → y, around the anchor b) run out of time:
    // coarse. The user inserts before the first: the order of "mine" and
    // the LLM's lines there is clear when the LLM replaced a line, not
    // when it inserted one, and a coarse hunk does not say which.
    let (base, ours, theirs) = (
        "k\na\nb\nc\nk2\n",
        "k\nmine\na\nb\nc\nk2\n",
        "k\nx\nb\ny\nk2\n",
    );
    assert!(text_of(&merge_limited(base, ours, theirs, COARSE)).is_none());
    assert_eq!(
        text_of(&merge(base, ours, theirs)),
        Some("k\nmine\nx\nb\ny\nk2\n")
    );
}

proptest! {
    /// Every diff's hunks turn base into the side exactly; whole-text
    /// Myers is minimal; the anchored diff never finds more common lines
    /// than an LCS has.
    #[test]
    fn hunks_turn_base_into_the_side(
        old in prop::collection::vec(0u32..6, 0..40),
        new in prop::collection::vec(0u32..6, 0..40),
    ) {
        let minimal = old.len() + new.len() - 2 * lcs_len(&old, &new);
        for limits in [DEFAULT, ANCHORED, ANCHORED_AS_DIFFED, COARSE] {
            let h = hunks(&old, &new, &limits);
            prop_assert_eq!(apply(&old, &new, &h), new.clone());
            prop_assert!(changed(&h) >= minimal);
        }
        prop_assert_eq!(changed(&hunks(&old, &new, &DEFAULT)), minimal);
        prop_assert_eq!(changed(&reference_hunks(&old, &new, Who::Ours)), minimal);
    }

    /// The alignment found while interning is a real one: it changes at
    /// least as many lines as a minimal diff.
    #[test]
    fn the_interning_bound_is_at_least_the_minimal_diff(
        base in small_alphabet_text(), side in small_alphabet_text(),
    ) {
        let mut interner = Interner::with_capacity(0);
        let base = Side::base(&base, &mut interner);
        let side = Side::descendant(&side, &base, &mut interner);
        let minimal = base.ids.len() + side.ids.len() - 2 * lcs_len(&base.ids, &side.ids);
        prop_assert!(side.changed_bound >= minimal);
        prop_assert_eq!(side.changed_bound == 0, base.ids == side.ids);
    }

    /// Distinct lines: the anchored diff is an LCS too.
    #[test]
    fn the_anchored_diff_of_distinct_lines_is_minimal(
        old in prop::collection::btree_set(0u32..8, 0..8),
        new in prop::collection::vec(0u32..8, 0..10),
    ) {
        let old: Vec<u32> = old.into_iter().collect();
        // Distinct lines in any order, some common ones out of order.
        let mut seen = std::collections::HashSet::new();
        let new: Vec<u32> = new.into_iter().filter(|&x| seen.insert(x)).collect();
        let minimal = old.len() + new.len() - 2 * lcs_len(&old, &new);
        prop_assert_eq!(changed(&hunks(&old, &new, &ANCHORED)), minimal);
    }

    /// Where every common line is unique, all diffs agree, so the merge
    /// must give exactly what the merge on the reference diff gives (the
    /// same text, or the same conflicts); with coarse gaps it may only
    /// conflict more, never merge to another text.
    #[test]
    fn merges_equal_the_reference_merge((base, ours, theirs) in unique_lines_case()) {
        let reference = reference_merge(&base, &ours, &theirs);
        prop_assert_eq!(&merge(&base, &ours, &theirs), &reference);
        prop_assert_eq!(&merge_limited(&base, &ours, &theirs, ANCHORED), &reference);
        if let Some(text) = text_of(&merge_limited(&base, &ours, &theirs, COARSE)) {
            prop_assert_eq!(Some(text), text_of(&reference));
        }
    }

    /// Any texts: coarse gaps never turn a merge into another text than
    /// the same diff finished gives; they only turn some merges into
    /// conflicts. (Compared with the finished diff not compacted: sliding
    /// an insertion along equal lines, say a new `d` before or after an
    /// old `d`, gives another valid diff, and another valid merge when the
    /// other side changed that `d`.)
    #[test]
    fn coarse_gaps_only_add_conflicts(
        base in small_alphabet_text(), ours in small_alphabet_text(), theirs in small_alphabet_text(),
    ) {
        let fine = merge_limited(&base, &ours, &theirs, ANCHORED_AS_DIFFED);
        if let Some(text) = text_of(&merge_limited(&base, &ours, &theirs, COARSE)) {
            prop_assert_eq!(Some(text), text_of(&fine));
        }
    }
}
