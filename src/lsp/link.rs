//! The listening end of the agent link ([`crate::agent::link`]): a Unix
//! socket in the workspace's state folder through which an agent shell
//! (the MCP server) hands edits to this server, to be planned against the
//! open buffers and sent to the editor as `workspace/applyEdit`.
//!
//! The socket is bound once the workspace root is known (`initialized`),
//! through a no-follow handle of `.llm-edit/` (`/proc/self/fd/<fd>/…`),
//! mode 0600 from the start (the socket's own mode is set before `bind`,
//! which gives it to the file), and removed when the server stops, only
//! while it is still ours (same device and inode). A socket already there:
//! nobody answering (a server that crashed) → replaced; another live
//! server of this root → this newer one takes over (the user opened this
//! editor last) and the older one stops listening when it sees its socket
//! file gone or replaced; anything else (not a socket, another user's) is
//! left alone and the link is off.
//!
//! Each connection: the peer must run as our user (`SO_PEERCRED`), then
//! one request line (bounded, under a read timeout), one answer line. The
//! listener and each connection are tokio tasks: nothing here blocks the
//! editor's requests.

use std::ffi::OsStr;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::time::Duration;

use rustix::fs::{FileType, Mode};
use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

use crate::agent::link::{
    path_through, peer_is_same_user, LinkFailure, LinkRequest, MAX_REQUEST_BYTES, SOCKET,
};
use crate::context;
use crate::disk::{Dir, RootDir};
use crate::lsp::server::Backend;

/// How long a connection may take to send its request line.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the answer may take to be written.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the listener checks that the socket file is still its own.
const OWNERSHIP_CHECK: Duration = Duration::from_secs(2);

/// The socket file this server bound: its folder and identity.
#[derive(Debug)]
struct SocketFile {
    state: Dir,
    dev: u64,
    ino: u64,
}

impl SocketFile {
    /// Whether `lsp.sock` is still the file this server bound.
    fn still_ours(&self) -> bool {
        matches!(
            self.state.stat(OsStr::new(SOCKET)),
            Ok(Some(st)) if st.st_dev == self.dev && st.st_ino == self.ino
        )
    }

    /// Removes `lsp.sock` when it is still ours (a newer server's is left).
    fn remove(&self) {
        if self.still_ours() {
            if let Err(e) = self.state.remove_file(OsStr::new(SOCKET)) {
                tracing::warn!(error = %e, "cannot remove the agent link socket");
            }
        }
    }
}

/// A running listener; stopping it (or dropping it) ends the accept loop
/// and removes the socket file when it is still ours.
#[derive(Debug)]
pub struct Listener {
    stop: watch::Sender<bool>,
    file: SocketFile,
}

impl Listener {
    /// Stops listening and removes the socket file (when still ours).
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        self.file.remove();
    }
}

/// Binds the socket of `root` and starts serving it; `Err` says why the
/// link is off (the server works on without it).
pub fn start(backend: Backend, root: &Path) -> Result<Listener, String> {
    let root = RootDir::open(root).map_err(|e| format!("cannot open the workspace root: {e}"))?;
    let state = context::state_dir(&root)
        .map_err(|e| format!("{}/{}: {e}", root.path().display(), context::STATE_DIR))?;
    let (listener, file) = bind(state).map_err(|e| {
        format!(
            "{}/{}/{SOCKET}: {e}",
            root.path().display(),
            context::STATE_DIR
        )
    })?;
    let listener = UnixListener::from_std(std::os::unix::net::UnixListener::from(listener))
        .map_err(|e| format!("cannot listen: {e}"))?;
    let (stop, stopped) = watch::channel(false);
    let watcher = SocketFile {
        state: file
            .state
            .try_clone()
            .map_err(|e| format!("cannot keep the state folder open: {e}"))?,
        dev: file.dev,
        ino: file.ino,
    };
    tokio::spawn(accept_loop(backend, listener, stopped, watcher));
    Ok(Listener { stop, file })
}

