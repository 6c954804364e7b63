//! Payload text → edit model. One module per format; parsing never panics.
//!
//! [`parse`] takes everything the LLM returned. A payload that is JSON (an
//! object or array, possibly inside a ```json fence) goes to [`json`]; any
//! other text is a markdown response scanned line by line: at each line every
//! block format is asked whether a block opens there ([`BlockParser::opens`]),
//! and the first that says yes parses it ([`BlockParser::parse`]) and tells
//! where scanning resumes. Text between blocks (prose, example code) is
//! ignored. Edits get their 1-based index in payload order at the end.
//!
//! Architecture invariant: parsers see only the payload, never the files;
//! whatever needs the file (matching, existence) belongs to `resolve`.

pub mod apply_patch;
pub mod code_block;
pub mod conflict_markers;
pub mod edit_block;
pub mod edit_block_v2;
pub mod find_replace;
pub mod json;
pub mod markdown;
pub mod roo_diff;
pub mod search_replace;
pub mod suggestions;
pub mod unified_diff;

use crate::error::{EditError, ErrorKind};
use crate::model::{Edit, EditBatch, EditOp, Format, Ordering, SourceSpan};

/// Largest payload accepted, in bytes. Larger ones are a `parse` error.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;

/// From this many payload lines on, the block scan and the suggestions
/// pass run side by side (below, a thread costs more than it saves).
const SIDE_BY_SIDE_LINES: usize = 4096;

/// An edit as a parser produces it, before it gets its payload index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedEdit {
    /// Target path, as written (decoration stripped).
    pub path: String,
    /// The format it was written in.
    pub format: Format,
    /// Its payload lines (1-based, inclusive).
    pub source: SourceSpan,
    /// Sequential or simultaneous (see [`Scan::next_group`]).
    pub ordering: Ordering,
    /// What it does.
    pub op: EditOp,
}

/// What parsing a payload gives: the batch, and every parse error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    /// The edits found, indexed in payload order.
    pub batch: EditBatch,
    /// Parse and truncation errors (each names its payload line).
    pub errors: Vec<EditError>,
    /// The formats that contributed edits, in first-seen order.
    pub formats: Vec<Format>,
}

/// The payload as lines, shared by the block parsers.
///
/// `lines[i]` is payload line `i + 1`, without its line terminator
/// (`\r\n` and `\n` both end a line).
pub struct Scan<'a> {
    /// The payload lines (owned, or split once by [`parse`] and shared
    /// with the suggestions pass).
    pub lines: std::borrow::Cow<'a, [&'a str]>,
    /// The path of the previous block, for blocks that name none.
    pub last_path: Option<String>,
    next_group: u32,
    /// Per line, whether a code fence opens there (not closing one, not
    /// inside one): computed once, on first use.
    opening_fences: std::cell::OnceCell<Vec<bool>>,
}

impl<'a> Scan<'a> {
    /// Splits a payload into lines.
    pub fn new(text: &'a str) -> Scan<'a> {
        Scan::with_lines(text.lines().collect())
    }

    /// A scan of lines already split.
    pub fn with_lines(lines: Vec<&'a str>) -> Scan<'a> {
        Scan::of(std::borrow::Cow::Owned(lines))
    }

    /// A scan of lines already split, borrowed.
    pub fn over(lines: &'a [&'a str]) -> Scan<'a> {
        Scan::of(std::borrow::Cow::Borrowed(lines))
    }

    fn of(lines: std::borrow::Cow<'a, [&'a str]>) -> Scan<'a> {
        Scan {
            lines,
            last_path: None,
            next_group: 0,
            opening_fences: std::cell::OnceCell::new(),
        }
    }

    /// Whether a code fence opens at 0-based line `i` (it is not inside a
    /// fence opened before it).
    pub fn opens_fence(&self, i: usize) -> bool {
        let roles = self
            .opening_fences
            .get_or_init(|| markdown::opening_fences(&self.lines));
        roles.get(i).copied().unwrap_or(false)
    }

    /// A fresh group number for a set of simultaneous edits
    /// (the hunks of one patched file, the changes of one `modify_file`).
    pub fn next_group(&mut self) -> u32 {
        self.next_group += 1;
        self.next_group
    }

    /// Line `i` (0-based), or `None` past the end.
    pub fn line(&self, i: usize) -> Option<&'a str> {
        self.lines.get(i).copied()
    }
}

