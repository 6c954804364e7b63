//! Indentation: the file's style, the payload's unit, and moving a line
//! from the payload's indentation to the file's (`FORMATS.md` §3,
//! "Replacement lines are written in the file's indentation style").
//!
//! An indentation is measured as a *width* in one file's frame:
//! `levels × unit + extra` columns, where a tab-indented file counts a tab
//! as [`TAB_LEVEL`] columns (so alignment spaces after tabs never alias a
//! level) and a space-indented file counts spaces. A payload line's
//! indentation is converted into that frame through a payload unit (its
//! columns per level), which is one of the *readings* the replacement
//! builder may have to choose between.

use crate::text::lines::LineIndex;

/// Width of one tab level in a tab-indented file's frame.
pub const TAB_LEVEL: i64 = 1000;

/// How a file indents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// One tab per level (alignment spaces may follow).
    Tabs,
    /// Spaces, this many per level.
    Spaces(usize),
}

/// At most this many bytes of a file are read to infer its style.
const SAMPLE_BYTES: usize = 256 * 1024;

/// A file's style, inferred on first use: most exact edits never need
/// it (a search with an indented line shows the payload's style itself),
/// and inferring it is a pass over the file. Also a style already known
/// ([`From<Style>`]), for callers that name one.
#[derive(Clone, Copy, Debug)]
pub struct LazyStyle<'a>(Source<'a>);

#[derive(Clone, Copy, Debug)]
enum Source<'a> {
    Known(Style),
    File {
        text: &'a str,
        cell: &'a std::cell::OnceCell<Style>,
        /// The line index of `text`, when something built it: its lines
        /// are then read, not found again.
        index: Option<&'a std::cell::OnceCell<LineIndex>>,
    },
}

impl From<Style> for LazyStyle<'_> {
    fn from(style: Style) -> Self {
        LazyStyle(Source::Known(style))
    }
}

impl<'a> LazyStyle<'a> {
    /// The style of `text`, kept in `cell` once inferred.
    pub fn new(text: &'a str, cell: &'a std::cell::OnceCell<Style>) -> LazyStyle<'a> {
        LazyStyle(Source::File {
            text,
            cell,
            index: None,
        })
    }

    /// The same, reading `text`'s lines off `index` if it was built by
    /// then (it is not built for the style alone: a big file's index costs
    /// more than the sample the style reads).
    pub fn with_index(
        text: &'a str,
        cell: &'a std::cell::OnceCell<Style>,
        index: &'a std::cell::OnceCell<LineIndex>,
    ) -> LazyStyle<'a> {
        LazyStyle(Source::File {
            text,
            cell,
            index: Some(index),
        })
    }

    /// The style ([`Style::infer`]).
    pub fn get(self) -> Style {
        match self.0 {
            Source::Known(style) => style,
            Source::File { text, cell, index } => {
                *cell.get_or_init(|| match index.and_then(|i| i.get()) {
                    Some(index) => Style::infer_indexed(text, index),
                    None => Style::infer(text),
                })
            }
        }
    }

    /// [`Style::width`], without inferring the style for an indentation
    /// with no tab: its width is its length in either style (a fuzzy or
    /// tolerant match of a space-indented file then never reads the
    /// file's sample).
    pub fn width(self, ind: &str) -> i64 {
        if ind.contains('\t') {
            self.get().width(ind)
        } else {
            ind.chars().count() as i64
        }
    }
}

