//! The `code_block` format: a plain fenced code block that names a file,
//! as chat models write by default.
//!
//! ````text
//! Here is the updated `load_config`:
//!
//! ```python src/app.py
//! def load_config(path):
//!     ...
//! ```
//! ````
//!
//! The file is named by the fence's info string (```` ```python src/app.py ````,
//! ```` ```src/app.py ````, ```` ```python:src/app.py ````, `title="..."`), by
//! a first line that is a comment holding only a path (`// src/app.py`,
//! `# File: src/app.py`, `<!-- index.html -->`; that line is not content), or
//! by a path line, bold path or heading right before the fence. A path must
//! have a `/` or an extension. A block naming no file is not an edit, and
//! neither is a block that holds another format (SEARCH/REPLACE inside a
//! fence is that format). When two of these name different files, the block
//! is refused. What the content means (a new file, the whole file, a
//! snippet) depends on the file, so `resolve/code_block.rs` decides it.

use super::{markdown, Block, ParsedEdit, Scan, BLOCK_PARSERS};
use crate::error::{EditError, ErrorKind};
use crate::model::{EditOp, Format, Ordering, SourceSpan};

/// Does a code block naming a file open at 0-based line `i`?
pub fn opens(scan: &Scan, i: usize) -> bool {
    // Only an opening fence: not one closing an earlier block (nor a
    // line that is no fence).
    if !scan.opens_fence(i) {
        return false;
    }
    let Some((ch, len, info)) = scan.line(i).and_then(markdown::fence_parts) else {
        return false;
    };
    // A block of another format inside (a SEARCH marker on its first
    // line, most often) is found on the way to the closing fence.
    let other_format = (i + 1..scan.lines.len())
        .take_while(|&j| !markdown::closes_run(scan.lines[j], ch, len))
        .any(|j| {
            // Only the formats that could open at the line's first byte;
            // the most common first (a SEARCH marker): which format opens
            // does not matter here, only whether one does.
            let askers = super::askers(scan.lines[j]);
            askers != 0
                && (super::search_replace::opens(scan, j)
                    || BLOCK_PARSERS
                        .iter()
                        .enumerate()
                        .filter(|&(p, parser)| {
                            askers >> p & 1 == 1 && parser.format != Format::CodeBlock
                        })
                        .any(|(_, parser)| (parser.opens)(scan, j)))
        });
    !other_format && !names(scan, i, info).is_empty()
}

/// Parses the code block whose fence opens at 0-based line `i`.
pub fn parse(scan: &mut Scan, i: usize) -> Block {
    let mut block = Block::default();
    let Some(fence) = scan.line(i).and_then(markdown::fence) else {
        block.next_line = i + 1;
        return block;
    };
    let Some(end) = closing(scan, i, &fence) else {
        block.next_line = scan.lines.len();
        block.errors.push(
            EditError::new(
                ErrorKind::Truncated,
                format!(
                    "the code block opened at payload line {} never closes: the response was cut off; \
                     ask for the rest of the file",
                    i + 1
                ),
            )
            .with_lines(vec![i + 1]),
        );
        return block;
    };
    block.next_line = end + 1;
    let names = names(scan, i, &fence.info);
    let mut paths: Vec<&str> = names.iter().map(|n| n.path.as_str()).collect();
    paths.dedup();
    if paths.len() > 1 {
        block.errors.push(
            EditError::new(
                ErrorKind::Parse,
                format!(
                    "the code block at payload line {} names two files, `{}` and `{}`; name one",
                    i + 1,
                    paths[0],
                    paths[1]
                ),
            )
            .with_lines(vec![i + 1]),
        );
        return block;
    }
    let Some(name) = names.into_iter().next() else {
        return block;
    };
    let first = if name.from_comment { i + 2 } else { i + 1 };
    let path_line = name.from_comment.then(|| scan.lines[i + 1].to_string());
    let mut content = String::new();
    for line in &scan.lines[first.min(end)..end] {
        content.push_str(line);
        content.push('\n');
    }
    scan.set_last_path(&name.path);
    block.edits.push(ParsedEdit {
        path: name.path,
        format: Format::CodeBlock,
        source: SourceSpan::lines(i + 1, end + 1),
        ordering: Ordering::Sequential,
        op: EditOp::CodeBlock { content, path_line },
    });
    block
}

/// A file a block names, and whether its first content line named it.
struct Name {
    path: String,
    from_comment: bool,
}

/// The 0-based line that closes the fence opened at `i`.
fn closing(scan: &Scan, i: usize, fence: &markdown::Fence) -> Option<usize> {
    (i + 1..scan.lines.len()).find(|&j| markdown::closes(scan.lines[j], fence))
}

/// Every file the block opening at `i` names, in order: its info string,
/// its first line, the line before it.
fn names(scan: &Scan, i: usize, info: &str) -> Vec<Name> {
    let mut out = Vec::new();
    if let Some(path) = info_path(info) {
        out.push(Name {
            path,
            from_comment: false,
        });
    }
    if let Some(path) = scan.line(i + 1).and_then(comment_path) {
        out.push(Name {
            path,
            from_comment: true,
        });
    }
    if let Some(path) = line_before(scan, i) {
        out.push(Name {
            path,
            from_comment: false,
        });
    }
    out
}

