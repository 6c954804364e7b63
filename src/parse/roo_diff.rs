//! The `roo_diff` format (Roo Code / Cline `apply_diff`, seed 002,
//! `FORMATS.md` §2): conflict-marker blocks with an optional
//! `:start_line:N` / `:end_line:N` header and `-------` divider, either after
//! a path line or inside the XML envelopes
//!
//! ```text
//! <apply_diff><path>P</path><diff>…blocks…</diff></apply_diff>
//! <apply_diff><args><file><path>P</path>
//!   <diff><content><![CDATA[…blocks…]]></content><start_line>N</start_line></diff>…
//! </file>…</args></apply_diff>
//! ```
//!
//! Inside a `<diff>`, markers are validated in order (a stray `=======` is an
//! error naming its payload line); text outside the blocks (a path line
//! repeated in the diff, prose) is ignored. Outside XML, a block is roo's
//! only when it carries roo features; plain blocks are `search_replace`'s.

use super::conflict_markers::{self as markers, Dialect};
use super::search_replace::{block_op, parse_block};
use super::{Block, Edits, ParsedEdit, Scan};
use crate::error::{EditError, ErrorKind};
use crate::model::{Format, Ordering, SourceSpan};

/// Does a `roo_diff` block open at 0-based line `i`: an `<apply_diff>` or
/// `<args>` element, or a SEARCH block with roo features?
pub fn opens(scan: &Scan, i: usize) -> bool {
    let Some(line) = scan.line(i) else {
        return false;
    };
    let trimmed = line.trim_start();
    // Each of the three starts with `<` (a SEARCH marker at the line's
    // first byte): most lines are rejected here.
    if !trimmed.starts_with('<') {
        return false;
    }
    trimmed.starts_with("<apply_diff>")
        || trimmed.starts_with("<args>")
        || (markers::is_search_marker(line) && markers::has_roo_features(&scan.lines, i))
}

/// Parses the `roo_diff` block (or XML element) opening at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let line = scan.line(i).unwrap_or("");
    if markers::is_search_marker(line) {
        return parse_block(scan, i, Dialect::Roo, Format::RooDiff);
    }
    let closing = if line.trim_start().starts_with("<apply_diff>") {
        "</apply_diff>"
    } else {
        "</args>"
    };
    parse_element(scan, i, closing)
}

/// Parses an XML element from line `i` to the line holding `closing`.
fn parse_element(scan: &mut Scan, i: usize, closing: &str) -> Block {
    let Some(end) = (i..scan.lines.len()).find(|&j| scan.lines[j].contains(closing)) else {
        return Block {
            next_line: scan.lines.len(),
            edits: Edits::None,
            errors: vec![EditError::at_payload_line(
                ErrorKind::Truncated,
                i + 1,
                format!(
                    "the payload ends inside the element opened at payload line {} (no \
                     `{closing}`); the response was probably cut off: send it again whole",
                    i + 1
                ),
            )],
        };
    };
    let element = Element {
        text: scan.lines[i..=end].join("\n"),
        first_line_no: i + 1,
    };
    let mut block = Block {
        next_line: end + 1,
        ..Block::default()
    };
    for file in element.files() {
        parse_file(&element, &file, &mut block);
        if let Some(path) = file.path {
            scan.set_last_path(&path);
        }
    }
    if block.edits.is_empty() && block.errors.is_empty() {
        block.errors.push(EditError::at_payload_line(
            ErrorKind::Parse,
            i + 1,
            format!(
                "the element at payload line {} holds no `<path>` with a `<diff>`; write \
                 `<apply_diff><path>FILE</path><diff>…SEARCH/REPLACE blocks…</diff></apply_diff>`",
                i + 1
            ),
        ));
    }
    block
}

/// The text of one XML element and the payload line it starts on.
struct Element {
    text: String,
    first_line_no: usize,
}

/// One `<file>` (or the whole element in the single-file form).
struct FileElement {
    path: Option<String>,
    /// Byte offset of the file's start in the element text.
    at: usize,
    diffs: Vec<Diff>,
}

/// One `<diff>`: its blocks' text, where that text starts, and `<start_line>`.
struct Diff {
    content_at: usize,
    content: String,
    start_line: Option<usize>,
}

impl Element {
    /// The 1-based payload line of byte offset `at` in the element text.
    fn line_no(&self, at: usize) -> usize {
        let before = self.text.get(..at).unwrap_or(&self.text);
        self.first_line_no + crate::text::lines::newlines(before)
    }

    /// The `<file>`s of the multi-file form, or the element itself as one file.
    fn files(&self) -> Vec<FileElement> {
        let files: Vec<FileElement> = tag_spans(&self.text, "file", 0)
            .into_iter()
            .map(|(start, end)| self.file(start, end))
            .collect();
        if files.is_empty() {
            vec![self.file(0, self.text.len())]
        } else {
            files
        }
    }

