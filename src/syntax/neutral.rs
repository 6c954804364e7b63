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
use std::collections::{HashMap, HashSet};

use super::{parse, Language};

/// Whether replacing `old` with `new` (both whole lines) only swaps words
/// that leave the parse as it was: [`swaps`] of one edit.
#[cfg(test)]
pub fn swaps_only(language: Language, old: &str, new: &str) -> bool {
    swaps(language, [(old, new)].into_iter())[0]
}

/// For each edit (old text, new text, both whole lines), whether it only
/// swaps words that leave the parse as it was.
///
/// The definition is `swaps_only_plain` (both texts as token lists,
/// compared position by position, each word probed as it is met); this
/// reads the same answers without building the lists: the bytes both
/// texts share hold the same tokens and are skipped, every word pair's
/// place is checked before any word is probed, and the words left to
/// probe are probed together ([`probe_many`]): a few parses for many.
pub fn swaps<'a>(language: Language, edits: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<bool> {
    let swapped: Vec<Option<Vec<(&str, &str)>>> = edits
        .map(|(old, new)| swapped_words(language, old, new))
        .collect();
    probe_ahead(language, swapped.iter().flatten().flatten());
    swapped
        .iter()
        .map(|words| {
            words.as_ref().is_some_and(|words| {
                !words.is_empty() && words.iter().all(|&(x, y)| same_class(language, x, y))
            })
        })
        .collect()
}

/// The word pairs that differ between `old` and `new` (old word, new
/// word), when the texts' tokens differ only by words each fenced in;
/// `None` when anything else differs.
fn swapped_words<'a>(
    language: Language,
    old: &'a str,
    new: &'a str,
) -> Option<Vec<(&'a str, &'a str)>> {
    let (from, to_old, to_new) = differing_middle(old, new);
    let (mut a, mut b) = (Tokens::at(old, from), Tokens::at(new, from));
    let mut swapped = Vec::new();
    loop {
        // The tokens both texts share from here on, skipped as bytes.
        let same = same_tokens(&old[a.at..to_old], &new[b.at..to_new]);
        a.at += same;
        b.at += same;
        let (x, y) = (a.next_before(to_old), b.next_before(to_new));
        match (x, y) {
            (None, None) => return Some(swapped),
            (Some(x), Some(y)) if x.1 == y.1 => continue,
            (Some((at, Token::Word(x))), Some((_, Token::Word(y))))
                if fenced_at(language, old, at, at + x.len()) =>
            {
                swapped.push((x, y))
            }
            _ => return None,
        }
    }
}

/// How many bytes `a` and `b` (each starting at a token boundary) share
/// at their start, cut where both have a token boundary: those bytes are
/// the same tokens in both.
fn same_tokens(a: &str, b: &str) -> usize {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut n = x
        .chunks_exact(8)
        .zip(y.chunks_exact(8))
        .take_while(|(p, q)| p == q)
        .count()
        * 8;
    n += x[n..]
        .iter()
        .zip(&y[n..])
        .take_while(|(p, q)| p == q)
        .count();
    while n > 0 && !(a.is_char_boundary(n) && b.is_char_boundary(n) && !is_word_byte(x[n - 1])) {
        n -= 1;
    }
    n
}

/// Probes, a few parses for many words, every word that [`same_class`]
/// will probe for these word pairs and has not yet: the answers it finds
/// are the ones it would (see [`probe_many`]).
fn probe_ahead<'a>(language: Language, pairs: impl Iterator<Item = &'a (&'a str, &'a str)>) {
    if language == Language::Json {
        return;
    }
    let mut seen = HashSet::new();
    let mut words = Vec::new();
    for &(x, y) in pairs {
        if x.as_bytes()[0].is_ascii_digit() || y.as_bytes()[0].is_ascii_digit() {
            continue;
        }
        for w in [x, y] {
            if !not_plain(language).contains(w) && cached(language, w).is_none() && seen.insert(w) {
                words.push(w);
            }
        }
    }
    for some in words.chunks(PROBED_TOGETHER) {
        probe_many(language, some);
    }
}

