//! Context snapshots: the text of each file as the LLM saw it.
//!
//! A [`ContextStore`] keeps snapshots under `<workspace>/.llm-edit/context/`,
//! one folder per context id:
//!
//! ```text
//! .llm-edit/.gitignore            "*" (written when the folder is created)
//! .llm-edit/context/<id>/files/<relative path>   the text, UTF-8
//! .llm-edit/context/<id>/manifest.json           paths, byte lengths, hashes
//! ```
//!
//! Every file is written to a temporary file in its folder and renamed into
//! place, and the manifest is written last: a snapshot without a manifest
//! is incomplete, and a file whose length or hash differs from the manifest
//! is corrupt. Both are error values on [`ContextStore::load`], never
//! panics. Hashes are xxh3-64 (`xxhash-rust`), stable across Rust versions
//! and platforms, written as 16 hex digits.
//!
//! The CLI's `--context DIR` is a plain folder mirroring the workspace
//! root, without manifest: [`ContextStore::from_dir`] reads it.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::text::encoding;
use crate::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// The folder of the tool's state in a workspace.
pub const STATE_DIR: &str = ".llm-edit";
/// The manifest's name inside a context folder.
const MANIFEST: &str = "manifest.json";
/// The folder of the snapshot texts inside a context folder.
const FILES: &str = "files";
/// The manifest format written (and the only one read).
const MANIFEST_VERSION: u32 = 1;
/// Longest context id accepted.
const MAX_ID_LEN: usize = 128;

/// The 64-bit hash of a text used by snapshots and statuses (xxh3-64).
pub fn text_hash(text: &str) -> u64 {
    xxh3_64(text.as_bytes())
}

/// One file's snapshot: its text, byte length and hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotEntry {
    /// The text the LLM saw.
    pub text: Arc<str>,
    /// `text.len()`, in bytes.
    pub len: usize,
    /// [`text_hash`] of the text.
    pub hash: u64,
}

impl SnapshotEntry {
    /// The snapshot of `text`.
    pub fn new(text: impl Into<Arc<str>>) -> SnapshotEntry {
        let text = text.into();
        SnapshotEntry {
            len: text.len(),
            hash: text_hash(&text),
            text,
        }
    }
}

/// The snapshots of one context, by workspace path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    files: BTreeMap<WorkspacePath, SnapshotEntry>,
}

impl Snapshot {
    /// The snapshot of `path`, if the context holds one.
    pub fn get(&self, path: &WorkspacePath) -> Option<&SnapshotEntry> {
        self.files.get(path)
    }

    /// The snapshot text of `path` (what `FileSource::snapshot` gives).
    pub fn text(&self, path: &WorkspacePath) -> Option<Arc<str>> {
        self.get(path).map(|e| Arc::clone(&e.text))
    }

    /// Every file, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&WorkspacePath, &SnapshotEntry)> {
        self.files.iter()
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// No files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl FromIterator<(WorkspacePath, SnapshotEntry)> for Snapshot {
    /// An in-memory snapshot (the language server's, or a test's).
    fn from_iter<I: IntoIterator<Item = (WorkspacePath, SnapshotEntry)>>(files: I) -> Snapshot {
        Snapshot {
            files: files.into_iter().collect(),
        }
    }
}

/// Why a context could not be stored or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContextError {
    /// The id is empty, too long, or not made of `[A-Za-z0-9._-]` (or
    /// starts with `.`).
    InvalidId(String),
    /// No snapshot with this id (or its manifest is missing: an unfinished
    /// capture).
    NotFound(String),
    /// The manifest cannot be read as one.
    CorruptManifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A snapshot file is missing or differs from the manifest.
    CorruptSnapshot {
        /// The workspace path it is the snapshot of.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Reading or writing failed.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error's message.
        message: String,
    },
}

impl fmt::Display for ContextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextError::InvalidId(id) => write!(
                f,
                "invalid context id {id:?}: use 1-{MAX_ID_LEN} characters from \
                 A-Z a-z 0-9 . _ -, not starting with ."
            ),
            ContextError::NotFound(id) => write!(f, "no context snapshot {id:?}"),
            ContextError::CorruptManifest { path, reason } => {
                write!(f, "corrupt context manifest {}: {reason}", path.display())
            }
            ContextError::CorruptSnapshot { path, reason } => {
                write!(f, "corrupt context snapshot of {path}: {reason}")
            }
            ContextError::Io { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for ContextError {}

/// Snapshots stored under `<workspace>/.llm-edit/context/`.
#[derive(Clone, Debug)]
pub struct ContextStore {
    /// `<workspace>/.llm-edit`.
    state_dir: PathBuf,
}

/// The manifest file's content.
#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    /// Always `"xxh3-64"`.
    hash: String,
    files: Vec<ManifestFile>,
}

