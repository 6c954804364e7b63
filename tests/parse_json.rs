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

#[test]
fn prompt_kit_examples_parse() {
    let kit = include_str!("../src/prompt_kits/json.md");
    let parsed = parse(kit, None);
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(parsed.batch.edits.len(), 3);
}

#[test]
fn prompt_kit_schemas_name_the_parsed_tools() {
    let tools: serde_json::Value =
        serde_json::from_str(include_str!("../src/prompt_kits/json_tools.json"))
            .expect("json_tools.json is JSON");
    let names: Vec<&str> = tools
        .as_array()
        .expect("an array of tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["write_file", "edit_file", "modify_file"]);
    for tool in tools.as_array().into_iter().flatten() {
        let parameters = &tool["function"]["parameters"];
        assert_eq!(parameters["type"], "object", "{tool}");
        assert!(parameters["required"].is_array(), "{tool}");
    }
}
