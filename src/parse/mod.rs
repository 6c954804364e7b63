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
mod edits;
pub mod find_replace;
pub mod json;
pub mod markdown;
pub mod roo_diff;
pub mod search_replace;
pub mod suggestions;
pub mod unified_diff;

use crate::error::{EditError, ErrorKind};
use crate::model::{Edit, EditBatch, EditOp, Format, Ordering, SourceSpan};
pub use edits::Edits;

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
    /// The text the lines were split from, when known: a block's text is
    /// copied from it in one piece where it can be
    /// ([`conflict_markers::section_text`]).
    text: Option<&'a str>,
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
    /// The code fences of the lines, read once for every part of the scan
    /// and the suggestions pass ([`parse`]).
    fences: Option<&'a markdown::Fences>,
    /// Else read here, on first use.
    own_fences: std::cell::OnceCell<markdown::Fences>,
    /// The last line asked whether it names a path, and the path's
    /// offsets in it ([`markdown::path_before`]).
    #[allow(clippy::type_complexity)]
    last_path_line: std::cell::Cell<Option<(&'a str, Option<(usize, usize)>)>>,
}

impl<'a> Scan<'a> {
    /// Splits a payload into lines.
    pub fn new(text: &'a str) -> Scan<'a> {
        Scan {
            text: Some(text),
            ..Scan::with_lines(text.lines().collect())
        }
    }

    /// A scan of lines already split.
    pub fn with_lines(lines: Vec<&'a str>) -> Scan<'a> {
        Scan::of(std::borrow::Cow::Owned(lines))
    }

    /// A scan of lines already split, borrowed.
    pub fn over(lines: &'a [&'a str]) -> Scan<'a> {
        Scan::of(std::borrow::Cow::Borrowed(lines))
    }

    /// A scan of the lines of `text` ([`split_lines`]) and their fences,
    /// all borrowed.
    fn over_payload(text: &'a str, lines: &'a [&'a str], fences: &'a markdown::Fences) -> Scan<'a> {
        Scan {
            text: Some(text),
            fences: Some(fences),
            ..Scan::over(lines)
        }
    }

    fn of(lines: std::borrow::Cow<'a, [&'a str]>) -> Scan<'a> {
        Scan {
            lines,
            text: None,
            last_path: None,
            inherits: false,
            read_unknown: std::cell::Cell::new(false),
            next_group: 0,
            fences: None,
            own_fences: std::cell::OnceCell::new(),
            last_path_line: std::cell::Cell::new(None),
        }
    }

    /// Whether a code fence opens at 0-based line `i` (it is not inside a
    /// fence opened before it).
    pub fn opens_fence(&self, i: usize) -> bool {
        let fences = match self.fences {
            Some(fences) => fences,
            None => self
                .own_fences
                .get_or_init(|| markdown::Fences::new(&self.lines)),
        };
        fences.opens(i)
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
    pub edits: Edits,
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
    /// The first bytes a line it opens at can start with, of the ASCII
    /// bytes that are not whitespace: a line starting with another of
    /// them, or empty, is not asked ([`askers`]). A line starting with
    /// whitespace or a non-ASCII byte is asked whatever this says.
    pub heads: &'static [u8],
}

/// Per first byte of a line, a bit per parser of [`BLOCK_PARSERS`] (by
/// position) that could open a block there: its [`BlockParser::heads`],
/// and every parser for whitespace (what `trim` takes off) and non-ASCII
/// bytes.
const ASKED_BY_HEAD: [u8; 256] = {
    assert!(BLOCK_PARSERS.len() <= 8);
    let mut table = [0u8; 256];
    let mut p = 0;
    while p < BLOCK_PARSERS.len() {
        let heads = BLOCK_PARSERS[p].heads;
        let mut k = 0;
        while k < heads.len() {
            table[heads[k] as usize] |= 1 << p;
            k += 1;
        }
        p += 1;
    }
    let mut b = 0;
    while b < 256 {
        if b >= 128 || matches!(b, 9..=13 | 32) {
            table[b] = u8::MAX;
        }
        b += 1;
    }
    table
};

/// The parsers (a bit each, by position in [`BLOCK_PARSERS`]) that could
/// open a block at `line`, read off its first byte: most lines (prose,
/// paths, code, blank lines) are asked of none or one.
pub(crate) fn askers(line: &str) -> u8 {
    line.as_bytes()
        .first()
        .map_or(0, |&b| ASKED_BY_HEAD[b as usize])
}

