//! The hostile-filesystem suite (`docs/security.md`): a repository that
//! plants symlinks, FIFOs and device nodes, races that change the
//! workspace between planning and writing, and payloads that name
//! impossible files. Every run has a time limit: a hang fails the test.

mod support;

use std::ffi::OsStr;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use llm_edit_lsp::context::ContextStore;
use llm_edit_lsp::workspace::WorkspacePath;
use support::{
    after_plan, as_user, file_size_limit, hook_available, is_root, mkfifo, mknod_char, sr, Run,
    Sandbox,
};

fn ws_path(root: &Path, raw: &str) -> WorkspacePath {
    WorkspacePath::new(root, raw).unwrap()
}

/// Runs `f` on another thread; a hang past the limit fails the test.
fn within_limit<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("did not finish within 10 s (blocked on a FIFO or reading a device)")
}

// ---- Writes and deletes outside the root ----------------------------------

#[test]
fn a_state_folder_symlinked_out_of_the_root_is_refused() {
    for planted in [".llm-edit", ".llm-edit/context"] {
        let sb = Sandbox::new(&[("a.txt", "a\n")]);
        // What a capture of `default` would delete and write through the link.
        let victim = if planted == ".llm-edit" {
            sb.outside.join("context/default")
        } else {
            sb.outside.join("default")
        };
        std::fs::create_dir_all(&victim).unwrap();
        std::fs::write(victim.join("keep.txt"), "keep\n").unwrap();
        std::fs::create_dir_all(sb.root.join(planted).parent().unwrap()).unwrap();
        symlink(&sb.outside, sb.root.join(planted)).unwrap();

        let store = ContextStore::new(&sb.root);
        let files = [(ws_path(&sb.root, "a.txt"), "a\n".to_string())];
        let captured = store.capture("default", &files);
        assert!(captured.is_err(), "{planted}: {captured:?}");
        assert!(store.release("default").is_err(), "{planted}");
        assert_eq!(
            std::fs::read_to_string(victim.join("keep.txt")).unwrap(),
            "keep\n",
            "{planted}"
        );
        assert_eq!(sb.names(&victim), ["keep.txt"], "{planted}");
    }
}

#[test]
fn a_context_folder_symlinked_out_is_unlinked_never_emptied() {
    let sb = Sandbox::new(&[("a.txt", "a\n")]);
    std::fs::write(sb.outside.join("keep.txt"), "keep\n").unwrap();
    std::fs::create_dir_all(sb.root.join(".llm-edit/context")).unwrap();
    symlink(&sb.outside, sb.root.join(".llm-edit/context/default")).unwrap();
    let store = ContextStore::new(&sb.root);
    store.release("default").unwrap();
    assert!(!sb.root.join(".llm-edit/context/default").exists());
    symlink(&sb.outside, sb.root.join(".llm-edit/context/default")).unwrap();
    let files = [(ws_path(&sb.root, "a.txt"), "a\n".to_string())];
    store.capture("default", &files).unwrap();
    let default = sb.root.join(".llm-edit/context/default");
    assert!(!default.symlink_metadata().unwrap().is_symlink());
    assert_eq!(sb.names(&sb.outside), ["keep.txt"]);
    assert_eq!(store.load("default").unwrap().len(), 1);
}

#[test]
fn symlinks_planted_at_temporary_names_are_never_written_through() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let tmp_victim = sb.outside_file("tmp-victim", "victim\n");
    let bak_victim = sb.outside_file("bak-victim", "victim\n");
    let root = sb.root.clone();
    let (tmp, bak) = (tmp_victim.clone(), bak_victim.clone());
    let run = sb.apply_racing(
        &[],
        &sr("a.txt", "one\n", "1\n"),
        |_| {},
        // The names the process would use, planted before it reads its payload.
        move |pid| {
            symlink(&tmp, root.join(format!(".a.txt.llm-edit-{pid}.tmp"))).unwrap();
            symlink(&bak, root.join(format!(".a.txt.llm-edit-{pid}.bak"))).unwrap();
        },
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("a.txt"), "1\n");
    assert!(sb.root.join("a.txt").symlink_metadata().unwrap().is_file());
    assert_eq!(std::fs::read_to_string(&tmp_victim).unwrap(), "victim\n");
    assert_eq!(std::fs::read_to_string(&bak_victim).unwrap(), "victim\n");
    // Nothing is left behind but the planted links.
    assert_eq!(sb.names(&sb.root).len(), 3, "{:?}", sb.names(&sb.root));
}

