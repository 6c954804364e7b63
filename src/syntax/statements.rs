//! Edits that put whole statements in place of whole statements, told
//! without parsing the code around them: a line added to a function
//! body, a statement removed, one statement rewritten. When the text an
//! edit takes out and the text it puts in are each complete statements
//! (each parses on its own: a few bytes), and the place is a boundary
//! between statements where they fit (read with a lexical scan from the
//! chunk's start, much cheaper than a parse), the code around reads as
//! before: a chunk that parsed still parses. Anything else is parsed as
//! usual.
//!
//! Python: the place is between logical lines (no open bracket, string or
//! backslash), and the statements' indentation fits it: a sibling of the
//! statement before or after, or the first of a block. Not next to a
//! decorator, a `match`'s `case`, or an `else`/`elif`/`except`/`finally`
//! that continues a statement at the same level.
//!
//! Go: the place is inside a statement block (`func`, `if`, `for`, `else`,
//! a `case` of a `switch`), not in a string or comment, after a line that
//! ends a statement (Go's semicolon rule) or opens the block.

use std::ops::Range;

use super::offside::{column, Scan};
use super::{errors, Language};

/// Whether replacing the whole lines `before[range]` with the whole lines
/// `new` leaves the parse of the text around as it was. `from` is the start
/// of the chunk the edit is in: a line between top-level statements.
pub fn neutral(
    language: Language,
    before: &str,
    from: usize,
    range: Range<usize>,
    new: &str,
) -> bool {
    let code = |t: &str, comment: &str| t.lines().any(|l| is_code(l, comment));
    match language {
        // Comments put in or taken out, where a comment cannot end a string
        // or join a continued line.
        Language::Python if !code(&before[range.clone()], "#") && !code(new, "#") => {
            let quotes = |t: &str| t.contains(['"', '\'']);
            if quotes(&before[range.clone()]) || quotes(new) {
                return false;
            }
            let mut scan = Scan::default();
            for line in before[from..range.start].split_inclusive('\n') {
                scan.line(line);
            }
            // The grammar reads a comment's indentation: one put in must
            // sit at the column of the code after it.
            let at = before[range.end..]
                .lines()
                .find(|l| is_code(l, "#"))
                .map(|l| column(indent(l)));
            let fits = new
                .lines()
                .filter(|l| !l.trim().is_empty())
                .all(|l| at.is_none_or(|c| column(indent(l)) == c));
            return fits && !scan.continued();
        }
        Language::Go if !code(&before[range.clone()], "//") && !code(new, "//") => {
            let closers = |t: &str| t.contains(['`', '"']) || t.contains("*/") || t.contains("/*");
            return !closers(&before[range]) && !closers(new);
        }
        _ => {}
    }
    if from >= range.start {
        return false;
    }
    match language {
        Language::Python => python(before, from, range, new),
        Language::Go => go(before, from, range, new),
        _ => false,
    }
}

/// A run of whole lines that are complete statements.
#[derive(Debug)]
struct Statements<'a> {
    /// The column of the first code line.
    column: usize,
    /// The least column a statement begins at (a block opened in the
    /// statements takes every deeper line after them).
    low: usize,
    /// The first code line, trimmed.
    first: &'a str,
}

/// A line of code next to the edit.
#[derive(Debug)]
struct Neighbour<'a> {
    column: usize,
    /// The line, trimmed.
    text: &'a str,
}

/// Leading blanks of a line.
fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn is_code(line: &str, comment: &str) -> bool {
    let body = line.trim();
    !body.is_empty() && !body.starts_with(comment)
}

/// `text` without the leading blanks its code lines share; `None` when
/// they do not share them (tabs and spaces mixed).
fn dedent(text: &str, comment: &str) -> Option<String> {
    let shared = text
        .lines()
        .filter(|l| is_code(l, comment))
        .map(indent)
        .min_by_key(|i| i.len())
        .unwrap_or("");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line.trim_start_matches([' ', '\t']));
        } else if let Some(rest) = line.strip_prefix(shared) {
            out.push_str(rest);
        } else if line.trim_start().starts_with(comment) {
            out.push_str(line.trim_start_matches([' ', '\t']));
        } else {
            return None;
        }
    }
    Some(out)
}

