//! The CLI contract of `FORMATS.md` §7, run on temporary folders with the
//! real binary: exit codes, the JSON report, dry runs, options, stdin, and
//! the files it refuses or must keep byte-exact.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A temporary workspace with files.
struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new(files: &[(&str, &[u8])]) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, bytes).unwrap();
        }
        Workspace { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn read(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.root().join(path)).unwrap()
    }

    /// Runs `apply --root ROOT ARGS... -` with `payload` on stdin.
    fn apply(&self, args: &[&str], payload: &str) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
            .arg("apply")
            .arg("--root")
            .arg(self.root())
            .args(args)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A usage error exits before reading stdin: a broken pipe is fine.
        let written = child.stdin.take().unwrap().write_all(payload.as_bytes());
        if let Err(e) = written {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().unwrap()
    }

    /// `apply --json`: the exit code and the parsed report.
    fn apply_json(&self, args: &[&str], payload: &str) -> (i32, Value) {
        let out = self.apply(&[&["--json"], args].concat(), payload);
        let report = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code().unwrap(), report)
    }
}

fn sr(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n\n")
}

/// Checks an exit code and that `path` now holds `want`.
#[track_caller]
fn check(ws: &Workspace, out: &Output, code: i32, path: &str, want: &[u8]) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&ws.read(path)),
        String::from_utf8_lossy(want)
    );
    assert_eq!(ws.read(path), want);
}

#[test]
fn exit_0_when_applied() {
    let ws = Workspace::new(&[("a.txt", b"one\ntwo\n")]);
    let out = ws.apply(&[], &sr("a.txt", "two\n", "2\n"));
    check(&ws, &out, 0, "a.txt", b"one\n2\n");
}

