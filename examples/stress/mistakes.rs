//! The mistakes models make in edit payloads (`../shared/stress/README.md`),
//! one function each. A mistake perturbs a draft the way a model would and
//! keeps the author's intent (the real "after" file) recoverable: changed
//! lines keep their content, except for whitespace, indentation and line
//! numbers. A mistake that cannot apply to a draft returns `false`.

use rapidfuzz::distance::levenshtein;

use crate::draft::{Context, Draft, Hunk, Seg};
use crate::rng::Rng;

/// Every mistake, `none` first.
pub const ALL: [&str; 19] = [
    "none",
    "indent_block",
    "indent_line",
    "trailing_ws_payload",
    "trailing_ws_file",
    "tabs_spaces",
    "truncate_first",
    "truncate_last",
    "line_numbers",
    "short_ctx",
    "short_ctx_stale",
    "crlf_file",
    "blank_edge_added",
    "blank_edge_dropped",
    "blank_inner_dropped",
    "elide",
    "dup_blend",
    "post_edit_ctx",
    "double_escape",
];

/// The context a mistake needs around each region.
pub fn context(mistake: &str) -> Context {
    match mistake {
        "short_ctx" | "short_ctx_stale" => Context::Short,
        "elide" => Context::Wide,
        _ => Context::Normal,
    }
}

/// Applies `mistake` to `d`; `hints` says whether the format writes line
/// hints. `false` when the mistake does not fit this draft.
pub fn apply(mistake: &str, d: &mut Draft, hints: bool, rng: &mut Rng) -> bool {
    match mistake {
        "none" | "short_ctx" => true,
        "indent_block" => indent_block(d, rng),
        "indent_line" => indent_line(d, rng),
        "trailing_ws_payload" => trailing_ws_payload(d, rng),
        "trailing_ws_file" => trailing_ws_file(d, rng),
        "tabs_spaces" => tabs_spaces(d, rng),
        "truncate_first" => truncate(d, true, rng),
        "truncate_last" => truncate(d, false, rng),
        "line_numbers" => line_numbers(d, rng),
        "short_ctx_stale" => hints && stale_hints(d, rng),
        "crlf_file" => {
            d.crlf = true;
            true
        }
        "blank_edge_added" => blank_edge_added(d, rng),
        "blank_edge_dropped" => blank_edge_dropped(d, rng),
        "blank_inner_dropped" => blank_inner_dropped(d, rng),
        "elide" => elide(d, rng),
        "dup_blend" => dup_blend(d, rng),
        "post_edit_ctx" => post_edit_ctx(d, rng),
        // String tools only (`case::build`), and only where every
        // `old_string` has a line break to escape: a one-line `old_string`
        // matches as written, and its `new_string`'s literal `\n` may be
        // meant (a string literal's escape), so the intent is not
        // recoverable there.
        "double_escape" => {
            d.double_escape = true;
            d.hunks.iter().all(|h| h.search().len() > 1)
        }
        other => panic!("unknown mistake `{other}`"),
    }
}

/// One of the items, or `None` when there are none.
fn choose<T: Copy>(items: &[T], rng: &mut Rng) -> Option<T> {
    (!items.is_empty()).then(|| *rng.pick(items))
}

/// Up to `k` distinct indices below `n`.
fn distinct(n: usize, k: usize, rng: &mut Rng) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    while out.len() < k && !all.is_empty() {
        out.push(all.swap_remove(rng.below(all.len())));
    }
    out
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Whole hunk (search and replacement) shifted one level in or out.
fn indent_block(d: &mut Draft, rng: &mut Rng) -> bool {
    let unit = d.indent_unit();
    let h = rng.below(d.hunks.len());
    let hunk = &mut d.hunks[h];
    let can_dedent = hunk
        .lines_mut()
        .all(|l| is_blank(l) || l.starts_with(&unit));
    let dedent = can_dedent && rng.chance(1, 2);
    for line in hunk.lines_mut().filter(|l| !is_blank(l)) {
        if dedent {
            line.drain(..unit.len());
        } else {
            line.insert_str(0, &unit);
        }
    }
    true
}

/// Where a search line lives: segment, and the line within a change.
#[derive(Clone, Copy)]
struct At {
    hunk: usize,
    seg: usize,
    /// `None` for context, `Some(i)` for `old[i]` of a change.
    old: Option<usize>,
}

