//! Merge of a 100k-line file with 50 user hunks and 50 LLM hunks (issue
//! target: < 30 ms in release), with 5000 + 5000 hunks (target: < 2 s),
//! and the merge of `tests/pathological.rs` (a line added at the top and
//! every 1,000th line changed by the user, every 10th by the LLM).

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use llm_edit_lsp::merge::{merge, MergeOutcome};

const LINES: usize = 100_000;
const HUNKS: usize = 50;

/// A code-like file: distinct lines with some repeats (blank lines, braces).
fn base_lines() -> Vec<String> {
    (0..LINES)
        .map(|i| match i % 10 {
            0 => String::new(),
            9 => "}".to_string(),
            _ => format!("    let value_{i} = compute({i}, \"item {}\");", i % 97),
        })
        .collect()
}

/// Changes `HUNKS` evenly spread regions starting at `offset` (one line
/// replaced, one inserted), never touching the other side's regions.
fn edited(base: &[String], offset: usize, tag: &str) -> String {
    let stride = LINES / HUNKS;
    let mut lines = Vec::with_capacity(base.len() + HUNKS);
    for (i, line) in base.iter().enumerate() {
        if i % stride == offset {
            lines.push(format!("{line} // {tag} changed"));
            lines.push(format!("    // {tag} added at {i}"));
        } else {
            lines.push(line.clone());
        }
    }
    lines.join("\n") + "\n"
}

/// Every 20th line changed by one side, ten lines further by the other:
/// 5000 + 5000 hunks, too many for Myers within its time limit, so the
/// anchored fallback merges it (issue target: < 2 s).
fn many_hunks(base: &[String], offset: usize, tag: &str) -> String {
    let lines = base.iter().enumerate().map(|(i, line)| {
        if i % 20 == offset {
            format!("{tag} changed {i}\n")
        } else {
            format!("{line}\n")
        }
    });
    lines.collect()
}

fn bench_merge(c: &mut Criterion) {
    let base_lines = base_lines();
    let base = base_lines.join("\n") + "\n";
    let ours = edited(&base_lines, 3, "user");
    let theirs = edited(&base_lines, 1003, "llm");
    let MergeOutcome::Merged(merged) = merge(&base, &ours, &theirs) else {
        panic!("the bench's hunks are disjoint");
    };
    assert_eq!(merged.edits.as_slice().len(), HUNKS);
    c.bench_function("merge 100k lines, 50+50 hunks", |b| {
        b.iter(|| merge(&base, &ours, &theirs))
    });
    c.bench_function("merge 100k lines, 50+50 hunks (cpu time)", |b| {
        b.iter_custom(|iters| common::cpu_time(iters, || merge(&base, &ours, &theirs)))
    });

    let ours = many_hunks(&base_lines, 3, "user");
    let theirs = many_hunks(&base_lines, 13, "llm");
    let MergeOutcome::Merged(merged) = merge(&base, &ours, &theirs) else {
        panic!("the bench's hunks are disjoint");
    };
    assert_eq!(merged.edits.as_slice().len(), LINES / 20);
    let mut group = c.benchmark_group("merge 100k lines, 5000+5000 hunks (anchored fallback)");
    group.sample_size(10);
    group.bench_function("wall", |b| b.iter(|| merge(&base, &ours, &theirs)));
    group.finish();

    let (base, ours, theirs, expected) = pathological();
    let MergeOutcome::Merged(merged) = merge(&base, &ours, &theirs) else {
        panic!("the pathological merge's hunks are disjoint");
    };
    assert!(merged.text == expected, "the pathological merge is wrong");
    let mut group = c.benchmark_group("merge 100k lines, 101+10000 hunks (pathological)");
    group.sample_size(10);
    group.bench_function("wall", |b| b.iter(|| merge(&base, &ours, &theirs)));
    group.finish();
}

/// The merge of `tests/pathological.rs::merge_of_many_blocks_against_a_snapshot`:
/// base, ours, theirs and the expected text, built line by line.
fn pathological() -> (String, String, String, String) {
    let n = 100_000;
    let base: Vec<String> = (0..n).map(|i| format!("line {i}")).collect();
    let user = |i: usize, line: &String| match i % 1000 {
        0 => format!("user {i}"),
        _ => line.clone(),
    };
    let llm = |i: usize, line: &String| match i % 10 {
        5 => format!("llm {i}"),
        _ => line.clone(),
    };
    let join = |lines: Vec<String>| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let ours = std::iter::once("header".to_string())
        .chain(base.iter().enumerate().map(|(i, l)| user(i, l)))
        .collect();
    let theirs = base.iter().enumerate().map(|(i, l)| llm(i, l)).collect();
    let expected = std::iter::once("header".to_string())
        .chain(base.iter().enumerate().map(|(i, l)| llm(i, &user(i, l))))
        .collect();
    (join(base.clone()), join(ours), join(theirs), join(expected))
}

criterion_group!(benches, bench_merge);
criterion_main!(benches);
