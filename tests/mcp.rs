//! The MCP server's tools, in process: each tool's effect on the files, the
//! refusals an agent sees, `~M` against what the session read, path
//! confinement, `--require-read`, and the protocol over a pipe (malformed
//! messages answered, the server still answering after).

use std::fs;
use std::path::Path;

use llm_edit_lsp::engine::OnConflict;
use llm_edit_lsp::mcp::{self, Config, Session, ToolReply};
use serde_json::{json, Value};

fn session(root: &Path) -> Session {
    session_with(root, |_| {})
}

fn session_with(root: &Path, change: impl FnOnce(&mut Config)) -> Session {
    let mut config = Config {
        roots: vec![root.to_path_buf()],
        ..Config::default()
    };
    change(&mut config);
    Session::new(config).expect("a session")
}

fn call(session: &Session, tool: &str, args: Value) -> ToolReply {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    session.call(tool, args).expect("a known tool")
}

fn read(root: &Path, path: &str) -> String {
    fs::read_to_string(root.join(path)).unwrap()
}

/// The state of each edit of an edit tool's result.
fn states(reply: &ToolReply) -> Vec<String> {
    reply.structured["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["state"].as_str().unwrap().to_string())
        .collect()
}

fn first_error_kind(reply: &ToolReply) -> &str {
    reply.structured["errors"][0]["kind"].as_str().unwrap()
}

#[test]
fn read_file_numbers_lines_and_windows() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=5).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("a.txt"), &text).unwrap();
    let s = session(dir.path());
    let reply = call(&s, "read_file", json!({"path": "a.txt"}));
    assert!(!reply.is_error);
    assert_eq!(
        reply.text,
        "     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n"
    );
    assert_eq!(reply.structured["total_lines"], 5);
    let reply = call(
        &s,
        "read_file",
        json!({"path": "a.txt", "offset": 2, "limit": 2}),
    );
    assert_eq!(
        reply.text,
        "     2\tline 2\n     3\tline 3\n\n(lines 2-3 of 5; call read_file with offset=4 to read on)"
    );
    assert_eq!(reply.structured["truncated"], true);
}

#[test]
fn read_file_refuses_binary_missing_and_outside() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.bin"), b"\x00\x01\x02").unwrap();
    let s = session(dir.path());
    let reply = call(&s, "read_file", json!({"path": "b.bin"}));
    assert!(reply.is_error);
    assert!(reply.text.contains("binary"), "{}", reply.text);
    let reply = call(&s, "read_file", json!({"path": "nope.txt"}));
    assert!(
        reply.is_error && reply.text.contains("does not exist"),
        "{}",
        reply.text
    );
    let reply = call(&s, "read_file", json!({"path": "../etc/passwd"}));
    assert!(
        reply.is_error && reply.text.contains("outside the workspace root"),
        "{}",
        reply.text
    );
    let reply = call(&s, "read_file", json!({"path": "/etc/passwd"}));
    assert!(
        reply.is_error && reply.text.contains("outside the workspace root"),
        "{}",
        reply.text
    );
}

#[test]
fn numbered_lines_copied_back_edit_the_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
    let s = session(dir.path());
    let view = call(&s, "read_file", json!({"path": "a.py"}));
    let old = view.text.lines().nth(1).unwrap().to_string() + "\n";
    assert_eq!(old, "     2\t    return 1\n");
    let reply = call(
        &s,
        "edit",
        json!({"path": "a.py", "old_string": old, "new_string": "    return 2\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.py"), "def f():\n    return 2\n");
}

