//! Applies a payload in process and judges the result against the real
//! "after" file, never against the engine's own plan.
//!
//! Verdicts: `right` (applied, byte for byte the after file), `refused`
//! (errors, nothing applied), `wrong` (applied, other text), `unpinnable`
//! (applied, other text, but no tool could have pinned the intended place:
//! see [`unpinnable`]), `crash` (a panic, or an error kind that is not one
//! of `FORMATS.md` §6).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use llm_edit_lsp::engine::{self, Options};
use llm_edit_lsp::error::{EditError, ErrorKind};
use llm_edit_lsp::text::encoding::Encoding;
use llm_edit_lsp::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

use crate::draft::{join_lines, Draft};
use crate::formats;

/// The stable error kinds of `FORMATS.md` §6.
const KINDS: [&str; 11] = [
    "parse",
    "truncated",
    "not_found",
    "ambiguous",
    "overlap",
    "no_op",
    "file_not_found",
    "file_exists",
    "binary",
    "outside_root",
    "conflict",
];

/// What became of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Right,
    /// Refused, with the first error's kind.
    Refused(String),
    Wrong,
    Unpinnable,
    /// A panic or an unknown error kind, with what was seen.
    Crash(String),
}

impl Verdict {
    /// The verdict's class: `right`, `refused`, `wrong`, `unpinnable`,
    /// `crash`.
    pub fn class(&self) -> &'static str {
        match self {
            Verdict::Right => "right",
            Verdict::Refused(_) => "refused",
            Verdict::Wrong => "wrong",
            Verdict::Unpinnable => "unpinnable",
            Verdict::Crash(_) => "crash",
        }
    }
}

/// A verdict and the details a report shows.
#[derive(Clone, Debug)]
pub struct Judged {
    pub verdict: Verdict,
    /// For refusals: every error names its file and edit, has a message,
    /// and `ambiguous`/`not_found` name lines.
    pub precise: bool,
    /// The first error's message, or the first differing line.
    pub detail: String,
}

/// The one file of a case, in memory.
struct OneFile {
    root: PathBuf,
    path: String,
    text: Arc<SourceText>,
}

impl FileSource for OneFile {
    fn root(&self) -> &Path {
        &self.root
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        Ok((path.as_str() == self.path).then(|| self.text.clone()))
    }
}

/// Runs `payload` against the draft's before file and judges the result.
pub fn judge(payload: &str, d: &Draft, format: &str, fuzzy: Option<f64>) -> Judged {
    let source = OneFile {
        root: PathBuf::from("/stress-root"),
        path: d.path.clone(),
        text: Arc::new(SourceText::from_disk(d.before_text(), Encoding::Utf8)),
    };
    let options = Options {
        fuzzy,
        ..Options::default()
    };
    let outcome = match catch_unwind(AssertUnwindSafe(|| engine::run(payload, &options, &source))) {
        Ok(outcome) => outcome,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "panic".into());
            return Judged {
                verdict: Verdict::Crash(format!("panic: {msg}")),
                precise: false,
                detail: msg,
            };
        }
    };
    if !outcome.errors.is_empty() {
        return refusal(&outcome.errors);
    }
    let result = match outcome.files.iter().find(|f| f.path.as_str() == d.path) {
        Some(change) => change.after().unwrap_or_default().to_owned(),
        None => d.before_text(),
    };
    judge_result(&result, d, format, &patch_headers(payload, format))
}

/// The `@@ …` context line of each `apply_patch` hunk, in order (`None`
/// for a bare `@@`); empty for the other formats.
pub fn patch_headers(payload: &str, format: &str) -> Vec<Option<String>> {
    if format != "apply_patch" {
        return Vec::new();
    }
    payload
        .lines()
        .filter_map(|l| l.strip_prefix("@@"))
        .map(|h| Some(h.trim().to_owned()).filter(|h| !h.is_empty()))
        .collect()
}

/// Judges an applied result.
pub fn judge_result(result: &str, d: &Draft, format: &str, headers: &[Option<String>]) -> Judged {
    let want = d.after_text();
    if result == want {
        return Judged {
            verdict: Verdict::Right,
            precise: true,
            detail: String::new(),
        };
    }
    // A code block has no search to read two ways: any other result is wrong.
    let verdict = if formats::is_code_block(format) {
        Verdict::Wrong
    } else if unpinnable(d, format, headers)
        || literal_result(d, format).as_deref() == Some(result)
        || indentation_slip_twin(result, d)
        || truncation_twin(result, d)
        || fixed_frame_twin(result, d)
    {
        Verdict::Unpinnable
    } else {
        Verdict::Wrong
    };
    Judged {
        verdict,
        precise: true,
        detail: first_difference(result, &want),
    }
}

