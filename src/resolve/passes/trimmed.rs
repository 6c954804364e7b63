//! Pass 3: lines equal once all surrounding whitespace is trimmed (the
//! replacement is then re-indented, see `resolve::replacement`).

use super::keys::{Norm, View};
use super::{find_keys, Lines};

/// Start lines where every line matches with surrounding whitespace trimmed.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    find_in(file, View::All, search)
}

/// [`find`] over the lines of `view`.
pub fn find_in(file: &Lines, view: View, search: &[&str]) -> Vec<usize> {
    find_keys(file, view, Norm::Trim, search)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_indentation() {
        let file = Lines::new("\tif x {\n\t\treturn\n\t}\n");
        assert_eq!(find(&file, &["if x {", "    return", "}"]), vec![0]);
    }
}
