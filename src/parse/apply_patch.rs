//! The `apply_patch` format (OpenAI Codex / opencode, `FORMATS.md` §2):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: docs/new.md
//! +# New
//! *** Delete File: old.txt
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def greet():
//! -    print("hi")
//! +    print("hello")
//! *** End of File
//! *** End Patch
//! ```
//!
//! Each hunk becomes a line [`Replace`] of its context+removed lines by its
//! context+added lines; the hunks of one `*** Update File` share one
//! [`Ordering::Simultaneous`] group, and a `*** Move to` becomes a
//! [`EditOp::Rename`] after them. Markers padded with spaces are accepted; an
//! empty patch, an update without hunks or an unknown `***` header is a
//! `parse` error, a payload that ends before `*** End Patch` is `truncated`.

use super::{markdown, unified_diff, Block, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, Replace, SourceSpan};

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";
const ADD_FILE: &str = "*** Add File:";
const DELETE_FILE: &str = "*** Delete File:";
const UPDATE_FILE: &str = "*** Update File:";
const MOVE_TO: &str = "*** Move to:";

/// Does a patch open at 0-based line `i` (`*** Begin Patch`, padding allowed)?
pub fn opens(scan: &Scan, i: usize) -> bool {
    scan.line(i).is_some_and(|l| l.trim() == BEGIN_PATCH)
}

/// Parses the patch opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let read = read_patch(&scan.lines, i);
    let mut edits = Vec::new();
    for op in read.ops {
        op.push_edits(scan, &mut edits);
    }
    Block {
        next_line: read.next_line,
        edits: edits.into(),
        errors: read.errors,
    }
}

/// One file operation of a patch, as read.
enum FileOp {
    /// `*** Add File: path` and its `+` lines.
    Add {
        path: String,
        content: String,
        span: SourceSpan,
    },
    /// `*** Delete File: path`.
    Delete { path: String, line: usize },
    /// `*** Update File: path`, its optional `*** Move to:` and its hunks.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<(Replace, SourceSpan)>,
        /// 0-based last line of the operation.
        last: usize,
    },
}

impl FileOp {
    /// Appends the edits of this operation; the hunks of an update get a
    /// fresh simultaneous group.
    fn push_edits(self, scan: &mut Scan, edits: &mut Vec<ParsedEdit>) {
        let edit = |path: &str, source, ordering, op| ParsedEdit {
            path: path.to_string(),
            format: Format::ApplyPatch,
            source,
            ordering,
            op,
        };
        match self {
            FileOp::Add {
                path,
                content,
                span,
            } => edits.push(edit(
                &path,
                span,
                Ordering::Sequential,
                EditOp::Create { content },
            )),
            FileOp::Delete { path, line } => edits.push(edit(
                &path,
                SourceSpan::lines(line, line),
                Ordering::Sequential,
                EditOp::Delete,
            )),
            FileOp::Update {
                path,
                move_to,
                hunks,
                last,
            } => {
                if !hunks.is_empty() {
                    let group = Ordering::Simultaneous(scan.next_group());
                    for (replace, span) in hunks {
                        edits.push(edit(&path, span, group, EditOp::Replace(replace)));
                    }
                }
                if let Some(to) = move_to {
                    // Placed at the update's last line: edits are ordered by
                    // their first line and the rename applies after the hunks.
                    let span = SourceSpan::lines(last + 1, last + 1);
                    edits.push(edit(
                        &path,
                        span,
                        Ordering::Sequential,
                        EditOp::Rename { to },
                    ));
                }
            }
        }
    }
}

/// What reading one patch gives.
#[derive(Default)]
struct PatchRead {
    ops: Vec<FileOp>,
    errors: Vec<EditError>,
    next_line: usize,
}

