//! The one way through: payload → parse → resolve → plan → [`Outcome`].
//!
//! The CLI and the language server both call [`run`] with a [`FileSource`]
//! and turn the [`Outcome`] into writes, a `WorkspaceEdit`, diagnostics and
//! a report. Nothing here does I/O beyond what the file source does.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde::Serialize;

pub use crate::plan::{FileChange, FileStatus};
pub use crate::resolve::{MatchMode, OnConflict, Provisional};

use crate::error::{EditError, ErrorKind};
use crate::model::{Edit, EditBatch, EditOp, Format};
use crate::parse;
use crate::resolve::{self, FileResult, ResolveConfig};
use crate::workspace::{FileSource, PathError, WorkspacePath};

/// The default time budget of a run (`--deadline`, `llmEdit.deadline`).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(5);

/// A run's time budget from a number of seconds (`--deadline`,
/// `llmEdit.deadline`): above 0, at most an hour.
pub fn deadline_from_secs(seconds: f64) -> Option<Duration> {
    (seconds > 0.0 && seconds <= 3600.0).then(|| Duration::from_secs_f64(seconds))
}

/// Settings of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Options {
    /// Only this format (`None`: detect).
    pub format: Option<Format>,
    /// Matching tolerance.
    pub match_mode: MatchMode,
    /// Fuzzy threshold in (0, 1); `None` = fuzzy off.
    pub fuzzy: Option<f64>,
    /// Apply what resolved even when other edits failed.
    pub partial: bool,
    /// `~M` policy.
    pub on_conflict: OnConflict,
    /// Time budget of the whole run (every edit of every file): past it,
    /// the edits not yet resolved fail with `deadline` (`FORMATS.md` §6).
    pub deadline: Duration,
    /// When the planned changes are checked for new parse errors.
    pub syntax_check: SyntaxCheck,
}

/// When [`plan_batch`] looks for parse errors the changes bring in (the
/// warnings of [`Outcome::warnings`]). Loose matches are checked while they
/// are resolved whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SyntaxCheck {
    /// In the outcome.
    #[default]
    Now,
    /// By the caller, beside its writes ([`syntax_warnings`]): the outcome
    /// has none.
    Later,
    /// Never.
    Off,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            format: None,
            match_mode: MatchMode::Tolerant,
            fuzzy: None,
            partial: false,
            on_conflict: OnConflict::Merge,
            deadline: DEFAULT_DEADLINE,
            syntax_check: SyntaxCheck::Now,
        }
    }
}

/// Everything a run found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Planned changes, in path order. Empty when a failure blocks an
    /// all-or-nothing run; with `partial`, the files whose edits resolved.
    pub files: Vec<FileChange>,
    /// Every failure, in payload order.
    pub errors: Vec<EditError>,
    /// The parsed payload (for retry prompts and code lenses).
    pub batch: EditBatch,
    /// The formats found in the payload.
    pub formats: Vec<Format>,
    /// Changed files that parsed cleanly before and do not after.
    pub warnings: Vec<SyntaxWarning>,
}

/// A planned change that leaves a parse error in a file that parsed
/// cleanly before: reported, never refused (an exact match may mean it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SyntaxWarning {
    /// The file.
    pub path: String,
    /// The first line (1-based) of the first new parse error.
    pub line: usize,
    /// The payload edits that change the file.
    pub edits: Vec<usize>,
}

/// The parse errors the planned changes bring into files that parsed
/// cleanly (files of a language with a grammar; `src/syntax/`), in the
/// regions the edits touch. Files are checked on all cores: parsing is most
/// of the cost of a payload that edits many files.
pub fn syntax_warnings(files: &[FileChange]) -> Vec<SyntaxWarning> {
    syntax_warnings_of(&syntax_to_parse(files))
}

/// The changed files the syntax check has to read: of a language with a
/// grammar, not removed. When they hold few edits in all (at most
/// [`SPARED_EDITS`]), those the quick check takes without a parse
/// ([`crate::syntax::quick_needs_parse`]: they can bring no warning) are
/// left out, which takes microseconds; a caller that checks beside its
/// writes asks this first and starts no thread when nothing is left
/// (starting one costs more than such a check). Beyond that, every file
/// is kept: the quick check of thousands of edits is milliseconds, better
/// spent beside the writes.
pub fn syntax_to_parse(files: &[FileChange]) -> Vec<&FileChange> {
    let checked: Vec<(&FileChange, crate::syntax::Language)> = files
        .iter()
        .filter(|f| f.exists_after())
        .filter_map(|f| Some((f, crate::syntax::Language::of_path(f.path.as_str())?)))
        .collect();
    let edits: usize = checked.iter().map(|(f, _)| f.edits.as_slice().len()).sum();
    checked
        .into_iter()
        .filter(|&(f, language)| {
            edits > SPARED_EDITS
                || f.before.as_ref().is_none_or(|before| {
                    crate::syntax::quick_needs_parse(language, &before.text, &syntax_edits(f))
                })
        })
        .map(|(f, _)| f)
        .collect()
}

