//! Edits that cannot change whether a text parses, told without parsing:
//! one plain identifier swapped for another, or one decimal number for
//! another, every other character the same. The parser sees the same
//! sequence of token kinds before and after, so it builds the same tree
//! shape: a chunk that parsed still parses. Renames and changed constants
//! are common edits, and each would otherwise cost a parse of its chunk.
//!
//! The rule is narrow on purpose. A word counts as a plain identifier only
//! when it is no keyword of the grammar (nor a literal such as `None`), and
//! when the grammar itself reads it as an identifier of the same kind in an
//! expression (a probe parse, cached per word). A changed word that touches
//! a quote, `#`, `%`, `$` or a backslash (string prefixes, raw-string
//! delimiters, percent literals), follows `<<` (heredocs), or stands alone
//! on its line (a heredoc's terminator) is not a swap. JSON has no
//! identifiers: only its numbers swap.

use std::cell::RefCell;
use std::collections::HashMap;

use super::{parse, Language};

/// Whether replacing `old` with `new` (both whole lines) only swaps words
/// that leave the parse as it was.
pub fn swaps_only(language: Language, old: &str, new: &str) -> bool {
    let (a, b) = (tokens(old), tokens(new));
    if a.len() != b.len() {
        return false;
    }
    let mut changed = false;
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x == y {
            continue;
        }
        let (Token::Word(x), Token::Word(y)) = (x, y) else {
            return false;
        };
        if !(fenced(language, &a, i) && same_class(language, x, y)) {
            return false;
        }
        changed = true;
    }
    changed
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A maximal run of ASCII letters, digits and `_`.
    Word(&'a str),
    /// Any other character, whitespace included.
    Char(char),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if is_word(c) {
            let mut end = start + 1;
            while let Some(&(i, c)) = chars.peek() {
                if !is_word(c) {
                    break;
                }
                end = i + 1;
                chars.next();
            }
            out.push(Token::Word(&text[start..end]));
        } else {
            out.push(Token::Char(c));
        }
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether the word at `i` sits between plain punctuation or spaces, and
/// shares its line with another token.
fn fenced(language: Language, tokens: &[Token], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| tokens[j]);
    let after = tokens.get(i + 1).copied();
    let plain_before = match before {
        None | Some(Token::Char('\n')) => true,
        // `<<EOS`, `<<-EOS`, `<<~EOS`: a heredoc's name.
        Some(Token::Char('<')) => !(i >= 2 && tokens[i - 2] == Token::Char('<')),
        Some(Token::Char('-')) => {
            !(i >= 3 && tokens[i - 2] == Token::Char('<') && tokens[i - 3] == Token::Char('<'))
        }
        // Python has no `!` operator: `{x!r}` is an f-string's conversion.
        Some(Token::Char('!')) => language != Language::Python,
        Some(Token::Char(c)) => " \t([{,.=+*/&|^:;>@".contains(c),
        Some(Token::Word(_)) => false,
    };
    let plain_after = match after {
        None => true,
        Some(Token::Char(c)) => " \t\r\n()[]{},.=+-*/!&|^:;?<>".contains(c),
        Some(Token::Word(_)) => false,
    };
    plain_before && plain_after && !alone_on_line(tokens, i)
}

fn alone_on_line(tokens: &[Token], i: usize) -> bool {
    let blank = |t: &Token| matches!(t, Token::Char(' ' | '\t' | '\r'));
    let newline = |t: &Token| *t == Token::Char('\n');
    let left = tokens[..i]
        .iter()
        .rev()
        .take_while(|t| !newline(t))
        .all(blank);
    let right = tokens[i + 1..]
        .iter()
        .take_while(|t| !newline(t))
        .all(blank);
    left && right
}

