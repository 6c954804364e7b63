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

mod bag;
mod cutoff;

use bag::{Count, Counts, Tally};
use cutoff::{Cutoff, Late};

use super::keys::{Norm, View};
use super::Lines;
use crate::text::lines::LineIndex;

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

impl Window {
    /// `1 - distance / longer`: what [`Scored::similarity`] holds, and what
    /// a floor or threshold is compared with.
    fn similarity(&self) -> f64 {
        1.0 - self.distance as f64 / self.longer as f64
    }
}

/// The largest distance at which a window of `longer` chars is at least
/// `threshold` similar: the product rounded down, which for a product not
/// below zero is the cast's truncation (x86-64's baseline has no rounding
/// instruction: `floor` would be a call into the math library, one per
/// window scanned).
fn max_distance(threshold: f64, longer: usize) -> usize {
    ((1.0 - threshold) * longer as f64) as usize
}

impl FuzzyScan {
    /// The first and last start line of the windows scored (at or above
    /// the floor), `None` when none was.
    pub fn span(&self) -> Option<(usize, usize)> {
        Some((self.windows.first()?.start, self.windows.last()?.start))
    }

    /// The scans of one search over disjoint ranges of window starts,
    /// given in file order, as one scan of their union (each scan's
    /// windows are in file order, so their concatenation is). Timed out
    /// when one part is.
    pub fn joined(parts: impl IntoIterator<Item = FuzzyScan>) -> FuzzyScan {
        let mut whole = FuzzyScan::default();
        for part in parts {
            debug_assert!(match (whole.windows.last(), part.windows.first()) {
                (Some(a), Some(b)) => a.start < b.start && whole.n == part.n,
                _ => true,
            });
            whole.n = part.n;
            whole.timed_out |= part.timed_out;
            whole.windows.extend(part.windows);
        }
        whole
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
                similarity: w.similarity(),
            });
        cluster(scored, self.n)
    }
}

/// Normalizes one line: trimmed, whitespace runs collapsed to one space.
pub fn normalize_line(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
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

/// The normalized search as chars.
#[cfg(test)]
fn normalized_search(search: &[&str]) -> Vec<char> {
    normalized_text(search).chars().collect()
}

/// The normalized search, lines joined by `\n` (each line as
/// [`normalize_line`] makes it, pushed in place: `push_normalized`).
fn normalized_text(search: &[&str]) -> String {
    let mut text = String::with_capacity(search.iter().map(|l| l.len() + 1).sum());
    for (i, line) in search.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        push_normalized(&mut text, line);
    }
    text
}

/// Every window at or above `floor`, over the whole file.
pub fn find(file: &Lines, search: &[&str], floor: f64, deadline: Instant) -> FuzzyScan {
    find_near(file, search, floor, deadline, 0..usize::MAX)
}

/// Every window pass 7's choice reads when no line hint takes part: those
/// at or above `threshold` (the candidates; two of them are ambiguous),
/// and, when there is one, those within `margin` of it (its rivals). The
/// scan's floor is `threshold - margin`, the lowest a candidate can make
/// that, unless a window found beforehand raises it (a seed, [`seed`]):
/// the candidate is at least as similar as the seed, so no window below
/// `min(threshold, seed - margin)` is read. (A hint may pick a candidate
/// less similar than the seed, whose rivals lie lower.) Windows between
/// the two floors are then left out before they cost a distance, and the
/// bag rules out more of the others (W3: 57 distances computed at 0.85,
/// 13 at 0.9).
pub fn find_deciding(
    file: &Lines,
    search: &[&str],
    (threshold, margin): (f64, f64),
    deadline: Instant,
) -> FuzzyScan {
    let floor = (threshold - margin).max(0.0);
    let seed = seed(file, search, floor, threshold + margin, deadline);
    find_deciding_from(file, search, (threshold, margin), seed, deadline)
}

/// [`find_deciding`] from a seed its caller found beforehand ([`seed`],
/// with the floor `threshold - margin` and `enough` at `threshold +
/// margin`).
pub fn find_deciding_from(
    file: &Lines,
    search: &[&str],
    (threshold, margin): (f64, f64),
    seed: Option<Scored>,
    deadline: Instant,
) -> FuzzyScan {
    let floor = (threshold - margin).max(0.0);
    let raised = seed.map_or(floor, |s| {
        // The same expression the choice computes its rivals' floor with
        // from the best's similarity, so that the seed's floor is never
        // above it (a subtraction rounds monotonically).
        (s.similarity - margin).max(0.0).min(threshold).max(floor)
    });
    find(file, search, raised, deadline)
}

/// The most similar of a few windows the search's first or last line
/// places (a line holding it, trimmed, starts or ends the window; the
/// first line's places are known from the passes before), as the scan
/// scores them; `None` when none is at or above `floor`. Looks at the
/// last line only when the first gives none at `enough` (a seed there
/// raises the floor as far as it goes). Of windows equally similar, the
/// first found.
pub fn seed(
    file: &Lines,
    search: &[&str],
    floor: f64,
    enough: f64,
    deadline: Instant,
) -> Option<Scored> {
    /// Places tried per line: a line found in many places says little.
    const PLACES: usize = 4;
    let n = search.len();
    if n == 0 || n > file.len() {
        return None;
    }
    let mut plain = Plain::new(search);
    let mut best: Option<Scored> = None;
    for (j, line) in [(0, search[0]), (n - 1, search[n - 1])] {
        let core = line.trim();
        if core.is_empty() {
            continue;
        }
        for &at in file.holding(core).iter().take(PLACES) {
            let Some(start) = (at as usize).checked_sub(j).filter(|s| s + n <= file.len()) else {
                continue;
            };
            // Past the deadline the best so far: a seed only raises the
            // scan's floor, and the scan, past it too, says it timed out.
            let Ok(window) = plain.window_until(file, start, floor, deadline) else {
                return best;
            };
            if let Some(similarity) = window.map(|w| w.similarity()) {
                if best.is_none_or(|b| similarity > b.similarity) {
                    best = Some(Scored { start, similarity });
                }
            }
        }
        if best.is_some_and(|b| b.similarity >= enough) || n == 1 {
            break;
        }
    }
    best
}

