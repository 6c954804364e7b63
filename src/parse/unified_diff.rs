//! The `unified_diff` format (`FORMATS.md` §2): `diff -u` / `git diff` output.
//!
//! ```text
//! diff --git a/src/app.py b/src/app.py
//! --- a/src/app.py
//! +++ b/src/app.py
//! @@ -10,3 +10,3 @@ def main():
//!      setup()
//! -    run(1)
//! +    run(2)
//! ```
//!
//! Each hunk becomes a line [`Replace`] of its context+removed lines by its
//! context+added lines, with the old start line as a hint; the hunks of one
//! file share one [`Ordering::Simultaneous`] group. Line counts are hints
//! only: a hunk ends at the next header or at a line that is not a hunk line.
//! `--- /dev/null` creates, `+++ /dev/null` deletes, `rename from/to` (or
//! differing old/new paths) renames after the hunks. `a/` and `b/` prefixes
//! are stripped.

use super::{markdown, Block, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, Replace, SourceSpan};

/// Does a diff open at 0-based line `i` (`diff --git`, or `--- ` followed by `+++ `)?
pub fn opens(scan: &Scan, i: usize) -> bool {
    starts_file(&scan.lines, i)
}

/// Parses the diff opening at 0-based line `i`: every file section that follows.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let fenced = markdown::open_fence_at(&scan.lines, i).is_some();
    let mut block = Block::default();
    let mut j = i;
    while starts_file(&scan.lines, j) {
        let section = read_section(&scan.lines, j);
        j = section.end;
        if section.cut_by_eof && fenced {
            block.errors.push(truncated_error(section.first + 1));
            break;
        }
        match section.into_edits(scan) {
            Ok(edits) => block.edits.extend(edits),
            Err(error) => block.errors.push(*error),
        }
    }
    block.next_line = j.max(i + 1);
    block
}

/// What an `@@ -a,b +c,d @@` line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HunkHeader {
    /// The old start line `a` (`None` for `0`, an insertion at the top).
    pub old_start: Option<usize>,
    /// The old line count `b` (1 when omitted).
    pub old_count: usize,
    /// The new line count `d` (1 when omitted).
    pub new_count: usize,
}

/// Parses a unified hunk header `@@ -a[,b] +c[,d] @@[ section]`.
pub fn hunk_header(line: &str) -> Option<HunkHeader> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_count) = range(old)?;
    let (_, new_count) = range(new.trim())?;
    Some(HunkHeader {
        old_start: (old_start > 0).then_some(old_start),
        old_count,
        new_count,
    })
}

