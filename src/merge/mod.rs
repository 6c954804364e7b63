//! Three-way line merge of the user's buffer and the LLM's result (`~M`).
//!
//! `base` is the snapshot the LLM saw, `ours` the user's current buffer
//! (unsaved changes included), `theirs` the LLM's result computed from
//! `base`. Lines are interned to integers (xxh3-hashed), both descendants
//! are diffed against `base` line by line (Myers on the whole text when
//! few lines changed, else a linear diff anchored on unique lines with
//! Myers in its gaps, see [`hunks`] and [`anchored`]), and their hunks
//! are walked in base order.
//!
//! The rules (see `docs/conflicts.md`):
//! - Hunks of the two sides that share no base line merge. Touching is not
//!   overlapping: a hunk ending at base line `k` and one starting at line
//!   `k + 1` merge, and an insertion at the boundary of the other side's
//!   replaced lines merges too (before or after them, as in base).
//! - A coarse hunk (a gap whose diff ran out of time) also conflicts with
//!   every hunk of the other side that touches it: it may hide an
//!   insertion at its edge. Coarsening only turns merges into conflicts.
//! - Hunks that share base lines conflict, unless both sides turned the
//!   shared region into the same lines. Two insertions at the same base
//!   point conflict unless they insert the same lines.
//! - Lines compare without their terminator, so `\r\n` and `\n` are the same
//!   line; whether a line is terminated at all still counts (a file that
//!   gains or loses its final newline changed its last line). Lines taken
//!   from `theirs` are written with `ours`' line ending when `theirs` uses a
//!   different one, so the buffer keeps its line endings.
//!
//! On success the result is both the merged text and the minimal
//! [`TextEdits`] of `ours` that give it: one edit per LLM hunk, never
//! touching the user's own changes.

use crate::text::hashed::PrecomputedHasher;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::ops::Range;

use xxhash_rust::xxh3::xxh3_64;

use crate::error::LineRange;
use crate::plan::{TextEdit, TextEdits};
use crate::text::line_ending::LineEnding;
use crate::text::lines::LineIndex;

mod anchored;
mod hunks;
#[cfg(test)]
mod linear_tests;

use hunks::{diff_hunks, Hunk, Limits, Who};

/// What a three-way merge gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeOutcome {
    /// Every change merged.
    Merged(Merged),
    /// At least one region was changed differently by both sides; nothing
    /// is merged.
    Conflicts(Vec<MergeConflict>),
}

/// A successful merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// The merged text.
    pub text: String,
    /// Sorted, disjoint edits of `ours` giving [`Merged::text`]: only the
    /// LLM's regions of the buffer (empty when the LLM changed nothing the
    /// user had not already changed the same way).
    pub edits: TextEdits,
}

/// One region changed differently by the user and the LLM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeConflict {
    /// The region in the user's buffer.
    pub ours: ConflictSide,
    /// The region in the snapshot the LLM saw.
    pub base: ConflictSide,
    /// The region in the LLM's result.
    pub theirs: ConflictSide,
    /// The buffer's line ending, used by the resolution edits.
    pub line_ending: LineEnding,
}

/// A conflicting region in one of the three texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictSide {
    /// 0-based, half-open line indices; empty when this side has no lines
    /// there (it deleted them, or the other side inserts at this point).
    pub span: Range<usize>,
    /// The 1-based lines for reports. An empty span names the line after
    /// the gap (the last line when the gap is at the end, line 1 in an
    /// empty text).
    pub lines: LineRange,
    /// The region's byte range in this side's text.
    pub bytes: Range<usize>,
    /// The region's text, exactly as in this side.
    pub text: String,
}

impl MergeConflict {
    /// The edit of `ours` that keeps the LLM's version of this region
    /// ("apply LLM version"), in the buffer's line ending.
    pub fn take_theirs(&self) -> TextEdit {
        TextEdit::new(
            self.ours.bytes.clone(),
            with_line_ending(&self.theirs.text, self.line_ending),
        )
    }