#[test]
fn symlinks_planted_in_the_state_folder_are_never_written_through() {
    let sb = Sandbox::new(&[("a.txt", "a\n")]);
    let victim = sb.outside_file("victim", "victim\n");
    std::fs::create_dir(sb.root.join(".llm-edit")).unwrap();
    let pid = std::process::id();
    for n in 0..64 {
        let name = format!(".llm-edit/..gitignore.{pid}-{n}.tmp");
        symlink(&victim, sb.root.join(name)).unwrap();
    }
    let store = ContextStore::new(&sb.root);
    let files = [(ws_path(&sb.root, "a.txt"), "a\n".to_string())];
    store.capture("default", &files).unwrap();
    let gitignore = sb.root.join(".llm-edit/.gitignore");
    assert!(gitignore.symlink_metadata().unwrap().is_file());
    assert_eq!(std::fs::read_to_string(gitignore).unwrap(), "*\n");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim\n");
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the after-plan hook, which only debug builds honour (src/cli/apply.rs, test_hook)"
)]
fn a_folder_swapped_for_a_symlink_after_planning_is_refused() {
    if !hook_available() {
        return;
    }
    let sb = Sandbox::new(&[("sub/a.txt", "one\n")]);
    let outside_copy = sb.outside_file("a.txt", "one\n");
    let swap = format!(
        "mv '{0}/sub' '{0}/sub.old' && ln -s '{1}' '{0}/sub'",
        sb.root.display(),
        sb.outside.display()
    );
    let run = sb.apply_with(&[], &sr("sub/a.txt", "one\n", "1\n"), after_plan(swap));
    assert_eq!(run.code(), 2, "{}", run.stderr());
    assert!(
        run.stderr().contains("outside the workspace root"),
        "{}",
        run.stderr()
    );
    assert_eq!(std::fs::read_to_string(outside_copy).unwrap(), "one\n");
    assert_eq!(sb.names(&sb.outside), ["a.txt"]);
    assert_eq!(sb.read("sub.old/a.txt"), "one\n");
}

/// A payload touching more files than the soft limit of open files is
/// written (each staged file holds its folder's handle).
#[test]
fn many_files_are_not_refused_for_want_of_descriptors() {
    let names: Vec<String> = (0..300).map(|i| format!("d{}/f{i}.txt", i % 7)).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "one\n")).collect();
    let sb = Sandbox::new(&files);
    let payload: String = names.iter().map(|n| sr(n, "one\n", "1\n")).collect();
    let low_limit = |c: &mut std::process::Command| {
        // SAFETY: setrlimit is async-signal-safe.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(c, || {
                let limit = libc::rlimit {
                    rlim_cur: 64,
                    rlim_max: 4096,
                };
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
    };
    let run = sb.apply_with(&[], &payload, low_limit);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(names.iter().all(|n| sb.read(n) == "1\n"));
}

