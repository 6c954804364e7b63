//! The editor link: how an agent shell (the MCP server) hands a payload to
//! a language server of this project running for the same root, so that
//! the edits are planned against the editor's unsaved buffers and land in
//! them as `workspace/applyEdit`.
//!
//! The language server listens on a Unix socket in the workspace's state
//! folder ([`SOCKET`] under `.llm-edit/`), owner-only, and checks each
//! peer's credentials (same user). One request per connection: a
//! [`LinkRequest`] as one JSON line, answered by one JSON line, the
//! [`crate::agent::AgentOutcome`] (route `editor`) or a [`LinkError`].
//!
//! Without a socket (no editor open on the root, or it runs elsewhere)
//! [`connect`] returns `None` and the agent shell writes to disk.
//!
//! Both ends reach the socket from a no-follow handle of the state folder
//! ([`crate::disk`]): the path given to `bind`/`connect` is
//! `/proc/self/fd/<folder>/lsp.sock`, short whatever the root's length,
//! and no symlink a repository ships (`.llm-edit` → elsewhere) is
//! followed. The client connects only to a socket owned by its own user
//! and checks the listening process's credentials too.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rustix::fs::FileType;
use serde::{Deserialize, Serialize};

use crate::context::STATE_DIR;
use crate::disk::{Dir, RootDir};
use crate::retry::Voice;

/// The socket's name inside the state folder (`.llm-edit/`).
pub const SOCKET: &str = "lsp.sock";

/// One agent call sent to the language server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkRequest {
    /// The payload, in any format the engine reads.
    pub payload: String,
    /// Only this format (`None` or `auto`: detect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Plan only: return what would change, apply nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Apply what resolved even when other edits failed.
    #[serde(default)]
    pub partial: bool,
    /// `~M` policy: `merge`, `refuse` or `overwrite` (`None`: the server's
    /// setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_conflict: Option<String>,
    /// The text of each file as the agent read it (workspace-relative
    /// path → text): the snapshot a `~M` merge is made against. A file
    /// not in it is edited as the buffer (or disk) reads now.
    #[serde(default)]
    pub snapshot: BTreeMap<String, String>,
    /// Who sent the payload (the agent's tool and what to show of each
    /// edit), so that the retry prompt speaks of its call; a response by
    /// default.
    #[serde(default)]
    pub voice: Voice,
}

/// Why the link could not carry a request (the agent shell then says so,
/// or falls back to disk where that is safe: only when nothing was sent).
#[derive(Debug)]
pub enum LinkError {
    /// Nothing was sent: the socket refused, or went away before the
    /// request was written. Safe to fall back to disk.
    NotSent(std::io::Error),
    /// The request was sent but no answer came (time out, broken pipe):
    /// the editor may or may not have applied it. Never fall back.
    NoAnswer(std::io::Error),
    /// The server answered with an error.
    Refused(String),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::NotSent(e) => {
                write!(f, "the editor's language server is not reachable: {e}")
            }
            LinkError::NoAnswer(e) => write!(
                f,
                "the editor's language server did not answer ({e}); the edit may or may not \
                 have been applied: read the file again before retrying"
            ),
            LinkError::Refused(m) => {
                write!(f, "the editor's language server refused the request: {m}")
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// The longest request line the server reads: a payload at the engine's
/// limit, JSON-escaped, with snapshot texts beside it.
pub const MAX_REQUEST_BYTES: usize = 2 * crate::parse::MAX_PAYLOAD_BYTES + (1 << 20);

/// The longest answer line the client reads (diffs of large files).
pub const MAX_ANSWER_BYTES: usize = 4 * crate::parse::MAX_PAYLOAD_BYTES;

/// How long the client waits for the request to be written.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the client waits for the answer by default: the server's own
/// bounds (the run's deadline, then `workspace/applyEdit` under its
/// timeout) are well within it.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// The answer line of a request the server could not carry out (instead of
/// an [`crate::agent::AgentOutcome`]).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkFailure {
    /// What went wrong.
    pub error: String,
    /// The edit was sent to the editor, which did not answer in time: it
    /// may or may not have been applied.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub maybe_applied: bool,
}

impl LinkFailure {
    /// A refusal: nothing was sent to the editor.
    pub fn refused(error: impl Into<String>) -> LinkFailure {
        LinkFailure {
            error: error.into(),
            maybe_applied: false,
        }
    }
}

/// The path that reaches `name` in the folder `dir` through its handle
/// (`/proc/self/fd/<fd>/<name>`): no symlink on the way is followed, and
/// it fits in a socket address whatever the folder's real path.
pub fn path_through(dir: &impl AsFd, name: &str) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}/{name}", dir.as_fd().as_raw_fd()))
}

