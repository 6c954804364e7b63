//! Bounded on every input: the pathological payloads of the performance
//! issue ("Bounded on every input"), generated here, each run in process
//! through `engine::run` against files held in memory.
//!
//! Each test checks three things:
//! - the run (parse, resolve, plan and the JSON report) finishes within
//!   [`LIMIT`] on a release build, or refuses with `deadline`;
//! - the outcome is the right edit or a refusal of a named kind, never a
//!   wrong edit;
//! - the JSON report and the text summary are at most
//!   `REPORT_FACTOR * payload + REPORT_SLACK` bytes (the bound of
//!   `docs/formats.md`, enforced by `report::Report`).
//!
//! The timing only means something in an optimized build: the tests are
//! ignored in debug builds, and `scripts/test` runs them with
//! `cargo test --release --test pathological`.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::MemFiles;
use llm_edit_lsp::engine::{self, Options, Outcome};
use llm_edit_lsp::error::ErrorKind;
use llm_edit_lsp::merge::{merge, MergeOutcome};
use llm_edit_lsp::report;

/// The time a pathological input may take, end to end.
const LIMIT: Duration = Duration::from_secs(2);

/// The report bound: `REPORT_FACTOR * payload + REPORT_SLACK` bytes.
const REPORT_FACTOR: usize = llm_edit_lsp::report::REPORT_FACTOR;
const REPORT_SLACK: usize = llm_edit_lsp::report::REPORT_SLACK;

/// What a run gave.
struct Run {
    outcome: Outcome,
}

/// Runs a payload end to end (parse, resolve, plan, JSON report, text
/// summary) and checks the time and the report sizes.
fn run(name: &str, payload: &str, options: &Options, files: &MemFiles) -> Run {
    let start = Instant::now();
    let outcome = engine::run(payload, options, files);
    let json = serde_json::to_string_pretty(&report::Report::new(&outcome, options, payload.len()))
        .unwrap();
    let text = report::summary(&outcome, payload.len());
    let elapsed = start.elapsed();
    let kinds: BTreeMap<ErrorKind, usize> =
        outcome.errors.iter().fold(BTreeMap::new(), |mut m, e| {
            *m.entry(e.kind).or_default() += 1;
            m
        });
    eprintln!(
        "{name}: {:.3} s, payload {} B, JSON report {} B, text {} B, {} files, errors {kinds:?}",
        elapsed.as_secs_f64(),
        payload.len(),
        json.len(),
        text.len(),
        outcome.files.len(),
    );
    let bound = REPORT_FACTOR * payload.len() + REPORT_SLACK;
    assert!(
        json.len() <= bound,
        "{name}: JSON report {} B > {bound} B",
        json.len()
    );
    assert!(
        text.len() <= bound,
        "{name}: text summary {} B > {bound} B",
        text.len()
    );
    let refused_for_size = outcome.errors.iter().any(|e| e.kind == ErrorKind::Deadline);
    let allowed = if refused_for_size {
        options.deadline + Duration::from_millis(500)
    } else {
        LIMIT
    };
    assert!(
        elapsed <= allowed,
        "{name}: {:.3} s > {:.3} s",
        elapsed.as_secs_f64(),
        allowed.as_secs_f64()
    );
    Run { outcome }
}

/// Checks the outcome: the one changed file has text `want`, or the run
/// ran out of time and refused (`deadline`, nothing planned).
fn applied_or_deadline(name: &str, outcome: &Outcome, want: &str) {
    if outcome.errors.iter().any(|e| e.kind == ErrorKind::Deadline) {
        refused(name, outcome, &[]);
        return;
    }
    applied(name, outcome, want);
}

/// Checks the outcome: no error, and the one changed file has text `want`.
fn applied(name: &str, outcome: &Outcome, want: &str) {
    assert!(
        outcome.errors.is_empty(),
        "{:?}",
        &outcome.errors[..outcome.errors.len().min(3)]
    );
    assert_eq!(outcome.files.len(), 1);
    assert!(outcome.files[0].after() == Some(want), "{name}: wrong text");
}

