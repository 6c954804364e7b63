//! The tools of the MCP server, without the protocol: one [`Session`] per
//! connection holds the roots and what the agent has read, and
//! [`Session::call`] runs a tool on JSON arguments.
//!
//! Every edit tool builds a payload in a format the engine reads (with
//! `serde_json`, never by pasting strings), forces that format, and goes
//! the one way through: `engine::run` over the files on disk, with the
//! session's reads as the snapshot (`~M`: a file changed since the agent
//! read it is merged three-way, refused or overwritten, `on_conflict`),
//! then the atomic writer ([`crate::write`]). When a language server of
//! this project has the root open, the payload goes to the editor instead
//! ([`crate::agent::link`]). Either way the answer is an
//! [`AgentOutcome`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::roots::Roots;
use crate::agent::link::{self, LinkError, LinkRequest};
use crate::agent::{AgentOutcome, Delivery, Route};
use crate::context::{Snapshot, SnapshotEntry, WithSnapshot};
use crate::engine::{self, MatchMode, OnConflict, Options, SyntaxCheck};
use crate::model::{EditOp, Format};
use crate::parse;
use crate::retry::Voice;
use crate::workspace::{DiskFiles, LoadError, PathError, WorkspacePath};

/// Lines `read_file` shows when no `limit` is given (and at most).
pub const READ_LINES: usize = 2000;
/// Characters of one line `read_file` shows; the rest is cut.
pub const READ_LINE_CHARS: usize = 2000;
/// Bytes of numbered text one `read_file` answer holds at most.
pub const READ_BYTES: usize = 256 * 1024;

/// Bytes of diffs the text of an edit tool's answer holds at most (the
/// structured result has every diff).
pub const TEXT_DIFF_BYTES: usize = 64 * 1024;

/// The server's settings (`llm-edit-lsp mcp` flags).
#[derive(Clone, Debug)]
pub struct Config {
    /// `--root` folders, in order (empty: the client's roots, else the
    /// current directory).
    pub roots: Vec<PathBuf>,
    /// `--on-conflict`: a file changed since the agent read it.
    pub on_conflict: OnConflict,
    /// `--require-read`: refuse to edit an existing file the session never
    /// read.
    pub require_read: bool,
    /// `--deadline`: the engine's time budget per call.
    pub deadline: Duration,
    /// `--match`.
    pub match_mode: MatchMode,
    /// `--fuzzy`.
    pub fuzzy: Option<f64>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            roots: Vec::new(),
            on_conflict: OnConflict::Merge,
            require_read: false,
            deadline: engine::DEFAULT_DEADLINE,
            match_mode: MatchMode::Tolerant,
            fuzzy: None,
        }
    }
}

/// What a tool call answers: structured content, a short text for the
/// model, and whether it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolReply {
    /// The `structuredContent` (an [`AgentOutcome`] for the edit tools).
    pub structured: Value,
    /// The text content: summary, retry prompt, diffs (or the numbered
    /// lines of `read_file`).
    pub text: String,
    /// `isError`: something was refused or not done.
    pub is_error: bool,
}

impl ToolReply {
    /// A failure before any edit was planned (bad arguments, no root, a
    /// path refused): `{"error": message}`.
    pub fn error(message: impl Into<String>) -> ToolReply {
        let message = message.into();
        ToolReply {
            structured: json!({ "error": message }),
            text: message,
            is_error: true,
        }
    }
}

/// A tool name the server does not have.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownTool(pub String);

/// What the session knows of a file the agent read.
#[derive(Clone, Debug)]
enum Read {
    /// The text it read (or wrote since): the `~M` snapshot.
    Text(SnapshotEntry),
    /// Read, then edited through the editor: its text now is the editor's
    /// (no snapshot; edits apply against the buffer).
    Unknown,
}

/// One agent connection: its roots and its reads.
pub struct Session {
    config: Config,
    roots: RwLock<Roots>,
    /// Reads by canonical root, then workspace path.
    reads: Mutex<HashMap<PathBuf, HashMap<WorkspacePath, Read>>>,
    /// Held by an edit call from its plan to its write: calls a client
    /// sends at once apply one after the other, each planned against what
    /// the one before wrote.
    applying: Mutex<()>,
    /// The snapshots of what the last calls wrote, made after their answer
    /// (joining and hashing a 10 MB text is no part of the call's time);
    /// settled before the reads are next looked at.
    pending: Mutex<Vec<std::thread::JoinHandle<Vec<Update>>>>,
}

