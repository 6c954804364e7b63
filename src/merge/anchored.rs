//! The merge's fallback diff, for when Myers runs out of time: anchored on
//! the lines that occur exactly once in both sequences, patience-style,
//! with the gaps between anchors diffed on their own.
//!
//! The anchors are the longest chain of such lines in the same order on
//! both sides (a longest increasing subsequence, found by patience sorting
//! in `O(k log k)`). Each gap between two anchors is diffed again the same
//! way (lines unique within the gap become its anchors), and by Myers,
//! under the deadline, once it has no anchors or the recursion is deep. A
//! Myers that still runs out of time gives up on one gap only: the diff
//! stays correct, and a possible conflict stays local, instead of covering
//! the whole file.

use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

use similar::algorithms::{myers, DiffHook, NoFinishHook};

/// Gaps nested deeper than this go to Myers directly.
const MAX_DEPTH: usize = 16;

/// Diffs `old` against `new` into `d` (interned lines).
pub fn diff<D: DiffHook>(
    d: &mut D,
    old: &[u32],
    new: &[u32],
    deadline: Instant,
) -> Result<(), D::Error> {
    let mut gaps = Gaps {
        d,
        old,
        new,
        deadline,
    };
    gaps.diff(0..old.len(), 0..new.len(), 0)?;
    gaps.d.finish()
}

struct Gaps<'a, D> {
    d: &'a mut D,
    old: &'a [u32],
    new: &'a [u32],
    deadline: Instant,
}

impl<D: DiffHook> Gaps<'_, D> {
    fn diff(&mut self, old: Range<usize>, new: Range<usize>, depth: usize) -> Result<(), D::Error> {
        let (old_lines, new_lines) = (&self.old[old.clone()], &self.new[new.clone()]);
        let prefix = common_len(old_lines.iter(), new_lines.iter());
        let rest = old_lines.len().min(new_lines.len()) - prefix;
        let suffix = common_len(old_lines.iter().rev(), new_lines.iter().rev()).min(rest);
        if prefix > 0 {
            self.d.equal(old.start, new.start, prefix)?;
        }
        let old_mid = old.start + prefix..old.end - suffix;
        let new_mid = new.start + prefix..new.end - suffix;
        let anchors = if old_mid.is_empty() || new_mid.is_empty() || depth >= MAX_DEPTH {
            Vec::new()
        } else {
            anchors(self.old, old_mid.clone(), self.new, new_mid.clone())
        };
        if anchors.is_empty() {
            myers::diff_deadline_raw(
                &mut NoFinishHook::new(&mut *self.d),
                self.old,
                old_mid.clone(),
                self.new,
                new_mid.clone(),
                Some(self.deadline),
            )?;
        } else {
            let (mut i, mut j) = (old_mid.start, new_mid.start);
            for (a, b) in anchors {
                self.diff(i..a, j..b, depth + 1)?;
                self.d.equal(a, b, 1)?;
                (i, j) = (a + 1, b + 1);
            }
            self.diff(i..old_mid.end, j..new_mid.end, depth + 1)?;
        }
        if suffix > 0 {
            self.d.equal(old_mid.end, new_mid.end, suffix)?;
        }
        Ok(())
    }
}

/// How many leading items two sequences share.
fn common_len<'a>(a: impl Iterator<Item = &'a u32>, b: impl Iterator<Item = &'a u32>) -> usize {
    a.zip(b).take_while(|(a, b)| a == b).count()
}

