//! Markdown helpers shared by the block parsers: fences and path lines.

use super::Scan;

/// An opening code fence: ```` ```python ```` or `~~~`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The fence character (`` ` `` or `~`).
    pub ch: char,
    /// How many of them (3 or more).
    pub len: usize,
    /// The info string after the fence, trimmed (`python`, a path, or empty).
    pub info: String,
}

/// Parses a fence line (up to 3 spaces of indentation, 3+ backticks or tildes).
pub fn fence(line: &str) -> Option<Fence> {
    fence_parts(line).map(|(ch, len, info)| Fence {
        ch,
        len,
        info: info.to_string(),
    })
}

/// A fence line's character, run length and info string (trimmed), the
/// info borrowed: what [`fence`] reads, without building a [`Fence`]
/// (every payload line is asked; most are rejected on their first bytes).
fn fence_parts(line: &str) -> Option<(char, usize, &str)> {
    let bytes = line.as_bytes();
    // More than 3 spaces of indentation is code, not a fence.
    let indent = bytes.iter().take(4).take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let ch = match bytes.get(indent)? {
        b'`' => '`',
        b'~' => '~',
        _ => return None,
    };
    let rest = &bytes[indent..];
    let len = rest.iter().take_while(|&&b| b == ch as u8).count();
    if len < 3 {
        return None;
    }
    let info = line[indent + len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch, len, info))
}

/// Does `line` close `open` (same character, at least as long, nothing after)?
pub fn closes(line: &str, open: &Fence) -> bool {
    fence_parts(line)
        .is_some_and(|(ch, len, info)| ch == open.ch && len >= open.len && info.is_empty())
}

/// Per line, whether a code fence opens there (not closing one, not
/// inside one): the fences of [`open_fence_at`], read without building a
/// [`Fence`] (only its character and length decide what closes it).
pub fn opening_fences(lines: &[&str]) -> Vec<bool> {
    let mut open: Option<(char, usize)> = None;
    lines
        .iter()
        .map(|line| {
            let parts = fence_parts(line);
            match open {
                Some((ch, len)) => {
                    if parts.is_some_and(|(c, l, info)| c == ch && l >= len && info.is_empty()) {
                        open = None;
                    }
                    false
                }
                None => {
                    open = parts.map(|(c, l, _)| (c, l));
                    open.is_some()
                }
            }
        })
        .collect()
}

/// Does `line` hold `**`? (`str::contains` builds a substring searcher
/// per call; most lines hold no `*` at all.)
pub fn has_bold_marker(line: &str) -> bool {
    let bytes = line.as_bytes();
    memchr::memchr(b'*', bytes).is_some_and(|i| bytes[i..].windows(2).any(|w| w == b"**"))
}

/// The code fence 0-based line `i` is inside (opened before it and not
/// closed), if any.
pub fn open_fence_at(lines: &[&str], i: usize) -> Option<Fence> {
    let mut open: Option<Fence> = None;
    for line in lines.iter().take(i) {
        open = match open {
            Some(fence) if closes(line, &fence) => None,
            Some(fence) => Some(fence),
            None => fence(line),
        };
    }
    open
}

/// Strips markdown decoration from a candidate path line: backticks, `**`,
/// `#` headings, a list bullet, a `File:`/`Path:` prefix, a trailing `:`.
pub fn strip_path_decoration(line: &str) -> String {
    stripped(line).to_string()
}

/// [`strip_path_decoration`], borrowed from `line`.
fn stripped(line: &str) -> &str {
    let mut s = line.trim();
    while has_decoration(s) {
        let before = s;
        s = strip_round(s);
        if s == before {
            break;
        }
    }
    s
}

/// One round of [`strip_path_decoration`] on a trimmed `s`.
fn strip_round(mut s: &str) -> &str {
    s = s.trim_start_matches('#').trim();
    for prefix in ["- ", "* ", "+ "] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim();
        }
    }
    for (open, close) in [
        ("**", "**"),
        ("__", "__"),
        ("`", "`"),
        ("*", "*"),
        ("_", "_"),
    ] {
        if s.len() > open.len() + close.len() {
            if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
                s = inner.trim();
            }
        }
    }
    for prefix in LABELS {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim();
        }
    }
    if let Some(rest) = s.strip_suffix(':') {
        s = rest.trim_end();
    }
    s.trim_matches('`').trim()
}

