//! JSON tool calls (FORMATS.md §2 `json`, §3 "Tool details").
//!
//! A JSON payload is one or more JSON values (an array, or values one after
//! another). Each value is walked for tool calls in payload order:
//!
//! - OpenAI: `{"name": T, "arguments": A}` (A an object or a JSON *string*),
//!   `{"type": "function", "function": {...}}`, `{"tool_calls": [...]}`,
//!   whole assistant messages and `{"choices": [{"message": ...}]}` responses;
//! - Anthropic: `{"type": "tool_use", "name": T, "input": A}` and assistant
//!   messages whose `content` mixes text and `tool_use` blocks;
//! - a bare `A` whose keys identify the tool (see [`tools`]).
//!
//! `serde_json` validates the text (its errors give `truncated` at end of
//! input, `parse` with line and column otherwise); [`value`] then rebuilds the
//! tree with byte offsets so every edit names its payload lines.

mod tools;
mod value;

use super::markdown;
use super::ParsedEdit;
use crate::error::{EditError, ErrorKind};
use crate::model::SourceSpan;
use value::{Node, Value};

/// Edits and errors of a JSON payload.
#[derive(Debug, Default)]
pub struct JsonOutput {
    /// The edits, in payload order.
    pub edits: Vec<ParsedEdit>,
    /// Parse/truncation errors, each naming its payload line.
    pub errors: Vec<EditError>,
    /// A call asked for a preview only (`dryRun: true`).
    pub preview: bool,
}

/// Does the payload look like JSON (first non-blank char `{` or `[`)?
pub fn looks_like_json(payload: &str) -> bool {
    matches!(payload.trim_start().chars().next(), Some('{' | '['))
}

/// Parses a JSON payload.
pub fn parse(payload: &str) -> JsonOutput {
    let mut ctx = Ctx::default();
    ctx.parse_text(payload, 0);
    ctx.out
}

/// Tool calls inside ```json fences of a markdown response, if any.
///
/// Every fence whose info string is `json` is parsed; spans and errors name
/// payload lines. `None` when the response has no such fence.
pub fn parse_fenced(payload: &str) -> Option<JsonOutput> {
    let fences = json_fences(payload);
    if fences.is_empty() {
        return None;
    }
    let mut ctx = Ctx::default();
    for fence in fences {
        ctx.parse_text(&fence.text, fence.first_line - 1);
    }
    Some(ctx.out)
}

/// The content of a ```json fence.
struct JsonFence {
    /// Payload line (1-based) of the fence's first content line.
    first_line: usize,
    /// The content lines, joined by `\n`.
    text: String,
}

/// The ```json fences of a markdown response (a fence left open runs to the end).
fn json_fences(payload: &str) -> Vec<JsonFence> {
    let lines: Vec<&str> = payload.lines().collect();
    let mut fences = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(open) = markdown::fence(lines[i]) else {
            i += 1;
            continue;
        };
        let close = (i + 1..lines.len())
            .find(|&j| markdown::closes(lines[j], &open))
            .unwrap_or(lines.len());
        let is_json = open
            .info
            .split_whitespace()
            .next()
            .is_some_and(|lang| lang.eq_ignore_ascii_case("json"));
        if is_json {
            fences.push(JsonFence {
                first_line: i + 2,
                text: lines[i + 1..close].join("\n"),
            });
        }
        i = close + 1;
    }
    fences
}

/// The state of one parse: where lines start, group numbers, the output.
#[derive(Default)]
struct Ctx {
    /// Byte offsets where each line of the current text starts.
    line_starts: Vec<usize>,
    /// Payload lines before the current text (a fence's position).
    line_offset: usize,
    /// The last `Ordering::Simultaneous` group handed out.
    last_group: u32,
    /// What was parsed so far.
    out: JsonOutput,
}

impl Ctx {
    /// Parses one JSON text whose first line is payload line `line_offset + 1`.
    fn parse_text(&mut self, text: &str, line_offset: usize) {
        self.line_offset = line_offset;
        self.line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        for root in self.top_level_values(text) {
            self.walk(&root);
        }
    }

