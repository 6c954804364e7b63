//! Property tests of the engine's invariants: plans are exact, nothing
//! outside a match changes, exact needles are found (and absent ones are
//! not), failing payloads write nothing, and the piece table agrees with a
//! plain `String`.

mod common;

use common::MemFiles;
use llm_edit_lsp::engine::{MatchMode, Options, Outcome};
use llm_edit_lsp::error::ErrorKind;
use llm_edit_lsp::resolve::doc::{Doc, OrigHits};
use proptest::prelude::*;
use ropey::Rope;

/// Text pieces random files are made of: ASCII, indentation, multibyte.
const PIECES: &[&str] = &[
    "a", "b", "x = 1;", " ", "\t", "\n", "é", "«", "🦀", "{", "}",
];

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..max).prop_map(|v| v.concat())
}

/// A file of `n` lines, each unique (so every line range is a unique search).
fn unique_lines(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(6), n).prop_map(|tails| {
        tails
            .iter()
            .enumerate()
            .map(|(i, t)| format!("line {i:03} {}", t.replace('\n', " ")))
            .collect()
    })
}

fn edit_file_payload(path: &str, old: &str, new: &str) -> String {
    serde_json::json!({"name": "edit_file", "arguments": {"path": path, "old_string": old, "new_string": new}})
        .to_string()
}

fn search_replace_block(path: &str, search: &[String], replace: &[String]) -> String {
    let mut block = format!("{path}\n<<<<<<< SEARCH\n");
    for l in search {
        block.push_str(&format!("{l}\n"));
    }
    block.push_str("=======\n");
    for l in replace {
        block.push_str(&format!("{l}\n"));
    }
    block.push_str(">>>>>>> REPLACE\n\n");
    block
}

/// Applies the plan's edits to a rope, back to front, by char indices.
fn apply_on_rope(outcome: &Outcome) -> Vec<(String, String)> {
    outcome
        .files
        .iter()
        .filter_map(|change| {
            let before = change.before.as_ref()?;
            let mut rope = Rope::from_str(&before.text);
            for e in change.edits.as_slice().iter().rev() {
                let start = rope.byte_to_char(e.range.start);
                let end = rope.byte_to_char(e.range.end);
                rope.remove(start..end);
                rope.insert(start, &e.text);
            }
            Some((
                rope.to_string(),
                change.after().unwrap_or_default().to_owned(),
            ))
        })
        .collect()
}