/// A change of the session's reads made after a call's answer.
enum Update {
    /// The agent's view of the file is now this text.
    Remember(PathBuf, WorkspacePath, SnapshotEntry),
    /// The file is gone (deleted, or renamed away).
    Forget(PathBuf, WorkspacePath),
}

/// The tools, in the order they are listed.
pub const TOOLS: [&str; 7] = [
    "read_file",
    "edit",
    "multi_edit",
    "write_file",
    "apply_patch",
    "apply_response",
    "list_roots",
];

/// A session that ends waits for the snapshots its last writes were
/// making (bounded work: joining and hashing what was written), so that no
/// thread of it outlives it.
impl Drop for Session {
    fn drop(&mut self) {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        for handle in pending {
            let _ = handle.join();
        }
    }
}

impl Session {
    /// A session with `config`'s `--root` folders (none: until the client's
    /// roots or the current directory are set with [`Session::set_roots`]).
    pub fn new(config: Config) -> Result<Session, String> {
        let roots = Roots::open(&config.roots)?;
        Ok(Session {
            config,
            roots: RwLock::new(roots),
            reads: Mutex::new(HashMap::new()),
            applying: Mutex::new(()),
            pending: Mutex::new(Vec::new()),
        })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Were the roots given on the command line (so the client's are not
    /// asked for)?
    pub fn fixed_roots(&self) -> bool {
        !self.config.roots.is_empty()
    }

    /// Replaces the roots (the client's, or the current directory).
    pub fn set_roots(&self, roots: Roots) {
        *self.roots.write().unwrap_or_else(|e| e.into_inner()) = roots;
    }

    /// No root is set yet.
    pub fn has_no_root(&self) -> bool {
        self.roots().is_empty()
    }

    fn roots(&self) -> Roots {
        self.roots.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Runs tool `name` on `arguments`. Bad arguments, refusals and
    /// failures are replies with `is_error`; only an unknown name is `Err`.
    pub fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolReply, UnknownTool> {
        let reply = match name {
            "read_file" => with_args(name, arguments, |a| self.read_file(a)),
            "edit" => with_args(name, arguments, |a: EditArgs| {
                let shown = vec![old_string_shown(&a.old_string)];
                let payload = json!({"name": "Edit", "arguments": {
                    "file_path": a.path, "old_string": a.old_string,
                    "new_string": a.new_string, "replace_all": a.replace_all,
                }});
                self.apply(Call::json(payload, &a.path, false).by(name, shown))
            }),
            "multi_edit" => with_args(name, arguments, |a: MultiEditArgs| {
                let edits: Vec<Value> = a
                    .edits
                    .iter()
                    .map(|e| {
                        json!({"old_string": e.old_string, "new_string": e.new_string,
                               "replace_all": e.replace_all})
                    })
                    .collect();
                let shown = a
                    .edits
                    .iter()
                    .map(|e| old_string_shown(&e.old_string))
                    .collect();
                let payload = json!({"name": "MultiEdit", "arguments": {"file_path": a.path, "edits": edits}});
                self.apply(Call::json(payload, &a.path, a.dry_run).by(name, shown))
            }),
            "write_file" => with_args(name, arguments, |a: WriteArgs| {
                let payload = json!({"name": "write_file", "arguments": {"path": a.path, "content": a.content}});
                self.apply(Call::json(payload, &a.path, false).by(name, Vec::new()))
            }),
            "apply_patch" => with_args(name, arguments, |a: PatchArgs| {
                self.apply(
                    Call::payload(a.patch, Some(Format::ApplyPatch), a.dry_run, false)
                        .by(name, Vec::new()),
                )
            }),
            "apply_response" => with_args(name, arguments, |a: ResponseArgs| {
                let format = match a.format.as_deref() {
                    None | Some("auto") => None,
                    Some(name) => match Format::from_name(name) {
                        Some(f) => Some(f),
                        None => {
                            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                            return ToolReply::error(format!(
                                "unknown format `{name}`: use auto or one of {}",
                                names.join(", ")
                            ));
                        }
                    },
                };
                self.apply(Call::payload(a.text, format, a.dry_run, a.partial).by(name, Vec::new()))
            }),
            "list_roots" => with_args(name, arguments, |_: NoArgs| self.list_roots()),
            other => return Err(UnknownTool(other.to_string())),
        };
        Ok(reply)
    }

    /// `list_roots`: the folders the tools may touch.
    fn list_roots(&self) -> ToolReply {
        let roots = self.roots();
        let paths: Vec<String> = roots
            .paths()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let text = if paths.is_empty() {
            "No workspace root is set.".to_string()
        } else {
            format!(
                "Files can be read and edited under:\n{}\nRelative paths are resolved against the first root \
                 (or the one root that has the file).",
                paths.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n")
            )
        };
        ToolReply {
            structured: json!({ "roots": paths }),
            text,
            is_error: paths.is_empty(),
        }
    }

    /// `read_file`: numbered lines, and the whole text becomes the
    /// session's snapshot of the file.
    fn read_file(&self, args: ReadArgs) -> ToolReply {
        let roots = self.roots();
        let files = match roots.for_path(&args.path) {
            Ok(files) => files,
            Err(message) => return ToolReply::error(message),
        };
        let root = files.root_dir().path();
        let path = match WorkspacePath::new(root, &args.path) {
            Ok(path) => path,
            Err(PathError::OutsideRoot) => {
                return ToolReply::error(format!(
                    "`{}` is outside the workspace root ({}): read files inside the project",
                    args.path,
                    roots
                        .paths()
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            Err(PathError::Empty) => {
                return ToolReply::error("`path` is empty: name the file to read")
            }
            Err(PathError::InvalidName(reason)) => {
                return ToolReply::error(format!(
                    "`{}` cannot be a file: {reason}",
                    args.path.escape_debug()
                ))
            }
        };
        let source = match files.read(&path) {
            Ok(Some(source)) => source,
            Ok(None) => {
                return ToolReply::error(format!(
                    "`{path}` does not exist under {}: check the path (write_file creates a file)",
                    root.display()
                ))
            }
            Err(LoadError::OutsideRoot) => {
                return ToolReply::error(format!(
                    "`{path}` resolves outside the workspace root (through a symlink): it cannot be read"
                ))
            }
            Err(e) => return ToolReply::error(format!("cannot read `{path}`: {e}")),
        };
        let view = number_lines(&source.text, args.offset, args.limit);
        let view = match view {
            Ok(view) => view,
            Err(message) => return ToolReply::error(format!("`{path}`: {message}")),
        };
        self.remember(
            root,
            &path,
            Read::Text(SnapshotEntry::new(source.text.as_str())),
        );
        let mut text = view.numbered.clone();
        if let Some(note) = &view.note {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(note);
        }
        ToolReply {
            structured: json!({
                "path": path.as_str(),
                "root": root.display().to_string(),
                "first_line": view.first,
                "last_line": view.last,
                "total_lines": view.total,
                "truncated": view.note.is_some(),
                "content": view.numbered,
            }),
            text,
            is_error: false,
        }
    }

    /// The reads, with every pending update applied first (in call order).
    fn reads(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, HashMap<WorkspacePath, Read>>> {
        let pending: Vec<_> =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        let mut reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        for handle in pending {
            // A thread that panicked leaves the earlier snapshot: later
            // edits are merged against it (or refused), never written over.
            for update in handle.join().unwrap_or_default() {
                match update {
                    Update::Remember(root, path, entry) => {
                        reads
                            .entry(root)
                            .or_default()
                            .insert(path, Read::Text(entry));
                    }
                    Update::Forget(root, path) => {
                        if let Some(r) = reads.get_mut(&root) {
                            r.remove(&path);
                        }
                    }
                }
            }
        }
        reads
    }

    fn remember(&self, root: &Path, path: &WorkspacePath, read: Read) {
        let mut reads = self.reads();
        reads
            .entry(root.to_path_buf())
            .or_default()
            .insert(path.clone(), read);
    }

    /// The snapshot of every file the session read under `root`.
    fn snapshot(&self, root: &Path) -> Snapshot {
        let reads = self.reads();
        reads
            .get(root)
            .into_iter()
            .flatten()
            .filter_map(|(path, read)| match read {
                Read::Text(entry) => Some((path.clone(), entry.clone())),
                Read::Unknown => None,
            })
            .collect()
    }

    fn was_read(&self, root: &Path, path: &WorkspacePath) -> bool {
        let reads = self.reads();
        reads.get(root).is_some_and(|r| r.contains_key(path))
    }

    /// Runs one edit call: the editor when one has the root open, else the
    /// disk.
    fn apply(&self, call: Call) -> ToolReply {
        let _one_at_a_time = self.applying.lock().unwrap_or_else(|e| e.into_inner());
        let roots = self.roots();
        // The files the call names: known for the one-file tools, parsed
        // out of the payload for the others.
        let named: Vec<String> = match &call.path {
            Some(path) => vec![path.clone()],
            None => payload_paths(&call.payload, call.format),
        };
        let files = match roots.for_paths(named.iter().map(String::as_str)) {
            Ok(files) => files,
            Err(message) => return ToolReply::error(message),
        };
        let root = files.root_dir().path();
        let concerned: Vec<WorkspacePath> = named
            .iter()
            .filter_map(|p| WorkspacePath::new(root, p).ok())
            .collect();
        if self.config.require_read {
            let unread: Vec<&WorkspacePath> = concerned
                .iter()
                .filter(|p| !self.was_read(root, p) && matches!(files.read_bytes(p), Ok(Some(_))))
                .collect();
            if let Some(first) = unread.first() {
                return ToolReply::error(format!(
                    "`{first}` has not been read in this session: call read_file on it first, then \
                     edit it (this server runs with --require-read){}",
                    if unread.len() > 1 {
                        format!("; also unread: {}", unread[1..].iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "))
                    } else {
                        String::new()
                    }
                ));
            }
        }
        let options = Options {
            format: call.format,
            match_mode: self.config.match_mode,
            fuzzy: self.config.fuzzy,
            partial: call.partial,
            on_conflict: self.config.on_conflict,
            deadline: self.config.deadline,
            syntax_check: SyntaxCheck::Now,
        };
        let snapshot = self.snapshot(root);
        if let Some(editor) = link::connect(root) {
            let request = LinkRequest {
                payload: call.payload.clone(),
                format: call.format.map(|f| f.name().to_string()),
                dry_run: call.dry_run,
                partial: call.partial,
                on_conflict: Some(on_conflict_name(self.config.on_conflict).to_string()),
                snapshot: concerned
                    .iter()
                    .filter_map(|p| {
                        snapshot
                            .get(p)
                            .map(|e| (p.as_str().to_string(), e.text.to_string()))
                    })
                    .collect::<BTreeMap<_, _>>(),
                voice: call.voice.clone(),
            };
            match editor.run(&request) {
                Ok(value) => {
                    if value.get("applied").and_then(Value::as_bool) == Some(true) {
                        // The editor's buffers hold the result now: later
                        // edits of these files apply against them.
                        for path in &concerned {
                            self.remember(root, path, Read::Unknown);
                        }
                    }
                    return reply_from_value(value);
                }
                Err(LinkError::NotSent(_)) => {}
                Err(e) => {
                    let message = e.to_string();
                    return ToolReply {
                        structured: json!({"route": Route::Editor, "applied": false, "error": message}),
                        text: message,
                        is_error: true,
                    };
                }
            }
        }
        self.apply_on_disk(files, &call, &options, snapshot)
    }

    /// The disk route: plan against the files (and the snapshot), write
    /// atomically, answer.
    fn apply_on_disk(
        &self,
        files: &DiskFiles,
        call: &Call,
        options: &Options,
        snapshot: Snapshot,
    ) -> ToolReply {
        let root = files.root_dir().path();
        let source = WithSnapshot::new(files.clone(), snapshot);
        let outcome = engine::run(&call.payload, options, &source);
        let dry_run = call.dry_run || outcome.batch.preview;
        let mut applied = false;
        let mut failure = None;
        if outcome.applicable(options) && !dry_run && !outcome.files.is_empty() {
            match crate::write::write_all(files.root_dir(), &outcome.files, false) {
                Ok(_) => applied = true,
                Err(e) => failure = Some(format!("nothing was changed: {e}")),
            }
        }
        let result = AgentOutcome::new(
            &call.payload,
            &call.voice,
            &outcome,
            options,
            Delivery {
                route: Route::Disk,
                dry_run,
                applied,
                failure_reason: failure,
            },
        );
        if applied {
            // What the agent wrote is what it knows of these files now. The
            // texts are joined and hashed after the answer, and the plan is
            // freed there too.
            let root = root.to_path_buf();
            let handle = std::thread::spawn(move || {
                let mut updates = Vec::new();
                for change in &outcome.files {
                    if let Some(from) = &change.from {
                        updates.push(Update::Forget(root.clone(), from.clone()));
                    }
                    match change.after() {
                        Some(after) if change.exists_after() => updates.push(Update::Remember(
                            root.clone(),
                            change.path.clone(),
                            SnapshotEntry::new(after),
                        )),
                        _ => updates.push(Update::Forget(root.clone(), change.path.clone())),
                    }
                }
                updates
            });
            self.pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(handle);
        }
        reply_from_outcome(&result)
    }
}

/// The `--on-conflict` name of a policy.
pub fn on_conflict_name(policy: OnConflict) -> &'static str {
    match policy {
        OnConflict::Merge => "merge",
        OnConflict::Refuse => "refuse",
        OnConflict::Overwrite => "overwrite",
    }
}

/// One edit call, as a payload.
struct Call {
    payload: String,
    format: Option<Format>,
    dry_run: bool,
    partial: bool,
    /// The one file a one-file tool names.
    path: Option<String>,
    /// The tool, and what of each edit its retry prompt shows.
    voice: Voice,
}

impl Call {
    /// A JSON tool call built from a tool's arguments, on the file `path`.
    fn json(payload: Value, path: &str, dry_run: bool) -> Call {
        Call {
            payload: payload.to_string(),
            format: Some(Format::Json),
            dry_run,
            partial: false,
            path: Some(path.to_string()),
            voice: Voice::Response,
        }
    }

    /// A payload as the agent sent it.
    fn payload(payload: String, format: Option<Format>, dry_run: bool, partial: bool) -> Call {
        Call {
            payload,
            format,
            dry_run,
            partial,
            path: None,
            voice: Voice::Response,
        }
    }

    /// Sent by the tool `tool`; `edits[i]` is what a retry prompt shows of
    /// edit `i + 1` (empty: the payload's own lines).
    fn by(self, tool: &str, edits: Vec<String>) -> Call {
        Call {
            voice: Voice::Tool {
                tool: tool.to_string(),
                edits,
            },
            ..self
        }
    }
}

/// What a retry prompt shows of an edit: its `old_string`, labelled.
fn old_string_shown(old_string: &str) -> String {
    let mut shown = format!("old_string:\n{old_string}");
    if !shown.ends_with('\n') {
        shown.push('\n');
    }
    shown
}

/// The paths a payload names (targets and rename destinations), in order.
fn payload_paths(payload: &str, format: Option<Format>) -> Vec<String> {
    if payload.len() > parse::MAX_PAYLOAD_BYTES {
        return Vec::new();
    }
    let parsed = parse::parse(payload, format);
    let mut out: Vec<String> = Vec::new();
    for edit in &parsed.batch.edits {
        let mut push = |p: &str| {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        };
        push(&edit.path);
        if let EditOp::Rename { to } = &edit.op {
            push(to);
        }
    }
    out
}

/// The reply of an [`AgentOutcome`]: its JSON, and a text made of the
/// summary, the retry prompt and the diffs.
pub fn reply_from_outcome(outcome: &AgentOutcome) -> ToolReply {
    match serde_json::to_value(outcome) {
        Ok(value) => reply_from_value(value),
        Err(e) => ToolReply::error(format!("the result could not be encoded: {e}")),
    }
}

/// The reply of an [`AgentOutcome`] as JSON (the editor link answers so).
pub fn reply_from_value(value: Value) -> ToolReply {
    let str_of = |key: &str| value.get(key).and_then(Value::as_str);
    let mut text = str_of("summary").unwrap_or("").to_string();
    if let Some(prompt) = str_of("retry_prompt") {
        text.push_str("\n\n");
        text.push_str(prompt);
    }
    let mut cut = 0;
    for file in value
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(diff) = file
            .get("diff")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        {
            if text.len() + diff.len() > TEXT_DIFF_BYTES {
                cut += 1;
                continue;
            }
            text.push('\n');
            text.push_str(diff);
        }
    }
    if cut > 0 {
        text.push_str(&format!(
            "\n({cut} diff(s) left out of this text to keep it short; every diff is in the \
             structured result, `files[].diff`)\n"
        ));
    }
    let errors = value
        .get("errors")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty());
    let failed = value.get("failure_reason").is_some_and(|r| !r.is_null());
    ToolReply {
        is_error: errors || failed,
        text,
        structured: value,
    }
}

/// Decodes a tool's arguments, or answers with what is wrong with them.
fn with_args<A: DeserializeOwned>(
    tool: &str,
    arguments: Map<String, Value>,
    run: impl FnOnce(A) -> ToolReply,
) -> ToolReply {
    match serde_json::from_value::<A>(Value::Object(arguments)) {
        Ok(args) => run(args),
        Err(e) => ToolReply::error(format!(
            "invalid arguments for `{tool}`: {e}; see the tool's input schema"
        )),
    }
}

/// `read_file` arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    #[serde(alias = "file_path")]
    path: String,
    /// 1-based first line.
    #[serde(default)]
    offset: Option<usize>,
    /// How many lines.
    #[serde(default)]
    limit: Option<usize>,
}

/// `edit` arguments (Claude Code's `Edit`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    #[serde(alias = "file_path")]
    path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

/// `multi_edit` arguments: Claude Code's `MultiEdit`, or the MCP
/// filesystem server's `edit_file` (`oldText`/`newText`, `dryRun`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MultiEditArgs {
    #[serde(alias = "file_path")]
    path: String,
    edits: Vec<EditItem>,
    #[serde(default, alias = "dryRun")]
    dry_run: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditItem {
    #[serde(alias = "oldText")]
    old_string: String,
    #[serde(alias = "newText")]
    new_string: String,
    #[serde(default, alias = "replaceAll")]
    replace_all: bool,
}

/// `write_file` arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    #[serde(alias = "file_path")]
    path: String,
    content: String,
}

/// `apply_patch` arguments (Codex's envelope; `input` is the name Codex's
/// own tool gives it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchArgs {
    #[serde(alias = "input")]
    patch: String,
    #[serde(default, alias = "dryRun")]
    dry_run: bool,
}

/// `apply_response` arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResponseArgs {
    text: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default, alias = "dryRun")]
    dry_run: bool,
    #[serde(default)]
    partial: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// A window of a file's lines, numbered.
