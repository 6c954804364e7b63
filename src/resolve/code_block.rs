//! What a chat code block means for its file (`code_block` format).
//!
//! - **New file** (the path does not exist): the block is its content; a
//!   block that leaves code out (an elision line) is refused.
//! - **Whole file**: a block with no elision line whose first and last
//!   non-blank lines are the file's first and last non-blank lines replaces
//!   the file.
//! - **Snippet**: otherwise the block is cut at its elision lines into
//!   parts, and each part is placed by its own unchanged lines, in order:
//!   its first lines (as many as make them match one place of the file
//!   after the part before) and its last lines (likewise, at or after
//!   those). The part replaces the file lines from the first to the last;
//!   the code between parts, and before the first and after the last, is
//!   kept. Blank lines at a part's edges are the file's own (the edges of
//!   the code left out), not the part's.
//!
//! One reading or none (`FORMATS.md` §3): a part whose first or last line
//! matches no place, or several, is refused with the lines it matched and
//! what to add; so is a part that would remove a line of the file at the
//! part's own depth or shallower (a definition, a closing brace) that the
//! part does not show: the block does not account for it.

use std::ops::Range;

use super::elision;

/// How a block applies to its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The file is created with this content.
    Create(String),
    /// The file is replaced with this content.
    Whole(String),
    /// These 0-based file line ranges are replaced, in order.
    Parts(Vec<(Range<usize>, String)>),
}

/// Why a block cannot be applied, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A new file's block leaves code out (1-based block line).
    ElisionInNewFile { line: usize },
    /// A part's first or last lines match no place.
    NoPlace {
        block_line: usize,
        text: String,
        after: usize,
    },
    /// A part's first or last lines match several places (1-based).
    Places {
        block_line: usize,
        text: String,
        lines: Vec<usize>,
    },
    /// A block with no elision line that is neither the whole file (its
    /// first and last lines are not the file's) nor whole definitions.
    NotWhole { first: String, last: String },
    /// A part would remove a file line it does not show (1-based).
    Unshown { file_line: usize, text: String },
    /// A part that shows whole definitions ends where the file's end, and
    /// its last line matches a line elsewhere (1-based file lines).
    TwoEnds {
        block_line: usize,
        first: usize,
        definition: usize,
        anchored: usize,
    },
}

/// The file's text with the parts put in place of their lines; every
/// other line kept byte for byte, its line break included.
pub fn splice(file: &str, parts: &[(Range<usize>, String)]) -> String {
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    let mut out = String::with_capacity(file.len());
    let mut at = 0;
    for (range, text) in parts {
        for l in &lines[at..range.start] {
            out.push_str(l);
        }
        out.push_str(text);
        at = range.end;
    }
    for l in &lines[at..] {
        out.push_str(l);
    }
    // A part in place of a last line that had no line break.
    if at == lines.len() && !file.is_empty() && !file.ends_with('\n') {
        out.pop();
    }
    out
}

