//! Data-driven resolve tests: every `tests/fixtures/resolve/*.md` is one
//! case run through `engine::run` over an in-memory file source.
//!
//! A fixture is markdown with `##` sections; the text of a section is the
//! fenced block under it (any fence length, so payloads may hold fences):
//!
//! - `## file: PATH [crlf] [noeol] [bom]` — a file before the payload;
//! - `## payload` — the payload;
//! - `## options` — optional lines `fuzzy 0.8`, `match exact`, `partial`;
//! - `## expect: PATH [crlf] [noeol] [bom] [deleted] [from OLD]` — a file
//!   after the payload (status `A` when it did not exist, `D` for
//!   `deleted`, `R` with `from`, else `M`);
//! - `## error: KIND [edit=N] lines=[..]` — an expected error, in order.
//!
//! Every file not named by an `expect` must be unchanged; with no `error`
//! line, the run must succeed.

mod common;

use std::path::Path;

use common::MemFiles;
use llm_edit_lsp::engine::{FileStatus, MatchMode, Options};
use llm_edit_lsp::text::encoding::{self, Encoding};

/// One fixture, parsed.
#[derive(Default)]
struct Fixture {
    files: Vec<(String, Vec<u8>)>,
    payload: String,
    options: Options,
    expects: Vec<Expect>,
    errors: Vec<String>,
}

/// One expected file after the run.
struct Expect {
    path: String,
    bytes: Option<Vec<u8>>,
    from: Option<String>,
}

