//! New parse errors in the edited regions only: a changed file is not
//! parsed whole (10 MB of Python takes most of a second), but in the
//! top-level chunks its edits touch, before and after.
//!
//! A chunk starts at a line that begins a top-level construct: at column 0,
//! after a blank line (or at the file's start), not a continuation such as
//! `else`, `except` or a closing bracket. Chunks parse on their own in every
//! language here but JSON (one value per file), which is parsed whole. When
//! the touched chunks are most of the file, the file is parsed whole.

use std::ops::Range;

use super::{errors, neutral, spacing, statements, Language};
use crate::text::lines;

/// An edit of the text before: the bytes replaced and the new text.
pub type Edit<'a> = (Range<usize>, &'a str);

/// The first line (0-based, in the text after) of a parse error that the
/// edits bring into a region of `before` that parsed cleanly; `None` when
/// there is none (or the text could not be parsed). `edits` are sorted and
/// disjoint. Every edit is parsed in its chunk.
pub fn new_error_line(language: Language, before: &str, edits: &[Edit]) -> Option<usize> {
    check(language, before, edits, false)
}

/// [`new_error_line`], but an edit that cannot change whether its chunk
/// parses is taken as it is, without a parse: one that only swaps
/// identifiers or numbers ([`neutral::swaps`]), changes only the spacing
/// between tokens ([`spacing::only`]), or puts whole
/// statements in place of whole statements where they fit
/// ([`statements::neutral`]). For the warnings after planning, and for
/// the resolver's last check of a loose match whose reading is decided
/// (one that brings a parse error is refused); readings the resolver
/// still weighs are parsed.
pub fn new_error_line_quick(language: Language, before: &str, edits: &[Edit]) -> Option<usize> {
    check(language, before, edits, true)
}

/// Whether [`new_error_line_quick`] must parse to answer: some edit,
/// narrowed to the lines it changes, could change whether its chunk
/// parses. When not, its answer is `None`, found without a parse (a
/// caller can then spare itself the thread it would parse on).
pub fn quick_needs_parse(language: Language, before: &str, edits: &[Edit]) -> bool {
    quiet(language, before, &narrow(before, edits)).contains(&false)
}

/// For the record of the quick check (`examples/syntax_oracle.rs`): how
/// many edits, once narrowed to the lines they change, it takes without a
/// parse, and how many there are.
#[doc(hidden)]
pub fn taken_without_parse(language: Language, before: &str, edits: &[Edit]) -> (usize, usize) {
    let narrowed = narrow(before, edits);
    let quiet = quiet(language, before, &narrowed);
    (quiet.iter().filter(|&&q| q).count(), quiet.len())
}

/// Which narrowed edits cannot change whether their chunk parses.
fn quiet(language: Language, before: &str, narrowed: &[(Range<usize>, String)]) -> Vec<bool> {
    let edits = narrowed
        .iter()
        .map(|(r, t)| (&before[r.clone()], t.as_str()));
    neutral::swaps(language, edits)
        .into_iter()
        .zip(narrowed)
        .map(|(swap, (range, text))| {
            swap || spacing::only(language, &before[range.clone()], text)
                || statements::neutral(
                    language,
                    before,
                    chunk_start(before, range.start),
                    range.clone(),
                    text,
                )
        })
        .collect()
}