/// Where the sample of `text` read for its style ends (a char boundary).
fn sample_end(text: &str) -> usize {
    let mut end = text.len().min(SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The counts [`Style::infer`] keeps, one line at a time.
#[derive(Default)]
struct Tally {
    tabs: usize,
    spaces: usize,
    steps: [usize; 9],
    prev: Option<usize>,
}

impl Tally {
    /// Counts one line (without its `\n`): a blank one (empty once
    /// trimmed) not at all, else its first indentation character and its
    /// step from the line before ([`step`], on bytes).
    fn line(&mut self, line: &[u8]) {
        // The indentation: spaces eight at a time (in the first eight
        // bytes that are not all spaces, the spaces before the first
        // other byte), then spaces and tabs.
        const SPACES: u64 = u64::from_le_bytes(*b"        ");
        let mut n = 0;
        while let Some(eight) = line.get(n..n + 8) {
            let other = u64::from_le_bytes(eight.try_into().expect("eight bytes")) ^ SPACES;
            if other != 0 {
                n += (other.trailing_zeros() / 8) as usize;
                break;
            }
            n += 8;
        }
        let mut has_tab = false;
        while n < line.len() && (line[n] == b' ' || line[n] == b'\t') {
            has_tab |= line[n] == b'\t';
            n += 1;
        }
        // Blank (`is_blank`): nothing after it, or only whitespace.
        let blank = match line.get(n) {
            None => true,
            Some(b) if b.is_ascii() && !b.is_ascii_whitespace() && *b != 0x0b => false,
            // A line starts and ends on char boundaries (`\n` is ASCII).
            Some(_) => std::str::from_utf8(line).is_ok_and(|l| l.trim().is_empty()),
        };
        if blank {
            return;
        }
        if line[0] == b'\t' {
            self.tabs += 1;
        } else if line.starts_with(b"  ") {
            self.spaces += 1;
        }
        // `step`.
        if has_tab {
            self.prev = None;
            return;
        }
        if let Some(p) = self.prev {
            if n > p && n - p <= 8 {
                self.steps[n - p] += 1;
            }
        }
        self.prev = Some(n);
    }

    fn style(&self) -> Style {
        if self.tabs == 0 && self.spaces == 0 {
            return Style::Spaces(4);
        }
        if self.tabs > self.spaces {
            return Style::Tabs;
        }
        Style::Spaces(step_unit(&self.steps).unwrap_or(4))
    }
}

impl Style {
    /// The style of `text`: tabs when more indented lines start with a tab
    /// than with two or more spaces; the space unit is the most common
    /// indentation step between consecutive lines (2, 3, 4 or 8), else 4.
    pub fn infer(text: &str) -> Style {
        let end = sample_end(text);
        // Lines found eight bytes at a time; each line's indentation read
        // once, byte by byte, with the counts `infer_lines` keeps (same
        // result: unit test `one_pass_inference_reads_as_the_lines_do`).
        let bytes = &text.as_bytes()[..end];
        let mut tally = Tally::default();
        let mut from = 0;
        crate::text::lines::for_each_newline(bytes, |to| {
            tally.line(&bytes[from..to]);
            from = to + 1;
        });
        // The last line, when no `\n` ends it.
        if bytes.last().is_some_and(|&b| b != b'\n') {
            tally.line(&bytes[from..]);
        }
        tally.style()
    }

    /// [`Style::infer`] with the lines read off `index`, the line index of
    /// `text` already built (the same result without a second pass for the
    /// line ends: unit test `the_indexed_inference_is_the_plain_one`).
    pub fn infer_indexed(text: &str, index: &LineIndex) -> Style {
        let end = sample_end(text);
        let bytes = text.as_bytes();
        let mut tally = Tally::default();
        for i in 0..index.len() {
            let range = index.full_range(i);
            if range.start >= end {
                break;
            }
            let to = if range.end > end {
                end
            } else if bytes[range.end - 1] == b'\n' {
                range.end - 1
            } else {
                range.end
            };
            tally.line(&bytes[range.start..to]);
        }
        tally.style()
    }

    /// The style shown by some lines, `None` when they show none.
    pub fn infer_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Option<Style> {
        let mut tally = Tally::default();
        for line in lines {
            tally.line(line.as_bytes());
        }
        (tally.tabs + tally.spaces > 0).then(|| tally.style())
    }

    /// Columns per level in this style's frame.
    pub fn level(self) -> i64 {
        match self {
            Style::Tabs => TAB_LEVEL,
            Style::Spaces(u) => u as i64,
        }
    }

    /// The width of an indentation written in this (the file's) style.
    pub fn width(self, ind: &str) -> i64 {
        let tabs = ind.chars().filter(|&c| c == '\t').count() as i64;
        let spaces = ind.chars().filter(|&c| c != '\t').count() as i64;
        match self {
            Style::Tabs => tabs * TAB_LEVEL + spaces,
            Style::Spaces(u) => tabs * u as i64 + spaces,
        }
    }

    /// The indentation of `width` in this style (`None` when negative).
    pub fn render(self, width: i64) -> Option<String> {
        if width < 0 {
            return None;
        }
        Some(match self {
            Style::Tabs => {
                let tabs = (width / TAB_LEVEL) as usize;
                let spaces = (width % TAB_LEVEL) as usize;
                format!("{}{}", "\t".repeat(tabs), " ".repeat(spaces))
            }
            Style::Spaces(_) => " ".repeat(width as usize),
        })
    }
}

/// The largest plausible unit (8, 4, 3 or 2 columns) that explains most
/// indentation steps; a step that is a multiple of a unit counts for it.
fn step_unit(steps: &[usize; 9]) -> Option<usize> {
    let score = |u: usize| -> usize { (u..=8).step_by(u).map(|s| steps[s]).sum() };
    let total: usize = steps[2..].iter().sum();
    if total == 0 {
        return None;
    }
    // A 4-space file has steps of 4 and 8, which 2 explains too: the
    // largest unit that explains most of them wins (continuation lines
    // aligned at odd columns are noise).
    [70usize, 50].into_iter().find_map(|pct| {
        [8usize, 4, 3, 2]
            .into_iter()
            .find(|&u| score(u) * 100 >= total * pct)
    })
}

/// How payload indentation is read: for a tab-indented file, how many
/// payload spaces make one level; for a space-indented file, how many
/// columns a payload tab stands for. `PayloadUnit::SAME`
/// reads the payload in the file's own frame: tabs are levels, spaces are
/// columns, nothing is converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayloadUnit(pub usize);

impl PayloadUnit {
    /// The payload is indented like the file.
    pub const SAME: PayloadUnit = PayloadUnit(0);

    /// The width, in the file's frame, of a payload line's indentation.
    pub fn width_in(self, file: LazyStyle, ind: &str) -> i64 {
        if self.0 == 0 {
            return file.width(ind);
        }
        let tabs = ind.chars().filter(|&c| c == '\t').count() as i64;
        let spaces = ind.chars().filter(|&c| c != '\t').count() as i64;
        let unit = self.0 as i64;
        match file.get() {
            // A payload tab stands for `unit` columns.
            Style::Spaces(_) => tabs * unit + spaces,
            // `unit` payload spaces make one tab level.
            Style::Tabs => (tabs + spaces / unit) * TAB_LEVEL + spaces % unit,
        }
    }
}

/// Whether a payload is indented in the other style than the file, and
/// so must be converted. The matched lines decide: the payload is foreign
/// when every indented search line starts with the other character than
/// its file line (spaces for a tab, or a tab for spaces). With no indented
/// search line to go by, the file's style decides: every indented payload
/// line starts with spaces in a tab-indented file, or with a tab in a
/// space-indented one. A payload that mixes styles as the file does
/// (spaces inside a tab-indented file's string literal) is never converted.
pub fn foreign<'a>(
    file: LazyStyle,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    payload: impl Iterator<Item = &'a str>,
) -> bool {
    let lead = |l: &str| indent(l).chars().next();
    let mut shown = None;
    for (s, f) in pairs {
        if s.trim().is_empty() || f.trim().is_empty() {
            continue;
        }
        match (lead(s), lead(f)) {
            (Some(a), Some(b)) if a != b => shown = Some(true),
            (Some(_), Some(_)) => return false,
            _ => {}
        }
    }
    if let Some(foreign) = shown {
        return foreign;
    }
    let mut any = false;
    for line in payload {
        let ind = indent(line);
        if line.trim().is_empty() || ind.is_empty() {
            continue;
        }
        let other = match file.get() {
            Style::Tabs => ind.starts_with(' ') && !ind.contains('\t') && ind.len() >= 2,
            Style::Spaces(_) => ind.starts_with('\t'),
        };
        if !other {
            return false;
        }
        any = true;
    }
    any
}

/// The payload units worth trying for `lines` against a file of `file`
/// style: the file's own unit (the payload may be written like the file)
/// and the unit the payload's own indentation steps show; when they show
/// none, every common unit (the search lines then decide, see
/// `replacement`).
pub fn payload_units<'a>(file: Style, lines: impl Iterator<Item = &'a str>) -> Vec<PayloadUnit> {
    let lines: Vec<&str> = lines.collect();
    let mut units = Vec::new();
    if let Style::Spaces(u) = file {
        units.push(PayloadUnit(u));
    }
    let uses_spaces = lines
        .iter()
        .any(|l| !l.trim().is_empty() && indent(l).contains(' '));
    let shown = step_unit(&space_steps(&lines));
    let extra: Vec<usize> = match (file, shown) {
        (Style::Tabs, Some(u)) => vec![u],
        (Style::Tabs, None) if uses_spaces => vec![4, 2, 8],
        // What a payload tab stands for: the search lines decide.
        _ => vec![4, 2, 8],
    };
    for u in extra {
        if !units.contains(&PayloadUnit(u)) {
            units.push(PayloadUnit(u));
        }
    }
    units
}