/// Disjoint, sorted line ranges from random cut points.
fn ranges_from(cuts: &[usize], n: usize) -> Vec<std::ops::Range<usize>> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (n + 1)).collect();
    points.sort_unstable();
    points.dedup();
    points
        .chunks_exact(2)
        .filter(|p| p[1] > p[0])
        .map(|p| p[0]..p[1])
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// (a) The plan's text edits, applied to a rope, give exactly `after`.
    #[test]
    fn plan_edits_give_after(
        lines in unique_lines(1..30),
        cuts in prop::collection::vec(0usize..40, 2..8),
        news in prop::collection::vec(prop::collection::vec(text(5), 0..4), 4),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let le = if crlf { "\r\n" } else { "\n" };
        let mut file = lines.join(le);
        if final_newline { file.push_str(le); }
        let ranges = ranges_from(&cuts, lines.len());
        prop_assume!(!ranges.is_empty());
        let mut payload = String::new();
        for (k, r) in ranges.iter().enumerate() {
            let replace: Vec<String> = news[k % news.len()]
                .iter()
                .map(|t| format!("new {k} {}", t.replace('\n', " ")))
                .collect();
            payload.push_str(&search_replace_block("f.txt", &lines[r.clone()], &replace));
        }
        let outcome = MemFiles::new().with("f.txt", file).run(&payload, &Options::default());
        prop_assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
        for (rope, after) in apply_on_rope(&outcome) {
            prop_assert_eq!(rope, after);
        }
    }

    /// (b)+(c) A unique needle planted in random text is found, and only
    /// the needle changes: the result is prefix + replacement + suffix.
    #[test]
    fn only_the_needle_changes(
        prefix in text(40),
        suffix in text(40),
        needle in text(6),
        replacement in text(8),
    ) {
        let needle = format!("⟦{needle}⟧");
        let replacement = format!("R{replacement}");
        // The needle never starts a line: a text that starts a line and
        // ends inside one may also be the line cut short, a second reading
        // (FORMATS.md §3) that this property is not about.
        let prefix = format!("{prefix}·");
        let file = format!("{prefix}{needle}{suffix}");
        let payload = edit_file_payload("f.txt", &needle, &replacement);
        let want = format!("{prefix}{replacement}{suffix}");
        for mode in [MatchMode::Tolerant, MatchMode::Exact] {
            let options = Options { match_mode: mode, ..Options::default() };
            let outcome = MemFiles::new().with("f.txt", file.clone()).run(&payload, &options);
            prop_assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
            prop_assert_eq!(outcome.files.len(), 1);
            prop_assert_eq!(outcome.files[0].after(), Some(want.as_str()));
        }
    }

    /// (b)+(c) for whole lines: planted needle lines are found by a block
    /// format, and the lines around them stay as they were.
    #[test]
    fn only_the_needle_lines_change(
        before in unique_lines(0..10),
        after in unique_lines(0..10),
        needle in prop::collection::vec(text(6), 1..4),
        replacement in prop::collection::vec(text(6), 0..4),
    ) {
        let needle: Vec<String> =
            needle.iter().map(|t| format!("⟦{}⟧", t.replace('\n', " "))).collect();
        let replacement: Vec<String> =
            replacement.iter().map(|t| format!("R{}", t.replace('\n', " "))).collect();
        let join = |ls: &[String]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
        let file = format!("{}{}{}", join(&before), join(&needle), join(&after));
        let payload = search_replace_block("f.txt", &needle, &replacement);
        let outcome = MemFiles::new().with("f.txt", file).run(&payload, &Options::default());
        prop_assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
        let want = format!("{}{}{}", join(&before), join(&replacement), join(&after));
        prop_assert_eq!(outcome.files[0].after(), Some(want.as_str()));
    }

    /// (c) A needle absent from the file is never found in exact mode.
    #[test]
    fn absent_needle_is_not_found(file in text(60), needle in text(6)) {
        let needle = format!("⟦{needle}");
        let payload = edit_file_payload("f.txt", &needle, "X");
        let options = Options { match_mode: MatchMode::Exact, ..Options::default() };
        let outcome = MemFiles::new().with("f.txt", file).run(&payload, &options);
        prop_assert!(outcome.files.is_empty());
        prop_assert_eq!(outcome.errors.len(), 1);
        prop_assert_eq!(outcome.errors[0].kind, ErrorKind::NotFound);
    }

    /// (e) The piece table equals a `String` under random replaces, and
    /// `Doc::find` equals a naive search of the current text.
    #[test]
    fn doc_matches_string(
        original in "[ab\né]{0,30}",
        ops in prop::collection::vec((0usize..40, 0usize..6, "[ab\né]{0,4}"), 0..12),
        needles in prop::collection::vec("[ab\né]{1,4}", 1..4),
    ) {
        let mut doc = Doc::new(&original);
        let mut plain = original.clone();
        for (at, len, text) in ops {
            let start = floor_boundary(&plain, at);
            let end = floor_boundary(&plain, start + len);
            doc.replace(start..end, &text);
            plain.replace_range(start..end, &text);
            prop_assert_eq!(doc.text(), plain.as_str());
            prop_assert_eq!(doc.len(), plain.len());
            for needle in &needles {
                let orig_hits = OrigHits { full: naive_find(&original, needle).into(), ..OrigHits::default() };
                prop_assert_eq!(doc.find(needle, &orig_hits, false).to_vec(), naive_find(&plain, needle), "needle {:?}", needle);
            }
        }
        let edits = llm_edit_lsp::plan::TextEdits::new(doc.edits()).expect("disjoint");
        prop_assert_eq!(edits.apply(&original), plain);
    }
}

fn floor_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Every start of `needle` in `text`, overlapping ones included.
fn naive_find(text: &str, needle: &str) -> Vec<usize> {
    (0..text.len())
        .filter(|&i| text.as_bytes()[i..].starts_with(needle.as_bytes()))
        .collect()
}