/// The labels [`strip_path_decoration`] takes off a path.
const LABELS: [&str; 7] = [
    "File:",
    "file:",
    "FILE:",
    "Path:",
    "path:",
    "Filename:",
    "filename:",
];

/// Could a round of [`strip_round`] change `s` (trimmed)? Each of its
/// steps needs one of these heads or tails; a plain path has none, and
/// is not stripped at all.
fn has_decoration(s: &str) -> bool {
    matches!(
        s.as_bytes().first(),
        Some(b'#' | b'-' | b'*' | b'+' | b'_' | b'`')
    ) || s.ends_with([':', '`'])
        || LABELS.iter().any(|l| s.starts_with(l))
}

/// Does a stripped line look like a file path rather than prose?
///
/// A path has no sentence punctuation at its end, no more than a few words,
/// and either a `/`, an extension, or is a single word (`Makefile`).
pub fn looks_like_path(s: &str) -> bool {
    if s.is_empty() || s.len() > 300 {
        return false;
    }
    if s.ends_with(['.', '!', '?', ',', ';', ')', ':'])
        || s.starts_with(['<', '>', '=', '{', '}', '(', '|', '"', '\''])
    {
        return false;
    }
    // ASCII only: a byte test is the char test.
    if s.bytes()
        .any(|b| matches!(b, b'<' | b'>' | b'|' | b'"' | b'*' | b'?' | b'\t' | b'`'))
    {
        return false;
    }
    let words = word_count(s);
    if words == 1 {
        return true;
    }
    let has_ext = s.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !ext.is_empty()
            && ext.len() <= 10
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    words <= 4 && (s.contains('/') || has_ext)
}

/// `s.split_whitespace().count()`, an ASCII text's words split on its
/// bytes (the whitespace chars below 128 are the bytes 9 to 13 and the
/// space) rather than decoded char by char.
fn word_count(s: &str) -> usize {
    if !s.is_ascii() {
        return s.split_whitespace().count();
    }
    s.as_bytes()
        .split(|b| matches!(b, b'\t'..=b'\r' | b' '))
        .filter(|w| !w.is_empty())
        .count()
}

/// The path of a block whose opening marker is 0-based line `marker`:
/// the last non-empty line before it (or before its fence), or the fence's
/// info string when that is a path. `None` when no such line looks like a path.
pub fn path_before(scan: &Scan, marker: usize) -> Option<String> {
    let mut i = marker;
    // Skip blank lines between the path and the marker.
    while i > 0 && scan.lines[i - 1].trim().is_empty() {
        i -= 1;
    }
    if i == 0 {
        return None;
    }
    let prev = scan.lines[i - 1];
    if let Some((_, _, info)) = fence_parts(prev) {
        // ```path/to/file.py  or  ```python with the path on the line before.
        let info = stripped(info);
        if is_fence_info_path(info) {
            return Some(info.to_string());
        }
        let mut j = i - 1;
        while j > 0 && scan.lines[j - 1].trim().is_empty() {
            j -= 1;
        }
        if j == 0 {
            return None;
        }
        let line = scan.lines[j - 1];
        return path_line(line)
            .filter(|_| fence_parts(line).is_none())
            .map(str::to_string);
    }
    path_line(prev).map(str::to_string)
}

/// The path a line names, if it is a path line. A bare word ending in `:`
/// (`Then:`, `Example:`) is prose, not a file.
fn path_line(line: &str) -> Option<&str> {
    let candidate = stripped(line);
    let is_label =
        line.trim_end().ends_with(':') && !line.contains('`') && !candidate.contains(['.', '/']);
    (looks_like_path(candidate) && !is_label).then_some(candidate)
}