/// A refusal: nothing planned, every error of one of `kinds`.
fn refused(name: &str, outcome: &Outcome, kinds: &[ErrorKind]) {
    assert!(outcome.files.is_empty(), "{name}: a refusal plans nothing");
    assert!(!outcome.errors.is_empty(), "{name}: refused");
    for e in &outcome.errors {
        assert!(
            kinds.contains(&e.kind) || e.kind == ErrorKind::Deadline,
            "{name}: unexpected {}: {}",
            e.kind,
            e.message
        );
    }
}

/// A search/replace block for `path`.
fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n")
}

/// 10,000 blocks whose one-line search is every line of a 10,000-line
/// file of identical lines: each is ambiguous (10,000 places). Was 35 s
/// and an 810 MB report.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn ambiguous_blocks_over_identical_lines() {
    let files = MemFiles::of(&[("f.txt", "x = 1\n".repeat(10_000))]);
    let payload: String = (0..10_000)
        .map(|_| block("f.txt", "x = 1\n", "x = 2\n"))
        .collect();
    let r = run("ambiguous 10k", &payload, &Options::default(), &files);
    refused("ambiguous 10k", &r.outcome, &[ErrorKind::Ambiguous]);
    let first = &r.outcome.errors[0];
    if first.kind == ErrorKind::Ambiguous {
        assert!(first.lines.len() <= 20, "capped: {}", first.lines.len());
        assert!(first.message.contains("10,000"), "{}", first.message);
    }
}

/// A 5,000-line search that is nowhere in 200,000 identical lines, but
/// nearly everywhere (its last line differs). Was 53 s.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn long_search_not_found_in_identical_lines() {
    let files = MemFiles::of(&[("f.txt", "a = 0\n".repeat(200_000))]);
    let search = format!("{}zzz\n", "a = 0\n".repeat(4_999));
    let payload = block("f.txt", &search, "b\n");
    let r = run(
        "not found 5k in 200k",
        &payload,
        &Options::default(),
        &files,
    );
    refused("not found 5k in 200k", &r.outcome, &[ErrorKind::NotFound]);
}

/// A file of 20,000 distinct lines.
fn numbered(n: usize) -> String {
    (0..n)
        .map(|i| format!("let value_{i} = compute({i}, {});\n", i * 7 % 13))
        .collect()
}

/// 15 fuzzy edits (threshold 0.9) whose 20-line searches are close to
/// nothing in a 20,000-line file: each scans the whole file. Was 35 s (the
/// 2 s deadline was per edit).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn fuzzy_edits_share_one_deadline() {
    let files = MemFiles::of(&[("f.rs", numbered(20_000))]);
    let payload: String = (0..15)
        .map(|k| {
            let search: String = (0..20)
                .map(|i| format!("fn unrelated_{k}_{i}() {{ body(); }}\n"))
                .collect();
            block("f.rs", &search, "gone\n")
        })
        .collect();
    // One deadline for the run, shorter than the default so the test is
    // quick: the edits not resolved by then fail with `deadline`.
    let options = Options {
        fuzzy: Some(0.9),
        deadline: Duration::from_millis(1500),
        ..Options::default()
    };
    let r = run("fuzzy 15", &payload, &options, &files);
    refused("fuzzy 15", &r.outcome, &[ErrorKind::NotFound]);
}

/// A unified diff of `n` one-line hunks, every 10th line of `file`
/// (`line(i)` gives line i's text), and the text it should give.
fn hunks(n: usize, file_lines: usize, line: impl Fn(usize) -> String) -> (String, String, String) {
    let lines: Vec<String> = (0..file_lines).map(&line).collect();
    let mut want = lines.clone();
    let mut payload = String::from("--- a/f.txt\n+++ b/f.txt\n");
    for k in 0..n {
        let at = k * 10 + 5;
        payload.push_str(&format!(
            "@@ -{},3 +{},3 @@\n {}\n-{}\n+changed {k}\n {}\n",
            at,
            at,
            lines[at - 1],
            lines[at],
            lines[at + 1]
        ));
        want[at] = format!("changed {k}");
    }
    let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let want: String = want.iter().map(|l| format!("{l}\n")).collect();
    (file, payload, want)
}

