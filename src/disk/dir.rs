//! A directory handle and every operation relative to it.
//!
//! No operation here follows a symlink: entries are opened with
//! `O_NOFOLLOW`, inspected with `AT_SYMLINK_NOFOLLOW`, and created with
//! `O_EXCL` (files) or `mkdirat` (folders), which never write through a
//! symlink planted at the name.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags, Stat, CWD};
use rustix::io::Errno;

use super::stamp::{self, Stamp};
use super::FsError;

/// A file's bytes, and its [`Stamp`] when the read is settled.
pub type StampedRead = (Vec<u8>, Option<Stamp>);

/// An open folder.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// The mode of a temporary file that will get another file's mode.
pub const PRIVATE: u32 = 0o600;
/// The mode of a new file (less the umask), as `open(2)` callers use.
pub const NEW_FILE: u32 = 0o666;

/// How many unpredictable names are tried before giving up.
const NAME_ATTEMPTS: usize = 16;

impl Dir {
    /// Opens the folder at `path`, following symlinks: for paths the user
    /// gave (the root, `--context`), never for paths a repository holds.
    pub fn open_trusted(path: &Path) -> io::Result<Dir> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(Dir {
            fd: rfs::openat(CWD, path, flags, Mode::empty())?,
        })
    }

    /// Another handle on the same folder.
    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
        })
    }

    /// The status of entry `name`, not following a symlink (`None`: missing).
    pub fn stat(&self, name: &OsStr) -> io::Result<Option<Stat>> {
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(st)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The type of entry `name`, not following a symlink (`None`: missing).
    pub fn entry_type(&self, name: &OsStr) -> io::Result<Option<FileType>> {
        Ok(self
            .stat(name)?
            .map(|st| FileType::from_raw_mode(st.st_mode)))
    }

    /// The target of the symlink `name`.
    pub fn read_link(&self, name: &OsStr) -> io::Result<OsString> {
        let target = rfs::readlinkat(&self.fd, name, Vec::new())?;
        Ok(OsStr::from_bytes(target.as_bytes()).to_owned())
    }

    /// Opens the subfolder `name`; a symlink there is refused.
    pub fn open_dir(&self, name: &OsStr) -> Result<Dir, FsError> {
        match rfs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Dir { fd }),
            Err(Errno::LOOP | Errno::NOTDIR) => match self.entry_type(name)? {
                Some(FileType::Symlink) => Err(FsError::Symlink),
                _ => Err(FsError::Io(Errno::NOTDIR.into())),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// Opens the subfolder `name`, creating it when missing; `true` when
    /// it was created.
    pub fn create_dir(&self, name: &OsStr) -> Result<(Dir, bool), FsError> {
        match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => Ok((self.open_dir(name)?, true)),
            Err(Errno::EXIST) => Ok((self.open_dir(name)?, false)),
            Err(e) => Err(e.into()),
        }
    }

    /// Opens the chain of subfolders `names` (creating missing ones when
    /// `create`), refusing any symlink on the way.
    pub fn open_path(&self, names: &[&OsStr], create: bool) -> Result<Dir, FsError> {
        let mut dir = self.try_clone()?;
        for name in names {
            dir = if create {
                dir.create_dir(name)?.0
            } else {
                dir.open_dir(name)?
            };
        }
        Ok(dir)
    }

    /// Opens the regular file `name` for reading (`None`: missing). A
    /// symlink, folder, FIFO, device or socket is refused: the entry is
    /// checked before opening (so no device is opened), opened with
    /// `O_NONBLOCK | O_NOFOLLOW` (so a FIFO swapped in cannot block), and
    /// checked again on the open descriptor.
    pub fn open_regular(&self, name: &OsStr) -> Result<Option<(File, Stat)>, FsError> {
        match self.stat(name)? {
            None => return Ok(None),
            Some(st) => check_regular(&st)?,
        }
        let flags =
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match rfs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(FsError::Symlink),
            Err(e) => return Err(e.into()),
        };
        let st = rfs::fstat(&fd)?;
        check_regular(&st)?;
        Ok(Some((File::from(fd), st)))
    }

    /// Reads the regular file `name` whole (`None`: missing), refusing it
    /// before reading when it is larger than `limit` bytes.
    pub fn read_regular(&self, name: &OsStr, limit: u64) -> Result<Option<Vec<u8>>, FsError> {
        match self.open_regular(name)? {
            None => Ok(None),
            Some((file, st)) => read_bounded(file, &st, limit).map(Some),
        }
    }

    /// Reads the regular file `name` whole like [`Dir::read_regular`], with
    /// its [`Stamp`] when the read is settled.
    pub fn read_regular_stamped(
        &self,
        name: &OsStr,
        limit: u64,
    ) -> Result<Option<StampedRead>, FsError> {
        // Read before the descriptor's `fstat` (in `open_regular`).
        let clock = stamp::clock();
        match self.open_regular(name)? {
            None => Ok(None),
            Some((file, st)) => {
                let stamp = Stamp::settled(&file, &st, clock);
                read_bounded(file, &st, limit).map(|bytes| Some((bytes, stamp)))
            }
        }
    }

    /// Replaces the content of the regular file `name` in place (the same
    /// inode: its other hard links see the change), and syncs it.
    pub fn rewrite(&self, name: &OsStr, bytes: &[u8]) -> Result<(), FsError> {
        if let Some(st) = self.stat(name)? {
            check_regular(&st)?;
        }
        let flags =
            OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match rfs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return Err(FsError::Symlink),
            Err(e) => return Err(e.into()),
        };
        check_regular(&rfs::fstat(&fd)?)?;
        rfs::ftruncate(&fd, 0)?;
        let mut file = File::from(fd);
        file.write_all(bytes)?;
        file.sync_data()?;
        Ok(())
    }

    /// Creates an empty file with an unpredictable name beside `name`
    /// (`O_CREAT | O_EXCL`, `mode` less the umask); returns it and its name.
    /// [`PRIVATE`] until the file is given the mode of the one it replaces,
    /// [`NEW_FILE`] for a file that replaces none.
    pub fn create_temp(&self, name: &OsStr, mode: u32) -> io::Result<(File, OsString)> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..NAME_ATTEMPTS {
            let temp = unpredictable_name(name, "tmp")?;
            match rfs::openat(&self.fd, &temp, flags, Mode::from_raw_mode(mode)) {
                Ok(fd) => return Ok((File::from(fd), temp)),
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "no free temporary name",
        ))
    }

    /// Gives the entry `name` a second, unpredictable name (a hard link,
    /// which never replaces an existing entry); returns that name.
    pub fn link_aside(&self, name: &OsStr) -> io::Result<OsString> {
        for _ in 0..NAME_ATTEMPTS {
            let aside = unpredictable_name(name, "old")?;
            match rfs::linkat(&self.fd, name, &self.fd, &aside, AtFlags::empty()) {
                Ok(()) => return Ok(aside),
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free name"))
    }

    /// Renames `from` to `to`, both in this folder.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        Ok(rfs::renameat(&self.fd, from, &self.fd, to)?)
    }

    /// Removes the file (or symlink) `name`.
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        Ok(rfs::unlinkat(&self.fd, name, AtFlags::empty())?)
    }

    /// Removes the empty subfolder `name`.
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        Ok(rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?)
    }

    /// Flushes the folder's entries (renames, creations) to the disk.
    pub fn sync(&self) -> io::Result<()> {
        Ok(rfs::fsync(&self.fd)?)
    }

    /// Writes `bytes` to `name` (mode 0600: the tool's own state, which may
    /// copy private files) through a temporary file and a rename, so
    /// readers see the old file or the whole new one; with `sync`, the
    /// data reaches the disk before the rename. A failure removes the
    /// temporary file.
    pub fn write_atomic(&self, name: &OsStr, bytes: &[u8], sync: bool) -> io::Result<()> {
        let (mut file, temp) = self.create_temp(name, PRIVATE)?;
        let written = file
            .write_all(bytes)
            .and_then(|()| if sync { file.sync_data() } else { Ok(()) })
            .and_then(|()| self.rename(&temp, name));
        if written.is_err() {
            let _ = self.remove_file(&temp);
        }
        written
    }

    /// Removes `name` and, when it is a folder, everything in it; a
    /// symlink is removed, never followed. No error when it is missing.
    pub fn remove_tree(&self, name: &OsStr) -> Result<(), FsError> {
        match self.entry_type(name)? {
            None => Ok(()),
            Some(FileType::Directory) => {
                let sub = self.open_dir(name)?;
                for entry in sub.entries()? {
                    sub.remove_tree(&entry)?;
                }
                Ok(self.remove_dir(name)?)
            }
            Some(_) => Ok(self.remove_file(name)?),
        }
    }

    /// The names in this folder (without `.` and `..`).
    pub fn entries(&self) -> io::Result<Vec<OsString>> {
        let mut names = Vec::new();
        for entry in rfs::Dir::read_from(&self.fd)? {
            let name = entry?.file_name().to_bytes().to_vec();
            if name != b"." && name != b".." {
                names.push(OsString::from(OsStr::from_bytes(&name)));
            }
        }
        Ok(names)
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Refuses anything but a regular file, naming what it is.
pub(super) fn check_regular(st: &Stat) -> Result<(), FsError> {
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok(()),
        FileType::Directory => Err(FsError::Directory),
        FileType::Symlink => Err(FsError::Symlink),
        FileType::Fifo => Err(FsError::NotRegular("a FIFO")),
        FileType::CharacterDevice => Err(FsError::NotRegular("a character device")),
        FileType::BlockDevice => Err(FsError::NotRegular("a block device")),
        FileType::Socket => Err(FsError::NotRegular("a socket")),
        FileType::Unknown => Err(FsError::NotRegular("a special file")),
    }
}

