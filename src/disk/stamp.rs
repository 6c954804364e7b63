//! A file's status when it was read, to tell later that it has not changed
//! since without reading it again.
//!
//! Every change of a file's bytes (`write`, `truncate`, `fallocate`, a
//! clone into it, a first write through a mapping to a clean page) sets its
//! status-change time (ctime) to the kernel's clock, and nothing lets a
//! process set the ctime back. That clock only moves forward in ticks (a
//! few milliseconds), so a change within the tick of the previous one may
//! leave the ctime as it was. A read is therefore *settled* when the file's
//! ctime is older than the clock's reading taken before the read's `fstat`:
//! any change after that `fstat` gets a ctime at least that reading, hence
//! a different one. Only then is a stamp kept; and only on local
//! filesystems whose timestamps have nanoseconds (ext4, XFS, Btrfs, tmpfs:
//! a network filesystem's ctime comes from another machine's clock). An
//! equal stamp then means the same bytes: same device, inode, size,
//! modification and change times. Not seen: bytes changed through a shared
//! mapping whose page was already dirty (no timestamp is set then), and a
//! change made after the clock was set back to the same nanosecond. See
//! `docs/security.md` ("Changed file").

use std::os::fd::AsFd;

use rustix::fs::{FileType, Stat};
use rustix::time::{clock_gettime, ClockId, Timespec};

/// A settled read's status: device, inode, size, modification and change
/// times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: i64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// The filesystems whose ctime comes from this machine's clock, in
/// nanoseconds (`statfs`'s `f_type`).
const LOCAL_FINE: [i64; 4] = [
    0xEF53,      // ext2/3/4 (an ext3 without nanoseconds is caught below)
    0x5846_5342, // XFS
    0x9123_683E, // Btrfs
    0x0102_1994, // tmpfs
];

/// The kernel's file-time clock, read before a file's `fstat`.
pub fn clock() -> Timespec {
    clock_gettime(ClockId::RealtimeCoarse)
}

impl Stamp {
    /// The stamp of the file open at `fd`, whose status `st` was taken
    /// after `clock` was read (see [`clock`]); `None` unless the read is
    /// settled on a filesystem that keeps nanoseconds.
    #[allow(clippy::unnecessary_cast)] // the field types differ by platform
    pub fn settled(fd: impl AsFd, st: &Stat, clock: Timespec) -> Option<Stamp> {
        let fs = rustix::fs::fstatfs(fd).ok()?;
        let fs_type = fs.f_type as i64;
        let stamp = Stamp::of(st);
        // A ctime of whole seconds: a filesystem that drops nanoseconds
        // (or, once in a billion, an exact second): not trusted.
        let fine = stamp.ctime.1 != 0;
        let past = stamp.ctime < (clock.tv_sec as i64, clock.tv_nsec as i64);
        (LOCAL_FINE.contains(&fs_type) && fine && past).then_some(stamp)
    }

    #[allow(clippy::unnecessary_cast)] // the field types differ by platform
    fn of(st: &Stat) -> Stamp {
        Stamp {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as i64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    /// Whether `st` (a status taken now, not following a symlink) is the
    /// same regular file, unchanged.
    pub fn matches(&self, st: &Stat) -> bool {
        FileType::from_raw_mode(st.st_mode) == FileType::RegularFile && Stamp::of(st) == *self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_change_after_the_read_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\n").unwrap();
        // Let the clock pass the file's ctime.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let file = std::fs::File::open(&path).unwrap();
        let before = clock();
        let st = rustix::fs::fstat(&file).unwrap();
        let Some(stamp) = Stamp::settled(&file, &st, before) else {
            // Not a filesystem with nanosecond times: nothing to test here.
            return;
        };
        assert!(stamp.matches(&rustix::fs::stat(&path).unwrap()));
        // Same size, same mtime set back: the ctime still moves.
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all(b"two\n").unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        assert!(!stamp.matches(&rustix::fs::stat(&path).unwrap()));
    }

    #[test]
    fn a_fresh_change_is_not_settled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        let clock = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        std::fs::write(&path, "one\n").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let st = rustix::fs::fstat(&file).unwrap();
        // A clock read before the file's last change: not settled.
        assert_eq!(Stamp::settled(&file, &st, clock), None);
    }
}
