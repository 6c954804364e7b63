//! A hostile client against the real binary over stdio: malformed frames
//! and messages never end the server (each is answered with the JSON-RPC
//! error the specification names, and the unsaved buffers stay), `exit`
//! without `shutdown` is status 1, and plans that went stale, or were made
//! concurrently on the same text, are refused instead of sent.

mod client;

use std::time::Duration;

use client::{apply_edits, RawServer, TIMEOUT};
use serde_json::{json, Value};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

fn frame(body: &[u8]) -> Vec<u8> {
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn edit_file(path: &str, old: &str, new: &str) -> String {
    json!({"name": "edit_file", "arguments": {"path": path, "old_string": old, "new_string": new}})
        .to_string()
}

/// A server with `a.txt` open on unsaved text that differs from the disk.
fn server_with_a_buffer(files: &[(&str, &str)]) -> RawServer {
    let mut all = vec![("a.txt", "disk line\n")];
    all.extend_from_slice(files);
    let mut server = RawServer::start(&all);
    server.open("a.txt", 1, "unsaved line\n");
    server
}

/// Previews an edit that only the unsaved buffer of `a.txt` allows; returns
/// the error responses with a null id that arrived before its answer.
fn assert_alive_with_its_buffer(server: &mut RawServer, case: &str) -> Vec<Value> {
    let payload = edit_file("a.txt", "unsaved line", "saved line");
    let id = server.command("llm-edit.preview", json!({"payload": payload}));
    let response = server.wait_for(TIMEOUT, |m| m["id"] == id && m.get("method").is_none());
    let response = response.unwrap_or_else(|| panic!("after {case}: the server does not answer"));
    let result = &response["result"];
    assert_eq!(result["errors"], json!([]), "after {case}: {response}");
    assert!(result["edit"].is_object(), "after {case}: {response}");
    let mut errors = Vec::new();
    while let Some(error) = server.wait_for(Duration::ZERO, |m| {
        m.get("error").is_some() && m["id"].is_null()
    }) {
        errors.push(error);
    }
    errors
}

fn nested(depth: usize) -> Vec<u8> {
    let params = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    format!(r#"{{"jsonrpc":"2.0","id":3,"method":"x","params":{params}}}"#).into_bytes()
}

#[test]
fn every_malformed_message_is_answered_and_the_server_goes_on() {
    let mut huge_header = b"Content-Length: 2\r\nX-Junk: ".to_vec();
    huge_header.extend(std::iter::repeat_n(b'a', 1 << 20));
    huge_header.extend_from_slice(b"\r\n\r\n{}");
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    let cases: Vec<(&str, Vec<u8>, i64, Value)> = vec![
        (
            "invalid JSON",
            frame(br#"{"jsonrpc":"2.0","id":1,"method":"#),
            PARSE_ERROR,
            Value::Null,
        ),
        (
            "a non-message",
            frame(b"[1,2,3]"),
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            "a bare string",
            frame(b"\"hello\""),
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            "jsonrpc not 2.0",
            frame(br#"{"jsonrpc":"1.0","id":77,"method":"shutdown"}"#),
            INVALID_REQUEST,
            json!(77),
        ),
        (
            "a float id",
            frame(br#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#),
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            "a 2^70 id",
            frame(br#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"shutdown"}"#),
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            "a non-string method",
            frame(br#"{"jsonrpc":"2.0","id":"m","method":12}"#),
            INVALID_REQUEST,
            json!("m"),
        ),
        (
            "JSON nested 200 deep",
            frame(&nested(200)),
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            "a bad Content-Length",
            b"Content-Length: twelve\r\n\r\n{}".to_vec(),
            PARSE_ERROR,
            Value::Null,
        ),
        (
            "a short Content-Length",
            b"Content-Length: 5\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/noop\"}".to_vec(),
            PARSE_ERROR,
            Value::Null,
        ),
        (
            "a huge Content-Length",
            b"Content-Length: 99999999999999999999\r\n\r\n{}".to_vec(),
            PARSE_ERROR,
            Value::Null,
        ),
        (
            "invalid UTF-8",
            frame(
                b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"params\":{\"t\":\"\xff\xfe\"}}",
            ),
            PARSE_ERROR,
            Value::Null,
        ),
        (
            "invalid UTF-8 in a header",
            b"Content-Length: 2\xff\r\n\r\n{}".to_vec(),
            PARSE_ERROR,
            Value::Null,
        ),
        ("a huge header", huge_header, PARSE_ERROR, Value::Null),
        ("random bytes", garbage, PARSE_ERROR, Value::Null),
    ];
    let mut server = server_with_a_buffer(&[]);
    assert_alive_with_its_buffer(&mut server, "nothing");
    for (case, bytes, code, id) in cases {
        server.send_raw(&bytes);
        if !id.is_null() {
            let is_it = |m: &Value| m["id"] == id && m.get("error").is_some();
            let error = server.wait_for(TIMEOUT, is_it);
            let error = error.unwrap_or_else(|| panic!("{case}: no error response"));
            assert_eq!(error["error"]["code"], code, "{case}: {error}");
            assert_alive_with_its_buffer(&mut server, case);
            continue;
        }
        let errors = assert_alive_with_its_buffer(&mut server, case);
        let first = errors
            .first()
            .unwrap_or_else(|| panic!("{case}: no error response"));
        assert_eq!(first["error"]["code"], code, "{case}: {first}");
        for error in &errors {
            let code = error["error"]["code"].as_i64();
            assert!(
                matches!(code, Some(PARSE_ERROR | INVALID_REQUEST)),
                "{case}: {error}"
            );
        }
    }
}

#[test]
fn a_lone_surrogate_in_a_buffer_keeps_the_buffer_usable() {
    let mut server = server_with_a_buffer(&[("b.txt", "first\nxy\nlast\n")]);
    let uri = server.uri("b.txt");
    // `json!` cannot hold a lone surrogate: the body is written by hand.
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"plaintext","version":1,"text":"first\nx\ud800y\nlast\n"}}}}}}"#
    );
    server.send_raw(&frame(body.as_bytes()));
    let errors = assert_alive_with_its_buffer(&mut server, "a lone surrogate");
    assert_eq!(errors, Vec::<Value>::new());
    let payload = edit_file("b.txt", "last", "LAST");
    let id = server.command("llm-edit.preview", json!({"payload": payload}));
    let result = server.result(id);
    assert_eq!(result["errors"], json!([]), "{result}");
    let edits = &result["edit"]["changes"][&uri];
    let text = "first\nx\u{fffd}y\nlast\n";
    assert_eq!(
        apply_edits(text, edits.as_array().unwrap()),
        "first\nx\u{fffd}y\nLAST\n"
    );
}

