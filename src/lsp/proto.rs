//! Every conversion between the engine's types and the protocol's
//! (`tower_lsp_server::ls_types`). When the protocol crate changes its
//! types (0.24 does, wholesale), this is the module to rewrite.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use tower_lsp_server::ls_types::{
    AnnotatedTextEdit, ChangeAnnotation, ClientCapabilities, CodeActionKind, CodeActionOptions,
    CodeActionProviderCapability, CreateFile, CreateFileOptions, DeleteFile, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentChangeOperation, DocumentChanges,
    ExecuteCommandOptions, InitializeParams, Location, NumberOrString, OneOf,
    OptionalVersionedTextDocumentIdentifier, Position, PositionEncodingKind, Range, RenameFile,
    ResourceOp, ResourceOperationKind, SaveOptions, ServerCapabilities,
    TextDocumentContentChangeEvent, TextDocumentEdit, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Uri,
    WorkspaceEdit,
};

use crate::engine::{FileChange, FileStatus};
use crate::error::{EditError, ErrorKind, LineRange};
use crate::lsp::documents::{ContentChange, Documents};
use crate::lsp::position::{
    rope_position, ForwardPositions, LineCol, LineStarts, PositionEncoding,
};
use crate::model::EditBatch;
use crate::workspace::WorkspacePath;

/// The diagnostics' `source`.
pub const DIAGNOSTIC_SOURCE: &str = "llm-edit";

/// What the client can do, read once from `initialize`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientFeatures {
    /// The negotiated position encoding.
    pub encoding: PositionEncoding,
    /// `workspace.workspaceEdit.documentChanges`.
    pub document_changes: bool,
    /// `workspace.workspaceEdit.resourceOperations` has `create`.
    pub create: bool,
    /// ... has `rename`.
    pub rename: bool,
    /// ... has `delete`.
    pub delete: bool,
    /// `workspace.workspaceEdit.changeAnnotationSupport`.
    pub change_annotations: bool,
}

impl ClientFeatures {
    /// Reads the capabilities that matter here.
    pub fn from_capabilities(caps: &ClientCapabilities) -> ClientFeatures {
        let offered = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .map(|list| {
                list.iter()
                    .map(PositionEncodingKind::as_str)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let edit_caps = caps
            .workspace
            .as_ref()
            .and_then(|w| w.workspace_edit.as_ref());
        let ops = edit_caps
            .and_then(|e| e.resource_operations.clone())
            .unwrap_or_default();
        ClientFeatures {
            encoding: PositionEncoding::negotiate(offered),
            document_changes: edit_caps.and_then(|e| e.document_changes) == Some(true),
            create: ops.contains(&ResourceOperationKind::Create),
            rename: ops.contains(&ResourceOperationKind::Rename),
            delete: ops.contains(&ResourceOperationKind::Delete),
            change_annotations: edit_caps.is_some_and(|e| e.change_annotation_support.is_some()),
        }
    }
}

/// The workspace root: the first workspace folder, else `rootUri`, else
/// the older `rootPath` (Helix outside a repository sends only that),
/// canonicalized once (`realpath`).
pub fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri);
    #[allow(deprecated)]
    let path = match folder.or(params.root_uri.as_ref()) {
        Some(uri) => uri.to_file_path()?.into_owned(),
        None => {
            let path = PathBuf::from(params.root_path.as_deref()?);
            if !path.is_absolute() {
                return None;
            }
            path
        }
    };
    Some(path.canonicalize().unwrap_or(path))
}

/// The server's capabilities, advertising `commands`.
pub fn server_capabilities(encoding: PositionEncoding, commands: &[&str]) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::new(encoding.name())),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: commands.iter().map(|c| (*c).to_owned()).collect(),
            ..ExecuteCommandOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::SOURCE]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// The file path of a `file:` URI, in the one form every path of the
/// server is compared in: its folder canonicalized (`realpath`, like the
/// root), its own name kept (a document opened through an in-root symlink
/// stays that document).
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let path = uri.to_file_path()?.into_owned();
    let canonical = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => parent.canonicalize().ok().map(|p| p.join(name)),
        _ => None,
    };
    Some(canonical.unwrap_or(path))
}

/// Parses a URI string.
pub fn parse_uri(uri: &str) -> Option<Uri> {
    Uri::from_str(uri).ok()
}