/// The block formats, in the order they are asked at each line.
/// More specific openers come first (`<apply_diff>` before bare SEARCH).
pub const BLOCK_PARSERS: &[BlockParser] = &[
    BlockParser {
        format: Format::ApplyPatch,
        opens: apply_patch::opens,
        parse: apply_patch::parse,
        heads: b"*",
    },
    BlockParser {
        format: Format::UnifiedDiff,
        opens: unified_diff::opens,
        parse: unified_diff::parse,
        heads: b"-d",
    },
    BlockParser {
        format: Format::RooDiff,
        opens: roo_diff::opens,
        parse: roo_diff::parse,
        heads: b"<",
    },
    BlockParser {
        format: Format::SearchReplace,
        opens: search_replace::opens,
        parse: search_replace::parse,
        heads: b"<>-=",
    },
    BlockParser {
        format: Format::EditBlock,
        opens: edit_block::opens,
        parse: edit_block::parse,
        heads: b"",
    },
    BlockParser {
        format: Format::EditBlockV2,
        opens: edit_block_v2::opens,
        parse: edit_block_v2::parse,
        heads: b"",
    },
    BlockParser {
        format: Format::FindReplace,
        opens: find_replace::opens,
        parse: find_replace::parse,
        heads: b"*F",
    },
    // Last: a fenced block is a plain code block only when no other
    // format opens inside it.
    BlockParser {
        format: Format::CodeBlock,
        opens: code_block::opens,
        parse: code_block::parse,
        heads: b"`~",
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
        // The lines and their fences are read once, for both passes,
        // which are independent: a long response reads them on two cores.
        let (lines, fences) = split_lines(payload);
        let commands = || suggestions::find_with(&lines, &fences);
        let scan = || Scan::over_payload(payload, &lines, &fences);
        let ((edits, errors, preview), suggestions) = if lines.len() >= SIDE_BY_SIDE_LINES {
            match cut_line(&lines).filter(|_| crate::cores::count() > 1) {
                Some(cut) => blocks_in_two(payload, &lines, &fences, format, cut, commands),
                None => crate::cores::join(|| parse_blocks(payload, scan(), format), commands),
            }
        } else {
            (parse_blocks(payload, scan(), format), commands())
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

/// The payload's lines ([`crate::text::lines::split`]) and their fences
/// ([`markdown::Fences`]); a long payload's two halves are split on two
/// cores, cut after a `\n` (the lines of the whole are the first half's,
/// then the second's), and each half's fence lines found there.
fn split_lines(payload: &str) -> (Vec<&str>, markdown::Fences) {
    let half = payload.len() / 2;
    let cut = (payload.len() >= SIDE_BY_SIDE_BYTES)
        .then(|| memchr::memchr(b'\n', &payload.as_bytes()[half..]))
        .flatten()
        .map(|i| half + i + 1);
    // The first half's list has room for the second's lines too (as
    // many as the whole payload would have): they are copied after its
    // own, with no reallocation that would copy its own again.
    let read = |text, room: usize| {
        let lines = crate::text::lines::split_into(text, Vec::with_capacity(room / 32 + 1));
        let fence_lines = markdown::fence_lines(&lines);
        (lines, fence_lines)
    };
    let (lines, fence_lines) = match cut {
        Some(mid) if crate::cores::count() > 1 => {
            let ((mut lines, mut fence_lines), (second, later)) = crate::cores::join(
                || read(&payload[..mid], payload.len()),
                || read(&payload[mid..], payload.len() - mid),
            );
            let base = lines.len();
            fence_lines.extend(later.into_iter().map(|f| markdown::FenceLine {
                line: base + f.line,
                ..f
            }));
            lines.extend(second);
            (lines, fence_lines)
        }
        _ => read(payload, payload.len()),
    };
    let fences = markdown::Fences::of_fence_lines(lines.len(), &fence_lines);
    (lines, fences)
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
        let askers = askers(scan.lines[i]);
        for (p, parser) in BLOCK_PARSERS.iter().enumerate() {
            if askers >> p & 1 == 0
                || only.is_some_and(|f| f != parser.format && !same_family(f, parser.format))
            {
                continue;
            }
            if (parser.opens)(scan, i) {
                let block = (parser.parse)(scan, i);
                block.edits.append_to(&mut found.edits);
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
fn blocks_in_two<'a>(
    payload: &'a str,
    lines: &'a [&'a str],
    fences: &'a markdown::Fences,
    only: Option<Format>,
    cut: usize,
    commands: impl FnOnce() -> Vec<String> + Send,
) -> ((Vec<ParsedEdit>, Vec<EditError>, bool), Vec<String>) {
    let first = || {
        let mut scan = Scan::over_payload(payload, lines, fences);
        let mut found = Found::default();
        let landed = scan_blocks(&mut scan, 0, Some(cut), only, &mut found);
        (scan, found, landed)
    };
    let second = || {
        let mut scan = Scan::over_payload(payload, lines, fences);
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

    /// Pieces of every format (blocks with and without their path line,
    /// fences, patches with simultaneous hunks, broken and stray markers,
    /// CRLF, blank lines, non-ASCII).
    const PIECES: [&str; 27] = [
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
        "~~~\n",
        "   ```py\n",
        "    ```\n",
        "```a`b\n",
        "<<<<<<< SEARCH\n\\=======\nk\n=======\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE\n",
        "<<<<<<< SEARCH\r\nq\n\n=======\r\n\nr\n>>>>>>> REPLACE\n",
        "<<<<<<< SEARCH\n12 | a\n13 | b\n=======\n12 | c\n>>>>>>> REPLACE\n",
        "<apply_diff>\n<path>q.py</path>\n<diff>\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
    ];

    /// Every cut of a payload's block scan in two gives the one scan's
    /// result (edits, their group numbers, errors, the code-block rule);
    /// the parts share the payload's fences and copy blocks from it, the
    /// one scan reads its own and joins blocks line by line.
    fn check_every_cut(payload: &str, only: Option<Format>) {
        let lines = crate::text::lines::split(payload);
        let fences = markdown::Fences::new(&lines);
        let want = parse_blocks(payload, Scan::over(&lines), only);
        assert_eq!(
            parse_blocks(payload, Scan::over_payload(payload, &lines, &fences), only),
            want
        );
        for cut in 0..=lines.len() {
            let (got, commands) = blocks_in_two(payload, &lines, &fences, only, cut, Vec::new);
            assert_eq!(got, want, "cut at line {cut} of {payload:?}");
            assert!(commands.is_empty());
        }
    }

    /// On random responses built of every format's pieces ([`PIECES`]),
    /// cut at every line.
    #[test]
    fn a_scan_cut_in_two_is_the_one_scan() {
        let mut rng = crate::test_rng::Rng::new(17);
        for trial in 0..300 {
            let n = 1 + rng.below(14);
            let payload: String = (0..n).map(|_| *rng.pick(&PIECES)).collect();
            let only = match trial % 5 {
                0 => Some(Format::SearchReplace),
                1 => Some(Format::UnifiedDiff),
                _ => None,
            };
            check_every_cut(&payload, only);
        }
    }

    /// A format opens a block only at a line whose first byte its
    /// [`BlockParser::heads`] name ([`askers`]): every line of the parse
    /// fixtures and of random responses of every format's pieces, and
    /// each of them with its first char replaced by every ASCII byte and
    /// by non-ASCII chars, or with one prepended, or empty.
    #[test]
    fn formats_open_only_at_their_heads() {
        let mut payloads = fixture_payloads();
        let mut rng = crate::test_rng::Rng::new(41);
        for _ in 0..200 {
            let n = 1 + rng.below(10);
            payloads.push((0..n).map(|_| *rng.pick(&PIECES)).collect());
        }
        let heads: Vec<String> = (0u8..128)
            .map(|b| char::from(b).to_string())
            .chain(["\u{ab}", "\u{a0}", "\u{2003}", "\u{e9}", ""].map(String::from))
            .collect();
        for payload in &payloads {
            let lines = crate::text::lines::split(payload);
            for i in 0..lines.len() {
                let mut variants = vec![lines[i].to_string()];
                let rest = lines[i].chars().skip(1).collect::<String>();
                for head in &heads {
                    variants.push(format!("{head}{rest}"));
                    variants.push(format!("{head}{}", lines[i]));
                }
                for line in &variants {
                    let mut changed = lines.clone();
                    changed[i] = line;
                    let scan = Scan::with_lines(changed);
                    let askers = askers(line);
                    for (p, parser) in BLOCK_PARSERS.iter().enumerate() {
                        if askers >> p & 1 == 0 {
                            assert!(!(parser.opens)(&scan, i), "{:?} at {line:?}", parser.format);
                        }
                    }
                }
            }
        }
    }

    /// The parse fixtures' payloads.
    fn fixture_payloads() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse");
        let mut stack = vec![root];
        let mut out = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md" || e == "txt") {
                    if let Ok(text) = std::fs::read_to_string(&path) {
                        out.push(text);
                    }
                }
            }
        }
        out
    }

    /// The parse fixtures and corpus payloads, cut at every line.
    #[test]
    fn the_fixtures_cut_in_two_are_the_one_scan() {
        let mut seen = 0;
        for text in fixture_payloads() {
            check_every_cut(&text, None);
            seen += 1;
        }
        assert!(seen > 50, "{seen} payloads");
    }

    /// A long payload's lines split in two halves are its lines split
    /// whole, and their fences the whole's (CRLF and LF, blank lines, a
    /// `\r` with no `\n` after it, non-ASCII, fences and near-fences, a
    /// last line with and without its `\n`).
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
            "```python",
            "~~~",
            "   ````",
            "    ```",
            "``",
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
            let lines = crate::text::lines::split(&text);
            let fences = markdown::Fences::new(&lines);
            assert_eq!(split_lines(&text), (lines, fences));
            // A cut right at the middle: the byte before it a `\n`.
            let mut mid = text.len() / 2;
            while !text.is_char_boundary(mid) || !text.as_bytes()[mid - 1].is_ascii() {
                mid -= 1;
            }
            let joined = format!("{}\n{}", &text[..mid - 1], &text[mid..]);
            let lines = crate::text::lines::split(&joined);
            let fences = markdown::Fences::new(&lines);
            assert_eq!(split_lines(&joined), (lines, fences));
        }
    }
}
