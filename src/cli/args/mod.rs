//! Command-line arguments, read with `lexopt` (options as `--name VALUE` or
//! `--name=VALUE`, `--` before a payload path that starts with `-`) and
//! checked here: a process that only applies a payload spends a few
//! microseconds on its arguments (clap's parser took 80-90 µs of a 3 ms
//! run). The help texts are in `help.rs`.

mod help;

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::prelude::*;

use crate::engine::{MatchMode, OnConflict};

/// The whole command line.
#[derive(Debug, Default, PartialEq)]
pub struct Cli {
    /// What to do (default: serve LSP over stdio).
    pub command: Option<Command>,
    /// Serve LSP over stdio (the default; accepted for editors that pass it).
    pub stdio: bool,
    /// Log level for the server's stderr log (error, warn, info, debug,
    /// trace, or `target=level` directives; also `LLM_EDIT_LOG`), given
    /// before the command or after `lsp` and `mcp`.
    pub log_level: Option<String>,
}

/// Commands.
#[derive(Debug, PartialEq)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MatchArg {
    /// Every tolerant pass (whitespace, indentation, truncated boundary
    /// lines, typography, substrings; fuzzy only with --fuzzy).
    #[default]
    Tolerant,
    /// Exact matches only.
    Exact,
}

/// `--on-conflict` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnConflictArg {
    /// Three-way merge the LLM's edit into the changed file; refuse overlaps.
    #[default]
    Merge,
    /// Refuse any file changed since the snapshot the LLM saw.
    Refuse,
    /// Let the LLM's result replace the file (local changes dropped).
    Overwrite,
}

/// `llm-edit-lsp apply` (`help::APPLY` says what each is to users).
#[derive(Debug, PartialEq)]
pub struct ApplyArgs {
    /// `--root DIR` (default `.`): every payload path is relative to it.
    pub root: PathBuf,
    /// `--format NAME` as given (`auto` or a format's name; checked by the
    /// command).
    pub format: Option<String>,
    /// `--context DIR`: the snapshots the LLM saw, mirroring the root.
    pub context: Option<PathBuf>,
    /// `--on-conflict` (default `merge`).
    pub on_conflict: OnConflictArg,
    /// `--partial`: write what resolved even when other edits failed.
    pub partial: bool,
    /// `--match` (default `tolerant`).
    pub match_mode: MatchArg,
    /// `--fuzzy T`, unchecked ([`fuzzy_threshold`] checks it).
    pub fuzzy: Option<f64>,
    /// `--deadline SECONDS`, unchecked ([`deadline`] checks it).
    pub deadline: Option<f64>,
    /// `--dry-run`: write nothing, print the diff.
    pub dry_run: bool,
    /// `--json`: the JSON report on stdout.
    pub json: bool,
    /// `--force`: write read-only files too.
    pub force: bool,
    /// `--git-add`: stage the files written.
    pub git_add: bool,
    /// `--no-syntax-check`: no syntax warnings.
    pub no_syntax_check: bool,
    /// The payload file, or `-` for standard input (the default).
    pub payload: String,
}

/// `llm-edit-lsp prompt`.
#[derive(Debug, PartialEq)]
pub struct PromptArgs {
    /// The format whose kit to print.
    pub format: String,
    /// Print JSON (`{"format", "instructions", "tools"}`) instead of text.
    pub json: bool,
}

/// `llm-edit-lsp mcp` (`help::MCP` says what each is to users).
#[derive(Debug, Default, PartialEq)]
pub struct McpArgs {
    /// `--root DIR`, each time given: the folders the tools may edit.
    pub root: Vec<PathBuf>,
    /// `--on-conflict` (default `merge`).
    pub on_conflict: OnConflictArg,
    /// `--require-read`: refuse edits to files the session has not read.
    pub require_read: bool,
    /// `--match` (default `tolerant`).
    pub match_mode: MatchArg,
    /// `--fuzzy T`, unchecked ([`fuzzy_threshold`] checks it).
    pub fuzzy: Option<f64>,
    /// `--deadline SECONDS` per tool call, unchecked ([`deadline`]).
    pub deadline: Option<f64>,
}

