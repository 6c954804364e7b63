//! The `workspace/executeCommand` commands: names, arguments and results.
//!
//! Every command takes one object as its only argument. Results are plain
//! JSON; errors of the edits are serialized [`EditError`]s.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Outcome, SyntaxWarning};
use crate::error::EditError;
use crate::model::Format;

/// Plans a payload and returns the `WorkspaceEdit`; writes nothing.
pub const PREVIEW: &str = "llm-edit.preview";
/// Plans a payload and sends it with `workspace/applyEdit`.
pub const APPLY: &str = "llm-edit.apply";
/// The text to send back to the LLM when edits failed.
pub const RETRY_PROMPT: &str = "llm-edit.retryPrompt";
/// Re-checks a response document now, reporting `truncated` too.
pub const CHECK_RESPONSE: &str = "llm-edit.checkResponse";
/// Drops the server's diagnostics (of one document, or all).
pub const DISMISS_DIAGNOSTICS: &str = "llm-edit.dismissDiagnostics";

/// The instructions (and tool schemas) that teach an LLM one format.
pub const PROMPT_KIT: &str = "llm-edit.promptKit";

/// Records the files' current text as the context the LLM is shown.
pub const CAPTURE_CONTEXT: &str = "llm-edit.captureContext";
/// Drops a context snapshot.
pub const RELEASE_CONTEXT: &str = "llm-edit.releaseContext";
/// Each file's context status (`FORMATS.md` §5).
pub const STATUS: &str = "llm-edit.status";
/// Resolves one `~M` conflict region (the conflict code actions).
pub const RESOLVE_CONFLICT: &str = "llm-edit.resolveConflict";

/// Every command, as advertised.
pub const ALL: [&str; 10] = [
    PREVIEW,
    APPLY,
    RETRY_PROMPT,
    PROMPT_KIT,
    CHECK_RESPONSE,
    DISMISS_DIAGNOSTICS,
    CAPTURE_CONTEXT,
    RELEASE_CONTEXT,
    STATUS,
    RESOLVE_CONFLICT,
];

/// Arguments of `preview`, `apply` and `retryPrompt`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunArgs {
    /// The LLM's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// Or: an open document holding it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Only this format (`auto` or absent: detect).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Settings overriding the server's for this run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Value>,
    /// Only these edits (1-based payload indices).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<usize>>,
    /// The context snapshot the LLM saw (default: `default`, when captured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `retryPrompt`: also show the prompt with `window/showMessage`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show: bool,
}

impl RunArgs {
    /// The format asked for.
    pub fn format(&self) -> Result<Option<Format>, String> {
        match self.format.as_deref() {
            None | Some("auto") => Ok(None),
            Some(name) => Format::from_name(name).map(Some).ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format `{name}`; expected auto or one of {}",
                    names.join(", ")
                )
            }),
        }
    }
}

/// Arguments of `checkResponse` and `dismissDiagnostics`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UriArgs {
    /// The document (`dismissDiagnostics`: absent = every document).
    pub uri: Option<String>,
}

/// The one object argument of a command.
pub fn single_arg<T: DeserializeOwned>(command: &str, arguments: Vec<Value>) -> Result<T, String> {
    let [arg]: [Value; 1] = arguments.try_into().map_err(|args: Vec<Value>| {
        format!(
            "{command} takes exactly one object argument, got {}",
            args.len()
        )
    })?;
    serde_json::from_value(arg).map_err(|e| format!("bad arguments for {command}: {e}"))
}

/// Arguments of `promptKit`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PromptKitArgs {
    /// The format's name.
    pub format: String,
}

/// The result of `llm-edit.promptKit`.
#[derive(Clone, Debug, Serialize)]
pub struct PromptKitResult {
    /// Instructions for the system prompt (markdown).
    pub text: &'static str,
    /// Tool schemas, for tool-call formats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
}

/// The prompt kit of a format name.
pub fn prompt_kit(args: &PromptKitArgs) -> Result<PromptKitResult, String> {
    let format = RunArgs {
        format: Some(args.format.clone()),
        ..RunArgs::default()
    }
    .format()?
    .ok_or("llm-edit.promptKit needs a format name, not `auto`")?;
    let kit = crate::prompt::kit(format);
    Ok(PromptKitResult {
        text: kit.instructions,
        schema: kit.tools,
    })
}

