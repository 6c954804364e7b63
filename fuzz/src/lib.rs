//! Shared checks of the fuzz targets: run a payload through the parser or
//! the whole engine and assert the invariants the rest of the crate relies on.
//!
//! Parser targets feed arbitrary bytes (read as lossy UTF-8) to
//! [`parse_and_check`]. The `pipeline` target decodes a [`PipelineInput`]
//! (options, payload and up to two files) and runs [`run_and_check`]. The
//! `transport` target reads any bytes as a language server client's stdin
//! ([`transport::frames_and_check`]).

pub mod transport;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use llm_edit_lsp::engine::{self, FileStatus, MatchMode, OnConflict, Options, Outcome};
use llm_edit_lsp::model::{EditOp, Format, MatchUnit};
use llm_edit_lsp::parse::{self, Parsed};
use llm_edit_lsp::text::encoding::Encoding;
use llm_edit_lsp::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// Parses `data` (lossy UTF-8) and checks the model invariants.
pub fn parse_and_check(data: &[u8], format: Option<Format>) {
    let text = String::from_utf8_lossy(data);
    let parsed = parse::parse(&text, format);
    check_parsed(&text, &parsed);
}

/// Invariants of a parse result: edits numbered 1..=n in payload order,
/// spans inside the payload, line-based texts made of whole lines.
pub fn check_parsed(payload: &str, parsed: &Parsed) {
    let line_count = payload.lines().count();
    for (i, edit) in parsed.batch.edits.iter().enumerate() {
        assert_eq!(edit.index, i + 1, "edits are numbered in payload order");
        let span = edit.source;
        assert!(
            1 <= span.first_line && span.first_line <= span.last_line,
            "edit {} has span {span:?}",
            edit.index
        );
        assert!(
            span.last_line <= line_count.max(1),
            "edit {} ends at payload line {} of {line_count}",
            edit.index,
            span.last_line
        );
        match &edit.op {
            EditOp::Replace(r) if r.unit == MatchUnit::Lines => {
                assert!(
                    whole_lines(&r.search),
                    "search {:?} is not whole lines",
                    r.search
                );
                assert!(
                    whole_lines(&r.replace),
                    "replace {:?} is not whole lines",
                    r.replace
                );
            }
            EditOp::InsertLines { text, .. } => {
                assert!(whole_lines(text), "inserted {text:?} is not whole lines");
            }
            _ => {}
        }
    }
    for format in &parsed.formats {
        assert!(
            parsed.batch.edits.iter().any(|e| e.format == *format),
            "format {format} listed without an edit"
        );
    }
}

/// `""` or newline-terminated lines.
fn whole_lines(text: &str) -> bool {
    text.is_empty() || text.ends_with('\n')
}

/// One file of a pipeline run.
#[derive(Debug)]
pub struct FileSpec {
    /// Its path, as the payload would name it.
    pub path: String,
    /// Its current text.
    pub text: String,
    /// The text the LLM saw, when it differs (exercises the `~M` merge).
    pub snapshot: Option<String>,
}

/// What the `pipeline` target runs: options, a payload, one or two files.
///
/// Byte layout (chosen so seeds are easy to write by hand): five option
/// bytes (match mode, fuzzy threshold, partial, conflict policy, format),
/// then lossy UTF-8 text split on NUL into payload, path 1, text 1,
/// snapshot 1, path 2, text 2, snapshot 2 (missing parts are absent; an
/// empty snapshot means none).
#[derive(Debug)]
pub struct PipelineInput {
    /// The run options.
    pub options: Options,
    /// What the LLM wrote.
    pub payload: String,
    /// The workspace files.
    pub files: Vec<FileSpec>,
}

impl<'a> Arbitrary<'a> for PipelineInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut option_bytes = [0u8; 5];
        for b in &mut option_bytes {
            *b = u.arbitrary().unwrap_or(0);
        }
        let rest = String::from_utf8_lossy(u.bytes(u.len())?).into_owned();
        let mut parts = rest.split('\0').map(str::to_string);
        let payload = parts.next().unwrap_or_default();
        let mut files = Vec::new();
        while let (Some(path), Some(text)) = (parts.next(), parts.next()) {
            let snapshot = parts.next().filter(|s| !s.is_empty());
            files.push(FileSpec {
                path,
                text,
                snapshot,
            });
            if files.len() == 2 {
                break;
            }
        }
        Ok(PipelineInput {
            options: options_from(option_bytes),
            payload,
            files,
        })
    }
}