/// A part of a block: its first block line (0-based), its lines, and the
/// depth of the elision lines before and after it (`None`: none).
type Part<'a> = (usize, &'a [&'a str], Option<usize>, Option<usize>);

/// Reads `content` (the block's lines) against `file` (`None`: no such
/// file). `path_line` is a first line that named the file (`# app.py`),
/// kept only when the file begins with it.
pub fn read(
    file: Option<&str>,
    content: &str,
    path_line: Option<&str>,
) -> Result<Reading, Refusal> {
    let Some(file) = file else {
        if let Some(line) = content.lines().position(|l| elision::marker(l).is_some()) {
            return Err(Refusal::ElisionInNewFile { line: line + 1 });
        }
        return Ok(Reading::Create(content.to_string()));
    };
    let file_lines: Vec<&str> = file.lines().collect();
    let content = match path_line {
        Some(l) if file_lines.first().is_some_and(|f| same(f, l)) => format!("{l}\n{content}"),
        _ => content.to_string(),
    };
    let lines: Vec<&str> = content.lines().collect();
    let marked = lines.iter().any(|l| elision::marker(l).is_some());
    let edge = |ls: &[&str], last: bool| {
        let mut it: Box<dyn Iterator<Item = &&str>> = if last {
            Box::new(ls.iter().rev())
        } else {
            Box::new(ls.iter())
        };
        it.find(|l| !l.trim().is_empty())
            .map(|l| l.trim_end().to_string())
    };
    // A file of up to three lines, and a block at least as long: a rewrite.
    let code = |ls: &[&str]| ls.iter().filter(|l| !l.trim().is_empty()).count();
    // A changed beginning (imports added, a header rewritten): a rewrite
    // when the end is the file's, the block holds every line of the file
    // at column 0 in order (no import, definition or statement left out)
    // and nine tenths of its lines. Not a changed end: a block cut short
    // there would read as the whole file.
    let (head, tail) = (
        same_edge(&lines, &file_lines, false),
        same_edge(&lines, &file_lines, true),
    );
    let whole = code(&file_lines) <= 3 && code(&lines) >= code(&file_lines)
        || head && tail
        || tail
            && code(&lines) * 10 >= code(&file_lines) * 9
            && holds_top_level(&lines, &file_lines);
    if !marked && whole {
        return Ok(Reading::Whole(content));
    }
    // With no elision line, a block that is not the whole file is a part
    // only when it is whole definitions; otherwise it reads two ways (the
    // whole new file, or a part with the rest kept).
    if !marked {
        let core: Vec<&str> = {
            let lead = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
            let trail = lines
                .iter()
                .rposition(|l| !l.trim().is_empty())
                .unwrap_or(0);
            lines[lead..=trail.max(lead)].to_vec()
        };
        let definitions = !core.is_empty() && {
            let d = depth(core[0]);
            core.iter().all(|l| l.trim().is_empty() || depth(l) >= d) && is_definitions(&core)
        };
        if !definitions {
            return Err(Refusal::NotWhole {
                first: edge(&file_lines, false).unwrap_or_default(),
                last: edge(&file_lines, true).unwrap_or_default(),
            });
        }
    }
    // The parts between elision lines: their first block line, and the
    // depth of the elision lines before and after them (`None`: none).
    let mut parts: Vec<Part> = Vec::new();
    let mut start = 0;
    let mut before: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        if elision::marker(l).is_some() {
            parts.push((start, &lines[start..i], before, Some(depth(l))));
            start = i + 1;
            before = Some(depth(l));
        }
    }
    parts.push((start, &lines[start..], before, None));
    let mut cursor = 0;
    let mut out = Vec::new();
    let count = parts.len();
    for (index, (first_line, part, marked_before, marked_after)) in parts.into_iter().enumerate() {
        // Blank lines at a part's edges belong to the code left out.
        let Some(lead) = part.iter().position(|l| !l.trim().is_empty()) else {
            continue;
        };
        let trail = part
            .iter()
            .rposition(|l| !l.trim().is_empty())
            .unwrap_or(lead);
        let core = &part[lead..=trail];
        let block_line = first_line + lead + 1;
        let span = place(&file_lines, core, cursor, block_line, marked_after)?;
        // A block's first part with no elision line above it begins at the
        // file's first line, and its last with none below ends at the
        // file's last, unless they are whole definitions: else the code
        // beyond could be kept or gone.
        let top = index == 0 && marked_before.is_none();
        let bottom = index + 1 == count && marked_after.is_none();
        let first_code = file_lines
            .iter()
            .position(|l| !l.trim().is_empty())
            .unwrap_or(0);
        let last_code = file_lines
            .iter()
            .rposition(|l| !l.trim().is_empty())
            .unwrap_or(0);
        if (top && span.start != first_code || bottom && span.end != last_code + 1)
            && !is_definitions(core)
        {
            return Err(Refusal::NotWhole {
                first: edge(&file_lines, false).unwrap_or_default(),
                last: edge(&file_lines, true).unwrap_or_default(),
            });
        }
        unshown(&file_lines, span.clone(), core)?;
        let mut text = String::new();
        for l in core {
            text.push_str(l);
            text.push('\n');
        }
        cursor = span.end;
        out.push((span, text));
    }
    Ok(Reading::Parts(out))
}