// ---- Lost updates and what a replaced file keeps -----------------------------

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the after-plan hook, which only debug builds honour (src/cli/apply.rs, test_hook)"
)]
fn a_file_changed_while_planning_is_not_overwritten() {
    if !hook_available() {
        return;
    }
    let sb = Sandbox::new(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    let payload = sr("a.txt", "one\n", "1\n") + &sr("b.txt", "two\n", "2\n");
    let change = format!("printf 'mine\\n' > '{}/b.txt'", sb.root.display());
    let run = sb.apply_with(&[], &payload, after_plan(change));
    refused_as_changed(&sb, &run, "mine\n");
}

/// The run of a two-file payload (a.txt, then b.txt) where b.txt changed
/// to `b_now` after planning: refused, b.txt keeps the change, and a.txt,
/// replaced first, is restored (all or nothing).
fn refused_as_changed(sb: &Sandbox, run: &Run, b_now: &str) {
    assert_eq!(run.code(), 2, "{}", run.stderr());
    assert!(
        run.stderr().contains("b.txt changed on disk"),
        "{}",
        run.stderr()
    );
    assert_eq!(sb.read("b.txt"), b_now);
    assert_eq!(sb.read("a.txt"), "one\n");
    assert_eq!(sb.names(&sb.root), ["a.txt", "b.txt"]);
}

/// The plan's read keeps the file's status (it is old enough: see
/// `src/disk/stamp.rs`); a change of the same size whose mtime is put back
/// still moves the ctime, and the bytes are then compared.
#[test]
fn a_same_size_change_with_its_mtime_put_back_is_not_overwritten() {
    if !hook_available() {
        return;
    }
    let sb = Sandbox::new(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    std::thread::sleep(Duration::from_millis(50));
    let payload = sr("a.txt", "one\n", "1\n") + &sr("b.txt", "two\n", "2\n");
    let b = sb.root.join("b.txt");
    let outside_ref = sb.outside_file("ref", "");
    let change = format!(
        "touch -r '{0}' '{1}' && printf 'owt\\n' > '{0}' && touch -r '{1}' '{0}'",
        b.display(),
        outside_ref.display()
    );
    let run = sb.apply_with(&[], &payload, after_plan(change));
    refused_as_changed(&sb, &run, "owt\n");
}

/// A file touched (its times moved, its bytes unchanged) after planning is
/// compared byte for byte and written.
#[test]
fn a_file_touched_but_unchanged_while_planning_is_written() {
    if !hook_available() {
        return;
    }
    let sb = Sandbox::new(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    std::thread::sleep(Duration::from_millis(50));
    let payload = sr("a.txt", "one\n", "1\n") + &sr("b.txt", "two\n", "2\n");
    let change = format!("touch '{}/b.txt'", sb.root.display());
    let run = sb.apply_with(&[], &payload, after_plan(change));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("a.txt"), "1\n");
    assert_eq!(sb.read("b.txt"), "2\n");
}

#[test]
fn an_edit_through_an_in_root_symlink_edits_the_real_file() {
    let sb = Sandbox::new(&[("src/real.txt", "one\n"), ("src/other.txt", "two\n")]);
    symlink("src/real.txt", sb.root.join("link.txt")).unwrap();
    symlink(sb.root.join("src"), sb.root.join("srclink")).unwrap();
    let payload = sr("link.txt", "one\n", "1\n") + &sr("srclink/other.txt", "two\n", "2\n");
    let run = sb.apply(&[], &payload);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("src/real.txt"), "1\n");
    assert_eq!(sb.read("src/other.txt"), "2\n");
    let link = sb.root.join("link.txt").symlink_metadata().unwrap();
    assert!(link.is_symlink());
    assert!(sb
        .root
        .join("srclink")
        .symlink_metadata()
        .unwrap()
        .is_symlink());
    assert_eq!(sb.names(&sb.root.join("src")), ["other.txt", "real.txt"]);
}

#[test]
fn owner_group_and_set_id_bits_are_kept() {
    if !is_root() {
        eprintln!("skipped: changing a file's owner needs root");
        return;
    }
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let path = sb.root.join("a.txt");
    std::os::unix::fs::chown(&path, Some(1234), Some(2345)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o6755)).unwrap();
    let run = sb.apply(&[], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (1234, 2345));
    assert_eq!(meta.mode() & 0o7777, 0o6755);
    assert_eq!(sb.read("a.txt"), "1\n");
}

