//! A format-free payload draft built from a pair: the file as the model
//! saw it, and one hunk per group of regions, each a run of unchanged
//! context lines and changes.
//!
//! Mistakes perturb a draft; formats render it. Context lines carry their
//! search text and their copy in the replacement separately, so a mistake
//! can touch one side only (line numbers in the search alone, say).

use crate::pairs::Pair;
use crate::rng::Rng;

/// One piece of a hunk.
#[derive(Clone, Debug, PartialEq)]
pub enum Seg {
    /// An unchanged file line: as written in the search, and in the
    /// replacement.
    Ctx { s: String, r: String },
    /// Changed lines: removed (`old`) and inserted (`new`).
    Chg { old: Vec<String>, new: Vec<String> },
}

/// One edit: a window of the file and what it becomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Hunk {
    pub segs: Vec<Seg>,
    /// The window's first line in the original file (0-based).
    pub before_start: usize,
    /// The window's first line in the intended result (0-based).
    pub after_start: usize,
    /// How many file lines the window covers (before the edit).
    pub before_len: usize,
    /// A line hint to write (1-based), when not the true one.
    pub stale_hint: Option<usize>,
}

impl Hunk {
    /// The search lines, as written.
    pub fn search(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for seg in &self.segs {
            match seg {
                Seg::Ctx { s, .. } => out.push(s.as_str()),
                Seg::Chg { old, .. } => out.extend(old.iter().map(String::as_str)),
            }
        }
        out
    }

    /// The replacement lines, as written.
    pub fn replace(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for seg in &self.segs {
            match seg {
                Seg::Ctx { r, .. } => out.push(r.as_str()),
                Seg::Chg { new, .. } => out.extend(new.iter().map(String::as_str)),
            }
        }
        out
    }

    /// The 1-based line hint a payload writes for this hunk.
    pub fn hint(&self) -> usize {
        self.stale_hint.unwrap_or(self.before_start + 1)
    }

    /// Every line of the hunk (search and replacement sides), mutably.
    pub fn lines_mut(&mut self) -> impl Iterator<Item = &mut String> {
        self.segs.iter_mut().flat_map(|seg| match seg {
            Seg::Ctx { s, r } => vec![s, r],
            Seg::Chg { old, new } => old.iter_mut().chain(new.iter_mut()).collect(),
        })
    }
}

/// How much context to take around each region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// 1-3 lines each side (the usual).
    Normal,
    /// 0-1 line each side, at least one line in all (`short_ctx`).
    Short,
    /// 5 lines each side, room for an elision.
    Wide,
}

/// A payload draft and the file it targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub path: String,
    pub lang: String,
    pub hunks: Vec<Hunk>,
    /// The file as it is on disk before (no line breaks).
    pub before: Vec<String>,
    /// The intended result (no line breaks).
    pub after: Vec<String>,
    /// The file uses CRLF line breaks.
    pub crlf: bool,
    /// String tools: `old_string`/`new_string` end with a newline.
    pub string_nl: bool,
    /// String tools: the strings escaped once more (literal `\n`), as a
    /// model that encodes its call's JSON twice writes them.
    pub double_escape: bool,
    /// Chat code blocks: lines of the file after (0-based) written without
    /// their trailing blanks, as models write them.
    pub block_trims: Vec<usize>,
}

impl Draft {
    /// Builds the hunks of `pair`: each region widened by its context,
    /// regions whose windows touch merged into one hunk.
    pub fn build(pair: &Pair, context: Context, rng: &mut Rng) -> Draft {
        let before = pair.before_lines();
        let after = pair.after_lines();
        let n = before.len();
        // Windows [start, end) in before lines, with the regions they hold.
        let mut windows: Vec<(usize, usize, Vec<[usize; 4]>)> = Vec::new();
        for &region in &pair.regions {
            let [b0, b1, ..] = region;
            let (mut kb, mut ka) = match context {
                Context::Normal => (rng.range(1, 3), rng.range(1, 3)),
                Context::Short => (rng.below(2), rng.below(2)),
                Context::Wide => (5, 5),
            };
            kb = kb.min(b0);
            ka = ka.min(n - b1);
            if kb + ka == 0 && b0 == b1 {
                // A pure insertion needs a line to anchor it.
                if b0 > 0 {
                    kb = 1;
                } else {
                    ka = 1;
                }
            }
            let (start, end) = (b0 - kb, b1 + ka);
            match windows.last_mut() {
                Some(last) if start <= last.1 => {
                    last.1 = last.1.max(end);
                    last.2.push(region);
                }
                _ => windows.push((start, end, vec![region])),
            }
        }
        let hunks = windows
            .into_iter()
            .map(|(start, end, regions)| hunk(&before, &after, start, end, &regions))
            .collect();
        Draft {
            path: pair.path.clone(),
            lang: pair.lang.clone(),
            hunks,
            before,
            after,
            crlf: false,
            string_nl: rng.chance(1, 2),
            double_escape: false,
            block_trims: Vec::new(),
        }
    }

