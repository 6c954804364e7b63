//! An in-process LSP client for the server's tests: Content-Length framing
//! over `tokio::io::duplex`, a builder for capabilities and workspace
//! files, and automatic answers to server→client requests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use llm_edit_lsp::lsp::{serve_with, ServeConfig};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::{oneshot, Notify};

/// How the client answers `workspace/applyEdit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyAnswer {
    /// Apply it to the files on disk and answer `applied: true`.
    Apply,
    /// Answer `applied: true` and leave the files alone (an editor that
    /// applies the edit to its buffers: see [`Editor`]).
    Accept,
    /// Answer `applied: false`.
    Refuse,
    /// Never answer.
    Ignore,
}

/// Builds a test server with a workspace and client capabilities.
pub struct Builder {
    files: Vec<(String, Vec<u8>)>,
    encodings: Option<Vec<String>>,
    document_changes: bool,
    resource_operations: Vec<String>,
    annotations: bool,
    init_options: Option<Value>,
    config: ServeConfig,
    apply_answer: ApplyAnswer,
    show_document: bool,
    root_alias: Option<fn(&Path) -> String>,
    prepare: Option<fn(&Path)>,
}

impl Builder {
    /// Runs `prepare` on the workspace root before the server starts
    /// (symlinks, special files).
    pub fn prepare(mut self, prepare: fn(&Path)) -> Builder {
        self.prepare = Some(prepare);
        self
    }

    /// A workspace file.
    pub fn file(mut self, path: &str, text: &str) -> Builder {
        self.files.push((path.into(), text.as_bytes().to_vec()));
        self
    }

    /// A workspace file with raw content (binary, UTF-16, …).
    pub fn file_bytes(mut self, path: &str, bytes: Vec<u8>) -> Builder {
        self.files.push((path.into(), bytes));
        self
    }

    /// `general.positionEncodings`.
    pub fn encodings(mut self, list: &[&str]) -> Builder {
        self.encodings = Some(list.iter().map(|s| s.to_string()).collect());
        self
    }

    /// `workspace.workspaceEdit.documentChanges` and `resourceOperations`.
    pub fn document_changes(mut self, on: bool, resource_operations: &[&str]) -> Builder {
        self.document_changes = on;
        self.resource_operations = resource_operations.iter().map(|s| s.to_string()).collect();
        self
    }

    /// `workspace.workspaceEdit.changeAnnotationSupport`.
    pub fn annotations(mut self, on: bool) -> Builder {
        self.annotations = on;
        self
    }

    /// `initializationOptions`.
    pub fn init_options(mut self, options: Value) -> Builder {
        self.init_options = Some(options);
        self
    }

    /// Server timing knobs.
    pub fn config(mut self, config: ServeConfig) -> Builder {
        self.config = config;
        self
    }

    /// `window.showDocument.support` (the client then opens every document
    /// it is asked to show).
    pub fn show_document(mut self, on: bool) -> Builder {
        self.show_document = on;
        self
    }

    /// How `workspace/applyEdit` is answered.
    pub fn apply_answer(mut self, answer: ApplyAnswer) -> Builder {
        self.apply_answer = answer;
        self
    }

    fn capabilities(&self) -> Value {
        let mut general = json!({});
        if let Some(list) = &self.encodings {
            general["positionEncodings"] = json!(list);
        }
        let mut edit = json!({"documentChanges": self.document_changes});
        if !self.resource_operations.is_empty() {
            edit["resourceOperations"] = json!(self.resource_operations);
        }
        if self.annotations {
            edit["changeAnnotationSupport"] = json!({"groupsOnLabel": true});
        }
        json!({"general": general, "workspace": {"workspaceEdit": edit, "applyEdit": true},
               "window": {"showDocument": {"support": self.show_document}}})
    }

    /// Sends `rootUri` as `alias` makes it from the real root (a path
    /// through a symlink, or with `..`); the client's own URIs stay real.
    pub fn root_alias(mut self, alias: fn(&Path) -> String) -> Builder {
        self.root_alias = Some(alias);
        self
    }

    /// Starts the server, initializes it and returns the client.
    pub async fn start(self) -> Client {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        self.start_in(root, Some(dir)).await
    }

    /// Starts another server on the workspace of `other` (a restart: the
    /// files on disk stay; open buffers do not).
    pub async fn start_on(self, other: &Client) -> Client {
        self.start_in(other.root.clone(), None).await
    }

