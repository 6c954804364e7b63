//! Elisions (`FORMATS.md` §3): a search line that is only an elision
//! marker (`...`, `…`, `// ... existing code ...`, `# ... rest unchanged`,
//! `/* ... */`, `<!-- ... -->`) stands for unchanged file lines. The search
//! is cut at its markers into pieces; each piece is matched by the line
//! passes, and the pieces must fit the file in exactly one way, in order.
//!
//! Markers must be mirrored in the replacement: each piece is then built
//! like a match where it fits, and the elided lines stay as they are.

use std::ops::Range;

use super::hints::choose;
use super::locate::{split_lines, Locator, Miss, Placed};
use super::passes::{Lines, Pass};
use crate::model::Replace;

/// Why a search with elisions was not applied.
#[derive(Clone, Debug, PartialEq)]
pub enum ElisionMiss {
    /// A marker at the search's start or end, or two in a row: the lines
    /// it stands for have no bound on one side. `at`: where the bounded
    /// pieces match (current 0-based lines), if anywhere.
    Open { at: Vec<usize> },
    /// The replacement has markers, but not as many as the search: which
    /// elided span it keeps is not determined.
    Count {
        search: usize,
        replace: usize,
        at: Vec<usize>,
    },
    /// Piece `piece` (0-based; its search lines `lines`) matches nowhere.
    PieceNotFound {
        piece: usize,
        lines: Range<usize>,
        at: Vec<usize>,
    },
}

impl Locator<'_> {
    /// A search with elision markers (`FORMATS.md` §3 "Elisions"), tried
    /// when the search as written matched nothing: `None` when it has no
    /// marker.
    pub fn elided(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
    ) -> Option<Result<Placed, Miss>> {
        self.elided_from(lines, r, hint, 0)
    }

    /// [`Locator::elided`] with every piece at or after line `from` (a
    /// diff hunk after the previous one).
    pub fn elided_from(
        &self,
        lines: &Lines,
        r: &Replace,
        hint: Option<usize>,
        from: usize,
    ) -> Option<Result<Placed, Miss>> {
        let search = split_lines(&r.search, r.unit);
        let kind = cutting(&search)?;
        let ranges = pieces(&search, kind)?;
        if r.replace_all {
            return None;
        }
        let replace = split_lines(&r.replace, r.unit);
        Some(self.elided_in(lines, r, &search, &replace, (&ranges, kind), (hint, from)))
    }

    fn elided_in(
        &self,
        lines: &Lines,
        r: &Replace,
        search: &[&str],
        replace: &[&str],
        (ranges, kind): (&[Range<usize>], Marker),
        (hint, from): (Option<usize>, usize),
    ) -> Result<Placed, Miss> {
        let open = |p: &Range<usize>| search[p.clone()].iter().all(|l| l.trim().is_empty());
        // Where the bounded pieces match, to name the place in a refusal.
        let at = || {
            ranges
                .iter()
                .filter(|p| !open(p))
                .find_map(|p| self.line_candidates(lines, &search[p.clone()]))
                .map(|(_, starts)| starts)
                .unwrap_or_default()
        };
        if ranges.iter().any(open) {
            return Err(Miss::Elision(ElisionMiss::Open { at: at() }));
        }
        // Markers mirrored in the replacement keep the elided lines. None
        // there reads two ways (the span rewritten, or the marker left out
        // by mistake), as does another number: refused.
        let rr = match pieces(replace, kind) {
            Some(rr) if rr.len() == ranges.len() => rr,
            other => {
                return Err(Miss::Elision(ElisionMiss::Count {
                    search: ranges.len() - 1,
                    replace: other.map_or(0, |rr| rr.len() - 1),
                    at: at(),
                }))
            }
        };
        let mut passes: Vec<Pass> = Vec::with_capacity(ranges.len());
        let mut starts: Vec<Vec<usize>> = Vec::with_capacity(ranges.len());
        for (i, p) in ranges.iter().enumerate() {
            match self.line_candidates_where(lines, &search[p.clone()], |s| s >= from) {
                Some((pass, s)) => {
                    passes.push(pass);
                    starts.push(s);
                }
                None => {
                    return Err(Miss::Elision(ElisionMiss::PieceNotFound {
                        piece: i,
                        lines: p.clone(),
                        at: at(),
                    }))
                }
            }
        }
        let lens: Vec<usize> = ranges.iter().map(|p| p.len()).collect();
        let mut ways = fits(&starts, &lens);
        if ways.len() > 1 {
            // Pieces the edit leaves as they are write the same text
            // wherever they fit: the ways differ only if a changed piece
            // has two places (`FORMATS.md` §3: two readings that give the
            // same text are one reading).
            let changed: Vec<bool> = (0..ranges.len())
                .map(|i| search[ranges[i].clone()] != replace[rr[i].clone()])
                .collect();
            if let Some(way) = one_text_way(&starts, &lens, &changed) {
                ways = vec![way];
            }
        }
        if ways.is_empty() {
            // Every piece matches, never in order.
            return Err(Miss::NotFound { near: None });
        }
        let last = ranges.len() - 1;
        // Ways that differ are named by the first piece they place apart.
        let apart = (0..ranges.len())
            .find(|&i| ways.iter().any(|w| w[i] != ways[0][i]))
            .unwrap_or(0);
        let way = choose(
            &ways,
            false,
            hint,
            |w| w[0],
            |w| w[apart]..w[apart] + lens[apart] - 1,
        )?
        .remove(0);
        (0..ranges.len())
            .map(|i| {
                let m = way[i]..way[i] + lens[i];
                let file: Vec<&str> = m.clone().map(|k| lines.line(k)).collect();
                let new_lines = self.build(
                    passes[i],
                    &file,
                    &search[ranges[i].clone()],
                    &replace[rr[i].clone()],
                    m.clone(),
                    Some(lines),
                    &[],
                )?;
                // Pieces before a marker end at a line end, and so does a
                // deleted last piece (its lines go whole).
                let piece = if i == last && !rr[i].is_empty() {
                    r.clone()
                } else {
                    Replace::lines("", "")
                };
                Ok(self.written_lines(lines, m, &new_lines, &piece))
            })
            .collect()
    }
}

