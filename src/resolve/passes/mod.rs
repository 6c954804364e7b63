//! The matching passes of `FORMATS.md` §3, one module each.
//!
//! Line passes compare the search's lines with every window of as many file
//! lines, with a per-pass line normalization: each line's normalized key is
//! an id in the text's [`keys::KeyIndex`] (built once per text, shared by
//! every pass and search over it), and [`windows::find`] finds the windows
//! on ids, linear in the file at worst.
//! A pass returns *every* candidate: uniqueness is decided by the caller.

pub mod boundary_prefix;
pub mod fuzzy;
pub mod keys;
pub mod substring;
pub mod trailing_whitespace;
pub mod trimmed;
pub mod unicode;
pub mod windows;

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;

use keys::{Dict, KeyIndex, Norm, Seq, View};
use windows::Want;

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

/// A text with its line index, as the line passes read it, and its
/// line-key index (built part by part as passes need it).
pub struct Lines<'t> {
    /// The text.
    pub text: &'t str,
    /// Its line starts (its own, or the original's while unedited).
    pub index: Cow<'t, LineIndex>,
    /// Its lines' keys, per normalization.
    keys: KeyIndex<'t>,
    /// The lines holding each needle the scans looked for ([`Lines::holding`]).
    holding: RefCell<Vec<(String, Rc<[u32]>)>>,
}