    /// The file after as a chat block shows it (`block_trims` applied).
    pub fn shown(&self) -> Vec<String> {
        let mut out = self.after.clone();
        for &i in &self.block_trims {
            let keep = out[i].trim_end().len();
            out[i].truncate(keep);
        }
        out
    }

    /// The file's line break.
    pub fn eol(&self) -> &'static str {
        if self.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The file before, as bytes on disk.
    pub fn before_text(&self) -> String {
        join_lines(&self.before, self.eol())
    }

    /// The intended result, as bytes on disk.
    pub fn after_text(&self) -> String {
        join_lines(&self.after, self.eol())
    }

    /// The file is indented with tabs.
    pub fn uses_tabs(&self) -> bool {
        let tabs = self.before.iter().filter(|l| l.starts_with('\t')).count();
        let spaces = self.before.iter().filter(|l| l.starts_with(' ')).count();
        tabs > spaces
    }

    /// One indentation level of the file: a tab, or its space unit.
    pub fn indent_unit(&self) -> String {
        if self.uses_tabs() {
            return "\t".into();
        }
        let widths = self
            .before
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .filter(|&w| w > 0);
        let unit = widths.fold(0, gcd);
        " ".repeat(if unit == 2 { 2 } else { 4 })
    }

    /// The before-file line index of each search line of hunk `h`, for the
    /// lines that are context (`None` for removed lines).
    pub fn ctx_positions(&self, h: usize) -> Vec<(usize, usize)> {
        let hunk = &self.hunks[h];
        let (mut b, mut a) = (hunk.before_start, hunk.after_start);
        let mut out = Vec::new();
        for seg in &hunk.segs {
            match seg {
                Seg::Ctx { .. } => {
                    out.push((b, a));
                    b += 1;
                    a += 1;
                }
                Seg::Chg { old, new } => {
                    b += old.len();
                    a += new.len();
                }
            }
        }
        out
    }
}

/// The hunk for window `[start, end)` holding `regions`.
fn hunk(
    before: &[String],
    after: &[String],
    start: usize,
    end: usize,
    regions: &[[usize; 4]],
) -> Hunk {
    let mut segs = Vec::new();
    let mut at = start;
    for &[b0, b1, a0, a1] in regions {
        segs.extend(before[at..b0].iter().map(|l| ctx(l)));
        segs.push(Seg::Chg {
            old: before[b0..b1].to_vec(),
            new: after[a0..a1].to_vec(),
        });
        at = b1;
    }
    segs.extend(before[at..end].iter().map(|l| ctx(l)));
    let [b0, _, a0, _] = regions[0];
    Hunk {
        segs,
        before_start: start,
        after_start: a0 - (b0 - start),
        before_len: end - start,
        stale_hint: None,
    }
}

/// An unchanged line, written the same on both sides.
pub fn ctx(line: &str) -> Seg {
    Seg::Ctx {
        s: line.to_owned(),
        r: line.to_owned(),
    }
}

/// Lines joined with `eol`, each one terminated.
pub fn join_lines(lines: &[String], eol: &str) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push_str(eol);
    }
    out
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A small Python pair with two changes far apart (one an insertion)
    /// and blank lines near both.
    pub fn sample_pair() -> Pair {
        let before: String = (1..=30)
            .map(|i| match i {
                5 => "def first(a, b):\n".to_string(),
                6 => "    return a + b\n".to_string(),
                3 | 9 | 20 | 24 => "\n".to_string(),
                _ => format!("value_{i} = compute({i})\n"),
            })
            .collect();
        let after = before
            .replace(
                "    return a + b\n",
                "    total = a + b\n    return total\n",
            )
            .replace(
                "value_25 = compute(25)\n",
                "value_25 = compute(25)\nextra = 1\n",
            );
        Pair {
            repo: "o/r".into(),
            lang: "python".into(),
            commit: "c0ffee".into(),
            path: "pkg/mod.py".into(),
            before,
            after,
            regions: vec![[5, 6, 5, 7], [25, 25, 26, 27]],
        }
    }

    #[test]
    fn hunks_rebuild_the_pair() {
        let pair = sample_pair();
        for seed in 0..50 {
            for context in [Context::Normal, Context::Short, Context::Wide] {
                let d = Draft::build(&pair, context, &mut Rng::from_parts(&[seed]));
                for h in &d.hunks {
                    let end = h.before_start + h.before_len;
                    assert_eq!(
                        h.search(),
                        d.before[h.before_start..end]
                            .iter()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                    );
                    let a_end = h.after_start + h.replace().len();
                    assert_eq!(
                        h.replace(),
                        d.after[h.after_start..a_end]
                            .iter()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                    );
                    assert!(!h.search().is_empty());
                }
                assert_eq!(d.hunks.len(), 2, "the two regions are far apart");
            }
        }
    }
}