/// Words an elision marker may carry besides its dots ("existing code",
/// "rest unchanged", "other methods"...): short, no code characters.
const MAX_MARKER_WORDS: usize = 6;

/// An elision marker: `...` or `…` alone (bare: also Python's `Ellipsis`
/// and prose), or in a comment and/or with a few words (written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Bare,
    Written,
}

/// Whether `line` is only an elision marker.
pub fn is_marker(line: &str) -> bool {
    marker(line).is_some()
}

/// The kind of elision marker `line` is: `...` or `…`, optionally in a line
/// comment (`//`, `#`, `--`, `;`) or a block comment (`/* */`, `<!-- -->`),
/// optionally with a few words around the dots.
pub fn marker(line: &str) -> Option<Marker> {
    let bare = matches!(line.trim(), "..." | "…");
    let mut t = line.trim();
    for (open, close) in [("<!--", "-->"), ("/*", "*/"), ("{/*", "*/}")] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            t = inner.trim();
            break;
        }
    }
    for open in ["//", "#", "--", ";"] {
        if let Some(rest) = t.strip_prefix(open) {
            t = rest.trim();
            break;
        }
    }
    let dots = |s: &str| s.starts_with("...") || s.starts_with('…');
    let words = t.trim_matches(|c| c == '.' || c == '…' || c == ' ');
    let has_dots = dots(t) || t.ends_with("...") || t.ends_with('…');
    let is = has_dots
        && words.split_whitespace().count() <= MAX_MARKER_WORDS
        && words
            .chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || c == '\'' || c == '-' || c == ',');
    match (is, bare) {
        (false, _) => None,
        (true, true) => Some(Marker::Bare),
        (true, false) => Some(Marker::Written),
    }
}

/// Which markers cut a search: written ones when it has any (a bare `...`
/// beside them is a line of code or prose: Python's `Ellipsis`, a
/// docstring's example), else bare ones; `None` when it has no marker.
pub fn cutting(lines: &[&str]) -> Option<Marker> {
    let kinds: Vec<Marker> = lines.iter().filter_map(|l| marker(l)).collect();
    if kinds.contains(&Marker::Written) {
        Some(Marker::Written)
    } else {
        kinds.first().copied()
    }
}

/// The pieces of `lines` between its markers of kind `kind` (line
/// ranges), or `None` when it has no such marker.
pub fn pieces(lines: &[&str], kind: Marker) -> Option<Vec<Range<usize>>> {
    let markers: Vec<usize> = (0..lines.len())
        .filter(|&i| marker(lines[i]) == Some(kind))
        .collect();
    if markers.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(markers.len() + 1);
    let mut start = 0;
    for &m in &markers {
        out.push(start..m);
        start = m + 1;
    }
    out.push(start..lines.len());
    Some(out)
}

/// How the pieces fit: the start line of each piece, for every way they
/// fit in order (each piece after the previous one's end), stopping at two.
/// `starts[i]` are piece `i`'s candidate start lines, ascending; `lens[i]`
/// its length.
pub fn fits(starts: &[Vec<usize>], lens: &[usize]) -> Vec<Vec<usize>> {
    let mut found = Vec::new();
    let mut chain = Vec::with_capacity(starts.len());
    walk(starts, lens, 0, 0, &mut chain, &mut found);
    found
}

