//! Checks the quick syntax check against the parser, on real code.
//!
//! The warnings after planning take some edits as they are, without a
//! parse (`syntax::new_error_line_quick`: word swaps, spacing between
//! tokens, whole statements in place of whole statements). The parser is
//! the judge of whether that was right: for the real changes of
//! `../shared/stress/pairs.jsonl`, each of their regions alone, and edits
//! made up from the same files (lines taken out, copied in, moved,
//! indented off, brackets and clauses put in, words swapped, comments,
//! spacing and indentation written anew), the quick check must give the
//! same answer as parsing every edited chunk (`syntax::new_error_line`).
//! A missed warning fails the run. `--pairs FILE` takes other files of the
//! same form (`scripts/oracle-pairs` writes one of real code in the other
//! languages, unchanged files whose edits are all made up).
//!
//! ```text
//! cargo run --release --example syntax_oracle -- [--seed N] [--per-pair K] [--pairs FILE] [--show N]
//! ```

// Shared with the stress run, which uses all of them.
#[allow(dead_code)]
#[path = "stress/pairs.rs"]
mod pairs;
#[allow(dead_code)]
#[path = "stress/rng.rs"]
mod rng;

use std::ops::Range;
use std::process::ExitCode;

use llm_edit_lsp::syntax::{self, Language};
use rng::Rng;

/// One made-up or real change: byte edits of the text before.
type Edits = Vec<(Range<usize>, String)>;

#[derive(Default)]
struct Tally {
    edits: usize,
    /// Edits (narrowed to the lines they change) taken without a parse.
    quiet: usize,
    narrowed: usize,
    agree: usize,
    warned: usize,
    missed: usize,
    extra: usize,
    other_line: usize,
}

