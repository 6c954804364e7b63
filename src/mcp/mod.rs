//! `llm-edit-lsp mcp`: a Model Context Protocol server over stdio, on the
//! official Rust SDK (rmcp). A shell like `cli/` and `lsp/`: tools become
//! payloads for `engine::run`, results are [`crate::agent::AgentOutcome`]s.
//! Only this module names `rmcp`.
//!
//! ```text
//! stdin ─▶ front (JSON checks: -32700 / -32600 answered here) ─▶ rmcp ─▶ server::Server
//!            ─▶ session::Session (roots, reads) ─▶ engine::run ─▶ write | agent::link
//! stdout ◀─ one writer: rmcp's messages and the front's errors, a line each
//! ```
//!
//! - `session.rs`: the tools without the protocol (testable in process).
//! - `tools.rs`: the tool list (descriptions, schemas, annotations).
//! - `server.rs`: the rmcp handler (tools, prompts = the format kits,
//!   roots from `roots/list`).
//! - `roots.rs`: which root a path is under.

pub mod roots;
pub mod server;
pub mod session;
pub mod tools;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use session::{Config, Session, ToolReply};

/// The longest JSON-RPC message read (a line): room for a payload of
/// [`crate::parse::MAX_PAYLOAD_BYTES`] escaped as a JSON string. Longer
/// lines are answered `-32600` and skipped.
pub const MAX_MESSAGE_BYTES: usize = 2 * crate::parse::MAX_PAYLOAD_BYTES + (1 << 20);

/// Serves MCP over stdio until the client closes stdin.
pub fn serve(config: Config) -> anyhow::Result<std::process::ExitCode> {
    let session = Session::new(config).map_err(anyhow::Error::msg)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve_on(session, tokio::io::stdin(), tokio::io::stdout()));
    // The blocking read of stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_background();
    result?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Serves one connection over `input`/`output` (newline-delimited JSON-RPC)
/// until `input` ends.
pub async fn serve_on<R, W>(session: Session, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    use rmcp::ServiceExt;

    let (to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let (lines, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();

    // One writer for everything on stdout, a line at a time.
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = outgoing.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    // rmcp's messages, line by line.
    let relay = {
        let lines = lines.clone();
        tokio::spawn(async move {
            let mut from_server = BufReader::new(from_server);
            let mut line = Vec::new();
            loop {
                line.clear();
                match from_server.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if lines.send(line.clone()).is_err() {
                            break;
                        }
                    }
                }
            }
        })
    };
    let front = tokio::spawn(front(BufReader::new(input), to_server, lines));

    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(server_in, server_out)
        .with_max_line_length(MAX_MESSAGE_BYTES);
    let result = match server::Server::new(session).serve(transport).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(anyhow::Error::from),
        Err(e) => Err(anyhow::anyhow!("the MCP session did not start: {e}")),
    };
    front.abort();
    let _ = relay.await;
    let _ = writer.await;
    result
}

/// Reads the client's messages: lines that are not JSON-RPC 2.0 objects are
/// answered here (`-32700` parse error, `-32600` invalid request, with
/// `id: null` when none can be read) and never reach rmcp, nor do
/// notifications and responses before `initialize` (which would end its
/// handshake). Everything else is passed on as it came.
async fn front<R, W>(mut input: R, mut to_server: W, replies: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut initialized = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let too_long = match read_line(&mut input, &mut line, MAX_MESSAGE_BYTES).await {
            Ok(None) => break,
            Ok(Some(too_long)) => too_long,
            Err(_) => break,
        };
        let reply = if too_long {
            Some(error(
                Value::Null,
                -32600,
                &format!("the message is longer than {MAX_MESSAGE_BYTES} bytes; it was skipped"),
            ))
        } else {
            let text = trim_line(&line);
            if text.is_empty() {
                continue;
            }
            match check(text, initialized) {
                Check::Pass { initialize } => {
                    initialized |= initialize;
                    if to_server.write_all(text).await.is_err()
                        || to_server.write_all(b"\n").await.is_err()
                    {
                        break;
                    }
                    let _ = to_server.flush().await;
                    None
                }
                Check::Drop => None,
                Check::Reply(reply) => Some(reply),
            }
        };
        if let Some(reply) = reply {
            let mut bytes = reply.to_string().into_bytes();
            bytes.push(b'\n');
            if replies.send(bytes).is_err() {
                break;
            }
        }
    }
    let _ = to_server.shutdown().await;
}

/// What the front does with one line.
enum Check {
    /// Hand it to rmcp (`initialize`: it is the handshake's request).
    Pass { initialize: bool },
    /// Ignore it (a notification or response before the handshake).
    Drop,
    /// Answer this error.
    Reply(Value),
}

fn check(text: &[u8], initialized: bool) -> Check {
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(e) => return Check::Reply(error(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    let Value::Object(message) = &value else {
        let what = if value.is_array() {
            "batches are not supported: send one message per line"
        } else {
            "a message must be a JSON object"
        };
        return Check::Reply(error(Value::Null, -32600, what));
    };
    let id = message.get("id").cloned();
    let valid_id = match &id {
        None => true,
        Some(Value::String(_) | Value::Number(_)) => true,
        Some(_) => false,
    };
    if message.get("jsonrpc") != Some(&json!("2.0")) || !valid_id {
        let id = if valid_id {
            id.unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        return Check::Reply(error(
            id,
            -32600,
            "invalid request: a JSON-RPC 2.0 message has \"jsonrpc\": \"2.0\" and a string or number id",
        ));
    }
    let method = message.get("method").and_then(Value::as_str);
    match (method, &id) {
        (Some("initialize"), Some(_)) => Check::Pass { initialize: true },
        (Some(_), Some(_)) => Check::Pass { initialize: false },
        _ if !initialized => Check::Drop,
        _ => Check::Pass { initialize: false },
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.trim_ascii()
}

/// Reads one line into `line` (without letting it grow past `limit`):
/// `None` at the end of input, `Some(true)` when the line was longer than
/// `limit` (its bytes are skipped).
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |i| i + 1);
        if !too_long {
            if line.len() + take > limit {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..take]);
            }
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(Some(too_long));
        }
    }
}