    fn file(&self, start: usize, end: usize) -> FileElement {
        let text = self.text.get(start..end).unwrap_or("");
        let path = tag_spans(text, "path", 0)
            .first()
            .and_then(|&(s, e)| text.get(s..e))
            .map(|p| xml_unescape(p.trim()))
            .filter(|p| !p.is_empty());
        let diffs = diff_spans(text)
            .into_iter()
            .map(|(s, e)| diff(text, s, e, start))
            .collect();
        FileElement {
            path,
            at: start,
            diffs,
        }
    }
}

/// Reads one `<diff>` body at `s..e` of `text` (which starts at `base` in
/// the element): a `<content>` (CDATA or not) or the body itself.
fn diff(text: &str, s: usize, e: usize, base: usize) -> Diff {
    let body = text.get(s..e).unwrap_or("");
    let start_line = tag_spans(body, "start_line", 0)
        .first()
        .and_then(|&(a, b)| body.get(a..b))
        .and_then(|n| n.trim().parse().ok());
    let (inner_at, inner) = match tag_spans(body, "content", 0).first() {
        Some(&(a, b)) => (a, body.get(a..b).unwrap_or("")),
        None => (0, body),
    };
    let (cdata_at, content) = strip_cdata(inner);
    Diff {
        content_at: base + s + inner_at + cdata_at,
        content: content.to_string(),
        start_line,
    }
}

/// The inner text of `<![CDATA[…]]>` (and its offset), or the text itself.
fn strip_cdata(text: &str) -> (usize, &str) {
    let Some(open) = text.find("<![CDATA[") else {
        return (0, text);
    };
    let from = open + "<![CDATA[".len();
    let rest = text.get(from..).unwrap_or("");
    let inner = rest.rfind("]]>").map_or(rest, |end| &rest[..end]);
    (from, inner)
}

/// Byte spans (inner text) of the `<tag>…</tag>` elements of `text`, from `from`.
fn tag_spans(text: &str, tag: &str, from: usize) -> Vec<(usize, usize)> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut spans = Vec::new();
    let mut at = from;
    while let Some(rel) = text.get(at..).and_then(|t| t.find(&open)) {
        let start = at + rel + open.len();
        let Some(end_rel) = text.get(start..).and_then(|t| t.find(&close)) else {
            break;
        };
        spans.push((start, start + end_rel));
        at = start + end_rel + close.len();
    }
    spans
}

/// Like [`tag_spans`] for `<diff>`, but a CDATA section may hold `</diff>`.
fn diff_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(rel) = text.get(at..).and_then(|t| t.find("<diff>")) {
        let start = at + rel + "<diff>".len();
        let rest = text.get(start..).unwrap_or("");
        let search_from = match (rest.find("<![CDATA["), rest.find("</diff>")) {
            (Some(c), Some(d)) if c < d => rest.get(c..).and_then(|r| r.find("]]>")).map(|e| c + e),
            _ => Some(0),
        };
        let Some(end_rel) = search_from.and_then(|from| {
            rest.get(from..)
                .and_then(|r| r.find("</diff>"))
                .map(|e| from + e)
        }) else {
            break;
        };
        spans.push((start, start + end_rel));
        at = start + end_rel + "</diff>".len();
    }
    spans
}

/// Turns one file's diffs into edits (or errors) on `block`.
fn parse_file(element: &Element, file: &FileElement, block: &mut Block) {
    let Some(path) = &file.path else {
        block.errors.push(EditError::at_payload_line(
            ErrorKind::Parse,
            element.line_no(file.at),
            format!(
                "the diff at payload line {} has no `<path>`; name the file with \
                 `<path>FILE</path>` before its `<diff>`",
                element.line_no(file.at)
            ),
        ));
        return;
    };
    for diff in &file.diffs {
        parse_diff(element, path, diff, block);
    }
}

/// Reads the blocks of one `<diff>`, validating the marker sequence.
fn parse_diff(element: &Element, path: &str, diff: &Diff, block: &mut Block) {
    let lines: Vec<&str> = diff.content.split('\n').collect();
    let first_line_no = element.line_no(diff.content_at);
    let mut hint = diff.start_line;
    let errors_before = block.errors.len();
    let mut found_block = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if markers::is_search_marker(line) {
            found_block = true;
            match markers::read_block(Some(&diff.content), &lines, i, first_line_no, Dialect::Roo) {
                Ok(mut raw) => {
                    // `<start_line>` belongs to the diff's first block.
                    raw.start_line = raw.start_line.or(hint.take());
                    let closer = raw.closer;
                    block.edits.push(ParsedEdit {
                        path: path.to_string(),
                        format: Format::RooDiff,
                        source: SourceSpan::lines(first_line_no + i, first_line_no + closer),
                        ordering: Ordering::Sequential,
                        op: block_op(raw, true),
                    });
                    i = closer + 1;
                }
                Err(broken) => {
                    block.errors.push(broken.error);
                    i = broken.resume;
                }
            }
            continue;
        }
        if let Some(found) = stray_marker(line) {
            block.errors.push(EditError::at_payload_line(
                ErrorKind::Parse,
                first_line_no + i,
                format!(
                    "found {found} before `<<<<<<< SEARCH` at payload line {}; every block is \
                     `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`",
                    first_line_no + i
                ),
            ));
            i = markers::resume_after(&lines, i + 1);
            continue;
        }
        i += 1;
    }
    if !found_block && block.errors.len() == errors_before {
        block.errors.push(EditError::at_payload_line(
            ErrorKind::Parse,
            first_line_no,
            format!(
                "the `<diff>` for {path} at payload line {first_line_no} holds no \
                 `<<<<<<< SEARCH` block"
            ),
        ));
    }
}