/// A hunk's header line picks among the places of its context as the rule
/// of `FORMATS.md` §3 says, whether those places are searched near the
/// header only (several within reach of it) or in the whole file.
#[test]
fn a_hunks_header_line_picks_by_the_rule() {
    let places = [1000, 1005, 1200, 3000];
    let lines: Vec<String> = (0..4000)
        .map(
            |i| match places.iter().find(|&&p| (p..p + 3).contains(&i)) {
                Some(&p) => ["alpha", "beta", "gamma"][i - p].to_string(),
                None => format!("line {i}"),
            },
        )
        .collect();
    let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let files = MemFiles::of(&[("f.txt", file)]);
    // (the header's 0-based line, where the hunk applies: None = refused)
    let cases = [
        (1000, Some(1000)), // at a place, another 5 lines on: the one at it
        (1005, Some(1005)),
        (1002, None),       // 2 and 3 lines from two places: ambiguous
        (1100, None),       // 100 lines from two places: ambiguous
        (2995, Some(3000)), // 5 lines from one, the next 1,795 lines away
        (1203, Some(1200)),
    ];
    for (hint, want) in cases {
        let payload = format!(
            "--- a/f.txt\n+++ b/f.txt\n@@ -{0},3 +{0},3 @@\n alpha\n-beta\n+BETA\n gamma\n",
            hint + 1
        );
        let outcome = engine::run(&payload, &Options::default(), &files);
        match want {
            Some(at) => {
                let mut expected = lines.clone();
                expected[at + 1] = "BETA".to_string();
                let expected: String = expected.iter().map(|l| format!("{l}\n")).collect();
                assert!(
                    outcome.errors.is_empty(),
                    "hint {hint}: {:?}",
                    outcome.errors
                );
                assert!(
                    outcome.files[0].after() == Some(expected.as_str()),
                    "hint {hint}: not applied at {at}"
                );
            }
            None => {
                assert!(outcome.files.is_empty(), "hint {hint}: applied");
                assert_eq!(outcome.errors[0].kind, ErrorKind::Ambiguous, "hint {hint}");
            }
        }
    }
}

/// 10,000 hunks on a file of identical lines: each hunk's context matches
/// everywhere and its header's line picks. Was 16-19 s, then a `deadline`
/// refusal at 5 s; now applied with the right text in 0.16 s: only the
/// places within reach of each header's line are searched when the hint
/// picks one of them there.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn hunks_on_identical_lines() {
    let (file, payload, want) = hunks(10_000, 100_010, |_| "same".to_string());
    let files = MemFiles::of(&[("f.txt", file)]);
    let r = run("10k hunks identical", &payload, &Options::default(), &files);
    if r.outcome.errors.is_empty() {
        applied_or_deadline("10k hunks identical", &r.outcome, &want);
    } else {
        refused("10k hunks identical", &r.outcome, &[ErrorKind::Ambiguous]);
    }
}

/// 10,000 hunks on a file of distinct lines. Was 8.7 s.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn hunks_on_a_normal_file() {
    let (file, payload, want) = hunks(10_000, 100_010, |i| format!("line {i}"));
    let files = MemFiles::of(&[("f.txt", file)]);
    let r = run("10k hunks", &payload, &Options::default(), &files);
    applied_or_deadline("10k hunks", &r.outcome, &want);
}

