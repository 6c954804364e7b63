//! `llm-edit-lsp mcp`: the flags → [`crate::mcp::Config`], then the server.

use std::process::ExitCode;

use super::args::McpArgs;
use crate::mcp::Config;

/// Serves MCP over stdio until the client closes it.
pub fn run(args: &McpArgs, log_level: Option<&str>) -> anyhow::Result<ExitCode> {
    // The log goes to stderr (stdout is the protocol's).
    crate::lsp::init_tracing(log_level);
    let fuzzy = super::args::fuzzy_threshold(args.fuzzy)?;
    let deadline = super::args::deadline(args.deadline)?;
    crate::mcp::serve(Config {
        roots: args.root.clone(),
        on_conflict: args.on_conflict.into(),
        require_read: args.require_read,
        deadline,
        match_mode: args.match_mode.into(),
        fuzzy,
    })
}
