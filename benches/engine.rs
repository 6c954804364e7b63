//! Engine benchmarks, in process: the performance targets of the issue and
//! the shared workloads W1-W5 (`../shared/bench`), parse + resolve + plan
//! against files held in memory (no disk reads or writes in the loop).
//!
//! The workloads are generated once by `../shared/bench/workloads.py` into
//! `$CARGO_TARGET_DIR/bench-data` (or `target/bench-data`); set
//! `BENCH_DATA=DIR` to use workloads generated elsewhere. Without them the
//! benchmarks are skipped with a message. `scripts/bench` runs everything
//! and prints the table of `docs/benchmarks.md`.
//!
//! `syntax/*` times the syntax check of each workload's changes alone.
//!
//! Targets (`targets/*`):
//! - a: one exact 5-line SEARCH in a 10 MB, 250k-line file (W1), < 5 ms;
//! - b: 200 sequential `edit_file` edits on that file (W2's edits as one
//!   JSON tool call), resolve + plan of the parsed batch, < 100 ms;
//! - c: a 20-line fuzzy SEARCH (threshold 0.9, no hint) in a 10k-line file
//!   (W3), < 50 ms;
//! - d: parsing a 5 MB response with 2,000 blocks (W5's payload), < 50 ms.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use llm_edit_lsp::engine::{self, Options, SyntaxCheck};
use llm_edit_lsp::model::{EditOp, MatchUnit};
use llm_edit_lsp::parse;
use llm_edit_lsp::workspace::WorkspacePath;
use serde_json::json;

#[path = "common/workload.rs"]
mod workload;
use workload::{files_under, MemoryFiles, Workload};

/// The workload folders `workloads.py` writes.
const WORKLOADS: [&str; 6] = [
    "W1-exact-10mb",
    "W2-200-edits-10mb",
    "W3-fuzzy-10k",
    "W3h-fuzzy-10k-hint",
    "W4-many-small",
    "W5-big-response",
];

/// The folder holding the workloads, generating them when missing.
fn bench_data() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BENCH_DATA") {
        return Some(PathBuf::from(dir));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"));
    let dir = target.join("bench-data");
    if WORKLOADS
        .iter()
        .all(|w| dir.join(w).join("payload.md").is_file())
    {
        return Some(dir);
    }
    let script = manifest.join("../shared/bench/workloads.py");
    if !script.is_file() {
        eprintln!(
            "benches/engine: no {} and no BENCH_DATA: skipped",
            script.display()
        );
        return None;
    }
    let status = Command::new("python3").arg(&script).arg(&dir).status();
    match status {
        Ok(s) if s.success() => Some(dir),
        other => {
            eprintln!("benches/engine: workloads.py failed ({other:?}): skipped");
            None
        }
    }
}

/// The options a workload needs (W3 and W3h carry typos: fuzzy 0.9).
fn options_for(name: &str) -> Options {
    Options {
        fuzzy: name.starts_with("W3").then_some(0.9),
        ..Options::default()
    }
}

/// W2's 200 edits as one `edit_file` tool call with an `edits` array.
fn edit_file_payload(w2: &Workload) -> String {
    let parsed = parse::parse(&w2.payload, None);
    let edits: Vec<_> = parsed
        .batch
        .edits
        .iter()
        .map(|e| match &e.op {
            EditOp::Replace(r) if r.unit == MatchUnit::Lines => {
                json!({"path": e.path, "old_string": r.search, "new_string": r.replace})
            }
            other => panic!("W2 holds only line replaces, not {}", other.name()),
        })
        .collect();
    json!({"type": "tool_use", "id": "bench", "name": "edit_file", "input": {"edits": edits}})
        .to_string()
}

/// Runs the engine and checks that it succeeded.
fn run_ok(payload: &str, options: &Options, files: &MemoryFiles) -> engine::Outcome {
    let outcome = engine::run(payload, options, files);
    assert!(outcome.errors.is_empty(), "errors: {:?}", outcome.errors);
    outcome
}