/// Histogram of the positive steps (1-8 columns) between consecutive
/// space-indented non-blank lines.
fn space_steps(lines: &[&str]) -> [usize; 9] {
    let mut steps = [0usize; 9];
    let mut prev: Option<usize> = None;
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        step(&mut steps, &mut prev, line);
    }
    steps
}

/// Counts the step from the previous space-indented line (`prev`, its
/// width) to `line`, not blank; a tab in the indentation breaks the run.
fn step(steps: &mut [usize; 9], prev: &mut Option<usize>, line: &str) {
    let ind = indent(line);
    if ind.contains('\t') {
        *prev = None;
        return;
    }
    let n = ind.len();
    if let Some(p) = *prev {
        if n > p && n - p <= 8 {
            steps[n - p] += 1;
        }
    }
    *prev = Some(n);
}

/// The leading whitespace of a line.
pub fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_tabs_and_space_units() {
        assert_eq!(
            Style::infer("func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"),
            Style::Tabs
        );
        assert_eq!(
            Style::infer("def f():\n    if x:\n        return\n    y = 1\n"),
            Style::Spaces(4)
        );
        assert_eq!(
            Style::infer("function f() {\n  if (x) {\n    return;\n  }\n}\n"),
            Style::Spaces(2)
        );
        // A continuation aligned at an odd column does not change the unit.
        assert_eq!(
            Style::infer("def f(a,\n      b):\n    if a:\n        return b\n    for x in a:\n        if x:\n            return x\n    return a\n"),
            Style::Spaces(4)
        );
    }

    #[test]
    fn a_lazy_width_is_the_style_width_and_infers_only_for_tabs() {
        // Indentations of spaces, tabs, both and other whitespace, in
        // every style: the lazy width is the style's own, and a file's
        // style is inferred only for an indentation holding a tab.
        let mut rng = crate::test_rng::Rng::new(0x1D3E_57A7_E0F5);
        let texts = ["\tx\n\t\ty\n", "  x\n    y\n", "x\n\u{a0}y\n", ""];
        let pieces = [" ", "\t", "\u{a0}", "\u{3000}", "  "];
        for _ in 0..4000 {
            let ind: String = (0..rng.below(7)).map(|_| *rng.pick(&pieces)).collect();
            let text = *rng.pick(&texts);
            let cell = std::cell::OnceCell::new();
            let lazy = LazyStyle::new(text, &cell);
            let width = lazy.width(&ind);
            assert_eq!(cell.get().is_some(), ind.contains('\t'), "{ind:?}");
            assert_eq!(width, Style::infer(text).width(&ind), "{ind:?} in {text:?}");
            for style in [
                Style::Tabs,
                Style::Spaces(2),
                Style::Spaces(3),
                Style::Spaces(4),
            ] {
                let known = LazyStyle::from(style);
                assert_eq!(known.width(&ind), style.width(&ind), "{ind:?} {style:?}");
                for unit in [
                    PayloadUnit::SAME,
                    PayloadUnit(2),
                    PayloadUnit(4),
                    PayloadUnit(8),
                ] {
                    let plain = if unit == PayloadUnit::SAME {
                        style.width(&ind)
                    } else {
                        let tabs = ind.chars().filter(|&c| c == '\t').count() as i64;
                        let spaces = ind.chars().filter(|&c| c != '\t').count() as i64;
                        let u = unit.0 as i64;
                        match style {
                            Style::Spaces(_) => tabs * u + spaces,
                            Style::Tabs => (tabs + spaces / u) * TAB_LEVEL + spaces % u,
                        }
                    };
                    assert_eq!(
                        unit.width_in(known, &ind),
                        plain,
                        "{ind:?} {style:?} {unit:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn converts_payload_widths_into_the_file_frame() {
        let four = PayloadUnit(4);
        assert_eq!(four.width_in(Style::Tabs.into(), "        "), 2 * TAB_LEVEL);
        assert_eq!(four.width_in(Style::Tabs.into(), "\t  "), TAB_LEVEL + 2);
        assert_eq!(PayloadUnit(2).width_in(Style::Spaces(4).into(), "\t\t "), 5);
        assert_eq!(
            PayloadUnit::SAME.width_in(Style::Tabs.into(), "\t    "),
            TAB_LEVEL + 4
        );
        let none = std::iter::empty();
        assert!(foreign(
            Style::Tabs.into(),
            none,
            ["    x", "        y", "z"].into_iter()
        ));
        assert!(!foreign(
            Style::Tabs.into(),
            std::iter::empty(),
            ["\tx", "    y"].into_iter()
        ));
        // The matched lines outweigh the file's overall style.
        let pairs = [("\tx", "\tx")].into_iter();
        assert!(!foreign(
            Style::Spaces(3).into(),
            pairs,
            ["\tx", "\t\ty"].into_iter()
        ));
        assert_eq!(Style::Tabs.render(2 * TAB_LEVEL + 1), Some("\t\t ".into()));
        assert_eq!(Style::Spaces(4).render(-1), None);
    }

    #[test]
    fn one_pass_inference_reads_as_the_lines_do() {
        let texts = [
            "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
            "def f():\r\n    if x:\r\n        return\r\n   \r\n    y = 1\r\n",
            "a\n  b\n    c\n\t\td\n  \u{a0}\n      e\n",
            "\n\n",
            "",
            "x\n \t y\n   z\n",
            "  a\n\u{3000}\n    b\n \u{a0}c\n\t\u{85}\n      d\r\n\x0b\n  \x0b e\n        f",
            "\tx\n\t\ty\n  z\n    w\n\t\n \n",
            "é\n  ü\n      ß\n\u{2028}\n        ö\n",
        ];
        for t in texts {
            assert_eq!(
                Style::infer(t),
                Style::infer_lines(t.lines()).unwrap_or(Style::Spaces(4)),
                "{t:?}"
            );
        }
    }

    /// `Tally::line` (leading spaces eight at a time) counts as its
    /// definition does, byte by byte, on lines of every indentation.
    #[test]
    fn a_line_is_tallied_as_its_bytes_say() {
        fn line_plain(t: &mut Tally, line: &[u8]) {
            let n = line
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            let has_tab = line[..n].contains(&b'\t');
            let blank = std::str::from_utf8(line).is_ok_and(|l| l.trim().is_empty())
                || line[n..].is_empty();
            if blank {
                return;
            }
            if line[0] == b'\t' {
                t.tabs += 1;
            } else if line.starts_with(b"  ") {
                t.spaces += 1;
            }
            if has_tab {
                t.prev = None;
                return;
            }
            if let Some(p) = t.prev {
                if n > p && n - p <= 8 {
                    t.steps[n - p] += 1;
                }
            }
            t.prev = Some(n);
        }
        let mut rng = crate::test_rng::Rng::new(17);
        let pieces = [
            " ", "  ", "    ", "        ", "\t", "x", "é", "\u{a0}", "\r", "\x0b", "y z",
        ];
        let (mut fast, mut plain) = (Tally::default(), Tally::default());
        for _ in 0..20_000 {
            let line: String = (0..rng.below(12)).map(|_| *rng.pick(&pieces)).collect();
            fast.line(line.as_bytes());
            line_plain(&mut plain, line.as_bytes());
            assert_eq!(
                (fast.tabs, fast.spaces, fast.steps, fast.prev),
                (plain.tabs, plain.spaces, plain.steps, plain.prev),
                "{line:?}"
            );
        }
    }

    #[test]
    fn the_indexed_inference_is_the_plain_one() {
        let mut rng = crate::test_rng::Rng::new(11);
        let pieces = [
            "\t", "  ", "    ", " ", "x", "é", "\u{a0}", "\r", "\n", "\n", "\n",
        ];
        let mut texts: Vec<String> = (0..2_000)
            .map(|_| (0..rng.below(60)).map(|_| *rng.pick(&pieces)).collect())
            .collect();
        // Past the sample: the cut inside a line, on a line start, and
        // inside a multi-byte char.
        let line = "    def f(x):\n\tif x:\n        return\n";
        let long = line.repeat(SAMPLE_BYTES / line.len() + 2);
        for cut in [0, 1, 5, 13, 14] {
            let mut t = long[..SAMPLE_BYTES - cut].to_owned();
            t.push_str("éé\n  é\n");
            t.push_str(&long);
            texts.push(t);
        }
        texts.push(long);
        for t in &texts {
            assert_eq!(
                Style::infer_indexed(t, &LineIndex::new(t)),
                Style::infer(t),
                "{t:?}"
            );
        }
    }
}