/// `a` or `a,b` → `(a, b)` with `b` defaulting to 1.
fn range(text: &str) -> Option<(usize, usize)> {
    match text.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

/// Does a file section start at 0-based line `j`?
fn starts_file(lines: &[&str], j: usize) -> bool {
    let Some(line) = lines.get(j) else {
        return false;
    };
    line.starts_with("diff --git ")
        || (line.starts_with("--- ") && lines.get(j + 1).is_some_and(|l| l.starts_with("+++ ")))
}

/// Does the line at `j` start a new hunk or file (and so end a hunk)?
fn starts_header(lines: &[&str], j: usize) -> bool {
    lines.get(j).is_some_and(|l| l.starts_with("@@")) || starts_file(lines, j)
}

/// One file of a diff, as read.
#[derive(Default)]
struct Section {
    /// 0-based first line (`diff --git` or `---`).
    first: usize,
    /// 0-based line after the section.
    end: usize,
    /// The old path (`None` for `/dev/null` or when not given).
    old_path: Option<String>,
    /// The new path (`None` for `/dev/null` or when not given).
    new_path: Option<String>,
    /// `new file mode` or `--- /dev/null`.
    created: bool,
    /// `deleted file mode` or `+++ /dev/null`.
    deleted: bool,
    /// `rename from` / `rename to` (or git paths that differ).
    renamed: bool,
    /// `--- ` / `+++ ` lines were present.
    has_file_lines: bool,
    /// `Binary files … differ` or `GIT binary patch`.
    binary: bool,
    /// The payload ended inside the last hunk.
    cut_by_eof: bool,
    hunks: Vec<(Replace, SourceSpan)>,
    /// The `@@` hunks with no line (neither ` `, `-` nor `+`): how many,
    /// and the payload lines (1-based) of the first and the last. Not
    /// kept as hunks: a refusal names them once, however many there are.
    empty_hunks: (usize, usize, usize),
}

/// Reads the file section starting at 0-based line `first`.
fn read_section(lines: &[&str], first: usize) -> Section {
    let mut section = Section {
        first,
        ..Section::default()
    };
    let mut j = first;
    if let Some(rest) = lines.get(j).and_then(|l| l.strip_prefix("diff --git ")) {
        if let Some((old, new)) = git_paths(rest) {
            section.renamed = old != new;
            section.old_path = Some(old);
            section.new_path = Some(new);
        }
        j = read_extended_headers(lines, j + 1, &mut section);
    }
    if lines.get(j).is_some_and(|l| l.starts_with("--- "))
        && lines.get(j + 1).is_some_and(|l| l.starts_with("+++ "))
    {
        section.has_file_lines = true;
        let old = lines
            .get(j)
            .map(|l| file_line_path(l, "a/"))
            .unwrap_or_default();
        let new = lines
            .get(j + 1)
            .map(|l| file_line_path(l, "b/"))
            .unwrap_or_default();
        section.created |= old.is_none();
        section.deleted |= new.is_none();
        section.old_path = old.or(section.old_path);
        section.new_path = new.or(section.new_path);
        j += 2;
    }
    while let Some(line) = lines.get(j).filter(|l| l.starts_with("@@")) {
        let (hunk, next, cut) = read_hunk(lines, j, hunk_header(line));
        if hunk.0.search.is_empty() && hunk.0.replace.is_empty() {
            let (count, first, _) = section.empty_hunks;
            let first = if count == 0 { j + 1 } else { first };
            section.empty_hunks = (count + 1, first, j + 1);
        } else {
            section.hunks.push(hunk);
        }
        section.cut_by_eof = cut;
        j = next;
    }
    if let (Some(old), Some(new)) = (&section.old_path, &section.new_path) {
        section.renamed |= old != new && !section.created && !section.deleted;
    }
    section.end = j;
    section
}

/// Reads git's extended header lines from `j`; returns the line after them.
fn read_extended_headers(lines: &[&str], mut j: usize, section: &mut Section) -> usize {
    const IGNORED: [&str; 8] = [
        "index ",
        "old mode ",
        "new mode ",
        "similarity index ",
        "dissimilarity index ",
        "copy from ",
        "copy to ",
        "\\ ",
    ];
    while let Some(line) = lines.get(j) {
        if let Some(path) = line.strip_prefix("rename from ") {
            section.old_path = Some(unquote(path).to_string());
            section.renamed = true;
        } else if let Some(path) = line.strip_prefix("rename to ") {
            section.new_path = Some(unquote(path).to_string());
            section.renamed = true;
        } else if line.starts_with("new file mode") {
            section.created = true;
        } else if line.starts_with("deleted file mode") {
            section.deleted = true;
        } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
            section.binary = true;
        } else if !IGNORED.iter().any(|p| line.starts_with(p)) {
            break;
        }
        j += 1;
    }
    j
}

/// The paths of `diff --git a/X b/Y` (prefixes stripped). With spaces in
/// paths the split is ambiguous; the one giving equal paths is preferred.
fn git_paths(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end();
    let splits: Vec<(&str, &str)> = rest
        .match_indices(" b/")
        .filter_map(|(at, _)| Some((rest.get(..at)?, rest.get(at + 1..)?)))
        .collect();
    let strip = |p: &str, prefix: &str| unquote(p).strip_prefix(prefix).unwrap_or(p).to_string();
    let (old, new) = splits
        .iter()
        .find(|(old, new)| strip(old, "a/") == strip(new, "b/"))
        .or(splits.first())
        .copied()
        .or_else(|| rest.split_once(' '))?;
    Some((strip(old, "a/"), strip(new, "b/")))
}

/// The path of a `--- ` / `+++ ` line: the timestamp after a tab cut,
/// quotes and the `a/`/`b/` prefix removed; `None` for `/dev/null`.
fn file_line_path(line: &str, prefix: &str) -> Option<String> {
    let text = line.get(4..).unwrap_or_default();
    let text = text.split('\t').next().unwrap_or_default().trim();
    let text = unquote(text);
    if text == "/dev/null" || text.is_empty() {
        return None;
    }
    Some(text.strip_prefix(prefix).unwrap_or(text).to_string())
}

/// Removes surrounding double quotes (git quotes paths with odd characters).
fn unquote(path: &str) -> &str {
    path.strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path)
}

