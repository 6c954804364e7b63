//! The real (before, after) file pairs of `../shared/stress/pairs.jsonl`.
//!
//! Each pair's `regions` are difflib opcodes: `[b0, b1, a0, a1]`, 0-based
//! and half-open (`before[b0..b1]` became `after[a0..a1]`; an empty side has
//! `b0 == b1`). Every pair is checked on load by rebuilding `after` from
//! `before` and its regions; a pair that does not rebuild is kept (so that
//! a pair's index stays its line in the file) but gives no case.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One real file change.
#[derive(Clone, Debug, Deserialize)]
pub struct Pair {
    /// `owner/name` of the project.
    pub repo: String,
    /// `python` or `go`.
    pub lang: String,
    /// The commit that made the change.
    pub commit: String,
    /// The file's path in the project.
    pub path: String,
    /// The whole file before.
    pub before: String,
    /// The whole file after: the intended result of every payload.
    pub after: String,
    /// Changed regions, difflib opcodes (see the module doc).
    pub regions: Vec<[usize; 4]>,
}

impl Pair {
    /// The before lines (no line breaks).
    pub fn before_lines(&self) -> Vec<String> {
        self.before.lines().map(str::to_owned).collect()
    }

    /// The after lines (no line breaks).
    pub fn after_lines(&self) -> Vec<String> {
        self.after.lines().map(str::to_owned).collect()
    }

    /// True when `after` is `before` with the regions applied, and the
    /// regions are sorted and disjoint; both files end with a newline.
    pub fn is_consistent(&self) -> bool {
        let (b, a) = (self.before_lines(), self.after_lines());
        let mut rebuilt: Vec<&String> = Vec::new();
        let mut next = 0;
        for &[b0, b1, a0, a1] in &self.regions {
            if b0 < next
                || b1 < b0
                || a1 < a0
                || b1 > b.len()
                || a1 > a.len()
                || (b0 == b1 && a0 == a1)
            {
                return false;
            }
            rebuilt.extend(&b[next..b0]);
            rebuilt.extend(&a[a0..a1]);
            next = b1;
        }
        rebuilt.extend(&b[next..]);
        !self.regions.is_empty()
            && self.before.ends_with('\n')
            && self.after.ends_with('\n')
            && !self.before.contains('\r')
            && rebuilt.len() == a.len()
            && rebuilt.iter().zip(&a).all(|(x, y)| *x == y)
    }
}

/// The shared folder: `LLM_EDIT_SHARED`, else `../shared` beside the
/// repository (as the tests find it).
pub fn shared_dir() -> PathBuf {
    std::env::var_os("LLM_EDIT_SHARED").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")),
        PathBuf::from,
    )
}

/// Loads every pair of a `pairs.jsonl` (index = 0-based line).
pub fn load(path: &Path) -> Result<Vec<Pair>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(before: &str, after: &str, regions: Vec<[usize; 4]>) -> Pair {
        Pair {
            repo: "o/r".into(),
            lang: "python".into(),
            commit: "c".into(),
            path: "a.py".into(),
            before: before.into(),
            after: after.into(),
            regions,
        }
    }

    #[test]
    fn regions_are_zero_based_half_open() {
        assert!(pair("a\nb\nc\n", "a\nX\nY\nc\n", vec![[1, 2, 1, 3]]).is_consistent());
        assert!(pair("a\nb\nc\n", "b\nc\n", vec![[0, 1, 0, 0]]).is_consistent());
        assert!(pair("a\nb\n", "a\nb\nc\n", vec![[2, 2, 2, 3]]).is_consistent());
        // The 1-based inclusive reading of the same change does not rebuild.
        assert!(!pair("a\nb\nc\n", "a\nX\nY\nc\n", vec![[2, 2, 2, 3]]).is_consistent());
        assert!(!pair("a\nb", "a\nc", vec![[1, 2, 1, 2]]).is_consistent());
    }
}
