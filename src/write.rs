//! Writing a plan to disk: all or nothing, and never outside the root.
//!
//! Every target is located from the root's directory handle
//! ([`RootDir::locate`]): a symlink inside the root leads to the file it
//! points to (that file is edited, the link stays a link); one leading out
//! is refused. Each new content goes to a temporary file with an
//! unpredictable name, created exclusively in its target's folder and
//! given the target's owner, group, mode and extended attributes; every
//! temporary file is written and synced before any rename. Right before
//! each rename the target is checked against the bytes the plan was made
//! from: its status against the one taken when it was read (a [`Stamp`],
//! when that can tell), else it is read again and compared; a file changed
//! meanwhile is refused, and everything already replaced is restored. A file with several hard links is
//! rewritten in place (a rename would split it from its other names). A
//! read-only file in a writable folder is refused unless `force`. Each
//! folder touched is synced once at the end.
//!
//! Syncs wait together: the temporary files are synced by a few threads at
//! once (at most [`SYNC_BATCH`] files staged and unsynced at a time), and
//! so are the folders at the end. A journaling filesystem then commits
//! once for the syncs that wait together, where one after the other each
//! sync waits for a commit of its own; still, no rename happens before
//! every temporary file is synced.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::{IoSlice, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rustix::fs::Stat;

use crate::disk::{meta, Dir, FsError, Location, RootDir, Stamp, NEW_FILE, PRIVATE};
use crate::engine::{FileChange, FileStatus, Provisional};
use crate::text::encoding::{self, Encoding};
use crate::workspace::WorkspacePath;

/// Temporary files written but not yet synced, at most: each keeps a
/// descriptor open until it is synced.
const SYNC_BATCH: usize = 64;
/// Threads syncing at once (they wait on the disk, not on a core).
const SYNC_THREADS: usize = 16;

/// What the target must hold right before it is replaced or removed.
enum Expect<'a> {
    /// Missing or empty (a new file: the plan's create rule).
    Absent,
    /// Exactly these bytes (what the plan read; borrowed from the plan
    /// unless its encoding had to be redone), and the file's status when
    /// they were read, when it can tell that the file is unchanged
    /// ([`Stamp`]).
    Bytes(Cow<'a, [u8]>, Option<Stamp>),
}

/// One file operation, staged.
enum Staged<'a> {
    /// The temporary file `temp` beside the target becomes it.
    Replace {
        at: Location,
        temp: OsString,
        expect: Expect<'a>,
        shown: String,
    },
    /// The target (hard-linked elsewhere) is rewritten in place.
    InPlace {
        at: Location,
        bytes: Cow<'a, [u8]>,
        old: Cow<'a, [u8]>,
        stamp: Option<Stamp>,
        shown: String,
    },
    /// The entry `at` goes away; `check` (where its symlinks lead) must
    /// still hold what was read.
    Remove {
        at: Location,
        check: Location,
        expect: Cow<'a, [u8]>,
        stamp: Option<Stamp>,
        shown: String,
    },
}

