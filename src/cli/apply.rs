//! `llm-edit-lsp apply`: a payload applied to files on disk.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::args::ApplyArgs;
use crate::context::{ContextStore, WithSnapshot};
use crate::engine::{self, Options, SyntaxCheck};
use crate::model::Format;
use crate::parse::MAX_PAYLOAD_BYTES;
use crate::report::{self, Report};
use crate::workspace::DiskFiles;
use crate::write;

/// Runs `apply`: exit 0 when everything applied (or would), 1 when an edit
/// failed, 2 on usage or I/O errors (returned as `Err`).
/// For the process's `main` only: on success the plan is left for the
/// exit to free.
pub fn run(args: &ApplyArgs) -> anyhow::Result<ExitCode> {
    let options = options(args)?;
    let payload = read_payload(&args.payload)?;
    let files = DiskFiles::new(&args.root)
        .with_context(|| format!("cannot open the root {}", args.root.display()))?;
    let files_root = std::sync::Arc::clone(files.root_dir());
    // Changes are staged while the engine still checks them (the disk
    // writes while a fuzzy scan runs); those the plan does not keep are
    // removed when this is dropped.
    let early = (!args.dry_run).then(|| write::EarlyWrites::new(files_root.clone(), args.force));
    let telling = early.as_ref().map(|e| e as &dyn engine::Provisional);
    let mut outcome = match &args.context {
        Some(dir) => {
            let snapshot = ContextStore::from_dir(dir)
                .with_context(|| format!("cannot open the context folder {}", dir.display()))?;
            let files = WithSnapshot::new(files, snapshot);
            engine::run_telling(&payload, &options, &files, telling)
        }
        None => engine::run_telling(&payload, &options, &files, telling),
    };
    test_hook::after_plan();

    // A payload that asks for a preview (`dryRun: true`) is a dry run.
    let dry_run = args.dry_run || outcome.batch.preview;
    let mut write_error = None;
    let mut written = Vec::new();
    let check = options.syntax_check == SyntaxCheck::Later;
    if outcome.applicable(&options) && !dry_run && !outcome.files.is_empty() {
        // The syntax check's parses (on every core) run while the files
        // are written and synced: they add little to the wall time. When
        // the check needs none (edits it takes without a parse), no
        // thread is started for it: that would cost more than the check.
        let to_parse = if check {
            engine::syntax_to_parse(&outcome.files)
        } else {
            Vec::new()
        };
        let (result, warnings) = std::thread::scope(|scope| {
            let warnings = (!to_parse.is_empty())
                .then(|| scope.spawn(|| engine::syntax_warnings_of(&to_parse)));
            let result =
                write::write_all_with(&files_root, &outcome.files, args.force, early.as_ref());
            (result, warnings.map(|w| w.join().unwrap_or_default()))
        });
        match result {
            Ok(paths) => written = paths,
            Err(e) => write_error = Some(e),
        }
        outcome.warnings = warnings.unwrap_or_default();
    } else if check {
        outcome.warnings = engine::syntax_warnings(&outcome.files);
    }
    // What was staged early and not taken goes now.
    drop(early);

    if let Some(e) = &write_error {
        bail!("nothing was changed: {e}");
    }
    if args.git_add && !written.is_empty() {
        git_add(&args.root, &written)?;
    }

    // One buffer for the whole report: the standard output flushes at each
    // line otherwise, a system call per line (2,000 for W4's report).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if args.json {
        let report = Report::new(&outcome, &options, payload.len());
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        if dry_run {
            let color = std::io::stdout().is_terminal();
            for change in &outcome.files {
                let diff = report::unified_diff(change);
                write!(
                    out,
                    "{}",
                    if color { report::colorize(&diff) } else { diff }
                )?;
            }
        }
        write!(out, "{}", report::summary(&outcome, payload.len()))?;
        for s in &outcome.batch.suggestions {
            writeln!(out, "suggested (not run): {s}")?;
        }
        let verb = if dry_run { "would change" } else { "changed" };
        if outcome.applicable(&options) {
            writeln!(out, "{verb} {} file(s)", outcome.files.len())?;
        } else {
            writeln!(out, "nothing changed: {} error(s)", outcome.errors.len())?;
        }
    }
    let code = if outcome.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    // The process ends here: freeing the plan (every text before and
    // after, thousands of small strings) piece by piece is work the exit
    // does at once.
    out.flush()?;
    std::mem::forget(outcome);
    std::mem::forget(payload);
    Ok(code)
}

fn options(args: &ApplyArgs) -> anyhow::Result<Options> {
    let format = match &args.format {
        None => None,
        Some(name) if name == "auto" => None,
        Some(name) => Some(Format::from_name(name).with_context(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            format!(
                "unknown format `{name}`; use one of: auto, {}",
                names.join(", ")
            )
        })?),
    };
    let fuzzy = super::args::fuzzy_threshold(args.fuzzy)?;
    let deadline = super::args::deadline(args.deadline)?;
    Ok(Options {
        format,
        deadline,
        match_mode: args.match_mode.into(),
        fuzzy,
        partial: args.partial,
        on_conflict: args.on_conflict.into(),
        // With writes, the check runs beside them (see `run`).
        syntax_check: if args.no_syntax_check {
            SyntaxCheck::Off
        } else if args.dry_run {
            SyntaxCheck::Now
        } else {
            SyntaxCheck::Later
        },
    })
}

fn read_payload(arg: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    if arg == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_PAYLOAD_BYTES as u64 + 1)
            .read_to_end(&mut bytes)?;
    } else {
        let file =
            std::fs::File::open(arg).with_context(|| format!("cannot read the payload {arg}"))?;
        // Sized once from the file (a 5 MB response is not read into a
        // buffer grown by doubling); a pipe or FIFO reports 0 and grows.
        let size = file.metadata().map_or(0, |m| m.len());
        bytes.reserve_exact(size.min(MAX_PAYLOAD_BYTES as u64 + 1) as usize);
        file.take(MAX_PAYLOAD_BYTES as u64 + 1)
            .read_to_end(&mut bytes)?;
    }
    if bytes.len() > MAX_PAYLOAD_BYTES {
        bail!("the payload is larger than {MAX_PAYLOAD_BYTES} bytes; split it");
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "the payload is not valid UTF-8 (first invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

fn git_add(root: &std::path::Path, paths: &[std::path::PathBuf]) -> anyhow::Result<()> {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .arg("add")
        .arg("-A")
        .arg("--")
        .args(paths)
        .status()
        .context("cannot run git add")?;
    if !status.success() {
        bail!("git add failed ({status})");
    }
    Ok(())
}

/// A pause between planning and writing, for the tests that change the
/// workspace in between (a file edited, a folder swapped for a symlink).
/// Only debug builds honour it: `LLM_EDIT_TEST_AFTER_PLAN` is a shell
/// command run there.
mod test_hook {
    #[cfg(debug_assertions)]
    pub fn after_plan() {
        if let Some(command) = std::env::var_os("LLM_EDIT_TEST_AFTER_PLAN") {
            let status = std::process::Command::new("sh")
                .arg("-c")
                .arg(command)
                .status();
            assert!(
                status.is_ok_and(|s| s.success()),
                "the LLM_EDIT_TEST_AFTER_PLAN command failed"
            );
        }
    }

    #[cfg(not(debug_assertions))]
    pub fn after_plan() {}
}
