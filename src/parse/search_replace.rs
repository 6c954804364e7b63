//! The `search_replace` format (Aider style, `FORMATS.md` §2): a path line,
//! then `<<<<<<< SEARCH` / old lines / `=======` / new lines /
//! `>>>>>>> REPLACE`, anywhere in a markdown response.
//!
//! One call parses one block: it ends at its `>>>>>>> REPLACE` (a closing
//! fence after it is skipped by the dispatcher). Blocks that carry roo
//! features (`:start_line:`, `-------`, line-number prefixes) are claimed by
//! [`super::roo_diff`] first. This module also claims the lines that only
//! look like markers (a stray `>>>>>>> REPLACE`, a `<<-- SEARCH`), so that a
//! broken block is a parse error that names its line, not silence.

use super::conflict_markers::{self as markers, Dialect};
use super::{markdown, Block, Edits, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, Replace, SourceSpan};

/// Does a `search_replace` block (or a broken marker line) open at 0-based line `i`?
pub fn opens(scan: &Scan, i: usize) -> bool {
    scan.line(i).is_some_and(|line| {
        // Each of the three ends in `SEARCH`/`SEARCH>` or starts with `>`
        // (trailing whitespace aside): most lines are rejected here.
        let end = line.trim_end();
        (end.ends_with("SEARCH") || end.ends_with("SEARCH>") || end.starts_with('>'))
            && (markers::is_search_marker(line)
                || markers::is_replace_marker(line)
                || markers::is_near_miss_opener(line))
    })
}

/// Parses the `search_replace` block opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let line = scan.line(i).unwrap_or("");
    if markers::is_replace_marker(line) {
        return stray_replace_marker(i);
    }
    if !markers::is_search_marker(line) {
        return near_miss_opener(scan, i, line);
    }
    parse_block(scan, i, Dialect::Aider, Format::SearchReplace)
}

/// Parses one conflict-marker block opening at line `i` in the given dialect
/// (shared with `roo_diff` for blocks outside XML): path from the line before
/// (or the previous block's), empty SEARCH → create.
pub(crate) fn parse_block(scan: &mut Scan, i: usize, dialect: Dialect, format: Format) -> Block {
    let raw = match markers::read_block(scan.text, &scan.lines, i, 1, dialect) {
        Ok(raw) => raw,
        Err(broken) => {
            return Block {
                next_line: broken.resume,
                edits: Edits::None,
                errors: vec![broken.error],
            }
        }
    };
    let (next_line, closer) = (raw.closer + 1, raw.closer);
    let Some(path) = markdown::path_before(scan, i).or_else(|| scan.last_path()) else {
        return Block {
            next_line,
            edits: Edits::None,
            errors: vec![EditError::at_payload_line(
                ErrorKind::Parse,
                i + 1,
                format!(
                    "the block at payload line {} names no file: put the file path alone on the \
                     line before `<<<<<<< SEARCH` (or before its ``` fence)",
                    i + 1
                ),
            )],
        };
    };
    scan.set_last_path(&path);
    let op = block_op(raw, dialect == Dialect::Roo);
    Block {
        next_line,
        edits: Edits::One(ParsedEdit {
            path,
            format,
            source: SourceSpan::lines(i + 1, closer + 1),
            ordering: Ordering::Sequential,
            op,
        }),
        errors: Vec::new(),
    }
}

/// The edit a block asks for: an empty (or blank-only) SEARCH creates the
/// file; anything else is a line-based replace. `roo` adds the line hint
/// and the line-number-stripped texts.
pub(crate) fn block_op(raw: markers::RawBlock, roo: bool) -> EditOp {
    // Every SEARCH line blank: the text (lines and their `\n`s) is all
    // whitespace.
    if raw.search.trim_start().is_empty() {
        return EditOp::Create {
            content: raw.replace,
        };
    }
    let (without_line_numbers, first_number) = if roo {
        let search: Vec<&str> = markers::text_lines(&raw.search).collect();
        let replace: Vec<&str> = markers::text_lines(&raw.replace).collect();
        (
            strip_line_numbers(&search, &replace),
            search.first().and_then(|l| leading_number(l)),
        )
    } else {
        (None, None)
    };
    let mut replace = Replace::lines(raw.search, raw.replace);
    if roo {
        replace.line_hint = raw.start_line;
        replace.without_line_numbers = without_line_numbers;
        if replace.line_hint.is_none() && replace.without_line_numbers.is_some() {
            replace.line_hint = first_number;
        }
    }
    EditOp::Replace(replace)
}