#[test]
fn resolve_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resolve");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    assert!(paths.len() > 20, "fixtures missing in {}", dir.display());
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).expect("fixture is UTF-8");
            check(&text).err().map(|e| format!("── {name}\n{e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}

/// Runs one fixture; `Err` describes every mismatch.
fn check(fixture_text: &str) -> Result<(), String> {
    let fx = parse_fixture(fixture_text)?;
    let mut source = MemFiles::new();
    for (path, bytes) in &fx.files {
        source = source.with(path, bytes.clone());
    }
    let outcome = source.run(&fx.payload, &fx.options);
    let mut problems = Vec::new();

    let got_errors: Vec<String> = outcome
        .errors
        .iter()
        .map(|e| {
            let edit = e.edit.map(|n| format!(" edit={n}")).unwrap_or_default();
            format!("{}{edit} lines={:?}", e.kind, e.lines)
        })
        .collect();
    let wanted_errors: Vec<String> = fx.errors.iter().map(|e| normalize_error(e)).collect();
    let matches_wanted = |got: &String, want: &String| {
        // An expected error without `edit=` matches any edit.
        got == want || (!want.contains(" edit=") && strip_edit(got) == *want)
    };
    if got_errors.len() != wanted_errors.len()
        || !got_errors
            .iter()
            .zip(&wanted_errors)
            .all(|(g, w)| matches_wanted(g, w))
    {
        let messages: Vec<&str> = outcome.errors.iter().map(|e| e.message.as_str()).collect();
        problems.push(format!(
            "errors: want {wanted_errors:?}\n        got  {got_errors:?}\n        messages {messages:#?}"
        ));
    }

    for change in &outcome.files {
        if let (Some(before), Some(after)) = (&change.before, change.after()) {
            if change.edits.apply(&before.text) != after {
                problems.push(format!("{}: edits do not give `after`", change.path));
            }
        }
        // What a writer streams is the text after.
        if change.after_pieces().map(|p| p.concat()).as_deref() != change.after() {
            problems.push(format!("{}: the pieces do not give `after`", change.path));
        }
        if !fx.expects.iter().any(|x| x.path == change.path.as_str()) {
            problems.push(format!(
                "{} changed ({:?}) but no expect names it:\n{}",
                change.path,
                change.status,
                change.after().unwrap_or("<deleted>")
            ));
        }
    }
    for want in &fx.expects {
        let Some(change) = outcome.files.iter().find(|c| c.path.as_str() == want.path) else {
            problems.push(format!("{}: expected a change, got none", want.path));
            continue;
        };
        let existed = fx.files.iter().any(|(p, _)| *p == want.path);
        let status = match (&want.bytes, &want.from) {
            (None, _) => FileStatus::Deleted,
            (_, Some(_)) => FileStatus::Renamed,
            _ if existed => FileStatus::Modified,
            _ => FileStatus::Added,
        };
        if change.status != status {
            problems.push(format!(
                "{}: status {:?}, want {status:?}",
                want.path, change.status
            ));
        }
        if change.from.as_ref().map(|p| p.as_str().to_string()) != want.from {
            problems.push(format!(
                "{}: from {:?}, want {:?}",
                want.path, change.from, want.from
            ));
        }
        let encoding = change
            .before
            .as_ref()
            .map_or(Encoding::Utf8, |b| b.encoding);
        let got = change
            .after()
            .map(|a| encoding::encode(a, encoding).into_owned());
        if got != want.bytes {
            problems.push(format!(
                "{}: content differs\n--- want\n{}\n--- got\n{}",
                want.path,
                show(want.bytes.as_deref()),
                show(got.as_deref())
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn strip_edit(error: &str) -> String {
    match (error.find(" edit="), error.find(" lines=")) {
        (Some(a), Some(b)) => format!("{}{}", &error[..a], &error[b..]),
        _ => error.to_string(),
    }
}

/// `kind edit=N lines=[1, 2]` with spacing as `Debug` prints it.
fn normalize_error(spec: &str) -> String {
    let spec = spec.trim();
    match spec.split_once("lines=[") {
        Some((head, tail)) => {
            let list: Vec<&str> = tail
                .trim_end_matches(']')
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            format!("{}lines=[{}]", head, list.join(", "))
        }
        None => spec.to_string(),
    }
}

fn show(bytes: Option<&[u8]>) -> String {
    match bytes {
        None => "<none: deleted>".into(),
        Some(b) => format!("{:?}", String::from_utf8_lossy(b)),
    }
}

fn parse_fixture(text: &str) -> Result<Fixture, String> {
    let mut fx = Fixture::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(header) = lines[i].strip_prefix("## ") else {
            i += 1;
            continue;
        };
        i += 1;
        let (name, args) = header.split_once(':').unwrap_or((header, ""));
        let words: Vec<&str> = args.split_whitespace().collect();
        match name.trim() {
            "file" => {
                let body = fenced(&lines, &mut i)?;
                fx.files
                    .push((words[0].to_string(), bytes_of(&body, &words[1..])));
            }
            "payload" => fx.payload = fenced(&lines, &mut i)?,
            "options" => {
                let body = fenced(&lines, &mut i)?;
                for opt in body.lines() {
                    match opt.split_whitespace().collect::<Vec<_>>().as_slice() {
                        ["fuzzy", t] => fx.options.fuzzy = Some(t.parse().map_err(|_| "fuzzy")?),
                        ["match", "exact"] => fx.options.match_mode = MatchMode::Exact,
                        ["partial"] => fx.options.partial = true,
                        other => return Err(format!("unknown option {other:?}")),
                    }
                }
            }
            "expect" => {
                let path = words.first().ok_or("expect without a path")?.to_string();
                let flags = &words[1..];
                let from = flags
                    .iter()
                    .position(|w| *w == "from")
                    .map(|k| flags[k + 1].to_string());
                let bytes = if flags.contains(&"deleted") {
                    None
                } else {
                    Some(bytes_of(&fenced(&lines, &mut i)?, flags))
                };
                fx.expects.push(Expect { path, bytes, from });
            }
            "error" => fx.errors.push(args.trim().to_string()),
            other => return Err(format!("unknown section `## {other}`")),
        }
    }
    if fx.payload.is_empty() {
        return Err("no `## payload` section".into());
    }
    Ok(fx)
}

/// The fenced block starting at the next non-blank line; `i` moves past it.
fn fenced(lines: &[&str], i: &mut usize) -> Result<String, String> {
    while *i < lines.len() && lines[*i].trim().is_empty() {
        *i += 1;
    }
    let open = lines.get(*i).ok_or("section without a fenced block")?;
    let fence: String = open
        .chars()
        .take_while(|c| *c == '`' || *c == '~')
        .collect();
    if fence.len() < 3 {
        return Err(format!("expected a fence, got `{open}`"));
    }
    *i += 1;
    let mut body = String::new();
    while *i < lines.len() && lines[*i] != fence {
        body.push_str(lines[*i]);
        body.push('\n');
        *i += 1;
    }
    if *i == lines.len() {
        return Err(format!("unclosed fence `{fence}`"));
    }
    *i += 1;
    Ok(body)
}

/// The bytes of a fenced text under flags `crlf`, `noeol`, `bom`.
fn bytes_of(body: &str, flags: &[&str]) -> Vec<u8> {
    let mut text = body.to_string();
    if flags.contains(&"noeol") {
        text.pop();
    }
    if flags.contains(&"crlf") {
        text = text.replace('\n', "\r\n");
    }
    let mut bytes = Vec::new();
    if flags.contains(&"bom") {
        bytes.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    bytes.extend_from_slice(text.as_bytes());
    bytes
}
