//! Command-line arguments (clap).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::engine::{MatchMode, OnConflict};

/// Turn what an LLM wrote into precise edits: a language server (the
/// default, over stdio) and a CLI that applies payloads to files.
#[derive(Debug, Parser)]
#[command(name = "llm-edit-lsp", version, about, long_about = None)]
pub struct Cli {
    /// What to do (default: serve LSP over stdio).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Serve LSP over stdio (the default; accepted for editors that pass it).
    #[arg(long, global = false)]
    pub stdio: bool,
    /// Log level for the server's stderr log (error, warn, info, debug, trace,
    /// or `target=level` directives; also `LLM_EDIT_LOG`).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply an LLM payload to files under a root.
    Apply(ApplyArgs),
    /// Print the prompt kit of a format: what an LLM needs to write it well.
    Prompt(PromptArgs),
    /// Serve LSP over stdio.
    Lsp,
    /// Serve MCP (Model Context Protocol) over stdio: tools for agents.
    Mcp(McpArgs),
}

/// `--match` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MatchArg {
    /// Every tolerant pass (whitespace, indentation, truncated boundary
    /// lines, typography, substrings; fuzzy only with --fuzzy).
    Tolerant,
    /// Exact matches only.
    Exact,
}

/// `--on-conflict` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OnConflictArg {
    /// Three-way merge the LLM's edit into the changed file; refuse overlaps.
    Merge,
    /// Refuse any file changed since the snapshot the LLM saw.
    Refuse,
    /// Let the LLM's result replace the file (local changes dropped).
    Overwrite,
}

/// `llm-edit-lsp apply`.
#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// The workspace root; every path in the payload is relative to it.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// The payload format (default: detect): json, search_replace, roo_diff,
    /// edit_block_v2, edit_block, find_replace, apply_patch, unified_diff.
    #[arg(long, value_name = "NAME")]
    pub format: Option<String>,
    /// A folder of snapshots mirroring --root: the files as the LLM saw them.
    /// Files that changed since are merged, refused or overwritten
    /// (--on-conflict).
    #[arg(long, value_name = "DIR")]
    pub context: Option<PathBuf>,
    /// What to do with a file changed since its snapshot.
    #[arg(long, value_enum, default_value = "merge")]
    pub on_conflict: OnConflictArg,
    /// Apply the edits that resolved even when others failed (exit 1 still).
    #[arg(long)]
    pub partial: bool,
    /// Matching tolerance.
    #[arg(long = "match", value_enum, default_value = "tolerant")]
    pub match_mode: MatchArg,
    /// Turn fuzzy matching on with this similarity threshold (0 < T < 1,
    /// e.g. 0.9).
    #[arg(long, value_name = "T")]
    pub fuzzy: Option<f64>,
    /// The time budget of the whole run, in seconds (default 5): edits not
    /// resolved by then fail with `deadline`, and nothing is applied.
    #[arg(long, value_name = "SECONDS")]
    pub deadline: Option<f64>,
    /// Change nothing: print the diff that would be made and the summary.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the JSON report on stdout (and nothing else there).
    #[arg(long)]
    pub json: bool,
    /// Write read-only files too (their mode is kept).
    #[arg(long)]
    pub force: bool,
    /// Stage the files written with `git add`.
    #[arg(long)]
    pub git_add: bool,
    /// Do not look for parse errors the changes bring in (no syntax
    /// warnings). Loose matches are still checked before they are accepted.
    #[arg(long)]
    pub no_syntax_check: bool,
    /// The payload file, or `-` for standard input.
    #[arg(value_name = "PAYLOAD|-", default_value = "-")]
    pub payload: String,
}

impl From<MatchArg> for MatchMode {
    fn from(m: MatchArg) -> MatchMode {
        match m {
            MatchArg::Tolerant => MatchMode::Tolerant,
            MatchArg::Exact => MatchMode::Exact,
        }
    }
}

impl From<OnConflictArg> for OnConflict {
    fn from(c: OnConflictArg) -> OnConflict {
        match c {
            OnConflictArg::Merge => OnConflict::Merge,
            OnConflictArg::Refuse => OnConflict::Refuse,
            OnConflictArg::Overwrite => OnConflict::Overwrite,
        }
    }
}

/// `llm-edit-lsp prompt`.
#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// The format whose kit to print.
    #[arg(long, value_name = "NAME")]
    pub format: String,
    /// Print JSON (`{"format", "instructions", "tools"}`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `llm-edit-lsp mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// A folder the tools may read and edit (repeat for several; relative
    /// paths go to the first, or to the one that has the file). Without
    /// it: the client's roots, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub root: Vec<PathBuf>,
    /// What to do with a file changed since the agent read it.
    #[arg(long, value_enum, default_value = "merge")]
    pub on_conflict: OnConflictArg,
    /// Refuse to edit an existing file the session has not read with
    /// read_file.
    #[arg(long)]
    pub require_read: bool,
    /// Matching tolerance.
    #[arg(long = "match", value_enum, default_value = "tolerant")]
    pub match_mode: MatchArg,
    /// Turn fuzzy matching on with this similarity threshold (0 < T < 1).
    #[arg(long, value_name = "T")]
    pub fuzzy: Option<f64>,
    /// The time budget of each tool call's edits, in seconds (default 5).
    #[arg(long, value_name = "SECONDS")]
    pub deadline: Option<f64>,
}

/// `--fuzzy T`, checked: a threshold in `0 < T <= 1`, or none.
pub fn fuzzy_threshold(fuzzy: Option<f64>) -> anyhow::Result<Option<f64>> {
    match fuzzy {
        Some(t) if !(t > 0.0 && t <= 1.0) => {
            anyhow::bail!("--fuzzy takes a threshold between 0 and 1 (e.g. 0.9), not {t}")
        }
        t => Ok(t),
    }
}

/// `--deadline SECONDS`, checked (the default when absent).
pub fn deadline(seconds: Option<f64>) -> anyhow::Result<std::time::Duration> {
    match seconds {
        None => Ok(crate::engine::DEFAULT_DEADLINE),
        Some(s) => crate::engine::deadline_from_secs(s).ok_or_else(|| {
            anyhow::anyhow!("--deadline takes a number of seconds above 0 (at most 3600), not {s}")
        }),
    }
}
