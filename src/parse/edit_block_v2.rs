//! The `edit_block_v2` format (seed 001, `FORMATS.md` §2):
//!
//! ```text
//! src/utils.py
//! ««« EDIT
//! def multiply(a, b):      leading anchor (kept)
//! ───────
//!     return a + b         old lines (removed)
//! ═══════
//!     return a * b         new lines (inserted)
//! ───────
//!                          trailing anchor (kept)
//! def other_function():
//! »»»
//! ```
//!
//! The edit is a line search for leading+old+trailing replaced by
//! leading+new+trailing; all three of leading/old/trailing empty creates the
//! file with the new lines. Tolerated variants: rule lines of any length
//! (3+ `─`/`═`), trailing whitespace on markers, `»»» EDIT END` as closer, and
//! a missing second `───────` (the trailing anchor is then empty).

use super::edit_block::{
    block_of, dialect, is_any_close, is_double_rule, is_edit_open, is_single_rule, joined_lines,
    truncated_error, unclosed_error, Dialect,
};
use super::{Block, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Replace};

/// Does a seed 001 block open at 0-based line `i`?
pub fn opens(scan: &Scan, i: usize) -> bool {
    scan.line(i).is_some_and(is_edit_open) && dialect(scan, i) == Dialect::Anchored
}

/// Parses the seed 001 block opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let read = read_sections(scan, i).map(|sections| {
        let close = sections.close;
        (sections.into_op(), close)
    });
    block_of(scan, i, Format::EditBlockV2, read)
}

/// The four sections of a complete block (newline-terminated lines) and its
/// 0-based closing line.
struct Sections {
    leading: String,
    old: String,
    new: String,
    trailing: String,
    close: usize,
}

impl Sections {
    /// Create when there is nothing to find, else the anchored replace.
    fn into_op(self) -> EditOp {
        if self.leading.is_empty() && self.old.is_empty() && self.trailing.is_empty() {
            return EditOp::Create { content: self.new };
        }
        let search = [self.leading.as_str(), &self.old, &self.trailing].concat();
        let replace = [self.leading.as_str(), &self.new, &self.trailing].concat();
        EditOp::Replace(Replace::lines(search, replace))
    }
}

/// Where the reader is inside a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Leading,
    Old,
    New,
    Trailing,
}

impl Part {
    /// The marker that ends this part, for messages.
    fn expected_marker(self) -> &'static str {
        match self {
            Part::Leading => "`───────`",
            Part::Old => "`═══════`",
            Part::New => "`───────` or `»»»`",
            Part::Trailing => "`»»»`",
        }
    }

    /// What the lines of this part are, for messages.
    fn name(self) -> &'static str {
        match self {
            Part::Leading => "leading anchor",
            Part::Old => "old lines",
            Part::New => "new lines",
            Part::Trailing => "trailing anchor",
        }
    }
}

/// Reads the sections of the block opening at `open`, or the error and the
/// 0-based line where scanning resumes. Markers are checked in order.
fn read_sections(scan: &Scan, open: usize) -> Result<Sections, Box<(EditError, usize)>> {
    let open_line = open + 1;
    let mut part = Part::Leading;
    // 0-based line where each part starts.
    let mut starts = [open + 1; 4];
    for (j, line) in scan.lines.iter().enumerate().skip(open + 1) {
        if is_edit_open(line) {
            let missing = part.expected_marker();
            return Err(Box::new((unclosed_error(open_line, j + 1, missing), j)));
        }
        let next = match (part, classify(line)) {
            (_, None) => continue,
            (Part::Leading, Some(Marker::Single)) => Part::Old,
            (Part::Old, Some(Marker::Double)) => Part::New,
            (Part::New, Some(Marker::Single)) => Part::Trailing,
            (Part::New | Part::Trailing, Some(Marker::Close)) => {
                let text = |from: usize, to: usize| {
                    joined_lines(scan.lines.get(from..to).unwrap_or_default())
                };
                let new_end = if part == Part::New { j } else { starts[3] - 1 };
                let trailing = if part == Part::Trailing {
                    text(starts[3], j)
                } else {
                    String::new()
                };
                return Ok(Sections {
                    leading: text(starts[0], starts[1] - 1),
                    old: text(starts[1], starts[2] - 1),
                    new: text(starts[2], new_end),
                    trailing,
                    close: j,
                });
            }
            (_, Some(marker)) => {
                let error = out_of_order_error(open_line, j + 1, part, marker);
                let resume = if marker == Marker::Close {
                    j + 1
                } else {
                    skip_to_close(scan, j)
                };
                return Err(Box::new((error, resume)));
            }
        };
        part = next;
        starts[next as usize] = j + 1;
    }
    let missing = match part {
        Part::Leading | Part::Old | Part::New => "`═══════`, `───────` and `»»»`",
        Part::Trailing => "`»»»`",
    };
    Err(Box::new((
        truncated_error(open_line, missing),
        scan.lines.len(),
    )))
}

