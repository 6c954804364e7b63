//! Pure outputs of a run: the JSON report, unified diffs, summaries.

use serde::Serialize;

use std::borrow::Cow;
use std::ops::Range;

use crate::engine::{FileChange, Options, Outcome};
use crate::error::EditError;
use crate::plan::TextEdit;
use crate::text::lines::newlines;

/// The report bound (`docs/formats.md`, "Bounded reports"): the JSON
/// report and the text summary of a run are at most
/// `REPORT_FACTOR * payload bytes + REPORT_SLACK` bytes. Errors past the
/// bound are counted, not listed (`errors_omitted`).
pub const REPORT_FACTOR: usize = 4;
/// See [`REPORT_FACTOR`].
pub const REPORT_SLACK: usize = 64 * 1024;
/// The longest an error's message (or a quoted line of a near-match) is
/// in a report; longer ones end with `…`.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// The size bound of the report of a payload of `payload_len` bytes.
pub fn report_bound(payload_len: usize) -> usize {
    REPORT_FACTOR
        .saturating_mul(payload_len)
        .saturating_add(REPORT_SLACK)
}

/// The CLI's JSON report (`FORMATS.md` §7).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Everything applied (or would, with `--dry-run`); with `--partial`,
    /// what resolved was applied.
    pub applied: bool,
    /// The files changed.
    pub files: Vec<FileEntry<'a>>,
    /// The failures, in payload order, as many as the report bound holds.
    pub errors: Vec<Cow<'a, EditError>>,
    /// How many failures are left out of `errors` by the report bound.
    #[serde(skip_serializing_if = "is_zero")]
    pub errors_omitted: usize,
    /// Shell commands the response suggests; never run.
    pub suggestions: &'a [String],
    /// Changed files left with a parse error they did not have.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub warnings: &'a [crate::engine::SyntaxWarning],
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One file of the report.
#[derive(Debug, Serialize)]
pub struct FileEntry<'a> {
    /// Workspace-relative path (the new one for a rename).
    pub path: &'a str,
    /// `M`, `A`, `D`, `R` or `~M`.
    pub status: &'static str,
    /// The old path of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
    /// The payload edits that make the change.
    pub edits: &'a [usize],
}

/// `text` cut to [`MAX_MESSAGE_CHARS`] characters, ending with `…` when cut.
fn clipped(text: &str) -> Option<String> {
    let (cut, _) = text.char_indices().nth(MAX_MESSAGE_CHARS)?;
    Some(format!("{}…", &text[..cut]))
}

/// The error with its long texts clipped ([`MAX_MESSAGE_CHARS`]).
fn bounded_error(e: &EditError) -> Cow<'_, EditError> {
    let long_near = e
        .near
        .as_ref()
        .and_then(|n| n.differs_at.as_ref())
        .is_some_and(|(a, b)| clipped(a).is_some() || clipped(b).is_some());
    if clipped(&e.message).is_none() && !long_near {
        return Cow::Borrowed(e);
    }
    let mut e = e.clone();
    if let Some(m) = clipped(&e.message) {
        e.message = m;
    }
    if let Some((a, b)) = e.near.as_mut().and_then(|n| n.differs_at.as_mut()) {
        for t in [a, b] {
            if let Some(c) = clipped(t) {
                *t = c;
            }
        }
    }
    Cow::Owned(e)
}