    /// The edit of `ours` that puts both versions between conflict markers
    /// (`<<<<<<< buffer`, `=======`, `>>>>>>> llm`) for the user to resolve.
    pub fn take_both_with_markers(&self) -> TextEdit {
        let eol = self.line_ending.as_str();
        let mut text = format!("<<<<<<< buffer{eol}");
        push_terminated(&mut text, &self.ours.text, eol);
        text.push_str("=======");
        text.push_str(eol);
        push_terminated(
            &mut text,
            &with_line_ending(&self.theirs.text, self.line_ending),
            eol,
        );
        text.push_str(">>>>>>> llm");
        text.push_str(eol);
        TextEdit::new(self.ours.bytes.clone(), text)
    }
}

/// Appends `lines`, adding `eol` when they do not end with a newline.
fn push_terminated(out: &mut String, lines: &str, eol: &str) {
    out.push_str(lines);
    if !lines.is_empty() && !lines.ends_with('\n') {
        out.push_str(eol);
    }
}

/// Merges the LLM's changes (`base` → `theirs`) into the user's buffer
/// (`base` → `ours`). See the module documentation for the rules.
pub fn merge(base: &str, ours: &str, theirs: &str) -> MergeOutcome {
    merge_with(base, ours, theirs, &|base, side, distinct, who| {
        diff_hunks(
            base,
            &side.ids,
            side.changed_bound,
            distinct,
            who,
            &Limits::DEFAULT,
        )
    })
}

/// A line diff for the merge: `base` → `side` as hunks of `who` (the
/// interned lines of both, and the count of distinct ids).
type DiffFn<'d> = &'d dyn Fn(&[u32], &Side, usize, Who) -> Vec<Hunk>;

/// [`merge`] with the line diff `diff` (tests compare diffs through it).
fn merge_with(base: &str, ours: &str, theirs: &str, diff: DiffFn) -> MergeOutcome {
    let mut interner = Interner::with_capacity(base.len() / 32 + 16);
    let base = Side::base(base, &mut interner);
    let ours = Side::descendant(ours, &base, &mut interner);
    let theirs = Side::descendant(theirs, &base, &mut interner);
    let distinct = interner.ids.len();
    drop(interner);
    let changes = sorted_changes(
        diff(&base.ids, &ours, distinct, Who::Ours),
        diff(&base.ids, &theirs, distinct, Who::Theirs),
    );
    let endings = OnceCell::new();
    let endings = || *endings.get_or_init(|| Endings::of(ours.text, theirs.text));

    let mut edits = Vec::new();
    let mut conflicts = Vec::new();
    let mut ours_delta: isize = 0;
    for group in clusters(&changes) {
        let group = &changes[group];
        let base_span = cluster_span(group);
        let ours_span = own_span(group, Who::Ours, &base_span).unwrap_or_else(|| {
            let shift = |line: usize| line.saturating_add_signed(ours_delta);
            shift(base_span.start)..shift(base_span.end)
        });
        ours_delta += ours_span.len() as isize - base_span.len() as isize;
        let Some(theirs_span) = own_span(group, Who::Theirs, &base_span) else {
            continue; // only the user changed these lines: keep them
        };
        if group.iter().all(|c| c.who == Who::Theirs) {
            let text = theirs.slice(&theirs_span);
            let text = match endings().convert_theirs_to {
                Some(ending) => with_line_ending(text, ending),
                None => text.to_string(),
            };
            push_joined(&mut edits, TextEdit::new(ours.bytes(&ours_span), text));
        } else if ours.ids[ours_span.clone()] != theirs.ids[theirs_span.clone()] {
            conflicts.push(MergeConflict {
                ours: ours.region(ours_span),
                base: base.region(base_span),
                theirs: theirs.region(theirs_span),
                line_ending: endings().ours,
            });
        }
    }
    if !conflicts.is_empty() {
        return MergeOutcome::Conflicts(conflicts);
    }
    let edits = TextEdits::new(edits).expect("theirs' hunks map to disjoint buffer regions");
    MergeOutcome::Merged(Merged {
        text: edits.apply(ours.text),
        edits,
    })
}