    async fn start_in(self, root: PathBuf, dir: Option<tempfile::TempDir>) -> Client {
        for (path, bytes) in &self.files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, bytes).unwrap();
        }
        if let Some(prepare) = self.prepare {
            prepare(&root);
        }
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_with(server_read, server_write, self.config.clone()));
        let (client_read, client_write) = tokio::io::split(client_io);
        let shared = Arc::new(Shared::default());
        let writer = Arc::new(tokio::sync::Mutex::new(client_write));
        let root_uri = format!("file://{}", root.display());
        let answer = Arc::new(Mutex::new(self.apply_answer));
        tokio::spawn(read_loop(
            client_read,
            writer.clone(),
            shared.clone(),
            answer.clone(),
            root.clone(),
        ));
        let mut client = Client {
            _dir: dir,
            root,
            root_uri,
            writer,
            shared,
            next_id: AtomicI64::new(1),
            answer,
            init_result: Value::Null,
            seen_notifications: 0,
        };
        let initialize_root = match self.root_alias {
            Some(alias) => alias(&client.root),
            None => client.root_uri.clone(),
        };
        let mut params = json!({
            "processId": null,
            "rootUri": initialize_root,
            "capabilities": self.capabilities(),
        });
        if let Some(options) = self.init_options {
            params["initializationOptions"] = options;
        }
        client.init_result = client.request("initialize", params).await.unwrap();
        client.notify("initialized", json!({})).await;
        client
    }
}

#[derive(Default)]
struct Shared {
    pending: Mutex<HashMap<i64, oneshot::Sender<Value>>>,
    notifications: Mutex<Vec<Value>>,
    applied_edits: Mutex<Vec<Value>>,
    arrived: Notify,
}

/// A test client connected to a running server.
pub struct Client {
    _dir: Option<tempfile::TempDir>,
    /// The workspace root on disk.
    pub root: PathBuf,
    /// Its `file:` URI.
    pub root_uri: String,
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    answer: Arc<Mutex<ApplyAnswer>>,
    /// The `initialize` result.
    pub init_result: Value,
    seen_notifications: usize,
}

/// A server with default capabilities (documentChanges, all resource
/// operations, annotations, no position encodings offered).
pub fn server() -> Builder {
    Builder {
        files: Vec::new(),
        encodings: None,
        document_changes: true,
        resource_operations: vec!["create".into(), "rename".into(), "delete".into()],
        annotations: false,
        init_options: None,
        config: ServeConfig::default(),
        apply_answer: ApplyAnswer::Apply,
        show_document: false,
        root_alias: None,
        prepare: None,
    }
}

const TIMEOUT: Duration = Duration::from_secs(20);

async fn write_message(writer: &tokio::sync::Mutex<WriteHalf<DuplexStream>>, message: &Value) {
    let body = serde_json::to_string(message).unwrap();
    let mut w = writer.lock().await;
    w.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
        .await
        .unwrap();
    w.flush().await.unwrap();
}

async fn read_loop(
    read: tokio::io::ReadHalf<DuplexStream>,
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    shared: Arc<Shared>,
    answer: Arc<Mutex<ApplyAnswer>>,
    root: PathBuf,
) {
    let mut reader = BufReader::new(read);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length.expect("Content-Length header")];
        reader.read_exact(&mut body).await.unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                let result = match method.as_str() {
                    "workspace/applyEdit" => {
                        shared
                            .applied_edits
                            .lock()
                            .unwrap()
                            .push(message["params"].clone());
                        let mode = *answer.lock().unwrap();
                        match mode {
                            ApplyAnswer::Apply => {
                                apply_workspace_edit(&root, &message["params"]["edit"]);
                                Some(json!({"applied": true}))
                            }
                            ApplyAnswer::Accept => Some(json!({"applied": true})),
                            ApplyAnswer::Refuse => {
                                Some(json!({"applied": false, "failureReason": "user said no"}))
                            }
                            ApplyAnswer::Ignore => None,
                        }
                    }
                    "workspace/configuration" => Some(json!([])),
                    "window/showDocument" => {
                        shared.notifications.lock().unwrap().push(message.clone());
                        shared.arrived.notify_waiters();
                        Some(json!({"success": true}))
                    }
                    _ => Some(Value::Null),
                };
                if let Some(result) = result {
                    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                    write_message(&writer, &reply).await;
                }
            }
            (Some(_), None) => {
                shared.notifications.lock().unwrap().push(message);
                shared.arrived.notify_waiters();
            }
            (None, Some(id)) => {
                let id = id.as_i64().unwrap_or(-1);
                if let Some(tx) = shared.pending.lock().unwrap().remove(&id) {
                    let _ = tx.send(message);
                }
            }
            (None, None) => {}
        }
    }
}

