//! Why a file under a directory handle cannot be used.

use std::fmt;
use std::io;

/// A refusal or failure of [`Dir`](super::Dir) and
/// [`RootDir`](super::RootDir) operations.
#[derive(Debug)]
pub enum FsError {
    /// A symlink on the way leads out of the root (or is too deep a chain).
    OutsideRoot,
    /// A symlink where none is followed (the state folder, a race).
    Symlink,
    /// A folder where a file was expected.
    Directory,
    /// Not a regular file: what it is ("a FIFO", "a character device", ...).
    NotRegular(&'static str),
    /// Larger than the limit (its size in bytes).
    TooLarge(u64),
    /// Any other I/O failure.
    Io(io::Error),
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsError::OutsideRoot => {
                f.write_str("resolves outside the workspace root (through a symlink)")
            }
            FsError::Symlink => f.write_str("is a symlink, which is not followed here"),
            FsError::Directory => f.write_str("is a directory, not a file"),
            FsError::NotRegular(what) => {
                write!(f, "is {what}, not a regular file (refused before reading)")
            }
            FsError::TooLarge(size) => write!(
                f,
                "is {size} bytes, over the {} MiB limit (refused before reading)",
                super::MAX_FILE_BYTES / (1024 * 1024)
            ),
            FsError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FsError {}

impl From<io::Error> for FsError {
    fn from(e: io::Error) -> FsError {
        FsError::Io(e)
    }
}

impl From<rustix::io::Errno> for FsError {
    fn from(e: rustix::io::Errno) -> FsError {
        FsError::Io(e.into())
    }
}
