//! Shell commands a response suggests for what edit blocks cannot do
//! (seeds 001, 003): deleting, moving and creating directories —
//! `git rm`, `git mv`, `mkdir -p`, `rm`, `mv`. They are reported to the
//! user, never run.
//!
//! A command is found on a line of a ```` ```bash ```` / `sh` / `shell` /
//! `console` fence, on a `$ `-prompted line, or in an inline code span
//! (`` `git rm old.py` ``). Lines that are the text of an edit (inside a
//! SEARCH/REPLACE or `««« EDIT` block, a patch, an `<apply_diff>`, or the
//! code of a `FIND:`/`REPLACE:`) are not suggestions.

use super::conflict_markers as markers;
use super::markdown;

/// Commands worth reporting, matched at the start of a command line.
const COMMANDS: [&str; 6] = ["git rm ", "git mv ", "mkdir -p ", "mkdir ", "rm ", "mv "];

/// Fence info strings of shell code.
const SHELL_FENCES: [&str; 6] = ["bash", "sh", "shell", "console", "zsh", "terminal"];

/// The suggested commands, in payload order. Never run, only reported.
pub fn find(payload: &str) -> Vec<String> {
    let lines: Vec<&str> = payload.lines().collect();
    find_in(&lines)
}

/// [`find`] over the payload's lines.
pub fn find_in(lines: &[&str]) -> Vec<String> {
    find_with(lines, &markdown::Fences::new(lines))
}

/// [`find_in`], given the lines' fences (read once for the whole parse):
/// a line that is no fence neither opens nor closes one.
pub fn find_with(lines: &[&str], fences: &markdown::Fences) -> Vec<String> {
    let mut found = Vec::new();
    // The open fence (its character and length) and whether it holds
    // shell code.
    let mut fence: Option<((char, usize), bool)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(end) = edit_text_end(lines, i) {
            i = end + 1;
            continue;
        }
        let is_fence = fences.is_fence(i);
        match &fence {
            Some(((ch, len), _)) if is_fence && markdown::closes_run(line, *ch, *len) => {
                fence = None
            }
            Some((_, true)) => {
                let command = line.trim();
                push_command(&mut found, command.strip_prefix("$ ").unwrap_or(command));
            }
            Some((_, false)) => {}
            None => {
                if let Some((ch, len, info)) =
                    is_fence.then(|| markdown::fence_parts(line)).flatten()
                {
                    fence = Some(((ch, len), is_shell(info)));
                } else if !may_hold_command(line) {
                    // Most prose: no prompt, no code span.
                } else if let Some(command) = line.trim().strip_prefix("$ ") {
                    push_command(&mut found, command);
                } else {
                    for span in inline_code_spans(line) {
                        push_command(&mut found, span);
                    }
                }
            }
        }
        i += 1;
    }
    found
}

