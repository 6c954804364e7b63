//! Conflict-marker blocks shared by `search_replace` and `roo_diff`:
//! recognising `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`, and reading
//! one block as a state machine that names the payload line of any marker
//! out of sequence.
//!
//! ```text
//! <<<<<<< SEARCH        5-9 `<`, one space, `SEARCH`, an optional `>`
//! :start_line:12        roo header lines, only right after the opener
//! -------               roo's optional divider
//! old lines
//! =======               exactly seven `=`
//! new lines
//! >>>>>>> REPLACE       5-9 `>`, one space, `REPLACE`
//! ```
//!
//! Trailing whitespace on marker lines is ignored. A content line that starts
//! with a backslash before a marker (`\=======`, `\<<<<<<<`, ...) is content,
//! with the backslash removed.

use crate::error::{EditError, ErrorKind};

/// The texts a backslash escapes at the start of a content line.
const ESCAPABLE: [&str; 6] = [
    "<<<<<<<",
    "=======",
    ">>>>>>>",
    "-------",
    ":start_line:",
    ":end_line:",
];

/// Is `line` a `<<<<<<< SEARCH` opener (5-9 `<`, ` SEARCH`, optional `>`)?
pub fn is_search_marker(line: &str) -> bool {
    // A run of `<` first: most lines are rejected on their first byte.
    if line.as_bytes().first() != Some(&b'<') {
        return false;
    }
    let (run, rest) = run_of(line.trim_end(), b'<');
    (5..=9).contains(&run) && matches!(rest, b" SEARCH" | b" SEARCH>")
}

/// The length of the run of `byte` (ASCII) that `line` starts with, and
/// the bytes after it.
fn run_of(line: &str, byte: u8) -> (usize, &[u8]) {
    let bytes = line.as_bytes();
    let run = bytes.iter().take_while(|&&b| b == byte).count();
    (run, &bytes[run..])
}

/// Is `line` the `=======` separator (exactly seven `=`)?
pub fn is_separator(line: &str) -> bool {
    line.as_bytes().first() == Some(&b'=') && line.trim_end() == "======="
}

/// Is `line` a `>>>>>>> REPLACE` closer (5-9 `>`, ` REPLACE`)?
pub fn is_replace_marker(line: &str) -> bool {
    // A run of `>` first: most lines are rejected on their first byte.
    if line.as_bytes().first() != Some(&b'>') {
        return false;
    }
    let (run, rest) = run_of(line.trim_end(), b'>');
    (5..=9).contains(&run) && rest == b" REPLACE"
}

/// Is `line` roo's optional `-------` divider after the SEARCH header?
pub fn is_divider(line: &str) -> bool {
    line.as_bytes().first() == Some(&b'-') && line.trim_end() == "-------"
}

/// Is `line` a failed attempt at a SEARCH opener (`<<-- SEARCH`,
/// `-------SEARCH`, `<<<<<<<<<<< SEARCH`)? Such a line starts no block; the
/// parser reports it instead of silently ignoring the block that follows.
pub fn is_near_miss_opener(line: &str) -> bool {
    let line = line.trim();
    if is_search_marker(line) {
        return false;
    }
    let Some(head) = line
        .strip_suffix("SEARCH>")
        .or_else(|| line.strip_suffix("SEARCH"))
    else {
        return false;
    };
    let head = head.trim_end();
    head.len() >= 2 && head.chars().all(|c| matches!(c, '<' | '-' | '='))
}

/// A roo header line `:start_line:N` → `N`.
pub fn start_line_hint(line: &str) -> Option<usize> {
    header_number(line, ":start_line:")
}

/// A roo header line `:end_line:N` → `N`.
pub fn end_line_hint(line: &str) -> Option<usize> {
    header_number(line, ":end_line:")
}

fn header_number(line: &str, key: &str) -> Option<usize> {
    line.trim().strip_prefix(key)?.trim().parse().ok()
}

/// Is `line` a roo header line (`:start_line:` or `:end_line:`, any value)?
pub fn is_header_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with(":start_line:") || line.starts_with(":end_line:")
}

/// The content of an escaped marker line (`\=======` → `=======`), if it is one.
pub fn unescape(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('\\')?;
    ESCAPABLE
        .iter()
        .any(|marker| rest.starts_with(marker))
        .then_some(rest)
}

