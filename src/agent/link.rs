//! The editor link: how an agent shell (the MCP server) hands a payload to
//! a language server of this project running for the same root, so that
//! the edits are planned against the editor's unsaved buffers and land in
//! them as `workspace/applyEdit`.
//!
//! The language server listens on a Unix socket in the workspace's state
//! folder ([`SOCKET`] under `.llm-edit/`), owner-only, and checks each
//! peer's credentials (same user). One request per connection: a
//! [`LinkRequest`] as one JSON line, answered by one JSON line, the
//! [`crate::agent::AgentOutcome`] (route `editor`) or a [`LinkError`].
//!
//! Without a socket (no editor open on the root, or it runs elsewhere)
//! [`connect`] returns `None` and the agent shell writes to disk.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The socket's name inside the state folder (`.llm-edit/`).
pub const SOCKET: &str = "lsp.sock";

/// One agent call sent to the language server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkRequest {
    /// The payload, in any format the engine reads.
    pub payload: String,
    /// Only this format (`None` or `auto`: detect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Plan only: return what would change, apply nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Apply what resolved even when other edits failed.
    #[serde(default)]
    pub partial: bool,
    /// `~M` policy: `merge`, `refuse` or `overwrite` (`None`: the server's
    /// setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_conflict: Option<String>,
    /// The text of each file as the agent read it (workspace-relative
    /// path → text): the snapshot a `~M` merge is made against. A file
    /// not in it is edited as the buffer (or disk) reads now.
    #[serde(default)]
    pub snapshot: BTreeMap<String, String>,
}

/// Why the link could not carry a request (the agent shell then says so,
/// or falls back to disk where that is safe: only when nothing was sent).
#[derive(Debug)]
pub enum LinkError {
    /// Nothing was sent: the socket refused, or went away before the
    /// request was written. Safe to fall back to disk.
    NotSent(std::io::Error),
    /// The request was sent but no answer came (time out, broken pipe):
    /// the editor may or may not have applied it. Never fall back.
    NoAnswer(std::io::Error),
    /// The server answered with an error.
    Refused(String),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::NotSent(e) => {
                write!(f, "the editor's language server is not reachable: {e}")
            }
            LinkError::NoAnswer(e) => write!(
                f,
                "the editor's language server did not answer ({e}); the edit may or may not \
                 have been applied: read the file again before retrying"
            ),
            LinkError::Refused(m) => {
                write!(f, "the editor's language server refused the request: {m}")
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// A connection to the language server of `root`, when one listens.
pub struct EditorLink {
    // Filled in by the implementation of the link (socket, timeouts).
    _private: (),
}

/// The language server listening for `root`, or `None` when none does.
pub fn connect(_root: &Path) -> Option<EditorLink> {
    // The link is not built yet: every call takes the disk route.
    None
}

impl EditorLink {
    /// Sends one request and waits for its answer: the JSON of the
    /// [`crate::agent::AgentOutcome`] the server built.
    pub fn run(&self, _request: &LinkRequest) -> Result<serde_json::Value, LinkError> {
        Err(LinkError::NotSent(std::io::Error::other(
            "the editor link is not built yet",
        )))
    }
}