/// Someone who cannot keep the owner (here `nobody` editing root's
/// world-writable file) does not get its setuid and setgid bits.
#[test]
fn set_id_bits_are_cleared_when_the_owner_cannot_be_kept() {
    if !is_root() {
        eprintln!("skipped: running the CLI as another user needs root");
        return;
    }
    const NOBODY: u32 = 65534;
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let mode = |p: &Path, m| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(sb.root.parent().unwrap(), 0o755).unwrap();
    mode(&sb.root, 0o777).unwrap();
    mode(&sb.root.join("a.txt"), 0o6777).unwrap();
    let run = sb.apply_with(&[], &sr("a.txt", "one\n", "1\n"), as_user(NOBODY));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let meta = std::fs::metadata(sb.root.join("a.txt")).unwrap();
    assert_eq!(meta.uid(), NOBODY);
    assert_eq!(meta.mode() & 0o7777, 0o777);
    assert_eq!(sb.read("a.txt"), "1\n");
}

/// A new file gets the usual mode (0666 less the umask), not the private
/// mode of the temporary file it was staged in.
#[test]
fn a_new_file_gets_the_usual_mode() {
    let sb = Sandbox::new(&[]);
    let umask = |c: &mut std::process::Command| {
        // SAFETY: umask is async-signal-safe.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(c, || {
                libc::umask(0o022);
                Ok(())
            });
        }
    };
    let run = sb.apply_with(&[], &sr("new/a.txt", "", "x\n"), umask);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let mode = |p: &str| std::fs::metadata(sb.root.join(p)).unwrap().mode() & 0o7777;
    assert_eq!((mode("new/a.txt"), mode("new")), (0o644, 0o755));
}

#[test]
fn a_hard_linked_file_is_written_in_place() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    std::fs::hard_link(sb.root.join("a.txt"), sb.root.join("b.txt")).unwrap();
    let inode = std::fs::metadata(sb.root.join("a.txt")).unwrap().ino();
    let run = sb.apply(&[], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("b.txt"), "1\n");
    let meta = std::fs::metadata(sb.root.join("a.txt")).unwrap();
    assert_eq!((meta.ino(), meta.nlink()), (inode, 2));
}

#[test]
fn extended_attributes_are_kept() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let path = sb.root.join("a.txt");
    let name = OsStr::new("user.llm-edit-test");
    match rustix::fs::setxattr(&path, name, b"kept", rustix::fs::XattrFlags::empty()) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("skipped: this filesystem has no user xattrs ({e})");
            return;
        }
    }
    let run = sb.apply(&[], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let mut value = [0u8; 16];
    let len = rustix::fs::getxattr(&path, name, &mut value[..]).unwrap();
    assert_eq!(&value[..len], b"kept");
}

#[test]
fn a_read_only_file_is_refused_unless_forced() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let path = sb.root.join("a.txt");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = sb.apply(&[], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("read-only (mode 0444)"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("--force"), "{}", run.stderr());
    assert_eq!(sb.read("a.txt"), "one\n");

    let run = sb.apply(&["--force"], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("a.txt"), "1\n");
    let mode = std::fs::metadata(&path).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o444);
}

