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
pub fn fence_parts(line: &str) -> Option<(char, usize, &str)> {
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
    closes_run(line, open.ch, open.len)
}

/// Does `line` close a fence of `len` times `ch` ([`closes`])?
pub fn closes_run(line: &str, ch: char, len: usize) -> bool {
    fence_parts(line).is_some_and(|(c, l, info)| c == ch && l >= len && info.is_empty())
}

/// A fence line: its 0-based index, its fence character and run length,
/// and whether its info string is empty (whether it can close a fence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FenceLine {
    /// The line's 0-based index.
    pub line: usize,
    /// The fence character.
    pub ch: char,
    /// How many of them.
    pub len: usize,
    /// No info string: the line can close a fence.
    pub bare: bool,
}

/// The lines that are fences ([`fence_parts`] reads one), ascending. Most
/// lines are passed over on their first four bytes: a fence line has its
/// fence character after at most 3 spaces.
pub fn fence_lines(lines: &[&str]) -> Vec<FenceLine> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !may_be_fence(line.as_bytes()) {
            continue;
        }
        if let Some((ch, len, info)) = fence_parts(line) {
            out.push(FenceLine {
                line: i,
                ch,
                len,
                bare: info.is_empty(),
            });
        }
    }
    out
}

/// Could `fence_parts` read a fence in `line`: is a `` ` `` or `~` its
/// first byte after at most 3 spaces?
fn may_be_fence(line: &[u8]) -> bool {
    for &b in line.iter().take(4) {
        match b {
            b'`' | b'~' => return true,
            b' ' => {}
            _ => return false,
        }
    }
    false
}

/// The code fences of a payload's lines, read once for every reader (the
/// parts of the block scan, the suggestions pass): which lines are fences,
/// and at which a fence opens (where one is, while none is open before
/// it: [`open_fence_at`]). The first is read line
/// by line ([`fence_lines`], which can run over parts of the lines side by
/// side); the second, which carries the open fence from line to line, only
/// over the fence lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fences {
    /// A bit per line: the line is a fence.
    fence: Vec<u64>,
    /// A bit per line: a fence opens there (not closing one, not inside one).
    opening: Vec<u64>,
}

impl Fences {
    /// The fences of `lines`.
    pub fn new(lines: &[&str]) -> Fences {
        Fences::of_fence_lines(lines.len(), &fence_lines(lines))
    }

    /// The fences of `count` lines whose fence lines are `fence_lines`
    /// ([`fence_lines`]).
    pub fn of_fence_lines(count: usize, fence_lines: &[FenceLine]) -> Fences {
        let words = count.div_ceil(64);
        let mut fences = Fences {
            fence: vec![0; words],
            opening: vec![0; words],
        };
        let mut open: Option<(char, usize)> = None;
        for &FenceLine {
            line: i,
            ch,
            len,
            bare,
        } in fence_lines
        {
            set(&mut fences.fence, i);
            match open {
                Some((c, l)) => {
                    if ch == c && len >= l && bare {
                        open = None;
                    }
                }
                None => {
                    open = Some((ch, len));
                    set(&mut fences.opening, i);
                }
            }
        }
        fences
    }

    /// Is 0-based line `i` a fence ([`fence_parts`] reads one)?
    pub fn is_fence(&self, i: usize) -> bool {
        get(&self.fence, i)
    }

    /// Does a code fence open at 0-based line `i` (not inside one opened
    /// before it)?
    pub fn opens(&self, i: usize) -> bool {
        get(&self.opening, i)
    }
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn get(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
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
        // A path in the info has a `/` or a `.` (most infos, a language
        // name, have neither: nor has what stripping leaves of them).
        if info.contains(['/', '.']) {
            let info = stripped(info);
            if is_fence_info_path(info) {
                return Some(info.to_string());
            }
        }
        let mut j = i - 1;
        while j > 0 && scan.lines[j - 1].trim().is_empty() {
            j -= 1;
        }
        if j == 0 {
            return None;
        }
        let line = scan.lines[j - 1];
        return remembered_path_line(scan, line)
            .filter(|_| fence_parts(line).is_none())
            .map(str::to_string);
    }
    remembered_path_line(scan, prev).map(str::to_string)
}

/// [`path_line`], remembered for the last line asked: most blocks name
/// the file the one before named, on a line of the same text.
fn remembered_path_line<'a>(scan: &Scan<'a>, line: &'a str) -> Option<&'a str> {
    if let Some((last, path)) = scan.last_path_line.get() {
        if last == line {
            return path.map(|(start, end)| &line[start..end]);
        }
    }
    // The path is a slice of the line: remembered by its offsets.
    let path = path_line(line);
    let offsets = path.map(|p| {
        let start = p.as_ptr() as usize - line.as_ptr() as usize;
        (start, start + p.len())
    });
    scan.last_path_line.set(Some((line, offsets)));
    path
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

    /// [`Fences`] is the plain reading: a line is a fence when [`fence`]
    /// reads one, and a fence opens where one is while none is open
    /// before it ([`open_fence_at`]); on random lines of fences (nested,
    /// unclosed, longer and shorter closers, `~~~`, indented 0-4 spaces,
    /// info strings with backticks), near-fences and text (CRLF, tabs,
    /// non-ASCII spaces), also read in two parts as [`super::parse`]
    /// reads a long payload.
    #[test]
    fn fences_are_the_plain_reading() {
        let pieces = [
            "```",
            "````",
            "`````",
            "~~~",
            "~~~~",
            "```python",
            "``` py",
            "```a`b",
            "```` x`",
            "~~~ a`b",
            " ```",
            "  ~~~",
            "   ```",
            "    ```",
            "\t```",
            "\u{a0}```",
            "``",
            "~~",
            "~~~ x",
            "``` ",
            "```\r",
            "text",
            "",
            " ",
            "\r",
            "é ```",
            "```é",
            "<<<<<<< SEARCH",
        ];
        let mut rng = crate::test_rng::Rng::new(11);
        for _ in 0..3000 {
            let n = rng.below(24);
            let lines: Vec<String> = (0..n).map(|_| rng.pick(&pieces).to_string()).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let fences = Fences::new(&lines);
            for i in 0..lines.len() + 2 {
                let is_fence = lines.get(i).is_some_and(|l| fence(l).is_some());
                let opens = is_fence && open_fence_at(&lines, i).is_none();
                assert_eq!(fences.is_fence(i), is_fence, "{i} {lines:?}");
                assert_eq!(fences.opens(i), opens, "{i} {lines:?}");
            }
            let cut = rng.below(n + 1);
            let mut found = fence_lines(&lines[..cut]);
            found.extend(fence_lines(&lines[cut..]).into_iter().map(|f| FenceLine {
                line: cut + f.line,
                ..f
            }));
            assert_eq!(Fences::of_fence_lines(n, &found), fences, "{lines:?}");
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
