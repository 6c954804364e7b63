//! The `unified_diff` format (FORMATS.md §2). Scaffolding: replaced by the real parser.

use super::{Block, Scan};

/// Does a `unified_diff` block open at 0-based line `i`?
pub fn opens(_scan: &Scan, _i: usize) -> bool {
    false
}

/// Parses the `unified_diff` block opening at 0-based line `i`.
pub fn parse(_scan: &mut Scan, i: usize) -> Block {
    Block {
        next_line: i + 1,
        ..Block::default()
    }
}