/// A tree read-only as a whole (folders too, as copied from read-only
/// media) protects no file in particular: the system decides, and root may
/// write it.
#[test]
fn a_read_only_tree_is_left_to_the_system() {
    if !is_root() {
        eprintln!("skipped: only root may write into a read-only folder");
        return;
    }
    let sb = Sandbox::new(&[("src/a.txt", "one\n")]);
    let read_only =
        |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
    read_only(&sb.root.join("src/a.txt"), 0o444).unwrap();
    read_only(&sb.root.join("src"), 0o555).unwrap();
    let run = sb.apply(&[], &sr("src/a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert_eq!(sb.read("src/a.txt"), "1\n");
    assert_eq!(sb.names(&sb.root.join("src")), ["a.txt"]);
}

// ---- Hangs and unbounded reads ---------------------------------------------

#[test]
fn a_fifo_target_is_refused_without_blocking() {
    let sb = Sandbox::new(&[]);
    mkfifo(&sb.root.join("a.txt"));
    let run = sb.apply(&[], &sr("a.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 1, "{}", run.stderr());
    assert!(
        run.messages().contains("is a FIFO, not a regular file"),
        "{}",
        run.messages()
    );
}

#[test]
fn a_device_target_is_refused_without_reading_it() {
    if !is_root() {
        eprintln!("skipped: making a device node needs root");
        return;
    }
    let sb = Sandbox::new(&[]);
    mknod_char(&sb.root.join("zero.txt"), 1, 5);
    let run = sb.apply(&[], &sr("zero.txt", "one\n", "1\n"));
    assert_eq!(run.code(), 1, "{}", run.stderr());
    assert!(
        run.messages().contains("character device"),
        "{}",
        run.messages()
    );
    let meta = sb.root.join("zero.txt").symlink_metadata().unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(
        &meta.file_type()
    ));
}

#[test]
fn snapshot_files_that_are_fifos_or_devices_are_refused() {
    let sb = Sandbox::new(&[("a.txt", "a\n")]);
    let store = ContextStore::new(&sb.root);
    let files = [(ws_path(&sb.root, "a.txt"), "a\n".to_string())];
    let dir = sb.root.join(".llm-edit/context/c");
    for planted in ["files/a.txt", "manifest.json"] {
        store.capture("c", &files).unwrap();
        std::fs::remove_file(dir.join(planted)).unwrap();
        mkfifo(&dir.join(planted));
        let store = store.clone();
        let loaded = within_limit(move || store.load("c"));
        assert!(loaded.is_err(), "{planted}");
    }
    // A symlink to /dev/zero is not followed (it would be read forever).
    store.capture("c", &files).unwrap();
    std::fs::remove_file(dir.join("files/a.txt")).unwrap();
    symlink("/dev/zero", dir.join("files/a.txt")).unwrap();
    let store = store.clone();
    let loaded = within_limit(move || store.load("c"));
    assert!(loaded.is_err());
}

// ---- Wrong errors ----------------------------------------------------------

#[test]
fn a_full_disk_leaves_no_temporary_file_and_says_so() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let big = "x".repeat(64 * 1024) + "\n";
    let run = sb.apply_with(&[], &sr("a.txt", "one\n", &big), file_size_limit(4096));
    assert_eq!(run.code(), 2, "{}", run.stderr());
    assert!(
        run.stderr().contains("nothing was changed"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("File too large"), "{}", run.stderr());
    assert_eq!(sb.names(&sb.root), ["a.txt"]);
    assert_eq!(sb.read("a.txt"), "one\n");
}

#[test]
fn impossible_names_are_path_errors_at_plan_time() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    let nul = r#"{"name": "write_file", "arguments": {"path": "a\u0000b.txt", "content": "x\n"}}"#;
    let run = sb.apply(&[], nul);
    assert_eq!(run.kinds(), ["parse"]);
    assert!(run.messages().contains("NUL byte"), "{}", run.messages());

    let long = "n".repeat(300) + ".txt";
    let write =
        format!(r#"{{"name": "write_file", "arguments": {{"path": "{long}", "content": "x\n"}}}}"#);
    let run = sb.apply(&[], &write);
    assert_eq!(run.kinds(), ["parse"]);
    assert!(
        run.messages().contains("name too long"),
        "{}",
        run.messages()
    );

    let moved = format!(
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: {long}\n@@\n-one\n+1\n*** End Patch\n"
    );
    let run = sb.apply(&["--dry-run"], &moved);
    assert_eq!(run.code(), 1, "{}", run.stderr());
    assert_eq!(run.kinds(), ["parse"]);
    assert!(
        run.messages().contains("name too long"),
        "{}",
        run.messages()
    );
    assert_eq!(sb.names(&sb.root), ["a.txt"]);
}

#[test]
fn a_utf32_file_is_binary() {
    let sb = Sandbox::new(&[]);
    let mut bytes = vec![0xFF, 0xFE, 0, 0];
    for c in "one\n".chars() {
        bytes.extend_from_slice(&(c as u32).to_le_bytes());
    }
    std::fs::write(sb.root.join("u.txt"), &bytes).unwrap();
    let run = sb.apply(&[], &sr("u.txt", "one\n", "1\n"));
    assert_eq!(run.kinds(), ["binary"]);
    assert!(run.messages().contains("UTF-32"), "{}", run.messages());
}