/// What a block parser returns for one block.
#[derive(Debug, Default)]
pub struct Block {
    /// 0-based line where scanning resumes (after the block).
    pub next_line: usize,
    /// The edits of the block (possibly several files).
    pub edits: Vec<ParsedEdit>,
    /// Parse errors (`parse`, or `truncated` when the payload ends inside
    /// the block). A block with errors should yield no edits for the
    /// broken part.
    pub errors: Vec<EditError>,
}

/// One block format's entry points.
pub struct BlockParser {
    /// The format.
    pub format: Format,
    /// Does a block of this format open at 0-based line `i`?
    pub opens: fn(&Scan, usize) -> bool,
    /// Parses the block that opens at 0-based line `i`.
    pub parse: fn(&mut Scan, usize) -> Block,
}

/// The block formats, in the order they are asked at each line.
/// More specific openers come first (`<apply_diff>` before bare SEARCH).
pub const BLOCK_PARSERS: &[BlockParser] = &[
    BlockParser {
        format: Format::ApplyPatch,
        opens: apply_patch::opens,
        parse: apply_patch::parse,
    },
    BlockParser {
        format: Format::UnifiedDiff,
        opens: unified_diff::opens,
        parse: unified_diff::parse,
    },
    BlockParser {
        format: Format::RooDiff,
        opens: roo_diff::opens,
        parse: roo_diff::parse,
    },
    BlockParser {
        format: Format::SearchReplace,
        opens: search_replace::opens,
        parse: search_replace::parse,
    },
    BlockParser {
        format: Format::EditBlock,
        opens: edit_block::opens,
        parse: edit_block::parse,
    },
    BlockParser {
        format: Format::EditBlockV2,
        opens: edit_block_v2::opens,
        parse: edit_block_v2::parse,
    },
    BlockParser {
        format: Format::FindReplace,
        opens: find_replace::opens,
        parse: find_replace::parse,
    },
    // Last: a fenced block is a plain code block only when no other
    // format opens inside it.
    BlockParser {
        format: Format::CodeBlock,
        opens: code_block::opens,
        parse: code_block::parse,
    },
];

/// Parses a payload. `format` restricts parsing to one format
/// (`None` = auto-detect, the default).
pub fn parse(payload: &str, format: Option<Format>) -> Parsed {
    if payload.len() > MAX_PAYLOAD_BYTES {
        let mut parsed = Parsed::default();
        parsed.errors.push(EditError::new(
            ErrorKind::Parse,
            format!(
                "the payload is {} bytes, over the limit of {} bytes; split it into several payloads",
                payload.len(),
                MAX_PAYLOAD_BYTES
            ),
        ));
        return parsed;
    }
    let payload = payload.strip_prefix('\u{feff}').unwrap_or(payload);

    let wants_json = match format {
        Some(Format::Json) => true,
        Some(_) => false,
        None => json::looks_like_json(payload),
    };
    let (edits, errors, suggestions, preview) = if wants_json {
        let out = json::parse(payload);
        (out.edits, out.errors, Vec::new(), out.preview)
    } else {
        // The lines are split once, for both passes, which are
        // independent: a long response reads them on two cores.
        let lines = split_lines(payload);
        let blocks = || parse_blocks(payload, Scan::over(&lines), format);
        let commands = || suggestions::find_in(&lines);
        let ((edits, errors, preview), suggestions) = if lines.len() >= SIDE_BY_SIDE_LINES {
            crate::cores::join(blocks, commands)
        } else {
            (blocks(), commands())
        };
        (edits, errors, suggestions, preview)
    };
    let mut parsed = finish(edits, errors, suggestions);
    parsed.batch.preview = preview;
    parsed
}

/// From this many payload bytes, its lines are split in two halves side
/// by side.
const SIDE_BY_SIDE_BYTES: usize = 256 << 10;

/// The payload's lines ([`crate::text::lines::split`]); a long payload's
/// two halves are split on two cores, cut after a `\n` (the lines of the
/// whole are the first half's, then the second's).
fn split_lines(payload: &str) -> Vec<&str> {
    let half = payload.len() / 2;
    let cut = (payload.len() >= SIDE_BY_SIDE_BYTES)
        .then(|| memchr::memchr(b'\n', &payload.as_bytes()[half..]))
        .flatten()
        .map(|i| half + i + 1);
    match cut {
        Some(mid) if crate::cores::count() > 1 => {
            let (mut first, second) = crate::cores::join(
                || crate::text::lines::split(&payload[..mid]),
                || crate::text::lines::split(&payload[mid..]),
            );
            first.extend(second);
            first
        }
        _ => crate::text::lines::split(payload),
    }
}

