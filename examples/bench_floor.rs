//! The whole-process floor of `llm-edit-lsp apply` on a benchmark workload:
//! the least any applier must do to turn a copy of `before/` into `after/`
//! safely, without the engine.
//!
//! ```sh
//! bench_floor WORKLOAD_DIR ROOT     # ROOT: a fresh copy of WORKLOAD_DIR/before
//! bench_floor WORKLOAD_DIR ROOT 16  # the syncs by 16 threads at once
//! ```
//!
//! Untimed shortcut first: the new bytes of every changed file are read from
//! `after/` (and `before/` beside it, to know which files change). Then the
//! work an applier cannot skip: read `payload.md`, read every file the
//! workload changes in ROOT, and write each new content atomically: a
//! temporary file in the target's folder, written and `fsync`ed (all of
//! them), then every rename, then one `fsync` of each touched folder.
//! The floor proper syncs one file after the other; with a thread count,
//! the files are all written first and then synced that many at a time
//! (and the folders too), which lets the filesystem commit its journal
//! once for many syncs (what `llm-edit-lsp apply` does since).
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
    let (workload, root, threads) = match args.as_slice() {
        [w, r] => (w, r, 1),
        [w, r, n] => match n.to_str().and_then(|n| n.parse().ok()) {
            Some(n) if n >= 1 => (w, r, n),
            _ => return usage(),
        },
        _ => return usage(),
    };
    match run(workload, root, threads) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_floor: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: bench_floor WORKLOAD_DIR ROOT [SYNC_THREADS]");
    ExitCode::from(2)
}

fn run(workload: &Path, root: &Path, threads: usize) -> io::Result<()> {
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
    let mut unsynced = Vec::new();
    for (path, change) in &changes {
        if let Change::Put(bytes) = change {
            let target = root.join(path);
            let temp = temp_name(&target);
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            file.write_all(bytes)?;
            if threads == 1 {
                file.sync_all()?;
            } else {
                unsynced.push(file);
            }
            temps.push((temp, target));
        }
    }
    sync_all(&unsynced, threads)?;
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
    let folders = folders
        .into_iter()
        .map(File::open)
        .collect::<io::Result<Vec<_>>>()?;
    sync_all(&folders, threads)?;
    println!("shortcut_ns {}", shortcut.as_nanos());
    Ok(())
}

/// Syncs the files, `threads` at a time.
fn sync_all(files: &[File], threads: usize) -> io::Result<()> {
    if threads == 1 {
        return files.iter().try_for_each(File::sync_all);
    }
    if files.is_empty() {
        return Ok(());
    }
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = files
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().try_for_each(File::sync_all)))
            .collect();
        parts
            .into_iter()
            .try_for_each(|p| p.join().unwrap_or_else(|_| Err(io::Error::other("panic"))))
    })
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
    huge_pages(&mut bytes);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Asks transparent huge pages for a buffer of 4 MiB or more, as
/// `llm-edit-lsp apply` does for its large blocks (`src/cli/huge_pages.rs`):
/// the floor must not pay page faults that apply no longer pays.
fn huge_pages(buf: &mut Vec<u8>) {
    #[cfg(target_os = "linux")]
    if buf.capacity() >= 4 << 20 {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const HUGE_PAGE: usize = 2 << 20;
        let ptr = buf.as_mut_ptr() as usize;
        let start = ptr.next_multiple_of(HUGE_PAGE);
        let end = (ptr + buf.capacity()) & !(HUGE_PAGE - 1);
        if end > start {
            // SAFETY: a range inside the buffer's own allocation; the advice
            // changes how its pages are faulted in, not their content.
            unsafe {
                madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
            }
        }
    }
}

fn temp_name(target: &Path) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    target.with_file_name(format!(".{name}.{}.floor-tmp", std::process::id()))
}

fn parent(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new(".")).to_path_buf()
}
