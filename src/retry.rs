//! The retry prompt: what to send back to the LLM when edits failed.
//!
//! Seed 000 ("What the LLM sees on retry") wraps it in a `@retry_context` /
//! `@end retry_context` block holding every error message, what the LLM
//! tried (the failed blocks exactly as it wrote them), and a request to fix
//! the anchors. We add the closest near-match of each `not_found`, so the
//! LLM sees how the file really reads there.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::engine::Outcome;
use crate::error::EditError;

/// Who sent the edits, so that the prompt speaks of what they sent: a
/// response the LLM wrote (its blocks shown by their lines), or an agent's
/// tool call (each failed edit shown as the arguments it passed).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Voice {
    /// A response: blocks, diffs, tool calls as text.
    #[default]
    Response,
    /// A tool call named `tool`. `edits[i]` is what to show of the
    /// payload's edit `i + 1` (its `old_string`, labelled as the agent
    /// sent it); empty when the call's payload is text the agent wrote
    /// (`apply_patch`, `apply_response`): its lines are shown instead.
    Tool {
        tool: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        edits: Vec<String>,
    },
}

/// The retry prompt for a run of a response, or `None` when nothing failed.
pub fn retry_prompt(payload: &str, outcome: &Outcome, partial: bool) -> Option<String> {
    retry_prompt_as(payload, outcome, partial, &Voice::Response)
}

/// The retry prompt for a run of what `voice` sent, or `None` when
/// nothing failed.
pub fn retry_prompt_as(
    payload: &str,
    outcome: &Outcome,
    partial: bool,
    voice: &Voice,
) -> Option<String> {
    if outcome.errors.is_empty() {
        return None;
    }
    let lines: Vec<&str> = payload.lines().collect();
    let mut out = String::from("@retry_context\n");
    let failed = outcome.errors.len();
    let total = outcome.batch.edits.len();
    let last = match voice {
        Voice::Response => "response".to_owned(),
        Voice::Tool { tool, .. } => format!("`{tool}` call"),
    };
    let _ = writeln!(
        out,
        "{failed} problem(s) with the {total} edit(s) of your last {last}:\n"
    );
    for error in &outcome.errors {
        write_error(&mut out, error);
    }
    let mut shown: Vec<Shown> = Vec::new();
    for error in &outcome.errors {
        let Some(what) = Shown::of(error, voice) else {
            continue;
        };
        if shown.contains(&what) {
            continue;
        }
        if shown.is_empty() {
            out.push_str("\nThe failed edits, as you wrote them:\n");
        }
        match (what, voice) {
            (
                Shown::Argument {
                    tool,
                    index,
                    of,
                    text,
                },
                _,
            ) => write_argument(&mut out, tool, index, of, text),
            (Shown::Lines(span), Voice::Tool { tool, .. }) => write_block(
                &mut out,
                error,
                span,
                &lines,
                &format!("lines {}-{} of your `{tool}` call", span.0, span.1),
            ),
            (Shown::Lines(span), Voice::Response) => write_block(
                &mut out,
                error,
                span,
                &lines,
                &format!("response lines {}-{}", span.0, span.1),
            ),
        }
        shown.push(what);
    }
    out.push('\n');
    match voice {
        Voice::Response => out.push_str(if partial {
            "The other edits were applied. Resend only the failed edits, fixed"
        } else {
            "Nothing was applied. Resend all your edits, with the failed ones fixed"
        }),
        Voice::Tool { tool, edits } => {
            let _ = write!(
                out,
                "{} Call `{tool}` again with {}",
                if partial {
                    "The other edits were applied."
                } else {
                    "Nothing was applied."
                },
                match (partial, total) {
                    (true, _) => "only the failed edits, fixed",
                    (false, 0 | 1) => "the edit fixed",
                    (false, _) => "all its edits, the failed ones fixed",
                }
            );
            if !edits.is_empty() {
                out.push_str(
                    ": copy each `old_string` exactly from the current file (read_file shows \
                     it), with enough lines to match a single place.\n@end retry_context\n",
                );
                return Some(out);
            }
        }
    }
    out.push_str(
        ": copy search/anchor lines exactly from the current file, and add lines \
         that make each one match a single place.\n@end retry_context\n",
    );
    Some(out)
}

/// What the prompt shows of a failed edit: the argument a tool call
/// passed for it, or the payload lines it was written on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown<'a> {
    /// Edit `index` (1-based) of the `of` edits of a call of `tool`.
    Argument {
        tool: &'a str,
        index: usize,
        of: usize,
        text: &'a str,
    },
    Lines((usize, usize)),
}