/// Reads the patch whose `*** Begin Patch` is 0-based line `open`.
///
/// A broken operation is reported and skipped (reading resumes at the next
/// `***` header); a patch that never reaches `*** End Patch` yields no
/// operation at all.
fn read_patch(all: &[&str], open: usize) -> PatchRead {
    let open_line = open + 1;
    let mut read = PatchRead::default();
    // A patch in a code fence ends where that fence closes, and only
    // there: a hunk line such as ` ~~~` is not a fence of its own.
    let fence_end = fence_end(all, open);
    let lines = &all[..fence_end.unwrap_or(all.len())];
    let mut j = open + 1;
    while let Some(&line) = lines.get(j) {
        let trimmed = line.trim();
        let step = if trimmed == END_PATCH {
            if read.ops.is_empty() && read.errors.is_empty() {
                read.errors.push(empty_patch_error(open_line));
            }
            read.next_line = j + 1;
            return read;
        } else if trimmed.is_empty() {
            Ok((None, j + 1))
        } else if let Some(path) = header_value(trimmed, ADD_FILE) {
            read_add(lines, j, path)
        } else if let Some(path) = header_value(trimmed, DELETE_FILE) {
            check_path(path, j).map(|path| {
                let op = FileOp::Delete { path, line: j + 1 };
                (Some(op), j + 1)
            })
        } else if let Some(path) = header_value(trimmed, UPDATE_FILE) {
            read_update(lines, j, path)
        } else {
            Err(Box::new(stray_line_error(trimmed, j + 1)))
        };
        match step {
            Ok((op, next)) => {
                read.ops.extend(op);
                j = next;
            }
            Err(error) => {
                read.errors.push(*error);
                j = next_header(lines, j + 1);
            }
        }
    }
    match fence_end {
        Some(end) => {
            read.errors.push(unclosed_error(open_line, end + 1));
            read.next_line = end + 1;
        }
        None => {
            read.errors.push(truncated_error(open_line));
            read.next_line = lines.len();
        }
    }
    read.ops.clear();
    read
}

/// The 0-based line that closes the code fence the patch opening at line
/// `open` is in, if it is in one and the fence closes.
fn fence_end(lines: &[&str], open: usize) -> Option<usize> {
    let f = markdown::open_fence_at(lines, open)?;
    (open + 1..lines.len()).find(|&k| markdown::closes(lines[k], &f))
}

/// An operation (or nothing, for a blank line) and the 0-based next line.
type Step = Result<(Option<FileOp>, usize), Box<EditError>>;

/// `*** Add File: path` at `header` and the `+` lines after it.
fn read_add(lines: &[&str], header: usize, path: &str) -> Step {
    let path = check_path(path, header)?;
    let mut content = String::new();
    let mut blank_run = 0;
    let mut last = header;
    let mut k = header + 1;
    while let Some(&line) = lines.get(k) {
        if let Some(text) = line.strip_prefix('+') {
            content.push_str(&"\n".repeat(blank_run));
            blank_run = 0;
            content.push_str(text);
            content.push('\n');
            last = k;
        } else if line.trim().is_empty() {
            // A blank line missing its `+`: kept only when more `+` lines follow.
            blank_run += 1;
        } else if ends_operation(line) {
            break;
        } else {
            let message = format!(
                "payload line {} in `*** Add File: {path}` does not start with `+`; prefix every \
                 line of a new file with `+` (an empty line is a lone `+`)",
                k + 1
            );
            return Err(Box::new(EditError::at_payload_line(
                ErrorKind::Parse,
                k + 1,
                message,
            )));
        }
        k += 1;
    }
    let span = SourceSpan::lines(header + 1, last + 1);
    Ok((
        Some(FileOp::Add {
            path,
            content,
            span,
        }),
        k,
    ))
}

/// `*** Update File: path` at `header`, an optional `*** Move to:` and hunks.
fn read_update(lines: &[&str], header: usize, path: &str) -> Step {
    let path = check_path(path, header)?;
    let mut k = header + 1;
    let mut move_to = None;
    if let Some(to) = lines.get(k).and_then(|l| header_value(l.trim(), MOVE_TO)) {
        move_to = Some(check_path(to, k)?);
        k += 1;
    }
    let mut hunks = Vec::new();
    let mut hunk: Option<HunkReader> = None;
    while let Some(&line) = lines.get(k) {
        if line.starts_with("@@") {
            if let Some(done) = hunk.take() {
                hunks.push(done.finish(false)?);
            }
            hunk = Some(HunkReader::new(k, hunk_header(line)));
        } else if line.trim() == END_OF_FILE {
            let done = hunk
                .take()
                .unwrap_or_else(|| HunkReader::new(k, HunkStart::default()));
            hunks.push(done.finish_at(k, true)?);
        } else if ends_operation(line) {
            break;
        } else if let Some(kind) = HunkLine::of(line) {
            hunk.get_or_insert_with(|| HunkReader::new(k, HunkStart::implicit()))
                .push(kind, k);
        } else {
            let message = format!(
                "payload line {} in `*** Update File: {path}` is not a hunk line; start each \
                 hunk with `@@` and each of its lines with ` ` (context), `-` (removed) or `+` \
                 (added)",
                k + 1
            );
            return Err(Box::new(EditError::at_payload_line(
                ErrorKind::Parse,
                k + 1,
                message,
            )));
        }
        k += 1;
    }
    if let Some(done) = hunk {
        hunks.push(done.finish(false)?);
    }
    if hunks.is_empty() && move_to.is_none() {
        let message = format!(
            "`*** Update File: {path}` at payload line {} has no hunk; add `@@` hunks with ` `, \
             `-` and `+` lines, or leave the file out of the patch",
            header + 1
        );
        return Err(Box::new(EditError::at_payload_line(
            ErrorKind::Parse,
            header + 1,
            message,
        )));
    }
    let last = hunks
        .last()
        .map_or(header + usize::from(move_to.is_some()), |(_, span)| {
            span.last_line - 1
        });
    Ok((
        Some(FileOp::Update {
            path,
            move_to,
            hunks,
            last,
        }),
        k,
    ))
}

