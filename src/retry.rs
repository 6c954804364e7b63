//! The retry prompt: what to send back to the LLM when edits failed.
//!
//! Seed 000 ("What the LLM sees on retry") wraps it in a `@retry_context` /
//! `@end retry_context` block holding every error message, what the LLM
//! tried (the failed blocks exactly as it wrote them), and a request to fix
//! the anchors. We add the closest near-match of each `not_found`, so the
//! LLM sees how the file really reads there.

use std::fmt::Write;

use crate::engine::Outcome;
use crate::error::EditError;

/// The retry prompt for a run, or `None` when nothing failed.
pub fn retry_prompt(payload: &str, outcome: &Outcome, partial: bool) -> Option<String> {
    if outcome.errors.is_empty() {
        return None;
    }
    let lines: Vec<&str> = payload.lines().collect();
    let mut out = String::from("@retry_context\n");
    let failed = outcome.errors.len();
    let total = outcome.batch.edits.len();
    let _ = writeln!(
        out,
        "{failed} problem(s) with the {total} edit(s) of your last response:\n"
    );
    for error in &outcome.errors {
        write_error(&mut out, error);
    }
    let mut shown: Vec<(usize, usize)> = Vec::new();
    for error in &outcome.errors {
        let Some(span) = error.payload_lines else {
            continue;
        };
        if shown.contains(&span) {
            continue;
        }
        if shown.is_empty() {
            out.push_str("\nThe failed edits, as you wrote them:\n");
        }
        shown.push(span);
        write_block(&mut out, error, span, &lines);
    }
    out.push('\n');
    out.push_str(if partial {
        "The other edits were applied. Resend only the failed edits, fixed"
    } else {
        "Nothing was applied. Resend all your edits, with the failed ones fixed"
    });
    out.push_str(
        ": copy search/anchor lines exactly from the current file, and add lines \
         that make each one match a single place.\n@end retry_context\n",
    );
    Some(out)
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

fn write_block(out: &mut String, error: &EditError, (first, last): (usize, usize), lines: &[&str]) {
    let label = match error.edit {
        Some(edit) => format!("edit {edit}"),
        None => "unparsed text".to_owned(),
    };
    let _ = writeln!(out, "--- {label} (response lines {first}-{last}) ---");
    let start = first.saturating_sub(1).min(lines.len());
    let end = last.min(lines.len()).max(start);
    for line in &lines[start..end] {
        out.push_str(line);
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
