//! The agent link (`src/lsp/link.rs`, `src/agent/link.rs`): an agent's
//! request through the socket is planned against the editor's buffers and
//! sent to it as `workspace/applyEdit`; the answer says route `editor`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Duration;

use llm_edit_lsp::agent::link::{connect, EditorLink, LinkError, LinkRequest, SOCKET};
use llm_edit_lsp::retry::Voice;
use serde_json::{json, Value};

use crate::support::{server, ApplyAnswer, Client, Editor};

const LINES: &str = "one\ntwo\nthree\nfour\nfive\n";

fn search_replace(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n")
}

fn request(payload: String) -> LinkRequest {
    LinkRequest {
        payload,
        ..LinkRequest::default()
    }
}

/// The link of `client`'s root, once its server listens.
async fn link(client: &Client) -> EditorLink {
    let root = client.root.clone();
    for _ in 0..200 {
        let root = root.clone();
        if let Some(link) = tokio::task::spawn_blocking(move || connect(&root))
            .await
            .unwrap()
        {
            return link;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the server does not listen on the agent link");
}

/// Sends `request` through a fresh link; the server's answer.
async fn run(client: &Client, request: LinkRequest) -> Result<Value, LinkError> {
    let link = link(client).await;
    tokio::task::spawn_blocking(move || link.run(&request))
        .await
        .unwrap()
}

fn states(outcome: &Value) -> Vec<&str> {
    outcome["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["state"].as_str().unwrap())
        .collect()
}

/// The agent edit is computed on the unsaved buffer (its text is nowhere
/// on disk), sent versioned, and the disk is left alone.
#[tokio::test]
async fn an_agent_edit_lands_in_the_unsaved_buffer_not_on_disk() {
    let mut client = server()
        .file("a.py", "a = 1\nb = 2\n")
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    let buffer = "a = 1\nb = UNSAVED\nc = 3\n";
    let uri = client.open("a.py", buffer).await;
    let payload = search_replace("a.py", "c = 3", "c = 4");
    let outcome = run(&client, request(payload)).await.unwrap();
    assert_eq!(outcome["route"], "editor", "{outcome}");
    assert_eq!(outcome["applied"], true, "{outcome}");
    assert_eq!(states(&outcome), ["applied"]);
    assert_eq!(outcome["files"][0]["path"], "a.py");
    assert_eq!(outcome["files"][0]["status"], "M");
    assert_eq!(outcome["summary"], "Applied 1 edit to 1 file.");

    let sent = client.applied_edits();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["label"], "Agent edit");
    let document = &sent[0]["edit"]["documentChanges"][0]["textDocument"];
    assert_eq!(
        (document["uri"].as_str(), document["version"].as_i64()),
        (Some(uri.as_str()), Some(1))
    );
    let mut editor = Editor::new(&client);
    editor.opened("a.py", 1, buffer);
    editor.apply(&sent[0]["edit"]).unwrap();
    assert_eq!(editor.buffer("a.py"), Some("a = 1\nb = UNSAVED\nc = 4\n"));
    assert_eq!(
        client.read("a.py"),
        "a = 1\nb = 2\n",
        "the disk is untouched"
    );
    let shown = client
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("Agent edit"))
        })
        .await;
    assert_eq!(
        shown["message"],
        "Agent edit (a.py): Applied 1 edit to 1 file."
    );
}

/// A snapshot older than the buffer: the agent's edit is merged with the
/// user's unsaved change (`~M`), computed on the buffer the user sees.
#[tokio::test]
async fn a_snapshot_older_than_the_buffer_is_merged_on_the_buffer() {
    let client = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    let buffer = "ONE\ntwo\nthree\nfour\nfive\n";
    client.open("n.txt", buffer).await;
    let mut req = request(search_replace("n.txt", "four", "4"));
    req.snapshot.insert("n.txt".into(), LINES.into());
    let outcome = run(&client, req).await.unwrap();
    assert_eq!(outcome["applied"], true, "{outcome}");
    assert_eq!(outcome["files"][0]["status"], "~M", "{outcome}");
    let mut editor = Editor::new(&client);
    editor.opened("n.txt", 1, buffer);
    editor.apply(&client.applied_edits()[0]["edit"]).unwrap();
    assert_eq!(editor.buffer("n.txt"), Some("ONE\ntwo\nthree\n4\nfive\n"));
    assert_eq!(client.read("n.txt"), LINES);
}

