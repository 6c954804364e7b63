//! Code lenses on response documents: one per LLM edit block, saying where
//! it lands ("applies to src/a.rs:42", "creates src/b.rs") or why it does
//! not ("not found", "ambiguous: lines 12, 40").
//!
//! They come from the same analysis as the response's diagnostics, planned
//! with `partial` on so that the edits that resolve keep their changes even
//! when another block fails. An edit sharing its file's change with other
//! edits is located by resolving it alone against the file.

use tower_lsp_server::ls_types::{CodeLens, CodeLensOptions, Command, ServerCapabilities};

use crate::engine::{FileChange, FileStatus, Options, Outcome};
use crate::error::LineRange;
use crate::error::{EditError, ErrorKind};
use crate::lsp::position::PositionEncoding;
use crate::lsp::proto::TextPositions;
use crate::model::Edit;
use crate::resolve::{self, FileResult};
use crate::workspace::{FileSource, WorkspacePath};

/// The lens of one edit block of a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLens {
    /// The edit's 1-based payload index.
    pub index: usize,
    /// Its first payload line (1-based), where the lens shows.
    pub line: usize,
    /// What the lens says.
    pub title: String,
}

/// Advertises code lenses (computed eagerly; nothing to resolve).
pub fn advertise(capabilities: &mut ServerCapabilities) {
    capabilities.code_lens_provider = Some(CodeLensOptions {
        resolve_provider: Some(false),
    });
}

/// The lens of every edit of an analyzed response.
pub fn block_lenses(
    outcome: &Outcome,
    source: &dyn FileSource,
    options: &Options,
) -> Vec<BlockLens> {
    outcome
        .batch
        .edits
        .iter()
        .map(|edit| BlockLens {
            index: edit.index,
            line: edit.source.first_line,
            title: title(edit, outcome, source, options),
        })
        .collect()
}

/// Protocol code lenses, at the first payload line of each block.
pub fn code_lenses(lenses: &[BlockLens], text: &str, encoding: PositionEncoding) -> Vec<CodeLens> {
    let positions = TextPositions::new(text, encoding);
    lenses
        .iter()
        .map(|lens| {
            let mut range = positions.lines(LineRange::new(lens.line, lens.line));
            range.end = range.start;
            CodeLens {
                range,
                command: Some(Command::new(lens.title.clone(), String::new(), None)),
                data: None,
            }
        })
        .collect()
}

fn title(edit: &Edit, outcome: &Outcome, source: &dyn FileSource, options: &Options) -> String {
    if let Some(error) = outcome.errors.iter().find(|e| e.edit == Some(edit.index)) {
        return failure_title(error);
    }
    let Some(change) = outcome
        .files
        .iter()
        .find(|f| f.edit_indices.contains(&edit.index))
    else {
        return "changes nothing".into();
    };
    match change.status {
        FileStatus::Added => format!("creates {}", change.path),
        FileStatus::Deleted => format!("deletes {}", change.path),
        FileStatus::Renamed if change.edits.as_slice().is_empty() => {
            let from = change.from.as_ref().unwrap_or(&change.path);
            format!("renames {from} to {}", change.path)
        }
        _ => match edit_line(edit, change, source, options) {
            Some(line) => format!("applies to {}:{line}", change.path),
            None => format!("applies to {}", change.path),
        },
    }
}

/// "not found", "ambiguous: lines 12, 40", "overlap: lines 3, 5", "binary".
fn failure_title(error: &EditError) -> String {
    let kind = match error.kind {
        ErrorKind::NotFound => return "not found".into(),
        other => other.name().replace('_', " "),
    };
    let lines: Vec<String> = error.lines.iter().map(ToString::to_string).collect();
    match (error.kind, lines.len()) {
        (ErrorKind::Parse | ErrorKind::Truncated, _) | (_, 0) => kind,
        (_, 1) => format!("{kind}: line {}", lines[0]),
        _ => format!("{kind}: lines {}", lines.join(", ")),
    }
}

/// The first line the edit changes in the file as it was: from the file's
/// change when the edit is its only one, else by resolving it alone.
fn edit_line(
    edit: &Edit,
    change: &FileChange,
    source: &dyn FileSource,
    options: &Options,
) -> Option<usize> {
    if change.edit_indices.len() == 1 {
        return first_changed_line(change);
    }
    let path = change.from.as_ref().unwrap_or(&change.path);
    let config = crate::engine::resolve_config(options);
    match resolve::resolve_file(path, &[edit], source, &config, None) {
        FileResult::Changed(alone) => alone
            .iter()
            .find(|c| same_file(c, path))
            .and_then(first_changed_line),
        _ => None,
    }
}

fn same_file(change: &FileChange, path: &WorkspacePath) -> bool {
    change.from.as_ref().unwrap_or(&change.path) == path
}

fn first_changed_line(change: &FileChange) -> Option<usize> {
    let before = change.before.as_ref()?;
    let first = change.edits.as_slice().first()?;
    let start = first.range.start.min(before.text.len());
    let newlines = before.text.as_bytes()[..start]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
    Some(newlines + 1)
}