/// Whether the process at the other end of a Unix socket runs as our user
/// (`SO_PEERCRED`, recorded by the kernel when the peer connected or
/// listened).
pub fn peer_is_same_user(socket: &impl AsFd) -> io::Result<bool> {
    let peer = rustix::net::sockopt::socket_peercred(socket)?;
    Ok(same_user(
        peer.uid.as_raw(),
        rustix::process::geteuid().as_raw(),
    ))
}

/// The credential rule: only the very user the server runs as (root
/// included: another user's socket is not trusted by root either).
pub fn same_user(peer_uid: u32, own_uid: u32) -> bool {
    peer_uid == own_uid
}

/// Why there is no usable socket in a state folder.
fn unusable(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, what.to_owned())
}

/// Connects to the socket in the state folder `state`: it must be a
/// socket (not followed when a symlink), owned by our user, listened on
/// by a process of our user.
fn connect_in(state: &Dir) -> io::Result<UnixStream> {
    let st = state
        .stat(OsStr::new(SOCKET))?
        .ok_or_else(|| unusable("no socket"))?;
    if FileType::from_raw_mode(st.st_mode) != FileType::Socket {
        return Err(unusable("not a socket"));
    }
    if !same_user(st.st_uid, rustix::process::geteuid().as_raw()) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the socket belongs to another user",
        ));
    }
    let stream = UnixStream::connect(path_through(state, SOCKET))?;
    if !peer_is_same_user(&stream)? {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the listening process runs as another user",
        ));
    }
    Ok(stream)
}

/// A connection to the language server of `root`, when one listens.
pub struct EditorLink {
    /// The state folder (no-follow handle), to connect again.
    state: Dir,
    /// The connection opened by [`connect`], used by the first request.
    stream: Mutex<Option<UnixStream>>,
    answer_timeout: Duration,
}

/// The language server listening for `root`, or `None` when none does: no
/// state folder (or a symlink there), no socket, one that is not a socket
/// of ours, or nobody listening (a server that crashed left it).
pub fn connect(root: &Path) -> Option<EditorLink> {
    let root = RootDir::open(root).ok()?;
    let state = root.dir().open_dir(OsStr::new(STATE_DIR)).ok()?;
    match connect_in(&state) {
        Ok(stream) => Some(EditorLink {
            state,
            stream: Mutex::new(Some(stream)),
            answer_timeout: ANSWER_TIMEOUT,
        }),
        Err(e) => {
            tracing::debug!(root = %root.path().display(), error = %e, "no editor link");
            None
        }
    }
}

impl EditorLink {
    /// Waits at most `timeout` for each answer (default [`ANSWER_TIMEOUT`]).
    pub fn with_answer_timeout(mut self, timeout: Duration) -> EditorLink {
        self.answer_timeout = timeout;
        self
    }

    /// Sends one request and waits for its answer: the JSON of the
    /// [`crate::agent::AgentOutcome`] the server built.
    pub fn run(&self, request: &LinkRequest) -> Result<serde_json::Value, LinkError> {
        let opened = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let mut stream = match opened {
            Some(stream) => stream,
            None => connect_in(&self.state).map_err(LinkError::NotSent)?,
        };
        let mut line = serde_json::to_vec(request)
            .map_err(|e| LinkError::NotSent(io::Error::other(e.to_string())))?;
        line.push(b'\n');
        stream
            .set_write_timeout(Some(WRITE_TIMEOUT))
            .and_then(|()| stream.set_read_timeout(Some(self.answer_timeout)))
            .map_err(LinkError::NotSent)?;
        write_request(&mut stream, &line)?;
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let answer = read_answer(stream).map_err(LinkError::NoAnswer)?;
        interpret(&answer)
    }
}

/// Writes the request line: [`LinkError::NotSent`] while no byte left.
fn write_request(stream: &mut UnixStream, line: &[u8]) -> Result<(), LinkError> {
    let mut written = 0;
    while written < line.len() {
        match stream.write(&line[written..]) {
            Ok(0) => {
                let e = io::Error::from(io::ErrorKind::WriteZero);
                return Err(if written == 0 {
                    LinkError::NotSent(e)
                } else {
                    LinkError::NoAnswer(e)
                });
            }
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if written == 0 => return Err(LinkError::NotSent(e)),
            Err(e) => return Err(LinkError::NoAnswer(e)),
        }
    }
    stream.flush().map_err(LinkError::NoAnswer)
}

/// Reads one answer line (bounded by [`MAX_ANSWER_BYTES`]).
fn read_answer(stream: UnixStream) -> io::Result<Vec<u8>> {
    let mut reader = BufReader::new(stream.take(MAX_ANSWER_BYTES as u64 + 1));
    let mut answer = Vec::new();
    reader.read_until(b'\n', &mut answer)?;
    if answer.last() != Some(&b'\n') {
        let what = if answer.len() > MAX_ANSWER_BYTES {
            "the answer is over the size limit"
        } else {
            "the connection closed before a whole answer came"
        };
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, what));
    }
    Ok(answer)
}

