//! The `llm-edit-lsp` binary: the language server (default) and the CLI.

use std::process::ExitCode;

use llm_edit_lsp::cli::args::{Cli, Command};
use llm_edit_lsp::cli::huge_pages::{self, LargeOnHugePages};

#[global_allocator]
static ALLOCATOR: LargeOnHugePages = LargeOnHugePages;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Apply(args)) => {
            huge_pages::enable();
            llm_edit_lsp::cli::apply::run(args)
        }
        Some(Command::Prompt(args)) => llm_edit_lsp::cli::prompt::run(args),
        Some(Command::Mcp(args)) => llm_edit_lsp::cli::mcp::run(args, cli.log_level.as_deref()),
        Some(Command::Lsp) | None => llm_edit_lsp::cli::serve(cli.log_level.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("llm-edit-lsp: {e:#}");
            ExitCode::from(2)
        }
    }
}
