//! One workload's run split into its phases, in process: the payload's
//! parse, the resolve and plan of the parsed batch (files held in memory,
//! as `benches/engine.rs` holds them), and dropping the outcome. Medians
//! of N runs, in ms; criterion (`apply/*`) times the three together.
//!
//! ```sh
//! cargo run --release --example phases -- target/bench-data/W4-many-small [N]
//! taskset -c 0 target/release/examples/phases target/bench-data/W4-many-small   # one core
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use llm_edit_lsp::engine::{self, Options, SyntaxCheck};
use llm_edit_lsp::parse;
use llm_edit_lsp::text::encoding::Encoding;
use llm_edit_lsp::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// The workload's `before/` files, keyed by workspace path.
struct MemoryFiles {
    root: PathBuf,
    files: BTreeMap<WorkspacePath, Arc<SourceText>>,
}

impl FileSource for MemoryFiles {
    fn root(&self) -> &Path {
        &self.root
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        Ok(self.files.get(path).cloned())
    }
}

/// Every file under `dir`, recursively, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: phases WORKLOAD_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args
        .next()
        .map_or(200, |n| n.parse().expect("a number of runs"));
    let root = PathBuf::from("/bench");
    let before = dir.join("before");
    let mut files = BTreeMap::new();
    for file in files_under(&before) {
        let relative = file.strip_prefix(&before).expect("under before/");
        let path = WorkspacePath::new(&root, &relative.to_string_lossy()).expect("a path");
        let text = std::fs::read_to_string(&file).expect("a UTF-8 file");
        files.insert(path, Arc::new(SourceText::from_disk(text, Encoding::Utf8)));
    }
    let payload = std::fs::read_to_string(dir.join("payload.md")).expect("payload.md");
    let files = MemoryFiles { root, files };
    let options = Options {
        fuzzy: dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("W3"))
            .then_some(0.9),
        syntax_check: SyntaxCheck::Later,
        ..Options::default()
    };
    let (mut parses, mut plans, mut drops) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let parsed = parse::parse(&payload, None);
        let parsed_at = Instant::now();
        let outcome = engine::plan_batch(
            parsed.batch,
            parsed.errors,
            parsed.formats,
            &options,
            &files,
        );
        let planned_at = Instant::now();
        assert!(outcome.errors.is_empty(), "errors: {:?}", outcome.errors);
        drop(outcome);
        let dropped_at = Instant::now();
        parses.push((parsed_at - start).as_secs_f64() * 1e3);
        plans.push((planned_at - parsed_at).as_secs_f64() * 1e3);
        drops.push((dropped_at - planned_at).as_secs_f64() * 1e3);
    }
    println!(
        "parse {:.3} ms, resolve + plan {:.3} ms, drop {:.3} ms (medians of {runs})",
        median(parses),
        median(plans),
        median(drops)
    );
}