/// A fence info string is a path (not a language name) when it has a `/` or
/// an extension: ```` ```app/__init__.py ````, not ```` ```python ````.
fn is_fence_info_path(info: &str) -> bool {
    if info.is_empty() || info.contains(char::is_whitespace) && !info.contains('/') {
        return false;
    }
    looks_like_path(info) && (info.contains('/') || info.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte word count is `split_whitespace`'s: every ASCII byte as a
    /// separator or not, in random texts, and non-ASCII texts.
    #[test]
    fn word_count_is_split_whitespace() {
        let mut pool: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
        pool.extend(["a", "path/x.py", "\u{a0}", "\u{2003}", "\u{85}", "\u{e9}"].map(String::from));
        let mut rng = crate::test_rng::Rng::new(11);
        for _ in 0..5000 {
            let n = rng.below(8);
            let s: String = (0..n).map(|_| rng.pick(&pool).as_str()).collect();
            assert_eq!(word_count(&s), s.split_whitespace().count(), "{s:?}");
        }
        for b in 0u8..128 {
            let s = format!("a{}b", char::from(b));
            assert_eq!(word_count(&s), s.split_whitespace().count(), "{b}");
        }
    }

    /// [`fence`] and [`closes`] as the plain reading defines them: up to
    /// 3 spaces, 3+ of one fence character, the info trimmed, no backtick
    /// in a backtick fence's info.
    #[test]
    fn fences_are_read_as_defined() {
        fn plain(line: &str) -> Option<Fence> {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if indent > 3 {
                return None;
            }
            let rest = &line[indent..];
            let ch = rest.chars().next()?;
            if ch != '`' && ch != '~' {
                return None;
            }
            let len = rest.chars().take_while(|&c| c == ch).count();
            let info = rest[len..].trim();
            (len >= 3 && !(ch == '`' && info.contains('`'))).then(|| Fence {
                ch,
                len,
                info: info.to_string(),
            })
        }
        let heads = ["", " ", "   ", "    ", "\t", "\u{a0}"];
        let runs = [
            "`", "``", "```", "````", "~~", "~~~", "~~~~~", "``~", "~~~`",
        ];
        let tails = ["", " ", "py", " py ", "`", " a`b", "\u{2003}", " ~~~", "é"];
        let mut lines = Vec::new();
        for h in heads {
            for r in runs {
                for t in tails {
                    lines.push(format!("{h}{r}{t}"));
                }
            }
        }
        for line in &lines {
            assert_eq!(fence(line), plain(line), "{line:?}");
            for open in lines.iter().filter_map(|l| plain(l)) {
                let want = plain(line)
                    .is_some_and(|f| f.ch == open.ch && f.len >= open.len && f.info.is_empty());
                assert_eq!(closes(line, &open), want, "{line:?} {open:?}");
            }
        }
        for line in ["", "*", "a*b", "**", "a **b", "* *", "x*y*"] {
            assert_eq!(has_bold_marker(line), line.contains("**"), "{line:?}");
        }
    }

    /// A text [`has_decoration`] passes over is one a round of stripping
    /// leaves as it is.
    #[test]
    fn undecorated_texts_are_left_alone() {
        let parts = [
            "", " ", "#", "-", "- ", "*", "* ", "+ ", "**", "__", "_", "`", ":", "a", "src/a.py",
            "é", "\u{a0}",
        ];
        let parts: Vec<&str> = parts.into_iter().chain(LABELS).collect();
        for &a in &parts {
            for &b in &parts {
                for &c in &parts {
                    let text = format!("{a}{b}{c}");
                    let t = text.trim();
                    if !has_decoration(t) {
                        assert_eq!(strip_round(t), t, "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn strips_decoration() {
        assert_eq!(strip_path_decoration("**src/app.py**"), "src/app.py");
        assert_eq!(strip_path_decoration("`src/app.py`:"), "src/app.py");
        assert_eq!(strip_path_decoration("File: src/app.py"), "src/app.py");
        assert_eq!(
            strip_path_decoration("### `docs/User Guide.md`"),
            "docs/User Guide.md"
        );
    }

    #[test]
    fn tells_paths_from_prose() {
        assert!(looks_like_path("src/app.py"));
        assert!(looks_like_path("Makefile"));
        assert!(looks_like_path("docs/User Guide.md"));
        assert!(!looks_like_path("And the threshold constant:"));
        assert!(!looks_like_path("Here is the change."));
        assert!(!looks_like_path("You can check it with"));
    }

    #[test]
    fn path_from_fence_info_or_line_before() {
        let text = "app/a.py\n```python\n<<<<<<< SEARCH\n";
        let scan = Scan::new(text);
        assert_eq!(path_before(&scan, 2).as_deref(), Some("app/a.py"));
        let scan = Scan::new("```app/b.py\n<<<<<<< SEARCH\n");
        assert_eq!(path_before(&scan, 1).as_deref(), Some("app/b.py"));
        let scan = Scan::new("Then this:\n```\n<<<<<<< SEARCH\n");
        assert_eq!(path_before(&scan, 2), None);
        let scan = Scan::new("Then:\n<<<<<<< SEARCH\n");
        assert_eq!(path_before(&scan, 1), None);
        let scan = Scan::new("`Makefile`:\n<<<<<<< SEARCH\n");
        assert_eq!(path_before(&scan, 1).as_deref(), Some("Makefile"));
        let scan = Scan::new("tmp9k2xq4fa\n<<<<<<< SEARCH\n");
        assert_eq!(path_before(&scan, 1).as_deref(), Some("tmp9k2xq4fa"));
    }

    /// [`opening_fences`] is the plain definition: a fence opens at a line
    /// that is a fence while none is open before it ([`open_fence_at`]),
    /// on random lines of fences, near-fences and text (CRLF, indents,
    /// info strings, non-ASCII).
    #[test]
    fn opening_fences_are_the_plain_reading() {
        let pieces = [
            "```",
            "````",
            "~~~",
            "~~~~",
            "```python",
            "``` py",
            "```a`b",
            "   ```",
            "    ```",
            "``",
            "~~~ x",
            "text",
            "",
            " ",
            "\r",
            "é ```",
            "```é",
            "<<<<<<< SEARCH",
            "```\r",
        ];
        let mut rng = crate::test_rng::Rng::new(11);
        for _ in 0..300 {
            let n = rng.below(14);
            let lines: Vec<String> = (0..n).map(|_| rng.pick(&pieces).to_string()).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let want: Vec<bool> = (0..lines.len())
                .map(|i| open_fence_at(&lines, i).is_none() && fence(lines[i]).is_some())
                .collect();
            assert_eq!(opening_fences(&lines), want, "{lines:?}");
        }
    }

    /// [`path_before`] reads what the plain reading (building each
    /// [`Fence`] and every stripped line) reads.
    #[test]
    fn path_before_is_the_plain_reading() {
        fn plain_line(line: &str) -> Option<String> {
            let candidate = strip_path_decoration(line);
            let is_label = line.trim_end().ends_with(':')
                && !line.contains('`')
                && !candidate.contains(['.', '/']);
            (looks_like_path(&candidate) && !is_label).then_some(candidate)
        }
        fn plain(scan: &Scan, marker: usize) -> Option<String> {
            let mut i = marker;
            while i > 0 && scan.lines[i - 1].trim().is_empty() {
                i -= 1;
            }
            if i == 0 {
                return None;
            }
            let prev = scan.lines[i - 1];
            if let Some(f) = fence(prev) {
                let info = strip_path_decoration(&f.info);
                if is_fence_info_path(&info) {
                    return Some(info);
                }
                let mut j = i - 1;
                while j > 0 && scan.lines[j - 1].trim().is_empty() {
                    j -= 1;
                }
                if j == 0 {
                    return None;
                }
                let line = scan.lines[j - 1];
                return plain_line(line).filter(|_| fence(line).is_none());
            }
            plain_line(prev)
        }
        let pieces = [
            "src/a.py",
            "`src/a.py`",
            "**src/a.py**",
            "File: a.rs",
            "Then:",
            "```python",
            "```src/b.py",
            "~~~",
            "```",
            "",
            "  ",
            "Makefile",
            "# `x/y.go`:",
            "a b c d e.py",
            "é/ü.rs",
            "```a`b",
            "- c.txt\r",
            "Edit 3: update `a.py` near line 4.",
        ];
        let mut rng = crate::test_rng::Rng::new(23);
        for _ in 0..400 {
            let n = rng.below(6);
            let mut lines: Vec<String> = (0..n).map(|_| rng.pick(&pieces).to_string()).collect();
            lines.push("<<<<<<< SEARCH".to_string());
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let scan = Scan::with_lines(lines.clone());
            assert_eq!(path_before(&scan, n), plain(&scan, n), "{lines:?}");
        }
    }
}