/// One file in the manifest.
#[derive(Debug, Serialize, Deserialize)]
struct ManifestFile {
    path: String,
    len: usize,
    /// 16 lowercase hex digits.
    hash: String,
}

impl ContextStore {
    /// The store of `workspace` (nothing is created before a capture).
    pub fn new(workspace: &Path) -> ContextStore {
        ContextStore {
            state_dir: workspace.join(STATE_DIR),
        }
    }

    /// Stores the texts of `files` as context `id`, replacing any earlier
    /// snapshot with that id.
    pub fn capture(
        &self,
        id: &str,
        files: &[(WorkspacePath, String)],
    ) -> Result<Snapshot, ContextError> {
        let dir = self.context_dir(id)?;
        self.ensure_state_dir()?;
        remove_dir_if_exists(&dir)?;
        let mut manifest = Manifest {
            version: MANIFEST_VERSION,
            hash: "xxh3-64".to_string(),
            files: Vec::with_capacity(files.len()),
        };
        let mut snapshot = Snapshot::default();
        for (path, text) in files {
            write_atomic(
                &path.under(&dir.join(FILES)),
                text.as_bytes(),
                Durable::NoSync,
            )?;
            let entry = SnapshotEntry::new(text.as_str());
            manifest.files.push(ManifestFile {
                path: path.as_str().to_string(),
                len: entry.len,
                hash: format!("{:016x}", entry.hash),
            });
            snapshot.files.insert(path.clone(), entry);
        }
        let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
        write_atomic(&dir.join(MANIFEST), &json, Durable::Sync)?;
        Ok(snapshot)
    }

    /// Reads context `id` back (after a restart), checking every file
    /// against the manifest.
    pub fn load(&self, id: &str) -> Result<Snapshot, ContextError> {
        let dir = self.context_dir(id)?;
        let manifest_path = dir.join(MANIFEST);
        let bytes = match fs::read(&manifest_path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(ContextError::NotFound(id.to_string()))
            }
            Err(e) => return Err(io_error(&manifest_path, &e)),
        };
        let corrupt = |reason: String| ContextError::CorruptManifest {
            path: manifest_path.clone(),
            reason,
        };
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if manifest.version != MANIFEST_VERSION || manifest.hash != "xxh3-64" {
            return Err(corrupt(format!(
                "unsupported version {} / hash {:?}",
                manifest.version, manifest.hash
            )));
        }
        let mut snapshot = Snapshot::default();
        for file in &manifest.files {
            let path = WorkspacePath::new(&dir, &file.path)
                .ok()
                .filter(|p| p.as_str() == file.path)
                .ok_or_else(|| corrupt(format!("invalid path {:?}", file.path)))?;
            let entry = read_checked(&dir.join(FILES), &path, file)?;
            snapshot.files.insert(path, entry);
        }
        Ok(snapshot)
    }

    /// Deletes context `id` (no error when it does not exist).
    pub fn release(&self, id: &str) -> Result<(), ContextError> {
        remove_dir_if_exists(&self.context_dir(id)?)
    }

    /// Reads a `--context DIR`: plain files mirroring the workspace root,
    /// without manifest. Files that are not text (binary, undecodable) and
    /// symlinks are left out; they have no snapshot.
    pub fn from_dir(dir: &Path) -> Result<Snapshot, ContextError> {
        let mut snapshot = Snapshot::default();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(folder) = pending.pop() {
            let entries = fs::read_dir(&folder).map_err(|e| io_error(&folder, &e))?;
            for entry in entries {
                let entry = entry.map_err(|e| io_error(&folder, &e))?;
                let file_type = entry.file_type().map_err(|e| io_error(&entry.path(), &e))?;
                let full = entry.path();
                if file_type.is_dir() {
                    pending.push(full);
                } else if file_type.is_file() {
                    add_mirrored_file(&mut snapshot, dir, &full)?;
                }
            }
        }
        Ok(snapshot)
    }

    /// `<workspace>/.llm-edit/context/<id>`, once `id` is checked.
    fn context_dir(&self, id: &str) -> Result<PathBuf, ContextError> {
        validate_id(id)?;
        Ok(self.state_dir.join("context").join(id))
    }

    /// Creates `.llm-edit/` with its `.gitignore` when missing.
    fn ensure_state_dir(&self) -> Result<(), ContextError> {
        let gitignore = self.state_dir.join(".gitignore");
        if gitignore.exists() {
            return Ok(());
        }
        write_atomic(&gitignore, b"*\n", Durable::NoSync)
    }
}

/// Checks a context id: it becomes one folder name.
fn validate_id(id: &str) -> Result<(), ContextError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if id.is_empty() || id.len() > MAX_ID_LEN || id.starts_with('.') || !id.chars().all(allowed) {
        return Err(ContextError::InvalidId(id.to_string()));
    }
    Ok(())
}

