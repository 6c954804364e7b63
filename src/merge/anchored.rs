//! The merge's linear diff: anchored on the lines that occur exactly once
//! in both sequences (patience-style), with the gaps between anchors
//! diffed on their own.
//!
//! One pass over each sequence counts its lines in tables indexed by the
//! interned line id (no hashing, `O(n)`); the anchors are the longest
//! chain of lines unique on both sides and in the same order (a longest
//! increasing subsequence, by patience sorting in `O(k log k)`). Each gap
//! between two anchors is diffed again the same way (lines unique within
//! the gap become its anchors), and by Myers once it has no anchors or
//! the recursion is deep. The space is linear: the tables, the anchors of
//! one level, and Myers' own linear-space `V` arrays.
//!
//! Myers on a gap runs under the deadline. When it runs out of time, the
//! rest of that gap comes out as one replacement (correct, only coarser),
//! and the gap is reported as [`Diffed::coarse`], so the merge can make
//! the other side's insertions at its edges conflict instead of guessing
//! their order (see `hunks.rs`). The whole file never becomes one region
//! because of one hard gap.

use std::ops::Range;
use std::time::Instant;

use similar::algorithms::{myers, DiffHook, NoFinishHook};

/// Gaps nested deeper than this go to Myers directly.
const MAX_DEPTH: usize = 16;

/// What [`diff`] reports besides its ops.
#[derive(Debug, Default)]
pub struct Diffed {
    /// Old ranges (sorted, disjoint) of the gaps whose Myers ran out of
    /// time: their ops are a correct but not minimal replacement.
    pub coarse: Vec<Range<usize>>,
}

/// Diffs `old` against `new` into `d`. Both are interned lines with ids
/// below `distinct`.
pub fn diff<D: DiffHook>(
    d: &mut D,
    old: &[u32],
    new: &[u32],
    distinct: usize,
    deadline: Instant,
) -> Result<Diffed, D::Error> {
    let mut gaps = Gaps {
        d,
        old,
        new,
        deadline,
        counts: vec![Count::default(); distinct],
        coarse: Vec::new(),
    };
    gaps.diff(0..old.len(), 0..new.len(), 0)?;
    gaps.d.finish()?;
    Ok(Diffed {
        coarse: gaps.coarse,
    })
}

/// A line's occurrences in the gap being anchored: how many times, and
/// where the last one is, on each side.
#[derive(Clone, Copy, Default)]
struct Count {
    old: u32,
    old_at: u32,
    new: u32,
    new_at: u32,
}

struct Gaps<'a, D> {
    d: &'a mut D,
    old: &'a [u32],
    new: &'a [u32],
    deadline: Instant,
    /// Indexed by line id; all zero between two uses.
    counts: Vec<Count>,
    coarse: Vec<Range<usize>>,
}