/// Every search line of every hunk that satisfies `keep`.
fn search_lines(d: &Draft, keep: impl Fn(&str, bool) -> bool) -> Vec<At> {
    let mut out = Vec::new();
    for (hunk, h) in d.hunks.iter().enumerate() {
        for (seg, s) in h.segs.iter().enumerate() {
            match s {
                Seg::Ctx { s, .. } if keep(s, true) => out.push(At {
                    hunk,
                    seg,
                    old: None,
                }),
                Seg::Chg { old, .. } => {
                    for (i, line) in old.iter().enumerate() {
                        if keep(line, false) {
                            out.push(At {
                                hunk,
                                seg,
                                old: Some(i),
                            });
                        }
                    }
                }
                Seg::Ctx { .. } => {}
            }
        }
    }
    out
}

/// Rewrites a search line (and its copy in the replacement, for context).
fn edit_line(d: &mut Draft, at: At, f: impl Fn(&mut String)) {
    match &mut d.hunks[at.hunk].segs[at.seg] {
        Seg::Ctx { s, r } => {
            f(s);
            f(r);
        }
        Seg::Chg { old, .. } => f(&mut old[at.old.expect("a change line")]),
    }
}

/// One search line mis-indented by a level (its replacement copy too).
fn indent_line(d: &mut Draft, rng: &mut Rng) -> bool {
    let unit = d.indent_unit();
    let Some(at) = choose(&search_lines(d, |l, _| !is_blank(l)), rng) else {
        return false;
    };
    let dedent = rng.chance(1, 2);
    edit_line(d, at, |l| {
        if dedent && l.starts_with(&unit) {
            l.drain(..unit.len());
        } else {
            l.insert_str(0, &unit);
        }
    });
    true
}

/// 1-3 context lines of the payload with trailing whitespace added (or
/// dropped, where the file has some), on both sides.
fn trailing_ws_payload(d: &mut Draft, rng: &mut Rng) -> bool {
    let lines = search_lines(d, |l, ctx| ctx && !is_blank(l));
    if lines.is_empty() {
        return false;
    }
    for i in distinct(lines.len(), rng.range(1, 3), rng) {
        let at = lines[i];
        let pad = *rng.pick(&[" ", "  ", "\t", "    "]);
        edit_line(d, at, |l| {
            if l.ends_with([' ', '\t']) {
                l.truncate(l.trim_end().len());
            } else {
                l.push_str(pad);
            }
        });
    }
    true
}

/// The file has trailing whitespace on 1-3 context lines; the payload not.
fn trailing_ws_file(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut places = Vec::new();
    for h in 0..d.hunks.len() {
        places.extend(d.ctx_positions(h));
    }
    places.retain(|&(b, _)| !is_blank(&d.before[b]) && !d.before[b].ends_with([' ', '\t']));
    if places.is_empty() {
        return false;
    }
    for i in distinct(places.len(), rng.range(1, 3), rng) {
        let (b, a) = places[i];
        let pad = *rng.pick(&[" ", "  ", "\t"]);
        d.before[b].push_str(pad);
        d.after[a].push_str(pad);
        d.block_trims.push(a);
    }
    true
}

/// A tab-indented file written with spaces (width 2, 4 or 8), or a
/// space-indented one with tabs: the whole payload.
fn tabs_spaces(d: &mut Draft, rng: &mut Rng) -> bool {
    let tabs = d.uses_tabs();
    let unit = d.indent_unit().len();
    let width = *rng.pick(&[2, 4, 8]);
    let mut changed = false;
    for hunk in &mut d.hunks {
        for line in hunk.lines_mut() {
            let body = line.trim_start_matches([' ', '\t']);
            let indent = &line[..line.len() - body.len()];
            let rewritten = if tabs {
                indent.replace('\t', &" ".repeat(width))
            } else {
                let spaces = indent.chars().filter(|&c| c == ' ').count();
                format!(
                    "{}{}",
                    "\t".repeat(spaces / unit),
                    " ".repeat(spaces % unit)
                )
            };
            if rewritten != indent {
                *line = format!("{rewritten}{body}");
                changed = true;
            }
        }
    }
    changed
}

/// Where a line may be cut to a prefix that keeps ≥ 8 non-blank chars and
/// drops at least one; cut points after a blank are avoided.
fn cut_points(line: &str) -> Vec<usize> {
    let mut nonblank = 0;
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (i, &(_, c)) in chars.iter().enumerate() {
        if !c.is_whitespace() {
            nonblank += 1;
        }
        let end = chars.get(i + 1).map_or(line.len(), |&(b, _)| b);
        if nonblank >= 8 && end < line.len() && !c.is_whitespace() {
            out.push(end);
        }
    }
    out
}

