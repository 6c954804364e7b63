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
//!
//! A repository may ship `.llm-edit` itself, with symlinks in it: every
//! folder and file of the store is reached from the workspace root's
//! handle without following any symlink ([`crate::disk`]), temporary files
//! get unpredictable names created exclusively, removal never follows a
//! link, and only regular files within the size limit are read.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::disk::{Dir, FsError, RootDir, MAX_FILE_BYTES};
use crate::text::encoding;
use crate::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// The folder of the tool's state in a workspace.
pub const STATE_DIR: &str = ".llm-edit";
/// The manifest's name inside a context folder.
const MANIFEST: &str = "manifest.json";
/// The folder of the snapshot texts inside a context folder.
const FILES: &str = "files";
/// The folder of the contexts inside the state folder.
const CONTEXTS: &str = "context";
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
    /// The workspace root.
    workspace: PathBuf,
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
            workspace: workspace.to_path_buf(),
        }
    }

    /// Stores the texts of `files` as context `id`, replacing any earlier
    /// snapshot with that id.
    pub fn capture(
        &self,
        id: &str,
        files: &[(WorkspacePath, String)],
    ) -> Result<Snapshot, ContextError> {
        validate_id(id)?;
        let contexts = self.contexts_dir()?;
        let at = |p: &str| self.shown(&[CONTEXTS, id, p]);
        contexts
            .remove_tree(OsStr::new(id))
            .map_err(|e| fs_error(at(""), e))?;
        let dir = contexts
            .create_dir(OsStr::new(id))
            .map_err(|e| fs_error(at(""), e))?
            .0;
        let files_dir = dir
            .create_dir(OsStr::new(FILES))
            .map_err(|e| fs_error(at(FILES), e))?
            .0;
        let mut manifest = Manifest {
            version: MANIFEST_VERSION,
            hash: "xxh3-64".to_string(),
            files: Vec::with_capacity(files.len()),
        };
        let mut snapshot = Snapshot::default();
        for (path, text) in files {
            let (folders, name) = split(path);
            files_dir
                .open_path(&folders, true)
                .and_then(|d| Ok(d.write_atomic(name, text.as_bytes(), false)?))
                .map_err(|e| fs_error(at(&format!("{FILES}/{path}")), e))?;
            let entry = SnapshotEntry::new(text.as_str());
            manifest.files.push(ManifestFile {
                path: path.as_str().to_string(),
                len: entry.len,
                hash: format!("{:016x}", entry.hash),
            });
            snapshot.files.insert(path.clone(), entry);
        }
        let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
        dir.write_atomic(OsStr::new(MANIFEST), &json, true)
            .map_err(|e| fs_error(at(MANIFEST), e.into()))?;
        Ok(snapshot)
    }

    /// Reads context `id` back (after a restart), checking every file
    /// against the manifest.
    pub fn load(&self, id: &str) -> Result<Snapshot, ContextError> {
        validate_id(id)?;
        let manifest_path = self.shown(&[CONTEXTS, id, MANIFEST]);
        let not_found = || ContextError::NotFound(id.to_string());
        let Some(contexts) = self.existing_contexts_dir()? else {
            return Err(not_found());
        };
        let dir = match contexts.open_dir(OsStr::new(id)) {
            Ok(dir) => dir,
            Err(FsError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found())
            }
            Err(e) => return Err(fs_error(self.shown(&[CONTEXTS, id]), e)),
        };
        let bytes = dir
            .read_regular(OsStr::new(MANIFEST), MAX_FILE_BYTES)
            .map_err(|e| fs_error(manifest_path.clone(), e))?
            .ok_or_else(not_found)?;
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
        let files_dir = dir.open_dir(OsStr::new(FILES));
        let mut snapshot = Snapshot::default();
        for file in &manifest.files {
            let path = WorkspacePath::new(&self.workspace, &file.path)
                .ok()
                .filter(|p| p.as_str() == file.path)
                .ok_or_else(|| corrupt(format!("invalid path {:?}", file.path)))?;
            let entry = read_checked(files_dir.as_ref().ok(), &path, file)?;
            snapshot.files.insert(path, entry);
        }
        Ok(snapshot)
    }

    /// Deletes context `id` (no error when it does not exist). A symlink
    /// in its place is removed, never followed.
    pub fn release(&self, id: &str) -> Result<(), ContextError> {
        validate_id(id)?;
        match self.existing_contexts_dir()? {
            None => Ok(()),
            Some(contexts) => contexts
                .remove_tree(OsStr::new(id))
                .map_err(|e| fs_error(self.shown(&[CONTEXTS, id]), e)),
        }
    }

    /// Reads a `--context DIR`: plain files mirroring the workspace root,
    /// without manifest. Files that are not text (binary, undecodable,
    /// over the size limit, not regular) and symlinks are left out; they
    /// have no snapshot.
    pub fn from_dir(dir: &Path) -> Result<Snapshot, ContextError> {
        let io = |e: std::io::Error| io_error(dir, &e);
        let mut snapshot = Snapshot::default();
        let mut pending = vec![(Dir::open_trusted(dir).map_err(io)?, String::new())];
        while let Some((folder, prefix)) = pending.pop() {
            for name in folder.entries().map_err(io)? {
                let relative = format!("{prefix}{}", name.to_string_lossy());
                match folder.entry_type(&name).map_err(io)? {
                    Some(rustix::fs::FileType::Directory) => {
                        let sub = folder
                            .open_dir(&name)
                            .map_err(|e| fs_error(dir.join(&relative), e))?;
                        pending.push((sub, format!("{relative}/")));
                    }
                    Some(rustix::fs::FileType::RegularFile) => {
                        let bytes = match folder.read_regular(&name, MAX_FILE_BYTES) {
                            Ok(Some(bytes)) => bytes,
                            Ok(None) | Err(FsError::NotRegular(_) | FsError::TooLarge(_)) => {
                                continue
                            }
                            Err(e) => return Err(fs_error(dir.join(&relative), e)),
                        };
                        let Ok(path) = WorkspacePath::new(dir, &relative) else {
                            continue;
                        };
                        if let Ok((text, _encoding)) = encoding::decode(&bytes) {
                            snapshot.files.insert(path, SnapshotEntry::new(text));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(snapshot)
    }

    /// `<workspace>/.llm-edit/context`, created when missing without
    /// following any symlink; `.llm-edit/.gitignore` is written when the
    /// state folder has none.
    fn contexts_dir(&self) -> Result<Dir, ContextError> {
        let state_path = self.workspace.join(STATE_DIR);
        let state = state_dir(&self.root()?).map_err(|e| fs_error(state_path.clone(), e))?;
        state
            .open_path(&[OsStr::new(CONTEXTS)], true)
            .map_err(|e| fs_error(self.shown(&[CONTEXTS]), e))
    }

    /// The contexts folder when it exists (nothing is created).
    fn existing_contexts_dir(&self) -> Result<Option<Dir>, ContextError> {
        let names = [OsStr::new(STATE_DIR), OsStr::new(CONTEXTS)];
        match self.root()?.dir().open_path(&names, false) {
            Ok(dir) => Ok(Some(dir)),
            Err(FsError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(fs_error(self.shown(&[CONTEXTS]), e)),
        }
    }

    fn root(&self) -> Result<RootDir, ContextError> {
        RootDir::open(&self.workspace).map_err(|e| io_error(&self.workspace, &e))
    }

    /// `<workspace>/.llm-edit/<parts…>`, for messages.
    fn shown(&self, parts: &[&str]) -> PathBuf {
        let mut path = self.workspace.join(STATE_DIR);
        for part in parts.iter().filter(|p| !p.is_empty()) {
            path.push(part);
        }
        path
    }
}

/// The state folder `<root>/.llm-edit`, created when missing without
/// following any symlink (a symlink there is [`FsError::Symlink`]), with
/// a `.gitignore` of `*` written when it has none. The context store and
/// the language server's agent link socket (`crate::agent::link`) live
/// in it.
pub fn state_dir(root: &RootDir) -> Result<Dir, FsError> {
    let state = root.dir().open_path(&[OsStr::new(STATE_DIR)], true)?;
    let gitignore = OsStr::new(".gitignore");
    if state.stat(gitignore)?.is_none() {
        state.write_atomic(gitignore, b"*\n", false)?;
    }
    Ok(state)
}

/// The folders and the name of a workspace path.
fn split(path: &WorkspacePath) -> (Vec<&OsStr>, &OsStr) {
    let mut names: Vec<&OsStr> = path.as_str().split('/').map(OsStr::new).collect();
    let name = names.pop().unwrap_or_default();
    (names, name)
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
    files_dir: Option<&Dir>,
    path: &WorkspacePath,
    expected: &ManifestFile,
) -> Result<SnapshotEntry, ContextError> {
    let corrupt = |reason: String| ContextError::CorruptSnapshot {
        path: path.to_string(),
        reason,
    };
    let (folders, name) = split(path);
    let bytes = files_dir
        .ok_or_else(|| corrupt("the files folder is missing".to_string()))?
        .open_path(&folders, false)
        .and_then(|d| d.read_regular(name, MAX_FILE_BYTES))
        .map_err(|e| corrupt(e.to_string()))?
        .ok_or_else(|| corrupt("missing".to_string()))?;
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

/// A filesystem refusal about `path`.
fn fs_error(path: PathBuf, error: FsError) -> ContextError {
    ContextError::Io {
        path,
        message: error.to_string(),
    }
}

/// An I/O error about `path`.
fn io_error(path: &Path, error: &std::io::Error) -> ContextError {
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
    use std::fs;

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