#[test]
fn edit_applies_and_answers_with_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "edit",
        json!({"path": "a.py", "old_string": "return 1", "new_string": "return 2"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.py"), "def f():\n    return 2\n");
    assert_eq!(reply.structured["route"], "disk");
    assert_eq!(reply.structured["applied"], true);
    assert_eq!(states(&reply), ["applied"]);
    assert_eq!(
        reply.text,
        "Applied 1 edit to 1 file.\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    );
}

#[test]
fn edit_replace_all_and_create() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "x = 1\ny = x\n").unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "edit",
        json!({"path": "a.txt", "old_string": "x", "new_string": "z", "replace_all": true}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "z = 1\ny = z\n");
    let reply = call(
        &s,
        "edit",
        json!({"path": "new/b.txt", "old_string": "", "new_string": "hello\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "new/b.txt"), "hello\n");
    assert_eq!(reply.structured["files"][0]["status"], "A");
}

#[test]
fn ambiguous_edit_is_refused_with_the_message_and_retry_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let text = "a = 1\nb = 2\na = 1\n";
    fs::write(dir.path().join("a.txt"), text).unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "edit",
        json!({"path": "a.txt", "old_string": "a = 1", "new_string": "a = 3"}),
    );
    assert!(reply.is_error);
    assert_eq!(read(dir.path(), "a.txt"), text);
    assert_eq!(first_error_kind(&reply), "ambiguous");
    assert_eq!(reply.structured["errors"][0]["lines"], json!([1, 3]));
    assert_eq!(states(&reply), ["refused"]);
    let prompt = reply.structured["retry_prompt"].as_str().unwrap();
    assert!(prompt.starts_with("@retry_context"), "{prompt}");
    assert!(reply.text.contains(prompt));
    // It speaks of the call the agent made, and shows what it passed.
    assert!(
        prompt.contains("of your last `edit` call")
            && prompt.contains("--- edit 1 (your `edit` call) ---\nold_string:\na = 1\n")
            && prompt.contains("Call `edit` again"),
        "{prompt}"
    );
    assert!(
        reply.text.contains("Nothing was changed."),
        "{}",
        reply.text
    );
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = "one\ntwo\nthree\n";
    fs::write(dir.path().join("a.txt"), text).unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "multi_edit",
        json!({"path": "a.txt", "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "four", "new_string": "4"},
        ]}),
    );
    assert!(reply.is_error);
    assert_eq!(read(dir.path(), "a.txt"), text);
    assert_eq!(states(&reply), ["held_back", "refused"]);
    assert_eq!(first_error_kind(&reply), "not_found");
    let prompt = reply.structured["retry_prompt"].as_str().unwrap();
    assert!(
        prompt
            .contains("--- edit 2 (`edits[1]` of your `multi_edit` call) ---\nold_string:\nfour\n")
            && !prompt.contains("edits[0]"),
        "{prompt}"
    );
    let reply = call(
        &s,
        "multi_edit",
        json!({"path": "a.txt", "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "1\ntwo", "new_string": "1\n2"},
        ]}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "1\n2\nthree\n");
}

#[test]
fn multi_edit_takes_the_filesystem_servers_shape() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let s = session(dir.path());
    let args =
        json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true});
    let reply = call(&s, "multi_edit", args.clone());
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "one\ntwo\n");
    assert_eq!(states(&reply), ["planned"]);
    assert!(reply.text.contains("+2\n"), "{}", reply.text);
    let mut args = args;
    args["dryRun"] = json!(false);
    let reply = call(&s, "multi_edit", args);
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "one\n2\n");
}