/// The first (or last) search line of a hunk cut short; its replacement
/// copy too when it is context.
fn truncate(d: &mut Draft, first: bool, rng: &mut Rng) -> bool {
    let mut edges = Vec::new();
    for (hunk, h) in d.hunks.iter().enumerate() {
        let lines = search_lines_of(h, hunk);
        let edge = if first { lines.first() } else { lines.last() };
        if let Some((at, text)) = edge {
            if !cut_points(text).is_empty() {
                edges.push((*at, text.clone()));
            }
        }
    }
    let Some(i) = (!edges.is_empty()).then(|| rng.below(edges.len())) else {
        return false;
    };
    let (at, text) = edges.swap_remove(i);
    let cut = *rng.pick(&cut_points(&text));
    edit_line(d, at, |l| l.truncate(cut));
    true
}

/// The search lines of one hunk with where they live.
fn search_lines_of(h: &Hunk, hunk: usize) -> Vec<(At, String)> {
    let mut out = Vec::new();
    for (seg, s) in h.segs.iter().enumerate() {
        match s {
            Seg::Ctx { s, .. } => out.push((
                At {
                    hunk,
                    seg,
                    old: None,
                },
                s.clone(),
            )),
            Seg::Chg { old, .. } => {
                for (i, l) in old.iter().enumerate() {
                    out.push((
                        At {
                            hunk,
                            seg,
                            old: Some(i),
                        },
                        l.clone(),
                    ));
                }
            }
        }
    }
    out
}

/// Every search line prefixed with its file line number as a `read_file`
/// view shows it; the replacement numbered too, half of the time.
fn line_numbers(d: &mut Draft, rng: &mut Rng) -> bool {
    let style = rng.below(4);
    let number = |n: usize| match style {
        0 => format!("{n} | "),
        1 => format!("{n}: "),
        2 => format!("{n:>6}\t"),
        _ => format!("{n:>6}→"),
    };
    let replacement_too = rng.chance(1, 2);
    for hunk in &mut d.hunks {
        let (mut s_no, mut r_no) = (hunk.before_start + 1, hunk.before_start + 1);
        for seg in &mut hunk.segs {
            match seg {
                Seg::Ctx { s, r } => {
                    s.insert_str(0, &number(s_no));
                    s_no += 1;
                    if replacement_too {
                        r.insert_str(0, &number(r_no));
                        r_no += 1;
                    }
                }
                Seg::Chg { old, new } => {
                    for l in old {
                        l.insert_str(0, &number(s_no));
                        s_no += 1;
                    }
                    for l in new.iter_mut().filter(|_| replacement_too) {
                        l.insert_str(0, &number(r_no));
                        r_no += 1;
                    }
                }
            }
        }
    }
    true
}

/// Every hunk's line hint off by 5-300 lines (the context is short).
fn stale_hints(d: &mut Draft, rng: &mut Rng) -> bool {
    for hunk in &mut d.hunks {
        let truth = hunk.before_start + 1;
        let off = rng.range(5, 300);
        hunk.stale_hint = Some(if truth > off && rng.chance(1, 2) {
            truth - off
        } else {
            truth + off
        });
    }
    true
}

/// A blank line added at an edge of the search (and of the replacement),
/// where the file has none.
fn blank_edge_added(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut edges = Vec::new();
    for (h, hunk) in d.hunks.iter().enumerate() {
        if hunk.before_start == 0 || !is_blank(&d.before[hunk.before_start - 1]) {
            edges.push((h, true));
        }
        let end = hunk.before_start + hunk.before_len;
        if d.before.get(end).is_none_or(|l| !is_blank(l)) {
            edges.push((h, false));
        }
    }
    let Some((h, start)) = choose(&edges, rng) else {
        return false;
    };
    let blank = crate::draft::ctx("");
    let segs = &mut d.hunks[h].segs;
    if start {
        segs.insert(0, blank);
    } else {
        segs.push(blank);
    }
    true
}