/// Reads the snapshot of `path` under `files_dir` and checks it against
/// its manifest entry.
fn read_checked(
    files_dir: &Path,
    path: &WorkspacePath,
    expected: &ManifestFile,
) -> Result<SnapshotEntry, ContextError> {
    let corrupt = |reason: String| ContextError::CorruptSnapshot {
        path: path.to_string(),
        reason,
    };
    let bytes = fs::read(path.under(files_dir)).map_err(|e| corrupt(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| corrupt("not UTF-8".to_string()))?;
    let entry = SnapshotEntry::new(text);
    if entry.len != expected.len {
        return Err(corrupt(format!(
            "{} bytes, the manifest says {}",
            entry.len, expected.len
        )));
    }
    if format!("{:016x}", entry.hash) != expected.hash {
        return Err(corrupt("its hash differs from the manifest".to_string()));
    }
    Ok(entry)
}

/// Adds the file `full` of a mirror folder rooted at `root`, when it is text.
fn add_mirrored_file(
    snapshot: &mut Snapshot,
    root: &Path,
    full: &Path,
) -> Result<(), ContextError> {
    let Ok(relative) = full.strip_prefix(root) else {
        return Ok(());
    };
    let Ok(path) = WorkspacePath::new(root, &relative.to_string_lossy()) else {
        return Ok(());
    };
    let bytes = fs::read(full).map_err(|e| io_error(full, &e))?;
    if let Ok((text, _encoding)) = encoding::decode(&bytes) {
        snapshot.files.insert(path, SnapshotEntry::new(text));
    }
    Ok(())
}

/// Removes `dir` and everything in it, if it exists.
fn remove_dir_if_exists(dir: &Path) -> Result<(), ContextError> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(dir, &e)),
        _ => Ok(()),
    }
}

/// Whether [`write_atomic`] syncs the data before renaming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Durable {
    Sync,
    NoSync,
}

/// Distinguishes the temporary files of concurrent writes in one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` through a temporary file in the same folder
/// and a rename, so readers see the old file or the whole new one. With
/// `durable`, the data reaches the disk before the rename (the manifest:
/// snapshot files need not, a torn one fails its manifest check).
fn write_atomic(path: &Path, bytes: &[u8], durable: Durable) -> Result<(), ContextError> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| io_error(parent, &e))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = parent.join(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = fs::File::create(&temp).and_then(|mut file| {
        file.write_all(bytes)?;
        match durable {
            Durable::Sync => file.sync_data(),
            Durable::NoSync => Ok(()),
        }
    });
    if let Err(e) = written.and_then(|()| fs::rename(&temp, path)) {
        let _ = fs::remove_file(&temp);
        return Err(io_error(path, &e));
    }
    Ok(())
}

