//! Files the user changed since the LLM saw them (`~M`, `FORMATS.md` §5).
//!
//! The edits are resolved against the snapshot the LLM saw; the result
//! ("theirs") then meets the current buffer ("ours") according to the
//! policy: `merge` three-way merges snapshot → buffer with snapshot → LLM
//! result (disjoint changes merge, overlapping ones are a `conflict`),
//! `refuse` reports a `conflict`, `overwrite` lets the LLM's result replace
//! the buffer.

use std::sync::Arc;

use super::OnConflict;
use super::{resolve_text, FileResult, ResolveConfig};
use crate::error::{EditError, ErrorKind, LineRange};
use crate::merge::{self, MergeOutcome};
use crate::model::Edit;
use crate::plan::{After, FileChange, FileStatus};
use crate::workspace::{FileSource, SourceText, WorkspacePath};

/// Resolves the edits of a file whose current text differs from its
/// snapshot.
pub fn resolve_changed_file(
    path: &WorkspacePath,
    edits: &[&Edit],
    source: &dyn FileSource,
    config: &ResolveConfig,
    current: Option<Arc<SourceText>>,
    snapshot: &str,
) -> FileResult {
    let first = edits[0];
    let Some(current) = current else {
        return FileResult::Failed(vec![conflict(
            path,
            first,
            format!(
                "edit {} in {path}: the file was deleted since the LLM saw it; restore it or ask the LLM again without it",
                first.index
            ),
            Vec::new(),
        )]);
    };
    let base = Arc::new(SourceText {
        text: snapshot.to_string(),
        encoding: current.encoding,
        version: None,
        stamp: None,
    });
    let changes = match resolve_text(path, edits, source, (config, None), Some(base)) {
        FileResult::Changed(changes) => changes,
        failed => return failed,
    };
    let Some(theirs) = changes.into_iter().next() else {
        // The edits change nothing: the buffer stays as the user left it.
        return FileResult::Changed(Vec::new());
    };
    if theirs.status != FileStatus::Modified {
        return FileResult::Failed(vec![conflict(
            path,
            first,
            format!(
                "edit {} in {path}: the LLM {} a file that changed since it saw it; save or discard the local changes first",
                first.index,
                if theirs.status == FileStatus::Deleted { "deletes" } else { "renames" }
            ),
            Vec::new(),
        )]);
    }
    let theirs_text = theirs.after().unwrap_or_default().to_owned();
    let indices = theirs.edit_indices;
    match config.on_conflict {
        OnConflict::Refuse => {
            let local = local_changes(snapshot, &current.text);
            let where_ = describe(&local);
            FileResult::Failed(vec![conflict(
                path,
                first,
                format!(
                    "edit {} in {path}: the file changed since the LLM saw it (local changes at {where_}); \
                     save or discard them and ask again, or apply with --on-conflict merge",
                    first.index
                ),
                local,
            )])
        }
        OnConflict::Overwrite => {
            // Diffing the buffer against the result gives minimal edits.
            // Merging the result into an unchanged buffer gives minimal edits;
            // it cannot conflict (the buffer is its own base).
            let edits = match merge::merge(&current.text, &current.text, &theirs_text) {
                MergeOutcome::Merged(m) => m.edits,
                MergeOutcome::Conflicts(_) => {
                    crate::plan::TextEdits::new(vec![crate::plan::TextEdit::new(
                        0..current.text.len(),
                        theirs_text.clone(),
                    )])
                    .unwrap_or_default()
                }
            };
            FileResult::Changed(vec![changed(
                path,
                current,
                theirs_text,
                edits,
                indices,
                FileStatus::Modified,
            )])
        }
        OnConflict::Merge => match merge::merge(snapshot, &current.text, &theirs_text) {
            MergeOutcome::Merged(m) => FileResult::Changed(vec![changed(
                path,
                current,
                m.text,
                m.edits,
                indices,
                FileStatus::Merged,
            )]),
            MergeOutcome::Conflicts(conflicts) => {
                let ranges: Vec<LineRange> = conflicts.iter().map(|c| c.ours.lines).collect();
                let errors = vec![conflict(
                    path,
                    first,
                    format!(
                        "edit {} in {path}: your local changes and the LLM's edit change the same lines ({}); \
                         keep yours, take the LLM's, or merge them by hand",
                        first.index,
                        describe(&ranges)
                    ),
                    ranges,
                )];
                FileResult::Failed(errors)
            }
        },
    }
}

fn changed(
    path: &WorkspacePath,
    current: Arc<SourceText>,
    after: String,
    edits: crate::plan::TextEdits,
    indices: Vec<usize>,
    status: FileStatus,
) -> FileChange {
    FileChange {
        path: path.clone(),
        from: None,
        status,
        before: Some(current),
        content: After::Text(after),
        edits,
        edit_indices: indices,
    }
}

/// A `conflict` error naming the buffer lines involved.
fn conflict(
    path: &WorkspacePath,
    edit: &Edit,
    message: String,
    ranges: Vec<LineRange>,
) -> EditError {
    EditError::new(ErrorKind::Conflict, message)
        .with_path(path.as_str())
        .with_edit(edit.index)
        .with_lines(ranges.iter().map(|r| r.first).collect())
        .with_ranges(ranges)
        .with_payload_lines(edit.source.first_line, edit.source.last_line)
}

/// The regions of the buffer that differ from the snapshot, as buffer lines.
fn local_changes(snapshot: &str, buffer: &str) -> Vec<LineRange> {
    let diff = similar::TextDiff::from_lines(snapshot, buffer);
    diff.ops()
        .iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal)
        .map(|op| {
            let r = op.new_range();
            LineRange::new(r.start + 1, r.end.max(r.start + 1))
        })
        .collect()
}

/// "lines 3-5, line 9".
fn describe(ranges: &[LineRange]) -> String {
    if ranges.is_empty() {
        return "the end of the file".to_string();
    }
    ranges
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
