//! The language server driven over JSON-RPC by an in-process client.
//!
//! Tests marked "engine" need the parsers and resolver of `main`; until
//! they land, `engine::run` finds no edits and those tests fail.

mod context;
mod corpus;
mod hostile_fs;
mod lens;
mod link;
#[path = "../common/shared.rs"]
mod shared;
mod support;

use std::sync::Arc;
use std::time::Duration;

use llm_edit_lsp::lsp::ServeConfig;
use serde_json::{json, Value};
use support::{server, ApplyAnswer, Client};
use tokio::sync::Notify;

const LIB_RS: &str = "// 注释 comment\r\nfn greet() -> &'static str { \"héllo 😀\" }\r\n";

fn json_payload() -> String {
    json!({"name": "edit_file", "arguments": {
        "path": "src/lib.rs", "old_string": "héllo 😀", "new_string": "hello 🌍"}})
    .to_string()
}

const SEARCH_REPLACE: &str = "Here you go:\n\nnotes/中文.txt\n```\n<<<<<<< SEARCH\n第二行 line two\n=======\n第2行 line 2 ✓\n>>>>>>> REPLACE\n```\n";

const NOTES: &str = "第一行 line one\n第二行 line two\n第三行\n";

fn quick_config() -> ServeConfig {
    ServeConfig {
        response_debounce: Duration::from_millis(10),
        response_quiet: Duration::from_millis(60),
        ..ServeConfig::default()
    }
}

#[tokio::test]
async fn initialize_negotiates_the_position_encoding() {
    let cases: [(Option<&[&str]>, &str); 4] = [
        (None, "utf-16"),
        (Some(&["utf-16", "utf-32"]), "utf-32"),
        (Some(&["utf-16", "utf-8", "utf-32"]), "utf-8"),
        (Some(&["latin-1"]), "utf-16"),
    ];
    for (offered, expected) in cases {
        let mut builder = server();
        if let Some(list) = offered {
            builder = builder.encodings(list);
        }
        let client = builder.start().await;
        let caps = &client.init_result["capabilities"];
        assert_eq!(caps["positionEncoding"], expected, "offered {offered:?}");
    }
}

