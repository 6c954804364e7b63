//! Pass 3: lines equal once all surrounding whitespace is trimmed (the
//! replacement is then re-indented, see `resolve::replacement`).

use super::{find_windows, Lines};

/// Start lines where every line matches with surrounding whitespace trimmed.
pub fn find(file: &Lines, search: &[&str]) -> Vec<usize> {
    let search: Vec<String> = search.iter().map(|s| s.trim().to_string()).collect();
    find_windows(file, &search, |f, s, _| f.trim() == s)
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