/// Why the arguments give no command to run: help or the version was
/// asked for, or they are wrong.
#[derive(Debug, PartialEq)]
pub enum Exit {
    /// Print this on stdout, exit 0.
    Help(&'static str),
    /// Print the version on stdout, exit 0.
    Version,
    /// Print `error: MESSAGE`, the usage line and a pointer to `--help` on
    /// stderr, exit 2.
    Usage {
        message: String,
        /// The command's help (its `Usage:` line is printed).
        help: &'static str,
    },
}

impl Exit {
    /// What is printed, and the exit status.
    pub fn report(&self) -> (String, i32) {
        match self {
            Exit::Help(text) => (text.to_string(), 0),
            Exit::Version => (format!("llm-edit-lsp {}\n", env!("CARGO_PKG_VERSION")), 0),
            Exit::Usage { message, help } => {
                let usage = help
                    .lines()
                    .find(|l| l.starts_with("Usage:"))
                    .unwrap_or("Usage: llm-edit-lsp [OPTIONS] [COMMAND]");
                (
                    format!("error: {message}\n\n{usage}\n\nFor more information, try '--help'.\n"),
                    2,
                )
            }
        }
    }

    /// Prints [`Exit::report`] (stdout for help and the version, stderr
    /// for an error) and exits with its status.
    pub fn exit(&self) -> ! {
        use std::io::Write;
        let (text, status) = self.report();
        // A reader that stops early (`| head`) is no error.
        let _ = if status == 0 {
            std::io::stdout().lock().write_all(text.as_bytes())
        } else {
            std::io::stderr().lock().write_all(text.as_bytes())
        };
        std::process::exit(status)
    }
}

impl Cli {
    /// The arguments of this process; on help, the version or a usage
    /// error, prints it and exits ([`Exit::exit`]).
    pub fn parse() -> Cli {
        Cli::parse_from(std::env::args_os().skip(1)).unwrap_or_else(|e| e.exit())
    }

    /// The arguments `args` (without the program's name).
    pub fn parse_from<I>(args: I) -> Result<Cli, Exit>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        let mut p = lexopt::Parser::from_args(args);
        let mut cli = Cli::default();
        let help = help::TOP;
        while let Some(arg) = p.next().map_err(|e| usage(e, help))? {
            let name = arg_name(&arg);
            match arg {
                Short('h') | Long("help") => return Err(Exit::Help(help)),
                Short('V') | Long("version") => return Err(Exit::Version),
                Long("stdio") => cli.stdio = true,
                Long("log-level") => once(&mut cli.log_level, string(&mut p, help)?, name, help)?,
                Value(name) => {
                    let name = name.string().map_err(|e| usage(e, help))?;
                    cli.command = Some(match name.as_str() {
                        "apply" => Command::Apply(apply(&mut p)?),
                        "prompt" => Command::Prompt(prompt(&mut p)?),
                        "lsp" => {
                            server(&mut p, &mut cli, help::LSP, |_, _| Ok(false))?;
                            Command::Lsp
                        }
                        "mcp" => Command::Mcp(mcp(&mut p, &mut cli)?),
                        "help" => return Err(Exit::Help(help_of(&mut p)?)),
                        _ => {
                            return Err(Exit::Usage {
                                message: format!("unrecognized subcommand '{name}'"),
                                help,
                            })
                        }
                    });
                    return Ok(cli);
                }
                other => return Err(unexpected(&arg_name(&other), help)),
            }
        }
        Ok(cli)
    }
}

/// `help [COMMAND]`: that command's help, or the top one.
fn help_of(p: &mut lexopt::Parser) -> Result<&'static str, Exit> {
    let top = help::TOP;
    let Some(arg) = p.next().map_err(|e| usage(e, top))? else {
        return Ok(top);
    };
    let text = match &arg {
        Value(name) => match name.to_str() {
            Some("apply") => help::APPLY,
            Some("prompt") => help::PROMPT,
            Some("lsp") => help::LSP,
            Some("mcp") => help::MCP,
            Some("help") => top,
            _ => {
                return Err(Exit::Usage {
                    message: format!("unrecognized subcommand '{}'", name.to_string_lossy()),
                    help: top,
                })
            }
        },
        _ => return Err(unexpected(&arg_name(&arg), top)),
    };
    match p.next().map_err(|e| usage(e, top))? {
        None => Ok(text),
        Some(arg) => Err(unexpected(&arg_name(&arg), top)),
    }
}

