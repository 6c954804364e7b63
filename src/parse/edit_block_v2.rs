//! The `edit_block_v2` format (FORMATS.md §2). Scaffolding: replaced by the real parser.

use super::{Block, Scan};

/// Does a `edit_block_v2` block open at 0-based line `i`?
pub fn opens(_scan: &Scan, _i: usize) -> bool {
    false
}

/// Parses the `edit_block_v2` block opening at 0-based line `i`.
pub fn parse(_scan: &mut Scan, i: usize) -> Block {
    Block {
        next_line: i + 1,
        ..Block::default()
    }
}