/// The words that continue a Python statement at its own level.
const CLAUSES: [&str; 4] = ["else", "elif", "except", "finally"];

fn first_word(line: &str) -> &str {
    let end = line
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    &line[..end]
}

fn python(before: &str, from: usize, range: Range<usize>, new: &str) -> bool {
    let comment = "#";
    let new_text = new;
    // The logical line before the edit, and whether the scan ends between
    // statements.
    let mut scan = Scan::default();
    let mut previous: Option<(Neighbour, bool)> = None;
    for line in before[from..range.start].split_inclusive('\n') {
        let starts = scan.between_statements();
        let opener = scan.line(line);
        if !is_code(line, comment) {
            continue;
        }
        if starts {
            let neighbour = Neighbour {
                column: column(indent(line)),
                text: line.trim(),
            };
            previous = Some((neighbour, false));
        }
        if scan.between_statements() {
            if let Some((_, open)) = previous.as_mut() {
                *open = opener;
            }
        }
    }
    let Some((previous, opener)) = previous else {
        return false;
    };
    if !scan.between_statements() {
        return false;
    }
    let next = before[range.end..]
        .lines()
        .find(|l| is_code(l, comment))
        .map(|l| Neighbour {
            column: column(indent(l)),
            text: l.trim(),
        });
    // The text taken out is read lexically from where the scan is: the
    // text before parses (else no error can be new), so the lines need only
    // be whole statements: they end between statements, not on a block
    // opener, and do not begin with a clause continuing the statement before.
    let old = {
        let mut scan = scan.clone();
        let (mut first, mut open, mut low) = (None, false, usize::MAX);
        for line in before[range.clone()].split_inclusive('\n') {
            let starts = scan.between_statements();
            let opener = scan.line(line);
            if is_code(line, comment) {
                first = first.or(Some(line));
                if starts {
                    low = low.min(column(indent(line)));
                }
                if scan.between_statements() {
                    open = opener;
                }
            }
        }
        if !scan.between_statements() || open {
            return false;
        }
        first.map(|l| Statements {
            column: column(indent(l)),
            low,
            first: l.trim(),
        })
    };
    if old
        .as_ref()
        .is_some_and(|o| CLAUSES.contains(&first_word(o.first)))
    {
        return false;
    }
    let Some(new) = python_statements(new) else {
        return false;
    };
    let level = match (&old, &new) {
        (Some(o), Some(n)) if o.column != n.column => return false,
        (_, Some(s)) | (Some(s), None) => s.column,
        (None, None) => return true,
    };
    // Places where only some statements fit.
    if previous.text.starts_with('@') || matches!(first_word(previous.text), "match" | "case") {
        return false;
    }
    // A clause after the edit (`else:`, `except:`) continues the last
    // statement at its own column before it: none of that may be in the
    // edit, taken out or put in.
    if let Some(n) = &next {
        let clause = CLAUSES.contains(&first_word(n.text)) || first_word(n.text) == "case";
        let reaches = |text: &str| {
            let mut scan = Scan::default();
            text.lines().any(|l| {
                let starts = scan.between_statements();
                scan.line(l);
                starts && is_code(l, comment) && column(indent(l)) <= n.column
            })
        };
        if clause && (level <= n.column || reaches(&before[range.clone()]) || reaches(new_text)) {
            return false;
        }
    }
    for s in [&old, &new].into_iter().flatten() {
        if first_word(s.first) == "case" {
            return false;
        }
    }
    // The line after the edit is not taken into a block the edit opens.
    let low = [&old, &new]
        .into_iter()
        .flatten()
        .map(|s| s.low)
        .min()
        .unwrap_or(level);
    if next.as_ref().is_some_and(|n| n.column > low) {
        return false;
    }
    match (old.is_some(), new.is_some()) {
        // The first statements of a block: the block keeps one, and what
        // follows is in it or after it.
        _ if opener => {
            level > previous.column
                && match (&new, &next) {
                    (Some(_), None) => true,
                    (Some(_), Some(n)) => n.column == level || n.column <= previous.column,
                    (None, Some(n)) => n.column == level,
                    (None, None) => false,
                }
        }
        // Put in: a sibling of the statement before, or of the one after.
        (false, true) => {
            level == previous.column
                || next
                    .as_ref()
                    .is_some_and(|n| n.column == level && n.column <= previous.column)
        }
        // Taken out, or rewritten in place.
        _ => level <= previous.column,
    }
}