impl<'a> Report<'a> {
    /// The report of an outcome of a payload of `payload_len` bytes, within
    /// [`report_bound`] (pretty-printed, as the CLI writes it).
    pub fn new(outcome: &'a Outcome, options: &Options, payload_len: usize) -> Report<'a> {
        let mut report = Report {
            applied: outcome.applicable(options)
                && !outcome.batch.preview
                && (outcome.errors.is_empty() || !outcome.files.is_empty()),
            files: outcome
                .files
                .iter()
                .map(|f| FileEntry {
                    path: f.path.as_str(),
                    status: f.status.code(),
                    from: f.from.as_ref().map(|p| p.as_str()),
                    edits: &f.edit_indices,
                })
                .collect(),
            errors: Vec::new(),
            errors_omitted: 0,
            suggestions: &outcome.batch.suggestions,
            warnings: &outcome.warnings,
        };
        // What is left of the bound once the rest is written (and room for
        // the `errors_omitted` count).
        let rest = serde_json::to_string_pretty(&report).map_or(0, |s| s.len()) + 64;
        let mut budget = report_bound(payload_len).saturating_sub(rest);
        for (i, e) in outcome.errors.iter().enumerate() {
            let e = bounded_error(e);
            // Pretty-printed inside the report, every line of the error is
            // indented by four more spaces; a comma and a newline part it
            // from the next.
            let size = serde_json::to_string_pretty(&*e)
                .map_or(0, |s| s.len() + 4 * (newlines(&s) + 1) + 2);
            if size > budget {
                report.errors_omitted = outcome.errors.len() - i;
                break;
            }
            budget -= size;
            report.errors.push(e);
        }
        report
    }
}

/// A unified diff of one file change (`a/` → `b/`), empty for no change.
pub fn unified_diff(change: &FileChange) -> String {
    let before = change.before.as_ref().map_or("", |b| b.text.as_str());
    let old_name = match (&change.before, &change.from) {
        (None, _) => "/dev/null".to_string(),
        (Some(_), Some(from)) => format!("a/{from}"),
        (Some(_), None) => format!("a/{}", change.path),
    };
    let new_name = if !change.exists_after() {
        "/dev/null".to_string()
    } else {
        format!("b/{}", change.path)
    };
    // Diff only the lines around each edit (the plan says where they
    // are): not the stretch from the first to the last, and without
    // joining or scanning the text after (one edit of a 10 MB file).
    let edits = change.edits.as_slice();
    if change.before.is_some() && change.exists_after() && !edits.is_empty() {
        if let Some(body) =
            edit_windows_diff(before, change.after_len(), edits, &old_name, &new_name)
        {
            return body;
        }
    }
    let after = change.after().unwrap_or("");
    // Diff only the lines between the common head and tail (plus context):
    // a one-line change in a 10 MB file must not tokenize the whole file.
    let (skip, before, after) = changed_window(before, after, DIFF_CONTEXT);
    let diff = similar::TextDiff::from_lines(before, after);
    let body = diff
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&old_name, &new_name)
        .to_string();
    let body = if skip == 0 {
        body
    } else {
        shift_hunk_headers(&body, skip)
    };
    if body.is_empty() && change.from.is_some() {
        return format!(
            "rename {} → {}\n",
            change.from.as_ref().map(|p| p.as_str()).unwrap_or(""),
            change.path
        );
    }
    body
}

/// Lines of context around each change in diffs.
const DIFF_CONTEXT: usize = 3;