/// The line endings of a merge (computed only when needed: two scans).
#[derive(Clone, Copy)]
struct Endings {
    /// The buffer's line ending.
    ours: LineEnding,
    /// The ending to write the LLM's lines in, when it uses another one
    /// than the buffer (and the buffer has line breaks to tell).
    convert_theirs_to: Option<LineEnding>,
}

impl Endings {
    fn of(ours: &str, theirs: &str) -> Endings {
        let ours_ending = LineEnding::detect(ours);
        let differs = LineEnding::detect(theirs) != ours_ending && ours.contains('\n');
        Endings {
            ours: ours_ending,
            convert_theirs_to: differs.then_some(ours_ending),
        }
    }
}

/// Appends `edit`, joined with the previous one when they touch: two LLM
/// insertions around lines the user deleted land on the same offset, and
/// their order is known.
fn push_joined(edits: &mut Vec<TextEdit>, edit: TextEdit) {
    match edits.last_mut() {
        Some(last) if last.range.end == edit.range.start => {
            last.range.end = edit.range.end;
            last.text.push_str(&edit.text);
        }
        _ => edits.push(edit),
    }
}

/// Rewrites every line terminator of `text` as `ending`.
fn with_line_ending(text: &str, ending: LineEnding) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(content) => {
                out.push_str(content.strip_suffix('\r').unwrap_or(content));
                out.push_str(ending.as_str());
            }
            None => out.push_str(line),
        }
    }
    out
}

/// A line as the merge compares it: its content without terminator, and
/// whether it has one (only a file's last line may not). `hash` is the
/// content's xxh3, computed once and compared first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LineKey<'t> {
    hash: u64,
    content: &'t str,
    terminated: bool,
}

impl<'t> LineKey<'t> {
    fn of(line: &'t str) -> LineKey<'t> {
        let (content, terminated) = match line.strip_suffix('\n') {
            Some(content) => (content.strip_suffix('\r').unwrap_or(content), true),
            None => (line, false),
        };
        LineKey {
            hash: xxh3_64(content.as_bytes()) ^ u64::from(terminated),
            content,
            terminated,
        }
    }
}

impl Hash for LineKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Numbers distinct lines across the three texts, so that the diffs
/// compare integers: equal ids, equal lines.
struct Interner<'t> {
    /// Each distinct line's id, and the last base line holding it.
    ids: HashMap<LineKey<'t>, (u32, u32), BuildHasherDefault<PrecomputedHasher>>,
}

impl<'t> Interner<'t> {
    fn with_capacity(lines: usize) -> Interner<'t> {
        Interner {
            ids: HashMap::with_capacity_and_hasher(lines, BuildHasherDefault::default()),
        }
    }

    /// The line's id, and the last base line holding it. `base_line`
    /// records the line's position when it is a line of base.
    fn id(&mut self, key: LineKey<'t>, base_line: Option<usize>) -> (u32, Option<usize>) {
        // Texts have fewer than 2^32 lines; `u32::MAX` stands for none.
        let packed = base_line.map_or(u32::MAX, |line| line as u32);
        let next = self.ids.len() as u32;
        let entry = self.ids.entry(key).or_insert((next, packed));
        if base_line.is_some() {
            entry.1 = packed;
        }
        let line = (entry.1 != u32::MAX).then_some(entry.1 as usize);
        (entry.0, line)
    }
}

/// One of the three texts, split into lines.
struct Side<'t> {
    text: &'t str,
    index: LineIndex,
    /// Each line's interned id.
    ids: Vec<u32>,
    /// Lines deleted plus lines inserted by one way to align this text
    /// with base (found while interning): at least what a minimal diff
    /// changes, so it tells when Myers is cheap. 0 for base.
    changed_bound: usize,
}

