//! Where the engine gets file text: workspace paths and file sources.
//!
//! Every path a payload names becomes a [`WorkspacePath`] first: relative,
//! normalized, and inside the root, or an `outside_root` error. A
//! [`FileSource`] then gives the file's current text (the editor buffer
//! when one is open, else the disk) and, for `~M` detection, the snapshot
//! the LLM saw. The CLI reads the disk ([`DiskFiles`]); the language
//! server layers its open buffers over it.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::disk::{FsError, RootDir, Stamp, MAX_FILE_BYTES, MAX_NAME_BYTES};
use crate::text::encoding::{self, DecodeError, Encoding};

/// A normalized path relative to the workspace root: `/`-separated, no
/// `.`/`..` components, never empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkspacePath(String);

/// Why a payload path cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// It leaves the root (`..`, an absolute path elsewhere, a symlink out).
    OutsideRoot,
    /// Empty, or names the root itself.
    Empty,
    /// A name no filesystem accepts: a NUL byte, or longer than 255 bytes
    /// (the reason, to show).
    InvalidName(String),
}

impl WorkspacePath {
    /// Normalizes a payload path against `root`. Absolute paths are accepted
    /// when they lie inside the root (LLMs often write them); `~` is never
    /// expanded.
    pub fn new(root: &Path, raw: &str) -> Result<WorkspacePath, PathError> {
        let raw = raw.trim();
        if raw.contains('\0') {
            return Err(PathError::InvalidName(
                "the path contains a NUL byte".into(),
            ));
        }
        let raw = raw.strip_prefix("./").unwrap_or(raw);
        if is_plain(raw) {
            // Already normalized: the components below would join back
            // into it.
            return Ok(WorkspacePath(raw.to_owned()));
        }
        by_components(root, raw)
    }
}

/// A relative path normalized component by component (`raw`: trimmed, no
/// NUL byte, one leading `./` taken off).
fn by_components(root: &Path, raw: &str) -> Result<WorkspacePath, PathError> {
    let path = Path::new(raw);
    let relative: PathBuf = if path.is_absolute() {
        let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        match lexical_normalize(path).and_then(|p| {
            p.strip_prefix(lexical_normalize(&root_abs)?)
                .ok()
                .map(Path::to_path_buf)
        }) {
            Some(rel) => rel,
            None => return Err(PathError::OutsideRoot),
        }
    } else {
        path.to_path_buf()
    };
    let mut parts: Vec<String> = Vec::new();
    for comp in relative.components() {
        match comp {
            Component::Normal(p) if p.len() > MAX_NAME_BYTES => {
                return Err(PathError::InvalidName(format!(
                    "name too long (`{}…` is {} bytes; the limit is {MAX_NAME_BYTES})",
                    p.to_string_lossy().chars().take(24).collect::<String>(),
                    p.len()
                )));
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(PathError::OutsideRoot);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(PathError::OutsideRoot),
        }
    }
    if parts.is_empty() {
        return Err(PathError::Empty);
    }
    Ok(WorkspacePath(parts.join("/")))
}

/// A path that is already in normal form: `/`-separated names of ASCII
/// letters, digits, `_`, `-` and `.`, none empty, `.` or `..`, none too
/// long (the usual payload path, normalized without building a `Path`).
fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && raw.split('/').all(|name| {
            !name.is_empty()
                && name != "."
                && name != ".."
                && name.len() <= MAX_NAME_BYTES
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        })
}

impl WorkspacePath {
    /// The `/`-separated relative path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path under `root` on disk.
    pub fn under(&self, root: &Path) -> PathBuf {
        root.join(&self.0)
    }
}

impl fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Removes `.` and resolves `..` lexically in an absolute path.
fn lexical_normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// A file's current text, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    /// The decoded text (BOM removed), line endings as in the file.
    pub text: String,
    /// How to encode it back.
    pub encoding: Encoding,
    /// The editor's document version, when it comes from an open buffer.
    pub version: Option<i32>,
    /// The file's status when exactly these bytes were read from disk, if
    /// it can tell later that the file has not changed since
    /// ([`Stamp`]; the CLI's writer then need not read it again).
    pub stamp: Option<Stamp>,
}

impl SourceText {
    /// Text read from disk (no version).
    pub fn from_disk(text: String, encoding: Encoding) -> SourceText {
        SourceText {
            text,
            encoding,
            version: None,
            stamp: None,
        }
    }
}

/// Why a file could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Undecodable (binary, invalid UTF-8/16).
    Decode(DecodeError),
    /// The path resolves outside the root (a symlink out).
    OutsideRoot,
    /// It is a directory, not a file.
    Directory,
    /// Any other I/O failure, with its message.
    Io(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Decode(e) => e.fmt(f),
            LoadError::OutsideRoot => {
                f.write_str("resolves outside the workspace root (through a symlink)")
            }
            LoadError::Directory => f.write_str("is a directory, not a file"),
            LoadError::Io(e) => f.write_str(e),
        }
    }
}