/// The unified diff of `before` → after (`after_len` bytes) made of one
/// diff per cluster of `edits` (sorted, apart, taking `before` to after):
/// the lines each
/// cluster touches with [`DIFF_CONTEXT`] lines around, clusters closer
/// than twice that joined (as one diff of the whole would join their
/// hunks). `None` when the edits do not give `after`.
fn edit_windows_diff(
    before: &str,
    after_len: usize,
    edits: &[TextEdit],
    old_name: &str,
    new_name: &str,
) -> Option<String> {
    let b = before.as_bytes();
    // Lines are counted from one edit to the next (edits are sorted), and
    // windows found by searching a few newlines around each edit: the text
    // is scanned once, nothing is kept per line.
    let mut counted_to = 0;
    let mut counted = 0;
    let mut line_of = |at: usize| {
        if at < counted_to {
            (counted_to, counted) = (0, 0);
        }
        counted += newlines(&b[counted_to..at]);
        counted_to = at;
        // A last newline ends the last line: it starts none.
        if at == b.len() && before.ends_with('\n') {
            counted - 1
        } else {
            counted
        }
    };
    // The start of the line `up` lines above the one holding `at` (the end
    // of a text that ends with a newline is on its last line).
    let line_start_above = |at: usize, up: usize| {
        let at = if at == b.len() && before.ends_with('\n') {
            at - 1
        } else {
            at
        };
        let mut start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1);
        for _ in 0..up {
            if start == 0 {
                break;
            }
            start = memchr::memrchr(b'\n', &b[..start - 1]).map_or(0, |i| i + 1);
        }
        start
    };
    // The start of the line `down` lines below the one holding `at` (the
    // end of the text when there are fewer).
    let line_start_below = |at: usize, down: usize| {
        let mut at = at;
        for _ in 0..down {
            match memchr::memchr(b'\n', &b[at.min(b.len())..]) {
                Some(i) => at += i + 1,
                None => return b.len(),
            }
        }
        at.min(b.len())
    };
    // Clusters of edits: their first and last lines widened by context,
    // the bytes those lines span, and the edits.
    let mut clusters: Vec<(usize, usize, usize, usize, Range<usize>)> = Vec::new();
    for (k, e) in edits.iter().enumerate() {
        let first = line_of(e.range.start);
        let last_at = e.range.end.max(e.range.start + 1).min(before.len().max(1)) - 1;
        let last = line_of(last_at).max(first);
        let (lo, hi) = (first.saturating_sub(DIFF_CONTEXT), last + DIFF_CONTEXT);
        let end = line_start_below(last_at.max(e.range.start).min(b.len()), DIFF_CONTEXT + 1);
        match clusters.last_mut() {
            Some(c) if lo <= c.1 + 1 => {
                c.1 = c.1.max(hi);
                c.3 = c.3.max(end);
                c.4.end = k + 1;
            }
            _ => {
                let start = line_start_above(e.range.start.min(b.len()), first - lo);
                clusters.push((lo, hi, start, end, k..k + 1));
            }
        }
    }
    let mut out = String::new();
    let mut delta: isize = 0; // lines added before the cluster
    let mut rebuilt_len: isize = before.len() as isize;
    for (lo, _, bs, be, range) in clusters {
        let mut new = String::with_capacity(be - bs);
        let mut at = bs;
        let mut added: isize = 0;
        for e in &edits[range] {
            if e.range.start < at || e.range.end > be {
                return None;
            }
            new.push_str(&before[at..e.range.start]);
            new.push_str(&e.text);
            at = e.range.end;
            let lines_in = |t: &str| newlines(t) as isize;
            added += lines_in(&e.text) - lines_in(&before[e.range.clone()]);
            rebuilt_len += e.text.len() as isize - e.range.len() as isize;
        }
        new.push_str(&before[at..be]);
        let old = &before[bs..be];
        let diff = similar::TextDiff::from_lines(old, new.as_str());
        let body = diff
            .unified_diff()
            .context_radius(DIFF_CONTEXT)
            .header(old_name, new_name)
            .to_string();
        let new_lo = (lo as isize + delta).max(0) as usize;
        let first_cluster = out.is_empty();
        for (i, line) in body.split_inclusive('\n').enumerate() {
            // The `---`/`+++` header once, from the first cluster's diff.
            if i < 2 && (line.starts_with("--- ") || line.starts_with("+++ ")) {
                if first_cluster {
                    out.push_str(line);
                }
                continue;
            }
            match shifted_header_by(line, lo, new_lo) {
                Some(h) => out.push_str(&h),
                None => out.push_str(line),
            }
        }
        delta += added;
    }
    // The edits must give the text after (a cheap check: its length).
    (rebuilt_len == after_len as isize).then_some(out)
}

/// Cuts the common leading and trailing lines of `before` and `after`,
/// keeping `context` of them on each side: the number of leading lines
/// cut, and the two windows.
fn changed_window<'t>(
    before: &'t str,
    after: &'t str,
    context: usize,
) -> (usize, &'t str, &'t str) {
    let mut starts = Vec::new(); // byte offsets of the common leading lines
    let mut at = 0;
    for (a, b) in before
        .split_inclusive('\n')
        .zip(after.split_inclusive('\n'))
    {
        if a != b || !a.ends_with('\n') {
            break;
        }
        starts.push(at);
        at += a.len();
    }
    let skip = starts.len().saturating_sub(context);
    let head = starts.get(skip).copied().unwrap_or(at);
    let (before, after) = (&before[head..], &after[head..]);
    if !(before.ends_with('\n') && after.ends_with('\n')) {
        return (skip, before, after);
    }
    // Common trailing lines, last first; all but the `context` nearest the
    // change (the last ones listed) are cut.
    let tail_lines: Vec<usize> = before
        .rsplit_terminator('\n')
        .zip(after.rsplit_terminator('\n'))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len() + 1)
        .collect();
    let cut: usize = tail_lines[..tail_lines.len().saturating_sub(context)]
        .iter()
        .sum();
    let cut = cut.min(before.len()).min(after.len());
    (
        skip,
        &before[..before.len() - cut],
        &after[..after.len() - cut],
    )
}