fn apply(p: &mut lexopt::Parser) -> Result<ApplyArgs, Exit> {
    let help = help::APPLY;
    let (mut root, mut format, mut context) = (None, None, None);
    let mut matching = Matching::default();
    let mut payload: Option<String> = None;
    let (mut partial, mut dry_run, mut json) = (false, false, false);
    let (mut force, mut git_add, mut no_syntax_check) = (false, false, false);
    while let Some(arg) = p.next().map_err(|e| usage(e, help))? {
        let arg = match arg {
            Value(v) if payload.is_none() => {
                payload = Some(v.string().map_err(|e| usage(e, help))?);
                continue;
            }
            other => other,
        };
        let (name, option) = (arg_name(&arg), !matches!(arg, Value(_)));
        match name.as_str() {
            "-h" | "--help" if option => return Err(Exit::Help(help)),
            "--root" if option => once(&mut root, path(p, help)?, name, help)?,
            "--format" if option => once(&mut format, string(p, help)?, name, help)?,
            "--context" if option => once(&mut context, path(p, help)?, name, help)?,
            "--partial" if option => flag(&mut partial, name, help)?,
            "--dry-run" if option => flag(&mut dry_run, name, help)?,
            "--json" if option => flag(&mut json, name, help)?,
            "--force" if option => flag(&mut force, name, help)?,
            "--git-add" if option => flag(&mut git_add, name, help)?,
            "--no-syntax-check" if option => flag(&mut no_syntax_check, name, help)?,
            _ if option && matching.take(p, &name, help)? => {}
            _ => return Err(unexpected(&name, help)),
        }
    }
    Ok(ApplyArgs {
        root: root.unwrap_or_else(|| PathBuf::from(".")),
        format,
        context,
        on_conflict: matching.on_conflict.unwrap_or_default(),
        partial,
        match_mode: matching.match_mode.unwrap_or_default(),
        fuzzy: matching.fuzzy,
        deadline: matching.deadline,
        dry_run,
        json,
        force,
        git_add,
        no_syntax_check,
        payload: payload.unwrap_or_else(|| "-".to_string()),
    })
}

/// The options `apply` and `mcp` share: how edits are matched, and what
/// to do with a file changed meanwhile.
#[derive(Default)]
struct Matching {
    on_conflict: Option<OnConflictArg>,
    match_mode: Option<MatchArg>,
    fuzzy: Option<f64>,
    deadline: Option<f64>,
}