#[derive(Debug)]
struct View {
    numbered: String,
    first: usize,
    last: usize,
    total: usize,
    /// Said after the lines when the view is not the whole file.
    note: Option<String>,
}

/// Lines `offset..offset+limit` (1-based) of `text` as `cat -n` prints
/// them (`{:>6}\t{line}`, the prefix the engine strips again), within
/// [`READ_BYTES`], each line within [`READ_LINE_CHARS`].
fn number_lines(text: &str, offset: Option<usize>, limit: Option<usize>) -> Result<View, String> {
    let total = text.lines().count();
    let first = offset.unwrap_or(1).max(1);
    if total == 0 {
        return Ok(View {
            numbered: String::new(),
            first: 0,
            last: 0,
            total,
            note: Some("(the file is empty)".to_string()),
        });
    }
    if first > total {
        return Err(format!(
            "offset {first} is past the end of the file ({total} lines)"
        ));
    }
    let limit = limit.unwrap_or(READ_LINES).clamp(1, READ_LINES);
    let mut numbered = String::new();
    let mut last = first - 1;
    let mut cut_lines = Vec::new();
    for (i, line) in text.lines().enumerate().skip(first - 1).take(limit) {
        let n = i + 1;
        let shown = match line.char_indices().nth(READ_LINE_CHARS) {
            Some((at, _)) => {
                cut_lines.push(n);
                &line[..at]
            }
            None => line,
        };
        let entry = format!("{n:>6}\t{shown}\n");
        if numbered.len() + entry.len() > READ_BYTES && n > first {
            break;
        }
        numbered.push_str(&entry);
        last = n;
    }
    let mut notes = Vec::new();
    if last < total || first > 1 {
        notes.push(format!(
            "(lines {first}-{last} of {total}{})",
            if last < total {
                format!("; call read_file with offset={} to read on", last + 1)
            } else {
                String::new()
            }
        ));
    }
    if !cut_lines.is_empty() {
        notes.push(format!(
            "(line(s) {} cut at {READ_LINE_CHARS} characters)",
            cut_lines
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(View {
        numbered,
        first,
        last,
        total,
        note: (!notes.is_empty()).then(|| notes.join("\n")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_are_what_the_engine_strips() {
        let view = number_lines("a\n  b\n\nc\n", None, None).unwrap();
        assert_eq!(
            view.numbered,
            "     1\ta\n     2\t  b\n     3\t\n     4\tc\n"
        );
        assert_eq!(view.note, None);
        let search = "     2\t  b\n     3\t\n";
        let (stripped, _) = crate::resolve::line_numbers::strip(search, "").unwrap();
        assert_eq!(stripped, "  b\n\n");
    }

    #[test]
    fn windows_say_where_to_read_on() {
        let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        let view = number_lines(&text, Some(3), Some(2)).unwrap();
        assert_eq!(view.numbered, "     3\tl3\n     4\tl4\n");
        assert_eq!((view.first, view.last, view.total), (3, 4, 10));
        assert!(view.note.unwrap().contains("offset=5"));
        assert!(number_lines(&text, Some(11), None)
            .unwrap_err()
            .contains("past the end"));
    }
}
