//! The `edit_block` format (seed 003, `FORMATS.md` §2):
//!
//! ```text
//! src/math.py
//! ««« EDIT
//! def multiply(a, b):
//!     return a + b
//! ═══════ REPL
//! def multiply(a, b):
//!     return a * b
//! »»» EDIT END
//! ```
//!
//! The EDIT section is the search, the REPL section the replacement (their
//! common leading lines are the anchor; matching the whole EDIT section is
//! the resolver's job). An empty EDIT section creates the file.
//!
//! Both `««« EDIT` dialects open with the same line; this module also holds
//! the marker recognizers shared with [`super::edit_block_v2`] and
//! [`dialect`], which looks ahead to tell the two apart.

use super::{markdown, Block, Edits, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, Replace, SourceSpan};

/// Which `««« EDIT` format a block is written in, judged by its first marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Seed 003: `═══════ REPL` / `»»» EDIT END` (also the default when the
    /// block has no marker at all, e.g. a truncated payload).
    Repl,
    /// Seed 001: `───────` rules around old/new, closed by `»»»`.
    Anchored,
}

/// Tells the two `««« EDIT` dialects apart by the first marker after the
/// opening line `open`: a `───────` rule or a bare `»»»` close means
/// [`Dialect::Anchored`], anything else [`Dialect::Repl`].
pub fn dialect(scan: &Scan, open: usize) -> Dialect {
    for line in scan.lines.iter().skip(open + 1) {
        if is_single_rule(line) || is_bare_close(line) {
            return Dialect::Anchored;
        }
        if is_repl_separator(line) || is_edit_end(line) || is_edit_open(line) {
            return Dialect::Repl;
        }
    }
    Dialect::Repl
}

/// `««« EDIT` (three or more `«`, trailing whitespace ignored).
pub fn is_edit_open(line: &str) -> bool {
    strip_run(line.trim_end(), '«').is_some_and(|rest| rest.trim_start() == "EDIT")
        && !line.starts_with(char::is_whitespace)
}

/// `═══════ REPL` or a bare `═══════` (three or more `═`).
fn is_repl_separator(line: &str) -> bool {
    strip_run(line.trim_end(), '═')
        .is_some_and(|rest| rest.is_empty() || rest.trim_start() == "REPL")
}

/// `»»» EDIT END` (three or more `»`).
fn is_edit_end(line: &str) -> bool {
    strip_run(line.trim_end(), '»').is_some_and(|rest| rest.trim_start() == "EDIT END")
}

/// A bare `═══════` line (three or more `═`, nothing else).
pub fn is_double_rule(line: &str) -> bool {
    strip_run(line.trim_end(), '═').is_some_and(str::is_empty)
}

/// A bare `───────` line (three or more `─`, U+2500, nothing else).
pub fn is_single_rule(line: &str) -> bool {
    strip_run(line.trim_end(), '─').is_some_and(str::is_empty)
}

/// A bare `»»»` line (three or more `»`, nothing else).
pub fn is_bare_close(line: &str) -> bool {
    strip_run(line.trim_end(), '»').is_some_and(str::is_empty)
}

/// Any marker line of either dialect.
fn is_marker(line: &str) -> bool {
    is_any_close(line) || is_edit_open(line) || is_repl_separator(line) || is_single_rule(line)
}

/// Either closer: `»»»` or `»»» EDIT END`.
pub fn is_any_close(line: &str) -> bool {
    is_bare_close(line) || is_edit_end(line)
}

/// Strips a leading run of three or more `ch`, returning the rest.
fn strip_run(line: &str, ch: char) -> Option<&str> {
    let rest = line.trim_start_matches(ch);
    let run = (line.len() - rest.len()) / ch.len_utf8();
    (run >= 3).then_some(rest)
}

/// Newline-terminated lines: `["a", "b"]` → `"a\nb\n"`.
pub fn joined_lines(lines: &[&str]) -> String {
    lines.iter().flat_map(|l| [*l, "\n"]).collect()
}