/// Leading blanks.
fn depth(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A line of code at depth `d`.
fn at(line: &str, d: usize) -> bool {
    !line.trim().is_empty() && depth(line) == d
}

/// A line at depth `d` that closes a definition: `}`, `)`, `]`, `end`.
fn closes(line: &str, d: usize) -> bool {
    let t = line.trim_start();
    at(line, d) && (t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end "))
}

/// The file lines a part replaces. Its first line begins its place (with
/// as many lines after it as make the place unique) and its last line
/// ends it: both must be lines of the file as it is (a new line at an edge
/// could be put in next to the code left out, or replace its first lines).
/// A part that shows whole definitions, its first line at the least depth,
/// ends where the file's last definition it shows ends.
fn place(
    file: &[&str],
    core: &[&str],
    from: usize,
    block_line: usize,
    marked_after: Option<usize>,
) -> Result<Range<usize>, Refusal> {
    let matches = |l: &str, at: usize| (at..file.len()).any(|p| same(file[p], l));
    // A new line at a part's edge could be put in next to the code left
    // out, or replace its first lines: two readings.
    if !matches(core[0], from) {
        return Err(Refusal::NoPlace {
            block_line,
            text: core[0].trim().to_string(),
            after: from,
        });
    }
    let begin = place_start(file, core, from, block_line)?;
    let d = depth(core[0]);
    let whole_definitions = core.iter().all(|l| l.trim().is_empty() || depth(l) >= d)
        && marked_after.is_none_or(|m| m <= d);
    let unit = if whole_definitions {
        unit_end(file, core, begin, block_line)?
    } else {
        None
    };
    let b = (0..core.len())
        .rev()
        .find(|&i| !core[i].trim().is_empty() && matches(core[i], begin))
        .unwrap_or(0);
    let anchored = if b + 1 < core.len() {
        Err(Refusal::NoPlace {
            block_line: block_line + core.len() - 1,
            text: core[core.len() - 1].trim().to_string(),
            after: begin + 1,
        })
    } else {
        place_end(file, &core[..=b], begin, block_line + b)
    };
    match (unit, anchored) {
        (Some(u), Ok(e)) if u != e => Err(Refusal::TwoEnds {
            block_line,
            first: begin + 1,
            definition: u + 1,
            anchored: e + 1,
        }),
        (Some(u), _) => Ok(begin..u + 1),
        (None, anchored) => anchored.map(|e| begin..e + 1),
    }
}

/// Whether `core` is whole definitions: every line at its first line's
/// depth heads a body of deeper lines (a `def`, `func`, `class`), closes
/// one (`}`, `end`), or is a decorator or comment right above another.
fn is_definitions(core: &[&str]) -> bool {
    let d = depth(core[0]);
    let at_depth = |l: &str| at(l, d);
    let closer = |l: &str| closes(l, d);
    let above = |l: &str| {
        let t = l.trim_start();
        t.starts_with('@') || t.starts_with('#') || t.starts_with("//")
    };
    let mut headers = 0;
    for (i, l) in core.iter().enumerate() {
        if !at_depth(l) || closer(l) {
            continue;
        }
        let next = core[i + 1..].iter().find(|n| !n.trim().is_empty());
        // A header opens its body: `def f():`, `func f() {`, `x = f(`.
        let opens = l.trim_end().ends_with([':', '{', '(', '[', '\\']);
        match next {
            Some(n) if depth(n) > d && opens => headers += 1,
            Some(n) if at_depth(n) && above(l) => {}
            _ => return false,
        }
    }
    headers > 0
}

/// Where the file's definitions that the part shows end: the part's last
/// line at its first line's depth (a header: `def`, `func`, `class`) is
/// placed after `begin`, and the file's definition there runs over deeper
/// and blank lines, and a closing line (`}`, `end`) at that depth when the
/// part ends with one. `None` when the part is not whole definitions.
fn unit_end(
    file: &[&str],
    core: &[&str],
    begin: usize,
    block_line: usize,
) -> Result<Option<usize>, Refusal> {
    if !is_definitions(core) {
        return Ok(None);
    }
    let d = depth(core[0]);
    let closed = closes(core[core.len() - 1], d);
    let h = (0..core.len())
        .rev()
        .find(|&i| at(core[i], d) && !closes(core[i], d))
        .unwrap_or(0);
    let q = if h == 0 {
        begin
    } else {
        place_start(file, &core[h..], begin + 1, block_line + h)?
    };
    let mut end = q;
    let mut i = q + 1;
    while i < file.len() && (file[i].trim().is_empty() || depth(file[i]) > d) {
        if !file[i].trim().is_empty() {
            end = i;
        }
        i += 1;
    }
    match (closed, file.get(i)) {
        (false, _) => Ok(Some(end)),
        (true, Some(l)) if closes(l, d) => Ok(Some(i)),
        (true, _) => Ok(None),
    }
}

/// Whether the block begins (or ends) as the file does: its first (last)
/// lines, blank lines aside, are the file's, for as many lines as it takes
/// to make them occur once in the file (a last `}` alone ends most
/// definitions).
fn same_edge(block: &[&str], file: &[&str], end: bool) -> bool {
    let code = |ls: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ls
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.trim_end().to_string())
            .collect();
        if end {
            v.reverse();
        }
        v
    };
    let (b, f) = (code(block), code(file));
    for k in 1..=b.len().min(f.len()) {
        if b[k - 1] != f[k - 1] {
            return false;
        }
        let run = &f[..k];
        let occurs = f.windows(k).filter(|w| *w == run).count();
        if occurs == 1 {
            return true;
        }
    }
    false
}

