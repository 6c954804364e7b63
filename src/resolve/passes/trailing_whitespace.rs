//! Pass 2: lines equal once trailing whitespace is trimmed.

use super::{find_windows, Lines};

/// Start lines where every line matches with trailing whitespace trimmed.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    let search: Vec<String> = search.iter().map(|s| s.trim_end().to_string()).collect();
    find_windows(file, &search, |f, s, _| f.trim_end() == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_trailing_spaces_only() {
        let file = Lines::new("def f():  \n    pass\t\n");
        assert_eq!(find(&file, &["def f():", "    pass"]), vec![0]);
        assert!(find(&file, &["def f():", "pass"]).is_empty());
    }
}
