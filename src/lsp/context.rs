//! Context snapshots in the language server: capture/release, per-file
//! status (`FORMATS.md` §5), the `llm-edit/status` notification, and the
//! code actions that resolve `~M` conflicts region by region.
//!
//! Snapshots live in a [`ContextStore`] under the workspace and are loaded
//! lazily by id (so they survive a restart) into a cache. A run uses the
//! context its arguments name, else `default` when one was captured.
//!
//! A `conflict` of the `merge` policy keeps what is needed to recompute it
//! against the live buffer: the snapshot ("base") and the LLM's result
//! ("theirs", the payload resolved against the snapshot alone). Each
//! refresh merges them with the current buffer again, so the diagnostics
//! follow the user's typing and disappear once a region is resolved.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dashmap::DashMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::Result as RpcResult;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::ApplyWorkspaceEdit;
use tower_lsp_server::ls_types::{
    ApplyWorkspaceEditParams, CodeAction, CodeActionKind, CodeActionOrCommand, Command, Diagnostic,
    DiagnosticSeverity, MessageType, NumberOrString, ShowDocumentParams,
};

use crate::context::{ContextError, ContextStore, Snapshot};
use crate::engine::{self, FileChange, FileStatus, OnConflict, Options};
use crate::error::{EditError, ErrorKind};
use crate::lsp::commands;
use crate::lsp::diagnostics::Origin;
use crate::lsp::documents::Documents;
use crate::lsp::position::PositionEncoding;
use crate::lsp::proto::{self, EditContext, TextPositions};
use crate::lsp::server::{invalid_params, request_failed, to_json, Backend};
use crate::lsp::source::{self, stale_files, BufferFiles};
use crate::merge::{self, MergeConflict, MergeOutcome};
use crate::model::{EditBatch, EditOp};
use crate::parse;
use crate::plan::{After, TextEdit, TextEdits};
use crate::status;
use crate::workspace::{DiskFiles, FileSource, LoadError, SourceText, WorkspacePath};

/// The context id used when a command names none.
pub const DEFAULT_ID: &str = "default";

/// Arguments of `llm-edit.captureContext`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptureArgs {
    /// Open documents (or `file:` URIs of files on disk) to capture.
    pub uris: Option<Vec<String>>,
    /// Workspace paths to capture.
    pub paths: Option<Vec<String>>,
    /// The context id (default `default`).
    pub id: Option<String>,
}

/// Arguments of `llm-edit.releaseContext` and `llm-edit.status`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusArgs {
    /// The context id (default `default`).
    pub id: Option<String>,
    /// `status` only: the files this payload edits count as LLM-edited.
    pub payload: Option<String>,
}

/// What a conflict code action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Choice {
    /// Replace the buffer's region with the LLM's version.
    Theirs,
    /// Keep the buffer; drop the LLM's change of this region.
    Ours,
    /// Both versions between conflict markers.
    Both,
    /// Show the region's diff.
    Diff,
}

/// Arguments of `llm-edit.resolveConflict` (built by the code actions).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveArgs {
    /// The document.
    pub uri: String,
    /// The buffer version the action was computed for.
    pub version: i32,
    /// The first buffer line (1-based) of the conflicting region.
    pub line: usize,
    /// What to do.
    pub choice: Choice,
}

/// One file of a status result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusEntry {
    /// Workspace-relative path.
    pub path: String,
    /// ``, `M`, `A`, `~` or `~M`.
    pub status: String,
}

/// The result of `llm-edit.status` and the `llm-edit/status` notification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusParams {
    /// The context id.
    pub id: String,
    /// Every file of the context and every LLM-edited file, in path order.
    pub files: Vec<StatusEntry>,
}

/// The custom notification `llm-edit/status`.
pub enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = StatusParams;
    const METHOD: &'static str = "llm-edit/status";
}

/// What resolving a conflict region gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Send this edit of the buffer (then the region no longer conflicts).
    Edit(WorkspacePath, SourceText, TextEdit),
    /// Nothing to send; the region's diagnostic is dismissed.
    Dismissed,
    /// The region's unified diff, to show.
    Diff(WorkspacePath, String),
}

/// A file whose LLM edits conflict with the user's unsaved changes.
#[derive(Clone, Debug)]
struct ConflictFile {
    path: WorkspacePath,
    /// The snapshot the LLM saw (the merge base).
    base: Arc<str>,
    /// The LLM's result computed from the snapshot.
    theirs: String,
    /// The engine's message.
    message: String,
    /// Regions the user kept (base text, LLM text).
    dismissed: HashSet<(String, String)>,
}

