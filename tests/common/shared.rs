//! Where the shared corpus is, for the tests that replay it.
//!
//! `LLM_EDIT_SHARED`, else `../shared` beside the repository (as CI lays it
//! out). Without it a test skips with a note on stderr, except under
//! `CI=true`, where a missing corpus is a failure: CI must never pass a
//! corpus test that ran nothing.

use std::path::PathBuf;

/// The `corpus/cases` folder, or `None` (after a note) when it is absent.
#[allow(dead_code)] // each test crate uses one of the two
pub fn corpus_cases() -> Option<PathBuf> {
    shared_dir().map(|dir| dir.join("corpus/cases"))
}

/// The shared folder (corpus and peer suites), or `None` (after a note).
#[allow(dead_code)] // each test crate uses one of the two
pub fn shared_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("LLM_EDIT_SHARED").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")),
        PathBuf::from,
    );
    let cases = shared.join("corpus/cases");
    if cases.is_dir() {
        return Some(shared);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the shared corpus is missing under {} (set LLM_EDIT_SHARED)",
        shared.display()
    );
    eprintln!("skipped: no shared corpus under {}", shared.display());
    None
}
