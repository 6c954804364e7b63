//! The transport in front of tower-lsp-server: the server survives any
//! byte sequence on its input.
//!
//! ```text
//! client ─▶ FrameReader ─▶ message::check ─ok─▶ duplex ─▶ tower-lsp-server
//!                               │ refused                      │
//!                               ▼                              ▼
//!                     error response ─▶ one writer ◀─ frames ◀─ duplex
//!                                           │
//!                                        client
//! ```
//!
//! The protocol layer's own reader stops for good at the first message it
//! cannot decode, so it only ever sees messages [`message::check`] passed,
//! re-framed. A malformed frame or message is answered here with the
//! JSON-RPC error the specification names, written through the same single
//! writer as the server's output, so frames never interleave. Nothing the
//! client sends ends the server except `exit` (after `shutdown`: status 0,
//! without: 1, as the LSP specification says) and the end of the input.

pub mod frame;
pub mod message;

use std::future::Future;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

pub use frame::Limits;
use frame::{Frame, FrameReader};
use message::Rejected;

/// How the client ended the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown`.
    Exit,
    /// `exit` without `shutdown`.
    ExitWithoutShutdown,
    /// The input ended (the client is gone).
    EndOfInput {
        /// `shutdown` had been received.
        after_shutdown: bool,
    },
}

impl Ending {
    /// The process exit status: 0 only when `shutdown` came first.
    pub fn exit_code(self) -> u8 {
        match self {
            Ending::Exit
            | Ending::EndOfInput {
                after_shutdown: true,
            } => 0,
            Ending::ExitWithoutShutdown
            | Ending::EndOfInput {
                after_shutdown: false,
            } => 1,
        }
    }
}

/// Buffer of each in-memory pipe to and from the protocol layer.
const PIPE_BYTES: usize = 64 * 1024;
/// How long requests still running when the client ended may write their
/// answers.
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// Runs `server` (the protocol layer, given its input and output pipes)
/// behind the checks, until the client ends the session.
pub async fn run<R, W, S, F>(reader: R, writer: W, limits: Limits, server: S) -> Ending
where
    R: AsyncRead + Unpin,
    W: AsyncWrite,
    S: FnOnce(DuplexStream, DuplexStream) -> F,
    F: Future<Output = ()>,
{
    let (to_server, server_input) = tokio::io::duplex(PIPE_BYTES);
    let (server_output, from_server) = tokio::io::duplex(PIPE_BYTES);
    let (frames, outgoing) = mpsc::channel(64);
    let server_frames = frames.clone();
    let serving = async move {
        tokio::join!(
            server(server_input, server_output),
            forward_output(from_server, server_frames),
            write_frames(writer, outgoing),
        );
    };
    tokio::pin!(serving);
    let ending = tokio::select! {
        ending = read_client(reader, limits, to_server, frames) => ending,
        _ = &mut serving => Ending::EndOfInput { after_shutdown: false },
    };
    if tokio::time::timeout(DRAIN_TIME, serving).await.is_err() {
        tracing::warn!("requests still running when the client ended were dropped");
    }
    ending
}

/// Reads the client's frames; forwards the valid messages, answers the
/// others. Returns when the client ends the session.
async fn read_client<R: AsyncRead + Unpin>(
    reader: R,
    limits: Limits,
    mut to_server: DuplexStream,
    out: mpsc::Sender<Vec<u8>>,
) -> Ending {
    let mut frames = FrameReader::new(reader, limits);
    let mut after_shutdown = false;
    while let Some(frame) = frames.next().await {
        let checked = match frame {
            Frame::Malformed(why) => Err(Rejected::bad_frame(why)),
            Frame::Message(body) => message::check(&body),
        };
        let incoming = match checked {
            Ok(incoming) => incoming,
            Err(rejected) => {
                tracing::warn!(
                    code = rejected.code,
                    why = rejected.message,
                    "refused a message"
                );
                // The writer outlives this reader: sending cannot fail.
                let _ = out.send(framed(&rejected.response())).await;
                continue;
            }
        };
        if to_server.write_all(&framed(&incoming.json)).await.is_err() {
            break;
        }
        match incoming.method.as_deref() {
            Some("shutdown") if incoming.has_id => after_shutdown = true,
            Some("exit") if after_shutdown => return Ending::Exit,
            Some("exit") => return Ending::ExitWithoutShutdown,
            _ => {}
        }
    }
    Ending::EndOfInput { after_shutdown }
}

/// Cuts the protocol layer's output into frames for the one writer.
async fn forward_output(from_server: DuplexStream, out: mpsc::Sender<Vec<u8>>) {
    let limits = Limits {
        message: usize::MAX,
        ..Limits::default()
    };
    let mut frames = FrameReader::new(from_server, limits);
    while let Some(frame) = frames.next().await {
        match frame {
            Frame::Message(body) => {
                if out.send(framed(&body)).await.is_err() {
                    return;
                }
            }
            Frame::Malformed(why) => tracing::error!(why, "the protocol layer wrote a bad frame"),
        }
    }
}

/// The one writer: whole frames, in order. When the client stops reading,
/// frames are still taken (and dropped), so the server never blocks.
async fn write_frames<W: AsyncWrite>(writer: W, mut frames: mpsc::Receiver<Vec<u8>>) {
    tokio::pin!(writer);
    let mut open = true;
    while let Some(frame) = frames.recv().await {
        if open {
            open = writer.write_all(&frame).await.is_ok() && writer.flush().await.is_ok();
            if !open {
                tracing::warn!("the client's input is closed; dropping the server's output");
            }
        }
    }
}

/// `body` with its `Content-Length` header.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}
