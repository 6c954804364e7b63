//! Context snapshots through the server: capture/release, statuses and
//! their notification, `~M` merges and conflicts with their code actions,
//! restarts, corrupt snapshots, the streaming lock, and the corpus'
//! `conflict` cases.

use std::path::{Path, PathBuf};
use std::time::Duration;

use llm_edit_lsp::lsp::ServeConfig;
use serde_json::{json, Value};

use crate::support::{server, Client};

const APP: &str = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n";

fn quick() -> ServeConfig {
    ServeConfig {
        response_debounce: Duration::from_millis(10),
        response_quiet: Duration::from_millis(300),
        ..ServeConfig::default()
    }
}

fn search_replace(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n")
}

/// Waits for the next `llm-edit/status` of context `id`; returns
/// (path, status) pairs.
async fn status_note(client: &mut Client, id: &str) -> Vec<(String, String)> {
    let id = id.to_owned();
    let params = client
        .notification("llm-edit/status", |p| p["id"] == id.as_str())
        .await;
    pairs(&params)
}

/// Opens `app.py` (text `APP`), captures it as the default context and
/// waits for its first status; returns its URI.
async fn open_and_capture(client: &mut Client) -> String {
    let uri = client.open("app.py", APP).await;
    client
        .command("llm-edit.captureContext", json!({"paths": ["app.py"]}))
        .await
        .unwrap();
    assert_eq!(status_note(client, "default").await, one("app.py", ""));
    uri
}

