//! The `find_replace` format (FORMATS.md §2). Scaffolding: replaced by the real parser.

use super::{Block, Scan};

/// Does a `find_replace` block open at 0-based line `i`?
pub fn opens(_scan: &Scan, _i: usize) -> bool {
    false
}

/// Parses the `find_replace` block opening at 0-based line `i`.
pub fn parse(_scan: &mut Scan, i: usize) -> Block {
    Block {
        next_line: i + 1,
        ..Block::default()
    }
}
