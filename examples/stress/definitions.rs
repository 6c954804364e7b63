//! The definitions a chat model shows when it changes code: for each
//! change of the file after, the innermost function, method, class or
//! declaration that holds it (a method alone, at its own indentation, not
//! its class), with the comments right above it; a change outside every
//! definition shows the top-level statements it touches.
//!
//! Read with tree-sitter directly, not through the engine's own outline:
//! the renderer should not share the reader's idea of a unit.

use tree_sitter::{Node, Parser};

use crate::draft::{Draft, Seg};

/// Kinds a model shows in full.
fn is_definition(lang: &str, kind: &str) -> bool {
    match lang {
        "go" => matches!(
            kind,
            "function_declaration"
                | "method_declaration"
                | "type_declaration"
                | "const_declaration"
                | "var_declaration"
                | "import_declaration"
        ),
        _ => matches!(
            kind,
            "function_definition" | "class_definition" | "decorated_definition"
        ),
    }
}

/// The changed definitions of the file after, as line spans `[s, e)`,
/// in order and apart; `None` when a file does not parse cleanly or a
/// change cannot be shown by whole definitions (a removal at the file's
/// start or end).
///
/// A change shows the innermost definition holding its new lines when
/// its old lines lie in a definition of the same kind and name in the
/// file before (the function was changed). Otherwise (a definition
/// replaced by another, one removed next to the change) it shows the code
/// on both sides, as a removal does: a block says code went away only by
/// showing what was around it.
pub fn spans(d: &Draft) -> Option<Vec<(usize, usize)>> {
    let language: tree_sitter::Language = match d.lang.as_str() {
        "go" => tree_sitter_go::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        _ => return None,
    };
    let mut parser = Parser::new();
    parser.set_language(&language).ok()?;
    let after_text = d.after.join("\n") + "\n";
    let before_text = d.before.join("\n") + "\n";
    let after_tree = parser.parse(&after_text, None)?;
    let before_tree = parser.parse(&before_text, None)?;
    let (root, before_root) = (after_tree.root_node(), before_tree.root_node());
    if root.has_error() || before_root.has_error() {
        return None;
    }
    let code = |i: &usize| !d.after[*i].trim().is_empty();
    let around = |a0: usize, a1: usize| -> Option<(usize, usize)> {
        Some(((0..a0).rev().find(code)?, (a1..d.after.len()).find(code)?))
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for h in &d.hunks {
        let (mut at, mut bt) = (h.after_start, h.before_start);
        for seg in &h.segs {
            let (old, new) = match seg {
                Seg::Ctx { .. } => {
                    at += 1;
                    bt += 1;
                    continue;
                }
                Seg::Chg { old, new } => (old.len(), new.len()),
            };
            let (lo, hi) = if new == 0 {
                around(at, at)?
            } else {
                let inside = innermost(root, &d.lang, at, at + new - 1);
                // Code put in inside a definition shows that definition;
                // whole definitions or statements put in show the code
                // around them (where they go).
                let same = old == 0 && inside.is_some()
                    || inside.is_some_and(|a| {
                        innermost(before_root, &d.lang, bt, bt + old - 1)
                            .is_some_and(|b| name(a, &after_text) == name(b, &before_text))
                    });
                if same {
                    (at, at + new - 1)
                } else {
                    around(at, at + new)?
                }
            };
            let (s, e) = innermost(root, &d.lang, lo, hi)
                .map(rows)
                .or_else(|| statements(root, lo, hi))?;
            spans.push((with_comments_above(&d.after, s, &d.lang), e));
            at += new;
            bt += old;
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    covers(d, &merged).then_some(merged)
}

/// Whether the spans hold every change: the file before, with the lines
/// between the unchanged lines around each span replaced by the span, is
/// the file after. (A blank line put in next to a definition, outside it,
/// is a change no block of definitions shows.)
fn covers(d: &Draft, spans: &[(usize, usize)]) -> bool {
    // The before line of each unchanged after line.
    let mut before_of: Vec<Option<usize>> = vec![None; d.after.len()];
    let (mut a, mut b) = (0, 0);
    for h in &d.hunks {
        while a < h.after_start {
            before_of[a] = Some(b);
            a += 1;
            b += 1;
        }
        for seg in &h.segs {
            match seg {
                Seg::Ctx { .. } => {
                    before_of[a] = Some(b);
                    a += 1;
                    b += 1;
                }
                Seg::Chg { old, new } => {
                    a += new.len();
                    b += old.len();
                }
            }
        }
    }
    while a < d.after.len() {
        before_of[a] = Some(b);
        a += 1;
        b += 1;
    }
    let mut out: Vec<&str> = Vec::new();
    let mut from = 0;
    for &(s, e) in spans {
        let start = (0..s)
            .rev()
            .find_map(|i| before_of[i].map(|x| x + 1))
            .unwrap_or(0);
        let end = (e..d.after.len())
            .find_map(|i| before_of[i])
            .unwrap_or(d.before.len());
        if start < from || end < start {
            return false;
        }
        out.extend(d.before[from..start].iter().map(String::as_str));
        out.extend(d.after[s..e].iter().map(String::as_str));
        from = end;
    }
    out.extend(d.before[from..].iter().map(String::as_str));
    out.len() == d.after.len() && out.iter().zip(&d.after).all(|(x, y)| x == y)
}

/// A definition's kind and name (a Go method's receiver type too).
fn name(n: Node, src: &str) -> String {
    let text = |f: &str| {
        n.child_by_field_name(f)
            .map_or("", |c| &src[c.byte_range()])
            .to_string()
    };
    let inner = n.child_by_field_name("definition").unwrap_or(n);
    if inner != n {
        return name(inner, src);
    }
    format!("{} {} {}", n.kind(), text("receiver"), text("name"))
}

/// The first row of a node and one past its last.
fn rows(n: Node) -> (usize, usize) {
    let (s, e) = (n.start_position(), n.end_position());
    let last = if e.column == 0 && e.row > s.row {
        e.row - 1
    } else {
        e.row
    };
    (s.row, last + 1)
}

/// The innermost definition holding rows `lo..=hi`.
fn innermost<'t>(node: Node<'t>, lang: &str, lo: usize, hi: usize) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    for child in children {
        let (s, e) = rows(child);
        if s <= lo && hi < e {
            // A function is shown whole, nested functions and all; a
            // class's method alone.
            let kind = child.kind();
            let opens = kind.contains("class")
                || kind == "block"
                || kind == "decorated_definition"
                    && child
                        .child_by_field_name("definition")
                        .is_some_and(|d| d.kind() == "class_definition");
            let deeper = if opens {
                innermost(child, lang, lo, hi)
            } else {
                None
            };
            // A decorated definition is shown with its decorators.
            let here = is_definition(lang, child.kind()).then_some(child);
            return match (deeper, here) {
                (Some(d), Some(h))
                    if h.kind() == "decorated_definition" && d.parent() == Some(h) =>
                {
                    Some(h)
                }
                (Some(d), _) => Some(d),
                (None, h) => h,
            };
        }
    }
    None
}

/// The top-level statements rows `lo..=hi` touch, as one span.
fn statements(root: Node, lo: usize, hi: usize) -> Option<(usize, usize)> {
    let mut cursor = root.walk();
    let touched: Vec<(usize, usize)> = root
        .named_children(&mut cursor)
        .map(rows)
        .filter(|&(s, e)| s <= hi && lo < e)
        .collect();
    Some((touched.first()?.0, touched.last()?.1))
}

/// `s` moved up over the comment lines right above it.
fn with_comments_above(after: &[String], mut s: usize, lang: &str) -> usize {
    let comment = if lang == "go" { "//" } else { "#" };
    while s > 0 && after[s - 1].trim_start().starts_with(comment) {
        s -= 1;
    }
    s
}

/// The rows of each string literal of the file after that spans lines
/// (a docstring, a template): a block leaves such a string out whole or
/// shows it whole, never an elision line inside it.
pub fn multiline_strings(d: &Draft) -> Vec<(usize, usize)> {
    let language: tree_sitter::Language = match d.lang.as_str() {
        "go" => tree_sitter_go::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        _ => return Vec::new(),
    };
    let mut parser = Parser::new();
    if parser.set_language(&language).is_err() {
        return Vec::new();
    }
    let text = d.after.join("\n") + "\n";
    let Some(tree) = parser.parse(&text, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let (s, e) = (n.start_position().row, n.end_position().row);
        if n.kind().contains("string") && e > s {
            out.push((s, e));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    out
}