/// 100,000 sequential blocks, one per line of a 100,000-line file. Was
/// 8.9 s, growing faster than linearly; then refused at the deadline;
/// must apply, within the limit (each search looks at its first line's
/// places and the piece boundaries, not at the text near every change).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn sequential_blocks() {
    let n = 100_000;
    let file: String = (0..n).map(|i| format!("line {i}\n")).collect();
    let want: String = (0..n).map(|i| format!("LINE {i}\n")).collect();
    let files = MemFiles::of(&[("f.txt", file)]);
    let payload: String = (0..n)
        .map(|i| block("f.txt", &format!("line {i}\n"), &format!("LINE {i}\n")))
        .collect();
    let r = run("100k sequential", &payload, &Options::default(), &files);
    assert!(
        r.outcome.errors.is_empty(),
        "100k sequential: {:?}",
        &r.outcome.errors[..r.outcome.errors.len().min(3)]
    );
    applied_or_deadline("100k sequential", &r.outcome, &want);
}

/// A unified diff of 1,000,000 `@@` lines with no body. Was 17 s and a
/// 477 MB report, then 2.9-3.7 s (a million edits and overlap errors);
/// now one `parse` error naming the run of empty hunks.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn a_million_hunk_headers() {
    let files = MemFiles::of(&[("f.txt", "a\n".repeat(10))]);
    let payload = format!(
        "--- a/f.txt\n+++ b/f.txt\n{}",
        "@@ -1 +1 @@\n".repeat(1_000_000)
    );
    let r = run("1M @@", &payload, &Options::default(), &files);
    assert!(r.outcome.files.is_empty() || r.outcome.errors.is_empty());
    if !r.outcome.errors.is_empty() {
        refused("1M @@", &r.outcome, &[ErrorKind::Parse, ErrorKind::NoOp]);
    }
}

/// 10,000 blocks written against a snapshot of a 100,000-line file that
/// has changed since (a line added at the top, every 1,000th line edited):
/// the `~M` merge. Was 11.8 s; must merge, with no whole-file conflict.
/// The merge itself takes ~50 ms (`merge_of_a_100k_line_file_with_10k_changes`);
/// resolving the 10,000 blocks against the snapshot was O(blocks x pieces)
/// (every piece boundary looked at per search: `deadline` at 5 s), and is
/// now an index lookup per search (`resolve/doc.rs`, `EdgeLines`).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn merge_of_many_blocks_against_a_snapshot() {
    let n = 100_000;
    let snapshot: Vec<String> = (0..n).map(|i| format!("line {i}")).collect();
    let mut current = snapshot.clone();
    for (i, line) in current.iter_mut().enumerate() {
        if i % 1000 == 0 {
            *line = format!("user {i}");
        }
    }
    current.insert(0, "header".to_string());
    let mut want = current.clone();
    let mut payload = String::new();
    for k in 0..10_000 {
        let i = k * 10 + 5;
        payload.push_str(&block(
            "f.txt",
            &format!("line {i}\n"),
            &format!("llm {i}\n"),
        ));
        want[i + 1] = format!("llm {i}");
    }
    let join = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    let files = MemFiles::of(&[("f.txt", join(&current))]).with_snapshot("f.txt", join(&snapshot));
    let r = run("merge 10k", &payload, &Options::default(), &files);
    applied("merge 10k", &r.outcome, &join(&want));
}