/// The statements of whole lines of Python, `Some(None)` for no code at
/// all, `None` when they are not complete statements on their own.
fn python_statements(text: &str) -> Option<Option<Statements<'_>>> {
    let Some(first) = text.lines().find(|l| is_code(l, "#")) else {
        return Some(None);
    };
    let dedented = dedent(text, "#")?;
    // A block opener with no block after it parses, but is not a whole
    // statement: the lines after the edit would become its block.
    let (mut open, mut low) = (false, usize::MAX);
    let mut scan = Scan::default();
    for (line, original) in dedented.lines().zip(text.lines()) {
        let starts = scan.between_statements();
        let opener = scan.line(line);
        if is_code(line, "#") {
            if starts {
                low = low.min(column(indent(original)));
            }
            if scan.between_statements() {
                open = opener;
            }
        }
    }
    if open || !scan.between_statements() || errors(Language::Python, &dedented)?.count() > 0 {
        return None;
    }
    Some(Some(Statements {
        column: column(indent(first)),
        low,
        first: first.trim(),
    }))
}

fn go(before: &str, from: usize, range: Range<usize>, new: &str) -> bool {
    let mut scan = GoScan::default();
    // The last code line before the edit: how it ends.
    let mut previous: Option<(char, char)> = None;
    for line in before[from..range.start].split_inclusive('\n') {
        if let Some(end) = scan.line(line) {
            previous = Some(end);
        }
    }
    let Some((before_last, last)) = previous else {
        return false;
    };
    if scan.raw || scan.comment {
        return false;
    }
    match scan.stack.last() {
        Some(Open::Block) => {}
        // Right after `switch x {`, only a `case` fits.
        Some(Open::Switch) if last != '{' => {}
        _ => return false,
    }
    // The line before ends a statement (Go puts a semicolon there), opens
    // the block, or is a `case` label.
    let ends = last.is_alphanumeric()
        || last == '_'
        || matches!(last, ')' | ']' | '}' | '"' | '`' | '\'' | '{' | ':')
        || matches!((before_last, last), ('+', '+') | ('-', '-'));
    if !ends || last.is_alphanumeric() && go_keyword_end(&before[from..range.start]) {
        return false;
    }
    // The text taken out, read lexically (see `python`): it closes no
    // bracket it did not open, leaves none open, and ends a statement.
    let depth = scan.stack.len();
    scan.low = depth;
    let mut end = None;
    for line in before[range.clone()].split_inclusive('\n') {
        end = scan.line(line).or(end);
    }
    if scan.low < depth || scan.stack.len() != depth || scan.raw || scan.comment {
        return false;
    }
    if let Some((_, last)) = end {
        let ends = last.is_alphanumeric()
            || matches!(last, '_' | ')' | ']' | '}' | '"' | '`' | '\'' | ':');
        if !ends || go_keyword_end(&before[range]) {
            return false;
        }
    }
    go_statements(new)
}

