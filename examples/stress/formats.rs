//! One renderer per payload format: a draft written the way a model writes
//! it (`../shared/FORMATS.md` §2, and the shared stress cases).
//!
//! Several hunks become several blocks, edits or hunks of one payload. A
//! draft whose lines would read as the format's own markers cannot be
//! written in that format: the renderer returns `None`.

use serde_json::{json, Value};

use crate::draft::{Draft, Hunk, Seg};
use crate::rng::Rng;

/// Every format.
pub const ALL: [&str; 14] = [
    "search_replace",
    "roo_diff",
    "edit_block",
    "edit_block_v2",
    "find_replace",
    "apply_patch",
    "unified_diff",
    "edit_file",
    "multiedit",
    "str_replace",
    "code_block",
    "code_block_elided",
    "code_block_units",
    "code_block_unit_elided",
];

/// A chat code block: the whole file, the changes with the rest elided, or
/// the changed definitions in full.
pub fn is_code_block(format: &str) -> bool {
    format.starts_with("code_block")
}

/// The format writes line hints (`:start_line:`, `@@ -N`).
pub fn has_hints(format: &str) -> bool {
    matches!(format, "roo_diff" | "unified_diff")
}

/// A JSON string tool: substring search, `old`/`new` strings.
pub fn is_string_tool(format: &str) -> bool {
    matches!(format, "edit_file" | "multiedit" | "str_replace")
}

/// Hunks located against the original file (not sequentially).
pub fn is_simultaneous(format: &str) -> bool {
    matches!(format, "apply_patch" | "unified_diff")
}

/// The `format` of a corpus `case.json` (all JSON tools are `json`).
pub fn corpus_name(format: &str) -> &str {
    if is_code_block(format) {
        "code_block"
    } else if is_string_tool(format) {
        "json"
    } else {
        format
    }
}

/// The payload file's extension.
pub fn extension(format: &str) -> &'static str {
    if is_string_tool(format) {
        "json"
    } else {
        "md"
    }
}

/// A string tool's `(old, new)` for a hunk: lines joined with `\n`, with a
/// final newline when the draft says so, and always when `new` has no line
/// (deleting lines needs it) or `old` is one blank line (it would read as
/// "create").
pub fn string_pair(d: &Draft, hunk: &Hunk) -> (String, String) {
    let (search, replace) = (hunk.search(), hunk.replace());
    let needs_nl = replace.is_empty() || search.join("\n").is_empty();
    let nl = if d.string_nl || needs_nl { "\n" } else { "" };
    let join = |lines: &[&str]| {
        if lines.is_empty() {
            String::new()
        } else {
            format!("{}{nl}", lines.join("\n"))
        }
    };
    let (old, new) = (join(&search), join(&replace));
    if d.double_escape {
        let escape = |t: &str| {
            t.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\t', "\\t")
        };
        return (escape(&old), escape(&new));
    }
    (old, new)
}

/// The payload for `d` in `format`, or `None` when its text collides with
/// the format's markers.
pub fn render(format: &str, d: &Draft, rng: &mut Rng) -> Option<String> {
    if collides(format, d) {
        return None;
    }
    Some(match format {
        "search_replace" => search_replace(d, rng),
        "roo_diff" => roo_diff(d),
        "edit_block" => edit_block(d),
        "edit_block_v2" => edit_block_v2(d),
        "find_replace" => find_replace(d),
        "apply_patch" => apply_patch(d, rng),
        "unified_diff" => unified_diff(d, rng),
        "edit_file" => edit_file(d, rng),
        "multiedit" => multiedit(d),
        "str_replace" => str_replace(d),
        "code_block" => code_block(
            d,
            &d.shown().iter().map(String::as_str).collect::<Vec<_>>(),
            rng,
        ),
        "code_block_elided" => {
            let lines = elided(d)?;
            code_block(
                d,
                &lines.iter().map(String::as_str).collect::<Vec<_>>(),
                rng,
            )
        }
        "code_block_units" => {
            let mut out = String::new();
            let shown = d.shown();
            for (s, e) in crate::definitions::spans(d)? {
                let lines: Vec<&str> = shown[s..e].iter().map(String::as_str).collect();
                out.push_str(&code_block(d, &lines, rng));
            }
            out
        }
        "code_block_unit_elided" => {
            let mut out = String::new();
            for (s, e) in crate::definitions::spans(d)? {
                let lines = unit_elided(d, s, e);
                let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
                out.push_str(&code_block(d, &lines, rng));
            }
            out
        }
        other => panic!("unknown format `{other}`"),
    })
}

