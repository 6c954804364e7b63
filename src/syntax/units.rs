//! The units of a text (tree-sitter): its top-level definitions and
//! statements, and those of the classes, impls and modules in it, each
//! with the lines it spans and a key that names it the same way when its
//! body or signature changes (`def load`, `method_declaration *Router.Get`,
//! `import_from_statement .config`).
//!
//! The code-block reader asks it which of a file's units a chat block
//! shows: a function in full replaces the function of that name.

use std::ops::Range;

use tree_sitter::Node;

use super::{parse, Language};

/// A unit: a definition or statement with the comments, attributes and
/// decorators right above it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Its first line (0-based): the first comment, attribute or
    /// decorator right above it, else `head`.
    pub start: usize,
    /// The line of the definition or statement itself.
    pub head: usize,
    /// One past its last line.
    pub end: usize,
    /// What names it: its kind and name, or its text when it has no name.
    pub key: String,
    /// The container of its members (a class's methods), if it has one.
    pub members: Option<usize>,
}

impl Unit {
    /// Lines `start..end` standing alone (a comment with a blank line
    /// below it), named by their text.
    fn standalone(src: &Src, start: usize, end: usize) -> Unit {
        Unit {
            start,
            head: start,
            end,
            key: text_key(src, start, end),
            members: None,
        }
    }

    /// Its lines, attached comments included.
    pub fn lines(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Units side by side: the top level, or a class's body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Container {
    pub units: Vec<Unit>,
}

/// The containers of a text; the first is its top level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    pub containers: Vec<Container>,
}

/// The outline of `text`; `None` when it has syntax errors (its units
/// could not be told apart) or could not be parsed.
pub fn outline(language: Language, text: &str) -> Option<Outline> {
    if language == Language::Json {
        return None;
    }
    let tree = parse(language, text)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut out = Outline::default();
    container(root, &Src::new(text), &mut out);
    Some(out)
}

/// A text and where its lines start: a unit named by its text reads its
/// lines from there (reading them from the text's start was once a unit,
/// quadratic in a file of thousands of units).
struct Src<'s> {
    text: &'s str,
    starts: Vec<usize>,
}

impl<'s> Src<'s> {
    fn new(text: &'s str) -> Src<'s> {
        // An empty text has no line (as `str::lines` has none).
        let mut starts = if text.is_empty() { Vec::new() } else { vec![0] };
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&i| i < text.len()),
        );
        Src { text, starts }
    }

    /// Lines `start..end` as `str::lines` gives them.
    fn lines(&self, start: usize, end: usize) -> impl Iterator<Item = &'s str> + '_ {
        let text = self.text;
        self.starts
            .get(start..end.min(self.starts.len()))
            .unwrap_or_default()
            .iter()
            .map(move |&s| {
                let e = memchr::memchr(b'\n', &text.as_bytes()[s..]).map_or(text.len(), |i| s + i);
                let line = &text[s..e];
                // A `\r` goes only before a `\n`, as `str::lines` drops it.
                match e < text.len() {
                    true => line.strip_suffix('\r').unwrap_or(line),
                    false => line,
                }
            })
    }
}

impl std::ops::Deref for Src<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.text
    }
}

/// Reads the units among `parent`'s named children into a new container
/// of `out`, and the containers of their members after it; its index.
fn container(parent: Node, src: &Src, out: &mut Outline) -> usize {
    let index = out.containers.len();
    out.containers.push(Container::default());
    let mut units: Vec<Unit> = Vec::new();
    // Comments and attributes waiting for the unit below them.
    let mut above: Option<(usize, usize)> = None;
    let mut nested: Vec<(usize, Node)> = Vec::new();
    let mut cursor = parent.walk();
    for node in parent.named_children(&mut cursor) {
        let (first, last) = rows(node);
        // A comment after code on the same line belongs to that code;
        // so does a second statement on its line.
        if let Some(prev) = units.last_mut() {
            if above.is_none() && first < prev.end {
                prev.end = prev.end.max(last + 1);
                if !is_attached_above(node) {
                    prev.key = text_key(src, prev.start, prev.end);
                    prev.members = None;
                }
                continue;
            }
        }
        if is_attached_above(node) {
            above = match above {
                Some((s, e)) if e + 1 == first => Some((s, last)),
                Some((s, e)) => {
                    // A comment with a blank line below it stands alone.
                    units.push(Unit::standalone(src, s, e + 1));
                    Some((first, last))
                }
                None => Some((first, last)),
            };
            continue;
        }
        let start = match above.take() {
            Some((s, e)) if e + 1 == first => s,
            Some((s, e)) => {
                // A comment with a blank line below it stands alone.
                units.push(Unit::standalone(src, s, e + 1));
                first
            }
            None => first,
        };
        let inner = unwrap(node);
        let head = rows(inner).0.max(first);
        if let Some(body) = members_of(inner) {
            nested.push((units.len(), body));
        }
        let key = if units.is_empty() && is_docstring(inner) {
            "docstring".to_string()
        } else {
            key(inner, src) + &overload(node, src)
        };
        units.push(Unit {
            start,
            head,
            end: last + 1,
            key,
            members: None,
        });
    }
    if let Some((s, e)) = above {
        units.push(Unit::standalone(src, s, e + 1));
    }
    out.containers[index].units = units;
    for (unit, body) in nested {
        let c = container(body, src, out);
        out.containers[index].units[unit].members = Some(c);
    }
    index
}

