//! Pass 2: lines equal once trailing whitespace is trimmed.

use super::keys::{Norm, View};
use super::{find_keys, Lines};

/// Start lines where every line matches with trailing whitespace trimmed.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    find_in(file, View::All, search)
}

/// [`find`] over the lines of `view`.
pub fn find_in(file: &Lines, view: View, search: &[&str]) -> Vec<usize> {
    find_keys(file, view, Norm::TrimEnd, search)
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