/// Does the block opening at `lines[opener]` carry roo features: a
/// `:start_line:`/`:end_line:` or `-------` header, or a `12 | ` line-number
/// prefix on every SEARCH line?
pub fn has_roo_features(lines: &[&str], opener: usize) -> bool {
    let next = lines.get(opener + 1).copied().unwrap_or("");
    if is_header_line(next) || is_divider(next) {
        return true;
    }
    // Every SEARCH line numbered, and at least one: most blocks fail on
    // their first line, without reading further.
    let mut search = lines
        .iter()
        .skip(opener + 1)
        .take_while(|l| !is_separator(l) && !is_replace_marker(l) && !is_search_marker(l))
        .peekable();
    search.peek().is_some() && search.all(|l| line_number_prefix_len(l).is_some())
}

/// The byte length of a `12 | ` line-number prefix (with the one space after
/// the bar), or `None` when the line has none. `||` is not a prefix.
pub fn line_number_prefix_len(line: &str) -> Option<usize> {
    let after_indent = line.trim_start();
    let digits = after_indent.len()
        - after_indent
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return None;
    }
    let after_digits = &after_indent[digits..];
    let after_space = after_digits.trim_start_matches([' ', '\t']);
    let rest = after_space.strip_prefix('|')?;
    if rest.starts_with('|') {
        return None;
    }
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    Some(line.len() - rest.len())
}

/// Which dialect a block is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Aider `search_replace`: header lines are content.
    Aider,
    /// Roo `apply_diff`: `:start_line:`/`:end_line:`/`-------` header, and
    /// an unescaped `:start_line:` in the REPLACE section is an error.
    Roo,
}

/// One block read from its opener to its `>>>>>>> REPLACE`.
///
/// Its texts are its lines, unescaped, each ended by `\n` (what
/// [`join_lines`] makes of them): a block of a large response copies its
/// lines once, into these texts, and most often in one piece
/// ([`section_text`]). No line holds a `\n` (lines are split at them), so
/// [`text_lines`] gives the lines back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawBlock {
    /// The SEARCH lines, unescaped, each ended by `\n`.
    pub search: String,
    /// The REPLACE lines, unescaped, each ended by `\n`.
    pub replace: String,
    /// `:start_line:N`, when the header has one.
    pub start_line: Option<usize>,
    /// Index (into the given lines) of the `>>>>>>> REPLACE` marker.
    pub closer: usize,
}

/// A block that could not be read: the error, and the index where scanning
/// should resume so that one mistake gives one error.
#[derive(Debug)]
pub struct BrokenBlock {
    /// The `parse` or `truncated` error.
    pub error: EditError,
    /// Index (into the given lines) to resume scanning at.
    pub resume: usize,
}

/// Where the block's sections stand while it is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Search,
    Replace,
}

/// Reads the block whose opener is `lines[opener]`. `first_line_no` is the
/// 1-based payload line of `lines[0]`, for error messages. `text` is the
/// text the lines were split from, if known: the block's
/// texts are copied from it in one piece where its lines lie in it one
/// after the other ([`section_text`]).
pub fn read_block(
    text: Option<&str>,
    lines: &[&str],
    opener: usize,
    first_line_no: usize,
    dialect: Dialect,
) -> Result<RawBlock, BrokenBlock> {
    let line_no = |i: usize| first_line_no + i;
    let mut start_line = None;
    let mut i = opener + 1;
    if dialect == Dialect::Roo {
        i = read_roo_header(lines, i, &mut start_line, line_no)?;
    }
    // Every line of a section is its content (unescaped), up to the
    // marker that ends it: a section is a run of lines.
    let search_from = i;
    let mut separator = i;
    let mut section = Section::Search;
    while let Some(&line) = lines.get(i) {
        // Every marker and escape starts with one of these bytes (a roo
        // REPLACE section also refuses header lines, indented or not):
        // any other line is content.
        let roo_replace = dialect == Dialect::Roo && section == Section::Replace;
        let marker_byte = matches!(line.as_bytes().first(), Some(b'\\' | b'<' | b'=' | b'>'));
        if !roo_replace && !marker_byte {
            i += 1;
            continue;
        }
        if unescape(line).is_some() {
            // Content, unescaped by `section_text`.
        } else if is_search_marker(line) {
            let expected = match section {
                Section::Search => "`=======`",
                Section::Replace => "`>>>>>>> REPLACE`",
            };
            return Err(broken(
                line_no(i),
                format!(
                    "found `<<<<<<< SEARCH` at payload line {} while the block opened at line {} \
                     is still open; expected {expected} first (end every block with \
                     `>>>>>>> REPLACE`, or escape a literal marker line as `\\<<<<<<<`)",
                    line_no(i),
                    line_no(opener)
                ),
                i,
            ));
        } else if is_separator(line) {
            if section == Section::Replace {
                return Err(out_of_order(lines, i, line_no, "`=======`", opener));
            }
            section = Section::Replace;
            separator = i;
        } else if is_replace_marker(line) {
            if section == Section::Search {
                return Err(broken(
                    line_no(i),
                    format!(
                        "found `>>>>>>> REPLACE` at payload line {} before the `=======` of the \
                         block opened at line {}; put `=======` between the SEARCH and the \
                         REPLACE text{}",
                        line_no(i),
                        line_no(opener),
                        near_separator_hint(lines, opener, i, line_no)
                    ),
                    resume_after(lines, i + 1),
                ));
            }
            return Ok(RawBlock {
                search: section_text(text, &lines[search_from..separator]),
                replace: section_text(text, &lines[separator + 1..i]),
                start_line,
                closer: i,
            });
        } else if dialect == Dialect::Roo && section == Section::Replace && is_header_line(line) {
            return Err(broken(
                line_no(i),
                format!(
                    "found `{}` in the REPLACE section at payload line {}; line hints belong right \
                     after `<<<<<<< SEARCH` (escape a literal line as `\\:start_line:`)",
                    line.trim(),
                    line_no(i)
                ),
                resume_after(lines, i + 1),
            ));
        }
        i += 1;
    }
    Err(BrokenBlock {
        error: EditError::at_payload_line(
            ErrorKind::Truncated,
            line_no(opener),
            format!(
                "the payload ends inside the SEARCH/REPLACE block opened at payload line {} \
                 (no `>>>>>>> REPLACE`); the response was probably cut off: send the whole block \
                 again",
                line_no(opener)
            ),
        ),
        resume: lines.len(),
    })
}