/// One file of a result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileEntry {
    /// Workspace-relative path (the new path of a rename).
    pub path: String,
    /// `M`, `A`, `D`, `R` or `~M`.
    pub status: &'static str,
    /// The old path of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// The files of an outcome.
pub fn file_entries(outcome: &Outcome) -> Vec<FileEntry> {
    outcome
        .files
        .iter()
        .map(|f| FileEntry {
            path: f.path.to_string(),
            status: f.status.code(),
            from: f.from.as_ref().map(ToString::to_string),
        })
        .collect()
}

/// The result of `llm-edit.preview`.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewResult {
    /// The `WorkspaceEdit` (null when nothing can be applied).
    pub edit: Value,
    /// The files it changes.
    pub files: Vec<FileEntry>,
    /// Every failure.
    pub errors: Vec<EditError>,
    /// Changed files the plan leaves with a parse error they did not have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<SyntaxWarning>,
}

/// The result of `llm-edit.apply`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyResult {
    /// The editor applied the edit.
    pub applied: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// The files of the plan.
    pub files: Vec<FileEntry>,
    /// Every failure.
    pub errors: Vec<EditError>,
    /// Changed files left with a parse error they did not have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<SyntaxWarning>,
}

/// The result of `llm-edit.retryPrompt`.
#[derive(Clone, Debug, Serialize)]
pub struct RetryPromptResult {
    /// The prompt (null when nothing failed).
    pub prompt: Option<String>,
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// "Applied 3 edits to 2 files".
pub fn success_summary(outcome: &Outcome) -> String {
    let edits: usize = {
        let mut indices: Vec<usize> = outcome
            .files
            .iter()
            .flat_map(|f| f.edit_indices.iter().copied())
            .collect();
        indices.sort_unstable();
        indices.dedup();
        indices.len()
    };
    let mut summary = format!(
        "Applied {} to {}",
        plural(edits, "edit"),
        plural(outcome.files.len(), "file")
    );
    for w in &outcome.warnings {
        summary.push_str(&format!(
            "; {} now has a parse error at line {} (it parsed cleanly before)",
            w.path, w.line
        ));
    }
    summary
}

/// "2 of 5 edits failed: <first message>".
pub fn failure_summary(outcome: &Outcome) -> String {
    let mut failed: Vec<Option<usize>> = outcome.errors.iter().map(|e| e.edit).collect();
    failed.sort_unstable();
    failed.dedup_by(|a, b| a.is_some() && a == b);
    let total = outcome.batch.edits.len().max(failed.len());
    let first = outcome
        .errors
        .first()
        .map(|e| e.message.as_str())
        .unwrap_or("");
    let more = if outcome.errors.len() > 1 {
        format!(" (and {} more)", outcome.errors.len() - 1)
    } else {
        String::new()
    };
    format!(
        "{} of {} failed: {first}{more}",
        failed.len(),
        plural(total, "edit")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_one_object_argument() {
        let args: RunArgs =
            single_arg(APPLY, vec![json!({"payload": "x", "format": "json"})]).unwrap();
        assert_eq!(args.payload.as_deref(), Some("x"));
        assert_eq!(args.format().unwrap(), Some(Format::Json));
        let err = single_arg::<RunArgs>(APPLY, vec![]).unwrap_err();
        assert_eq!(
            err,
            "llm-edit.apply takes exactly one object argument, got 0"
        );
        let err = single_arg::<RunArgs>(APPLY, vec![json!({"payload": 3})]).unwrap_err();
        assert!(
            err.starts_with("bad arguments for llm-edit.apply: invalid type"),
            "{err}"
        );
        let args: RunArgs = single_arg(APPLY, vec![json!({"format": "yaml"})]).unwrap();
        assert!(args.format().unwrap_err().contains("unknown format `yaml`"));
    }

    #[test]
    fn summarizes() {
        let mut outcome = Outcome::default();
        outcome
            .errors
            .push(EditError::new(crate::error::ErrorKind::NotFound, "gone").with_edit(2));
        assert_eq!(failure_summary(&outcome), "1 of 1 edit failed: gone");
        assert_eq!(
            success_summary(&Outcome::default()),
            "Applied 0 edits to 0 files"
        );
    }
}