/// The verdict for a run that reported errors.
fn refusal(errors: &[EditError]) -> Judged {
    let first = &errors[0];
    if let Some(e) = errors.iter().find(|e| !KINDS.contains(&e.kind.name())) {
        return Judged {
            verdict: Verdict::Crash(format!("unknown error kind {}", e.kind)),
            precise: false,
            detail: e.message.clone(),
        };
    }
    Judged {
        verdict: Verdict::Refused(first.kind.name().to_owned()),
        precise: errors.iter().all(is_precise),
        detail: first.message.clone(),
    }
}

/// An error names what to fix: its file and edit (the payload line, for
/// parse errors), a message, and lines where `FORMATS.md` §6 asks for them.
fn is_precise(e: &EditError) -> bool {
    let located = match e.kind {
        ErrorKind::Parse | ErrorKind::Truncated => !e.lines.is_empty(),
        ErrorKind::NotFound | ErrorKind::Ambiguous => {
            e.path.is_some() && e.edit.is_some() && !e.lines.is_empty()
        }
        _ => e.path.is_some() && e.edit.is_some(),
    };
    located && !e.message.trim().is_empty()
}

/// "No tool could pin this": some edit's search, as written, does not match
/// exactly at its intended place but matches exactly at exactly one other
/// place (whole lines for line formats, a substring for string tools; for
/// diffs, after the previous hunk). The exact reading, which every tool
/// tries first, then points elsewhere. When the search matches exactly
/// twice or more, a tool can refuse (`ambiguous`), so a wrong edit there is
/// the engine's.
pub fn unpinnable(d: &Draft, format: &str, headers: &[Option<String>]) -> bool {
    let mut prev_end = 0;
    for (k, hunk) in d.hunks.iter().enumerate() {
        // An `apply_patch` hunk lies after its `@@` context line too.
        let floor = match headers.get(k).and_then(Option::as_ref) {
            Some(h) => (prev_end..d.before.len())
                .find(|&i| d.before[i].trim() == h)
                .map_or(prev_end, |i| i + 1),
            None => prev_end,
        };
        let (lines, at): (Vec<&str>, usize) = if formats::is_simultaneous(format) {
            (
                d.before.iter().map(String::as_str).collect(),
                hunk.before_start,
            )
        } else {
            let done = d.after[..hunk.after_start].iter();
            let rest = d.before[hunk.before_start..].iter();
            (
                done.chain(rest).map(String::as_str).collect(),
                hunk.after_start,
            )
        };
        let (intended, others) = if formats::is_string_tool(format) {
            substring_places(&lines, at, &formats::string_pair(d, hunk).0)
        } else {
            line_places(&lines, at, &hunk.search(), floor)
        };
        if !intended && others == 1 {
            return true;
        }
        // A written (stale) line hint exactly at one of several exact
        // places, not the intended one: the search and its number point
        // there, and `FORMATS.md` §3 lets a hint exactly at a candidate
        // pick it.
        if others >= 1 && formats::has_hints(format) && hunk.stale_hint.is_some() {
            let hint = hunk.hint() - 1;
            let hint = if formats::is_simultaneous(format) {
                hint
            } else {
                (hint + hunk.after_start).saturating_sub(hunk.before_start)
            };
            let search = hunk.search();
            if hint != at
                && hint >= floor
                && lines.get(hint..hint + search.len()) == Some(search.as_slice())
            {
                return true;
            }
        }
        if formats::is_simultaneous(format) {
            prev_end = hunk.before_start + hunk.before_len;
        }
    }
    false
}

