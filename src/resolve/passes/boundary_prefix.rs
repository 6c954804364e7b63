//! Pass 4: the first and last search lines may be truncated prefixes of the
//! file's lines (at least 8 non-blank characters); interior lines must be
//! equal once trimmed. Models often copy only the start of a long context
//! line (`// ParseConfig` for `// ParseConfig reads a configuration file`).

use super::keys::{Dict, Norm, View};
use super::windows::{self, Want};
use super::{scan, Lines};

/// How many non-blank characters a truncated boundary line must keep.
pub const MIN_PREFIX_CHARS: usize = 8;

/// Start lines where the search matches with truncated boundary lines.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    find_in(file, View::All, search)
}

/// [`find`] over the lines of `view`: interior lines want their trimmed
/// key; a boundary line (first or last) any trimmed key it equals or is a
/// truncated prefix of.
pub fn find_in(file: &Lines, view: View, search: &[&str]) -> Vec<usize> {
    let n = search.len();
    if n == 0 || n > file.len() {
        return Vec::new();
    }
    if !file.keys_wanted(Norm::Trim) {
        let trimmed: Vec<&str> = search.iter().map(|s| s.trim()).collect();
        // The first line is the file line's start (or all of it).
        let scanned = scan(file, view, n, Some(trimmed[0]), |f, j| {
            let (f, s) = (f.trim(), trimmed[j]);
            f == s || ((j == 0 || j + 1 == n) && is_truncated_prefix(s, f))
        });
        if let Some(starts) = scanned {
            return starts;
        }
    }
    let dict = file.dict(Norm::Trim);
    let mut want = Vec::with_capacity(n);
    for (j, line) in search.iter().enumerate() {
        let s = line.trim();
        let w = if j == 0 || j + 1 == n {
            boundary(dict, s)
        } else {
            dict.id(s).map(Want::One)
        };
        match w {
            Some(w) => want.push(w),
            None => return Vec::new(),
        }
    }
    windows::find(file.seq(Norm::Trim, view), &want)
}

/// The keys a trimmed boundary line `s` accepts: itself, and those it is
/// a truncated prefix of; `None` when there are none.
fn boundary(dict: &Dict, s: &str) -> Option<Want> {
    let equal = dict.id(s);
    if s.chars().filter(|c| !c.is_whitespace()).count() < MIN_PREFIX_CHARS {
        return equal.map(Want::One);
    }
    let mut ids: Vec<u32> = dict
        .with_prefix(s)
        .filter(|&id| Some(id) == equal || is_truncated_prefix(s, dict.key(id)))
        .collect();
    ids.sort_unstable();
    match ids.as_slice() {
        [] => None,
        [one] => Some(Want::One(*one)),
        _ => Some(Want::AnyOf(ids)),
    }
}

/// Is `search` a long enough proper prefix of `file` (both trimmed)?
pub fn is_truncated_prefix(search: &str, file: &str) -> bool {
    search.chars().filter(|c| !c.is_whitespace()).count() >= MIN_PREFIX_CHARS
        && file.len() > search.len()
        && file.starts_with(search)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_truncated_boundaries_only() {
        let file = Lines::new(
            "// ParseConfig reads a configuration file\nfunc ParseConfig() {\n\treturn nil\n}\n",
        );
        assert_eq!(
            find(&file, &["// ParseConfig", "func ParseConfig() {"]),
            vec![0]
        );
        // Too short to be trusted.
        assert!(find(&file, &["// Parse", "func ParseConfig() {"]).is_empty());
        // Interior lines are never truncated.
        assert!(find(&file, &["// ParseConfig", "func Parse", "\treturn nil"]).is_empty());
    }
}
