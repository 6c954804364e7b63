//! The replacement text of a tolerant match (`FORMATS.md` §3 precise rules).
//!
//! - Replacement lines that a line diff pairs with an *equal* search line
//!   (unchanged context) are written as the file's line, byte for byte; so a
//!   truncated boundary line (pass 4) comes out as the file's full line.
//! - Changed lines come from the payload, re-indented when the search's
//!   indentation differed from the file's: the shift between the file's and
//!   the search's indentation of the first non-blank matched line applies to
//!   every replacement line, except lines paired with a search line whose
//!   indentation already equalled the file's, and except when `old` and
//!   `new` disagree on their first non-blank line's indentation (the model
//!   fixed it in `new`). A tab-indented file gets tabs.

use similar::{capture_diff_slices, Algorithm, DiffOp};

use super::passes::Pass;

/// Builds the lines replacing the matched `file` lines (as many as
/// `search`), from the payload's `search` and `replace` lines.
pub fn build(pass: Pass, file: &[&str], search: &[&str], replace: &[&str]) -> Vec<String> {
    if !pass.is_tolerant() {
        return replace.iter().map(|l| l.to_string()).collect();
    }
    let shift = Shift::new(pass, file, search, replace);
    let reindent = |line: &str, paired: Option<usize>| -> String {
        match (&shift, paired) {
            (None, _) => line.to_string(),
            (Some(_), Some(s)) if indent(search[s]) == indent(file[s]) => line.to_string(),
            (Some(shift), _) => shift.apply(line),
        }
    };
    let mut out = Vec::with_capacity(replace.len());
    for op in capture_diff_slices(Algorithm::Myers, search, replace) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                out.extend((0..len).map(|t| file[old_index + t].to_string()));
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                out.extend((0..new_len).map(|t| reindent(replace[new_index + t], None)));
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                out.extend((0..new_len).map(|t| {
                    reindent(
                        replace[new_index + t],
                        (t < old_len).then_some(old_index + t),
                    )
                }));
            }
        }
    }
    out
}

/// The leading whitespace of a line.
pub fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The first non-blank line's index.
fn first_non_blank(lines: &[&str]) -> Option<usize> {
    lines.iter().position(|l| !l.trim().is_empty())
}

/// How to move replacement lines from the payload's indentation to the file's.
struct Shift {
    /// The file's indentation of the base line.
    file_base: String,
    /// The search's indentation width of the base line (payload columns).
    search_base: usize,
    /// Columns per indentation level in the payload.
    unit: usize,
    /// The file indents with tabs.
    tabs: bool,
}

impl Shift {
    /// The shift, or `None` when lines are written as given.
    fn new(pass: Pass, file: &[&str], search: &[&str], replace: &[&str]) -> Option<Shift> {
        if matches!(pass, Pass::TrailingWhitespace) {
            return None;
        }
        let base = first_non_blank(search)?;
        let first_new = first_non_blank(replace)?;
        if indent(search[base]) != indent(replace[first_new]) {
            return None;
        }
        let file_base = indent(file[base]).to_string();
        if file_base == indent(search[base])
            && !file.iter().zip(search).any(|(f, s)| indent(f) != indent(s))
        {
            return None;
        }
        let unit = payload_unit(search.iter().chain(replace));
        let tabs = file_base.starts_with('\t')
            || (file_base.is_empty() && file.iter().any(|l| l.starts_with('\t')));
        Some(Shift {
            search_base: width(indent(search[base]), unit),
            file_base,
            unit,
            tabs,
        })
    }

    fn apply(&self, line: &str) -> String {
        if line.trim().is_empty() {
            return line.to_string();
        }
        let delta = width(indent(line), self.unit) as isize - self.search_base as isize;
        let body = line.trim_start_matches([' ', '\t']);
        let indent = if self.tabs {
            let base_levels = self.file_base.chars().filter(|&c| c == '\t').count() as isize;
            let levels = (base_levels + delta.div_euclid(self.unit as isize)).max(0) as usize;
            let extra = delta.rem_euclid(self.unit as isize) as usize;
            format!("{}{}", "\t".repeat(levels), " ".repeat(extra))
        } else {
            let cols = (width(&self.file_base, self.unit) as isize + delta).max(0) as usize;
            " ".repeat(cols)
        };
        format!("{indent}{body}")
    }
}

/// Indentation width in columns, a tab counting as one level of `unit`.
fn width(indent: &str, unit: usize) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { unit } else { 1 })
        .sum()
}

/// The payload's columns per level: the greatest common divisor of its
/// space indentations (4 when it indents with tabs or not at all).
fn payload_unit<'a>(lines: impl Iterator<Item = &'a &'a str>) -> usize {
    let mut unit = 0;
    for line in lines {
        let ind = indent(line);
        if ind.is_empty() || ind.contains('\t') || line.trim().is_empty() {
            continue;
        }
        unit = gcd(unit, ind.len());
    }
    if unit < 2 {
        4
    } else {
        unit
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_unchanged_lines_from_the_file() {
        let file = ["x = 1   ", "y = 2"];
        let out = build(
            Pass::TrailingWhitespace,
            &file,
            &["x = 1", "y = 2"],
            &["x = 1", "y = 3"],
        );
        assert_eq!(out, ["x = 1   ", "y = 3"]);
    }

    #[test]
    fn reindents_under_indented_replacement() {
        let file = ["        if ok:", "            run()"];
        let search = ["if ok:", "    run()"];
        let replace = ["if ok:", "    run()", "    log()"];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out,
            ["        if ok:", "            run()", "            log()"]
        );
    }

    #[test]
    fn converts_spaces_to_tabs_in_tab_files() {
        let file = ["\tif err != nil {", "\t\treturn err", "\t}"];
        let search = ["    if err != nil {", "        return err", "    }"];
        let replace = [
            "    if err != nil {",
            "        return fmt.Errorf(\"x: %w\", err)",
            "    }",
        ];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(
            out,
            [
                "\tif err != nil {",
                "\t\treturn fmt.Errorf(\"x: %w\", err)",
                "\t}"
            ]
        );
    }

    #[test]
    fn model_fixed_indentation_in_new_is_kept() {
        let file = ["    def f():", "        pass"];
        let search = ["def f():", "    pass"];
        let replace = ["    def f():", "        return 1"];
        let out = build(Pass::Trimmed, &file, &search, &replace);
        assert_eq!(out, ["    def f():", "        return 1"]);
    }

    #[test]
    fn expands_truncated_boundary_lines() {
        let file = ["// ParseConfig reads a file", "func ParseConfig() {"];
        let search = ["// ParseConfig", "func ParseConfig() {"];
        let replace = ["// ParseConfig", "func ParseConfig(path string) {"];
        let out = build(Pass::BoundaryPrefix, &file, &search, &replace);
        assert_eq!(
            out,
            [
                "// ParseConfig reads a file",
                "func ParseConfig(path string) {"
            ]
        );
    }
}
