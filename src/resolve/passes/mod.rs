//! The matching passes of `FORMATS.md` §3, one module each.
//!
//! Line passes compare the search's lines with every window of as many file
//! lines, with a per-pass line comparison; the first file line is filtered
//! cheaply before the rest are compared, so a pass is one linear scan.
//! A pass returns *every* candidate: uniqueness is decided by the caller.

pub mod boundary_prefix;
pub mod fuzzy;
pub mod substring;
pub mod trailing_whitespace;
pub mod trimmed;
pub mod unicode;

use serde::Serialize;

use crate::text::lines::LineIndex;

/// Which pass found a match (reported in summaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// 1. Exact (after CRLF→LF).
    Exact,
    /// 2. Trailing whitespace trimmed per line.
    TrailingWhitespace,
    /// 3. Surrounding whitespace trimmed per line, replacement re-indented.
    Trimmed,
    /// 4. First/last search line may be a truncated prefix of the file line.
    BoundaryPrefix,
    /// 5. Curly quotes, dashes and odd spaces folded.
    Unicode,
    /// 6. Raw substring of the text.
    Substring,
    /// 7. Levenshtein similarity above the threshold.
    Fuzzy,
}

impl Pass {
    /// A tolerant line pass re-indents and keeps unchanged lines as in the file.
    pub fn is_tolerant(self) -> bool {
        !matches!(self, Pass::Exact | Pass::Substring)
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Exact => "exact",
            Pass::TrailingWhitespace => "trailing_whitespace",
            Pass::Trimmed => "trimmed",
            Pass::BoundaryPrefix => "boundary_prefix",
            Pass::Unicode => "unicode",
            Pass::Substring => "substring",
            Pass::Fuzzy => "fuzzy",
        }
    }
}

/// A text with its line index, as the line passes read it.
pub struct Lines<'t> {
    /// The text.
    pub text: &'t str,
    /// Its line starts.
    pub index: LineIndex,
}

impl<'t> Lines<'t> {
    /// Indexes `text`.
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            text,
            index: LineIndex::new(text),
        }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// No lines.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Line `i` without its terminator (and without a trailing `\r`).
    pub fn line(&self, i: usize) -> &'t str {
        self.index.content(self.text, i)
    }
}

/// Where a search line sits in the search, for passes that treat the
/// boundary lines differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRole {
    /// The only line.
    Only,
    /// The first of several.
    First,
    /// Neither first nor last.
    Interior,
    /// The last of several.
    Last,
}

impl LineRole {
    /// The role of line `j` of `n`.
    pub fn of(j: usize, n: usize) -> LineRole {
        match (j, n) {
            (_, 1) => LineRole::Only,
            (0, _) => LineRole::First,
            (j, n) if j + 1 == n => LineRole::Last,
            _ => LineRole::Interior,
        }
    }
}

/// Every start line `i` where `eq(file line i + j, search[j], role)` holds
/// for all `j`. The search's lines are already normalized by the pass.
pub fn find_windows(
    file: &Lines,
    search: &[String],
    eq: impl Fn(&str, &str, LineRole) -> bool,
) -> Vec<usize> {
    let n = search.len();
    if n == 0 || n > file.len() {
        return Vec::new();
    }
    let mut starts = Vec::new();
    for i in 0..=file.len() - n {
        if !eq(file.line(i), &search[0], LineRole::of(0, n)) {
            continue;
        }
        if (1..n).all(|j| eq(file.line(i + j), &search[j], LineRole::of(j, n))) {
            starts.push(i);
        }
    }
    starts
}

/// The candidates of a line pass other than exact and fuzzy.
pub fn find_line_pass(pass: Pass, file: &Lines, search: &[&str]) -> Vec<usize> {
    match pass {
        Pass::TrailingWhitespace => trailing_whitespace::find(file, search),
        Pass::Trimmed => trimmed::find(file, search),
        Pass::BoundaryPrefix => boundary_prefix::find(file, search),
        Pass::Unicode => unicode::find(file, search),
        Pass::Exact => exact_lines(file, search),
        Pass::Substring | Pass::Fuzzy => Vec::new(),
    }
}

/// Whole-line exact matching over a materialized text (the fast path for
/// exact matching lives in `resolve::doc`; this one serves re-tries).
pub fn exact_lines(file: &Lines, search: &[&str]) -> Vec<usize> {
    let search: Vec<String> = search.iter().map(|s| s.to_string()).collect();
    find_windows(file, &search, |f, s, _| f == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(LineRole::of(0, 1), LineRole::Only);
        assert_eq!(LineRole::of(0, 3), LineRole::First);
        assert_eq!(LineRole::of(1, 3), LineRole::Interior);
        assert_eq!(LineRole::of(2, 3), LineRole::Last);
    }

    #[test]
    fn exact_windows() {
        let file = Lines::new("a\nb\na\nb\r\n");
        assert_eq!(exact_lines(&file, &["a", "b"]), vec![0, 2]);
        assert_eq!(
            exact_lines(&file, &["b", "a", "b", "c"]),
            Vec::<usize>::new()
        );
    }
}