/// How many words one parse probes: their nodes are nested one in the
/// next (`a + b + c`), and each is found from the root.
const PROBED_TOGETHER: usize = 64;

/// `(from, to_old, to_new)`: `old[..from] == new[..from]` and
/// `old[to_old..] == new[to_new..]`, each cut where both texts have a
/// token boundary (after a character that is no word character), so the
/// tokens of those ends are the same in both and the texts' tokens differ,
/// if at all, only between them.
fn differing_middle(old: &str, new: &str) -> (usize, usize, usize) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut from = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Back to the end of a character that is not a word's.
    while from > 0
        && !(old.is_char_boundary(from) && new.is_char_boundary(from) && !is_word_byte(a[from - 1]))
    {
        from -= 1;
    }
    let room = a.len().min(b.len()) - from;
    let mut tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    // Forward to the start of a character that is not a word's.
    while tail > 0 && {
        let (i, j) = (a.len() - tail, b.len() - tail);
        !(old.is_char_boundary(i) && new.is_char_boundary(j) && !is_word_byte(a[i]))
    } {
        tail -= 1;
    }
    (from, a.len() - tail, b.len() - tail)
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The tokens of a text from a token boundary on, each with its start.
struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn at(text: &'a str, at: usize) -> Tokens<'a> {
        Tokens { text, at }
    }

    /// The next token if it starts before `end` (a token boundary).
    fn next_before(&mut self, end: usize) -> Option<(usize, Token<'a>)> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        if start >= end {
            return None;
        }
        if is_word_byte(bytes[start]) {
            let len = bytes[start..]
                .iter()
                .take_while(|&&b| is_word_byte(b))
                .count();
            self.at = start + len;
            return Some((start, Token::Word(&self.text[start..self.at])));
        }
        let c = self.text[start..].chars().next()?;
        self.at = start + c.len_utf8();
        Some((start, Token::Char(c)))
    }
}

/// The characters that may stand right before a swapped word (besides a
/// line start and the cases [`fenced_at`] weighs), and right after it.
/// (No `/`: in JavaScript a word right after it may be a regular
/// expression's flags, `/a/g`.)
const PLAIN_BEFORE: &str = " \t([{,.=+*&|^:;>@";
const PLAIN_AFTER: &str = " \t\r\n()[]{},.=+-*/!&|^:;?<>";

/// [`fenced`] of the word `old[start..end]`, read from the bytes around it:
/// a word's neighbours are characters (words are maximal), and the
/// characters the rule names are ASCII.
fn fenced_at(language: Language, old: &str, start: usize, end: usize) -> bool {
    let bytes = old.as_bytes();
    let byte = |i: usize| bytes[i];
    let plain_before = match old[..start].chars().next_back() {
        None | Some('\n') => true,
        Some('<') => !(start >= 2 && byte(start - 2) == b'<'),
        Some('-') => !(start >= 3 && byte(start - 2) == b'<' && byte(start - 3) == b'<'),
        Some('!') => language != Language::Python,
        Some(c) => PLAIN_BEFORE.contains(c),
    };
    let plain_after = match old[end..].chars().next() {
        None => true,
        Some(c) => PLAIN_AFTER.contains(c),
    };
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
    let line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
    let alone =
        bytes[line_start..start].iter().all(blank) && bytes[end..line_end].iter().all(blank);
    // A C directive's name: `#` and blanks alone before it (`#  endif`).
    let directive = matches!(language, Language::C | Language::Cpp)
        && old[line_start..start].trim_matches([' ', '\t']) == "#";
    plain_before && plain_after && !alone && !directive
}