impl Matching {
    /// Takes the option `name` (`--fuzzy`) and its value when it is one of
    /// them; whether it did.
    fn take(
        &mut self,
        p: &mut lexopt::Parser,
        name: &str,
        help: &'static str,
    ) -> Result<bool, Exit> {
        let named = || name.to_string();
        match name {
            "--on-conflict" => once(
                &mut self.on_conflict,
                on_conflict_arg(p, help)?,
                named(),
                help,
            )?,
            "--match" => once(&mut self.match_mode, match_arg(p, help)?, named(), help)?,
            "--fuzzy" => once(
                &mut self.fuzzy,
                number(p, "--fuzzy <T>", help)?,
                named(),
                help,
            )?,
            "--deadline" => once(
                &mut self.deadline,
                number(p, "--deadline <SECONDS>", help)?,
                named(),
                help,
            )?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn prompt(p: &mut lexopt::Parser) -> Result<PromptArgs, Exit> {
    let help = help::PROMPT;
    let (mut format, mut json) = (None, false);
    while let Some(arg) = p.next().map_err(|e| usage(e, help))? {
        let name = arg_name(&arg);
        match arg {
            Short('h') | Long("help") => return Err(Exit::Help(help)),
            Long("format") => once(&mut format, string(p, help)?, name, help)?,
            Long("json") => flag(&mut json, name, help)?,
            other => return Err(unexpected(&arg_name(&other), help)),
        }
    }
    let format = format.ok_or_else(|| Exit::Usage {
        message: "the following required arguments were not provided:\n  --format <NAME>"
            .to_string(),
        help,
    })?;
    Ok(PromptArgs { format, json })
}

fn mcp(p: &mut lexopt::Parser, cli: &mut Cli) -> Result<McpArgs, Exit> {
    let help = help::MCP;
    let (mut root, mut require_read) = (Vec::new(), false);
    let mut matching = Matching::default();
    server(p, cli, help, |p, name| {
        match name {
            "--root" => root.push(path(p, help)?),
            "--require-read" => flag(&mut require_read, name.to_string(), help)?,
            _ => return matching.take(p, name, help),
        }
        Ok(true)
    })?;
    Ok(McpArgs {
        root,
        on_conflict: matching.on_conflict.unwrap_or_default(),
        require_read,
        match_mode: matching.match_mode.unwrap_or_default(),
        fuzzy: matching.fuzzy,
        deadline: matching.deadline,
    })
}

/// The arguments of a server (`lsp`, `mcp`): help, `--stdio` and
/// `--log-level` (also taken here, where editors and clients pass them),
/// and the options `own` takes (it is given their name, `--root`, and
/// returns whether it took it).
fn server(
    p: &mut lexopt::Parser,
    cli: &mut Cli,
    help: &'static str,
    mut own: impl FnMut(&mut lexopt::Parser, &str) -> Result<bool, Exit>,
) -> Result<(), Exit> {
    while let Some(arg) = p.next().map_err(|e| usage(e, help))? {
        let name = arg_name(&arg);
        let option = !matches!(arg, Value(_));
        match name.as_str() {
            "-h" | "--help" if option => return Err(Exit::Help(help)),
            "--stdio" if option => cli.stdio = true,
            "--log-level" if option => once(&mut cli.log_level, string(p, help)?, name, help)?,
            _ if option && own(p, &name)? => {}
            _ => return Err(unexpected(&name, help)),
        }
    }
    Ok(())
}

/// How an option is named in messages: `--root`.
fn arg_name(arg: &lexopt::Arg) -> String {
    match arg {
        Short(c) => format!("-{c}"),
        Long(name) => format!("--{name}"),
        Value(v) => v.to_string_lossy().into_owned(),
    }
}

/// Sets an option given once; a second time is an error (it would be
/// unclear which counts).
fn once<T>(slot: &mut Option<T>, value: T, name: String, help: &'static str) -> Result<(), Exit> {
    if slot.is_some() {
        return Err(Exit::Usage {
            message: format!("the argument '{name}' cannot be used multiple times"),
            help,
        });
    }
    *slot = Some(value);
    Ok(())
}

/// Sets a flag given once.
fn flag(slot: &mut bool, name: String, help: &'static str) -> Result<(), Exit> {
    let mut set = slot.then_some(());
    once(&mut set, (), name, help)?;
    *slot = true;
    Ok(())
}

fn usage(e: lexopt::Error, help: &'static str) -> Exit {
    Exit::Usage {
        message: e.to_string(),
        help,
    }
}

/// An argument (`name`, as [`arg_name`] gives it) the command does not take.
fn unexpected(name: &str, help: &'static str) -> Exit {
    Exit::Usage {
        message: format!("unexpected argument '{name}' found"),
        help,
    }
}

/// The option's value, as text (valid Unicode).
fn string(p: &mut lexopt::Parser, help: &'static str) -> Result<String, Exit> {
    p.value()
        .and_then(|v| v.string())
        .map_err(|e| usage(e, help))
}

/// The option's value, as a path (any bytes).
fn path(p: &mut lexopt::Parser, help: &'static str) -> Result<PathBuf, Exit> {
    p.value().map(PathBuf::from).map_err(|e| usage(e, help))
}

/// The option's value, as a number (its range is checked where it is used:
/// [`fuzzy_threshold`], [`deadline`]).
fn number(p: &mut lexopt::Parser, shown: &str, help: &'static str) -> Result<f64, Exit> {
    let value = string(p, help)?;
    value.trim().parse().map_err(|_| Exit::Usage {
        message: format!("invalid value '{value}' for '{shown}': not a number"),
        help,
    })
}

/// The value of one of `choices` (the names, in the order the help gives).
fn choice<T: Copy>(
    p: &mut lexopt::Parser,
    shown: &str,
    choices: &[(&str, T)],
    help: &'static str,
) -> Result<T, Exit> {
    let value = string(p, help)?;
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, c)| c)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            Exit::Usage {
                message: format!(
                    "invalid value '{value}' for '{shown}'\n  [possible values: {}]",
                    names.join(", ")
                ),
                help,
            }
        })
}

fn match_arg(p: &mut lexopt::Parser, help: &'static str) -> Result<MatchArg, Exit> {
    let choices = [("tolerant", MatchArg::Tolerant), ("exact", MatchArg::Exact)];
    choice(p, "--match <MODE>", &choices, help)
}