/// Reads roo's optional `:start_line:`/`:end_line:` lines and `-------`
/// divider after the opener; returns the index of the first SEARCH line.
fn read_roo_header(
    lines: &[&str],
    mut i: usize,
    start_line: &mut Option<usize>,
    line_no: impl Fn(usize) -> usize,
) -> Result<usize, BrokenBlock> {
    while let Some(&line) = lines.get(i) {
        if !is_header_line(line) {
            break;
        }
        let parsed = if line.trim_start().starts_with(":start_line:") {
            start_line_hint(line).map(|n| *start_line = Some(n))
        } else {
            end_line_hint(line).map(|_| ())
        };
        if parsed.is_none() {
            return Err(broken(
                line_no(i),
                format!(
                    "`{}` at payload line {} needs a line number, like `:start_line:42`",
                    line.trim(),
                    line_no(i)
                ),
                resume_after(lines, i + 1),
            ));
        }
        i += 1;
    }
    if lines.get(i).is_some_and(|l| is_divider(l)) {
        i += 1;
    }
    Ok(i)
}

/// Names a line of the SEARCH section that was probably meant as the
/// separator (a run of `=` of the wrong length), or nothing.
fn near_separator_hint(
    lines: &[&str],
    opener: usize,
    closer: usize,
    line_no: impl Fn(usize) -> usize,
) -> String {
    let near = (opener + 1..closer).find(|&j| {
        let line = lines[j].trim();
        line.len() >= 3 && line.chars().all(|c| c == '=')
    });
    near.map_or_else(String::new, |j| {
        format!(
            " (`{}` at line {} is not a separator: use exactly seven `=`)",
            lines[j].trim(),
            line_no(j)
        )
    })
}

/// A section's lines, unescaped, as newline-terminated text: what
/// [`join_lines`] makes of them. When `text` is known and they lie in it
/// one after the other with a `\n` between (a payload with `\n` line
/// ends, no escaped line), that is the span of `text` from the first to
/// the last, and a `\n`: one copy. Else line by line.
pub fn section_text(text: Option<&str>, lines: &[&str]) -> String {
    if let Some(span) = text.and_then(|text| span_in(text, lines)) {
        let mut out = String::with_capacity(span.len() + 1);
        out.push_str(span);
        out.push('\n');
        return out;
    }
    let size = lines.iter().map(|l| l.len() + 1).sum();
    let mut out = String::with_capacity(size);
    for line in lines {
        out.push_str(unescape(line).unwrap_or(line));
        out.push('\n');
    }
    out
}

/// The span of `text` that `lines` make up with one `\n` after each but
/// the last, if they are slices of `text` lying so and none starts with
/// a `\` (an escape, which [`section_text`] removes). Read by address:
/// a line's bytes are `text`'s bytes when its address is inside `text`.
fn span_in<'t>(text: &'t str, lines: &[&str]) -> Option<&'t str> {
    let base = text.as_ptr() as usize;
    let offset = |line: &str| {
        let at = (line.as_ptr() as usize).checked_sub(base)?;
        (at.checked_add(line.len())? <= text.len()).then_some(at)
    };
    let start = offset(lines.first()?)?;
    let mut end = start;
    for (k, line) in lines.iter().enumerate() {
        if line.as_bytes().first() == Some(&b'\\') {
            return None;
        }
        let at = offset(line)?;
        if k > 0 && (at != end + 1 || text.as_bytes()[end] != b'\n') {
            return None;
        }
        end = at + line.len();
    }
    text.get(start..end)
}