/// A line's first byte after its ASCII blanks (`None` for a blank line):
/// what decides, for most lines, that they open no edit text and hold no
/// command, without trimming them. A byte from 128 on may start a Unicode
/// blank that `trim` would remove: such a line takes the full checks.
fn lead(line: &str) -> Option<u8> {
    line.bytes()
        .find(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// Whether a line may open the text of an edit: every opener
/// [`edit_text_end`] knows starts, once trimmed, with `<`
/// (`<<<<<<< SEARCH`, `<apply_diff>`), `«`, `*` (`*** Begin Patch`, a
/// bold label), `F` or `R` (`FIND:`, `REPLACE:`).
fn may_open_edit_text(line: &str) -> bool {
    matches!(lead(line), Some(b'<' | b'*' | b'F' | b'R' | 0x80..))
}

/// Whether a prose line may hold a command: a `$ ` prompt (led by `$`)
/// or a code span (a backtick in it).
fn may_hold_command(line: &str) -> bool {
    matches!(lead(line), Some(b'$' | 0x80..)) || memchr::memchr(b'`', line.as_bytes()).is_some()
}

/// When line `i` opens the text of an edit, the index of its last line.
fn edit_text_end(lines: &[&str], i: usize) -> Option<usize> {
    if !may_open_edit_text(lines[i]) {
        return None;
    }
    opened_edit_text_end(lines, i)
}

/// [`edit_text_end`] without the check of the line's first byte.
fn opened_edit_text_end(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines[i];
    let trimmed = line.trim();
    let end_where = |is_end: &dyn Fn(&str) -> bool| {
        Some(
            (i + 1..lines.len())
                .find(|&j| is_end(lines[j]))
                .unwrap_or(lines.len()),
        )
    };
    if markers::is_search_marker(line) {
        return end_where(&|l| markers::is_replace_marker(l));
    }
    if trimmed.starts_with("««« EDIT") {
        return end_where(&|l| l.trim_start().starts_with("»»»"));
    }
    if trimmed.starts_with("*** Begin Patch") {
        return end_where(&|l| l.trim().starts_with("*** End Patch"));
    }
    if trimmed.starts_with("<apply_diff>") {
        return end_where(&|l| l.contains("</apply_diff>"));
    }
    let label = |t: &str| matches!(t, "FIND:" | "REPLACE:");
    if label(trimmed) || (markdown::has_bold_marker(trimmed) && label(&trimmed.replace("**", ""))) {
        let open_at = (i + 1..lines.len()).find(|&j| !lines[j].trim().is_empty())?;
        let open = markdown::fence(lines[open_at])?;
        return Some(
            (open_at + 1..lines.len())
                .find(|&j| markdown::closes(lines[j], &open))
                .unwrap_or(lines.len()),
        );
    }
    None
}

fn is_shell(info: &str) -> bool {
    let lang = info.split_whitespace().next().unwrap_or("");
    SHELL_FENCES.iter().any(|s| s.eq_ignore_ascii_case(lang))
}

/// Adds `command` (trimmed) when it is one of [`COMMANDS`].
fn push_command(found: &mut Vec<String>, command: &str) {
    let command = command.trim();
    if COMMANDS.iter().any(|c| command.starts_with(c)) {
        found.push(command.to_string());
    }
}

/// The texts of the single-backtick code spans of a prose line.
fn inline_code_spans(line: &str) -> impl Iterator<Item = &str> {
    line.split('`')
        .enumerate()
        .filter(|(n, _)| n % 2 == 1)
        .map(|(_, span)| span)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first-byte checks only skip lines the full checks reject:
    /// random lines of markers, labels, prompts, backticks and blanks
    /// (ASCII and Unicode) opened no edit text and held no command
    /// whenever `lead` said so.
    #[test]
    fn the_first_byte_checks_skip_only_what_the_full_checks_reject() {
        const PARTS: [&str; 24] = [
            " ",
            "\t",
            "\u{a0}",
            "\u{3000}",
            "\u{85}",
            "\x0b",
            "**",
            "<<<<<<< SEARCH",
            "<apply_diff>",
            "««« EDIT",
            "*** Begin Patch",
            "FIND:",
            "REPLACE:",
            "$ ",
            "`",
            "git rm a",
            "x",
            "=",
            ">>>>>>> REPLACE",
            "»»»",
            "F",
            "R",
            "<",
            "*",
        ];
        let mut rng = crate::test_rng::Rng::new(0x5eed);
        for _ in 0..20_000 {
            let line: String = (0..rng.below(5) + 1)
                .map(|_| PARTS[rng.below(PARTS.len())])
                .collect();
            let lines = [
                line.as_str(),
                "```",
                "x",
                "```",
                ">>>>>>> REPLACE",
                "»»» EDIT END",
            ];
            if !may_open_edit_text(&line) {
                assert_eq!(opened_edit_text_end(&lines, 0), None, "{line:?}");
            }
            if !may_hold_command(&line) {
                assert!(line.trim().strip_prefix("$ ").is_none(), "{line:?}");
                assert_eq!(inline_code_spans(&line).count(), 0, "{line:?}");
            }
        }
    }

    #[test]
    fn finds_commands_in_shell_fences_prompts_and_code_spans() {
        let payload = "Run:\n```bash\ngit rm old.py\n$ mkdir -p src/new\necho hi\n```\n\
                       $ git mv a.py b.py\nThen `rm -rf build` and `ls`.\n\
                       ```python\nrm = 1\n```\n";
        assert_eq!(
            find(payload),
            [
                "git rm old.py",
                "mkdir -p src/new",
                "git mv a.py b.py",
                "rm -rf build"
            ]
        );
    }

    /// [`find_with`] and the shared fence table find what the plain
    /// reading (each line's fence read as it comes) finds, on random
    /// responses of shell and other fences (nested, unclosed, `~~~`,
    /// indented, info strings with backticks), prompts, code spans and
    /// edit texts.
    #[test]
    fn the_shared_fences_find_what_the_plain_reading_finds() {
        fn plain(lines: &[&str]) -> Vec<String> {
            let mut found = Vec::new();
            let mut fence: Option<(markdown::Fence, bool)> = None;
            let mut i = 0;
            while i < lines.len() {
                let line = lines[i];
                if let Some(end) = edit_text_end(lines, i) {
                    i = end + 1;
                    continue;
                }
                match &fence {
                    Some((open, _)) if markdown::closes(line, open) => fence = None,
                    Some((_, true)) => {
                        let command = line.trim();
                        push_command(&mut found, command.strip_prefix("$ ").unwrap_or(command));
                    }
                    Some((_, false)) => {}
                    None => {
                        if let Some(open) = markdown::fence(line) {
                            let shell = is_shell(&open.info);
                            fence = Some((open, shell));
                        } else if let Some(command) = line.trim().strip_prefix("$ ") {
                            push_command(&mut found, command);
                        } else {
                            let spans: Vec<&str> = line.split('`').collect();
                            for span in spans.iter().skip(1).step_by(2) {
                                push_command(&mut found, span);
                            }
                        }
                    }
                }
                i += 1;
            }
            found
        }
        let pieces = [
            "```bash",
            "```sh x",
            "~~~console",
            "   ```shell",
            "    ```bash",
            "````bash",
            "```",
            "````",
            "~~~",
            "```python",
            "```a`b",
            "``` bash`",
            "git rm a.py",
            "$ mkdir -p d",
            "mv a b",
            "  rm -rf x  ",
            "Run `git mv a b` then `rm c`.",
            "`mkdir x",
            "text",
            "",
            "<<<<<<< SEARCH",
            "=======",
            ">>>>>>> REPLACE",
            "FIND:",
            "**REPLACE:**",
            "*** Begin Patch",
            "*** End Patch",
            "<apply_diff>",
            "</apply_diff>",
            "\u{ab}\u{ab}\u{ab} EDIT",
            "\u{bb}\u{bb}\u{bb}",
            "\u{a0}```bash",
        ];
        let mut rng = crate::test_rng::Rng::new(31);
        for _ in 0..3000 {
            let n = rng.below(30);
            let lines: Vec<&str> = (0..n).map(|_| *rng.pick(&pieces)).collect();
            assert_eq!(find_in(&lines), plain(&lines), "{lines:?}");
        }
    }

    #[test]
    fn ignores_the_text_of_edits() {
        let payload = "README.md\n<<<<<<< SEARCH\n```bash\nrm -rf build\n```\n=======\n\
                       >>>>>>> REPLACE\ndeploy.sh\n```bash\n<<<<<<< SEARCH\nrm a\n=======\n\
                       >>>>>>> REPLACE\n```\nFILE: x.md\nFIND:\n````\n```sh\nmv a b\n```\n````\n";
        assert!(find(payload).is_empty());
    }
}