fn targets(c: &mut Criterion, data: &Path) {
    let w1 = Workload::load(&data.join("W1-exact-10mb"));
    let w2 = Workload::load(&data.join("W2-200-edits-10mb"));
    let w3 = Workload::load(&data.join("W3-fuzzy-10k"));
    let w5 = Workload::load(&data.join("W5-big-response"));
    let mut group = c.benchmark_group("targets");
    group.sample_size(20);

    group.bench_function("a_exact_search_10mb", |b| {
        b.iter(|| run_ok(&w1.payload, &Options::default(), &w1.files))
    });

    let json_payload = edit_file_payload(&w2);
    let parsed = parse::parse(&json_payload, None);
    assert!(parsed.errors.is_empty() && parsed.batch.edits.len() == 200);
    group.bench_function("b_edit_file_200_resolve_plan", |b| {
        b.iter_batched(
            || parsed.batch.clone(),
            |batch| {
                let outcome = engine::plan_batch(
                    batch,
                    Vec::new(),
                    parsed.formats.clone(),
                    &Options::default(),
                    &w2.files,
                );
                assert!(outcome.errors.is_empty(), "errors: {:?}", outcome.errors);
                outcome
            },
            BatchSize::LargeInput,
        )
    });

    group.bench_function("c_fuzzy_20_lines_10k", |b| {
        b.iter(|| run_ok(&w3.payload, &options_for("W3"), &w3.files))
    });

    group.bench_function("d_parse_5mb_2000_blocks", |b| {
        b.iter(|| {
            let parsed = parse::parse(&w5.payload, None);
            assert_eq!(parsed.batch.edits.len(), 2000);
            parsed
        })
    });
    group.finish();
}

fn workloads(c: &mut Criterion, data: &Path) {
    let mut group = c.benchmark_group("workloads");
    group.sample_size(10);
    for name in WORKLOADS {
        let w = Workload::load(&data.join(name));
        let options = options_for(name);
        let id = name.split('-').next().unwrap_or(name);
        group.bench_function(id, |b| b.iter(|| run_ok(&w.payload, &options, &w.files)));
    }
    group.finish();
}

/// The workloads as `apply` runs them before writing: parse + resolve +
/// plan, the syntax check of the planned changes left to run beside the
/// writes (`SyntaxCheck::Later`; `syntax/*` times it alone). Loose
/// matches are still checked while they are resolved.
fn apply(c: &mut Criterion, data: &Path) {
    let mut group = c.benchmark_group("apply");
    group.sample_size(10);
    for name in WORKLOADS {
        let w = Workload::load(&data.join(name));
        let options = Options {
            syntax_check: SyntaxCheck::Later,
            ..options_for(name)
        };
        let id = name.split('-').next().unwrap_or(name);
        same_as_after(&run_ok(&w.payload, &options, &w.files), &data.join(name));
        group.bench_function(id, |b| b.iter(|| run_ok(&w.payload, &options, &w.files)));
    }
    group.finish();
}

/// Checks, before timing, that a workload's result is its `after/`: every
/// changed file as there, and every file there that differs from `before/`
/// changed.
fn same_as_after(outcome: &engine::Outcome, dir: &Path) {
    let changed: Vec<&str> = outcome.files.iter().map(|f| f.path.as_str()).collect();
    for f in &outcome.files {
        let want = std::fs::read_to_string(dir.join("after").join(f.path.as_str())).ok();
        assert!(
            f.after() == want.as_deref(),
            "{}: {} differs from after/",
            dir.display(),
            f.path
        );
    }
    for path in files_under(&dir.join("after")) {
        let relative = path.strip_prefix(dir.join("after")).unwrap();
        let before = std::fs::read(dir.join("before").join(relative)).ok();
        if before != std::fs::read(&path).ok() {
            let relative = relative.to_string_lossy();
            assert!(
                changed.contains(&relative.as_ref()),
                "{}: {relative} is not changed",
                dir.display()
            );
        }
    }
}

/// The syntax check alone (`engine::syntax_warnings` on a workload's
/// planned changes), to set against the workload's whole run: it must stay
/// a small part of it. Wall time: the check runs on every core.
fn syntax_share(c: &mut Criterion, data: &Path) {
    let mut group = c.benchmark_group("syntax");
    group.sample_size(10);
    for name in WORKLOADS {
        let w = Workload::load(&data.join(name));
        let outcome = run_ok(&w.payload, &options_for(name), &w.files);
        let id = name.split('-').next().unwrap_or(name);
        group.bench_function(id, |b| b.iter(|| engine::syntax_warnings(&outcome.files)));
    }
    group.finish();
}

