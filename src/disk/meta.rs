//! Carrying a file's owner, group, mode and extended attributes over to
//! the new file that replaces it.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{self as rfs, Gid, Mode, Stat, Uid, XattrFlags};
use rustix::io::Errno;

/// setuid and setgid.
const SET_ID_BITS: u32 = 0o6000;

/// Gives `to` the owner, group, mode and extended attributes of `from`
/// (whose status is `st`). The owner and group are kept when the process
/// may (root, or the same owner); when either cannot be kept, the setuid
/// and setgid bits are cleared rather than handed to another owner.
/// Extended attributes the process may not set (`trusted.*` without
/// privilege, a filesystem without them) are skipped.
pub fn copy(from: impl AsFd, st: &Stat, to: impl AsFd) -> io::Result<()> {
    let to = to.as_fd();
    let owner = Uid::from_raw(st.st_uid);
    let group = Gid::from_raw(st.st_gid);
    // The new file is the process's own: when its owner and group are
    // already the old file's (the usual case), `fchown` would change
    // nothing (the new file has no set-id bits to lose yet) and is skipped.
    let created = rfs::fstat(to)?;
    let same_owner = |now: &Stat| now.st_uid == st.st_uid && now.st_gid == st.st_gid;
    if !same_owner(&created) && rfs::fchown(to, Some(owner), Some(group)).is_err() {
        // Not root (or an owner this system cannot map): keep at least the
        // group when the process belongs to it.
        let _ = rfs::fchown(to, None, Some(group));
    }
    copy_xattrs(from.as_fd(), to)?;
    let now = if same_owner(&created) {
        created
    } else {
        rfs::fstat(to)?
    };
    let mut mode = st.st_mode & 0o7777;
    if !same_owner(&now) {
        mode &= !SET_ID_BITS;
    }
    rfs::fchmod(to, Mode::from_raw_mode(mode))?;
    Ok(())
}

fn copy_xattrs(from: BorrowedFd<'_>, to: BorrowedFd<'_>) -> io::Result<()> {
    // Nothing to copy when the filesystem (or a policy) lists none.
    let Ok(names) = sized(rfs::flistxattr_query(from), |buf| {
        rfs::flistxattr(from, buf)
    }) else {
        return Ok(());
    };
    for name in names.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = OsStr::from_bytes(name);
        let size = rfs::fgetxattr_query(from, name);
        let Ok(value) = sized(size, |buf| rfs::fgetxattr(from, name, buf)) else {
            continue;
        };
        match rfs::fsetxattr(to, name, &value, XattrFlags::empty()) {
            Ok(()) | Err(Errno::PERM | Errno::NOTSUP | Errno::ACCESS) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The bytes of an xattr getter, given the size it announced.
fn sized(
    size: Result<usize, Errno>,
    get: impl Fn(&mut [u8]) -> Result<usize, Errno>,
) -> Result<Vec<u8>, Errno> {
    let size = size?;
    if size == 0 {
        return Ok(Vec::new());
    }
    let mut buf = vec![0; size];
    let len = get(&mut buf)?;
    buf.truncate(len);
    Ok(buf)
}
