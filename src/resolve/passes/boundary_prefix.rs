//! Pass 4: the first and last search lines may be truncated prefixes of the
//! file's lines (at least 8 non-blank characters); interior lines must be
//! equal once trimmed. Models often copy only the start of a long context
//! line (`// ParseConfig` for `// ParseConfig reads a configuration file`).

use super::{find_windows, LineRole, Lines};

/// How many non-blank characters a truncated boundary line must keep.
pub const MIN_PREFIX_CHARS: usize = 8;

/// Start lines where the search matches with truncated boundary lines.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    let search: Vec<String> = search.iter().map(|s| s.trim().to_string()).collect();
    find_windows(file, &search, |f, s, role| {
        let f = f.trim();
        match role {
            LineRole::Interior => f == s,
            LineRole::First | LineRole::Last | LineRole::Only => {
                f == s || is_truncated_prefix(s, f)
            }
        }
    })
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
