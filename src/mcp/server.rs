//! The MCP handler: tools, prompts and roots over rmcp, each tool call run
//! by the [`Session`] on the blocking pool.

#![allow(deprecated)] // Roots are deprecated by the 2026-07-28 revision; clients still offer them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};

use super::roots::{self, Roots};
use super::session::{Session, ToolReply, UnknownTool};
use super::tools;
use crate::model::Format;
use crate::prompt;

/// How long the client may take to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// What the server says about itself at `initialize`.
const INSTRUCTIONS: &str = "Edits files of the workspace precisely. Read a file with read_file \
before you edit it; edit with edit or multi_edit (exact text replacements), write_file (whole \
files), apply_patch (Codex patches) or apply_response (any edit format in a model response). \
Every edit is applied exactly as meant or refused with the reason and a retry prompt; a \
refused call writes nothing. Changes made to a file since you read it are merged, never \
overwritten.";

/// The handler of one connection.
#[derive(Clone)]
pub struct Server {
    session: Arc<Session>,
    /// The client's roots must be asked for (again) before the next call.
    roots_stale: Arc<AtomicBool>,
}

impl Server {
    /// A handler over `session`.
    pub fn new(session: Session) -> Server {
        Server {
            session: Arc::new(session),
            roots_stale: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The session (for tests and benchmarks).
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Sets the roots when they are not fixed by `--root`: the client's
    /// (`roots/list`) when it offers them, else the current directory.
    async fn ensure_roots(&self, peer: &Peer<RoleServer>) {
        if self.session.fixed_roots() || !self.roots_stale.swap(false, Ordering::SeqCst) {
            return;
        }
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        let mut folders: Vec<PathBuf> = Vec::new();
        if offers_roots {
            match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
                Ok(Ok(result)) => {
                    folders = result
                        .roots
                        .iter()
                        .filter_map(|r| roots::path_of_uri(&r.uri))
                        .collect();
                }
                Ok(Err(e)) => tracing::warn!("roots/list failed: {e}"),
                Err(_) => tracing::warn!("roots/list: no answer in {ROOTS_TIMEOUT:?}"),
            }
        }
        // Each folder on its own: one that cannot be opened is left out.
        let mut opened: Vec<PathBuf> = folders
            .into_iter()
            .filter(|f| Roots::open(std::slice::from_ref(f)).is_ok())
            .collect();
        if opened.is_empty() {
            if let Some(cwd) = implicit_root() {
                opened.push(cwd);
            }
        }
        match Roots::open(&opened) {
            Ok(roots) => self.session.set_roots(roots),
            Err(e) => tracing::warn!("{e}"),
        }
    }
}

/// The current directory as the root when nothing else names one, unless
/// it is `/` or the home folder (a client started from there did not mean
/// to hand over everything).
fn implicit_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
    let home = std::env::var_os("HOME").and_then(|h| PathBuf::from(h).canonicalize().ok());
    (cwd.parent().is_some() && Some(&cwd) != home.as_ref()).then_some(cwd)
}

/// A tool reply as MCP's result: the text, and the structured content.
pub fn call_tool_result(reply: ToolReply) -> CallToolResult {
    let mut result = if reply.is_error {
        CallToolResult::error(vec![ContentBlock::text(reply.text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(reply.text)])
    };
    result.structured_content = Some(reply.structured);
    result
}

fn prompt_description(format: Format) -> String {
    format!(
        "How to write edits in the `{}` format: instructions for a system prompt (the prompt \
         kit of llm-edit-lsp){}.",
        format.name(),
        if format == Format::Json {
            ", with the tools' JSON schemas"
        } else {
            ""
        }
    )
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "llm-edit-lsp",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.ensure_roots(&context.peer).await;
        let session = Arc::clone(&self.session);
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let reply = tokio::task::spawn_blocking(move || session.call(&name, arguments))
            .await
            .map_err(|e| McpError::internal_error(format!("the tool call failed: {e}"), None))?;
        match reply {
            Ok(reply) => Ok(call_tool_result(reply).into()),
            Err(UnknownTool(name)) => Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; the tools are {}",
                    super::session::TOOLS.join(", ")
                ),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let prompts = Format::ALL
            .iter()
            .map(|f| Prompt::new(f.name(), Some(prompt_description(*f)), None))
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let Some(format) = Format::from_name(&request.name) else {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown prompt `{}`; the prompts are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let kit = prompt::kit(format);
        let mut text = kit.instructions.to_string();
        if let Some(tools) = &kit.tools {
            text.push_str("\nTool schemas (JSON):\n");
            text.push_str(&serde_json::to_string_pretty(tools).unwrap_or_default());
            text.push('\n');
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(prompt_description(format))
                .into(),
        )
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.roots_stale.store(true, Ordering::SeqCst);
    }
}
