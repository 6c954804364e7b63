//! What one agent tool call did, the same whichever way its edits went:
//! written to disk, or sent to the editor through a running language server
//! ([`link`]).
//!
//! Shells for agents (the MCP server, `src/mcp/`) turn a tool call into a
//! payload, run the engine, and answer with an [`AgentOutcome`]: per edit
//! applied or refused, each file's unified diff, the engine's messages and
//! the retry prompt, so that the agent's next try is informed. The language
//! server builds the same value when an agent's edit reaches it through the
//! link, so an agent sees one shape on both routes. Nothing here knows MCP.

pub mod link;

use serde::Serialize;

use crate::engine::{Options, Outcome, SyntaxWarning};
use crate::error::EditError;
use crate::report::{self, Report};
use crate::retry::Voice;

/// Which way a call's edits went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Written to the files on disk (atomic writes, `src/write.rs`).
    Disk,
    /// Sent to the editor as `workspace/applyEdit`, planned against its
    /// unsaved buffers.
    Editor,
}

/// What became of one edit of the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditState {
    /// Written (or sent to the editor and applied there).
    Applied,
    /// Would be applied: a dry run, or the changes were not written.
    Planned,
    /// Refused: see the errors naming this edit.
    Refused,
    /// Resolved, but held back because another edit was refused (all or
    /// nothing).
    HeldBack,
}

/// One edit of the payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentEdit {
    /// 1-based, in payload order.
    pub index: usize,
    /// The file it targets, as the payload names it.
    pub path: String,
    /// What became of it.
    pub state: EditState,
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentFile {
    /// Workspace-relative path (the new one for a rename).
    pub path: String,
    /// `M`, `A`, `D`, `R` or `~M` (merged with a change made since the
    /// agent read the file).
    pub status: &'static str,
    /// The old path of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The payload edits that make the change.
    pub edits: Vec<usize>,
    /// The unified diff of the change.
    pub diff: String,
}

/// The structured result of one agent tool call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentOutcome {
    /// Which way the edits went.
    pub route: Route,
    /// The changes were written (disk) or applied by the editor.
    pub applied: bool,
    /// Nothing was to be written (`dry_run`).
    pub dry_run: bool,
    /// One or two sentences for the agent ("Applied 2 edits to 1 file").
    pub summary: String,
    /// Every edit of the payload.
    pub edits: Vec<AgentEdit>,
    /// The planned changes (written when `applied`).
    pub files: Vec<AgentFile>,
    /// The failures, as many as the report bound holds
    /// ([`report::report_bound`]).
    pub errors: Vec<EditError>,
    /// How many failures are left out of `errors` by that bound.
    #[serde(skip_serializing_if = "is_zero")]
    pub errors_omitted: usize,
    /// Changed files left with a parse error they did not have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<SyntaxWarning>,
    /// The text to send back to the model when edits failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_prompt: Option<String>,
    /// Why resolved changes were not applied (a write error, the editor
    /// declined the edit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What became of a run's changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Which way they went.
    pub route: Route,
    /// Planned only.
    pub dry_run: bool,
    /// Written, or applied by the editor.
    pub applied: bool,
    /// Why resolved changes were not applied.
    pub failure_reason: Option<String>,
}

impl AgentOutcome {
    /// The result of a run of `payload`, sent by `voice`, that ended in
    /// `outcome` and whose changes went as `delivery` says.
    pub fn new(
        payload: &str,
        voice: &Voice,
        outcome: &Outcome,
        options: &Options,
        delivery: Delivery,
    ) -> AgentOutcome {
        let Delivery {
            route,
            dry_run,
            applied,
            failure_reason,
        } = delivery;
        let report = Report::new(outcome, options, payload.len());
        let refused = |index: usize| outcome.errors.iter().any(|e| e.edit == Some(index));
        let changed = |index: usize| {
            outcome
                .files
                .iter()
                .any(|f| f.edit_indices.contains(&index))
        };
        let edits = outcome
            .batch
            .edits
            .iter()
            .map(|e| AgentEdit {
                index: e.index,
                path: e.path.clone(),
                state: if refused(e.index) {
                    EditState::Refused
                } else if applied && changed(e.index) {
                    EditState::Applied
                } else if outcome.applicable(options) || dry_run {
                    EditState::Planned
                } else {
                    EditState::HeldBack
                },
            })
            .collect();
        let files = outcome
            .files
            .iter()
            .map(|f| AgentFile {
                path: f.path.to_string(),
                status: f.status.code(),
                from: f.from.as_ref().map(ToString::to_string),
                edits: f.edit_indices.clone(),
                diff: report::unified_diff(f),
            })
            .collect();
        let summary = summary(
            outcome,
            options,
            dry_run,
            applied,
            failure_reason.as_deref(),
        );
        AgentOutcome {
            route,
            applied,
            dry_run,
            summary,
            edits,
            files,
            errors: report.errors.into_iter().map(|e| e.into_owned()).collect(),
            errors_omitted: report.errors_omitted,
            warnings: outcome.warnings.clone(),
            retry_prompt: crate::retry::retry_prompt_as(payload, outcome, options.partial, voice),
            failure_reason,
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// One or two sentences: what was done, or the first refusal and what
/// became of the rest.
fn summary(
    outcome: &Outcome,
    options: &Options,
    dry_run: bool,
    applied: bool,
    failure_reason: Option<&str>,
) -> String {
    let total = outcome.batch.edits.len();
    let files = plural(outcome.files.len(), "file");
    let mut failed: Vec<usize> = outcome.errors.iter().filter_map(|e| e.edit).collect();
    failed.sort_unstable();
    failed.dedup();
    let mut out = if outcome.errors.is_empty() {
        let edits = plural(total, "edit");
        match (applied, dry_run) {
            (true, _) => format!("Applied {edits} to {files}."),
            (false, true) => format!("Dry run: {edits} would change {files}; nothing was written."),
            (false, false) => format!("Resolved {edits} to {files}; nothing was written."),
        }
    } else {
        let first = &outcome.errors[0];
        let refused = if failed.is_empty() {
            plural(outcome.errors.len(), "problem")
        } else {
            format!("{} of {total} refused", plural(failed.len(), "edit"))
        };
        let kept = if applied {
            format!(" The other edits were applied to {files}.")
        } else if options.partial && !outcome.files.is_empty() {
            format!(" The other edits would change {files}.")
        } else {
            " Nothing was changed.".to_string()
        };
        let more = match outcome.errors.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        format!(
            "{refused}: {}{more}.{kept}",
            first.message.trim_end_matches('.')
        )
    };
    let merged: Vec<String> = outcome
        .files
        .iter()
        .filter(|f| f.status == crate::engine::FileStatus::Merged)
        .map(|f| format!("`{}`", f.path))
        .collect();
    if !merged.is_empty() {
        out.push_str(&format!(
            " {} changed since you read {}: your edits {} merged with that change (the diff is \
             against the file as it is now).",
            merged.join(", "),
            if merged.len() == 1 { "it" } else { "them" },
            if applied { "were" } else { "are" },
        ));
    }
    if let Some(reason) = failure_reason {
        out.push_str(&format!(" Not applied: {reason}."));
    }
    out
}