/// One file's blocks for [`no_check_applier`]: its text and each block's
/// search and replacement, in payload order.
type FileBlocks<'a> = (&'a str, Vec<(&'a str, &'a str)>);

/// Where the no-check applier put a file's blocks: each block's range in
/// the file and its index among the file's blocks.
type Placed = Vec<(std::ops::Range<usize>, usize)>;

/// The method of the fastest other appliers (`../shared/bench/README.md`:
/// "a single `indexOf` pass per block, no uniqueness check"), rendered in
/// Rust and given every advantage, so that they can be timed beside ours
/// on the same machine in the same run: the blocks come already split per
/// file (parsed outside the timing), each is found with one substring search
/// from where the previous block of its file ended (`memchr::memmem`, SIMD) (from the file's start
/// when not found there), and the result is the list of replaced ranges,
/// not joined into a text (ours is not joined either: the writer writes
/// the pieces). It checks nothing: a block found at its first occurrence
/// is taken there. `None` when a block is not found.
fn no_check_applier(files: &[FileBlocks]) -> Option<Vec<Placed>> {
    files
        .iter()
        .map(|(text, blocks)| {
            let mut at = 0;
            let mut out = Vec::with_capacity(blocks.len());
            for (i, (search, _)) in blocks.iter().enumerate() {
                let find = |from: usize| {
                    memchr::memmem::find(&text.as_bytes()[from..], search.as_bytes())
                        .map(|p| from + p)
                };
                let start = find(at).or_else(|| find(0))?;
                at = start + search.len();
                out.push((start..at, i));
            }
            Some(out)
        })
        .collect()
}

/// The no-check applier's result for one file, joined (to check it
/// against `after/` once, outside the timing).
fn joined(
    text: &str,
    blocks: &[(&str, &str)],
    ranges: &[(std::ops::Range<usize>, usize)],
) -> String {
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (r, i) in sorted {
        out.push_str(&text[at..r.start]);
        out.push_str(blocks[i].1);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `peer/*`: the no-check applier on the workloads whose blocks are plain
/// SEARCH/REPLACE (W1, W2, W4, W5; W3's typos need a fuzzy applier), beside
/// `apply/*` in the same run. Its result is checked against `after/` once
/// and the check printed; it is timed either way.
fn peer(c: &mut Criterion, data: &Path) {
    let mut group = c.benchmark_group("peer");
    group.sample_size(10);
    for name in WORKLOADS.iter().filter(|n| !n.starts_with("W3")) {
        let w = Workload::load(&data.join(name));
        let parsed = parse::parse(&w.payload, None);
        let mut by_path: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
        for e in &parsed.batch.edits {
            let EditOp::Replace(r) = &e.op else {
                panic!("{name}: the no-check applier takes only SEARCH/REPLACE blocks")
            };
            by_path
                .entry(e.path.as_str())
                .or_default()
                .push((r.search.as_str(), r.replace.as_str()));
        }
        let paths: Vec<&str> = by_path.keys().copied().collect();
        let files: Vec<FileBlocks> = by_path
            .into_iter()
            .map(|(path, blocks)| {
                let key = WorkspacePath::new(&w.files.root, path).expect("a path");
                (w.files.files[&key].text.as_str(), blocks)
            })
            .collect();
        let right = no_check_applier(&files).is_some_and(|ranges| {
            paths
                .iter()
                .zip(&files)
                .zip(&ranges)
                .all(|((path, (text, blocks)), r)| {
                    let want = std::fs::read_to_string(data.join(name).join("after").join(path));
                    want.ok().as_deref() == Some(joined(text, blocks, r).as_str())
                })
        });
        let id = name.split('-').next().unwrap_or(name);
        eprintln!("peer/{id}: the no-check applier's result equals after/: {right}");
        group.bench_function(id, |b| b.iter(|| no_check_applier(&files)));
    }
    group.finish();
}

fn engine_benches(c: &mut Criterion) {
    let Some(data) = bench_data() else { return };
    targets(c, &data);
    workloads(c, &data);
    apply(c, &data);
    peer(c, &data);
    syntax_share(c, &data);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = engine_benches
}
criterion_main!(benches);
