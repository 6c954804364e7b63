//! `llm-edit-lsp prompt --format NAME [--json]`: the prompt kit of a format.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use super::args::PromptArgs;
use crate::model::Format;
use crate::prompt;

/// Prints the kit.
pub fn run(args: &PromptArgs) -> anyhow::Result<ExitCode> {
    let format = Format::from_name(&args.format).with_context(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown format `{}`; use one of: {}",
            args.format,
            names.join(", ")
        )
    })?;
    let kit = prompt::kit(format);
    // Written, not printed: a reader that stops early (`| head`) ends the
    // output with `BrokenPipe`, which `main` takes as success.
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&kit)?)?;
    } else {
        write!(out, "{}", kit.instructions)?;
        if let Some(tools) = &kit.tools {
            writeln!(
                out,
                "\nTool schemas (JSON):\n{}",
                serde_json::to_string_pretty(tools)?
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