    /// The JSON values of `text`, one after another; a syntax error is
    /// recorded and ends the list.
    fn top_level_values(&mut self, text: &str) -> Vec<Node> {
        let mut stream =
            serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
        let mut roots = Vec::new();
        let mut start = 0;
        while let Some(next) = stream.next() {
            if let Err(err) = next {
                let next_char = text.get(value::skip_whitespace(text, start)..);
                let trailing_text = !roots.is_empty()
                    && !next_char.is_some_and(|rest| rest.starts_with(['{', '[']));
                self.out.errors.push(self.syntax_error(&err, trailing_text));
                break;
            }
            match value::parse_at(text, start) {
                Ok(node) => roots.push(node),
                Err(unread) => {
                    let line = self.line_of(start);
                    self.out.errors.push(unreadable(line, unread));
                    break;
                }
            }
            start = stream.byte_offset();
        }
        roots
    }

    /// A `serde_json` syntax error as a `truncated` or `parse` error.
    fn syntax_error(&self, err: &serde_json::Error, trailing_text: bool) -> EditError {
        let line = err.line().max(1) + self.line_offset;
        let column = err.column();
        let what = err
            .to_string()
            .trim_end_matches(&format!(" at line {} column {}", err.line(), column))
            .to_string();
        if err.is_eof() {
            return EditError::at_payload_line(
                ErrorKind::Truncated,
                line,
                format!(
                    "the JSON ends at payload line {line} before it closes ({what}); \
                     the response was cut off: send the whole tool call again, or split it \
                     into smaller calls"
                ),
            );
        }
        let hint = if what.starts_with("control character") {
            "; a string holds a raw line break or tab: write it as \\n or \\t"
        } else if what.starts_with("key must be a string") {
            "; JSON needs double quotes around keys and strings"
        } else if trailing_text {
            "; only JSON may follow a JSON value: remove the text after it"
        } else {
            ""
        };
        EditError::at_payload_line(
            ErrorKind::Parse,
            line,
            format!("invalid JSON at payload line {line}, column {column}: {what}{hint}"),
        )
    }

