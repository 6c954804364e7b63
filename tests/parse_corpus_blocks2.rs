//! Parses the corpus payloads of `edit_block`, `edit_block_v2`, `apply_patch`
//! and `unified_diff` (copied under `tests/fixtures/parse/corpus/`), checks
//! each against its `case.json`, snapshots a few parsed batches, and
//! round-trips rendered unified diffs through the parser.

use std::fs;
use std::path::{Path, PathBuf};

use llm_edit_lsp::error::ErrorKind;
use llm_edit_lsp::model::{Edit, EditOp, Format, Ordering, Replace};
use llm_edit_lsp::parse::{parse, Parsed};
use proptest::prelude::*;

/// Codex scenarios that Codex rejects before touching a file; our contract
/// makes them `parse` errors, which their `case.json` (having no error kind,
/// as Codex reports none) cannot say.
const CODEX_PARSE_REJECTIONS: [&str; 3] = [
    "codex-005_rejects_empty_patch",
    "codex-008_rejects_empty_update_hunk",
    "codex-013_rejects_invalid_hunk_header",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse/corpus")
}

/// The payload of a case directory (`payload.md`, `.txt` or `.json`).
fn payload(case: &Path) -> String {
    let file = fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_stem().is_some_and(|s| s == "payload"))
        .unwrap_or_else(|| panic!("no payload in {}", case.display()));
    fs::read_to_string(file).unwrap()
}

fn parse_case(name: &str) -> Parsed {
    parse(&payload(&corpus_dir().join(name)), None)
}

/// The error kind a case expects from parsing, if any.
fn expected_parse_error(name: &str, case: &serde_json::Value) -> Option<ErrorKind> {
    if CODEX_PARSE_REJECTIONS.contains(&name) {
        return Some(ErrorKind::Parse);
    }
    match case["error"]["kind"].as_str() {
        Some("parse") => Some(ErrorKind::Parse),
        Some("truncated") => Some(ErrorKind::Truncated),
        _ => None,
    }
}

