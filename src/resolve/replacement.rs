//! The lines a match writes (`FORMATS.md` §3: "One reading or none",
//! re-indentation, unchanged lines).
//!
//! A tolerant match pairs each search line with a file line that differs
//! from it (in indentation, trailing whitespace, a truncated end, typography).
//! What the author meant is the search → replacement change carried over
//! onto the file. Several things can be read more than one way, and each
//! is a *reading*:
//!
//! - the payload's indentation unit (columns per level), when the payload
//!   and the file indent differently ([`indent::payload_units`]);
//! - how the line diff pairs replacement lines with search lines when lines
//!   repeat (the leftmost and the rightmost alignment);
//! - whether inserted lines take the search's indentation shift;
//! - whether an unchanged context line that differs from the file is the
//!   file's line mis-copied, or the line as the author wants it (when the
//!   payload itself changes whitespace, or a "truncated" line may be whole).
//!
//! Every combination the evidence allows is built; when they do not all
//! give the same lines, the edit is [`Undecided`] and refused. Readings
//! that would indent a line below column 0 are ruled out.

use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use super::indent::{self, indent, LazyStyle, PayloadUnit};
use super::passes::boundary_prefix::is_truncated_prefix;
use super::passes::Pass;

/// Why the lines a match writes are not determined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The payload's indentation unit is not determined and matters.
    Unit,
    /// Lines repeat, and pairing them differently gives different lines.
    Alignment,
    /// Inserted lines may or may not take the search's indentation shift.
    InsertedShift,
    /// The replacement may be written as given or shifted like the search.
    Frame,
    /// A context line (0-based search line) may be the file's line
    /// mis-copied or the line as the author wants it.
    Context(usize),
    /// Every reading would indent some line below column 0.
    Negative,
    /// Converting the payload's indentation would change the text of a
    /// string literal.
    InString,
    /// A blank line of the file that the search left out lies next to
    /// lines the edit adds, moves or changes: before or after them?
    BlankLine,
    /// A blank line the search has and the file does not, kept by the
    /// replacement: a slip, or the blank line as it will be?
    AddedBlankLine,
}

/// What one tolerant (or exact) match writes.
pub struct Build<'a> {
    /// The pass that matched.
    pub pass: Pass,
    /// The matched file lines, as many as `search`.
    pub file: &'a [&'a str],
    /// The search lines.
    pub search: &'a [&'a str],
    /// The replacement lines.
    pub replace: &'a [&'a str],
    /// The file's indentation style (inferred only if a reading needs
    /// it: [`LazyStyle::width`]).
    pub style: LazyStyle<'a>,
    /// A diff hunk's context lines, (search line, replacement line): fixed
    /// pairs the line diff never re-pairs (empty: every line is diffed).
    pub kept: &'a [(usize, usize)],
}

/// One way of reading the payload.
#[derive(Clone, Copy, Debug)]
struct Reading {
    unit: PayloadUnit,
    reversed: bool,
    /// Shift (file columns) of lines paired with no search line.
    inserted: i64,
    /// Replacement lines written without the search's shift (the
    /// replacement is in the file's frame).
    file_frame: bool,
    /// Context lines that differ from the file are written from the payload.
    context_as_written: bool,
    /// Changed lines take the inserted lines' shift, not their own line's
    /// (a reading only when the search's shifts are mixed).
    paired_as_inserted: bool,
}