/// A marker that cannot come before `<<<<<<< SEARCH`, as it should be named.
fn stray_marker(line: &str) -> Option<&'static str> {
    if markers::is_separator(line) {
        Some("`=======`")
    } else if markers::is_replace_marker(line) {
        Some("`>>>>>>> REPLACE`")
    } else if markers::is_near_miss_opener(line) {
        Some("a malformed SEARCH marker (use exactly `<<<<<<< SEARCH`)")
    } else {
        None
    }
}

/// Decodes the five predefined XML entities of a path.
fn xml_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::{markers, opens, Scan};

    /// The quick reject of [`opens`] (no `<` first) keeps its answer.
    #[test]
    fn opens_rejects_only_what_the_full_check_rejects() {
        let lines = [
            "<<<<<<< SEARCH",
            "  <<<<<<< SEARCH",
            "<apply_diff>",
            "  <args>",
            "\t<args>",
            "x",
            "",
            ":start_line:3",
            "-------",
            "=======",
            "1 | a",
            ">>>>>>> REPLACE",
            "\u{a0}<args>",
        ];
        let mut rng = crate::test_rng::Rng::new(3);
        for _ in 0..300 {
            let n = 1 + rng.below(6);
            let text: Vec<&str> = (0..n).map(|_| *rng.pick(&lines)).collect();
            let scan = Scan::with_lines(text.clone());
            for (i, &line) in text.iter().enumerate() {
                let trimmed = line.trim_start();
                let want = trimmed.starts_with("<apply_diff>")
                    || trimmed.starts_with("<args>")
                    || (markers::is_search_marker(line) && markers::has_roo_features(&text, i));
                assert_eq!(opens(&scan, i), want, "{text:?} {i}");
            }
        }
    }
    use crate::model::{EditOp, Replace};
    use crate::parse::{parse, Parsed};

    fn parsed(text: &str) -> Parsed {
        parse(text, None)
    }

    fn replace(p: &Parsed, i: usize) -> &Replace {
        match &p.batch.edits[i].op {
            EditOp::Replace(r) => r,
            other => panic!("not a replace: {other:?}"),
        }
    }

    #[test]
    fn apply_diff_with_hints() {
        let p = parsed(
            "<apply_diff>\n<path>a.go</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:6\n-------\n\
             x\n=======\ny\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.batch.edits[0].path, "a.go");
        assert_eq!(p.batch.edits[0].source.first_line, 4);
        assert_eq!(replace(&p, 0).line_hint, Some(6));
        assert_eq!(replace(&p, 0).search, "x\n");
    }

    #[test]
    fn args_form_with_cdata_and_start_line() {
        let p = parsed(
            "<apply_diff>\n<args>\n<file>\n  <path>a.ts</path>\n  <diff>\n    <content><![CDATA[\n\
             <<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n]]></content>\n\
             <start_line>9</start_line>\n  </diff>\n</file>\n<file><path>b.ts</path><diff>\
             <content>\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n</content></diff></file>\n\
             </args>\n</apply_diff>\n",
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.batch.edits.len(), 2);
        assert_eq!(p.batch.edits[0].source.first_line, 7);
        assert_eq!(replace(&p, 0).line_hint, Some(9));
        assert_eq!(p.batch.edits[1].path, "b.ts");
        assert_eq!(replace(&p, 1).line_hint, None);
    }

    #[test]
    fn line_number_prefixes_are_stripped_aside() {
        let p = parsed(
            "src/a.rs\n<<<<<<< SEARCH\n3 | fn a() {\n4 | }\n=======\nfn b() {\n}\n>>>>>>> REPLACE\n",
        );
        let r = replace(&p, 0);
        assert_eq!(p.batch.edits[0].format, crate::model::Format::RooDiff);
        assert_eq!(
            r.without_line_numbers,
            Some(("fn a() {\n}\n".into(), "fn b() {\n}\n".into()))
        );
        assert_eq!(r.line_hint, Some(3));
    }

    #[test]
    fn stray_separator_names_its_line() {
        let p = parsed("<apply_diff>\n<path>a</path>\n<diff>\n=======\n</diff>\n</apply_diff>\n");
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        assert_eq!(p.errors[0].lines, [4]);
        assert!(p.errors[0].message.contains("before `<<<<<<< SEARCH`"));
    }
}