/// The URI of a workspace file: the open document's URI when there is one
/// (so the client recognizes it), else a `file:` URI.
pub fn file_uri(root: &Path, path: &WorkspacePath, docs: &Documents) -> Option<Uri> {
    let absolute = path.under(root);
    if let Some((uri, _)) = docs.find_by_path(&absolute) {
        return parse_uri(&uri);
    }
    Uri::from_file_path(absolute)
}

/// Protocol position → neutral.
pub fn line_col(pos: Position) -> LineCol {
    LineCol::new(pos.line, pos.character)
}

/// Neutral position → protocol.
pub fn position(pos: LineCol) -> Position {
    Position::new(pos.line, pos.character)
}

/// `didChange` content changes → neutral.
pub fn content_changes(events: Vec<TextDocumentContentChangeEvent>) -> Vec<ContentChange> {
    events
        .into_iter()
        .map(|e| ContentChange {
            range: e.range.map(|r| (line_col(r.start), line_col(r.end))),
            text: e.text,
        })
        .collect()
}

/// Positions over one text, in one encoding.
pub struct TextPositions<'t> {
    text: &'t str,
    lines: LineStarts,
    encoding: PositionEncoding,
}

impl<'t> TextPositions<'t> {
    /// Indexes `text`.
    pub fn new(text: &'t str, encoding: PositionEncoding) -> TextPositions<'t> {
        TextPositions {
            text,
            lines: LineStarts::new(text),
            encoding,
        }
    }

    /// A byte range → protocol range.
    pub fn range(&self, bytes: &std::ops::Range<usize>) -> Range {
        Range::new(
            position(self.lines.position(self.text, bytes.start, self.encoding)),
            position(self.lines.position(self.text, bytes.end, self.encoding)),
        )
    }

    /// 1-based inclusive lines → a range from the first line's start to
    /// the last line's end (terminator excluded).
    pub fn lines(&self, lines: LineRange) -> Range {
        let first = lines.first.saturating_sub(1);
        let last = lines.last.saturating_sub(1).max(first);
        let start = self.lines.start(first).unwrap_or(self.text.len());
        Range::new(
            position(self.lines.position(self.text, start, self.encoding)),
            position(self.lines.line_end(self.text, last, self.encoding)),
        )
    }
}

/// A plan's files cannot be expressed for this client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// What [`workspace_edit`] needs besides the plan.
pub struct EditContext<'a> {
    /// Client capabilities.
    pub features: &'a ClientFeatures,
    /// Workspace root.
    pub root: &'a Path,
    /// Open documents (for URIs).
    pub docs: &'a Documents,
    /// The parsed payload (for annotation labels).
    pub batch: &'a EditBatch,
    /// Ask for confirmation of every change.
    pub confirm: bool,
}

/// Builds the `WorkspaceEdit` of a plan: versioned `documentChanges` (with
/// resource operations and change annotations when the client has them),
/// else plain `changes`.
pub fn workspace_edit(
    changes: &[FileChange],
    ctx: &EditContext<'_>,
) -> Result<WorkspaceEdit, Unsupported> {
    check_supported(changes, ctx.features)?;
    let mut edit = WorkspaceEdit::default();
    if !ctx.features.document_changes {
        let mut map = HashMap::new();
        for change in changes {
            let uri = uri_or_err(ctx, &change.path)?;
            let edits = text_edits(change, ctx);
            map.insert(uri, edits);
        }
        edit.changes = Some(map);
        return Ok(edit);
    }
    let annotate = ctx.features.change_annotations;
    let mut annotations = HashMap::new();
    let mut ops = Vec::new();
    for change in changes {
        let annotation = annotate.then(|| {
            let (id, note) = annotation(change, ctx);
            annotations.insert(id.clone(), note);
            id
        });
        push_operations(&mut ops, change, ctx, annotation)?;
    }
    let only_edits = ops
        .iter()
        .all(|op| matches!(op, DocumentChangeOperation::Edit(_)));
    edit.document_changes = Some(if only_edits {
        DocumentChanges::Edits(
            ops.into_iter()
                .filter_map(|op| match op {
                    DocumentChangeOperation::Edit(e) => Some(e),
                    DocumentChangeOperation::Op(_) => None,
                })
                .collect(),
        )
    } else {
        DocumentChanges::Operations(ops)
    });
    if annotate {
        edit.change_annotations = Some(annotations);
    }
    Ok(edit)
}