fn main() -> ExitCode {
    let mut seed = 1u64;
    let mut per_pair = 40usize;
    let mut show = 5usize;
    let mut path = pairs::shared_dir().join("stress/pairs.jsonl");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next();
        match (a.as_str(), value) {
            ("--seed", Some(v)) => seed = v.parse().expect("--seed N"),
            ("--per-pair", Some(v)) => per_pair = v.parse().expect("--per-pair K"),
            ("--show", Some(v)) => show = v.parse().expect("--show N"),
            ("--pairs", Some(v)) => path = v.into(),
            _ => {
                eprintln!(
                    "usage: syntax_oracle [--seed N] [--per-pair K] [--pairs FILE] [--show N]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let pairs = match pairs::load(&path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut tallies: Vec<(Language, Tally)> = Vec::new();
    let mut shown = 0;
    for (index, pair) in pairs.iter().enumerate() {
        let Some(language) = Language::of_path(&pair.path) else {
            continue;
        };
        // An unchanged file (`scripts/oracle-pairs`): only made-up edits.
        let unchanged = pair.regions.is_empty() && pair.before == pair.after;
        if !(pair.is_consistent() || unchanged) {
            continue;
        }
        let lines = line_starts(&pair.before);
        let mut cases: Vec<Edits> = vec![real(pair, &lines)];
        cases.extend(pair.regions.iter().map(|r| region(pair, &lines, r)));
        let mut rng = Rng::from_parts(&[seed, index as u64]);
        cases.extend((0..per_pair).filter_map(|_| made_up(&mut rng, &pair.before, &lines)));
        let tally = match tallies.iter_mut().find(|(l, _)| *l == language) {
            Some((_, t)) => t,
            None => {
                tallies.push((language, Tally::default()));
                &mut tallies.last_mut().unwrap().1
            }
        };
        for edits in cases {
            if edits.is_empty() {
                continue;
            }
            let borrowed: Vec<syntax::Edit> =
                edits.iter().map(|(r, t)| (r.clone(), t.as_str())).collect();
            let full = syntax::new_error_line(language, &pair.before, &borrowed);
            let quick = syntax::new_error_line_quick(language, &pair.before, &borrowed);
            tally.edits += 1;
            let (quiet, narrowed) = syntax::taken_without_parse(language, &pair.before, &borrowed);
            tally.quiet += quiet;
            tally.narrowed += narrowed;
            tally.warned += usize::from(full.is_some());
            match (full, quick) {
                (a, b) if a == b => tally.agree += 1,
                (Some(_), None) => tally.missed += 1,
                (None, Some(_)) => tally.extra += 1,
                _ => tally.other_line += 1,
            }
            if full != quick && shown < show {
                shown += 1;
                eprintln!(
                    "--- pair {index} {}: full {full:?}, quick {quick:?}",
                    pair.path
                );
                for (r, t) in &edits {
                    eprintln!("  {:?} -> {:?}", &pair.before[r.clone()], t);
                }
            }
        }
    }
    println!(
        "| language | changes | edits | taken without a parse | the parser warns | quick agrees | missed | extra | other line |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut failed = false;
    for (language, t) in &tallies {
        println!(
            "| {language:?} | {} | {} | {} ({:.1}%) | {} | {} | {} | {} | {} |",
            t.edits,
            t.narrowed,
            t.quiet,
            100.0 * t.quiet as f64 / t.narrowed.max(1) as f64,
            t.warned,
            t.agree,
            t.missed,
            t.extra,
            t.other_line
        );
        failed |= t.missed + t.extra + t.other_line > 0;
    }
    if failed {
        println!("the quick check disagrees with the parser");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The byte offset of each line's start, and the text's length last.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if *starts.last().unwrap() != text.len() {
        starts.push(text.len());
    }
    starts
}

fn span(lines: &[usize], from: usize, to: usize) -> Range<usize> {
    let last = lines.len() - 1;
    lines[from.min(last)]..lines[to.min(last)]
}

fn after_text(pair: &pairs::Pair, a0: usize, a1: usize) -> String {
    let after = line_starts(&pair.after);
    pair.after[span(&after, a0, a1)].to_string()
}

fn region(pair: &pairs::Pair, lines: &[usize], r: &[usize; 4]) -> Edits {
    vec![(span(lines, r[0], r[1]), after_text(pair, r[2], r[3]))]
}

fn real(pair: &pairs::Pair, lines: &[usize]) -> Edits {
    pair.regions
        .iter()
        .map(|r| region(pair, lines, r).remove(0))
        .collect()
}

/// An edit a model could make to this text, or a slip.
fn made_up(rng: &mut Rng, text: &str, lines: &[usize]) -> Option<Edits> {
    let count = lines.len() - 1;
    if count < 3 {
        return None;
    }
    let i = rng.below(count);
    let j = rng.below(count);
    let line = |k: usize| &text[lines[k]..lines[k + 1]];
    let indent = |k: usize| {
        let l = line(k);
        l[..l.len() - l.trim_start().len()].to_string()
    };
    let at = lines[i]..lines[i];
    let whole = lines[i]..lines[i + 1];
    let with_newline = |s: String| if s.ends_with('\n') { s } else { s + "\n" };
    let edit = match rng.below(17) {
        0 => (whole, String::new()),
        1 => (at, with_newline(line(j).to_string())),
        2 => (
            at,
            with_newline(format!("{}{}", indent(i), line(j).trim_start())),
        ),
        3 => (at, with_newline(line(i).to_string())),
        4 => {
            let k = rng.range(2, 6).min(count - i);
            (lines[i]..lines[i + k], String::new())
        }
        5 => (whole, with_newline(line(j).to_string())),
        6 => {
            let noise = [
                "x = (", ")", "}", "{", "else:", "} else {", "]", "if x:", "return",
            ];
            (at, format!("{}{}\n", indent(i), rng.pick(&noise)))
        }
        7 | 8 => {
            // A word swapped: a name renamed, a number changed.
            let l = line(i);
            let words: Vec<(usize, &str)> = l
                .match_indices(|c: char| c.is_ascii_alphanumeric() || c == '_')
                .map(|(k, _)| k)
                .filter(|&k| k == 0 || !is_word(l.as_bytes()[k - 1]))
                .map(|k| {
                    let end = l[k..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
                    (k, &l[k..k + end.unwrap_or(l.len() - k)])
                })
                .collect();
            if words.is_empty() {
                return None;
            }
            let (k, w) = *rng.pick(&words);
            let new = if w.as_bytes()[0].is_ascii_digit() {
                format!("{}", rng.range(0, 5000))
            } else {
                let names = [
                    "value", "None", "if", "print", "self", "err", "nil", "func", "x_2",
                ];
                if rng.chance(1, 2) {
                    format!("{w}_v2")
                } else {
                    rng.pick(&names[..]).to_string()
                }
            };
            let start = lines[i] + k;
            (start..start + w.len(), new)
        }
        9 => {
            let comments = ["# note", "// note", "# it's", "// \"", "/* x", "# \"\"\""];
            (at, format!("{}{}\n", indent(i), rng.pick(&comments)))
        }
        10 if i + 1 < count => (
            lines[i]..lines[i + 2],
            format!("{}{}", with_newline(line(i + 1).to_string()), line(i)),
        ),
        11 => {
            let deeper = format!("    {}", line(i));
            (whole, deeper)
        }
        12 => {
            let shallower = line(i)
                .strip_prefix("    ")
                .or(line(i).strip_prefix('\t'))?;
            (whole, shallower.to_string())
        }
        14 => {
            // The spacing between two tokens of a line changed.
            let l = line(i);
            let body = l.len() - l.trim_start().len();
            let runs: Vec<(usize, usize)> = l
                .match_indices([' ', '\t'])
                .map(|(k, _)| k)
                .filter(|&k| k > body && !matches!(l.as_bytes()[k - 1], b' ' | b'\t'))
                .map(|k| {
                    (
                        k,
                        l[k..].len() - l[k..].trim_start_matches([' ', '\t']).len(),
                    )
                })
                .collect();
            if runs.is_empty() {
                return None;
            }
            let (k, n) = *rng.pick(&runs);
            let start = lines[i] + k;
            let blanks = [" ", "  ", "\t", " \t ", "    ", ""];
            (start..start + n, rng.pick(&blanks).to_string())
        }
        15 => {
            // A line's indentation written anew.
            let l = line(i);
            let body = l.len() - l.trim_start_matches([' ', '\t']).len();
            let indents = ["", "\t", "  ", "        ", "\t\t", " "];
            (lines[i]..lines[i] + body, rng.pick(&indents).to_string())
        }
        16 => {
            // A block of lines indented one step deeper (or written flush).
            let k = rng.range(2, 8).min(count - i);
            let flush = rng.chance(1, 3);
            let step = if rng.chance(1, 2) { "    " } else { "\t" };
            let text: String = (i..i + k)
                .map(|m| {
                    if flush {
                        line(m).trim_start_matches([' ', '\t']).to_string()
                    } else {
                        format!("{step}{}", line(m))
                    }
                })
                .collect();
            (lines[i]..lines[i + k], text)
        }
        _ => {
            let stmt = [
                "metrics.incr(\"x\")",
                "log(x)",
                "x := 1",
                "return x",
                "pass",
                "y = [1,",
            ];
            (at, format!("{}{}\n", indent(i), rng.pick(&stmt)))
        }
    };
    Some(vec![edit])
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