/// The first and last rows of a node (a node ending at a line's start
/// ends on the line before).
fn rows(node: Node) -> (usize, usize) {
    let (s, e) = (node.start_position(), node.end_position());
    let last = if e.column == 0 && e.row > s.row {
        e.row - 1
    } else {
        e.row
    };
    (s.row, last)
}

/// Comments and attributes, which belong to the unit right below them.
fn is_attached_above(node: Node) -> bool {
    let k = node.kind();
    k.contains("comment") || k == "attribute_item" || k == "decorator"
}

/// The definition inside a decorator or export wrapper.
fn unwrap(node: Node) -> Node {
    let field = match node.kind() {
        "decorated_definition" => "definition",
        "export_statement" => "declaration",
        _ => return node,
    };
    node.child_by_field_name(field).unwrap_or(node)
}

/// The body holding a class's (impl's, module's) members.
fn members_of(node: Node) -> Option<Node> {
    let k = node.kind();
    let holds = ["class", "impl", "trait", "interface", "namespace", "module"]
        .iter()
        .any(|w| k.contains(w));
    if !holds || k.contains("function") || k.contains("method") {
        return None;
    }
    node.child_by_field_name("body")
}

/// The text of lines `start..end`, each without trailing blanks.
fn text_key(src: &Src, start: usize, end: usize) -> String {
    let mut key = String::from("text ");
    for line in src.lines(start, end) {
        key.push_str(line.trim_end());
        key.push('\n');
    }
    key
}

/// What names a unit: its kind and name, else its text.
fn key(node: Node, src: &Src) -> String {
    let text = |n: Node| src[n.byte_range()].to_string();
    let kind = node.kind();
    match kind {
        "impl_item" => {
            let part = |f: &str| node.child_by_field_name(f).map(text).unwrap_or_default();
            return format!("impl {} for {}", part("trait"), part("type"));
        }
        // Go has one package clause and, mostly, one import block.
        "package_clause" => return kind.to_string(),
        "import_declaration" if go_imports(node) => return kind.to_string(),
        // An import is named by all it names: `from a import b` beside
        // `from a import c` is another import, not a rewrite of it.
        "import_statement"
        | "import_from_statement"
        | "import_declaration"
        | "use_declaration"
        | "preproc_include" => {
            let (s, e) = rows(node);
            return text_key(src, s, e + 1);
        }
        // A call made for its effect: `setup(...)`, `app.run()`.
        "expression_statement" => {
            let call = node
                .named_child(0)
                .filter(|c| node.named_child_count() == 1 && c.kind().contains("call"));
            if let Some(f) = call.and_then(|c| c.child_by_field_name("function")) {
                return format!("call {}", text(f));
            }
        }
        "if_statement" => {
            if let Some(c) = node.child_by_field_name("condition") {
                return format!("if {}", text(c));
            }
        }
        _ => {}
    }
    if let Some(name) = node.child_by_field_name("name") {
        let mut k = format!("{kind} {}", text(name));
        // A Go method is named by its receiver's type too.
        if let Some(receiver) = node.child_by_field_name("receiver") {
            if let Some(t) = last_of_kind(receiver, "type_identifier") {
                k = format!("{kind} {}.{}", text(t), text(name));
            }
        }
        return k;
    }
    // C and C++: a function's name is at the end of its declarators.
    if let Some(mut d) = node.child_by_field_name("declarator") {
        while let Some(inner) = d.child_by_field_name("declarator") {
            d = inner;
        }
        return format!("{kind} {}", text(d));
    }
    // A declaration or assignment: the first name it binds.
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if is_attached_above(child) {
            continue;
        }
        for field in ["name", "left"] {
            if let Some(n) = child.child_by_field_name(field) {
                return format!("{kind} {} {}", child.kind(), text(n));
            }
        }
        break;
    }
    let (s, e) = rows(node);
    text_key(src, s, e + 1)
}

/// A string alone first in a module or class: its docstring.
fn is_docstring(node: Node) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node.named_child(0).is_some_and(|c| c.kind() == "string")
}