fn check_supported(changes: &[FileChange], features: &ClientFeatures) -> Result<(), Unsupported> {
    for change in changes {
        let (able, what) = match change.status {
            FileStatus::Added => (features.create, "create"),
            FileStatus::Deleted => (features.delete, "delete"),
            FileStatus::Renamed => (features.rename, "rename"),
            FileStatus::Modified | FileStatus::Merged => continue,
        };
        if !(features.document_changes && able) {
            return Err(Unsupported(format!(
                "the editor cannot {what} files through a workspace edit (its \
                 workspace.workspaceEdit capabilities lack documentChanges/resourceOperations \
                 `{what}`), so `{}` was not changed; nothing was applied",
                change.path
            )));
        }
    }
    Ok(())
}

fn uri_or_err(ctx: &EditContext<'_>, path: &WorkspacePath) -> Result<Uri, Unsupported> {
    file_uri(ctx.root, path, ctx.docs)
        .ok_or_else(|| Unsupported(format!("`{path}` has no file URI")))
}

/// The change annotation of one file change: its LLM edits and format.
fn annotation(change: &FileChange, ctx: &EditContext<'_>) -> (String, ChangeAnnotation) {
    let indices = &change.edit_indices;
    let formats: Vec<&str> = indices
        .iter()
        .filter_map(|i| ctx.batch.edits.iter().find(|e| e.index == *i))
        .map(|e| e.format.name())
        .fold(Vec::new(), |mut acc, f| {
            if !acc.contains(&f) {
                acc.push(f);
            }
            acc
        });
    let list: Vec<String> = indices.iter().map(ToString::to_string).collect();
    let noun = if indices.len() == 1 { "edit" } else { "edits" };
    let label = format!("{noun} {}: {}", list.join(", "), formats.join(", "));
    let id = format!("{}:{}", change.path, list.join(","));
    let note = ChangeAnnotation {
        label,
        needs_confirmation: ctx.confirm.then_some(true),
        description: Some(format!("{} {}", change.status.code(), change.path)),
    };
    (id, note)
}

fn push_operations(
    ops: &mut Vec<DocumentChangeOperation>,
    change: &FileChange,
    ctx: &EditContext<'_>,
    annotation: Option<String>,
) -> Result<(), Unsupported> {
    let uri = uri_or_err(ctx, &change.path)?;
    match change.status {
        FileStatus::Added => {
            ops.push(DocumentChangeOperation::Op(ResourceOp::Create(
                CreateFile {
                    uri: uri.clone(),
                    options: Some(CreateFileOptions {
                        overwrite: None,
                        ignore_if_exists: Some(true),
                    }),
                    annotation_id: annotation.clone(),
                },
            )));
            let content = change.after().unwrap_or_default().to_owned();
            if !content.is_empty() {
                let edit = TextEdit::new(Range::default(), content);
                ops.push(document_edit(uri, None, vec![edit], annotation));
            }
        }
        FileStatus::Deleted => {
            ops.push(DocumentChangeOperation::Op(ResourceOp::Delete(
                DeleteFile {
                    uri,
                    options: None,
                    annotation_id: annotation,
                },
            )));
        }
        FileStatus::Renamed => {
            let from = change.from.as_ref().unwrap_or(&change.path);
            let old_uri = uri_or_err(ctx, from)?;
            if !change.edits.is_empty() {
                let edits = text_edits(change, ctx);
                let version = change.before.as_ref().and_then(|b| b.version);
                ops.push(document_edit(
                    old_uri.clone(),
                    version,
                    edits,
                    annotation.clone(),
                ));
            }
            ops.push(DocumentChangeOperation::Op(ResourceOp::Rename(
                RenameFile {
                    old_uri,
                    new_uri: uri,
                    options: None,
                    annotation_id: annotation,
                },
            )));
        }
        FileStatus::Modified | FileStatus::Merged => {
            let edits = text_edits(change, ctx);
            let version = change.before.as_ref().and_then(|b| b.version);
            ops.push(document_edit(uri, version, edits, annotation));
        }
    }
    Ok(())
}