impl Build<'_> {
    /// The lines to write, or why they are not determined.
    pub fn lines(&self) -> Result<Vec<String>, Undecided> {
        self.lines_with(|_| true)
    }

    /// The lines to write, where readings whose lines `accept` rejects
    /// (evidence such as a parse error) are ruled out; `accept` is asked
    /// only when the readings write different lines.
    pub fn lines_with(&self, accept: impl Fn(&[String]) -> bool) -> Result<Vec<String>, Undecided> {
        if let Some(lines) = self.prefix_reading() {
            return Ok(lines);
        }
        let units = self.units();
        let mut outputs: Vec<(Vec<String>, Reading)> = Vec::new();
        let mut any_negative = false;
        for &unit in &units {
            let deltas = self.deltas(unit);
            for reversed in [false, true] {
                let ops = align_kept(self.search, self.replace, self.kept, reversed);
                if self.pass != Pass::Exact && self.repeated_context(&ops, &deltas, unit) {
                    return Err(Undecided::Alignment);
                }
                let context = self.context_readings(&ops);
                for file_frame in self.frame_readings(unit, &deltas) {
                    for &inserted in &inserted_readings(&deltas) {
                        for &context_as_written in &context {
                            for &paired_as_inserted in mixed_readings(&deltas) {
                                let reading = Reading {
                                    unit,
                                    reversed,
                                    inserted,
                                    file_frame,
                                    context_as_written,
                                    paired_as_inserted,
                                };
                                match self.render(&ops, &deltas, reading) {
                                    Some(lines) => outputs.push((lines, reading)),
                                    None => any_negative = true,
                                }
                            }
                        }
                    }
                }
            }
        }
        let Some((first, r0)) = outputs.first() else {
            return Err(if any_negative {
                Undecided::Negative
            } else {
                Undecided::Unit
            });
        };
        let Some((other, r1)) = outputs.iter().find(|(o, _)| o != first) else {
            return Ok(first.clone());
        };
        let why = self.difference(first, r0, other, r1);
        // Whether a context line is a mis-copy or the line as the author
        // wants it is a question of intent: a parse cannot answer it (both
        // are often valid code), so it is never decided by evidence.
        let mut distinct: Vec<&Vec<String>> = Vec::new();
        for (o, r) in &outputs {
            if r.context_as_written {
                if outputs.iter().any(|(p, q)| !q.context_as_written && p != o) {
                    return Err(why);
                }
                continue;
            }
            if !distinct.contains(&o) {
                distinct.push(o);
            }
        }
        let kept: Vec<&Vec<String>> = distinct.into_iter().filter(|o| accept(o)).collect();
        match kept.as_slice() {
            [one] => Ok((*one).clone()),
            _ => Err(why),
        }
    }

    /// The payload as the file's lines with a constant whitespace prefix
    /// added to (or removed from) every line: when every non-blank search
    /// line (two at least) shows the same prefix, byte for byte, the
    /// replacement is moved back the same way — exactly, whatever mix of
    /// tabs and spaces the lines hold. `None` when that is not the case, or
    /// a replacement line does not carry the prefix.
    fn prefix_reading(&self) -> Option<Vec<String>> {
        if self.pass == Pass::Exact {
            return None;
        }
        // A replacement whose first line is indented otherwise than the
        // search's is not shifted with it (the frame readings decide).
        let (s0, r0) = (
            first_non_blank(self.search)?,
            first_non_blank(self.replace)?,
        );
        if indent(self.search[s0]) != indent(self.replace[r0]) {
            return None;
        }
        let pairs: Vec<(&str, &str)> = self
            .search
            .iter()
            .zip(self.file)
            .filter(|(s, f)| !s.trim().is_empty() && !f.trim().is_empty())
            .map(|(s, f)| (indent(s), indent(f)))
            .collect();
        if pairs.len() < 2 {
            return None;
        }
        let same = |remove: bool| -> Option<String> {
            let get = |(s, f): (&str, &str)| -> Option<String> {
                let p = if remove {
                    f.strip_suffix(s)
                } else {
                    s.strip_suffix(f)
                };
                p.filter(|p| !p.is_empty()).map(str::to_string)
            };
            let first = get(pairs[0])?;
            pairs
                .iter()
                .all(|&p| get(p).as_ref() == Some(&first))
                .then_some(first)
        };
        let (prefix, add) = match (same(false), same(true)) {
            (Some(p), _) => (p, false),
            (None, Some(p)) => (p, true),
            (None, None) => return None,
        };
        let moved = |line: &str| -> Option<String> {
            if line.trim().is_empty() {
                Some(line.to_string())
            } else if add {
                Some(format!("{prefix}{line}"))
            } else {
                line.strip_prefix(prefix.as_str()).map(str::to_string)
            }
        };
        let ops = align(self.search, self.replace, false);
        let mut out = Vec::with_capacity(self.replace.len());
        for op in &ops {
            match op {
                Seg::Equal { old, .. } => out.extend(old.clone().map(|j| self.file[j].to_string())),
                Seg::Change { new, .. } => {
                    for k in new.clone() {
                        out.push(moved(self.replace[k])?);
                    }
                }
            }
        }
        // Pairing must not matter, as for every other reading.
        let reversed = align(self.search, self.replace, true);
        if reversed != ops
            && self.repeated_context(&ops, &vec![Some(0); self.search.len()], PayloadUnit::SAME)
        {
            return None;
        }
        Some(out)
    }

    /// The payload units to try: the best-scoring ones, where a unit scores
    /// by how many search lines share its most common shift to the file.
    fn units(&self) -> Vec<PayloadUnit> {
        let lines = self.search.iter().chain(self.replace).copied();
        let pairs = self.search.iter().copied().zip(self.file.iter().copied());
        if !indent::foreign(self.style, pairs, lines.clone()) {
            return vec![PayloadUnit::SAME];
        }
        let candidates = indent::payload_units(self.style.get(), lines);
        let scored: Vec<((usize, usize), PayloadUnit)> = candidates
            .into_iter()
            .map(|u| {
                let deltas = self.deltas(u);
                let fits = deltas.iter().filter(|d| **d == Some(0)).count();
                ((fits, consistency(&deltas)), u)
            })
            .collect();
        let best = scored.iter().map(|(s, _)| *s).max().unwrap_or((0, 0));
        scored
            .into_iter()
            .filter(|(s, _)| *s == best)
            .map(|(_, u)| u)
            .collect()
    }

    /// Per search line: the shift from its indentation (read with `unit`)
    /// to its file line's, `None` for blank lines.
    fn deltas(&self, unit: PayloadUnit) -> Vec<Option<i64>> {
        self.search
            .iter()
            .zip(self.file)
            .map(|(s, f)| {
                (!s.trim().is_empty() && !f.trim().is_empty())
                    .then(|| self.style.width(indent(f)) - unit.width_in(self.style, indent(s)))
            })
            .collect()
    }

    /// Whether the replacement is written in the search's frame (shifted
    /// line by line) or the file's (as written): `FORMATS.md` §3 — when
    /// the first non-blank search and replacement lines disagree on their
    /// indentation, the model fixed it in the replacement.
    fn frame_readings(&self, unit: PayloadUnit, deltas: &[Option<i64>]) -> Vec<bool> {
        let (Some(s0), Some(r0)) = (first_non_blank(self.search), first_non_blank(self.replace))
        else {
            return vec![false];
        };
        if indent(self.search[s0]) == indent(self.replace[r0])
            || deltas.iter().all(|d| *d == Some(0) || d.is_none())
        {
            return vec![false];
        }
        // The replacement's first line where the file has that line: the
        // model fixed the indentation in the replacement (`FORMATS.md` §3,
        // "new is written as is"), which is in the file's frame — surely so
        // when it is the same line; a changed line may also have been
        // shifted with the search and land there by chance: two readings.
        let same = self.search[s0].trim() == self.replace[r0].trim();
        let file_width = self.style.width(indent(self.file[s0]));
        if unit.width_in(self.style, indent(self.replace[r0])) == file_width {
            return if same { vec![true] } else { vec![false, true] };
        }
        // The same line moved elsewhere: either frame.
        if same {
            vec![false, true]
        } else {
            vec![false]
        }
    }

    /// Whether context lines that differ from the file may be meant as
    /// written: when the payload changes some line's whitespace only (it
    /// treats whitespace as meaningful), or when a truncated boundary line
    /// repeated in the replacement could be a whole line.
    fn context_readings(&self, ops: &[Seg]) -> Vec<bool> {
        let whitespace_change = ops.iter().any(|op| match op {
            Seg::Change { old, new } => old.clone().zip(new.clone()).any(|(j, k)| {
                self.search[j] != self.replace[k] && self.search[j].trim() == self.replace[k].trim()
            }),
            Seg::Equal { .. } => false,
        });
        let differs = |j: usize| self.search[j] != self.file[j];
        let equal_lines = || {
            ops.iter().flat_map(|op| match op {
                Seg::Equal { old, .. } => old.clone(),
                Seg::Change { .. } => 0..0,
            })
        };
        let doubtful_truncation = self.pass == Pass::BoundaryPrefix
            && equal_lines().any(|j| {
                let (s, f) = (self.search[j].trim(), self.file[j].trim());
                s != f && is_truncated_prefix(s, f) && !surely_truncated(s, f)
            });
        // A fuzzy context line that differs from the file's in more than
        // its indentation: a copy with a typo, or the line as it will be?
        let doubtful_fuzzy = self.pass == Pass::Fuzzy
            && equal_lines().any(|j| self.search[j].trim() != self.file[j].trim());
        if (whitespace_change && equal_lines().any(differs))
            || doubtful_truncation
            || doubtful_fuzzy
        {
            vec![false, true]
        } else {
            vec![false]
        }
    }

    /// Whether a context line that differs from its file line is repeated
    /// so that which copy keeps the file's line depends on how lines are
    /// paired, and the copies would come out differently: another search
    /// copy sits on a different file line, or another replacement copy
    /// written as a new line would not equal the file's line.
    fn repeated_context(&self, ops: &[Seg], deltas: &[Option<i64>], unit: PayloadUnit) -> bool {
        let as_new = Reading {
            unit,
            reversed: false,
            inserted: 0,
            file_frame: false,
            context_as_written: false,
            paired_as_inserted: false,
        };
        // A hunk's context line is paired by the hunk itself.
        let kept = fitting(self.search, self.replace, self.kept);
        ops.iter().any(|op| match op {
            Seg::Equal { old, .. } => old.clone().any(|j| {
                let line = self.search[j];
                if self.file[j] == line || kept.iter().any(|&(kj, _)| kj == j) {
                    return false;
                }
                let other_file_line = self
                    .search
                    .iter()
                    .zip(self.file)
                    .any(|(s, f)| *s == line && *f != self.file[j]);
                let copies = self.replace.iter().filter(|r| **r == line).count();
                let new_copy_differs = copies > 1
                    && self
                        .reindent(line, deltas[j].unwrap_or(0), as_new)
                        .as_deref()
                        != Some(self.file[j]);
                other_file_line || new_copy_differs
            }),
            Seg::Change { .. } => false,
        }) || self.unpaired_repeats(ops, deltas, as_new)
    }

    /// A search line left out of the pairing while the replacement repeats
    /// it: another alignment could pair them and keep the file's line.
    fn unpaired_repeats(&self, ops: &[Seg], deltas: &[Option<i64>], as_new: Reading) -> bool {
        let mut paired = vec![false; self.search.len()];
        for op in ops {
            if let Seg::Equal { old, .. } = op {
                old.clone().for_each(|j| paired[j] = true);
            }
        }
        // Unpaired, the replacement's copy is written as a new line, with
        // the new lines' shift; paired, it would be the file's line.
        let shifts = inserted_readings(deltas);
        (0..self.search.len()).any(|j| {
            let line = self.search[j];
            !paired[j]
                && self.file[j] != line
                && self.replace.contains(&line)
                && shifts.iter().any(|&shift| {
                    self.reindent(line, shift, as_new).as_deref() != Some(self.file[j])
                })
        })
    }

    /// The lines of one reading (`None` when a line would go below column 0).
    fn render(&self, ops: &[Seg], deltas: &[Option<i64>], r: Reading) -> Option<Vec<String>> {
        let mut out = Vec::with_capacity(self.replace.len());
        for op in ops {
            match op {
                Seg::Equal { old, new } => {
                    for (j, k) in old.clone().zip(new.clone()) {
                        if r.context_as_written && self.search[j] != self.file[j] {
                            out.push(self.reindent(self.replace[k], 0, r)?);
                        } else {
                            out.push(self.file[j].to_string());
                        }
                    }
                }
                Seg::Change { old, new } => {
                    for (t, k) in new.clone().enumerate() {
                        let paired = (t < old.len()).then(|| old.start + t);
                        let line = self.replace[k];
                        let paired = paired.filter(|_| !r.paired_as_inserted);
                        match paired {
                            // Indented as its search line: as its file line.
                            Some(j)
                                if !r.file_frame
                                    && deltas[j].is_some()
                                    && indent(line) == indent(self.search[j]) =>
                            {
                                let ind = indent(self.file[j]);
                                out.push(format!("{ind}{}", &line[indent(line).len()..]));
                            }
                            _ => {
                                let delta = paired.and_then(|j| deltas[j]).unwrap_or(r.inserted);
                                out.push(self.reindent(line, delta, r)?);
                            }
                        }
                    }
                }
            }
        }
        Some(out)
    }

    /// A payload line in the file's style, shifted by `delta` (unless the
    /// reading takes the replacement as written in the file's frame).
    fn reindent(&self, line: &str, delta: i64, r: Reading) -> Option<String> {
        if line.trim().is_empty() {
            // A whitespace-only line of a converted payload is converted too.
            if r.unit != PayloadUnit::SAME && !line.is_empty() {
                let width = r.unit.width_in(self.style, line);
                return Some(self.style.get().render(width).unwrap_or_default());
            }
            return Some(line.to_string());
        }
        let ind = indent(line);
        let shift = if r.file_frame { 0 } else { delta };
        if shift == 0 && r.unit == PayloadUnit::SAME {
            return Some(line.to_string());
        }
        let width = r.unit.width_in(self.style, ind) + shift;
        // The file's own way of writing that width, when a matched line shows it.
        let rendered = match self
            .file
            .iter()
            .find(|f| !f.trim().is_empty() && self.style.width(indent(f)) == width)
        {
            Some(f) => indent(f).to_string(),
            None => self.style.get().render(width)?,
        };
        Some(format!("{rendered}{}", &line[ind.len()..]))
    }

    /// What two readings that give different lines differ in.
    fn difference(&self, a: &[String], ra: &Reading, b: &[String], rb: &Reading) -> Undecided {
        if ra.unit != rb.unit {
            return Undecided::Unit;
        }
        if ra.reversed != rb.reversed {
            return Undecided::Alignment;
        }
        if ra.file_frame != rb.file_frame {
            return Undecided::Frame;
        }
        if ra.paired_as_inserted != rb.paired_as_inserted {
            return Undecided::InsertedShift;
        }
        if ra.context_as_written != rb.context_as_written {
            let line = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
            let j = self
                .search
                .iter()
                .position(|s| self.replace.get(line).is_some_and(|r| r == s))
                .unwrap_or(0);
            return Undecided::Context(j);
        }
        Undecided::InsertedShift
    }
}