/// The block's path: the path line before it, else the previous block's.
/// Backslash-separated paths (seed 003 accepts `\`) are turned into `/`.
/// The closing marker of a previous block is never taken for a path.
pub fn block_path(scan: &Scan, open: usize) -> Option<String> {
    let path = markdown::path_before(scan, open)
        .filter(|p| !is_marker(p))
        .or_else(|| scan.last_path())?;
    Some(if path.contains('/') {
        path
    } else {
        path.replace('\\', "/")
    })
}

/// The error for a block with no path line and no earlier block.
pub fn missing_path_error(open_line: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        open_line,
        format!(
            "the `««« EDIT` block at payload line {open_line} names no file; put the file path \
             alone on the line right before `««« EDIT`"
        ),
    )
}

/// The error for a payload that ends inside the block opened at `open_line`.
pub fn truncated_error(open_line: usize, missing: &str) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Truncated,
        open_line,
        format!(
            "the payload ends inside the `««« EDIT` block opened at payload line {open_line} \
             (no {missing}); resend the whole block"
        ),
    )
}

/// The error for a block cut short by the next `««« EDIT` at `next_line`.
pub fn unclosed_error(open_line: usize, next_line: usize, missing: &str) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        open_line,
        format!(
            "the `««« EDIT` block at payload line {open_line} is not closed: another `««« EDIT` \
             starts at payload line {next_line} before its {missing}; close every block before \
             starting the next"
        ),
    )
}

/// Does a seed 003 block open at 0-based line `i`?
pub fn opens(scan: &Scan, i: usize) -> bool {
    scan.line(i).is_some_and(is_edit_open) && dialect(scan, i) == Dialect::Repl
}

/// Parses the seed 003 block opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let read = read_sections(scan, i).map(|sections| {
        let op = if sections.edit.is_empty() {
            EditOp::Create {
                content: sections.repl,
            }
        } else {
            EditOp::Replace(Replace::lines(sections.edit, sections.repl))
        };
        (op, sections.close)
    });
    block_of(scan, i, Format::EditBlock, read)
}

/// The block of both `««« EDIT` dialects opening at 0-based line `open`,
/// once its sections are read into an operation and its 0-based closing
/// line (or the error and the line where scanning resumes): the path, the
/// one edit, or the error.
pub fn block_of(
    scan: &mut Scan,
    open: usize,
    format: Format,
    read: Result<(EditOp, usize), Box<(EditError, usize)>>,
) -> Block {
    let open_line = open + 1;
    let (op, close) = match read {
        Ok(read) => read,
        Err(broken) => {
            let (error, next_line) = *broken;
            return Block {
                next_line,
                edits: Edits::None,
                errors: vec![error],
            };
        }
    };
    let next_line = close + 1;
    let Some(path) = block_path(scan, open) else {
        return Block {
            next_line,
            edits: Edits::None,
            errors: vec![missing_path_error(open_line)],
        };
    };
    scan.set_last_path(&path);
    Block {
        next_line,
        edits: Edits::One(ParsedEdit {
            path,
            format,
            source: SourceSpan::lines(open_line, next_line),
            ordering: Ordering::Sequential,
            op,
        }),
        errors: Vec::new(),
    }
}

/// The two sections of a complete block and its 0-based closing line.
struct Sections {
    edit: String,
    repl: String,
    close: usize,
}

