//! The workspace roots of an MCP session, and which one a path is under.
//!
//! Roots come from `--root` (in the order given), else from the client's
//! `roots/list` (`file://` URIs), else the current directory. The rule for
//! a path an agent names:
//!
//! - absolute: the innermost root that holds it; none does → the first
//!   root, where the engine refuses it (`outside_root`);
//! - relative, one root: that root;
//! - relative, several roots: the root under which the file exists; under
//!   none, the first root (a new file); under two or more, refused as
//!   ambiguous (the agent writes the absolute path).
//!
//! Choosing a root never admits a path: the engine and `disk` confine it
//! to the root chosen (`..`, absolute paths elsewhere, symlinks out).

use std::path::{Path, PathBuf};

use crate::workspace::{DiskFiles, WorkspacePath};

/// The roots in force.
#[derive(Clone, Debug, Default)]
pub struct Roots {
    dirs: Vec<DiskFiles>,
}

impl Roots {
    /// Opens each folder (canonicalized); a folder that cannot be opened is
    /// an error naming it.
    pub fn open(paths: &[PathBuf]) -> Result<Roots, String> {
        let mut dirs: Vec<DiskFiles> = Vec::with_capacity(paths.len());
        for path in paths {
            let files = DiskFiles::new(path)
                .map_err(|e| format!("cannot open the root {}: {e}", path.display()))?;
            if !dirs
                .iter()
                .any(|d| d.root_dir().path() == files.root_dir().path())
            {
                dirs.push(files);
            }
        }
        Ok(Roots { dirs })
    }

    /// No root at all.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// The canonical root folders, in order.
    pub fn paths(&self) -> Vec<&Path> {
        self.dirs.iter().map(|d| d.root_dir().path()).collect()
    }

    /// The root `raw` (a path as the agent wrote it) is under, by the rule
    /// of this module.
    pub fn for_path(&self, raw: &str) -> Result<&DiskFiles, String> {
        let first = self.dirs.first().ok_or_else(no_root)?;
        if self.dirs.len() == 1 {
            return Ok(first);
        }
        let raw_trimmed = raw.trim();
        if Path::new(raw_trimmed).is_absolute() {
            let inner = self
                .dirs
                .iter()
                .filter(|d| WorkspacePath::new(d.root_dir().path(), raw_trimmed).is_ok())
                .max_by_key(|d| d.root_dir().path().components().count());
            return Ok(inner.unwrap_or(first));
        }
        let holding: Vec<&DiskFiles> = self.dirs.iter().filter(|d| exists(d, raw)).collect();
        match holding.as_slice() {
            [] => Ok(first),
            [one] => Ok(one),
            several => Err(format!(
                "`{raw}` exists under {} roots ({}); write the file's absolute path to say which",
                several.len(),
                several
                    .iter()
                    .map(|d| d.root_dir().path().display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The one root every path of `raws` is under; paths under different
    /// roots are refused (one call per root).
    pub fn for_paths<'a>(
        &self,
        raws: impl IntoIterator<Item = &'a str>,
    ) -> Result<&DiskFiles, String> {
        let mut chosen: Option<(&DiskFiles, &str)> = None;
        for raw in raws {
            let root = self.for_path(raw)?;
            match chosen {
                None => chosen = Some((root, raw)),
                Some((other, first)) if other.root_dir().path() != root.root_dir().path() => {
                    return Err(format!(
                        "this payload edits files under two roots (`{first}` under {}, `{raw}` under {}); \
                         send one call per root",
                        other.root_dir().path().display(),
                        root.root_dir().path().display()
                    ));
                }
                Some(_) => {}
            }
        }
        match chosen {
            Some((root, _)) => Ok(root),
            None => self.dirs.first().ok_or_else(no_root),
        }
    }
}

fn no_root() -> String {
    "no workspace root: start the server with --root DIR (or from the project's folder), \
     or use a client that offers its roots"
        .to_string()
}

/// Does `raw` name an existing entry under `files`' root (symlinks inside
/// the root followed)?
fn exists(files: &DiskFiles, raw: &str) -> bool {
    let Ok(path) = WorkspacePath::new(files.root_dir().path(), raw) else {
        return false;
    };
    match files.root_dir().locate(path.as_str(), true) {
        Ok(location) => {
            location.missing.is_empty() && matches!(location.dir.stat(&location.name), Ok(Some(_)))
        }
        Err(_) => false,
    }
}

/// The folder a `file://` root URI names (percent-decoded), or `None` for
/// other schemes and hosts.
pub fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///x` (empty host) or `file://localhost/x`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            path_of_uri("file:///home/a/my%20project"),
            Some(PathBuf::from("/home/a/my project"))
        );
        assert_eq!(
            path_of_uri("file://localhost/srv"),
            Some(PathBuf::from("/srv"))
        );
        assert_eq!(path_of_uri("https://example.com/x"), None);
        assert_eq!(path_of_uri("file://server/share"), None);
        assert_eq!(path_of_uri("file:///bad%2"), None);
    }

    #[test]
    fn relative_paths_pick_the_root_that_holds_them() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(a.path().join("only_a.txt"), "a").unwrap();
        std::fs::write(b.path().join("only_b.txt"), "b").unwrap();
        std::fs::write(a.path().join("both.txt"), "a").unwrap();
        std::fs::write(b.path().join("both.txt"), "b").unwrap();
        let roots = Roots::open(&[a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
        let root = |raw| {
            roots
                .for_path(raw)
                .map(|d| d.root_dir().path().to_path_buf())
        };
        let (ca, cb) = (
            a.path().canonicalize().unwrap(),
            b.path().canonicalize().unwrap(),
        );
        assert_eq!(root("only_a.txt"), Ok(ca.clone()));
        assert_eq!(root("only_b.txt"), Ok(cb.clone()));
        assert_eq!(root("new.txt"), Ok(ca.clone()));
        assert!(root("both.txt")
            .unwrap_err()
            .contains("exists under 2 roots"));
        let abs = cb.join("both.txt");
        assert_eq!(root(abs.to_str().unwrap()), Ok(cb.clone()));
        assert!(roots
            .for_paths(["only_a.txt", "only_b.txt"])
            .unwrap_err()
            .contains("two roots"));
    }
}