/// The most edits [`syntax_to_parse`] sorts by the quick check itself
/// (a few microseconds each).
pub const SPARED_EDITS: usize = 8;

/// The warnings of `files` ([`syntax_to_parse`]'s), parsed on all cores.
pub fn syntax_warnings_of(files: &[&FileChange]) -> Vec<SyntaxWarning> {
    crate::cores::map(files, |f| syntax_warning(f))
        .into_iter()
        .flatten()
        .collect()
}

/// A file change's edits as the syntax check takes them.
fn syntax_edits(f: &FileChange) -> Vec<crate::syntax::Edit<'_>> {
    f.edits
        .as_slice()
        .iter()
        .map(|e| (e.range.clone(), e.text.as_str()))
        .collect()
}

/// The warning of one changed file, if its edits bring a parse error.
fn syntax_warning(f: &FileChange) -> Option<SyntaxWarning> {
    let language = crate::syntax::Language::of_path(f.path.as_str())?;
    let line = match &f.before {
        // Only the regions the edits touch are parsed.
        Some(before) => {
            crate::syntax::new_error_line_quick(language, &before.text, &syntax_edits(f))?
        }
        None => *crate::syntax::errors(language, f.after()?)?.lines.first()?,
    };
    Some(SyntaxWarning {
        path: f.path.as_str().to_string(),
        line: line + 1,
        edits: f.edit_indices.clone(),
    })
}

impl Outcome {
    /// True when the changes may be written: nothing failed, or `partial`.
    pub fn applicable(&self, options: &Options) -> bool {
        self.errors.is_empty() || options.partial
    }
}

/// The matching settings of a run that starts now: its deadline is
/// `options.deadline` from now.
pub fn resolve_config(options: &Options) -> ResolveConfig {
    resolve_config_until(options, Instant::now() + options.deadline)
}

/// The matching settings of a run that must end by `deadline`.
fn resolve_config_until(options: &Options, deadline: Instant) -> ResolveConfig {
    ResolveConfig {
        match_mode: options.match_mode,
        fuzzy: options.fuzzy.filter(|t| *t > 0.0 && *t < 1.0),
        deadline,
        on_conflict: options.on_conflict,
    }
}

/// Parses, resolves and plans a payload against the files of `source`,
/// within `options.deadline` from the call.
pub fn run(payload: &str, options: &Options, source: &dyn FileSource) -> Outcome {
    run_telling(payload, options, source, None)
}

/// [`run`], telling `provisional` (when given) each file's likely change
/// while its resolution still checks it ([`Provisional`]: a writer stages
/// it meanwhile). The outcome is [`run`]'s.
pub fn run_telling(
    payload: &str,
    options: &Options,
    source: &dyn FileSource,
    provisional: Option<&dyn Provisional>,
) -> Outcome {
    let deadline = Instant::now() + options.deadline;
    let parsed = parse::parse(payload, options.format);
    // A preview writes nothing, not even early.
    let provisional = provisional.filter(|_| !parsed.batch.preview);
    let batch = (parsed.batch, parsed.errors, parsed.formats);
    plan_batch_until(batch, options, (source, provisional), deadline)
}

/// Resolves and plans an already parsed batch (parse errors passed along),
/// within `options.deadline` from the call.
pub fn plan_batch(
    batch: EditBatch,
    errors: Vec<EditError>,
    formats: Vec<Format>,
    options: &Options,
    source: &dyn FileSource,
) -> Outcome {
    let deadline = Instant::now() + options.deadline;
    plan_batch_until((batch, errors, formats), options, (source, None), deadline)
}

