//! The command line: `apply` (files on disk), `prompt`, and `lsp`.
//!
//! A thin shell: arguments → [`engine::Options`](crate::engine::Options) →
//! [`engine::run`](crate::engine::run) → atomic writes and a report.

pub mod apply;
pub mod args;
pub mod prompt;
pub mod write;

/// Serves LSP over stdio until the client exits.
pub fn serve(log_level: Option<&str>) -> anyhow::Result<std::process::ExitCode> {
    crate::lsp::init_tracing(log_level);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(crate::lsp::run_stdio());
    Ok(std::process::ExitCode::SUCCESS)
}