/// Whether changed lines may take another shift than their own line's:
/// only when the search's shifts are mixed (not one shift for every line),
/// which is what a slip in one line, or a search blended from two places,
/// looks like.
fn mixed_readings(deltas: &[Option<i64>]) -> &'static [bool] {
    // One slip among lines that fit is mixed too: the slipped line may be
    // mis-copied in the search only (its change is written as meant) or in
    // both halves (its change takes the slip's shift).
    if uniform_shift(deltas) {
        &[false]
    } else {
        &[false, true]
    }
}

/// The search's shifts tell one story: every line fits the file, or every
/// line that does not is off by the same shift and (unless it is the only
/// line) at least two are — a block written at another depth. One line
/// off among lines that fit (a slip, or the line as it will be after the
/// edit), or several different shifts, do not.
fn uniform_shift(deltas: &[Option<i64>]) -> bool {
    let known: Vec<i64> = deltas.iter().flatten().copied().collect();
    let off: Vec<i64> = known.iter().copied().filter(|&d| d != 0).collect();
    off.is_empty() || (off.iter().all(|&d| d == off[0]) && (off.len() >= 2 || known.len() == 1))
}

/// How many search lines share the most common shift.
fn consistency(deltas: &[Option<i64>]) -> usize {
    let mut counts: Vec<(i64, usize)> = Vec::new();
    for d in deltas.iter().flatten() {
        match counts.iter_mut().find(|(v, _)| v == d) {
            Some((_, c)) => *c += 1,
            None => counts.push((*d, 1)),
        }
    }
    counts.iter().map(|(_, c)| *c).max().unwrap_or(0)
}