/// Whether the last code line of `text` ends with a keyword after which
/// Go puts no semicolon (`else`, `func`, `range`, ...).
fn go_keyword_end(text: &str) -> bool {
    let Some(line) = text.lines().rev().find(|l| is_code(l, "//")) else {
        return false;
    };
    let code = line.split("//").next().unwrap_or(line).trim_end();
    let start = code
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    !matches!(
        &code[start..],
        "break" | "continue" | "fallthrough" | "return"
    ) && GO_KEYWORDS.contains(&&code[start..])
}

const GO_KEYWORDS: [&str; 25] = [
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];

/// Whether whole lines of Go are complete statements (or no code).
fn go_statements(text: &str) -> bool {
    if !text.lines().any(|l| is_code(l, "//")) {
        return true;
    }
    // Balanced on its own: the wrapper's closing brace cannot be borrowed
    // (the grammar takes statements at the top level too).
    let mut scan = GoScan::default();
    for line in text.lines() {
        scan.line(line);
    }
    if scan.under || !scan.stack.is_empty() || scan.raw || scan.comment {
        return false;
    }
    let wrapped = format!("package p\n\nfunc _() {{\n{text}\n}}\n");
    errors(Language::Go, &wrapped).is_some_and(|e| e.count() == 0)
}

/// A bracket open at a place in Go code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// `(` or `[`.
    Group,
    /// The `{` of a block of statements: a function, `if`, `for`, `else`.
    Block,
    /// The `{` of a `switch` or `select`: `case` clauses.
    Switch,
    /// Any other `{`: a composite literal, a struct or interface type.
    Other,
}

/// What a lexical scan of Go carries from one line to the next.
#[derive(Default)]
struct GoScan {
    stack: Vec<Open>,
    /// The fewest brackets open since it was last set.
    low: usize,
    /// A bracket was closed that the scan did not see open.
    under: bool,
    /// Inside a raw string (backquotes).
    raw: bool,
    /// Inside a block comment.
    comment: bool,
}

impl GoScan {
    /// Reads one line; the last two characters of its code (the last one
    /// twice for a single character), `None` for a line with no code.
    /// An ASCII line (nearly every line of Go) is read as its bytes, each
    /// byte its character; any other as its characters.
    fn line(&mut self, line: &str) -> Option<(char, char)> {
        if line.is_ascii() {
            // Byte offsets are character offsets: the head is a slice.
            self.units(line.as_bytes(), |i| go_brace(&line[..i]))
        } else {
            let chars: Vec<char> = line.chars().collect();
            self.units(&chars, |i| {
                let head: String = chars[..i].iter().collect();
                go_brace(&head)
            })
        }
    }