/// Whether every line of `file` at column 0 (not blank) is in `block`,
/// in order.
fn holds_top_level(block: &[&str], file: &[&str]) -> bool {
    let mut rest = block.iter();
    file.iter()
        .filter(|l| !l.trim().is_empty() && depth(l) == 0)
        .all(|l| rest.any(|b| same(b, l)))
}

/// Lines alike but for trailing whitespace.
fn same(a: &str, b: &str) -> bool {
    a.trim_end() == b.trim_end()
}

/// The one file line at or after `from` where the part's first lines
/// match: as few as make the place unique.
fn place_start(
    file: &[&str],
    core: &[&str],
    from: usize,
    block_line: usize,
) -> Result<usize, Refusal> {
    let candidates = (from..file.len())
        .filter(|&p| same(file[p], core[0]))
        .collect();
    let found = fewest(candidates, core.len(), |p, k| {
        p + k < file.len() && same(file[p + k], core[k])
    });
    one(found, block_line, core[0], from)
}

/// The one file line at or after `begin` where the part's last lines end:
/// as few as make it unique.
fn place_end(
    file: &[&str],
    core: &[&str],
    begin: usize,
    block_line: usize,
) -> Result<usize, Refusal> {
    let n = core.len();
    if n == 1 {
        return Ok(begin);
    }
    let candidates = (begin + 1..file.len())
        .filter(|&q| same(file[q], core[n - 1]))
        .collect();
    let found = fewest(candidates, n - 1, |q, k| {
        q > begin + k && same(file[q - k], core[n - 1 - k])
    });
    one(found, block_line, core[n - 1], begin + 1)
}

/// Narrows `candidates` by the next lines (`fits(candidate, k)` for
/// k = 1, 2, ... below `limit`) while more than one is left and some fit.
fn fewest(
    mut candidates: Vec<usize>,
    limit: usize,
    fits: impl Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let mut k = 1;
    while candidates.len() > 1 && k < limit {
        let next: Vec<usize> = candidates.iter().copied().filter(|&c| fits(c, k)).collect();
        if next.is_empty() {
            break;
        }
        candidates = next;
        k += 1;
    }
    candidates
}

/// The one place left, or the refusal: no place after `after`, or several.
fn one(
    candidates: Vec<usize>,
    block_line: usize,
    line: &str,
    after: usize,
) -> Result<usize, Refusal> {
    match candidates[..] {
        [c] => Ok(c),
        [] => Err(Refusal::NoPlace {
            block_line,
            text: line.trim().to_string(),
            after,
        }),
        _ => Err(Refusal::Places {
            block_line,
            text: line.trim().to_string(),
            lines: candidates.iter().map(|c| c + 1).collect(),
        }),
    }
}