impl<'a> Shown<'a> {
    fn of(error: &EditError, voice: &'a Voice) -> Option<Shown<'a>> {
        if let (Voice::Tool { tool, edits }, Some(index)) = (voice, error.edit) {
            if let Some(text) = index.checked_sub(1).and_then(|i| edits.get(i)) {
                return Some(Shown::Argument {
                    tool,
                    index,
                    of: edits.len(),
                    text,
                });
            }
        }
        error.payload_lines.map(Shown::Lines)
    }
}

fn write_error(out: &mut String, error: &EditError) {
    let mut place = String::new();
    if let Some(edit) = error.edit {
        let _ = write!(place, "edit {edit}");
    }
    if let Some(path) = &error.path {
        let _ = write!(
            place,
            "{}{path}",
            if place.is_empty() { "" } else { " in " }
        );
    }
    // Most messages already open with "edit N in PATH: "; it is not said twice.
    let place = if place.is_empty() || error.message.starts_with(&format!("{place}: ")) {
        String::new()
    } else {
        format!("{place}: ")
    };
    let _ = writeln!(out, "- [{}] {place}{}", error.kind, error.message);
    if let Some(near) = &error.near {
        let _ = writeln!(
            out,
            "  closest match: {} ({}% similar)",
            near.lines, near.similarity
        );
        if let Some((wrote, file)) = &near.differs_at {
            let _ = writeln!(out, "    you wrote:     {wrote}");
            let _ = writeln!(out, "    the file has:  {file}");
        }
    }
}

fn write_block(
    out: &mut String,
    error: &EditError,
    (first, last): (usize, usize),
    lines: &[&str],
    place: &str,
) {
    let label = match error.edit {
        Some(edit) => format!("edit {edit}"),
        None => "unparsed text".to_owned(),
    };
    let _ = writeln!(out, "--- {label} ({place}) ---");
    let start = first.saturating_sub(1).min(lines.len());
    let end = last.min(lines.len()).max(start);
    for line in &lines[start..end] {
        out.push_str(line);
        out.push('\n');
    }
}

/// A tool call's failed edit, as the arguments the agent passed.
fn write_argument(out: &mut String, tool: &str, index: usize, of: usize, text: &str) {
    let whose = if of > 1 {
        format!("`edits[{}]` of your `{tool}` call", index - 1)
    } else {
        format!("your `{tool}` call")
    };
    let _ = writeln!(out, "--- edit {index} ({whose}) ---");
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorKind, LineRange, NearMatch};

    #[test]
    fn lists_errors_near_matches_and_blocks() {
        let payload = "intro\na.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
        let mut error = EditError::new(ErrorKind::NotFound, "SEARCH not found")
            .with_path("a.py")
            .with_edit(1)
            .with_payload_lines(2, 7);
        error.near = Some(Box::new(NearMatch {
            lines: LineRange::new(3, 3),
            similarity: 75,
            differs_at: Some(("old".into(), "olde".into())),
        }));
        let outcome = Outcome {
            errors: vec![error],
            ..Outcome::default()
        };
        insta::assert_snapshot!(retry_prompt(payload, &outcome, false).unwrap(), @r"
        @retry_context
        1 problem(s) with the 0 edit(s) of your last response:

        - [not_found] edit 1 in a.py: SEARCH not found
          closest match: line 3 (75% similar)
            you wrote:     old
            the file has:  olde

        The failed edits, as you wrote them:
        --- edit 1 (response lines 2-7) ---
        a.py
        <<<<<<< SEARCH
        old
        =======
        new
        >>>>>>> REPLACE

        Nothing was applied. Resend all your edits, with the failed ones fixed: copy search/anchor lines exactly from the current file, and add lines that make each one match a single place.
        @end retry_context
        ");
        assert_eq!(retry_prompt(payload, &Outcome::default(), false), None);
    }

    #[test]
    fn a_tool_call_is_shown_as_the_arguments_it_passed() {
        let payload = r#"{"name":"MultiEdit","arguments":{}}"#;
        let error = EditError::new(ErrorKind::NotFound, "old_string not found")
            .with_path("a.py")
            .with_edit(2)
            .with_payload_lines(1, 1);
        let outcome = Outcome {
            errors: vec![error],
            ..Outcome::default()
        };
        let voice = Voice::Tool {
            tool: "multi_edit".into(),
            edits: vec![
                "old_string:\nfirst\n".into(),
                "old_string:\nsecond\n".into(),
            ],
        };
        insta::assert_snapshot!(retry_prompt_as(payload, &outcome, false, &voice).unwrap(), @r"
        @retry_context
        1 problem(s) with the 0 edit(s) of your last `multi_edit` call:

        - [not_found] edit 2 in a.py: old_string not found

        The failed edits, as you wrote them:
        --- edit 2 (`edits[1]` of your `multi_edit` call) ---
        old_string:
        second

        Nothing was applied. Call `multi_edit` again with the edit fixed: copy each `old_string` exactly from the current file (read_file shows it), with enough lines to match a single place.
        @end retry_context
        ");
        // A tool whose payload is text the agent wrote: its lines.
        let voice = Voice::Tool {
            tool: "apply_patch".into(),
            edits: Vec::new(),
        };
        let prompt = retry_prompt_as(payload, &outcome, true, &voice).unwrap();
        assert!(
            prompt.contains("--- edit 2 (lines 1-1 of your `apply_patch` call) ---\n{"),
            "{prompt}"
        );
        assert!(
            prompt.contains("The other edits were applied. Call `apply_patch` again with only the failed edits, fixed"),
            "{prompt}"
        );
    }

    #[test]
    fn a_message_that_names_its_place_is_not_prefixed_again() {
        let error = EditError::new(
            ErrorKind::NotFound,
            "edit 2 in src/conf.py: SEARCH not found in src/conf.py",
        )
        .with_path("src/conf.py")
        .with_edit(2);
        let mut out = String::new();
        write_error(&mut out, &error);
        assert_eq!(
            out,
            "- [not_found] edit 2 in src/conf.py: SEARCH not found in src/conf.py\n"
        );
    }
}