#[test]
fn every_corpus_case_parses_as_expected() {
    let mut cases: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 38, "corpus fixtures went missing");
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_str().unwrap();
        let case: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        let format = Format::from_name(case["format"].as_str().unwrap()).unwrap();
        let parsed = parse(&payload(dir), None);
        let kinds: Vec<ErrorKind> = parsed.errors.iter().map(|e| e.kind).collect();
        let ok = match expected_parse_error(name, &case) {
            Some(kind) => kinds.contains(&kind),
            None => {
                kinds.is_empty() && !parsed.batch.edits.is_empty() && parsed.formats == [format]
            }
        };
        if !ok {
            failures.push(format!(
                "{name}: errors {:?}, formats {:?}",
                parsed.errors, parsed.formats
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn snapshots_of_parsed_corpus_batches() {
    for name in [
        "edit_block-python-no-final-newline",
        "edit_block_v2-markdown-path-with-spaces-insert-delete",
        "edit_block_v2-rust-create-file-and-append",
        "apply_patch-python-add-delete-move",
        "apply_patch-typescript-bench3-scattered-edits",
        "unified_diff-go-git-new-deleted-renamed",
        "unified_diff-typescript-conflict-overwrite",
    ] {
        let parsed = parse_case(name);
        assert!(parsed.errors.is_empty(), "{name}: {:?}", parsed.errors);
        insta::assert_json_snapshot!(name, parsed.batch.edits);
    }
}

#[test]
fn snapshots_of_codex_rejection_messages() {
    for name in CODEX_PARSE_REJECTIONS {
        let parsed = parse_case(name);
        insta::assert_json_snapshot!(name, parsed.errors);
    }
}

/// A hunk's common leading and trailing lines: (lines, prefix, suffix).
fn common(hunk: &Replace) -> (Vec<&str>, Vec<&str>, usize, usize) {
    let old: Vec<&str> = hunk.search.lines().collect();
    let new: Vec<&str> = hunk.replace.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (old, new, prefix, suffix)
}

/// The hunk as the parser reads it: its context lines are its kept pairs.
fn with_kept(hunk: Replace) -> Replace {
    let (old, new, prefix, suffix) = common(&hunk);
    let kept = (0..prefix)
        .map(|i| (i, i))
        .chain((0..suffix).map(|t| (old.len() - suffix + t, new.len() - suffix + t)))
        .collect();
    Replace { kept, ..hunk }
}

/// Renders hunks as a unified diff of `path`: each hunk's common leading and
/// trailing lines become context, the rest `-` and `+` lines.
fn render(path: &str, hunks: &[Replace]) -> String {
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for hunk in hunks {
        let (old, new, prefix, suffix) = common(hunk);
        let start = hunk.line_hint.unwrap_or(1);
        out += &format!("@@ -{start},{} +{start},{} @@\n", old.len(), new.len());
        let context = |lines: &[&str], out: &mut String| {
            lines.iter().for_each(|l| *out += &format!(" {l}\n"))
        };
        context(&old[..prefix], &mut out);
        old[prefix..old.len() - suffix]
            .iter()
            .for_each(|l| out += &format!("-{l}\n"));
        new[prefix..new.len() - suffix]
            .iter()
            .for_each(|l| out += &format!("+{l}\n"));
        context(&old[old.len() - suffix..], &mut out);
    }
    out
}

/// A line of hunk text: any printable text, including empty lines and
/// lines that look like diff syntax. Lines starting with `-- ` or `++ ` are
/// left out: removed `-- a` followed by added `++ b` renders as a file
/// header pair, which the format cannot tell apart.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("--- a/x".to_string()),
        Just("@@ -1 +1 @@".to_string()),
        "[ -~«»═─é✅]{0,12}".prop_filter("not a header look-alike", |l| {
            !l.starts_with("-- ") && !l.starts_with("++ ")
        }),
    ]
}

/// A hunk: one shared context line, then removed and added lines.
fn hunk() -> impl Strategy<Value = Replace> {
    (
        line(),
        prop::collection::vec(line(), 0..4),
        prop::collection::vec(line(), 0..4),
        1usize..500,
    )
        .prop_filter("a hunk changes something", |(_, old, new, _)| old != new)
        .prop_map(|(context, old, new, hint)| {
            let text = |lines: &[String]| -> String {
                std::iter::once(&context)
                    .chain(lines)
                    .map(|l| format!("{l}\n"))
                    .collect()
            };
            Replace {
                line_hint: Some(hint),
                ..Replace::lines(text(&old), text(&new))
            }
        })
}

proptest! {
    #[test]
    fn unified_diff_round_trips(hunks in prop::collection::vec(hunk(), 1..4)) {
        let text = render("src/lib.rs", &hunks);
        let parsed = parse(&text, Some(Format::UnifiedDiff));
        prop_assert!(parsed.errors.is_empty(), "{:?}\n{}", parsed.errors, text);
        let ops: Vec<EditOp> = parsed.batch.edits.iter().map(|e: &Edit| e.op.clone()).collect();
        let expected: Vec<EditOp> = hunks.into_iter().map(|h| EditOp::Replace(with_kept(h))).collect();
        prop_assert_eq!(ops, expected, "{}", text);
        let group = parsed.batch.edits[0].ordering;
        prop_assert!(matches!(group, Ordering::Simultaneous(_)));
        prop_assert!(parsed.batch.edits.iter().all(|e| e.ordering == group && e.path == "src/lib.rs"));
    }
}

/// A payload line mixing the markers of the four formats with content.
fn payload_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("««« EDIT".to_string()),
        Just("───────".to_string()),
        Just("═══════".to_string()),
        Just("═══════ REPL".to_string()),
        Just("»»»".to_string()),
        Just("»»» EDIT END".to_string()),
        Just("*** Begin Patch".to_string()),
        Just(" *** End Patch".to_string()),
        Just("*** Update File: a.py".to_string()),
        Just("*** Move to: b.py".to_string()),
        Just("*** End of File".to_string()),
        Just("--- a/x".to_string()),
        Just("+++ b/x".to_string()),
        Just("@@ -1,2 +1,2 @@".to_string()),
        Just("```".to_string()),
        Just("src/é.py".to_string()),
        "[ +\\-@«»═─é]{0,6}",
    ]
}

proptest! {
    #[test]
    fn parsing_never_panics(lines in prop::collection::vec(payload_line(), 0..30)) {
        let parsed = parse(&lines.join("\n"), None);
        for error in &parsed.errors {
            prop_assert!(!error.message.is_empty());
        }
    }
}