    /// The payload line (1-based) of byte offset `offset` of the current text.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).max(1) + self.line_offset
    }

    /// The payload lines of a node.
    fn span(&self, node: &Node) -> SourceSpan {
        SourceSpan::lines(
            self.line_of(node.start),
            self.line_of(node.end.saturating_sub(1)),
        )
    }

    /// A fresh group number for the changes of one `modify_file` call.
    fn next_group(&mut self) -> u32 {
        self.last_group += 1;
        self.last_group
    }

    /// A `parse` error at the first line of `node`, spanning its lines.
    fn parse_error(&self, node: &Node, message: String) -> EditError {
        let span = self.span(node);
        EditError::at_payload_line(ErrorKind::Parse, span.first_line, message)
            .with_payload_lines(span.first_line, span.last_line)
    }

    /// Records a `parse` error at the first line of `node`.
    fn error_at(&mut self, node: &Node, message: String) {
        let error = self.parse_error(node, message);
        self.out.errors.push(error);
    }

    /// Finds the tool calls in a value, in payload order.
    fn walk(&mut self, node: &Node) {
        if let Some(items) = node.as_array() {
            items.iter().for_each(|item| self.walk(item));
            return;
        }
        if !matches!(node.value, Value::Object(_)) {
            let message = format!(
                "expected a tool call object at payload line {}, found {}",
                self.line_of(node.start),
                node.kind()
            );
            self.error_at(node, message);
            return;
        }
        if self.walk_message(node) {
            return;
        }
        if let Some(kind) = node.get("type").and_then(Node::as_str) {
            if IGNORED_BLOCK_TYPES.contains(&kind) {
                return;
            }
        }
        if let Some(function) = node.get("function").or_else(|| node.get("function_call")) {
            self.call(function, node);
        } else if node.get("name").is_some_and(|n| n.as_str().is_some())
            && ARGUMENT_KEYS.iter().any(|k| node.has(k))
        {
            self.call(node, node);
        } else {
            tools::bare(self, node);
        }
    }

    /// Walks a message-like object (`tool_calls`, `choices`, `role`); false
    /// when the object is none of these.
    fn walk_message(&mut self, node: &Node) -> bool {
        if let Some(choices) = node.get("choices").and_then(Node::as_array) {
            for message in choices.iter().filter_map(|c| c.get("message")) {
                self.walk(message);
            }
            return true;
        }
        let role = node.get("role").and_then(Node::as_str);
        if role.is_some_and(|r| r != "assistant") {
            // User, system and tool messages of a transcript carry no edits.
            return true;
        }
        let mut is_message = role.is_some();
        if let Some(calls) = node.get("tool_calls") {
            self.walk(calls);
            is_message = true;
        }
        if let Some(blocks) = node.get("content").filter(|_| role.is_some()) {
            if blocks.as_array().is_some() {
                self.walk(blocks);
            }
        }
        is_message
    }

    /// A call envelope: `function` holds `name` and the arguments; `call` is
    /// the whole envelope (its lines are the span of single-edit tools).
    fn call(&mut self, function: &Node, call: &Node) {
        let Some(name) = function.get("name").and_then(Node::as_str) else {
            let line = self.line_of(function.start);
            let message = format!(
                "the tool call at payload line {line} has no `name`: add the tool's name \
                 (write_file, edit_file, modify_file, ...)"
            );
            self.error_at(function, message);
            return;
        };
        let Some(arguments) = ARGUMENT_KEYS.iter().find_map(|k| function.get(k)) else {
            let line = self.line_of(function.start);
            let message = format!(
                "`{name}` call at payload line {line}: `arguments` is missing: add them as an object"
            );
            self.error_at(function, message);
            return;
        };
        match &arguments.value {
            Value::String(text) => {
                if let Some(decoded) = self.decode_arguments(name, text, arguments) {
                    tools::call(self, name, &decoded, call);
                }
            }
            Value::Object(_) => tools::call(self, name, arguments, call),
            _ => {
                let message = format!(
                    "`{name}` call at payload line {}: `arguments` must be an object or a \
                     JSON string, found {}",
                    self.line_of(arguments.start),
                    arguments.kind()
                );
                self.error_at(arguments, message);
            }
        }
    }

    /// Decodes arguments sent as a JSON string (OpenAI); every node of the
    /// result gets the string's position.
    fn decode_arguments(&mut self, name: &str, text: &str, string: &Node) -> Option<Node> {
        let line = self.line_of(string.start);
        let checked = serde_json::from_str::<serde::de::IgnoredAny>(text);
        let decoded = checked.as_ref().ok().map(|_| value::parse_at(text, 0));
        let decoded = match decoded {
            Some(Ok(mut node)) if matches!(node.value, Value::Object(_)) => {
                node.relocate(string.start, string.end);
                return Some(node);
            }
            Some(Err(unread)) => Some(unread),
            _ => None,
        };
        let (kind, problem) = match (checked, decoded) {
            (Err(err), _) if err.is_eof() => (
                ErrorKind::Truncated,
                format!("it ends before its JSON closes ({err})"),
            ),
            (Err(err), _) => (ErrorKind::Parse, format!("it is not valid JSON ({err})")),
            (Ok(_), Some(value::Unread::TooDeep)) => (ErrorKind::Parse, too_deep()),
            (Ok(_), _) => (ErrorKind::Parse, "it is not a JSON object".to_string()),
        };
        let span = self.span(string);
        self.out.errors.push(
            EditError::at_payload_line(
                kind,
                line,
                format!(
                    "the `arguments` string of the `{name}` call at payload line {line} cannot \
                     be read: {problem}; send the arguments as one JSON object"
                ),
            )
            .with_payload_lines(span.first_line, span.last_line),
        );
        None
    }
}

/// The error for a top-level JSON value at payload `line` that
/// [`value::parse_at`] could not read.
fn unreadable(line: usize, unread: value::Unread) -> EditError {
    let message = match unread {
        value::Unread::TooDeep => {
            format!(
                "the JSON value at payload line {line} cannot be read: {}; send the calls \
                 without the extra nesting",
                too_deep()
            )
        }
        value::Unread::Broken => format!("could not read the JSON value at payload line {line}"),
    };
    EditError::at_payload_line(ErrorKind::Parse, line, message)
}

/// What is wrong with JSON nested past [`value::MAX_DEPTH`].
fn too_deep() -> String {
    format!(
        "its arrays and objects nest more than {} deep (no tool call does)",
        value::MAX_DEPTH
    )
}

/// Keys that hold a call's arguments: OpenAI `arguments`, Anthropic `input`,
/// and the `parameters`/`args` some models write instead.
const ARGUMENT_KEYS: [&str; 4] = ["arguments", "input", "parameters", "args"];

