//! The language server's targets, driven in-process over duplex streams
//! (release build):
//! - `initialize` answered and `initialized` sent: < 50 ms;
//! - 1,000 incremental `didChange`s on a 100k-line document, then one
//!   request that must see them all: < 50 µs per change on average;
//! - `llm-edit.preview` of 100 SEARCH/REPLACE edits on a 100k-line open
//!   document, round trip: < 20 ms.
//!
//! Memory (idle RSS, RSS per open document) is measured on the real binary
//! by `scripts/bench-lsp`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use llm_edit_lsp::lsp::{serve_with, ServeConfig};
use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf,
};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

const LINES: usize = 100_000;
const CHANGES: usize = 1_000;
const EDITS: usize = 100;

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

/// A minimal client: framed writes, and a reader task that routes answers
/// by id and answers the server's own requests with `null`.
struct Client {
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Pending,
    next_id: i64,
}

async fn write_message(writer: &tokio::sync::Mutex<WriteHalf<DuplexStream>>, message: &Value) {
    let body = serde_json::to_vec(message).unwrap();
    let mut w = writer.lock().await;
    w.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await
        .unwrap();
    w.write_all(&body).await.unwrap();
    w.flush().await.unwrap();
}

async fn read_loop(
    read: ReadHalf<DuplexStream>,
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Pending,
) {
    let mut reader = BufReader::new(read);
    loop {
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            match line.trim_end() {
                "" => break,
                header => {
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        let message: Value = serde_json::from_slice(&body).unwrap();
        match (message.get("method"), message.get("id")) {
            (Some(_), Some(id)) => {
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": null});
                write_message(&writer, &reply).await;
            }
            (None, Some(id)) => {
                let id = id.as_i64().unwrap_or(-1);
                if let Some(tx) = pending.lock().unwrap().remove(&id) {
                    let _ = tx.send(message);
                }
            }
            _ => {}
        }
    }
}

impl Client {
    /// Starts a server on duplex streams.
    fn start() -> Client {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_with(
            server_read,
            server_write,
            ServeConfig::default(),
        ));
        let (read, write) = tokio::io::split(client_io);
        let writer = Arc::new(tokio::sync::Mutex::new(write));
        let pending: Pending = Arc::default();
        tokio::spawn(read_loop(read, writer.clone(), pending.clone()));
        Client {
            writer,
            pending,
            next_id: 1,
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write_message(&self.writer, &message).await;
        let answer = rx.await.unwrap();
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    async fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_message(&self.writer, &message).await;
    }

    /// `initialize` (full workspace-edit capabilities) and `initialized`.
    async fn initialize(&mut self, root: &Path) {
        let capabilities = json!({"workspace": {"applyEdit": true, "workspaceEdit": {
            "documentChanges": true, "resourceOperations": ["create", "rename", "delete"]}}});
        let params = json!({"processId": null, "rootUri": format!("file://{}", root.display()),
                            "capabilities": capabilities});
        self.request("initialize", params).await;
        self.notify("initialized", json!({})).await;
    }

    async fn open(&self, uri: &str, text: &str) {
        let item = json!({"uri": uri, "languageId": "rust", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": item}))
            .await;
    }

    async fn shutdown(mut self) {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
    }
}

/// Line `i` of a 100k-line Rust-looking document: five shapes of code in
/// turn (`uniform`: one shape, every line sharing its first 8 bytes with
/// every search, the worst case for the resolver's prefix automaton).
fn line(i: usize, uniform: bool) -> String {
    if uniform {
        return format!("fn item_{i}() -> u64 {{ {i} * 3 }}\n");
    }
    match i % 5 {
        0 => format!("fn handler_{i}(request: &Request) -> Response {{\n"),
        1 => format!("    let value_{i} = compute(&request.body, {i})?;\n"),
        2 => format!(
            "    if value_{} > LIMIT {{ return Err(Error::TooLarge({i})); }}\n",
            i - 1
        ),
        3 => format!("    // step {i}: normalise the buffer before sending it\n"),
        _ => format!("    Response::ok(value_{}) }} // end {i}\n", i - 3),
    }
}

fn big_document(uniform: bool) -> String {
    (0..LINES).map(|i| line(i, uniform)).collect()
}

/// 100 SEARCH/REPLACE blocks spread over the document, one line each.
fn hundred_edits(path: &str, uniform: bool) -> String {
    (0..EDITS)
        .map(|k| {
            let search = line(k * (LINES / EDITS) + 7, uniform);
            let replace = search.replacen(' ', "  ", 1);
            format!(
                "{path}\n```rust\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n\n"
            )
        })
        .collect()
}

fn bench_initialize(c: &mut Criterion, rt: &Runtime) {
    let dir = tempfile::tempdir().unwrap();
    c.bench_function("lsp initialize to ready", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut client = Client::start();
                client.initialize(dir.path()).await;
                client.shutdown().await;
            })
        })
    });
}