fn check(language: Language, before: &str, edits: &[Edit], quick: bool) -> Option<usize> {
    let narrowed = narrow(before, edits);
    let edits: Vec<Edit> = narrowed
        .iter()
        .map(|(r, t)| (r.clone(), t.as_str()))
        .collect();
    let quiet = if quick {
        quiet(language, before, &narrowed)
    } else {
        vec![false; edits.len()]
    };
    if quiet.iter().all(|&q| q) {
        return None;
    }
    let touched = windows(before, &edits);
    // The windows with an edit to parse.
    let is_loud = |w: &Window| w.edits.clone().any(|i| !quiet[i]);
    let covered: usize = touched
        .iter()
        .filter(|w| is_loud(w))
        .map(|w| w.bytes.len())
        .sum();
    let windows = if language == Language::Json || covered * 2 > before.len() {
        vec![Window {
            bytes: 0..before.len(),
            edits: 0..edits.len(),
        }]
    } else {
        touched
    };
    // The windows to parse, side by side when there are many (a payload of
    // a hundred edits in one file parses a hundred windows).
    let loud: Vec<&Window> = windows.iter().filter(|w| is_loud(w)).collect();
    let breaks = |w: &&Window| window_break(language, before, &edits, w);
    let found: Vec<Option<usize>> = if loud.len() >= PARALLEL_WINDOWS {
        crate::cores::map(&loud, breaks)
    } else {
        loud.iter().map(breaks).collect()
    };
    // The chunks the edits break that parsed before: (first line after the
    // edits, the error's line in the chunk). Lines are counted only here
    // (a 10 MB file has many), once over the text: the edits before each
    // window added (or removed) some.
    let mut broken: Vec<(usize, usize)> = Vec::new();
    let (mut counted_to, mut lines_before, mut shift) = (0, 0usize, 0isize);
    let mut edits_counted = 0;
    for (w, line) in loud.iter().zip(found) {
        let Some(line) = line else { continue };
        lines_before += lines::newlines(&before[counted_to..w.bytes.start]);
        counted_to = w.bytes.start;
        for (range, text) in &edits[edits_counted..w.edits.start] {
            shift +=
                lines::newlines(text) as isize - lines::newlines(&before[range.clone()]) as isize;
        }
        edits_counted = w.edits.start;
        let first = (lines_before as isize + shift).max(0) as usize;
        broken.push((first, line));
    }
    match broken[..] {
        [] => None,
        // One chunk broken: no other edit can mend it.
        [(first, line)] => Some(first + line),
        // Chunks the edits break apart but join again (a bracket opened in
        // one and closed two chunks on) each read as broken on their own:
        // the whole text after must agree, from the chunk on (an unclosed
        // bracket is reported where the parser gives up, further down).
        _ => {
            let whole = errors(language, &apply(before, &edits))?;
            broken
                .into_iter()
                .find(|&(first, _)| whole.lines.iter().any(|&l| l >= first))
                .map(|(first, line)| first + line)
        }
    }
}

/// From how many windows to parse they are parsed on every core.
const PARALLEL_WINDOWS: usize = 16;

/// The line (in the window) of the first parse error the window's edits
/// bring, when the window parsed cleanly before them.
fn window_break(language: Language, before: &str, edits: &[Edit], w: &Window) -> Option<usize> {
    let mut after_window = String::with_capacity(w.bytes.len());
    let mut at = w.bytes.start;
    for (range, text) in &edits[w.edits.clone()] {
        after_window.push_str(&before[at..range.start]);
        after_window.push_str(text);
        at = range.end;
    }
    after_window.push_str(&before[at..w.bytes.end]);
    // The text after first: most edits leave it whole, and then the text
    // before need not be parsed at all.
    let line = errors(language, &after_window).and_then(|e| e.lines.first().copied())?;
    errors(language, &before[w.bytes.clone()])
        .is_some_and(|e| e.count() == 0)
        .then_some(line)
}

/// The edits as whole lines, with the lines they leave as they were
/// trimmed off both ends: a search block of 30 lines that changes one
/// becomes an edit of that line. Edits that share a line are joined; edits
/// that change nothing are dropped.
fn narrow(before: &str, edits: &[Edit]) -> Vec<(Range<usize>, String)> {
    let mut out: Vec<(Range<usize>, String)> = Vec::new();
    let mut i = 0;
    while i < edits.len() {
        let start = line_start(before, edits[i].0.start);
        let mut end = line_end(before, &edits[i].0);
        let mut text = String::from(&before[start..edits[i].0.start]);
        text.push_str(edits[i].1);
        let mut at = edits[i].0.end;
        i += 1;
        // The next edits that begin on the lines this one ends in.
        while i < edits.len() && line_start(before, edits[i].0.start) < end {
            text.push_str(&before[at..edits[i].0.start]);
            text.push_str(edits[i].1);
            at = edits[i].0.end;
            end = end.max(line_end(before, &edits[i].0));
            i += 1;
        }
        text.push_str(&before[at..end]);
        let old = &before[start..end];
        let head = lines::common_prefix(old, &text);
        let tail = lines::common_suffix(&old[head..], &text[head..]);
        if head + tail == old.len() && head + tail == text.len() {
            continue;
        }
        out.push((
            start + head..end - tail,
            text[head..text.len() - tail].to_string(),
        ));
    }
    out
}

