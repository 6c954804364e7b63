//! The words of every resolve error: what failed, where, what to change.
//!
//! Messages follow `FORMATS.md` §6: `edit N in PATH: what happened; what to
//! do`, with 1-based lines of the file as the user sees it.

use super::code_block::Refusal;
use super::elision::ElisionMiss;
use super::passes::Pass;
use super::replacement::Undecided;
use crate::error::{count, EditError, ErrorKind, LineRange, NearMatch, LISTED};
use crate::model::{Edit, EditOp, Format, MatchUnit, Replace};
use crate::syntax::Language;

/// Builds the errors of one file.
pub struct Messages<'p> {
    /// The file's workspace path.
    pub path: &'p str,
}

/// What the payload calls its search text, for messages.
fn search_word(edit: &Edit) -> &'static str {
    match (&edit.op, edit.format) {
        (EditOp::Anchored(_), _) => "the anchor",
        (EditOp::Replace(r), _) if r.unit == MatchUnit::Substring => "old_string",
        (_, Format::FindReplace) => "FIND",
        (_, Format::ApplyPatch | Format::UnifiedDiff) => "the hunk",
        (_, Format::EditBlock | Format::EditBlockV2) => "the EDIT text",
        _ => "SEARCH",
    }
}

/// The lines, comma-separated: the first [`LISTED`] of a longer list,
/// then how many there are in all.
fn join_lines(lines: &[usize]) -> String {
    let listed = lines
        .iter()
        .take(LISTED)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if lines.len() > LISTED {
        format!("{listed}, … ({} in all)", count(lines.len()))
    } else {
        listed
    }
}