/// The lines of a text of newline-terminated lines ([`join_lines`]'s
/// inverse, for lines that hold no `\n`).
pub fn text_lines(text: &str) -> std::str::SplitTerminator<'_, char> {
    text.split_terminator('\n')
}

/// A second `=======` in the REPLACE section.
fn out_of_order(
    lines: &[&str],
    i: usize,
    line_no: impl Fn(usize) -> usize,
    found: &str,
    opener: usize,
) -> BrokenBlock {
    broken(
        line_no(i),
        format!(
            "found {found} at payload line {} where `>>>>>>> REPLACE` was expected (the block \
             opened at line {} already has its `=======`); if the text holds a line `=======`, \
             escape it as `\\=======`, or close the block with `>>>>>>> REPLACE`",
            line_no(i),
            line_no(opener)
        ),
        resume_after(lines, i + 1),
    )
}

fn broken(payload_line: usize, message: String, resume: usize) -> BrokenBlock {
    BrokenBlock {
        error: EditError::at_payload_line(ErrorKind::Parse, payload_line, message),
        resume,
    }
}

/// Where to resume after a broken block: the next opener, or the line after
/// the next `>>>>>>> REPLACE`, whichever comes first (from index `from`).
pub fn resume_after(lines: &[&str], from: usize) -> usize {
    for (i, line) in lines.iter().enumerate().skip(from) {
        if is_search_marker(line) {
            return i;
        }
        if is_replace_marker(line) {
            return i + 1;
        }
    }
    lines.len()
}