impl<'t> Side<'t> {
    /// Splits `text` into lines.
    fn lines(text: &'t str) -> (LineIndex, impl Iterator<Item = &'t str> + use<'t>) {
        let index = LineIndex::new(text);
        let ranges: Vec<Range<usize>> = (0..index.len()).map(|i| index.full_range(i)).collect();
        (index, ranges.into_iter().map(move |r| &text[r]))
    }

    /// The base text: every line interned.
    fn base(text: &'t str, interner: &mut Interner<'t>) -> Side<'t> {
        let (index, lines) = Side::lines(text);
        let ids = lines
            .enumerate()
            .map(|(i, line)| interner.id(LineKey::of(line), Some(i)).0)
            .collect();
        Side {
            text,
            index,
            ids,
            changed_bound: 0,
        }
    }

    /// A descendant of `base`. Lines equal to the base line at the same
    /// place (after the changes so far) reuse its id without hashing; the
    /// others are interned and re-align the walk on the base line they
    /// come from, so a file with few changes costs little more than a scan.
    fn descendant(text: &'t str, base: &Side<'t>, interner: &mut Interner<'t>) -> Side<'t> {
        let (index, lines) = Side::lines(text);
        let mut ids = Vec::with_capacity(index.len());
        let mut at = 0; // the base line expected next
        let mut matched = 0; // lines paired with base line `at - 1`
        for line in lines {
            if at < base.ids.len() && base.line(at) == line {
                ids.push(base.ids[at]);
                at += 1;
                matched += 1;
                continue;
            }
            let (id, base_line) = interner.id(LineKey::of(line), None);
            if let Some(found) = base_line.filter(|&found| found >= at) {
                at = found + 1;
                matched += 1;
            }
            ids.push(id);
        }
        let changed_bound = base.ids.len() + ids.len() - 2 * matched;
        Side {
            text,
            index,
            ids,
            changed_bound,
        }
    }

    /// Line `i` with its terminator.
    fn line(&self, i: usize) -> &'t str {
        &self.text[self.index.full_range(i)]
    }

    /// Byte range of lines `lines`.
    fn bytes(&self, lines: &Range<usize>) -> Range<usize> {
        self.index.start(lines.start)..self.index.start(lines.end)
    }

    /// Text of lines `lines`.
    fn slice(&self, lines: &Range<usize>) -> &'t str {
        &self.text[self.bytes(lines)]
    }

    /// The conflict region of lines `span`.
    fn region(&self, span: Range<usize>) -> ConflictSide {
        let count = self.ids.len();
        let lines = if span.is_empty() {
            let line = (span.start + 1).min(count.max(1));
            LineRange::new(line, line)
        } else {
            LineRange::new(span.start + 1, span.end)
        };
        ConflictSide {
            lines,
            bytes: self.bytes(&span),
            text: self.slice(&span).to_string(),
            span,
        }
    }
}

/// Both sides' hunks in base order: by start, an insertion before a
/// replacement starting at the same line.
fn sorted_changes(ours: Vec<Hunk>, theirs: Vec<Hunk>) -> Vec<Hunk> {
    let mut changes = ours;
    changes.extend(theirs);
    changes.sort_by_key(|c| (c.base.start, c.base.end));
    changes
}

/// Whether two hunks' base ranges share a line, or are insertions at the
/// same point (an insertion at a range's boundary does not overlap it).
/// A coarse hunk also overlaps every hunk that touches it: it may begin
/// or end with an insertion of its own, and two insertions at one point
/// conflict.
fn overlaps(a: &Hunk, b: &Hunk) -> bool {
    let (ra, rb) = (&a.base, &b.base);
    if a.coarse || b.coarse {
        return ra.start <= rb.end && rb.start <= ra.end;
    }
    match (ra.is_empty(), rb.is_empty()) {
        (true, true) => ra.start == rb.start,
        (true, false) => rb.start < ra.start && ra.start < rb.end,
        (false, true) => ra.start < rb.start && rb.start < ra.end,
        (false, false) => ra.start < rb.end && rb.start < ra.end,
    }
}

