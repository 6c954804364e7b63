//! Pure outputs of a run: the JSON report, unified diffs, summaries.

use serde::Serialize;

use crate::engine::{FileChange, Options, Outcome};
use crate::error::EditError;

/// The CLI's JSON report (`FORMATS.md` §7).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Everything applied (or would, with `--dry-run`); with `--partial`,
    /// what resolved was applied.
    pub applied: bool,
    /// The files changed.
    pub files: Vec<FileEntry<'a>>,
    /// Every failure.
    pub errors: &'a [EditError],
    /// Shell commands the response suggests; never run.
    pub suggestions: &'a [String],
}

/// One file of the report.
#[derive(Debug, Serialize)]
pub struct FileEntry<'a> {
    /// Workspace-relative path (the new one for a rename).
    pub path: &'a str,
    /// `M`, `A`, `D`, `R` or `~M`.
    pub status: &'static str,
    /// The old path of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
    /// The payload edits that make the change.
    pub edits: &'a [usize],
}

impl<'a> Report<'a> {
    /// The report of an outcome.
    pub fn new(outcome: &'a Outcome, options: &Options) -> Report<'a> {
        Report {
            applied: outcome.applicable(options)
                && (outcome.errors.is_empty() || !outcome.files.is_empty()),
            files: outcome
                .files
                .iter()
                .map(|f| FileEntry {
                    path: f.path.as_str(),
                    status: f.status.code(),
                    from: f.from.as_ref().map(|p| p.as_str()),
                    edits: &f.edit_indices,
                })
                .collect(),
            errors: &outcome.errors,
            suggestions: &outcome.batch.suggestions,
        }
    }
}

/// A unified diff of one file change (`a/` → `b/`), empty for no change.
pub fn unified_diff(change: &FileChange) -> String {
    let before = change.before.as_ref().map_or("", |b| b.text.as_str());
    let after = change.after.as_deref().unwrap_or("");
    let old_name = match (&change.before, &change.from) {
        (None, _) => "/dev/null".to_string(),
        (Some(_), Some(from)) => format!("a/{from}"),
        (Some(_), None) => format!("a/{}", change.path),
    };
    let new_name = if change.after.is_none() {
        "/dev/null".to_string()
    } else {
        format!("b/{}", change.path)
    };
    let diff = similar::TextDiff::from_lines(before, after);
    let body = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string();
    if body.is_empty() && change.from.is_some() {
        return format!(
            "rename {} → {}\n",
            change.from.as_ref().map(|p| p.as_str()).unwrap_or(""),
            change.path
        );
    }
    body
}

/// Colors a unified diff for a terminal.
pub fn colorize(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 8);
    for line in diff.split_inclusive('\n') {
        let color = if line.starts_with("+++") || line.starts_with("---") {
            "\x1b[1m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else {
            ""
        };
        if color.is_empty() {
            out.push_str(line);
        } else {
            let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            out.push_str(&format!("{color}{body}\x1b[0m{nl}"));
        }
    }
    out
}

/// One line per edit: applied or failed, with the error.
pub fn summary(outcome: &Outcome) -> String {
    let mut out = String::new();
    for edit in &outcome.batch.edits {
        let errors: Vec<&EditError> = outcome
            .errors
            .iter()
            .filter(|e| e.edit == Some(edit.index))
            .collect();
        if errors.is_empty() {
            out.push_str(&format!(
                "ok    edit {} [{}] {} {}\n",
                edit.index,
                edit.format,
                edit.op.name(),
                edit.path
            ));
        } else {
            for e in errors {
                out.push_str(&format!(
                    "FAIL  edit {} [{}] {}: {}\n",
                    edit.index, edit.format, e.kind, e.message
                ));
            }
        }
    }
    for e in outcome.errors.iter().filter(|e| e.edit.is_none()) {
        out.push_str(&format!("FAIL  {}: {}\n", e.kind, e.message));
    }
    out
}