/// Adds `skip` to the line numbers of every `@@ -a,b +c,d @@` header.
fn shift_hunk_headers(diff: &str, skip: usize) -> String {
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        match shifted_header(line, skip) {
            Some(header) => out.push_str(&header),
            None => out.push_str(line),
        }
    }
    out
}

fn shifted_header(line: &str, skip: usize) -> Option<String> {
    shifted_header_by(line, skip, skip)
}

/// A `@@ -a,b +c,d @@` header with `old` added to `a` and `new` to `c`.
fn shifted_header_by(line: &str, old_skip: usize, new_skip: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, rest) = rest.split_once(" @@")?;
    let shift = |range: &str, skip: usize| -> Option<String> {
        let (start, len) = match range.split_once(',') {
            Some((s, l)) => (s.parse::<usize>().ok()?, Some(l)),
            None => (range.parse::<usize>().ok()?, None),
        };
        // An empty side (`-0,0`) names the line before: shifted alike.
        Some(match len {
            Some(l) => format!("{},{l}", start + skip),
            None => (start + skip).to_string(),
        })
    };
    Some(format!(
        "@@ -{} +{} @@{rest}",
        shift(old, old_skip)?,
        shift(new, new_skip)?
    ))
}

/// Colors a unified diff for a terminal.
pub fn colorize(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 8);
    for line in diff.split_inclusive('\n') {
        let color = if line.starts_with("+++") || line.starts_with("---") {
            "\x1b[1m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else {
            ""
        };
        if color.is_empty() {
            out.push_str(line);
        } else {
            let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            out.push_str(&format!("{color}{body}\x1b[0m{nl}"));
        }
    }
    out
}

/// One line per edit: applied or failed, with the error; within
/// [`report_bound`] of a payload of `payload_len` bytes (the lines past it
/// are counted on a last line).
pub fn summary(outcome: &Outcome, payload_len: usize) -> String {
    use std::fmt::Write as _;
    let bound = report_bound(payload_len);
    // The errors by edit, in order (a stable sort keeps each edit's own
    // errors in order): no list per edit.
    let mut by_edit: Vec<(usize, &EditError)> = outcome
        .errors
        .iter()
        .filter_map(|e| e.edit.map(|i| (i, e)))
        .collect();
    by_edit.sort_by_key(|&(i, _)| i);
    let mut out = String::new();
    let mut omitted = 0;
    // Each line is written in place, then taken back if it does not fit;
    // once one did not, the rest are only counted (no line is built).
    let push = |line: std::fmt::Arguments, out: &mut String, omitted: &mut usize| {
        if *omitted > 0 {
            *omitted += 1;
            return;
        }
        let mark = out.len();
        let _ = out.write_fmt(line);
        // Room is kept for the last line that counts what is left out.
        if out.len() + 200 > bound {
            out.truncate(mark);
            *omitted += 1;
        }
    };
    for edit in &outcome.batch.edits {
        let from = by_edit.partition_point(|&(i, _)| i < edit.index);
        let errors = by_edit[from..]
            .iter()
            .take_while(|&&(i, _)| i == edit.index);
        let mut failed = false;
        for &(_, e) in errors {
            failed = true;
            if omitted > 0 {
                omitted += 1;
                continue;
            }
            push(
                format_args!(
                    "FAIL  edit {} [{}] {}: {}\n",
                    edit.index,
                    edit.format,
                    e.kind,
                    summary_message(e)
                ),
                &mut out,
                &mut omitted,
            );
        }
        if !failed {
            push(
                format_args!(
                    "ok    edit {} [{}] {} {}\n",
                    edit.index,
                    edit.format,
                    edit.op.name(),
                    edit.path
                ),
                &mut out,
                &mut omitted,
            );
        }
    }
    for e in outcome.errors.iter().filter(|e| e.edit.is_none()) {
        if omitted > 0 {
            omitted += 1;
            continue;
        }
        push(
            format_args!("FAIL  {}: {}\n", e.kind, summary_message(e)),
            &mut out,
            &mut omitted,
        );
    }
    for w in &outcome.warnings {
        push(
            format_args!(
                "warn  {}: the change leaves a parse error at line {} (the file parsed cleanly before)\n",
                w.path, w.line
            ),
            &mut out,
            &mut omitted,
        );
    }
    if omitted > 0 {
        out.push_str(&format!(
            "... {} more line(s) not shown ({} edit(s), {} error(s) in all)\n",
            crate::error::count(omitted),
            crate::error::count(outcome.batch.edits.len()),
            crate::error::count(outcome.errors.len())
        ));
    }
    out
}