/// What an `@@` line says.
#[derive(Default)]
struct HunkStart {
    /// The text after `@@ `: a line to find first.
    context_header: Option<String>,
    /// The old start line, when the model wrote a unified `@@ -a,b +c,d @@`.
    line_hint: Option<usize>,
    /// Whether there was an `@@` line at all (the first hunk may omit it).
    explicit: bool,
}

impl HunkStart {
    /// A hunk whose lines follow its header with no `@@` line.
    fn implicit() -> HunkStart {
        HunkStart::default()
    }
}

/// Reads an `@@` line: `@@`, `@@ context line`, or a unified-diff header.
fn hunk_header(line: &str) -> HunkStart {
    if let Some(header) = unified_diff::hunk_header(line) {
        return HunkStart {
            context_header: None,
            line_hint: header.old_start,
            explicit: true,
        };
    }
    let rest = line.strip_prefix("@@").unwrap_or(line);
    let text = rest.strip_prefix(' ').unwrap_or(rest).trim_end();
    HunkStart {
        context_header: (!text.trim().is_empty()).then(|| text.to_string()),
        line_hint: None,
        explicit: true,
    }
}

/// The kind of a line inside a hunk.
#[derive(Clone, Copy)]
enum HunkLine<'a> {
    Context(&'a str),
    Removed(&'a str),
    Added(&'a str),
    Blank,
}

impl<'a> HunkLine<'a> {
    /// Classifies a hunk line by its first character.
    fn of(line: &'a str) -> Option<HunkLine<'a>> {
        if line.is_empty() {
            return Some(HunkLine::Blank);
        }
        // The prefixes are ASCII, so slicing after one byte is safe.
        match line.as_bytes().first() {
            Some(b' ') => Some(HunkLine::Context(&line[1..])),
            Some(b'-') => Some(HunkLine::Removed(&line[1..])),
            Some(b'+') => Some(HunkLine::Added(&line[1..])),
            _ => None,
        }
    }
}

/// Accumulates one hunk.
struct HunkReader {
    start: HunkStart,
    first: usize,
    last: usize,
    search: String,
    replace: String,
    /// Empty lines not yet known to be inside the hunk (dropped at its end).
    blank_run: usize,
    changed_or_context: usize,
    /// Lines in `search` and `replace` so far.
    counts: (usize, usize),
    /// Context lines as (search line, replacement line) pairs.
    kept: Vec<(usize, usize)>,
}

impl HunkReader {
    /// A hunk starting at 0-based line `first`.
    fn new(first: usize, start: HunkStart) -> HunkReader {
        HunkReader {
            start,
            first,
            last: first,
            search: String::new(),
            replace: String::new(),
            blank_run: 0,
            changed_or_context: 0,
            counts: (0, 0),
            kept: Vec::new(),
        }
    }

    /// Adds a line of the hunk at 0-based line `k`.
    fn push(&mut self, line: HunkLine, k: usize) {
        if let HunkLine::Blank = line {
            self.blank_run += 1;
            return;
        }
        self.flush_blanks();
        self.last = k;
        self.changed_or_context += 1;
        let (to_search, to_replace, text) = match line {
            HunkLine::Context(text) => (true, true, text),
            HunkLine::Removed(text) => (true, false, text),
            HunkLine::Added(text) => (false, true, text),
            HunkLine::Blank => (false, false, ""),
        };
        if to_search && to_replace {
            self.kept.push(self.counts);
        }
        for (wanted, out, count) in [
            (to_search, &mut self.search, &mut self.counts.0),
            (to_replace, &mut self.replace, &mut self.counts.1),
        ] {
            if wanted {
                out.push_str(text);
                out.push('\n');
                *count += 1;
            }
        }
    }

    /// Turns pending empty lines into empty context lines.
    fn flush_blanks(&mut self) {
        let blanks = "\n".repeat(self.blank_run);
        self.search.push_str(&blanks);
        self.replace.push_str(&blanks);
        let (old, new) = self.counts;
        self.kept
            .extend((0..self.blank_run).map(|i| (old + i, new + i)));
        self.counts = (old + self.blank_run, new + self.blank_run);
        self.changed_or_context += self.blank_run;
        self.blank_run = 0;
    }

    /// Ends the hunk at its `*** End of File` line `k` (kept in its span).
    fn finish_at(
        mut self,
        k: usize,
        at_end_of_file: bool,
    ) -> Result<(Replace, SourceSpan), Box<EditError>> {
        if at_end_of_file {
            // Empty lines right before `*** End of File` are the file's last lines.
            self.flush_blanks();
        }
        self.last = k;
        self.finish(at_end_of_file)
    }

    /// The finished hunk; trailing empty lines are dropped unless anchored
    /// at the end of the file.
    fn finish(self, at_end_of_file: bool) -> Result<(Replace, SourceSpan), Box<EditError>> {
        let line = self.first + 1;
        if self.changed_or_context == 0 {
            let message = if self.start.explicit {
                format!("the `@@` hunk at payload line {line} has no lines; give it ` `, `-` or `+` lines or remove it")
            } else {
                format!("`*** End of File` at payload line {line} ends no hunk; put it right after the last line of a hunk")
            };
            return Err(Box::new(EditError::at_payload_line(
                ErrorKind::Parse,
                line,
                message,
            )));
        }
        let replace = Replace {
            line_hint: self.start.line_hint,
            context_header: self.start.context_header,
            at_end_of_file,
            kept: self.kept,
            ..Replace::lines(self.search, self.replace)
        };
        Ok((replace, SourceSpan::lines(line, self.last + 1)))
    }
}

/// The value of a `*** Header: value` line (already trimmed), if it is one.
fn header_value<'a>(trimmed: &'a str, header: &str) -> Option<&'a str> {
    trimmed.strip_prefix(header).map(str::trim)
}

/// A non-empty path, or the error naming the 0-based header line.
fn check_path(path: &str, header: usize) -> Result<String, Box<EditError>> {
    if path.is_empty() {
        let message = format!(
            "the file header at payload line {} names no path; write it as `*** Update File: \
             path/to/file`",
            header + 1
        );
        return Err(Box::new(EditError::at_payload_line(
            ErrorKind::Parse,
            header + 1,
            message,
        )));
    }
    Ok(path.to_string())
}

/// Does `line` end a file operation: a `***` header (known or not, padded or
/// not), `*** End Patch`, or a closing code fence?
fn ends_operation(line: &str) -> bool {
    let trimmed = line.trim();
    let known = [END_PATCH, ADD_FILE, DELETE_FILE, UPDATE_FILE, MOVE_TO]
        .iter()
        .any(|h| trimmed.starts_with(h));
    known || line.starts_with("***")
}

/// The 0-based line of the next `***` line at or after `from` (to resume
/// after a broken operation).
fn next_header(lines: &[&str], from: usize) -> usize {
    (from..lines.len())
        .find(|&k| {
            lines
                .get(k)
                .is_some_and(|l| l.trim_start().starts_with("***"))
        })
        .unwrap_or(lines.len())
}

fn empty_patch_error(open_line: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        open_line,
        format!(
            "the patch at payload line {open_line} has no file operation; add `*** Update File: \
             PATH` with hunks, `*** Add File: PATH` or `*** Delete File: PATH` before `*** End \
             Patch`"
        ),
    )
}