/// Reads the hunk whose `@@` line is `at`. Returns the hunk, the 0-based
/// line after it, and whether the payload ended inside it.
fn read_hunk(
    lines: &[&str],
    at: usize,
    header: Option<HunkHeader>,
) -> ((Replace, SourceSpan), usize, bool) {
    let mut search = String::new();
    let mut replace = String::new();
    let (mut old_seen, mut new_seen) = (0, 0);
    // Context lines as (old line, new line) pairs.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut blank_run = 0;
    let mut last = at;
    let mut k = at + 1;
    while let Some(&line) = lines.get(k) {
        if starts_header(lines, k) {
            break;
        }
        // The prefixes are ASCII, so slicing after one byte is safe.
        let (to_old, to_new) = match line.as_bytes().first() {
            None => {
                blank_run += 1;
                k += 1;
                continue;
            }
            Some(b' ') => (true, true),
            Some(b'-') => (true, false),
            Some(b'+') => (false, true),
            Some(b'\\') => (false, false),
            Some(_) => break,
        };
        let blanks = "\n".repeat(blank_run);
        search.push_str(&blanks);
        replace.push_str(&blanks);
        kept.extend((0..blank_run).map(|i| (old_seen + i, new_seen + i)));
        old_seen += blank_run;
        new_seen += blank_run;
        blank_run = 0;
        let text = line.get(1..).unwrap_or_default();
        if to_old && to_new {
            kept.push((old_seen, new_seen));
        }
        if to_old {
            search.push_str(text);
            search.push('\n');
            old_seen += 1;
        }
        if to_new {
            replace.push_str(text);
            replace.push('\n');
            new_seen += 1;
        }
        last = k;
        k += 1;
    }
    // Trailing empty lines are context only as far as the counts ask for them.
    let wanted = header.map_or(0, |h| {
        blank_run
            .min(h.old_count.saturating_sub(old_seen))
            .min(h.new_count.saturating_sub(new_seen))
    });
    let blanks = "\n".repeat(wanted);
    search.push_str(&blanks);
    replace.push_str(&blanks);
    kept.extend((0..wanted).map(|i| (old_seen + i, new_seen + i)));
    let last = if wanted > 0 { last + wanted } else { last };
    let hunk = Replace {
        line_hint: header.and_then(|h| h.old_start),
        kept,
        ..Replace::lines(search, replace)
    };
    let cut_by_eof = k >= lines.len();
    ((hunk, SourceSpan::lines(at + 1, last + 1)), k, cut_by_eof)
}

impl Section {
    /// The edits of this file: a create, a delete, or its hunks (one
    /// simultaneous group) followed by a rename.
    fn into_edits(self, scan: &mut Scan) -> Result<Vec<ParsedEdit>, Box<EditError>> {
        let line = self.first + 1;
        if self.binary {
            return Err(parse_error(
                line,
                format!(
                "the diff at payload line {line} is a binary patch; binary files cannot be edited \
                 here, give the whole new text instead"
            ),
            ));
        }
        let last_line = self
            .hunks
            .last()
            .map_or(self.end.max(self.first + 1), |(_, s)| s.last_line);
        let edit = |path: &str, source, ordering, op| ParsedEdit {
            path: path.to_string(),
            format: Format::UnifiedDiff,
            source,
            ordering,
            op,
        };
        let whole = SourceSpan::lines(line, last_line);
        if self.created {
            let path = self
                .new_path
                .as_deref()
                .ok_or_else(|| no_path_error(line))?;
            let mut content = String::new();
            for (hunk, span) in &self.hunks {
                if !hunk.search.is_empty() {
                    return Err(parse_error(
                        span.first_line,
                        format!(
                            "the hunk at payload line {} creates `{path}` but has context or `-` \
                         lines; a new file's hunk has only `+` lines",
                            span.first_line
                        ),
                    ));
                }
                content.push_str(&hunk.replace);
            }
            return Ok(vec![edit(
                path,
                whole,
                Ordering::Sequential,
                EditOp::Create { content },
            )]);
        }
        let path = self
            .old_path
            .clone()
            .or_else(|| self.new_path.clone())
            .ok_or_else(|| no_path_error(line))?;
        let path = path.as_str();
        if self.deleted {
            return Ok(vec![edit(
                path,
                whole,
                Ordering::Sequential,
                EditOp::Delete,
            )]);
        }
        if let (count @ 1.., first, last) = self.empty_hunks {
            let message = match count {
                1 => format!(
                    "the `@@` hunk at payload line {first} has no lines; give it ` `, `-` or `+` \
                     lines or remove it"
                ),
                _ => format!(
                    "{} `@@` hunks, from payload line {first} to {last}, have no lines; give \
                     each ` `, `-` or `+` lines or remove them",
                    crate::error::count(count)
                ),
            };
            return Err(parse_error(first, message));
        }
        if self.hunks.is_empty() && !self.renamed && self.has_file_lines {
            return Err(parse_error(
                line,
                format!(
                    "the diff of `{path}` at payload line {line} has no `@@` hunk; add hunks like \
                 `@@ -12,3 +12,4 @@` followed by ` `, `-` and `+` lines"
                ),
            ));
        }
        let mut edits = Vec::new();
        if !self.hunks.is_empty() {
            let group = Ordering::Simultaneous(scan.next_group());
            for (hunk, span) in self.hunks {
                edits.push(edit(path, span, group, EditOp::Replace(hunk)));
            }
        }
        if let Some(to) = self.new_path.filter(|to| self.renamed && to != path) {
            // At the section's last line: edits are ordered by their first
            // line and the rename applies after the hunks.
            let span = SourceSpan::lines(last_line, last_line);
            edits.push(edit(
                path,
                span,
                Ordering::Sequential,
                EditOp::Rename { to },
            ));
        }
        Ok(edits)
    }
}