    /// [`GoScan::line`] over the line's characters (`u8` for ASCII);
    /// `brace(i)` is what the `{` at character `i` opens.
    fn units<T: Copy + Into<char>>(
        &mut self,
        chars: &[T],
        brace: impl Fn(usize) -> Open,
    ) -> Option<(char, char)> {
        let at = |i: usize| -> Option<char> { chars.get(i).map(|&u| u.into()) };
        let mut i = 0;
        let (mut second, mut last) = (None, None);
        let seen = |c: char, second: &mut Option<char>, last: &mut Option<char>| {
            *second = *last;
            *last = Some(c);
        };
        while i < chars.len() {
            let c: char = chars[i].into();
            if self.comment {
                if c == '*' && at(i + 1) == Some('/') {
                    self.comment = false;
                    i += 1;
                }
                i += 1;
                continue;
            }
            if self.raw {
                if c == '`' {
                    self.raw = false;
                    seen(c, &mut second, &mut last);
                }
                i += 1;
                continue;
            }
            match c {
                '/' if at(i + 1) == Some('/') => break,
                '/' if at(i + 1) == Some('*') => {
                    self.comment = true;
                    i += 2;
                    continue;
                }
                '`' => self.raw = true,
                '"' | '\'' => {
                    i += 1;
                    while i < chars.len() && at(i) != Some(c) {
                        if at(i) == Some('\\') {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                '(' | '[' => self.stack.push(Open::Group),
                '{' => self.stack.push(brace(i)),
                ')' | ']' | '}' => {
                    self.under |= self.stack.pop().is_none();
                    self.low = self.low.min(self.stack.len());
                }
                c if c.is_whitespace() => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            seen(c, &mut second, &mut last);
            i += 1;
        }
        last.map(|l| (second.unwrap_or(l), l))
    }
}

/// What the `{` after `head` (its line up to it) opens.
fn go_brace(head: &str) -> Open {
    let head = head.trim();
    let word = first_word(head.trim_start_matches(['}', ' ']));
    match word {
        "if" | "for" | "else" | "func" | "go" | "defer" => return Open::Block,
        "switch" | "select" => return Open::Switch,
        _ => {}
    }
    // A function literal: `x := func(a int) error {`, `f(func() {`.
    if let Some(at) = head.rfind("func") {
        let before = head[..at].trim_end();
        let after = &head[at + 4..];
        let word_ends = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && after.starts_with(['(', ' ']);
        let plain = before.is_empty()
            || before.ends_with(['=', '(', ',', ':'])
            || before.ends_with("return");
        if word_ends && plain && !after.contains(['{', '=']) {
            return Open::Block;
        }
    }
    Open::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `neutral` for replacing `old` (once in `file`) with `new`.
    fn check(language: Language, file: &str, old: &str, new: &str) -> bool {
        let start = file.find(old).unwrap();
        neutral(language, file, 0, start..start + old.len(), new)
    }

    /// `neutral` for putting `new` in front of the line `at`.
    fn insert(language: Language, file: &str, at: &str, new: &str) -> bool {
        let start = file.find(at).unwrap();
        neutral(language, file, 0, start..start, new)
    }

    const PY: &str = "def f(a, b):\n    x = g(a,\n          b)\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y\n";

    #[test]
    fn python_statements_in_place_of_statements() {
        let py = Language::Python;
        // A line added after a statement, before one, first in a block.
        assert!(insert(py, PY, "    return y\n", "    log(y)\n"));
        assert!(insert(py, PY, "    if x:\n", "    z = 3\n"));
        assert!(insert(py, PY, "        y = 1\n", "        log()\n"));
        assert!(insert(py, PY, "    else:\n", "        log()\n"));
        // Removed, rewritten.
        assert!(check(py, PY, "    return y\n", ""));
        assert!(check(
            py,
            PY,
            "        y = 2\n",
            "        y = h(\n            2)\n"
        ));
    }

    #[test]
    fn python_edits_that_need_a_parse() {
        let py = Language::Python;
        // Inside brackets; an unfinished statement; a block left empty.
        assert!(!insert(py, PY, "          b)\n", "    c = 1\n"));
        assert!(!check(py, PY, "    return y\n", "    return (y\n"));
        assert!(!check(py, PY, "        y = 1\n", ""));
        // Between an `if` block and its `else`.
        assert!(!insert(py, PY, "    else:\n", "    z = 1\n"));
        // Indented off the places around.
        assert!(!insert(py, PY, "    return y\n", "      log(y)\n"));
        assert!(!insert(py, PY, "    if x:\n", "        log(y)\n"));
        assert!(!check(py, PY, "    return y\n", "        return y\n"));
        // A comment put in off the column of the code after it; a blank
        // line inside a string a backslash carries on.
        let decorated = "class A:\n    @app.route\n    def f():\n        pass\n";
        assert!(!insert(py, decorated, "    @app.route\n", "# note\n"));
        assert!(insert(py, decorated, "    @app.route\n", "    # note\n"));
        let carried = "def f():\n    s = \"a \\\n        b\"\n    return s\n";
        assert!(!insert(py, carried, "        b\"\n", "    \n"));
        // After a decorator.
        let decorated = "@app.route\ndef f():\n    pass\n";
        assert!(!check(py, decorated, "def f():\n    pass\n", "x = 1\n"));
        // An `if` rewritten into a statement that takes no `else`.
        let file = "def f():\n    if a:\n        b()\n    else:\n        c()\n";
        assert!(!check(
            py,
            file,
            "    if a:\n        b()\n",
            "    with a:\n        b()\n"
        ));
    }

    const GO: &str = "func (s *S) F(a int) (int, error) {\n\tx := g(a,\n\t\tb)\n\tif x > 0 {\n\t\ty := 1\n\t}\n\tswitch x {\n\tcase 1:\n\t\tz()\n\t}\n\tp := T{\n\t\tA: 1,\n\t}\n\tf := func() {\n\t\tw()\n\t}\n\treturn x, nil\n}\n";

    #[test]
    fn go_statements_in_place_of_statements() {
        let go = Language::Go;
        assert!(insert(go, GO, "\treturn x, nil\n", "\tlog(x)\n"));
        assert!(insert(go, GO, "\t\ty := 1\n", "\t\tlog(x)\n"));
        assert!(insert(go, GO, "\tif x > 0 {\n", "\tlog(x)\n"));
        assert!(insert(go, GO, "\t\tz()\n", "\t\tlog(x)\n"));
        assert!(insert(go, GO, "\t\tw()\n", "\t\tlog(x)\n"));
        assert!(check(go, GO, "\t\ty := 1\n", ""));
        assert!(check(go, GO, "\treturn x, nil\n", "\treturn x + 1, nil\n"));
    }

    #[test]
    fn go_edits_that_need_a_parse() {
        let go = Language::Go;
        // Inside a call, a composite literal, before the first `case`.
        assert!(!insert(go, GO, "\t\tb)\n", "\tlog(x)\n"));
        assert!(!insert(go, GO, "\t\tA: 1,\n", "\tlog(x)\n"));
        assert!(!insert(go, GO, "\tcase 1:\n", "\tlog(x)\n"));
        // Unfinished statements.
        assert!(!insert(go, GO, "\treturn x, nil\n", "\tlog(x,\n"));
        assert!(!check(go, GO, "\treturn x, nil\n", "\treturn x +\n"));
        // A brace taken out.
        assert!(!check(go, GO, "\t}\n\tswitch x {\n", "\tswitch x {\n"));
        // In a raw string.
        let raw = "func f() {\n\ts := `\n\ta\n\t`\n}\n";
        assert!(!insert(go, raw, "\ta\n", "\tlog(x)\n"));
    }
    /// An ASCII line read as bytes is read as its characters would be:
    /// the same ends, the same state after every line.
    #[test]
    fn go_scan_of_bytes_is_the_scan_of_chars() {
        let text = "package p\n\nfunc f(a int) error {\n\tif a > 0 {\n\t\tx := map[string]int{\"a\": 1}\n\t}\n\tswitch a {\n\tcase 1:\n\t\ts := `raw\n{ ( [\n`\n\t}\n\tg := func() { h('}') }\n\t/* a { comment\n\t} */ y := \"\\\"{\" // {\n\tselect {\n\t}\n\tfor i := range xs { _ = i }\n\treturn nil\n}\n)]}}\n\t\ta++\n\t\tb--\n";
        let mut bytes = GoScan::default();
        let mut chars = GoScan::default();
        for line in text.split_inclusive('\n') {
            assert!(line.is_ascii());
            let by_bytes = bytes.line(line);
            let all: Vec<char> = line.chars().collect();
            let by_chars = chars.units(&all, |i| {
                let head: String = all[..i].iter().collect();
                go_brace(&head)
            });
            assert_eq!(by_bytes, by_chars, "{line:?}");
            assert_eq!(bytes.stack, chars.stack, "{line:?}");
            assert_eq!(
                (bytes.low, bytes.under, bytes.raw, bytes.comment),
                (chars.low, chars.under, chars.raw, chars.comment),
                "{line:?}"
            );
        }
        assert!(bytes.under);
    }
}