fn stray_line_error(trimmed: &str, line: usize) -> EditError {
    let message = if trimmed.starts_with("***") {
        format!(
            "unknown patch header `{trimmed}` at payload line {line}; use `*** Add File: PATH`, \
             `*** Delete File: PATH`, `*** Update File: PATH` (optionally followed by `*** Move \
             to: PATH`) or `*** End Patch`"
        )
    } else {
        format!(
            "payload line {line} is outside any file operation of the patch; start the \
             operation with `*** Update File: PATH`, `*** Add File: PATH` or `*** Delete File: \
             PATH`"
        )
    };
    EditError::at_payload_line(ErrorKind::Parse, line, message)
}

fn unclosed_error(open_line: usize, fence_line: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        open_line,
        format!(
            "the patch opened at payload line {open_line} has no `*** End Patch` before its code \
             fence closes at payload line {fence_line}; end the patch with `*** End Patch`"
        ),
    )
}

fn truncated_error(open_line: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Truncated,
        open_line,
        format!(
            "the payload ends inside the patch opened by `*** Begin Patch` at payload line \
             {open_line} (no `*** End Patch`); resend the whole patch"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Block {
        let mut scan = Scan::new(text);
        parse(&mut scan, 0)
    }

    fn replace_of(edit: &ParsedEdit) -> &Replace {
        match &edit.op {
            EditOp::Replace(r) => r,
            other => panic!("not a replace: {other:?}"),
        }
    }

    #[test]
    fn update_hunks_share_a_group_and_move_comes_last() {
        let block = parse_text(
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ def f():\n-x\n+y\n\n z\n@@\n+tail\n*** End of File\n*** End Patch\n",
        );
        assert!(block.errors.is_empty(), "{:?}", block.errors);
        assert_eq!(block.edits.len(), 3);
        assert_eq!(block.edits[0].ordering, block.edits[1].ordering);
        let first = replace_of(&block.edits[0]);
        assert_eq!(first.search, "x\n\nz\n");
        assert_eq!(first.replace, "y\n\nz\n");
        assert_eq!(first.context_header.as_deref(), Some("def f():"));
        let second = replace_of(&block.edits[1]);
        assert_eq!(second.search, "");
        assert!(second.at_end_of_file);
        assert_eq!(block.edits[2].op, EditOp::Rename { to: "b.py".into() });
        assert_eq!(block.next_line, 12);
    }

    #[test]
    fn a_hunk_line_that_looks_like_a_fence_is_a_hunk_line() {
        // A docstring's `~~~` underline as context: no fence is open, and a
        // ``` fence is not closed by tildes.
        for text in [
            "*** Begin Patch\n*** Update File: a\n@@\n ~~~~~\n-x\n+y\n*** End Patch\n",
            "```\n*** Begin Patch\n*** Update File: a\n@@\n ~~~~~\n-x\n+y\n*** End Patch\n```\n",
        ] {
            let mut scan = Scan::new(text);
            let open = (0..3).find(|&i| opens(&scan, i)).unwrap();
            let block = parse(&mut scan, open);
            assert!(block.errors.is_empty(), "{:?}", block.errors);
            assert_eq!(block.edits.len(), 1);
        }
        // The fence the patch is in closes it.
        let mut scan = Scan::new("~~~\n*** Begin Patch\n*** Update File: a\n@@\n-x\n~~~\n");
        let block = parse(&mut scan, 1);
        assert!(block.edits.is_empty());
        assert!(block.errors[0]
            .message
            .contains("code fence closes at payload line 6"));
    }

    #[test]
    fn header_keeps_indentation_after_one_space() {
        let start = hunk_header("@@   async list(): Promise<X> {");
        assert_eq!(
            start.context_header.as_deref(),
            Some("  async list(): Promise<X> {")
        );
        assert_eq!(hunk_header("@@ -12,3 +12,4 @@").line_hint, Some(12));
    }

    #[test]
    fn trailing_blank_lines_are_dropped() {
        let block =
            parse_text("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\n*** End Patch\n");
        assert_eq!(replace_of(&block.edits[0]).search, "x\n");
    }

    #[test]
    fn add_and_delete() {
        let block = parse_text(
            "*** Begin Patch\n*** Add File: n.txt\n+a\n+\n+b\n*** Delete File: o.txt\n*** End Patch\n",
        );
        assert_eq!(
            block.edits[0].op,
            EditOp::Create {
                content: "a\n\nb\n".into()
            }
        );
        assert_eq!(block.edits[1].op, EditOp::Delete);
    }

    #[test]
    fn errors() {
        let kinds = |text: &str| -> Vec<(ErrorKind, Vec<usize>)> {
            parse_text(text)
                .errors
                .into_iter()
                .map(|e| (e.kind, e.lines))
                .collect()
        };
        assert_eq!(
            kinds("*** Begin Patch\n*** End Patch\n"),
            vec![(ErrorKind::Parse, vec![1])]
        );
        assert_eq!(
            kinds("*** Begin Patch\n*** Update File: a\n*** End Patch\n"),
            vec![(ErrorKind::Parse, vec![2])]
        );
        assert_eq!(
            kinds("*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n"),
            vec![(ErrorKind::Parse, vec![2])]
        );
        assert_eq!(
            kinds("*** Begin Patch\n*** Update File: a\n@@\n-x\n"),
            vec![(ErrorKind::Truncated, vec![1])]
        );
    }
}
