//! Fixture snapshots for the `edit_block` parser: every
//! `tests/fixtures/parse/edit_block/ok/*.md` payload parses into edits of this
//! format with no error, every `err/*.md` payload reports at least one
//! error; the edits and errors (messages included) are snapshotted.

use llm_edit_lsp::model::Format;
use llm_edit_lsp::parse::parse;

#[test]
fn fixtures() {
    insta::glob!("fixtures/parse/edit_block/*/*.md", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = parse(&text, None);
        if path.parent().is_some_and(|dir| dir.ends_with("err")) {
            assert!(!parsed.errors.is_empty(), "no error for {}", path.display());
        } else {
            assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
            assert!(!parsed.batch.edits.is_empty());
            assert!(
                parsed.formats.contains(&Format::EditBlock),
                "{:?}",
                parsed.formats
            );
        }
        let snapshot = serde_json::json!({"edits": parsed.batch.edits, "errors": parsed.errors});
        insta::assert_json_snapshot!(snapshot);
    });
}