#[tokio::test]
async fn initialize_advertises_commands_sync_and_code_actions() {
    let client = server().start().await;
    let mut result = client.init_result.clone();
    result["serverInfo"]["version"] = json!("[version]");
    insta::assert_json_snapshot!(result, @r#"
    {
      "capabilities": {
        "codeActionProvider": {
          "codeActionKinds": [
            "quickfix",
            "source"
          ]
        },
        "codeLensProvider": {
          "resolveProvider": false
        },
        "executeCommandProvider": {
          "commands": [
            "llm-edit.preview",
            "llm-edit.apply",
            "llm-edit.retryPrompt",
            "llm-edit.promptKit",
            "llm-edit.checkResponse",
            "llm-edit.dismissDiagnostics",
            "llm-edit.captureContext",
            "llm-edit.releaseContext",
            "llm-edit.status",
            "llm-edit.resolveConflict"
          ]
        },
        "positionEncoding": "utf-16",
        "textDocumentSync": {
          "change": 2,
          "openClose": true,
          "save": {
            "includeText": false
          }
        }
      },
      "serverInfo": {
        "name": "llm-edit-lsp",
        "version": "[version]"
      }
    }
    "#);
}

#[tokio::test]
async fn bad_params_are_invalid_params_and_the_server_stays_up() {
    let client = server().start().await;
    let run = |args: Value| {
        let client = &client;
        async move {
            client
                .request(
                    "workspace/executeCommand",
                    json!({"command": "llm-edit.preview", "arguments": args}),
                )
                .await
        }
    };
    let cases = [
        (
            json!([]),
            "llm-edit.preview takes exactly one object argument, got 0",
        ),
        (
            json!([{}, {}]),
            "llm-edit.preview takes exactly one object argument, got 2",
        ),
        (
            json!(["text"]),
            "bad arguments for llm-edit.preview: invalid type: string",
        ),
        (
            json!([{"payload": 1}]),
            "bad arguments for llm-edit.preview: invalid type: integer",
        ),
        (
            json!([{"payload": "x", "bogus": 1}]),
            "unknown field `bogus`",
        ),
        (
            json!([{"payload": "x", "format": "yaml"}]),
            "unknown format `yaml`",
        ),
        (
            json!([{"payload": "x", "uri": "file:///x"}]),
            "give exactly one of `payload` and `uri`",
        ),
        (
            json!([{"uri": "file:///nowhere.md"}]),
            "document file:///nowhere.md is not open",
        ),
        (
            json!([{"payload": "x", "options": {"matchMode": "loose"}}]),
            "unknown variant `loose`",
        ),
    ];
    for (args, expected) in cases {
        let error = run(args.clone()).await.unwrap_err();
        assert_eq!(error["code"], -32602, "{args}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(expected), "{args}: {message}");
    }
    let error = client
        .command("llm-edit.nope", json!({}))
        .await
        .unwrap_err();
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("unknown command `llm-edit.nope`"));
    // Still serving: a retry prompt for a payload without edits names the parse error.
    let result = client
        .command("llm-edit.retryPrompt", json!({"payload": "just prose"}))
        .await
        .unwrap();
    let prompt = result["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("@retry_context\n"), "{prompt}");
    assert!(prompt.contains("[parse] no edit found"), "{prompt}");
    assert!(prompt.ends_with("@end retry_context\n"), "{prompt}");
}

#[tokio::test]
async fn prompt_kit_gives_instructions_and_tool_schemas() {
    let client = server().start().await;
    let kit = client
        .command("llm-edit.promptKit", json!({"format": "json"}))
        .await
        .unwrap();
    assert!(!kit["text"].as_str().unwrap().is_empty());
    assert!(
        kit["schema"].is_array() || kit["schema"].is_object(),
        "{kit}"
    );
    let kit = client
        .command("llm-edit.promptKit", json!({"format": "search_replace"}))
        .await
        .unwrap();
    assert!(kit["text"].as_str().unwrap().contains("SEARCH"));
    assert!(kit.get("schema").is_none());
    let error = client
        .command("llm-edit.promptKit", json!({"format": "auto"}))
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn bad_configuration_is_reported_and_ignored() {
    let mut client = server().start().await;
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"llmEdit": {"fuzzyThreshold": 7}}}),
        )
        .await;
    let message = client.notification("window/showMessage", |_| true).await;
    assert_eq!(message["type"], 1);
    let text = message["message"].as_str().unwrap();
    assert!(
        text.contains("fuzzyThreshold must be between 0 and 1"),
        "{text}"
    );
    let error = server()
        .init_options(json!({"llmEdit": {"onConflict": "shrug"}}))
        .start_err()
        .await;
    assert!(error.contains("shrug"), "{error}");
}

/// engine: a JSON `edit_file` gives a substring edit; its range is in the
/// negotiated encoding.
#[tokio::test]
async fn preview_ranges_follow_the_negotiated_encoding() {
    for (encoding, start, end) in [("utf-8", 30, 41), ("utf-16", 30, 38), ("utf-32", 30, 37)] {
        let client = server()
            .file("src/lib.rs", LIB_RS)
            .encodings(&[encoding])
            .start()
            .await;
        let result = client
            .command("llm-edit.preview", json!({"payload": json_payload()}))
            .await
            .unwrap();
        let edit = &result["edit"]["documentChanges"][0]["edits"][0];
        assert_eq!(
            edit["range"]["start"],
            json!({"line": 1, "character": start}),
            "{encoding}"
        );
        assert_eq!(
            edit["range"]["end"],
            json!({"line": 1, "character": end}),
            "{encoding}"
        );
        assert_eq!(edit["newText"], "hello 🌍");
        assert_eq!(client.read("src/lib.rs"), LIB_RS, "preview writes nothing");
    }
}

/// The same ranges when the file is an open buffer (CRLF, an emoji): its
/// rope gives them, not a walk over the text.
#[tokio::test]
async fn preview_ranges_on_an_open_buffer_follow_the_negotiated_encoding() {
    for (encoding, start, end) in [("utf-8", 30, 41), ("utf-16", 30, 38), ("utf-32", 30, 37)] {
        let client = server()
            .file("src/lib.rs", "on disk\n")
            .encodings(&[encoding])
            .start()
            .await;
        client.open("src/lib.rs", LIB_RS).await;
        for _ in 0..2 {
            // Twice: the second run reads the text kept from the first.
            let result = client
                .command("llm-edit.preview", json!({"payload": json_payload()}))
                .await
                .unwrap();
            let edit = &result["edit"]["documentChanges"][0]["edits"][0];
            let range = json!({"start": {"line": 1, "character": start},
                               "end": {"line": 1, "character": end}});
            assert_eq!(edit["range"], range, "{encoding}");
            assert_eq!(edit["newText"], "hello 🌍");
        }
    }
}