/// Splits the sorted changes into groups of transitively overlapping
/// hunks (index ranges into `changes`).
fn clusters(changes: &[Hunk]) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut first = 0;
    while first < changes.len() {
        // The group so far, coarse when a coarse hunk gives its end (later
        // hunks start at or after its start: only its end can be touched).
        let mut span = changes[first].clone();
        let mut end = first + 1;
        while let Some(next) = changes.get(end).filter(|c| overlaps(&span, c)) {
            span.coarse = match next.base.end.cmp(&span.base.end) {
                std::cmp::Ordering::Less => span.coarse,
                std::cmp::Ordering::Equal => span.coarse || next.coarse,
                std::cmp::Ordering::Greater => next.coarse,
            };
            span.base = span.base.start.min(next.base.start)..span.base.end.max(next.base.end);
            end += 1;
        }
        groups.push(first..end);
        first = end;
    }
    groups
}

/// The base lines a group covers.
fn cluster_span(group: &[Hunk]) -> Range<usize> {
    let start = group.iter().map(|c| c.base.start).min().unwrap_or(0);
    let end = group.iter().map(|c| c.base.end).max().unwrap_or(0);
    start..end
}

/// The lines of side `who` that correspond to the base lines `base_span`
/// of a group, from that side's hunks in it (`None` when it has none: its
/// lines there are unchanged). Between and around its hunks, the side's
/// lines equal base's.
fn own_span(group: &[Hunk], who: Who, base_span: &Range<usize>) -> Option<Range<usize>> {
    let mut own = group.iter().filter(|c| c.who == who);
    let first = own.next()?;
    let last = own.next_back().unwrap_or(first);
    let start = first.side.start - (first.base.start - base_span.start);
    let end = last.side.end + (base_span.end - last.base.end);
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::{Duration, Instant};

    /// The merged text, checking that the edits give it.
    fn merged(base: &str, ours: &str, theirs: &str) -> String {
        match merge(base, ours, theirs) {
            MergeOutcome::Merged(m) => {
                assert_eq!(m.edits.apply(ours), m.text);
                m.text
            }
            MergeOutcome::Conflicts(c) => panic!("unexpected conflicts: {c:#?}"),
        }
    }

    fn conflicts(base: &str, ours: &str, theirs: &str) -> Vec<MergeConflict> {
        match merge(base, ours, theirs) {
            MergeOutcome::Merged(m) => panic!("unexpected merge: {:?}", m.text),
            MergeOutcome::Conflicts(c) => c,
        }
    }

    const BASE: &str = "a\nb\nc\nd\ne\nf\n";

    #[test]
    fn disjoint_edits_above_and_below_merge() {
        assert_eq!(
            merged(BASE, "A\nb\nc\nd\ne\nf\n", "a\nb\nc\nd\ne\nF\n"),
            "A\nb\nc\nd\ne\nF\n"
        );
        assert_eq!(
            merged(BASE, "a\nb\nc\nd\ne\nF\n", "A\nb\nc\nd\ne\nf\n"),
            "A\nb\nc\nd\ne\nF\n"
        );
    }

    #[test]
    fn edits_touch_only_the_llm_regions() {
        let ours = "a\nB!\nc\nd\ne\nf\n";
        let MergeOutcome::Merged(m) = merge(BASE, ours, "a\nb\nc\nd\nE\nf\n") else {
            panic!("conflict");
        };
        assert_eq!(m.edits.as_slice(), &[TextEdit::new(9..11, "E\n")]);
        assert_eq!(m.text, "a\nB!\nc\nd\nE\nf\n");
    }

    /// 100k lines, every 20th changed by the user and every 20th (ten
    /// lines further) by the LLM: too many changes for Myers on the whole
    /// text on either side (10,000 changed lines each), so the anchored
    /// diff merges it.
    #[test]
    fn a_large_merge_with_many_disjoint_changes_merges_in_time() {
        let base: Vec<String> = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let side = |offset: usize, tag: &str| -> String {
            let lines = base.iter().enumerate().map(|(i, line)| {
                if i % 20 == offset {
                    format!("{tag} {i}\n")
                } else {
                    line.clone()
                }
            });
            lines.collect()
        };
        let (ours, theirs) = (side(3, "user"), side(13, "llm"));
        let expected: String = base
            .iter()
            .enumerate()
            .map(|(i, line)| match i % 20 {
                3 => format!("user {i}\n"),
                13 => format!("llm {i}\n"),
                _ => line.clone(),
            })
            .collect();
        let base = base.concat();
        let started = Instant::now();
        let text = merged(&base, &ours, &theirs);
        let elapsed = started.elapsed();
        assert!(text == expected, "the merge is wrong");
        assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    }

    #[test]
    fn adjacent_lines_merge() {
        // User changed line 2, the LLM line 3: touching, not overlapping.
        assert_eq!(
            merged(BASE, "a\nB\nc\nd\ne\nf\n", "a\nb\nC\nd\ne\nf\n"),
            "a\nB\nC\nd\ne\nf\n"
        );
        // The LLM inserts right after the lines the user replaced...
        assert_eq!(
            merged(BASE, "a\nB\nc\nd\ne\nf\n", "a\nb\nnew\nc\nd\ne\nf\n"),
            "a\nB\nnew\nc\nd\ne\nf\n"
        );
        // ...or right before them.
        assert_eq!(
            merged(BASE, "a\nB\nc\nd\ne\nf\n", "a\nnew\nb\nc\nd\ne\nf\n"),
            "a\nnew\nB\nc\nd\ne\nf\n"
        );
        // A user deletion next to an LLM change.
        assert_eq!(
            merged(BASE, "a\nc\nd\ne\nf\n", "a\nb\nC\nd\ne\nf\n"),
            "a\nC\nd\ne\nf\n"
        );
    }

    #[test]
    fn same_line_changed_both_sides_conflicts() {
        let c = conflicts(BASE, "a\nb\nMINE\nd\ne\nf\n", "a\nb\nLLM\nd\ne\nf\n");
        assert_eq!(c.len(), 1);
        let c = &c[0];
        assert_eq!(c.ours.lines, LineRange::new(3, 3));
        assert_eq!(c.ours.text, "MINE\n");
        assert_eq!(c.base.text, "c\n");
        assert_eq!(c.theirs.text, "LLM\n");
        assert_eq!(c.ours.bytes, 4..9);
        assert_eq!(
            c.take_theirs().apply_to("a\nb\nMINE\nd\ne\nf\n"),
            "a\nb\nLLM\nd\ne\nf\n"
        );
        assert_eq!(
            c.take_both_with_markers().apply_to("a\nb\nMINE\nd\ne\nf\n"),
            "a\nb\n<<<<<<< buffer\nMINE\n=======\nLLM\n>>>>>>> llm\nd\ne\nf\n"
        );
    }

    #[test]
    fn overlapping_ranges_conflict_and_report_every_region() {
        // User changed lines 1-2, the LLM 2-3; and both changed line 6.
        let ours = "A\nB\nc\nd\ne\nF1\n";
        let theirs = "a\nB2\nC2\nd\ne\nF2\n";
        let c = conflicts(BASE, ours, theirs);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].base.span, 0..3);
        assert_eq!(c[0].ours.text, "A\nB\nc\n");
        assert_eq!(c[0].theirs.text, "a\nB2\nC2\n");
        assert_eq!(c[1].ours.lines, LineRange::new(6, 6));
    }

    #[test]
    fn user_deleted_the_region_the_llm_edited_conflicts() {
        let c = conflicts(BASE, "a\nb\nf\n", "a\nb\nc\nD\ne\nf\n");
        assert_eq!(c.len(), 1);
        assert!(c[0].ours.span.is_empty());
        assert_eq!(c[0].ours.lines, LineRange::new(3, 3));
        assert_eq!(c[0].ours.text, "");
        assert_eq!(c[0].base.text, "c\nd\ne\n");
        assert_eq!(c[0].theirs.text, "c\nD\ne\n");
    }

    #[test]
    fn llm_insertions_around_lines_the_user_deleted_merge() {
        let MergeOutcome::Merged(m) = merge("a\nb\nc\n", "a\nc\n", "a\nnew1\nb\nnew2\nc\n") else {
            panic!("conflict");
        };
        assert_eq!(m.text, "a\nnew1\nnew2\nc\n");
        assert_eq!(m.edits.as_slice(), &[TextEdit::insert(2, "new1\nnew2\n")]);
    }

    #[test]
    fn identical_change_on_both_sides_merges_once() {
        let both = "a\nb\nC\nd\ne\nf\n";
        let MergeOutcome::Merged(m) = merge(BASE, both, both) else {
            panic!("conflict");
        };
        assert_eq!(m.text, both);
        assert!(m.edits.is_empty());
        // Same change plus a disjoint LLM change.
        assert_eq!(
            merged(BASE, both, "a\nb\nC\nd\ne\nF\n"),
            "a\nb\nC\nd\ne\nF\n"
        );
    }

    #[test]
    fn insertions_at_the_same_point_conflict_unless_identical() {
        let c = conflicts(BASE, "a\nmine\nb\nc\nd\ne\nf\n", "a\nllm\nb\nc\nd\ne\nf\n");
        assert_eq!(c[0].ours.text, "mine\n");
        assert_eq!(c[0].base.span, 1..1);
        assert_eq!(
            merged(BASE, "a\nsame\nb\nc\nd\ne\nf\n", "a\nsame\nb\nc\nd\ne\nf\n"),
            "a\nsame\nb\nc\nd\ne\nf\n"
        );
    }

    #[test]
    fn crlf_buffer_keeps_its_line_endings() {
        let base = "a\r\nb\r\nc\r\nd\r\n";
        let ours = "A\r\nb\r\nc\r\nd\r\n";
        // An LLM result written with LF: only its real change counts.
        assert_eq!(
            merged(base, ours, "a\nb\nc\nD\nnew\n"),
            "A\r\nb\r\nc\r\nD\r\nnew\r\n"
        );
        // An LLM result in CRLF.
        assert_eq!(
            merged(base, ours, "a\r\nb\r\nC\r\nd\r\n"),
            "A\r\nb\r\nC\r\nd\r\n"
        );
        // A buffer converted to CRLF by the user, snapshot in LF.
        assert_eq!(
            merged("a\nb\nc\n", "a\r\nb\r\nc\r\n", "a\nB\nc\n"),
            "a\r\nB\r\nc\r\n"
        );
    }

    #[test]
    fn files_without_final_newline() {
        let base = "a\nb\nc";
        assert_eq!(merged(base, "A\nb\nc", "a\nb\nC"), "A\nb\nC");
        assert_eq!(merged(base, "A\nb\nc", "a\nb\nc\nd"), "A\nb\nc\nd");
        // Adding the final newline changes the last line.
        assert_eq!(merged(base, "A\nb\nc", "a\nb\nc\n"), "A\nb\nc\n");
        assert_eq!(conflicts(base, "a\nb\nc\n", "a\nb\nC").len(), 1);
    }

    #[test]
    fn empty_base() {
        assert_eq!(merged("", "", "new\n"), "new\n");
        assert_eq!(merged("", "mine\n", ""), "mine\n");
        assert_eq!(merged("", "same\n", "same\n"), "same\n");
        let c = conflicts("", "mine\n", "llm\n");
        assert_eq!(c[0].ours.lines, LineRange::new(1, 1));
        assert_eq!(c[0].base.lines, LineRange::new(1, 1));
        assert_eq!(c[0].base.span, 0..0);
    }

    #[test]
    fn conflict_at_the_end_of_a_shorter_buffer_names_its_last_line() {
        let c = conflicts("a\nb\nc\n", "a\n", "a\nb\nC\n");
        assert_eq!(c[0].ours.span, 1..1);
        assert_eq!(c[0].ours.lines, LineRange::new(1, 1));
    }

    trait ApplyTo {
        fn apply_to(self, text: &str) -> String;
    }

    impl ApplyTo for TextEdit {
        fn apply_to(self, text: &str) -> String {
            TextEdits::new(vec![self]).unwrap().apply(text)
        }
    }

    /// A text of lines from a small alphabet (so that diffs find matches),
    /// all terminated by `eol`, the last one optionally not.
    fn text_strategy() -> impl Strategy<Value = (Vec<&'static str>, bool)> {
        (
            prop::collection::vec(
                prop::sample::select(vec!["a", "b", "c", "", "dé", "x y"]),
                0..12,
            ),
            any::<bool>(),
        )
    }

    fn render((lines, final_newline): &(Vec<&str>, bool), eol: &str) -> String {
        let mut text = lines.join(eol);
        if *final_newline && !lines.is_empty() {
            text.push_str(eol);
        }
        text
    }

    proptest! {
        #[test]
        fn unchanged_buffer_gives_theirs(
            base in text_strategy(), theirs in text_strategy(), crlf in any::<bool>()
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let (base, theirs) = (render(&base, eol), render(&theirs, eol));
            let MergeOutcome::Merged(m) = merge(&base, &base, &theirs) else {
                panic!("conflict without user changes");
            };
            prop_assert_eq!(&m.text, &theirs);
            prop_assert_eq!(m.edits.apply(&base), theirs);
        }

        #[test]
        fn unchanged_llm_result_gives_ours_without_edits(
            base in text_strategy(), ours in text_strategy(), crlf in any::<bool>()
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let (base, ours) = (render(&base, eol), render(&ours, eol));
            let MergeOutcome::Merged(m) = merge(&base, &ours, &base) else {
                panic!("conflict without LLM changes");
            };
            prop_assert_eq!(m.text, ours);
            prop_assert!(m.edits.is_empty());
        }

        #[test]
        fn edits_give_the_merged_text(
            base in text_strategy(), ours in text_strategy(), theirs in text_strategy(),
        ) {
            let (base, ours, theirs) = (render(&base, "\n"), render(&ours, "\n"), render(&theirs, "\n"));
            match merge(&base, &ours, &theirs) {
                MergeOutcome::Merged(m) => prop_assert_eq!(m.edits.apply(&ours), m.text),
                MergeOutcome::Conflicts(c) => {
                    prop_assert!(!c.is_empty());
                    for conflict in c {
                        prop_assert_eq!(&ours[conflict.ours.bytes.clone()], conflict.ours.text);
                        prop_assert_eq!(&theirs[conflict.theirs.bytes.clone()], conflict.theirs.text);
                    }
                }
            }
        }

        #[test]
        fn symmetric_merges_agree(
            base in text_strategy(), ours in text_strategy(), theirs in text_strategy(),
        ) {
            // Swapping the sides merges to the same text or conflicts both ways.
            let (base, ours, theirs) = (render(&base, "\n"), render(&ours, "\n"), render(&theirs, "\n"));
            match (merge(&base, &ours, &theirs), merge(&base, &theirs, &ours)) {
                (MergeOutcome::Merged(a), MergeOutcome::Merged(b)) => prop_assert_eq!(a.text, b.text),
                (MergeOutcome::Conflicts(_), MergeOutcome::Conflicts(_)) => {}
                (a, b) => prop_assert!(false, "asymmetric: {:?} vs {:?}", a, b),
            }
        }
    }
}