/// The bytes a file gets.
enum NewBytes<'a> {
    /// All of them (a new file, or an encoding other than UTF-8).
    Whole(Cow<'a, [u8]>),
    /// UTF-8 text in pieces: the text before between the edits, and the
    /// edits' texts.
    Pieces(Vec<&'a str>),
}

impl<'a> NewBytes<'a> {
    /// Writes them all to `file`; pieces go to the system as they are,
    /// [`MAX_SLICES`] to a call (`writev`: no copy of the text gathered in
    /// between).
    fn write_to(&self, file: &mut File) -> std::io::Result<()> {
        match self {
            NewBytes::Whole(bytes) => file.write_all(bytes),
            NewBytes::Pieces(pieces) => {
                let mut slices: Vec<IoSlice<'_>> = pieces
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| IoSlice::new(p.as_bytes()))
                    .collect();
                let mut rest = &mut slices[..];
                while !rest.is_empty() {
                    let batch = rest.len().min(MAX_SLICES);
                    match file.write_vectored(&rest[..batch]) {
                        Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                        Ok(n) => IoSlice::advance_slices(&mut rest, n),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(())
            }
        }
    }

    /// Them all in one buffer (a file rewritten in place needs them whole).
    fn joined(self) -> Cow<'a, [u8]> {
        match self {
            NewBytes::Whole(bytes) => bytes,
            NewBytes::Pieces(pieces) => Cow::Owned(pieces.concat().into_bytes()),
        }
    }
}

/// Pieces given to one `writev` at most (the system's `IOV_MAX`).
const MAX_SLICES: usize = 1024;

/// What was done, to undo.
enum Done<'a> {
    /// Replaced; the old file waits under `aside` (when there was one and
    /// it was not the last step).
    Replaced(&'a Location, Option<OsString>),
    /// Rewritten in place; the old bytes are in the staged step.
    Rewritten(&'a Location, &'a [u8]),
    /// Removed; the old entry waits under `aside` (unless it was the
    /// last step).
    Removed(&'a Location, Option<OsString>),
}

/// Writes every change under `root`; all or nothing. Returns the paths
/// written or removed (for `git add`).
pub fn write_all(
    root: &RootDir,
    changes: &[FileChange],
    force: bool,
) -> Result<Vec<PathBuf>, String> {
    write_all_with(root, changes, force, None)
}

/// [`write_all`], taking from `early` the temporary files written while
/// the engine still checked their changes, for the changes planned with
/// the same bytes.
pub fn write_all_with(
    root: &RootDir,
    changes: &[FileChange],
    force: bool,
    early: Option<&EarlyWrites>,
) -> Result<Vec<PathBuf>, String> {
    raise_open_file_limit();
    let mut staged = Vec::new();
    let mut created_dirs = Vec::new();
    let result = stage(
        root,
        (changes, early),
        force,
        &mut staged,
        &mut created_dirs,
    )
    .and_then(|()| commit(&staged));
    if result.is_err() {
        for s in &staged {
            if let Staged::Replace { at, temp, .. } = s {
                let _ = at.dir.remove_file(temp);
            }
        }
        remove_created(&created_dirs);
    }
    result?;
    Ok(changes
        .iter()
        .flat_map(|c| std::iter::once(&c.path).chain(&c.from))
        .map(|p| p.under(root.path()))
        .collect())
}

/// Temporary files written while the engine still checks their changes
/// ([`Provisional`]): when a fuzzy search's first window is told, its new
/// content is staged at once as [`write_all`] would stage it (the same
/// checks, a temporary file beside the target, the target's owner, mode
/// and attributes) and the disk starts writing it back, while the scan
/// that decides runs. [`write_all_with`] takes a staged file only for a
/// planned change of the same file with the same bytes (the same text
/// read, the same edits), and syncs it before any rename like every
/// other; the files not taken are removed when this is dropped (a
/// refusal, another window chosen).
pub struct EarlyWrites {
    root: std::sync::Arc<RootDir>,
    force: bool,
    staged: Mutex<Vec<EarlyWrite>>,
}

/// One change staged early: what it was made from, and its temporary file.
struct EarlyWrite {
    path: WorkspacePath,
    before: std::sync::Arc<crate::workspace::SourceText>,
    edits: crate::plan::TextEdits,
    at: Location,
    temp: OsString,
    shown: String,
    file: File,
}

impl EarlyWrites {
    pub fn new(root: std::sync::Arc<RootDir>, force: bool) -> EarlyWrites {
        EarlyWrites {
            root,
            force,
            staged: Mutex::new(Vec::new()),
        }
    }

    /// The temporary file staged with `change`'s bytes, if any: made from
    /// the same text read (the same `Arc`) with the same edits.
    fn take(&self, change: &FileChange) -> Option<EarlyWrite> {
        let before = edited_in_place(change)?;
        let mut staged = self.staged.lock().unwrap_or_else(|p| p.into_inner());
        let i = staged.iter().position(|w| {
            w.path == change.path
                && std::sync::Arc::ptr_eq(&w.before, before)
                && w.edits == change.edits
        })?;
        Some(staged.swap_remove(i))
    }
}

impl Provisional for EarlyWrites {
    fn provisional(&self, change: &FileChange) {
        let staged = || self.staged.lock().unwrap_or_else(|p| p.into_inner());
        // Each keeps two descriptors open until the end.
        if staged().len() >= SYNC_BATCH {
            return;
        }
        if let Some(early) = stage_early(&self.root, self.force, change) {
            staged().push(early);
        }
    }
}

/// Stages `change` as `stage` stages it, and starts its writeback; any
/// refusal is left for the planned change to meet (and report) there.
fn stage_early(root: &RootDir, force: bool, change: &FileChange) -> Option<EarlyWrite> {
    let before = edited_in_place(change)?;
    let bytes = new_bytes(change)?;
    let mut created_dirs = Vec::new();
    let path = &change.path;
    let staged = stage_put(
        root,
        path,
        path,
        bytes,
        Expect::Absent,
        force,
        &mut created_dirs,
    );
    let Ok((
        Staged::Replace {
            at, temp, shown, ..
        },
        Some(file),
    )) = staged
    else {
        return None;
    };
    if !created_dirs.is_empty() {
        // The file was gone: nothing to stage early.
        let _ = at.dir.remove_file(&temp);
        remove_created(&created_dirs);
        return None;
    }
    start_writeback(&file);
    Some(EarlyWrite {
        path: path.clone(),
        before: std::sync::Arc::clone(before),
        edits: change.edits.clone(),
        at,
        temp,
        shown,
        file,
    })
}

/// The text read, when `change` edits it in place (modified, not moved,
/// its bytes that text with its edits applied): what an early staging
/// stages and what taking one compares.
fn edited_in_place(change: &FileChange) -> Option<&std::sync::Arc<crate::workspace::SourceText>> {
    let edited = matches!(change.content, crate::plan::After::Edited(_));
    let in_place = change.from.is_none() && change.status == FileStatus::Modified;
    change.before.as_ref().filter(|_| edited && in_place)
}

/// Removes the folders staging created (innermost first).
fn remove_created(created_dirs: &[(Dir, OsString)]) {
    for (parent, name) in created_dirs.iter().rev() {
        let _ = parent.remove_dir(name);
    }
}

impl Drop for EarlyWrites {
    fn drop(&mut self) {
        let staged = self.staged.get_mut().unwrap_or_else(|p| p.into_inner());
        for w in staged.drain(..) {
            let _ = w.at.dir.remove_file(&w.temp);
        }
    }
}

/// Asks the system to start writing `file`'s pages to disk now, without
/// waiting (Linux: `sync_file_range`); its sync later waits for less.
fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the call (borrowed from
        // `file`); the flag only starts the writeback of its dirty pages.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Every staged file keeps its folder's handle until the end: lift the
/// soft limit of open files to the hard one, so that a payload touching
/// thousands of files is not refused for want of descriptors.
fn raise_open_file_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        let _ = setrlimit(Resource::Nofile, raised);
    }
}

/// The bytes `change` gives its file; `None` when it gives none (a
/// removal). UTF-8 text is streamed from the text before and the edits,
/// never joined in memory.
fn new_bytes(change: &FileChange) -> Option<NewBytes<'_>> {
    let pieces = change.after_pieces()?;
    let encoding = change
        .before
        .as_ref()
        .map(|b| b.encoding)
        .unwrap_or_default();
    Some(match encoding {
        Encoding::Utf8 => NewBytes::Pieces(pieces),
        _ => NewBytes::Whole(encoding::encode(change.after().unwrap_or(""), encoding)),
    })
}

