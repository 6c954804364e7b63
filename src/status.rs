//! Per-file context status (`FORMATS.md` §5, seed 000).
//!
//! A file's status compares the editor's buffer (unsaved changes included)
//! with the snapshot the LLM saw, and says whether the LLM edits it:
//!
//! | status | snapshot vs buffer | LLM edit |
//! |--------|--------------------|----------|
//! | ``     | equal              | no       |
//! | `M`    | equal              | yes      |
//! | `A`    | no snapshot, no file | yes (a new file) |
//! | `~`    | different          | no       |
//! | `~M`   | different          | yes: merge, refuse or overwrite |
//!
//! The comparison is cheap: byte lengths first, then the xxh3 hash of the
//! buffer against the one stored with the snapshot, and the full texts only
//! when both agree (to rule out a hash collision).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::context::{text_hash, Snapshot, SnapshotEntry};
use crate::workspace::WorkspacePath;

/// A file's status with respect to its context snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FileContextStatus {
    /// `` — in context, buffer equals the snapshot, no LLM edit.
    #[serde(rename = "")]
    Unchanged,
    /// `M` — LLM edit, buffer equals the snapshot (or the LLM edits a file
    /// it had no snapshot of).
    #[serde(rename = "M")]
    Modified,
    /// `A` — LLM edit creating a file that is neither in context nor on
    /// disk.
    #[serde(rename = "A")]
    Added,
    /// `~` — buffer differs from the snapshot, no LLM edit.
    #[serde(rename = "~")]
    OutOfSync,
    /// `~M` — buffer differs from the snapshot and the LLM edits the file.
    #[serde(rename = "~M")]
    Conflict,
}

impl FileContextStatus {
    /// The status letters as shown to users.
    pub fn code(self) -> &'static str {
        match self {
            FileContextStatus::Unchanged => "",
            FileContextStatus::Modified => "M",
            FileContextStatus::Added => "A",
            FileContextStatus::OutOfSync => "~",
            FileContextStatus::Conflict => "~M",
        }
    }
}

/// The status of one file: its snapshot (if in context), its current
/// buffer or disk text (`None` when the file does not exist), and whether
/// the LLM edits it. A file removed since the snapshot differs from it.
pub fn status(
    snapshot: Option<&SnapshotEntry>,
    buffer: Option<&str>,
    has_llm_edit: bool,
) -> FileContextStatus {
    let Some(snapshot) = snapshot else {
        return match (has_llm_edit, buffer) {
            (false, _) => FileContextStatus::Unchanged,
            (true, None) => FileContextStatus::Added,
            (true, Some(_)) => FileContextStatus::Modified,
        };
    };
    let in_sync = buffer.is_some_and(|text| same_text(snapshot, text));
    match (in_sync, has_llm_edit) {
        (true, false) => FileContextStatus::Unchanged,
        (true, true) => FileContextStatus::Modified,
        (false, false) => FileContextStatus::OutOfSync,
        (false, true) => FileContextStatus::Conflict,
    }
}

/// Whether `text` is the snapshot's text: length, then hash, then bytes.
fn same_text(snapshot: &SnapshotEntry, text: &str) -> bool {
    snapshot.len == text.len() && snapshot.hash == text_hash(text) && *snapshot.text == *text
}

/// The statuses of every file of a context and every file the LLM edits,
/// in path order. `buffer` gives a file's current text (the open buffer,
/// else the disk; `None` when it does not exist).
pub fn statuses<B, F>(
    snapshot: &Snapshot,
    llm_edited: &BTreeSet<WorkspacePath>,
    mut buffer: F,
) -> Vec<(WorkspacePath, FileContextStatus)>
where
    B: AsRef<str>,
    F: FnMut(&WorkspacePath) -> Option<B>,
{
    let paths: BTreeSet<&WorkspacePath> = snapshot
        .iter()
        .map(|(path, _)| path)
        .chain(llm_edited)
        .collect();
    paths
        .into_iter()
        .map(|path| {
            let text = buffer(path);
            let file_status = status(
                snapshot.get(path),
                text.as_ref().map(AsRef::as_ref),
                llm_edited.contains(path),
            );
            (path.clone(), file_status)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;
    use FileContextStatus::*;

    #[test]
    fn statuses_of_one_file() {
        let snap = SnapshotEntry::new("a\nb\n");
        assert_eq!(status(Some(&snap), Some("a\nb\n"), false), Unchanged);
        assert_eq!(status(Some(&snap), Some("a\nb\n"), true), Modified);
        assert_eq!(status(Some(&snap), Some("a\nB\n"), false), OutOfSync);
        assert_eq!(status(Some(&snap), Some("a\nB\n"), true), Conflict);
        assert_eq!(status(Some(&snap), Some("a\nb\nc\n"), true), Conflict);
        assert_eq!(status(Some(&snap), None, false), OutOfSync);
        assert_eq!(status(Some(&snap), None, true), Conflict);
        assert_eq!(status(None, None, true), Added);
        assert_eq!(status(None, Some("x"), true), Modified);
        assert_eq!(status(None, Some("x"), false), Unchanged);
        assert_eq!(
            status(Some(&SnapshotEntry::new("")), None, false),
            OutOfSync
        );
    }

    #[test]
    fn same_length_and_hash_still_compares_text() {
        // A forged entry whose length and hash match another text.
        let mut forged = SnapshotEntry::new("abc");
        forged.text = "xyz".into();
        assert_eq!(status(Some(&forged), Some("abc"), false), OutOfSync);
    }

    #[test]
    fn codes_match_the_formats_doc() {
        let codes: Vec<&str> = [Unchanged, Modified, Added, OutOfSync, Conflict]
            .iter()
            .map(|s| s.code())
            .collect();
        assert_eq!(codes, ["", "M", "A", "~", "~M"]);
        assert_eq!(serde_json::to_string(&Conflict).unwrap(), "\"~M\"");
    }

    #[test]
    fn statuses_of_a_context() {
        let root = Path::new("/ws");
        let p = |raw| WorkspacePath::new(root, raw).unwrap();
        let snapshot: Snapshot = ["same.py", "edited.py", "local.py", "both.py"]
            .into_iter()
            .map(|raw| (p(raw), SnapshotEntry::new("x\n")))
            .collect();
        let buffers: HashMap<WorkspacePath, &str> = [
            (p("same.py"), "x\n"),
            (p("edited.py"), "x\n"),
            (p("local.py"), "y\n"),
            (p("both.py"), "y\n"),
            (p("outside.py"), "z\n"),
        ]
        .into_iter()
        .collect();
        let edited: BTreeSet<WorkspacePath> =
            [p("edited.py"), p("both.py"), p("new.py"), p("outside.py")]
                .into_iter()
                .collect();
        let got = statuses(&snapshot, &edited, |path| buffers.get(path).copied());
        let got: Vec<(&str, &str)> = got.iter().map(|(p, s)| (p.as_str(), s.code())).collect();
        assert_eq!(
            got,
            [
                ("both.py", "~M"),
                ("edited.py", "M"),
                ("local.py", "~"),
                ("new.py", "A"),
                ("outside.py", "M"),
                ("same.py", ""),
            ]
        );
    }
}
