//! Parses every `json-*` case of the shared corpus and checks the outcome its
//! `case.json` expects at the parse level: a `parse`/`truncated` error where
//! the case expects one, otherwise at least one edit and no error.
//!
//! The corpus lives outside the crate (`tests/common/shared.rs` says where).

#[path = "common/shared.rs"]
mod shared;

use llm_edit_lsp::model::Format;
use llm_edit_lsp::parse::{parse, Parsed};
use serde_json::Value;

/// Every `json-*` case: (id, expected error kind if any, parsed payload).
/// `None` when the shared corpus is not here.
fn json_cases() -> Option<Vec<(String, Option<String>, Parsed)>> {
    let cases_dir = shared::corpus_cases()?;
    let mut ids: Vec<String> = std::fs::read_dir(&cases_dir)
        .expect("corpus is readable")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|id| id.starts_with("json-"))
        .collect();
    ids.sort();
    let cases = ids
        .into_iter()
        .map(|id| {
            let dir = cases_dir.join(&id);
            let case: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("case.json")).expect("case.json"),
            )
            .expect("case.json is JSON");
            let kind = case["error"]["kind"].as_str().map(str::to_string);
            let payload = std::fs::read_to_string(dir.join("payload.json")).expect("payload");
            (id, kind, parse(&payload, None))
        })
        .collect();
    Some(cases)
}

#[test]
fn every_json_case_parses_as_expected() {
    let Some(cases) = json_cases() else {
        return;
    };
    assert!(cases.len() >= 14, "found only {} json cases", cases.len());
    for (id, kind, parsed) in cases {
        match kind.as_deref() {
            Some(kind @ ("parse" | "truncated")) => assert!(
                parsed.errors.iter().any(|e| e.kind.name() == kind),
                "{id}: expected a {kind} error, got {:#?}",
                parsed.errors
            ),
            _ => {
                assert!(parsed.errors.is_empty(), "{id}: {:#?}", parsed.errors);
                assert!(!parsed.batch.edits.is_empty(), "{id}: no edit");
                assert_eq!(parsed.formats, vec![Format::Json], "{id}");
            }
        }
    }
}

#[test]
fn snapshots_of_chosen_cases() {
    let chosen = [
        "json-go-bench2-reorder-functions",
        "json-python-bare-edits-create-with-empty-old-string",
        "json-python-str-replace-tool-create-insert-replace",
        "json-tsx-claude-multiedit-and-write",
        "json-go-modify-file-brace-end-anchor",
        "json-python-edit-file-indentation-repair",
    ];
    let Some(cases) = json_cases() else {
        return;
    };
    for id in chosen {
        let (_, _, parsed) = cases
            .iter()
            .find(|(case, _, _)| case == id)
            .unwrap_or_else(|| panic!("case {id} is missing"));
        insta::assert_json_snapshot!(id, parsed.batch);
    }
}