/// The end of the last line `range` touches (exclusive, its newline
/// included): an insertion touches the line it is put in front of.
fn line_end(text: &str, range: &Range<usize>) -> usize {
    if range.end > range.start && text.as_bytes()[range.end - 1] == b'\n' {
        return range.end;
    }
    memchr::memchr(b'\n', &text.as_bytes()[range.end..]).map_or(text.len(), |i| range.end + i + 1)
}

/// `before` with the edits applied.
fn apply(before: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(before.len());
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(&before[at..range.start]);
        out.push_str(text);
        at = range.end;
    }
    out.push_str(&before[at..]);
    out
}

/// A run of chunks and the edits in it.
struct Window {
    bytes: Range<usize>,
    /// Indices into the edits.
    edits: Range<usize>,
}

/// The merged chunks of `before` that the edits touch.
fn windows(before: &str, edits: &[Edit]) -> Vec<Window> {
    let mut out: Vec<Window> = Vec::new();
    for (i, (range, _)) in edits.iter().enumerate() {
        // Text put in at a construct's first line may close the chunk
        // before (a statement added at the end of a function): both are
        // read.
        let start = match range.start {
            at if at > 0 && line_start(before, at) == at && starts_construct(before, at) => {
                chunk_start(before, at - 1)
            }
            at => chunk_start(before, at),
        };
        // The last byte replaced; an insertion's own line.
        let last = if range.is_empty() {
            range.start
        } else {
            range.end - 1
        };
        let end = chunk_end(before, last).max(range.end);
        match out.last_mut() {
            Some(last) if start <= last.bytes.end => {
                last.bytes.end = last.bytes.end.max(end);
                last.edits.end = i + 1;
            }
            _ => out.push(Window {
                bytes: start..end,
                edits: i..i + 1,
            }),
        }
    }
    out
}

/// How far (in lines) a chunk boundary is looked for from an edit before a
/// weaker one is taken: a top-level construct at column 0 that does not
/// follow a blank line. Files without blank lines (generated code, long
/// runs of one-line items) would otherwise be one chunk: every edit would
/// walk the whole file and parse it whole.
const BOUNDARY_REACH: usize = 200;

/// The start of the chunk holding byte `at`: the nearest chunk boundary
/// at or before its line; past [`BOUNDARY_REACH`] lines without one, the
/// nearest construct at column 0 (a window cut inside a construct fails to
/// parse before the edit too, and then says nothing: never a false alarm).
fn chunk_start(text: &str, at: usize) -> usize {
    let mut line = line_start(text, at.min(text.len()));
    let mut weak = None;
    for walked in 0.. {
        if line == 0 || starts_chunk(text, line) {
            return line;
        }
        if walked >= BOUNDARY_REACH {
            if let Some(weak) = weak {
                return weak;
            }
        }
        if weak.is_none() && starts_construct(text, line) {
            weak = Some(line);
        }
        line = line_start(text, line - 1);
    }
    unreachable!("the walk ends at the text's first line")
}

/// The end of the chunk holding byte `at` (exclusive): the next chunk
/// boundary after its line, or the text's end; past [`BOUNDARY_REACH`]
/// lines without one, the next construct at column 0.
fn chunk_end(text: &str, at: usize) -> usize {
    let mut line = line_start(text, at.min(text.len()));
    let mut weak = None;
    for walked in 0.. {
        let Some(next) = next_line(text, line) else {
            return text.len();
        };
        if starts_chunk(text, next) {
            return next;
        }
        if walked >= BOUNDARY_REACH {
            if let Some(weak) = weak {
                return weak;
            }
        }
        if weak.is_none() && starts_construct(text, next) {
            weak = Some(next);
        }
        line = next;
    }
    unreachable!("the walk ends at the text's last line")
}