fn bench_did_change(c: &mut Criterion, rt: &Runtime) {
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("file://{}/big.rs", dir.path().display());
    let mut client = rt.block_on(async {
        let mut client = Client::start();
        client.initialize(dir.path()).await;
        client.open(&uri, &big_document(false)).await;
        client
    });
    let mut version = 1;
    let mut group = c.benchmark_group("lsp didChange");
    group.throughput(Throughput::Elements(CHANGES as u64));
    group.bench_function(
        "1000 incremental changes on 100k lines, then a request",
        |b| {
            b.iter(|| {
                rt.block_on(async {
                    for k in 0..CHANGES {
                        version += 1;
                        let line = (k * 97) % LINES;
                        let change = json!({"range": {"start": {"line": line, "character": 3},
                                                  "end": {"line": line, "character": 3}},
                                        "text": "x"});
                        let params = json!({"textDocument": {"uri": uri, "version": version},
                                        "contentChanges": [change]});
                        client.notify("textDocument/didChange", params).await;
                    }
                    let position = json!({"line": 0, "character": 0});
                    let range = json!({"start": position, "end": position});
                    client
                        .request(
                            "textDocument/codeAction",
                            json!({"textDocument": {"uri": uri}, "range": range,
                               "context": {"diagnostics": []}}),
                        )
                        .await;
                })
            })
        },
    );
    group.finish();
    rt.block_on(client.shutdown());
}

fn bench_preview(c: &mut Criterion, rt: &Runtime, uniform: bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let document = big_document(uniform);
    std::fs::write(root.join("big.rs"), &document).unwrap();
    let uri = format!("file://{}/big.rs", root.display());
    let payload = hundred_edits("big.rs", uniform);
    let mut client = rt.block_on(async {
        let mut client = Client::start();
        client.initialize(&root).await;
        client.open(&uri, &document).await;
        client
    });
    // Let the server's first look at the opened document finish.
    std::thread::sleep(Duration::from_millis(500));
    let args = json!({"command": "llm-edit.preview", "arguments": [{"payload": payload}]});
    let check = rt.block_on(client.request("workspace/executeCommand", args.clone()));
    assert_eq!(check["errors"], json!([]), "the payload applies");
    let name = if uniform {
        "lsp preview 100 edits on a 100k-line open document of uniform lines"
    } else {
        "lsp preview 100 edits on a 100k-line open document"
    };
    c.bench_function(name, |b| {
        b.iter_custom(|iterations| {
            let started = Instant::now();
            for _ in 0..iterations {
                rt.block_on(client.request("workspace/executeCommand", args.clone()));
            }
            started.elapsed()
        })
    });
    rt.block_on(client.shutdown());
}

fn bench_lsp(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    bench_initialize(c, &rt);
    bench_did_change(c, &rt);
    bench_preview(c, &rt, false);
    bench_preview(c, &rt, true);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_lsp
}
criterion_main!(benches);
