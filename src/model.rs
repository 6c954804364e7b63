//! The edit model: one format-independent description of what a payload asks.
//!
//! Every parser (`crate::parse::*`) produces [`Edit`]s; everything after
//! parsing (resolve, plan, output) sees only this model. An edit knows which
//! file it targets, what it does ([`EditOp`]), where it came from in the
//! payload ([`SourceSpan`]), its 1-based index in payload order, and whether
//! it applies after the edits before it or against the same base
//! ([`Ordering`]).
//!
//! Text conventions:
//! - Payload text is LF-only (`\r\n` is folded to `\n` when parsed); the
//!   resolver adapts to the target file's line ending.
//! - Line-based texts ([`MatchUnit::Lines`]) hold whole lines, *each one
//!   terminated by `\n`*: `""` is zero lines, `"\n"` one empty line,
//!   `"a\nb\n"` the two lines `a` and `b`. This keeps "delete these lines"
//!   (`replace == ""`) apart from "replace them by one empty line".

use std::fmt;

use serde::Serialize;

/// A payload format, named as in `FORMATS.md` §2 (`--format` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// JSON tool calls (`write_file`, `edit_file`, `str_replace`, `Edit`, ...).
    Json,
    /// Aider-style `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks.
    SearchReplace,
    /// Roo/Cline `apply_diff` blocks with `:start_line:` hints.
    RooDiff,
    /// Seed 001: `««« EDIT` with leading/trailing anchors.
    EditBlockV2,
    /// Seed 003: `««« EDIT` / `═══════ REPL` / `»»» EDIT END`.
    EditBlock,
    /// Seed 004: `FILE:` / `FIND:` / `REPLACE:` with fenced code.
    FindReplace,
    /// OpenAI Codex `*** Begin Patch` envelopes.
    ApplyPatch,
    /// `--- a/` / `+++ b/` unified diffs.
    UnifiedDiff,
    /// A plain fenced code block naming a file: the whole new file, or a
    /// snippet with elision lines (`// ... existing code ...`).
    CodeBlock,
}

impl Format {
    /// Every format, in the order detection tries them in docs and prompts.
    pub const ALL: [Format; 9] = [
        Format::Json,
        Format::SearchReplace,
        Format::RooDiff,
        Format::EditBlockV2,
        Format::EditBlock,
        Format::FindReplace,
        Format::ApplyPatch,
        Format::UnifiedDiff,
        Format::CodeBlock,
    ];

    /// The `--format` name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::SearchReplace => "search_replace",
            Format::RooDiff => "roo_diff",
            Format::EditBlockV2 => "edit_block_v2",
            Format::EditBlock => "edit_block",
            Format::FindReplace => "find_replace",
            Format::ApplyPatch => "apply_patch",
            Format::UnifiedDiff => "unified_diff",
            Format::CodeBlock => "code_block",
        }
    }

    /// Parses a `--format` name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The order edits of this format take within one file.
    ///
    /// Block formats and string tools are sequential; `modify_file` changes
    /// and diff hunks are simultaneous (see `FORMATS.md` §3 "Order of edits").
    pub fn is_block_format(self) -> bool {
        !matches!(self, Format::Json)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an edit came from in the payload: 1-based, inclusive payload lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceSpan {
    /// First payload line of the edit (its opening marker or JSON object).
    pub first_line: usize,
    /// Last payload line of the edit (its closing marker).
    pub last_line: usize,
}

impl SourceSpan {
    /// A span of payload lines `first..=last` (1-based).
    pub fn lines(first_line: usize, last_line: usize) -> SourceSpan {
        SourceSpan {
            first_line,
            last_line: last_line.max(first_line),
        }
    }
}

/// How an edit relates to the other edits of the same file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "group")]
pub enum Ordering {
    /// Matched against the file as the earlier edits left it
    /// (string tools and block formats).
    Sequential,
    /// Matched against the same base as every other edit of the same file
    /// with the same group number, which must not overlap
    /// (`modify_file` changes of one call, hunks of one patch/diff file).
    /// Group numbers are unique within a payload.
    Simultaneous(u32),
}

/// Whether a search matches whole lines or any substring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchUnit {
    /// Whole lines (block formats, hunks, `modify_file`): `search` and
    /// `replace` are newline-terminated lines.
    Lines,
    /// A substring that may start or end mid-line (string tools:
    /// `edit_file`, `str_replace`, `Edit`, `MultiEdit`): `search` and
    /// `replace` are raw text.
    Substring,
}

