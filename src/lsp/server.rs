//! The language server: document sync, commands, diagnostics, code actions.
//!
//! Handlers touch shared state only synchronously (document changes are
//! applied before the first `.await`), run the engine on the blocking pool,
//! and stamp every plan with the versions and content hashes it saw
//! ([`Stamp`]); `llm-edit.apply` holds the lock of every file it changes
//! ([`FileLocks`]) and re-checks the stamps right before
//! `workspace/applyEdit`.
//!
//! [`Stamp`]: crate::lsp::source::Stamp
//! [`FileLocks`]: crate::lsp::locks::FileLocks

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Instant;

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::request::ApplyWorkspaceEdit;
use tower_lsp_server::ls_types::{
    ApplyWorkspaceEditParams, CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionResponse, CodeLens, CodeLensParams, Command, DidChangeConfigurationParams,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, ExecuteCommandParams, InitializeParams, InitializeResult,
    InitializedParams, MessageType, ServerInfo, Uri,
};
use tower_lsp_server::{Client, LanguageServer};

use crate::agent::link::{LinkFailure, LinkRequest};
use crate::agent::{AgentOutcome, Delivery, Route};
use crate::context::{Snapshot, SnapshotEntry};
use crate::engine::{self, Outcome};
use crate::error::{EditError, ErrorKind};
use crate::lsp::commands::{self, ApplyResult, PreviewResult, RetryPromptResult, RunArgs, UriArgs};
use crate::lsp::context::{ConflictRun, Contexts};
use crate::lsp::diagnostics::{DiagnosticStore, Origin};
use crate::lsp::documents::Documents;
use crate::lsp::lens::{self, BlockLens};
use crate::lsp::link;
use crate::lsp::locks::FileLocks;
use crate::lsp::proto::{self, ClientFeatures, EditContext};
use crate::lsp::settings::Settings;
use crate::lsp::source::{stale_files, BufferFiles, Stamp};
use crate::lsp::ServeConfig;
use crate::parse;
use crate::retry::retry_prompt;
use crate::workspace::WorkspacePath;

/// What `initialize` and the configuration decided.
#[derive(Clone, Debug, Default)]
struct Session {
    root: Option<PathBuf>,
    features: ClientFeatures,
    settings: Settings,
    /// The client supports `window/showDocument`.
    show_document: bool,
}

/// The last analysis of a response document.
#[derive(Clone, Debug)]
struct Response {
    /// Its edits: index, payload lines, target path.
    edits: Vec<(usize, (usize, usize), String)>,
    /// Its failures.
    errors: Vec<EditError>,
    /// One code lens per edit block.
    lenses: Vec<BlockLens>,
}

/// Shared state of the server.
struct Inner {
    client: Client,
    config: ServeConfig,
    docs: Arc<Documents>,
    session: RwLock<Session>,
    diagnostics: DiagnosticStore,
    responses: dashmap::DashMap<String, Response>,
    contexts: Contexts,
    /// Held by `llm-edit.apply` from its stale check to the client's answer.
    apply_locks: FileLocks,
    /// Per URI with syntax warnings: the hash of the text the apply wrote
    /// (the warnings go when the buffer differs from it).
    syntax_written: dashmap::DashMap<String, u64>,
    /// The agent link's listener, while it runs.
    link: Mutex<Option<link::Listener>>,
}

/// The language server (cheap to clone into spawned tasks).
#[derive(Clone)]
pub struct Backend {
    inner: Arc<Inner>,
}

/// Which snapshot a run merges `~M` files against.
enum SnapshotFrom {
    /// The context the arguments name, else `default` when captured.
    Context,
    /// The snapshot an agent sent with its request (`None`: none).
    Given(Option<Arc<Snapshot>>),
}

/// What became of a plan sent (or not) to the editor.
enum Sent {
    /// The editor applied it.
    Applied,
    /// Nothing to send: the plan failed, asks for a preview only, or
    /// changes nothing.
    Skipped(String),
    /// Resolved changes were not applied: the plan went stale, the client
    /// cannot express it, or the editor declined or failed.
    Declined(String),
    /// Sent, and the editor did not answer in time: it may or may not have
    /// applied it.
    Unanswered(String),
}

impl Sent {
    /// (applied, failure reason), as `llm-edit.apply` reports it.
    fn applied_and_reason(self) -> (bool, Option<String>) {
        match self {
            Sent::Applied => (true, None),
            Sent::Skipped(r) | Sent::Declined(r) | Sent::Unanswered(r) => (false, Some(r)),
        }
    }
}