/// [`plan_batch`] for a run that must end by `deadline`.
fn plan_batch_until(
    (batch, mut errors, formats): (EditBatch, Vec<EditError>, Vec<Format>),
    options: &Options,
    (source, provisional): (&dyn FileSource, Option<&dyn Provisional>),
    deadline: Instant,
) -> Outcome {
    let by_file = group_by_file(&batch.edits, source.root(), &mut errors);
    let config = resolve_config_until(options, deadline);
    let mut files = Vec::new();
    // Files resolve on their own: side by side, results in path order.
    let results = crate::cores::map(&by_file, |(path, edits)| {
        resolve::resolve_file(path, edits, source, &config, provisional)
    });
    for result in results {
        match result {
            FileResult::Changed(changes) => files.extend(changes),
            FileResult::Failed(errs) => errors.extend(errs),
            FileResult::Partial(changes, errs) => {
                errors.extend(errs);
                if options.partial {
                    files.extend(changes);
                }
            }
        }
    }
    errors.sort_by_key(|e| (e.edit.unwrap_or(0), e.lines.first().copied().unwrap_or(0)));
    if !errors.is_empty() && !options.partial {
        files.clear();
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let warnings = match options.syntax_check {
        SyntaxCheck::Now => syntax_warnings(&files),
        SyntaxCheck::Later | SyntaxCheck::Off => Vec::new(),
    };
    Outcome {
        files,
        errors,
        batch,
        formats,
        warnings,
    }
}

/// The edits grouped by target file, in path order, payload order within
/// a file (a rename moves the later edits of the old path to the new path
/// when they resolve); an edit whose path cannot be used goes to `errors`.
/// Each path as written is normalized once, and an edit naming the same
/// path as the one before it (the usual case: a response edits a file in
/// a run of blocks) takes its group without hashing or comparing paths.
fn group_by_file<'e>(
    edits: &'e [Edit],
    root: &std::path::Path,
    errors: &mut Vec<EditError>,
) -> Vec<(WorkspacePath, Vec<&'e Edit>)> {
    let mut groups: Vec<(WorkspacePath, Vec<&Edit>)> = Vec::new();
    let mut group_of: BTreeMap<WorkspacePath, usize> = BTreeMap::new();
    let mut normalized: HashMap<&str, Result<usize, PathError>> = HashMap::new();
    let mut last: Option<(&str, usize)> = None;
    for edit in edits {
        let bad_move = bad_move(root, edit);
        let group = match last {
            Some((raw, g)) if raw == edit.path => Ok(g),
            _ => normalized
                .entry(edit.path.as_str())
                .or_insert_with(|| {
                    WorkspacePath::new(root, &edit.path).map(|path| {
                        *group_of.entry(path.clone()).or_insert_with(|| {
                            groups.push((path, Vec::new()));
                            groups.len() - 1
                        })
                    })
                })
                .clone(),
        };
        if let Ok(g) = group {
            last = Some((edit.path.as_str(), g));
        }
        match (group, bad_move) {
            (Ok(_), Some((to, e))) => errors.push(path_error(edit, to, &e)),
            (Ok(g), None) => groups[g].1.push(edit),
            (Err(e), _) => errors.push(path_error(edit, &edit.path, &e)),
        }
    }
    // A path whose every edit was a refused move has no group.
    groups.retain(|(_, edits)| !edits.is_empty());
    groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    groups
}

/// A move to a name no filesystem accepts: it fails here, with its
/// reason, rather than when the file is written.
fn bad_move<'e>(root: &std::path::Path, edit: &'e Edit) -> Option<(&'e String, PathError)> {
    match &edit.op {
        EditOp::Rename { to } => match WorkspacePath::new(root, to) {
            Err(e @ PathError::InvalidName(_)) => Some((to, e)),
            _ => None,
        },
        _ => None,
    }
}