/// The merge of the input above alone: 101 user changes and 10,000 LLM
/// changes in a 100,000-line file, far more than Myers diffs in time on
/// the whole text. Was 0.27 s (Myers gave up after 200 ms on the LLM's
/// side, then the anchored diff); must merge, with the right text, in
/// well under the limit.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn merge_of_a_100k_line_file_with_10k_changes() {
    let n = 100_000;
    let base: Vec<String> = (0..n).map(|i| format!("line {i}\n")).collect();
    let user = |i: usize| i.is_multiple_of(1000).then(|| format!("user {i}\n"));
    let llm = |i: usize| (i % 10 == 5).then(|| format!("llm {i}\n"));
    let ours: String = std::iter::once("header\n".to_string())
        .chain((0..n).map(|i| user(i).unwrap_or_else(|| base[i].clone())))
        .collect();
    let theirs: String = (0..n)
        .map(|i| llm(i).unwrap_or_else(|| base[i].clone()))
        .collect();
    // No line is changed by both: each line is the user's, the LLM's or base's.
    let want: String = std::iter::once("header\n".to_string())
        .chain((0..n).map(|i| user(i).or(llm(i)).unwrap_or_else(|| base[i].clone())))
        .collect();
    let base = base.concat();
    let start = Instant::now();
    let outcome = merge(&base, &ours, &theirs);
    let elapsed = start.elapsed();
    eprintln!("merge 100k/10k: {:.3} s", elapsed.as_secs_f64());
    let MergeOutcome::Merged(merged) = outcome else {
        panic!("a false conflict");
    };
    assert!(merged.text == want, "wrong text");
    assert_eq!(merged.edits.as_slice().len(), 10_000);
    assert!(elapsed <= LIMIT / 4, "{:.3} s", elapsed.as_secs_f64());
}

/// A merge with no line unique anywhere: 100,000 lines of `a` and `b`,
/// every 7th line flipped by the user and every 11th by the LLM. No
/// anchor, so each side's gaps go to Myers and run out of time: coarse
/// hunks, which may conflict (a refusal), in bounded time. A merge, if
/// any, must still give the text built line by line.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn merge_with_no_unique_line() {
    let n = 100_000;
    let line = |i: usize| if (i * 7919) % 13 < 6 { "a\n" } else { "b\n" };
    let flip = |l: &str| if l == "a\n" { "b\n" } else { "a\n" };
    let side = |every: usize| -> String {
        (0..n)
            .map(|i| {
                if i % every == 0 {
                    flip(line(i))
                } else {
                    line(i)
                }
            })
            .collect()
    };
    let base: String = (0..n).map(line).collect();
    let (ours, theirs) = (side(7), side(11));
    let start = Instant::now();
    let outcome = merge(&base, &ours, &theirs);
    let elapsed = start.elapsed();
    let merged = matches!(outcome, MergeOutcome::Merged(_));
    eprintln!(
        "merge no unique line: {:.3} s, merged: {merged}",
        elapsed.as_secs_f64()
    );
    if let MergeOutcome::Merged(merged) = outcome {
        // Lines flipped by both (every 77th) are the same change: kept once.
        let want: String = (0..n)
            .map(|i| match i % 7 == 0 || i % 11 == 0 {
                true => flip(line(i)),
                false => line(i),
            })
            .collect();
        assert!(merged.text == want, "wrong text");
    }
    assert!(elapsed <= LIMIT, "{:.3} s", elapsed.as_secs_f64());
}

#[test]
fn the_report_bound_holds_for_a_small_input() {
    // A sanity check that runs in every build: one ambiguous block.
    let files = MemFiles::of(&[("f.txt", "x\n".repeat(100))]);
    let payload = block("f.txt", "x\n", "y\n");
    let options = Options::default();
    let outcome = engine::run(&payload, &options, &files);
    refused("small ambiguous", &outcome, &[ErrorKind::Ambiguous]);
    assert!(outcome.errors[0].lines.len() <= 20);
}

/// JSON nested a million arrays deep, as the payload's value and inside
/// an `arguments` string: `serde_json` validates a value it ignores
/// without a depth limit, and the tree of positions was built by
/// recursion, so this overflowed the stack and aborted the process (the
/// language server and the MCP server with it).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn json_nested_a_million_deep() {
    let files = MemFiles::of(&[("f.py", "x = 1\n".to_string())]);
    let nest = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let top = format!("{{\"name\": \"edit_file\", \"arguments\": {nest}}}");
    let inner = format!("{{\"path\": \"f.py\", \"content\": {nest}}}");
    let in_string = serde_json::json!({"name": "edit_file", "arguments": inner}).to_string();
    for (name, payload) in [("nested JSON", top), ("nested arguments", in_string)] {
        let r = run(name, &payload, &Options::default(), &files);
        refused(name, &r.outcome, &[ErrorKind::Parse]);
        let message = &r.outcome.errors[0].message;
        assert!(
            message.contains("nest more than 128 deep"),
            "{name}: {message}"
        );
    }
}