/// An answer line: the outcome, or a [`LinkFailure`].
fn interpret(answer: &[u8]) -> Result<serde_json::Value, LinkError> {
    let value: serde_json::Value = serde_json::from_slice(answer).map_err(|e| {
        LinkError::NoAnswer(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the answer is not JSON: {e}"),
        ))
    })?;
    if value.get("error").is_none() {
        return Ok(value);
    }
    match serde_json::from_value::<LinkFailure>(value) {
        Ok(failure) if failure.maybe_applied => Err(LinkError::NoAnswer(io::Error::new(
            io::ErrorKind::TimedOut,
            failure.error,
        ))),
        Ok(failure) => Err(LinkError::Refused(failure.error)),
        Err(e) => Err(LinkError::NoAnswer(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("an error answer of unknown shape: {e}"),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_user_passes_the_credential_check() {
        assert!(same_user(1000, 1000));
        assert!(same_user(0, 0));
        assert!(!same_user(1001, 1000));
        assert!(
            !same_user(1000, 0),
            "root does not trust another user's peer"
        );
        let (a, _b) = UnixStream::pair().unwrap();
        assert!(peer_is_same_user(&a).unwrap());
    }

    #[test]
    fn answers_are_outcomes_refusals_or_unknown() {
        let ok = interpret(b"{\"route\":\"editor\",\"applied\":true}\n").unwrap();
        assert_eq!(ok["route"], "editor");
        let refused = interpret(b"{\"error\":\"malformed request\"}\n").unwrap_err();
        assert!(matches!(refused, LinkError::Refused(m) if m == "malformed request"));
        let unknown = interpret(b"{\"error\":\"no answer\",\"maybeApplied\":true}\n");
        assert!(matches!(unknown, Err(LinkError::NoAnswer(_))));
        assert!(matches!(
            interpret(b"not json\n"),
            Err(LinkError::NoAnswer(_))
        ));
    }

    #[test]
    fn no_state_folder_or_a_symlinked_one_means_no_link() {
        let dir = tempfile::tempdir().unwrap();
        assert!(connect(dir.path()).is_none());
        let outside = tempfile::tempdir().unwrap();
        let listener = std::os::unix::net::UnixListener::bind(outside.path().join(SOCKET)).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(STATE_DIR)).unwrap();
        assert!(
            connect(dir.path()).is_none(),
            "a symlinked state folder is not followed"
        );
        std::fs::remove_file(dir.path().join(STATE_DIR)).unwrap();
        std::fs::create_dir(dir.path().join(STATE_DIR)).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join(SOCKET),
            dir.path().join(STATE_DIR).join(SOCKET),
        )
        .unwrap();
        assert!(
            connect(dir.path()).is_none(),
            "a symlinked socket is not followed"
        );
        drop(listener);
    }

    #[test]
    fn a_root_too_long_for_a_socket_address_is_reached_through_its_handle() {
        let dir = tempfile::tempdir().unwrap();
        let mut root = dir.path().to_path_buf();
        for _ in 0..4 {
            root.push("a-folder-name-long-enough-to-overflow-sun-path");
        }
        let state = root.join(STATE_DIR);
        std::fs::create_dir_all(&state).unwrap();
        assert!(state.join(SOCKET).as_os_str().len() > 108);
        let handle = Dir::open_trusted(&state).unwrap();
        let listener = std::os::unix::net::UnixListener::bind(path_through(&handle, SOCKET))
            .expect("bound through the folder's handle");
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            writeln!(&stream, "{{\"route\": \"editor\"}}").unwrap();
        });
        let link = connect(&root).expect("connected through the folder's handle");
        assert_eq!(
            link.run(&LinkRequest::default()).unwrap()["route"],
            "editor"
        );
        server.join().unwrap();
    }

    #[test]
    fn a_stale_socket_means_no_link_and_a_live_one_carries_a_request() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(STATE_DIR);
        std::fs::create_dir(&state).unwrap();
        let listener = std::os::unix::net::UnixListener::bind(state.join(SOCKET)).unwrap();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            let request: LinkRequest = serde_json::from_str(&line).unwrap();
            let answer = serde_json::json!({"route": "editor", "summary": request.payload});
            writeln!(&stream, "{answer}").unwrap();
            listener
        });
        let link = connect(dir.path()).expect("a live socket");
        let request = LinkRequest {
            payload: "p".into(),
            ..LinkRequest::default()
        };
        assert_eq!(link.run(&request).unwrap()["summary"], "p");
        drop(server.join().unwrap());
        // The listener is gone, its socket file stays: stale.
        assert!(state.join(SOCKET).exists());
        assert!(connect(dir.path()).is_none());
        // A second request on a link whose server went away: nothing sent.
        assert!(matches!(link.run(&request), Err(LinkError::NotSent(_))));
    }
}
