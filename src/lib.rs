//! llm-edit-lsp: turn what an LLM wrote into precise, all-or-nothing edits.
//!
//! The pipeline runs one way:
//!
//! ```text
//! payload ──parse──▶ model::EditBatch ──resolve──▶ located edits
//!         ──plan──▶ plan::Plan (sorted, disjoint edits per file) ──▶ CLI | LSP
//! ```
//!
//! See `docs/architecture.md` for the map and the invariants.

pub mod agent;
pub mod cli;
pub mod context;
pub mod cores;
pub mod disk;
pub mod engine;
pub mod error;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod merge;
pub mod model;
pub mod parse;
pub mod plan;
pub mod prompt;
pub mod report;
pub mod resolve;
pub mod retry;
pub mod status;
pub mod syntax;
#[cfg(test)]
mod test_rng;
pub mod text;
pub mod workspace;
pub mod write;