/// Lines joined as newline-terminated text (`["a", "b"]` → `"a\nb\n"`).
pub fn join_lines<S: AsRef<str>>(lines: &[S]) -> String {
    let size = lines.iter().map(|l| l.as_ref().len() + 1).sum();
    let mut text = String::with_capacity(size);
    for line in lines {
        text.push_str(line.as_ref());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_markers() {
        assert!(is_search_marker("<<<<<<< SEARCH"));
        assert!(is_search_marker("<<<<< SEARCH  "));
        assert!(is_search_marker("<<<<<<<<< SEARCH>"));
        assert!(!is_search_marker("<<<<<<<<<< SEARCH"));
        assert!(!is_search_marker("<<<< SEARCH"));
        assert!(!is_search_marker("<<<<<<<SEARCH"));
        assert!(!is_search_marker(" <<<<<<< SEARCH"));
        assert!(is_separator("======= "));
        assert!(!is_separator("====="));
        assert!(!is_separator("========"));
        assert!(is_replace_marker(">>>>>>> REPLACE\t"));
        assert!(!is_replace_marker(">>>>>>> release/1.9"));
    }

    /// The marker checks are their plain reading (the line's end trimmed,
    /// a run of 5-9 `<` or `>` chars, the word), on lines of runs of every
    /// length, words, spaces, tabs and non-ASCII around them.
    #[test]
    fn markers_are_read_as_defined() {
        fn plain(line: &str, ch: char, words: &[&str]) -> bool {
            let line = line.trim_end();
            let rest = line.trim_start_matches(ch);
            let run = line.len() - rest.len();
            (5..=9).contains(&run) && words.contains(&rest)
        }
        let heads = ["", " ", "\t", "\u{a0}", "x", "=", "-"];
        let runs = ["<", ">", "<<<<", ">>>>>"];
        let tails = [
            "",
            " SEARCH",
            " SEARCH>",
            "SEARCH",
            " REPLACE",
            " REPLACE>",
            " \u{2003}",
            " ",
            "\t",
            "é",
        ];
        for head in heads {
            for run in runs {
                for k in 0..4 {
                    for tail in tails {
                        for end in ["", " ", "\u{a0}", "\r"] {
                            let line = format!("{head}{}{tail}{end}", run.repeat(k));
                            assert_eq!(
                                is_search_marker(&line),
                                plain(&line, '<', &[" SEARCH", " SEARCH>"]),
                                "{line:?}"
                            );
                            assert_eq!(
                                is_replace_marker(&line),
                                plain(&line, '>', &[" REPLACE"]),
                                "{line:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn near_miss_openers() {
        for line in [
            "<<-- SEARCH",
            "-- SEARCH",
            "-------SEARCH",
            "<<<<<<<<<<< SEARCH",
        ] {
            assert!(is_near_miss_opener(line), "{line}");
        }
        assert!(!is_near_miss_opener("<<<<<<< SEARCH"));
        assert!(!is_near_miss_opener("Press SEARCH"));
    }

    #[test]
    fn line_number_prefixes() {
        assert_eq!(line_number_prefix_len("12 | code"), Some(5));
        assert_eq!(line_number_prefix_len("  7 |"), Some(5));
        assert_eq!(line_number_prefix_len("7 |     indented"), Some(4));
        assert_eq!(line_number_prefix_len("12 || x"), None);
        assert_eq!(line_number_prefix_len("x | y"), None);
    }

    #[test]
    fn unescapes_markers() {
        assert_eq!(unescape("\\=======").unwrap(), "=======");
        assert_eq!(unescape("\\<<<<<<< HEAD").unwrap(), "<<<<<<< HEAD");
        assert_eq!(unescape("\\n"), None);
    }

    #[test]
    fn reads_a_roo_block() {
        let lines = [
            "<<<<<<< SEARCH",
            ":start_line:4",
            ":end_line:5",
            "-------",
            "\\=======",
            "=======",
            "b",
            ">>>>>>> REPLACE",
        ];
        let block = read_block(None, &lines, 0, 1, Dialect::Roo).unwrap();
        assert_eq!(block.search, "=======\n");
        assert_eq!(block.replace, "b\n");
        assert_eq!(block.start_line, Some(4));
        assert_eq!(block.closer, 7);
    }

    #[test]
    fn names_the_line_of_a_marker_out_of_order() {
        let lines = [
            "x",
            "<<<<<<< SEARCH",
            "a",
            "=======",
            "b",
            "=======",
            ">>>>>>> REPLACE",
        ];
        let broken = read_block(None, &lines, 1, 10, Dialect::Aider).unwrap_err();
        assert_eq!(broken.error.kind, ErrorKind::Parse);
        assert_eq!(broken.error.lines, [15]);
        assert_eq!(broken.resume, 7);
    }

    /// A section's text is its lines, unescaped, joined as
    /// [`join_lines`] joins them, whether copied in one piece or line by
    /// line: runs of lines of random texts (LF, CRLF, mixed, a lone `\r`,
    /// blank lines, escaped markers, non-ASCII, no final newline), split
    /// as the payload is and as a roo `<diff>` is, and lines from
    /// elsewhere; [`text_lines`] gives them back.
    #[test]
    fn section_texts_are_the_joined_lines() {
        let pool = [
            "",
            "a",
            "  x = 1 ",
            "\t",
            "\r",
            "b\r",
            "\u{e9}\u{2014}",
            "\\=======",
            "\\<<<<<<< HEAD",
            "\\n",
            "=======",
            "\u{a0}",
        ];
        let mut rng = crate::test_rng::Rng::new(5);
        for trial in 0..4000 {
            let mut text = String::new();
            for _ in 0..rng.below(12) {
                text.push_str(rng.pick::<&str>(&pool));
                let end = match trial % 3 {
                    0 => "\n",
                    1 => "\r\n",
                    _ => rng.pick::<&str>(&["\n", "\r\n"]),
                };
                text.push_str(end);
            }
            if rng.below(3) == 0 {
                text.push_str(rng.pick::<&str>(&pool));
            }
            let lines = if trial % 4 == 3 {
                text.split('\n').collect()
            } else {
                crate::text::lines::split(&text)
            };
            let from = rng.below(lines.len() + 1);
            let to = from + rng.below(lines.len() - from + 1);
            let run = &lines[from..to];
            let unescaped: Vec<&str> = run.iter().map(|l| unescape(l).unwrap_or(l)).collect();
            let want = join_lines(&unescaped);
            assert_eq!(
                section_text(Some(&text), run),
                want,
                "{text:?} {from}..{to}"
            );
            assert_eq!(section_text(None, run), want, "{text:?} {from}..{to}");
            let other = text.clone();
            assert_eq!(
                section_text(Some(&other), run),
                want,
                "{text:?} {from}..{to}"
            );
            assert_eq!(text_lines(&want).collect::<Vec<_>>(), unescaped);
        }
    }

    #[test]
    fn an_open_block_at_the_end_is_truncated() {
        let lines = ["<<<<<<< SEARCH", "a", "=======", "b"];
        let broken = read_block(None, &lines, 0, 1, Dialect::Aider).unwrap_err();
        assert_eq!(broken.error.kind, ErrorKind::Truncated);
    }
}