fn stage<'a>(
    root: &RootDir,
    (changes, early): (&'a [FileChange], Option<&EarlyWrites>),
    force: bool,
    staged: &mut Vec<Staged<'a>>,
    created_dirs: &mut Vec<(Dir, OsString)>,
) -> Result<(), String> {
    // Written temporary files waiting for their sync, and whose they are.
    let mut unsynced: Vec<(File, String)> = Vec::new();
    for change in changes {
        // UTF-8 (nearly every file) is borrowed: no copy of a large file.
        let before = change
            .before
            .as_ref()
            .map(|b| encoding::encode(&b.text, b.encoding));
        let stamp = change.before.as_ref().and_then(|b| b.stamp);
        if let Some(bytes) = new_bytes(change) {
            // The file read is the target unless the change moves it.
            let expect = match (&change.from, &before) {
                (None, Some(b)) => Expect::Bytes(b.clone(), stamp),
                _ => Expect::Absent,
            };
            let source = change.from.as_ref().unwrap_or(&change.path);
            let (step, temp) = match early.and_then(|e| e.take(change)) {
                // Written while the engine still checked it: the same bytes.
                Some(w) => {
                    let step = Staged::Replace {
                        at: w.at,
                        temp: w.temp,
                        expect,
                        shown: w.shown,
                    };
                    (step, Some(w.file))
                }
                None => stage_put(
                    root,
                    &change.path,
                    source,
                    bytes,
                    expect,
                    force,
                    created_dirs,
                )?,
            };
            if let (Some(file), Staged::Replace { shown, .. }) = (temp, &step) {
                unsynced.push((file, shown.clone()));
            }
            staged.push(step);
            if unsynced.len() >= SYNC_BATCH {
                sync_temps(&mut unsynced)?;
            }
        }
        let removed = match (&change.status, &change.from) {
            (FileStatus::Deleted, _) => Some(&change.path),
            (_, Some(from)) => Some(from),
            _ => None,
        };
        if let Some(path) = removed {
            staged.push(stage_remove(
                root,
                path,
                before.unwrap_or_default(),
                stamp,
                force,
            )?);
        }
    }
    sync_temps(&mut unsynced)
}