/// Creates the listening socket at `lsp.sock` in `state`.
fn bind(state: Dir) -> io::Result<(OwnedFd, SocketFile)> {
    let name = OsStr::new(SOCKET);
    match state.stat(name)? {
        None => {}
        Some(st) if FileType::from_raw_mode(st.st_mode) != FileType::Socket => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "exists and is not a socket; left alone",
            ));
        }
        Some(st) if st.st_uid != rustix::process::geteuid().as_raw() => {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "is another user's socket; left alone",
            ));
        }
        Some(_) => {
            match std::os::unix::net::UnixStream::connect(path_through(&state, SOCKET)) {
                Ok(_) => tracing::info!(
                    "another language server listens for this root; this one takes the agent link over"
                ),
                Err(_) => tracing::info!("replacing a stale agent link socket"),
            }
            state.remove_file(name)?;
        }
    }
    let socket = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )?;
    // Linux gives a bound socket file the socket's own mode (less the
    // umask): 0600 from its first instant.
    rustix::fs::fchmod(&socket, Mode::from_raw_mode(0o600))?;
    let address = SocketAddrUnix::new(path_through(&state, SOCKET).as_os_str())?;
    rustix::net::bind(&socket, &address)?;
    let st = state
        .stat(name)?
        .filter(|st| FileType::from_raw_mode(st.st_mode) == FileType::Socket)
        .ok_or_else(|| io::Error::other("the socket file vanished after bind"))?;
    let file = SocketFile {
        state,
        dev: st.st_dev,
        ino: st.st_ino,
    };
    if st.st_mode & 0o077 != 0 {
        // Not Linux's behaviour: refuse rather than listen on a socket
        // others may reach (the peer check would still stop them).
        file.remove();
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the socket got mode {:o}, not 0600", st.st_mode & 0o777),
        ));
    }
    if let Err(e) = rustix::net::listen(&socket, 64) {
        file.remove();
        return Err(e.into());
    }
    Ok((socket, file))
}

async fn accept_loop(
    backend: Backend,
    listener: UnixListener,
    mut stopped: watch::Receiver<bool>,
    file: SocketFile,
) {
    let mut check = tokio::time::interval(OWNERSHIP_CHECK);
    loop {
        tokio::select! {
            _ = stopped.changed() => break,
            _ = check.tick() => {
                if !file.still_ours() {
                    tracing::info!("the agent link socket was removed or taken over; this server stops listening");
                    break;
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(serve_connection(backend.clone(), stream));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "agent link: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// One connection: credentials, one request line, one answer line.
async fn serve_connection(backend: Backend, stream: UnixStream) {
    match peer_is_same_user(&stream) {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!("agent link: a process of another user connected; refused");
            return;
        }
        Err(e) => {
            tracing::warn!(error = %e, "agent link: cannot read the peer's credentials; refused");
            return;
        }
    }
    let (read, mut write) = stream.into_split();
    let answer = match tokio::time::timeout(READ_TIMEOUT, read_request(read)).await {
        Err(_) => Err(LinkFailure::refused(format!(
            "no request line within {} s",
            READ_TIMEOUT.as_secs()
        ))),
        Ok(Err(e)) => Err(LinkFailure::refused(e)),
        Ok(Ok(request)) => backend.agent_request(request).await,
    };
    let mut line = match answer {
        Ok(outcome) => serde_json::to_vec(&outcome),
        Err(failure) => serde_json::to_vec(&failure),
    }
    .unwrap_or_else(|e| format!("{{\"error\":\"cannot serialize the answer: {e}\"}}").into_bytes());
    line.push(b'\n');
    let written = tokio::time::timeout(WRITE_TIMEOUT, async {
        write.write_all(&line).await?;
        write.shutdown().await
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        tracing::warn!("agent link: the answer could not be written (the agent went away)");
    }
}

/// Reads and parses one request line.
async fn read_request(read: tokio::net::unix::OwnedReadHalf) -> Result<LinkRequest, String> {
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64 + 1));
    let mut line = Vec::new();
    reader
        .read_until(b'\n', &mut line)
        .await
        .map_err(|e| format!("cannot read the request: {e}"))?;
    if line.len() > MAX_REQUEST_BYTES {
        return Err(format!(
            "the request is over {} MiB; refused",
            MAX_REQUEST_BYTES >> 20
        ));
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("empty request: send one JSON line".into());
    }
    serde_json::from_slice(&line).map_err(|e| format!("malformed request: {e}"))
}
