//! Text primitives shared by every stage: encodings and line endings.
//!
//! Offsets in the core are UTF-8 byte offsets into a decoded `String`;
//! LSP positions exist only in `crate::lsp` (its position module).

pub mod encoding;
pub mod hashed;
pub mod line_ending;
pub mod lines;