/// The shifts inserted lines may take (`FORMATS.md` §3): the common shift
/// when every mis-indented search line shows it and at least two do; none when one line is off among at least
/// two that are not (a slip in that line); otherwise every shift seen, and
/// none (a lone line off by itself shows nothing either way).
fn inserted_readings(deltas: &[Option<i64>]) -> Vec<i64> {
    let known: Vec<i64> = deltas.iter().flatten().copied().collect();
    let zero = known.iter().filter(|&&d| d == 0).count();
    let off: Vec<i64> = known.iter().copied().filter(|&d| d != 0).collect();
    if off.is_empty() {
        return vec![0];
    }
    if off.len() >= 2 && off.iter().all(|&d| d == off[0]) {
        // A block written at another depth, unless lines that fit say
        // the block is where the file has it (the off lines slipped).
        return if zero == 0 {
            vec![off[0]]
        } else {
            vec![0, off[0]]
        };
    }
    if zero >= 1 && off.len() == 1 {
        // One line off next to a line that fits: a slip in that line (a
        // block written at another depth would move every line).
        return vec![0];
    }
    let mut readings = vec![0];
    for d in off {
        if !readings.contains(&d) {
            readings.push(d);
        }
    }
    readings
}

/// A truncated line `search` of `file` (both trimmed) that cannot be the
/// line as the author wants it, only a copy cut short: cut inside a word,
/// inside a string literal, or between two words. A cut before a comma, a
/// bracket or an operator leaves code that may well be whole (`import a`
/// of `import a, b`): then the line may be written as it will be after the
/// edit, and the edit is two readings.
pub fn surely_truncated(search: &str, file: &str) -> bool {
    let rest = &file[search.len()..];
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mid_word =
        search.chars().next_back().is_some_and(word) && rest.chars().next().is_some_and(word);
    // Cut inside a string literal: no line of code ends there.
    let open_quote = ['"', '\'', '`']
        .iter()
        .any(|q| search.matches(*q).count() % 2 == 1);
    // Cut between words of prose (a comment, a message): the words go on.
    let prose = rest.starts_with(char::is_whitespace)
        && rest.trim_start().starts_with(word)
        && search.chars().next_back().is_some_and(word);
    mid_word || open_quote || prose
}