/// A planned run, stamped with the texts it saw.
struct Planned {
    payload: String,
    outcome: Outcome,
    files: BufferFiles,
    /// What it read of each file it changes.
    stamps: Vec<(WorkspacePath, Stamp)>,
    session: Session,
    /// The context snapshot the run used, and its id.
    snapshot: Option<Arc<Snapshot>>,
    context: String,
}

pub(super) fn invalid_params(message: impl Into<String>) -> Error {
    Error::invalid_params(message.into())
}

pub(super) fn request_failed(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(-32803),
        message: message.into().into(),
        data: None,
    }
}

impl Backend {
    /// A server talking to `client`.
    pub fn new(client: Client, config: ServeConfig) -> Backend {
        Backend {
            inner: Arc::new(Inner {
                client,
                config,
                docs: Arc::new(Documents::default()),
                session: RwLock::new(Session::default()),
                diagnostics: DiagnosticStore::default(),
                responses: dashmap::DashMap::new(),
                contexts: Contexts::default(),
                apply_locks: FileLocks::default(),
                syntax_written: dashmap::DashMap::new(),
                link: Mutex::new(None),
            }),
        }
    }

    pub(super) fn client(&self) -> &Client {
        &self.inner.client
    }

    pub(super) fn docs(&self) -> &Arc<Documents> {
        &self.inner.docs
    }

    pub(super) fn contexts(&self) -> &Contexts {
        &self.inner.contexts
    }

    pub(super) fn apply_locks(&self) -> &FileLocks {
        &self.inner.apply_locks
    }

    pub(super) fn config(&self) -> &ServeConfig {
        &self.inner.config
    }

    /// The workspace root, the position encoding and `showDocument`
    /// support.
    pub(super) fn workspace(
        &self,
    ) -> Result<(PathBuf, crate::lsp::position::PositionEncoding, bool)> {
        let session = self.session();
        let root = session.root.ok_or_else(|| {
            request_failed("no workspace root: open a folder (rootUri or workspaceFolders)")
        })?;
        Ok((root, session.features.encoding, session.show_document))
    }

    pub(super) fn features(&self) -> ClientFeatures {
        self.session().features
    }

    /// Whether `uri` was analyzed as an LLM response.
    pub(super) fn is_response(&self, uri: &str) -> bool {
        self.inner.responses.contains_key(uri)
    }