/// Syncs (and closes) the written temporary files.
fn sync_temps(unsynced: &mut Vec<(File, String)>) -> Result<(), String> {
    let result = together(unsynced, |(file, _)| file.sync_all());
    let failed = result.map_err(|(i, e)| format!("cannot write {}: {e}", unsynced[i].1));
    unsynced.clear();
    failed
}

/// Runs `sync` on every item, [`SYNC_THREADS`] at a time (the calling
/// thread among them; fewer when threads cannot be started). Returns the
/// first failure seen, with its item's index; the others still run.
fn together<T: Sync>(
    items: &[T],
    sync: impl Fn(&T) -> std::io::Result<()> + Sync,
) -> Result<(), (usize, std::io::Error)> {
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(None);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        if let Err(e) = sync(item) {
            let mut first = failed.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert((i, e));
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..SYNC_THREADS.min(items.len()) {
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_err()
            {
                break;
            }
        }
        work();
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(failure) => Err(failure),
        None => Ok(()),
    }
}

/// Stages new content for `path`; `source` (the file itself, or the one it
/// is renamed from) gives the owner, mode and extended attributes. A
/// temporary file comes back written but not synced (the caller syncs it
/// before any rename).
#[allow(clippy::too_many_arguments)]
fn stage_put<'a>(
    root: &RootDir,
    path: &WorkspacePath,
    source: &WorkspacePath,
    bytes: NewBytes<'a>,
    expect: Expect<'a>,
    force: bool,
    created_dirs: &mut Vec<(Dir, OsString)>,
) -> Result<(Staged<'a>, Option<File>), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {path}: {e}");
    let mut at = root
        .locate(path.as_str(), true)
        .map_err(|e| fail(&it(&e)))?;
    let shown = through(path, &at);
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {shown}: {e}");
    let existing = if at.missing.is_empty() {
        at.dir.open_regular(&at.name).map_err(|e| fail(&it(&e)))?
    } else {
        None
    };
    if let Some((_, st)) = &existing {
        refuse_read_only(st, &at.dir, force).map_err(|e| fail(&e))?;
        if st.st_nlink > 1 {
            if let Expect::Bytes(old, stamp) = expect {
                let step = Staged::InPlace {
                    at,
                    bytes: bytes.joined(),
                    old,
                    stamp,
                    shown,
                };
                return Ok((step, None));
            }
        }
    }
    let from = if source == path {
        existing
    } else {
        let from = root.locate(source.as_str(), true).ok();
        from.and_then(|l| l.dir.open_regular(&l.name).ok().flatten())
    };
    created_dirs.extend(at.create_missing().map_err(|e| fail(&it(&e)))?);
    let mode = if from.is_some() { PRIVATE } else { NEW_FILE };
    let (mut file, temp) = at.dir.create_temp(&at.name, mode).map_err(|e| fail(&e))?;
    let written = bytes.write_to(&mut file).and_then(|()| match &from {
        Some((old, st)) => meta::copy(old, st, &file),
        None => Ok(()),
    });
    if let Err(e) = written {
        let _ = at.dir.remove_file(&temp);
        return Err(fail(&e));
    }
    let step = Staged::Replace {
        at,
        temp,
        expect,
        shown,
    };
    Ok((step, Some(file)))
}