/// The longest chain of lines occurring once in `old[o]` and once in
/// `new[n]`, in the same order on both: (old index, new index) pairs.
fn anchors(old: &[u32], o: Range<usize>, new: &[u32], n: Range<usize>) -> Vec<(usize, usize)> {
    // Per line: (count in old, its old index, count in new, its new index).
    let mut seen: HashMap<u32, (u32, usize, u32, usize)> = HashMap::with_capacity(o.len());
    for i in o.clone() {
        let entry = seen.entry(old[i]).or_default();
        (entry.0, entry.1) = (entry.0 + 1, i);
    }
    for j in n {
        if let Some(entry) = seen.get_mut(&new[j]) {
            (entry.2, entry.3) = (entry.2 + 1, j);
        }
    }
    let pairs: Vec<(usize, usize)> = o
        .filter_map(|i| match seen[&old[i]] {
            (1, _, 1, j) => Some((i, j)),
            _ => None,
        })
        .collect();
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by their first item) whose
/// second items increase, by patience sorting.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tops[k]`: the pair ending the best chain of length k + 1 so far.
    let mut tops: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (at, &(_, j)) in pairs.iter().enumerate() {
        let pile = tops.partition_point(|&top| pairs[top].1 < j);
        before.push(pile.checked_sub(1).map(|p| tops[p]));
        match tops.get_mut(pile) {
            Some(top) => *top = at,
            None => tops.push(at),
        }
    }
    let mut chain = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(i) = at {
        chain.push(pairs[i]);
        at = before[i];
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use similar::algorithms::Capture;
    use similar::DiffOp;
    use std::time::Duration;

    fn ops(old: &[u32], new: &[u32]) -> Vec<DiffOp> {
        let mut capture = Capture::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        diff(&mut capture, old, new, deadline).unwrap();
        capture.into_ops()
    }

    /// Replays ops: every old line is kept or deleted, every new line kept
    /// or inserted, in order.
    fn replay(old: &[u32], new: &[u32], ops: &[DiffOp]) -> Vec<u32> {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        for op in ops {
            let (o, n) = (op.old_range(), op.new_range());
            assert_eq!((o.start, n.start), (i, j), "{ops:?}");
            if let DiffOp::Equal { .. } = op {
                assert_eq!(old[o.clone()], new[n.clone()]);
            }
            out.extend_from_slice(&new[n.clone()]);
            (i, j) = (o.end, n.end);
        }
        assert_eq!((i, j), (old.len(), new.len()));
        out
    }

    #[test]
    fn chains_the_longest_increasing_anchors() {
        let pairs = [(0, 5), (1, 1), (2, 2), (3, 9), (4, 3), (5, 4)];
        assert_eq!(longest_increasing(&pairs), [(1, 1), (2, 2), (4, 3), (5, 4)]);
        assert_eq!(longest_increasing(&[]), []);
    }

    #[test]
    fn anchors_are_lines_unique_on_both_sides() {
        // 7 twice in old, 8 twice in new: not anchors.
        let old = [1, 7, 2, 7, 3, 8, 4];
        let new = [8, 1, 2, 8, 4, 3, 7];
        assert_eq!(anchors(&old, 0..7, &new, 0..7), [(0, 1), (2, 2), (6, 4)]);
    }

    #[test]
    fn diffs_are_complete_and_keep_the_anchors() {
        let old: Vec<u32> = (0..1000).collect();
        let mut new = old.clone();
        for i in (3..1000).step_by(20) {
            new[i] = 5000 + i as u32;
        }
        new.insert(500, 9999);
        new.remove(10);
        let diff = ops(&old, &new);
        assert_eq!(replay(&old, &new, &diff), new);
        let equal: usize = diff
            .iter()
            .filter(|op| matches!(op, DiffOp::Equal { .. }))
            .map(|op| op.old_range().len())
            .sum();
        assert_eq!(equal, 1000 - 50 - 1);
        // Repeated lines only: no anchors, Myers alone.
        let (old, new) = ([1, 1, 2, 1], [1, 2, 1, 1]);
        assert_eq!(replay(&old, &new, &ops(&old, &new)), new);
    }

    proptest! {
        /// Few distinct values: repeated lines, few anchors, deep gaps.
        #[test]
        fn any_diff_replays_to_the_new_sequence(
            old in proptest::collection::vec(0u32..12, 0..80),
            new in proptest::collection::vec(0u32..12, 0..80),
        ) {
            prop_assert_eq!(replay(&old, &new, &ops(&old, &new)), new);
        }
    }
}