/// The payload applied as written, when every (line-format) search matches
/// exactly at its intended place: each window replaced by its replacement
/// lines. A result equal to it is what the payload says, letter for letter;
/// when that differs from the real after file, the mistake changed the
/// meaning (a context line dropped from both halves deletes it), and no
/// tool could pin the author's intent.
fn literal_result(d: &Draft, format: &str) -> Option<String> {
    if formats::is_string_tool(format) {
        return literal_string_result(d);
    }
    let mut lines: Vec<String> = d.before.clone();
    let mut shift: isize = 0;
    for hunk in &d.hunks {
        let search = hunk.search();
        let at = (hunk.before_start as isize + shift) as usize;
        if lines.get(at..at + search.len())? != search.as_slice() {
            return None;
        }
        let replace: Vec<String> = hunk.replace().iter().map(|l| l.to_string()).collect();
        shift += replace.len() as isize - search.len() as isize;
        lines.splice(at..at + search.len(), replace);
    }
    let mut draft = d.clone();
    draft.before = lines;
    Some(draft.before_text())
}

/// A context line written in its after form where the after changes only
/// its indentation: the payload is then, byte for byte, the one an
/// indentation slip in that context line gives (the author meaning to keep
/// the line), and `FORMATS.md` §3 reads indentation that differs in an
/// unchanged line as a slip (the file's line is kept). No tool could tell
/// the two intents apart: the result differs from the after file only in
/// the leading whitespace of lines the search holds in their after form,
/// each kept as the before file has it.
fn indentation_slip_twin(result: &str, d: &Draft) -> bool {
    let searched = |w: &str| d.hunks.iter().any(|h| h.search().contains(&w));
    differs_only_where(result, d, |g, w| {
        g.trim_start() == w.trim_start() && searched(w) && d.before.iter().any(|b| b == g)
    })
}

/// Whether `result` has the after file's line count and differs from it
/// somewhere, only in lines (`got`, `want`) that `explained` accepts.
fn differs_only_where(result: &str, d: &Draft, explained: impl Fn(&str, &str) -> bool) -> bool {
    let want = d.after_text();
    let (got, want): (Vec<&str>, Vec<&str>) =
        (result.split('\n').collect(), want.split('\n').collect());
    if got.len() != want.len() {
        return false;
    }
    let mut differs = false;
    for (g, w) in got.iter().zip(&want) {
        if g == w {
            continue;
        }
        differs = true;
        if !explained(g, w) {
            return false;
        }
    }
    differs
}

/// A context line written in its after form where the after only cuts
/// the line's end: the payload is then, byte for byte, the one a model
/// that truncated that context line writes, and `FORMATS.md` §3 (pass 4)
/// expands a truncated first or last line to the file's whole line. No
/// tool could tell the two intents apart: the result differs from the
/// after file only in lines the search holds in their after form, each
/// kept as the before file has it, which the after line begins.
fn truncation_twin(result: &str, d: &Draft) -> bool {
    let searched = |w: &str| d.hunks.iter().any(|h| h.search().contains(&w));
    differs_only_where(result, d, |g, w| {
        g.len() > w.len()
            && g.starts_with(w)
            && w.trim().len() >= 8
            && searched(w)
            && d.before.iter().any(|b| b == g)
    })
}

/// A block written at another depth whose real edit re-indents its first
/// line to where the file has that line: the replacement's first line then
/// sits at the file's depth while the search's does not, which is, byte
/// for byte, a model that fixed the indentation in the replacement, and
/// `FORMATS.md` §3 (pass 3) writes such a replacement as it is. No tool
/// following the contract could tell the two apart: the result differs
/// from the after file only in the indentation of lines written as that
/// replacement has them.
fn fixed_frame_twin(result: &str, d: &Draft) -> bool {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let first = |lines: &[&str]| lines.iter().position(|l| !l.trim().is_empty());
    let fixed: Vec<Vec<&str>> = d
        .hunks
        .iter()
        .filter_map(|h| {
            let (search, replace) = (h.search(), h.replace());
            let (s0, r0) = (first(&search)?, first(&replace)?);
            let file_line = d.before.get(h.before_start + s0)?;
            let trigger = search[s0].trim() == replace[r0].trim()
                && search[s0][..indent(search[s0])] != replace[r0][..indent(replace[r0])]
                && file_line[..indent(file_line)] == replace[r0][..indent(replace[r0])];
            trigger.then_some(replace)
        })
        .collect();
    if fixed.is_empty() {
        return false;
    }
    differs_only_where(result, d, |g, w| {
        g.trim() == w.trim() && fixed.iter().any(|r| r.contains(&g))
    })
}