/// True when a line of the draft would read as a marker of `format`.
fn collides(format: &str, d: &Draft) -> bool {
    let markers: &[&str] = match format {
        "search_replace" => &["<<<<<<<", "=======", ">>>>>>>"],
        "roo_diff" => &[
            "<<<<<<<",
            "=======",
            ">>>>>>>",
            "-------",
            ":start_line:",
            ":end_line:",
            "</diff>",
        ],
        "edit_block" => &["«««", "═══════", "»»»"],
        "edit_block_v2" => &["«««", "───────", "═══════", "»»»"],
        _ => &[],
    };
    d.hunks.iter().any(|h| {
        let lines = h.search().into_iter().chain(h.replace());
        let by_marker = lines
            .clone()
            .any(|l| markers.iter().any(|m| l.trim_start().starts_with(m)));
        let by_diff = format == "unified_diff"
            && h.segs.iter().any(|s| match s {
                Seg::Chg { old, new } => {
                    old.iter().any(|l| l.starts_with("--"))
                        || new.iter().any(|l| l.starts_with("++"))
                }
                Seg::Ctx { .. } => false,
            });
        by_marker || by_diff
    })
}

/// A markdown fence longer than any backtick run that opens a line.
fn fence(lines: &[&str]) -> String {
    let longest = lines
        .iter()
        .map(|l| l.trim_start().chars().take_while(|&c| c == '`').count())
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

fn push_lines(out: &mut String, lines: &[&str]) {
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
}

/// One chat code block holding `lines`, the file named one of the ways
/// models name it.
fn code_block(d: &Draft, lines: &[&str], rng: &mut Rng) -> String {
    let f = fence(lines);
    let lang = if d.lang == "go" { "go" } else { "python" };
    let mut out = String::from("Here is the updated code.\n\n");
    match rng.below(3) {
        0 => out.push_str(&format!("{f}{lang} {}\n", d.path)),
        1 => out.push_str(&format!("**{}**\n\n{f}{lang}\n", d.path)),
        _ => out.push_str(&format!("`{}`:\n{f}{lang}\n", d.path)),
    }
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!("{f}\n\n"));
    out
}

