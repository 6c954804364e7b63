//! Pass 7, fuzzy matching: the windows of the file most similar to the
//! search, one chosen only when no other comes within the margin, and
//! the closest window a refusal names.

use std::ops::Range;
use std::time::Instant;

use crate::model::Replace;
use crate::resolve::hints::{choose_window, HINT_CLEAR, HINT_NEAR};
use crate::resolve::line_numbers;
use crate::resolve::passes::{fuzzy, Lines, Pass};
use crate::resolve::MatchMode;

use super::{split_lines, Located, Locator, Miss, Near, Placed, FUZZY_MARGIN, NEAREST_BUDGET};

impl Locator<'_> {
    /// Pass 7, when a threshold is set: the one window clearly closest to
    /// the search, its lines paired one to one with the search's.
    pub(super) fn fuzzy(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Option<Result<Placed, Miss>> {
        let (MatchMode::Tolerant, Some(threshold)) = (self.config.match_mode, self.config.fuzzy)
        else {
            return None;
        };
        let search = split_lines(&r.search, r.unit);
        let replace = split_lines(&r.replace, r.unit);
        if search.is_empty() || line_numbers::numbered(&r.search) {
            return None;
        }
        // One scan serves both questions: the windows above the
        // threshold, and any nearly as close as the best of them.
        let floor = (threshold - FUZZY_MARGIN).max(0.0);
        let deadline = self.config.deadline;
        // The seed's match, when told early (`Locator::early`): what the
        // choice writes if it picks the same window.
        let mut told: Option<(Range<usize>, Located)> = None;
        let scan = self
            .fuzzy_near_hint(
                lines,
                &search,
                (threshold, floor),
                r.replace_all,
                hint,
                deadline,
            )
            .unwrap_or_else(|| match hint {
                // The window chosen, if any, is then the only candidate.
                None => {
                    let seed =
                        fuzzy::seed(lines, &search, floor, threshold + FUZZY_MARGIN, deadline);
                    told = self.tell_seed(lines, seed, threshold, (&search, &replace), r);
                    let margins = (threshold, FUZZY_MARGIN);
                    fuzzy::find_deciding_from(lines, &search, margins, seed, deadline)
                }
                Some(_) => fuzzy::find(lines, &search, floor, deadline),
            });
        // A scan cut short may have missed the best window or its rival.
        if scan.timed_out {
            return Some(Err(Miss::Deadline));
        }
        let candidates = scan.above(threshold);
        if candidates.is_empty() {
            return None;
        }
        let n = search.len();
        let ranges: Vec<Range<usize>> = candidates.iter().map(|c| c.start..c.start + n).collect();
        let chosen = match choose_window(ranges, r.replace_all, hint) {
            Ok(c) => c,
            Err(miss) => return Some(Err(miss)),
        };
        if !r.replace_all {
            let best = candidates
                .iter()
                .find(|c| c.start == chosen[0].start)
                .copied()?;
            // A window nearly as close elsewhere: the search does not pin one.
            let others: Vec<Range<usize>> = scan
                .above((best.similarity - FUZZY_MARGIN).max(0.0))
                .iter()
                .filter(|c| c.start + n <= best.start || c.start >= best.start + n)
                .map(|c| c.start..c.start + n - 1)
                .collect();
            if !others.is_empty() {
                let mut candidates = others;
                candidates.push(best.start..best.start + n - 1);
                candidates.sort_by_key(|c| c.start);
                return Some(Err(Miss::ambiguous(candidates)));
            }
        }
        Some(
            chosen
                .into_iter()
                .map(|m| match told.take() {
                    // The same window, the same match (a function of them).
                    Some((at, located)) if at == m => Ok(located),
                    _ => self
                        .fuzzy_written(lines, m, (&search, &replace), r)
                        .unwrap_or_else(|| {
                            Err(Miss::NotFound {
                                near: self.nearest(lines, &search),
                            })
                        }),
                })
                .collect(),
        )
    }

    /// What a fuzzy match of window `m` writes; `None` when its lines
    /// do not pair one to one with the search's.
    fn fuzzy_written(
        &self,
        lines: &Lines,
        m: Range<usize>,
        (search, replace): (&[&str], &[&str]),
        r: &Replace,
    ) -> Option<Result<Located, Miss>> {
        let file: Vec<&str> = m.clone().map(|i| lines.line(i)).collect();
        // Lines are paired by position: only when each pair is plainly
        // the same line (no line inserted or dropped).
        let outside = (
            m.start.checked_sub(1).map(|i| lines.line(i)),
            (m.end < lines.len()).then(|| lines.line(m.end)),
        );
        if !fuzzy::pairs_line_by_line(&file, search, outside) {
            return None;
        }
        Some(self.written_match(lines, Pass::Fuzzy, m, (search, replace), r))
    }

    /// Tells [`Locator::early`], when set, the match of the seed window
    /// (one above the threshold) before the scan that decides: the scan
    /// picks it unless another window rivals it. Returns the window and
    /// its match, for the choice to reuse.
    fn tell_seed(
        &self,
        lines: &Lines,
        seed: Option<fuzzy::Scored>,
        threshold: f64,
        (search, replace): (&[&str], &[&str]),
        r: &Replace,
    ) -> Option<(Range<usize>, Located)> {
        let early = self.early?;
        let seed = seed.filter(|s| s.similarity >= threshold && !r.replace_all)?;
        let m = seed.start..seed.start + search.len();
        let located = self
            .fuzzy_written(lines, m.clone(), (search, replace), r)?
            .ok()?;
        early(&located);
        Some((m, located))
    }

    /// The fuzzy scan of the windows within [`HINT_CLEAR`] lines of a line
    /// hint (or as many more on each side as the search has lines, when a
    /// run of overlapping windows reaches the first reach's edges), when
    /// that decides (`FORMATS.md` §3 "Line hints"): a window
    /// there above the threshold that the hint picks — at the hint, or
    /// within [`HINT_NEAR`] lines of it with no other within
    /// [`HINT_CLEAR`] — is picked whatever lies farther away, so windows
    /// beyond are neither candidates nor rivals. `None`: scan the file.
    pub(super) fn fuzzy_near_hint(
        &self,
        lines: &Lines,
        search: &[&str],
        (threshold, floor): (f64, f64),
        replace_all: bool,
        hint: Option<usize>,
        deadline: Instant,
    ) -> Option<fuzzy::FuzzyScan> {
        let h = hint.filter(|_| !replace_all)?;
        let n = search.len();
        let last_start = lines.len().saturating_sub(n);
        let reach = |more: usize| h.saturating_sub(HINT_CLEAR + more)..h + HINT_CLEAR + more + 1;
        // Whether a scan of `reach` holds its runs of overlapping windows
        // (a run is one candidate): none reaches an edge of it that is not
        // the file's. `None`: no window, or the deadline (the file decides).
        let holds = |scan: &fuzzy::FuzzyScan, reach: Range<usize>| {
            let (first, last) = scan.span().filter(|_| !scan.timed_out)?;
            let inner = |s: usize, edge: usize| s.abs_diff(edge) > n;
            Some(
                (reach.start == 0 || inner(first, reach.start))
                    && (reach.end > last_start || inner(last, reach.end - 1)),
            )
        };
        // Read `n` lines more on each side when a run reaches an edge
        // (only the two bands the first reach left out: its windows are
        // read), then, if a run still does, the file decides. (A search
        // longer than HINT_CLEAR lines has every window near an edge of
        // the first reach.)
        let mut near = fuzzy::find_near(lines, search, floor, deadline, reach(0));
        if !holds(&near, reach(0))? {
            let read = fuzzy::window_starts(lines, n, reach(0));
            let wide = fuzzy::window_starts(lines, n, reach(n));
            let band = |starts: Range<usize>| {
                (!starts.is_empty())
                    .then(|| fuzzy::find_near(lines, search, floor, deadline, starts))
            };
            let below = band(wide.start..read.start);
            let above = band(read.end..wide.end);
            near = fuzzy::FuzzyScan::joined(below.into_iter().chain([near]).chain(above));
            if !holds(&near, reach(n))? {
                return None;
            }
        }
        let ranges: Vec<Range<usize>> = near
            .above(threshold)
            .iter()
            .map(|c| c.start..c.start + n)
            .collect();
        let chosen = choose_window(ranges, false, hint).ok()?;
        (chosen.first()?.start.abs_diff(h) <= HINT_NEAR).then_some(near)
    }

    /// The closest near-match of a search that was not found.
    pub(super) fn nearest(&self, lines: &Lines, search: &[&str]) -> Option<Near> {
        // The near-match only helps the message: it gets at most
        // NEAREST_BUDGET of what is left of the run.
        let deadline = self.config.deadline.min(Instant::now() + NEAREST_BUDGET);
        let best = fuzzy::nearest(lines, search, deadline)?;
        let n = search.len().min(lines.len() - best.start);
        let differs_at = (0..n).find_map(|j| {
            let f = lines.line(best.start + j);
            (f.trim() != search[j].trim()).then(|| (search[j].to_string(), f.to_string()))
        });
        Some(Near {
            lines: best.start..best.start + n,
            similarity: best.similarity,
            differs_at,
        })
    }
}
