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
use crate::syntax::units::{outline, Container, Outline, Unit};
use crate::syntax::Language;

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
    /// A unit new to the file, at the edge of the block, could also be a
    /// rewrite of the file's unit next to it, which the block does not
    /// show (1-based lines).
    NewOrRewrite {
        block_line: usize,
        text: String,
        file_line: usize,
        file_text: String,
    },
    /// A unit the block shows is named twice in the file (1-based lines):
    /// a method two classes have.
    Namesakes {
        block_line: usize,
        text: String,
        lines: Vec<usize>,
    },
    /// The file has comments or decorators right above a unit (from
    /// 1-based `file_line`) that the block shows without them.
    Above {
        file_line: usize,
        text: String,
        unit: String,
    },
    /// A line the block writes without trailing blanks is on several
    /// lines of the file, written with and without them (1-based).
    Whitespace {
        text: String,
        lines: Vec<usize>,
        shown: usize,
    },
    /// The block shows units in another order than the file has them
    /// (1-based): moved, or each put in its place.
    Order {
        block_line: usize,
        text: String,
        file_line: usize,
        before: usize,
    },
    /// A part that shows whole definitions ends where the file's end, and
    /// its last line matches a line elsewhere (1-based file lines).
    TwoEnds {
        block_line: usize,
        first: usize,
        definition: usize,
        anchored: usize,
    },
}

/// Files larger than this are not outlined (a parse of 1 MB takes about
/// 0.1 s, and a response may hold a block per function): the line rules
/// read their blocks.
const OUTLINE_MAX_BYTES: usize = 1 << 20;

/// File lines (0-based) and the text put in their place.
type Spliced = (Range<usize>, String);

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
    language: Option<Language>,
) -> Result<Reading, Refusal> {
    let reading = reading(file, content, path_line, language)?;
    let Some(file) = file else {
        return Ok(reading);
    };
    let lines: Vec<&str> = file.lines().collect();
    Ok(match reading {
        Reading::Whole(text) => Reading::Whole(keep_bytes(&lines, &text, 0)?),
        Reading::Parts(parts) => Reading::Parts(
            parts
                .into_iter()
                .map(|(span, text)| {
                    let text = keep_bytes(&lines[span.clone()], &text, span.start)?;
                    Ok((span, text))
                })
                .collect::<Result<_, Refusal>>()?,
        ),
        created => created,
    })
}

/// `text` with each line that is a line of `old` but for trailing blanks
/// written as the file has it: a block that drops the file's trailing
/// whitespace changes only the lines it changes. A line the block writes
/// with trailing blanks of its own is written as the block has it.
///
/// The block's lines are lined up with the file's by a diff. Where the
/// file writes a line's text with trailing blanks and the block shows it
/// bare, the bytes are determined when the text is once in each (the
/// line, kept or moved), or as many times in each and the diff lines up
/// every copy (in order: one way only); else (a copy added or removed:
/// which is the new one?) refused. `first` is the
/// span's first file line, for the refusal.
fn keep_bytes(old: &[&str], text: &str, first: usize) -> Result<String, Refusal> {
    let new: Vec<&str> = text.lines().collect();
    let a: Vec<&str> = old.iter().map(|l| l.trim_end()).collect();
    let b: Vec<&str> = new.iter().map(|l| l.trim_end()).collect();
    let bare = |n: usize| new[n] == b[n];
    let mut out: Vec<&str> = new.clone();
    // Old and new lines the diff lines up.
    let mut matched_old = vec![false; old.len()];
    let mut matched_new = vec![false; new.len()];
    for op in diff_lines(&a, &b) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                matched_old[old_index + k] = true;
                matched_new[new_index + k] = true;
                if bare(new_index + k) {
                    out[new_index + k] = old[old_index + k];
                }
            }
        }
    }
    // Where each text is: the file's lines, and the block's bare ones.
    let mut lines_of: std::collections::HashMap<&str, (Vec<usize>, Vec<usize>)> =
        Default::default();
    for (m, t) in b.iter().enumerate() {
        if bare(m) && !t.is_empty() {
            lines_of.entry(t).or_default().1.push(m);
        }
    }
    for (o, t) in a.iter().enumerate() {
        if let Some(at) = lines_of.get_mut(t) {
            at.0.push(o);
        }
    }
    // In the block's order, so a refusal names the first such line.
    let mut texts: Vec<_> = lines_of.iter().collect();
    texts.sort_unstable_by_key(|(_, at)| at.1[0]);
    for (&t, (in_old, in_new)) in texts {
        if in_old.is_empty() || in_old.iter().all(|&o| old[o] == a[o]) {
            // The file writes it bare too.
            continue;
        }
        if let ([o], [m]) = (&in_old[..], &in_new[..]) {
            // Once in each: the same line, kept or moved.
            out[*m] = old[*o];
            continue;
        }
        let determined = in_old.len() == in_new.len()
            && in_old.iter().all(|&o| matched_old[o])
            && in_new.iter().all(|&m| matched_new[m]);
        if !determined {
            return Err(Refusal::Whitespace {
                text: t.trim().to_string(),
                lines: in_old.iter().map(|o| first + o + 1).collect(),
                shown: in_new.len(),
            });
        }
    }
    let mut text_out = with_breaks(out);
    if !text.ends_with('\n') && text_out.ends_with('\n') {
        text_out.pop();
    }
    Ok(text_out)
}

