//! Pass 7: Levenshtein similarity over windows of as many lines as the
//! search, off unless a threshold below 1.0 is set.
//!
//! Similarity is `1 - distance / longer length` over both texts with every
//! line trimmed and whitespace runs collapsed to one space. The distance is
//! bit-parallel (`rapidfuzz`, Hyyrö) with a cutoff derived from the
//! threshold, windows whose length alone rules them out are skipped, and
//! the scan stops at a deadline.

use std::collections::HashMap;
use std::time::Instant;

use rapidfuzz::distance::levenshtein;

use super::Lines;

/// A window of file lines and how similar it is to the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    /// 0-based first file line of the window.
    pub start: usize,
    /// Similarity in `0.0..=1.0`.
    pub similarity: f64,
}

/// The outcome of a thresholded scan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuzzyScan {
    /// The best window of each cluster of overlapping windows above the
    /// threshold, in file order.
    pub candidates: Vec<Scored>,
    /// The deadline stopped the scan before the end.
    pub timed_out: bool,
}

/// Normalizes one line: trimmed, whitespace runs collapsed to one space.
pub fn normalize_line(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The file's lines normalized once, as chars, with each line's char start.
struct NormalizedFile {
    chars: Vec<char>,
    /// `starts[i]`: index in `chars` of line `i`; `starts[len]` = end.
    starts: Vec<usize>,
}

impl NormalizedFile {
    /// Normalizes file lines `lines` (window `i` below is line `lines.start + i`).
    fn new(file: &Lines, lines: std::ops::Range<usize>) -> NormalizedFile {
        let mut chars = Vec::with_capacity(file.text.len().min(lines.len() * 80));
        let mut starts = Vec::with_capacity(lines.len() + 1);
        for i in lines {
            starts.push(chars.len());
            chars.extend(normalize_line(file.line(i)).chars());
            chars.push('\n');
        }
        starts.push(chars.len());
        NormalizedFile { chars, starts }
    }

    /// The window of `n` lines from `start`, without its final newline.
    fn window(&self, start: usize, n: usize) -> &[char] {
        &self.chars[self.starts[start]
            ..self.starts[start + n]
                .saturating_sub(1)
                .max(self.starts[start])]
    }
}

/// The normalized search as chars.
fn normalized_search(search: &[&str]) -> Vec<char> {
    search
        .iter()
        .map(|l| normalize_line(l))
        .collect::<Vec<_>>()
        .join("\n")
        .chars()
        .collect()
}

/// Every window at or above `threshold`, clustered, over the whole file.
pub fn find(file: &Lines, search: &[&str], threshold: f64, deadline: Instant) -> FuzzyScan {
    find_near(file, search, threshold, deadline, 0..usize::MAX)
}

/// Every window at or above `threshold`, clustered, among the windows
/// starting at lines `starts` (clamped to the file).
pub fn find_near(
    file: &Lines,
    search: &[&str],
    threshold: f64,
    deadline: Instant,
    starts: std::ops::Range<usize>,
) -> FuzzyScan {
    let n = search.len();
    if n == 0 || n > file.len() {
        return FuzzyScan::default();
    }
    let first = starts.start.min(file.len() - n);
    let last = starts.end.min(file.len() - n + 1).max(first + 1);
    let needle = normalized_search(search);
    let norm = NormalizedFile::new(file, first..last - 1 + n);
    let scorer = levenshtein::BatchComparator::new(needle.iter().copied());
    let mut above: Vec<Scored> = Vec::new();
    let mut timed_out = false;
    for start in first..last {
        if start % 256 == 255 && Instant::now() > deadline {
            timed_out = true;
            break;
        }
        let window = norm.window(start - first, n);
        let longer = window.len().max(needle.len());
        if longer == 0 {
            continue;
        }
        let max_dist = ((1.0 - threshold) * longer as f64).floor() as usize;
        if window.len().abs_diff(needle.len()) > max_dist {
            continue;
        }
        let args = levenshtein::Args::default().score_cutoff(max_dist);
        if let Some(d) = scorer.distance_with_args(window.iter().copied(), &args) {
            above.push(Scored {
                start,
                similarity: 1.0 - d as f64 / longer as f64,
            });
        }
    }
    FuzzyScan {
        candidates: cluster(above, n),
        timed_out,
    }
}

/// Keeps the best window of each run of overlapping windows.
fn cluster(scored: Vec<Scored>, n: usize) -> Vec<Scored> {
    let mut out: Vec<Scored> = Vec::new();
    for s in scored {
        match out.last_mut() {
            Some(last) if s.start < last.start + n => {
                if s.similarity > last.similarity {
                    *last = s;
                }
            }
            _ => out.push(s),
        }
    }
    out
}

/// The similarity of the search with the window of file lines at `start`.
pub fn similarity_at(file: &Lines, search: &[&str], start: usize) -> f64 {
    let window: Vec<&str> = (start..start + search.len())
        .map(|i| file.line(i))
        .collect();
    similarity(&window, search)
}

/// Similarity of two line lists, normalized as the pass does.
pub fn similarity(a: &[&str], b: &[&str]) -> f64 {
    let a = normalized_search(a);
    let b = normalized_search(b);
    let longer = a.len().max(b.len());
    if longer == 0 {
        return 1.0;
    }
    1.0 - levenshtein::distance(a.iter().copied(), b.iter().copied()) as f64 / longer as f64
}

/// Whether a fuzzy window's lines pair one to one with the search's: each
/// search line is more like its own window line than like the file lines
/// next to it (a line inserted or dropped shifts every pair after it, and
/// the neighbours then fit better). `outside` are the file lines just
/// before and after the window: a search line at the window's edge that
/// fits the line outside better (a search that left out a line between
/// two of its lines) does not pair either.
pub fn pairs_line_by_line(
    window: &[&str],
    search: &[&str],
    outside: (Option<&str>, Option<&str>),
) -> bool {
    let sim = |a: &str, b: &str| similarity(&[a], &[b]);
    let line = |i: isize| -> Option<&str> {
        match i {
            -1 => outside.0,
            i if i as usize == window.len() => outside.1,
            i => window.get(i as usize).copied(),
        }
    };
    (0..search.len().min(window.len())).all(|j| {
        let s = search[j];
        if s.trim().is_empty() && window[j].trim().is_empty() {
            return true;
        }
        let own = sim(s, window[j]);
        let before = line(j as isize - 1).map_or(0.0, |w| sim(s, w));
        let after = line(j as isize + 1).map_or(0.0, |w| sim(s, w));
        own >= 0.5 && own >= before && own >= after
    })
}

/// The closest window to a search that matched nothing, for `not_found`
/// reports: windows where several search lines appear are scored first;
/// small files are scanned whole. `None` when nothing is even close.
pub fn nearest(file: &Lines, search: &[&str], deadline: Instant) -> Option<Scored> {
    let n = search.len();
    if n == 0 || file.is_empty() {
        return None;
    }
    let n_win = n.min(file.len());
    let mut votes: HashMap<usize, usize> = HashMap::new();
    let wanted: HashMap<String, Vec<usize>> = search
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim().len() >= 3)
        .fold(HashMap::new(), |mut m, (j, l)| {
            m.entry(normalize_line(l)).or_default().push(j);
            m
        });
    for i in 0..file.len() {
        if let Some(js) = wanted.get(&normalize_line(file.line(i))) {
            for &j in js {
                if i >= j && i - j + n_win <= file.len() {
                    *votes.entry(i - j).or_default() += 1;
                }
            }
        }
    }
    let mut starts: Vec<(usize, usize)> = votes.into_iter().map(|(s, v)| (v, s)).collect();
    starts.sort_unstable_by(|a, b| b.cmp(a));
    starts.truncate(32);
    let mut candidates: Vec<usize> = starts.into_iter().map(|(_, s)| s).collect();
    // No line in common: score every window of a small file, and windows
    // at a stride in a large one (the scan is then not complete).
    let mut complete = true;
    if candidates.is_empty() {
        let windows = file.len() - n_win + 1;
        let stride = windows.div_ceil(20_000).max(1);
        complete = stride == 1;
        candidates = (0..windows).step_by(stride).collect();
    }
    let mut best: Option<Scored> = None;
    for (k, start) in candidates.iter().copied().enumerate() {
        if k % 64 == 63 && Instant::now() > deadline {
            complete = false;
            break;
        }
        let window: Vec<&str> = (start..start + n_win).map(|i| file.line(i)).collect();
        let sim = similarity(&window, search);
        if best.is_none_or(|b| sim > b.similarity) {
            best = Some(Scored {
                start,
                similarity: sim,
            });
        }
    }
    // "Nothing similar" only when every window was looked at: a scan cut
    // short by its deadline or a stride reports the closest it saw.
    best.filter(|b| b.similarity >= 0.5 || !complete)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn finds_a_window_with_typos() {
        let file = Lines::new("fn a() {\n    let total = sum(items);\n    total\n}\nfn b() {}\n");
        let scan = find(
            &file,
            &["fn a() {", "    let totl = sum(itemz);", "    total"],
            0.85,
            later(),
        );
        assert_eq!(scan.candidates.len(), 1);
        assert_eq!(scan.candidates[0].start, 0);
        assert!(scan.candidates[0].similarity > 0.9);
        let none = find(&file, &["something else entirely"], 0.9, later());
        assert!(none.candidates.is_empty());
    }

    #[test]
    fn a_cut_short_scan_never_claims_nothing_is_similar() {
        // 60,000 lines with no line in common with the search: the scan
        // strides, so it reports the closest window it saw.
        let text: String = (0..60_000)
            .map(|i| format!("line number {i} of the file\n"))
            .collect();
        let file = Lines::new(&text);
        let near = nearest(&file, &["lime numbar 31000 of the fille"], later());
        assert!(near.is_some());
    }

    #[test]
    fn nearest_reports_the_closest_window() {
        let file = Lines::new("a\nb\nlet x = 1;\nlet y = 2;\nc\n");
        let near = nearest(&file, &["let x = 1;", "let y = 3;"], later()).unwrap();
        assert_eq!(near.start, 2);
        assert!(near.similarity > 0.8 && near.similarity < 1.0);
    }
}
