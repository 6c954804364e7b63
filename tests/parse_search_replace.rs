//! Fixture tests of the `search_replace` parser: every `tests/fixtures/parse/search_replace/ok/*.md`
//! parses without error into at least one edit, every `err/*.md` gives
//! errors; the parsed batch (or the errors) is snapshotted.

use llm_edit_lsp::parse::parse;

#[test]
fn ok_fixtures() {
    insta::glob!("fixtures/parse/search_replace/ok/*.md", |path| {
        let parsed = parse(&std::fs::read_to_string(path).unwrap(), None);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert!(!parsed.batch.edits.is_empty());
        insta::assert_json_snapshot!(parsed.batch);
    });
}

#[test]
fn err_fixtures() {
    insta::glob!("fixtures/parse/search_replace/err/*.md", |path| {
        let parsed = parse(&std::fs::read_to_string(path).unwrap(), None);
        assert!(!parsed.errors.is_empty(), "no error");
        insta::assert_json_snapshot!(parsed.errors);
    });
}