/// Refuses a part that would remove a file line at the depth of its first
/// line or shallower without showing it.
fn unshown(file: &[&str], span: Range<usize>, core: &[&str]) -> Result<(), Refusal> {
    let depth = |l: &str| l.len() - l.trim_start().len();
    let base = depth(file[span.start]);
    let old: Vec<&str> = file[span.clone()].iter().map(|l| l.trim_end()).collect();
    let new: Vec<&str> = core.iter().map(|l| l.trim_end()).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
    for op in ops {
        if let similar::DiffOp::Delete {
            old_index, old_len, ..
        } = op
        {
            for (i, line) in old.iter().enumerate().skip(old_index).take(old_len) {
                if !line.trim().is_empty() && depth(line) <= base {
                    return Err(Refusal::Unshown {
                        file_line: span.start + i + 1,
                        text: line.trim().to_string(),
                    });
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\ndef save(path, data):\n    with open(path, 'w') as f:\n        f.write(data)\n\n\ndef main():\n    save('a', load('b'))\n";

    fn apply(file: &str, reading: Reading) -> String {
        match reading {
            Reading::Create(t) | Reading::Whole(t) => t,
            Reading::Parts(parts) => splice(file, &parts),
        }
    }

    fn result(block: &str) -> Result<String, Refusal> {
        read(Some(FILE), block, None).map(|r| apply(FILE, r))
    }

    #[test]
    fn a_new_file_is_created_unless_code_is_left_out() {
        assert_eq!(
            read(None, "x = 1\n", None),
            Ok(Reading::Create("x = 1\n".into()))
        );
        assert_eq!(
            read(None, "x = 1\n# ... rest\n", None),
            Err(Refusal::ElisionInNewFile { line: 2 })
        );
    }

    #[test]
    fn the_whole_file_replaces_it() {
        let new = FILE.replace("f.read()", "f.read().strip()");
        assert_eq!(
            read(Some(FILE), &new, None),
            Ok(Reading::Whole(new.clone()))
        );
    }

    #[test]
    fn a_whole_file_with_a_new_beginning_replaces_it() {
        let new = format!("import sys\n{FILE}");
        assert_eq!(
            read(Some(FILE), &new, None),
            Ok(Reading::Whole(new.clone()))
        );
        // Cut short at the end: the whole file, or a part? Refused.
        let short = FILE.replace(
            "\ndef main():\n    save('a', load('b'))\n",
            "\ndef main():\n",
        );
        assert!(read(Some(FILE), &short, None).is_err());
    }

    #[test]
    fn a_function_in_full_replaces_the_function() {
        let block = "def save(path, data):\n    with open(path, 'w') as f:\n        f.write(data)\n        f.flush()\n";
        let got = result(block).unwrap();
        assert_eq!(
            got,
            FILE.replace(
                "        f.write(data)\n",
                "        f.write(data)\n        f.flush()\n"
            )
        );
    }

    #[test]
    fn elided_code_is_kept() {
        let block = "import os\nimport sys\n\n\ndef load(path):\n# ... existing code ...\n\ndef main():\n    sys.exit(save('a', load('b')))\n";
        let got = result(block).unwrap();
        let want = FILE
            .replace("import os\n", "import os\nimport sys\n")
            .replace(
                "    save('a', load('b'))\n",
                "    sys.exit(save('a', load('b')))\n",
            );
        assert_eq!(got, want);
        // A new line next to the code left out: put in, or in place of the
        // first lines left out? Refused.
        let edge = "import os\nimport sys\n# ... existing code ...\n";
        assert!(matches!(
            result(edge),
            Err(Refusal::NoPlace { block_line: 2, .. })
        ));
    }

    #[test]
    fn a_part_that_fits_two_places_or_none_is_refused() {
        assert!(matches!(
            result("# ...\n    return x\n# ...\n"),
            Err(Refusal::NoPlace { .. })
        ));
        // No elision line, not the whole file, not whole definitions.
        assert!(matches!(
            result("    return x\n"),
            Err(Refusal::NotWhole { .. })
        ));
        let file = "a()\nb()\nx()\na()\nb()\n";
        let got = read(Some(file), "# ...\na()\nb()\nc()\n# ...\n", None);
        assert_eq!(
            got,
            Err(Refusal::Places {
                block_line: 2,
                text: "a()".into(),
                lines: vec![1, 4]
            })
        );
    }

    #[test]
    fn a_part_may_not_remove_a_definition_it_does_not_show() {
        // From `def load` to the `f.write(data)` of `save`: `def save` is
        // removed without being shown.
        let block = "# ...\n    with open(path) as f:\n        return f.read()\n\ndef main():\n    save('a', load('b'))\n";
        assert!(
            matches!(result(block), Err(Refusal::Unshown { file_line: 9, .. })),
            "{:?}",
            result(block)
        );
        // `def load` in full, or the lines from it to `save`'s last line:
        // two readings.
        let block = "def load(path):\n    return open(path).read()\n        f.write(data)\n";
        assert_eq!(
            result(block),
            Err(Refusal::TwoEnds {
                block_line: 1,
                first: 4,
                definition: 6,
                anchored: 11
            })
        );
    }

    #[test]
    fn lines_outside_the_parts_keep_their_bytes() {
        let file = "a()\r\nb()\nc()\r\nd()";
        let parts = vec![(1..2, "B()\n".to_string())];
        assert_eq!(splice(file, &parts), "a()\r\nB()\nc()\r\nd()");
        let parts = vec![(3..4, "D()\n".to_string())];
        assert_eq!(splice(file, &parts), "a()\r\nb()\nc()\r\nD()");
    }

    #[test]
    fn a_path_comment_stays_when_the_file_begins_with_it() {
        let file = "# app.py\nx = 1\nprint(x)\n";
        let got = read(Some(file), "x = 2\nprint(x)\n", Some("# app.py")).unwrap();
        assert_eq!(got, Reading::Whole("# app.py\nx = 2\nprint(x)\n".into()));
    }
}