/// Decodes the five option bytes.
fn options_from([mode, fuzzy, partial, conflict, format]: [u8; 5]) -> Options {
    Options {
        format: match format as usize % (Format::ALL.len() + 1) {
            0 => None,
            i => Some(Format::ALL[i - 1]),
        },
        match_mode: if mode & 1 == 0 {
            MatchMode::Tolerant
        } else {
            MatchMode::Exact
        },
        fuzzy: (fuzzy != 0).then(|| 0.5 + f64::from(fuzzy) / 255.0 * 0.49),
        partial: partial & 1 == 1,
        on_conflict: match conflict % 3 {
            0 => OnConflict::Merge,
            1 => OnConflict::Refuse,
            _ => OnConflict::Overwrite,
        },
        // Short, so a slow search shows up as a slow input, not a hang.
        deadline: Duration::from_millis(200),
        // The syntax check runs with the plan, as in a dry run.
        syntax_check: llm_edit_lsp::engine::SyntaxCheck::Now,
    }
}

/// Files held in memory, with optional snapshots.
pub struct MemoryFiles {
    root: PathBuf,
    files: BTreeMap<WorkspacePath, (Arc<SourceText>, Option<Arc<str>>)>,
}

impl MemoryFiles {
    /// The files of `specs` whose path is usable, under a fixed root.
    pub fn new(specs: &[FileSpec]) -> MemoryFiles {
        let root = PathBuf::from("/fuzz-root");
        let mut files = BTreeMap::new();
        for spec in specs {
            if let Ok(path) = WorkspacePath::new(&root, &spec.path) {
                let text = Arc::new(SourceText::from_disk(spec.text.clone(), Encoding::Utf8));
                let snapshot = spec.snapshot.as_deref().map(Arc::from);
                files.insert(path, (text, snapshot));
            }
        }
        MemoryFiles { root, files }
    }
}

impl FileSource for MemoryFiles {
    fn root(&self) -> &Path {
        &self.root
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        Ok(self.files.get(path).map(|(text, _)| Arc::clone(text)))
    }

    fn snapshot(&self, path: &WorkspacePath) -> Option<Arc<str>> {
        self.files.get(path).and_then(|(_, snap)| snap.clone())
    }
}

/// Runs the engine on `input` and checks the outcome's invariants.
pub fn run_and_check(input: &PipelineInput) {
    let source = MemoryFiles::new(&input.files);
    let outcome = engine::run(&input.payload, &input.options, &source);
    check_outcome(&outcome, &input.options);
}

/// Invariants of an outcome: all-or-nothing unless partial, statuses match
/// the texts, and every change's edits turn `before` into `after`.
pub fn check_outcome(outcome: &Outcome, options: &Options) {
    if !options.partial && !outcome.errors.is_empty() {
        assert!(
            outcome.files.is_empty(),
            "a failed all-or-nothing run plans changes"
        );
    }
    let edit_count = outcome.batch.edits.len();
    for change in &outcome.files {
        for &i in &change.edit_indices {
            assert!(
                (1..=edit_count).contains(&i),
                "edit index {i} of {edit_count}"
            );
        }
        match change.status {
            FileStatus::Added => assert!(change.before.is_none() && change.after.is_some()),
            FileStatus::Deleted => assert!(change.before.is_some() && change.after.is_none()),
            FileStatus::Renamed => assert!(change.from.is_some() && change.after.is_some()),
            FileStatus::Modified | FileStatus::Merged => {
                assert!(change.before.is_some() && change.after.is_some())
            }
        }
        let (Some(before), Some(after)) = (&change.before, &change.after) else {
            assert!(change.edits.is_empty(), "edits without both texts");
            continue;
        };
        let text = before.text.as_str();
        let mut at = 0;
        for edit in change.edits.as_slice() {
            let r = &edit.range;
            assert!(
                at <= r.start && r.start <= r.end && r.end <= text.len(),
                "edit {r:?}"
            );
            assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            at = r.end;
        }
        assert_eq!(
            &change.edits.apply(text),
            after,
            "edits of {} do not give its new text",
            change.path
        );
    }
}