#[test]
fn write_file_creates_and_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "write_file",
        json!({"path": "d/n.txt", "content": "a\nb\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "d/n.txt"), "a\nb\n");
    let reply = call(
        &s,
        "write_file",
        json!({"path": "d/n.txt", "content": "c\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "d/n.txt"), "c\n");
    assert_eq!(reply.structured["files"][0]["status"], "M");
}

#[test]
fn apply_patch_edits_several_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();
    let s = session(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+gamma\n*** Add File: b.txt\n+new\n*** End Patch\n";
    let reply = call(&s, "apply_patch", json!({"patch": patch}));
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "alpha\ngamma\n");
    assert_eq!(read(dir.path(), "b.txt"), "new\n");
}

#[test]
fn apply_response_reads_chat_blocks() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "x = 1\ny = 2\n").unwrap();
    let s = session(dir.path());
    let text = "Here is the fix.\n\na.py\n```python\n<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n```\n";
    let reply = call(&s, "apply_response", json!({"text": text, "dry_run": true}));
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.py"), "x = 1\ny = 2\n");
    let reply = call(&s, "apply_response", json!({"text": text}));
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.py"), "x = 1\ny = 3\n");
    let reply = call(
        &s,
        "apply_response",
        json!({"text": text, "format": "nonsense"}),
    );
    assert!(
        reply.is_error && reply.text.contains("unknown format"),
        "{}",
        reply.text
    );
}

#[test]
fn a_change_since_the_read_is_merged() {
    let dir = tempfile::tempdir().unwrap();
    let before = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
    fs::write(dir.path().join("m.py"), before).unwrap();
    let s = session(dir.path());
    call(&s, "read_file", json!({"path": "m.py"}));
    // The user changes the top of the file after the agent read it.
    fs::write(
        dir.path().join("m.py"),
        "def a():\n    return 10\n\n\ndef b():\n    return 2\n",
    )
    .unwrap();
    let reply = call(
        &s,
        "edit",
        json!({"path": "m.py", "old_string": "return 2", "new_string": "return 20"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(
        read(dir.path(), "m.py"),
        "def a():\n    return 10\n\n\ndef b():\n    return 20\n"
    );
    assert_eq!(reply.structured["files"][0]["status"], "~M");
    // The agent's view is now what it wrote: a further edit is plain M.
    let reply = call(
        &s,
        "edit",
        json!({"path": "m.py", "old_string": "return 20", "new_string": "return 21"}),
    );
    assert_eq!(
        reply.structured["files"][0]["status"], "M",
        "{}",
        reply.text
    );
}

#[test]
fn an_overlapping_change_since_the_read_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.py"), "x = 1\n").unwrap();
    let s = session(dir.path());
    call(&s, "read_file", json!({"path": "m.py"}));
    fs::write(dir.path().join("m.py"), "x = 5\n").unwrap();
    let reply = call(
        &s,
        "edit",
        json!({"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}),
    );
    assert!(reply.is_error);
    assert_eq!(first_error_kind(&reply), "conflict");
    assert_eq!(read(dir.path(), "m.py"), "x = 5\n");
}

#[test]
fn on_conflict_refuse_refuses_any_change_since_the_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.py"), "a = 1\n\n\n\nb = 2\n").unwrap();
    let s = session_with(dir.path(), |c| c.on_conflict = OnConflict::Refuse);
    call(&s, "read_file", json!({"path": "m.py"}));
    fs::write(dir.path().join("m.py"), "a = 10\n\n\n\nb = 2\n").unwrap();
    let reply = call(
        &s,
        "edit",
        json!({"path": "m.py", "old_string": "b = 2", "new_string": "b = 3"}),
    );
    assert!(reply.is_error);
    assert_eq!(first_error_kind(&reply), "conflict");
    assert_eq!(read(dir.path(), "m.py"), "a = 10\n\n\n\nb = 2\n");
}

#[test]
fn an_unread_file_is_edited_as_it_is_on_disk_unless_require_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let s = session(dir.path());
    let reply = call(
        &s,
        "edit",
        json!({"path": "a.txt", "old_string": "one", "new_string": "two"}),
    );
    assert!(!reply.is_error, "{}", reply.text);

    let strict = session_with(dir.path(), |c| c.require_read = true);
    let reply = call(
        &strict,
        "edit",
        json!({"path": "a.txt", "old_string": "two", "new_string": "three"}),
    );
    assert!(reply.is_error);
    assert!(
        reply
            .text
            .contains("`a.txt` has not been read in this session: call read_file"),
        "{}",
        reply.text
    );
    assert_eq!(read(dir.path(), "a.txt"), "two\n");
    // A new file needs no read; a file read first is edited.
    let reply = call(
        &strict,
        "write_file",
        json!({"path": "n.txt", "content": "n\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    call(&strict, "read_file", json!({"path": "a.txt"}));
    let reply = call(
        &strict,
        "edit",
        json!({"path": "a.txt", "old_string": "two", "new_string": "three"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(dir.path(), "a.txt"), "three\n");
}

#[test]
fn paths_that_leave_the_root_are_refused_and_nothing_is_written_outside() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let outside = outer.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let s = session(&root);
    let absolute = outside.join("secret.txt");
    for path in [
        "../outside/secret.txt",
        absolute.to_str().unwrap(),
        "link/secret.txt",
    ] {
        let reply = call(
            &s,
            "edit",
            json!({"path": path, "old_string": "secret", "new_string": "gone"}),
        );
        assert!(reply.is_error, "{path}: {}", reply.text);
        assert_eq!(first_error_kind(&reply), "outside_root", "{path}");
        let reply = call(&s, "write_file", json!({"path": path, "content": "x"}));
        assert!(reply.is_error, "{path}: {}", reply.text);
        let reply = call(&s, "read_file", json!({"path": path}));
        assert!(reply.is_error, "{path}: {}", reply.text);
        assert!(
            reply.text.contains("outside the workspace root"),
            "{}",
            reply.text
        );
    }
    let patch = "*** Begin Patch\n*** Add File: ../outside/new.txt\n+x\n*** End Patch\n";
    let reply = call(&s, "apply_patch", json!({"patch": patch}));
    assert!(reply.is_error, "{}", reply.text);
    assert_eq!(read(&outside, "secret.txt"), "secret\n");
    let mut names: Vec<_> = fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["secret.txt"]);
}

#[test]
fn bad_arguments_are_tool_errors_and_unknown_tools_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let reply = call(&s, "edit", json!({"path": "a.txt", "old_string": "x"}));
    assert!(reply.is_error);
    assert!(
        reply.text.contains("missing field `new_string`"),
        "{}",
        reply.text
    );
    let reply = call(&s, "read_file", json!({"path": 3}));
    assert!(reply.is_error && reply.text.contains("invalid arguments for `read_file`"));
    let reply = call(
        &s,
        "edit",
        json!({"path": "a", "old_string": "x", "new_string": "y", "extra": 1}),
    );
    assert!(
        reply.is_error && reply.text.contains("unknown field `extra`"),
        "{}",
        reply.text
    );
    assert!(s.call("nope", serde_json::Map::new()).is_err());
}

#[test]
fn several_roots_follow_the_documented_rule() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    fs::write(b.path().join("only_b.txt"), "b\n").unwrap();
    let s = Session::new(Config {
        roots: vec![a.path().to_path_buf(), b.path().to_path_buf()],
        ..Config::default()
    })
    .unwrap();
    let reply = call(
        &s,
        "edit",
        json!({"path": "only_b.txt", "old_string": "b", "new_string": "c"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(b.path(), "only_b.txt"), "c\n");
    let reply = call(
        &s,
        "write_file",
        json!({"path": "new.txt", "content": "n\n"}),
    );
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(read(a.path(), "new.txt"), "n\n");
    fs::write(b.path().join("new.txt"), "other\n").unwrap();
    let reply = call(&s, "read_file", json!({"path": "new.txt"}));
    assert!(
        reply.is_error && reply.text.contains("exists under 2 roots"),
        "{}",
        reply.text
    );
    let roots = call(&s, "list_roots", json!({}));
    assert_eq!(roots.structured["roots"].as_array().unwrap().len(), 2);
}

/// Lines in, lines out: the server over a pipe, as a client drives it.
fn exchange(root: &Path, lines: &[&str]) -> Vec<Value> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let served = tokio::spawn(mcp::serve_on(session(root), server_read, server_write));
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut replies = tokio::io::BufReader::new(client_read).lines();
        let mut out = Vec::new();
        for line in lines {
            client_write.write_all(line.as_bytes()).await.unwrap();
            client_write.write_all(b"\n").await.unwrap();
            let expects_reply = !line.contains("\"notifications/");
            if expects_reply {
                let reply =
                    tokio::time::timeout(std::time::Duration::from_secs(20), replies.next_line())
                        .await
                        .expect("a reply in time")
                        .unwrap()
                        .expect("a line");
                out.push(serde_json::from_str(&reply).unwrap());
            }
        }
        drop(client_write);
        drop(replies);
        let _ = tokio::time::timeout(std::time::Duration::from_secs(10), served).await;
        out
    })
}

#[test]
fn the_protocol_answers_malformed_messages_and_lives_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let replies = exchange(
        dir.path(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "this is not json",
            r#"[1,2]"#,
            r#"{"jsonrpc":"1.0","id":7,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"edit","arguments":{"path":"a.txt"}}}"#,
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"edit","arguments":{"path":"a.txt","old_string":"one","new_string":"two"}}}"#,
        ],
    );
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "llm-edit-lsp");
    assert_eq!(replies[1]["error"]["code"], -32700);
    assert_eq!(replies[1]["id"], Value::Null);
    assert_eq!(replies[2]["error"]["code"], -32600);
    assert_eq!(replies[3]["error"]["code"], -32600);
    assert_eq!(replies[3]["id"], 7);
    assert_eq!(replies[4]["id"], 8);
    assert_eq!(replies[4]["error"]["code"], -32601);
    assert_eq!(replies[5]["id"], 9);
    assert_eq!(replies[5]["error"]["code"], -32602);
    assert_eq!(replies[6]["id"], 10);
    assert_eq!(replies[6]["result"]["isError"], true);
    assert_eq!(replies[7]["id"], 11);
    assert_eq!(replies[7]["result"]["isError"], false);
    assert_eq!(replies[7]["result"]["structuredContent"]["applied"], true);
    assert_eq!(read(dir.path(), "a.txt"), "two\n");
}