/// Whether `old` and `new` are both plain decimal numbers, or both plain
/// identifiers of the same kind.
fn same_class(language: Language, old: &str, new: &str) -> bool {
    let number =
        |w: &str| w.bytes().all(|b| b.is_ascii_digit()) && (w == "0" || !w.starts_with('0'));
    if old.as_bytes()[0].is_ascii_digit() || new.as_bytes()[0].is_ascii_digit() {
        return number(old) && number(new);
    }
    if language == Language::Json {
        return false;
    }
    match (
        identifier_kind(language, old),
        identifier_kind(language, new),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Words that are literals, types or syntax in some grammar rather than
/// plain identifiers, and that its list of keywords does not name.
const RESERVED: &[&str] = &[
    "True",
    "False",
    "None",
    "true",
    "false",
    "null",
    "nil",
    "self",
    "Self",
    "this",
    "super",
    "undefined",
    "crate",
    "void",
    "int",
    "char",
    "float",
    "double",
    "bool",
    "boolean",
    "byte",
    "short",
    "long",
    "signed",
    "unsigned",
    "auto",
    "var",
    "let",
    "const",
    "any",
    "unknown",
    "never",
    "object",
    "symbol",
    "string",
    "number",
    "bigint",
    "keyof",
    "infer",
    "is",
    "asserts",
    "readonly",
    "unique",
    "declare",
    "namespace",
    "module",
    "abstract",
    "implements",
    "interface",
    "private",
    "protected",
    "public",
    "enum",
    "satisfies",
    "accessor",
    "override",
    "global",
    "__END__",
    "__FILE__",
    "__LINE__",
    "__ENCODING__",
    "__dir__",
    "__method__",
    // Called with a type for an argument (`make(map[string]T)`), or taken
    // as syntax by some grammar in some places.
    "make",
    "new",
    "macro_rules",
    "defined",
    "sizeof",
    "alignof",
    "offsetof",
    "typeof",
    "_Generic",
    "_Alignof",
    "__attribute__",
    "__declspec",
    "__extension__",
    "asm",
    "__asm__",
    "__typeof__",
];

thread_local! {
    /// The probe's answer per language and word.
    static KINDS: RefCell<HashMap<(Language, String), Option<&'static str>>> =
        RefCell::new(HashMap::new());
}

/// The node kind the grammar gives `word` as an operand of an expression
/// (`identifier`, Ruby's `constant`, ...), `None` when it is a keyword or
/// anything but a plain identifier there.
fn identifier_kind(language: Language, word: &str) -> Option<&'static str> {
    if RESERVED.contains(&word) || keywords(language).contains(&word) {
        return None;
    }
    let key = (language, word.to_string());
    if let Some(kind) = KINDS.with(|k| k.borrow().get(&key).copied()) {
        return kind;
    }
    let kind = probe(language, word);
    KINDS.with(|k| {
        let mut kinds = k.borrow_mut();
        // Bounded: a long session sees many names.
        if kinds.len() > 4096 {
            kinds.clear();
        }
        kinds.insert(key, kind);
    });
    kind
}

fn probe(language: Language, word: &str) -> Option<&'static str> {
    let (head, tail) = match language {
        Language::Python | Language::Ruby => ("x = ", " + 1\n"),
        Language::JavaScript | Language::TypeScript | Language::Tsx => ("x = ", " + 1;\n"),
        Language::Rust => ("fn f() { x = ", " + 1; }\n"),
        Language::Go => ("package p\nfunc f() { x = ", " + 1 }\n"),
        Language::Java => ("class A { void f() { x = ", " + 1; } }\n"),
        Language::C | Language::Cpp => ("void f() { x = ", " + 1; }\n"),
        Language::Json => return None,
    };
    let text = format!("{head}{word}{tail}");
    let tree = parse(language, &text)?;
    if tree.root_node().has_error() {
        return None;
    }
    let at = head.len();
    let node = tree
        .root_node()
        .descendant_for_byte_range(at, at + word.len())?;
    let kind = node.kind();
    let plain = node.is_named()
        && node.start_byte() == at
        && node.end_byte() == at + word.len()
        && (kind.ends_with("identifier") || kind == "constant");
    plain.then_some(kind)
}

