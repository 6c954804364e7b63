//! Status of 1,000 files with snapshots when nothing changed (issue
//! target: < 20 ms in release).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use llm_edit_lsp::context::{Snapshot, SnapshotEntry};
use llm_edit_lsp::status::{statuses, FileContextStatus};
use llm_edit_lsp::workspace::WorkspacePath;

const FILES: usize = 1_000;
const LINES_PER_FILE: usize = 300;

fn bench_status(c: &mut Criterion) {
    let root = Path::new("/ws");
    let files: Vec<(WorkspacePath, String)> = (0..FILES)
        .map(|f| {
            let path =
                WorkspacePath::new(root, &format!("src/mod_{}/file_{f}.rs", f % 20)).unwrap();
            let text: String = (0..LINES_PER_FILE)
                .map(|l| format!("    let v{l} = f{f}(x, {l}); // line {l}\n"))
                .collect();
            (path, text)
        })
        .collect();
    let snapshot: Snapshot = files
        .iter()
        .map(|(p, t)| (p.clone(), SnapshotEntry::new(t.as_str())))
        .collect();
    // The buffers are separate allocations, as in an editor.
    let buffers: HashMap<WorkspacePath, String> = files.into_iter().collect();
    let edited = BTreeSet::new();
    let bytes: usize = buffers.values().map(String::len).sum();
    let all = statuses(&snapshot, &edited, |p| buffers.get(p));
    assert!(all.iter().all(|(_, s)| *s == FileContextStatus::Unchanged));
    let name = format!(
        "status of {FILES} unchanged files ({} MB)",
        bytes / 1_000_000
    );
    c.bench_function(&name, |b| {
        b.iter(|| statuses(&snapshot, &edited, |p| buffers.get(p)))
    });
    c.bench_function(&format!("{name} (cpu time)"), |b| {
        b.iter_custom(|iters| {
            common::cpu_time(iters, || statuses(&snapshot, &edited, |p| buffers.get(p)))
        })
    });
}

criterion_group!(benches, bench_status);
criterion_main!(benches);