/// The start lines of every piece at which some in-order way fits it.
pub fn feasible(starts: &[Vec<usize>], lens: &[usize]) -> Vec<Vec<usize>> {
    let n = starts.len();
    // earliest[i]: where the pieces before `i` end at the earliest.
    let mut earliest = vec![0; n];
    let mut end = 0;
    for i in 0..n {
        earliest[i] = end;
        match starts[i].iter().find(|&&s| s >= end) {
            Some(&s) => end = s + lens[i],
            None => return vec![Vec::new(); n],
        }
    }
    // latest[i]: where the pieces from `i + 1` on start at the latest.
    let mut latest = vec![usize::MAX; n];
    let mut bound = usize::MAX;
    for i in (0..n).rev() {
        latest[i] = bound;
        match starts[i]
            .iter()
            .rev()
            .find(|&&s| s.saturating_add(lens[i]) <= bound)
        {
            Some(&s) => bound = s,
            None => return vec![Vec::new(); n],
        }
    }
    (0..n)
        .map(|i| {
            starts[i]
                .iter()
                .copied()
                .filter(|&s| s >= earliest[i] && s + lens[i] <= latest[i])
                .collect()
        })
        .collect()
}

/// The one way the pieces fit as far as the text goes: every `changed`
/// piece (at least one) has one place; the others take their earliest
/// place in order. `None` when a changed piece has two places.
fn one_text_way(starts: &[Vec<usize>], lens: &[usize], changed: &[bool]) -> Option<Vec<usize>> {
    if !changed.contains(&true) {
        return None;
    }
    let places = feasible(starts, lens);
    if (0..places.len()).any(|i| changed[i] && places[i].len() != 1) {
        return None;
    }
    let mut way = Vec::with_capacity(places.len());
    let mut end = 0;
    for (i, p) in places.iter().enumerate() {
        let s = *p.iter().find(|&&s| s >= end)?;
        way.push(s);
        end = s + lens[i];
    }
    Some(way)
}

fn walk(
    starts: &[Vec<usize>],
    lens: &[usize],
    i: usize,
    from: usize,
    chain: &mut Vec<usize>,
    found: &mut Vec<Vec<usize>>,
) {
    if found.len() >= 2 {
        return;
    }
    if i == starts.len() {
        found.push(chain.clone());
        return;
    }
    for &s in starts[i].iter().filter(|&&s| s >= from) {
        chain.push(s);
        walk(starts, lens, i + 1, s + lens[i], chain, found);
        chain.pop();
        if found.len() >= 2 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_dots_alone_or_in_a_comment_with_a_few_words() {
        for m in [
            "...",
            "    …",
            "// ... existing code ...",
            "    # ... rest unchanged",
            "/* ... */",
            "<!-- ... -->",
            "  // ...",
            "# rest of the file ...",
        ] {
            assert!(is_marker(m), "{m}");
        }
        for code in [
            "x = ...",
            "print('...')",
            "f(...args)",
            "// see foo() ...",
            "return ...;",
            "",
            "..",
        ] {
            assert!(!is_marker(code), "{code}");
        }
    }

    #[test]
    fn pieces_lie_between_markers() {
        let lines = ["a", "b", "// ...", "c"];
        assert_eq!(pieces(&lines, Marker::Written), Some(vec![0..2, 3..4]));
        assert_eq!(pieces(&["a", "b"], Marker::Bare), None);
        assert_eq!(pieces(&["...", "a"], Marker::Bare), Some(vec![0..0, 1..2]));
        // A bare `...` beside a written marker is a line.
        let lines = ["a", "    # ...", "b", "    ...", "c"];
        assert_eq!(cutting(&lines), Some(Marker::Written));
        assert_eq!(pieces(&lines, Marker::Written), Some(vec![0..1, 2..5]));
    }

    #[test]
    fn a_changed_piece_with_one_place_is_one_reading() {
        // Unchanged piece 0 at 0 or 10, changed piece 1 at 20: one text.
        let starts = [vec![0, 10], vec![20]];
        assert_eq!(fits(&starts, &[2, 1]).len(), 2);
        assert_eq!(
            one_text_way(&starts, &[2, 1], &[false, true]),
            Some(vec![0, 20])
        );
        // The changed piece 0 at 0 or 10: two texts.
        assert_eq!(one_text_way(&starts, &[2, 1], &[true, false]), None);
        // Changed piece 1 at 5 or 20, but only 20 lies after piece 0 at 10.
        let starts = [vec![10], vec![5, 20]];
        assert_eq!(feasible(&starts, &[2, 1]), vec![vec![10], vec![20]]);
        // Piece 1 at 30 is out of reach of piece 2 at 25.
        let starts = [vec![0], vec![3, 30], vec![25]];
        assert_eq!(
            feasible(&starts, &[1, 1, 1]),
            vec![vec![0], vec![3], vec![25]]
        );
    }

    #[test]
    fn fits_count_every_way_in_order() {
        // Piece 0 at 0 or 10, piece 1 at 5: one way.
        assert_eq!(fits(&[vec![0, 10], vec![5]], &[2, 1]), vec![vec![0, 5]]);
        // Piece 1 at 5 or 7 after piece 0 at 0: two ways.
        assert_eq!(fits(&[vec![0], vec![5, 7]], &[2, 1]).len(), 2);
        // Out of order: none.
        assert!(fits(&[vec![6], vec![5]], &[1, 1]).is_empty());
    }
}
