//! Inputs that once crashed the engine (found by the fuzz targets of
//! `fuzz/`), replayed through `parse::parse` and `engine::run`.
//!
//! Each folder of `tests/fixtures/regressions/` is laid out like a corpus
//! case: `payload.md`, the files in `before/`, optional snapshots in
//! `context/`. The test asserts no panic, and that every planned change's
//! edits turn its `before` text into its `after` text.

mod common;

use std::path::{Path, PathBuf};

use common::MemFiles;
use llm_edit_lsp::engine::{self, Options};
use llm_edit_lsp::parse;
use llm_edit_lsp::workspace::WorkspacePath;

/// Every file under `dir` as (workspace path, text).
fn texts_under(root: &Path, dir: &Path) -> Vec<(WorkspacePath, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(texts_under(root, &path));
        } else {
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy();
            let text = std::fs::read_to_string(&path).expect("UTF-8 fixture");
            out.push((
                WorkspacePath::new(Path::new("/r"), &rel).expect("a path"),
                text,
            ));
        }
    }
    out
}

fn replay(case: &Path) {
    let payload = std::fs::read_to_string(case.join("payload.md")).expect("payload.md");
    let before = case.join("before");
    let context = case.join("context");
    let files = texts_under(&before, &before)
        .into_iter()
        .fold(MemFiles::new(), |m, (p, t)| m.with(p.as_str(), t));
    let source = texts_under(&context, &context)
        .into_iter()
        .fold(files, |m, (p, t)| m.with_snapshot(p.as_str(), t));
    parse::parse(&payload, None);
    let outcome = engine::run(&payload, &Options::default(), &source);
    for change in &outcome.files {
        if let (Some(before), Some(after)) = (&change.before, change.after()) {
            assert_eq!(
                &change.edits.apply(&before.text),
                after,
                "{}",
                case.display()
            );
        }
    }
}

#[test]
fn regressions_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/regressions");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/regressions")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("payload.md").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    for case in cases {
        replay(&case);
    }
}
