//! A raw JSON-RPC client of the real `llm-edit-lsp` binary: it writes any
//! bytes to the server's stdin and reads its framed output, with a time
//! limit on every wait, so a dead or hung server fails the test instead of
//! blocking it.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one wait lasts.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The server process and its workspace.
pub struct RawServer {
    child: Child,
    input: Option<mpsc::Sender<Vec<u8>>>,
    output: mpsc::Receiver<Value>,
    /// Messages received and not consumed yet.
    unread: Vec<Value>,
    next_id: i64,
    /// The workspace root (canonical).
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

impl RawServer {
    /// Starts the binary on a workspace holding `files`, and initializes it
    /// (a client that can apply workspace edits, UTF-16 positions).
    pub fn start(files: &[(&str, &str)]) -> RawServer {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            std::fs::write(root.join(path), text).unwrap();
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let (input, to_write) = mpsc::channel::<Vec<u8>>();
        // Writes never block the test, even when the server stops reading.
        std::thread::spawn(move || {
            for bytes in to_write {
                if stdin
                    .write_all(&bytes)
                    .and_then(|()| stdin.flush())
                    .is_err()
                {
                    return;
                }
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (received, output) = mpsc::channel();
        std::thread::spawn(move || read_frames(BufReader::new(stdout), &received));
        let mut server = RawServer {
            child,
            input: Some(input),
            output,
            unread: Vec::new(),
            next_id: 1,
            root,
            _dir: dir,
        };
        let root_uri = server.uri("");
        let capabilities = json!({"workspace": {"applyEdit": true}});
        let id = server.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri.trim_end_matches('/'),
                   "capabilities": capabilities}),
        );
        server.response(id);
        server.notify("initialized", json!({}));
        server
    }

    /// Writes raw bytes to the server's stdin.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(input) = &self.input {
            let _ = input.send(bytes.to_vec());
        }
    }

    /// Writes one framed message.
    pub fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Sends a request; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Answers a request of the server.
    pub fn respond(&mut self, id: &Value, result: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// Closes stdin.
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// The `file:` URI of a workspace path.
    pub fn uri(&self, path: &str) -> String {
        format!("file://{}/{path}", self.root.display())
    }

    /// `didOpen` of a workspace file.
    pub fn open(&mut self, path: &str, version: i32, text: &str) {
        let item = json!({"uri": self.uri(path), "languageId": "plaintext",
                          "version": version, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": item}));
    }

    /// `didClose` of a workspace file.
    pub fn close(&mut self, path: &str) {
        let id = json!({"uri": self.uri(path)});
        self.notify("textDocument/didClose", json!({"textDocument": id}));
    }

    /// `workspace/executeCommand`; returns the request id.
    pub fn command(&mut self, command: &str, argument: Value) -> i64 {
        self.request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": [argument]}),
        )
    }

    /// The first message matching `pred`, waiting up to `limit`; `None`
    /// when none came (or the server closed its output).
    pub fn wait_for(&mut self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(at) = self.unread.iter().position(&pred) {
            return Some(self.unread.remove(at));
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let message = self.output.recv_timeout(left).ok()?;
            if pred(&message) {
                return Some(message);
            }
            self.unread.push(message);
        }
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        let is_it = |m: &Value| m["id"] == id && m.get("method").is_none();
        self.wait_for(TIMEOUT, is_it)
            .unwrap_or_else(|| panic!("no response to request {id} within {TIMEOUT:?}"))
    }

    /// The result of request `id` (panics on an error response).
    pub fn result(&mut self, id: i64) -> Value {
        let response = self.response(id);
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// The server's exit status, waiting up to `limit`.
    pub fn exit_status(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses the server's output frames until it ends.
fn read_frames(mut out: impl BufRead, received: &mpsc::Sender<Value>) {
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length: ") {
                length = value.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length.expect("the server frames its output")];
        if out.read_exact(&mut body).is_err() {
            return;
        }
        let message = serde_json::from_slice(&body).expect("the server writes JSON");
        if received.send(message).is_err() {
            return;
        }
    }
}

/// Applies LSP text edits (ASCII text, so UTF-16 positions are bytes).
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let character = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + character
    };
    let mut ranges: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let range = &e["range"];
            (
                offset(&range["start"]),
                offset(&range["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut out = text.to_owned();
    for (start, end, new) in ranges {
        out.replace_range(start..end, new);
    }
    out
}
