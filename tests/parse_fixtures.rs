//! Fixture snapshots of every block parser: each
//! `tests/fixtures/parse/<format>/ok/*.md` payload parses, with no error,
//! into edits that include the format; each `err/*.md` payload reports at
//! least one error. The edits and errors (messages included) are snapshotted.
//! (JSON fixtures have their own test, `parse_json.rs`.)

use std::path::Path;

use llm_edit_lsp::model::Format;
use llm_edit_lsp::parse::parse;

#[track_caller]
fn check(path: &Path, format: Format) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    let parsed = parse(&text, None);
    if path.parent().is_some_and(|dir| dir.ends_with("err")) {
        assert!(!parsed.errors.is_empty(), "no error for {}", path.display());
    } else {
        assert!(
            parsed.errors.is_empty(),
            "{}: {:?}",
            path.display(),
            parsed.errors
        );
        assert!(
            !parsed.batch.edits.is_empty(),
            "{}: no edit",
            path.display()
        );
        assert!(
            parsed.formats.contains(&format),
            "{}: {:?}",
            path.display(),
            parsed.formats
        );
    }
    serde_json::json!({"edits": parsed.batch.edits, "errors": parsed.errors})
}

/// Checks every fixture of a format and snapshots it under the test's name.
macro_rules! fixtures {
    ($dir:literal, $format:expr) => {
        insta::glob!(concat!("fixtures/parse/", $dir, "/*/*.md"), |path| {
            insta::assert_json_snapshot!(check(path, $format));
        })
    };
}

#[test]
fn search_replace() {
    fixtures!("search_replace", Format::SearchReplace);
}

#[test]
fn roo_diff() {
    fixtures!("roo_diff", Format::RooDiff);
}

#[test]
fn find_replace() {
    fixtures!("find_replace", Format::FindReplace);
}

#[test]
fn edit_block() {
    fixtures!("edit_block", Format::EditBlock);
}

#[test]
fn edit_block_v2() {
    fixtures!("edit_block_v2", Format::EditBlockV2);
}

#[test]
fn apply_patch() {
    fixtures!("apply_patch", Format::ApplyPatch);
}

#[test]
fn unified_diff() {
    fixtures!("unified_diff", Format::UnifiedDiff);
}

#[test]
fn code_block() {
    fixtures!("code_block", Format::CodeBlock);
}
