//! The shared corpus (`tests/common/shared.rs` says where) through the server: each
//! case's `before/` is the workspace, every UTF-8 text file of it is open
//! in the editor, `llm-edit.preview` plans the payload, and the returned
//! `WorkspaceEdit` is applied by [`Editor`] and saved; the tree must equal
//! `after/` byte for byte. Refused cases must report the expected error
//! (kind, path and lines when given) and return no edit.
//!
//! Skipped: cases tagged `conflict` (they need the snapshot `context/`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::shared;
use crate::support::{server, Editor};

/// Every file under `root`, relative path → bytes.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if dir == root && entry.file_name() == ".llm-edit" {
                // The server's state folder (the agent link's socket).
                continue;
            }
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                out.insert(relative.replace('\\', "/"), fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Where two trees first differ, for a failure message.
fn first_difference(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>) -> String {
    let paths: std::collections::BTreeSet<&String> = got.keys().chain(want.keys()).collect();
    for path in paths {
        match (got.get(path), want.get(path)) {
            (None, _) => return format!("missing {path}"),
            (_, None) => return format!("unexpected {path}"),
            (Some(g), Some(w)) if g != w => {
                let (g, w) = (String::from_utf8_lossy(g), String::from_utf8_lossy(w));
                let line = g
                    .split_inclusive('\n')
                    .zip(w.split_inclusive('\n'))
                    .position(|(a, b)| a != b);
                return match line {
                    Some(i) => format!(
                        "{path} line {}: got {:?}, want {:?}",
                        i + 1,
                        g.split_inclusive('\n').nth(i).unwrap_or_default(),
                        w.split_inclusive('\n').nth(i).unwrap_or_default()
                    ),
                    None => format!("{path}: lengths differ ({} vs {} bytes)", g.len(), w.len()),
                };
            }
            _ => {}
        }
    }
    "identical".into()
}

/// The command `options` for the case's CLI `args`, or `None` when the
/// server cannot express one of them.
fn options(args: &[Value]) -> Option<Value> {
    let mut options = Map::new();
    let mut args = args.iter().filter_map(Value::as_str);
    while let Some(arg) = args.next() {
        match arg {
            "--partial" => {
                options.insert("partial".into(), json!(true));
            }
            "--match" => {
                options.insert("matchMode".into(), json!(args.next()?));
            }
            "--fuzzy" => {
                let threshold: f64 = args.next()?.parse().ok()?;
                options.insert("fuzzyThreshold".into(), json!(threshold));
            }
            "--on-conflict" => {
                options.insert("onConflict".into(), json!(args.next()?));
            }
            _ => return None,
        }
    }
    Some(Value::Object(options))
}

/// Whether `errors` holds one matching the expected `error` of case.json.
fn has_expected_error(errors: &Value, want: &Value) -> bool {
    errors.as_array().into_iter().flatten().any(|e| {
        ["kind", "path", "lines"]
            .iter()
            .all(|key| want.get(*key).is_none() || e[*key] == want[*key])
    })
}

fn error_summary(errors: &Value) -> String {
    let list: Vec<String> = errors
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "{} {} {}: {}",
                e["kind"], e["path"], e["lines"], e["message"]
            )
        })
        .collect();
    list.join("; ")
}

/// Runs one case; `Ok(())` on a pass, else why not.
async fn run_case(dir: &Path, meta: &Value) -> Result<(), String> {
    let options = options(meta["args"].as_array().map_or(&[][..], Vec::as_slice))
        .ok_or("args the server cannot express")?;
    let payload_file = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("payload.")
        })
        .ok_or("no payload file")?;
    let payload = fs::read_to_string(payload_file).unwrap();
    let before = tree(&dir.join("before"));
    let mut builder = server();
    for (path, bytes) in &before {
        builder = builder.file_bytes(path, bytes.clone());
    }
    let client = builder.start().await;
    let mut editor = Editor::new(&client);
    for (path, bytes) in &before {
        let plain_utf8 = !bytes.starts_with(&[0xEF, 0xBB, 0xBF]) && !bytes.contains(&0);
        if let (true, Ok(text)) = (plain_utf8, std::str::from_utf8(bytes)) {
            client.open(path, text).await;
            editor.opened(path, 1, text);
        }
    }
    let result = client
        .command(
            "llm-edit.preview",
            json!({"payload": payload, "options": options}),
        )
        .await
        .map_err(|e| format!("preview failed: {e}"))?;
    let expect = meta["expect"].as_str().unwrap_or("apply");
    let errors = &result["errors"];
    if expect == "refuse" {
        if !result["edit"].is_null() {
            return Err(format!("refused case returned an edit: {}", result["edit"]));
        }
        if !has_expected_error(errors, &meta["error"]) {
            return Err(format!(
                "want error {}, got [{}]",
                meta["error"],
                error_summary(errors)
            ));
        }
        return Ok(());
    }
    if expect == "apply" && errors.as_array().is_some_and(|e| !e.is_empty()) {
        return Err(format!("refused: {}", error_summary(errors)));
    }
    if expect == "partial" && !has_expected_error(errors, &meta["error"]) {
        return Err(format!(
            "want error {}, got [{}]",
            meta["error"],
            error_summary(errors)
        ));
    }
    if result["edit"].is_null() {
        return Err(format!("no edit; errors [{}]", error_summary(errors)));
    }
    editor
        .apply(&result["edit"])
        .map_err(|e| format!("the edit does not apply: {e}"))?;
    editor.save_all();
    let got = tree(&client.root);
    let want = tree(&dir.join("after"));
    if got != want {
        return Err(first_difference(&got, &want));
    }
    Ok(())
}

fn cases() -> Vec<PathBuf> {
    let Some(Ok(entries)) = shared::corpus_cases().map(fs::read_dir) else {
        return Vec::new();
    };
    let mut cases: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    cases.sort();
    cases
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corpus_applies_through_the_server() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for dir in cases() {
        let meta: Value =
            serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        let tags = meta["tags"].as_array().cloned().unwrap_or_default();
        if tags.iter().any(|t| t == "conflict") {
            continue;
        }
        ran += 1;
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if let Err(why) = run_case(&dir, &meta).await {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} corpus cases failed through the server:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
