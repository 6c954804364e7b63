//! Tool arguments → edits (FORMATS.md §2 `json` table, §3 "Tool details").
//!
//! | tool | edits |
//! |---|---|
//! | `write_file {path, content}`, `Write {file_path, content}` | [`EditOp::Write`] |
//! | `modify_file {path, changes}` | one [`EditOp::Anchored`] per change, simultaneous |
//! | `edit_file`, `Edit`, `MultiEdit`, `str_replace` | substring [`EditOp::Replace`], sequential |
//! | `create` | [`EditOp::Create`] |
//! | `insert` | [`EditOp::InsertLines`] |
//!
//! An empty `old_string`/`old_str` is a create. `path` and `file_path` are
//! accepted by every tool; errors name the tool's own key.

use super::value::{Node, Value};
use super::Ctx;
use crate::error::EditError;
use crate::model::{AnchoredRegion, EditOp, Format, Ordering, Replace, SourceSpan};
use crate::parse::ParsedEdit;

/// Every tool name this parser knows, for the unknown-tool message.
const KNOWN_TOOLS: &str = "write_file, edit_file, modify_file, str_replace_based_edit_tool \
                           (str_replace_editor), Edit, MultiEdit, Write, and opencode's edit and write";

/// The keys a path is named by: ours and Anthropic's, Claude Code's,
/// opencode's.
const PATH_KEYS: [&str; 3] = ["path", "file_path", "filePath"];

/// Arguments with no envelope: the tool is told by their keys.
pub(super) fn bare(ctx: &mut Ctx, args: &Node) {
    match tool_of_bare(args) {
        Some(tool) => call(ctx, tool, args, args),
        None => {
            let keys = match &args.value {
                Value::Object(members) => members
                    .iter()
                    .map(|(k, _)| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            };
            let message = format!(
                "the JSON object at payload line {} is not a tool call (keys: {}); expected \
                 `name` + `arguments`, `type: tool_use`, or tool arguments such as `path` + \
                 `content` or `edits`",
                ctx.line_of(args.start),
                if keys.is_empty() { "none" } else { &keys },
            );
            ctx.error_at(args, message);
        }
    }
}

/// The tool whose arguments have these keys.
fn tool_of_bare(args: &Node) -> Option<&'static str> {
    let has = |key| args.has(key);
    if has("command") || has("old_str") || has("file_text") {
        Some("str_replace_based_edit_tool")
    } else if has("filePath") {
        Some(if has("content") { "write" } else { "edit" })
    } else if has("file_path") {
        Some(if has("edits") {
            "MultiEdit"
        } else if has("content") {
            "Write"
        } else {
            "Edit"
        })
    } else if has("changes") {
        Some("modify_file")
    } else if has("edits") || has("old_string") || has("new_string") {
        Some("edit_file")
    } else if has("path") && has("content") {
        Some("write_file")
    } else {
        None
    }
}

/// One tool call: `args` is its (object) arguments, `call` the envelope.
pub(super) fn call(ctx: &mut Ctx, name: &str, args: &Node, call: &Node) {
    let name = name.strip_prefix("functions.").unwrap_or(name);
    let tool = Tool {
        args: Fields::new(name, "", args),
        span: ctx.span(call),
    };
    let edits = match name {
        "write_file" | "Write" => vec![tool.write(ctx)],
        // The MCP filesystem server's `edit_file {path, edits: [{oldText,
        // newText}], dryRun}`: `dryRun` asks for a preview of the batch.
        "edit_file" if args.has("dryRun") => {
            match tool.args.flag(ctx, "dryRun") {
                Ok(preview) => ctx.out.preview |= preview,
                Err(error) => ctx.out.errors.push(*error),
            }
            tool.string_edits(ctx, "edits")
        }
        "modify_file" => tool.modify_file(ctx),
        "edit_file" if args.has("changes") => tool.modify_file(ctx),
        "edit_file" | "MultiEdit" => tool.string_edits(ctx, "edits"),
        "Edit" | "edit" => vec![tool.args.string_edit(ctx, None, tool.span)],
        "write" => vec![tool.write(ctx)],
        "str_replace_based_edit_tool" | "str_replace_editor" => tool.text_editor(ctx),
        _ => {
            let message = format!(
                "unknown tool `{name}` at payload line {}: use one of {KNOWN_TOOLS}",
                ctx.line_of(call.start)
            );
            vec![Err(Box::new(ctx.parse_error(call, message)))]
        }
    };
    for edit in edits {
        match edit {
            Ok(edit) => ctx.out.edits.push(edit),
            Err(error) => ctx.out.errors.push(*error),
        }
    }
}

