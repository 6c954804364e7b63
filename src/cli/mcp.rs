//! `llm-edit-lsp mcp`: the flags → [`crate::mcp::Config`], then the server.

use std::process::ExitCode;

use anyhow::{bail, Context};

use super::args::McpArgs;
use crate::mcp::Config;

/// Serves MCP over stdio until the client closes it.
pub fn run(args: &McpArgs, log_level: Option<&str>) -> anyhow::Result<ExitCode> {
    // The log goes to stderr (stdout is the protocol's).
    crate::lsp::init_tracing(log_level);
    if let Some(t) = args.fuzzy {
        if !(t > 0.0 && t <= 1.0) {
            bail!("--fuzzy takes a threshold between 0 and 1 (e.g. 0.9), not {t}");
        }
    }
    let deadline = match args.deadline {
        None => crate::engine::DEFAULT_DEADLINE,
        Some(s) => crate::engine::deadline_from_secs(s).with_context(|| {
            format!("--deadline takes a number of seconds above 0 (at most 3600), not {s}")
        })?,
    };
    crate::mcp::serve(Config {
        roots: args.root.clone(),
        on_conflict: args.on_conflict.into(),
        require_read: args.require_read,
        deadline,
        match_mode: args.match_mode.into(),
        fuzzy: args.fuzzy,
    })
}
