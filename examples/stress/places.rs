//! Does one place fit? The careful-reader mistakes (`elide`,
//! `blank_inner_dropped`, `line_numbers`) are measured on the cases where
//! the payload, read with the mistake undone, fits the file at one place
//! only: there a careful reader applies the edit; elsewhere a refusal is
//! the right answer, not a miss.
//!
//! Computed from the draft and the file by plain line comparison (lines
//! compared with trailing whitespace trimmed), apart from the engine:
//!
//! - `elide`: every piece of each search between its markers matches the
//!   file at exactly one place, in order, and no marker opens or closes the
//!   search (`FORMATS.md` §3: "every piece between elisions must match
//!   once, in order").
//! - `blank_inner_dropped`: each search's non-blank lines match the file's
//!   non-blank lines at one place, and the blank line the search left out
//!   lies between two unchanged lines (with the rest of its run of blank
//!   lines, if any: which blank line of a run was left out is not known). A
//!   blank line left out next to changed lines has two places in the result
//!   (before or after the new lines), and real history has both: that is
//!   two readings, not one.
//! - `line_numbers`: each search, its prefixes stripped, matches one place.

use crate::draft::{Draft, Hunk, Seg};

/// `Some(true)` when every edit of the draft fits one place, `Some(false)`
/// when one fits several or none, `None` for mistakes this does not judge.
pub fn one_place(mistake: &str, draft: &Draft) -> Option<bool> {
    let file: Vec<&str> = draft.before.iter().map(|l| l.trim_end()).collect();
    let fits = |search: Vec<&str>| -> bool {
        match mistake {
            "elide" => elided_fits(&file, &search),
            "blank_inner_dropped" => {
                let keep = |v: &[&str]| -> Vec<String> {
                    v.iter()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| l.trim_end().to_string())
                        .collect()
                };
                count(&keep(&file), &keep(&search)) == 1
            }
            _ => {
                let stripped: Vec<String> = search
                    .iter()
                    .map(|l| strip_number(l).trim_end().to_string())
                    .collect();
                let file: Vec<String> = file.iter().map(|l| l.to_string()).collect();
                count(&file, &stripped) == 1
            }
        }
    };
    match mistake {
        "elide" | "line_numbers" => Some(draft.hunks.iter().all(|h| fits(h.search()))),
        "blank_inner_dropped" => Some(
            draft.hunks.iter().all(|h| fits(h.search()))
                && draft.hunks.iter().all(|h| dropped_between_kept(h, &file)),
        ),
        _ => None,
    }
}

/// Whether a blank file line the hunk's search left out (if any) lies
/// between two unchanged lines.
fn dropped_between_kept(hunk: &Hunk, file: &[&str]) -> bool {
    let mut at = hunk.before_start;
    for (k, seg) in hunk.segs.iter().enumerate() {
        let first = match seg {
            Seg::Ctx { s, .. } => Some(s.as_str()),
            Seg::Chg { old, .. } => old.first().map(String::as_str),
        };
        let left_out = file.get(at).is_some_and(|l| l.trim().is_empty())
            && first.is_some_and(|l| !l.trim().is_empty());
        if left_out {
            // Which blank line of a run the search left out is not known:
            // the run and the lines on both sides of it must be unchanged.
            let blank_ctx = |seg: &Seg| matches!(seg, Seg::Ctx { s, .. } if s.trim().is_empty());
            let mut a = k;
            while a > 0 && blank_ctx(&hunk.segs[a - 1]) {
                a -= 1;
            }
            let mut b = k;
            while b < hunk.segs.len() && blank_ctx(&hunk.segs[b]) {
                b += 1;
            }
            let kept = |seg: Option<&Seg>| matches!(seg, Some(Seg::Ctx { .. }));
            return a > 0 && kept(hunk.segs.get(a - 1)) && kept(hunk.segs.get(b));
        }
        at += match seg {
            Seg::Ctx { .. } => 1,
            Seg::Chg { old, .. } => old.len(),
        };
    }
    true
}