#[test]
fn tools_are_listed_with_schemas_and_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let replies = exchange(
        dir.path(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"search_replace"}}"#,
        ],
    );
    let tools = replies[1]["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, mcp::session::TOOLS);
    for tool in tools {
        let read_only = tool["name"] == "read_file" || tool["name"] == "list_roots";
        assert_eq!(tool["annotations"]["readOnlyHint"], read_only, "{tool}");
        assert_eq!(tool["annotations"]["destructiveHint"], !read_only, "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object");
    }
    let edit = &tools[1];
    assert_eq!(
        edit["inputSchema"]["required"],
        json!(["path", "old_string", "new_string"])
    );
    let text = replies[2]["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("SEARCH"), "{text}");
}

#[test]
fn long_diffs_stay_in_the_structured_result_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let content: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let reply = call(
        &s,
        "write_file",
        json!({"path": "big.txt", "content": content}),
    );
    assert!(!reply.is_error);
    assert!(
        reply.text.len() < mcp::session::TEXT_DIFF_BYTES,
        "{}",
        reply.text.len()
    );
    assert!(
        reply.text.contains("1 diff(s) left out of this text"),
        "{}",
        reply.text
    );
    assert!(reply.structured["files"][0]["diff"]
        .as_str()
        .unwrap()
        .contains("+line 19999\n"));
}