impl<D: DiffHook> Gaps<'_, D> {
    fn diff(&mut self, old: Range<usize>, new: Range<usize>, depth: usize) -> Result<(), D::Error> {
        if old.is_empty() && new.is_empty() {
            return Ok(());
        }
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
            self.anchors(old_mid.clone(), new_mid.clone())
        };
        if anchors.is_empty() {
            self.myers(old_mid.clone(), new_mid.clone())?;
        } else {
            // Consecutive anchors (the unchanged runs) make one equal op.
            let (mut i, mut j) = (old_mid.start, new_mid.start);
            let mut run: Option<(usize, usize)> = None;
            for (a, b) in anchors {
                if (i, j) != (a, b) {
                    if let Some((start_a, start_b)) = run.take() {
                        self.d.equal(start_a, start_b, i - start_a)?;
                    }
                    self.diff(i..a, j..b, depth + 1)?;
                }
                run.get_or_insert((a, b));
                (i, j) = (a + 1, b + 1);
            }
            if let Some((start_a, start_b)) = run {
                self.d.equal(start_a, start_b, i - start_a)?;
            }
            self.diff(i..old_mid.end, j..new_mid.end, depth + 1)?;
        }
        if suffix > 0 {
            self.d.equal(old_mid.end, new_mid.end, suffix)?;
        }
        Ok(())
    }

    /// Myers on a gap with no common prefix or suffix, under the deadline;
    /// the gap is coarse when the deadline passed before it finished.
    fn myers(&mut self, old: Range<usize>, new: Range<usize>) -> Result<(), D::Error> {
        myers::diff_deadline_raw(
            &mut NoFinishHook::new(&mut *self.d),
            self.old,
            old.clone(),
            self.new,
            new.clone(),
            Some(self.deadline),
        )?;
        let both_sides = !old.is_empty() && !new.is_empty();
        if both_sides && Instant::now() >= self.deadline {
            self.coarse.push(old);
        }
        Ok(())
    }

    /// The longest chain of lines occurring once in `old[o]` and once in
    /// `new[n]`, in the same order on both: (old index, new index) pairs.
    fn anchors(&mut self, o: Range<usize>, n: Range<usize>) -> Vec<(usize, usize)> {
        let (old, new) = (self.old, self.new);
        for i in o.clone() {
            let c = &mut self.counts[old[i] as usize];
            (c.old, c.old_at) = (c.old.saturating_add(1), i as u32);
        }
        for j in n.clone() {
            let c = &mut self.counts[new[j] as usize];
            (c.new, c.new_at) = (c.new.saturating_add(1), j as u32);
        }
        let pairs: Vec<(usize, usize)> = o
            .clone()
            .filter_map(|i| match self.counts[old[i] as usize] {
                Count {
                    old: 1,
                    new: 1,
                    new_at,
                    ..
                } => Some((i, new_at as usize)),
                _ => None,
            })
            .collect();
        for &line in old[o].iter().chain(&new[n]) {
            self.counts[line as usize] = Count::default();
        }
        longest_increasing(&pairs)
    }
}

/// How many leading items two sequences share.
fn common_len<'a>(a: impl Iterator<Item = &'a u32>, b: impl Iterator<Item = &'a u32>) -> usize {
    a.zip(b).take_while(|(a, b)| a == b).count()
}

/// The longest subsequence of `pairs` (sorted by their first item) whose
/// second items increase, by patience sorting.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tops[k]`: the pair ending the best chain of length k + 1 so far.
    let mut tops: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (at, &(_, j)) in pairs.iter().enumerate() {
        let pile = if tops.last().is_none_or(|&top| pairs[top].1 < j) {
            tops.len() // in order: the common case, no search
        } else {
            tops.partition_point(|&top| pairs[top].1 < j)
        };
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
    use similar::algorithms::Capture;
    use similar::DiffOp;
    use std::time::Duration;

    fn ops(old: &[u32], new: &[u32]) -> Vec<DiffOp> {
        let mut capture = Capture::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        let distinct = old.iter().chain(new).max().map_or(0, |&m| m as usize + 1);
        let diffed = diff(&mut capture, old, new, distinct, deadline).unwrap();
        assert!(diffed.coarse.is_empty());
        capture.into_ops()
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
        let mut capture = Capture::new();
        let mut gaps = Gaps {
            d: &mut capture,
            old: &old,
            new: &new,
            deadline: Instant::now(),
            counts: vec![Count::default(); 9],
            coarse: Vec::new(),
        };
        assert_eq!(gaps.anchors(0..7, 0..7), [(0, 1), (2, 2), (6, 4)]);
        // The tables are left clean for the next gap.
        assert!(gaps.counts.iter().all(|c| c.old == 0 && c.new == 0));
        assert_eq!(gaps.anchors(1..4, 0..3), [(2, 2)]);
    }

    #[test]
    fn every_twentieth_line_changed_keeps_all_the_others() {
        let old: Vec<u32> = (0..1000).collect();
        let mut new = old.clone();
        for i in (3..1000).step_by(20) {
            new[i] = 5000 + i as u32;
        }
        new.insert(500, 9999);
        new.remove(10);
        let equal: usize = ops(&old, &new)
            .iter()
            .filter(|op| matches!(op, DiffOp::Equal { .. }))
            .map(|op| op.old_range().len())
            .sum();
        assert_eq!(equal, 1000 - 50 - 1);
    }
}