/// The search's Levenshtein scorers: over bytes when both texts are
/// ASCII (a char is then a byte: the same distance), else over chars
/// (made when a window first needs it).
struct Scorer {
    /// Made when a window first needs it (ASCII, both).
    bytes: Option<levenshtein::BatchComparator<u8>>,
    /// The banded distance that gives up early, for a search longer than
    /// a word (a shorter one's distance is one word's pass in `rapidfuzz`),
    /// over the search's chars as [`Alphabet`] numbers them.
    cutoff: Option<(Cutoff, Alphabet)>,
    chars: Option<levenshtein::BatchComparator<char>>,
    needle: String,
    ascii: bool,
    /// A window's chars as the alphabet numbers them (reused).
    ids: Vec<u8>,
}

/// The search's chars numbered below 128, so that [`Cutoff`] (vectors per
/// ASCII byte) reads any text: an ASCII search's chars are their own
/// bytes; another's are numbered in order of first use, when it holds
/// fewer than 128 distinct chars. A window's char the search does not
/// hold gets a number the search does not use: it matches no char of
/// the search, as it is, and a distance compares only a char of the
/// search with a char of the window, so the distance is the chars'.
struct Alphabet {
    /// The numbers of the chars beyond ASCII (an ASCII search: none).
    wide: HashMap<char, u8>,
    /// Whether an ASCII char is its own number (an ASCII search).
    ascii_is_itself: bool,
    /// The numbers of the ASCII chars of a search beyond ASCII.
    narrow: [Option<u8>; 128],
    /// A number no char of the search has.
    outside: u8,
}

impl Alphabet {
    /// The search's alphabet and the search in its numbers; `None` when
    /// it holds 128 distinct chars or more (or all 128 ASCII bytes).
    fn of(needle: &str) -> Option<(Alphabet, Vec<u8>)> {
        if needle.is_ascii() {
            let mut used = [false; 128];
            for b in needle.bytes() {
                used[usize::from(b)] = true;
            }
            let outside = used.iter().position(|u| !u)? as u8;
            let alphabet = Alphabet {
                wide: HashMap::new(),
                ascii_is_itself: true,
                narrow: [None; 128],
                outside,
            };
            return Some((alphabet, needle.as_bytes().to_vec()));
        }
        let (mut wide, mut narrow) = (HashMap::new(), [None; 128]);
        let mut next = 0u8;
        let mut ids = Vec::with_capacity(needle.len());
        for c in needle.chars() {
            let slot = if c.is_ascii() {
                &mut narrow[c as usize]
            } else {
                wide.entry(c).or_insert(None)
            };
            let id = match *slot {
                Some(id) => id,
                None if next < 127 => {
                    *slot = Some(next);
                    next += 1;
                    next - 1
                }
                None => return None,
            };
            ids.push(id);
        }
        let wide = wide
            .into_iter()
            .map(|(c, id)| (c, id.expect("numbered")))
            .collect();
        let alphabet = Alphabet {
            wide,
            ascii_is_itself: false,
            narrow,
            outside: next,
        };
        Some((alphabet, ids))
    }

    /// `text`'s chars in the alphabet's numbers, into `out`.
    fn number(&self, text: &str, out: &mut Vec<u8>) {
        out.clear();
        out.extend(text.chars().map(|c| {
            if c.is_ascii() {
                if self.ascii_is_itself {
                    c as u8
                } else {
                    self.narrow[c as usize].unwrap_or(self.outside)
                }
            } else {
                self.wide.get(&c).copied().unwrap_or(self.outside)
            }
        }));
    }
}

impl Scorer {
    fn new(needle: String) -> Scorer {
        let ascii = needle.is_ascii();
        let cutoff = (needle.chars().nth(64).is_some())
            .then(|| Alphabet::of(&needle))
            .flatten()
            .and_then(|(alphabet, ids)| Some((Cutoff::new(&ids)?, alphabet)));
        Scorer {
            bytes: None,
            cutoff,
            chars: None,
            ascii,
            needle,
            ids: Vec::new(),
        }
    }

    /// The distance of `window` from the needle, `None` above `max_dist`;
    /// [`Late`] past `deadline`, which the banded distance reads as it
    /// goes (`rapidfuzz`'s, within a word's band or for a search of 128
    /// distinct chars or more, only before it starts).
    fn distance(
        &mut self,
        window: &str,
        max_dist: usize,
        deadline: Instant,
    ) -> Result<Option<usize>, Late> {
        match &self.cutoff {
            // Within a word's band `rapidfuzz` runs one word.
            Some((cutoff, alphabet)) if max_dist >= 32 => {
                if alphabet.ascii_is_itself && window.is_ascii() {
                    return cutoff.distance(window.as_bytes(), max_dist, deadline);
                }
                alphabet.number(window, &mut self.ids);
                cutoff.distance(&self.ids, max_dist, deadline)
            }
            _ if Instant::now() > deadline => Err(Late),
            _ => Ok(self.distance_plain(window, max_dist)),
        }
    }

    /// [`Scorer::distance`] by `rapidfuzz` alone (the definition).
    fn distance_plain(&mut self, window: &str, max_dist: usize) -> Option<usize> {
        let args = levenshtein::Args::default().score_cutoff(max_dist);
        if self.ascii && window.is_ascii() {
            return self
                .bytes
                .get_or_insert_with(|| levenshtein::BatchComparator::new(self.needle.bytes()))
                .distance_with_args(window.bytes(), &args);
        }
        self.chars
            .get_or_insert_with(|| levenshtein::BatchComparator::new(self.needle.chars()))
            .distance_with_args(window.chars(), &args)
    }
}