fn document_edit(
    uri: Uri,
    version: Option<i32>,
    edits: Vec<TextEdit>,
    annotation: Option<String>,
) -> DocumentChangeOperation {
    let edits = edits
        .into_iter()
        .map(|text_edit| match &annotation {
            Some(id) => OneOf::Right(AnnotatedTextEdit {
                text_edit,
                annotation_id: id.clone(),
            }),
            None => OneOf::Left(text_edit),
        })
        .collect();
    DocumentChangeOperation::Edit(TextDocumentEdit {
        text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
        edits,
    })
}

/// The minimal edits of a change as protocol text edits.
fn text_edits(change: &FileChange, ctx: &EditContext<'_>) -> Vec<TextEdit> {
    let encoding = ctx.features.encoding;
    let edit = |start, end, text: &String| TextEdit::new(Range::new(start, end), text.clone());
    let edits = change.edits.as_slice().iter();
    // The text came from an open buffer that has not changed since: its
    // rope indexes the lines, O(log n) per position.
    if let Some(rope) = change.before.as_ref().and_then(|b| ctx.docs.rope_of(b)) {
        let at = |offset| position(rope_position(&rope, offset, encoding));
        return edits
            .map(|e| edit(at(e.range.start), at(e.range.end), &e.text))
            .collect();
    }
    let before = change.before.as_ref().map_or("", |b| b.text.as_str());
    // The edits are sorted: one walk over the text gives their positions.
    let mut positions = ForwardPositions::new(before);
    edits
        .map(|e| {
            let start = position(positions.position(e.range.start, encoding));
            let end = position(positions.position(e.range.end, encoding));
            edit(start, end, &e.text)
        })
        .collect()
}

/// The diagnostics of the errors about one target file. `text` is the
/// file's text as the run saw it (`None`: ranges fall back to line starts).
pub fn file_diagnostics(
    uri: &Uri,
    errors: &[&EditError],
    text: Option<&str>,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let text = text.unwrap_or("");
    let positions = TextPositions::new(text, encoding);
    let mut out = Vec::new();
    for error in errors {
        let ranges = error_ranges(error);
        let separate = matches!(error.kind, ErrorKind::Overlap | ErrorKind::Conflict);
        if separate && ranges.len() > 1 {
            for range in &ranges {
                out.push(diagnostic(positions.lines(*range), error, Vec::new()));
            }
            continue;
        }
        let first = ranges.first().copied().unwrap_or(LineRange::new(1, 1));
        let related = if ranges.len() > 1 {
            ranges
                .iter()
                .map(|r| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), positions.lines(*r)),
                    message: format!("candidate at {r}"),
                })
                .collect()
        } else {
            Vec::new()
        };
        out.push(diagnostic(positions.lines(first), error, related));
    }
    out
}

/// Where an error points: its ranges, else its near-match, else its lines.
fn error_ranges(error: &EditError) -> Vec<LineRange> {
    if !error.ranges.is_empty() {
        return error.ranges.clone();
    }
    if let Some(near) = &error.near {
        return vec![near.lines];
    }
    error.lines.iter().map(|l| LineRange::new(*l, *l)).collect()
}

/// A diagnostic for an error at `range`.
pub fn diagnostic(
    range: Range,
    error: &EditError,
    related: Vec<DiagnosticRelatedInformation>,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(if error.kind == ErrorKind::NoOp {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::ERROR
        }),
        code: Some(NumberOrString::String(error.kind.name().to_owned())),
        source: Some(DIAGNOSTIC_SOURCE.to_owned()),
        message: error.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// The warning on a file an applied edit left with a new parse error: on
/// the error's line of the new text.
pub fn syntax_diagnostic(
    warning: &crate::engine::SyntaxWarning,
    text: &str,
    encoding: PositionEncoding,
) -> Diagnostic {
    let positions = TextPositions::new(text, encoding);
    let edits: Vec<String> = warning.edits.iter().map(ToString::to_string).collect();
    Diagnostic {
        range: positions.lines(LineRange::new(warning.line, warning.line)),
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String("syntax".to_owned())),
        source: Some(DIAGNOSTIC_SOURCE.to_owned()),
        message: format!(
            "the LLM edit ({} {}) leaves a parse error at line {} of a file that parsed before",
            if edits.len() == 1 { "edit" } else { "edits" },
            edits.join(", "),
            warning.line
        ),
        ..Diagnostic::default()
    }
}

