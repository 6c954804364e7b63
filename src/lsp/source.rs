//! A [`FileSource`] over the open buffers, falling back to the disk, and
//! the check that keeps a plan from going stale.
//!
//! Each request builds one [`BufferFiles`]: the first time the engine loads
//! a file it is read from its open buffer (one copy of its rope) or from
//! disk, and cached for the rest of the request. Every file a plan changes
//! gets a [`Stamp`]: the buffer version its text came from (`None` for
//! disk) and a hash of that text, so [`stale_files`] can tell, right before
//! the edit is sent, whether anything changed underneath — versions alone
//! do not: a buffer closed and reopened starts again at its first version,
//! and a client may send a version twice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::context::Snapshot;
use crate::engine::FileChange;
use crate::lsp::documents::{Document, Documents};
use crate::workspace::{DiskFiles, FileSource, LoadError, SourceText, WorkspacePath};
use xxhash_rust::xxh3::xxh3_64;

/// Open buffers over the files on disk, for one request.
pub struct BufferFiles {
    disk: DiskFiles,
    docs: Arc<Documents>,
    loaded: Mutex<HashMap<WorkspacePath, Option<Arc<SourceText>>>>,
    /// The open buffers read, whose text hashes [`BufferFiles::stamps`]
    /// takes from the documents instead of hashing the texts again.
    buffers: Mutex<Vec<Document>>,
    snapshot: Option<Arc<Snapshot>>,
}

impl BufferFiles {
    /// The files on disk under the root.
    pub fn disk(&self) -> &DiskFiles {
        &self.disk
    }