/// Content blocks of assistant messages that carry no edit.
const IGNORED_BLOCK_TYPES: [&str; 5] = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_result",
    "image",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EditOp, Ordering, Replace};

    fn ops(out: &JsonOutput) -> Vec<(&str, &EditOp)> {
        out.edits.iter().map(|e| (e.path.as_str(), &e.op)).collect()
    }

    #[test]
    fn string_arguments_take_the_line_of_the_string() {
        let payload = "{\n  \"name\": \"edit_file\",\n  \"arguments\": \"{\\\"edits\\\": [{\\\"path\\\": \\\"a.py\\\", \\\"old_string\\\": \\\"x\\\", \\\"new_string\\\": \\\"y\\\"}]}\"\n}\n";
        let out = parse(payload);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(
            ops(&out),
            vec![("a.py", &EditOp::Replace(Replace::substring("x", "y")))]
        );
        assert_eq!(out.edits[0].source, SourceSpan::lines(3, 3));
        assert_eq!(out.edits[0].ordering, Ordering::Sequential);
    }

    #[test]
    fn truncated_json_is_truncated() {
        let out =
            parse("{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\",\n \"content\": \"x");
        assert_eq!(out.errors.len(), 1);
        assert_eq!(out.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(out.errors[0].lines, vec![2]);
        assert!(out.edits.is_empty());
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let out = parse("{\n\"path\": \"a\",\n\"content\": 'x'\n}");
        assert_eq!(out.errors[0].kind, ErrorKind::Parse);
        assert_eq!(out.errors[0].lines, vec![3]);
        assert!(
            out.errors[0].message.contains("column 12"),
            "{}",
            out.errors[0].message
        );
    }

    #[test]
    fn values_one_after_another_are_a_sequence() {
        let out =
            parse("{\"path\": \"a\", \"content\": \"1\"}\n{\"path\": \"b\", \"content\": \"2\"}\n");
        assert!(out.errors.is_empty());
        assert_eq!(out.edits.len(), 2);
        assert_eq!(out.edits[1].source, SourceSpan::lines(2, 2));
    }

    #[test]
    fn fenced_calls_are_offset_to_payload_lines() {
        let payload =
            "Here it is:\n\n```json\n{\"path\": \"a\",\n \"content\": \"1\"}\n```\nDone.\n";
        let out = parse_fenced(payload).unwrap();
        assert!(out.errors.is_empty());
        assert_eq!(out.edits[0].source, SourceSpan::lines(4, 5));
        assert!(parse_fenced("```python\nx = 1\n```\n").is_none());
    }

    #[test]
    fn assistant_messages_skip_text_and_other_roles() {
        let payload = r#"[
 {"role": "user", "content": [{"type": "tool_use", "name": "write_file", "input": {"path": "no", "content": ""}}]},
 {"role": "assistant", "content": [
   {"type": "text", "text": "Writing it."},
   {"type": "tool_use", "id": "t1", "name": "write_file", "input": {"path": "yes", "content": "x\n"}}
 ]}
]"#;
        let out = parse(payload);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(
            ops(&out),
            vec![(
                "yes",
                &EditOp::Write {
                    content: "x\n".into()
                }
            )]
        );
        assert_eq!(out.edits[0].source, SourceSpan::lines(5, 5));
    }

    #[test]
    fn bad_argument_strings_are_reported_on_their_line() {
        let out = parse("{\"name\": \"edit_file\",\n \"arguments\": \"{\\\"path\\\": \"}");
        assert_eq!(out.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(out.errors[0].lines, vec![2]);
        let out = parse("{\"name\": \"edit_file\", \"arguments\": 3}");
        assert!(out.errors[0].message.contains("found a number"));
    }

    #[test]
    fn every_cut_of_a_payload_is_truncated_not_a_panic() {
        let payload = "[{\"type\": \"tool_use\", \"name\": \"edit_file\", \"input\":\n {\"path\": \"«a».py\", \"old_string\": \"═ 🚀\", \"new_string\": \"x\"}}]";
        for (cut, _) in payload.char_indices().skip(1) {
            let out = parse(&payload[..cut]);
            assert!(out.edits.is_empty(), "cut at {cut}");
            assert_eq!(out.errors.len(), 1, "cut at {cut}");
            assert_eq!(out.errors[0].kind, ErrorKind::Truncated, "cut at {cut}");
        }
        assert!(parse(payload).errors.is_empty());
    }
}