/// An I/O error about `path`.
fn io_error(path: &Path, error: &io::Error) -> ContextError {
    ContextError::Io {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// A file source plus the snapshot the LLM saw (the CLI's `--context DIR`,
/// read with [`ContextStore::from_dir`]).
pub struct WithSnapshot<S> {
    files: S,
    snapshot: Snapshot,
}

impl<S: FileSource> WithSnapshot<S> {
    /// `files`, with `snapshot` as what the LLM saw.
    pub fn new(files: S, snapshot: Snapshot) -> WithSnapshot<S> {
        WithSnapshot { files, snapshot }
    }
}

impl<S: FileSource> FileSource for WithSnapshot<S> {
    fn root(&self) -> &Path {
        self.files.root()
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        self.files.load(path)
    }

    fn snapshot(&self, path: &WorkspacePath) -> Option<Arc<str>> {
        self.snapshot.text(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(root: &Path, raw: &str) -> WorkspacePath {
        WorkspacePath::new(root, raw).unwrap()
    }

    fn sample(root: &Path) -> Vec<(WorkspacePath, String)> {
        vec![
            (
                path(root, "src/app.py"),
                "def f():\n    return 1\n".to_string(),
            ),
            (
                path(root, "docs/ünïcødé «notes».md"),
                "═ emoji 🚀\r\nno final newline".to_string(),
            ),
            (path(root, "empty.txt"), String::new()),
        ]
    }

    #[test]
    fn capture_then_load_round_trips() {
        let ws = tempfile::tempdir().unwrap();
        let store = ContextStore::new(ws.path());
        let files = sample(ws.path());
        let captured = store.capture("chat-42", &files).unwrap();
        let loaded = ContextStore::new(ws.path()).load("chat-42").unwrap();
        assert_eq!(captured, loaded);
        assert_eq!(loaded.len(), 3);
        for (p, text) in &files {
            assert_eq!(loaded.text(p).as_deref(), Some(text.as_str()));
            assert_eq!(loaded.get(p).unwrap().hash, text_hash(text));
        }
        let gitignore = fs::read_to_string(ws.path().join(".llm-edit/.gitignore")).unwrap();
        assert_eq!(gitignore, "*\n");
        let on_disk = ws.path().join(".llm-edit/context/chat-42/files/src/app.py");
        assert_eq!(fs::read_to_string(on_disk).unwrap(), files[0].1);
        // No temporary file is left behind.
        let leftovers: Vec<_> = fs::read_dir(ws.path().join(".llm-edit/context/chat-42"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn hash_is_stable() {
        // xxh3-64 of "" and "abc": fixed values, whatever the Rust version.
        assert_eq!(text_hash(""), 0x2d06800538d394c2);
        assert_eq!(text_hash("abc"), 0x78af5f94892f3950);
    }

    #[test]
    fn capture_replaces_and_release_deletes() {
        let ws = tempfile::tempdir().unwrap();
        let store = ContextStore::new(ws.path());
        store.capture("c1", &sample(ws.path())).unwrap();
        let only = vec![(path(ws.path(), "a.txt"), "a\n".to_string())];
        store.capture("c1", &only).unwrap();
        assert_eq!(store.load("c1").unwrap().len(), 1);
        store.release("c1").unwrap();
        assert_eq!(store.load("c1"), Err(ContextError::NotFound("c1".into())));
        store.release("c1").unwrap();
    }

    #[test]
    fn corrupt_manifest_and_files_are_errors() {
        let ws = tempfile::tempdir().unwrap();
        let store = ContextStore::new(ws.path());
        let dir = ws.path().join(".llm-edit/context/c");
        store.capture("c", &sample(ws.path())).unwrap();

        fs::write(dir.join("files/src/app.py"), "def f():\n    return 2\n").unwrap();
        assert!(matches!(
            store.load("c"),
            Err(ContextError::CorruptSnapshot { path, .. }) if path == "src/app.py"
        ));
        fs::remove_file(dir.join("files/src/app.py")).unwrap();
        assert!(matches!(
            store.load("c"),
            Err(ContextError::CorruptSnapshot { .. })
        ));

        fs::write(dir.join("manifest.json"), "{\"version\": 1, \"files\": [").unwrap();
        let err = store.load("c").unwrap_err();
        assert!(matches!(err, ContextError::CorruptManifest { .. }));
        assert!(err.to_string().contains("corrupt context manifest"));

        let escaping =
            r#"{"version":1,"hash":"xxh3-64","files":[{"path":"../x","len":0,"hash":"0"}]}"#;
        fs::write(dir.join("manifest.json"), escaping).unwrap();
        assert!(matches!(
            store.load("c"),
            Err(ContextError::CorruptManifest { .. })
        ));

        fs::remove_file(dir.join("manifest.json")).unwrap();
        assert_eq!(store.load("c"), Err(ContextError::NotFound("c".into())));
    }

    #[test]
    fn ids_are_validated() {
        let ws = tempfile::tempdir().unwrap();
        let store = ContextStore::new(ws.path());
        for bad in [
            "",
            "..",
            ".",
            "a/b",
            "a\\b",
            ".hidden",
            "sp ace",
            &"x".repeat(129),
        ] {
            assert_eq!(
                store.capture(bad, &[]),
                Err(ContextError::InvalidId(bad.to_string())),
                "{bad:?}"
            );
            assert!(store.load(bad).is_err());
            assert!(store.release(bad).is_err());
        }
        assert!(!ws.path().join(".llm-edit").exists());
        assert!(store.capture("run-2024_01.a", &[]).is_ok());
    }

    #[test]
    fn from_dir_reads_a_mirror_folder() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("app/sub")).unwrap();
        fs::write(dir.path().join("app/notify.py"), "x = «1»\n").unwrap();
        fs::write(dir.path().join("app/sub/b.txt"), "b").unwrap();
        fs::write(dir.path().join("app/blob.bin"), b"\0\x01\x02").unwrap();
        let snapshot = ContextStore::from_dir(dir.path()).unwrap();
        let paths: Vec<&str> = snapshot.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["app/notify.py", "app/sub/b.txt"]);
        let notify = path(dir.path(), "app/notify.py");
        assert_eq!(snapshot.text(&notify).as_deref(), Some("x = «1»\n"));
        assert!(ContextStore::from_dir(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn from_dir_reads_the_corpus_conflict_cases() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/cases"
        ));
        let case = cases.join("search_replace-python-conflict-disjoint-merge/context");
        if !case.exists() {
            return; // the shared corpus is not on every machine
        }
        let snapshot = ContextStore::from_dir(&case).unwrap();
        let paths: Vec<&str> = snapshot.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            ["app/constants.py", "app/discounts.py", "app/pricing.py"]
        );
    }
}