/// Stages the removal of `path` (a symlink there is removed, not its
/// target), which must still hold `expect`.
fn stage_remove<'a>(
    root: &RootDir,
    path: &WorkspacePath,
    expect: Cow<'a, [u8]>,
    stamp: Option<Stamp>,
    force: bool,
) -> Result<Staged<'a>, String> {
    let shown = path.to_string();
    let fail = |e: &dyn std::fmt::Display| format!("cannot remove {shown}: {e}");
    let at = root
        .locate(path.as_str(), false)
        .map_err(|e| fail(&it(&e)))?;
    let check = root
        .locate(path.as_str(), true)
        .map_err(|e| fail(&it(&e)))?;
    let shown = through(path, &check);
    let fail = |e: &dyn std::fmt::Display| format!("cannot remove {shown}: {e}");
    if let Some((_, st)) = check
        .dir
        .open_regular(&check.name)
        .map_err(|e| fail(&it(&e)))?
    {
        refuse_read_only(&st, &check.dir, force).map_err(|e| fail(&e))?;
    }
    Ok(Staged::Remove {
        at,
        check,
        expect,
        stamp,
        shown,
    })
}

/// `path`, and where its symlinks lead when that is elsewhere:
/// `link.txt (src/real.txt)`.
fn through(path: &WorkspacePath, at: &Location) -> String {
    if at.real == path.as_str() {
        path.to_string()
    } else {
        format!("{path} ({})", at.real)
    }
}

/// "it is a FIFO, ..." from a filesystem refusal.
fn it(error: &FsError) -> String {
    match error {
        FsError::Io(e) => e.to_string(),
        other => format!("it {other}"),
    }
}

/// Refuses, unless `force`, a file someone protected: nobody may write it
/// (no `w` bit), though its folder may be written. In a folder without `w`
/// bit either (a tree copied whole from read-only media) the folder
/// decides: the system refuses the rename to other users, root may write.
fn refuse_read_only(st: &Stat, folder: &Dir, force: bool) -> Result<(), String> {
    let writable = |mode: u32| mode & 0o222 != 0;
    let folder_writable = rustix::fs::fstat(folder).is_ok_and(|d| writable(d.st_mode));
    if !writable(st.st_mode) && folder_writable && !force {
        return Err(format!(
            "it is read-only (mode {:04o}); pass --force to write it anyway",
            st.st_mode & 0o7777
        ));
    }
    Ok(())
}

/// Checks that `at` still holds what the plan read. When the read left a
/// [`Stamp`] and the entry's status (not following a symlink) still
/// matches it, the file is unchanged since; otherwise it is read again (as
/// a regular file, not through a symlink) and compared piece by piece,
/// without a second copy of it in memory.
fn verify(at: &Location, expect: &Expect<'_>, shown: &str) -> Result<(), String> {
    if let (Expect::Bytes(_, Some(stamp)), true) = (expect, at.missing.is_empty()) {
        if let Ok(Some(st)) = at.dir.stat(&at.name) {
            if stamp.matches(&st) {
                return Ok(());
            }
        }
    }
    let current = if at.missing.is_empty() {
        at.dir
            .open_regular(&at.name)
            .map_err(|e| format!("cannot read {shown} again: {}", it(&e)))?
    } else {
        None
    };
    let same = match (expect, current) {
        (Expect::Absent, None) => true,
        (Expect::Absent, Some((_, st))) => st.st_size == 0,
        (Expect::Bytes(b, _), Some((file, st))) => {
            holds(file, &st, b).map_err(|e| format!("cannot read {shown} again: {e}"))?
        }
        (Expect::Bytes(..), None) => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!(
            "{shown} changed on disk while the edits were planned; run again"
        ))
    }
}