/// [`literal_result`] for a string tool: each `old_string` (in payload
/// order, each on the text the ones before it left) found exactly once,
/// and replaced by its `new_string` — what the tool's own documentation
/// says the call does.
fn literal_string_result(d: &Draft) -> Option<String> {
    let mut text = d.before_text();
    for hunk in &d.hunks {
        let (old, new) = formats::string_pair(d, hunk);
        if old.is_empty() || text.matches(old.as_str()).count() != 1 {
            return None;
        }
        text = text.replacen(old.as_str(), &new, 1);
    }
    Some(text)
}

/// Whether `search` matches whole lines at `at`, and how many other places
/// (from `floor` on) it matches.
fn line_places(lines: &[&str], at: usize, search: &[&str], floor: usize) -> (bool, usize) {
    let n = search.len();
    let hits = (floor..(lines.len() + 1).saturating_sub(n)).filter(|&i| lines[i..i + n] == *search);
    let (mut intended, mut others) = (false, 0);
    for i in hits {
        if i == at {
            intended = true;
        } else {
            others += 1;
        }
    }
    (intended, others)
}

/// Whether `needle` occurs in the text starting on the intended line (or at
/// the line break just before it), and how many other occurrences it has.
fn substring_places(lines: &[&str], at: usize, needle: &str) -> (bool, usize) {
    let owned: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let text = join_lines(&owned, "\n");
    let start: usize = lines[..at].iter().map(|l| l.len() + 1).sum();
    let first_line = lines.get(at).map_or(0, |l| l.len());
    let window = start.saturating_sub(1)..=start + first_line;
    let (mut intended, mut others) = (false, 0);
    if needle.is_empty() {
        return (false, 0);
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(needle) {
        let pos = from + i;
        if window.contains(&pos) {
            intended = true;
        } else {
            others += 1;
        }
        from = pos + text[pos..].chars().next().map_or(1, char::len_utf8);
    }
    (intended, others)
}

/// The first line where `got` and `want` differ.
pub fn first_difference(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.split('\n').collect(), want.split('\n').collect());
    for i in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(i), w.get(i));
        if a != b {
            let show = |l: Option<&&str>| {
                l.map_or("<end>".to_owned(), |l| {
                    format!("{:?}", l.chars().take(70).collect::<String>())
                })
            };
            return format!("line {}: got {}, want {}", i + 1, show(a), show(b));
        }
    }
    "identical".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::{tests::sample_pair, Context};
    use crate::rng::Rng;

    #[test]
    fn places_are_counted_apart_from_the_intended_one() {
        let lines = ["a", "x", "b", "x", "b"];
        assert_eq!(line_places(&lines, 1, &["x", "b"], 0), (true, 1));
        assert_eq!(line_places(&lines, 0, &["x", "b"], 0), (false, 2));
        assert_eq!(line_places(&lines, 0, &["x", "b"], 2), (false, 1));
        assert_eq!(substring_places(&lines, 1, "x\nb"), (true, 1));
        // A leading newline still starts at the intended line.
        assert_eq!(substring_places(&lines, 3, "\nx\nb\n"), (true, 1));
        assert_eq!(substring_places(&["  foo", "foo"], 0, "foo"), (true, 1));
    }

    #[test]
    fn a_search_matching_only_elsewhere_is_unpinnable() {
        let pair = sample_pair();
        let mut d = Draft::build(&pair, Context::Normal, &mut Rng::from_parts(&[2]));
        assert!(!unpinnable(&d, "search_replace", &[]));
        // Context copied from line 10 (value_10): only that place matches.
        let h = d.hunks.len() - 1;
        let last = d.hunks[h].segs.len() - 1;
        d.hunks[h].segs[last] = crate::draft::ctx("value_10 = compute(10)");
        d.hunks[h].segs.truncate(last + 1);
        d.hunks[h].segs.drain(..last);
        assert!(unpinnable(&d, "search_replace", &[]));
        assert!(unpinnable(&d, "edit_file", &[]));
    }

    #[test]
    fn a_wrong_result_is_wrong_and_a_panic_free_refusal_is_refused() {
        let pair = sample_pair();
        let d = Draft::build(&pair, Context::Normal, &mut Rng::from_parts(&[4]));
        assert_eq!(
            judge_result(&d.before_text(), &d, "search_replace", &[]).verdict,
            Verdict::Wrong
        );
        let judged = judge(
            "pkg/mod.py\n```\n<<<<<<< SEARCH\nnowhere\n=======\nx\n>>>>>>> REPLACE\n```\n",
            &d,
            "search_replace",
            None,
        );
        assert_eq!(judged.verdict, Verdict::Refused("not_found".into()));
    }
}
