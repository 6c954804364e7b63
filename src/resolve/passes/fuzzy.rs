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

use super::keys::{Norm, View};
use super::Lines;

/// A window of file lines and how similar it is to the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    /// 0-based first file line of the window.
    pub start: usize,
    /// Similarity in `0.0..=1.0`.
    pub similarity: f64,
}

/// The outcome of a scan: every window within the floor it was run at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuzzyScan {
    windows: Vec<Window>,
    /// Lines in a window.
    n: usize,
    /// The deadline stopped the scan before the end.
    pub timed_out: bool,
}

/// A window the scan scored: its Levenshtein distance from the search
/// and the longer of the two lengths (chars).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    start: usize,
    distance: usize,
    longer: usize,
}

/// The largest distance at which a window of `longer` chars is at least
/// `threshold` similar.
fn max_distance(threshold: f64, longer: usize) -> usize {
    ((1.0 - threshold) * longer as f64).floor() as usize
}

impl FuzzyScan {
    /// The first and last start line of the windows scored (at or above
    /// the floor), `None` when none was.
    pub fn span(&self) -> Option<(usize, usize)> {
        Some((self.windows.first()?.start, self.windows.last()?.start))
    }

    /// The best window of each cluster of overlapping windows at or above
    /// `threshold` (not below the floor the scan ran at), in file order.
    pub fn above(&self, threshold: f64) -> Vec<Scored> {
        let scored = self
            .windows
            .iter()
            .filter(|w| w.distance <= max_distance(threshold, w.longer))
            .map(|w| Scored {
                start: w.start,
                similarity: 1.0 - w.distance as f64 / w.longer as f64,
            });
        cluster(scored, self.n)
    }
}

