//! The language server: a thin shell over [`engine::run`](crate::engine::run).
//!
//! ```text
//! stdio ─▶ transport (framing, JSON-RPC checks) ─▶ tower-lsp-server ─▶ server::Backend
//!            documents (ropes, versions) ──▶ source::BufferFiles ──▶ engine
//!            engine::Outcome ──proto──▶ WorkspaceEdit | diagnostics | results
//! ```
//!
//! Only this module names protocol types, and only [`proto`] converts
//! between them and the engine's; [`position`] is the one place that
//! counts characters. See `docs/lsp.md` for the commands and settings.

pub mod commands;
pub mod context;
pub mod diagnostics;
pub mod documents;
pub mod lens;
pub mod link;
pub mod locks;
pub mod memory;
pub mod position;
pub mod proto;
pub mod server;
pub mod settings;
pub mod source;
pub mod transport;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{LspService, Server};

use crate::lsp::transport::{Ending, Limits};

use crate::lsp::server::Backend;

/// A hook run after planning and before applying (tests use it to make a
/// `didChange` land in between).
pub type AfterPlanHook = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Timing knobs of the server.
#[derive(Clone)]
pub struct ServeConfig {
    /// How long `llm-edit.apply` waits for the client to answer
    /// `workspace/applyEdit`.
    pub apply_timeout: Duration,
    /// A response document is analyzed after it stopped changing this long.
    pub response_debounce: Duration,
    /// A response that changed within this time is still growing: its
    /// `truncated` errors are not reported yet.
    pub response_quiet: Duration,
    /// Runs between planning and applying (`None` in production).
    pub after_plan: Option<AfterPlanHook>,
    /// Sizes of the client's messages.
    pub limits: Limits,
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig {
            apply_timeout: Duration::from_secs(10),
            response_debounce: Duration::from_millis(250),
            response_quiet: Duration::from_millis(1500),
            after_plan: None,
            limits: Limits::default(),
        }
    }
}

/// Serves LSP on stdin/stdout until the client ends the session.
pub async fn run_stdio() -> Ending {
    memory::return_large_blocks_to_the_system();
    serve(tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves LSP over any byte streams (tests use `tokio::io::duplex`).
pub async fn serve<R, W>(reader: R, writer: W) -> Ending
where
    R: AsyncRead + Unpin,
    W: AsyncWrite,
{
    serve_with(reader, writer, ServeConfig::default()).await
}

/// [`serve`] with explicit knobs.
pub async fn serve_with<R, W>(reader: R, writer: W, config: ServeConfig) -> Ending
where
    R: AsyncRead + Unpin,
    W: AsyncWrite,
{
    let limits = config.limits;
    let mut backend = None;
    let (service, socket) = LspService::new(|client| {
        let server = Backend::new(client, config);
        backend = Some(server.clone());
        server
    });
    let ending = transport::run(reader, writer, limits, |input, output| {
        Server::new(input, output, socket).serve(service)
    })
    .await;
    // The session is over (`exit`, or the client went away): the agent
    // link's socket goes with it.
    if let Some(backend) = backend {
        backend.stop_link();
    }
    ending
}

/// Logs to stderr only (stdout carries the protocol). `level` comes from
/// `--log-level`; without it, `LLM_EDIT_LOG`, else `warn`. Either is a
/// level (`debug`) or a list of `target=level` directives
/// (`llm_edit_lsp=debug,tower_lsp_server=info`): tracing-subscriber's
/// `Targets`, which parses them without a regular expression engine (its
/// `EnvFilter` would link one, with Unicode tables that every process,
/// `apply` too, relocates at start: docs/benchmarks.md).
pub fn init_tracing(level: Option<&str>) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = level
        .map(str::to_owned)
        .or_else(|| std::env::var("LLM_EDIT_LOG").ok())
        .and_then(|f| f.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::WARN));
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let _ = tracing_subscriber::registry()
        .with(fmt)
        .with(filter)
        .try_init();
}
