//! JSON tool calls (FORMATS.md §2 `json`). Scaffolding: replaced by the real parser.

use super::ParsedEdit;
use crate::error::EditError;

/// Edits and errors of a JSON payload.
#[derive(Debug, Default)]
pub struct JsonOutput {
    /// The edits, in payload order.
    pub edits: Vec<ParsedEdit>,
    /// Parse/truncation errors, each naming its payload line.
    pub errors: Vec<EditError>,
}

/// Does the payload look like JSON (first non-blank char `{` or `[`)?
pub fn looks_like_json(payload: &str) -> bool {
    matches!(payload.trim_start().chars().next(), Some('{' | '['))
}

/// Parses a JSON payload.
pub fn parse(_payload: &str) -> JsonOutput {
    JsonOutput::default()
}

/// Tool calls inside ```json fences of a markdown response, if any.
pub fn parse_fenced(_payload: &str) -> Option<JsonOutput> {
    None
}
