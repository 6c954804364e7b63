//! The corpus' `~M` merge cases, replayed on `merge::merge` alone: the
//! LLM's result is built from the snapshot (`context/`) by applying the
//! payload's SEARCH/REPLACE blocks (or a `write_file` content) literally,
//! then merged with the unsaved buffer (`before/`).

use std::fs;
use std::path::{Path, PathBuf};

use llm_edit_lsp::error::LineRange;
use llm_edit_lsp::merge::{merge, MergeOutcome};

#[path = "common/shared.rs"]
mod shared;

/// The case folder, or `None` when the shared corpus is not on this machine.
fn case(id: &str) -> Option<PathBuf> {
    let dir = shared::corpus_cases()?.join(id);
    assert!(dir.is_dir(), "corpus case {id} is missing");
    Some(dir)
}

fn read(dir: &Path, sub: &str, file: &str) -> String {
    fs::read_to_string(dir.join(sub).join(file)).unwrap()
}

/// Applies the SEARCH/REPLACE blocks of `payload` that follow a line naming
/// `file`, each once, literally.
fn apply_search_replace(payload: &str, file: &str, text: &str) -> String {
    let mut text = text.to_string();
    let mut lines = payload.lines();
    let mut current = "";
    while let Some(line) = lines.next() {
        if line.trim() != "<<<<<<< SEARCH" {
            if !line.starts_with("```") && !line.trim().is_empty() {
                current = line.trim();
            }
            continue;
        }
        let search: Vec<&str> = lines.by_ref().take_while(|l| *l != "=======").collect();
        let replace: Vec<&str> = lines
            .by_ref()
            .take_while(|l| *l != ">>>>>>> REPLACE")
            .collect();
        if current == file {
            let (search, replace) = (search.join("\n") + "\n", replace.join("\n") + "\n");
            assert!(text.contains(&search), "search not in snapshot: {search}");
            text = text.replacen(&search, &replace, 1);
        }
    }
    text
}

#[test]
fn disjoint_local_and_llm_changes_merge() {
    let Some(dir) = case("search_replace-python-conflict-disjoint-merge") else {
        return;
    };
    let file = "app/pricing.py";
    let payload = fs::read_to_string(dir.join("payload.md")).unwrap();
    let base = read(&dir, "context", file);
    let theirs = apply_search_replace(&payload, file, &base);
    let ours = read(&dir, "before", file);
    let MergeOutcome::Merged(merged) = merge(&base, &ours, &theirs) else {
        panic!("conflict");
    };
    assert_eq!(merged.text, read(&dir, "after", file));
    assert_eq!(merged.edits.as_slice().len(), 2);
}

#[test]
fn same_line_changed_locally_and_by_the_llm_conflicts() {
    let Some(dir) = case("search_replace-python-conflict-overlap") else {
        return;
    };
    let file = "app/http_client.py";
    let payload = fs::read_to_string(dir.join("payload.md")).unwrap();
    let base = read(&dir, "context", file);
    let theirs = apply_search_replace(&payload, file, &base);
    let ours = read(&dir, "before", file);
    let MergeOutcome::Conflicts(conflicts) = merge(&base, &ours, &theirs) else {
        panic!("merged");
    };
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].ours.lines, LineRange::new(3, 3));
    assert!(conflicts[0].ours.text.contains("15.0"));
    assert!(conflicts[0].theirs.text.contains("30.0"));
}

#[test]
fn write_file_rewrite_merges_with_local_changes() {
    let Some(dir) = case("json-python-conflict-write-file-merge") else {
        return;
    };
    let file = "app/notify.py";
    let payload: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("payload.json")).unwrap()).unwrap();
    let theirs = payload["arguments"]["content"].as_str().unwrap();
    let base = read(&dir, "context", file);
    let ours = read(&dir, "before", file);
    let MergeOutcome::Merged(merged) = merge(&base, &ours, theirs) else {
        panic!("conflict");
    };
    assert_eq!(merged.text, read(&dir, "after", file));
}
