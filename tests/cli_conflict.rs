//! `llm-edit-lsp apply --context DIR --on-conflict P` on temporary
//! workspaces: a file changed since the LLM's snapshot is merged (`~M` in
//! the report), refused, or overwritten.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const SNAPSHOT: &str = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n";
/// The user changed line 1 since the LLM saw the file.
const LOCAL: &str = "a = 10\nb = 2\nc = 3\nd = 4\ne = 5\n";

fn payload(search: &str, replace: &str) -> String {
    format!("app.py\n```\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n")
}

/// Runs `apply --json` on a workspace holding `LOCAL` with a context
/// folder holding `SNAPSHOT`; returns (exit code, report, app.py after).
fn apply(policy: Option<&str>, payload: &str) -> (i32, Value, String) {
    let root = tempfile::tempdir().unwrap();
    let context = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("app.py"), LOCAL).unwrap();
    std::fs::write(context.path().join("app.py"), SNAPSHOT).unwrap();
    let payload_file = root.path().join("payload.md");
    std::fs::write(&payload_file, payload).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"));
    command
        .arg("apply")
        .arg("--root")
        .arg(root.path())
        .arg("--context")
        .arg(context.path())
        .arg("--json");
    if let Some(policy) = policy {
        command.args(["--on-conflict", policy]);
    }
    let output = command.arg(&payload_file).output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let after = read(root.path(), "app.py");
    (output.status.code().unwrap_or(-1), report, after)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

#[test]
fn merge_is_the_default_and_reports_tilde_m() {
    for policy in [None, Some("merge")] {
        let (code, report, after) = apply(policy, &payload("d = 4", "d = 40"));
        assert_eq!(code, 0, "{report}");
        assert_eq!(report["files"][0]["status"], "~M", "{report}");
        assert_eq!(after, "a = 10\nb = 2\nc = 3\nd = 40\ne = 5\n");
    }
}

#[test]
fn merge_refuses_overlapping_changes() {
    let (code, report, after) = apply(None, &payload("a = 1", "a = 100"));
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["errors"][0]["kind"], "conflict");
    assert_eq!(report["errors"][0]["lines"], serde_json::json!([1]));
    assert_eq!(after, LOCAL);
}

#[test]
fn refuse_writes_nothing_even_for_disjoint_changes() {
    let (code, report, after) = apply(Some("refuse"), &payload("d = 4", "d = 40"));
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["errors"][0]["kind"], "conflict");
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("local changes at line 1"),
        "{report}"
    );
    assert_eq!(after, LOCAL);
}

#[test]
fn overwrite_replaces_the_local_changes() {
    let (code, report, after) = apply(Some("overwrite"), &payload("d = 4", "d = 40"));
    assert_eq!(code, 0, "{report}");
    assert_eq!(after, "a = 1\nb = 2\nc = 3\nd = 40\ne = 5\n");
}

#[test]
fn an_unchanged_file_is_a_plain_modification() {
    let root = tempfile::tempdir().unwrap();
    let context = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("app.py"), SNAPSHOT).unwrap();
    std::fs::write(context.path().join("app.py"), SNAPSHOT).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
        .arg("apply")
        .arg("--root")
        .arg(root.path())
        .arg("--context")
        .arg(context.path())
        .arg("--json")
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload("d = 4", "d = 40").as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["files"][0]["status"], "M", "{report}");
}