impl Client {
    /// Sends a request; returns its id (await the answer with [`Client::response`]).
    pub async fn send_request(
        &self,
        method: &str,
        params: Value,
    ) -> (i64, oneshot::Receiver<Value>) {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.shared.pending.lock().unwrap().insert(id, tx);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write_message(&self.writer, &message).await;
        (id, rx)
    }

    /// Awaits a response: `Ok(result)` or `Err(error object)`.
    pub async fn response(rx: oneshot::Receiver<Value>) -> Result<Value, Value> {
        let message = tokio::time::timeout(TIMEOUT, rx)
            .await
            .expect("the server answers in time")
            .expect("the server answers");
        match message.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(message["result"].clone()),
        }
    }

    /// Sends a request and awaits its answer.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Value> {
        let (_, rx) = self.send_request(method, params).await;
        Client::response(rx).await
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_message(&self.writer, &message).await;
    }

    /// Runs `workspace/executeCommand` with one object argument.
    pub async fn command(&self, command: &str, argument: Value) -> Result<Value, Value> {
        self.request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": [argument]}),
        )
        .await
    }

    /// The `file:` URI of a workspace path (percent-encoded, as editors send it).
    pub fn uri(&self, path: &str) -> String {
        format!("{}/{}", self.root_uri, percent_encode(path))
    }

    /// Opens a workspace file in the editor with `text` (version 1).
    pub async fn open(&self, path: &str, text: &str) -> String {
        let uri = self.uri(path);
        self.open_uri(&uri, text).await;
        uri
    }

    /// Opens any URI.
    pub async fn open_uri(&self, uri: &str, text: &str) {
        let item = json!({"uri": uri, "languageId": "markdown", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": item}))
            .await;
    }

    /// Sends incremental changes: `(start, end, text)` with `[line, character]` positions.
    pub async fn change(&self, uri: &str, version: i32, changes: &[([u32; 2], [u32; 2], &str)]) {
        let events: Vec<Value> = changes
            .iter()
            .map(|(s, e, text)| {
                json!({"range": {"start": {"line": s[0], "character": s[1]},
                                 "end": {"line": e[0], "character": e[1]}}, "text": text})
            })
            .collect();
        let params =
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": events});
        self.notify("textDocument/didChange", params).await;
    }

    /// Waits for the next notification of `method` matching `pred`
    /// (notifications already seen by an earlier wait are skipped).
    pub async fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let arrived = self.shared.arrived.notified();
            {
                let all = self.shared.notifications.lock().unwrap();
                for (i, n) in all.iter().enumerate().skip(self.seen_notifications) {
                    if n["method"] == method && pred(&n["params"]) {
                        self.seen_notifications = i + 1;
                        return n["params"].clone();
                    }
                }
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                panic!("no {method} notification arrived in time");
            }
        }
    }

    /// Waits for diagnostics published for `uri`.
    pub async fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let uri = uri.to_owned();
        let params = self
            .notification("textDocument/publishDiagnostics", |p| {
                p["uri"] == uri.as_str()
            })
            .await;
        params["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// How many `publishDiagnostics` for `uri` arrived so far.
    pub fn published(&self, uri: &str) -> usize {
        let all = self.shared.notifications.lock().unwrap();
        all.iter()
            .filter(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            })
            .count()
    }

    /// Every `workspace/applyEdit` the server sent.
    pub fn applied_edits(&self) -> Vec<Value> {
        self.shared.applied_edits.lock().unwrap().clone()
    }

    /// Changes how `workspace/applyEdit` is answered.
    pub fn set_apply_answer(&self, answer: ApplyAnswer) {
        *self.answer.lock().unwrap() = answer;
    }

    /// A workspace file's content.
    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }

    /// `value` with the workspace root URI replaced by `file:///ROOT`.
    pub fn redact(&self, value: &Value) -> Value {
        let text = serde_json::to_string(value).unwrap();
        serde_json::from_str(&text.replace(&self.root_uri, "file:///ROOT")).unwrap()
    }
}

/// The negotiated encoding's width of a char.
fn units(c: char, encoding: &str) -> usize {
    match encoding {
        "utf-8" => c.len_utf8(),
        "utf-32" => 1,
        _ => c.len_utf16(),
    }
}

/// Byte offset of an LSP position in `text` (lines split at `\n`).
fn offset(text: &str, pos: &Value, encoding: &str) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let character = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let mut units_seen = 0;
    let mut at = start;
    for c in text[start..].chars() {
        if units_seen >= character || c == '\n' {
            break;
        }
        units_seen += units(c, encoding);
        at += c.len_utf8();
    }
    at
}

