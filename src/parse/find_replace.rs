//! The `find_replace` format (seed 004, `FORMATS.md` §2):
//!
//! ````text
//! FILE: path/to/file.py
//! CHANGE: optional one-line description
//! FIND:
//! ```python
//! old lines
//! ```
//! REPLACE:
//! ```python
//! new lines
//! ```
//! ````
//!
//! `FILE:` holds for the changes after it until the next `FILE:`, even when
//! prose separates them: a later `FIND:` reuses the last path. A longer fence
//! (````` ```` `````) wraps code that itself contains ```` ``` ````. An empty
//! FIND creates the file.

use super::conflict_markers::join_lines;
use super::{markdown, Block, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, Replace, SourceSpan};

/// Does a `find_replace` block open at 0-based line `i`: a `FILE:` line
/// whose changes follow, or a `FIND:` line followed by a fence?
pub fn opens(scan: &Scan, i: usize) -> bool {
    let Some(line) = scan.line(i) else {
        return false;
    };
    // `FILE:` and `FIND:` both hold an `F` (most lines do not).
    if memchr::memchr(b'F', line.as_bytes()).is_none() {
        return false;
    }
    if file_header(line).is_some() {
        let next = skip(scan, i + 1, |l| {
            l.trim().is_empty() || is_label(l, "CHANGE:")
        });
        return scan.line(next).is_some_and(|l| is_label(l, "FIND:"));
    }
    is_label(line, "FIND:")
        && scan
            .line(next_non_blank(scan, i + 1))
            .is_some_and(|l| markdown::fence(l).is_some())
}

/// Parses the `FILE:` section (or lone `FIND:` pair) opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let mut block = Block::default();
    let mut j = i;
    if let Some(path) = scan.line(i).and_then(file_header) {
        scan.set_last_path(&path);
        j += 1;
    }
    loop {
        j = skip(scan, j, |l| l.trim().is_empty() || is_label(l, "CHANGE:"));
        if !scan.line(j).is_some_and(|l| is_label(l, "FIND:")) {
            break;
        }
        match parse_pair(scan, j) {
            Ok(pair) => {
                let next_line = pair.next_line;
                match scan.last_path() {
                    Some(path) => block.edits.push(pair.edit(path)),
                    None => block.errors.push(no_file(j)),
                }
                j = next_line;
            }
            Err((error, resume)) => {
                block.errors.push(error);
                j = resume;
                break;
            }
        }
    }
    block.next_line = j.max(i + 1);
    block
}

/// One FIND/REPLACE pair.
struct Pair {
    find_line: usize,
    search: Vec<String>,
    replace: Vec<String>,
    /// 0-based line after the REPLACE's closing fence.
    next_line: usize,
}

impl Pair {
    fn edit(self, path: String) -> ParsedEdit {
        let op = if self.search.iter().all(|l| l.trim().is_empty()) {
            EditOp::Create {
                content: join_lines(&self.replace),
            }
        } else {
            EditOp::Replace(Replace::lines(
                join_lines(&self.search),
                join_lines(&self.replace),
            ))
        };
        ParsedEdit {
            path,
            format: Format::FindReplace,
            source: SourceSpan::lines(self.find_line + 1, self.next_line),
            ordering: Ordering::Sequential,
            op,
        }
    }
}

/// A parse problem and the 0-based line to resume at.
type Broken = (EditError, usize);

/// Parses the pair whose `FIND:` is line `find`.
fn parse_pair(scan: &Scan, find: usize) -> Result<Pair, Broken> {
    let (search, after_find) = fenced_code(scan, find, "FIND:")?;
    let replace_label = next_non_blank(scan, after_find);
    match scan.line(replace_label) {
        None => Err((
            EditError::at_payload_line(
                ErrorKind::Truncated,
                find + 1,
                format!(
                    "the payload ends after the FIND at payload line {} without its REPLACE:; \
                     the response was probably cut off: send the whole change again",
                    find + 1
                ),
            ),
            scan.lines.len(),
        )),
        Some(line) if !is_label(line, "REPLACE:") => Err((
            EditError::at_payload_line(
                ErrorKind::Parse,
                replace_label + 1,
                format!(
                    "expected `REPLACE:` at payload line {} after the FIND at line {}, found \
                     `{}`; follow every FIND: code block with REPLACE: and a code block",
                    replace_label + 1,
                    find + 1,
                    line.trim()
                ),
            ),
            replace_label,
        )),
        Some(_) => {
            let (replace, next_line) = fenced_code(scan, replace_label, "REPLACE:")?;
            Ok(Pair {
                find_line: find,
                search,
                replace,
                next_line,
            })
        }
    }
}