/// Scans a markdown response for blocks of every (or one) block format.
fn parse_blocks(
    payload: &str,
    mut scan: Scan,
    only: Option<Format>,
) -> (Vec<ParsedEdit>, Vec<EditError>, bool) {
    let mut edits = Vec::new();
    let mut errors = Vec::new();
    let mut code_errors = Vec::new();
    let mut i = 0;
    'lines: while i < scan.lines.len() {
        for parser in BLOCK_PARSERS {
            if only.is_some_and(|f| f != parser.format && !same_family(f, parser.format)) {
                continue;
            }
            if (parser.opens)(&scan, i) {
                let block = (parser.parse)(&mut scan, i);
                edits.extend(block.edits);
                if parser.format == Format::CodeBlock {
                    code_errors.extend(block.errors);
                } else {
                    errors.extend(block.errors);
                }
                // A parser always makes progress, even on a broken block.
                i = block.next_line.max(i + 1);
                continue 'lines;
            }
        }
        i += 1;
    }
    // Chat code blocks are a response's edits only when it holds no block
    // of another format: beside SEARCH/REPLACE blocks or a patch, a fenced
    // block naming a file shows code (the result, an example), and reading
    // it as an edit could refuse the whole payload.
    if edits.iter().any(|e| e.format != Format::CodeBlock) || !errors.is_empty() {
        edits.retain(|e| e.format != Format::CodeBlock);
    } else {
        errors.extend(code_errors);
    }
    if only.is_none_or(|f| f != Format::Json) && edits.is_empty() && errors.is_empty() {
        // A markdown response may carry its tool call in a ```json fence.
        if let Some(out) = json::parse_fenced(payload) {
            return (out.edits, out.errors, out.preview);
        }
    }
    (edits, errors, false)
}

/// `search_replace` and `roo_diff` share their block syntax: asking for one
/// accepts the other's dialect of the same block.
fn same_family(asked: Format, parser: Format) -> bool {
    matches!(
        (asked, parser),
        (Format::SearchReplace, Format::RooDiff) | (Format::RooDiff, Format::SearchReplace)
    )
}

/// Numbers the edits in payload order and builds the batch.
fn finish(
    mut edits: Vec<ParsedEdit>,
    mut errors: Vec<EditError>,
    suggestions: Vec<String>,
) -> Parsed {
    // Parsers emit in payload order already; a stable sort keeps ties as emitted.
    edits.sort_by_key(|e| e.source.first_line);
    if edits.is_empty() && errors.is_empty() {
        errors.push(EditError::new(
            ErrorKind::Parse,
            "no edit found in the payload: expected SEARCH/REPLACE blocks, «« EDIT blocks, FIND/REPLACE, \
             a patch or diff, a JSON tool call, or a code block naming its file",
        ));
    }
    errors.sort_by_key(|e| e.lines.first().copied().unwrap_or(0));
    let mut formats = Vec::new();
    let edits: Vec<Edit> = edits
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            if !formats.contains(&e.format) {
                formats.push(e.format);
            }
            Edit {
                index: i + 1,
                path: e.path,
                format: e.format,
                source: e.source,
                ordering: e.ordering,
                op: e.op,
            }
        })
        .collect();
    Parsed {
        batch: EditBatch {
            edits,
            suggestions,
            context_id: None,
            preview: false,
        },
        errors,
        formats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long payload's lines split in two halves are its lines split
    /// whole (CRLF and LF, blank lines, a `\r` with no `\n` after it,
    /// non-ASCII, a last line with and without its `\n`).
    #[test]
    fn lines_split_in_halves_are_the_whole_split() {
        let pool = [
            "",
            "a",
            "\r",
            "x\r",
            "<<<<<<< SEARCH",
            "\u{e9}\u{2014}",
            "  y  ",
            "```",
        ];
        let mut rng = crate::test_rng::Rng::new(9);
        for trial in 0..6 {
            let mut text = String::new();
            while text.len() < SIDE_BY_SIDE_BYTES + 3000 * trial {
                text.push_str(rng.pick::<&str>(&pool));
                text.push_str(if rng.below(3) == 0 { "\r\n" } else { "\n" });
            }
            if trial % 2 == 1 {
                text.push_str("last\r");
            }
            assert_eq!(split_lines(&text), crate::text::lines::split(&text));
            // A cut right at the middle: the byte before it a `\n`.
            let mut mid = text.len() / 2;
            while !text.is_char_boundary(mid) || !text.as_bytes()[mid - 1].is_ascii() {
                mid -= 1;
            }
            let joined = format!("{}\n{}", &text[..mid - 1], &text[mid..]);
            assert_eq!(split_lines(&joined), crate::text::lines::split(&joined));
        }
    }
}