/// A path in a fence's info string: a word with a `/` or an extension,
/// after an optional language (`python src/app.py`, `python:src/app.py`,
/// `title="src/app.py"`).
fn info_path(info: &str) -> Option<String> {
    info.split_whitespace()
        .flat_map(|word| word.rsplit_once(':').map_or(word, |(_, p)| p).split('='))
        .map(|w| w.trim_matches(['"', '\'']))
        .rfind(|w| is_path(w))
        .map(str::to_string)
}

/// A first content line that is a comment holding only a path.
fn comment_path(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = [("<!--", "-->"), ("/*", "*/")]
        .iter()
        .find_map(|(open, close)| t.strip_prefix(open)?.strip_suffix(close))
        .or_else(|| {
            ["//", "#", "--", ";"]
                .iter()
                .find_map(|open| t.strip_prefix(open))
        })?;
    let path = markdown::strip_path_decoration(inner);
    is_path(&path).then_some(path)
}

/// A path line, bold path or heading right before the fence (blank lines
/// between allowed).
fn line_before(scan: &Scan, i: usize) -> Option<String> {
    let mut j = i;
    while j > 0 && scan.lines[j - 1].trim().is_empty() {
        j -= 1;
    }
    let line = scan.line(j.checked_sub(1)?)?;
    if markdown::fence(line).is_some() {
        return None;
    }
    let path = markdown::strip_path_decoration(line);
    is_path(&path).then_some(path)
}

/// A path: one word with a `/` or an extension (`src/app.py`,
/// `Makefile.am`, `cmd/tool/`), not a URL or a version number.
fn is_path(s: &str) -> bool {
    if !markdown::looks_like_path(s) || s.contains("://") || s.contains(char::is_whitespace) {
        return false;
    }
    let name = s.rsplit('/').next().unwrap_or(s);
    let has_ext = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=10).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    has_ext || s.contains('/') && !name.is_empty() && !s.starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn content(payload: &str) -> Vec<(String, String)> {
        parse(payload, None)
            .batch
            .edits
            .into_iter()
            .filter_map(|e| match e.op {
                EditOp::CodeBlock { content, .. } => Some((e.path, content)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_block_is_named_by_its_info_string_first_line_or_the_line_before() {
        let one = |p: &str| content(p).into_iter().next();
        let expect = Some(("src/app.py".to_string(), "x = 1\n".to_string()));
        assert_eq!(one("```python src/app.py\nx = 1\n```\n"), expect);
        assert_eq!(one("```src/app.py\nx = 1\n```\n"), expect);
        assert_eq!(one("```python:src/app.py\nx = 1\n```\n"), expect);
        assert_eq!(one("```py title=\"src/app.py\"\nx = 1\n```\n"), expect);
        assert_eq!(one("```python\n# src/app.py\nx = 1\n```\n"), expect);
        assert_eq!(one("```python\n# File: src/app.py\nx = 1\n```\n"), expect);
        assert_eq!(one("**src/app.py**\n\n```python\nx = 1\n```\n"), expect);
        assert_eq!(one("### `src/app.py`\n```python\nx = 1\n```\n"), expect);
        assert_eq!(one("src/app.py:\n```python\nx = 1\n```\n"), expect);
    }

    #[test]
    fn blocks_that_name_no_file_are_not_edits() {
        for payload in [
            "```python\nx = 1\n```\n",
            "Run this:\n```bash\npytest -q\n```\n",
            "```python\n# Install the package first\nx = 1\n```\n",
            "Example:\n```\nfoo\n```\n",
            "See https://example.com/a.py\n```python\nx = 1\n```\n",
        ] {
            let parsed = parse(payload, None);
            assert!(parsed.batch.edits.is_empty(), "{payload:?}");
        }
    }

    #[test]
    fn another_format_inside_a_fence_is_that_format() {
        let payload =
            "src/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n";
        let parsed = parse(payload, None);
        assert_eq!(parsed.batch.edits.len(), 1);
        assert_eq!(parsed.batch.edits[0].format, Format::SearchReplace);
    }

    #[test]
    fn beside_another_format_a_code_block_is_no_edit() {
        let payload = "src/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\nThe config:\n\n```yaml config.yaml\nkey: value\n```\n";
        let parsed = parse(payload, None);
        assert_eq!(parsed.batch.edits.len(), 1);
        assert_eq!(parsed.formats, vec![Format::SearchReplace]);
        // Nor is a broken one an error there.
        let parsed = parse(
            &format!("{payload}\na/x.py\n```python b/y.py\nx = 1\n```\n"),
            None,
        );
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    }

    #[test]
    fn two_names_for_one_block_are_refused() {
        let parsed = parse("a/x.py\n```python b/y.py\nx = 1\n```\n", None);
        assert!(parsed.batch.edits.is_empty());
        assert!(parsed.errors[0].message.contains("names two files"));
        // The same file named twice is one name.
        assert_eq!(content("a/x.py\n```python a/x.py\nx = 1\n```\n").len(), 1);
    }

    #[test]
    fn a_block_cut_off_is_truncated() {
        let parsed = parse("```python src/app.py\nx = 1\n", None);
        assert_eq!(parsed.errors[0].kind, ErrorKind::Truncated);
    }
}
