//! One side's hunks: the changes `base` → `side`, from the diff that
//! suits the size of the change.
//!
//! Myers' cost grows with the number of changed lines `d` (`O((n + m) ·
//! d)` at worst), so the diff is chosen by a bound on `d`: the alignment
//! found while interning the lines, else the anchored diff
//! ([`super::anchored`], linear in practice), whose changed lines bound
//! `d` too. When the bound is small, Myers diffs the whole text for the
//! smallest regions (the usual case: a few edits in a file); when it is
//! large (thousands of changed lines, where Myers would take seconds),
//! the anchored diff stands, with Myers only inside its gaps. No deadline decides alone which diff is
//! used on an ordinary input, so the same texts merge the same way on a
//! loaded machine; the deadlines only bound adversarial inputs.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::algorithms::{myers, Capture, Compact, DiffHook, Replace};
use similar::DiffOp;

use super::anchored;

/// Time budget of Myers on the whole text; past it, the anchored diff is
/// kept (only adversarial inputs with few changes get there).
const MYERS_TIME_LIMIT: Duration = Duration::from_millis(200);

/// When each diff is used.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Above this many changed lines (deleted + inserted, by the anchored
    /// diff), Myers is not run on the whole text.
    pub myers_max_changed: usize,
    /// Time budget of the anchored diff's Myers runs on its gaps; past
    /// it, the rest of a gap becomes one coarse hunk.
    pub gap_time: Duration,
    /// Whether the anchored diff's changes are slid together ("compacted")
    /// when it has no coarse gap. Off only in tests, to compare a coarse
    /// diff with the same diff finished: sliding an insertion along equal
    /// lines gives another diff, as valid, that may merge another way.
    pub compact: bool,
}

impl Limits {
    /// Myers on the whole text up to 4,096 changed lines (a few ms on a
    /// 100k-line file); 500 ms for the gaps.
    pub const DEFAULT: Limits = Limits {
        myers_max_changed: 4096,
        gap_time: Duration::from_millis(500),
        compact: true,
    };
}

/// Which descendant a hunk belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Ours,
    Theirs,
}

/// One side's change: base lines `base` became that side's lines `side`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub who: Who,
    pub base: Range<usize>,
    pub side: Range<usize>,
    /// Part of a gap whose diff ran out of time: correct, but it may hold
    /// unchanged lines and hide where inside it the side inserted. The
    /// other side's insertions at its edges conflict (their order against
    /// this side's lines is unknown), see `overlaps` in `mod.rs`.
    pub coarse: bool,
}

/// The changes `base` → `side` (interned lines, ids below `distinct`),
/// adjacent diff ops joined, so that two hunks of one side are always
/// separated by at least one equal line. `changed_bound` is the number of
/// lines some alignment of the two deletes and inserts.
pub fn diff_hunks(
    base: &[u32],
    side: &[u32],
    changed_bound: usize,
    distinct: usize,
    who: Who,
    limits: &Limits,
) -> Vec<Hunk> {
    if changed_bound == 0 {
        return Vec::new();
    }
    if changed_bound <= limits.myers_max_changed {
        if let Some(ops) = whole_myers(base, side) {
            return join(&ops, who);
        }
    }
    let mut raw = Capture::new();
    let deadline = Instant::now() + limits.gap_time;
    let Ok(diffed) = anchored::diff(&mut raw, base, side, distinct, deadline);
    let raw = raw.into_ops();
    let changed: usize = raw
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| op.old_range().len() + op.new_range().len())
        .sum();
    let untried = changed_bound > limits.myers_max_changed;
    let whole = (changed > 0 && changed <= limits.myers_max_changed && untried)
        .then(|| whole_myers(base, side))
        .flatten();
    let (ops, coarse) = match whole {
        Some(ops) => (ops, Vec::new()),
        None if diffed.coarse.is_empty() && limits.compact => {
            (compacted(base, side, &raw), Vec::new())
        }
        // Compaction may slide a coarse hunk off its gap: keep the ops as
        // diffed, so that the hunks of a coarse gap are known.
        None => {
            let ops = replayed(Replace::new(Capture::new()), &raw)
                .into_inner()
                .into_ops();
            (ops, diffed.coarse)
        }
    };
    let mut hunks = join(&ops, who);
    mark_coarse(&mut hunks, &coarse);
    hunks
}

/// Myers on the whole text (the smallest regions), or `None` when it does
/// not finish within its time limit.
fn whole_myers(base: &[u32], side: &[u32]) -> Option<Vec<DiffOp>> {
    let deadline = Instant::now() + MYERS_TIME_LIMIT;
    let mut hook = Compact::new(Replace::new(Capture::new()), base, side);
    let (old, new) = (0..base.len(), 0..side.len());
    let Ok(()) = myers::diff_deadline_raw(&mut hook, base, old, side, new, Some(deadline));
    (Instant::now() < deadline).then(|| hook.into_inner().into_inner().into_ops())
}

/// `ops` with adjacent changes slid together (as `similar` does after
/// Myers), deletions and insertions paired into replacements.
fn compacted(base: &[u32], side: &[u32], ops: &[DiffOp]) -> Vec<DiffOp> {
    let hook = Compact::new(Replace::new(Capture::new()), base, side);
    replayed(hook, ops).into_inner().into_inner().into_ops()
}

/// Feeds `ops` to `hook` and finishes it.
fn replayed<D: DiffHook>(mut hook: D, ops: &[DiffOp]) -> D {
    for op in ops {
        if op.apply_to_hook(&mut hook).is_err() {
            unreachable!("the capturing hooks never fail");
        }
    }
    if hook.finish().is_err() {
        unreachable!("the capturing hooks never fail");
    }
    hook
}

/// The changes of `ops` as hunks, adjacent ones joined.
pub fn join(ops: &[DiffOp], who: Who) -> Vec<Hunk> {
    let mut hunks: Vec<Hunk> = Vec::new();
    for op in ops.iter().filter(|op| !matches!(op, DiffOp::Equal { .. })) {
        let (base_range, side_range) = (op.old_range(), op.new_range());
        match hunks.last_mut() {
            Some(last)
                if last.base.end == base_range.start && last.side.end == side_range.start =>
            {
                last.base.end = base_range.end;
                last.side.end = side_range.end;
            }
            _ => hunks.push(Hunk {
                who,
                base: base_range,
                side: side_range,
                coarse: false,
            }),
        }
    }
    hunks
}

/// Marks the hunks that share a line with a coarse gap (both sorted).
fn mark_coarse(hunks: &mut [Hunk], coarse: &[Range<usize>]) {
    let mut gaps = coarse.iter().peekable();
    for hunk in hunks {
        while gaps.next_if(|gap| gap.end <= hunk.base.start).is_some() {}
        hunk.coarse = gaps
            .peek()
            .is_some_and(|gap| gap.start < hunk.base.end.max(hunk.base.start + 1));
    }
}