/// The diagnostics of a response document: one per error, on the payload
/// lines of its block.
pub fn response_diagnostics(
    errors: &[&EditError],
    text: &str,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let positions = TextPositions::new(text, encoding);
    errors
        .iter()
        .map(|error| {
            let (first, last) = error.payload_lines.unwrap_or((1, 1));
            diagnostic(
                positions.lines(LineRange::new(first, last)),
                error,
                Vec::new(),
            )
        })
        .collect()
}

/// Groups errors by target path (errors without one are left out).
pub fn errors_by_path(errors: &[EditError]) -> BTreeMap<&str, Vec<&EditError>> {
    let mut map: BTreeMap<&str, Vec<&EditError>> = BTreeMap::new();
    for error in errors {
        if let Some(path) = &error.path {
            map.entry(path.as_str()).or_default().push(error);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{TextEdit as PlanEdit, TextEdits};
    use crate::workspace::SourceText;
    use std::sync::Arc;

    fn modified(root: &Path, path: &str, before: &str, version: Option<i32>) -> FileChange {
        let edits = TextEdits::new(vec![PlanEdit::new(5..9, "ZZ")]).unwrap();
        FileChange {
            path: WorkspacePath::new(root, path).unwrap(),
            from: None,
            status: FileStatus::Modified,
            before: Some(Arc::new(SourceText {
                text: before.into(),
                encoding: Default::default(),
                version,
                stamp: None,
            })),
            content: crate::plan::After::edited(),
            edits,
            edit_indices: vec![2],
        }
    }

    fn features(document_changes: bool, annotations: bool) -> ClientFeatures {
        ClientFeatures {
            encoding: PositionEncoding::Utf16,
            document_changes,
            create: true,
            rename: true,
            delete: true,
            change_annotations: annotations,
        }
    }

    #[test]
    #[allow(deprecated)]
    fn the_root_falls_back_to_root_path() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let mut params = InitializeParams {
            root_path: Some(dir.path().to_string_lossy().into_owned()),
            ..InitializeParams::default()
        };
        assert_eq!(workspace_root(&params), Some(real.clone()));
        params.root_path = Some("relative/dir".into());
        assert_eq!(workspace_root(&params), None);
        params.root_uri = Some(file_uri_of(&real));
        assert_eq!(workspace_root(&params), Some(real));
    }

    fn file_uri_of(path: &Path) -> Uri {
        Uri::from_file_path(path).unwrap()
    }

    #[test]
    fn builds_versioned_annotated_edits_in_utf16() {
        let root = Path::new("/ws");
        let docs = Documents::default();
        let change = modified(root, "a.txt", "a😀\nbcd\n", Some(4));
        let features = features(true, true);
        let batch = EditBatch::default();
        let ctx = EditContext {
            features: &features,
            root,
            docs: &docs,
            batch: &batch,
            confirm: true,
        };
        let edit = workspace_edit(&[change], &ctx).unwrap();
        insta::assert_json_snapshot!(edit, @r#"
        {
          "documentChanges": [
            {
              "textDocument": {
                "uri": "file:///ws/a.txt",
                "version": 4
              },
              "edits": [
                {
                  "range": {
                    "start": {
                      "line": 0,
                      "character": 3
                    },
                    "end": {
                      "line": 1,
                      "character": 3
                    }
                  },
                  "newText": "ZZ",
                  "annotationId": "a.txt:2"
                }
              ]
            }
          ],
          "changeAnnotations": {
            "a.txt:2": {
              "label": "edit 2: ",
              "needsConfirmation": true,
              "description": "M a.txt"
            }
          }
        }
        "#);
    }

    #[test]
    fn refuses_creates_without_resource_operations() {
        let root = Path::new("/ws");
        let docs = Documents::default();
        let mut change = modified(root, "new.txt", "0123456789", None);
        change.status = FileStatus::Added;
        change.before = None;
        let features = features(false, false);
        let batch = EditBatch::default();
        let ctx = EditContext {
            features: &features,
            root,
            docs: &docs,
            batch: &batch,
            confirm: false,
        };
        let err = workspace_edit(&[change], &ctx).unwrap_err();
        assert!(err.0.contains("cannot create files"), "{}", err.0);
    }
}