    fn session(&self) -> Session {
        self.inner
            .session
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Parses, resolves and plans on the blocking pool.
    async fn plan(&self, args: &RunArgs) -> Result<Planned> {
        self.plan_from(args, SnapshotFrom::Context).await
    }

    /// [`Backend::plan`], with the `~M` snapshot taken from `snapshot`.
    async fn plan_from(&self, args: &RunArgs, snapshot: SnapshotFrom) -> Result<Planned> {
        let session = self.session();
        let root = session.root.clone().ok_or_else(|| {
            request_failed("no workspace root: open a folder (rootUri or workspaceFolders)")
        })?;
        let mut settings = session.settings.clone();
        if let Some(options) = &args.options {
            settings = settings.merged(options).map_err(invalid_params)?;
        }
        settings.options.format = args.format().map_err(invalid_params)?;
        let payload = match (&args.payload, &args.uri) {
            (Some(payload), None) => payload.clone(),
            (None, Some(uri)) => self
                .inner
                .docs
                .get(uri)
                .map(|d| String::from(&d.rope))
                .ok_or_else(|| invalid_params(format!("document {uri} is not open")))?,
            _ => return Err(invalid_params("give exactly one of `payload` and `uri`")),
        };
        let context = args
            .context
            .clone()
            .unwrap_or_else(|| crate::lsp::context::DEFAULT_ID.to_owned());
        if let Some(uri) = &args.uri {
            self.inner.contexts.set_response_context(uri, &context);
        }
        let snapshot = match snapshot {
            SnapshotFrom::Context => self
                .inner
                .contexts
                .for_run(&root, args.context.as_deref())
                .map_err(request_failed)?,
            SnapshotFrom::Given(snapshot) => snapshot,
        };
        let docs = self.inner.docs.clone();
        let only = args.edits.clone();
        let options = settings.options.clone();
        let task_payload = payload.clone();
        let task_snapshot = snapshot.clone();
        let (outcome, files, stamps) = tokio::task::spawn_blocking(move || {
            let files = BufferFiles::new(&root, docs)
                .map_err(|e| {
                    request_failed(format!(
                        "cannot read the workspace root {}: {e}",
                        root.display()
                    ))
                })?
                .with_snapshot(task_snapshot);
            let outcome = run_engine(&task_payload, &options, &files, only.as_deref());
            let stamps = files.stamps(&outcome.files);
            Ok::<_, Error>((outcome, files, stamps))
        })
        .await
        .map_err(|e| request_failed(format!("the edit engine failed: {e}")))??;
        if let Some(hook) = &self.inner.config.after_plan {
            hook().await;
        }
        let session = Session {
            settings,
            ..session
        };
        Ok(Planned {
            payload,
            outcome,
            files,
            stamps,
            session,
            snapshot,
            context,
        })
    }

    fn edit_context<'a>(
        &'a self,
        planned: &'a Planned,
        root: &'a std::path::Path,
    ) -> EditContext<'a> {
        EditContext {
            features: &planned.session.features,
            root,
            docs: &self.inner.docs,
            batch: &planned.outcome.batch,
            confirm: planned.session.settings.confirm,
        }
    }

    /// Publishes the failures of a run on their target files.
    async fn publish_run_diagnostics(&self, planned: &Planned) {
        let root = planned.files.root_path();
        let encoding = planned.session.features.encoding;
        let resolvable = self.record_conflicts(planned).await;
        for (path, mut errors) in proto::errors_by_path(&planned.outcome.errors) {
            let Ok(path) = WorkspacePath::new(&root, path) else {
                continue;
            };
            if resolvable.contains(&path) {
                errors.retain(|e| e.kind != ErrorKind::Conflict);
            }
            let Some(uri) = proto::file_uri(&root, &path, &self.inner.docs) else {
                continue;
            };
            let text = planned.files.loaded(&path);
            let diags = proto::file_diagnostics(
                &uri,
                &errors,
                text.as_ref().map(|t| t.text.as_str()),
                encoding,
            );
            self.publish(&uri, Origin::Run, diags).await;
        }
    }

    /// Keeps the resolvable `~M` conflicts of a run and publishes their
    /// diagnostics; returns their files.
    async fn record_conflicts(&self, planned: &Planned) -> Vec<WorkspacePath> {
        let root = planned.files.root_path();
        let run = ConflictRun {
            payload: &planned.payload,
            options: &planned.session.settings.options,
            files: &planned.files,
            snapshot: planned.snapshot.as_deref(),
            errors: &planned.outcome.errors,
        };
        let docs = &self.inner.docs;
        let recorded = self.inner.contexts.record_conflicts(&run, |path| {
            proto::file_uri(&root, path, docs).map(|u| u.as_str().to_owned())
        });
        for (uri, _) in &recorded {
            self.refresh_conflicts(uri).await;
        }
        recorded.into_iter().map(|(_, path)| path).collect()
    }

    pub(super) async fn publish(
        &self,
        uri: &Uri,
        origin: Origin,
        diags: Vec<tower_lsp_server::ls_types::Diagnostic>,
    ) {
        if let Some(all) = self.inner.diagnostics.set(uri.as_str(), origin, diags) {
            self.inner
                .client
                .publish_diagnostics(uri.clone(), all, None)
                .await;
        }
    }

    /// With a context snapshot, the files the payload edits count as
    /// LLM-edited for `llm-edit.status` until an apply succeeds.
    fn mark_pending(&self, planned: &Planned) {
        if planned.snapshot.is_some() {
            let edited =
                crate::lsp::context::llm_edited(&planned.files.root_path(), &planned.payload);
            self.inner.contexts.set_pending(&planned.context, edited);
            self.schedule_refresh();
        }
    }

    async fn preview(&self, args: RunArgs) -> Result<Value> {
        let planned = self.plan(&args).await?;
        self.publish_run_diagnostics(&planned).await;
        self.mark_pending(&planned);
        let outcome = &planned.outcome;
        let edit = if outcome.applicable(&planned.session.settings.options)
            && !outcome.files.is_empty()
        {
            let root = planned.files.root_path();
            let edit = proto::workspace_edit(&outcome.files, &self.edit_context(&planned, &root))
                .map_err(|e| request_failed(e.0))?;
            serde_json::to_value(edit).unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        to_json(&PreviewResult {
            edit,
            files: commands::file_entries(outcome),
            errors: outcome.errors.clone(),
            warnings: outcome.warnings.clone(),
        })
    }

    async fn apply(&self, args: RunArgs) -> Result<Value> {
        let planned = self.plan(&args).await?;
        self.publish_run_diagnostics(&planned).await;
        let root = planned.files.root_path();
        let paths = planned.stamps.iter().map(|(path, _)| path.under(&root));
        let _held = self.inner.apply_locks.lock(paths).await;
        let (applied, reason) = self
            .send_plan(&planned, "Apply LLM edits")
            .await
            .applied_and_reason();
        let message = match (&reason, applied) {
            (Some(reason), _) => (MessageType::ERROR, reason.clone()),
            (None, _) if planned.outcome.errors.is_empty() => (
                MessageType::INFO,
                commands::success_summary(&planned.outcome),
            ),
            (None, _) => (
                MessageType::WARNING,
                format!(
                    "{}; {}",
                    commands::success_summary(&planned.outcome),
                    commands::failure_summary(&planned.outcome)
                ),
            ),
        };
        self.inner.client.show_message(message.0, message.1).await;
        if applied {
            self.clear_applied(&planned).await;
            self.publish_syntax_warnings(&planned).await;
            self.inner.contexts.clear_pending(&planned.context);
        } else {
            // A refused apply leaves the LLM's edits pending, as a preview
            // does: a file the user also changed shows `~M`.
            self.mark_pending(&planned);
        }
        self.schedule_refresh();
        to_json(&ApplyResult {
            applied,
            failure_reason: reason,
            files: commands::file_entries(&planned.outcome),
            errors: planned.outcome.errors.clone(),
            warnings: planned.outcome.warnings.clone(),
        })
    }

    /// Sends a plan with `workspace/applyEdit` (labelled `label`) unless
    /// it failed or went stale.
    async fn send_plan(&self, planned: &Planned, label: &str) -> Sent {
        let outcome = &planned.outcome;
        let options = &planned.session.settings.options;
        if !outcome.applicable(options) {
            return Sent::Skipped(commands::failure_summary(outcome));
        }
        if outcome.batch.preview {
            return Sent::Skipped(
                "the payload asks for a preview only (dryRun); nothing was applied".into(),
            );
        }
        if outcome.files.is_empty() {
            return Sent::Skipped("the payload changes nothing; nothing was applied".into());
        }
        let root = planned.files.root_path();
        let edit = match proto::workspace_edit(&outcome.files, &self.edit_context(planned, &root)) {
            Ok(edit) => edit,
            Err(unsupported) => return Sent::Declined(unsupported.0),
        };
        // No `.await` between this check and the send below.
        let stale = stale_files(&planned.stamps, planned.files.disk(), &self.inner.docs);
        if !stale.is_empty() {
            let names: Vec<String> = stale.iter().map(ToString::to_string).collect();
            return Sent::Declined(format!(
                "{} changed while the edits were planned; nothing was applied, run the command again",
                names.join(", ")
            ));
        }
        let params = ApplyWorkspaceEditParams {
            label: Some(label.into()),
            edit,
        };
        let request = self.inner.client.send_request::<ApplyWorkspaceEdit>(params);
        match tokio::time::timeout(self.inner.config.apply_timeout, request).await {
            Ok(Ok(response)) if response.applied => Sent::Applied,
            Ok(Ok(response)) => Sent::Declined(format!(
                "the editor did not apply the edits: {}",
                response.failure_reason.unwrap_or_else(|| "no reason given".into())
            )),
            Ok(Err(e)) => Sent::Declined(format!("workspace/applyEdit failed: {}", e.message)),
            Err(_) => Sent::Unanswered(format!(
                "the editor did not answer workspace/applyEdit within {} s; the edits may or may not be applied",
                self.inner.config.apply_timeout.as_secs_f32()
            )),
        }
    }

    /// Runs an agent's request from the link ([`crate::agent::link`]) the
    /// way `llm-edit.preview` (`dryRun`) or `llm-edit.apply` runs a
    /// payload: planned against the open buffers (disk for the others),
    /// `~M` files merged against the request's snapshot, sent to the
    /// editor as one `workspace/applyEdit`. Answers with the
    /// [`AgentOutcome`] (route `editor`).
    pub(super) async fn agent_request(
        &self,
        request: LinkRequest,
    ) -> std::result::Result<Value, LinkFailure> {
        let failed = |e: Error| LinkFailure::refused(e.message.into_owned());
        let (root, ..) = self.workspace().map_err(failed)?;
        let mut snapshot = Vec::with_capacity(request.snapshot.len());
        for (path, text) in &request.snapshot {
            let path = WorkspacePath::new(&root, path).map_err(|e| {
                LinkFailure::refused(format!("snapshot path {path:?} cannot be used: {e:?}"))
            })?;
            snapshot.push((path, SnapshotEntry::new(text.as_str())));
        }
        let snapshot = (!snapshot.is_empty()).then(|| Arc::new(snapshot.into_iter().collect()));
        // All or nothing unless the agent asks: the editor's own
        // `partial` setting is for its user's commands.
        let mut options = json!({"partial": request.partial});
        if let Some(policy) = &request.on_conflict {
            options["onConflict"] = json!(policy);
        }
        let voice = request.voice;
        let args = RunArgs {
            payload: Some(request.payload),
            format: request.format,
            options: Some(options),
            ..RunArgs::default()
        };
        let planned = self
            .plan_from(&args, SnapshotFrom::Given(snapshot))
            .await
            .map_err(failed)?;
        self.publish_run_diagnostics(&planned).await;
        let outcome = &planned.outcome;
        let options = &planned.session.settings.options;
        let dry_run = request.dry_run || outcome.batch.preview;
        let sent = if request.dry_run {
            Sent::Skipped("a dry run".into())
        } else {
            let root = planned.files.root_path();
            let paths = planned.stamps.iter().map(|(path, _)| path.under(&root));
            let _held = self.inner.apply_locks.lock(paths).await;
            self.send_plan(&planned, "Agent edit").await
        };
        let (applied, reason) = match sent {
            Sent::Applied => (true, None),
            Sent::Skipped(_) => (false, None),
            Sent::Declined(reason) => (false, Some(reason)),
            Sent::Unanswered(reason) => {
                self.inner
                    .client
                    .show_message(MessageType::WARNING, format!("Agent edit: {reason}"))
                    .await;
                self.mark_pending(&planned);
                self.schedule_refresh();
                return Err(LinkFailure {
                    error: reason,
                    maybe_applied: true,
                });
            }
        };
        let result = AgentOutcome::new(
            &planned.payload,
            &voice,
            outcome,
            options,
            Delivery {
                route: Route::Editor,
                dry_run,
                applied,
                failure_reason: reason,
            },
        );
        let shown = agent_message(&result);
        if dry_run {
            self.inner
                .client
                .log_message(MessageType::INFO, shown)
                .await;
        } else {
            let level = if applied && outcome.errors.is_empty() {
                MessageType::INFO
            } else if applied {
                MessageType::WARNING
            } else {
                MessageType::ERROR
            };
            self.inner.client.show_message(level, shown).await;
        }
        if applied {
            self.clear_applied(&planned).await;
            self.publish_syntax_warnings(&planned).await;
            self.inner.contexts.clear_pending(&planned.context);
        } else {
            self.mark_pending(&planned);
        }
        self.schedule_refresh();
        serde_json::to_value(&result)
            .map_err(|e| LinkFailure::refused(format!("cannot serialize the outcome: {e}")))
    }

    /// Starts the agent link for the workspace root (when there is one);
    /// when it cannot start, says why in the log and works on without it.
    async fn start_link(&self) {
        let Some(root) = self.session().root else {
            return;
        };
        match link::start(self.clone(), &root) {
            Ok(listener) => {
                tracing::info!(root = %root.display(), "agent link listening");
                let old = self
                    .inner
                    .link
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .replace(listener);
                drop(old);
            }
            Err(reason) => {
                tracing::warn!(%reason, "the agent link is off");
                self.inner
                    .client
                    .log_message(
                        MessageType::WARNING,
                        format!("llm-edit: the agent link is off: {reason}"),
                    )
                    .await;
            }
        }
    }

    /// Stops the agent link (its socket file is removed while still ours).
    pub fn stop_link(&self) {
        let listener = self
            .inner
            .link
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(listener) = listener {
            listener.stop();
        }
    }

    /// Publishes a warning diagnostic on each applied file the edits left
    /// with a new parse error, where the error is in the written text.
    async fn publish_syntax_warnings(&self, planned: &Planned) {
        let root = planned.files.root_path();
        let encoding = self.session().features.encoding;
        for w in &planned.outcome.warnings {
            let written = planned
                .outcome
                .files
                .iter()
                .find(|f| f.path.as_str() == w.path)
                .and_then(|f| f.after().map(|t| (&f.path, t)));
            let Some((path, text)) = written else {
                continue;
            };
            let Some(uri) = proto::file_uri(&root, path, &self.inner.docs) else {
                continue;
            };
            let diag = proto::syntax_diagnostic(w, text, encoding);
            self.inner.syntax_written.insert(
                uri.as_str().to_owned(),
                xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
            );
            self.publish(&uri, Origin::Syntax, vec![diag]).await;
        }
    }

    /// Drops the syntax warnings of `uri` once its buffer differs from the
    /// text the apply wrote (the user is editing it).
    async fn expire_syntax_warnings(&self, uri: &str) {
        let Some(written) = self.inner.syntax_written.get(uri).map(|h| *h) else {
            return;
        };
        let now = self.inner.docs.get(uri).map(|d| d.hash());
        if now == Some(written) {
            return;
        }
        self.inner.syntax_written.remove(uri);
        if let Some(parsed) = proto::parse_uri(uri) {
            self.publish(&parsed, Origin::Syntax, Vec::new()).await;
        }
    }

    /// Clears the run diagnostics of the files an apply changed.
    async fn clear_applied(&self, planned: &Planned) {
        let root = planned.files.root_path();
        for change in &planned.outcome.files {
            for path in [Some(&change.path), change.from.as_ref()]
                .into_iter()
                .flatten()
            {
                if let Some(uri) = proto::file_uri(&root, path, &self.inner.docs) {
                    self.publish(&uri, Origin::Run, Vec::new()).await;
                    self.inner.contexts.forget_conflicts(uri.as_str());
                    self.publish(&uri, Origin::Conflict, Vec::new()).await;
                }
            }
        }
    }

    async fn retry(&self, args: RunArgs) -> Result<Value> {
        let show = args.show;
        let planned = self.plan(&args).await?;
        let partial = planned.session.settings.options.partial;
        let prompt = retry_prompt(&planned.payload, &planned.outcome, partial);
        if show {
            let text = prompt
                .clone()
                .unwrap_or_else(|| "Every LLM edit applies; nothing to retry.".into());
            self.inner
                .client
                .show_message(MessageType::INFO, text)
                .await;
        }
        to_json(&RetryPromptResult { prompt })
    }

    async fn dismiss(&self, args: UriArgs) -> Result<Value> {
        let uris = match args.uri {
            Some(uri) => vec![uri],
            None => {
                let mut all = self.inner.diagnostics.uris_with(&Origin::Run);
                all.extend(self.inner.diagnostics.uris_with(&Origin::Response));
                all
            }
        };
        for uri in uris {
            self.inner.contexts.forget_conflicts(&uri);
            if self.inner.diagnostics.clear(&uri) {
                if let Some(parsed) = proto::parse_uri(&uri) {
                    self.inner
                        .client
                        .publish_diagnostics(parsed, Vec::new(), None)
                        .await;
                }
            }
        }
        Ok(Value::Null)
    }

    /// Analyzes a response document: dry-runs its edits, publishes a
    /// diagnostic on each failing block. `truncated` errors are held back
    /// while the document still grows, unless `explicit`.
    async fn check_response(&self, uri: &str, explicit: bool) {
        let Some(doc) = self.inner.docs.get(uri) else {
            return;
        };
        let session = self.session();
        let Some(root) = session.root.clone() else {
            return;
        };
        let text = String::from(&doc.rope);
        let docs = self.inner.docs.clone();
        let context = self.inner.contexts.response_context(uri);
        let snapshot = self.inner.contexts.snapshot(&root, &context).ok().flatten();
        // `partial`: the edits that resolve keep their changes, for the lenses.
        let options = engine::Options {
            partial: true,
            ..session.settings.options.clone()
        };
        let task_text = text.clone();
        let analysis = tokio::task::spawn_blocking(move || {
            let parsed = parse::parse(&task_text, options.format);
            if parsed.batch.edits.is_empty() {
                return None;
            }
            let files = BufferFiles::new(&root, docs).ok()?.with_snapshot(snapshot);
            let outcome = engine::plan_batch(
                parsed.batch,
                parsed.errors,
                parsed.formats,
                &options,
                &files,
            );
            let lenses = lens::block_lenses(&outcome, &files, &options);
            Some((outcome, lenses))
        })
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(uri, error = %e, "the edit engine failed on a response document");
            None
        });
        let Some(parsed_uri) = proto::parse_uri(uri) else {
            return;
        };
        let Some((outcome, lenses)) = analysis else {
            if self.inner.responses.remove(uri).is_some() {
                self.publish(&parsed_uri, Origin::Response, Vec::new())
                    .await;
            }
            return;
        };
        let growing = doc.changed_at.elapsed() < self.inner.config.response_quiet;
        let shown: Vec<&EditError> = outcome
            .errors
            .iter()
            .filter(|e| explicit || !growing || e.kind != ErrorKind::Truncated)
            .collect();
        let diags = proto::response_diagnostics(&shown, &text, session.features.encoding);
        let edits = outcome
            .batch
            .edits
            .iter()
            .map(|e| {
                (
                    e.index,
                    (e.source.first_line, e.source.last_line),
                    e.path.clone(),
                )
            })
            .collect();
        self.inner.responses.insert(
            uri.to_owned(),
            Response {
                edits,
                errors: outcome.errors.clone(),
                lenses,
            },
        );
        self.publish(&parsed_uri, Origin::Response, diags).await;
    }

    /// Checks a response after it stopped changing for the debounce time,
    /// and once more when it has been quiet long enough to report
    /// `truncated`.
    fn schedule_response_check(&self, uri: String, version: i32) {
        let this = self.clone();
        tokio::spawn(async move {
            let config = &this.inner.config;
            tokio::time::sleep(config.response_debounce).await;
            if this.inner.docs.get(&uri).map(|d| d.version) != Some(version) {
                return;
            }
            this.check_response(&uri, false).await;
            let waited = config
                .response_quiet
                .saturating_sub(config.response_debounce);
            tokio::time::sleep(waited).await;
            if this.inner.docs.get(&uri).map(|d| d.version) == Some(version) {
                this.check_response(&uri, false).await;
            }
        });
    }

    fn code_actions(&self, uri: &str, first: usize, last: usize) -> Vec<CodeActionOrCommand> {
        let mut actions = Vec::new();
        self.push_conflict_actions(uri, first, last, &mut actions);
        let action = |title: String, kind: CodeActionKind, command: &str, arg: Value| {
            CodeActionOrCommand::CodeAction(CodeAction {
                title: title.clone(),
                kind: Some(kind),
                command: Some(Command::new(title, command.to_owned(), Some(vec![arg]))),
                ..CodeAction::default()
            })
        };
        if let Some(response) = self.inner.responses.get(uri) {
            let n = response.edits.len();
            if n > 0 {
                actions.push(action(
                    if n == 1 {
                        "Apply the LLM edit".to_owned()
                    } else {
                        format!("Apply all {n} LLM edits")
                    },
                    CodeActionKind::SOURCE,
                    commands::APPLY,
                    json!({"uri": uri}),
                ));
            }
            for (index, (from, to), path) in &response.edits {
                if *from <= last && first <= *to {
                    actions.push(action(
                        format!("Apply this edit (edit {index} to {path})"),
                        CodeActionKind::QUICKFIX,
                        commands::APPLY,
                        json!({"uri": uri, "edits": [index]}),
                    ));
                }
            }
            if !response.errors.is_empty() {
                actions.push(action(
                    "Copy retry prompt".into(),
                    CodeActionKind::QUICKFIX,
                    commands::RETRY_PROMPT,
                    json!({"uri": uri, "show": true}),
                ));
            }
        }
        if !self.inner.diagnostics.all(uri).is_empty() {
            actions.push(action(
                "Dismiss LLM edit diagnostics".into(),
                CodeActionKind::QUICKFIX,
                commands::DISMISS_DIAGNOSTICS,
                json!({"uri": uri}),
            ));
        }
        actions
    }
}

