//! A [`FileSource`] over the open buffers, falling back to the disk, and
//! the version check that keeps a plan from going stale.
//!
//! Each request builds one [`BufferFiles`]: the first time the engine loads
//! a file it is read from its open buffer (one `rope.to_string()`) or from
//! disk, and cached for the rest of the request. Every text a plan was
//! computed against carries the buffer version it came from (`None` for
//! disk), so [`stale_files`] can tell, right before the edit is sent,
//! whether anything changed underneath.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::context::Snapshot;
use crate::engine::FileChange;
use crate::lsp::documents::Documents;
use crate::text::encoding::Encoding;
use crate::workspace::{DiskFiles, FileSource, LoadError, SourceText, WorkspacePath};

/// Open buffers over the files on disk, for one request.
pub struct BufferFiles {
    disk: DiskFiles,
    docs: Arc<Documents>,
    loaded: Mutex<HashMap<WorkspacePath, Option<Arc<SourceText>>>>,
    snapshot: Option<Arc<Snapshot>>,
}

impl BufferFiles {
    /// Files under `root`, buffers from `docs`.
    pub fn new(root: &Path, docs: Arc<Documents>) -> std::io::Result<BufferFiles> {
        Ok(BufferFiles {
            disk: DiskFiles::new(root)?,
            docs,
            loaded: Mutex::new(HashMap::new()),
            snapshot: None,
        })
    }

    /// The same files, with the context snapshot the LLM saw (`~M`).
    pub fn with_snapshot(mut self, snapshot: Option<Arc<Snapshot>>) -> BufferFiles {
        self.snapshot = snapshot;
        self
    }

    /// The text the request saw for `path`, if it loaded it.
    pub fn loaded(&self, path: &WorkspacePath) -> Option<Arc<SourceText>> {
        let loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded.get(path).cloned().flatten()
    }

    /// The files on disk under the root.
    pub fn disk(&self) -> &DiskFiles {
        &self.disk
    }

    /// The workspace root.
    pub fn root_path(&self) -> PathBuf {
        self.disk.root().to_path_buf()
    }

    /// The absolute path of a workspace path.
    pub fn absolute(&self, path: &WorkspacePath) -> PathBuf {
        path.under(self.disk.root())
    }

    fn read(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        self.disk.check_inside(path)?;
        if let Some((_, doc)) = self.docs.find_by_path(&self.absolute(path)) {
            return Ok(Some(Arc::new(SourceText {
                text: doc.rope.to_string(),
                encoding: Encoding::Utf8,
                version: Some(doc.version),
            })));
        }
        self.disk.read(path).map(|t| t.map(Arc::new))
    }
}

impl FileSource for BufferFiles {
    fn root(&self) -> &Path {
        self.disk.root()
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        if let Some(seen) = self
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
        {
            return Ok(seen.clone());
        }
        let text = self.read(path)?;
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(loaded.entry(path.clone()).or_insert(text).clone())
    }

    fn snapshot(&self, path: &WorkspacePath) -> Option<Arc<str>> {
        self.snapshot.as_ref()?.text(path)
    }
}

/// The files of a plan whose text changed since it was computed: an open
/// buffer with another version, a file opened or closed since, or a disk
/// file whose content differs. Empty means the plan is still current.
pub fn stale_files(
    changes: &[FileChange],
    disk: &DiskFiles,
    docs: &Documents,
) -> Vec<WorkspacePath> {
    changes
        .iter()
        .filter(|change| is_stale(change, disk, docs))
        .map(|change| change.from.clone().unwrap_or_else(|| change.path.clone()))
        .collect()
}

fn is_stale(change: &FileChange, disk: &DiskFiles, docs: &Documents) -> bool {
    let source_path = change.from.as_ref().unwrap_or(&change.path);
    let open = docs.find_by_path(&source_path.under(disk.root()));
    match (&change.before, open) {
        (Some(before), Some((_, doc))) => match before.version {
            Some(version) => doc.version != version,
            None => doc.rope != before.text.as_str(),
        },
        (Some(before), None) => match before.version {
            Some(_) => true,
            None => disk_text(disk, source_path).as_deref() != Some(before.text.as_str()),
        },
        // A file created by the plan must still not exist.
        (None, Some(_)) => true,
        (None, None) => disk
            .read_bytes(source_path)
            .map_or(true, |b| b.is_some_and(|b| !b.is_empty())),
    }
}

fn disk_text(disk: &DiskFiles, path: &WorkspacePath) -> Option<String> {
    disk.read(path).ok().flatten().map(|t| t.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::FileStatus;
    use crate::plan::TextEdits;

    fn change(path: &str, before: SourceText) -> FileChange {
        FileChange {
            path: WorkspacePath::new(Path::new("/r"), path).unwrap(),
            from: None,
            status: FileStatus::Modified,
            before: Some(Arc::new(before)),
            after: Some(String::new()),
            edits: TextEdits::default(),
            edit_indices: vec![1],
        }
    }

    #[test]
    fn reads_buffers_over_disk_and_detects_staleness() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "disk a\n").unwrap();
        std::fs::write(root.join("b.txt"), "disk b\n").unwrap();
        let docs = Arc::new(Documents::default());
        docs.open("file:///a", Some(root.join("a.txt")), 7, "buffer a\n");
        let files = BufferFiles::new(&root, docs.clone()).unwrap();
        let a = WorkspacePath::new(&root, "a.txt").unwrap();
        let b = WorkspacePath::new(&root, "b.txt").unwrap();
        let a_text = files.load(&a).unwrap().unwrap();
        assert_eq!(
            (a_text.text.as_str(), a_text.version),
            ("buffer a\n", Some(7))
        );
        let b_text = files.load(&b).unwrap().unwrap();
        assert_eq!((b_text.text.as_str(), b_text.version), ("disk b\n", None));

        let plan = [
            change("a.txt", (*a_text).clone()),
            change("b.txt", (*b_text).clone()),
        ];
        let disk = DiskFiles::new(&root).unwrap();
        assert!(stale_files(&plan, &disk, &docs).is_empty());
        docs.change("file:///a", 8, &[], Default::default())
            .unwrap();
        std::fs::write(root.join("b.txt"), "changed\n").unwrap();
        assert_eq!(stale_files(&plan, &disk, &docs), vec![a, b]);
    }
}