fn pairs(result: &Value) -> Vec<(String, String)> {
    result["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn one(path: &str, status: &str) -> Vec<(String, String)> {
    vec![(path.to_owned(), status.to_owned())]
}

#[tokio::test]
async fn capture_then_unsaved_typing_then_apply_merges_against_the_new_version() {
    let client = server().file("app.py", APP).start().await;
    let uri = client.open("app.py", APP).await;
    let captured = client
        .command("llm-edit.captureContext", json!({"uris": [uri]}))
        .await
        .unwrap();
    assert_eq!(captured, json!({"id": "default", "files": ["app.py"]}));
    // The user edits line 1 (unsaved) after the LLM saw the file.
    client.change(&uri, 2, &[([0, 4], [0, 5], "10")]).await;
    let payload = search_replace("app.py", "d = 4", "d = 40");
    let result = client
        .command("llm-edit.apply", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    assert_eq!(result["files"], json!([{"path": "app.py", "status": "~M"}]));
    let sent = &client.applied_edits()[0]["edit"]["documentChanges"][0];
    assert_eq!(sent["textDocument"]["version"], 2);
    // Only the LLM's line, not the user's.
    assert_eq!(
        sent["edits"],
        json!([{"range": {"start": {"line": 3, "character": 0},
                          "end": {"line": 4, "character": 0}}, "newText": "d = 40\n"}])
    );
    assert_eq!(
        std::fs::read_to_string(client.root.join(".llm-edit/context/default/files/app.py"))
            .unwrap(),
        APP
    );
}

#[tokio::test]
async fn statuses_go_from_unchanged_to_out_of_sync_to_conflict_and_back() {
    let mut client = server()
        .file("app.py", APP)
        .file("other.py", "x = 1\n")
        .config(quick())
        .start()
        .await;
    let uri = open_and_capture(&mut client).await;

    client.change(&uri, 2, &[([0, 4], [0, 5], "10")]).await;
    assert_eq!(
        status_note(&mut client, "default").await,
        one("app.py", "~")
    );

    let payload = search_replace("app.py", "d = 4", "d = 40");
    let status = client
        .command("llm-edit.status", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(pairs(&status), one("app.py", "~M"));
    assert_eq!(
        status_note(&mut client, "default").await,
        one("app.py", "~M")
    );
    let other = search_replace("other.py", "x = 1", "x = 2");
    let status = client
        .command("llm-edit.status", json!({"payload": other}))
        .await
        .unwrap();
    assert_eq!(
        pairs(&status),
        vec![
            ("app.py".to_owned(), "~".to_owned()),
            ("other.py".to_owned(), "M".to_owned())
        ]
    );
    assert_eq!(status_note(&mut client, "default").await, pairs(&status));

    let result = client
        .command("llm-edit.apply", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    // Applied: no LLM edit pending; the buffer still differs from the snapshot.
    assert_eq!(
        status_note(&mut client, "default").await,
        one("app.py", "~")
    );

    client
        .command("llm-edit.releaseContext", json!({}))
        .await
        .unwrap();
    let err = client
        .command("llm-edit.status", json!({}))
        .await
        .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("no context snapshot \"default\""),
        "{err}"
    );
    assert!(!client.root.join(".llm-edit/context/default").exists());
}

#[tokio::test]
async fn a_refused_apply_leaves_its_files_llm_edited_in_the_status() {
    let mut client = server().file("app.py", APP).config(quick()).start().await;
    let uri = open_and_capture(&mut client).await;
    // The user changes the line the LLM changes too: a conflict.
    client.change(&uri, 2, &[([3, 4], [3, 5], "44")]).await;
    assert_eq!(
        status_note(&mut client, "default").await,
        one("app.py", "~")
    );
    let payload = search_replace("app.py", "d = 4", "d = 40");
    let result = client
        .command("llm-edit.apply", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["applied"], false, "{result}");
    assert_eq!(
        status_note(&mut client, "default").await,
        one("app.py", "~M")
    );
}

#[tokio::test]
async fn snapshots_survive_a_restart_and_corrupt_ones_are_errors() {
    let first = server().file("app.py", APP).start().await;
    first
        .command(
            "llm-edit.captureContext",
            json!({"paths": ["app.py"], "id": "chat-7"}),
        )
        .await
        .unwrap();
    std::fs::write(first.root.join("app.py"), APP.replace("a = 1", "a = 10")).unwrap();

    let second = server().start_on(&first).await;
    let status = second
        .command("llm-edit.status", json!({"id": "chat-7"}))
        .await
        .unwrap();
    assert_eq!(pairs(&status), one("app.py", "~"));
    let payload = search_replace("app.py", "d = 4", "d = 40");
    let result = second
        .command(
            "llm-edit.apply",
            json!({"payload": payload, "context": "chat-7"}),
        )
        .await
        .unwrap();
    assert_eq!(result["files"], json!([{"path": "app.py", "status": "~M"}]));
    assert_eq!(
        second.read("app.py"),
        "a = 10\nb = 2\nc = 3\nd = 40\ne = 5\n"
    );

    let err = second
        .command(
            "llm-edit.apply",
            json!({"payload": payload, "context": "nope"}),
        )
        .await
        .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("no context snapshot \"nope\""),
        "{err}"
    );

    let stored = first.root.join(".llm-edit/context/chat-7/files/app.py");
    std::fs::write(&stored, "tampered\n").unwrap();
    let third = server().start_on(&first).await;
    for (command, args) in [
        ("llm-edit.status", json!({"id": "chat-7"})),
        (
            "llm-edit.apply",
            json!({"payload": payload, "context": "chat-7"}),
        ),
    ] {
        let err = third.command(command, args).await.unwrap_err();
        let message = err["message"].as_str().unwrap();
        assert!(
            message.contains("corrupt context snapshot of app.py")
                && message.contains("llm-edit.releaseContext"),
            "{message}"
        );
    }
}

/// A server where `app.py` was captured, then line 2 was changed in the
/// buffer to `b = MINE`; the LLM changes the same line.
async fn conflicted(show_document: bool) -> (Client, String, Value) {
    let mut client = server()
        .file("app.py", APP)
        .config(quick())
        .show_document(show_document)
        .start()
        .await;
    let uri = client.open("app.py", APP).await;
    client
        .command("llm-edit.captureContext", json!({"uris": [uri]}))
        .await
        .unwrap();
    client.change(&uri, 2, &[([1, 4], [1, 5], "MINE")]).await;
    let payload = search_replace("app.py", "b = 2", "b = LLM");
    let result = client
        .command("llm-edit.apply", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["applied"], false);
    assert_eq!(result["errors"][0]["kind"], "conflict");
    let diagnostics = client.diagnostics(&uri).await;
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "conflict");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 1);
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                   "context": {"diagnostics": diagnostics}}),
        )
        .await
        .unwrap();
    (client, uri, actions)
}