/// A call being turned into edits.
struct Tool<'n> {
    /// Its arguments.
    args: Fields<'n>,
    /// The payload lines of the whole call.
    span: SourceSpan,
}

/// What one tool call gives: edits and errors, in payload order.
type Edits = Vec<Fallible<ParsedEdit>>;

/// A result whose error is boxed (an [`EditError`] is large).
type Fallible<T> = Result<T, Box<EditError>>;

impl Tool<'_> {
    /// `write_file {path, content}` / `Write {file_path, content}`.
    fn write(&self, ctx: &Ctx) -> Fallible<ParsedEdit> {
        let path = self.args.path(ctx)?;
        let content = self.args.string(ctx, "content")?;
        Ok(edit(
            path,
            self.span,
            Ordering::Sequential,
            EditOp::Write { content },
        ))
    }

    /// `modify_file {path, changes: [{start, end?, content}]}`: simultaneous
    /// anchored regions, one group per call.
    fn modify_file(&self, ctx: &mut Ctx) -> Edits {
        let path = match self.args.path(ctx) {
            Ok(path) => path,
            Err(error) => return vec![Err(error)],
        };
        let changes = match self.args.non_empty_array(ctx, "changes") {
            Ok(changes) => changes,
            Err(error) => return vec![Err(error)],
        };
        let group = ctx.next_group();
        changes
            .iter()
            .enumerate()
            .map(|(i, change)| {
                let fields = self.args.item(ctx, "changes", i, change)?;
                let region = fields.anchored_region(ctx)?;
                Ok(edit(
                    path.clone(),
                    ctx.span(change),
                    Ordering::Simultaneous(group),
                    EditOp::Anchored(region),
                ))
            })
            .collect()
    }

    /// `edit_file`/`MultiEdit`: a list under `key` (each item may name its
    /// own path), or a single edit in the arguments themselves.
    fn string_edits(&self, ctx: &Ctx, key: &str) -> Edits {
        if !self.args.node.has(key) {
            return vec![self.args.string_edit(ctx, None, self.span)];
        }
        let items = match self.args.non_empty_array(ctx, key) {
            Ok(items) => items,
            Err(error) => return vec![Err(error)],
        };
        let call_path = self.args.optional_path();
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let fields = self.args.item(ctx, key, i, item)?;
                fields.string_edit(ctx, call_path.clone(), ctx.span(item))
            })
            .collect()
    }

    /// The Anthropic text editor: `str_replace`, `create`, `insert`,
    /// `undo_edit` (of the previous edit of the file in this payload);
    /// `view` edits nothing.
    fn text_editor(&self, ctx: &Ctx) -> Edits {
        let result = match self.args.string(ctx, "command").as_deref() {
            Ok("str_replace") => self.str_replace(ctx),
            Ok("create") => self.create(ctx),
            Ok("insert") => self.insert(ctx),
            Ok("view") => return Vec::new(),
            Ok("undo_edit") => self.undo(ctx),
            Ok(other) => Err(self.args.field_error(
                ctx,
                "command",
                &format!(
                    "is `{other}`, which this tool does not run; use str_replace, create or insert"
                ),
            )),
            Err(error) => Err(error.clone()),
        };
        vec![result]
    }

    /// `{command: "str_replace", path, old_str, new_str}`; a missing
    /// `new_str` deletes `old_str`, as in Anthropic's reference tool.
    fn str_replace(&self, ctx: &Ctx) -> Fallible<ParsedEdit> {
        let path = self.args.path(ctx)?;
        let old = self.args.string(ctx, "old_str")?;
        let new = self
            .args
            .optional_string(ctx, "new_str")?
            .unwrap_or_default();
        Ok(edit(
            path,
            self.span,
            Ordering::Sequential,
            string_op(old, new, false),
        ))
    }

    /// `{command: "undo_edit", path}`.
    fn undo(&self, ctx: &Ctx) -> Fallible<ParsedEdit> {
        let path = self.args.path(ctx)?;
        Ok(edit(path, self.span, Ordering::Sequential, EditOp::Undo))
    }

    /// `{command: "create", path, file_text}`.
    fn create(&self, ctx: &Ctx) -> Fallible<ParsedEdit> {
        let path = self.args.path(ctx)?;
        let content = self.args.string(ctx, "file_text")?;
        Ok(edit(
            path,
            self.span,
            Ordering::Sequential,
            EditOp::Create { content },
        ))
    }

    /// `{command: "insert", path, insert_line, new_str}`: `new_str` split on
    /// `\n` becomes lines inserted after line `insert_line` (0 = top).
    fn insert(&self, ctx: &Ctx) -> Fallible<ParsedEdit> {
        let path = self.args.path(ctx)?;
        let after_line = self.args.line_number(ctx, "insert_line")?;
        let new_str = match self.args.optional_string(ctx, "insert_text")? {
            Some(text) => text,
            None => self.args.string(ctx, "new_str")?,
        };
        let text = format!("{new_str}\n");
        Ok(edit(
            path,
            self.span,
            Ordering::Sequential,
            EditOp::InsertLines { after_line, text },
        ))
    }
}