/// The window of `n` file lines from `start`, each normalized, joined by
/// `\n`, into `out`.
fn normalized_window<'t>(
    out: &mut String,
    line: impl Fn(usize) -> &'t str,
    start: usize,
    n: usize,
) {
    out.clear();
    for i in start..start + n {
        if i > start {
            out.push('\n');
        }
        push_normalized(out, line(i));
    }
}

/// The window starts a scan of `starts` reads, windows of `n` lines:
/// `starts` clamped to the file, one window at least, or none when the
/// search is empty or longer than the file. A range that holds another
/// clamps to a range that holds the other's clamp.
pub fn window_starts(
    file: &Lines,
    n: usize,
    starts: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    if n == 0 || n > file.len() {
        return 0..0;
    }
    let first = starts.start.min(file.len() - n);
    let last = starts.end.min(file.len() - n + 1).max(first + 1);
    first..last
}

/// Every window at or above `floor` among the windows starting at lines
/// `starts` (clamped to the file). A window's distance is computed only
/// when its length and its characters (the bag bound) leave it in reach.
///
/// The filter reads the file's lines as they are: the bound counts the
/// chars that are not whitespace (normalizing keeps them all) and the
/// spaces normalizing leaves (one between two words of a line), so only
/// the windows that pass are normalized. Each line is counted once, into
/// running counts kept after each of the window's lines (`bag`): a
/// window's bag is the difference of two of them. Where a window's bound is known
/// to exceed its cut-off by more than the chars entering and leaving the
/// next window (each moves the bound by at most one), the next one is
/// ruled out without reading the bound. A large text's windows are
/// scanned in two halves side by side. [`find_near_plain`] is the
/// definition it is held to.
pub fn find_near(
    file: &Lines,
    search: &[&str],
    floor: f64,
    deadline: Instant,
    starts: std::ops::Range<usize>,
) -> FuzzyScan {
    find_near_split(file, search, floor, deadline, starts, SPLIT_BYTES)
}

/// [`find_near`], its windows scanned in two halves from `split_bytes`
/// bytes of text under them.
fn find_near_split(
    file: &Lines,
    search: &[&str],
    floor: f64,
    deadline: Instant,
    starts: std::ops::Range<usize>,
    split_bytes: usize,
) -> FuzzyScan {
    let n = search.len();
    let std::ops::Range {
        start: first,
        end: last,
    } = window_starts(file, n, starts.clone());
    if first == last {
        return FuzzyScan::default();
    }
    // Counts are at most `u32`, exact below 2^31: a text of 1 GiB or more
    // is scanned plainly.
    let span = file.index.start((last - 1 + n).min(file.len())) - file.index.start(first);
    if span >= 1 << 30 || search.iter().map(|l| l.len()).sum::<usize>() >= 1 << 30 {
        return find_near_plain(file, search, floor, deadline, starts);
    }
    let scan = Scan {
        text: file.text,
        index: &file.index,
        search,
        floor,
        deadline,
    };
    let scan = |from: usize, to: usize| scan.windows(from..to);
    let (windows, timed_out) = if span >= split_bytes && last - first >= 2 * n {
        let mid = first + (last - first) / 2;
        let ((mut a, a_out), (b, b_out)) =
            crate::cores::join(|| scan(first, mid), || scan(mid, last));
        // The windows after a deadline the first half met are not the scan's.
        if !a_out {
            a.extend(b);
        }
        (a, a_out || b_out)
    } else {
        scan(first, last)
    };
    FuzzyScan {
        windows,
        n,
        timed_out,
    }
}

/// A text this long (bytes) under the windows is scanned on two cores.
/// Below it one core is faster, measured on W3's 390 KB: the windows that
/// cost (those the bag does not rule out, whose distance is computed) lie
/// near the copied text, in one half, so the other core has little to do;
/// and in a short process (the CLI) the thread's start, its first pages
/// and the count of cores (the cgroup's files) cost ~0.2 ms more than the
/// half saves.
const SPLIT_BYTES: usize = 1 << 20;

/// The size the tests split at: a text of a few thousand lines.
#[cfg(test)]
const TEST_SPLIT_BYTES: usize = 128 << 10;

/// One scan's inputs: the file's text and line index, the search, the
/// floor and the deadline.
struct Scan<'a> {
    text: &'a str,
    index: &'a LineIndex,
    search: &'a [&'a str],
    floor: f64,
    deadline: Instant,
}

