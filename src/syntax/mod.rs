//! Syntax as evidence (tree-sitter), below `resolve/`: which language a
//! file is in, and where its parse errors are. The resolver asks it to rule
//! out a reading that would break a file that parsed (`FORMATS.md` §3, "One
//! reading or none"), and the plan asks it which edits leave new errors.
//!
//! Files of other languages have no [`Language`]: the plain rules apply.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

mod neutral;
mod offside;
mod regions;
mod spacing;
mod statements;
pub mod units;

pub use regions::{
    new_error_line, new_error_line_quick, quick_needs_parse, taken_without_parse, Edit,
};

/// A language with a grammar here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.py`, `.pyi`
    Python,
    /// `.rs`
    Rust,
    /// `.js`, `.mjs`, `.cjs`, `.jsx`
    JavaScript,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.go`
    Go,
    /// `.java`
    Java,
    /// `.c`, `.h`
    C,
    /// `.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`
    Cpp,
    /// `.rb`
    Ruby,
    /// `.json`
    Json,
}

impl Language {
    /// The language of a path, by its extension.
    pub fn of_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Language::Python,
            "rs" => Language::Rust,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Language::Cpp,
            "rb" => Language::Ruby,
            "json" => Language::Json,
            _ => return None,
        })
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::Json => tree_sitter_json::LANGUAGE.into(),
        }
    }
}

thread_local! {
    /// One parser per thread, and the language it is set to: switched only
    /// when another is asked for (setting one resets the parser, and its
    /// next parse allocates anew: 70 µs for Go).
    static PARSER: RefCell<(Parser, Option<Language>)> = RefCell::new((Parser::new(), None));
}

/// The parse of `text`, `None` when the grammar cannot be loaded or the
/// parse gives up.
fn parse(language: Language, text: &str) -> Option<Tree> {
    PARSER.with(|p| {
        let (parser, set) = &mut *p.borrow_mut();
        if *set != Some(language) {
            *set = None;
            parser.set_language(&language.grammar()).ok()?;
            *set = Some(language);
        }
        parser.parse(text, None)
    })
}

/// The syntax errors of a text: their 0-based lines, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    /// The first line of each error or missing node.
    pub lines: Vec<usize>,
}

impl Errors {
    /// How many there are.
    pub fn count(&self) -> usize {
        self.lines.len()
    }
}

/// Every error and missing node of `text` in `language` (`None` when it
/// could not be parsed at all). Python's grammar accepts any indentation,
/// so its indentation (the offside rule) is checked on its own.
pub fn errors(language: Language, text: &str) -> Option<Errors> {
    let tree = parse(language, text)?;
    let mut lines = Vec::new();
    collect(tree.root_node(), &mut lines);
    if language == Language::Python {
        lines.extend(offside::errors(text));
        lines.sort_unstable();
    }
    Some(Errors { lines })
}

/// For each byte offset of `text`, whether it lies inside a string literal
/// (raw strings, docstrings, templates, heredocs included); `None` when the
/// text could not be parsed.
pub fn in_string(language: Language, text: &str, offsets: &[usize]) -> Option<Vec<bool>> {
    let tree = parse(language, text)?;
    let root = tree.root_node();
    Some(
        offsets
            .iter()
            .map(|&at| {
                let mut node = root.descendant_for_byte_range(at, at);
                while let Some(n) = node {
                    let kind = n.kind();
                    if kind.contains("string")
                        || kind.contains("heredoc")
                        || kind.contains("template")
                    {
                        return n.start_byte() < at;
                    }
                    node = n.parent();
                }
                false
            })
            .collect(),
    )
}

fn collect(node: Node, lines: &mut Vec<usize>) {
    if !node.has_error() {
        return;
    }
    if node.is_error() || node.is_missing() {
        lines.push(node.start_position().row);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, lines);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_inside_string_literals() {
        let text = "package a\n\nvar s = `\n    inside\n`\n\nfunc f() {\n\tg()\n}\n";
        let inside = text.find("    inside").unwrap();
        let outside = text.find("\tg()").unwrap();
        assert_eq!(
            in_string(Language::Go, text, &[inside, outside]),
            Some(vec![true, false])
        );
    }

    #[test]
    fn languages_by_extension() {
        assert_eq!(Language::of_path("src/app.py"), Some(Language::Python));
        assert_eq!(Language::of_path("web/App.TSX"), Some(Language::Tsx));
        assert_eq!(Language::of_path("README.md"), None);
        assert_eq!(Language::of_path("Makefile"), None);
    }

    #[test]
    fn finds_errors_in_every_grammar() {
        let broken = [
            (Language::Python, "def f(:\n    pass\n"),
            (Language::Rust, "fn f( {\n"),
            (Language::JavaScript, "function f( {\n"),
            (Language::TypeScript, "function f(: number {\n"),
            (Language::Tsx, "const a = <div>;\n"),
            (Language::Go, "package main\nfunc f( {\n"),
            (Language::Java, "class A { void f( { }\n"),
            (Language::C, "int f( {\n"),
            (Language::Cpp, "int f( {\n"),
            (Language::Ruby, "def f(\n"),
            (Language::Json, "{\"a\": }\n"),
        ];
        for (language, text) in broken {
            let e = errors(language, text).unwrap();
            assert!(
                e.count() > 0,
                "{language:?} should see an error in {text:?}"
            );
        }
        assert_eq!(
            errors(Language::Python, "def f():\n    return 1\n")
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn python_indentation_errors_are_errors() {
        let unexpected = "def f():\n    pass\n        x = 1\n";
        assert_eq!(errors(Language::Python, unexpected).unwrap().lines, vec![2]);
        let unmatched = "if x:\n    a = 1\n  b = 2\n";
        assert_eq!(errors(Language::Python, unmatched).unwrap().lines, vec![2]);
    }
}
