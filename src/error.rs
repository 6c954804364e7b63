//! Errors as values: what failed, where, and what to change.
//!
//! A failed anchor is not an `Err` that stops the pipeline: the engine keeps
//! resolving the other edits and returns every [`EditError`] it found, so one
//! retry of the LLM can fix them all. The kinds are the stable ones of
//! `FORMATS.md` §6; their `snake_case` names appear in the JSON report and as
//! LSP diagnostic codes.

use std::fmt;

use serde::Serialize;

/// How many candidates an error lists (in `lines`, `ranges` and its
/// message): the first ones in file order, with the count of all.
pub const LISTED: usize = 20;

/// A count with thousands separators (`10,000`), as messages print them.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The stable error kinds of `FORMATS.md` §6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The payload is malformed (bad JSON, markers out of order, no edit).
    Parse,
    /// The payload ends inside an open block or JSON value.
    Truncated,
    /// The search text matches nothing, in any matching pass.
    NotFound,
    /// The search text matches several places and nothing picks one.
    Ambiguous,
    /// Two edits that apply against the same base touch the same lines.
    Overlap,
    /// The edit would change nothing (`old == new`).
    NoOp,
    /// The target file does not exist.
    FileNotFound,
    /// A create targets a file that exists and is not empty.
    FileExists,
    /// The target is not text this tool can edit (NUL bytes, invalid UTF-8).
    Binary,
    /// The path leaves the workspace root.
    OutsideRoot,
    /// The user's unsaved changes and the LLM's edit touch the same lines.
    Conflict,
    /// The run's time budget (`--deadline`) ran out before this edit was
    /// resolved (or while a search that must be complete was under way).
    Deadline,
}

impl ErrorKind {
    /// The stable `snake_case` name (`not_found`, `ambiguous`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse",
            ErrorKind::Truncated => "truncated",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::Overlap => "overlap",
            ErrorKind::NoOp => "no_op",
            ErrorKind::FileNotFound => "file_not_found",
            ErrorKind::FileExists => "file_exists",
            ErrorKind::Binary => "binary",
            ErrorKind::OutsideRoot => "outside_root",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Deadline => "deadline",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A 1-based, inclusive range of lines in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineRange {
    /// First line (1-based).
    pub first: usize,
    /// Last line (1-based, inclusive; `== first` for one line).
    pub last: usize,
}

impl LineRange {
    /// Lines `first..=last`.
    pub fn new(first: usize, last: usize) -> LineRange {
        LineRange {
            first,
            last: last.max(first),
        }
    }
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "line {}", self.first)
        } else {
            write!(f, "lines {}-{}", self.first, self.last)
        }
    }
}

/// The closest near-match of a search that was not found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NearMatch {
    /// Where it is in the file as the user sees it.
    pub lines: LineRange,
    /// Similarity in percent (0-100), as in the fuzzy pass.
    pub similarity: u8,
    /// The first line pair that differs: (payload's line, file's line).
    pub differs_at: Option<(String, String)>,
}

/// One failure: which edit, which file, which lines, and what to do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EditError {
    /// The stable kind.
    pub kind: ErrorKind,
    /// The target file, workspace-relative, when the error concerns one.
    pub path: Option<String>,
    /// The edit's 1-based index in payload order, when it concerns one.
    pub edit: Option<usize>,
    /// The 1-based file lines involved (see `FORMATS.md` §6): the
    /// candidates' first lines, the near-match's first line, both regions'
    /// first lines, the conflicting buffer lines. For `parse` and
    /// `truncated`, the payload line.
    pub lines: Vec<usize>,
    /// A sentence an LLM (or a person) can act on.
    pub message: String,
    /// Line ranges in the file to point at (candidates, overlapping
    /// regions, conflicting buffer regions, the near-match).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<LineRange>,
    /// The closest near-match, for `not_found`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near: Option<Box<NearMatch>>,
    /// The payload lines of the edit (or of the parse problem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_lines: Option<(usize, usize)>,
}

impl EditError {
    /// An error with a kind and message; the rest is filled with builders.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> EditError {
        EditError {
            kind,
            path: None,
            edit: None,
            lines: Vec::new(),
            message: message.into(),
            ranges: Vec::new(),
            near: None,
            payload_lines: None,
        }
    }

    /// A `parse` (or `truncated`) error at a 1-based payload line.
    pub fn at_payload_line(kind: ErrorKind, line: usize, message: impl Into<String>) -> EditError {
        let mut e = EditError::new(kind, message);
        e.lines = vec![line];
        e.payload_lines = Some((line, line));
        e
    }

    /// Sets the file.
    pub fn with_path(mut self, path: impl Into<String>) -> EditError {
        self.path = Some(path.into());
        self
    }

    /// Sets the edit index.
    pub fn with_edit(mut self, index: usize) -> EditError {
        self.edit = Some(index);
        self
    }

    /// Sets the reported lines (the first [`LISTED`]).
    pub fn with_lines(mut self, mut lines: Vec<usize>) -> EditError {
        lines.truncate(LISTED);
        self.lines = lines;
        self
    }

    /// Sets the ranges to point at (the first [`LISTED`]).
    pub fn with_ranges(mut self, mut ranges: Vec<LineRange>) -> EditError {
        ranges.truncate(LISTED);
        self.ranges = ranges;
        self
    }

    /// Sets the payload lines of the edit.
    pub fn with_payload_lines(mut self, first: usize, last: usize) -> EditError {
        self.payload_lines = Some((first, last));
        self
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_have_thousands_separators() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (10_000, "10,000"),
            (1_234_567, "1,234,567"),
        ];
        for (n, want) in cases {
            assert_eq!(super::count(n), want);
        }
    }
}