/// Whether the line at byte `start` begins a top-level construct after a
/// blank line.
fn starts_chunk(text: &str, start: usize) -> bool {
    start > 0 && starts_construct(text, start) && {
        let previous = &text[line_start(text, start - 1)..start];
        previous.trim().is_empty()
    }
}

/// Whether the line at byte `start` begins with a top-level construct: at
/// column 0, a word, `_`, `@`, `#` or a comment, and not a continuation
/// such as `else`, `except` or `case`.
fn starts_construct(text: &str, start: usize) -> bool {
    let line = &text[start..];
    let Some(first) = line.chars().next() else {
        return false;
    };
    let comment = line.starts_with("//") || line.starts_with("/*");
    if !(first.is_alphabetic() || first == '_' || first == '@' || first == '#' || comment) {
        return false;
    }
    let word_end = line
        .char_indices()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(line.len(), |(i, _)| i);
    const CONTINUATIONS: [&str; 12] = [
        "else", "elif", "except", "finally", "catch", "end", "rescue", "ensure", "when", "elsif",
        "case", "default",
    ];
    !CONTINUATIONS.contains(&&line[..word_end])
}

fn line_start(text: &str, at: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

fn next_line(text: &str, start: usize) -> Option<usize> {
    memchr::memchr(b'\n', &text.as_bytes()[start..])
        .map(|i| start + i + 1)
        .filter(|&n| n < text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> Range<usize> {
        let s = text.find(needle).unwrap();
        s..s + needle.len()
    }

    #[test]
    fn an_edit_is_checked_in_its_top_level_chunk() {
        let file = "import os\n\n\ndef f():\n    return 1\n\n\ndef g(:\n    pass\n";
        // `g` was broken before; `f`'s chunk parsed: a break there is new.
        let edit = (at(file, "return 1"), "return (1");
        assert_eq!(new_error_line(Language::Python, file, &[edit]), Some(4));
        let edit = (at(file, "return 1"), "return 2");
        assert_eq!(new_error_line(Language::Python, file, &[edit]), None);
        // A change inside the chunk that was broken says nothing.
        let edit = (at(file, "pass"), "pass)");
        assert_eq!(new_error_line(Language::Python, file, &[edit]), None);
    }

    #[test]
    fn lines_after_earlier_edits_are_counted_in_the_new_text() {
        let mut file = String::from("def a():\n    return 0\n");
        for i in 0..40 {
            file.push_str(&format!("\n\ndef f{i}():\n    return {i}\n"));
        }
        let first = (at(&file, "return 0"), "return 0\n    x = 1\n    y = 2");
        let second = (at(&file, "return 30"), "return (30");
        let line = new_error_line(Language::Python, &file, &[first, second]).unwrap();
        let after = file
            .replacen("return 0", "return 0\n    x = 1\n    y = 2", 1)
            .replace("return 30", "return (30");
        assert!(after.lines().nth(line).unwrap().contains("(30"), "{line}");
    }

    #[test]
    fn an_insertion_at_the_end_is_in_the_last_window() {
        let mut file = String::from("import os\n");
        for i in 0..40 {
            file.push_str(&format!("\n\ndef f{i}():\n    return {i}\n"));
        }
        let end = file.len();
        let edits = [(9..9, "\nimport re"), (end..end, "\n\ndef g(:\n    pass\n")];
        let line = new_error_line(Language::Python, &file, &edits).unwrap();
        let after = format!("import os\nimport re{}\n\ndef g(:\n    pass\n", &file[9..]);
        assert!(
            after.lines().nth(line).unwrap().contains("def g("),
            "{line}"
        );
    }

    #[test]
    fn chunks_broken_apart_but_whole_together_are_not_a_break() {
        // Two edits open a tuple in one chunk and close it two chunks on:
        // each chunk alone reads as broken, the whole text parses.
        let mut file = String::from("a = 1\n\n\nb,\n\n\nc = 3\n");
        for i in 0..20 {
            file.push_str(&format!("\n\ndef f{i}():\n    return {i}\n"));
        }
        let edits = [(at(&file, "a = 1"), "a = (1,"), (at(&file, "c = 3"), "3)")];
        assert_eq!(new_error_line(Language::Python, &file, &edits), None);
        // Either edit alone breaks its chunk.
        assert_eq!(
            new_error_line(Language::Python, &file, &edits[..1]),
            Some(0)
        );
    }

    #[test]
    fn chunks_start_after_a_blank_line_at_column_zero() {
        let text = "fn a() {\n}\n\nfn b() {\n    x;\n}\n\nfn c() {}\n";
        let x = text.find("x;").unwrap();
        assert_eq!(
            &text[chunk_start(text, x)..chunk_end(text, x + 1)],
            "fn b() {\n    x;\n}\n\n"
        );
        // `else` at column 0 continues a chunk.
        let text = "if a:\n    b\n\nelse:\n    c\n";
        assert_eq!(chunk_start(text, text.find("c\n").unwrap()), 0);
    }

    #[test]
    fn without_blank_lines_a_chunk_ends_at_a_construct_near_the_edit() {
        // 10k one-line functions and no blank line: the edit is read in a
        // few lines around it, not in the whole file.
        let text: String = (0..10_000)
            .map(|i| format!("fn f{i}() -> u64 {{ {i} }}\n"))
            .collect();
        let x = text.find("fn f5000(").unwrap() + 3;
        let (start, end) = (chunk_start(&text, x), chunk_end(&text, x + 1));
        assert!(end - start < 64, "{:?}", &text[start..end]);
        assert!(text[start..end].contains("f5000"));
        let edit = (at(&text, "{ 5000 }"), "{ 5000 ");
        // The window holds the function before too (a line that changes
        // from its start is read with the construct before it), and the
        // parser may place the error at the window's first line.
        let line = new_error_line(Language::Rust, &text, &[edit]).unwrap();
        assert!((4999..=5001).contains(&line), "{line}");
    }

    #[test]
    fn a_weak_boundary_inside_a_construct_raises_no_alarm() {
        // A string of 300 lines whose lines look like code at column 0: a
        // window cut inside it does not parse before the edit either.
        let mut text = String::from("x = '''\n");
        for i in 0..300 {
            text.push_str(&format!("def f{i}(): pass\n"));
        }
        text.push_str("'''\n");
        let edit = (at(&text, "def f150(): pass"), "def f150(: pass");
        assert_eq!(new_error_line(Language::Python, &text, &[edit]), None);
    }

    #[test]
    fn edits_shrink_to_the_lines_they_change() {
        let file = "a\nb\nc\nd\ne\n";
        // A five-line block that changes its third line.
        let edit = (0..file.len(), "a\nb\nC\nd\ne\n");
        assert_eq!(narrow(file, &[edit]), vec![(4..6, "C\n".to_string())]);
        // Two edits on one line are one; an edit that changes nothing goes.
        let edits = [(0..1, "A"), (2..3, "b"), (4..4, "x"), (5..5, "y")];
        assert_eq!(
            narrow(file, &edits),
            vec![(0..2, "A\n".to_string()), (4..6, "xcy\n".to_string())]
        );
        // A line put in between two unchanged ones.
        let edit = (2..6, "b\nnew\nc\n");
        assert_eq!(narrow(file, &[edit]), vec![(4..4, "new\n".to_string())]);
    }

    #[test]
    fn text_put_in_at_a_chunks_start_is_read_with_the_chunk_before() {
        let file = "def f():\n    return 1\n\ndef g():\n    return 2\n";
        // The edit's text narrows to "    x = 2\n\n" put in before `def g`:
        // the last statement of `f`, not a stray indent.
        let edit = (at(file, "\ndef g():\n"), "\n    x = 2\n\ndef g():\n");
        assert_eq!(new_error_line(Language::Python, file, &[edit]), None);
    }

    #[test]
    fn word_swaps_are_not_parsed_for_warnings() {
        let file = "def f(a):\n    return a + 1\n";
        let swap = (at(file, "a + 1"), "b + 1");
        assert_eq!(new_error_line_quick(Language::Python, file, &[swap]), None);
        let broken = (at(file, "a + 1"), "a + ");
        assert_eq!(
            new_error_line_quick(Language::Python, file, &[broken]),
            Some(1)
        );
    }
}