impl<'t> Lines<'t> {
    /// Indexes `text`.
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines {
            text,
            index: Cow::Owned(LineIndex::new(text)),
            keys: KeyIndex::default(),
            holding: RefCell::default(),
        }
    }

    /// `text` with its line index built before (`index` must be that of
    /// `text`).
    pub fn with_index(text: &'t str, index: &'t LineIndex) -> Lines<'t> {
        debug_assert_eq!(index.start(index.len()), text.len());
        Lines {
            text,
            index: Cow::Borrowed(index),
            keys: KeyIndex::default(),
            holding: RefCell::default(),
        }
    }

    /// The lines (in order, each once) where an occurrence of `needle`
    /// starts, as `memmem` over the whole text finds them. The passes and
    /// views of one search look for the same first line, trimmed or not:
    /// the text is scanned once, for the needle trimmed (a needle without
    /// a line break occurs inside one line, and that line holds it
    /// trimmed), and each needle's lines are those of a needle it contains
    /// that hold it.
    pub fn holding(&self, needle: &str) -> Rc<[u32]> {
        if let Some((_, found)) = self.holding.borrow().iter().find(|(k, _)| k == needle) {
            return found.clone();
        }
        let one_line = !needle.contains('\n');
        let core = needle.trim();
        let within = if one_line && !core.is_empty() && core.len() < needle.len() {
            Some(self.holding(core))
        } else if one_line {
            self.holding
                .borrow()
                .iter()
                .find(|(k, _)| !k.is_empty() && needle.contains(k.as_str()))
                .map(|(_, found)| found.clone())
        } else {
            None
        };
        let found: Rc<[u32]> = match within {
            Some(within) => within
                .iter()
                .copied()
                .filter(|&i| self.text[self.index.full_range(i as usize)].contains(needle))
                .collect(),
            None => {
                let mut found = Vec::new();
                for hit in memchr::memmem::find_iter(self.text.as_bytes(), needle.as_bytes()) {
                    let i = self.index.line_of(hit) as u32;
                    if found.last() != Some(&i) {
                        found.push(i);
                    }
                }
                found.into()
            }
        };
        self.holding
            .borrow_mut()
            .push((needle.to_string(), found.clone()));
        found
    }

    /// The distinct keys of the lines under `norm`.
    pub fn dict(&self, norm: Norm) -> &Dict<'t> {
        self.keys.dict(norm, self.text, &self.index)
    }

    /// The key ids of the lines of `view` under `norm`.
    pub fn seq(&self, norm: Norm, view: View) -> &Seq {
        self.keys.seq(norm, view, self.text, &self.index)
    }

    /// Whether the text is ASCII (checked once).
    pub fn is_ascii(&self) -> bool {
        self.keys.is_ascii(self.text)
    }

    /// Whether a search under `norm` should use the key index (see
    /// [`KeyIndex::wanted`]); counts the search.
    pub fn keys_wanted(&self, norm: Norm) -> bool {
        self.keys.wanted(norm)
    }

    /// The lines that are not blank, in order.
    pub fn non_blank(&self) -> &[u32] {
        self.keys.non_blank(self.text, &self.index)
    }

    /// Whether line `i` is blank (whitespace only).
    pub fn is_blank(&self, i: usize) -> bool {
        keys::is_blank(&self.text[self.index.full_range(i)])
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

/// Every start line (a position of `view`) where each search line's key
/// under `norm` is the file line's. The search's lines are as written.
pub fn find_keys(file: &Lines, view: View, norm: Norm, search: &[&str]) -> Vec<usize> {
    if search.is_empty() || search.len() > file.len() {
        return Vec::new();
    }
    if !file.keys_wanted(norm) {
        let keys: Vec<Cow<str>> = search.iter().map(|s| norm.key(s)).collect();
        // A line whose key is the first search line's contains that key,
        // but under folding, which changes characters (unless the text is
        // ASCII: then folding leaves it as trimmed).
        let needle = (norm != Norm::Fold || file.is_ascii()).then_some(keys[0].as_ref());
        let scanned = scan(file, view, search.len(), needle, |line, j| {
            norm.key(line) == keys[j]
        });
        if let Some(starts) = scanned {
            return starts;
        }
    }
    let dict = file.dict(norm);
    let want: Option<Vec<Want>> = search
        .iter()
        .map(|s| dict.id(&norm.key(s)).map(Want::One))
        .collect();
    // A search line no file line has: no window.
    match want {
        Some(want) => windows::find(file.seq(norm, view), &want),
        None => Vec::new(),
    }
}

/// Every start (a position of `view`) of a window of `n` lines where
/// `eq(line, j)` holds for each of its lines, by trying each start: the
/// first line filters, the rest are compared on a hit. When every first
/// line that can match contains `needle` (not empty), only the lines where
/// `memmem` finds it are tried. `None` when the hits cost more than a few
/// scans of the text (a search whose first line is nearly everywhere): the
/// caller then uses the line-key index, which is linear whatever the search.
pub fn scan(
    file: &Lines,
    view: View,
    n: usize,
    needle: Option<&str>,
    eq: impl Fn(&str, usize) -> bool,
) -> Option<Vec<usize>> {
    if let (View::NonBlank, Some(needle)) = (view, needle.filter(|s| !s.is_empty())) {
        return scan_non_blank(file, n, needle, eq);
    }
    let at: &[u32] = match view {
        View::All => &[],
        View::NonBlank => file.non_blank(),
    };
    let len = match view {
        View::All => file.len(),
        View::NonBlank => at.len(),
    };
    let line = |k: usize| match view {
        View::All => file.line(k),
        View::NonBlank => file.line(at[k] as usize),
    };
    if n == 0 || n > len {
        return Some(Vec::new());
    }
    let mut budget = 4 * (len + n) + 4096;
    let mut starts = Vec::new();
    let mut try_start = |k: usize| -> Option<()> {
        if k + n > len || !eq(line(k), 0) {
            return Some(());
        }
        budget = budget.checked_sub(n)?;
        if (1..n).all(|j| eq(line(k + j), j)) {
            starts.push(k);
        }
        Some(())
    };
    match needle.filter(|s| !s.is_empty()) {
        Some(needle) => {
            for &i in file.holding(needle).iter() {
                let i = i as usize;
                let k = match view {
                    View::All => i,
                    View::NonBlank => match at.binary_search(&(i as u32)) {
                        Ok(k) => k,
                        Err(_) => continue,
                    },
                };
                try_start(k)?;
            }
        }
        None => {
            for k in 0..=len - n {
                try_start(k)?;
            }
        }
    }
    Some(starts)
}

/// [`scan`] over the non-blank lines with a needle: from each line holding
/// it, the window's lines are the non-blank lines that follow, walked to
/// while they match. The index of the non-blank lines (a pass over every
/// line) is built only when a window matches, for its position. Every
/// line walked, blank or not, counts against the budget.
fn scan_non_blank(
    file: &Lines,
    n: usize,
    needle: &str,
    eq: impl Fn(&str, usize) -> bool,
) -> Option<Vec<usize>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let mut budget = 4 * (file.len() + n) + 4096;
    let mut found = Vec::new();
    for &i in file.holding(needle).iter() {
        let i = i as usize;
        if file.is_blank(i) || !eq(file.line(i), 0) {
            continue;
        }
        let (mut j, mut next) = (1, i + 1);
        while j < n && next < file.len() {
            budget = budget.checked_sub(1)?;
            if !file.is_blank(next) {
                if !eq(file.line(next), j) {
                    break;
                }
                j += 1;
            }
            next += 1;
        }
        if j == n {
            found.push(i);
        }
    }
    if found.is_empty() {
        return Some(found);
    }
    let at = file.non_blank();
    Some(
        found
            .into_iter()
            .filter_map(|i| at.binary_search(&(i as u32)).ok())
            .collect(),
    )
}