/// Reads the EDIT and REPL sections of the block opening at `open`, or the
/// error and the 0-based line where scanning resumes.
fn read_sections(scan: &Scan, open: usize) -> Result<Sections, Box<(EditError, usize)>> {
    let open_line = open + 1;
    let mut separator = None;
    for (j, line) in scan.lines.iter().enumerate().skip(open + 1) {
        if is_edit_open(line) {
            let missing = if separator.is_some() {
                "`»»» EDIT END`"
            } else {
                "`═══════ REPL`"
            };
            return Err(Box::new((unclosed_error(open_line, j + 1, missing), j)));
        }
        match separator {
            None if is_repl_separator(line) => separator = Some(j),
            None if is_any_close(line) => {
                let message = format!(
                    "`»»» EDIT END` at payload line {} comes before `═══════ REPL` in the \
                     `««« EDIT` block at payload line {open_line}; put `═══════ REPL` between the \
                     old text and the new text",
                    j + 1
                );
                let error = EditError::at_payload_line(ErrorKind::Parse, j + 1, message);
                return Err(Box::new((error, j + 1)));
            }
            Some(sep) if is_any_close(line) => {
                let lines = &scan.lines;
                return Ok(Sections {
                    edit: joined_lines(lines.get(open + 1..sep).unwrap_or_default()),
                    repl: joined_lines(lines.get(sep + 1..j).unwrap_or_default()),
                    close: j,
                });
            }
            Some(sep) if is_repl_separator(line) => {
                let message = format!(
                    "a second `═══════ REPL` at payload line {} (the first is at line {}); a \
                     block has one EDIT and one REPL section",
                    j + 1,
                    sep + 1
                );
                let error = EditError::at_payload_line(ErrorKind::Parse, j + 1, message);
                return Err(Box::new((error, j + 1)));
            }
            _ => {}
        }
    }
    let missing = if separator.is_some() {
        "`»»» EDIT END`"
    } else {
        "`═══════ REPL` and `»»» EDIT END`"
    };
    Err(Box::new((
        truncated_error(open_line, missing),
        scan.lines.len(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Block {
        let mut scan = Scan::new(text);
        let open = scan.lines.iter().position(|l| is_edit_open(l)).unwrap();
        parse(&mut scan, open)
    }

    #[test]
    fn tells_dialects_apart() {
        let v1 = Scan::new("a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n");
        assert_eq!(dialect(&v1, 1), Dialect::Repl);
        let v2 = Scan::new("a.py\n««« EDIT\nx\n───────\n═══════\n───────\n»»»\n");
        assert_eq!(dialect(&v2, 1), Dialect::Anchored);
        assert!(opens(&v1, 1));
        assert!(!opens(&v2, 1));
    }

    #[test]
    fn marker_variants() {
        assert!(is_edit_open("««« EDIT  "));
        assert!(is_edit_open("«««« EDIT"));
        assert!(!is_edit_open("  ««« EDIT"));
        assert!(!is_edit_open("«« EDIT"));
        assert!(is_repl_separator("═════ REPL"));
        assert!(is_repl_separator("═══════"));
        assert!(is_edit_end("»»»» EDIT END "));
        assert!(is_single_rule("──────────"));
        assert!(!is_single_rule("─── x"));
    }

    #[test]
    fn replace_and_create() {
        let block = parse_text("src/a.py\n««« EDIT\nold\n═══════ REPL\nnew\n»»» EDIT END\n");
        assert_eq!(block.next_line, 6);
        assert_eq!(block.edits[0].path, "src/a.py");
        assert_eq!(
            block.edits[0].op,
            EditOp::Replace(Replace::lines("old\n", "new\n"))
        );
        let block = parse_text("src/b.py\n««« EDIT\n═══════ REPL\nx\n\n»»» EDIT END\n");
        assert_eq!(
            block.edits[0].op,
            EditOp::Create {
                content: "x\n\n".into()
            }
        );
    }

    #[test]
    fn backslash_paths_become_slashes() {
        let block = parse_text("src\\a.py\n««« EDIT\nold\n═══════ REPL\nnew\n»»» EDIT END\n");
        assert_eq!(block.edits[0].path, "src/a.py");
    }

    #[test]
    fn truncated_block() {
        let block = parse_text("a.py\n««« EDIT\nold\n═══════ REPL\nnew\n");
        assert_eq!(block.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(block.errors[0].lines, vec![2]);
        assert!(block.edits.is_empty());
    }
}
