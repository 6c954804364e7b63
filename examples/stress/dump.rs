//! A case on disk in the corpus layout (`../shared/corpus/README.md`), to
//! replay it with `../shared/corpus/run`, and the check of a case through
//! the real binary (`BIN apply --json --root DIR [--fuzzy T] PAYLOAD`).

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::case::Case;
use crate::formats;
use crate::judge::{judge_result, patch_headers, Judged, Verdict};
use crate::pairs::Pair;

/// Writes `case` under `dir`: `case.json`, `payload.*`, `before/`, `after/`.
/// Refusing passes too (`expect: refuse`, `or_apply`): the judge accepts a
/// refusal for every case, and applying exactly `after/`.
pub fn write_case(dir: &Path, case: &Case, pair: &Pair) -> std::io::Result<()> {
    let d = &case.draft;
    let meta = json!({
        "description": format!(
            "Stress case {}: a {} payload with mistake `{}`, built from the real edit {}@{}:{}. \
             Expected: the real after-file, or a refusal.",
            case.id, case.id.format, case.id.mistake, pair.repo, &pair.commit[..12.min(pair.commit.len())], pair.path
        ),
        "format": formats::corpus_name(case.id.format),
        "expect": "refuse",
        "or_apply": true,
        "tags": ["stress", case.id.mistake, case.id.format],
    });
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("case.json"),
        serde_json::to_string_pretty(&meta)? + "\n",
    )?;
    std::fs::write(
        dir.join(format!("payload.{}", formats::extension(case.id.format))),
        &case.payload,
    )?;
    for (side, text) in [("before", d.before_text()), ("after", d.after_text())] {
        let file = dir.join(side).join(&d.path);
        std::fs::create_dir_all(file.parent().expect("a file path has a parent"))?;
        std::fs::write(file, text)?;
    }
    Ok(())
}

/// Runs `case` through the MCP server's `apply_response` tool, in process,
/// on its file in a scratch directory (with `--fuzzy T` when given), and
/// judges it like the in-process run.
pub fn run_mcp(case: &Case, fuzzy: Option<f64>) -> Result<Judged, String> {
    use llm_edit_lsp::mcp::{Config, Session};

    let d = &case.draft;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = tmp.path().join("root");
    let file = root.join(&d.path);
    std::fs::create_dir_all(file.parent().expect("a file path has a parent"))
        .map_err(|e| e.to_string())?;
    std::fs::write(&file, d.before_text()).map_err(|e| e.to_string())?;
    let session = Session::new(Config {
        roots: vec![root.clone()],
        fuzzy,
        ..Config::default()
    })?;
    let mut args = serde_json::Map::new();
    args.insert("text".into(), Value::String(case.payload.clone()));
    let reply = session
        .call("apply_response", args)
        .map_err(|e| format!("{e:?}"))?;
    let now = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let errors = reply.structured["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    Ok(match (reply.is_error, errors.first()) {
        (false, _) => judge_result(
            &now,
            d,
            case.id.format,
            &patch_headers(&case.payload, case.id.format),
        ),
        (true, Some(first)) if now == d.before_text() => Judged {
            verdict: Verdict::Refused(first["kind"].as_str().unwrap_or("?").to_owned()),
            precise: true,
            detail: first["message"].as_str().unwrap_or_default().to_owned(),
        },
        (true, Some(_)) => Judged {
            verdict: Verdict::Crash("an error but the file changed".into()),
            precise: false,
            detail: reply.text,
        },
        (true, None) => Judged {
            verdict: Verdict::Crash("an error without an edit error".into()),
            precise: false,
            detail: reply.text,
        },
    })
}

/// Runs `case` through the binary in a scratch directory (with `--fuzzy T`
/// when given) and judges it like the in-process run.
pub fn run_cli(bin: &Path, case: &Case, fuzzy: Option<f64>) -> Result<Judged, String> {
    let d = &case.draft;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = tmp.path().join("root");
    let file = root.join(&d.path);
    std::fs::create_dir_all(file.parent().expect("a file path has a parent"))
        .map_err(|e| e.to_string())?;
    std::fs::write(&file, d.before_text()).map_err(|e| e.to_string())?;
    let payload = tmp
        .path()
        .join(format!("payload.{}", formats::extension(case.id.format)));
    std::fs::write(&payload, &case.payload).map_err(|e| e.to_string())?;
    let mut command = Command::new(bin);
    command.args(["apply", "--json", "--root"]).arg(&root);
    if let Some(t) = fuzzy {
        command.arg("--fuzzy").arg(t.to_string());
    }
    let out = command
        .arg(&payload)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let now = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let report: Option<Value> = serde_json::from_slice(&out.stdout).ok();
    let crash = |why: String| Judged {
        verdict: Verdict::Crash(why.clone()),
        precise: false,
        detail: why,
    };
    Ok(match (out.status.code(), report) {
        (Some(0), Some(_)) => judge_result(
            &now,
            d,
            case.id.format,
            &patch_headers(&case.payload, case.id.format),
        ),
        (Some(1), Some(report)) if now == d.before_text() => {
            let first = &report["errors"][0];
            Judged {
                verdict: Verdict::Refused(first["kind"].as_str().unwrap_or("?").to_owned()),
                precise: true,
                detail: first["message"].as_str().unwrap_or_default().to_owned(),
            }
        }
        (Some(1), Some(_)) => crash("exit 1 but the file changed".into()),
        (code, _) => crash(format!("exit {code:?} without a JSON report")),
    })
}