/// What the user is shown of an agent's edit: "Agent edit (src/a.py):
/// Applied 2 edits to 1 file." (at most three files named).
fn agent_message(result: &AgentOutcome) -> String {
    let mut names: Vec<&str> = result
        .files
        .iter()
        .map(|f| f.path.as_str())
        .take(3)
        .collect();
    if result.files.len() > 3 {
        names.push("…");
    }
    if names.is_empty() {
        format!("Agent edit: {}", result.summary)
    } else {
        format!("Agent edit ({}): {}", names.join(", "), result.summary)
    }
}

/// Runs the engine on a payload, or on some of its edits.
fn run_engine(
    payload: &str,
    options: &engine::Options,
    files: &BufferFiles,
    only: Option<&[usize]>,
) -> Outcome {
    let Some(only) = only else {
        return engine::run(payload, options, files);
    };
    let wanted: BTreeSet<usize> = only.iter().copied().collect();
    let mut parsed = parse::parse(payload, options.format);
    parsed.batch.edits.retain(|e| wanted.contains(&e.index));
    parsed
        .errors
        .retain(|e| e.edit.is_some_and(|i| wanted.contains(&i)));
    engine::plan_batch(parsed.batch, parsed.errors, parsed.formats, options, files)
}

pub(super) fn to_json<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value)
        .map_err(|e| request_failed(format!("cannot serialize the result: {e}")))
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let features = ClientFeatures::from_capabilities(&params.capabilities);
        let root = proto::workspace_root(&params);
        let settings = match &params.initialization_options {
            Some(options) => Settings::default()
                .merged(options)
                .map_err(invalid_params)?,
            None => Settings::default(),
        };
        let show_document = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.show_document.as_ref())
            .is_some_and(|s| s.support);
        tracing::info!(?root, encoding = features.encoding.name(), "initialize");
        let encoding = features.encoding;
        *self
            .inner
            .session
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Session {
            root,
            features,
            settings,
            show_document,
        };
        let mut capabilities = proto::server_capabilities(encoding, &commands::ALL);
        lens::advertise(&mut capabilities);
        Ok(InitializeResult {
            capabilities,
            server_info: Some(ServerInfo {
                name: env!("CARGO_PKG_NAME").into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        tracing::debug!("initialized");
        self.start_link().await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.stop_link();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let uri = doc.uri.as_str().to_owned();
        self.inner
            .docs
            .open(&uri, proto::uri_path(&doc.uri), doc.version, &doc.text);
        self.expire_syntax_warnings(&uri).await;
        let this = self.clone();
        tokio::spawn(async move { this.check_response(&uri, true).await });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before any `.await`: later requests see this change.
        let uri = params.text_document.uri.as_str().to_owned();
        let version = params.text_document.version;
        let encoding = self.session().features.encoding;
        let changes = proto::content_changes(params.content_changes);
        if self
            .inner
            .docs
            .change(&uri, version, &changes, encoding)
            .is_err()
        {
            tracing::warn!(uri, "didChange for a document that is not open");
            return;
        }
        self.expire_syntax_warnings(&uri).await;
        self.schedule_response_check(uri, version);
        self.schedule_refresh();
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.check_response(params.text_document.uri.as_str(), true)
            .await;
        self.schedule_refresh();
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.inner.docs.close(uri.as_str());
        if self.inner.responses.remove(uri.as_str()).is_some() {
            self.publish(&uri, Origin::Response, Vec::new()).await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let merged = self.session().settings.merged(&params.settings);
        match merged {
            Ok(settings) => {
                self.inner
                    .session
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .settings = settings;
            }
            Err(e) => {
                tracing::warn!(error = e, "bad configuration");
                self.inner
                    .client
                    .show_message(
                        MessageType::ERROR,
                        format!("llm-edit: {e}; settings unchanged"),
                    )
                    .await;
            }
        }
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let range = params.range;
        let first = range.start.line as usize + 1;
        let last = range.end.line as usize + 1;
        let actions = self.code_actions(params.text_document.uri.as_str(), first, last);
        Ok((!actions.is_empty()).then_some(actions))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let Some(response) = self.inner.responses.get(uri.as_str()) else {
            return Ok(None);
        };
        let Some(doc) = self.inner.docs.get(uri.as_str()) else {
            return Ok(None);
        };
        let encoding = self.session().features.encoding;
        let text = String::from(&doc.rope);
        Ok(Some(lens::code_lenses(&response.lenses, &text, encoding)))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        let started = Instant::now();
        let name = params.command.as_str();
        let arguments = params.arguments;
        let result = match name {
            commands::PREVIEW => {
                self.preview(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            commands::APPLY => {
                self.apply(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            commands::RETRY_PROMPT => {
                self.retry(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            commands::PROMPT_KIT => {
                let args = commands::single_arg(name, arguments).map_err(invalid_params)?;
                to_json(&commands::prompt_kit(&args).map_err(invalid_params)?)
            }
            commands::CHECK_RESPONSE => {
                let args: UriArgs =
                    commands::single_arg(name, arguments).map_err(invalid_params)?;
                let uri = args
                    .uri
                    .ok_or_else(|| invalid_params("llm-edit.checkResponse needs `uri`"))?;
                self.check_response(&uri, true).await;
                Ok(Value::Null)
            }
            commands::DISMISS_DIAGNOSTICS => {
                self.dismiss(commands::single_arg(name, arguments).map_err(invalid_params)?)
                    .await
            }
            commands::CAPTURE_CONTEXT
            | commands::RELEASE_CONTEXT
            | commands::STATUS
            | commands::RESOLVE_CONFLICT => self.context_command(name, arguments).await,
            other => Err(invalid_params(format!(
                "unknown command `{other}`; this server runs {}",
                commands::ALL.join(", ")
            ))),
        };
        tracing::debug!(command = name, elapsed = ?started.elapsed(), ok = result.is_ok(), "executeCommand");
        result.map(Some)
    }
}