/// engine: search/replace on an open buffer with unsaved CJK text: the edit
/// carries the buffer's version and an annotation.
#[tokio::test]
async fn preview_search_replace_on_an_open_buffer() {
    let client = server()
        .file("notes/中文.txt", "on disk only\n")
        .annotations(true)
        .init_options(json!({"llmEdit": {"confirm": true}}))
        .start()
        .await;
    let uri = client.open("notes/中文.txt", "第一行 line one\n").await;
    // Incremental changes: append two lines, then fix a char after the CJK text.
    client
        .change(&uri, 2, &[([1, 0], [1, 0], "第二行 line twX\n第三行\n")])
        .await;
    client.change(&uri, 3, &[([1, 11], [1, 12], "o")]).await;
    let result = client
        .command("llm-edit.preview", json!({"payload": SEARCH_REPLACE}))
        .await
        .unwrap();
    insta::assert_json_snapshot!(client.redact(&result), @r#"
    {
      "edit": {
        "changeAnnotations": {
          "notes/中文.txt:1": {
            "description": "M notes/中文.txt",
            "label": "edit 1: search_replace",
            "needsConfirmation": true
          }
        },
        "documentChanges": [
          {
            "edits": [
              {
                "annotationId": "notes/中文.txt:1",
                "newText": "第2行 line 2 ✓\n",
                "range": {
                  "end": {
                    "character": 0,
                    "line": 2
                  },
                  "start": {
                    "character": 0,
                    "line": 1
                  }
                }
              }
            ],
            "textDocument": {
              "uri": "file:///ROOT/notes/%E4%B8%AD%E6%96%87.txt",
              "version": 3
            }
          }
        ]
      },
      "errors": [],
      "files": [
        {
          "path": "notes/中文.txt",
          "status": "M"
        }
      ]
    }
    "#);
}

/// engine: a client without `documentChanges` gets `changes`.
#[tokio::test]
async fn preview_uses_changes_without_document_changes() {
    let client = server()
        .file("notes/中文.txt", NOTES)
        .document_changes(false, &[])
        .start()
        .await;
    let result = client
        .command("llm-edit.preview", json!({"payload": SEARCH_REPLACE}))
        .await
        .unwrap();
    insta::assert_json_snapshot!(client.redact(&result["edit"]), @r#"
    {
      "changes": {
        "file:///ROOT/notes/%E4%B8%AD%E6%96%87.txt": [
          {
            "newText": "第2行 line 2 ✓\n",
            "range": {
              "end": {
                "character": 0,
                "line": 2
              },
              "start": {
                "character": 0,
                "line": 1
              }
            }
          }
        ]
      }
    }
    "#);
}

/// engine: creating a file needs `resourceOperations: ["create"]`.
#[tokio::test]
async fn creates_need_resource_operations() {
    let payload =
        json!({"name": "write_file", "arguments": {"path": "new/file.txt", "content": "hi\n"}})
            .to_string();
    let client = server().document_changes(true, &["create"]).start().await;
    let result = client
        .command("llm-edit.preview", json!({"payload": payload}))
        .await
        .unwrap();
    insta::assert_json_snapshot!(client.redact(&result["edit"]), @r#"
    {
      "documentChanges": [
        {
          "kind": "create",
          "options": {
            "ignoreIfExists": true
          },
          "uri": "file:///ROOT/new/file.txt"
        },
        {
          "edits": [
            {
              "newText": "hi\n",
              "range": {
                "end": {
                  "character": 0,
                  "line": 0
                },
                "start": {
                  "character": 0,
                  "line": 0
                }
              }
            }
          ],
          "textDocument": {
            "uri": "file:///ROOT/new/file.txt",
            "version": null
          }
        }
      ]
    }
    "#);
    let client = server().document_changes(false, &[]).start().await;
    let error = client
        .command("llm-edit.preview", json!({"payload": payload}))
        .await
        .unwrap_err();
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("cannot create files"), "{message}");
    assert!(!client.root.join("new/file.txt").exists());
}

/// engine: apply sends workspace/applyEdit, the client applies it, the user
/// sees a summary.
#[tokio::test]
async fn apply_round_trip() {
    let mut client = server()
        .file("src/lib.rs", LIB_RS)
        .file("notes/中文.txt", NOTES)
        .start()
        .await;
    let payload = format!("{SEARCH_REPLACE}\n```json\n{}\n```\n", json_payload());
    let result = client
        .command("llm-edit.apply", json!({"payload": SEARCH_REPLACE}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    assert_eq!(
        client.read("notes/中文.txt"),
        "第一行 line one\n第2行 line 2 ✓\n第三行\n"
    );
    let label = &client.applied_edits()[0]["label"];
    assert_eq!(label, "Apply LLM edits");
    let message = client.notification("window/showMessage", |_| true).await;
    assert_eq!(message["message"], "Applied 1 edit to 1 file");
    // A second payload against the new text.
    let result = client
        .command("llm-edit.apply", json!({"payload": json_payload()}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    assert_eq!(
        client.read("src/lib.rs"),
        LIB_RS.replace("héllo 😀", "hello 🌍")
    );
    drop(payload);
}

/// engine: the client refusing or never answering is a failure, not a hang.
#[tokio::test]
async fn apply_reports_refusal_and_timeout() {
    let client = server()
        .file("src/lib.rs", LIB_RS)
        .apply_answer(ApplyAnswer::Refuse)
        .config(ServeConfig {
            apply_timeout: Duration::from_millis(300),
            ..ServeConfig::default()
        })
        .start()
        .await;
    let result = client
        .command("llm-edit.apply", json!({"payload": json_payload()}))
        .await
        .unwrap();
    assert_eq!(result["applied"], false);
    assert_eq!(
        result["failureReason"],
        "the editor did not apply the edits: user said no"
    );
    client.set_apply_answer(ApplyAnswer::Ignore);
    let result = client
        .command("llm-edit.apply", json!({"payload": json_payload()}))
        .await
        .unwrap();
    assert_eq!(result["applied"], false);
    let reason = result["failureReason"].as_str().unwrap();
    assert!(
        reason.starts_with("the editor did not answer workspace/applyEdit within 0.3 s"),
        "{reason}"
    );
    assert_eq!(client.read("src/lib.rs"), LIB_RS);
}

/// engine: a didChange between planning and applying refuses the stale
/// plan; no edit is sent.
#[tokio::test]
async fn a_change_during_planning_refuses_the_stale_plan() {
    let (planned_tx, mut planned_rx) = tokio::sync::mpsc::unbounded_channel();
    let go = Arc::new(Notify::new());
    let hook_go = go.clone();
    let config = ServeConfig {
        after_plan: Some(Arc::new(move || {
            let planned = planned_tx.clone();
            let go = hook_go.clone();
            Box::pin(async move {
                let _ = planned.send(());
                go.notified().await;
            })
        })),
        ..ServeConfig::default()
    };
    let client = server()
        .file("src/lib.rs", LIB_RS)
        .config(config)
        .start()
        .await;
    let uri = client.open("src/lib.rs", LIB_RS).await;
    let args = json!({"command": "llm-edit.apply", "arguments": [{"payload": json_payload()}]});
    let (_, apply) = client.send_request("workspace/executeCommand", args).await;
    planned_rx.recv().await.unwrap();
    client
        .change(&uri, 2, &[([0, 0], [0, 0], "// new first line\r\n")])
        .await;
    // A request answered after the didChange proves it was handled.
    client
        .command("llm-edit.dismissDiagnostics", json!({}))
        .await
        .unwrap();
    go.notify_one();
    let result = Client::response(apply).await.unwrap();
    assert_eq!(result["applied"], false, "{result}");
    let reason = result["failureReason"].as_str().unwrap();
    assert_eq!(reason, "src/lib.rs changed while the edits were planned; nothing was applied, run the command again");
    assert!(client.applied_edits().is_empty());
}

/// Runs `llm-edit.apply` on an open `src/lib.rs`; `meanwhile` changes the
/// buffer between planning and applying. Returns the command's result.
async fn apply_with_change_during_planning<F, Fut>(meanwhile: F) -> (Value, Client)
where
    F: FnOnce(Arc<Client>, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (planned_tx, mut planned_rx) = tokio::sync::mpsc::unbounded_channel();
    let go = Arc::new(Notify::new());
    let hook_go = go.clone();
    let config = ServeConfig {
        after_plan: Some(Arc::new(move || {
            let planned = planned_tx.clone();
            let go = hook_go.clone();
            Box::pin(async move {
                let _ = planned.send(());
                go.notified().await;
            })
        })),
        ..ServeConfig::default()
    };
    let client = Arc::new(
        server()
            .file("src/lib.rs", LIB_RS)
            .config(config)
            .start()
            .await,
    );
    let uri = client.open("src/lib.rs", LIB_RS).await;
    let args = json!({"command": "llm-edit.apply", "arguments": [{"payload": json_payload()}]});
    let (_, apply) = client.send_request("workspace/executeCommand", args).await;
    planned_rx.recv().await.unwrap();
    meanwhile(client.clone(), uri).await;
    // A request answered after the notifications proves they were handled.
    client
        .command("llm-edit.dismissDiagnostics", json!({}))
        .await
        .unwrap();
    go.notify_one();
    let result = Client::response(apply).await.unwrap();
    let client = Arc::try_unwrap(client).ok().expect("one client");
    (result, client)
}

/// Versions alone cannot tell: a buffer closed and reopened starts again
/// at version 1, and a client may send one version twice. The plan's
/// content hash tells.
#[tokio::test]
async fn a_buffer_at_the_planned_version_with_other_text_refuses_the_stale_plan() {
    let moved = format!("// a new first line\r\n{LIB_RS}");
    let reopen = {
        let moved = moved.clone();
        |client: Arc<Client>, uri: String| async move {
            let id = json!({"textDocument": {"uri": uri}});
            client.notify("textDocument/didClose", id).await;
            client.open("src/lib.rs", &moved).await;
        }
    };
    let repeat = |client: Arc<Client>, uri: String| async move {
        client
            .change(&uri, 1, &[([0, 0], [0, 0], "// a new first line\r\n")])
            .await;
    };
    let (reopened, client) = apply_with_change_during_planning(reopen).await;
    let (repeated, other) = apply_with_change_during_planning(repeat).await;
    for result in [reopened, repeated] {
        assert_eq!(result["applied"], false, "{result}");
        let reason = result["failureReason"].as_str().unwrap();
        assert!(
            reason.starts_with("src/lib.rs changed while the edits were planned"),
            "{reason}"
        );
    }
    assert!(client.applied_edits().is_empty());
    assert!(other.applied_edits().is_empty());
}

/// engine: a failed anchor puts a diagnostic on the target file; a later
/// successful apply clears it.
#[tokio::test]
async fn failed_anchors_become_diagnostics_until_an_apply_succeeds() {
    let mut client = server().file("notes/中文.txt", NOTES).start().await;
    let broken = SEARCH_REPLACE.replace("第二行 line two\n=", "第二行 line tw0\n=");
    let result = client
        .command("llm-edit.apply", json!({"payload": broken}))
        .await
        .unwrap();
    assert_eq!(result["applied"], false);
    assert_eq!(result["errors"][0]["kind"], "not_found");
    let uri = client.uri("notes/中文.txt");
    let diagnostics = client.diagnostics(&uri).await;
    assert_eq!(diagnostics.len(), 1);
    let d = &diagnostics[0];
    assert_eq!(
        (d["source"].as_str(), d["code"].as_str()),
        (Some("llm-edit"), Some("not_found"))
    );
    assert_eq!(d["range"]["start"], json!({"line": 1, "character": 0}));
    assert_eq!(d["message"], result["errors"][0]["message"]);
    let message = client.notification("window/showMessage", |_| true).await;
    assert!(
        message["message"]
            .as_str()
            .unwrap()
            .starts_with("1 of 1 edit failed: "),
        "{message}"
    );

    let result = client
        .command("llm-edit.apply", json!({"payload": SEARCH_REPLACE}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true);
    assert!(client.diagnostics(&uri).await.is_empty());
}

/// engine: an open LLM response gets diagnostics on its failing blocks and
/// code actions to apply it.
#[tokio::test]
async fn response_documents_get_block_diagnostics_and_code_actions() {
    let mut client = server()
        .file("notes/中文.txt", NOTES)
        .file("notes/plain.txt", "one\ntwo\n")
        .config(quick_config())
        .start()
        .await;
    let response = format!(
        "{SEARCH_REPLACE}\nnotes/plain.txt\n```\n<<<<<<< SEARCH\nno such line\n=======\nx\n>>>>>>> REPLACE\n```\n"
    );
    let uri = "untitled:response-1.md";
    client.open_uri(uri, &response).await;
    let diagnostics = client.diagnostics(uri).await;
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    // The failing block's payload lines are 14-18 (1-based, SEARCH to REPLACE).
    let range = &diagnostics[0]["range"];
    assert_eq!(
        range["start"],
        json!({"line": 13, "character": 0}),
        "{range}"
    );
    assert_eq!(
        range["end"],
        json!({"line": 17, "character": 15}),
        "{range}"
    );
    assert_eq!(diagnostics[0]["code"], "not_found");
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Apply all 2 LLM edits",
            "Apply this edit (edit 2 to notes/plain.txt)",
            "Copy retry prompt",
            "Dismiss LLM edit diagnostics"
        ]
    );
    let retry = &actions[2]["command"];
    let result = client
        .request(
            "workspace/executeCommand",
            json!({"command": retry["command"], "arguments": retry["arguments"]}),
        )
        .await
        .unwrap();
    let prompt = result["prompt"].as_str().unwrap();
    assert!(prompt.contains("no such line"), "{prompt}");
    let shown = client.notification("window/showMessage", |_| true).await;
    assert_eq!(shown["message"].as_str(), Some(prompt));
}

/// An applied edit that leaves a parse error in a file that parsed cleanly
/// puts a warning diagnostic on that line, until the buffer is edited.
#[tokio::test]
async fn apply_marks_the_line_an_edit_left_unparsable() {
    let mut client = server()
        .file("a.py", "def f():\n    return 1\n\n\ndef g():\n    pass\n")
        .start()
        .await;
    let payload = "a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return (1\n>>>>>>> REPLACE\n";
    let result = client
        .command("llm-edit.apply", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["applied"], true, "{result}");
    let uri = client.uri("a.py");
    let diags = client.diagnostics(&uri).await;
    let diags = if diags.is_empty() {
        // The run's own diagnostics were cleared first.
        client.diagnostics(&uri).await
    } else {
        diags
    };
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["severity"], 2);
    assert_eq!(diags[0]["code"], "syntax");
    let line = diags[0]["range"]["start"]["line"].as_u64().unwrap();
    assert!((1..=4).contains(&line), "{diags:?}");
    assert!(
        diags[0]["message"].as_str().unwrap().contains("edit 1"),
        "{diags:?}"
    );
    // Opened as written: the warning stays; edited: it goes.
    let written = client.read("a.py");
    let published = client.published(&uri);
    client.open_uri(&uri, &written).await;
    client.change(&uri, 2, &[([0, 0], [0, 0], "")]).await;
    // A request answered after the notifications were handled.
    let _ = client.command("llm-edit.status", json!({})).await;
    assert_eq!(client.published(&uri), published);
    client.change(&uri, 3, &[([1, 14], [1, 14], ")")]).await;
    assert!(client.diagnostics(&uri).await.is_empty());
    assert_eq!(client.published(&uri), published + 1);
}

/// A plan that leaves a parse error in a file that parsed cleanly is
/// previewed (and applied) with a warning naming the file and line.
#[tokio::test]
async fn preview_reports_a_change_that_breaks_the_files_syntax() {
    let client = server()
        .file("a.py", "def f():\n    return 1\n")
        .start()
        .await;
    let payload = "a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return (1\n>>>>>>> REPLACE\n";
    let result = client
        .command("llm-edit.preview", json!({"payload": payload}))
        .await
        .unwrap();
    assert_eq!(result["warnings"][0]["path"], "a.py");
    assert_eq!(result["warnings"][0]["edits"], json!([1]));
    assert!(result["edit"].is_object(), "{result}");
    // A clean change has no warnings.
    let payload = "a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n";
    let result = client
        .command("llm-edit.preview", json!({"payload": payload}))
        .await
        .unwrap();
    assert!(result.get("warnings").is_none(), "{result}");
}