impl Messages<'_> {
    fn error(&self, kind: ErrorKind, edit: &Edit, message: String) -> EditError {
        EditError::new(kind, message)
            .with_path(self.path)
            .with_edit(edit.index)
            .with_payload_lines(edit.source.first_line, edit.source.last_line)
    }

    /// A chat code block that cannot be applied (`code_block.rs`), in the
    /// words of what to change; `file_lines`: how many lines the file has.
    pub fn code_block(
        &self,
        edit: &Edit,
        refusal: Refusal,
        file_lines: usize,
        language: Option<Language>,
    ) -> EditError {
        // How the file's language writes code left out.
        let elide = match language {
            Some(Language::Python | Language::Ruby) => "# ...",
            _ => "// ...",
        };
        let (kind, lines, message) = match refusal {
            Refusal::ElisionInNewFile { line } => (
                ErrorKind::FileNotFound,
                vec![],
                format!(
                    "the file does not exist, and the block leaves code out (`...` at its line {line}); give the whole new file"
                ),
            ),
            Refusal::NoPlace { block_line, text, after } => (
                ErrorKind::NotFound,
                vec![after + 1],
                format!(
                    "the block's line {block_line} (`{text}`) matches no line of the file after line {after}; begin and end each part of the block with lines of the file as they are now, and mark code left out with `{elide}`"
                ),
            ),
            Refusal::Places { block_line, text, lines } => (
                ErrorKind::Ambiguous,
                lines.clone(),
                format!(
                    "the block's line {block_line} (`{text}`) matches lines {}; show the unchanged lines next to it that tell them apart",
                    join_lines(&lines)
                ),
            ),
            Refusal::TwoEnds { block_line, first, definition, anchored } => (
                ErrorKind::Ambiguous,
                vec![definition, anchored],
                format!(
                    "the block's part from its line {block_line} reads two ways: the whole definition at lines {first}-{definition}, or lines {first}-{anchored}, where its last line also is; end the part with the definition's own last line, or mark the code left out with `{elide}`"
                ),
            ),
            Refusal::NotWhole { first, last } => (
                ErrorKind::Ambiguous,
                vec![1, file_lines],
                format!(
                    "the block reads two ways: the whole new file, or a part of it with the rest kept; it marks no code left out, and it neither begins with the file's first line (`{first}`) and ends with its last (`{last}`), nor is whole definitions or statements of the file; give the whole file, or mark the code left out with `{elide}` lines"
                ),
            ),
            Refusal::Unshown { file_line, text } => (
                ErrorKind::NotFound,
                vec![file_line],
                format!(
                    "the block would remove line {file_line} (`{text}`), which it does not show; show that line, or mark the code left out with `{elide}`"
                ),
            ),
            Refusal::Namesakes { block_line, text, lines } => (
                ErrorKind::Ambiguous,
                lines.clone(),
                format!(
                    "the block's line {block_line} (`{text}`) names code the file has at lines {}; show the line of its class (or what holds it) above it, and mark the rest with `{elide}`",
                    join_lines(&lines)
                ),
            ),
            Refusal::Above { file_line, text, unit } => (
                ErrorKind::Ambiguous,
                vec![file_line],
                format!(
                    "the file has line {file_line} (`{text}`) right above `{unit}`, which the block shows without it: kept, or removed with the rewrite? show it (as it should be) above `{unit}`"
                ),
            ),
            Refusal::Whitespace { text, lines, shown } => (
                ErrorKind::Ambiguous,
                lines.clone(),
                format!(
                    "the block writes `{text}` {shown} time(s) without trailing whitespace, and the file has it on line(s) {}, some with trailing whitespace: which of the block's lines is which file line (and keeps its bytes) is not determined; remove the trailing whitespace from those lines of the file, or give the edit as SEARCH/REPLACE",
                    join_lines(&lines)
                ),
            ),
            Refusal::NewOrRewrite { block_line, text, file_line, file_text } => (
                ErrorKind::Ambiguous,
                vec![file_line],
                format!(
                    "the block's line {block_line} (`{text}`) is not in the file, and reads two ways: new code put in beside the code the block shows, or a rewrite of line {file_line} (`{file_text}`), which the block does not show; show that code as it should be, or mark it left out with `{elide}`"
                ),
            ),
            Refusal::Order { block_line, text, file_line, before } => (
                ErrorKind::Ambiguous,
                vec![file_line, before],
                format!(
                    "the block's line {block_line} (`{text}`) is at line {file_line} of the file, before the code the block shows above it (line {before}): moved there, or changed in place; show them in the file's order, or move code in a block of its own"
                ),
            ),
        };
        self.error(
            kind,
            edit,
            format!("edit {} in {}: {message}", edit.index, self.path),
        )
        .with_lines(lines)
    }

    /// `ambiguous`: `total` candidates, of which `ranges` are the first
    /// (at most [`LISTED`] are named).
    pub fn ambiguous(&self, edit: &Edit, ranges: &[LineRange], total: usize) -> EditError {
        let firsts: Vec<usize> = ranges.iter().take(LISTED).map(|r| r.first).collect();
        let what = search_word(edit);
        let listed = if total > ranges.len().min(LISTED) {
            format!("first {LISTED}: lines")
        } else {
            "lines".to_string()
        };
        self.error(
            ErrorKind::Ambiguous,
            edit,
            format!(
                "edit {} in {}: {what} matches {} places ({listed} {}); add lines that make it unique",
                edit.index,
                self.path,
                count(total),
                join_lines(&firsts)
            ),
        )
        .with_lines(firsts)
        .with_ranges(ranges[..ranges.len().min(LISTED)].to_vec())
    }

    /// `ambiguous`: one place, but the payload reads two ways that write
    /// different text there (`FORMATS.md` §3, "One reading or none").
    pub fn undecided(&self, edit: &Edit, r: &Replace, at: LineRange, why: &Undecided) -> EditError {
        let what = search_word(edit);
        let readings = match why {
            Undecided::Unit => "the payload is indented in the other style than the file (spaces for tabs or tabs for spaces) and its indentation width cannot be told from the lines it matched, so the new lines could land at different depths; write the lines with the file's own indentation".to_string(),
            Undecided::Alignment => "lines repeat in the search and the replacement, and pairing them one way or the other keeps different file lines; add a line that is not repeated, or copy the lines exactly as they are in the file".to_string(),
            Undecided::InsertedShift => "its indentation differs from the file's in a way that does not tell a slip in one line from a block written at another depth (one line shows it, or lines show different shifts), so the new lines could keep the indentation written or take the shift; copy the search lines with the file's exact indentation".to_string(),
            Undecided::Frame => "its first line is indented differently in the search and the replacement, so the replacement could be meant as written or shifted like the search; write both with the file's exact indentation".to_string(),
            Undecided::Context(j) => {
                let line = r.search.lines().nth(*j).unwrap_or("").trim();
                format!("the line `{line}` differs from the file's line there, and it could be a copy with a mistake (keep the file's line) or the line as it should become (write it as given); copy that line exactly as it is in the file, and put any change in the replacement only")
            }
            Undecided::InString => "the payload is indented in the other style than the file, and a line it converts lies inside a string literal, whose text the conversion would change; write those lines exactly as they should be in the file".to_string(),
            Undecided::BlankLine => "the search leaves out a blank line of the file next to lines the edit adds, moves or changes, so the blank line could go before or after them (or be meant deleted with them); copy the search with the file's blank lines".to_string(),
            Undecided::AddedBlankLine => "the search has a blank line the file does not have there, and the replacement keeps it, so it could be a slip in the copy or the blank line the edit adds; copy the search with the file's blank lines, and put new blank lines in the replacement only".to_string(),
            Undecided::Negative => "the replacement's indentation cannot be carried over to the file (a line would go left of column 0); copy the search lines with the file's exact indentation".to_string(),
        };
        self.error(
            ErrorKind::Ambiguous,
            edit,
            format!(
                "edit {} in {}: {what} matches {at} but reads two ways: {readings}",
                edit.index, self.path
            ),
        )
        .with_lines(vec![at.first])
        .with_ranges(vec![at])
    }

    /// `ambiguous`: the candidate a line hint picks near it, or a looser
    /// match exactly at the hint.
    pub fn hint_rival(
        &self,
        edit: &Edit,
        picked: LineRange,
        at_hint: LineRange,
        looser: Pass,
    ) -> EditError {
        let what = search_word(edit);
        let loosely = match looser {
            Pass::TrailingWhitespace => "once trailing whitespace is ignored",
            Pass::Trimmed => "once indentation is ignored",
            Pass::BoundaryPrefix => "with its first or last line cut short",
            Pass::Unicode => "once quotes, dashes and spaces are folded",
            _ => "loosely",
        };
        self.error(
            ErrorKind::Ambiguous,
            edit,
            format!(
                "edit {} in {}: {what} matches {picked} as written, near its line number {}, and {at_hint} at that number {loosely}; either could be meant; copy the lines exactly as they are at the place meant, or correct the line number",
                edit.index, self.path, at_hint.first
            ),
        )
        .with_lines(vec![picked.first, at_hint.first])
        .with_ranges(vec![picked, at_hint])
    }

    /// `ambiguous`: an edit its line number picked among several places,
    /// while another edit's number, `(index, line, offset)`, is off by
    /// another amount.
    pub fn hint_against_neighbour(
        &self,
        edit: &Edit,
        picked: usize,
        hint: usize,
        (other, line, offset): (usize, usize, i64),
    ) -> EditError {
        let what = search_word(edit);
        let off = match offset {
            0 => "exactly at its line number".to_string(),
            d => format!("{} lines from its line number", d.unsigned_abs()),
        };
        let (at, then) = if picked == hint {
            (
                "at its line number".to_string(),
                "its number may be stale by as much, and line {picked} one of several places by chance",
            )
        } else {
            (
                format!("{} lines from its line number {hint}", picked.abs_diff(hint)),
                "the number may not be stale, and the place meant line {hint}, where the lines differ",
            )
        };
        let then = then
            .replace("{picked}", &picked.to_string())
            .replace("{hint}", &hint.to_string());
        self.error(
            ErrorKind::Ambiguous,
            edit,
            format!(
                "edit {} in {}: {what} matches line {picked} among several places, {at}, but edit {other} sits at line {line}, {off}: the edits' numbers disagree, so {then}; add lines that make it unique, or correct the line numbers",
                edit.index, self.path
            ),
        )
        .with_lines(if picked == hint { vec![picked] } else { vec![picked, hint] })
        .with_ranges(if picked == hint {
            vec![LineRange::new(picked, picked)]
        } else {
            vec![LineRange::new(picked, picked), LineRange::new(hint, hint)]
        })
    }

    /// A search with elision markers that cannot be applied.
    pub fn elision(&self, edit: &Edit, why: &ElisionMiss) -> EditError {
        let what = search_word(edit);
        let (kind, text) = match why {
            ElisionMiss::Open { .. } => (
                ErrorKind::Ambiguous,
                format!("{what} starts or ends with an elision marker (`...`), or has two in a row, so the lines it stands for have no bound; give lines of the file on both sides of every marker"),
            ),
            ElisionMiss::Count { search, replace, .. } => (
                ErrorKind::Ambiguous,
                format!("{what} has {search} elision marker(s) (`...`) and the replacement {replace}, so whether the replacement keeps or rewrites the elided lines is not determined; put a marker in the replacement where each one is in the search (the elided lines are kept), or write the lines out"),
            ),
            ElisionMiss::PieceNotFound { piece, lines, .. } => (
                ErrorKind::NotFound,
                format!(
                    "{what} has elision markers (`...`), and its piece {} (its lines {}-{}) matches nothing in the file; copy those lines exactly as they are in the file",
                    piece + 1,
                    lines.start + 1,
                    lines.end
                ),
            ),
        };
        self.error(
            kind,
            edit,
            format!("edit {} in {}: {text}", edit.index, self.path),
        )
    }

    /// `not_found`: only a loose match, whose result would not parse.
    pub fn breaks_syntax(&self, edit: &Edit, at: LineRange, error_line: usize) -> EditError {
        let what = search_word(edit);
        self.error(
            ErrorKind::NotFound,
            edit,
            format!(
                "edit {} in {}: {what} matches {at} only loosely (whitespace or a cut line differ), and the result would not parse at line {error_line} where the file parsed before; copy the lines exactly as they are in the file",
                edit.index, self.path
            ),
        )
        .with_lines(vec![at.first])
        .with_ranges(vec![at])
    }

    /// `ambiguous`: a string tool's text matches the start of a line, as
    /// a fragment of it or as the whole line cut short.
    pub fn fragment_or_line(
        &self,
        edit: &Edit,
        at: LineRange,
        fragment: &str,
        whole: &str,
    ) -> EditError {
        let what = search_word(edit);
        self.error(
            ErrorKind::Ambiguous,
            edit,
            format!(
                "edit {} in {}: {what} ends inside {at}: as a fragment of the line it gives `{}`, as the whole line cut short it gives `{}`; give the whole line in both old and new text",
                edit.index,
                self.path,
                fragment.trim(),
                whole.trim()
            ),
        )
        .with_lines(vec![at.first])
        .with_ranges(vec![at])
    }

    /// `not_found`, with the closest near-match when there is one.
    pub fn not_found(&self, edit: &Edit, _r: &Replace, near: Option<NearMatch>) -> EditError {
        let what = search_word(edit);
        let mut message = format!("edit {} in {}: {what} not found", edit.index, self.path);
        match &near {
            Some(n) => {
                message.push_str(&format!("; closest is {} ({}% similar)", n.lines, n.similarity));
                if let Some((want, got)) = &n.differs_at {
                    message.push_str(&format!(", differs at: `{}` (payload) vs `{}` (file)", want.trim(), got.trim()));
                }
                message.push_str("; copy the lines exactly as they are in the file");
            }
            None => message.push_str("; no similar lines in the file: check the path and copy the lines exactly as they are in the file"),
        }
        let lines = near
            .as_ref()
            .map(|n| vec![n.lines.first])
            .unwrap_or_default();
        let ranges = near.as_ref().map(|n| vec![n.lines]).unwrap_or_default();
        let mut e = self
            .error(ErrorKind::NotFound, edit, message)
            .with_lines(lines)
            .with_ranges(ranges);
        e.near = near.map(Box::new);
        e
    }

    /// `deadline`: the run's time budget ran out before this edit was
    /// resolved (or during a search that had to be complete).
    pub fn deadline(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::Deadline,
            edit,
            format!(
                "edit {} in {}: the run's time limit ran out before this edit was resolved, so nothing was applied; split the payload into smaller ones, or raise the limit (--deadline SECONDS, the llmEdit.deadline setting)",
                edit.index, self.path
            ),
        )
    }

    /// A hunk that matches only before the previous hunk of its file.
    pub fn before_previous_hunk(&self, edit: &Edit, at: LineRange) -> EditError {
        self.error(
            ErrorKind::NotFound,
            edit,
            format!("edit {} in {}: the hunk matches only at {at}, before the previous hunk; hunks of a file must come in file order: move it before that hunk", edit.index, self.path),
        )
        .with_lines(vec![at.first])
        .with_ranges(vec![at])
    }

    /// `undo_edit` with no earlier edit of the file in the payload.
    pub fn nothing_to_undo(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::Parse,
            edit,
            format!("edit {} in {}: undo_edit, but no earlier edit of this file in the payload applied; drop the undo_edit", edit.index, self.path),
        )
    }

    /// `no_op`: old == new.
    pub fn no_op(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::NoOp,
            edit,
            format!("edit {} in {}: the replacement equals the text it replaces, so it changes nothing; drop the edit or write the change", edit.index, self.path),
        )
    }

    /// `file_not_found`.
    pub fn file_not_found(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::FileNotFound,
            edit,
            format!("edit {} in {}: the file does not exist; check the path, or create the file with an empty search / a create command", edit.index, self.path),
        )
    }

    /// The file was deleted by an earlier edit of the payload.
    pub fn deleted_earlier(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::FileNotFound,
            edit,
            format!("edit {} in {}: an earlier edit of this payload deletes the file; drop one of the two", edit.index, self.path),
        )
    }

    /// `file_exists`: a create over a non-empty file.
    pub fn file_exists(&self, edit: &Edit, lines: usize) -> EditError {
        self.error(
            ErrorKind::FileExists,
            edit,
            format!(
                "edit {} in {}: creates a file that already exists and is not empty ({lines} lines); edit it with a search/replace instead, or delete it first",
                edit.index, self.path
            ),
        )
        .with_lines(vec![1])
    }

    /// `insert` past the end of the file.
    pub fn insert_past_end(&self, edit: &Edit, after: usize, len: usize) -> EditError {
        self.error(
            ErrorKind::NotFound,
            edit,
            format!("edit {} in {}: insert_line {after} is past the end of the file ({len} lines); use a line from 0 to {len}", edit.index, self.path),
        )
    }

    /// A rename onto an existing file.
    pub fn rename_exists(&self, edit: &Edit, to: &str) -> EditError {
        self.error(
            ErrorKind::FileExists,
            edit,
            format!("edit {} in {}: renames onto {to}, which already exists; pick another name or delete it first", edit.index, self.path),
        )
    }

    /// A rename that leaves the root.
    pub fn rename_outside(&self, edit: &Edit, to: &str) -> EditError {
        self.error(
            ErrorKind::OutsideRoot,
            edit,
            format!("edit {} in {}: renames to `{to}`, outside the workspace root; use a path inside the project", edit.index, self.path),
        )
    }

    /// An `@@` context header of a pure insertion that matches nothing.
    pub fn header_not_found(&self, edit: &Edit, header: &str) -> EditError {
        self.error(
            ErrorKind::NotFound,
            edit,
            format!("edit {} in {}: the context line `@@ {}` was not found; copy it exactly from the file", edit.index, self.path, header.trim()),
        )
    }

    /// Two simultaneous edits overlap.
    pub fn overlap(&self, edit: &Edit, other: usize, first: usize, second: usize) -> EditError {
        self.error(
            ErrorKind::Overlap,
            edit,
            format!(
                "edit {} in {}: its region (from line {second}) overlaps the region of edit {other} (from line {first}); merge the two changes into one",
                edit.index, self.path
            ),
        )
        .with_lines(vec![first, second])
        .with_ranges(vec![LineRange::new(first, first), LineRange::new(second, second)])
    }

    /// An operation that cannot be part of a simultaneous group.
    pub fn unsupported_in_group(&self, edit: &Edit) -> EditError {
        self.error(
            ErrorKind::Parse,
            edit,
            format!(
                "edit {} in {}: a {} cannot be combined with diff hunks of the same file",
                edit.index,
                self.path,
                edit.op.name()
            ),
        )
    }
}

impl EditError {
    /// Names which anchor of a `modify_file` change failed.
    pub fn with_anchor(mut self, which: &str) -> EditError {
        self.message = self
            .message
            .replacen("the anchor", &format!("the `{which}` anchor"), 1);
        self
    }
}