fn action_args(actions: &Value, title_start: &str) -> Value {
    actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(title_start))
        .unwrap_or_else(|| panic!("no action {title_start:?} in {actions}"))["command"]["arguments"]
        [0]
    .clone()
}

#[tokio::test]
async fn conflicts_get_diagnostics_and_four_code_actions() {
    let (client, _, actions) = conflicted(false).await;
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Apply LLM version here (drop my changes in this region)",
            "Keep mine (drop the LLM change)",
            "Insert both with conflict markers",
            "Show diff",
            "Dismiss LLM edit diagnostics"
        ]
    );
    let theirs = action_args(&actions, "Apply LLM version");
    let result = client
        .command("llm-edit.resolveConflict", theirs)
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    let sent = client.applied_edits().last().unwrap()["edit"]["documentChanges"][0].clone();
    assert_eq!(sent["textDocument"]["version"], 2);
    assert_eq!(sent["edits"][0]["newText"], "b = LLM\n");
}

#[tokio::test]
async fn keep_mine_dismisses_and_both_inserts_markers() {
    let (client, _, actions) = conflicted(false).await;
    let both = action_args(&actions, "Insert both");
    client
        .command("llm-edit.resolveConflict", both)
        .await
        .unwrap();
    let sent = client.applied_edits().last().unwrap()["edit"]["documentChanges"][0].clone();
    assert_eq!(
        sent["edits"][0]["newText"],
        "<<<<<<< buffer\nb = MINE\n=======\nb = LLM\n>>>>>>> llm\n"
    );

    let (mut client, uri, actions) = conflicted(false).await;
    let mine = action_args(&actions, "Keep mine");
    client
        .command("llm-edit.resolveConflict", mine.clone())
        .await
        .unwrap();
    assert!(client.diagnostics(&uri).await.is_empty());
    // The region is gone: a second try says so.
    let err = client
        .command("llm-edit.resolveConflict", mine)
        .await
        .unwrap_err();
    assert!(err["message"]
        .as_str()
        .unwrap()
        .contains("no LLM edit conflict"));
}

#[tokio::test]
async fn show_diff_uses_show_document_or_a_message() {
    let (mut client, _, actions) = conflicted(false).await;
    let result = client
        .command(
            "llm-edit.resolveConflict",
            action_args(&actions, "Show diff"),
        )
        .await
        .unwrap();
    assert_eq!(result["shown"], "message");
    let message = client
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or("")
                .contains("-b = MINE\n+b = LLM")
        })
        .await;
    assert!(message["message"].as_str().unwrap().contains("your buffer"));

    let (mut client, _, actions) = conflicted(true).await;
    let result = client
        .command(
            "llm-edit.resolveConflict",
            action_args(&actions, "Show diff"),
        )
        .await
        .unwrap();
    assert_eq!(result["shown"], "document");
    let shown = client.notification("window/showDocument", |_| true).await;
    let path = shown["uri"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    let diff = std::fs::read_to_string(path).unwrap();
    assert!(diff.contains("-b = MINE\n+b = LLM"), "{diff}");
    // In a private folder of its own, not at a predictable name in /tmp.
    let path = Path::new(path);
    let folder = path.parent().unwrap();
    assert_ne!(folder, std::env::temp_dir(), "{}", path.display());
    let mode =
        |p: &Path| std::os::unix::fs::PermissionsExt::mode(&p.metadata().unwrap().permissions());
    assert_eq!(mode(folder) & 0o777, 0o700);
    assert_eq!(mode(path) & 0o777, 0o600);
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_streaming_response_locks_its_context() {
    let client = server().file("app.py", APP).config(quick()).start().await;
    client.open("app.py", APP).await;
    let response = client.uri("response.md");
    client.open_uri(&response, "Sure:\n\n").await;
    let partial = "app.py\n```\n<<<<<<< SEARCH\nd = 4\n";
    client
        .change(&response, 2, &[([2, 0], [2, 0], partial)])
        .await;
    for (command, args) in [
        ("llm-edit.captureContext", json!({"paths": ["app.py"]})),
        ("llm-edit.releaseContext", json!({})),
    ] {
        let err = client.command(command, args).await.unwrap_err();
        let message = err["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "a response is still streaming into {response}; wait until it stops"
            )),
            "{message}"
        );
    }
    // Another context is not locked.
    client
        .command(
            "llm-edit.captureContext",
            json!({"paths": ["app.py"], "id": "other"}),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    client
        .command("llm-edit.captureContext", json!({"paths": ["app.py"]}))
        .await
        .unwrap();
}