/// Reads an open regular file whole, refusing it when its size (before
/// reading, and what was read) is over `limit`.
pub(super) fn read_bounded(file: File, st: &Stat, limit: u64) -> Result<Vec<u8>, FsError> {
    let size = u64::try_from(st.st_size).unwrap_or(0);
    if size > limit {
        return Err(FsError::TooLarge(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    crate::memory::prefault(&mut bytes);
    // The size the file had is read into the buffer's room (one call for
    // a file at rest: `read_to_end` through a `Take` starts at 8 KiB and
    // doubles, six calls for 390 KB), then a small read finds its end
    // without growing the buffer. A file that grows meanwhile is read on,
    // up to `limit`.
    loop {
        let read = if bytes.len() < bytes.capacity() {
            rustix::io::read(&file, rustix::buffer::spare_capacity(&mut bytes))
        } else {
            let mut probe = [0u8; 32];
            rustix::io::read(&file, &mut probe).inspect(|&n| bytes.extend_from_slice(&probe[..n]))
        };
        match read {
            Ok(0) => break,
            Ok(_) if bytes.len() as u64 > limit => {
                return Err(FsError::TooLarge(bytes.len() as u64));
            }
            Ok(_) | Err(Errno::INTR) => {}
            Err(e) => return Err(io::Error::from(e).into()),
        }
    }
    Ok(bytes)
}

/// `.<name>.<16 random hex digits>.llm-edit-<what>`: hidden, beside the
/// file it belongs to, and not guessable by whoever plants symlinks.
fn unpredictable_name(name: &OsStr, what: &str) -> io::Result<OsString> {
    let random = getrandom::u64().map_err(|e| io::Error::other(e.to_string()))?;
    let bytes = name.as_bytes();
    let stem = &bytes[..bytes.len().min(128)];
    let mut out = b".".to_vec();
    out.extend_from_slice(stem);
    out.extend_from_slice(format!(".{random:016x}.llm-edit-{what}").as_bytes());
    Ok(OsString::from(OsStr::from_bytes(&out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` bytes that differ from one place to the next.
    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn a_file_is_read_whole_even_when_it_grows_and_never_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        for (size, grown, limit) in [
            (0, 0, 100),
            (1, 0, 100),
            (31, 0, 100),
            (32, 0, 100),
            (33, 0, 100),
            (100, 0, 100),
            (4096, 0, 1 << 20),
            (389_627, 0, 1 << 20),
            // Grown after its size was taken: read on to its end...
            (10, 1, 100),
            (10, 32, 100),
            (10, 90, 100),
            (4096, 100_000, 1 << 20),
            // ...unless that passes the limit.
            (10, 91, 100),
            (100, 1, 100),
            (4096, 1 << 20, 1 << 20),
        ] {
            let all = bytes(size + grown);
            std::fs::write(&path, &all[..size]).unwrap();
            let file = File::open(&path).unwrap();
            let st = rfs::fstat(&file).unwrap();
            let mut append = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            append.write_all(&all[size..]).unwrap();
            let read = read_bounded(file, &st, limit as u64);
            if size + grown <= limit {
                assert_eq!(read.ok(), Some(all), "{size} + {grown}, limit {limit}");
            } else {
                assert!(
                    matches!(read, Err(FsError::TooLarge(n)) if n > limit as u64),
                    "{size} + {grown}, limit {limit}"
                );
            }
        }
        // Over the limit before reading: refused without a read.
        std::fs::write(&path, bytes(101)).unwrap();
        let file = File::open(&path).unwrap();
        let st = rfs::fstat(&file).unwrap();
        assert!(matches!(
            read_bounded(file, &st, 100),
            Err(FsError::TooLarge(101))
        ));
    }
}