/// The first non-blank line's index.
fn first_non_blank(lines: &[&str]) -> Option<usize> {
    lines.iter().position(|l| !l.trim().is_empty())
}

/// A run of the search → replacement line diff.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    /// Search lines `old` repeated as replacement lines `new`.
    Equal {
        old: Range<usize>,
        new: Range<usize>,
    },
    /// Search lines `old` replaced by replacement lines `new`.
    Change {
        old: Range<usize>,
        new: Range<usize>,
    },
}

/// Per search line: the replacement line the line diff ([`align`]) pairs
/// it with as unchanged.
pub fn pairing(search: &[&str], replace: &[&str], reversed: bool) -> Vec<Option<usize>> {
    let mut paired = vec![None; search.len()];
    for seg in align(search, replace, reversed) {
        if let Seg::Equal { old, new } = seg {
            for (j, k) in old.zip(new) {
                paired[j] = Some(k);
            }
        }
    }
    paired
}

/// `kept` when its pairs fit the lines (in order, in range, equal lines),
/// else none.
fn fitting<'k>(
    search: &[&str],
    replace: &[&str],
    kept: &'k [(usize, usize)],
) -> &'k [(usize, usize)] {
    let fits = kept.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1)
        && kept
            .iter()
            .all(|&(j, k)| j < search.len() && k < replace.len() && search[j] == replace[k]);
    if fits {
        kept
    } else {
        &[]
    }
}

