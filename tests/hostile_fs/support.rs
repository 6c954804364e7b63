//! A workspace in a temporary folder with a folder "outside" it, and the
//! CLI run on it with a time limit (a hang fails the test).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long one CLI run may take.
pub const TIME_LIMIT: Duration = Duration::from_secs(20);

/// `root/` (the workspace) and `outside/` side by side.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
}

impl Sandbox {
    pub fn new(files: &[(&str, &str)]) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, outside) = (base.join("root"), base.join("outside"));
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let sandbox = Sandbox {
            _dir: dir,
            root,
            outside,
        };
        for (path, text) in files {
            sandbox.write(path, text);
        }
        sandbox
    }

    /// Writes a file under the root (creating folders).
    pub fn write(&self, path: &str, text: &str) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// A file under the root, as text.
    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }

    /// Writes a file outside the root; returns its path.
    pub fn outside_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.outside.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The names in a folder (sorted).
    pub fn names(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// `apply --json --root ROOT ARGS -`, `payload` on stdin.
    pub fn apply(&self, args: &[&str], payload: &str) -> Run {
        self.apply_with(args, payload, |_| {})
    }

    /// [`Sandbox::apply`] with the command adjusted first (environment,
    /// limits), and `before_payload` run once the process exists but has not
    /// read its payload yet (it waits on stdin).
    pub fn apply_with(
        &self,
        args: &[&str],
        payload: &str,
        setup: impl FnOnce(&mut Command),
    ) -> Run {
        self.apply_racing(args, payload, setup, |_| {})
    }

    pub fn apply_racing(
        &self,
        args: &[&str],
        payload: &str,
        setup: impl FnOnce(&mut Command),
        before_payload: impl FnOnce(u32),
    ) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"));
        command
            .arg("apply")
            .arg("--json")
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        setup(&mut command);
        let mut child = command.spawn().unwrap();
        before_payload(child.id());
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(payload.as_bytes());
        drop(stdin);
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > TIME_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the CLI did not finish within {TIME_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Run(child.wait_with_output().unwrap())
    }
}

/// Whether the CLI under test honours [`after_plan`]: only debug builds
/// do (a release binary runs no command from its environment), and the
/// CLI is built with the tests' own profile.
pub fn hook_available() -> bool {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: the between-plan-and-write hook exists in debug builds only");
    }
    cfg!(debug_assertions)
}

/// Runs `command` (a shell command) between planning and writing: the
/// debug-build test hook of the CLI.
pub fn after_plan(command: String) -> impl FnOnce(&mut Command) {
    move |c: &mut Command| {
        c.env("LLM_EDIT_TEST_AFTER_PLAN", command);
    }
}

/// Limits the size of files the CLI may write (a full disk), ignoring the
/// signal so that the write fails with `EFBIG` instead.
pub fn file_size_limit(bytes: u64) -> impl FnOnce(&mut Command) {
    move |c: &mut Command| {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            c.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// One CLI run.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    /// The JSON report (exit 0 or 1).
    pub fn report(&self) -> Value {
        serde_json::from_slice(&self.0.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: stdout {} stderr {}",
                String::from_utf8_lossy(&self.0.stdout),
                self.stderr()
            )
        })
    }

    /// The kinds of the report's errors.
    pub fn kinds(&self) -> Vec<String> {
        self.report()["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The messages of the report's errors, joined.
    pub fn messages(&self) -> String {
        self.report()["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["message"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A SEARCH/REPLACE block.
pub fn sr(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n")
}

/// Whether the tests run as root (ownership, device nodes).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes a FIFO.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Makes a character device node (root only): `(major, minor)`.
pub fn mknod_char(path: &Path, major: u32, minor: u32) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let dev = libc::makedev(major, minor);
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, dev) },
        0
    );
}

/// Runs the CLI as user and group `id` (the caller must be root; the
/// standard library drops the supplementary groups).
pub fn as_user(id: u32) -> impl FnOnce(&mut Command) {
    move |c: &mut Command| {
        c.uid(id).gid(id);
    }
}