fn uri_to_path(root: &Path, uri: &str) -> PathBuf {
    let root_uri = format!("file://{}", root.display());
    let relative = uri
        .strip_prefix(&format!("{root_uri}/"))
        .expect("a URI under the root");
    root.join(percent_decode(relative))
}

/// Percent-encodes a path for a URI (unreserved characters and `/` kept).
fn percent_encode(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Decodes `%XX` escapes.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

fn apply_text_edits(path: &Path, edits: &[Value], encoding: &str) {
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    let mut resolved: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let start = offset(&text, &e["range"]["start"], encoding);
            let end = offset(&text, &e["range"]["end"], encoding);
            (start, end, e["newText"].as_str().unwrap().to_owned())
        })
        .collect();
    resolved.sort_by_key(|(s, e, _)| std::cmp::Reverse((*s, *e)));
    for (start, end, new) in resolved {
        text.replace_range(start..end, &new);
    }
    std::fs::write(path, text).unwrap();
}

/// Applies a WorkspaceEdit to the files on disk, as an editor would
/// (positions in UTF-16 unless the edit's client negotiated otherwise:
/// tests using other encodings check ranges, not disk results).
pub fn apply_workspace_edit(root: &Path, edit: &Value) {
    let encoding = "utf-16";
    if let Some(changes) = edit["changes"].as_object() {
        for (uri, edits) in changes {
            apply_text_edits(&uri_to_path(root, uri), edits.as_array().unwrap(), encoding);
        }
    }
    for op in edit["documentChanges"].as_array().into_iter().flatten() {
        match op["kind"].as_str() {
            Some("create") => {
                let path = uri_to_path(root, op["uri"].as_str().unwrap());
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                if !path.exists() {
                    std::fs::write(path, "").unwrap();
                }
            }
            Some("delete") => {
                std::fs::remove_file(uri_to_path(root, op["uri"].as_str().unwrap())).unwrap()
            }
            Some("rename") => {
                let to = uri_to_path(root, op["newUri"].as_str().unwrap());
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::rename(uri_to_path(root, op["oldUri"].as_str().unwrap()), to).unwrap();
            }
            _ => {
                let path = uri_to_path(root, op["textDocument"]["uri"].as_str().unwrap());
                apply_text_edits(&path, op["edits"].as_array().unwrap(), encoding);
            }
        }
    }
}