/// A marker line inside a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Single,
    Double,
    Close,
}

impl Marker {
    /// The marker as written, for messages.
    fn text(self) -> &'static str {
        match self {
            Marker::Single => "───────",
            Marker::Double => "═══════",
            Marker::Close => "»»»",
        }
    }
}

/// Which marker a line is, if any.
fn classify(line: &str) -> Option<Marker> {
    if is_single_rule(line) {
        Some(Marker::Single)
    } else if is_double_rule(line) {
        Some(Marker::Double)
    } else if is_any_close(line) {
        Some(Marker::Close)
    } else {
        None
    }
}

/// A marker met where another one was expected.
fn out_of_order_error(open_line: usize, line: usize, part: Part, marker: Marker) -> EditError {
    EditError::at_payload_line(
        ErrorKind::Parse,
        line,
        format!(
            "found `{}` at payload line {line} in the {} of the `««« EDIT` block at payload line \
             {open_line}, where {} was expected; the order is `««« EDIT`, leading anchor, \
             `───────`, old lines, `═══════`, new lines, `───────`, trailing anchor, `»»»`",
            marker.text(),
            part.name(),
            part.expected_marker(),
        ),
    )
}

/// After a broken block, resume after its `»»»` (or at the next `««« EDIT`).
fn skip_to_close(scan: &Scan, from: usize) -> usize {
    for (j, line) in scan.lines.iter().enumerate().skip(from + 1) {
        if is_edit_open(line) {
            return j;
        }
        if is_any_close(line) {
            return j + 1;
        }
    }
    scan.lines.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SourceSpan;

    fn parse_text(text: &str) -> Block {
        let mut scan = Scan::new(text);
        let open = scan.lines.iter().position(|l| is_edit_open(l)).unwrap();
        assert!(opens(&scan, open));
        parse(&mut scan, open)
    }

    #[test]
    fn anchored_replace() {
        let block =
            parse_text("a.py\n««« EDIT\nlead\n───────\nold\n═══════\nnew\n───────\ntrail\n»»»\n");
        assert_eq!(block.next_line, 10);
        assert_eq!(
            block.edits[0].op,
            EditOp::Replace(Replace::lines("lead\nold\ntrail\n", "lead\nnew\ntrail\n"))
        );
        assert_eq!(block.edits[0].source, SourceSpan::lines(2, 10));
    }

    #[test]
    fn all_empty_creates() {
        let block = parse_text("new.py\n««« EDIT\n───────\n═══════\nx = 1\n───────\n»»»\n");
        assert_eq!(
            block.edits[0].op,
            EditOp::Create {
                content: "x = 1\n".into()
            }
        );
    }

    #[test]
    fn missing_second_rule_means_empty_trailing_anchor() {
        let block = parse_text("a.py\n««« EDIT\nlead\n───\nold\n═══\nnew\n»»» EDIT END\n");
        assert_eq!(
            block.edits[0].op,
            EditOp::Replace(Replace::lines("lead\nold\n", "lead\nnew\n"))
        );
    }

    #[test]
    fn reuses_previous_path() {
        let text = "a.py\n««« EDIT\nx\n───────\n═══════\n───────\n»»»\n\n««« EDIT\ny\n───────\n═══════\nz\n───────\n»»»\n";
        let mut scan = Scan::new(text);
        let first = parse(&mut scan, 1);
        let second = parse(&mut scan, first.next_line + 1);
        assert_eq!(second.edits[0].path, "a.py");
    }

    #[test]
    fn marker_out_of_order() {
        let block = parse_text("a.py\n««« EDIT\nlead\n───────\nold\n───────\nnew\n»»»\nafter\n");
        assert_eq!(block.errors[0].kind, ErrorKind::Parse);
        assert_eq!(block.errors[0].lines, vec![6]);
        assert_eq!(block.next_line, 8);
    }

    #[test]
    fn truncated() {
        let block = parse_text("a.py\n««« EDIT\nlead\n───────\nold\n═══════\nnew\n");
        assert_eq!(block.errors[0].kind, ErrorKind::Truncated);
        assert_eq!(block.errors[0].lines, vec![2]);
    }
}
