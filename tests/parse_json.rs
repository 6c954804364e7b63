//! Data-driven tests of the JSON tool-call parser: every payload under
//! `tests/fixtures/parse/json/ok` parses without error into at least one
//! edit; every payload under `err` gives at least one error. The parsed batch
//! (or the errors) is snapshotted.

use llm_edit_lsp::error::ErrorKind;
use llm_edit_lsp::model::Format;
use llm_edit_lsp::parse::parse;
use serde_json::json;

#[test]
fn ok_fixtures_parse_into_edits() {
    insta::glob!("fixtures/parse/json/ok/*", |path| {
        let payload = std::fs::read_to_string(path).expect("fixture is readable");
        let parsed = parse(&payload, None);
        assert!(
            parsed.errors.is_empty(),
            "{}: {:#?}",
            path.display(),
            parsed.errors
        );
        assert!(
            !parsed.batch.edits.is_empty(),
            "{}: no edit",
            path.display()
        );
        assert_eq!(parsed.formats, vec![Format::Json], "{}", path.display());
        insta::assert_json_snapshot!(parsed.batch);
    });
}

#[test]
fn err_fixtures_report_errors() {
    insta::glob!("fixtures/parse/json/err/*", |path| {
        let payload = std::fs::read_to_string(path).expect("fixture is readable");
        let parsed = parse(&payload, None);
        assert!(!parsed.errors.is_empty(), "{}: no error", path.display());
        for error in &parsed.errors {
            assert!(
                matches!(error.kind, ErrorKind::Parse | ErrorKind::Truncated),
                "{}: {error:?}",
                path.display()
            );
        }
        insta::assert_json_snapshot!(json!({
            "errors": parsed.errors,
            "edits": parsed.batch.edits,
        }));
    });
}