/// The user changed the very line the agent edits: refused with the
/// conflict (policy `merge`), nothing sent; `overwrite` takes the agent's.
#[tokio::test]
async fn a_conflicting_snapshot_is_refused_with_the_conflict() {
    let client = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    client.open("n.txt", "one\ntwo\nthree\nFOUR!\nfive\n").await;
    let mut req = request(search_replace("n.txt", "four", "4"));
    req.snapshot.insert("n.txt".into(), LINES.into());
    req.voice = Voice::Tool {
        tool: "apply_response".into(),
        edits: Vec::new(),
    };
    let outcome = run(&client, req.clone()).await.unwrap();
    assert_eq!(outcome["applied"], false, "{outcome}");
    assert_eq!(states(&outcome), ["refused"]);
    assert_eq!(outcome["errors"][0]["kind"], "conflict", "{outcome}");
    // The retry prompt speaks of the agent's call, on this route too.
    let prompt = outcome["retry_prompt"].as_str().unwrap_or_default();
    assert!(
        prompt.contains("of your last `apply_response` call")
            && prompt.contains("Call `apply_response` again"),
        "{outcome}"
    );
    assert!(outcome.get("failure_reason").is_none(), "{outcome}");
    assert!(client.applied_edits().is_empty());

    req.on_conflict = Some("overwrite".into());
    let outcome = run(&client, req).await.unwrap();
    assert_eq!(outcome["applied"], true, "{outcome}");
    assert_eq!(client.applied_edits().len(), 1);
}

/// The editor declines the edit: not applied, with its reason; a dry run
/// sends nothing and says what would change.
#[tokio::test]
async fn a_declined_edit_and_a_dry_run_are_not_applied() {
    let client = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Refuse)
        .start()
        .await;
    client.open("n.txt", LINES).await;
    let payload = search_replace("n.txt", "two", "2");
    let outcome = run(&client, request(payload.clone())).await.unwrap();
    assert_eq!(outcome["applied"], false, "{outcome}");
    assert_eq!(states(&outcome), ["planned"]);
    let reason = outcome["failure_reason"].as_str().unwrap();
    assert!(reason.contains("user said no"), "{reason}");
    assert_eq!(client.applied_edits().len(), 1);

    let mut dry = request(payload);
    dry.dry_run = true;
    let outcome = run(&client, dry).await.unwrap();
    assert_eq!(
        (outcome["applied"].clone(), outcome["dry_run"].clone()),
        (json!(false), json!(true))
    );
    assert!(
        outcome["files"][0]["diff"].as_str().unwrap().contains("+2"),
        "{outcome}"
    );
    assert_eq!(client.applied_edits().len(), 1, "a dry run sends nothing");
}

/// An editor that never answers: the agent is told the edit may or may not
/// have been applied (never a plain refusal, which would invite a retry).
#[tokio::test]
async fn an_editor_that_never_answers_is_reported_as_unknown() {
    let config = llm_edit_lsp::lsp::ServeConfig {
        apply_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let client = server()
        .file("n.txt", LINES)
        .config(config)
        .apply_answer(ApplyAnswer::Ignore)
        .start()
        .await;
    let err = run(&client, request(search_replace("n.txt", "two", "2")))
        .await
        .unwrap_err();
    assert!(matches!(&err, LinkError::NoAnswer(_)), "{err}");
    assert!(err.to_string().contains("may or may not"), "{err}");
}

/// A malformed line gets an error line; the server serves the next one.
#[tokio::test]
async fn a_malformed_request_is_answered_with_an_error_and_the_link_lives_on() {
    let client = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    drop(link(&client).await);
    let socket = client.root.join(".llm-edit").join(SOCKET);
    for bad in [
        "not json\n",
        "{\"payload\": 3}\n",
        "{\"payload\": \"x\", \"what\": 1}\n",
        "\n",
    ] {
        let socket = socket.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let mut stream = std::os::unix::net::UnixStream::connect(socket).unwrap();
            stream.write_all(bad.as_bytes()).unwrap();
            let mut line = String::new();
            BufReader::new(stream).read_line(&mut line).unwrap();
            line
        })
        .await
        .unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert!(answer["error"].is_string(), "{bad:?}: {answer}");
    }
    let err = run(&client, request("nothing to see".into())).await;
    assert!(
        matches!(err, Ok(ref o) if o["route"] == "editor"),
        "{err:?}"
    );
    let mut bad_path = request(search_replace("n.txt", "two", "2"));
    bad_path.snapshot.insert("../out.txt".into(), "x".into());
    let err = run(&client, bad_path).await.unwrap_err();
    assert!(matches!(err, LinkError::Refused(_)), "{err}");
    let outcome = run(&client, request(search_replace("n.txt", "two", "2")))
        .await
        .unwrap();
    assert_eq!(outcome["applied"], true, "{outcome}");
}