/// The code of the fence after the label at line `label`, and the line
/// after its closing fence.
fn fenced_code(scan: &Scan, label: usize, name: &str) -> Result<(Vec<String>, usize), Broken> {
    let open_line = next_non_blank(scan, label + 1);
    let Some(open) = scan.line(open_line).and_then(markdown::fence) else {
        let kind = if open_line >= scan.lines.len() {
            ErrorKind::Truncated
        } else {
            ErrorKind::Parse
        };
        return Err((
            EditError::at_payload_line(
                kind,
                label + 1,
                format!(
                    "`{name}` at payload line {} must be followed by a fenced code block \
                     (```` ```lang ```` … ```` ``` ````)",
                    label + 1
                ),
            ),
            open_line,
        ));
    };
    let body = open_line + 1;
    let Some(close) = (body..scan.lines.len()).find(|&j| markdown::closes(scan.lines[j], &open))
    else {
        return Err((
            EditError::at_payload_line(
                ErrorKind::Truncated,
                open_line + 1,
                format!(
                    "the payload ends inside the code fence opened at payload line {} (after \
                     `{name}`); the response was probably cut off: send the whole change again",
                    open_line + 1
                ),
            ),
            scan.lines.len(),
        ));
    };
    let code = scan.lines[body..close]
        .iter()
        .map(|l| l.to_string())
        .collect();
    Ok((code, close + 1))
}

/// The path of a `FILE: path` line.
fn file_header(line: &str) -> Option<String> {
    let line = undecorated(line);
    let path = markdown::strip_path_decoration(line.strip_prefix("FILE:")?);
    markdown::looks_like_path(&path).then_some(path)
}

/// Is `line` the label `FIND:` / `REPLACE:` / `CHANGE:` (bold tolerated)?
fn is_label(line: &str, label: &str) -> bool {
    let line = undecorated(line);
    if label == "CHANGE:" {
        line.starts_with(label)
    } else {
        line == label
    }
}

/// The line trimmed, with `**` bold markers removed.
fn undecorated(line: &str) -> std::borrow::Cow<'_, str> {
    let line = line.trim();
    if super::markdown::has_bold_marker(line) {
        std::borrow::Cow::Owned(line.replace("**", "").trim().to_string())
    } else {
        std::borrow::Cow::Borrowed(line)
    }
}

/// The first line at or after `from` that `skip_it` does not skip.
fn skip(scan: &Scan, from: usize, skip_it: impl Fn(&str) -> bool) -> usize {
    (from..scan.lines.len())
        .find(|&j| !skip_it(scan.lines[j]))
        .unwrap_or(scan.lines.len())
}

fn next_non_blank(scan: &Scan, from: usize) -> usize {
    skip(scan, from, |l| l.trim().is_empty())
}

fn no_file(find: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        find + 1,
        format!(
            "the FIND at payload line {} has no `FILE: path` line before it; start the changes \
             of each file with `FILE: path/to/file`",
            find + 1
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse as parse_payload;

    #[test]
    fn file_holds_for_later_changes() {
        let p = parse_payload(
            "FILE: a.py\nCHANGE: one\nFIND:\n```py\nx\n```\nREPLACE:\n```py\ny\n```\n\n\
             Some prose.\n\nFIND:\n```\nz\n```\nREPLACE:\n```\n```\n",
            None,
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.batch.edits.len(), 2);
        assert_eq!(p.batch.edits[1].path, "a.py");
        assert_eq!(
            p.batch.edits[1].op,
            EditOp::Replace(Replace::lines("z\n", ""))
        );
        assert_eq!(p.batch.edits[0].source, SourceSpan::lines(3, 10));
    }

    #[test]
    fn longer_fence_wraps_fences() {
        let p = parse_payload(
            "FILE: R.md\nFIND:\n````md\n```bash\nmake\n```\n````\nREPLACE:\n````\nnew\n````\n",
            None,
        );
        assert_eq!(
            p.batch.edits[0].op,
            EditOp::Replace(Replace::lines("```bash\nmake\n```\n", "new\n"))
        );
    }

    #[test]
    fn empty_find_creates() {
        let p = parse_payload(
            "FILE: n.txt\nFIND:\n```\n```\nREPLACE:\n```\nhi\n```\n",
            None,
        );
        assert_eq!(
            p.batch.edits[0].op,
            EditOp::Create {
                content: "hi\n".into()
            }
        );
    }

    #[test]
    fn open_fence_at_the_end_is_truncated() {
        let p = parse_payload("FILE: a\nFIND:\n```\nx\n```\nREPLACE:\n```\ny\n", None);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(p.errors[0].lines, [7]);
    }
}
