//! Parses every corpus and peer-suite payload of the `search_replace`,
//! `roo_diff` and `find_replace` formats and checks the parse stage alone:
//! a case that our contract refuses at parse time gives that error; every
//! other case gives at least one edit, no error, and only paths that exist
//! in its `before/` or are created.
//!
//! The cases live outside the crate, in `../shared` beside the repository (or the directory
//! `LLM_EDIT_SHARED` names); the test fails when they are missing.

#[path = "common/shared.rs"]
mod shared;

use std::fs;
use std::path::{Path, PathBuf};

use llm_edit_lsp::error::ErrorKind;
use llm_edit_lsp::model::EditOp;
use llm_edit_lsp::parse::{parse, Parsed};

/// Peer-suite cases whose parse fails under our contract (their `case.json`
/// says only "refuse", or "apply" with a `diverges` note).
const PEER_PARSE_FAILURES: [(&str, ErrorKind); 15] = [
    (
        "cline-diff/02-malformed-opener-mixed-symbols",
        ErrorKind::Parse,
    ),
    (
        "cline-diff/03-malformed-opener-two-dashes",
        ErrorKind::Parse,
    ),
    ("cline-diff/04-malformed-opener-no-space", ErrorKind::Parse),
    (
        "cline-diff/13-replace-marker-before-separator",
        ErrorKind::Parse,
    ),
    ("cline-diff/15-two-replace-markers", ErrorKind::Parse),
    ("cline-diff/16-separator-with-dashes", ErrorKind::Parse),
    ("cline-diff/18-missing-replace-marker", ErrorKind::Truncated),
    (
        "cline-diff/19-missing-replace-marker-multiline",
        ErrorKind::Truncated,
    ),
    ("cline-diff/25-opener-11-chars", ErrorKind::Parse),
    ("cline-diff/26-opener-5-separator-5", ErrorKind::Parse),
    ("cline-diff/27-opener-5-separator-8", ErrorKind::Parse),
    ("cline-diff/28-opener-11-separator-10", ErrorKind::Parse),
    ("cline-diff/29-opener-11-separator-5", ErrorKind::Parse),
    (
        "cline-diff/31-second-opener-5-separator-5",
        ErrorKind::Parse,
    ),
    ("roo-multi-search-replace/13-no-block", ErrorKind::Parse),
];

/// Cases whose parsed batch is snapshotted whole.
const SNAPSHOTTED: [&str; 7] = [
    "search_replace-python-two-files-fence-variants",
    "search_replace-tsx-create-component-and-export",
    "roo_diff-yaml-escaped-conflict-markers",
    "roo_diff-rust-line-number-prefixes",
    "roo_diff-go-start-line-picks-duplicate",
    "find_replace-go-yaml-multi-file",
    "find_replace-markdown-four-backtick-fence",
];

/// `(name, case dir)` of every case this test covers, sorted.
fn cases() -> Vec<(String, PathBuf)> {
    let Some(shared) = shared::shared_dir() else {
        return Vec::new();
    };
    let mut cases = Vec::new();
    for entry in fs::read_dir(shared.join("corpus/cases")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if ["search_replace-", "roo_diff-", "find_replace-"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            cases.push((name, path));
        }
    }
    for suite in ["aider-editblock", "cline-diff", "roo-multi-search-replace"] {
        for entry in fs::read_dir(shared.join("peer-suites").join(suite).join("cases")).unwrap() {
            let path = entry.unwrap().path();
            let name = format!("{suite}/{}", path.file_name().unwrap().to_string_lossy());
            cases.push((name, path));
        }
    }
    cases.sort();
    assert!(cases.len() >= 100, "only {} cases found", cases.len());
    cases
}

fn payload(case: &Path) -> String {
    let file = fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_stem().is_some_and(|s| s == "payload"))
        .unwrap_or_else(|| panic!("no payload in {}", case.display()));
    fs::read_to_string(file).unwrap()
}

/// The parse error kind the case expects, if its failure is a parse failure.
fn expected_parse_failure(name: &str, case: &Path) -> Option<ErrorKind> {
    if let Some((_, kind)) = PEER_PARSE_FAILURES.iter().find(|(n, _)| *n == name) {
        return Some(*kind);
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    match json["error"]["kind"].as_str() {
        Some("parse") => Some(ErrorKind::Parse),
        Some("truncated") => Some(ErrorKind::Truncated),
        _ => None,
    }
}

fn check_case(name: &str, case: &Path, parsed: &Parsed) -> Result<(), String> {
    if let Some(kind) = expected_parse_failure(name, case) {
        return if parsed.errors.iter().any(|e| e.kind == kind) {
            Ok(())
        } else {
            Err(format!("expected a {kind} error, got {:?}", parsed.errors))
        };
    }
    if !parsed.errors.is_empty() {
        return Err(format!("unexpected errors {:?}", parsed.errors));
    }
    if parsed.batch.edits.is_empty() {
        return Err("no edit".into());
    }
    for edit in &parsed.batch.edits {
        let created = matches!(edit.op, EditOp::Create { .. });
        if !created && !case.join("before").join(&edit.path).is_file() {
            return Err(format!(
                "edit {} targets {:?}, not in before/",
                edit.index, edit.path
            ));
        }
    }
    Ok(())
}

#[test]
fn every_case_parses_as_expected() {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|(name, case)| {
            let parsed = parse(&payload(case), None);
            check_case(name, case, &parsed)
                .err()
                .map(|why| format!("{name}: {why}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn parsed_batches() {
    let Some(shared) = shared::shared_dir() else {
        return;
    };
    for name in SNAPSHOTTED {
        let parsed = parse(&payload(&shared.join("corpus/cases").join(name)), None);
        insta::assert_json_snapshot!(name, parsed.batch);
    }
}

#[test]
fn parse_error_messages() {
    let cases = cases();
    if cases.is_empty() {
        return; // no shared corpus here (noted by `shared::shared_dir`)
    }
    let errors: Vec<(String, Vec<String>)> = cases
        .iter()
        .filter_map(|(name, case)| {
            let parsed = parse(&payload(case), None);
            let messages: Vec<String> = parsed
                .errors
                .iter()
                .map(|e| format!("{} at {:?}: {}", e.kind, e.lines, e.message))
                .collect();
            (!messages.is_empty()).then(|| (name.clone(), messages))
        })
        .collect();
    insta::assert_debug_snapshot!(errors);
}