#[test]
fn exit_is_status_0_after_shutdown_and_1_without() {
    let mut server = server_with_a_buffer(&[]);
    server.notify("exit", json!(null));
    let status = server
        .exit_status(TIMEOUT)
        .expect("exits with its input still open");
    assert_eq!(status.code(), Some(1));

    let mut server = server_with_a_buffer(&[]);
    let id = server.request("shutdown", json!(null));
    assert_eq!(server.result(id), Value::Null);
    server.notify("exit", json!(null));
    let status = server
        .exit_status(TIMEOUT)
        .expect("exits with its input still open");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn end_of_input_ends_the_server_without_a_shutdown_status() {
    let mut server = server_with_a_buffer(&[]);
    assert_alive_with_its_buffer(&mut server, "opening");
    server.close_input();
    let status = server
        .exit_status(TIMEOUT)
        .expect("exits at the end of its input");
    assert_eq!(status.code(), Some(1));
}

/// What the client does to its copy of a file before it answers the first
/// `workspace/applyEdit`; whether it then still applies that edit.
type Meanwhile = Box<dyn FnOnce(&mut RawServer, &mut String) -> bool>;

/// Two `llm-edit.apply` on one file, planned on the same text. The client
/// holds its answer to the first `workspace/applyEdit` a while and runs
/// `meanwhile` on its copy of the file (`text`) before answering. No second
/// edit may go out while the first is unanswered; a second edit that goes
/// out is applied to `text` as it is then. With `save`, the client writes
/// what it applied to disk (a file not open). Returns both results.
fn two_applies(
    server: &mut RawServer,
    (path, save): (&str, bool),
    text: &mut String,
    payloads: [String; 2],
    meanwhile: Meanwhile,
) -> Vec<Value> {
    let ids: Vec<i64> = payloads
        .iter()
        .map(|payload| server.command("llm-edit.apply", json!({"payload": payload})))
        .collect();
    let is_apply = |m: &Value| m["method"] == "workspace/applyEdit";
    let first = server
        .wait_for(TIMEOUT, is_apply)
        .expect("one plan goes out");
    // Long enough for a second plan to go out if nothing holds it back.
    let early = server.wait_for(Duration::from_millis(700), is_apply);
    assert!(
        early.is_none(),
        "a second edit went out while the first was unanswered: {early:?}"
    );
    let uri = server.uri(path);
    let disk = server.root.join(path);
    let apply = |text: &mut String, request: &Value| {
        let edits = request["params"]["edit"]["changes"][&uri]
            .as_array()
            .unwrap();
        *text = apply_edits(text, edits);
        if save {
            std::fs::write(&disk, &*text).unwrap();
        }
    };
    if meanwhile(server, text) {
        apply(text, &first);
        server.respond(&first["id"], json!({"applied": true}));
    } else {
        server.respond(
            &first["id"],
            json!({"applied": false, "failureReason": "changed"}),
        );
    }
    if let Some(second) = server.wait_for(Duration::from_secs(2), is_apply) {
        apply(text, &second);
        server.respond(&second["id"], json!({"applied": true}));
    }
    ids.into_iter().map(|id| server.result(id)).collect()
}

fn assert_stale(result: &Value, path: &str) {
    assert_eq!(result["applied"], false, "{result}");
    let reason = result["failureReason"].as_str().unwrap_or_default();
    let expected = format!("{path} changed while the edits were planned");
    assert!(reason.starts_with(&expected), "{result}");
}

#[test]
fn concurrent_applies_on_a_file_not_open_go_out_one_at_a_time() {
    let original = "one\ntwo\nthree\n";
    let mut server = RawServer::start(&[("c.txt", original)]);
    let payloads = [
        edit_file("c.txt", "one\n", "zero\none\n"),
        edit_file("c.txt", "three", "THREE"),
    ];
    let mut text = original.to_owned();
    let file = ("c.txt", true);
    let results = two_applies(
        &mut server,
        file,
        &mut text,
        payloads,
        Box::new(|_, _| true),
    );
    let applied: Vec<&Value> = results.iter().filter(|r| r["applied"] == true).collect();
    match applied.len() {
        2 => assert_eq!(text, "zero\none\ntwo\nTHREE\n"),
        1 => {
            let refused = results.iter().find(|r| r["applied"] == false).unwrap();
            assert_stale(refused, "c.txt");
            assert!(
                text == "zero\none\ntwo\nthree\n" || text == "one\ntwo\nTHREE\n",
                "{text}"
            );
        }
        _ => panic!("{results:?}"),
    }
}

/// A buffer closed and reopened at version 1, or changed under a version it
/// already had, is not the text a waiting plan was made on.
#[test]
fn a_plan_waiting_for_its_file_is_refused_when_the_buffer_changed_under_the_same_version() {
    let original = "alpha\nbeta\n";
    let changed = "gamma\nalpha\nbeta\n";
    let reopen = move |server: &mut RawServer, text: &mut String| {
        server.close("d.txt");
        server.open("d.txt", 1, changed);
        *text = changed.to_owned();
        false
    };
    let repeat = move |server: &mut RawServer, text: &mut String| {
        let item = json!({"uri": server.uri("d.txt"), "version": 1});
        let change = json!({"textDocument": item, "contentChanges": [{"text": changed}]});
        server.notify("textDocument/didChange", change);
        *text = changed.to_owned();
        false
    };
    let cases: [(&str, Meanwhile); 2] = [
        ("reopened", Box::new(reopen)),
        ("repeated version", Box::new(repeat)),
    ];
    for (case, meanwhile) in cases {
        let mut server = RawServer::start(&[("d.txt", original)]);
        server.open("d.txt", 1, original);
        let payloads = [
            edit_file("d.txt", "alpha", "ALPHA"),
            edit_file("d.txt", "beta", "BETA"),
        ];
        let mut text = original.to_owned();
        let results = two_applies(
            &mut server,
            ("d.txt", false),
            &mut text,
            payloads,
            meanwhile,
        );
        // The client refused the first edit (its buffer changed); the
        // second must not go out planned on the old text.
        match results.iter().find(|r| r["applied"] == true) {
            Some(_) => assert!(
                text == "gamma\nALPHA\nbeta\n" || text == "gamma\nalpha\nBETA\n",
                "{case}: {text}"
            ),
            None => {
                let stale = results.iter().filter(|r| {
                    r["failureReason"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("d.txt changed while"))
                });
                assert_eq!(stale.count(), 1, "{case}: {results:?}");
            }
        }
    }
}