/// The candidates of a line pass other than fuzzy, as start lines.
pub fn find_line_pass(pass: Pass, file: &Lines, search: &[&str]) -> Vec<usize> {
    find_line_pass_in(pass, file, View::All, search)
}

/// [`find_line_pass`] over the lines of `view`: start positions in it.
pub fn find_line_pass_in(pass: Pass, file: &Lines, view: View, search: &[&str]) -> Vec<usize> {
    match pass {
        Pass::TrailingWhitespace => trailing_whitespace::find_in(file, view, search),
        Pass::Trimmed => trimmed::find_in(file, view, search),
        Pass::BoundaryPrefix => boundary_prefix::find_in(file, view, search),
        Pass::Unicode => unicode::find_in(file, view, search),
        Pass::Exact => find_keys(file, view, Norm::Exact, search),
        Pass::Substring | Pass::Fuzzy => Vec::new(),
    }
}

/// Whole-line exact matching over a materialized text (the fast path for
/// exact matching lives in `resolve::doc`; this one serves re-tries).
pub fn exact_lines(file: &Lines, search: &[&str]) -> Vec<usize> {
    find_keys(file, View::All, Norm::Exact, search)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a search line sits in the search (the reference's pass 4).
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum LineRole {
        Only,
        First,
        Interior,
        Last,
    }

    impl LineRole {
        fn of(j: usize, n: usize) -> LineRole {
            match (j, n) {
                (_, 1) => LineRole::Only,
                (0, _) => LineRole::First,
                (j, n) if j + 1 == n => LineRole::Last,
                _ => LineRole::Interior,
            }
        }
    }

    /// The plain window scan the passes used before the key index: every
    /// start line `i` where `eq(file line i + j, search[j], role)` holds
    /// for all `j`, the search's lines normalized by the pass.
    fn naive_windows(
        file: &[&str],
        search: &[String],
        eq: impl Fn(&str, &str, LineRole) -> bool,
    ) -> Vec<usize> {
        let n = search.len();
        if n == 0 || n > file.len() {
            return Vec::new();
        }
        (0..=file.len() - n)
            .filter(|&i| (0..n).all(|j| eq(file[i + j], &search[j], LineRole::of(j, n))))
            .collect()
    }

    /// Each pass as it was written before the index, over lines as given.
    fn naive_pass(pass: Pass, file: &[&str], search: &[&str]) -> Vec<usize> {
        let map = |f: fn(&str) -> String| -> Vec<String> { search.iter().map(|s| f(s)).collect() };
        match pass {
            Pass::Exact => naive_windows(file, &map(|s| s.to_string()), |f, s, _| f == s),
            Pass::TrailingWhitespace => {
                naive_windows(file, &map(|s| s.trim_end().to_string()), |f, s, _| {
                    f.trim_end() == s
                })
            }
            Pass::Trimmed => naive_windows(file, &map(|s| s.trim().to_string()), |f, s, _| {
                f.trim() == s
            }),
            Pass::BoundaryPrefix => {
                naive_windows(file, &map(|s| s.trim().to_string()), |f, s, role| {
                    let f = f.trim();
                    match role {
                        LineRole::Interior => f == s,
                        _ => f == s || boundary_prefix::is_truncated_prefix(s, f),
                    }
                })
            }
            Pass::Unicode => naive_windows(
                file,
                &map(|s| unicode::fold(s.trim()).into_owned()),
                |f, s, _| unicode::fold(f.trim()) == s,
            ),
            Pass::Substring | Pass::Fuzzy => Vec::new(),
        }
    }

    /// More searches than a text gets before its index is built.
    const SCANS: usize = 8;

    const LINE_PASSES: [Pass; 5] = [
        Pass::Exact,
        Pass::TrailingWhitespace,
        Pass::Trimmed,
        Pass::BoundaryPrefix,
        Pass::Unicode,
    ];

    use crate::test_rng::Rng;

    /// Lines that differ only by whitespace, typography, truncation and
    /// blankness: what the passes tell apart or join.
    const STOCK: [&str; 16] = [
        "let total = sum(items);",
        "  let total = sum(items);",
        "let total = sum(items);  ",
        "\tlet total = sum(items);\t",
        "let total = sum(items)",
        "let total",
        "",
        "   ",
        "\t",
        "msg = \u{201C}Don\u{2019}t\u{201D}",
        "msg = \"Don't\"",
        "caf\u{0065}\u{0301} \u{2014} ok",
        "caf\u{00E9} - ok",
        "}",
        "    }",
        "x\r",
    ];

    #[test]
    fn indexed_passes_equal_the_plain_scan() {
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for round in 0..1500 {
            let stock = 2 + rng.below(STOCK.len() - 1);
            let count = rng.below(40);
            let file_lines: Vec<&str> = (0..count).map(|_| STOCK[rng.below(stock)]).collect();
            let ending = if round % 2 == 0 { "\n" } else { "\r\n" };
            let mut text: String = file_lines.iter().map(|l| format!("{l}{ending}")).collect();
            if round % 5 == 0 {
                // No final line break.
                text.truncate(text.len().saturating_sub(ending.len()));
            }
            let lines = Lines::new(&text);
            let as_read: Vec<&str> = (0..lines.len()).map(|i| lines.line(i)).collect();
            // Searches: a copy of a window (often matching), or lines drawn
            // from the stock (often not).
            let n = 1 + rng.below(5);
            let search: Vec<&str> = if !as_read.is_empty() && rng.below(2) == 0 {
                let s = rng.below(as_read.len());
                as_read[s..(s + n).min(as_read.len())].to_vec()
            } else {
                (0..n).map(|_| *rng.pick(&STOCK)).collect()
            };
            // Scanned (a text searched once per pass) and indexed (a text
            // searched again and again).
            let indexed = Lines::new(&text);
            for norm in [Norm::Exact, Norm::TrimEnd, Norm::Trim, Norm::Fold] {
                for _ in 0..=SCANS {
                    indexed.keys_wanted(norm);
                }
            }
            let at: Vec<usize> = (0..as_read.len())
                .filter(|&i| !as_read[i].trim().is_empty())
                .collect();
            let compact: Vec<&str> = at.iter().map(|&i| as_read[i]).collect();
            // One text searched by every pass and view in turn (the lines
            // holding a needle found once, shared).
            let shared = Lines::new(&text);
            for pass in LINE_PASSES {
                let want = naive_pass(pass, &as_read, &search);
                assert_eq!(
                    find_line_pass(pass, &shared, &search),
                    want,
                    "shared {pass:?} {text:?} {search:?}"
                );
                assert_eq!(
                    find_line_pass_in(pass, &shared, View::NonBlank, &search),
                    naive_pass(pass, &compact, &search),
                    "shared non-blank {pass:?} {text:?} {search:?}"
                );
                let scanned = Lines::new(&text);
                assert_eq!(
                    find_line_pass(pass, &scanned, &search),
                    want,
                    "{pass:?} {text:?} {search:?}"
                );
                assert_eq!(
                    find_line_pass(pass, &indexed, &search),
                    want,
                    "indexed {pass:?} {text:?} {search:?}"
                );
                // The non-blank view against a copy of the non-blank lines.
                let want = naive_pass(pass, &compact, &search);
                let scanned = Lines::new(&text);
                assert_eq!(
                    find_line_pass_in(pass, &scanned, View::NonBlank, &search),
                    want,
                    "non-blank {pass:?} {text:?} {search:?}"
                );
                assert_eq!(
                    find_line_pass_in(pass, &indexed, View::NonBlank, &search),
                    want,
                    "indexed non-blank {pass:?} {text:?} {search:?}"
                );
            }
            assert_eq!(
                indexed.non_blank(),
                at.iter().map(|&i| i as u32).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn long_searches_over_identical_lines_are_linear() {
        let text = "a = 0\n".repeat(200_000);
        let lines = Lines::new(&text);
        let mut search = vec!["a = 0"; 5_000];
        search.push("zzz");
        let started = std::time::Instant::now();
        for pass in LINE_PASSES {
            assert!(find_line_pass(pass, &lines, &search).is_empty());
        }
        search.pop();
        search.push("  a = 0  ");
        assert_eq!(
            find_line_pass(Pass::Trimmed, &lines, &search).len(),
            200_000 - 5_001 + 1
        );
        // The plain scan took a minute in an optimized build.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
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