fn reading(
    file: Option<&str>,
    content: &str,
    path_line: Option<&str>,
    language: Option<Language>,
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
    // only when it is units of the file (read by its grammar) or, by the
    // line rules, whole definitions; otherwise it reads two ways (the
    // whole new file, or a part with the rest kept).
    if !marked {
        if let Some(language) = language {
            if let Some(read) = by_units(language, file, &file_lines, &lines) {
                return read.map(Reading::Parts);
            }
        }
        let definitions = code_edges(&lines).is_some_and(|(lead, trail)| {
            let core = &lines[lead..=trail];
            let d = depth(core[0]);
            core.iter().all(|l| l.trim().is_empty() || depth(l) >= d) && is_definitions(core)
        });
        if !definitions {
            return Err(not_whole(&file_lines));
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
    // A block that opens a definition and leaves part of its body out
    // (`def load(path):` then `    # ...`) is that definition: its parts
    // are placed inside it, and a last part with no elision line below
    // ends where the definition ends.
    let scope = match parts.first() {
        Some(&(first_line, part, None, Some(m))) => {
            opened(&file_lines, part, m, first_line)?.map(|(begin, head, end)| {
                // The definition's end as its grammar reads it (a string
                // in its body may have lines at any depth).
                let parsed = language
                    .filter(|_| file.len() <= OUTLINE_MAX_BYTES)
                    .and_then(|l| outline(l, file))
                    .and_then(|o| {
                        o.containers
                            .iter()
                            .flat_map(|c| c.units.iter())
                            .find(|u| u.head == head)
                            .map(|u| u.end)
                    });
                begin..parsed.unwrap_or(end)
            })
        }
        _ => None,
    };
    // Every part after the first is inside the definition: deeper than
    // its header, but for a closing line (`}`) that ends the block.
    let scope = scope.filter(|_| {
        let d = parts[0]
            .1
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| depth(l));
        let rest: Vec<&str> = parts[1..]
            .iter()
            .flat_map(|p| p.1.iter().copied())
            .collect();
        let last = rest.iter().rposition(|l| !l.trim().is_empty());
        rest.iter()
            .enumerate()
            .all(|(i, l)| l.trim().is_empty() || depth(l) > d || Some(i) == last && closes(l, d))
    });
    let within = scope.clone().map_or(file_lines.len(), |r| r.end);
    let (first_code, last_code) = code_edges(&file_lines).unwrap_or((0, 0));
    let mut cursor = scope.as_ref().map_or(0, |r| r.start);
    let mut out = Vec::new();
    let count = parts.len();
    for (index, (first_line, part, marked_before, marked_after)) in parts.into_iter().enumerate() {
        // Blank lines at a part's edges belong to the code left out.
        let Some((lead, trail)) = code_edges(part) else {
            continue;
        };
        let core = &part[lead..=trail];
        let block_line = first_line + lead + 1;
        let bottom = index + 1 == count && marked_after.is_none();
        let span = match &scope {
            // The last part of a definition runs to its end: its last
            // lines may be new.
            Some(scope) if bottom => {
                place_start(&file_lines[..within], core, cursor, block_line)?..scope.end
            }
            _ => place(
                &file_lines[..within],
                core,
                cursor,
                block_line,
                marked_after,
            )?,
        };
        // A block's first part with no elision line above it begins at the
        // file's first line, and its last with none below ends at the
        // file's last, unless they are whole definitions: else the code
        // beyond could be kept or gone. In a definition, they begin and
        // end where it does (placed so above).
        let top = index == 0 && marked_before.is_none();
        if scope.is_none()
            && (top && span.start != first_code || bottom && span.end != last_code + 1)
            && !is_definitions(core)
        {
            return Err(not_whole(&file_lines));
        }
        unshown(&file_lines, span.clone(), core)?;
        cursor = span.end;
        out.push((span, with_breaks(core.iter().copied())));
    }
    Ok(Reading::Parts(out))
}

/// A block with no elision line read by its units (tree-sitter): each
/// definition or statement it shows replaces the file's unit of the same
/// kind and name (`def load`, `func (*Router) Get`; an import by its
/// text), found among the file's top level or a class's members;
/// units new to the file go where the block puts them, between the units
/// around them. `None` when the block or the file has syntax errors, or
/// none of its units is one of the file's (the line rules apply).
///
/// One reading or none: a name the file has twice, units in another
/// order, a unit of the file between the first and last shown that the
/// block leaves out, comments or decorators above a unit, or members of a
/// class, that the block does not show, and a block that could be the
/// whole file (it holds half the file's lines and half its top-level
/// units)
/// are refused.
fn by_units(
    language: Language,
    file: &str,
    file_lines: &[&str],
    lines: &[&str],
) -> Option<Result<Vec<Spliced>, Refusal>> {
    let (lead, trail) = code_edges(lines)?;
    let core = &lines[lead..=trail];
    let base = indent(core[0]);
    if !core
        .iter()
        .all(|l| l.trim().is_empty() || l.starts_with(base))
    {
        return None;
    }
    let dedented: Vec<&str> = core
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                &l[base.len()..]
            }
        })
        .collect();
    let block = outline(language, &with_breaks(dedented.iter().copied()))?;
    if file.len() > OUTLINE_MAX_BYTES {
        return None;
    }
    let theirs = outline(language, file)?;
    let units = &block.containers[0].units;
    // The container (top level, or a class) that holds the most of the
    // block's units, each once.
    let score = |c: &Container| {
        units
            .iter()
            .filter(|u| c.units.iter().filter(|f| f.key == u.key).count() == 1)
            .count()
    };
    let best = theirs.containers.iter().map(score).max().unwrap_or(0);
    // None of its units is the file's: the line rules may place it by
    // its lines; if not, their refusal says why.
    if best == 0 {
        return None;
    }
    let holders: Vec<usize> = (0..theirs.containers.len())
        .filter(|&c| score(&theirs.containers[c]) == best)
        .collect();
    let block_line = |u: &Unit| lead + u.head + 1;
    let head_text = |u: &Unit| dedented[u.head].trim().to_string();
    if holders.len() > 1 {
        // The first unit found in them, and where.
        let (u, mut places) = units.iter().find_map(|u| {
            let places: Vec<usize> = holders
                .iter()
                .flat_map(|&c| theirs.containers[c].units.iter())
                .filter(|f| f.key == u.key)
                .map(|f| f.head + 1)
                .collect();
            (!places.is_empty()).then_some((u, places))
        })?;
        places.sort_unstable();
        return Some(Err(Refusal::Namesakes {
            block_line: block_line(u),
            text: head_text(u),
            lines: places,
        }));
    }
    let container = &theirs.containers[holders[0]];
    // Each block unit's place among the container's units (`None`: new).
    let mut placed: Vec<Option<usize>> = Vec::with_capacity(units.len());
    for u in units {
        let at: Vec<usize> = (0..container.units.len())
            .filter(|&i| container.units[i].key == u.key)
            .collect();
        match at[..] {
            [] => placed.push(None),
            [i] => placed.push(Some(i)),
            _ => {
                return Some(Err(Refusal::Namesakes {
                    block_line: block_line(u),
                    text: head_text(u),
                    lines: at.iter().map(|&i| container.units[i].head + 1).collect(),
                }))
            }
        }
    }
    let mut last: Option<(usize, usize)> = None;
    for (b, p) in placed.iter().enumerate() {
        let Some(p) = *p else { continue };
        if let Some((_, lp)) = last {
            if p < lp {
                return Some(Err(Refusal::Order {
                    block_line: block_line(&units[b]),
                    text: head_text(&units[b]),
                    file_line: container.units[p].head + 1,
                    before: container.units[lp].head + 1,
                }));
            }
        }
        last = Some((b, p));
    }
    let first = placed.iter().flatten().next().copied()?;
    let (_, end) = last?;
    // Every unit of the file between the first and last shown is shown,
    // or rewritten: the one unit the block leaves out between two units
    // it shows, where the block has one new unit like it (a changed
    // import, a renamed function). Or the block changes nothing else: its
    // units are the file's as they are, so what it says is that the units
    // it leaves out between them are gone.
    let same_text = |u: &Unit, f: &Unit| {
        let ours = dedented[u.lines()].iter().map(|l| l.trim());
        let theirs = file_lines[f.lines()].iter().map(|l| l.trim());
        ours.eq(theirs)
    };
    let only_removes = placed
        .iter()
        .zip(units)
        .all(|(p, u)| p.is_some_and(|p| same_text(u, &container.units[p])));
    let mut is_shown = vec![false; container.units.len()];
    for &p in placed.iter().flatten() {
        is_shown[p] = true;
    }
    for p in first..=end {
        if only_removes {
            break;
        }
        let f = &container.units[p];
        // A short statement between two shown units is removed.
        if is_shown[p] || !leaves_out(&file_lines[f.lines()], indent(file_lines[f.head]).len()) {
            continue;
        }
        // The block's units around it (`before..after`: those between the
        // shown ones), and the file's units it leaves out between them.
        let gap = |at: &Option<usize>| at.is_some_and(|i| i > p);
        let after = placed.iter().position(gap).unwrap_or(placed.len());
        let before = placed[..after]
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |i| i + 1);
        let lo = placed[..after]
            .iter()
            .flatten()
            .max()
            .map_or(first, |&i| i + 1);
        let hi = placed[after..]
            .iter()
            .flatten()
            .min()
            .map_or(end + 1, |&i| i);
        let gone = (lo..hi).filter(|&q| !is_shown[q]).count();
        let rewrite = after - before == 1
            && gone == 1
            && alike(
                &dedented[units[before].lines()].join("\n"),
                &file_lines[f.lines()].join("\n"),
            );
        if !rewrite {
            return Some(Err(Refusal::Unshown {
                file_line: f.head + 1,
                text: file_lines[f.head].trim().to_string(),
            }));
        }
    }
    let first_shown = placed.iter().position(Option::is_some)?;
    let last_shown = placed.iter().rposition(Option::is_some)?;
    for (b, p) in placed.iter().enumerate() {
        let Some(p) = *p else { continue };
        if let Err(e) = accounted(&block, &units[b], &theirs, &container.units[p], file_lines) {
            return Some(Err(e));
        }
    }
    let top_level = holders[0] == 0;
    let to_end = end + 1 == container.units.len();
    // A new beginning: the block runs to the file's end, holds every unit
    // from its first shown one, and what it puts before them is like what
    // the file has there (a header, a docstring rewritten): the whole new
    // file.
    if top_level && to_end && first > 0 && first_shown > 0 && base.is_empty() {
        let ours = dedented[..units[first_shown].start].join("\n");
        let theirs_text = file_lines[..container.units[first].start].join("\n");
        if alike(&ours, &theirs_text) {
            let text = with_breaks(dedented.iter().copied());
            return Some(Ok(vec![(0..file_lines.len(), text)]));
        }
    }
    // A new unit before the first unit shown, or after the last, is put
    // in next to it, unless it could be a rewrite of the file's unit on
    // that side, which the block does not show (a changed docstring, a
    // renamed function): two readings. Only a definition with a new name
    // and a body unlike its neighbour's, after a unit the block shows, is
    // plainly new; it goes right after that unit.
    let edges = [
        (0..first_shown, first.checked_sub(1), true),
        (last_shown + 1..units.len(), Some(end + 1), false),
    ];
    for (new, neighbour, leading) in edges {
        let Some(f) = neighbour.and_then(|i| container.units.get(i)) else {
            continue;
        };
        let theirs_text = file_lines[f.lines()].join("\n");
        for u in &units[new] {
            let ours = dedented[u.lines()].join("\n");
            // A statement or comment has no name to tell it new, and code
            // before the first unit shown has no unit before it in the
            // block to follow.
            if leading || u.key.starts_with("text ") || alike(&ours, &theirs_text) {
                return Some(Err(Refusal::NewOrRewrite {
                    block_line: block_line(u),
                    text: head_text(u),
                    file_line: f.head + 1,
                    file_text: file_lines[f.head].trim().to_string(),
                }));
            }
        }
    }
    // A block that holds half the file's lines and half its top-level
    // units, but not all of them, could be the whole new file with the
    // rest cut (a class that is most of the file, or the imports at its
    // top, are parts).
    let code = |ls: &[&str]| ls.iter().filter(|l| !l.trim().is_empty()).count();
    let from_start = first == 0;
    let shown = placed.iter().flatten().count();
    if top_level
        && !(from_start && to_end)
        && code(core) * 2 >= code(file_lines)
        && shown * 2 >= container.units.len()
    {
        return Some(Err(not_whole(file_lines)));
    }
    let mut span = container.units[first].start..container.units[end].end;
    // New code before the file's first unit (after its last) takes the
    // blank lines there too: the block shows where the file begins (ends).
    if top_level && first == 0 && first_shown > 0 {
        span.start = 0;
    }
    if top_level && to_end && last_shown + 1 < units.len() {
        span.end = file_lines.len();
    }
    // The block's code at the depth of the file's units.
    let depth = indent(file_lines[container.units[first].head]);
    let mut text = String::new();
    for l in &dedented {
        if !l.is_empty() {
            text.push_str(depth);
            text.push_str(l);
        }
        text.push('\n');
    }
    Some(Ok(vec![(span, text)]))
}