impl Builder {
    /// Starts a server whose `initialize` must fail; returns the error message.
    pub async fn start_err(self) -> String {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_with(server_read, server_write, self.config.clone()));
        let (read, write) = tokio::io::split(client_io);
        let writer = tokio::sync::Mutex::new(write);
        let params = json!({"processId": null, "capabilities": {},
                            "initializationOptions": self.init_options});
        write_message(
            &writer,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}),
        )
        .await;
        let mut reader = BufReader::new(read);
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            if line.trim_end().is_empty() {
                break;
            }
            if let Some(n) = line.trim_end().strip_prefix("Content-Length: ") {
                length = n.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await.unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        message["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// An editor's buffers over the files on disk, for applying a
/// `WorkspaceEdit` the way an editor would: text edits go to the open
/// buffer (whose version must match the edit's) or else to the file
/// (decoded and re-encoded in its own encoding); resource operations move
/// buffers along with their files.
pub struct Editor {
    root: PathBuf,
    encoding: String,
    buffers: HashMap<PathBuf, (i32, String)>,
}

impl Editor {
    /// An editor over `client`'s workspace, in its negotiated encoding.
    pub fn new(client: &Client) -> Editor {
        let encoding = client.init_result["capabilities"]["positionEncoding"]
            .as_str()
            .unwrap_or("utf-16")
            .to_owned();
        Editor {
            root: client.root.clone(),
            encoding,
            buffers: HashMap::new(),
        }
    }

    /// Records a buffer the client opened (`path` relative to the root).
    pub fn opened(&mut self, path: &str, version: i32, text: &str) {
        self.buffers
            .insert(self.root.join(path), (version, text.to_owned()));
    }

    /// Applies a `WorkspaceEdit` (`changes` or `documentChanges`).
    pub fn apply(&mut self, edit: &Value) -> Result<(), String> {
        if let Some(changes) = edit["changes"].as_object() {
            for (uri, edits) in changes {
                let path = self.path(&json!(uri))?;
                self.edit_file(&path, None, edits)?;
            }
        }
        for op in edit["documentChanges"].as_array().into_iter().flatten() {
            match op["kind"].as_str() {
                Some("create") => self.create(op)?,
                Some("rename") => self.rename(op)?,
                Some("delete") => self.delete(op)?,
                Some(other) => return Err(format!("unknown resource operation `{other}`")),
                None => {
                    let path = self.path(&op["textDocument"]["uri"])?;
                    let version = op["textDocument"]["version"].as_i64();
                    self.edit_file(&path, Some(version), &op["edits"])?;
                }
            }
        }
        Ok(())
    }

    /// The text of the open buffer of `path` (relative to the root).
    pub fn buffer(&self, path: &str) -> Option<&str> {
        self.buffers
            .get(&self.root.join(path))
            .map(|(_, text)| text.as_str())
    }

    /// Writes every buffer to its file ("save all").
    pub fn save_all(&self) {
        for (path, (_, text)) in &self.buffers {
            std::fs::write(path, text).unwrap();
        }
    }

    fn path(&self, uri: &Value) -> Result<PathBuf, String> {
        let uri = uri.as_str().ok_or("a URI that is not a string")?;
        let root_uri = format!("file://{}/", self.root.display());
        let relative = uri
            .strip_prefix(&root_uri)
            .ok_or_else(|| format!("{uri} is not under the workspace root"))?;
        Ok(self.root.join(percent_decode(relative)))
    }

    /// `version`: `None` for `changes` (unversioned), `Some(null)` for a
    /// `TextDocumentEdit` read from disk, `Some(Some(n))` for a buffer.
    fn edit_file(
        &mut self,
        path: &Path,
        version: Option<Option<i64>>,
        edits: &Value,
    ) -> Result<(), String> {
        let edits = edits.as_array().ok_or("`edits` is not an array")?;
        let name = path.display();
        if let Some((open_version, text)) = self.buffers.get_mut(path) {
            match version {
                Some(Some(v)) if v != i64::from(*open_version) => {
                    return Err(format!(
                        "{name}: edit for version {v}, buffer has {open_version}"
                    ))
                }
                Some(None) => return Err(format!("{name}: unversioned edit of an open buffer")),
                _ => {}
            }
            *text = edited(text, edits, &self.encoding)?;
            *open_version += 1;
            return Ok(());
        }
        if let Some(Some(v)) = version {
            return Err(format!(
                "{name}: edit for version {v} of a file that is not open"
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
        let (text, encoding) = llm_edit_lsp::text::encoding::decode(&bytes)
            .map_err(|e| format!("{name}: cannot decode: {e}"))?;
        let text = edited(&text, edits, &self.encoding)?;
        std::fs::write(path, llm_edit_lsp::text::encoding::encode(&text, encoding))
            .map_err(|e| format!("{name}: {e}"))
    }

    fn create(&mut self, op: &Value) -> Result<(), String> {
        let path = self.path(&op["uri"])?;
        let exists = path.exists();
        if exists && op["options"]["ignoreIfExists"] != true && op["options"]["overwrite"] != true {
            return Err(format!("create {}: the file exists", path.display()));
        }
        if !exists || op["options"]["overwrite"] == true {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
        }
        Ok(())
    }

    fn rename(&mut self, op: &Value) -> Result<(), String> {
        let from = self.path(&op["oldUri"])?;
        let to = self.path(&op["newUri"])?;
        if to.exists() && op["options"]["overwrite"] != true {
            return Err(format!("rename to {}: the file exists", to.display()));
        }
        if let Some(buffer) = self.buffers.remove(&from) {
            self.buffers.insert(to.clone(), buffer);
        }
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(&from, &to).map_err(|e| format!("rename {}: {e}", from.display()))
    }

    fn delete(&mut self, op: &Value) -> Result<(), String> {
        let path = self.path(&op["uri"])?;
        self.buffers.remove(&path);
        std::fs::remove_file(&path).map_err(|e| format!("delete {}: {e}", path.display()))
    }
}

/// `text` with LSP text edits applied (they must not overlap).
fn edited(text: &str, edits: &[Value], encoding: &str) -> Result<String, String> {
    let mut resolved: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let start = offset(text, &e["range"]["start"], encoding);
            let end = offset(text, &e["range"]["end"], encoding);
            (start, end, e["newText"].as_str().unwrap_or_default())
        })
        .collect();
    resolved.sort_by_key(|(s, e, _)| (*s, *e));
    if resolved.windows(2).any(|w| w[0].1 > w[1].0) {
        return Err("overlapping text edits".into());
    }
    let mut out = text.to_owned();
    for (start, end, new) in resolved.into_iter().rev() {
        if start > end {
            return Err(format!(
                "a text edit ends before it starts ({start} > {end})"
            ));
        }
        out.replace_range(start..end, new);
    }
    Ok(out)
}