/// A repository that ships `.llm-edit` as a symlink to elsewhere: no
/// socket is created there, the link is off (said in the log), and the
/// server works on.
#[tokio::test]
async fn a_symlinked_state_folder_turns_the_link_off() {
    fn plant(root: &Path) {
        let outside = root.parent().unwrap().join(format!(
            "{}-outside",
            root.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".llm-edit")).unwrap();
    }
    let mut client = server().file("n.txt", LINES).prepare(plant).start().await;
    let outside = client.root.parent().unwrap().join(format!(
        "{}-outside",
        client.root.file_name().unwrap().to_string_lossy()
    ));
    let logged = client
        .notification("window/logMessage", |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("agent link is off"))
        })
        .await;
    assert!(
        logged["message"].as_str().unwrap().contains("symlink"),
        "{logged}"
    );
    let entries: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    assert!(entries.is_empty(), "nothing is created outside the root");
    let root = client.root.clone();
    assert!(
        tokio::task::spawn_blocking(move || connect(&root).is_none())
            .await
            .unwrap()
    );
    // The session goes on. (Runs refuse the symlinked context store on
    // their own: `docs/security.md`.)
    let kit = client
        .command("llm-edit.promptKit", json!({"format": "search_replace"}))
        .await
        .unwrap();
    assert!(kit.is_object(), "{kit}");
    client.request("shutdown", Value::Null).await.unwrap();
    let entries: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    assert!(entries.is_empty(), "nothing is created outside the root");
    std::fs::remove_dir(outside).unwrap();
}

/// The socket is owner-only; it goes when the session ends; a server
/// started on the same root takes the link over, and the first one, when
/// it ends, leaves the new socket alone.
#[tokio::test]
async fn the_socket_is_private_and_removed_at_shutdown_unless_taken_over() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let first = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    drop(link(&first).await);
    let socket = first.root.join(".llm-edit").join(SOCKET);
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::read_to_string(first.root.join(".llm-edit/.gitignore")).unwrap(),
        "*\n"
    );
    let inode =
        |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::symlink_metadata(p).unwrap());
    let before = inode(&socket);

    let second = server()
        .apply_answer(ApplyAnswer::Accept)
        .start_on(&first)
        .await;
    // The second server took over: a new socket file.
    for _ in 0..200 {
        if std::fs::symlink_metadata(&socket)
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::ino(&m) != before)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_ne!(inode(&socket), before);
    second.open("n.txt", "one\nTWO\nthree\nfour\nfive\n").await;
    let outcome = run(&second, request(search_replace("n.txt", "TWO", "2")))
        .await
        .unwrap();
    assert_eq!(
        outcome["applied"], true,
        "through the newer server: {outcome}"
    );
    assert_eq!(second.applied_edits().len(), 1);
    assert!(first.applied_edits().is_empty());

    first.request("shutdown", Value::Null).await.unwrap();
    assert!(
        socket.exists(),
        "the first server leaves the second's socket"
    );
    second.request("shutdown", Value::Null).await.unwrap();
    assert!(
        !socket.exists(),
        "a server removes its own socket at shutdown"
    );
}

/// A process of another user is refused by its credentials even when the
/// socket file's mode would let it in (only as root, which can switch
/// one thread's effective user; the rule itself has a unit test).
#[tokio::test]
async fn another_user_is_refused_by_its_credentials() {
    use std::os::unix::fs::PermissionsExt;
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to connect as another user");
        return;
    }
    let client = server()
        .file("n.txt", LINES)
        .apply_answer(ApplyAnswer::Accept)
        .start()
        .await;
    drop(link(&client).await);
    let state = client.root.join(".llm-edit");
    let socket = state.join(SOCKET);
    for (path, mode) in [(&client.root, 0o711), (&state, 0o711), (&socket, 0o666)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let line = serde_json::to_string(&request(search_replace("n.txt", "two", "2"))).unwrap();
    let answer = tokio::task::spawn_blocking(move || {
        // This thread only (the raw system call, not libc's process-wide
        // wrapper): effective user 65534, real and saved stay root.
        assert_eq!(
            unsafe { libc::syscall(libc::SYS_setresuid, -1, 65534, -1) },
            0
        );
        let connected = std::os::unix::net::UnixStream::connect(&socket);
        assert_eq!(unsafe { libc::syscall(libc::SYS_setresuid, -1, 0, -1) }, 0);
        let mut stream = connected.expect("the mode lets the other user connect");
        let _ = stream.write_all(format!("{line}\n").as_bytes());
        let mut answer = String::new();
        let _ = BufReader::new(stream).read_line(&mut answer);
        answer
    })
    .await
    .unwrap();
    assert_eq!(answer, "", "closed without an answer");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(client.applied_edits().is_empty());
    assert_eq!(client.read("n.txt"), LINES);
}
