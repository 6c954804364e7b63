//! Python's offside rule, which its tree-sitter grammar does not enforce
//! (it parses `def f():\n    pass\n        x = 1` without an error): a
//! logical line indented deeper than the block it is in, without a `:`
//! line opening a block before it, is an unexpected indent; a dedent to a
//! column no enclosing block starts at is an unmatched unindent; a block
//! opener followed by no deeper line is an expected indent.
//!
//! Lines inside brackets, after a backslash continuation, or inside a
//! triple-quoted string are continuation lines and are not checked.

/// The 0-based lines breaking the offside rule.
pub fn errors(text: &str) -> Vec<usize> {
    let mut scan = Scan::default();
    let mut stack: Vec<usize> = vec![0];
    let mut opener = false;
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let logical_start = scan.depth == 0 && !scan.continued && scan.triple.is_none();
        let body = line.trim_start_matches([' ', '\t']);
        if logical_start && !body.is_empty() && !body.starts_with('#') {
            let col = column(&line[..line.len() - body.len()]);
            let top = *stack.last().unwrap_or(&0);
            if opener {
                if col > top {
                    stack.push(col);
                } else {
                    errors.push(i);
                }
            } else if col > top {
                errors.push(i);
            } else if col < top {
                while stack.last().is_some_and(|&t| t > col) {
                    stack.pop();
                }
                if stack.last() != Some(&col) {
                    errors.push(i);
                    stack.push(col);
                }
            }
            opener = false;
        }
        // Blank and comment lines leave a pending opener pending.
        let code = !logical_start || (!body.is_empty() && !body.starts_with('#'));
        let ends_block = scan.line(line);
        if code && scan.depth == 0 && !scan.continued && scan.triple.is_none() {
            opener = ends_block;
        }
    }
    errors
}

/// Indentation width, a tab to the next multiple of 8 (as Python does).
pub(super) fn column(indent: &str) -> usize {
    indent
        .chars()
        .fold(0, |c, ch| if ch == '\t' { (c / 8 + 1) * 8 } else { c + 1 })
}

/// What carries over from one line to the next.
#[derive(Clone, Default)]
pub(super) struct Scan {
    /// Open brackets.
    depth: usize,
    /// The line ended with a backslash.
    continued: bool,
    /// Inside a triple-quoted string with this quote.
    triple: Option<char>,
}

impl Scan {
    /// Whether the next line begins a logical line (a statement, or a
    /// clause such as `else:`).
    pub(super) fn between_statements(&self) -> bool {
        self.depth == 0 && !self.continued && self.triple.is_none()
    }

    /// Whether the last line ended with a backslash.
    pub(super) fn continued(&self) -> bool {
        self.continued
    }

    /// Reads one line; true when its code ends with `:` (a block opener,
    /// once brackets are closed).
    pub(super) fn line(&mut self, line: &str) -> bool {
        let line = line.trim_end_matches(['\n', '\r']);
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let mut last_code: Option<char> = None;
        self.continued = false;
        while i < chars.len() {
            let c = chars[i];
            if let Some(q) = self.triple {
                if c == '\\' {
                    i += 2;
                    continue;
                }
                if c == q && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                    self.triple = None;
                    last_code = Some(q);
                    i += 3;
                    continue;
                }
                i += 1;
                continue;
            }
            match c {
                '#' => break,
                '"' | '\'' => {
                    if chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c) {
                        self.triple = Some(c);
                        i += 3;
                        continue;
                    }
                    // A one-line string: skip to its closing quote. One
                    // that a backslash carries to the next line continues
                    // the logical line.
                    i += 1;
                    while i < chars.len() && chars[i] != c {
                        if chars[i] == '\\' {
                            if i + 1 == chars.len() {
                                self.continued = true;
                            }
                            i += 1;
                        }
                        i += 1;
                    }
                    last_code = Some(c);
                }
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth = self.depth.saturating_sub(1),
                '\\' if i + 1 == chars.len() => self.continued = true,
                c if c.is_whitespace() => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if let Some(&ch) = chars.get(i).filter(|ch| !ch.is_whitespace()) {
                last_code = Some(ch);
            }
            i += 1;
        }
        last_code == Some(':') && self.depth == 0 && self.triple.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_python() {
        let text = "import os\n\nclass A:\n    \"\"\"Doc\n  string.\"\"\"\n\n    def f(self, a,\n          b):\n        if a:  # yes\n            return {\n  'k': b,\n            }\n        x = [1,\n   2]\n        return x\n\n\ndef g():\n    pass\n";
        assert_eq!(errors(text), Vec::<usize>::new());
    }

    #[test]
    fn finds_unexpected_and_unmatched_indents() {
        assert_eq!(errors("def f():\n    a = 1\n        b = 2\n"), vec![2]);
        assert_eq!(errors("if x:\n    a = 1\n  b = 2\n"), vec![2]);
        assert_eq!(errors("if x:\nb = 2\n"), vec![1]);
        assert_eq!(errors("s = 'a:'\n    x = 1\n"), vec![1]);
        // An unterminated string ends the line, not the scan.
        assert_eq!(errors("s = 'abc\nx = 1\n"), Vec::<usize>::new());
        // A string a backslash carries on: its next line is no statement.
        assert_eq!(
            errors("s = 'abc \\\n        def'\nx = 1\n"),
            Vec::<usize>::new()
        );
    }
}