/// The server's contexts, their statuses and the open conflicts.
#[derive(Debug, Default)]
pub struct Contexts {
    snapshots: DashMap<String, Arc<Snapshot>>,
    /// Files with an LLM edit pending, per context (from `status {payload}`
    /// and `preview`; cleared by a successful apply and by a capture).
    pending: DashMap<String, BTreeSet<WorkspacePath>>,
    last_status: DashMap<String, StatusParams>,
    conflicts: DashMap<String, ConflictFile>,
    /// The context a response document was run with (by URI).
    response_contexts: DashMap<String, String>,
    generation: AtomicU64,
    /// A private folder (0700, unpredictable name) for the diffs shown
    /// with `window/showDocument`; removed when the server exits.
    diff_dir: OnceLock<tempfile::TempDir>,
}

impl Contexts {
    /// Context `id`, loaded from disk the first time (`None`: never
    /// captured).
    pub fn snapshot(&self, root: &Path, id: &str) -> Result<Option<Arc<Snapshot>>, ContextError> {
        if let Some(cached) = self.snapshots.get(id) {
            return Ok(Some(Arc::clone(&cached)));
        }
        match ContextStore::new(root).load(id) {
            Ok(snapshot) => {
                let snapshot = Arc::new(snapshot);
                self.snapshots.insert(id.to_owned(), Arc::clone(&snapshot));
                Ok(Some(snapshot))
            }
            Err(ContextError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The snapshot a run uses: the named context (which must exist), else
    /// `default` when it was captured.
    pub fn for_run(&self, root: &Path, id: Option<&str>) -> Result<Option<Arc<Snapshot>>, String> {
        let name = id.unwrap_or(DEFAULT_ID);
        match self.snapshot(root, name) {
            Ok(None) if id.is_some() => Err(format!(
                "no context snapshot {name:?}; capture it first with llm-edit.captureContext"
            )),
            Ok(found) => Ok(found),
            Err(e) => Err(unusable(name, &e)),
        }
    }

    /// Records the current text of `paths` (buffer, else disk) as context
    /// `id`, replacing any earlier snapshot with that id.
    pub fn capture(
        &self,
        files: &BufferFiles,
        id: &str,
        paths: &[WorkspacePath],
    ) -> Result<Vec<String>, String> {
        let mut texts = Vec::with_capacity(paths.len());
        for path in paths {
            match files.load(path) {
                Ok(Some(text)) => texts.push((path.clone(), text.text.clone())),
                Ok(None) => return Err(format!("cannot capture {path}: no such file")),
                Err(e) => return Err(format!("cannot capture {path}: it {}", load_reason(&e))),
            }
        }
        let store = ContextStore::new(files.root());
        let snapshot = store.capture(id, &texts).map_err(|e| e.to_string())?;
        let captured = snapshot.iter().map(|(p, _)| p.to_string()).collect();
        self.snapshots.insert(id.to_owned(), Arc::new(snapshot));
        self.pending.remove(id);
        Ok(captured)
    }

    /// Drops context `id` from memory and disk.
    pub fn release(&self, root: &Path, id: &str) -> Result<(), String> {
        ContextStore::new(root)
            .release(id)
            .map_err(|e| e.to_string())?;
        self.snapshots.remove(id);
        self.pending.remove(id);
        self.last_status.remove(id);
        Ok(())
    }

    /// Remembers the files a payload edits as pending LLM edits of `id`.
    pub fn set_pending(&self, id: &str, edited: BTreeSet<WorkspacePath>) {
        self.pending.insert(id.to_owned(), edited);
    }

    /// Forgets the pending LLM edits of `id` (they were applied).
    pub fn clear_pending(&self, id: &str) {
        self.pending.remove(id);
    }

    /// Remembers which context a response document is run with.
    pub fn set_response_context(&self, uri: &str, id: &str) {
        self.response_contexts.insert(uri.to_owned(), id.to_owned());
    }

    /// The context of a response document (`default` unless a command
    /// named another).
    pub fn response_context(&self, uri: &str) -> String {
        self.response_contexts
            .get(uri)
            .map(|id| id.clone())
            .unwrap_or_else(|| DEFAULT_ID.to_owned())
    }

    /// The statuses of context `id` against the live buffers.
    pub fn status(
        &self,
        files: &BufferFiles,
        id: &str,
        edited: Option<&BTreeSet<WorkspacePath>>,
    ) -> Result<StatusParams, String> {
        let snapshot = self
            .snapshot(files.root(), id)
            .map_err(|e| unusable(id, &e))?
            .ok_or_else(|| {
                format!("no context snapshot {id:?}; capture it first with llm-edit.captureContext")
            })?;
        let pending = self.pending.get(id).map(|p| p.clone()).unwrap_or_default();
        let edited = edited.unwrap_or(&pending);
        let statuses = status::statuses(&snapshot, edited, |path| {
            files.load(path).ok().flatten().map(|t| t.text.clone())
        });
        Ok(StatusParams {
            id: id.to_owned(),
            files: statuses
                .into_iter()
                .map(|(path, s)| StatusEntry {
                    path: path.to_string(),
                    status: s.code().to_owned(),
                })
                .collect(),
        })
    }

    /// The statuses of every loaded context that changed since they were
    /// last reported (trying `default` from disk first).
    pub fn changed_statuses(&self, files: &BufferFiles) -> Vec<StatusParams> {
        if let Err(e) = self.snapshot(files.root(), DEFAULT_ID) {
            tracing::warn!(error = %e, "cannot load the default context");
        }
        let ids: Vec<String> = self.snapshots.iter().map(|e| e.key().clone()).collect();
        ids.into_iter()
            .filter_map(|id| self.status(files, &id, None).ok())
            .filter(|params| {
                let same = self
                    .last_status
                    .get(&params.id)
                    .is_some_and(|l| *l == *params);
                if !same {
                    self.last_status.insert(params.id.clone(), params.clone());
                }
                !same
            })
            .collect()
    }

    /// Starts a new refresh round; returns its number.
    pub fn next_generation(&self) -> u64 {
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Writes `diff` to a new file (0600, unpredictable name) in the
    /// server's private folder; returns its path.
    pub fn write_diff(&self, path: &WorkspacePath, diff: &str) -> std::io::Result<PathBuf> {
        let dir = match self.diff_dir.get() {
            Some(dir) => dir,
            None => {
                let made = tempfile::Builder::new()
                    .prefix("llm-edit-")
                    .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
                    .tempdir()?;
                self.diff_dir.get_or_init(|| made)
            }
        };
        let name: String = path.as_str().replace('/', "_").chars().take(100).collect();
        let mut file = tempfile::Builder::new()
            .prefix(&format!("{name}."))
            .suffix(".diff")
            .tempfile_in(dir.path())?;
        std::io::Write::write_all(&mut file, diff.as_bytes())?;
        let (_, kept) = file.keep().map_err(|e| e.error)?;
        Ok(kept)
    }

    /// Whether `generation` is still the latest round.
    pub fn is_latest(&self, generation: u64) -> bool {
        self.generation.load(Ordering::SeqCst) == generation
    }

    /// Keeps the `conflict` errors of a `merge` run that can be resolved
    /// region by region; returns (URI, path) of each such file. The
    /// engine's own diagnostics of those files' conflicts are replaced by
    /// [`Contexts::conflict_diagnostics`].
    pub fn record_conflicts(
        &self,
        run: &ConflictRun<'_>,
        uri_of: impl Fn(&WorkspacePath) -> Option<String>,
    ) -> Vec<(String, WorkspacePath)> {
        if run.options.on_conflict != OnConflict::Merge {
            return Vec::new();
        }
        let Some(snapshot) = run.snapshot else {
            return Vec::new();
        };
        let conflicted: Vec<(WorkspacePath, &EditError)> = run
            .errors
            .iter()
            .filter(|e| e.kind == ErrorKind::Conflict && !e.ranges.is_empty())
            .filter_map(|e| {
                let path = WorkspacePath::new(run.files.root(), e.path.as_deref()?).ok()?;
                Some((path, e))
            })
            .collect();
        if conflicted.is_empty() {
            return Vec::new();
        }
        let theirs = llm_results(run.payload, run.options, run.files, snapshot);
        let mut recorded = Vec::new();
        for (path, error) in conflicted {
            let (Some(base), Some(theirs), Some(uri)) = (
                snapshot.text(&path),
                theirs.get(&path).cloned(),
                uri_of(&path),
            ) else {
                continue;
            };
            let file = ConflictFile {
                path: path.clone(),
                base,
                theirs,
                message: error.message.clone(),
                dismissed: HashSet::new(),
            };
            self.conflicts.insert(uri.clone(), file);
            recorded.push((uri, path));
        }
        recorded
    }

    /// Forgets the conflicts of a document (diagnostics dismissed, or the
    /// file was applied).
    pub fn forget_conflicts(&self, uri: &str) {
        self.conflicts.remove(uri);
    }

    /// Whether `uri` has open conflicts.
    pub fn has_conflicts(&self, uri: &str) -> bool {
        self.conflicts.contains_key(uri)
    }

    /// URIs with open conflicts.
    pub fn conflict_uris(&self) -> Vec<String> {
        self.conflicts.iter().map(|e| e.key().clone()).collect()
    }

    /// The conflict diagnostics of `uri` against its current `buffer`
    /// (empty, and the conflicts are forgotten, once none is left).
    pub fn conflict_diagnostics(
        &self,
        uri: &str,
        buffer: &str,
        encoding: PositionEncoding,
    ) -> Vec<Diagnostic> {
        let Some(file) = self.conflicts.get(uri).map(|f| f.clone()) else {
            return Vec::new();
        };
        let open = open_conflicts(&file, buffer);
        if open.is_empty() {
            self.conflicts.remove(uri);
            return Vec::new();
        }
        let positions = TextPositions::new(buffer, encoding);
        open.iter()
            .map(|c| Diagnostic {
                range: positions.lines(c.ours.lines),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(
                    ErrorKind::Conflict.name().to_owned(),
                )),
                source: Some(crate::lsp::proto::DIAGNOSTIC_SOURCE.to_owned()),
                message: format!(
                    "{} (this region: your {}, the LLM's {})",
                    file.message,
                    c.ours.lines,
                    describe_side(&c.theirs.text)
                ),
                data: Some(json!({"conflictLine": c.ours.lines.first})),
                ..Diagnostic::default()
            })
            .collect()
    }

    /// The conflict code actions of the buffer lines `first..=last`:
    /// (title, `resolveConflict` argument).
    pub fn conflict_actions(
        &self,
        uri: &str,
        buffer: &str,
        version: i32,
        first: usize,
        last: usize,
    ) -> Vec<(String, Value)> {
        let Some(file) = self.conflicts.get(uri).map(|f| f.clone()) else {
            return Vec::new();
        };
        let mut actions = Vec::new();
        for c in open_conflicts(&file, buffer) {
            let lines = c.ours.lines;
            if !(lines.first <= last && first <= lines.last) {
                continue;
            }
            let arg = |choice: Choice| {
                json!(ResolveArgs {
                    uri: uri.to_owned(),
                    version,
                    line: lines.first,
                    choice,
                })
            };
            actions.extend([
                (
                    "Apply LLM version here (drop my changes in this region)".to_owned(),
                    arg(Choice::Theirs),
                ),
                (
                    "Keep mine (drop the LLM change)".to_owned(),
                    arg(Choice::Ours),
                ),
                (
                    "Insert both with conflict markers".to_owned(),
                    arg(Choice::Both),
                ),
                ("Show diff".to_owned(), arg(Choice::Diff)),
            ]);
        }
        actions
    }

    /// Resolves the conflict region starting at `args.line` of the buffer
    /// `text` (at `version`).
    pub fn resolve(
        &self,
        args: &ResolveArgs,
        text: &str,
        version: i32,
    ) -> Result<Resolution, String> {
        if args.version != version {
            return Err(format!(
                "{} changed since this action was offered (version {} → {version}); pick the action again",
                args.uri, args.version
            ));
        }
        let mut file = self
            .conflicts
            .get(&args.uri)
            .map(|f| f.clone())
            .ok_or_else(|| format!("{} has no LLM edit conflicts (any more)", args.uri))?;
        let conflict = open_conflicts(&file, text)
            .into_iter()
            .find(|c| c.ours.lines.first == args.line)
            .ok_or_else(|| {
                format!(
                    "no LLM edit conflict starts at line {} of {} (any more)",
                    args.line, file.path
                )
            })?;
        let buffer = SourceText {
            text: text.to_owned(),
            encoding: crate::text::encoding::Encoding::Utf8,
            version: Some(version),
            stamp: None,
        };
        let resolution = match args.choice {
            Choice::Theirs => Resolution::Edit(file.path.clone(), buffer, conflict.take_theirs()),
            Choice::Both => {
                Resolution::Edit(file.path.clone(), buffer, conflict.take_both_with_markers())
            }
            Choice::Ours => Resolution::Dismissed,
            Choice::Diff => Resolution::Diff(file.path.clone(), region_diff(&file.path, &conflict)),
        };
        if matches!(args.choice, Choice::Ours | Choice::Both) {
            file.dismissed.insert(conflict_key(&conflict));
            self.conflicts.insert(args.uri.clone(), file);
        }
        Ok(resolution)
    }
}

/// What [`Contexts::record_conflicts`] needs from a run.
pub struct ConflictRun<'a> {
    /// The payload.
    pub payload: &'a str,
    /// The run's options.
    pub options: &'a Options,
    /// The files it read.
    pub files: &'a BufferFiles,
    /// The snapshot it used.
    pub snapshot: Option<&'a Snapshot>,
    /// Its errors.
    pub errors: &'a [EditError],
}

/// "context "x" is unusable: …; release it and capture it again".
fn unusable(id: &str, error: &ContextError) -> String {
    format!(
        "context {id:?} cannot be used: {error}; run llm-edit.releaseContext {{\"id\": {id:?}}} and capture it again"
    )
}

fn load_reason(error: &LoadError) -> String {
    match error {
        LoadError::Io(e) => format!("cannot be read ({e})"),
        other => other.to_string(),
    }
}

/// The files the edits of `payload` touch (rename targets too).
pub fn llm_edited(root: &Path, payload: &str) -> BTreeSet<WorkspacePath> {
    let parsed = parse::parse(payload, None);
    let mut edited = BTreeSet::new();
    for edit in &parsed.batch.edits {
        let targets = match &edit.op {
            EditOp::Rename { to } => vec![edit.path.as_str(), to.as_str()],
            _ => vec![edit.path.as_str()],
        };
        edited.extend(
            targets
                .into_iter()
                .filter_map(|p| WorkspacePath::new(root, p).ok()),
        );
    }
    edited
}

/// The open documents under `root`, as workspace paths (the default of
/// `captureContext`), leaving out the tool's own state folder and `skip`.
pub fn open_workspace_files(
    root: &Path,
    docs: &Documents,
    skip: impl Fn(&str) -> bool,
) -> Vec<WorkspacePath> {
    let mut paths: Vec<WorkspacePath> = docs
        .uris()
        .into_iter()
        .filter(|uri| !skip(uri))
        .filter_map(|uri| docs.get(&uri)?.path)
        .filter_map(|p| {
            let relative = p.strip_prefix(root).ok()?;
            WorkspacePath::new(root, &relative.to_string_lossy()).ok()
        })
        .filter(|p| !p.as_str().starts_with(crate::context::STATE_DIR))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The URI of an open document that is an LLM response still streaming in
/// and runs with context `id`, if any.
pub fn streaming_response(
    docs: &Documents,
    contexts: &Contexts,
    quiet: Duration,
    is_response: impl Fn(&str) -> bool,
    id: &str,
) -> Option<String> {
    docs.uris().into_iter().find(|uri| {
        let Some(doc) = docs.get(uri) else {
            return false;
        };
        if doc.changed_at.elapsed() >= quiet || contexts.response_context(uri) != id {
            return false;
        }
        is_response(uri) || looks_like_response(&String::from(&doc.rope))
    })
}

/// Whether a text parses into an edit or an unfinished block.
fn looks_like_response(text: &str) -> bool {
    let parsed = parse::parse(text, None);
    !parsed.batch.edits.is_empty() || parsed.errors.iter().any(|e| e.kind == ErrorKind::Truncated)
}

/// The LLM's result for each file it edits, computed from the snapshot
/// alone (files without a snapshot are read as they are).
fn llm_results(
    payload: &str,
    options: &Options,
    files: &BufferFiles,
    snapshot: &Snapshot,
) -> std::collections::HashMap<WorkspacePath, String> {
    let source = SnapshotAsCurrent { files, snapshot };
    let options = Options {
        partial: true,
        ..options.clone()
    };
    engine::run(payload, &options, &source)
        .files
        .into_iter()
        .filter(|f| matches!(f.status, FileStatus::Modified | FileStatus::Merged))
        .filter_map(|f| {
            let after = f.after()?.to_owned();
            Some((f.path, after))
        })
        .collect()
}

/// The snapshot as the current text (and no snapshot): what the LLM's
/// edits give when applied to what it saw.
struct SnapshotAsCurrent<'a> {
    files: &'a BufferFiles,
    snapshot: &'a Snapshot,
}

impl FileSource for SnapshotAsCurrent<'_> {
    fn root(&self) -> &Path {
        self.files.root()
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        match self.snapshot.text(path) {
            Some(text) => Ok(Some(Arc::new(SourceText {
                text: text.to_string(),
                encoding: crate::text::encoding::Encoding::Utf8,
                version: None,
                stamp: None,
            }))),
            None => self.files.load(path),
        }
    }
}

/// The conflicts of a file against `buffer` the user has not dismissed.
fn open_conflicts(file: &ConflictFile, buffer: &str) -> Vec<MergeConflict> {
    match merge::merge(&file.base, buffer, &file.theirs) {
        MergeOutcome::Merged(_) => Vec::new(),
        MergeOutcome::Conflicts(all) => all
            .into_iter()
            .filter(|c| !file.dismissed.contains(&conflict_key(c)))
            .collect(),
    }
}

/// What identifies a region across buffer changes: the base and LLM texts.
fn conflict_key(conflict: &MergeConflict) -> (String, String) {
    (conflict.base.text.clone(), conflict.theirs.text.clone())
}

/// "2 lines" / "deletion".
fn describe_side(text: &str) -> String {
    match text.lines().count() {
        0 => "deletion".to_owned(),
        1 => "1 line".to_owned(),
        n => format!("{n} lines"),
    }
}

/// The unified diff of one region: the buffer's lines against the LLM's,
/// with the snapshot's for reference.
fn region_diff(path: &WorkspacePath, conflict: &MergeConflict) -> String {
    let diff = similar::TextDiff::from_lines(&conflict.ours.text, &conflict.theirs.text);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("a/{path} (your buffer, {})", conflict.ours.lines),
            &format!("b/{path} (the LLM's version)"),
        )
        .to_string();
    if out.is_empty() {
        out = format!("--- a/{path}\n+++ b/{path}\n(no difference)\n");
    }
    out
}