/// Whether the open file (status `st`) holds exactly `expect`: its size
/// first, then its bytes read in pieces (the file may still change size
/// while it is read: any difference, or bytes beyond `expect`, is "no").
fn holds(mut file: std::fs::File, st: &Stat, expect: &[u8]) -> std::io::Result<bool> {
    if u64::try_from(st.st_size).ok() != Some(expect.len() as u64) {
        return Ok(false);
    }
    // 64 KiB: taken from memory the process already has (a larger block
    // is a fresh mapping, a page fault per 4 KiB the first read fills).
    let mut buf = vec![0u8; 64 * 1024];
    let mut at = 0;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(at == expect.len());
        }
        if expect.get(at..at + n) != Some(&buf[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

/// Renames everything into place, checking each target right before; on
/// failure, undoes what was done.
///
/// The last step keeps no aside: an aside serves only to restore its file
/// when a later step fails, and after the last step none is left to fail
/// (when the last step itself fails, nothing of it was done). It saves a
/// link and an unlink in the folder, the whole of a one-file write's extra
/// work over a plain atomic rename.
fn commit<'s>(staged: &'s [Staged<'_>]) -> Result<(), String> {
    let mut done: Vec<Done<'s>> = Vec::new();
    for (i, s) in staged.iter().enumerate() {
        let keep_aside = i + 1 < staged.len();
        match step(s, keep_aside) {
            Ok(d) => done.push(d),
            Err(e) => {
                rollback(done);
                return Err(format!("{e}; every file already written was restored"));
            }
        }
    }
    let mut folders: Vec<&Dir> = Vec::new();
    for d in done {
        match d {
            Done::Replaced(at, aside) => {
                if let Some(aside) = aside {
                    let _ = at.dir.remove_file(&aside);
                }
                folders.push(&at.dir);
            }
            Done::Removed(at, aside) => {
                if let Some(aside) = aside {
                    let _ = at.dir.remove_file(&aside);
                }
                folders.push(&at.dir);
            }
            Done::Rewritten(..) => {}
        }
    }
    sync_once(&folders);
    Ok(())
}

/// One staged step, its target checked first; `keep_aside`: the old file
/// is kept under another name until the end (to undo the step).
fn step<'s>(s: &'s Staged<'_>, keep_aside: bool) -> Result<Done<'s>, String> {
    match s {
        Staged::Replace {
            at,
            temp,
            expect,
            shown,
        } => {
            verify(at, expect, shown)?;
            let aside = match expect {
                Expect::Bytes(old, _) if keep_aside => Some(put_aside(at, old)),
                Expect::Bytes(..) | Expect::Absent => None,
            }
            .transpose()
            .map_err(|e| format!("cannot replace {shown}: {e}"))?;
            match at.dir.rename(temp, &at.name) {
                Ok(()) => Ok(Done::Replaced(at, aside)),
                Err(e) => {
                    if let Some(aside) = aside {
                        let _ = at.dir.remove_file(&aside);
                    }
                    Err(format!("cannot replace {shown}: {e}"))
                }
            }
        }
        Staged::InPlace {
            at,
            bytes,
            old,
            stamp,
            shown,
        } => {
            verify(at, &Expect::Bytes(Cow::Borrowed(old), *stamp), shown)?;
            at.dir
                .rewrite(&at.name, bytes)
                .map_err(|e| format!("cannot write {shown}: {}", it(&e)))?;
            Ok(Done::Rewritten(at, old))
        }
        Staged::Remove {
            at,
            check,
            expect,
            stamp,
            shown,
        } => {
            verify(check, &Expect::Bytes(Cow::Borrowed(expect), *stamp), shown)?;
            let aside = keep_aside
                .then(|| put_aside(at, expect))
                .transpose()
                .map_err(|e| format!("cannot remove {shown}: {e}"))?;
            match at.dir.remove_file(&at.name) {
                Ok(()) => Ok(Done::Removed(at, aside)),
                Err(e) => {
                    if let Some(aside) = aside {
                        let _ = at.dir.remove_file(&aside);
                    }
                    Err(format!("cannot remove {shown}: {e}"))
                }
            }
        }
    }
}

/// Keeps the file at `at` (holding `old`) under an unpredictable name until
/// the end: a hard link, or a copy where the system forbids linking a file
/// the process does not own (`fs.protected_hardlinks`).
fn put_aside(at: &Location, old: &[u8]) -> std::io::Result<OsString> {
    match at.dir.link_aside(&at.name) {
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let (mut copy, name) = at.dir.create_temp(&at.name, PRIVATE)?;
            if let Err(e) = copy.write_all(old) {
                let _ = at.dir.remove_file(&name);
                return Err(e);
            }
            Ok(name)
        }
        linked => linked,
    }
}

fn rollback(done: Vec<Done<'_>>) {
    for d in done.into_iter().rev() {
        match d {
            Done::Replaced(at, Some(aside)) | Done::Removed(at, Some(aside)) => {
                let _ = at.dir.rename(&aside, &at.name);
            }
            Done::Replaced(at, None) => {
                let _ = at.dir.remove_file(&at.name);
            }
            // Only the last step keeps no aside, and a rollback runs only
            // for the steps before a failed one.
            Done::Removed(_, None) => {}
            Done::Rewritten(at, old) => {
                let _ = at.dir.rewrite(&at.name, old);
            }
        }
    }
}

/// Syncs each folder once (several handles may name the same folder),
/// several at a time.
fn sync_once(folders: &[&Dir]) {
    let mut seen = HashSet::new();
    let unique: Vec<&Dir> = folders
        .iter()
        .copied()
        .filter(|dir| rustix::fs::fstat(dir).is_ok_and(|st| seen.insert((st.st_dev, st.st_ino))))
        .collect();
    let _ = together(&unique, |dir| dir.sync());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Options;
    use crate::workspace::DiskFiles;

    /// The changes of a payload that replaces `one` by `1` in each of
    /// `names` (every file holds `one\n`), staged under `dir`.
    fn plan(dir: &std::path::Path, names: &[&str]) -> (DiskFiles, Vec<FileChange>) {
        let mut payload = String::new();
        for name in names {
            std::fs::write(dir.join(name), "one\n").unwrap();
            payload +=
                &format!("{name}\n```\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n```\n");
        }
        let files = DiskFiles::new(dir).unwrap();
        let outcome = crate::engine::run(&payload, &Options::default(), &files);
        assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
        assert_eq!(outcome.files.len(), names.len());
        (files, outcome.files)
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    /// A change staged early becomes the file when the plan keeps the
    /// same change (its temporary file is the one renamed: no other is
    /// made), and is removed, never renamed, when the plan keeps another
    /// change or none.
    #[test]
    fn a_change_staged_early_is_taken_only_when_planned_the_same() {
        use crate::plan::{After, TextEdit, TextEdits};
        let temps = |dir: &std::path::Path| {
            names(dir)
                .into_iter()
                .filter(|n| n.ends_with(".llm-edit-tmp"))
                .collect::<Vec<_>>()
        };
        let dir = tempfile::tempdir().unwrap();
        let (files, changes) = plan(dir.path(), &["a.txt"]);
        let root = std::sync::Arc::clone(files.root_dir());

        // The same change: its early file is the one renamed.
        let early = EarlyWrites::new(root.clone(), false);
        early.provisional(&changes[0]);
        let staged = temps(dir.path());
        assert_eq!(staged.len(), 1, "{:?}", names(dir.path()));
        let ino = |name: &str| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(dir.path().join(name)).unwrap().ino()
        };
        let staged_ino = ino(&staged[0]);
        write_all_with(&root, &changes, false, Some(&early)).unwrap();
        assert_eq!(names(dir.path()), ["a.txt"]);
        assert_eq!(ino("a.txt"), staged_ino);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "1\n"
        );
        drop(early);
        assert_eq!(names(dir.path()), ["a.txt"]);

        // Another change planned (other edits of the same text read): the
        // early file is left, then removed; the plan's change is written.
        let (files, changes) = plan(dir.path(), &["a.txt"]);
        let root = std::sync::Arc::clone(files.root_dir());
        let mut other = changes[0].clone();
        other.edits = TextEdits::new(vec![TextEdit::new(0..3, "uno")]).unwrap();
        other.content = After::edited();
        let early = EarlyWrites::new(root.clone(), false);
        early.provisional(&other);
        assert_eq!(temps(dir.path()).len(), 1);
        write_all_with(&root, &changes, false, Some(&early)).unwrap();
        assert_eq!(temps(dir.path()).len(), 1);
        drop(early);
        assert_eq!(names(dir.path()), ["a.txt"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "1\n"
        );

        // Nothing planned (a refusal): removed, the file untouched.
        let (files, changes) = plan(dir.path(), &["a.txt"]);
        let early = EarlyWrites::new(std::sync::Arc::clone(files.root_dir()), false);
        early.provisional(&changes[0]);
        assert_eq!(temps(dir.path()).len(), 1);
        drop(early);
        assert_eq!(names(dir.path()), ["a.txt"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "one\n"
        );
    }

    /// A file read again is compared in pieces: equal only when every
    /// piece is (a difference in the last byte of a later piece, or at a
    /// piece's edge, is seen), and only at the expected size.
    #[test]
    fn a_file_read_again_is_compared_piece_by_piece() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let expect: Vec<u8> = (0..200_000u32).map(|i| b'a' + (i % 23) as u8).collect();
        let check = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let file = std::fs::File::open(&path).unwrap();
            let st = rustix::fs::fstat(&file).unwrap();
            holds(file, &st, &expect).unwrap()
        };
        assert!(check(&expect));
        for at in [0, 65_535, 65_536, 131_072, 199_999] {
            let mut changed = expect.clone();
            changed[at] ^= 1;
            assert!(!check(&changed), "a change at byte {at} is seen");
        }
        assert!(!check(&expect[..199_999]));
        assert!(!check(&[&expect[..], b"x"].concat()));
    }

    /// Every step but the last keeps its old file aside; a failure at the
    /// last step restores the ones before from their asides, and leaves no
    /// name behind. A run without failure leaves none either.
    #[test]
    fn a_failed_last_step_restores_the_ones_before_and_leaves_no_aside() {
        for count in 1..=3 {
            let dir = tempfile::tempdir().unwrap();
            let all = ["a.txt", "b.txt", "c.txt"];
            let (files, changes) = plan(dir.path(), &all[..count]);
            let mut staged = Vec::new();
            let mut created = Vec::new();
            stage(
                files.root_dir(),
                (&changes, None),
                false,
                &mut staged,
                &mut created,
            )
            .unwrap();
            // The last target changes after planning: its step fails.
            std::fs::write(dir.path().join(all[count - 1]), "mine\n").unwrap();
            let err = commit(&staged).unwrap_err();
            assert!(err.contains("changed on disk"), "{err}");
            for name in &all[..count - 1] {
                assert_eq!(
                    std::fs::read_to_string(dir.path().join(name)).unwrap(),
                    "one\n"
                );
            }
            assert_eq!(
                std::fs::read_to_string(dir.path().join(all[count - 1])).unwrap(),
                "mine\n"
            );
            for s in &staged {
                if let Staged::Replace { at, temp, .. } = s {
                    let _ = at.dir.remove_file(temp);
                }
            }
            assert_eq!(names(dir.path()), &all[..count]);

            let dir = tempfile::tempdir().unwrap();
            let (files, changes) = plan(dir.path(), &all[..count]);
            write_all(files.root_dir(), &changes, false).unwrap();
            for name in &all[..count] {
                assert_eq!(
                    std::fs::read_to_string(dir.path().join(name)).unwrap(),
                    "1\n"
                );
            }
            assert_eq!(names(dir.path()), &all[..count]);
        }
    }

    #[test]
    fn pieces_are_written_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        // More pieces than one call takes, empty ones among them.
        let owned: Vec<String> = (0..3000)
            .map(|i| match i % 3 {
                0 => String::new(),
                1 => format!("line {i}\n"),
                _ => "x".repeat(i % 700),
            })
            .collect();
        let pieces: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut file = File::create(&path).unwrap();
        NewBytes::Pieces(pieces.clone())
            .write_to(&mut file)
            .unwrap();
        drop(file);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), pieces.concat());
    }
}