/// How many places `search` matches in `file`, whole lines (stops at 2).
fn count<S: AsRef<str>>(file: &[S], search: &[S]) -> usize {
    if search.is_empty() || search.len() > file.len() {
        return 0;
    }
    (0..=file.len() - search.len())
        .filter(|&i| {
            search
                .iter()
                .zip(&file[i..])
                .all(|(s, f)| s.as_ref().trim_end() == f.as_ref().trim_end())
        })
        .take(2)
        .count()
}

/// The pieces of an elided search each match once, in order.
fn elided_fits(file: &[&str], search: &[&str]) -> bool {
    // The markers the `elide` mistake writes.
    let marker = |l: &str| {
        let t = l.trim();
        t.starts_with("# ...") || t.starts_with("// ...")
    };
    let mut pieces: Vec<Vec<&str>> = vec![Vec::new()];
    for &l in search {
        if marker(l) {
            pieces.push(Vec::new());
        } else {
            pieces.last_mut().expect("one piece at least").push(l);
        }
    }
    if pieces.len() < 2 || pieces.iter().any(|p| p.iter().all(|l| l.trim().is_empty())) {
        return false;
    }
    let mut from = 0;
    for p in &pieces {
        let starts: Vec<usize> = (0..=file.len().saturating_sub(p.len()))
            .filter(|&i| i + p.len() <= file.len())
            .filter(|&i| p.iter().zip(&file[i..]).all(|(s, f)| s.trim_end() == *f))
            .collect();
        let [start] = starts[..] else {
            return false;
        };
        if start < from {
            return false;
        }
        from = start + p.len();
    }
    true
}

/// A line with its read-view number prefix (`12 | `, `12: `, `    12\t`,
/// `    12→`) taken off.
fn strip_number(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return line;
    }
    let rest = &t[digits..];
    for sep in [" | ", ": ", "\t", "→"] {
        if let Some(r) = rest.strip_prefix(sep) {
            return r;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_must_each_match_once_in_order() {
        let file = ["a", "b", "c", "d", "e", "b"];
        assert!(elided_fits(&file, &["a", "# ...", "d"]));
        // `b` twice in the file.
        assert!(!elided_fits(&file, &["a", "# ...", "b"]));
        // Out of order.
        assert!(!elided_fits(
            &file,
            &["d", "    // ... rest unchanged", "a"]
        ));
        // Open.
        assert!(!elided_fits(&file, &["# ...", "d"]));
    }

    #[test]
    fn a_blank_line_left_out_next_to_changes_has_two_places() {
        let ctx = |l: &str| Seg::Ctx {
            s: l.into(),
            r: l.into(),
        };
        let chg = Seg::Chg {
            old: vec!["c".into()],
            new: vec!["C".into()],
        };
        let hunk = |segs| Hunk {
            segs,
            before_start: 0,
            after_start: 0,
            before_len: 4,
            stale_hint: None,
        };
        let file = ["a", "", "b", "c"];
        assert!(dropped_between_kept(
            &hunk(vec![ctx("a"), ctx("b"), chg.clone()]),
            &file
        ));
        let file = ["a", "b", "", "c"];
        assert!(!dropped_between_kept(
            &hunk(vec![ctx("a"), ctx("b"), chg.clone()]),
            &file
        ));
        // One of two blank lines left out, the other next to a change.
        let file = ["a", "", "", "c"];
        assert!(!dropped_between_kept(
            &hunk(vec![ctx("a"), ctx(""), chg]),
            &file
        ));
    }

    #[test]
    fn numbers_are_stripped_in_every_style() {
        for l in ["12 | x", "12: x", "    12\tx", "    12→x"] {
            assert_eq!(strip_number(l), "x");
        }
        assert_eq!(strip_number("x: 1"), "x: 1");
    }
}