/// The line diff of `search` → `replace` around `kept`, a hunk's context
/// lines: those pairs stay as the hunk wrote them (a ` ` line is
/// unchanged by definition) and only the runs between them are diffed.
/// Pairs that do not fit the lines (out of order, out of range, or lines
/// that differ) are ignored and the whole is diffed.
fn align_kept(
    search: &[&str],
    replace: &[&str],
    kept: &[(usize, usize)],
    reversed: bool,
) -> Vec<Seg> {
    let (n, m) = (search.len(), replace.len());
    let kept = fitting(search, replace, kept);
    if kept.is_empty() {
        return align(search, replace, reversed);
    }
    let mut segs: Vec<Seg> = Vec::new();
    let (mut j0, mut k0) = (0, 0);
    for &(j, k) in kept.iter().chain(std::iter::once(&(n, m))) {
        for seg in align(&search[j0..j], &replace[k0..k], reversed) {
            segs.push(match seg {
                Seg::Equal { old, new } => Seg::Equal {
                    old: old.start + j0..old.end + j0,
                    new: new.start + k0..new.end + k0,
                },
                Seg::Change { old, new } => Seg::Change {
                    old: old.start + j0..old.end + j0,
                    new: new.start + k0..new.end + k0,
                },
            });
        }
        if j < n {
            segs.push(Seg::Equal {
                old: j..j + 1,
                new: k..k + 1,
            });
        }
        (j0, k0) = (j + 1, k + 1);
    }
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for seg in segs {
        match (out.last_mut(), seg) {
            (Some(Seg::Equal { old, new }), Seg::Equal { old: o2, new: n2 })
            | (Some(Seg::Change { old, new }), Seg::Change { old: o2, new: n2 }) => {
                old.end = o2.end;
                new.end = n2.end;
            }
            (_, seg) => out.push(seg),
        }
    }
    out
}

/// The line diff of `search` → `replace` (patience: lines that occur once
/// on each side anchor it, so a unique code line is never traded for a
/// blank one); `reversed` diffs the reversed lines, which pairs repeated
/// lines from the other end.
fn align(search: &[&str], replace: &[&str], reversed: bool) -> Vec<Seg> {
    let (n, m) = (search.len(), replace.len());
    let ops = if reversed {
        let s: Vec<&str> = search.iter().rev().copied().collect();
        let r: Vec<&str> = replace.iter().rev().copied().collect();
        capture_diff_slices(Algorithm::Patience, &s, &r)
    } else {
        capture_diff_slices(Algorithm::Patience, search, replace)
    };
    let mut segs: Vec<Seg> = ops
        .into_iter()
        .filter_map(|op| {
            let (equal, old, new) = match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => (true, old_index..old_index + len, new_index..new_index + len),
                DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                } => (false, old_index..old_index + old_len, new_index..new_index),
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => (false, old_index..old_index, new_index..new_index + new_len),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => (
                    false,
                    old_index..old_index + old_len,
                    new_index..new_index + new_len,
                ),
            };
            let (old, new) = if reversed {
                (n - old.end..n - old.start, m - new.end..m - new.start)
            } else {
                (old, new)
            };
            if old.is_empty() && new.is_empty() {
                return None;
            }
            Some(if equal {
                Seg::Equal { old, new }
            } else {
                Seg::Change { old, new }
            })
        })
        .collect();
    if reversed {
        segs.reverse();
    }
    merge_changes(segs)
}