/// A blank context line dropped from an edge of the search (and of the
/// replacement).
fn blank_edge_dropped(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut edges = Vec::new();
    for (h, hunk) in d.hunks.iter().enumerate() {
        let n = hunk.segs.len();
        for (i, start) in [(0, true), (n - 1, false)] {
            if matches!(&hunk.segs[i], Seg::Ctx { s, .. } if is_blank(s)) && hunk.search().len() > 1
            {
                edges.push((h, i, start));
            }
        }
    }
    let Some((h, i, start)) = choose(&edges, rng) else {
        return false;
    };
    let hunk = &mut d.hunks[h];
    hunk.segs.remove(i);
    hunk.before_len -= 1;
    if start {
        hunk.before_start += 1;
        hunk.after_start += 1;
    }
    !hunk.search().is_empty()
}

/// A blank context line dropped from inside the search (and replacement).
fn blank_inner_dropped(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut inner = Vec::new();
    for (h, hunk) in d.hunks.iter().enumerate() {
        for i in 1..hunk.segs.len().saturating_sub(1) {
            if matches!(&hunk.segs[i], Seg::Ctx { s, .. } if is_blank(s)) {
                inner.push((h, i));
            }
        }
    }
    let Some((h, i)) = choose(&inner, rng) else {
        return false;
    };
    d.hunks[h].segs.remove(i);
    true
}

/// A run of ≥ 3 unchanged lines inside the search replaced by an elision
/// line, mirrored in the replacement.
fn elide(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut runs = Vec::new();
    for (h, hunk) in d.hunks.iter().enumerate() {
        let is_ctx: Vec<bool> = hunk
            .segs
            .iter()
            .map(|s| matches!(s, Seg::Ctx { .. }))
            .collect();
        for start in 1..is_ctx.len() {
            let len = is_ctx[start..].iter().take_while(|&&c| c).count();
            // Keep at least one line after the run.
            for run in 3..=len.min(6) {
                if start + run < is_ctx.len() {
                    runs.push((h, start, run));
                }
            }
        }
    }
    let Some((h, start, run)) = choose(&runs, rng) else {
        return false;
    };
    let segs = &mut d.hunks[h].segs;
    let first = segs[start..start + run]
        .iter()
        .find_map(|s| match s {
            Seg::Ctx { s, .. } if !is_blank(s) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let indent = &first[..first.len() - first.trim_start().len()];
    let comment = if d.lang == "python" { "#" } else { "//" };
    let tail = *rng.pick(&["... existing code ...", "...", "... rest unchanged"]);
    let line = format!("{indent}{comment} {tail}");
    segs.splice(start..start + run, [crate::draft::ctx(&line)]);
    true
}

/// Similarity of two lines in [0, 1].
fn similarity(a: &str, b: &str) -> f64 {
    levenshtein::normalized_similarity(a.trim().chars(), b.trim().chars())
}

/// One context line replaced by its counterpart in a near-duplicate region
/// elsewhere in the file (the most similar line, its neighbours counting).
fn dup_blend(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut best: Option<(f64, At, usize)> = None;
    for (h, hunk) in d.hunks.iter().enumerate() {
        let window = hunk.before_start..hunk.before_start + hunk.before_len;
        let positions = d.ctx_positions(h);
        let ctx_segs = hunk
            .segs
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Seg::Ctx { .. }));
        for ((seg, _), &(b, _)) in ctx_segs.zip(&positions) {
            let line = &d.before[b];
            if line.trim().len() < 6 {
                continue;
            }
            for (j, other) in d.before.iter().enumerate() {
                if window.contains(&j) || other.trim() == line.trim() || other.trim().len() < 6 {
                    continue;
                }
                let (la, lb) = (line.trim().len() as f64, other.trim().len() as f64);
                if la.min(lb) / la.max(lb) < 0.6 {
                    continue;
                }
                let sim = similarity(line, other);
                if sim < 0.6 {
                    continue;
                }
                let near = |db: Option<usize>, dj: Option<usize>| match (
                    db.and_then(|i| d.before.get(i)),
                    dj.and_then(|i| d.before.get(i)),
                ) {
                    (Some(x), Some(y)) => similarity(x, y),
                    _ => 0.0,
                };
                let score = sim
                    + 0.5
                        * (near(b.checked_sub(1), j.checked_sub(1))
                            + near(Some(b + 1), Some(j + 1)));
                // Ties broken by the case's generator, deterministically.
                let jitter = rng.below(1000) as f64 * 1e-9;
                if best.as_ref().is_none_or(|(s, ..)| score + jitter > *s) {
                    best = Some((
                        score + jitter,
                        At {
                            hunk: h,
                            seg,
                            old: None,
                        },
                        j,
                    ));
                }
            }
        }
    }
    let Some((_, at, j)) = best else {
        return false;
    };
    let other = d.before[j].clone();
    edit_line(d, at, |l| *l = other.clone());
    true
}