/// Refuses a block unit that leaves out what its file unit has: the
/// comments and decorators right above it, or members of a class.
fn accounted(
    block: &Outline,
    b: &Unit,
    file: &Outline,
    f: &Unit,
    file_lines: &[&str],
) -> Result<(), Refusal> {
    if f.start < f.head && b.start == b.head {
        return Err(Refusal::Above {
            file_line: f.start + 1,
            text: file_lines[f.start].trim().to_string(),
            unit: file_lines[f.head].trim().to_string(),
        });
    }
    let (Some(fc), Some(bc)) = (f.members, b.members) else {
        return Ok(());
    };
    let shown = &block.containers[bc].units;
    for m in &file.containers[fc].units {
        match shown.iter().find(|s| s.key == m.key) {
            None => {
                return Err(Refusal::Unshown {
                    file_line: m.head + 1,
                    text: file_lines[m.head].trim().to_string(),
                })
            }
            Some(s) => accounted(block, s, file, m, file_lines)?,
        }
    }
    Ok(())
}

/// Whether two units' texts are alike enough for one to be a rewrite of
/// the other: a third of their lines (blanks aside, trimmed) in common.
fn alike(a: &str, b: &str) -> bool {
    let (x, y): (Vec<&str>, Vec<&str>) = (
        a.lines().map(str::trim).filter(|l| !l.is_empty()).collect(),
        b.lines().map(str::trim).filter(|l| !l.is_empty()).collect(),
    );
    let common: usize = diff_lines(&x, &y)
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    common > 0 && common * 3 >= x.len().max(y.len())
}

