//! Pass 6: the search text as a raw substring, anywhere (block formats whose
//! search is a fragment of a line). Byte offsets, not lines.

/// Start offsets of every occurrence of `needle` in `text`.
pub fn find(text: &str, needle: &str) -> Vec<usize> {
    if needle.trim().is_empty() {
        return Vec::new();
    }
    crate::resolve::doc::find_overlapping(text.as_bytes(), needle.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fragments() {
        assert_eq!(find("let a = f(x); let b = f(x);", "f(x)"), vec![8, 22]);
        assert!(find("abc", "  ").is_empty());
    }
}
