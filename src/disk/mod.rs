//! File access that cannot be led outside a folder.
//!
//! Every file under the workspace root (and under the `.llm-edit` state
//! folder) is reached from a directory handle, one path component at a
//! time, with `O_NOFOLLOW`: the kernel never follows a symlink for us.
//! [`RootDir::locate`] reads a symlink met on the way and resolves it
//! itself, inside the root only; [`Dir`] opens, reads, creates and removes
//! entries relative to its handle. Files are read only when they are
//! regular and within [`MAX_FILE_BYTES`], checked on the open descriptor
//! before the first byte is read. See `docs/security.md`.

mod dir;
mod error;
pub mod meta;
mod root;
mod stamp;

pub use dir::{Dir, NEW_FILE, PRIVATE};
pub use error::FsError;
pub use root::{Location, RootDir};
pub use stamp::Stamp;

/// The largest file read (a target, a snapshot, a manifest): 64 MiB, the
/// payload limit.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The longest file or folder name the filesystems we write to accept
/// (`NAME_MAX`), in bytes.
pub const MAX_NAME_BYTES: usize = 255;