/// The diff of two line lists, bounded in time: past the deadline it is
/// coarser (fewer lines lined up), never wrong.
fn diff_lines(old: &[&str], new: &[&str]) -> Vec<similar::DiffOp> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    similar::capture_diff_slices_deadline(similar::Algorithm::Myers, old, new, Some(deadline))
}

/// The first and last lines (0-based) that are not blank.
fn code_edges(lines: &[&str]) -> Option<(usize, usize)> {
    let lead = lines.iter().position(|l| !l.trim().is_empty())?;
    let trail = lines.iter().rposition(|l| !l.trim().is_empty())?;
    Some((lead, trail))
}

/// Lines joined, each with its line break.
fn with_breaks<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text
}

/// The refusal of a block that reads two ways (the whole new file, or a
/// part with the rest kept), naming the file's first and last lines.
fn not_whole(file_lines: &[&str]) -> Refusal {
    let edge = |l: Option<&&str>| l.map_or(String::new(), |l| l.trim_end().to_string());
    Refusal::NotWhole {
        first: edge(file_lines.iter().find(|l| !l.trim().is_empty())),
        last: edge(file_lines.iter().rfind(|l| !l.trim().is_empty())),
    }
}

/// A line's leading blanks.
fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The file lines of the definition a block's first part opens (its
/// first line, header line, and one past its last line), when
/// the part is a definition's header (comments and decorators above it,
/// the line that opens its body) and body lines, and the elision line
/// after it (`marker` its depth) is in the body. The header is placed by
/// its lines; the definition runs over deeper and blank lines, a line
/// that closes its signature and opens its body (`) -> int:`, `) error {`),
/// and its closing line (`}`, `end`).
fn opened(
    file: &[&str],
    part: &[&str],
    marker: usize,
    first_line: usize,
) -> Result<Option<(usize, usize, usize)>, Refusal> {
    let Some((lead, trail)) = code_edges(part) else {
        return Ok(None);
    };
    let core = &part[lead..=trail];
    let d = depth(core[0]);
    let opens = |l: &str| l.trim_end().ends_with([':', '{']);
    let above = |l: &str| {
        let t = l.trim_start();
        t.starts_with('@') || t.starts_with('#') || t.starts_with("//")
    };
    // The definition's own line (after comments and decorators), and the
    // line that opens its body (a signature may run over lines).
    let Some(k) = core.iter().position(|l| at(l, d) && !above(l)) else {
        return Ok(None);
    };
    let Some(h) = (k..core.len()).find(|&i| opens(core[i])) else {
        return Ok(None);
    };
    let header_ok = core[..k]
        .iter()
        .all(|l| l.trim().is_empty() || at(l, d) && above(l))
        && core[k + 1..=h]
            .iter()
            .all(|l| l.trim().is_empty() || depth(l) >= d);
    let body_ok = core[h + 1..]
        .iter()
        .all(|l| l.trim().is_empty() || depth(l) > d);
    if marker <= d || !header_ok || !body_ok {
        return Ok(None);
    }
    let begin = place_start(file, core, 0, first_line + lead + 1)?;
    let head = begin + k;
    if begin + h >= file.len() || !same(file[begin + h], core[h]) {
        return Ok(None);
    }
    let mut end = begin + h + 1;
    while end < file.len() {
        let l = file[end];
        let inside = l.trim().is_empty() || depth(l) > d;
        if inside || closes(l, d) && opens(l) && end == begin + h + 1 {
            end += 1;
        } else {
            if closes(l, d) {
                end += 1;
            }
            break;
        }
    }
    // Trailing blank lines are the code after it.
    while end > begin + h + 1 && file[end - 1].trim().is_empty() {
        end -= 1;
    }
    Ok(Some((begin, head, end)))
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
    let ops = diff_lines(&old, &new);
    for op in ops {
        if let similar::DiffOp::Delete {
            old_index, old_len, ..
        } = op
        {
            let gone = &old[old_index..old_index + old_len];
            if !leaves_out(gone, base) {
                continue;
            }
            let i = (0..old_len)
                .find(|&i| !gone[i].trim().is_empty() && depth(gone[i]) <= base)
                .unwrap_or(0);
            return Err(Refusal::Unshown {
                file_line: span.start + old_index + i + 1,
                text: gone[i].trim().to_string(),
            });
        }
    }
    Ok(())
}