#[test]
fn exit_1_and_nothing_written_when_an_edit_fails() {
    let ws = Workspace::new(&[("a.txt", b"one\n"), ("b.txt", b"two\n")]);
    let payload = sr("a.txt", "one\n", "1\n") + &sr("b.txt", "absent\n", "x\n");
    let out = ws.apply(&[], &payload);
    check(&ws, &out, 1, "a.txt", b"one\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("not found"));
}

#[test]
fn exit_2_on_usage_and_io_errors() {
    let ws = Workspace::new(&[]);
    let missing_root = ws.root().join("nowhere");
    let out = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
        .args(["apply", "--root"])
        .arg(&missing_root)
        .arg(ws.root().join("payload.md"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("payload") || stderr.contains("root"),
        "{stderr}"
    );

    std::fs::write(ws.root().join("p.md"), sr("a.txt", "", "x\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
        .args(["apply", "--root"])
        .arg(&missing_root)
        .arg(ws.root().join("p.md"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open the root"));

    let out = ws.apply(&["--format", "klingon"], "x");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown format"));
    let out = ws.apply(&["--fuzzy", "3"], "x");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fuzzy takes a threshold"));
    let out = ws.apply(&["--deadline", "0"], "x");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--deadline takes a number"));
    // The MCP server checks the same flags the same way, before serving.
    for (flag, value, says) in [
        ("--fuzzy", "0", "--fuzzy takes a threshold"),
        ("--deadline", "4000", "--deadline takes a number"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
            .args(["mcp", flag, value])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "mcp {flag} {value}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
}

/// The command line as editors and users write it: the language server
/// takes `--log-level` and `--stdio` after `lsp` (the VS Code extension's
/// debug launch passes `lsp --log-level debug`), help goes to stdout with
/// status 0, a wrong argument to stderr with the usage line and status 2.
#[test]
fn command_line_as_editors_and_users_write_it() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for args in [
        &["lsp", "--log-level", "debug"][..],
        &["lsp", "--stdio"],
        &["--stdio"],
        &["--log-level", "warn", "lsp"],
    ] {
        // Standard input closed before `exit`: the server ends with 1.
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for args in [
        &["--help"][..],
        &["apply", "--help"],
        &["help", "mcp"],
        &["-V"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stdout.starts_with(b"llm-edit-lsp ")
                || String::from_utf8_lossy(&out.stdout).contains("Usage: llm-edit-lsp"),
            "{args:?}"
        );
        assert!(out.stderr.is_empty());
    }
    let out = run(&["apply", "--fuzy", "0.9"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: unexpected argument '--fuzy' found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Usage: llm-edit-lsp apply [OPTIONS] [PAYLOAD|-]"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn json_report_shape() {
    let ws = Workspace::new(&[
        ("a.py", b"x = 1\n"),
        ("old.py", b"y\n"),
        ("dup.py", b"z\nz\n"),
    ]);
    let payload = "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n-y\n+Y\n*** End Patch\n\n".to_string()
        + &sr("a.py", "x = 1\n", "x = 2\n")
        + &sr("dup.py", "z\n", "Z\n");
    let (code, report) = ws.apply_json(&["--partial"], &payload);
    assert_eq!(code, 1);
    assert_eq!(report["applied"], true);
    let files = report["files"].as_array().unwrap();
    let entry = |p: &str| files.iter().find(|f| f["path"] == p).cloned();
    assert_eq!(entry("a.py").unwrap()["status"], "M");
    assert_eq!(entry("new.py").unwrap()["status"], "R");
    assert_eq!(entry("new.py").unwrap()["from"], "old.py");
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e["path"], "dup.py");
    assert_eq!(e["edit"], 4, "the move and the hunk are edits 1-2");
    assert_eq!(e["kind"], "ambiguous");
    assert_eq!(e["lines"], serde_json::json!([1, 2]));
    assert!(e["message"].as_str().unwrap().contains("2 places"));
    assert_eq!(ws.read("new.py"), b"Y\n");
    assert!(!ws.root().join("old.py").exists());

    let (code, report) = ws.apply_json(&[], &sr("a.py", "absent\n", "x\n"));
    assert_eq!((code, &report["applied"]), (1, &Value::Bool(false)));
    assert_eq!(report["files"], serde_json::json!([]));
}

#[test]
fn json_report_added_and_deleted() {
    let ws = Workspace::new(&[("gone.txt", b"bye\n")]);
    let payload =
        "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Delete File: gone.txt\n*** End Patch\n";
    let (code, report) = ws.apply_json(&[], payload);
    assert_eq!(code, 0);
    let statuses: Vec<(String, String)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("gone.txt".to_string(), "D".to_string()),
            ("new.txt".into(), "A".into())
        ]
    );
    assert!(!ws.root().join("gone.txt").exists());
    assert_eq!(ws.read("new.txt"), b"hi\n");
}

#[test]
fn dry_run_prints_a_diff_and_changes_nothing() {
    let ws = Workspace::new(&[("a.txt", b"one\ntwo\n")]);
    let out = ws.apply(&["--dry-run"], &sr("a.txt", "two\n", "2\n"));
    check(&ws, &out, 0, "a.txt", b"one\ntwo\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("--- a/a.txt\n+++ b/a.txt\n"), "{stdout}");
    assert!(stdout.contains("\n-two\n+2\n"), "{stdout}");
}

#[test]
fn partial_applies_what_resolved() {
    let ws = Workspace::new(&[("a.txt", b"one\n"), ("b.txt", b"two\n")]);
    let payload = sr("a.txt", "one\n", "1\n") + &sr("b.txt", "absent\n", "x\n");
    let out = ws.apply(&["--partial"], &payload);
    check(&ws, &out, 1, "a.txt", b"1\n");
    assert_eq!(ws.read("b.txt"), b"two\n");
}

#[test]
fn match_exact_turns_off_tolerant_passes() {
    let ws = Workspace::new(&[("a.txt", b"x = 1   \n")]);
    let payload = sr("a.txt", "x = 1\n", "x = 2\n");
    let out = ws.apply(&["--match", "exact"], &payload);
    check(&ws, &out, 1, "a.txt", b"x = 1   \n");
    let out = ws.apply(&[], &payload);
    check(&ws, &out, 0, "a.txt", b"x = 2\n");
}

#[test]
fn fuzzy_threshold_turns_on_fuzzy_matching() {
    let file: &[u8] = b"def f(path):\n    with open(path) as f:\n        return f.read()\n";
    let ws = Workspace::new(&[("a.py", file)]);
    let payload = sr(
        "a.py",
        "def f(path):\n    with open(path) as fh:\n        return fh.read()\n",
        "def f(path):\n    return open(path).read()\n",
    );
    let out = ws.apply(&[], &payload);
    check(&ws, &out, 1, "a.py", file);
    let out = ws.apply(&["--fuzzy", "0.8"], &payload);
    check(
        &ws,
        &out,
        0,
        "a.py",
        b"def f(path):\n    return open(path).read()\n",
    );
}

/// A fuzzy search's first window is written early (while the scan that
/// decides runs): when the scan then refuses (another window nearly as
/// close), the file is untouched and no temporary file is left; when it
/// picks that window, the file is written and none is left either.
#[test]
fn a_fuzzy_edit_written_early_leaves_nothing_behind() {
    let load = |n: u32| {
        format!(
            "def load_{n}(path, limit):\n    rows = read_rows(path, limit, {n})\n    \
             return rows[:limit]\n\n\n"
        )
    };
    let file = format!("import os\n\n\n{}{}", load(1), load(2));
    let ws = Workspace::new(&[("m.py", file.as_bytes())]);
    let search = |n: u32| {
        format!("def load_{n}(path, limit):\n    rows = read_rows(path, limt, {n})\n    return rows[:limit]\n")
    };
    let leftovers = || {
        std::fs::read_dir(ws.root())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "m.py")
            .collect::<Vec<_>>()
    };
    let replace = "def load_1(path, limit):\n    return []\n";
    let out = ws.apply(&["--fuzzy", "0.85"], &sr("m.py", &search(1), replace));
    check(&ws, &out, 1, "m.py", file.as_bytes());
    assert!(String::from_utf8_lossy(&out.stdout).contains("ambiguous"));
    assert_eq!(leftovers(), Vec::<String>::new());

    let other = "class Cache:\n    entries = {}\n    hits = misses = 0\n\n\n";
    let unique = file.replace(&load(2), other);
    std::fs::write(ws.root().join("m.py"), &unique).unwrap();
    let out = ws.apply(&["--fuzzy", "0.85"], &sr("m.py", &search(1), replace));
    let want = unique.replace(&load(1), &format!("{replace}\n\n"));
    check(&ws, &out, 0, "m.py", want.as_bytes());
    assert_eq!(leftovers(), Vec::<String>::new());
}

#[test]
fn payload_from_a_file() {
    let ws = Workspace::new(&[("a.txt", b"one\n")]);
    std::fs::write(ws.root().join("p.md"), sr("a.txt", "one\n", "1\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_llm-edit-lsp"))
        .args(["apply", "--root"])
        .arg(ws.root())
        .arg(ws.root().join("p.md"))
        .output()
        .unwrap();
    check(&ws, &out, 0, "a.txt", b"1\n");
}

#[test]
fn binary_and_invalid_utf8_files_are_refused() {
    let ws = Workspace::new(&[("b.bin", b"ab\0cd\n"), ("l.txt", b"caf\xe9\n")]);
    let payload = sr("b.bin", "ab\n", "x\n") + &sr("l.txt", "caf\n", "x\n");
    let (code, report) = ws.apply_json(&[], &payload);
    assert_eq!(code, 1);
    let kinds: Vec<&str> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["binary", "binary"]);
    let utf8 = report["errors"][1]["message"].as_str().unwrap();
    assert!(utf8.contains("not valid UTF-8"), "{utf8}");
    assert_eq!(ws.read("b.bin"), b"ab\0cd\n");
    assert_eq!(ws.read("l.txt"), b"caf\xe9\n");
}

#[test]
fn paths_outside_the_root_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), b"secret\n").unwrap();
    let ws = Workspace::new(&[]);
    let abs = outside.path().join("secret.txt");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), ws.root().join("link")).unwrap();
    let mut payload =
        sr("../secret.txt", "secret\n", "x\n") + &sr(abs.to_str().unwrap(), "secret\n", "x\n");
    if cfg!(unix) {
        payload += &sr("link/secret.txt", "secret\n", "x\n");
        payload += &sr("link/new.txt", "", "x\n");
    }
    let (code, report) = ws.apply_json(&[], &payload);
    assert_eq!(code, 1);
    for e in report["errors"].as_array().unwrap() {
        assert_eq!(e["kind"], "outside_root", "{e}");
    }
    let expected = if cfg!(unix) { 4 } else { 2 };
    assert_eq!(report["errors"].as_array().unwrap().len(), expected);
    assert_eq!(std::fs::read(&abs).unwrap(), b"secret\n");
    assert!(!outside.path().join("new.txt").exists());
}

#[cfg(unix)]
#[test]
fn permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new(&[("run.sh", b"#!/bin/sh\necho a\n")]);
    let path = ws.root().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ws.apply(&[], &sr("run.sh", "echo a\n", "echo b\n"));
    check(&ws, &out, 0, "run.sh", b"#!/bin/sh\necho b\n");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
}