/// A search-and-replace: the workhorse of every search-based format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replace {
    /// What to find. For [`MatchUnit::Lines`], newline-terminated lines.
    /// Empty only for pure insertions of diff hunks (see `context_header`).
    pub search: String,
    /// What to put in its place, in the same unit as `search`.
    pub replace: String,
    /// Whole lines or substring.
    pub unit: MatchUnit,
    /// Replace every occurrence instead of requiring a unique one.
    pub replace_all: bool,
    /// 1-based line in the original file where the search is expected to
    /// start (`:start_line:`, a hunk header). A hint: it only picks among
    /// several candidates (`FORMATS.md` §3 "Line hints").
    pub line_hint: Option<usize>,
    /// A line to find first (an `apply_patch` `@@ def foo():` header); the
    /// search must start after it. For a hunk with an empty `search` the
    /// replacement is inserted right after this line.
    pub context_header: Option<String>,
    /// The hunk is anchored at the end of the file (`*** End of File`).
    pub at_end_of_file: bool,
    /// When every search line carries a `12 | ` line-number prefix
    /// (roo_diff): the search and replacement with the prefixes stripped
    /// (the replacement only when all its lines carry them), tried when the
    /// search as written matches nothing.
    pub without_line_numbers: Option<(String, String)>,
    /// A diff hunk's context lines, as 0-based (search line, replacement
    /// line) pairs in order: the hunk says which lines stay, so they are
    /// paired as written instead of by a diff of the two sides. Empty for
    /// every other format.
    #[serde(skip)]
    pub kept: Vec<(usize, usize)>,
}

impl Replace {
    /// A plain line-based search/replace with no hint.
    pub fn lines(search: impl Into<String>, replace: impl Into<String>) -> Replace {
        Replace {
            search: search.into(),
            replace: replace.into(),
            unit: MatchUnit::Lines,
            replace_all: false,
            line_hint: None,
            context_header: None,
            at_end_of_file: false,
            without_line_numbers: None,
            kept: Vec::new(),
        }
    }

    /// A substring search/replace (string tools).
    pub fn substring(search: impl Into<String>, replace: impl Into<String>) -> Replace {
        Replace {
            unit: MatchUnit::Substring,
            ..Replace::lines(search, replace)
        }
    }
}

/// A `modify_file` change: a region located by anchors, replaced whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnchoredRegion {
    /// 1-4 lines matched consecutively; the region starts at the first.
    pub start: Vec<String>,
    /// Optional 1-4 lines searched after `start`; the region ends at the last.
    pub end: Option<Vec<String>>,
    /// The exact replacement of the whole region, one string per line.
    pub content: Vec<String>,
}

/// What one edit does to its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum EditOp {
    /// Create a file that must not exist yet (or be empty):
    /// an empty SEARCH, `*** Add File`, `create`, a `/dev/null` diff.
    Create { content: String },
    /// Whole new content, creating or replacing (`write_file`, `Write`).
    Write { content: String },
    /// Find text and replace it.
    Replace(Replace),
    /// Find a region by anchors and replace it (`modify_file`).
    Anchored(AnchoredRegion),
    /// Insert `text` (newline-terminated lines) after a 1-based line
    /// (0 = top of file), as Anthropic's `insert` command does.
    InsertLines { after_line: usize, text: String },
    /// Delete the file.
    Delete,
    /// Rename (move) the file; edits to it before the rename apply first.
    Rename { to: String },
    /// Undo the previous edit of this file in the same payload (Anthropic's
    /// `undo_edit`).
    Undo,
    /// A chat code block's content: the whole file, a new file, or a
    /// snippet placed by its unchanged lines (`resolve/code_block.rs`).
    CodeBlock {
        /// The lines of the block.
        content: String,
        /// A first line that named the file (`# src/app.py`), not in
        /// `content`: kept only when the file begins with it too.
        path_line: Option<String>,
    },
}

impl EditOp {
    /// A short name for summaries: `create`, `write`, `replace`, ...
    pub fn name(&self) -> &'static str {
        match self {
            EditOp::Create { .. } => "create",
            EditOp::Write { .. } => "write",
            EditOp::Replace(_) => "replace",
            EditOp::Anchored(_) => "anchored",
            EditOp::InsertLines { .. } => "insert",
            EditOp::Delete => "delete",
            EditOp::Rename { .. } => "rename",
            EditOp::Undo => "undo",
            EditOp::CodeBlock { .. } => "code_block",
        }
    }
}

/// One edit of a payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// 1-based index in payload order (across all files and formats).
    pub index: usize,
    /// Target path as the payload names it, relative to the workspace root
    /// (`/`-separated; checked against the root when resolved).
    pub path: String,
    /// The format it was written in.
    pub format: Format,
    /// Where it sits in the payload.
    pub source: SourceSpan,
    /// Sequential or simultaneous with the file's other edits.
    pub ordering: Ordering,
    /// What it does.
    pub op: EditOp,
}

/// Everything parsed out of one payload.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EditBatch {
    /// The edits, in payload order (`edits[i].index == i + 1`).
    pub edits: Vec<Edit>,
    /// Shell commands the response suggests for what blocks cannot do
    /// (`git rm`, `git mv`, `mkdir -p`): reported, never run.
    pub suggestions: Vec<String>,
    /// The context snapshot id the payload names, if any.
    pub context_id: Option<String>,
    /// The payload asks for a preview only (the MCP filesystem server's
    /// `dryRun: true`): planned and reported, never written or applied.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preview: bool,
}
