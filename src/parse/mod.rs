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
    last_path: Option<String>,
    /// The scan starts inside the payload (the second part of a split
    /// scan, [`blocks_in_two`]): the path named before its first line is
    /// unknown until a block of its own names one.
    inherits: bool,
    /// A block asked for that unknown path: this part's result is not the
    /// sequential scan's.
    read_unknown: std::cell::Cell<bool>,
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
            inherits: false,
            read_unknown: std::cell::Cell::new(false),
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

    /// The path the previous block named (for a block that names none).
    pub fn last_path(&self) -> Option<String> {
        if self.inherits && self.last_path.is_none() {
            self.read_unknown.set(true);
        }
        self.last_path.clone()
    }

    /// Records the path a block named (copied only when it changes: most
    /// blocks name the file the one before named).
    pub fn set_last_path(&mut self, path: &str) {
        if self.last_path.as_deref() != Some(path) {
            self.last_path = Some(path.to_string());
        }
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
        let commands = || suggestions::find_in(&lines);
        let ((edits, errors, preview), suggestions) = if lines.len() >= SIDE_BY_SIDE_LINES {
            match cut_line(&lines).filter(|_| crate::cores::count() > 1) {
                Some(cut) => blocks_in_two(payload, &lines, format, cut, commands),
                None => crate::cores::join(
                    || parse_blocks(payload, Scan::over(&lines), format),
                    commands,
                ),
            }
        } else {
            (
                parse_blocks(payload, Scan::over(&lines), format),
                commands(),
            )
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

/// What a scan of the payload's lines found: edits, errors, and the code
/// blocks' errors apart (see [`Found::finish`]).
#[derive(Default)]
struct Found {
    edits: Vec<ParsedEdit>,
    errors: Vec<EditError>,
    code_errors: Vec<EditError>,
}

impl Found {
    /// The edits and errors of a whole scan: chat code blocks are a
    /// response's edits only when it holds no block of another format
    /// (beside SEARCH/REPLACE blocks or a patch, a fenced block naming a
    /// file shows code, the result or an example, and reading it as an
    /// edit could refuse the whole payload); a response with no block may
    /// carry its tool call in a ```json fence.
    fn finish(
        self,
        payload: &str,
        only: Option<Format>,
    ) -> (Vec<ParsedEdit>, Vec<EditError>, bool) {
        let Found {
            mut edits,
            mut errors,
            code_errors,
        } = self;
        if edits.iter().any(|e| e.format != Format::CodeBlock) || !errors.is_empty() {
            edits.retain(|e| e.format != Format::CodeBlock);
        } else {
            errors.extend(code_errors);
        }
        if only.is_none_or(|f| f != Format::Json) && edits.is_empty() && errors.is_empty() {
            if let Some(out) = json::parse_fenced(payload) {
                return (out.edits, out.errors, out.preview);
            }
        }
        (edits, errors, false)
    }

    /// Adds a later part's finds.
    fn extend(&mut self, later: Found) {
        self.edits.extend(later.edits);
        self.errors.extend(later.errors);
        self.code_errors.extend(later.code_errors);
    }
}

/// Scans a markdown response for blocks of every (or one) block format.
fn parse_blocks(
    payload: &str,
    mut scan: Scan,
    only: Option<Format>,
) -> (Vec<ParsedEdit>, Vec<EditError>, bool) {
    let mut found = Found::default();
    scan_blocks(&mut scan, 0, None, only, &mut found);
    found.finish(payload, only)
}

/// The block scan from 0-based line `i`: at each line every format is
/// asked whether a block opens there, and the first that says yes parses
/// it and says where the scan resumes. Stops at line `stop` if the scan
/// lands on it (`true`), else runs to the end (`false`).
fn scan_blocks(
    scan: &mut Scan,
    mut i: usize,
    stop: Option<usize>,
    only: Option<Format>,
    found: &mut Found,
) -> bool {
    'lines: while i < scan.lines.len() {
        if Some(i) == stop {
            return true;
        }
        for parser in BLOCK_PARSERS {
            if only.is_some_and(|f| f != parser.format && !same_family(f, parser.format)) {
                continue;
            }
            if (parser.opens)(scan, i) {
                let block = (parser.parse)(scan, i);
                found.edits.extend(block.edits);
                if parser.format == Format::CodeBlock {
                    found.code_errors.extend(block.errors);
                } else {
                    found.errors.extend(block.errors);
                }
                // A parser always makes progress, even on a broken block.
                i = block.next_line.max(i + 1);
                continue 'lines;
            }
        }
        i += 1;
    }
    false
}

/// Where a long payload's block scan is cut in two: the line after the
/// first `>>>>>>> REPLACE` marker from two thirds in (the second core also
/// finds the suggested commands), where a sequential scan resumes after a
/// SEARCH/REPLACE block. Whether the scan lands there is checked as it
/// runs ([`blocks_in_two`]).
fn cut_line(lines: &[&str]) -> Option<usize> {
    (lines.len() * 2 / 3..lines.len())
        .find(|&j| conflict_markers::is_replace_marker(lines[j]))
        .map(|j| j + 1)
}

/// [`parse_blocks`] with the lines from `cut` on scanned on another core
/// (then `commands` there), the same as one scan from the start:
/// - the scan's course (which line each block opens at, where it
///   resumes) depends on the lines alone, so a scan from `cut` follows
///   the sequential one if that one lands on `cut`; the first part stops
///   there, or, when it steps over it, goes on to the end alone;
/// - a block's result depends on the scan's state only through the path
///   the previous block named, which the second part does not know: if
///   one of its blocks asks for it before one names a path, its result is
///   dropped and the first part goes on from `cut` itself; and the group
///   numbers of simultaneous edits, which it numbers from 1 and which are
///   shifted by the first part's count.
fn blocks_in_two(
    payload: &str,
    lines: &[&str],
    only: Option<Format>,
    cut: usize,
    commands: impl FnOnce() -> Vec<String> + Send,
) -> ((Vec<ParsedEdit>, Vec<EditError>, bool), Vec<String>) {
    let first = || {
        let mut scan = Scan::over(lines);
        let mut found = Found::default();
        let landed = scan_blocks(&mut scan, 0, Some(cut), only, &mut found);
        (scan, found, landed)
    };
    let second = || {
        let mut scan = Scan::over(lines);
        scan.inherits = true;
        let mut found = Found::default();
        scan_blocks(&mut scan, cut, None, only, &mut found);
        let groups = scan.next_group;
        ((found, scan.read_unknown.get(), groups), commands())
    };
    let ((mut scan, mut found, landed), ((later, read_unknown, _), commands)) =
        crate::cores::join(first, second);
    if landed {
        if read_unknown {
            scan_blocks(&mut scan, cut, None, only, &mut found);
        } else {
            let mut later = later;
            for e in &mut later.edits {
                if let Ordering::Simultaneous(g) = &mut e.ordering {
                    *g += scan.next_group;
                }
            }
            found.extend(later);
        }
    }
    (found.finish(payload, only), commands)
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

    /// Every cut of a payload's block scan in two gives the one scan's
    /// result (edits, their group numbers, errors, the code-block rule).
    fn check_every_cut(payload: &str, only: Option<Format>) {
        let lines = crate::text::lines::split(payload);
        let want = parse_blocks(payload, Scan::over(&lines), only);
        for cut in 0..=lines.len() {
            let (got, commands) = blocks_in_two(payload, &lines, only, cut, Vec::new);
            assert_eq!(got, want, "cut at line {cut} of {payload:?}");
            assert!(commands.is_empty());
        }
    }

    /// On random responses built of every format's pieces (blocks with
    /// and without their path line, fences, patches with simultaneous
    /// hunks, broken and stray markers, CRLF, blank lines, non-ASCII),
    /// cut at every line.
    #[test]
    fn a_scan_cut_in_two_is_the_one_scan() {
        let pieces = [
            "Some prose.\n",
            "\n",
            "src/a.py\n",
            "b/c.rs\r\n",
            "```python\n",
            "```\n",
            "```src/d.py\n",
            "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n",
            "<<<<<<< SEARCH\r\n  y\u{e9}\r\n=======\r\n  z\r\n>>>>>>> REPLACE\r\n",
            "<<<<<<< SEARCH\n:start_line:3\n-------\nq\n=======\nr\n>>>>>>> REPLACE\n",
            "<<<<<<< SEARCH\n=======\nnew file\n>>>>>>> REPLACE\n",
            ">>>>>>> REPLACE\n",
            "<<<<<<< SEARCH\nunclosed\n",
            "--- a/e.py\n+++ b/e.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -9 +9 @@\n-d\n+f\n",
            "*** Begin Patch\n*** Update File: g.py\n@@\n-h\n+i\n*** End Patch\n",
            "FILE: h.txt\nFIND:\n```\nold\n```\nREPLACE:\n```\nnew\n```\n",
            "\u{ab}\u{ab}\u{ab} EDIT\nk.py\nold\n\u{bb}\u{bb}\u{bb}\n",
            "```python src/m.py\ndef f():\n    pass\n```\n",
            "```bash\npip install x\n```\n",
        ];
        let mut rng = crate::test_rng::Rng::new(17);
        for trial in 0..300 {
            let n = 1 + rng.below(14);
            let payload: String = (0..n).map(|_| *rng.pick(&pieces)).collect();
            let only = match trial % 5 {
                0 => Some(Format::SearchReplace),
                1 => Some(Format::UnifiedDiff),
                _ => None,
            };
            check_every_cut(&payload, only);
        }
    }

    /// The parse fixtures and corpus payloads, cut at every line.
    #[test]
    fn the_fixtures_cut_in_two_are_the_one_scan() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse");
        let mut stack = vec![root];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md" || e == "txt") {
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    check_every_cut(&text, None);
                    seen += 1;
                }
            }
        }
        assert!(seen > 50, "{seen} payloads");
    }

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