#[test]
fn crlf_round_trips_byte_exact() {
    let ws = Workspace::new(&[("a.txt", b"one\r\ntwo\r\nthree")]);
    let out = ws.apply(&[], &sr("a.txt", "two\n", "2\nmore\n"));
    check(&ws, &out, 0, "a.txt", b"one\r\n2\r\nmore\r\nthree");
}

#[test]
fn utf16_round_trips_byte_exact() {
    let utf16le = |s: &str| -> Vec<u8> {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        bytes
    };
    let utf16be = |s: &str| -> Vec<u8> {
        let mut bytes = vec![0xFE, 0xFF];
        bytes.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
        bytes
    };
    let ws = Workspace::new(&[
        ("le.txt", &utf16le("héllo\r\nwörld 🦀\r\n")),
        ("be.txt", &utf16be("héllo\nwörld 🦀\n")),
    ]);
    let payload = sr("le.txt", "wörld 🦀\n", "welt 🦀\n") + &sr("be.txt", "héllo\n", "hallo\n");
    let out = ws.apply(&[], &payload);
    check(&ws, &out, 0, "le.txt", &utf16le("héllo\r\nwelt 🦀\r\n"));
    assert_eq!(ws.read("be.txt"), utf16be("hallo\nwörld 🦀\n"));
}