/// The file after, with the stretches between the hunks' windows left out
/// behind elision lines (a comment with `...`, indented like the code it
/// stands for).
fn elided(d: &Draft) -> Option<Vec<String>> {
    let comment = if d.lang == "go" { "//" } else { "#" };
    let marker = |from: usize| {
        let indent = d.after[from..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or("", |l| &l[..l.len() - l.trim_start().len()]);
        format!("{indent}{comment} ... existing code ...")
    };
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    for h in &d.hunks {
        let len = h.replace().len();
        // Each change between shown unchanged lines, or the block cannot
        // say it (a line taken out next to the code left out).
        let shown = h.after_start..h.after_start + len;
        if !changes(h).iter().all(|&(p, n)| {
            let ctx = |r: std::ops::Range<usize>| {
                r.into_iter()
                    .any(|i| !d.after[i].trim().is_empty() && !changed(h, i))
            };
            ctx(shown.start..p) && ctx(p + n..shown.end)
        }) {
            return None;
        }
        if h.after_start > at {
            out.push(marker(at));
        }
        out.extend(
            d.shown()[h.after_start..h.after_start + len]
                .iter()
                .cloned(),
        );
        at = h.after_start + len;
    }
    if at < d.after.len() {
        out.push(marker(at));
    }
    Some(out)
}

/// A changed definition (`after[s..e]`) as models write it with the
/// code far from the changes left out: its header (comments, decorators,
/// the line that opens its body), the changes with three lines around
/// them (widened until they begin and end with unchanged lines), and its
/// closing line; each stretch between behind an elision line indented
/// like the code it stands for.
fn unit_elided(d: &Draft, s: usize, e: usize) -> Vec<String> {
    let comment = if d.lang == "go" { "//" } else { "#" };
    let shown = d.shown();
    // Only one definition is shown so; other spans (statements, several
    // definitions) are shown whole.
    let depth = |l: &str| l.len() - l.trim_start().len();
    let is_above = |l: &str| {
        let t = l.trim_start();
        t.starts_with(['#', '@']) || t.starts_with("//")
    };
    let Some(k) = (s..e).find(|&i| !shown[i].trim().is_empty() && !is_above(&shown[i])) else {
        return shown[s..e].to_vec();
    };
    let head = shown[k].trim_start();
    let defines = ["def ", "async def ", "class ", "func "]
        .iter()
        .any(|w| head.starts_with(w));
    let dk = depth(&shown[k]);
    let one = (k + 1..e).all(|i| {
        let l = &shown[i];
        l.trim().is_empty()
            || depth(l) > dk
            || i + 1 == e && l.trim() == "}"
            || depth(l) == dk && l.trim_start().starts_with(')')
    });
    if !defines || !one {
        return shown[s..e].to_vec();
    }
    let mut changed = vec![false; e - s];
    let mut keep = vec![false; e - s];
    for h in &d.hunks {
        for (p, n) in changes(h) {
            let (lo, hi) = if n == 0 {
                (p.saturating_sub(1), p + 1)
            } else {
                (p, p + n)
            };
            for i in lo.max(s)..hi.min(e) {
                changed[i - s] |= n > 0 || i + 1 == p || i == p;
            }
            for i in lo.saturating_sub(3).max(s)..(hi + 3).min(e) {
                keep[i - s] = true;
            }
        }
    }
    // The header: up to the line that opens the body.
    let body = (s..e)
        .find(|&i| {
            let t = shown[i].trim_end();
            !t.trim_start().starts_with(['#', '@'])
                && !t.trim_start().starts_with("//")
                && t.ends_with([':', '{'])
        })
        .unwrap_or(s);
    for i in s..=body {
        keep[i - s] = true;
    }
    if shown[e - 1].trim() == "}" {
        keep[e - 1 - s] = true;
    }
    // A string over several lines is shown whole or left out whole.
    for (a, b) in crate::definitions::multiline_strings(d) {
        let rows = a.max(s)..(b + 1).min(e);
        if rows.clone().any(|i| keep[i - s]) {
            for i in rows {
                keep[i - s] = true;
            }
        }
    }
    // Each shown stretch begins and ends with unchanged code.
    let code = |i: usize| !shown[i].trim().is_empty();
    let mut i = s;
    while i < e {
        if !keep[i - s] {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < e && keep[j - s] {
            j += 1;
        }
        let mut first = (i..j).find(|&k| code(k)).unwrap_or(i);
        while first > s && changed[first - s] {
            first -= 1;
            keep[first - s] = true;
        }
        let mut last = (i..j).rev().find(|&k| code(k)).unwrap_or(i);
        while last + 1 < e && changed[last - s] {
            last += 1;
            keep[last - s] = true;
        }
        i = j.max(last + 1);
    }
    let mut out = Vec::new();
    let mut i = s;
    while i < e {
        if keep[i - s] {
            out.push(shown[i].clone());
            i += 1;
            continue;
        }
        let j = (i..e).find(|&k| keep[k - s]).unwrap_or(e);
        match (i..j).find(|&k| code(k)) {
            Some(k) => {
                let indent = &shown[k][..shown[k].len() - shown[k].trim_start().len()];
                out.push(format!("{indent}{comment} ... existing code ..."));
            }
            None => out.extend(shown[i..j].iter().cloned()),
        }
        i = j;
    }
    out
}

/// The changes of a hunk: their first line in the file after, and how many
/// lines they put there.
fn changes(h: &Hunk) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = h.after_start;
    for seg in &h.segs {
        match seg {
            Seg::Ctx { .. } => at += 1,
            Seg::Chg { new, .. } => {
                out.push((at, new.len()));
                at += new.len();
            }
        }
    }
    out
}

/// Whether line `i` of the file after is a changed line of the hunk.
fn changed(h: &Hunk, i: usize) -> bool {
    changes(h).iter().any(|&(p, n)| (p..p + n).contains(&i))
}

fn search_replace(d: &Draft, rng: &mut Rng) -> String {
    let info_path = rng.chance(1, 2);
    let mut out = String::from("I'll make the following changes.\n\n");
    for h in &d.hunks {
        let (search, replace) = (h.search(), h.replace());
        let all: Vec<&str> = search.iter().chain(&replace).copied().collect();
        let f = fence(&all);
        if info_path {
            out.push_str(&format!("{f}{}\n", d.path));
        } else {
            out.push_str(&format!("{}\n{f}{}\n", d.path, d.lang));
        }
        out.push_str("<<<<<<< SEARCH\n");
        push_lines(&mut out, &search);
        out.push_str("=======\n");
        push_lines(&mut out, &replace);
        out.push_str(&format!(">>>>>>> REPLACE\n{f}\n\n"));
    }
    out
}

fn roo_diff(d: &Draft) -> String {
    let mut out = format!("<apply_diff>\n<path>{}</path>\n<diff>\n", d.path);
    for h in &d.hunks {
        out.push_str(&format!(
            "<<<<<<< SEARCH\n:start_line:{}\n-------\n",
            h.hint()
        ));
        push_lines(&mut out, &h.search());
        out.push_str("=======\n");
        push_lines(&mut out, &h.replace());
        out.push_str(">>>>>>> REPLACE\n\n");
    }
    out.push_str("</diff>\n</apply_diff>\n");
    out
}

fn edit_block(d: &Draft) -> String {
    let mut out = String::new();
    for h in &d.hunks {
        out.push_str(&format!("{}\n««« EDIT\n", d.path));
        push_lines(&mut out, &h.search());
        out.push_str("═══════ REPL\n");
        push_lines(&mut out, &h.replace());
        out.push_str("»»» EDIT END\n\n");
    }
    out
}

fn edit_block_v2(d: &Draft) -> String {
    let mut out = String::new();
    for h in &d.hunks {
        let first = h
            .segs
            .iter()
            .position(|s| matches!(s, Seg::Chg { .. }))
            .unwrap_or(0);
        let last = h
            .segs
            .iter()
            .rposition(|s| matches!(s, Seg::Chg { .. }))
            .unwrap_or(0);
        let anchor = |segs: &[Seg]| -> Vec<String> {
            segs.iter()
                .filter_map(|s| match s {
                    Seg::Ctx { s, .. } => Some(s.clone()),
                    Seg::Chg { .. } => None,
                })
                .collect()
        };
        let middle = Hunk {
            segs: h.segs[first..=last].to_vec(),
            ..h.clone()
        };
        let lead = anchor(&h.segs[..first]);
        let trail = anchor(&h.segs[last + 1..]);
        out.push_str(&format!("{}\n««« EDIT\n", d.path));
        push_lines(
            &mut out,
            &lead.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        out.push_str("───────\n");
        push_lines(&mut out, &middle.search());
        out.push_str("═══════\n");
        push_lines(&mut out, &middle.replace());
        out.push_str("───────\n");
        push_lines(
            &mut out,
            &trail.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        out.push_str("»»»\n\n");
    }
    out
}

fn find_replace(d: &Draft) -> String {
    let mut out = format!("FILE: {}\n", d.path);
    for (i, h) in d.hunks.iter().enumerate() {
        let (search, replace) = (h.search(), h.replace());
        let all: Vec<&str> = search.iter().chain(&replace).copied().collect();
        let f = fence(&all);
        out.push_str(&format!("CHANGE: part {}\nFIND:\n{f}{}\n", i + 1, d.lang));
        push_lines(&mut out, &search);
        out.push_str(&format!("{f}\nREPLACE:\n{f}{}\n", d.lang));
        push_lines(&mut out, &replace);
        out.push_str(&format!("{f}\n\n"));
    }
    out
}

/// Diff body lines of a hunk: ` ctx`, `-old`, `+new`.
fn diff_body(h: &Hunk) -> String {
    let mut out = String::new();
    for seg in &h.segs {
        match seg {
            Seg::Ctx { s, .. } => out.push_str(&format!(" {s}\n")),
            Seg::Chg { old, new } => {
                for l in old {
                    out.push_str(&format!("-{l}\n"));
                }
                for l in new {
                    out.push_str(&format!("+{l}\n"));
                }
            }
        }
    }
    out
}

/// The nearest definition line above a hunk (after `floor`) that is unique
/// in the file, for an `@@ def …` header.
fn definition_above(d: &Draft, h: &Hunk, floor: usize) -> Option<String> {
    let keywords = ["def ", "async def ", "class ", "func ", "type "];
    (floor..h.before_start)
        .rev()
        .map(|i| &d.before[i])
        .find_map(|line| {
            let body = line.trim_start();
            let unique = d.before.iter().filter(|l| *l == line).count() == 1;
            (keywords.iter().any(|k| body.starts_with(k)) && unique)
                .then(|| line.trim_end().to_owned())
        })
}

fn apply_patch(d: &Draft, rng: &mut Rng) -> String {
    let mut out = format!("*** Begin Patch\n*** Update File: {}\n", d.path);
    let mut floor = 0;
    for h in &d.hunks {
        match definition_above(d, h, floor).filter(|_| rng.chance(2, 3)) {
            Some(def) => out.push_str(&format!("@@ {def}\n")),
            None => out.push_str("@@\n"),
        }
        out.push_str(&diff_body(h));
        floor = h.before_start + h.before_len;
    }
    out.push_str("*** End Patch\n");
    out
}

fn unified_diff(d: &Draft, rng: &mut Rng) -> String {
    let fenced = rng.chance(1, 2);
    let mut out = String::new();
    if fenced {
        out.push_str("```diff\n");
    }
    out.push_str(&format!("--- a/{0}\n+++ b/{0}\n", d.path));
    for h in &d.hunks {
        let shift = h.hint() as i64 - (h.before_start as i64 + 1);
        let new_start = (h.after_start as i64 + 1 + shift).max(1);
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            h.hint(),
            h.search().len(),
            new_start,
            h.replace().len()
        ));
        out.push_str(&diff_body(h));
    }
    if fenced {
        out.push_str("```\n");
    }
    out
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON values serialize") + "\n"
}

fn edit_file(d: &Draft, rng: &mut Rng) -> String {
    let edits: Vec<Value> = d
        .hunks
        .iter()
        .map(|h| {
            let (old, new) = string_pair(d, h);
            json!({"path": d.path, "old_string": old, "new_string": new})
        })
        .collect();
    let arguments = if edits.len() == 1 && rng.chance(1, 2) {
        edits[0].clone()
    } else {
        json!({ "edits": edits })
    };
    pretty(&json!({
        "type": "function",
        "function": {"name": "edit_file", "arguments": arguments.to_string()}
    }))
}

fn multiedit(d: &Draft) -> String {
    let edits: Vec<Value> = d
        .hunks
        .iter()
        .map(|h| {
            let (old, new) = string_pair(d, h);
            json!({"old_string": old, "new_string": new})
        })
        .collect();
    pretty(&json!({
        "type": "tool_use",
        "id": "toolu_01Stress",
        "name": "MultiEdit",
        "input": {"file_path": d.path, "edits": edits}
    }))
}

fn str_replace(d: &Draft) -> String {
    let calls: Vec<Value> = d
        .hunks
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let (old, new) = string_pair(d, h);
            json!({
                "type": "tool_use",
                "id": format!("toolu_{:02}", i + 1),
                "name": "str_replace_based_edit_tool",
                "input": {"command": "str_replace", "path": d.path, "old_str": old, "new_str": new}
            })
        })
        .collect();
    pretty(&Value::Array(calls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::{tests::sample_pair, Context};
    use crate::judge::{judge, Verdict};

    /// A clean payload in every format applies to exactly the real after.
    #[test]
    fn clean_payloads_apply_to_the_after_file() {
        let pair = sample_pair();
        for format in ALL {
            for seed in 0..8 {
                let mut rng = Rng::from_parts(&[seed]);
                let context = if is_code_block(format) {
                    Context::Wide
                } else {
                    Context::Normal
                };
                let d = Draft::build(&pair, context, &mut rng);
                let payload = render(format, &d, &mut rng).expect("no marker in the sample");
                let judged = judge(&payload, &d, format, None);
                // The sample's changes are top-level statements, not
                // definitions: shown alone without `...` lines, they read
                // two ways (the whole file, or a part), and are refused.
                if format == "code_block_units" {
                    assert!(
                        judged.verdict == Verdict::Right || judged.precise,
                        "{format} seed {seed}: {judged:?}"
                    );
                    continue;
                }
                assert_eq!(
                    judged.verdict,
                    Verdict::Right,
                    "{format} seed {seed}:\n{payload}\n{judged:?}"
                );
            }
        }
    }

    #[test]
    fn double_escape_escapes_the_strings_once_more() {
        let pair = sample_pair();
        let mut d = Draft::build(&pair, Context::Normal, &mut Rng::from_parts(&[3]));
        d.hunks[0].segs = vec![Seg::Chg {
            old: vec!["a = \"x\"".into(), "\tb = 1".into()],
            new: vec!["a = 2".into()],
        }];
        d.string_nl = false;
        d.double_escape = true;
        assert_eq!(
            string_pair(&d, &d.hunks[0]),
            ("a = \\\"x\\\"\\n\\tb = 1".to_owned(), "a = 2".to_owned())
        );
    }

    #[test]
    fn string_pairs_end_consistently() {
        let pair = sample_pair();
        let mut d = Draft::build(&pair, Context::Normal, &mut Rng::from_parts(&[3]));
        for nl in [false, true] {
            d.string_nl = nl;
            for h in &d.hunks {
                let (old, new) = string_pair(&d, h);
                assert_eq!(old.ends_with('\n'), nl);
                assert_eq!(new.ends_with('\n'), nl);
            }
        }
        d.hunks[0].segs = vec![Seg::Chg {
            old: vec!["gone".into()],
            new: vec![],
        }];
        d.string_nl = false;
        assert_eq!(
            string_pair(&d, &d.hunks[0]),
            ("gone\n".to_owned(), String::new())
        );
        d.hunks[0].segs = vec![
            crate::draft::ctx(""),
            Seg::Chg {
                old: vec![],
                new: vec!["x".into()],
            },
        ];
        assert_eq!(
            string_pair(&d, &d.hunks[0]),
            ("\n".to_owned(), "\nx\n".to_owned())
        );
    }

    #[test]
    fn markers_in_the_file_are_not_rendered() {
        let pair = sample_pair();
        let mut d = Draft::build(&pair, Context::Normal, &mut Rng::from_parts(&[1]));
        d.hunks[0].segs.insert(0, crate::draft::ctx("======="));
        assert!(render("search_replace", &d, &mut Rng::from_parts(&[1])).is_none());
        assert!(render("edit_file", &d, &mut Rng::from_parts(&[1])).is_some());
        assert_eq!(fence(&["x", "````y"]), "`````");
    }
}