fn parse_error(line: usize, message: String) -> Box<EditError> {
    Box::new(EditError::at_payload_line(ErrorKind::Parse, line, message))
}

fn no_path_error(line: usize) -> Box<EditError> {
    parse_error(
        line,
        format!(
            "the diff at payload line {line} names no file; start it with `--- a/PATH` and \
         `+++ b/PATH`"
        ),
    )
}

fn truncated_error(line: usize) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Truncated,
        line,
        format!(
            "the payload ends inside the diff starting at payload line {line}, before its code \
             fence closes; resend the whole diff"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Block {
        let mut scan = Scan::new(text);
        let first = (0..scan.lines.len()).find(|&i| opens(&scan, i)).unwrap();
        parse(&mut scan, first)
    }

    #[test]
    fn headers() {
        assert_eq!(
            hunk_header("@@ -3,7 +3,8 @@ fn main() {"),
            Some(HunkHeader {
                old_start: Some(3),
                old_count: 7,
                new_count: 8
            })
        );
        assert_eq!(
            hunk_header("@@ -0,0 +1 @@"),
            Some(HunkHeader {
                old_start: None,
                old_count: 0,
                new_count: 1
            })
        );
        assert_eq!(hunk_header("@@ def foo():"), None);
    }

    #[test]
    fn git_paths_with_spaces() {
        assert_eq!(
            git_paths("a/docs/User Guide.md b/docs/User Guide.md"),
            Some(("docs/User Guide.md".into(), "docs/User Guide.md".into()))
        );
    }

    #[test]
    fn modify_with_hint_and_trailing_blank_context() {
        let block = parse_text("--- a/x.py\n+++ b/x.py\n@@ -4,3 +4,3 @@\n a\n-b\n+c\n\n\nprose\n");
        assert!(block.errors.is_empty());
        let EditOp::Replace(r) = &block.edits[0].op else {
            panic!("{:?}", block.edits[0].op)
        };
        assert_eq!(r.search, "a\nb\n\n");
        assert_eq!(r.replace, "a\nc\n\n");
        assert_eq!(r.line_hint, Some(4));
        assert_eq!(block.next_line, 8);
    }

    #[test]
    fn create_delete_rename() {
        let block = parse_text(
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\ndiff --git a/p b/q\nsimilarity index 100%\nrename from p\nrename to q\n",
        );
        let ops: Vec<_> = block
            .edits
            .iter()
            .map(|e| (e.path.as_str(), e.op.clone()))
            .collect();
        assert_eq!(
            ops,
            vec![
                (
                    "n.txt",
                    EditOp::Create {
                        content: "a\nb\n".into()
                    }
                ),
                ("o.txt", EditOp::Delete),
                ("p", EditOp::Rename { to: "q".into() }),
            ]
        );
    }

    #[test]
    fn fenced_diff_cut_by_eof_is_truncated() {
        let block = parse_text("```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n");
        assert_eq!(block.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(block.errors[0].lines, vec![2]);
        let block = parse_text("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-b\n+c\n```\n");
        assert!(block.errors.is_empty());
    }

    /// A hunk with no line is refused at its `@@` line, as in `apply_patch`;
    /// a run of them is named once, with their count; a created file's
    /// empty hunk adds nothing, as before.
    #[test]
    fn hunks_with_no_lines_are_refused_once() {
        let block = parse_text("--- a/x\n+++ b/x\n@@ -1 +1 @@\n@@ -3 +3 @@\n-b\n+c\n");
        assert!(block.edits.is_empty());
        assert_eq!(block.errors.len(), 1);
        assert_eq!(block.errors[0].kind, ErrorKind::Parse);
        assert_eq!(block.errors[0].lines, vec![3]);
        assert!(block.errors[0].message.contains("has no lines"));
        let payload = format!("--- a/x\n+++ b/x\n{}", "@@ -1 +1 @@\n".repeat(1500));
        let block = parse_text(&payload);
        assert!(block.edits.is_empty());
        assert_eq!(block.errors.len(), 1);
        assert_eq!(block.errors[0].lines, vec![3]);
        let message = &block.errors[0].message;
        assert!(
            message.contains("1,500 `@@` hunks, from payload line 3 to 1502"),
            "{message}"
        );
        let block = parse_text("--- /dev/null\n+++ b/n\n@@ -0,0 +0,0 @@\n@@ -0,0 +1 @@\n+a\n");
        assert!(block.errors.is_empty());
        assert_eq!(block.edits.len(), 1);
    }
}
