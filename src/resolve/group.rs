//! Simultaneous edits: a group (the hunks of one patched file, the
//! changes of one `modify_file` call) located against the text as it was
//! when the group started, each hunk by its lines, its header's line and
//! its neighbours' offsets, checked for overlaps, then applied together.

use std::ops::Range;

use super::hints::{self, choose, stale_hint_rivals};
use super::locate::{self, split_lines, Located, Locator, Miss, Placed};
use super::passes::{self, Lines};
use super::{blank_lines, line_numbers, replacement, FileResolver};
use crate::error::EditError;
use crate::model::{AnchoredRegion, Edit, EditOp, MatchUnit, Replace};

impl<'o: 'c, 'c> FileResolver<'o, 'c> {
    /// Simultaneous edits: located against the text at the group's start,
    /// checked for overlap, applied together.
    pub(super) fn apply_group(&mut self, group: &[&Edit]) {
        if !group.iter().all(|e| self.require_present(e)) {
            return;
        }
        let base = self.doc.text().to_string();
        let lines = Lines::new(&base);
        let locator = self.locator();
        let mut located: Vec<(&Edit, Placed, usize)> = Vec::new();
        // Per located hunk: its start line, its hint, and whether the hint
        // picked it among several candidates (at the hint or near it).
        let mut placed: Vec<(usize, Option<usize>, bool)> = Vec::new();
        let mut prev_end_line = 0;
        let mut prev: Option<(usize, usize)> = None;
        for &edit in group {
            let result = match &edit.op {
                _ if std::time::Instant::now() > self.config.deadline => {
                    Err(self.messages().deadline(edit))
                }
                EditOp::Replace(r) if r.search == r.replace && !r.search.is_empty() => {
                    Err(self.messages().no_op(edit))
                }
                EditOp::Replace(r) => {
                    self.locate_hunk(&locator, &lines, edit, r, prev_end_line, prev)
                }
                EditOp::Anchored(a) => self
                    .locate_anchored(&locator, &lines, edit, a)
                    .map(|(locs, end)| (locs, end, false)),
                _ => Err(self.messages().unsupported_in_group(edit)),
            };
            match result {
                Ok((locs, end_line, near_hint)) => {
                    prev_end_line = end_line;
                    let start = locs
                        .first()
                        .map_or(0, |l| lines.index.line_of(l.range.start));
                    prev = Some((edit.index, start));
                    let hint = match &edit.op {
                        EditOp::Replace(r) if !r.search.is_empty() => {
                            r.line_hint.and_then(|h| h.checked_sub(1))
                        }
                        _ => None,
                    };
                    placed.push((start, hint, near_hint));
                    located.push((edit, locs, end_line));
                }
                Err(e) => self.fail(e),
            }
        }
        let stale = stale_hint_rivals(&placed);
        let located_index: Vec<usize> = located.iter().map(|(e, _, _)| e.index).collect();
        let mut k = 0;
        located.retain(|(edit, _, _)| {
            let keep = match stale.get(k).copied().flatten() {
                None => true,
                Some((n, n_start, n_hint)) => {
                    let (start, hint, _) = placed[k];
                    let n_index = located_index[n];
                    let e = self.hunk_against_neighbour(
                        edit,
                        start,
                        hint.unwrap_or(start),
                        (n_index, n_start, n_hint),
                    );
                    self.errors.push(e);
                    false
                }
            };
            k += 1;
            keep
        });
        // Overlap check: later edits that overlap an earlier one fail.
        let mut accepted: Vec<(&Edit, Placed)> = Vec::new();
        let mut regions = Regions::default();
        for (edit, locs, _) in located {
            let clash = regions
                .first_overlap(&accepted, &locs)
                .map(|k| &accepted[k]);
            if let Some((other_edit, other_locs)) = clash {
                let a = self.orig_line_of_offset(other_locs[0].range.start);
                let b = self.orig_line_of_offset(locs[0].range.start);
                let e = self.messages().overlap(edit, other_edit.index, a, b);
                self.fail(e);
                continue;
            }
            regions.add(accepted.len(), &locs);
            accepted.push((edit, locs));
        }
        let all: Placed = accepted
            .iter()
            .flat_map(|(_, l)| l.iter().cloned())
            .collect();
        for (edit, _) in &accepted {
            self.applied.push(edit.index);
        }
        let track = self.tracks_hints();
        self.apply_located(all, track);
    }

    /// The refusal of a hunk whose hint picked a place near it while the
    /// neighbouring hunk `(start, hint)` sits at another offset from its
    /// own number (0-based current lines).
    pub(super) fn hunk_against_neighbour(
        &self,
        edit: &Edit,
        start: usize,
        hint: usize,
        (n_index, n_start, n_hint): (usize, usize, usize),
    ) -> EditError {
        let ranges = self.orig_lines(&[start..start, hint..hint, n_start..n_start]);
        self.messages().hint_against_neighbour(
            edit,
            ranges[0].first,
            ranges[1].first,
            (n_index, ranges[2].first, n_start as i64 - n_hint as i64),
        )
    }

    /// Locates one diff hunk (context + removed lines) in the group's base
    /// (`FORMATS.md` §3): order is a constraint, never a tie-break — the
    /// hunk must start at or after the end of the previous hunk and after
    /// its `@@` context line; the first pass with a candidate there decides;
    /// a line hint may pick among several; otherwise it is ambiguous.
    pub(super) fn locate_hunk(
        &self,
        locator: &Locator,
        lines: &Lines,
        edit: &Edit,
        r: &Replace,
        prev_end: usize,
        prev: Option<(usize, usize)>,
    ) -> Result<(Placed, usize, bool), EditError> {
        let search = split_lines(&r.search, MatchUnit::Lines);
        let replace = split_lines(&r.replace, MatchUnit::Lines);
        let header_line = match &r.context_header {
            Some(h) if !h.trim().is_empty() => {
                match self.find_header(locator, lines, h, prev_end) {
                    Some(l) => Some(l),
                    None if search.is_empty() => {
                        return Err(self.messages().header_not_found(edit, h))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        if search.is_empty() {
            let (locs, end) = self.pure_insertion(lines, header_line, &replace);
            return Ok((locs, end, false));
        }
        let min_start = header_line.map_or(prev_end, |h| prev_end.max(h + 1));
        let found = self
            .hunk_candidates_near_hint(locator, lines, &search, r, min_start)
            .or_else(|| self.hunk_candidates(locator, lines, &search, r, min_start));
        // The search as written, when the blank-edge retry located the hunk.
        let mut whole: Option<Vec<&str>> = None;
        let (pass, search, replace, candidates) = match found {
            Some(found) => found,
            None => {
                whole = Some(search.clone());
                // The blank-edge retry (`FORMATS.md` §3), for hunks too.
                let retry = locate::without_blank_boundaries(r);
                let again = retry.as_ref().and_then(|alt| {
                    let s = split_lines(&alt.search, MatchUnit::Lines);
                    self.hunk_candidates(locator, lines, &s, alt, min_start)
                });
                match again {
                    Some(found) => found,
                    None => {
                        // Line-number prefixes copied from a numbered view
                        // (`FORMATS.md` §3), for hunks too: the hunk
                        // without them, located like any hunk.
                        if locator.tolerant() {
                            if let Some((search, replace)) =
                                line_numbers::strip(&r.search, &r.replace)
                            {
                                let unnumbered = Replace {
                                    search,
                                    replace,
                                    ..r.clone()
                                };
                                return self.locate_hunk(
                                    locator,
                                    lines,
                                    edit,
                                    &unnumbered,
                                    prev_end,
                                    prev,
                                );
                            }
                        }
                        if locator.tolerant() {
                            let hint = r.line_hint.and_then(|h| h.checked_sub(1));
                            if let Some(result) = locator.elided_from(lines, r, hint, min_start) {
                                return result
                                    .map(|locs| {
                                        let end = locs.last().map_or(min_start, |l| {
                                            lines
                                                .index
                                                .line_of(l.range.end.max(l.range.start + 1) - 1)
                                                + 1
                                        });
                                        (locs, end, false)
                                    })
                                    .map_err(|miss| self.miss_error(edit, r, miss));
                            }
                        }
                        if let Some(result) = self.blank_hunk(locator, lines, edit, r, min_start) {
                            return result.map(|(locs, end)| (locs, end, false));
                        }
                        return Err(self.out_of_order(
                            locator,
                            lines,
                            edit,
                            r,
                            &search,
                            (prev_end, prev),
                        ));
                    }
                }
            }
        };
        let n = search.len();
        let hint = hunk_hint(r, &search);
        let several = candidates.len() > 1;
        let chosen = choose(&candidates, false, hint, |&s| s, |&s| s..s + n - 1)
            .map_err(|miss| self.miss_error(edit, r, miss))?;
        let start = chosen[0];
        // A tolerant match of a hunk with blank edge lines, when the hunk
        // cut of them matches exactly elsewhere (after the previous hunk):
        // a slip in a line here, or a blank line added there? Two places.
        if whole.is_none() && pass != passes::Pass::Exact {
            if let Some(cut) = locate::without_blank_boundaries(r) {
                let cut_search = split_lines(&cut.search, MatchUnit::Lines);
                let mut candidates: Vec<Range<usize>> = passes::exact_lines(lines, &cut_search)
                    .into_iter()
                    .filter(|&s| s >= min_start)
                    .map(|s| s..s + cut_search.len().max(1) - 1)
                    .filter(|m| m.end < start || m.start >= start + n)
                    .collect();
                if !candidates.is_empty() {
                    candidates.push(start..start + n - 1);
                    candidates.sort_by_key(|c| c.start);
                    let miss = locate::Miss::ambiguous(candidates);
                    return Err(self.miss_error(edit, r, miss));
                }
            }
        }
        if several {
            let s: Vec<&str> = search.iter().map(String::as_str).collect();
            locator
                .hint_rival(lines, &s, pass, start, hint.filter(|&h| h >= min_start))
                .map_err(|miss| self.miss_error(edit, r, miss))?;
        }
        if let Some(whole) = &whole {
            // Cut from a longer search: its near-duplicates are rivals,
            // and blank lines it deletes next to the file's must stay.
            locator
                .no_rival_of_whole(lines, whole, &(start..start + n))
                .map_err(|miss| self.miss_error(edit, r, miss))?;
            if locate::edge_blank_deleted(r, lines, &(start..start + n)) {
                let miss = locate::Miss::Undecided {
                    lines: start..start + n - 1,
                    why: replacement::Undecided::BlankLine,
                };
                return Err(self.miss_error(edit, r, miss));
            }
        }
        let search: Vec<&str> = search.iter().map(String::as_str).collect();
        let replace: Vec<&str> = replace.iter().map(String::as_str).collect();
        // The hunk's context lines pair as written, unless the search was
        // cut (then its lines no longer count from the hunk's first).
        let kept: &[(usize, usize)] = if whole.is_none() { &r.kept } else { &[] };
        let located = locator
            .build_at(lines, &search, &replace, pass, start..start + n, kept)
            .map_err(|miss| self.miss_error(edit, r, miss))?;
        // Picked by its hint among several places (at it, or near it).
        let by_hint = several && hint.is_some();
        Ok((smallvec::smallvec![located], start + n, by_hint))
    }

    /// The blank-line-insensitive pass for a hunk (`FORMATS.md` §3), with
    /// the hunk's order constraint; `None` when it finds no candidate.
    pub(super) fn blank_hunk(
        &self,
        locator: &Locator,
        lines: &Lines,
        edit: &Edit,
        r: &Replace,
        min_start: usize,
    ) -> Option<Result<(Placed, usize), EditError>> {
        if !locator.tolerant() {
            return None;
        }
        let r = &locate::blank_lines_variant(r)?;
        let search = split_lines(&r.search, MatchUnit::Lines);
        let (pass, windows) = blank_lines::find(lines, &search)?;
        let windows: Vec<Range<usize>> = windows
            .into_iter()
            .filter(|w| w.start >= min_start)
            .collect();
        if windows.is_empty() {
            return None;
        }
        let result = choose(
            &windows,
            false,
            r.line_hint.and_then(|h| h.checked_sub(1)),
            |w| w.start,
            |w| w.start..w.end - 1,
        )
        .and_then(|chosen| {
            let m = chosen[0].clone();
            let new_lines = locator.build_blank(lines, r, pass, m.clone(), true)?;
            let range = lines.index.start(m.start)..lines.index.start(m.end);
            Ok((
                smallvec::smallvec![locator.lines_replacement(lines.text, range, &new_lines)],
                m.end,
            ))
        })
        .map_err(|miss| self.miss_error(edit, r, miss));
        Some(result)
    }

    /// Why a hunk found no place after the previous one: it matches only
    /// overlapping the previous hunk (`overlap`), only before it (hunks
    /// must come in file order), or nowhere (`not_found`).
    pub(super) fn out_of_order(
        &self,
        locator: &Locator,
        lines: &Lines,
        edit: &Edit,
        r: &Replace,
        search: &[&str],
        (prev_end, prev): (usize, Option<(usize, usize)>),
    ) -> EditError {
        let n = search.len();
        if let Some((_, _, _, starts)) = self.hunk_candidates(locator, lines, search, r, 0) {
            let overlapping = starts
                .iter()
                .find(|&&s| s < prev_end && s + n > prev.map_or(0, |p| p.1));
            if let (Some(&s), Some((other, prev_start))) = (overlapping, prev) {
                let at = self.orig_line_of_offset(lines.index.start(s));
                let first = self.orig_line_of_offset(lines.index.start(prev_start));
                return self.messages().overlap(edit, other, first, at);
            }
            let ranges: Vec<Range<usize>> = starts.iter().map(|&s| s..s + n - 1).collect();
            let first = self.orig_lines(&ranges[..1])[0];
            return self.messages().before_previous_hunk(edit, first);
        }
        let near = locator.near_match(lines, search);
        self.miss_error(edit, r, Miss::NotFound { near })
    }

    /// The first pass with candidates at or after line `min_start` (and at
    /// the end of the file for an `*** End of File` hunk), with the search
    /// and replacement lines it matched.
    pub(super) fn hunk_candidates(
        &self,
        locator: &Locator,
        lines: &Lines,
        search: &[&str],
        r: &Replace,
        min_start: usize,
    ) -> Option<HunkCandidates> {
        let keep = hunk_place(r, search.len(), min_start, lines.len());
        let (pass, starts) = locator.line_candidates_where(lines, search, keep)?;
        Some(hunk_found(pass, search, r, starts))
    }

    /// The exact candidates of a hunk within [`hints::HINT_CLEAR`] + 1 lines
    /// of its header's line, when there are several and the hint picks one
    /// of them: the rule of [`choose`] then picks the same one from every
    /// candidate of the file (one farther away is never nearer, and is
    /// past `HINT_CLEAR` either way), so the file is not searched whole. A
    /// hunk whose context is on every line of a large file found all its
    /// places first (100k per hunk). `None`: search the whole file.
    pub(super) fn hunk_candidates_near_hint(
        &self,
        locator: &Locator,
        lines: &Lines,
        search: &[&str],
        r: &Replace,
        min_start: usize,
    ) -> Option<HunkCandidates> {
        let n = search.len();
        let h = hunk_hint(r, search)?;
        let reach = hints::HINT_CLEAR + 1;
        let first = min_start.max(h.saturating_sub(reach));
        let last = (h + reach).min(lines.len().saturating_sub(n));
        // Only worth it where the whole file is much larger than the span.
        if n == 0 || first > last || lines.len() < 8 * (last - first + n) {
            return None;
        }
        let end = lines.index.start((last + n).min(lines.len()));
        let span = Lines::new(&lines.text[lines.index.start(first)..end]);
        let keep = hunk_place(r, n, min_start, lines.len());
        let pass = *locator.line_pass_order().first()?;
        let starts: Vec<usize> = passes::find_line_pass(pass, &span, search)
            .into_iter()
            .map(|s| s + first)
            .filter(|&s| s <= last && keep(s))
            .collect();
        if starts.len() < 2 {
            return None;
        }
        choose(&starts, false, Some(h), |&s| s, |&s| s..s + n - 1).ok()?;
        Some(hunk_found(pass, search, r, starts))
    }

    /// A hunk of only added lines: after its header, else at the end.
    pub(super) fn pure_insertion(
        &self,
        lines: &Lines,
        header_line: Option<usize>,
        replace: &[&str],
    ) -> (Placed, usize) {
        let at_line = header_line.map_or(lines.len(), |l| l + 1);
        let text = lines.text;
        let mut new = String::new();
        let at = if at_line >= lines.len() {
            text.len()
        } else {
            lines.index.start(at_line)
        };
        let needs_break = at == text.len() && !text.is_empty() && !text.ends_with('\n');
        if needs_break {
            new.push_str(self.line_ending.as_str());
        }
        for l in replace {
            new.push_str(l);
            new.push_str(self.line_ending.as_str());
        }
        (
            smallvec::smallvec![Located {
                range: at..at,
                text: new,
            }],
            at_line,
        )
    }

    /// The first line at or after `from` matching an `@@` header (the
    /// hunk must come after it; when several match, after the first).
    pub(super) fn find_header(
        &self,
        locator: &Locator,
        lines: &Lines,
        header: &str,
        from: usize,
    ) -> Option<usize> {
        let (_, starts) = locator.line_candidates(lines, &[header.trim()])?;
        starts.iter().copied().find(|&s| s >= from)
    }

    /// Locates a `modify_file` change: `start` anchor (unique), then `end`
    /// after it (unique among the lines after the start).
    pub(super) fn locate_anchored(
        &self,
        locator: &Locator,
        lines: &Lines,
        edit: &Edit,
        a: &AnchoredRegion,
    ) -> Result<(Placed, usize), EditError> {
        let start: Vec<&str> = a.start.iter().map(String::as_str).collect();
        let anchor_replace = Replace::lines(String::new(), String::new());
        let Some((_, starts)) = locator.line_candidates(lines, &start) else {
            let near = locator.near_match(lines, &start);
            return Err(self
                .miss_error(edit, &anchor_replace, Miss::NotFound { near })
                .with_anchor("start"));
        };
        if starts.len() > 1 {
            let ranges: Vec<Range<usize>> =
                starts.iter().map(|&s| s..s + start.len() - 1).collect();
            return Err(self
                .miss_error(edit, &anchor_replace, Miss::ambiguous(ranges))
                .with_anchor("start"));
        }
        let first = starts[0];
        let mut last = first + start.len();
        if let Some(end) = a.end.as_ref().filter(|e| !e.is_empty()) {
            let end: Vec<&str> = end.iter().map(String::as_str).collect();
            let after_text_start = lines.index.start(last);
            let tail = Lines::new(&lines.text[after_text_start..]);
            let Some((_, ends)) = locator.line_candidates(&tail, &end) else {
                let near = locator.near_match(&tail, &end).map(|mut n| {
                    n.lines = n.lines.start + last..n.lines.end + last;
                    n
                });
                return Err(self
                    .miss_error(edit, &anchor_replace, Miss::NotFound { near })
                    .with_anchor("end"));
            };
            if ends.len() > 1 {
                let ranges: Vec<Range<usize>> = ends
                    .iter()
                    .map(|&s| s + last..s + last + end.len() - 1)
                    .collect();
                return Err(self
                    .miss_error(edit, &anchor_replace, Miss::ambiguous(ranges))
                    .with_anchor("end"));
            }
            last = last + ends[0] + end.len();
        }
        Ok((
            smallvec::smallvec![locator.replace_lines(lines, first..last, &a.content)],
            last,
        ))
    }
}

/// A hunk's candidates: the pass that found them, its search and
/// replacement lines, and the first line of each place.
type HunkCandidates = (passes::Pass, Vec<String>, Vec<String>, Vec<usize>);

/// The 0-based line a hunk's header names, when the hunk's old lines can
/// be anchored by it: old lines that are all blank anchor nothing (among
/// several blank places a hint, often stale, would pick one by its number
/// alone).
fn hunk_hint(r: &Replace, search: &[impl AsRef<str>]) -> Option<usize> {
    let anchored = search.iter().any(|l| !l.as_ref().trim().is_empty());
    r.line_hint
        .and_then(|h| h.checked_sub(1))
        .filter(|_| anchored)
}

/// Whether a hunk of `n` old lines may start at line `s` of a text of
/// `len` lines: at or after `min_start`, and at the end for an `*** End of
/// File` hunk.
fn hunk_place(r: &Replace, n: usize, min_start: usize, len: usize) -> impl Fn(usize) -> bool + '_ {
    move |s| s >= min_start && (!r.at_end_of_file || s + n == len)
}

/// A hunk's candidates as [`HunkCandidates`].
fn hunk_found(
    pass: passes::Pass,
    search: &[&str],
    r: &Replace,
    starts: Vec<usize>,
) -> HunkCandidates {
    let replace = split_lines(&r.replace, MatchUnit::Lines);
    (
        pass,
        search.iter().map(|l| l.to_string()).collect(),
        replace.iter().map(|l| l.to_string()).collect(),
        starts,
    )
}

/// The regions of a group's accepted edits, by start: the first accepted
/// edit a new one overlaps is found among its neighbours (O(log n)) while
/// the regions are disjoint, by a scan of them all once they are not (the
/// occurrences of a `replace_all` may share text).
#[derive(Default)]
struct Regions {
    /// (start, end) → index of the accepted edit.
    by_start: std::collections::BTreeMap<(usize, usize), usize>,
    overlapping: bool,
}

impl Regions {
    fn add(&mut self, k: usize, locs: &[Located]) {
        for l in locs {
            let r = &l.range;
            if !self.overlapping && self.overlaps_any(r).is_some() {
                self.overlapping = true;
            }
            if self.by_start.insert((r.start, r.end), k).is_some() {
                self.overlapping = true;
            }
        }
    }

    /// The smallest index of an accepted edit with a region overlapping `r`
    /// (regions disjoint: ordered by start, their ends are too).
    fn overlaps_any(&self, r: &Range<usize>) -> Option<usize> {
        let mut first: Option<usize> = None;
        for (&(start, end), &k) in self.by_start.range(..=(r.end, usize::MAX)).rev() {
            if end < r.start {
                break;
            }
            if overlaps(&(start..end), r) {
                first = Some(first.map_or(k, |f| f.min(k)));
            }
        }
        first
    }

    /// The first accepted edit (in acceptance order) that `locs` overlap.
    fn first_overlap(&self, accepted: &[(&Edit, Placed)], locs: &[Located]) -> Option<usize> {
        if self.overlapping {
            return accepted.iter().position(|(_, other)| {
                other
                    .iter()
                    .any(|o| locs.iter().any(|l| overlaps(&o.range, &l.range)))
            });
        }
        locs.iter()
            .filter_map(|l| self.overlaps_any(&l.range))
            .min()
    }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    if a.is_empty() && b.is_empty() {
        return a.start == b.start;
    }
    a.start < b.end && b.start < a.end
        || (a.is_empty() && b.start < a.start && a.start < b.end)
        || (b.is_empty() && a.start < b.start && b.start < a.end)
}