/// Gives the engine the files a payload touches.
pub trait FileSource: Sync {
    /// The workspace root every payload path is relative to.
    fn root(&self) -> &Path;

    /// The file's current text (`Ok(None)` when it does not exist).
    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError>;

    /// The text the LLM was shown (its context snapshot), if one was taken.
    fn snapshot(&self, _path: &WorkspacePath) -> Option<Arc<str>> {
        None
    }
}

/// Files on disk under a root, reached through the root's directory
/// handle ([`RootDir`]): symlinks are resolved inside the root only, and
/// only regular files within [`MAX_FILE_BYTES`] are read.
#[derive(Clone, Debug)]
pub struct DiskFiles {
    root: Arc<RootDir>,
}

impl DiskFiles {
    /// Files under `root` (which must exist), canonicalized once.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<DiskFiles> {
        Ok(DiskFiles {
            root: Arc::new(RootDir::open(root.as_ref())?),
        })
    }

    /// The open root.
    pub fn root_dir(&self) -> &Arc<RootDir> {
        &self.root
    }

    /// Checks that `path`, with every symlink on the way resolved, stays
    /// under the root.
    pub fn check_inside(&self, path: &WorkspacePath) -> Result<(), LoadError> {
        match self.root.locate(path.as_str(), true) {
            Err(FsError::OutsideRoot) => Err(LoadError::OutsideRoot),
            _ => Ok(()),
        }
    }

    /// Reads and decodes a file under the root.
    pub fn read(&self, path: &WorkspacePath) -> Result<Option<SourceText>, LoadError> {
        let location = self.root.locate(path.as_str(), true).map_err(load_error)?;
        if !location.missing.is_empty() {
            return Ok(None);
        }
        let read = location
            .dir
            .read_regular_stamped(&location.name, MAX_FILE_BYTES)
            .map_err(load_error)?;
        match read {
            None => Ok(None),
            Some((bytes, stamp)) => {
                let (text, encoding) = encoding::decode_owned(bytes).map_err(LoadError::Decode)?;
                Ok(Some(SourceText {
                    stamp,
                    ..SourceText::from_disk(text, encoding)
                }))
            }
        }
    }

    /// The bytes of a regular file under the root (`None`: missing).
    pub fn read_bytes(&self, path: &WorkspacePath) -> Result<Option<Vec<u8>>, LoadError> {
        let location = self.root.locate(path.as_str(), true).map_err(load_error)?;
        if !location.missing.is_empty() {
            return Ok(None);
        }
        location
            .dir
            .read_regular(&location.name, MAX_FILE_BYTES)
            .map_err(load_error)
    }
}

/// A filesystem refusal as a load error.
fn load_error(error: FsError) -> LoadError {
    match error {
        FsError::OutsideRoot => LoadError::OutsideRoot,
        FsError::Directory => LoadError::Directory,
        FsError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
            LoadError::Io("a folder on its path does not exist".into())
        }
        other => LoadError::Io(other.to_string()),
    }
}

impl FileSource for DiskFiles {
    fn root(&self) -> &Path {
        self.root.path()
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        self.read(path).map(|t| t.map(Arc::new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_refuses_escapes() {
        let root = Path::new("/work/repo");
        let ok = |raw| WorkspacePath::new(root, raw).map(|p| p.0);
        assert_eq!(ok("src/./a.py"), Ok("src/a.py".into()));
        assert_eq!(ok("./src/b/../a.py"), Ok("src/a.py".into()));
        assert_eq!(ok("/work/repo/src/a.py"), Ok("src/a.py".into()));
        assert_eq!(ok("../etc/passwd"), Err(PathError::OutsideRoot));
        assert_eq!(ok("/etc/passwd"), Err(PathError::OutsideRoot));
        assert_eq!(ok("src/../../x"), Err(PathError::OutsideRoot));
        assert_eq!(ok("."), Err(PathError::Empty));
    }

    /// A plain path is its own normal form: the same as normalized by its
    /// components, on random paths of names, dots, slashes, spaces,
    /// backslashes and non-ASCII letters.
    #[test]
    fn plain_paths_equal_their_components() {
        let root = Path::new("/work/repo");
        let pieces = [
            "a", "src", "_", "-", ".", "..", "/", "//", "x.rs", " ", "\\", "é", "~", "A9",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut plain = 0;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut raw = String::new();
            let mut r = seed;
            for _ in 0..(r % 7) {
                r /= 7;
                raw.push_str(pieces[(r % pieces.len() as u64) as usize]);
                r /= pieces.len() as u64;
            }
            let trimmed = raw.trim();
            let stripped = trimmed.strip_prefix("./").unwrap_or(trimmed);
            plain += usize::from(is_plain(stripped));
            assert_eq!(
                WorkspacePath::new(root, &raw),
                by_components(root, stripped),
                "{raw:?}"
            );
        }
        assert!(plain > 1000, "{plain}");
        let long = "n".repeat(MAX_NAME_BYTES + 1);
        assert!(!is_plain(&long));
        assert_eq!(WorkspacePath::new(root, &long), by_components(root, &long));
    }
}
