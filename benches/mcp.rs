//! What an MCP tool call adds to the engine: the `edit` tool on W1 (one
//! exact 5-line replacement in a 10 MB, 250k-line file, on disk), against
//! the engine alone on the same input.
//!
//! - `engine_run`: `engine::run` of the JSON `Edit` payload the tool builds,
//!   over the files on disk (`DiskFiles`), nothing written;
//! - `engine_run_and_write`: the same, plus the atomic write
//!   (`write::write_all`), as the CLI does;
//! - `edit_tool`: `Session::call("edit", …)`: arguments decoded, root
//!   chosen, payload built, engine, write, the agent's result (diff,
//!   summary) and the session's new snapshot of the file;
//! - `edit_tool_after_read`: the same after `read_file` (the snapshot is
//!   the file as it is: no merge, but the snapshot path).
//!
//! The file is written back before every iteration (not timed). Each
//! iteration's session is dropped after its timing, which waits for the
//! snapshot the session was making of what it wrote (a thread it starts
//! after answering): otherwise that work would run on into the next
//! iteration's timing, as no agent's next call (a model's turn later)
//! would meet it. W1 is
//! `$BENCH_DATA/W1-exact-10mb` (`../shared/bench/workloads.py`; see
//! `benches/engine.rs`); without it the benchmark is skipped.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use llm_edit_lsp::engine::{self, Options, SyntaxCheck};
use llm_edit_lsp::mcp::{Config, Session};
use llm_edit_lsp::model::{EditOp, Format};
use llm_edit_lsp::parse;
use llm_edit_lsp::workspace::DiskFiles;
use serde_json::{json, Value};

/// W1's folder, if the workloads were generated.
fn w1() -> Option<PathBuf> {
    let data = std::env::var_os("BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
                .join("bench-data")
        });
    let dir = data.join("W1-exact-10mb");
    dir.join("payload.md").is_file().then_some(dir)
}

fn bench(c: &mut Criterion) {
    let Some(dir) = w1() else {
        eprintln!("benches/mcp: no W1-exact-10mb (set BENCH_DATA; see benches/engine.rs): skipped");
        return;
    };
    // The workload's one SEARCH/REPLACE block, as `edit` arguments.
    let payload = std::fs::read_to_string(dir.join("payload.md")).expect("payload.md");
    let parsed = parse::parse(&payload, None);
    let edit = &parsed.batch.edits[0];
    let EditOp::Replace(replace) = &edit.op else {
        panic!("W1 is one replacement")
    };
    let path = edit.path.clone();
    let before = std::fs::read(dir.join("before").join(&path)).expect("the before file");
    let args = json!({"path": path, "old_string": replace.search, "new_string": replace.replace});
    let Value::Object(args) = args else {
        unreachable!()
    };
    let edit_payload =
        json!({"name": "Edit", "arguments": {"file_path": path, "old_string": replace.search,
               "new_string": replace.replace, "replace_all": false}})
        .to_string();

    let tmp = tempfile::tempdir().expect("a scratch folder");
    let root = tmp.path().join("root");
    let file = root.join(&path);
    std::fs::create_dir_all(file.parent().expect("a folder")).expect("folders");
    let restore = || std::fs::write(&file, &before).expect("the file written back");
    restore();
    let options = Options {
        format: Some(Format::Json),
        syntax_check: SyntaxCheck::Now,
        ..Options::default()
    };
    let session = || {
        Session::new(Config {
            roots: vec![root.clone()],
            ..Config::default()
        })
        .expect("a session")
    };

    let mut group = c.benchmark_group("mcp/W1");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("engine_run", |b| {
        b.iter(|| {
            let files = DiskFiles::new(&root).expect("the root");
            let outcome = engine::run(&edit_payload, &options, &files);
            assert!(outcome.errors.is_empty());
            outcome
        })
    });
    group.bench_function("engine_run_and_write", |b| {
        b.iter_batched(
            restore,
            |()| {
                let files = DiskFiles::new(&root).expect("the root");
                let outcome = engine::run(&edit_payload, &options, &files);
                llm_edit_lsp::write::write_all(files.root_dir(), &outcome.files, false)
                    .expect("written");
                outcome
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("edit_tool", |b| {
        b.iter_batched(
            || {
                restore();
                session()
            },
            |s| {
                let reply = s.call("edit", args.clone()).expect("a tool");
                assert!(!reply.is_error, "{}", reply.text);
                (s, reply)
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("edit_tool_after_read", |b| {
        b.iter_batched(
            || {
                restore();
                let s = session();
                let mut read = serde_json::Map::new();
                read.insert("path".into(), json!(path));
                read.insert("limit".into(), json!(10));
                assert!(!s.call("read_file", read).expect("a tool").is_error);
                s
            },
            |s| {
                let reply = s.call("edit", args.clone()).expect("a tool");
                assert!(!reply.is_error, "{}", reply.text);
                (s, reply)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