/// The definition [`swaps_only`] reads faster: both texts as token lists,
/// the same length, every differing pair two words, each fenced in and of
/// the same class.
#[cfg(test)]
fn swaps_only_plain(language: Language, old: &str, new: &str) -> bool {
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

#[cfg(test)]
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
#[cfg(test)]
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
        Some(Token::Char(c)) => PLAIN_BEFORE.contains(c),
        Some(Token::Word(_)) => false,
    };
    let plain_after = match after {
        None => true,
        Some(Token::Char(c)) => PLAIN_AFTER.contains(c),
        Some(Token::Word(_)) => false,
    };
    plain_before && plain_after && !alone_on_line(tokens, i) && !directive(language, tokens, i)
}

/// Whether word `i` names a C preprocessor directive: `#` and blanks
/// alone before it on its line (`#  endif`).
#[cfg(test)]
fn directive(language: Language, tokens: &[Token], i: usize) -> bool {
    if !matches!(language, Language::C | Language::Cpp) {
        return false;
    }
    let head: Vec<&Token> = tokens[..i]
        .iter()
        .rev()
        .take_while(|t| **t != Token::Char('\n'))
        .filter(|t| !matches!(t, Token::Char(' ' | '\t')))
        .collect();
    head == [&Token::Char('#')]
}

#[cfg(test)]
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
    // Keywords a grammar names as nodes of their own (Rust's
    // `mutable_specifier`, Go's `blank_identifier`, C's `primitive_type`
    // and pointer modifiers), which its anonymous kinds do not list and an
    // expression's probe may read as identifiers: held to each grammar's
    // source by `keywords_named_by_the_grammar_are_not_plain`.
    "mut",
    "_",
    "__restrict",
    "__sptr",
    "__uptr",
    "size_t",
    "ssize_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "charptr_t",
    "nullptr_t",
    "max_align_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "char8_t",
    "char16_t",
    "char32_t",
    "char64_t",
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
    /// The probe's answer per word, one map per language.
    static KINDS: RefCell<HashMap<Language, HashMap<String, Option<&'static str>>>> =
        RefCell::new(HashMap::new());
}

/// The node kind the grammar gives `word` as an operand of an expression
/// (`identifier`, Ruby's `constant`, ...), `None` when it is a keyword or
/// anything but a plain identifier there.
fn identifier_kind(language: Language, word: &str) -> Option<&'static str> {
    if not_plain(language).contains(word) {
        return None;
    }
    if let Some(kind) = cached(language, word) {
        return kind;
    }
    let kind = probe(language, word);
    remember(language, word, kind);
    kind
}

/// The probe's answer for `word` if it is known.
fn cached(language: Language, word: &str) -> Option<Option<&'static str>> {
    KINDS.with(|k| k.borrow().get(&language).and_then(|m| m.get(word).copied()))
}

fn remember(language: Language, word: &str, kind: Option<&'static str>) {
    KINDS.with(|k| {
        let mut kinds = k.borrow_mut();
        let kinds = kinds.entry(language).or_default();
        // Bounded: a long session sees many names.
        if kinds.len() > 4096 {
            kinds.clear();
        }
        kinds.insert(word.to_string(), kind);
    });
}

/// [`RESERVED`] and the grammar's [`keywords`], as one set: a word is
/// looked up once, not compared with each of a hundred.
fn not_plain(language: Language) -> &'static HashSet<&'static str> {
    use std::sync::OnceLock;
    static SETS: [OnceLock<HashSet<&'static str>>; 11] = [const { OnceLock::new() }; 11];
    SETS[language as usize]
        .get_or_init(|| RESERVED.iter().chain(keywords(language)).copied().collect())
}

/// The text around a probed word: `x = WORD + 1` where an expression
/// statement may stand.
fn frame(language: Language) -> Option<(&'static str, &'static str)> {
    Some(match language {
        Language::Python | Language::Ruby => ("x = ", " + 1\n"),
        Language::JavaScript | Language::TypeScript | Language::Tsx => ("x = ", " + 1;\n"),
        Language::Rust => ("fn f() { x = ", " + 1; }\n"),
        Language::Go => ("package p\nfunc f() { x = ", " + 1 }\n"),
        Language::Java => ("class A { void f() { x = ", " + 1; } }\n"),
        Language::C | Language::Cpp => ("void f() { x = ", " + 1; }\n"),
        Language::Json => return None,
    })
}

/// The probe (the definition): `word` alone in its frame.
fn probe(language: Language, word: &str) -> Option<&'static str> {
    let (head, tail) = frame(language)?;
    let text = format!("{head}{word}{tail}");
    let tree = parse(language, &text)?;
    if tree.root_node().has_error() {
        return None;
    }
    plain_kind(&tree, head.len(), word.len())
}

