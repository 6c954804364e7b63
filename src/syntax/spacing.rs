//! Edits that change only the spacing between tokens, told without
//! parsing: a line indented deeper or shallower, two spaces where one
//! was, a tab for spaces. Every byte but blanks (space, tab) is the same
//! and in the same order, every line break stays where it was, and each
//! run of blanks between two tokens is still a run of blanks: the lexer
//! reads the same tokens, so the parser builds the same tree, and a
//! chunk that parsed still parses. Re-indentation is one of the commonest
//! edits a model proposes, and each would otherwise cost a parse.
//!
//! Narrow on purpose:
//! - A run between two characters of a line is never made empty nor put
//!   where there was none (that joins or splits tokens: `a b` → `ab`,
//!   C's `F (x)` → `F(x)`).
//! - A run touching a single quote or a backslash stays as it was: `' '`
//!   is a character literal of one char in C, Rust, Go and Java, two
//!   blanks in it are none; a backslash before a blank or a line break
//!   may continue a line or escape the blank. (Blanks in a string
//!   literal change the string, not the parse.)
//! - Indentation (the run a line starts with) changes only where it means
//!   nothing to the grammar: not in Python (blocks), nor Ruby (`=begin`,
//!   heredoc terminators at column 0). Ruby and Java are left out
//!   entirely: no real code in either is at hand to hold the rule to the
//!   parser (`examples/syntax_oracle.rs`).
//! - JSON takes spaces only: a tab inside a string is not JSON.
//!
//! The parser is the judge: `examples/syntax_oracle.rs` compares this
//! rule with parsing every edited chunk, on real code of each language
//! the rule takes.

use super::Language;

/// Whether replacing `old` with `new` (both whole lines) changes nothing
/// but the spacing between tokens, in a way that cannot change whether
/// the text parses (module doc). Texts that are the same are not an edit
/// of spacing.
pub fn only(language: Language, old: &str, new: &str) -> bool {
    let indentation = match language {
        Language::Rust
        | Language::JavaScript
        | Language::TypeScript
        | Language::Tsx
        | Language::Go
        | Language::C
        | Language::Cpp
        | Language::Json => true,
        Language::Python => false,
        Language::Ruby | Language::Java => return false,
    };
    let tabs = language != Language::Json;
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut changed = false;
    loop {
        let (ra, rb) = (blanks(&a[i..]), blanks(&b[j..]));
        if ra > 0 || rb > 0 {
            let (run_a, run_b) = (&a[i..i + ra], &b[j..j + rb]);
            // Everything before matched: the byte before is the same in both.
            let before = i.checked_sub(1).map(|k| a[k]);
            let line_start = before.is_none_or(|c| c == b'\n');
            // (What follows is compared as the loop goes on.)
            let next = a.get(i + ra).copied();
            if run_a != run_b {
                let touches = |c: Option<u8>| c.is_some_and(|c| matches!(c, b'\'' | b'\\'));
                let fits = if line_start {
                    indentation
                } else {
                    ra > 0 && rb > 0
                };
                if !fits
                    || touches(before)
                    || touches(next)
                    || (!tabs && (run_a.contains(&b'\t') || run_b.contains(&b'\t')))
                {
                    return false;
                }
                changed = true;
            }
            i += ra;
            j += rb;
            continue;
        }
        match (a.get(i), b.get(j)) {
            (None, None) => return changed,
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            _ => return false,
        }
    }
}

/// The blanks (spaces and tabs) `text` starts with.
fn blanks(text: &[u8]) -> usize {
    text.iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{new_error_line, Language};

    #[test]
    fn spacing_between_tokens_and_indentation() {
        let rust = Language::Rust;
        assert!(only(rust, "    let x = 1;\n", "        let x = 1;\n"));
        assert!(only(rust, "    let x = 1;\n", "let x = 1;\n"));
        assert!(only(rust, "\tlet x = 1;\n", "    let x  =\t1;\n"));
        assert!(
            only(rust, "a\n  \nb\n", "a\n\nb\n"),
            "a blank line's blanks"
        );
        assert!(only(
            Language::Go,
            "\tx := f(a, b)\n",
            "\t\tx := f(a,  b)\n"
        ));
        assert!(only(Language::Json, "  \"a\": 1,\n", "    \"a\":  1,\n"));
    }

    #[test]
    fn what_could_change_the_tokens_is_refused() {
        let rust = Language::Rust;
        assert!(!only(rust, "let x = 1;\n", "let x = 1;\n"), "no change");
        assert!(
            !only(rust, "let x = a b;\n", "let x = ab;\n"),
            "a run made empty"
        );
        assert!(!only(rust, "let x=1;\n", "let x = 1;\n"), "a run put in");
        assert!(
            !only(rust, "let c = ' ';\n", "let c = '  ';\n"),
            "a char literal"
        );
        assert!(
            !only(rust, "f('a', ' ');\n", "f('a',  ' ');\n"),
            "next to a single quote"
        );
        assert!(
            only(rust, "let s = \" a\";\n", "let s = \"  a\";\n"),
            "a string's blanks"
        );
        assert!(
            !only(Language::C, "#define A 1 \\\n", "#define A 1  \\\n"),
            "before a backslash"
        );
        assert!(!only(rust, "a\nb\n", "a\n\nb\n"), "a line break put in");
        assert!(
            !only(rust, "let x = 1;\n", "let y = 1;\n"),
            "a word changed"
        );
        assert!(
            !only(Language::Python, "    x = 1\n", "        x = 1\n"),
            "Python's blocks"
        );
        assert!(only(
            Language::Python,
            "    x = f(a, b)\n",
            "    x = f(a,  b)\n"
        ));
        assert!(
            !only(Language::Ruby, "x = 1\n", "x =  1\n"),
            "Ruby is left out"
        );
        assert!(
            !only(Language::Json, "  \"a b\": 1\n", "  \"a\tb\": 1\n"),
            "a tab in JSON"
        );
    }

    /// The parser agrees on the texts the rule takes, where it matters:
    /// one that parsed parses after.
    #[test]
    fn the_parser_agrees_on_what_is_taken() {
        let before = "fn f() {\n    let x = g(a, b);\n    if x > 1 { return; }\n}\n";
        let line = "    if x > 1 { return; }\n";
        let at = before.find(line).unwrap();
        for new in [
            "        if x > 1 { return; }\n",
            "if x > 1 { return; }\n",
            "    if  x >\t1 {  return; }\n",
        ] {
            assert!(only(Language::Rust, line, new));
            let edits = [(at..at + line.len(), new)];
            assert_eq!(
                new_error_line(Language::Rust, before, &edits),
                None,
                "{new:?}"
            );
        }
    }
}
