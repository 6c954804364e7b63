//! The workspace root as a directory handle, and path resolution under it
//! that follows a symlink only while it stays inside the root.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::FileType;

use super::{Dir, FsError};

/// Longest chain of symlinks followed in one path (Linux's own limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// The canonical workspace root, open.
#[derive(Debug)]
pub struct RootDir {
    dir: Dir,
    path: PathBuf,
}

/// Where a path under the root lands once its symlinks are resolved.
#[derive(Debug)]
pub struct Location {
    /// The deepest existing folder on the way (inside the root).
    pub dir: Dir,
    /// Folders still to create under `dir` before `name` can exist.
    pub missing: Vec<OsString>,
    /// The final name (which may not exist).
    pub name: OsString,
    /// The real path relative to the root, `/`-separated.
    pub real: String,
}

impl RootDir {
    /// Opens the root `path`, canonicalized once (`realpath`).
    pub fn open(path: &Path) -> io::Result<RootDir> {
        let path = path.canonicalize()?;
        Ok(RootDir {
            dir: Dir::open_trusted(&path)?,
            path,
        })
    }

    /// The canonical path of the root.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root folder's handle.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Resolves `relative` (a normalized `/`-separated path) one component
    /// at a time from the root's handle. A symlink on the way, and at the
    /// end when `follow_last`, is read and resolved here: relative targets
    /// against the folder holding it, absolute ones only under the
    /// canonical root; a target that leaves the root is `OutsideRoot`.
    /// Missing folders end the walk (they are listed in `missing`).
    pub fn locate(&self, relative: &str, follow_last: bool) -> Result<Location, FsError> {
        let mut todo: Vec<OsString> = components(OsStr::new(relative))?;
        todo.reverse();
        let mut dirs: Vec<(Dir, OsString)> = Vec::new();
        let mut hops = 0;
        while let Some(name) = todo.pop() {
            if name == ".." {
                dirs.pop().ok_or(FsError::OutsideRoot)?;
                continue;
            }
            let here = dirs.last().map_or(&self.dir, |(d, _)| d);
            let last = todo.is_empty();
            match here.entry_type(&name)? {
                Some(FileType::Symlink) if !last || follow_last => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(FsError::OutsideRoot);
                    }
                    let target = here.read_link(&name)?;
                    let target = Path::new(&target);
                    let rest = if target.is_absolute() {
                        dirs.clear();
                        let inside = target
                            .strip_prefix(&self.path)
                            .map_err(|_| FsError::OutsideRoot)?;
                        components(inside.as_os_str())?
                    } else {
                        components(target.as_os_str())?
                    };
                    todo.extend(rest.into_iter().rev());
                }
                Some(FileType::Directory) if !last => {
                    let sub = here.open_dir(&name)?;
                    dirs.push((sub, name));
                }
                None if !last => {
                    let mut missing = vec![name];
                    while todo.len() > 1 {
                        let next = todo.pop().unwrap_or_default();
                        if next == ".." {
                            return Err(FsError::Io(io::ErrorKind::NotFound.into()));
                        }
                        missing.push(next);
                    }
                    let name = todo.pop().unwrap_or_default();
                    return self.finish(dirs, missing, name);
                }
                Some(_) if !last => return Err(FsError::Io(rustix::io::Errno::NOTDIR.into())),
                _ => return self.finish(dirs, Vec::new(), name),
            }
        }
        // The path (or a symlink's target) ends at a folder: the root or one
        // on the way.
        Err(FsError::Directory)
    }

    fn finish(
        &self,
        dirs: Vec<(Dir, OsString)>,
        missing: Vec<OsString>,
        name: OsString,
    ) -> Result<Location, FsError> {
        let mut real: Vec<&OsStr> = dirs.iter().map(|(_, n)| n.as_os_str()).collect();
        real.extend(missing.iter().map(OsString::as_os_str));
        real.push(&name);
        let real = real
            .iter()
            .map(|n| n.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let dir = match dirs.into_iter().last() {
            Some((dir, _)) => dir,
            None => self.dir.try_clone()?,
        };
        Ok(Location {
            dir,
            missing,
            name,
            real,
        })
    }
}

impl Location {
    /// Creates the missing folders (mode 0777 less the umask, never
    /// through a symlink); returns each created folder's parent handle and
    /// name, outermost first, so that they can be removed again.
    pub fn create_missing(&mut self) -> Result<Vec<(Dir, OsString)>, FsError> {
        let mut created = Vec::new();
        for name in std::mem::take(&mut self.missing) {
            let (sub, new) = self.dir.create_dir(&name)?;
            if new {
                created.push((std::mem::replace(&mut self.dir, sub), name));
            } else {
                self.dir = sub;
            }
        }
        Ok(created)
    }
}

/// The names of a relative path (`.` dropped, `..` kept); a NUL or an
/// absolute path is refused.
fn components(path: &OsStr) -> Result<Vec<OsString>, FsError> {
    if path.as_bytes().contains(&0) {
        return Err(FsError::Io(io::ErrorKind::InvalidInput.into()));
    }
    let mut names = Vec::new();
    for comp in Path::new(path).components() {
        match comp {
            Component::Normal(n) => names.push(n.to_owned()),
            Component::ParentDir => names.push(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return Err(FsError::OutsideRoot),
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn symlinks_resolve_inside_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root_path = base.join("root");
        std::fs::create_dir_all(root_path.join("src")).unwrap();
        std::fs::write(root_path.join("src/a.txt"), "a").unwrap();
        let link = |target: &Path, name: &str| symlink(target, root_path.join(name)).unwrap();
        link(Path::new("src/a.txt"), "to_file");
        link(&root_path.join("src"), "absolute_in");
        link(Path::new("../outside"), "up_out");
        link(Path::new("/etc"), "absolute_out");
        link(Path::new("loop_b"), "loop_a");
        link(Path::new("loop_a"), "loop_b");
        link(Path::new("new/file.txt"), "dangling");
        let root = RootDir::open(&root_path).unwrap();
        let real = |p: &str, follow: bool| root.locate(p, follow).map(|l| (l.real, l.missing));

        assert_eq!(real("to_file", true).unwrap().0, "src/a.txt");
        assert_eq!(real("to_file", false).unwrap().0, "to_file");
        assert_eq!(real("absolute_in/a.txt", true).unwrap().0, "src/a.txt");
        let (path, missing) = real("dangling", true).unwrap();
        assert_eq!(
            (path.as_str(), missing),
            ("new/file.txt", vec!["new".into()])
        );
        let (path, missing) = real("no/such/f.txt", true).unwrap();
        assert_eq!(path, "no/such/f.txt");
        assert_eq!(missing, [OsString::from("no"), OsString::from("such")]);
        for escaping in ["up_out/x", "absolute_out", "absolute_out/passwd", "loop_a"] {
            assert!(
                matches!(root.locate(escaping, true), Err(FsError::OutsideRoot)),
                "{escaping}"
            );
        }
        assert!(root.locate("src", true).is_ok());
        assert!(matches!(
            root.locate("src/a.txt/x", true),
            Err(FsError::Io(_))
        ));
    }
}