/// The grammar's keywords: its unnamed tokens that look like words.
fn keywords(language: Language) -> &'static [&'static str] {
    use std::sync::OnceLock;
    static TABLES: [OnceLock<Vec<&'static str>>; 11] = [const { OnceLock::new() }; 11];
    TABLES[language as usize].get_or_init(|| {
        let grammar = language.grammar();
        (0..grammar.node_kind_count() as u16)
            .filter(|&id| !grammar.node_kind_is_named(id))
            .filter_map(|id| grammar.node_kind_for_id(id))
            .filter(|k| !k.is_empty() && k.chars().all(is_word))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_and_constants_are_swaps() {
        let py = Language::Python;
        assert!(swaps_only(
            py,
            "    x = y * 3 + 1\n",
            "    x = y * 4000 + 1\n"
        ));
        assert!(swaps_only(
            py,
            "    total = min(total, limit - 5)\n    log(total)\n",
            "    total_v2 = min(total_v2, limit - 5)\n    log(total_v2)\n"
        ));
        assert!(swaps_only(
            Language::Go,
            "\tcount := f(a)\n",
            "\tcount2 := f(a)\n"
        ));
        assert!(swaps_only(Language::Json, "  \"a\": 1,\n", "  \"a\": 2,\n"));
    }

    #[test]
    fn anything_else_is_not() {
        let py = Language::Python;
        // Punctuation, spacing and indentation.
        assert!(!swaps_only(py, "x = f(a)\n", "x = f(a, b)\n"));
        assert!(!swaps_only(py, "    x = 1\n", "        x = 1\n"));
        // Keywords and literals, either way.
        assert!(!swaps_only(py, "x = y\n", "x = None\n"));
        assert!(!swaps_only(py, "x = y\n", "x = print\n"));
        assert!(!swaps_only(py, "if x:\n", "iff x:\n"));
        assert!(!swaps_only(Language::C, "x = y;\n", "x = int;\n"));
        assert!(!swaps_only(
            Language::TypeScript,
            "let a: Foo;\n",
            "let a: is;\n"
        ));
        // Number shapes.
        assert!(!swaps_only(py, "x = 10\n", "x = 010\n"));
        assert!(!swaps_only(py, "x = 10\n", "x = 0x10\n"));
        assert!(!swaps_only(py, "x = 10\n", "x = ten\n"));
        // String prefixes, raw strings, heredocs.
        assert!(!swaps_only(py, "x = r\"a\"\n", "x = b\"a\"\n"));
        assert!(!swaps_only(
            Language::Rust,
            "let s = r#\"a\"#;\n",
            "let s = q#\"a\"#;\n"
        ));
        assert!(!swaps_only(Language::Ruby, "x = <<~EOS\n", "x = <<~EOT\n"));
        assert!(!swaps_only(Language::Ruby, "x = <<-EOS\n", "x = <<-EOT\n"));
        assert!(!swaps_only(Language::Ruby, "EOS\n", "EOT\n"));
        assert!(!swaps_only(
            Language::Ruby,
            "x = %w[a b]\n",
            "x = %q[a b]\n"
        ));
        // Ruby constants are not its identifiers.
        assert!(!swaps_only(Language::Ruby, "x = foo\n", "x = Foo\n"));
        // An f-string's conversion; Go's `make`, which takes a type.
        assert!(!swaps_only(py, "f\"{x!r}\"\n", "f\"{x!r_v2}\"\n"));
        assert!(!swaps_only(
            Language::Go,
            "\tm = make(map[string]T)\n",
            "\tm = make_v2(map[string]T)\n"
        ));
        // JSON has no identifiers.
        assert!(!swaps_only(
            Language::Json,
            "  \"a\": true\n",
            "  \"a\": yes\n"
        ));
        // Nothing changed.
        assert!(!swaps_only(py, "x = 1\n", "x = 1\n"));
    }
}