/// The decorators that tell apart definitions of one name: a property's
/// getter and setter, the overloads of a function.
fn overload(node: Node, src: &Src) -> String {
    let mut out = String::new();
    let mut cursor = node.walk();
    for d in node.named_children(&mut cursor) {
        if d.kind() != "decorator" {
            continue;
        }
        let t = src[d.byte_range()].trim();
        let tells = [".setter", ".deleter", ".getter", "overload"]
            .iter()
            .any(|w| t.ends_with(w))
            || t == "@property";
        if tells {
            out.push(' ');
            out.push_str(t);
        }
    }
    out
}

/// Whether an import declaration is Go's (`import ( ... )`).
fn go_imports(node: Node) -> bool {
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .any(|c| c.kind().starts_with("import_spec"));
    found
}

/// The last node of `kind` in `node`'s subtree.
fn last_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut found = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == kind {
            found = Some(child);
        } else if let Some(n) = last_of_kind(child, kind) {
            found = Some(n);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(language: Language, text: &str) -> Vec<(String, Range<usize>, usize)> {
        outline(language, text).unwrap().containers[0]
            .units
            .iter()
            .map(|u| (u.key.clone(), u.lines(), u.head))
            .collect()
    }

    fn key_names(language: Language, text: &str) -> Vec<String> {
        keys(language, text)
            .into_iter()
            .map(|(k, _, _)| k)
            .collect()
    }

    #[test]
    fn python_units_are_named_by_kind_and_name() {
        let text = "\"\"\"Doc.\n\nMore.\n\"\"\"\nimport os\nfrom .config import Config, Other\n\nX = 1\n\n# Loads it.\n@cached\ndef load(path):\n    return 1\n\n\nclass App:\n    def run(self):\n        pass\n\n    def stop(self):\n        pass\n";
        let k = keys(Language::Python, text);
        let names: Vec<&str> = k.iter().map(|(key, _, _)| key.as_str()).collect();
        assert_eq!(
            names,
            [
                "docstring",
                "text import os\n",
                "text from .config import Config, Other\n",
                "expression_statement assignment X",
                "function_definition load",
                "class_definition App",
            ]
        );
        // The comment and decorator above `def load` are its own.
        assert_eq!((k[4].1.clone(), k[4].2), (9..13, 11));
        let o = outline(Language::Python, text).unwrap();
        let members = o.containers[0].units[5].members.unwrap();
        let methods: Vec<&str> = o.containers[members]
            .units
            .iter()
            .map(|u| u.key.as_str())
            .collect();
        assert_eq!(
            methods,
            ["function_definition run", "function_definition stop"]
        );
    }

    #[test]
    fn go_methods_are_named_by_their_receiver() {
        let text = "package a\n\nimport (\n\t\"fmt\"\n)\n\n// Get gets.\nfunc (r *Router) Get() {\n\tfmt.Println()\n}\n\nfunc Get() {}\n\ntype T struct{}\n\nvar x = 1 // set\n";
        let names = key_names(Language::Go, text);
        assert_eq!(
            names,
            [
                "package_clause",
                "import_declaration",
                "method_declaration Router.Get",
                "function_declaration Get",
                "type_declaration type_spec T",
                "var_declaration var_spec x",
            ]
        );
    }

    #[test]
    fn rust_impls_and_c_functions() {
        let rust = "use std::fmt;\n\n#[derive(Debug)]\nstruct A;\n\nimpl fmt::Display for A {\n    fn fmt(&self) {}\n}\n";
        let names = key_names(Language::Rust, rust);
        assert_eq!(
            names,
            [
                "text use std::fmt;\n",
                "struct_item A",
                "impl fmt::Display for A"
            ]
        );
        let c = "#include <stdio.h>\n\nstatic int *f(int a) {\n    return 0;\n}\n";
        let names = key_names(Language::C, c);
        assert_eq!(
            names,
            ["text #include <stdio.h>\n", "function_definition f"]
        );
    }

    #[test]
    fn a_text_with_errors_has_no_outline() {
        assert_eq!(outline(Language::Python, "def f(:\n    pass\n"), None);
    }

    /// A unit's lines read from the line table are `str::lines`' lines.
    #[test]
    fn lines_from_the_table_are_the_texts_lines() {
        let mut rng = crate::test_rng::Rng::new(41);
        let pieces = ["a", "bc ", "\n", "\r\n", "\r", " ", "é"];
        for _ in 0..3_000 {
            let text: String = (0..rng.below(12))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            let src = Src::new(&text);
            let count = text.lines().count();
            for start in 0..=count + 1 {
                for end in start..=count + 2 {
                    let want: Vec<&str> = text.lines().skip(start).take(end - start).collect();
                    let got: Vec<&str> = src.lines(start, end).collect();
                    assert_eq!(got, want, "{text:?} {start}..{end}");
                }
            }
        }
    }
}