/// The error of an edit whose path (`raw`: its target, or where it moves
/// the file) cannot be used.
fn path_error(edit: &Edit, raw: &str, error: &PathError) -> EditError {
    let (kind, message) = match error {
        PathError::OutsideRoot => (
            ErrorKind::OutsideRoot,
            format!(
                "edit {} targets `{raw}`, which is outside the workspace root; use a path inside the project",
                edit.index
            ),
        ),
        PathError::Empty => (
            ErrorKind::Parse,
            format!("edit {} names no file; give the file's path", edit.index),
        ),
        PathError::InvalidName(reason) => (
            ErrorKind::Parse,
            format!(
                "edit {} names `{}`, which cannot be a file: {reason}; use a valid file name",
                edit.index,
                raw.escape_debug()
            ),
        ),
    };
    let error = EditError::new(kind, message)
        .with_edit(edit.index)
        .with_payload_lines(edit.source.first_line, edit.source.last_line);
    match error.kind {
        ErrorKind::OutsideRoot => error.with_path(edit.path.clone()),
        _ => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Ordering, SourceSpan};
    use std::path::Path;

    /// The plain definition: every edit's path normalized, grouped in a
    /// sorted map.
    fn grouped_plainly<'e>(
        edits: &'e [Edit],
        root: &Path,
        errors: &mut Vec<EditError>,
    ) -> Vec<(WorkspacePath, Vec<&'e Edit>)> {
        let mut by_file: BTreeMap<WorkspacePath, Vec<&Edit>> = BTreeMap::new();
        for edit in edits {
            let bad_move = bad_move(root, edit);
            match (WorkspacePath::new(root, &edit.path), bad_move) {
                (Ok(_), Some((to, e))) => errors.push(path_error(edit, to, &e)),
                (Ok(path), None) => by_file.entry(path).or_default().push(edit),
                (Err(e), _) => errors.push(path_error(edit, &edit.path, &e)),
            }
        }
        by_file.into_iter().collect()
    }

    #[test]
    fn grouping_equals_the_sorted_map() {
        let root = Path::new("/ws");
        let paths = [
            "a.rs",
            "./a.rs",
            "src/b.rs",
            "src//b.rs",
            "src/../a.rs",
            "../out.rs",
            "",
            "/ws/c.rs",
            "/etc/x",
            "ä/ü.rs",
            "src/b.rs/",
            "d\\e.rs",
            "a.rs ",
            "nul\0x",
        ];
        let tos = ["a.rs", "bad\0name", "src/b.rs", ""];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let len = next(40);
            let mut edits = Vec::new();
            let mut path = paths[0];
            for i in 0..len {
                // Runs of the same path, as payloads have them, and jumps.
                if next(3) == 0 {
                    path = paths[next(paths.len())];
                }
                let op = match next(5) {
                    0 => EditOp::Rename {
                        to: tos[next(tos.len())].to_string(),
                    },
                    _ => EditOp::Delete,
                };
                edits.push(Edit {
                    index: i + 1,
                    path: path.to_string(),
                    format: Format::SearchReplace,
                    source: SourceSpan::default(),
                    ordering: Ordering::Sequential,
                    op,
                });
            }
            let (mut fast, mut plain) = (Vec::new(), Vec::new());
            let groups = group_by_file(&edits, root, &mut fast);
            let expected = grouped_plainly(&edits, root, &mut plain);
            assert_eq!(groups, expected);
            assert_eq!(fast, plain);
        }
    }

    /// A plan of SEARCH/REPLACE edits (`(path, search, replace)`) over
    /// files written to a fresh folder.
    fn planned(files: &[(&str, &str)], edits: &[(&str, &str, &str)]) -> Outcome {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        let payload: String = edits
            .iter()
            .map(|(path, search, replace)| {
                format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n")
            })
            .collect();
        let source = crate::workspace::DiskFiles::new(dir.path()).unwrap();
        let options = Options {
            syntax_check: SyntaxCheck::Later,
            ..Options::default()
        };
        let outcome = run(&payload, &options, &source);
        assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        outcome
    }

    #[test]
    fn the_files_left_to_parse_give_every_warning() {
        // Ten files, each a clean function; an edit of file `i` either
        // swaps its number (taken without a parse) or opens a bracket it
        // never closes (a parse error).
        let files: Vec<(String, String)> = (0..10)
            .map(|i| (format!("f{i}.py"), format!("def f{i}():\n    return {i}\n")))
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let edit = |i: usize, breaking: bool| {
            let new = if breaking {
                format!("({i}")
            } else {
                format!("{}", i + 100)
            };
            (
                files[i].0,
                format!("    return {i}\n"),
                format!("    return {new}\n"),
            )
        };
        let all: Vec<&str> = files.iter().map(|f| f.0).collect();
        for (edits, to_parse) in [
            // Few edits: the files that need no parse are left out.
            (vec![(0, false)], vec![]),
            (vec![(0, true)], vec!["f0.py"]),
            (vec![(0, false), (1, true), (2, false)], vec!["f1.py"]),
            // More than `SPARED_EDITS`: every file is kept, for the thread.
            ((0..10).map(|i| (i, i == 7)).collect(), all.clone()),
            ((0..10).map(|i| (i, false)).collect(), all.clone()),
        ] {
            let edits: Vec<(&str, String, String)> = edits
                .iter()
                .map(|&(i, breaking)| edit(i, breaking))
                .collect();
            let breaking = edits.iter().filter(|e| e.2.contains('(')).count();
            let edits: Vec<(&str, &str, &str)> = edits
                .iter()
                .map(|(p, s, r)| (*p, s.as_str(), r.as_str()))
                .collect();
            let outcome = planned(&files, &edits);
            let left = syntax_to_parse(&outcome.files);
            let paths: Vec<&str> = left.iter().map(|f| f.path.as_str()).collect();
            assert_eq!(paths, to_parse, "{edits:?}");
            // The warnings of the files left are those of every file.
            let plain: Vec<SyntaxWarning> =
                outcome.files.iter().filter_map(syntax_warning).collect();
            let lines = |w: &[SyntaxWarning]| -> Vec<(String, usize)> {
                w.iter().map(|w| (w.path.clone(), w.line)).collect()
            };
            assert_eq!(
                lines(&syntax_warnings_of(&left)),
                lines(&plain),
                "{edits:?}"
            );
            assert_eq!(plain.len(), breaking, "{edits:?}");
        }
    }

    /// Records what a run tells early.
    #[derive(Default)]
    struct Told(std::sync::Mutex<Vec<FileChange>>);

    impl Provisional for Told {
        fn provisional(&self, change: &FileChange) {
            self.0.lock().unwrap().push(change.clone());
        }
    }

    /// Two functions alike but for one number, and a third unlike them.
    fn fuzzy_files(dir: &Path) -> crate::workspace::DiskFiles {
        let load = |n: u32| {
            format!(
                "def load_{n}(path, limit):\n    rows = read_rows(path, limit, {n})\n    \
                 kept = [r for r in rows if r.ok]\n    return kept[:limit]\n\n\n"
            )
        };
        let save = "def save(items, target):\n    data = encode_all(items)\n    \
                    with open(target, \"wb\") as out:\n        out.write(data)\n";
        let text = format!("import os\n\n\n{}{}{save}", load(1), load(2));
        std::fs::write(dir.join("m.py"), text).unwrap();
        crate::workspace::DiskFiles::new(dir).unwrap()
    }

    /// A search with a typo, copied from the third function (`unique`),
    /// else from the first (as close to the second), `edits` times.
    fn fuzzy_payload(unique: bool, edits: usize) -> String {
        let search = if unique {
            "def save(items, target):\n    data = encode_al(items)\n    \
             with open(target, \"wb\") as out:\n        out.write(data)\n"
        } else {
            "def load_1(path, limit):\n    rows = read_rows(path, limt, 1)\n    \
             kept = [r for r in rows if r.ok]\n    return kept[:limit]\n"
        };
        let head = search.lines().next().expect("a line");
        let block =
            format!("m.py\n<<<<<<< SEARCH\n{search}=======\n{head}\n    pass\n>>>>>>> REPLACE\n\n");
        block.repeat(edits)
    }

    /// A fuzzy search's seed window is told before the scan decides: the
    /// very change planned when the scan picks it (the same text read,
    /// the same edits), and told as well when the scan then refuses (the
    /// outcome decides); nothing is told for a preview, nor for a file
    /// with several edits.
    #[test]
    fn a_fuzzy_search_tells_its_seed_window_early() {
        let dir = tempfile::tempdir().unwrap();
        let files = fuzzy_files(dir.path());
        let options = Options {
            fuzzy: Some(0.85),
            ..Options::default()
        };
        let told = Told::default();
        let outcome = run_telling(&fuzzy_payload(true, 1), &options, &files, Some(&told));
        assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        let told = told.0.into_inner().unwrap();
        let [early] = &told[..] else {
            panic!("told {}", told.len())
        };
        let [planned] = &outcome.files[..] else {
            panic!("planned {}", outcome.files.len())
        };
        assert_eq!(early.edits, planned.edits);
        assert!(std::sync::Arc::ptr_eq(
            early.before.as_ref().unwrap(),
            planned.before.as_ref().unwrap()
        ));
        assert_eq!(early.after(), planned.after());

        // Copied from the first function, nearly as close to the second:
        // told, then refused.
        let told = Told::default();
        let outcome = run_telling(&fuzzy_payload(false, 1), &options, &files, Some(&told));
        assert!(outcome.files.is_empty());
        assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
        assert_eq!(told.0.into_inner().unwrap().len(), 1);

        // The MCP filesystem server's `edit_file`, as a preview.
        let old_text = "def save(items, target):\\n    data = encode_al(items)\\n";
        let preview = format!(
            "{{\"name\": \"edit_file\", \"arguments\": {{\"path\": \"m.py\", \"edits\": \
             [{{\"oldText\": \"{old_text}\", \"newText\": \"def save(items, target):\\n\"}}], \
             \"dryRun\": {{}}}}}}"
        );
        let told = Told::default();
        let outcome = run_telling(
            &preview.replace("{}", "false"),
            &options,
            &files,
            Some(&told),
        );
        assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        assert_eq!(told.0.into_inner().unwrap().len(), 1);
        for payload in [fuzzy_payload(true, 2), preview.replace("{}", "true")] {
            let told = Told::default();
            run_telling(&payload, &options, &files, Some(&told));
            assert!(told.0.into_inner().unwrap().is_empty(), "{payload}");
        }
    }
}
