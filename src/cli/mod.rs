//! The command line: `apply` (files on disk), `prompt`, `lsp` and `mcp`.
//!
//! A thin shell: arguments → [`engine::Options`](crate::engine::Options) →
//! [`engine::run`](crate::engine::run) → atomic writes and a report.

pub mod apply;
pub mod args;
pub mod huge_pages;
pub mod mcp;
pub mod prompt;

/// Serves LSP over stdio until the client ends the session: status 0 after
/// `shutdown`, 1 without (the LSP specification's `exit`).
pub fn serve(log_level: Option<&str>) -> anyhow::Result<std::process::ExitCode> {
    crate::lsp::init_tracing(log_level);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let ending = runtime.block_on(crate::lsp::run_stdio());
    // The blocking read of stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_background();
    Ok(std::process::ExitCode::from(ending.exit_code()))
}