/// 50,000 one-line hunks on a file of 100,000 identical lines, each
/// header exact: every hunk's context is everywhere, so each is placed by
/// its header line, and the check of those picks against their
/// neighbours searched from every hunk for the nearest one placed
/// without a hint (none is): quadratic (100,000 hunks took 12.8 s in the
/// CLI). The neighbours are now found in one pass each way.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn fifty_thousand_hunks_on_identical_lines() {
    let files = MemFiles::of(&[("f.txt", "x = 1\n".repeat(100_000))]);
    let mut payload = String::from("--- a/f.txt\n+++ b/f.txt\n");
    for i in (0..100_000).step_by(2) {
        payload.push_str(&format!("@@ -{0},1 +{0},1 @@\n-x = 1\n+x = 2\n", i + 1));
    }
    // A deadline shorter than the default: the run must end by it, or
    // just after it, whatever the machine (no step after the hunks are
    // placed may grow faster than they do).
    let options = Options {
        deadline: Duration::from_secs(1),
        ..Options::default()
    };
    let r = run("50k hunks identical", &payload, &options, &files);
    refused("50k hunks identical", &r.outcome, &[ErrorKind::Ambiguous]);
}

/// A file of `functions` short functions (each line ending in `tail`),
/// and a block whose search is the functions `searched`, each with a
/// typo.
fn typo_search(
    functions: usize,
    searched: std::ops::Range<usize>,
    tail: &str,
) -> (MemFiles, String) {
    let lines: Vec<String> = (0..functions)
        .map(|i| format!("def f_{i}(x):\n    return x + {i}{tail}\n"))
        .collect();
    let files = MemFiles::of(&[("f.py", lines.concat())]);
    let search = lines[searched].concat().replace("return", "retrun");
    (files, block("f.py", &search, "z\n"))
}

/// A fuzzy search of 2,500 lines, each with a typo, over a file of 10,000
/// short functions: every window near it is scored in full, each score
/// a distance over 60 KB. The scan read the clock every 256 windows, so
/// a run with a 5 s deadline took 15.7 s; the clock is now read before
/// each window scored.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn a_long_fuzzy_search_keeps_the_deadline() {
    let (files, payload) = typo_search(5_000, 1000..3500, "");
    let options = Options {
        fuzzy: Some(0.8),
        deadline: Duration::from_millis(1500),
        ..Options::default()
    };
    let r = run("fuzzy 2,500 lines", &payload, &options, &files);
    refused(
        "fuzzy 2,500 lines",
        &r.outcome,
        &[ErrorKind::NotFound, ErrorKind::Ambiguous],
    );
}

/// A fuzzy search of 20,000 lines, each with a typo, over a file of
/// 40,000 short functions, in ASCII and beyond it: one distance alone is
/// over 700 KB against 700 KB in a band of 140 KB, longer than the whole
/// run may take (4.7 s and 6.5 s with a 1 s deadline). The distance reads
/// the clock as it goes and gives up at the deadline.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing: run with --release (scripts/test does)"
)]
fn one_long_fuzzy_distance_keeps_the_deadline() {
    for tail in ["", " # \u{e9}"] {
        let (files, payload) = typo_search(40_000, 10_000..30_000, tail);
        let options = Options {
            fuzzy: Some(0.8),
            deadline: Duration::from_millis(1000),
            ..Options::default()
        };
        let name = format!("fuzzy 20,000 lines{tail}");
        let r = run(&name, &payload, &options, &files);
        refused(
            &name,
            &r.outcome,
            &[
                ErrorKind::NotFound,
                ErrorKind::Ambiguous,
                ErrorKind::Deadline,
            ],
        );
    }
}