#[test]
fn utf8_bom_is_kept() {
    let ws = Workspace::new(&[("a.txt", b"\xEF\xBB\xBFfirst\nsecond\n")]);
    let out = ws.apply(&[], &sr("a.txt", "first\n", "1st\n"));
    check(&ws, &out, 0, "a.txt", b"\xEF\xBB\xBF1st\nsecond\n");
}

#[test]
fn payload_over_the_size_limit_is_refused() {
    let ws = Workspace::new(&[("a.txt", b"one\n")]);
    let limit = llm_edit_lsp::parse::MAX_PAYLOAD_BYTES;
    let payload = sr("a.txt", "one\n", "1\n") + &" ".repeat(limit);
    let out = ws.apply(&[], &payload);
    check(&ws, &out, 2, "a.txt", b"one\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("larger than"), "{stderr}");
}

#[test]
fn a_payload_asking_for_a_dry_run_writes_nothing() {
    // The MCP filesystem server's `edit_file` with `dryRun: true`: a
    // preview (the diff and the report), never a write.
    let ws = Workspace::new(&[("a.txt", b"one\ntwo\n")]);
    let payload = r#"{"name": "edit_file", "arguments": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}}"#;
    let out = ws.apply(&[], payload);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(ws.read("a.txt"), b"one\ntwo\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("+2"));
    let (code, report) = ws.apply_json(&[], payload);
    assert_eq!((code, &report["applied"]), (0, &Value::Bool(false)));
    assert_eq!(ws.read("a.txt"), b"one\ntwo\n");
    // `dryRun: false` writes.
    let out = ws.apply(&[], &payload.replace("true", "false"));
    check(&ws, &out, 0, "a.txt", b"one\n2\n");
}

#[test]
fn a_change_that_breaks_a_clean_file_is_applied_with_a_warning() {
    // An exact match is applied as written, even when it breaks the
    // file's syntax (the model may mean it); the report says where.
    let ws = Workspace::new(&[("a.py", b"def f():\n    return 1\n")]);
    let payload = sr("a.py", "    return 1\n", "    return (1\n");
    let out = ws.apply(&[], &payload);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warn  a.py: the change leaves a parse error at line 2"),
        "{text}"
    );
    let ws = Workspace::new(&[("a.py", b"def f():\n    return 1\n")]);
    let (code, report) = ws.apply_json(&[], &payload);
    assert_eq!(code, 0);
    assert_eq!(report["warnings"][0]["path"], "a.py");
    assert_eq!(report["warnings"][0]["edits"], serde_json::json!([1]));
    // A file that did not parse before gives no warning.
    let ws = Workspace::new(&[("a.py", b"def f(:\n    return 1\n")]);
    let (_, report) = ws.apply_json(&[], &payload);
    assert!(report.get("warnings").is_none(), "{report}");
}