/// An error's message as the summary shows it: clipped when long.
fn summary_message(e: &EditError) -> std::borrow::Cow<'_, str> {
    clipped(&e.message).map_or(std::borrow::Cow::Borrowed(e.message.as_str()), Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diff of the whole texts, as `similar` renders it.
    fn full_diff(before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(DIFF_CONTEXT)
            .header("a", "b")
            .to_string()
    }

    /// The windowed diff, rendered the same way.
    fn windowed_diff(before: &str, after: &str) -> String {
        let (skip, b, a) = changed_window(before, after, DIFF_CONTEXT);
        shift_hunk_headers(&full_diff(b, a), skip)
    }

    #[test]
    fn windowed_diff_matches_the_whole_diff() {
        let lines: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let cases = [
            (lines.clone(), lines.replace("line 20\n", "LINE 20\n")),
            (lines.clone(), lines.replace("line 0\n", "")),
            (lines.clone(), lines.replace("line 39\n", "line 39")),
            (lines.clone(), format!("{lines}tail\n")),
            (
                lines.clone(),
                lines.replace("line 5\n", "five\n").replace("line 30\n", ""),
            ),
            (
                lines.replace('\n', "\r\n"),
                lines.replace('\n', "\r\n").replace("line 9", "9"),
            ),
            ("a\n".repeat(12), "a\n".repeat(13)),
            (String::new(), "new\n".to_string()),
        ];
        for (before, after) in cases {
            assert_eq!(windowed_diff(&before, &after), full_diff(&before, &after));
        }
    }

    #[test]
    fn per_edit_diff_matches_the_whole_diff() {
        let lines: String = (0..200).map(|i| format!("line {i}\n")).collect();
        let at = |n: usize| lines.find(&format!("line {n}\n")).unwrap();
        let len = |n: usize| format!("line {n}\n").len();
        let edit = |n: usize, text: &str| TextEdit {
            range: at(n)..at(n) + len(n),
            text: text.to_string(),
        };
        let cases: Vec<Vec<TextEdit>> = vec![
            // Far apart: two hunks.
            vec![edit(10, "ten\n"), edit(150, "")],
            // Close: one hunk.
            vec![edit(10, "ten\n"), edit(14, "fourteen\nmore\n")],
            // At both ends, lines added and removed.
            vec![edit(0, ""), edit(60, "a\nb\nc\n"), edit(199, "last")],
            // One edit: in the middle, the last line, an insert at the end.
            vec![edit(10, "ten\n")],
            vec![edit(199, "")],
            vec![TextEdit {
                range: lines.len()..lines.len(),
                text: "end\n".into(),
            }],
            vec![edit(0, "zero\nand more\n")],
            // Inserts only.
            vec![
                TextEdit {
                    range: at(3)..at(3),
                    text: "x\n".into(),
                },
                TextEdit {
                    range: at(100)..at(100),
                    text: "y\n".into(),
                },
            ],
        ];
        for edits in cases {
            let mut after = String::new();
            let mut from = 0;
            for e in &edits {
                after.push_str(&lines[from..e.range.start]);
                after.push_str(&e.text);
                from = e.range.end;
            }
            after.push_str(&lines[from..]);
            let got = edit_windows_diff(&lines, after.len(), &edits, "a", "b").unwrap();
            assert_eq!(got, full_diff(&lines, &after), "{edits:?}");
        }
    }
}