impl Scan<'_> {
    /// The windows of [`find_near`] starting at `starts` (within the
    /// file), and whether the deadline stopped the scan: counted in `u16`
    /// when no window nor the search holds 32,768 bytes or more (the
    /// counts' half range), else in `u32`.
    fn windows(&self, starts: std::ops::Range<usize>) -> (Vec<Window>, bool) {
        let n = self.search.len();
        let small = |bytes: usize| bytes < 1 << 15;
        if small(self.search.iter().map(|l| l.len()).sum())
            && starts
                .clone()
                .all(|s| small(self.index.start(s + n) - self.index.start(s)))
        {
            self.counted::<u16>(starts)
        } else {
            self.counted::<u32>(starts)
        }
    }

    /// [`Scan::windows`] with counts of type `T`. Each line is counted
    /// once, as it enters the window, into a running tally; the tally
    /// after each of the last `n + 1` lines is kept in a ring, and a
    /// window's bag is the tally at its end less the tally at its start.
    fn counted<T: Count>(&self, starts: std::ops::Range<usize>) -> (Vec<Window>, bool) {
        let Scan {
            text,
            index,
            search,
            floor,
            deadline,
        } = *self;
        let n = search.len();
        let first = starts.start;
        let line = |i: usize| index.content(text, i);
        let mut wanted = Tally::<T>::new();
        let needle_len = n - 1
            + search
                .iter()
                .map(|l| wanted.line(l) as usize)
                .sum::<usize>();
        let needle = normalized_text(search);
        debug_assert_eq!(needle_len, needle.chars().count());
        let mut scorer = Scorer::new(needle);
        // The tally before line `first + j` is `ring[j % (n + 1)]`.
        let slots = n + 1;
        let mut ring: Vec<Counts<T>> = vec![[T::default(); bag::BUCKETS]; slots];
        let mut tally = Tally::<T>::new();
        // Each window line's normalized length, at `(line - first) % n`.
        let mut lens: Vec<u32> = vec![0; n];
        // The window's normalized length, without its final newline's place.
        let mut window_len = n as i64 - 1;
        for j in 0..n - 1 {
            let l = tally.line(line(first + j));
            window_len += i64::from(l);
            lens[j] = l;
            tally.copy_counts(&mut ring[j + 1]);
        }
        // A lower bound of the current window's bag bound (none yet).
        let mut bound: u64 = 0;
        let mut normalized = String::new();
        let mut windows: Vec<Window> = Vec::new();
        // `start - first` modulo `n` and `n + 1`.
        let (mut at_n, mut at_slots) = (0, 0);
        for start in starts {
            if start % 256 == 255 && Instant::now() > deadline {
                return (windows, true);
            }
            let end_slot = if at_slots == 0 { n } else { at_slots - 1 };
            let entering = tally.line(line(start + n - 1));
            tally.copy_counts(&mut ring[end_slot]);
            window_len += i64::from(entering);
            let mut moved = u64::from(entering);
            // The line leaving is `start - 1`, whose length sits where the
            // line entering keeps its own.
            let len_slot = if at_n == 0 { n - 1 } else { at_n - 1 };
            if start > first {
                let leaving = lens[len_slot];
                window_len -= i64::from(leaving);
                moved += u64::from(leaving);
            }
            lens[len_slot] = entering;
            let lo_slot = at_slots;
            at_n = if at_n + 1 == n { 0 } else { at_n + 1 };
            at_slots = if at_slots + 1 == slots {
                0
            } else {
                at_slots + 1
            };
            bound = bound.saturating_sub(moved);
            let wl = window_len as usize;
            let longer = wl.max(needle_len);
            if longer == 0 {
                continue;
            }
            let max_dist = max_distance(floor, longer);
            if wl.abs_diff(needle_len) > max_dist || bound > max_dist as u64 {
                continue;
            }
            let (hi, lo) = (&ring[end_slot], &ring[lo_slot]);
            bound = bag::bound(hi, lo, wanted.counts(), wl as i64 - needle_len as i64);
            debug_assert_eq!(
                bound,
                bag::bound_plain(hi, lo, wanted.counts(), wl as i64 - needle_len as i64)
            );
            if bound > max_dist as u64 {
                continue;
            }
            // A window to score: its distance may take long (a search of
            // thousands of lines), so the clock is read before each one,
            // not only every 256 windows, and within it as it goes.
            if Instant::now() > deadline {
                return (windows, true);
            }
            normalized_window(&mut normalized, |i| line(i), start, n);
            debug_assert_eq!(normalized.chars().count(), wl);
            match scorer.distance(&normalized, max_dist, deadline) {
                Ok(Some(distance)) => windows.push(Window {
                    start,
                    distance,
                    longer,
                }),
                Ok(None) => {}
                Err(Late) => return (windows, true),
            }
        }
        (windows, false)
    }
}

/// [`find_near`] by its definition: every window normalized, its
/// distance computed when its length leaves it in reach (a difference
/// of lengths is a distance at least that large).
pub fn find_near_plain(
    file: &Lines,
    search: &[&str],
    floor: f64,
    deadline: Instant,
    starts: std::ops::Range<usize>,
) -> FuzzyScan {
    let n = search.len();
    let std::ops::Range {
        start: first,
        end: last,
    } = window_starts(file, n, starts);
    if first == last {
        return FuzzyScan::default();
    }
    let mut plain = Plain::new(search);
    let mut windows: Vec<Window> = Vec::new();
    let mut timed_out = false;
    for start in first..last {
        // Each window is normalized whole and may be scored: the clock is
        // read before each one.
        if Instant::now() > deadline {
            timed_out = true;
            break;
        }
        windows.extend(plain.window(file, start, floor));
    }
    FuzzyScan {
        windows,
        n,
        timed_out,
    }
}

/// The words of 64 rows (the search's length times the window's, over
/// 64) under which one distance by `rapidfuzz` takes a few ms at most.
const PLAIN_WORDS: usize = 1 << 22;

/// Windows scored by the definition: normalized whole, their distance
/// computed when their length leaves them in reach (a difference of
/// lengths is a distance at least that large). [`find_near_plain`]
/// scores every window so, [`seed`] a few.
struct Plain {
    scorer: Scorer,
    needle_len: usize,
    /// Lines in a window.
    n: usize,
    /// The window normalized (reused from window to window).
    text: String,
}

impl Plain {
    fn new(search: &[&str]) -> Plain {
        let needle = normalized_text(search);
        Plain {
            needle_len: needle.chars().count(),
            scorer: Scorer::new(needle),
            n: search.len(),
            text: String::new(),
        }
    }

    /// The window of `n` lines at `start`, when at or above `floor`
    /// (its distance by `rapidfuzz`, the definition).
    fn window(&mut self, file: &Lines, start: usize, floor: f64) -> Option<Window> {
        let (max_dist, longer) = self.in_reach(file, start, floor)?;
        let distance = self.scorer.distance_plain(&self.text, max_dist)?;
        Some(Window {
            start,
            distance,
            longer,
        })
    }