/// Normalizes one line: trimmed, whitespace runs collapsed to one space.
pub fn normalize_line(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The file's lines normalized once (each followed by `\n`), with each
/// line's byte and char start.
struct NormalizedFile {
    text: String,
    /// `bytes[i]`: byte start of line `i` in `text`; `bytes[len]` = end.
    bytes: Vec<usize>,
    /// `chars[i]`: char start of line `i`; `chars[len]` = end.
    chars: Vec<usize>,
}

impl NormalizedFile {
    /// Normalizes file lines `lines` (window `i` below is line `lines.start + i`).
    fn new(file: &Lines, lines: std::ops::Range<usize>) -> NormalizedFile {
        let mut text = String::with_capacity(
            file.index.start(lines.end.min(file.len())) - file.index.start(lines.start),
        );
        let mut bytes = Vec::with_capacity(lines.len() + 1);
        let mut chars = Vec::with_capacity(lines.len() + 1);
        let mut count = 0;
        for i in lines {
            bytes.push(text.len());
            chars.push(count);
            let start = text.len();
            push_normalized(&mut text, file.line(i));
            let line = &text[start..];
            count += if line.is_ascii() {
                line.len()
            } else {
                line.chars().count()
            } + 1;
            text.push('\n');
        }
        bytes.push(text.len());
        chars.push(count);
        NormalizedFile { text, bytes, chars }
    }

    /// Line `i` with its `\n`.
    fn line(&self, i: usize) -> &str {
        &self.text[self.bytes[i]..self.bytes[i + 1]]
    }

    /// The window of `n` lines from `start`, without its final newline,
    /// and its length in chars.
    fn window(&self, start: usize, n: usize) -> (&str, usize) {
        let end = self.bytes[start + n]
            .saturating_sub(1)
            .max(self.bytes[start]);
        let len = (self.chars[start + n] - self.chars[start]).saturating_sub(1);
        (&self.text[self.bytes[start]..end], len)
    }
}

/// Pushes `line`'s words (`split_whitespace`) parted by one space.
fn push_normalized(text: &mut String, line: &str) {
    let start = text.len();
    // `char::is_whitespace` on ASCII.
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let inner = line.trim_matches(|c: char| c.is_ascii() && space(c as u8));
    if inner.is_ascii()
        && !inner
            .as_bytes()
            .windows(2)
            .any(|w| (space(w[0]) && w[0] != b' ') || (w[0] == b' ' && w[1] == b' '))
    {
        // Most lines: ASCII words parted by single spaces, once
        // the ends are trimmed: the words joined are the line.
        text.push_str(inner);
    } else if line.is_ascii() {
        // `split_whitespace` on ASCII, read byte by byte: every
        // byte starts a char.
        let mut word = None;
        for (j, &b) in line.as_bytes().iter().enumerate() {
            match (space(b), word) {
                (false, None) => word = Some(j),
                (true, Some(w)) => {
                    if text.len() > start {
                        text.push(' ');
                    }
                    text.push_str(&line[w..j]);
                    word = None;
                }
                _ => {}
            }
        }
        if let Some(w) = word {
            if text.len() > start {
                text.push(' ');
            }
            text.push_str(&line[w..]);
        }
    } else {
        for (k, word) in line.split_whitespace().enumerate() {
            if k > 0 {
                text.push(' ');
            }
            text.push_str(word);
        }
    }
}

/// Buckets of the character histogram: bytes' values below 256 each
/// their own, every other char in one of a few shared buckets (sharing
/// only lowers the bound below, so it stays a bound).
const BUCKETS: usize = 256 + 64;

fn bucket(c: char) -> usize {
    let u = c as usize;
    if u < 256 {
        u
    } else {
        256 + u % 64
    }
}

/// The bag distance of a sliding window from the search: the chars one
/// holds more of than the other, whichever side has more. Each edit
/// changes at most one char on each side, so the Levenshtein distance is
/// at least this (a window it rules out needs no distance computed).
struct Bag {
    /// Window count minus search count, per bucket.
    diff: [i32; BUCKETS],
    /// Sum of the positive `diff`s (chars the window has in excess).
    extra: usize,
    /// Sum of the negative `diff`s, negated (chars it lacks).
    missing: usize,
}

impl Bag {
    fn new(search: &str) -> Bag {
        let mut bag = Bag {
            diff: [0; BUCKETS],
            extra: 0,
            missing: 0,
        };
        // The window's lines each end in `\n`; the search's last does not.
        for c in search.chars().chain(std::iter::once('\n')) {
            bag.diff[bucket(c)] -= 1;
            bag.missing += 1;
        }
        bag
    }

    fn add(&mut self, text: &str) {
        if text.is_ascii() {
            for &b in text.as_bytes() {
                self.add_one(usize::from(b));
            }
        } else {
            for c in text.chars() {
                self.add_one(bucket(c));
            }
        }
    }

    fn add_one(&mut self, bucket: usize) {
        let d = &mut self.diff[bucket];
        if *d >= 0 {
            self.extra += 1;
        } else {
            self.missing -= 1;
        }
        *d += 1;
    }

    fn remove(&mut self, text: &str) {
        if text.is_ascii() {
            for &b in text.as_bytes() {
                self.remove_one(usize::from(b));
            }
        } else {
            for c in text.chars() {
                self.remove_one(bucket(c));
            }
        }
    }

    fn remove_one(&mut self, bucket: usize) {
        let d = &mut self.diff[bucket];
        *d -= 1;
        if *d >= 0 {
            self.extra -= 1;
        } else {
            self.missing += 1;
        }
    }

    fn bound(&self) -> usize {
        self.extra.max(self.missing)
    }
}

/// The normalized search as chars.
fn normalized_search(search: &[&str]) -> Vec<char> {
    normalized_text(search).chars().collect()
}

/// The normalized search, lines joined by `\n`.
fn normalized_text(search: &[&str]) -> String {
    search
        .iter()
        .map(|l| normalize_line(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every window at or above `floor`, over the whole file.
pub fn find(file: &Lines, search: &[&str], floor: f64, deadline: Instant) -> FuzzyScan {
    find_near(file, search, floor, deadline, 0..usize::MAX)
}

/// The search's Levenshtein scorer, over bytes when all is ASCII.
enum Scorer {
    Bytes(levenshtein::BatchComparator<u8>),
    Chars(levenshtein::BatchComparator<char>),
}

/// Every window at or above `floor` among the windows starting at lines
/// `starts` (clamped to the file). A window's distance is computed only
/// when its length and its characters (the bag bound) leave it in reach.
pub fn find_near(
    file: &Lines,
    search: &[&str],
    floor: f64,
    deadline: Instant,
    starts: std::ops::Range<usize>,
) -> FuzzyScan {
    let n = search.len();
    if n == 0 || n > file.len() {
        return FuzzyScan::default();
    }
    let first = starts.start.min(file.len() - n);
    let last = starts.end.min(file.len() - n + 1).max(first + 1);
    let needle = normalized_text(search);
    let needle_len = needle.chars().count();
    let norm = NormalizedFile::new(file, first..last - 1 + n);
    // On ASCII text a char is a byte: the distance over bytes is the
    // distance over chars, without decoding each window.
    let scorer = if needle.is_ascii() && norm.text.is_ascii() {
        Scorer::Bytes(levenshtein::BatchComparator::new(needle.bytes()))
    } else {
        Scorer::Chars(levenshtein::BatchComparator::new(needle.chars()))
    };
    let mut bag = Bag::new(&needle);
    for k in 0..n - 1 {
        bag.add(norm.line(k));
    }
    let mut windows: Vec<Window> = Vec::new();
    let mut timed_out = false;
    for start in first..last {
        if start % 256 == 255 && Instant::now() > deadline {
            timed_out = true;
            break;
        }
        let k = start - first;
        bag.add(norm.line(k + n - 1));
        if k > 0 {
            bag.remove(norm.line(k - 1));
        }
        let (window, window_len) = norm.window(k, n);
        let longer = window_len.max(needle_len);
        if longer == 0 {
            continue;
        }
        let max_dist = max_distance(floor, longer);
        if window_len.abs_diff(needle_len) > max_dist || bag.bound() > max_dist {
            continue;
        }
        let args = levenshtein::Args::default().score_cutoff(max_dist);
        let distance = match &scorer {
            Scorer::Bytes(s) => s.distance_with_args(window.bytes(), &args),
            Scorer::Chars(s) => s.distance_with_args(window.chars(), &args),
        };
        if let Some(distance) = distance {
            windows.push(Window {
                start,
                distance,
                longer,
            });
        }
    }
    FuzzyScan {
        windows,
        n,
        timed_out,
    }
}

/// Keeps the best window of each run of overlapping windows.
fn cluster(scored: impl IntoIterator<Item = Scored>, n: usize) -> Vec<Scored> {
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

/// Per window start, how many search lines (of three characters or more)
/// equal the window's line at their place, normalized: only starts with a
/// vote. Counted from the places of each search line's key in the file's
/// line-key index; the keys that cost the most (lines nearly everywhere,
/// which say little about where the search was copied from) are left out
/// past a budget linear in the file (a long search over identical lines
/// would cost file × search).
fn votes(file: &Lines, search: &[&str], n_win: usize) -> HashMap<usize, usize> {
    let dict = file.dict(Norm::Words);
    let mut wanted: HashMap<u32, Vec<usize>> = HashMap::new();
    for (j, l) in search.iter().enumerate() {
        if l.trim().len() >= 3 {
            if let Some(id) = dict.id(&Norm::Words.key(l)) {
                wanted.entry(id).or_default().push(j);
            }
        }
    }
    let seq = file.seq(Norm::Words, View::All);
    let mut keys: Vec<(usize, u32)> = wanted
        .iter()
        .map(|(&id, js)| (seq.positions(id).len().saturating_mul(js.len()), id))
        .collect();
    keys.sort_unstable();
    let mut budget = 8 * file.len() + 65_536;
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for (cost, id) in keys {
        if cost > budget {
            break;
        }
        budget -= cost;
        for &i in seq.positions(id) {
            let i = i as usize;
            for &j in &wanted[&id] {
                if i >= j && i - j + n_win <= file.len() {
                    *votes.entry(i - j).or_default() += 1;
                }
            }
        }
    }
    votes
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
    let votes = votes(file, search, n_win);
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

    /// The normalization's shortcuts write what `split_whitespace`
    /// joined with one space writes, on every kind of line.
    #[test]
    fn push_normalized_is_split_whitespace_joined() {
        let mut rng = crate::test_rng::Rng::new(11);
        let parts = [
            "a", "bc", " ", "  ", "\t", "\r", "\x0B", "\x0C", "é", "\u{a0}", "\u{2003}", "x_y", "(",
        ];
        for _ in 0..20_000 {
            let n = rng.below(8);
            let line: String = (0..n).map(|_| parts[rng.below(parts.len())]).collect();
            let want = line.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut text = String::from("prefix\n");
            push_normalized(&mut text, &line);
            assert_eq!(&text["prefix\n".len()..], want, "{line:?}");
        }
    }

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
        let candidates = scan.above(0.85);
        assert_eq!(candidates.len(), 1);
        assert_eq!(candidates[0].start, 0);
        assert!(candidates[0].similarity > 0.9);
        let none = find(&file, &["something else entirely"], 0.9, later());
        assert!(none.above(0.9).is_empty());
    }

    /// The scan skips windows by length and by the bag bound: it must
    /// score exactly the windows a plain Levenshtein over every window
    /// puts at or above the floor, with the same similarity.
    #[test]
    fn skipping_windows_loses_none() {
        let words = [
            "let",
            "x",
            "=",
            "total",
            "sum(items);",
            "}",
            "fn",
            "ä",
            "→",
            "  ",
        ];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..40 {
            let text: String = (0..60)
                .map(|_| {
                    let k = next() % 5;
                    let line: Vec<&str> = (0..k).map(|_| words[next() % words.len()]).collect();
                    format!("{}\n", line.join(" "))
                })
                .collect();
            let file = Lines::new(&text);
            let at = next() % 50;
            let n = 1 + next() % 6;
            let mut search: Vec<String> = (at..at + n).map(|i| file.line(i).to_string()).collect();
            let j = next() % n;
            search[j].push_str(words[next() % words.len()]);
            let search: Vec<&str> = search.iter().map(String::as_str).collect();
            for floor in [0.5, 0.7, 0.85, 0.95] {
                let scan = find(&file, &search, floor, later());
                let mut plain = Vec::new();
                for start in 0..=file.len() - n {
                    let sim = similarity_at(&file, &search, start);
                    let longer = normalized_search(&search).len().max(
                        normalized_search(
                            &(start..start + n).map(|i| file.line(i)).collect::<Vec<_>>(),
                        )
                        .len(),
                    );
                    if longer > 0
                        && ((1.0 - sim) * longer as f64).round() as usize
                            <= max_distance(floor, longer)
                    {
                        plain.push((start, sim));
                    }
                }
                let got: Vec<(usize, f64)> = scan
                    .windows
                    .iter()
                    .map(|w| (w.start, 1.0 - w.distance as f64 / w.longer as f64))
                    .collect();
                assert_eq!(got.len(), plain.len(), "floor {floor}, search {search:?}");
                for ((a, sa), (b, sb)) in got.iter().zip(&plain) {
                    assert_eq!(a, b);
                    assert!((sa - sb).abs() < 1e-9);
                }
            }
        }
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