/// A changed line written in the search as it will be after the edit (the
/// edge line of a change taken from the after side). The change must keep
/// another line to change, or the payload would no longer say what to do.
fn post_edit_ctx(d: &mut Draft, rng: &mut Rng) -> bool {
    let mut spots = Vec::new();
    for (h, hunk) in d.hunks.iter().enumerate() {
        for (i, seg) in hunk.segs.iter().enumerate() {
            if let Seg::Chg { old, new } = seg {
                if old.is_empty() || new.is_empty() || old.len() + new.len() < 3 {
                    continue;
                }
                if old[0] != new[0] {
                    spots.push((h, i, true));
                }
                if old[old.len() - 1] != new[new.len() - 1] {
                    spots.push((h, i, false));
                }
            }
        }
    }
    let Some((h, i, leading)) = choose(&spots, rng) else {
        return false;
    };
    if let Seg::Chg { old, new } = &mut d.hunks[h].segs[i] {
        if leading {
            old[0] = new[0].clone();
        } else {
            let (o, n) = (old.len() - 1, new.len() - 1);
            old[o] = new[n].clone();
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::tests::sample_pair;

    fn draft(mistake: &str, seed: u64) -> (Draft, Draft, bool) {
        let pair = sample_pair();
        let mut rng = Rng::from_parts(&[seed]);
        let clean = Draft::build(&pair, context(mistake), &mut rng);
        let mut d = clean.clone();
        let applied = apply(mistake, &mut d, true, &mut rng);
        (clean, d, applied)
    }

    /// The changed lines' content (indentation and numbers aside).
    fn changes(d: &Draft) -> Vec<String> {
        let mut out = Vec::new();
        for h in &d.hunks {
            for s in &h.segs {
                if let Seg::Chg { new, .. } = s {
                    out.extend(new.iter().map(|l| l.trim().to_owned()));
                }
            }
        }
        out
    }

    #[test]
    fn every_mistake_changes_the_draft_and_keeps_the_changes() {
        for mistake in ALL {
            let mut applied_once = false;
            for seed in 0..40 {
                let (clean, d, applied) = draft(mistake, seed);
                if !applied {
                    continue;
                }
                applied_once = true;
                if mistake == "none" || mistake == "short_ctx" {
                    assert_eq!(d, clean);
                    continue;
                }
                assert_ne!(d, clean, "{mistake} changed nothing (seed {seed})");
                if !matches!(mistake, "line_numbers" | "post_edit_ctx") {
                    assert_eq!(
                        changes(&d),
                        changes(&clean),
                        "{mistake} altered the inserted lines"
                    );
                }
            }
            assert!(applied_once, "{mistake} never applied");
        }
    }

    #[test]
    fn post_edit_context_leaves_a_change_to_make() {
        for seed in 0..40 {
            let (_, d, applied) = draft("post_edit_ctx", seed);
            assert!(applied);
            assert!(
                d.hunks.iter().all(|h| h.search() != h.replace()),
                "seed {seed}"
            );
        }
        // A one-line change written as already done would change nothing.
        let mut pair = sample_pair();
        pair.after = pair
            .before
            .replace("    return a + b\n", "    return b + a\n");
        pair.regions = vec![[5, 6, 5, 6]];
        let mut rng = Rng::from_parts(&[1]);
        let mut d = Draft::build(&pair, Context::Normal, &mut rng);
        assert!(!apply("post_edit_ctx", &mut d, false, &mut rng));
    }

    /// Every line of the drafts' hunks, search and replacement, in order.
    fn all_lines(d: &Draft) -> Vec<String> {
        let mut d = d.clone();
        d.hunks
            .iter_mut()
            .flat_map(|h| h.lines_mut().map(|l| l.clone()).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn every_mistake_changes_only_what_it_should() {
        for mistake in ALL {
            for seed in 0..40 {
                let (clean, d, applied) = draft(mistake, seed);
                if !applied {
                    continue;
                }
                let file_mistake = matches!(mistake, "trailing_ws_file" | "crlf_file");
                // `double_escape` keeps the lines: the string tools' renderer
                // escapes them (`formats::string_pair`, tested there).
                let payload_kept =
                    file_mistake || matches!(mistake, "none" | "short_ctx" | "double_escape");
                assert_eq!(
                    payload_kept,
                    d.hunks == clean.hunks,
                    "{mistake}: the payload changes unless the file does"
                );
                if !file_mistake {
                    assert_eq!(
                        (&d.before, &d.after),
                        (&clean.before, &clean.after),
                        "{mistake} changed the file"
                    );
                }
                let (got, was) = (all_lines(&d), all_lines(&clean));
                let same_count = got.len() == was.len();
                let pairs = got.iter().zip(&was);
                let differing = pairs.clone().filter(|(g, w)| g != w).count();
                match mistake {
                    "indent_block" | "tabs_spaces" => {
                        assert!(
                            same_count
                                && pairs.clone().all(|(g, w)| g.trim_start() == w.trim_start()),
                            "{mistake}"
                        )
                    }
                    // One search line, and its replacement copy when it is context.
                    "indent_line" => {
                        assert!(same_count && (1..=2).contains(&differing), "{mistake}")
                    }
                    "trailing_ws_payload" => {
                        assert!(
                            same_count && pairs.clone().all(|(g, w)| g.trim_end() == w.trim_end()),
                            "{mistake}"
                        )
                    }
                    "line_numbers" => assert!(
                        same_count && pairs.clone().all(|(g, w)| g.ends_with(w.as_str())),
                        "{mistake}"
                    ),
                    "truncate_first" | "truncate_last" | "dup_blend" => {
                        assert!(same_count && (1..=2).contains(&differing), "{mistake}")
                    }
                    "blank_edge_added" => assert_eq!(
                        got.len(),
                        was.len() + 2,
                        "{mistake}: one blank line, both sides"
                    ),
                    "blank_edge_dropped" | "blank_inner_dropped" => {
                        assert_eq!(
                            got.len() + 2,
                            was.len(),
                            "{mistake}: one blank line, both sides"
                        )
                    }
                    "post_edit_ctx" => assert!(same_count && differing == 1, "{mistake}"),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn file_mistakes_change_before_and_after_alike() {
        for seed in 0..20 {
            let (clean, d, _) = draft("trailing_ws_file", seed);
            assert_eq!(d.hunks, clean.hunks, "the payload is untouched");
            let changed: Vec<usize> = (0..d.before.len())
                .filter(|&i| d.before[i] != clean.before[i])
                .collect();
            assert!(!changed.is_empty());
            for i in changed {
                assert_eq!(d.before[i].trim_end(), clean.before[i]);
            }
            // The real change, applied to the changed file, gives the changed after.
            let mut rebuilt: Vec<&String> = Vec::new();
            let mut next = 0;
            for &[b0, b1, a0, a1] in &sample_pair().regions {
                rebuilt.extend(&d.before[next..b0]);
                rebuilt.extend(&d.after[a0..a1]);
                next = b1;
            }
            rebuilt.extend(&d.before[next..]);
            assert_eq!(rebuilt, d.after.iter().collect::<Vec<_>>());
            let (_, d, _) = draft("crlf_file", seed);
            assert!(d.before_text().contains("\r\n") && d.after_text().ends_with("\r\n"));
        }
    }

    #[test]
    fn truncation_keeps_a_prefix_of_eight_non_blank_chars() {
        assert!(cut_points("    return a + b")
            .iter()
            .all(|&c| c >= "    return".len()));
        assert!(cut_points("  short").is_empty());
        for seed in 0..20 {
            let (clean, d, applied) = draft("truncate_last", seed);
            assert!(applied);
            let h = (0..d.hunks.len())
                .find(|&h| d.hunks[h] != clean.hunks[h])
                .expect("one hunk cut");
            let (cut, full) = (d.hunks[h].search(), clean.hunks[h].search());
            let (c, f) = (cut[cut.len() - 1], full[full.len() - 1]);
            assert!(f.starts_with(c) && c.len() < f.len());
            assert_eq!(cut[..cut.len() - 1], full[..full.len() - 1]);
        }
    }

    #[test]
    fn stale_hints_are_off_by_five_to_three_hundred() {
        for seed in 0..20 {
            let (_, d, _) = draft("short_ctx_stale", seed);
            for h in &d.hunks {
                let off = h.hint().abs_diff(h.before_start + 1);
                assert!((5..=300).contains(&off), "{off}");
            }
        }
    }
}