    /// Files under `root`, buffers from `docs`.
    pub fn new(root: &Path, docs: Arc<Documents>) -> std::io::Result<BufferFiles> {
        Ok(BufferFiles {
            disk: DiskFiles::new(root)?,
            docs,
            loaded: Mutex::new(HashMap::new()),
            buffers: Mutex::new(Vec::new()),
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
            let text = doc.text();
            self.buffers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(doc);
            return Ok(Some(text));
        }
        self.disk.read(path).map(|t| t.map(Arc::new))
    }
}

impl BufferFiles {
    /// [`stamps`] of a plan made over these files: a buffer's hash comes
    /// from its document, kept while it does not change.
    pub fn stamps(&self, changes: &[FileChange]) -> Vec<(WorkspacePath, Stamp)> {
        let buffers = self.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        stamps_with(changes, |text| {
            buffers.iter().find(|d| d.is_text(text)).map(Document::hash)
        })
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

/// What a plan read of one file: the buffer version (`None`: the disk)
/// and a hash of the text (`None`: the file did not exist).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The open buffer's version, when the text came from one.
    pub version: Option<i32>,
    /// xxh3 of the text, when the file existed.
    pub hash: Option<u64>,
}

/// The stamps of the files a plan changes, taken from the very texts it
/// was computed on.
pub fn stamps(changes: &[FileChange]) -> Vec<(WorkspacePath, Stamp)> {
    stamps_with(changes, |_| None)
}

/// [`stamps`], with the hash of a text `known` knows (the same value,
/// computed once per buffer state).
fn stamps_with(
    changes: &[FileChange],
    known: impl Fn(&Arc<SourceText>) -> Option<u64>,
) -> Vec<(WorkspacePath, Stamp)> {
    changes
        .iter()
        .map(|change| {
            let path = change.from.clone().unwrap_or_else(|| change.path.clone());
            let stamp = match &change.before {
                Some(before) => Stamp {
                    version: before.version,
                    hash: Some(known(before).unwrap_or_else(|| xxh3_64(before.text.as_bytes()))),
                },
                None => Stamp {
                    version: None,
                    hash: None,
                },
            };
            (path, stamp)
        })
        .collect()
}

/// The files whose text is no longer what the plan read: another buffer
/// version or other content (a buffer closed and reopened at the same
/// version, a version sent twice), a buffer opened or closed since, a disk
/// file that changed, a file that appeared. Empty means still current.
pub fn stale_files(
    stamps: &[(WorkspacePath, Stamp)],
    disk: &DiskFiles,
    docs: &Documents,
) -> Vec<WorkspacePath> {
    stamps
        .iter()
        .filter(|(path, stamp)| !is_current(*stamp, path, disk, docs))
        .map(|(path, _)| path.clone())
        .collect()
}

/// Whether `path` still holds what the plan read. A buffer opened since a
/// plan read the disk is current when it holds the same text (the plan
/// still fits it).
fn is_current(planned: Stamp, path: &WorkspacePath, disk: &DiskFiles, docs: &Documents) -> bool {
    match docs.find_by_path(&path.under(disk.root())) {
        Some((_, doc)) => {
            planned.hash == Some(doc.hash()) && planned.version.is_none_or(|v| v == doc.version)
        }
        None => {
            let on_disk = disk_text(disk, path).map(|text| xxh3_64(text.as_bytes()));
            planned.version.is_none() && planned.hash == on_disk
        }
    }
}

fn disk_text(disk: &DiskFiles, path: &WorkspacePath) -> Option<String> {
    disk.read(path).ok().flatten().map(|t| t.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::FileStatus;
    use crate::lsp::documents::ContentChange;
    use crate::plan::TextEdits;
    use crate::text::encoding::Encoding;

    fn change(path: &str, before: SourceText) -> FileChange {
        FileChange {
            path: WorkspacePath::new(Path::new("/r"), path).unwrap(),
            from: None,
            status: FileStatus::Modified,
            before: Some(Arc::new(before)),
            content: crate::plan::After::Text(String::new()),
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
        let stamps = stamps(&plan);
        assert!(stale_files(&stamps, &DiskFiles::new(&root).unwrap(), &docs).is_empty());
        docs.change("file:///a", 8, &[], Default::default())
            .unwrap();
        std::fs::write(root.join("b.txt"), "changed\n").unwrap();
        assert_eq!(
            stale_files(&stamps, &DiskFiles::new(&root).unwrap(), &docs),
            vec![a, b]
        );
    }

    #[test]
    fn a_version_seen_again_with_other_text_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "disk\n").unwrap();
        let docs = Documents::default();
        let path = Some(root.join("a.txt"));
        docs.open("file:///a", path.clone(), 1, "planned\n");
        let before = SourceText {
            text: "planned\n".into(),
            encoding: Encoding::Utf8,
            version: Some(1),
            stamp: None,
        };
        let stamps = stamps(&[change("a.txt", before)]);
        let stale = |docs: &Documents| {
            !stale_files(&stamps, &DiskFiles::new(&root).unwrap(), docs).is_empty()
        };
        assert!(!stale(&docs));
        // Closed and reopened: version 1 again, other text.
        docs.close("file:///a");
        docs.open("file:///a", path.clone(), 1, "reopened\n");
        assert!(stale(&docs));
        // The same version sent twice with other text.
        docs.open("file:///a", path.clone(), 1, "planned\n");
        assert!(!stale(&docs));
        let full = ContentChange {
            range: None,
            text: "other\n".into(),
        };
        docs.change("file:///a", 1, &[full], Default::default())
            .unwrap();
        assert!(stale(&docs));
        // Closed: the disk is not what the buffer held.
        docs.close("file:///a");
        assert!(stale(&docs));
    }

    #[test]
    fn a_disk_plan_fits_a_buffer_opened_on_the_same_text_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "disk\n").unwrap();
        let docs = Documents::default();
        let stamps = stamps(&[change(
            "a.txt",
            SourceText::from_disk("disk\n".into(), Encoding::Utf8),
        )]);
        let stale = |docs: &Documents| {
            !stale_files(&stamps, &DiskFiles::new(&root).unwrap(), docs).is_empty()
        };
        assert!(!stale(&docs));
        docs.open("file:///a", Some(root.join("a.txt")), 4, "disk\n");
        assert!(!stale(&docs));
        docs.open("file:///a", Some(root.join("a.txt")), 5, "edited\n");
        assert!(stale(&docs));
    }

    #[test]
    fn a_file_the_plan_creates_must_still_be_absent() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let docs = Documents::default();
        let mut created = change(
            "new.txt",
            SourceText::from_disk(String::new(), Encoding::Utf8),
        );
        created.before = None;
        let stamps = stamps(&[created]);
        assert!(stale_files(&stamps, &DiskFiles::new(&root).unwrap(), &docs).is_empty());
        std::fs::write(root.join("new.txt"), "").unwrap();
        assert_eq!(
            stale_files(&stamps, &DiskFiles::new(&root).unwrap(), &docs).len(),
            1
        );
    }
}