/// The kind of the node that is exactly the word at `at`, when it is a
/// plain identifier's.
fn plain_kind(tree: &tree_sitter::Tree, at: usize, len: usize) -> Option<&'static str> {
    let node = tree.root_node().descendant_for_byte_range(at, at + len)?;
    let kind = node.kind();
    let plain = node.is_named()
        && node.start_byte() == at
        && node.end_byte() == at + len
        && (kind.ends_with("identifier") || kind == "constant");
    plain.then_some(kind)
}

/// Probes `words` in one frame, one after the other (`x = a + b + c + 1`),
/// and remembers each answer. Only a parse without any error is read, and
/// from it only the words that are plain identifiers there; the others,
/// and every word of a parse with an error (halved until alone), are
/// probed alone. A word after `+` rather than after `=` is read as the
/// probe reads it: a test holds this to the probe on every grammar's
/// keywords, the reserved words, primitive type names and random names.
fn probe_many(language: Language, words: &[&str]) {
    let Some((head, tail)) = frame(language) else {
        return;
    };
    if words.len() <= 1 {
        for &w in words {
            remember(language, w, probe(language, w));
        }
        return;
    }
    let mut text = String::from(head);
    let mut starts = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            text.push_str(" + ");
        }
        starts.push(text.len());
        text.push_str(w);
    }
    text.push_str(tail);
    match parse(language, &text) {
        Some(tree) if !tree.root_node().has_error() => {
            for (&w, &at) in words.iter().zip(&starts) {
                let kind = plain_kind(&tree, at, w.len()).or_else(|| probe(language, w));
                remember(language, w, kind);
            }
        }
        _ => {
            let (left, right) = words.split_at(words.len() / 2);
            probe_many(language, left);
            probe_many(language, right);
        }
    }
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

    const ALL: [Language; 11] = [
        Language::Python,
        Language::Rust,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
        Language::Ruby,
        Language::Json,
    ];

    /// The grammar's own source (`src/grammar.json` of its crate, where
    /// Cargo unpacked it), for the test below: `None` when not found.
    fn grammar_json(language: Language) -> Option<serde_json::Value> {
        let (krate, sub) = match language {
            Language::Python => ("python", ""),
            Language::Rust => ("rust", ""),
            Language::JavaScript => ("javascript", ""),
            Language::TypeScript => ("typescript", "typescript/"),
            Language::Tsx => ("typescript", "tsx/"),
            Language::Go => ("go", ""),
            Language::Java => ("java", ""),
            Language::C => ("c", ""),
            Language::Cpp => ("cpp", ""),
            Language::Ruby => ("ruby", ""),
            Language::Json => ("json", ""),
        };
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).ok()?;
        let name = format!("name = \"tree-sitter-{krate}\"\nversion = \"");
        let at = lock.find(&name)? + name.len();
        let version = &lock[at..at + lock[at..].find('"')?];
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo"))
            })?;
        let src = home.join("registry/src");
        std::fs::read_dir(src).ok()?.flatten().find_map(|index| {
            let path = index.path().join(format!(
                "tree-sitter-{krate}-{version}/{sub}src/grammar.json"
            ));
            serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
        })
    }

    /// The words a rule matches when it is only strings (a choice of
    /// them, through precedence, tokens and aliases).
    fn rule_words(rule: &serde_json::Value) -> Option<Vec<String>> {
        match rule["type"].as_str()? {
            "STRING" => Some(vec![rule["value"].as_str()?.to_string()]),
            "CHOICE" => {
                let mut out = Vec::new();
                for m in rule["members"].as_array()? {
                    out.extend(rule_words(m)?);
                }
                Some(out)
            }
            "BLANK" => Some(Vec::new()),
            "TOKEN" | "IMMEDIATE_TOKEN" | "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC"
            | "ALIAS" | "FIELD" => rule_words(&rule["content"]),
            _ => None,
        }
    }

    /// Found by the oracle on real C and TypeScript: a directive's name
    /// after `#` and blanks, and a regular expression's flags.
    #[test]
    fn directives_and_regex_flags_are_no_swaps() {
        assert!(!swaps_only(Language::C, "#  endif\n", "#  endif_v2\n"));
        assert!(!swaps_only(Language::C, "#endif\n", "#err\n"));
        assert!(!swaps_only_plain(
            Language::C,
            "#  endif\n",
            "#  endif_v2\n"
        ));
        assert!(swaps_only(
            Language::C,
            "int x = a; # define\n",
            "int y = a; # define\n"
        ));
        assert!(!swaps_only(
            Language::TypeScript,
            "const r = /a/g;\n",
            "const r = /a/g_v2;\n"
        ));
        assert!(!swaps_only_plain(
            Language::TypeScript,
            "const r = /a/g;\n",
            "const r = /a/g_v2;\n"
        ));
    }

    /// A keyword the grammar names as a node of its own (Rust's `mut` is
    /// `mutable_specifier`, C's `int` a `primitive_type`) is no anonymous
    /// node kind, so the grammar's list of keywords misses it, and a
    /// probe in an expression may read it as an identifier (`x = mut +
    /// 1` parses in Rust): each such word must be known not plain. Read
    /// from each grammar's own source, so a grammar updated with new ones
    /// fails here.
    #[test]
    fn keywords_named_by_the_grammar_are_not_plain() {
        let mut missing = Vec::new();
        for language in ALL {
            let grammar = grammar_json(language)
                .unwrap_or_else(|| panic!("the grammar source of {language:?} (Cargo's registry)"));
            let rules = grammar["rules"].as_object().expect("rules");
            for (name, rule) in rules {
                if name.starts_with('_') {
                    continue;
                }
                for w in rule_words(rule).unwrap_or_default() {
                    if !w.is_empty()
                        && w.chars().all(is_word)
                        && !w.as_bytes()[0].is_ascii_digit()
                        && !not_plain(language).contains(w.as_str())
                        && probe(language, &w).is_some()
                    {
                        missing.push(format!("{language:?} {name}: {w}"));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "plain by the probe: {missing:#?}");
    }

    #[test]
    fn the_quick_reading_is_the_plain_one() {
        // Words of every class, and every character the rules name, next
        // to each other and apart, ASCII or not, with CRLF and blank lines.
        let words = [
            "x",
            "y",
            "total",
            "total_v2",
            "offset_00223",
            "cache001f4_v2",
            "None",
            "if",
            "print",
            "match",
            "type",
            "await",
            "u8",
            "int8_t",
            "size_t",
            "10",
            "4000",
            "010",
            "0",
            "a1",
            "_",
            "Foo",
            "r",
            "b",
            "EOS",
            "EOT",
            "make",
            "self",
        ];
        let other = [
            " ", "  ", "\t", "\n", "\r\n", "\n\n", "(", ")", "[", "]", "{", "}", ",", ".", "=",
            "+", "-", "*", "/", "!", "&", "|", "^", ":", ";", "?", "<", "<<", ">", "@", "#", "%",
            "$", "\\", "\"", "'", "~", "é", "ü", "→", "日本",
        ];
        let mut rng = crate::test_rng::Rng::new(0x5eed_ab1e);
        let piece = |rng: &mut crate::test_rng::Rng| {
            if rng.below(2) == 0 {
                *rng.pick(&words)
            } else {
                *rng.pick(&other)
            }
        };
        for language in ALL {
            for _ in 0..2_000 {
                let old: Vec<&str> = (0..rng.below(14)).map(|_| piece(&mut rng)).collect();
                let mut new = old.clone();
                for _ in 0..rng.below(3) {
                    if new.is_empty() {
                        break;
                    }
                    let i = rng.below(new.len());
                    match rng.below(8) {
                        0 => new[i] = piece(&mut rng),
                        1 => {
                            new.remove(i);
                        }
                        2 => new.insert(i, piece(&mut rng)),
                        _ => new[i] = *rng.pick(&words),
                    }
                }
                let (old, new) = (old.concat(), new.concat());
                assert_eq!(
                    swaps_only(language, &old, &new),
                    swaps_only_plain(language, &old, &new),
                    "{language:?} {old:?} {new:?}"
                );
            }
        }
    }

    #[test]
    fn words_probed_together_read_as_alone() {
        // Every grammar's keywords, the reserved words, primitive type
        // names, soft keywords, names with digits, and random names.
        let mut words: Vec<String> = ALL
            .iter()
            .flat_map(|&l| keywords(l).iter())
            .chain(RESERVED)
            .map(|w| w.to_string())
            .collect();
        let more = [
            "u8",
            "i32",
            "usize",
            "f64",
            "str",
            "int8_t",
            "uint64_t",
            "size_t",
            "ssize_t",
            "ptrdiff_t",
            "char16_t",
            "wchar_t",
            "float64",
            "rune",
            "error",
            "comparable",
            "iota",
            "match",
            "case",
            "type",
            "await",
            "async",
            "yield",
            "of",
            "get",
            "set",
            "static",
            "as",
            "from",
            "print",
            "exec",
            "nonlocal",
            "_",
            "__init__",
            "__name__",
            "Foo",
            "FOO",
            "FooBar",
            "x",
            "offset_00223",
            "cache001f4_v2",
            "a1",
            "_1",
            "A_",
            "String",
            "Vec",
            "Object",
            "Array",
            "Integer",
            "puts",
            "require",
            "lambda",
            "proc",
            "defined",
            "BEGIN",
            "END",
            "then",
            "do",
            "end",
            "begin",
            "unless",
            "until",
            "typename",
            "template",
            "decltype",
            "nullptr",
            "constexpr",
            "var",
            "record",
            "sealed",
            "permits",
            "yield",
            "instanceof",
            "final",
            "transient",
        ];
        words.extend(more.iter().map(|w| w.to_string()));
        let mut rng = crate::test_rng::Rng::new(0x0b5e55ed);
        let first = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
        let rest = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
        for _ in 0..300 {
            let mut w = String::from(*rng.pick(first) as char);
            for _ in 0..rng.below(12) {
                w.push(*rng.pick(rest) as char);
            }
            words.push(w);
        }
        words.sort();
        words.dedup();
        for language in ALL {
            KINDS.with(|k| k.borrow_mut().clear());
            // Mixed in random order: bad words in among good ones.
            let mut order: Vec<&str> = words.iter().map(String::as_str).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            for some in order.chunks(PROBED_TOGETHER) {
                probe_many(language, some);
            }
            for w in &order {
                if language == Language::Json {
                    assert_eq!(cached(language, w), None);
                    continue;
                }
                assert_eq!(
                    cached(language, w),
                    Some(probe(language, w)),
                    "{language:?} {w}"
                );
            }
        }
    }

    #[test]
    fn the_middle_is_cut_at_token_boundaries() {
        assert_eq!(differing_middle("ab cd", "ab ce"), (3, 5, 5));
        assert_eq!(differing_middle("x = a1;", "x = a2;"), (4, 6, 6));
        // Equal words are one token: the middle keeps them whole.
        assert_eq!(differing_middle("same", "same"), (0, 4, 4));
        assert_eq!(differing_middle("a (b) c", "a (b) c"), (6, 7, 7));
        // A character split by the shared bytes is not cut.
        assert_eq!(differing_middle("(é)", "(è)"), (1, 3, 3));
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