impl Backend {
    /// Runs `captureContext`, `releaseContext`, `status` or
    /// `resolveConflict`.
    pub(super) async fn context_command(
        &self,
        name: &str,
        arguments: Vec<Value>,
    ) -> RpcResult<Value> {
        match name {
            commands::CAPTURE_CONTEXT => {
                self.capture_context(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            commands::RELEASE_CONTEXT => {
                let args: StatusArgs =
                    commands::single_arg(name, arguments).map_err(invalid_params)?;
                if args.payload.is_some() {
                    return Err(invalid_params("llm-edit.releaseContext takes only `id`"));
                }
                self.release_context(args.id.as_deref().unwrap_or(DEFAULT_ID))
            }
            commands::STATUS => {
                self.context_status(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            _ => {
                self.resolve_conflict(
                    commands::single_arg(name, arguments).map_err(invalid_params)?,
                )
                .await
            }
        }
    }

    async fn capture_context(&self, args: CaptureArgs) -> RpcResult<Value> {
        let (root, ..) = self.workspace()?;
        let id = args.id.unwrap_or_else(|| DEFAULT_ID.to_owned());
        self.check_not_streaming(&id)?;
        let mut paths = Vec::new();
        for raw in args.paths.iter().flatten() {
            paths.push(WorkspacePath::new(&root, raw).map_err(|_| {
                invalid_params(format!(
                    "cannot capture `{raw}`: it is not a file inside the workspace root"
                ))
            })?);
        }
        for uri in args.uris.iter().flatten() {
            paths.push(uri_workspace_path(&root, uri).ok_or_else(|| {
                invalid_params(format!(
                    "cannot capture {uri}: it is not a file inside the workspace root"
                ))
            })?);
        }
        if args.paths.is_none() && args.uris.is_none() {
            paths = open_workspace_files(&root, self.docs(), |uri| self.is_response(uri));
        }
        if paths.is_empty() {
            return Err(invalid_params(
                "nothing to capture: give `uris` or `paths`, or open the files the LLM is shown",
            ));
        }
        let files = BufferFiles::new(&root, self.docs().clone())
            .map_err(|e| request_failed(format!("cannot read the workspace root: {e}")))?;
        let this = self.clone();
        let task_id = id.clone();
        let captured =
            tokio::task::spawn_blocking(move || this.contexts().capture(&files, &task_id, &paths))
                .await
                .map_err(|e| request_failed(format!("capturing the context failed: {e}")))?
                .map_err(request_failed)?;
        self.schedule_refresh();
        Ok(json!({"id": id, "files": captured}))
    }

    fn release_context(&self, id: &str) -> RpcResult<Value> {
        let (root, ..) = self.workspace()?;
        self.check_not_streaming(id)?;
        self.contexts().release(&root, id).map_err(request_failed)?;
        Ok(json!({"id": id}))
    }

    /// Refuses to change context `id` while a response runs with it.
    fn check_not_streaming(&self, id: &str) -> RpcResult<()> {
        let quiet = self.config().response_quiet;
        match streaming_response(self.docs(), self.contexts(), quiet, |u| self.is_response(u), id) {
            Some(uri) => Err(request_failed(format!(
                "a response is still streaming into {uri}; wait until it stops, then change context {id:?}"
            ))),
            None => Ok(()),
        }
    }

    async fn context_status(&self, args: StatusArgs) -> RpcResult<Value> {
        let (root, ..) = self.workspace()?;
        let id = args.id.unwrap_or_else(|| DEFAULT_ID.to_owned());
        let edited = args.payload.as_deref().map(|p| llm_edited(&root, p));
        let files = BufferFiles::new(&root, self.docs().clone())
            .map_err(|e| request_failed(format!("cannot read the workspace root: {e}")))?;
        let this = self.clone();
        let task_id = id.clone();
        let task_edited = edited.clone();
        let result = tokio::task::spawn_blocking(move || {
            this.contexts()
                .status(&files, &task_id, task_edited.as_ref())
        })
        .await
        .map_err(|e| request_failed(format!("computing the status failed: {e}")))?
        .map_err(request_failed)?;
        if let Some(edited) = edited {
            self.contexts().set_pending(&id, edited);
            self.schedule_refresh();
        }
        to_json(&result)
    }

    async fn resolve_conflict(&self, args: ResolveArgs) -> RpcResult<Value> {
        let (root, _, show_document) = self.workspace()?;
        let doc = self.docs().get(&args.uri).ok_or_else(|| {
            invalid_params(format!(
                "{} is not open; open it to resolve its conflicts",
                args.uri
            ))
        })?;
        let text = String::from(&doc.rope);
        let resolution = self
            .contexts()
            .resolve(&args, &text, doc.version)
            .map_err(invalid_params)?;
        match resolution {
            Resolution::Edit(path, buffer, edit) => {
                self.send_resolution(&root, path, buffer, edit).await
            }
            Resolution::Dismissed => {
                self.refresh_conflicts(&args.uri).await;
                Ok(json!({"applied": false}))
            }
            Resolution::Diff(path, diff) => self.show_diff(&path, diff, show_document).await,
        }
    }

    /// Sends one region's resolution with `workspace/applyEdit`.
    async fn send_resolution(
        &self,
        root: &Path,
        path: WorkspacePath,
        buffer: SourceText,
        edit: TextEdit,
    ) -> RpcResult<Value> {
        let edits = TextEdits::new(vec![edit]).unwrap_or_default();
        let change = FileChange {
            content: After::edited(),
            path,
            from: None,
            status: FileStatus::Modified,
            before: Some(Arc::new(buffer)),
            edits,
            edit_indices: Vec::new(),
        };
        let features = self.features();
        let batch = EditBatch::default();
        let ctx = EditContext {
            features: &features,
            root,
            docs: self.docs(),
            batch: &batch,
            confirm: false,
        };
        let stamps = source::stamps(std::slice::from_ref(&change));
        let edit = proto::workspace_edit(&[change], &ctx).map_err(|e| request_failed(e.0))?;
        // As `llm-edit.apply`: one apply per file at a time, checked last.
        let _held = self.apply_locks().lock([stamps[0].0.under(root)]).await;
        let current = DiskFiles::new(root)
            .is_ok_and(|disk| stale_files(&stamps, &disk, self.docs()).is_empty());
        if !current {
            let reason = "the buffer changed since the action was offered; pick it again";
            return Ok(json!({"applied": false, "failureReason": reason}));
        }
        let params = ApplyWorkspaceEditParams {
            label: Some("Resolve LLM edit conflict".into()),
            edit,
        };
        let request = self.client().send_request::<ApplyWorkspaceEdit>(params);
        let answer = tokio::time::timeout(self.config().apply_timeout, request).await;
        let (applied, reason) = match answer {
            Ok(Ok(r)) => (r.applied, r.failure_reason),
            Ok(Err(e)) => (
                false,
                Some(format!("workspace/applyEdit failed: {}", e.message)),
            ),
            Err(_) => (
                false,
                Some("the editor did not answer workspace/applyEdit".into()),
            ),
        };
        Ok(json!({"applied": applied, "failureReason": reason}))
    }

    /// Shows a region's diff: a temporary file with `window/showDocument`
    /// when the client supports it, else `window/showMessage`.
    async fn show_diff(
        &self,
        path: &WorkspacePath,
        diff: String,
        show_document: bool,
    ) -> RpcResult<Value> {
        if show_document {
            let uri = self
                .contexts()
                .write_diff(path, &diff)
                .map_err(|e| tracing::warn!(error = %e, "cannot write the diff file"))
                .ok()
                .and_then(|file| proto::parse_uri(&format!("file://{}", file.display())));
            if let Some(uri) = uri {
                let params = ShowDocumentParams {
                    uri,
                    external: None,
                    take_focus: Some(true),
                    selection: None,
                };
                if self.client().show_document(params).await.unwrap_or(false) {
                    return Ok(json!({"diff": diff, "shown": "document"}));
                }
            }
        }
        self.client()
            .show_message(MessageType::INFO, diff.clone())
            .await;
        Ok(json!({"diff": diff, "shown": "message"}))
    }

    /// Refreshes statuses and conflict diagnostics once the documents
    /// have been quiet for the debounce time.
    pub(super) fn schedule_refresh(&self) {
        let generation = self.contexts().next_generation();
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(this.config().response_debounce).await;
            if this.contexts().is_latest(generation) {
                this.refresh().await;
            }
        });
    }

    async fn refresh(&self) {
        let Ok((root, ..)) = self.workspace() else {
            return;
        };
        for uri in self.contexts().conflict_uris() {
            self.refresh_conflicts(&uri).await;
        }
        let this = self.clone();
        let changed = tokio::task::spawn_blocking(move || {
            let files = BufferFiles::new(&root, this.docs().clone()).ok()?;
            Some(this.contexts().changed_statuses(&files))
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
        for params in changed {
            self.client()
                .send_notification::<StatusNotification>(params)
                .await;
        }
    }

    /// Republishes the conflict diagnostics of `uri` against its buffer
    /// (or the file on disk when it is not open).
    pub(super) async fn refresh_conflicts(&self, uri: &str) {
        let Some(parsed) = proto::parse_uri(uri) else {
            return;
        };
        let text = match self.docs().get(uri) {
            Some(doc) => String::from(&doc.rope),
            None => self.disk_text(uri).unwrap_or_default(),
        };
        let encoding = self.features().encoding;
        let diags = self.contexts().conflict_diagnostics(uri, &text, encoding);
        self.publish(&parsed, Origin::Conflict, diags).await;
    }

    /// The text on disk of the workspace file `uri` (read through the
    /// root's handle, like every other read).
    fn disk_text(&self, uri: &str) -> Option<String> {
        let (root, ..) = self.workspace().ok()?;
        let path = uri_workspace_path(&root, uri)?;
        let disk = crate::workspace::DiskFiles::new(&root).ok()?;
        disk.read(&path).ok().flatten().map(|t| t.text)
    }

    /// Adds the conflict code actions of the lines `first..=last` of `uri`.
    pub(super) fn push_conflict_actions(
        &self,
        uri: &str,
        first: usize,
        last: usize,
        actions: &mut Vec<CodeActionOrCommand>,
    ) {
        if !self.contexts().has_conflicts(uri) {
            return;
        }
        let Some(doc) = self.docs().get(uri) else {
            return;
        };
        let text = String::from(&doc.rope);
        let found = self
            .contexts()
            .conflict_actions(uri, &text, doc.version, first, last);
        for (title, arg) in found {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                command: Some(Command::new(
                    title,
                    commands::RESOLVE_CONFLICT.to_owned(),
                    Some(vec![arg]),
                )),
                ..CodeAction::default()
            }));
        }
    }
}

/// The workspace path of a `file:` URI under `root`.
fn uri_workspace_path(root: &Path, uri: &str) -> Option<WorkspacePath> {
    let path = proto::uri_path(&proto::parse_uri(uri)?)?;
    let relative = path.strip_prefix(root).ok()?;
    WorkspacePath::new(root, &relative.to_string_lossy()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict_file(base: &str, theirs: &str) -> ConflictFile {
        ConflictFile {
            path: WorkspacePath::new(Path::new("/r"), "a.txt").unwrap(),
            base: Arc::from(base),
            theirs: theirs.to_owned(),
            message: "edit 1 in a.txt: conflict".into(),
            dismissed: HashSet::new(),
        }
    }

    #[test]
    fn resolves_regions_and_tracks_dismissed_ones() {
        let contexts = Contexts::default();
        contexts
            .conflicts
            .insert("u".into(), conflict_file("a\nb\nc\n", "a\nLLM\nc\n"));
        let buffer = "a\nMINE\nc\n";
        let diags = contexts.conflict_diagnostics("u", buffer, PositionEncoding::Utf16);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].range.start.line, 1);
        let actions = contexts.conflict_actions("u", buffer, 3, 2, 2);
        let titles: Vec<&str> = actions.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(titles.len(), 4, "{titles:?}");
        assert!(contexts.conflict_actions("u", buffer, 3, 3, 3).is_empty());

        let args = |choice| ResolveArgs {
            uri: "u".into(),
            version: 3,
            line: 2,
            choice,
        };
        let Resolution::Edit(_, _, edit) =
            contexts.resolve(&args(Choice::Theirs), buffer, 3).unwrap()
        else {
            panic!("an edit");
        };
        assert_eq!(edit, TextEdit::new(2..7, "LLM\n"));
        assert!(contexts.resolve(&args(Choice::Theirs), buffer, 4).is_err());
        let Resolution::Diff(_, diff) = contexts.resolve(&args(Choice::Diff), buffer, 3).unwrap()
        else {
            panic!("a diff");
        };
        assert!(diff.contains("-MINE\n+LLM\n"), "{diff}");
        assert_eq!(
            contexts.resolve(&args(Choice::Ours), buffer, 3).unwrap(),
            Resolution::Dismissed
        );
        assert!(contexts
            .conflict_diagnostics("u", buffer, PositionEncoding::Utf16)
            .is_empty());
        assert!(contexts.conflict_uris().is_empty());
    }

    #[test]
    fn taking_the_llm_version_ends_the_conflict() {
        let contexts = Contexts::default();
        contexts
            .conflicts
            .insert("u".into(), conflict_file("a\nb\nc\n", "a\nLLM\nc\n"));
        assert!(contexts
            .conflict_diagnostics("u", "a\nLLM\nc\n", PositionEncoding::Utf16)
            .is_empty());
    }

    #[test]
    fn lists_llm_edited_files() {
        let root = Path::new("/r");
        let payload = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n";
        let edited: Vec<String> = llm_edited(root, payload)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(edited, ["a.py"]);
        assert!(looks_like_response(payload));
        assert!(!looks_like_response("fn main() {}\n"));
    }
}
