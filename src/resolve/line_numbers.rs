//! Line-number prefixes copied from a `read_file` view (`12 | code`,
//! `12: code`, `12\tcode`, `12→code`): recognised only when every non-blank
//! search line carries one, with the same separator and rising numbers, so
//! that code that merely starts with a number is never taken for one.

/// The separators a numbered view puts after the number.
const SEPARATORS: [&str; 5] = [" | ", "|", ": ", "\t", "→"];

/// `(number, prefix length in bytes, separator)` of a numbered line.
fn prefix(line: &str) -> Option<(usize, usize, &'static str)> {
    let lead = line.len() - line.trim_start_matches(' ').len();
    let digits = line[lead..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 7 {
        return None;
    }
    let number: usize = line[lead..lead + digits].parse().ok()?;
    let rest = &line[lead + digits..];
    let sep = SEPARATORS.into_iter().find(|s| rest.starts_with(s))?;
    let mut len = lead + digits + sep.len();
    // `12 | ` may be written `12 |` before an empty line.
    if sep == "|" && line[len..].starts_with(' ') {
        len += 1;
    }
    Some((number, len, sep))
}

/// The search and replacement without their prefixes, when every
/// non-blank search line carries one consistently. Replacement lines lose
/// a prefix of the same form; lines without one are kept as written.
pub fn strip(search: &str, replace: &str) -> Option<(String, String)> {
    let mut sep: Option<&str> = None;
    let mut last: Option<usize> = None;
    let mut out = String::with_capacity(search.len());
    let mut numbered = 0;
    for line in search.lines() {
        match prefix(line) {
            Some((n, len, s)) => {
                if sep.is_some_and(|x| x != s) || last.is_some_and(|l| n <= l) {
                    return None;
                }
                sep = Some(s);
                last = Some(n);
                numbered += 1;
                out.push_str(&line[len..]);
            }
            None if line.trim().is_empty() => out.push_str(line),
            None => return None,
        }
        out.push('\n');
    }
    let sep = sep?;
    if numbered < 1 {
        return None;
    }
    let mut new = String::with_capacity(replace.len());
    for line in replace.lines() {
        match prefix(line) {
            Some((_, len, s)) if s == sep => new.push_str(&line[len..]),
            _ => new.push_str(line),
        }
        new.push('\n');
    }
    if !replace.ends_with('\n') {
        new.pop();
    }
    if !search.ends_with('\n') {
        out.pop();
    }
    Some((out, new))
}

/// Does every non-blank line of `search` carry a line-number prefix?
pub fn numbered(search: &str) -> bool {
    strip(search, "").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_consistent_rising_prefixes() {
        let (s, r) = strip(
            "12 | def f():\n13 |     pass\n",
            "12 | def f():\n    return 1\n",
        )
        .unwrap();
        assert_eq!(s, "def f():\n    pass\n");
        assert_eq!(r, "def f():\n    return 1\n");
        let (s, _) = strip("7\tx = 1\n8\ty = 2\n", "").unwrap();
        assert_eq!(s, "x = 1\ny = 2\n");
    }

    #[test]
    fn leaves_code_that_starts_with_numbers() {
        assert!(strip("1: first\nsecond\n", "").is_none());
        assert!(strip("3: a\n2: b\n", "").is_none());
        assert!(strip("1: a\n2 | b\n", "").is_none());
    }
}
