//! The tools as the client lists them: names, descriptions written for a
//! model, JSON Schemas of the arguments, and annotations.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

/// What every edit tool answers, said once in each description.
const RESULT: &str = "The result lists each edit as applied or refused, the unified diff of \
each changed file, and for a refusal the exact reason and a retry prompt: read it, fix the \
edit, and call again. Edits are all or nothing: when one is refused, nothing is written. If \
the file changed since you read it with read_file, your edit is merged with that change (or \
refused when they overlap), never written over it.";

/// Every tool of the server.
pub fn list() -> Vec<Tool> {
    vec![
        tool(
            "read_file",
            "Read a text file of the workspace. Lines come numbered like `cat -n` \
             (`     12\\tcode`); when you copy lines into an edit, leave the numbers and the tab \
             out (they are stripped when every line carries one, but plain text is safer). \
             Reads at most 2000 lines: use offset/limit for more. What you read is remembered \
             as your view of the file: if the file changes afterwards, your edits are merged \
             with that change instead of overwriting it.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file: relative to the workspace root, or absolute inside it."},
                    "offset": {"type": "integer", "minimum": 1, "description": "The first line to show (1-based). Default 1."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "How many lines to show. Default and maximum 2000."}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            annotations("Read a file", true, false, true),
        ),
        tool(
            "edit",
            &format!(
                "Replace text in one file. `old_string` must match exactly one place in the file \
                 (copy it from read_file, without the line numbers, with enough lines around to \
                 be unique), unless `replace_all` is true. An empty `old_string` creates a new \
                 file with `new_string` as its content. {RESULT}"
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file: relative to the workspace root, or absolute inside it."},
                    "old_string": {"type": "string", "description": "The text to replace, exactly as in the file."},
                    "new_string": {"type": "string", "description": "The text to put in its place (different from old_string)."},
                    "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence of old_string."}
                },
                "required": ["path", "old_string", "new_string"],
                "additionalProperties": false
            }),
            annotations("Edit a file", false, true, false),
        ),
        tool(
            "multi_edit",
            &format!(
                "Several replacements in one file, applied in order (each sees the result of the \
                 ones before), all or nothing. Each edit is like `edit`. Also accepts the MCP \
                 filesystem server's shape: edits as {{oldText, newText}} and `dryRun`. {RESULT}"
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file: relative to the workspace root, or absolute inside it."},
                    "edits": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_string": {"type": "string", "description": "The text to replace (alias: oldText)."},
                                "new_string": {"type": "string", "description": "The replacement (alias: newText)."},
                                "replace_all": {"type": "boolean", "default": false}
                            },
                            "required": ["old_string", "new_string"]
                        }
                    },
                    "dry_run": {"type": "boolean", "default": false, "description": "Only show the diff; write nothing (alias: dryRun)."}
                },
                "required": ["path", "edits"],
                "additionalProperties": false
            }),
            annotations("Edit a file (several changes)", false, true, false),
        ),
        tool(
            "write_file",
            &format!(
                "Write a whole file: creates it, or replaces all of its content. Prefer edit for a \
                 change to an existing file. A file that used CRLF line endings keeps them. {RESULT}"
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file: relative to the workspace root, or absolute inside it."},
                    "content": {"type": "string", "description": "The complete new content."}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
            annotations("Write a file", false, true, true),
        ),
        tool(
            "apply_patch",
            &format!(
                "Apply a patch in the Codex envelope: `*** Begin Patch`, then `*** Add File: P` \
                 (lines prefixed +), `*** Delete File: P`, or `*** Update File: P` (optionally \
                 `*** Move to: Q`) with hunks opened by `@@` (text after @@ is a line to find \
                 first) and lines prefixed ' ', '-', '+', then `*** End Patch`. Several files \
                 in one patch. {RESULT}"
            ),
            json!({
                "type": "object",
                "properties": {
                    "patch": {"type": "string", "description": "The whole patch, from *** Begin Patch to *** End Patch (alias: input)."},
                    "dry_run": {"type": "boolean", "default": false, "description": "Only show the diffs; write nothing."}
                },
                "required": ["patch"],
                "additionalProperties": false
            }),
            annotations("Apply a patch", false, true, false),
        ),
        tool(
            "apply_response",
            &format!(
                "Apply the edits in a piece of model output, in any format this server reads: \
                 SEARCH/REPLACE blocks, unified diffs, apply_patch, JSON tool calls, find/replace \
                 blocks, and chat code blocks that name their file (a whole file, or a snippet \
                 with `... existing code ...` lines). Text around the blocks is ignored. \
                 `format` forces one format (default: detected). {RESULT}"
            ),
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The response text holding the edits."},
                    "format": {"type": "string", "enum": format_names(), "description": "Only this format (default auto: detect)."},
                    "dry_run": {"type": "boolean", "default": false, "description": "Only show the diffs; write nothing."},
                    "partial": {"type": "boolean", "default": false, "description": "Write the edits that resolved even when others are refused."}
                },
                "required": ["text"],
                "additionalProperties": false
            }),
            annotations("Apply edits from a response", false, true, false),
        ),
        tool(
            "list_roots",
            "List the workspace folders this server may read and edit. Relative paths are \
             resolved against them (the first, or the one that has the file).",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            annotations("List the workspace roots", true, false, true),
        ),
    ]
}

fn format_names() -> Vec<&'static str> {
    std::iter::once("auto")
        .chain(crate::model::Format::ALL.iter().map(|f| f.name()))
        .collect()
}

fn tool(
    name: &'static str,
    description: &str,
    schema: Value,
    annotations: ToolAnnotations,
) -> Tool {
    let schema: JsonObject = match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(name, description.to_string(), Arc::new(schema)).with_annotations(annotations)
}

fn annotations(
    title: &str,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}