/// Adjacent change runs as one (a delete next to an insert is a replace).
fn merge_changes(segs: Vec<Seg>) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for seg in segs {
        match (out.last_mut(), seg) {
            (Some(Seg::Change { old, new }), Seg::Change { old: o2, new: n2 }) => {
                old.end = o2.end;
                new.end = n2.end;
            }
            (_, seg) => out.push(seg),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::indent::Style;

    fn build(
        pass: Pass,
        file: &[&str],
        search: &[&str],
        replace: &[&str],
    ) -> Result<Vec<String>, Undecided> {
        let style = Style::infer(&file.join("\n"));
        Build {
            pass,
            file,
            search,
            replace,
            style: style.into(),
            kept: &[],
        }
        .lines()
    }

    #[test]
    fn keeps_unchanged_lines_from_the_file() {
        let out = build(
            Pass::TrailingWhitespace,
            &["x = 1   ", "y = 2"],
            &["x = 1", "y = 2"],
            &["x = 1", "y = 3"],
        );
        assert_eq!(out.unwrap(), ["x = 1   ", "y = 3"]);
    }

    #[test]
    fn a_partial_block_shift_is_two_readings_unless_evidence_rules_one_out() {
        // Two lines show the same shift, two lines fit: a block written at
        // another depth (the new line takes the shift) or two slipped lines
        // (it keeps its own)? Undecided alone; a parse that rejects `log(a)`
        // left of `a = 2` (Python's offside rule) decides.
        let file = [
            "class A:",
            "    def f(self):",
            "        a = 1",
            "        return a",
        ];
        let search = [
            "class A:",
            "  def f(self):",
            "      a = 1",
            "        return a",
        ];
        let replace = [
            "class A:",
            "  def f(self):",
            "      a = 2",
            "      log(a)",
            "        return a",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(out, Err(Undecided::InsertedShift));
        let parses = |lines: &[String]| !lines.contains(&"      log(a)".to_string());
        let out = Build {
            pass: Pass::Trimmed,
            file: &file,
            search: &search,
            replace: &replace,
            style: Style::infer(&file.join("\n")).into(),
            kept: &[],
        }
        .lines_with(parses);
        assert_eq!(
            out.unwrap(),
            [
                "class A:",
                "    def f(self):",
                "        a = 2",
                "        log(a)",
                "        return a"
            ]
        );
    }

    #[test]
    fn shifts_a_block_indented_off_by_one_level() {
        let file = ["        if ok:", "            run()"];
        let out = build(
            Pass::Trimmed,
            &file,
            &["if ok:", "    run()"],
            &["if ok:", "    run()", "    log()"],
        );
        assert_eq!(
            out.unwrap(),
            ["        if ok:", "            run()", "            log()"]
        );
    }

    #[test]
    fn converts_spaces_to_tabs_in_tab_files() {
        let file = ["\tif err != nil {", "\t\treturn err", "\t}"];
        let search = ["    if err != nil {", "        return err", "    }"];
        let replace = [
            "    if err != nil {",
            "        return fmt.Errorf(\"x: %w\", err)",
            "    }",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            [
                "\tif err != nil {",
                "\t\treturn fmt.Errorf(\"x: %w\", err)",
                "\t}"
            ]
        );
    }

    #[test]
    fn converts_tabs_to_the_files_space_unit() {
        let file = ["  if (x) {", "    go();", "  }"];
        let search = ["\tif (x) {", "\t\tgo();", "\t}"];
        let replace = ["\tif (x) {", "\t\tgo();", "\t\tstop();", "\t}"];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            ["  if (x) {", "    go();", "    stop();", "  }"]
        );
    }

    #[test]
    fn one_slipped_context_line_is_a_copy_of_the_files_line() {
        // `FORMATS.md` §3: an unchanged line of a tolerant match is the
        // file's line; its indentation, off where the lines around it fit,
        // is a slip (the line as it will be after the edit would need the
        // file's form in the search to say so).
        let file = ["def f():", "    a = 1", "    b = 2", "    c = 3"];
        let search = ["def f():", "        a = 1", "    b = 2", "    c = 3"];
        let replace = [
            "def f():",
            "        a = 1",
            "    b = 2",
            "    x = 0",
            "    c = 3",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            [
                "def f():",
                "    a = 1",
                "    b = 2",
                "    x = 0",
                "    c = 3"
            ]
        );
    }

    #[test]
    fn mixed_shifts_leave_inserted_lines_undecided() {
        let file = ["    a = 1", "    b = 2", "    c = 3", "    d = 4"];
        let search = [
            "        a = 1",
            "            b = 2",
            "    c = 3",
            "    d = 4",
        ];
        let replace = [
            "        a = 1",
            "            b = 2",
            "        x = 0",
            "    c = 3",
            "    d = 4",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert!(out.is_err());
    }

    #[test]
    fn a_shift_below_column_zero_is_ruled_out() {
        // One context line, indented 4 too deep; the inserted function at
        // column 0 cannot take the -4 shift, so it is kept as written.
        let file = ["    assert ok", ""];
        let search = ["        assert ok", ""];
        let replace = ["        assert ok", "", "def g():", "    return 1"];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            ["    assert ok", "", "def g():", "    return 1"]
        );
    }

    #[test]
    fn whitespace_changes_make_mis_copied_context_doubtful() {
        let file = ["    a,", "    b"];
        let search = ["     a,", "    b"];
        let replace = ["     a,", "     b"];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(out, Err(Undecided::Context(0)));
    }

    #[test]
    fn model_fixed_indentation_in_new_is_kept() {
        let file = ["    def f():", "        pass"];
        let out = build(
            Pass::Trimmed,
            &file,
            &["def f():", "    pass"],
            &["    def f():", "        return 1"],
        );
        assert_eq!(out.unwrap(), ["    def f():", "        return 1"]);
    }

    #[test]
    fn expands_truncated_boundary_lines_cut_inside_a_word() {
        let file = ["// ParseConfig reads a file", "func ParseConfig() {"];
        let search = ["// ParseConfig rea", "func ParseConfig() {"];
        let replace = ["// ParseConfig rea", "func ParseConfig(path string) {"];
        let out = build(Pass::BoundaryPrefix, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            [
                "// ParseConfig reads a file",
                "func ParseConfig(path string) {"
            ]
        );
    }

    #[test]
    fn a_truncated_line_that_could_be_whole_is_two_readings() {
        let file = ["import pytest", "from flask import g, session"];
        let search = ["import pytest", "from flask import g"];
        let replace = [
            "import pytest",
            "from flask import g",
            "from flask import session",
        ];
        let out = build(Pass::BoundaryPrefix, &file, &search, &replace);
        assert_eq!(out, Err(Undecided::Context(1)));
    }

    #[test]
    fn repeated_lines_paired_two_ways_are_refused_when_they_differ() {
        // The file's two `}` lines differ in trailing whitespace; which one
        // the replacement keeps depends on the pairing.
        let file = ["}  ", "}"];
        let out = build(Pass::TrailingWhitespace, &file, &["}", "}"], &["}"]);
        assert_eq!(out, Err(Undecided::Alignment));
    }

    #[test]
    fn a_whitespace_prefix_on_every_line_is_removed_exactly() {
        // A tab-indented Go file with a raw string whose lines use spaces;
        // the payload put four spaces before every line.
        let file = ["\t\tHeader: `", "// Licensed", "//     http://x"];
        let search = [
            "    \t\tHeader: `",
            "    // Licensed",
            "    //     http://x",
        ];
        let replace = [
            "    \t\tHeader: `Licensed",
            "        http://x",
            "    \t\tText: `",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out.unwrap(),
            ["\t\tHeader: `Licensed", "    http://x", "\t\tText: `"]
        );
    }

    #[test]
    fn surely_truncated_lines() {
        assert!(surely_truncated(
            "from cStringIO i",
            "from cStringIO import StringIO"
        ));
        assert!(!surely_truncated("x = t.Union[", "x = t.Union[str, int]"));
        assert!(surely_truncated(
            "// Copyright 2013-2022 The",
            "// Copyright 2013-2022 The Cobra Authors"
        ));
        assert!(surely_truncated(
            "return fmt.Errorf(\"parse config",
            "return fmt.Errorf(\"parse config %s\", p)"
        ));
        assert!(!surely_truncated(
            "from flask import g",
            "from flask import g, session"
        ));
    }
}
