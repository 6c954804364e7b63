//! The whole-process floor of `llm-edit-lsp apply` on a benchmark workload:
//! the least any applier must do to turn a copy of `before/` into `after/`
//! safely, without the engine.
//!
//! ```sh
//! bench_floor WORKLOAD_DIR ROOT     # ROOT: a fresh copy of WORKLOAD_DIR/before
//! ```
//!
//! Untimed shortcut first: the new bytes of every changed file are read from
//! `after/` (and `before/` beside it, to know which files change). Then the
//! work an applier cannot skip: read `payload.md`, read every file the
//! workload changes in ROOT, and write each new content atomically: a
//! temporary file in the target's folder, written and `fsync`ed (all of
//! them), then every rename, then one `fsync` of each touched folder.
//!
//! Prints `shortcut_ns N` on stdout: the time spent before the work (process
//! start excluded), which the caller subtracts from the process's wall time
//! so that the floor counts process start, the work and exit, like the
//! timing of `llm-edit-lsp apply`. Only `std`: `scripts/bench` builds it
//! with `rustc -O` (no dev-dependencies to build).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// What happens to one file (path relative to the root).
enum Change {
    Put(Vec<u8>),
    Remove,
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [workload, root] = args.as_slice() else {
        eprintln!("usage: bench_floor WORKLOAD_DIR ROOT");
        return ExitCode::from(2);
    };
    match run(workload, root) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_floor: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(workload: &Path, root: &Path) -> io::Result<()> {
    // The shortcut (not counted): what changes, and the new bytes.
    let start = Instant::now();
    let changes = changes(workload)?;
    let shortcut = start.elapsed();

    // The counted work. An applier reads its payload...
    let payload = read(&workload.join("payload.md"))?;
    std::hint::black_box(&payload);
    // ...and every file it changes (to find the edits, to check them).
    for (path, _) in changes.iter() {
        std::hint::black_box(read(&root.join(path))?);
    }
    // Every new content to a temporary file beside its target, synced.
    let mut temps = Vec::new();
    for (path, change) in &changes {
        if let Change::Put(bytes) = change {
            let target = root.join(path);
            let temp = temp_name(&target);
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            temps.push((temp, target));
        }
    }
    // Then every rename (and removal), then each touched folder once.
    let mut folders = BTreeSet::new();
    for (temp, target) in &temps {
        fs::rename(temp, target)?;
        folders.insert(parent(target));
    }
    for (path, change) in &changes {
        if let Change::Remove = change {
            let target = root.join(path);
            fs::remove_file(&target)?;
            folders.insert(parent(&target));
        }
    }
    for folder in folders {
        File::open(folder)?.sync_all()?;
    }
    println!("shortcut_ns {}", shortcut.as_nanos());
    Ok(())
}

/// Files of `after/` that differ from `before/` (with their new bytes) and
/// files of `before/` missing from `after/`.
fn changes(workload: &Path) -> io::Result<BTreeMap<PathBuf, Change>> {
    let (before, after) = (workload.join("before"), workload.join("after"));
    let mut out = BTreeMap::new();
    for path in files(&after)? {
        let new = read(&after.join(&path))?;
        let old = fs::read(before.join(&path)).ok();
        if old.as_deref() != Some(new.as_slice()) {
            out.insert(path, Change::Put(new));
        }
    }
    for path in files(&before)? {
        if !after.join(&path).exists() {
            out.insert(path, Change::Remove);
        }
    }
    Ok(out)
}

/// Every regular file under `dir`, relative to it.
fn files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        for entry in fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    Ok(out)
}

fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let mut bytes = Vec::with_capacity(file.metadata()?.len() as usize);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn temp_name(target: &Path) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    target.with_file_name(format!(".{name}.{}.floor-tmp", std::process::id()))
}

fn parent(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).to_path_buf()
}