/// A JSON edit.
fn edit(path: String, source: SourceSpan, ordering: Ordering, op: EditOp) -> ParsedEdit {
    ParsedEdit {
        path,
        format: Format::Json,
        source,
        ordering,
        op,
    }
}

/// A string tool's edit: substring replace, or create when `old` is empty
/// (both empty changes nothing: the resolver reports `no_op`).
fn string_op(old: String, new: String, replace_all: bool) -> EditOp {
    if old.is_empty() && !new.is_empty() {
        return EditOp::Create { content: new };
    }
    EditOp::Replace(Replace {
        replace_all,
        ..Replace::substring(old, new)
    })
}

/// Payload text is LF-only: `\r\n` in a JSON string folds to `\n`.
fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// The fields of one JSON object (a call's arguments or an item of its list),
/// read with errors that name the tool, the field and the payload line.
struct Fields<'n> {
    /// The tool, for messages.
    tool: &'n str,
    /// Where the object sits in the arguments (`edits[2].`), for messages.
    prefix: String,
    /// The object.
    node: &'n Node,
}

impl<'n> Fields<'n> {
    fn new(tool: &'n str, prefix: &str, node: &'n Node) -> Fields<'n> {
        Fields {
            tool,
            prefix: prefix.to_string(),
            node,
        }
    }

    /// Item `i` of the list `key`, which must be an object.
    fn item(&self, ctx: &Ctx, key: &str, i: usize, item: &'n Node) -> Fallible<Fields<'n>> {
        let label = format!("{}{key}[{i}]", self.prefix);
        if !matches!(item.value, Value::Object(_)) {
            let message = format!(
                "`{}` call at payload line {}: `{label}` must be an object, found {}",
                self.tool,
                ctx.line_of(item.start),
                item.kind()
            );
            return Err(Box::new(ctx.parse_error(item, message)));
        }
        Ok(Fields::new(self.tool, &format!("{label}."), item))
    }

    /// The key this tool names its path with.
    fn path_key(&self) -> &'static str {
        match self.tool {
            "Edit" | "MultiEdit" | "Write" => "file_path",
            "edit" | "write" => "filePath",
            _ => "path",
        }
    }

    /// The first of `keys` the object has, else the first (for messages).
    fn key<'k>(&self, keys: &[&'k str]) -> &'k str {
        keys.iter()
            .find(|k| self.node.has(k))
            .copied()
            .unwrap_or(keys[0])
    }

    /// The path, under `path` or `file_path`, if any.
    fn optional_path(&self) -> Option<String> {
        PATH_KEYS
            .iter()
            .find_map(|k| self.node.get(k))
            .and_then(Node::as_str)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
    }

    /// The (non-empty) path, under `path` or `file_path`.
    fn path(&self, ctx: &Ctx) -> Fallible<String> {
        let key = self.path_key();
        let node = match PATH_KEYS.iter().find_map(|k| self.node.get(k)) {
            Some(node) => node,
            None => return Err(self.missing(ctx, key, "a string naming the file")),
        };
        match node.as_str() {
            Some("") => Err(self.field_error(ctx, key, "is empty: name the file to edit")),
            Some(path) => Ok(path.to_string()),
            None => Err(self.wrong_type(ctx, key, node, "a string")),
        }
    }

    /// The required string `key`.
    fn string(&self, ctx: &Ctx, key: &str) -> Fallible<String> {
        self.optional_string(ctx, key)?
            .ok_or_else(|| self.missing(ctx, key, "a string"))
    }

    /// The string `key`, `None` when absent or `null`.
    fn optional_string(&self, ctx: &Ctx, key: &str) -> Fallible<Option<String>> {
        match self.node.get(key) {
            None => Ok(None),
            Some(node) => match node.as_str() {
                Some(text) => Ok(Some(lf(text))),
                None => Err(self.wrong_type(ctx, key, node, "a string")),
            },
        }
    }

    /// The boolean `key`, false when absent.
    fn flag(&self, ctx: &Ctx, key: &str) -> Fallible<bool> {
        match self.node.get(key) {
            None => Ok(false),
            Some(Node {
                value: Value::Bool(b),
                ..
            }) => Ok(*b),
            Some(node) => Err(self.wrong_type(ctx, key, node, "true or false")),
        }
    }

    /// The non-negative integer `key`.
    fn line_number(&self, ctx: &Ctx, key: &str) -> Fallible<usize> {
        let node = self
            .node
            .get(key)
            .ok_or_else(|| self.missing(ctx, key, "a line number (0 = top of the file)"))?;
        match &node.value {
            Value::Number(n) => n.parse::<usize>().map_err(|_| {
                self.field_error(
                    ctx,
                    key,
                    &format!("must be a line number of 0 or more, found {n}"),
                )
            }),
            _ => Err(self.wrong_type(ctx, key, node, "a line number (0 = top of the file)")),
        }
    }

    /// The array `key`, which must have at least one element.
    fn non_empty_array(&self, ctx: &Ctx, key: &str) -> Fallible<&'n [Node]> {
        let node = self
            .node
            .get(key)
            .ok_or_else(|| self.missing(ctx, key, "an array"))?;
        match node.as_array() {
            Some([]) => Err(self.field_error(ctx, key, "is empty: add at least one edit")),
            Some(items) => Ok(items),
            None => Err(self.wrong_type(ctx, key, node, "an array")),
        }
    }

    /// Lines under `key`: an array of strings (one per line) or one string
    /// (split into lines). `None` when absent.
    fn lines(&self, ctx: &Ctx, key: &str) -> Fallible<Option<Vec<String>>> {
        let Some(node) = self.node.get(key) else {
            return Ok(None);
        };
        match &node.value {
            Value::String(text) => Ok(Some(text.lines().map(str::to_string).collect())),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item.as_str() {
                    Some(line) => Ok(lf(line)),
                    None => Err(self.wrong_type(ctx, &format!("{key}[{i}]"), item, "a string")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            _ => Err(self.wrong_type(ctx, key, node, "an array of lines")),
        }
    }

    /// A `modify_file` change: `start` (1+ lines), `end` (optional), `content`.
    fn anchored_region(&self, ctx: &Ctx) -> Fallible<AnchoredRegion> {
        let start = self
            .lines(ctx, "start")?
            .ok_or_else(|| self.missing(ctx, "start", "1-4 lines that begin the region"))?;
        if start.is_empty() {
            return Err(self.field_error(
                ctx,
                "start",
                "is empty: give 1-4 unique lines that begin the region",
            ));
        }
        let end = self.lines(ctx, "end")?.filter(|end| !end.is_empty());
        let content = self
            .lines(ctx, "content")?
            .ok_or_else(|| self.missing(ctx, "content", "the replacement lines ([] deletes)"))?;
        Ok(AnchoredRegion {
            start,
            end,
            content,
        })
    }

    /// A string edit `{old_string, new_string, replace_all?}` (path from the
    /// object or else `call_path`).
    fn string_edit(
        &self,
        ctx: &Ctx,
        call_path: Option<String>,
        span: SourceSpan,
    ) -> Fallible<ParsedEdit> {
        let path = match (self.optional_path(), call_path) {
            (Some(path), _) | (None, Some(path)) => path,
            (None, None) => self.path(ctx)?,
        };
        // Anthropic/Claude Code, the MCP filesystem server, opencode.
        let old = self.string(ctx, self.key(&["old_string", "oldText", "oldString"]))?;
        let new = self.string(ctx, self.key(&["new_string", "newText", "newString"]))?;
        let replace_all = self.flag(ctx, self.key(&["replace_all", "replaceAll"]))?;
        Ok(edit(
            path,
            span,
            Ordering::Sequential,
            string_op(old, new, replace_all),
        ))
    }

    /// "`key` is missing" at the object's first line.
    fn missing(&self, ctx: &Ctx, key: &str, expected: &str) -> Box<EditError> {
        self.field_error(ctx, key, &format!("is missing: add it as {expected}"))
    }

    /// "`key` must be X, found Y" at the value's line.
    fn wrong_type(&self, ctx: &Ctx, key: &str, node: &Node, expected: &str) -> Box<EditError> {
        let message = format!(
            "`{}` call at payload line {}: `{}{key}` must be {expected}, found {}",
            self.tool,
            ctx.line_of(node.start),
            self.prefix,
            node.kind()
        );
        Box::new(ctx.parse_error(node, message))
    }

    /// "`key` <problem>" at the object's first line.
    fn field_error(&self, ctx: &Ctx, key: &str, problem: &str) -> Box<EditError> {
        let at = self.node.get(key).unwrap_or(self.node);
        let message = format!(
            "`{}` call at payload line {}: `{}{key}` {problem}",
            self.tool,
            ctx.line_of(at.start),
            self.prefix
        );
        Box::new(ctx.parse_error(at, message))
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::model::{AnchoredRegion, EditOp, Ordering, Replace};
    use crate::parse::json::{parse, JsonOutput};

    fn only_op(out: &JsonOutput) -> &EditOp {
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.edits.len(), 1);
        &out.edits[0].op
    }

    #[test]
    fn empty_old_string_creates() {
        let out = parse(r#"{"path": "n.txt", "old_string": "", "new_string": "hi\n"}"#);
        assert_eq!(
            only_op(&out),
            &EditOp::Create {
                content: "hi\n".into()
            }
        );
    }

    #[test]
    fn replace_all_is_carried() {
        let out = parse(
            r#"{"file_path": "/abs/a.ts", "old_string": "a", "new_string": "b", "replace_all": true}"#,
        );
        let mut want = Replace::substring("a", "b");
        want.replace_all = true;
        assert_eq!(only_op(&out), &EditOp::Replace(want));
        assert_eq!(out.edits[0].path, "/abs/a.ts");
    }

    #[test]
    fn insert_text_becomes_newline_terminated_lines() {
        let out =
            parse(r#"{"command": "insert", "path": "a", "insert_line": 0, "new_str": "x\ny"}"#);
        assert_eq!(
            only_op(&out),
            &EditOp::InsertLines {
                after_line: 0,
                text: "x\ny\n".into()
            }
        );
    }

    #[test]
    fn each_modify_file_call_gets_its_own_group() {
        let call = r#"{"name": "modify_file", "arguments": {"path": "a", "changes": [
            {"start": ["x"], "content": []}, {"start": "y\nz", "end": ["}"], "content": ["w"]}]}}"#;
        let out = parse(&format!("[{call}, {call}]"));
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let groups: Vec<_> = out.edits.iter().map(|e| e.ordering).collect();
        use Ordering::Simultaneous as S;
        assert_eq!(groups, vec![S(1), S(1), S(2), S(2)]);
        assert_eq!(
            out.edits[1].op,
            EditOp::Anchored(AnchoredRegion {
                start: vec!["y".into(), "z".into()],
                end: Some(vec!["}".into()]),
                content: vec!["w".into()],
            })
        );
    }

    #[test]
    fn view_edits_nothing_and_unknown_commands_are_errors() {
        let out = parse(r#"{"command": "undo_edit", "path": "a"}"#);
        assert_eq!(out.edits[0].op, EditOp::Undo);
        let out = parse(r#"{"command": "view", "path": "a"}"#);
        assert!(out.edits.is_empty() && out.errors.is_empty());
        let out = parse(r#"{"command": "delete", "path": "a"}"#);
        assert!(
            out.errors[0].message.contains("`delete`"),
            "{}",
            out.errors[0].message
        );
    }

    #[test]
    fn field_errors_name_the_field_and_line() {
        let out = parse("{\"name\": \"edit_file\", \"arguments\": {\"edits\": [\n{\"path\": \"a\", \"old_string\": 3, \"new_string\": \"\"}]}}");
        assert_eq!(out.errors[0].kind, ErrorKind::Parse);
        assert_eq!(out.errors[0].lines, vec![2]);
        assert!(
            out.errors[0]
                .message
                .contains("`edits[0].old_string` must be a string, found a number"),
            "{}",
            out.errors[0].message
        );
        let out = parse(r#"{"name": "read_file", "arguments": {"path": "a"}}"#);
        assert!(out.errors[0].message.contains("unknown tool `read_file`"));
    }
}