fn on_conflict_arg(p: &mut lexopt::Parser, help: &'static str) -> Result<OnConflictArg, Exit> {
    let choices = [
        ("merge", OnConflictArg::Merge),
        ("refuse", OnConflictArg::Refuse),
        ("overwrite", OnConflictArg::Overwrite),
    ];
    choice(p, "--on-conflict <WHAT>", &choices, help)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &str) -> Result<Cli, Exit> {
        Cli::parse_from(args.split_whitespace())
    }

    fn apply_args(args: &str) -> ApplyArgs {
        match parse(args) {
            Ok(Cli {
                command: Some(Command::Apply(a)),
                ..
            }) => a,
            other => panic!("{args}: {other:?}"),
        }
    }

    #[track_caller]
    fn usage_error(args: &str, says: &str) {
        match parse(args) {
            Err(e @ Exit::Usage { .. }) => {
                let (text, status) = e.report();
                assert_eq!(status, 2);
                assert!(text.starts_with("error: "), "{text}");
                assert!(text.contains(says), "{args}: {text}");
                assert!(text.contains("\nUsage: llm-edit-lsp"), "{text}");
            }
            other => panic!("{args}: {other:?}"),
        }
    }

    #[test]
    fn apply_takes_every_option_in_both_forms() {
        let a = apply_args("apply p.md");
        assert_eq!(
            a,
            ApplyArgs {
                root: PathBuf::from("."),
                format: None,
                context: None,
                on_conflict: OnConflictArg::Merge,
                partial: false,
                match_mode: MatchArg::Tolerant,
                fuzzy: None,
                deadline: None,
                dry_run: false,
                json: false,
                force: false,
                git_add: false,
                no_syntax_check: false,
                payload: "p.md".into(),
            }
        );
        assert_eq!(apply_args("apply").payload, "-");
        let all = "apply --root r --format json --context c --on-conflict refuse --partial \
                   --match exact --fuzzy 0.9 --deadline 2.5 --dry-run --json --force --git-add \
                   --no-syntax-check -";
        let want = ApplyArgs {
            root: PathBuf::from("r"),
            format: Some("json".into()),
            context: Some(PathBuf::from("c")),
            on_conflict: OnConflictArg::Refuse,
            partial: true,
            match_mode: MatchArg::Exact,
            fuzzy: Some(0.9),
            deadline: Some(2.5),
            dry_run: true,
            json: true,
            force: true,
            git_add: true,
            no_syntax_check: true,
            payload: "-".into(),
        };
        assert_eq!(apply_args(all), want);
        let joined = all
            .replace("--root r", "--root=r")
            .replace("--fuzzy 0.9", "--fuzzy=0.9")
            .replace("--on-conflict refuse", "--on-conflict=refuse");
        assert_eq!(apply_args(&joined), want);
        // A payload path that looks like an option, after `--`.
        assert_eq!(apply_args("apply -- --odd.md").payload, "--odd.md");
    }

    #[test]
    fn servers_take_their_options_and_the_log_level() {
        let cli = parse("--log-level debug").unwrap();
        assert_eq!(
            (cli.command, cli.log_level.as_deref()),
            (None, Some("debug"))
        );
        // What editors pass: `lsp --log-level debug`, `lsp --stdio`, `--stdio`.
        for args in [
            "lsp --log-level debug --stdio",
            "--stdio lsp --log-level=debug",
        ] {
            let cli = parse(args).unwrap();
            assert_eq!(cli.command, Some(Command::Lsp), "{args}");
            assert!(cli.stdio);
            assert_eq!(cli.log_level.as_deref(), Some("debug"));
        }
        let cli = parse("mcp --root a --root b --require-read --match exact --fuzzy 0.8 --deadline 3 --on-conflict overwrite --log-level info").unwrap();
        assert_eq!(
            cli.command,
            Some(Command::Mcp(McpArgs {
                root: vec![PathBuf::from("a"), PathBuf::from("b")],
                on_conflict: OnConflictArg::Overwrite,
                require_read: true,
                match_mode: MatchArg::Exact,
                fuzzy: Some(0.8),
                deadline: Some(3.0),
            }))
        );
        assert_eq!(cli.log_level.as_deref(), Some("info"));
        assert_eq!(
            parse("mcp").unwrap().command,
            Some(Command::Mcp(McpArgs::default()))
        );
        assert_eq!(
            parse("prompt --format json --json").unwrap().command,
            Some(Command::Prompt(PromptArgs {
                format: "json".into(),
                json: true
            }))
        );
    }

    #[test]
    fn wrong_arguments_are_usage_errors() {
        usage_error("apply --nope", "unexpected argument '--nope' found");
        usage_error("apply a.md b.md", "unexpected argument 'b.md' found");
        usage_error("apply --fuzzy", "missing argument for option '--fuzzy'");
        usage_error(
            "apply --fuzzy high",
            "invalid value 'high' for '--fuzzy <T>'",
        );
        usage_error(
            "apply --deadline soon",
            "invalid value 'soon' for '--deadline <SECONDS>'",
        );
        usage_error("apply --match loose", "[possible values: tolerant, exact]");
        usage_error(
            "apply --on-conflict keep",
            "[possible values: merge, refuse, overwrite]",
        );
        usage_error(
            "apply --root a --root b",
            "'--root' cannot be used multiple times",
        );
        usage_error(
            "apply --json --json",
            "'--json' cannot be used multiple times",
        );
        usage_error(
            "apply --json=yes",
            "unexpected argument for option '--json': \"yes\"",
        );
        usage_error(
            "prompt",
            "required arguments were not provided:\n  --format <NAME>",
        );
        usage_error("lsp x", "unexpected argument 'x' found");
        usage_error("mcp --partial", "unexpected argument '--partial' found");
        usage_error("launch", "unrecognized subcommand 'launch'");
        usage_error("--nope", "unexpected argument '--nope' found");
        usage_error("help nothing", "unrecognized subcommand 'nothing'");
    }

    /// Help goes to stdout with status 0, for each command as `-h`,
    /// `--help` and `help COMMAND`; the version too.
    #[test]
    fn help_and_version() {
        for (command, text) in [
            ("", help::TOP),
            ("apply", help::APPLY),
            ("prompt", help::PROMPT),
            ("lsp", help::LSP),
            ("mcp", help::MCP),
        ] {
            for args in [
                format!("{command} -h"),
                format!("{command} --help"),
                format!("help {command}"),
            ] {
                assert_eq!(parse(&args), Err(Exit::Help(text)), "{args}");
            }
            assert_eq!(Exit::Help(text).report(), (text.to_string(), 0));
        }
        assert_eq!(parse("apply --root . --help"), Err(Exit::Help(help::APPLY)));
        assert_eq!(parse("-V"), Err(Exit::Version));
        let (text, status) = Exit::Version.report();
        assert_eq!(
            (text.as_str(), status),
            (concat!("llm-edit-lsp ", env!("CARGO_PKG_VERSION"), "\n"), 0)
        );
    }

    /// Each command's help names every option it takes (each option
    /// below is taken: the parse of each succeeds), and `apply`'s every
    /// format.
    #[test]
    fn each_help_names_every_option_taken() {
        let options: [(&str, &str, &[&str]); 4] = [
            (
                "apply",
                help::APPLY,
                &[
                    "--root x",
                    "--format json",
                    "--context x",
                    "--on-conflict merge",
                    "--partial",
                    "--match exact",
                    "--fuzzy 0.5",
                    "--deadline 1",
                    "--dry-run",
                    "--json",
                    "--force",
                    "--git-add",
                    "--no-syntax-check",
                ],
            ),
            ("prompt --format json", help::PROMPT, &["--json"]),
            ("lsp", help::LSP, &["--stdio", "--log-level debug"]),
            (
                "mcp",
                help::MCP,
                &[
                    "--root x",
                    "--on-conflict merge",
                    "--require-read",
                    "--match exact",
                    "--fuzzy 0.5",
                    "--deadline 1",
                    "--log-level debug",
                ],
            ),
        ];
        for (command, text, taken) in options {
            for option in taken {
                assert!(
                    parse(&format!("{command} {option}")).is_ok(),
                    "{command} {option}"
                );
                let name = option.split(' ').next().unwrap();
                assert!(
                    text.contains(&format!("{name} ")) || text.contains(&format!("{name}\n")),
                    "{command}: {name}"
                );
            }
        }
        for top in ["--stdio", "--log-level debug"] {
            assert!(parse(top).is_ok());
            assert!(help::TOP.contains(top.split(' ').next().unwrap()));
        }
        for format in crate::model::Format::ALL {
            assert!(help::APPLY.contains(format.name()), "{}", format.name());
        }
    }
}