/// Whether lines a part removes (its neighbours shown side by side) are
/// code it leaves out rather than removes: a definition (`def`, `class`,
/// `func`, a decorator) at the part's depth or shallower, or more than
/// three lines of code. A few statements between two shown lines are
/// removed, as a diff removes them.
fn leaves_out(gone: &[&str], base: usize) -> bool {
    const HEADS: [&str; 16] = [
        "def ",
        "async def ",
        "class ",
        "func ",
        "fn ",
        "pub ",
        "function ",
        "impl ",
        "struct ",
        "enum ",
        "trait ",
        "interface ",
        "type ",
        "module ",
        "@",
        "export ",
    ];
    let depth = |l: &str| l.len() - l.trim_start().len();
    let code: Vec<&&str> = gone.iter().filter(|l| !l.trim().is_empty()).collect();
    code.len() > 3
        || code
            .iter()
            .any(|l| depth(l) <= base && HEADS.iter().any(|h| l.trim_start().starts_with(h)))
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
        read(Some(FILE), block, None, None).map(|r| apply(FILE, r))
    }

    #[test]
    fn a_new_file_is_created_unless_code_is_left_out() {
        assert_eq!(
            read(None, "x = 1\n", None, None),
            Ok(Reading::Create("x = 1\n".into()))
        );
        assert_eq!(
            read(None, "x = 1\n# ... rest\n", None, None),
            Err(Refusal::ElisionInNewFile { line: 2 })
        );
    }

    #[test]
    fn the_whole_file_replaces_it() {
        let new = FILE.replace("f.read()", "f.read().strip()");
        assert_eq!(
            read(Some(FILE), &new, None, None),
            Ok(Reading::Whole(new.clone()))
        );
    }

    #[test]
    fn a_whole_file_with_a_new_beginning_replaces_it() {
        let new = format!("import sys\n{FILE}");
        assert_eq!(
            read(Some(FILE), &new, None, None),
            Ok(Reading::Whole(new.clone()))
        );
        // Cut short at the end: the whole file, or a part? Refused.
        let short = FILE.replace(
            "\ndef main():\n    save('a', load('b'))\n",
            "\ndef main():\n",
        );
        assert!(read(Some(FILE), &short, None, None).is_err());
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
        let got = read(Some(file), "# ...\na()\nb()\nc()\n# ...\n", None, None);
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
        let got = read(Some(file), "x = 2\nprint(x)\n", Some("# app.py"), None).unwrap();
        assert_eq!(got, Reading::Whole("# app.py\nx = 2\nprint(x)\n".into()));
    }

    fn py(file: &str, block: &str) -> Result<String, Refusal> {
        read(Some(file), block, None, Some(Language::Python)).map(|r| apply(file, r))
    }

    #[test]
    fn units_replace_their_namesakes_and_new_ones_follow_their_sibling() {
        let file = "import os\n\n\nclass A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
        // A method at column 0, its signature changed: reindented in place.
        let got = py(file, "def f(self, x):\n    return x\n").unwrap();
        assert_eq!(
            got,
            file.replace(
                "    def f(self):\n        return 1",
                "    def f(self, x):\n        return x"
            )
        );
        // A new method after the one shown goes right after it.
        let got = py(
            file,
            "    def g(self):\n        return 2\n\n    def h(self):\n        return 3\n",
        )
        .unwrap();
        assert!(
            got.ends_with("        return 2\n\n    def h(self):\n        return 3\n"),
            "{got}"
        );
        // A new method before the first one shown: new, or a rename of
        // the method above it? Refused; first in its class, it is new.
        assert!(matches!(
            py(
                file,
                "    def e(self):\n        return 0\n\n    def g(self):\n        return 2\n"
            ),
            Err(Refusal::NewOrRewrite { file_line: 5, .. })
        ));
        let got = py(
            file,
            "    def e(self):\n        return 0\n\n    def f(self):\n        return 1\n",
        )
        .unwrap();
        assert!(
            got.contains("class A:\n    def e(self):\n        return 0\n\n    def f(self):"),
            "{got}"
        );
    }

    #[test]
    fn units_out_of_order_or_left_out_are_refused() {
        let file = "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n\n\nX = 1\n";
        assert!(matches!(
            py(file, "def c():\n    pass\n\n\ndef a():\n    return 1\n"),
            Err(Refusal::Order { .. })
        ));
        assert_eq!(
            py(file, "def a():\n    return 1\n\n\ndef c():\n    pass\n"),
            Err(Refusal::Unshown {
                file_line: 8,
                text: "def b():".into()
            })
        );
    }

    #[test]
    fn trailing_whitespace_the_block_drops_is_kept_or_refused_when_unsure() {
        let file = "a = 1  \nb = 2\n";
        assert_eq!(
            keep_bytes(&["a = 1  ", "b = 2"], "a = 1\nb = 3\n", 0).unwrap(),
            "a = 1  \nb = 3\n"
        );
        // The block writes `x` twice, the file once with a trailing blank:
        // which copy is the file's line is not determined.
        assert!(matches!(
            keep_bytes(&["x ", "y"], "x\nx\ny\n", 0),
            Err(Refusal::Whitespace { shown: 2, .. })
        ));
        let _ = file;
    }

    #[test]
    fn a_block_that_opens_a_definition_stays_inside_it() {
        let file = "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n";
        // The part after `# ...` matches in f and in g; the block opened g.
        let got = read(
            Some(file),
            "def g():\n    # ...\n    x = 1\n    return x + 1\n",
            None,
            None,
        )
        .map(|r| apply(file, r))
        .unwrap();
        assert_eq!(
            got,
            "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x + 1\n"
        );
    }
}