    /// [`Plain::window`] by the scan's distance (the same, within the
    /// cut-off), which gives up at `deadline`.
    fn window_until(
        &mut self,
        file: &Lines,
        start: usize,
        floor: f64,
        deadline: Instant,
    ) -> Result<Option<Window>, Late> {
        let Some((max_dist, longer)) = self.in_reach(file, start, floor) else {
            return Ok(None);
        };
        // A short window's distance is quicker by `rapidfuzz` (the seed's
        // windows are near the search: the banded one's early end does
        // not come), and ends soon after the clock is read.
        let distance = if self.needle_len.saturating_mul(longer) / 64 <= PLAIN_WORDS {
            if Instant::now() > deadline {
                return Err(Late);
            }
            self.scorer.distance_plain(&self.text, max_dist)
        } else {
            self.scorer.distance(&self.text, max_dist, deadline)?
        };
        Ok(distance.map(|distance| Window {
            start,
            distance,
            longer,
        }))
    }

    /// Normalizes the window at `start` into `self.text`; its cut-off at
    /// `floor` and the longer length, when its length leaves it in reach
    /// (a difference of lengths is a distance at least that large).
    fn in_reach(&mut self, file: &Lines, start: usize, floor: f64) -> Option<(usize, usize)> {
        normalized_window(&mut self.text, |i| file.line(i), start, self.n);
        let wl = self.text.chars().count();
        let longer = wl.max(self.needle_len);
        if longer == 0 {
            return None;
        }
        let max_dist = max_distance(floor, longer);
        if wl.abs_diff(self.needle_len) > max_dist {
            return None;
        }
        Some((max_dist, longer))
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
///
/// Over bytes when both texts are ASCII (a char is then a byte: the same
/// lengths and distance), else over chars.
pub fn similarity(a: &[&str], b: &[&str]) -> f64 {
    let a = normalized_text(a);
    let b = normalized_text(b);
    let (distance, longer) = if a.is_ascii() && b.is_ascii() {
        (
            levenshtein::distance(a.bytes(), b.bytes()),
            a.len().max(b.len()),
        )
    } else {
        let (a, b) = (a.chars(), b.chars());
        let longer = a.clone().count().max(b.clone().count());
        (levenshtein::distance(a, b), longer)
    };
    if longer == 0 {
        return 1.0;
    }
    1.0 - distance as f64 / longer as f64
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
    for start in candidates.iter().copied() {
        // Each candidate is scored whole (a long search takes long): the
        // clock is read before each one.
        if Instant::now() > deadline {
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

    /// The cast in `max_distance` rounds down as `floor` does, for every
    /// threshold a user may set (and beyond: 0, above 1, not a number).
    #[test]
    fn max_distance_is_the_product_rounded_down() {
        let mut rng = crate::test_rng::Rng::new(5);
        let mut thresholds = vec![0.0, 0.5, 0.85, 0.9, 0.95, 0.99, 1.0, 1.5, f64::NAN];
        thresholds.extend((0..2_000).map(|_| rng.below(1_000_001) as f64 / 1e6));
        for &t in &thresholds {
            for longer in (0..300).chain([1 << 15, (1 << 20) + 7, 1 << 30]) {
                let want = ((1.0 - t) * longer as f64).floor() as usize;
                assert_eq!(max_distance(t, longer), want, "{t} {longer}");
            }
        }
    }

    /// The scan's distance, through the alphabet's numbers, is
    /// `rapidfuzz`'s over chars: searches and windows of ASCII and of
    /// chars beyond it (windows holding chars the search lacks), at
    /// cut-offs below, at and above the distance.
    #[test]
    fn the_numbered_distance_is_rapidfuzz_s() {
        let mut rng = crate::test_rng::Rng::new(97);
        let pools: [&[&str]; 3] = [
            &["a", "b", " ", "(", "x"],
            &["a", "é", "ß", " ", "\u{4e2d}", "b"],
            &["é", "a", "\u{1f600}", "z", "\u{4e2d}", "ü", "\n"],
        ];
        let far = Instant::now() + Duration::from_secs(3600);
        let mut within = 0;
        for round in 0..600 {
            let needle: String = (0..65 + rng.below(200))
                .map(|_| *rng.pick(pools[round % 3]))
                .collect();
            let mut scorer = Scorer::new(needle.clone());
            assert!(scorer.cutoff.is_some(), "{needle:?}");
            for _ in 0..4 {
                let mut window = String::new();
                for c in needle.chars() {
                    match rng.below(12) {
                        0 => {}
                        1 => {
                            let pool = pools[rng.below(3)];
                            let piece: &&str = rng.pick(pool);
                            window.push_str(piece);
                        }
                        2 => {
                            window.push(c);
                            let piece: &&str = rng.pick(pools[2]);
                            window.push_str(piece);
                        }
                        _ => window.push(c),
                    }
                }
                let d = scorer
                    .distance_plain(&window, usize::MAX)
                    .expect("no cut-off");
                for k in [d.saturating_sub(1), d, d + 3, 32, 40, d / 2 + 32] {
                    let want = scorer.distance_plain(&window, k);
                    let got = scorer.distance(&window, k, far).expect("no deadline");
                    assert_eq!(got, want, "{needle:?} {window:?} k {k}");
                    within += usize::from(want.is_some());
                }
            }
        }
        assert!(within > 2_000, "{within}");
    }

    /// A search of 128 distinct chars or more has no banded distance
    /// (its numbers would not fit the vectors): `rapidfuzz` scores it.
    #[test]
    fn a_search_of_many_chars_is_scored_plainly() {
        let needle: String = (0..200u32)
            .filter_map(|i| char::from_u32(0x4e00 + i))
            .collect();
        assert!(Scorer::new(needle).cutoff.is_none());
        let ascii: String = (0u8..128).map(char::from).collect();
        assert!(Scorer::new(ascii).cutoff.is_none());
    }

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
            let line: String = (0..n).map(|_| *rng.pick(&parts)).collect();
            let want = line.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut text = String::from("prefix\n");
            push_normalized(&mut text, &line);
            assert_eq!(&text["prefix\n".len()..], want, "{line:?}");
        }
    }

    /// `similarity` (bytes when both texts are ASCII) is its definition:
    /// each line `split_whitespace` joined by one space, lines joined by
    /// `\n`, the Levenshtein distance over chars by the longer length.
    #[test]
    fn similarity_is_its_definition() {
        let plain = |a: &[&str], b: &[&str]| {
            let norm = |t: &[&str]| -> Vec<char> {
                t.iter()
                    .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .chars()
                    .collect()
            };
            let (a, b) = (norm(a), norm(b));
            let longer = a.len().max(b.len());
            if longer == 0 {
                return 1.0;
            }
            1.0 - levenshtein::distance(a.iter().copied(), b.iter().copied()) as f64 / longer as f64
        };
        let mut rng = crate::test_rng::Rng::new(31);
        for _ in 0..5_000 {
            let lines = |rng: &mut crate::test_rng::Rng| -> Vec<String> {
                (0..rng.below(4)).map(|_| random_line(rng)).collect()
            };
            let (a, b) = (lines(&mut rng), lines(&mut rng));
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let mut b: Vec<&str> = b.iter().map(String::as_str).collect();
            if rng.below(3) == 0 {
                b = a.clone();
            }
            assert_eq!(similarity(&a, &b), plain(&a, &b), "{a:?} {b:?}");
        }
    }

    /// Lines of every kind: words, runs of whitespace of every kind
    /// (ASCII and not), chars beyond ASCII, empty and blank lines.
    fn random_line(rng: &mut crate::test_rng::Rng) -> String {
        let parts = [
            "a",
            "bc",
            "def",
            " ",
            "  ",
            "\t",
            "\r",
            "\x0B",
            "\x0C",
            "é",
            "\u{a0}",
            "\u{2003}",
            "x_y",
            "(",
            ")",
            "\u{1f600}",
            "0",
            "\u{85}",
            "\u{1c}",
        ];
        let n = rng.below(9);
        (0..n).map(|_| *rng.pick(&parts)).collect()
    }

    /// The counts of a normalized text by char, newlines left out: each
    /// ASCII char by its byte, every other char in [`bag::OTHER`]'s place
    /// (the bag's buckets are those from [`bag::FIRST`] on; the control
    /// characters below have none).
    fn plain_counts(norm: &str) -> [i64; 128] {
        let mut want = [0i64; 128];
        for c in norm.chars().filter(|&c| c != '\n') {
            want[if c.is_ascii() { c as usize } else { bag::OTHER }] += 1;
        }
        want
    }

    /// A line's tally is its normalized length in chars, and adds its
    /// normalized text's chars bucketed to the counts, in `u16` and `u32`
    /// alike, wrapping included.
    #[test]
    fn a_tally_counts_the_normalized_line() {
        fn check<T: Count>(rng: &mut crate::test_rng::Rng, start: u32) {
            let mut tally = Tally::<T>::new();
            // Counts near the wrap of `u16`.
            let mut filler = String::new();
            for k in 33..127u8 {
                filler.extend(std::iter::repeat_n(k as char, start as usize));
            }
            tally.line(&filler);
            for _ in 0..5_000 {
                let line = random_line(rng);
                let norm = normalize_line(&line);
                let before = *tally.counts();
                let len = tally.line(&line);
                assert_eq!(len as usize, norm.chars().count(), "{line:?}");
                let want = plain_counts(&norm);
                for k in 0..bag::BUCKETS {
                    assert_eq!(
                        tally.counts()[k].between(before[k]),
                        want[bag::FIRST + k],
                        "{line:?} {k}"
                    );
                }
            }
        }
        let mut rng = crate::test_rng::Rng::new(23);
        check::<u16>(&mut rng, 0);
        check::<u16>(&mut rng, 65_530);
        check::<u32>(&mut rng, 0);
    }

    /// The bound is the bag distance of the two normalized texts (chars
    /// beyond ASCII merged, newlines left out), summed in `u16` or `u32`
    /// counts as summed plainly, and never exceeds their Levenshtein
    /// distance.
    #[test]
    fn bag_bound_is_a_lower_bound() {
        fn check<T: Count>(rng: &mut crate::test_rng::Rng) {
            let lines = |rng: &mut crate::test_rng::Rng, k: usize| -> Vec<String> {
                (0..k).map(|_| random_line(rng)).collect()
            };
            let k = 1 + rng.below(4);
            let a = lines(rng, k);
            let b = lines(rng, a.len());
            let k = rng.below(3);
            let before = lines(rng, k);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let b: Vec<&str> = b.iter().map(String::as_str).collect();
            let mut s = Tally::<T>::new();
            let lb = b.len() - 1 + b.iter().map(|l| s.line(l) as usize).sum::<usize>();
            let mut w = Tally::<T>::new();
            for l in &before {
                w.line(l);
            }
            let lo = *w.counts();
            let la = a.len() - 1 + a.iter().map(|l| w.line(l) as usize).sum::<usize>();
            let (ta, tb) = (normalized_text(&a), normalized_text(&b));
            assert_eq!(la, ta.chars().count());
            assert_eq!(lb, tb.chars().count());
            let d = la as i64 - lb as i64;
            let bound = bag::bound(w.counts(), &lo, s.counts(), d);
            assert_eq!(bound, bag::bound_plain(w.counts(), &lo, s.counts(), d));
            let (ca, cb) = (plain_counts(&ta), plain_counts(&tb));
            // Over the bag's buckets, half the chars on either side that
            // the other lacks and the difference of the lengths...
            let abs: i64 = (bag::FIRST..128).map(|k| (ca[k] - cb[k]).abs()).sum();
            assert_eq!(bound, (abs as u64 + d.unsigned_abs()) / 2, "{a:?} {b:?}");
            // ...which, over the buckets of every char, is their bag
            // distance: no more than that, nor than their distance.
            let extra: i64 = (0..128).map(|k| (ca[k] - cb[k]).max(0)).sum();
            let missing: i64 = (0..128).map(|k| (cb[k] - ca[k]).max(0)).sum();
            assert!(bound <= extra.max(missing) as u64, "{a:?} {b:?}");
            let control = |c: &[i64; 128]| c[..bag::FIRST].iter().sum::<i64>();
            if control(&ca) + control(&cb) == 0 {
                assert_eq!(bound, extra.max(missing) as u64, "{a:?} {b:?}");
            }
            let dist = levenshtein::distance(ta.chars(), tb.chars());
            assert!(bound as usize <= dist, "{a:?} {b:?}");
        }
        let mut rng = crate::test_rng::Rng::new(5);
        for _ in 0..5_000 {
            check::<u16>(&mut rng);
            check::<u32>(&mut rng);
        }
    }

    /// A text large enough to be scanned in two halves gives the plain
    /// scan's windows, at every floor (windows straddling the middle, and
    /// copies of the search in both halves).
    #[test]
    fn the_split_scan_is_the_plain_scan() {
        let mut rng = crate::test_rng::Rng::new(41);
        let words = ["def", "f(x):", "return", "x", "+", "1", "é", "\t", "self.a"];
        let text: String = (0..6_000)
            .map(|i| {
                let k = 1 + rng.below(6);
                let line: Vec<&str> = (0..k).map(|_| *rng.pick(&words)).collect();
                format!("{}{} {i}\n", "    ".repeat(rng.below(3)), line.join(" "))
            })
            .collect();
        assert!(text.len() >= TEST_SPLIT_BYTES);
        let file = Lines::new(&text);
        for at in [0, 1_500, 2_998, 2_999, 3_000, 4_500, 5_990] {
            let n = 8;
            let mut search: Vec<String> = (at..at + n).map(|i| file.line(i).to_string()).collect();
            search[3].push_str(" typo");
            let search: Vec<&str> = search.iter().map(String::as_str).collect();
            for floor in [0.5, 0.85, 0.95] {
                let all = 0..usize::MAX;
                let got = find_near_split(&file, &search, floor, later(), all, TEST_SPLIT_BYTES);
                let want = find_near_plain(&file, &search, floor, later(), 0..usize::MAX);
                assert_eq!(got, want, "at {at}, floor {floor}");
                assert!(got.windows.iter().any(|w| w.start == at));
            }
        }
    }

    /// The scan (its filter, the bound carried from window to window,
    /// the windows normalized one by one) scores exactly the windows the
    /// plain scan scores, with the same distances: on random files of
    /// every kind of line (CRLF, tabs, blank lines, chars beyond ASCII),
    /// searches copied from them with edits or not, every floor, and
    /// ranges of starts at the file's ends.
    #[test]
    fn the_scan_is_the_plain_scan() {
        let mut rng = crate::test_rng::Rng::new(99);
        let words = [
            "def", "f(x):", "return", "x", "+", "1", "é", "→", "\t", "  ", "self.a", "\r", "",
        ];
        for round in 0..1_500 {
            let lines = 1 + rng.below(40);
            let mut text = String::new();
            for _ in 0..lines {
                let k = rng.below(7);
                let indent = ["", "    ", "\t", "  \t "][rng.below(4)];
                text.push_str(indent);
                let line: Vec<&str> = (0..k).map(|_| *rng.pick(&words)).collect();
                text.push_str(&line.join(if rng.below(5) == 0 { "  " } else { " " }));
                text.push_str(if rng.below(6) == 0 { "\r\n" } else { "\n" });
            }
            if rng.below(3) == 0 {
                text.pop();
            }
            let file = Lines::new(&text);
            if file.is_empty() {
                continue;
            }
            let n = 1 + rng.below(file.len().min(6));
            let at = rng.below(file.len() - n + 1);
            let mut search: Vec<String> = (at..at + n)
                .map(|i| {
                    if rng.below(4) == 0 {
                        random_line(&mut rng)
                    } else {
                        file.line(i).to_string()
                    }
                })
                .collect();
            for _ in 0..rng.below(3) {
                let j = rng.below(n);
                let w = *rng.pick(&words);
                search[j].push_str(w);
            }
            let search: Vec<&str> = search.iter().map(String::as_str).collect();
            let starts = match round % 4 {
                0 => 0..usize::MAX,
                1 => rng.below(file.len())..rng.below(file.len() + 3),
                2 => 0..rng.below(file.len() + 1),
                _ => file.len().saturating_sub(rng.below(5))..usize::MAX,
            };
            for floor in [0.0, 0.3, 0.5, 0.7, 0.85, 0.9, 0.95, 1.0] {
                let got = find_near(&file, &search, floor, later(), starts.clone());
                let want = find_near_plain(&file, &search, floor, later(), starts.clone());
                assert_eq!(got, want, "floor {floor}, {search:?} in {text:?}");
            }
        }
    }

    /// A reach widened by two bands of starts, scanned as the bands alone
    /// joined with the scan of the reach they surround, is the scan of
    /// the widened reach: the same windows, at ranges that the file's
    /// ends clamp (a line hint's second reading, `fuzzy_near_hint`).
    #[test]
    fn bands_joined_to_a_reach_are_the_widened_reach() {
        let mut rng = crate::test_rng::Rng::new(41);
        let block = ["fn a() {", "    let x = f(1);", "    x + 2", "}", ""];
        for _ in 0..400 {
            let lines = 1 + rng.below(60);
            let mut text = String::new();
            for _ in 0..lines {
                let mut line = rng.pick(&block).to_string();
                if rng.below(4) == 0 {
                    line.push_str(&random_line(&mut rng));
                }
                text.push_str(&line);
                text.push('\n');
            }
            let file = Lines::new(&text);
            let n = 1 + rng.below(6);
            let search: Vec<&str> = (0..n).map(|i| block[i % block.len()]).collect();
            let h = rng.below(lines + 10);
            let (clear, more) = (rng.below(8), rng.below(8));
            let reach = |m: usize| h.saturating_sub(clear + m)..h + clear + m + 1;
            let (inner, outer) = (
                window_starts(&file, n, reach(0)),
                window_starts(&file, n, reach(more)),
            );
            assert!(outer.start <= inner.start && inner.end <= outer.end);
            for floor in [0.0, 0.5, 0.8, 1.0] {
                let scan = |starts: std::ops::Range<usize>| {
                    (!starts.is_empty()).then(|| find_near(&file, &search, floor, later(), starts))
                };
                let joined = FuzzyScan::joined(
                    scan(outer.start..inner.start)
                        .into_iter()
                        .chain(scan(reach(0)))
                        .chain(scan(inner.end..outer.end)),
                );
                let whole = find_near(&file, &search, floor, later(), reach(more));
                assert_eq!(
                    joined.windows, whole.windows,
                    "{search:?} at {h} in {text:?}"
                );
                assert_eq!(joined.above(floor), whole.above(floor));
            }
        }
    }

    /// The scan pass 7 decides on without a hint ([`find_deciding`], its
    /// floor raised by a seed) gives the same candidates, and the same
    /// rivals within the margin of a lone one, as the plain scan at `threshold - margin`: on files
    /// made of near copies of one block (rivals at every similarity),
    /// searches copied from one of them with edits (their first or last
    /// line kept or not, so that seeds are found or missed), and every
    /// threshold and margin.
    #[test]
    fn the_deciding_scan_decides_as_the_plain_scan() {
        let mut rng = crate::test_rng::Rng::new(1234);
        let words = [
            "def", "f(x):", "return", "x", "+", "1", "é", "self.a", "y", "}",
        ];
        let mut raised = 0;
        for round in 0..600 {
            let block: Vec<String> = (0..2 + rng.below(6))
                .map(|_| random_line(&mut rng))
                .collect();
            let mut lines: Vec<String> = Vec::new();
            for _ in 0..1 + rng.below(5) {
                for l in &block {
                    let mut l = l.clone();
                    if rng.below(4) == 0 {
                        l.push_str(words[rng.below(words.len())]);
                    }
                    lines.push(l);
                }
                for _ in 0..rng.below(3) {
                    lines.push(random_line(&mut rng));
                }
            }
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let file = Lines::new(&text);
            let n = (1 + rng.below(block.len())).min(file.len());
            let at = rng.below(file.len() - n + 1);
            let mut search: Vec<String> = (at..at + n).map(|i| file.line(i).to_string()).collect();
            for _ in 0..rng.below(3) {
                let j = rng.below(n);
                search[j].push_str(words[rng.below(words.len())]);
            }
            let search: Vec<&str> = search.iter().map(String::as_str).collect();
            for threshold in [0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0] {
                for margin in [0.0, 0.05, 0.1] {
                    let got = find_deciding(&file, &search, (threshold, margin), later());
                    let floor = (threshold - margin).max(0.0);
                    let plain = find_near_plain(&file, &search, floor, later(), 0..usize::MAX);
                    raised += usize::from(got.windows.len() < plain.windows.len());
                    let why =
                        format!("round {round}, {threshold}/{margin}: {search:?} in {text:?}");
                    let candidates = got.above(threshold);
                    assert_eq!(candidates, plain.above(threshold), "{why}");
                    if let [best] = candidates[..] {
                        let rivals = (best.similarity - margin).max(0.0);
                        assert_eq!(got.above(rivals), plain.above(rivals), "{why}");
                    }
                }
            }
        }
        // The seed raised the floor in some rounds (not a scan kept whole).
        assert!(raised > 100, "{raised}");
    }

    /// Windows of 32,768 bytes or more are counted in `u32`: long lines
    /// (of every kind, CRLF and chars beyond ASCII) among short ones give
    /// the plain scan's windows, and so do the same lines cut short
    /// (counted in `u16`, their prefix counts wrapping).
    #[test]
    fn long_windows_are_the_plain_scan() {
        let mut rng = crate::test_rng::Rng::new(77);
        for round in 0..4 {
            // A window of two long lines, or one, holds 32,768 bytes.
            let long = if round < 2 { 17_000 } else { 33_000 };
            let mut lines: Vec<String> = (0..16)
                .map(|i| {
                    if rng.below(3) == 0 {
                        let mut l = String::new();
                        while l.len() < long {
                            l.push_str(&random_line(&mut rng));
                            l.push_str(" x");
                        }
                        l
                    } else {
                        format!("line {i} {}", random_line(&mut rng))
                    }
                })
                .collect();
            for cut in [usize::MAX, 700] {
                for l in &mut lines {
                    l.truncate(l.floor_char_boundary(cut));
                }
                let ending = if round % 2 == 0 { "\n" } else { "\r\n" };
                let text: String = lines.iter().map(|l| format!("{l}{ending}")).collect();
                let file = Lines::new(&text);
                let n = 3 + rng.below(3);
                let at = rng.below(file.len() - n);
                let mut search: Vec<String> =
                    (at..at + n).map(|i| file.line(i).to_string()).collect();
                search[1].insert_str(0, "typo ");
                let search: Vec<&str> = search.iter().map(String::as_str).collect();
                for floor in [0.5, 0.85, 0.95] {
                    let got = find(&file, &search, floor, later());
                    let want = find_near_plain(&file, &search, floor, later(), 0..usize::MAX);
                    assert_eq!(got, want, "round {round}, cut {cut}, floor {floor}");
                    assert!(floor > 0.5 || got.windows.iter().any(|w| w.start == at));
                }
            }
        }
    }

    /// A scan past its deadline stops at the same window either way.
    #[test]
    fn the_scan_times_out_as_the_plain_scan() {
        let text: String = (0..2_000).map(|i| format!("line {i}\n")).collect();
        let file = Lines::new(&text);
        let past = Instant::now() - Duration::from_secs(1);
        let got = find_near(&file, &["line 7", "line 8"], 0.5, past, 0..usize::MAX);
        let want = find_near_plain(&file, &["line 7", "line 8"], 0.5, past, 0..usize::MAX);
        assert!(got.timed_out);
        assert_eq!(got, want);
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