/// (d) A payload that must fail changes no file through the real binary.
mod cli_writes_nothing {
    use super::*;
    use std::process::Command;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        #[test]
        fn failing_payload_writes_nothing(
            lines in unique_lines(1..12),
            pick in 0usize..12,
            absent in text(6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let file = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            std::fs::write(dir.path().join("a.txt"), &file).unwrap();
            std::fs::write(dir.path().join("b.txt"), &file).unwrap();
            let line = &lines[pick % lines.len()];
            let payload = format!(
                "{}{}",
                search_replace_block("a.txt", std::slice::from_ref(line), &["changed".into()]),
                search_replace_block("b.txt", &[format!("⟦absent {absent}⟧")], &["x".into()]),
            );
            std::fs::write(dir.path().join("payload.md"), &payload).unwrap();
            let status = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
                .args(["apply", "--root"])
                .arg(dir.path())
                .arg(dir.path().join("payload.md"))
                .output()
                .unwrap();
            prop_assert_eq!(status.status.code(), Some(1));
            prop_assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), file.clone());
            prop_assert_eq!(std::fs::read_to_string(dir.path().join("b.txt")).unwrap(), file);
            let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            prop_assert_eq!(names.len(), 3, "stray files: {:?}", names);
        }
    }
}

/// A chat code block (`code_block` format): each part between `# ...`
/// lines shows a range of the file by its first and last lines, with new
/// lines between them.
fn chat_block(
    path: &str,
    lines: &[String],
    ranges: &[std::ops::Range<usize>],
    news: &[Vec<String>],
) -> String {
    let mut block = format!("```text {path}\n");
    for (k, r) in ranges.iter().enumerate() {
        block.push_str("# ... existing code ...\n");
        block.push_str(&format!("{}\n", lines[r.start].trim_end()));
        for n in &news[k] {
            block.push_str(&format!("{n}\n"));
        }
        block.push_str(&format!("{}\n", lines[r.end - 1].trim_end()));
    }
    block.push_str("# ... existing code ...\n```\n");
    block
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A chat code block with elisions applies to exactly the file with
    /// each shown range rewritten, every other line kept byte for byte
    /// (trailing blanks and line breaks included), or is refused and
    /// writes nothing.
    #[test]
    fn code_block_parts_keep_every_other_line(
        lines in unique_lines(4..30),
        pads in prop::collection::vec(prop::sample::select(&["", "", "", " ", "\t"][..]), 30),
        cuts in prop::collection::vec(0usize..40, 2..8),
        news in prop::collection::vec(prop::collection::vec(text(5), 0..4), 4),
        crlf in any::<bool>(),
    ) {
        let lines: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{l}{}", pads[i % pads.len()]))
            .collect();
        let le = if crlf { "\r\n" } else { "\n" };
        let file = lines.join(le) + le;
        // Ranges of two lines or more, apart (an elision between each).
        let ranges: Vec<_> = ranges_from(&cuts, lines.len())
            .into_iter()
            .filter(|r| r.len() >= 2 && r.start > 0)
            .collect();
        let ranges: Vec<_> = ranges
            .iter()
            .enumerate()
            .filter(|(k, r)| *k == 0 || ranges[k - 1].end < r.start)
            .map(|(_, r)| r.clone())
            .collect();
        prop_assume!(!ranges.is_empty() && ranges.last().unwrap().end < lines.len());
        let news: Vec<Vec<String>> = (0..ranges.len())
            .map(|k| {
                news[k % news.len()]
                    .iter()
                    .map(|t| format!("new {k} {}", t.replace('\n', " ").trim_end()))
                    .collect()
            })
            .collect();
        let payload = chat_block("f.txt", &lines, &ranges, &news);
        let outcome = MemFiles::new().with("f.txt", file.clone()).run(&payload, &Options::default());
        if !outcome.errors.is_empty() {
            prop_assert!(outcome.files.is_empty(), "a refused block changes nothing");
            // Only a range whose middle lines go with none put in may be
            // refused (more than three lines taken out: left out, or gone?).
            prop_assert!(
                ranges.iter().enumerate().any(|(k, r)| news[k].is_empty() && r.len() > 5),
                "{payload}\n{:#?}",
                outcome.errors
            );
            return Ok(());
        }
        let mut want: Vec<String> = Vec::new();
        let mut at = 0;
        for (k, r) in ranges.iter().enumerate() {
            want.extend(lines[at..r.start].iter().cloned());
            want.push(lines[r.start].clone());
            want.extend(news[k].iter().cloned());
            want.push(lines[r.end - 1].clone());
            at = r.end;
        }
        want.extend(lines[at..].iter().cloned());
        let want = want.join(le) + le;
        let after = outcome.files.iter().find_map(|f| f.after().map(str::to_owned)).unwrap_or(file);
        prop_assert_eq!(after, want, "{}", payload);
    }
}