/// When every SEARCH line carries a `12 | ` prefix: the SEARCH and REPLACE
/// with the prefixes stripped (the REPLACE only if all its lines carry one).
fn strip_line_numbers(search: &[&str], replace: &[&str]) -> Option<(String, String)> {
    let stripped_search = strip_all(search)?;
    let stripped_replace = strip_all(replace).unwrap_or_else(|| markers::join_lines(replace));
    Some((stripped_search, stripped_replace))
}

/// The lines without their prefixes, if every line has one (and there is one).
fn strip_all(lines: &[&str]) -> Option<String> {
    if lines.is_empty() {
        return None;
    }
    let stripped: Option<Vec<&str>> = lines
        .iter()
        .map(|l| markers::line_number_prefix_len(l).and_then(|n| l.get(n..)))
        .collect();
    stripped.map(|s| markers::join_lines(&s))
}

/// The number of a `12 | code` line.
fn leading_number(line: &str) -> Option<usize> {
    let digits: String = line
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn stray_replace_marker(i: usize) -> Block {
    Block {
        next_line: i + 1,
        edits: Edits::None,
        errors: vec![EditError::at_payload_line(
            ErrorKind::Parse,
            i + 1,
            format!(
                "found `>>>>>>> REPLACE` at payload line {} with no open `<<<<<<< SEARCH` block; \
                 start every block with `<<<<<<< SEARCH` and separate its halves with `=======`",
                i + 1
            ),
        )],
    }
}

fn near_miss_opener(scan: &Scan, i: usize, line: &str) -> Block {
    Block {
        next_line: markers::resume_after(&scan.lines, i + 1),
        edits: Edits::None,
        errors: vec![EditError::at_payload_line(
            ErrorKind::Parse,
            i + 1,
            format!(
                "`{}` at payload line {} is not a SEARCH marker; open the block with exactly \
                 `<<<<<<< SEARCH` (seven `<`, one space)",
                line.trim(),
                i + 1
            ),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Parsed};

    /// The quick test before the marker checks rejects only lines that
    /// none of them accepts; a block's content lines are read as content
    /// whatever their first byte.
    #[test]
    fn opens_is_the_three_marker_checks() {
        let heads = [
            "", " ", "<", "<<<<<<<", "<<<<<", ">>>>>>>", ">", "=", "-", "<<--", "\\",
        ];
        let tails = [
            "",
            " SEARCH",
            " SEARCH>",
            "SEARCH",
            " REPLACE",
            " REPLACE ",
            " SEARCH ",
            "x",
            "=======",
        ];
        for h in heads {
            for t in tails {
                let line = format!("{h}{t}");
                let scan = Scan::new(&line);
                let plain = markers::is_search_marker(&line)
                    || markers::is_replace_marker(&line)
                    || markers::is_near_miss_opener(&line);
                assert_eq!(opens(&scan, 0), plain, "{line:?}");
            }
        }
        let p = parsed(
            "a.py\n<<<<<<< SEARCH\n  =======\n\\=======\n<x\n=======\n> y\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE\n",
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(
            p.batch.edits[0].op,
            EditOp::Replace(Replace::lines(
                "  =======\n=======\n<x\n",
                "> y\n>>>>>>> REPLACE\n"
            ))
        );
    }

    fn parsed(text: &str) -> Parsed {
        parse(text, Some(Format::SearchReplace))
    }

    #[test]
    fn several_blocks_share_a_path() {
        let p = parsed(
            "src/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\
             <<<<<<< SEARCH\ny = 1\n=======\n>>>>>>> REPLACE\n```\n",
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let edits = &p.batch.edits;
        assert_eq!(edits.len(), 2);
        assert!(edits.iter().all(|e| e.path == "src/a.py"));
        assert_eq!(edits[1].op, EditOp::Replace(Replace::lines("y = 1\n", "")));
        assert_eq!(edits[0].source, SourceSpan::lines(3, 7));
    }

    #[test]
    fn empty_search_creates() {
        let p = parsed("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n");
        assert_eq!(
            p.batch.edits[0].op,
            EditOp::Create {
                content: "hello\n".into()
            }
        );
    }

    #[test]
    fn a_block_without_a_path_is_an_error() {
        let p = parsed("Then:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].lines, [2]);
    }

    #[test]
    fn broken_blocks_give_one_error_each() {
        let p = parsed("f.txt\n<<<<<<< SEARCH\nline2\n>>>>>>> REPLACE\nx\n>>>>>>> REPLACE\n");
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        assert_eq!(p.errors[0].lines, [4]);
    }
}
