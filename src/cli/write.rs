//! Writing a plan to disk atomically: every new content goes to a temporary
//! file beside its target first; only when all are staged are they renamed
//! into place, each replaced file kept aside until the end so that a failed
//! rename restores everything already replaced. Permissions are kept.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::{FileChange, FileStatus};
use crate::text::encoding;

/// One file operation, staged.
enum Staged {
    /// `temp` becomes `target` (which may exist).
    Put { temp: PathBuf, target: PathBuf },
    /// `target` goes away.
    Remove { target: PathBuf },
}

/// What was done to roll back.
enum Done {
    /// `target` was replaced; its old content waits in `backup` (if any).
    Put {
        target: PathBuf,
        backup: Option<PathBuf>,
    },
    /// `target` was moved to `backup`.
    Removed { target: PathBuf, backup: PathBuf },
}

/// Writes every change under `root`; all or nothing. Returns the paths
/// written or removed (for `git add`).
pub fn write_all(root: &Path, changes: &[FileChange]) -> Result<Vec<PathBuf>, String> {
    let mut staged = Vec::new();
    let mut created_dirs = Vec::new();
    let result =
        stage(root, changes, &mut staged, &mut created_dirs).and_then(|()| commit(&staged));
    if result.is_err() {
        for s in &staged {
            if let Staged::Put { temp, .. } = s {
                let _ = fs::remove_file(temp);
            }
        }
        for dir in created_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
    result?;
    Ok(staged
        .iter()
        .map(|s| match s {
            Staged::Put { target, .. } | Staged::Remove { target } => target.clone(),
        })
        .collect())
}

fn stage(
    root: &Path,
    changes: &[FileChange],
    staged: &mut Vec<Staged>,
    created_dirs: &mut Vec<PathBuf>,
) -> Result<(), String> {
    for change in changes {
        let target = change.path.under(root);
        if let Some(after) = &change.after {
            let encoding = change
                .before
                .as_ref()
                .map(|b| b.encoding)
                .unwrap_or_default();
            let bytes = encoding::encode(after, encoding);
            let parent = target.parent().unwrap_or(root).to_path_buf();
            create_dirs(&parent, created_dirs)?;
            let permissions_from = match &change.from {
                Some(from) => from.under(root),
                None => target.clone(),
            };
            let temp = write_temp(&parent, &target, &bytes, &permissions_from)?;
            staged.push(Staged::Put {
                temp,
                target: target.clone(),
            });
        }
        if change.status == FileStatus::Deleted {
            staged.push(Staged::Remove { target });
        } else if let Some(from) = &change.from {
            staged.push(Staged::Remove {
                target: from.under(root),
            });
        }
    }
    Ok(())
}

/// Creates missing parent folders, remembering them to undo.
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut missing = Vec::new();
    let mut d = dir.to_path_buf();
    while !d.exists() {
        missing.push(d.clone());
        if !d.pop() {
            break;
        }
    }
    for m in missing.into_iter().rev() {
        fs::create_dir(&m).map_err(|e| format!("cannot create folder {}: {e}", m.display()))?;
        created.push(m);
    }
    Ok(())
}

fn write_temp(
    dir: &Path,
    target: &Path,
    bytes: &[u8],
    permissions_from: &Path,
) -> Result<PathBuf, String> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.llm-edit-{}.tmp", std::process::id()));
    let mut file =
        fs::File::create(&temp).map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    if let Ok(meta) = fs::metadata(permissions_from) {
        let _ = fs::set_permissions(&temp, meta.permissions());
    }
    Ok(temp)
}

fn backup_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.llm-edit-{}.bak", std::process::id()))
}

/// Renames everything into place; on failure, undoes what was done.
fn commit(staged: &[Staged]) -> Result<(), String> {
    let mut done: Vec<Done> = Vec::new();
    for s in staged {
        let step = match s {
            Staged::Put { temp, target } => {
                let backup = if target.exists() {
                    let b = backup_path(target);
                    fs::hard_link(target, &b)
                        .or_else(|_| fs::copy(target, &b).map(|_| ()))
                        .ok()
                        .map(|()| b)
                } else {
                    None
                };
                fs::rename(temp, target)
                    .map(|()| Done::Put {
                        target: target.clone(),
                        backup,
                    })
                    .map_err(|e| format!("cannot replace {}: {e}", target.display()))
            }
            Staged::Remove { target } => {
                let backup = backup_path(target);
                fs::rename(target, &backup)
                    .map(|()| Done::Removed {
                        target: target.clone(),
                        backup,
                    })
                    .map_err(|e| format!("cannot remove {}: {e}", target.display()))
            }
        };
        match step {
            Ok(d) => done.push(d),
            Err(e) => {
                rollback(done);
                return Err(format!("{e}; every file already written was restored"));
            }
        }
    }
    for d in done {
        match d {
            Done::Put {
                backup: Some(b), ..
            }
            | Done::Removed { backup: b, .. } => {
                let _ = fs::remove_file(b);
            }
            Done::Put { backup: None, .. } => {}
        }
    }
    Ok(())
}

fn rollback(done: Vec<Done>) {
    for d in done.into_iter().rev() {
        match d {
            Done::Put {
                target,
                backup: Some(b),
            }
            | Done::Removed { target, backup: b } => {
                let _ = fs::rename(b, target);
            }
            Done::Put {
                target,
                backup: None,
            } => {
                let _ = fs::remove_file(target);
            }
        }
    }
}