#[tokio::test]
async fn capture_arguments_are_checked() {
    let client = server().file("app.py", APP).start().await;
    for (args, expected) in [
        (json!({}), "nothing to capture"),
        (
            json!({"paths": ["../x"]}),
            "not a file inside the workspace root",
        ),
        (
            json!({"paths": ["missing.py"]}),
            "cannot capture missing.py: no such file",
        ),
        (
            json!({"paths": ["app.py"], "id": "a/b"}),
            "invalid context id",
        ),
        (json!({"path": "app.py"}), "unknown field"),
    ] {
        let err = client
            .command("llm-edit.captureContext", args.clone())
            .await
            .unwrap_err();
        let message = err["message"].as_str().unwrap();
        assert!(message.contains(expected), "{args}: {message}");
    }
}

/// Every file under `dir`, as (relative path, text).
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Replays one corpus `conflict` case: the buffers first hold `context/`
/// (captured), then the user's unsaved `before/`; the payload is applied
/// with the case's `--on-conflict`.
async fn replay(case: &Path) -> Result<(), String> {
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    let payload_file = ["payload.md", "payload.json", "payload.diff", "payload.txt"]
        .iter()
        .map(|n| case.join(n))
        .find(|p| p.exists())
        .ok_or("no payload")?;
    let payload = std::fs::read_to_string(payload_file).unwrap();
    let args: Vec<&str> = meta["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let policy = args
        .windows(2)
        .find(|w| w[0] == "--on-conflict")
        .map_or("merge", |w| w[1]);
    let before = tree(&case.join("before"));
    let context = tree(&case.join("context"));
    let mut builder = server();
    for (path, text) in &before {
        builder = builder.file(path, text);
    }
    let client = builder.start().await;
    let mut uris = Vec::new();
    for (path, text) in &context {
        uris.push(client.open(path, text).await);
    }
    client
        .command("llm-edit.captureContext", json!({"uris": uris}))
        .await
        .map_err(|e| e.to_string())?;
    for ((path, _), uri) in context.iter().zip(&uris) {
        let now = before
            .iter()
            .find(|(p, _)| p == path)
            .map_or("", |(_, t)| t.as_str());
        let params = json!({"textDocument": {"uri": uri, "version": 2},
                            "contentChanges": [{"text": now}]});
        client.notify("textDocument/didChange", params).await;
    }
    let result = client
        .command(
            "llm-edit.apply",
            json!({"payload": payload, "options": {"onConflict": policy}}),
        )
        .await
        .map_err(|e| e.to_string())?;
    match meta["expect"].as_str() {
        Some("apply") => {
            if result["applied"] != true {
                return Err(format!("not applied: {result}"));
            }
            for (path, text) in tree(&case.join("after")) {
                if client.read(&path) != text {
                    return Err(format!("{path} differs:\n{}", client.read(&path)));
                }
            }
        }
        _ => {
            let error = &meta["error"];
            let found = result["errors"].as_array().unwrap().iter().any(|e| {
                e["kind"] == error["kind"]
                    && (error["path"].is_null() || e["path"] == error["path"])
            });
            if result["applied"] != false || !found {
                return Err(format!("expected {error}, got {result}"));
            }
        }
    }
    Ok(())
}

#[tokio::test]
async fn corpus_conflict_cases_through_the_server() {
    let Some(Ok(entries)) = crate::shared::corpus_cases().map(std::fs::read_dir) else {
        return; // the shared corpus is not on every machine
    };
    let mut cases: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|dir| {
            std::fs::read_to_string(dir.join("case.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|m| {
                    m["tags"]
                        .as_array()
                        .is_some_and(|tags| tags.iter().any(|t| t == "conflict"))
                })
        })
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(e) = replay(case).await {
            failures.push(format!("{}: {e}", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
