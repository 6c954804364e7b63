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

use super::{errors, Language};

/// An edit of the text before: the bytes replaced and the new text.
pub type Edit<'a> = (Range<usize>, &'a str);

/// The first line (0-based, in the text after) of a parse error that the
/// edits bring into a region of `before` that parsed cleanly; `None` when
/// there is none (or the text could not be parsed). `edits` are sorted and
/// disjoint.
pub fn new_error_line(language: Language, before: &str, edits: &[Edit]) -> Option<usize> {
    let whole = std::iter::once(0..before.len()).collect::<Vec<_>>();
    let windows = if language == Language::Json {
        whole
    } else {
        let touched = windows(before, edits);
        let covered: usize = touched.iter().map(|w| w.len()).sum();
        if covered * 2 > before.len() {
            whole
        } else {
            touched
        }
    };
    // Lines the edits before a window added (or removed).
    let (mut line_shift, mut next_edit) = (0isize, 0usize);
    // The chunks the edits break that parsed before: (first line after the
    // edits, the error's line in the chunk).
    let mut broken: Vec<(usize, usize)> = Vec::new();
    for w in windows {
        let mut after_window = String::with_capacity(w.len());
        let mut at = w.start;
        // An insertion at the text's end belongs to the last window.
        let inside =
            |r: &Range<usize>| r.start < w.end || r.start == before.len() && w.end == r.start;
        while next_edit < edits.len() && inside(&edits[next_edit].0) {
            let (range, text) = &edits[next_edit];
            if range.start < w.start {
                // Windows cover their edits whole.
                next_edit += 1;
                continue;
            }
            after_window.push_str(&before[at..range.start]);
            after_window.push_str(text);
            at = range.end;
            next_edit += 1;
        }
        after_window.push_str(&before[at..w.end]);
        let shift = line_shift;
        line_shift +=
            count_lines(&after_window) as isize - count_lines(&before[w.clone()]) as isize;
        // The text after first: most edits leave it whole, and then the
        // text before need not be parsed at all.
        let Some(line) = errors(language, &after_window).and_then(|e| e.lines.first().copied())
        else {
            continue;
        };
        if errors(language, &before[w.clone()]).is_none_or(|e| e.count() > 0) {
            continue;
        }
        // Lines are counted only here: a 10 MB file has many.
        let first = (count_lines(&before[..w.start]) as isize + shift).max(0) as usize;
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
            let whole = errors(language, &apply(before, edits))?;
            broken
                .into_iter()
                .find(|&(first, _)| whole.lines.iter().any(|&l| l >= first))
                .map(|(first, line)| first + line)
        }
    }
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

/// The merged chunks of `before` that the edits touch.
fn windows(before: &str, edits: &[Edit]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (range, _) in edits {
        let start = chunk_start(before, range.start);
        // The last byte replaced; an insertion's own line.
        let last = if range.is_empty() {
            range.start
        } else {
            range.end - 1
        };
        let end = chunk_end(before, last);
        match out.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => out.push(start..end),
        }
    }
    out
}

/// The start of the chunk holding byte `at`: the nearest chunk boundary
/// at or before its line.
fn chunk_start(text: &str, at: usize) -> usize {
    let mut line = line_start(text, at.min(text.len()));
    loop {
        if line == 0 || starts_chunk(text, line) {
            return line;
        }
        line = line_start(text, line - 1);
    }
}

/// The end of the chunk holding byte `at` (exclusive): the next chunk
/// boundary after its line, or the text's end.
fn chunk_end(text: &str, at: usize) -> usize {
    let mut line = line_start(text, at.min(text.len()));
    loop {
        let Some(next) = next_line(text, line) else {
            return text.len();
        };
        if starts_chunk(text, next) {
            return next;
        }
        line = next;
    }
}

/// Whether the line at byte `start` begins a top-level construct after a
/// blank line.
fn starts_chunk(text: &str, start: usize) -> bool {
    let line = &text[start..next_line(text, start).unwrap_or(text.len())];
    let Some(first) = line.chars().next() else {
        return false;
    };
    let comment = line.starts_with("//") || line.starts_with("/*");
    if !(first.is_alphabetic() || first == '_' || first == '@' || first == '#' || comment) {
        return false;
    }
    let word: String = line
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    const CONTINUATIONS: [&str; 12] = [
        "else", "elif", "except", "finally", "catch", "end", "rescue", "ensure", "when", "elsif",
        "case", "default",
    ];
    if CONTINUATIONS.contains(&word.as_str()) {
        return false;
    }
    start > 0 && {
        let previous = &text[line_start(text, start - 1)..start];
        previous.trim().is_empty()
    }
}

fn line_start(text: &str, at: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

fn next_line(text: &str, start: usize) -> Option<usize> {
    memchr::memchr(b'\n', &text.as_bytes()[start..])
        .map(|i| start + i + 1)
        .filter(|&n| n < text.len())
}

fn count_lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
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
}
