//! The exact hits of every sequential search in the original text, found
//! once per file so that later exact searches never rescan it
//! ([`super::doc::Doc::find`] maps them through the edits made since).
//!
//! A line search (SEARCH/REPLACE blocks and the other line formats) only
//! ever matches whole lines, so its hits are line starts: the original's
//! lines are looked up by a hash of their text in a table of the needles'
//! first lines, and each hit is checked in full. A substring search (the
//! string tools, FIND/REPLACE) may match anywhere: a few are searched with
//! `memmem`, many with one Aho-Corasick scan over their first bytes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::text::lines::for_each_newline;
use aho_corasick::{AhoCorasick, AhoCorasickKind};

use super::doc::{self, OrigHits, Places};
use crate::model::MatchUnit;
use crate::text::hashed::PrecomputedHasher;

/// One needle: the edit it belongs to, its text, and how it matches.
pub struct Needle<'a> {
    pub edit: usize,
    pub text: Cow<'a, str>,
    pub unit: MatchUnit,
}

/// How many leading bytes of each substring needle the automaton holds.
const PREFIX_BYTES: usize = 48;

/// Up to this many substring needles, the automaton is a DFA.
const DFA_MAX_NEEDLES: usize = 256;

/// Below this many bytes scanned in all (text length × needles), each
/// substring needle is searched on its own instead of through an automaton.
const PER_NEEDLE_SCAN_BYTES: usize = 8 << 20;

/// At most this many places of a needle's first line are kept (beyond,
/// the text near every change is searched instead: [`OrigHits`]).
const FIRST_LINE_CAP: usize = 256;

/// The hits of a file's needles ([`find`]), looked up by edit.
#[derive(Debug, Default)]
pub struct FileHits {
    /// The distinct needles' hits.
    hits: Vec<OrigHits>,
    /// (edit, index into `hits`) per needle, by edit.
    of: Vec<(usize, usize)>,
}

impl FileHits {
    /// The hits of the needle of `edit`, if it had one.
    pub fn get(&self, edit: usize) -> Option<&OrigHits> {
        let i = self.of.binary_search_by_key(&edit, |&(e, _)| e).ok()?;
        Some(&self.hits[self.of[i].1])
    }
}

/// Every needle's hits in `original`, by edit: byte offsets, in order;
/// for a line needle only offsets at a line start. Needles of the same
/// text and unit share their hits (ten thousand blocks with one search
/// over ten thousand places would otherwise hold 10^8 offsets).
pub fn find(original: &str, needles: &[Needle]) -> FileHits {
    let (unique, of) = distinct(needles);
    let hits = distinct_hits(original, &unique);
    let mut of: Vec<(usize, usize)> = needles.iter().map(|n| n.edit).zip(of).collect();
    // A file's edits come in payload order: sorted already, as a rule.
    if !of.is_sorted_by_key(|&(e, _)| e) {
        of.sort_by_key(|&(e, _)| e);
    }
    FileHits { hits, of }
}

/// The distinct needles (`unique[k]` the first needle of its text and
/// unit, in payload order) and, per needle, its `k`. Texts are looked up
/// by their xxh3 (a chain per hash, as in the line tables) and compared
/// in full: a hash shared by two texts only costs a comparison.
fn distinct<'n, 'a>(needles: &'n [Needle<'a>]) -> (Vec<&'n Needle<'a>>, Vec<usize>) {
    let mut last: HashMap<u64, usize, BuildHasherDefault<PrecomputedHasher>> =
        HashMap::with_capacity_and_hasher(needles.len(), Default::default());
    // Per distinct needle, the previous one with the same hash.
    let mut previous: Vec<usize> = Vec::with_capacity(needles.len());
    let mut unique: Vec<&Needle> = Vec::with_capacity(needles.len());
    let of = needles
        .iter()
        .map(|n| {
            let hash = xxhash_rust::xxh3::xxh3_64(n.text.as_bytes())
                .wrapping_add(u64::from(n.unit == MatchUnit::Lines));
            let head = last.get(&hash).copied().unwrap_or(usize::MAX);
            let mut k = head;
            while k != usize::MAX {
                let u = unique[k];
                if u.text == n.text && (u.unit == MatchUnit::Lines) == (n.unit == MatchUnit::Lines)
                {
                    return k;
                }
                k = previous[k];
            }
            unique.push(n);
            previous.push(head);
            last.insert(hash, unique.len() - 1);
            unique.len() - 1
        })
        .collect();
    (unique, of)
}

/// [`find`] for needles that differ from each other: each one's hits, in
/// the needles' order.
fn distinct_hits(original: &str, needles: &[&Needle]) -> Vec<OrigHits> {
    let mut out: Vec<OrigHits> = vec![OrigHits::default(); needles.len()];
    let (lines, substrings): (Vec<usize>, Vec<usize>) =
        (0..needles.len()).partition(|&k| needles[k].unit == MatchUnit::Lines);
    // The table costs one pass over the lines, about what two `memmem`
    // scans cost (each with a searcher to build): from three needles on
    // it is cheaper, whatever the text's size.
    if lines.len() <= 2 {
        for k in lines {
            let n = needles[k];
            let hits = doc::find_overlapping(original.as_bytes(), n.text.as_bytes())
                .into_iter()
                .filter(|&s| is_line_hit(original.as_bytes(), s, n.text.as_bytes()))
                .collect();
            out[k] = full(hits);
        }
    } else {
        let picked: Vec<&Needle> = lines.iter().map(|&k| needles[k]).collect();
        for (k, hits) in lines.iter().zip(line_starts(original, &picked)) {
            out[*k] = hits;
        }
    }
    if substrings.len() <= 2
        || original.len().saturating_mul(substrings.len()) <= PER_NEEDLE_SCAN_BYTES
    {
        for k in substrings {
            out[k] = full(doc::find_overlapping(
                original.as_bytes(),
                needles[k].text.as_bytes(),
            ));
        }
    } else {
        let picked: Vec<&Needle> = substrings.iter().map(|&k| needles[k]).collect();
        for (k, (_, hits)) in substrings.iter().zip(automaton(original, &picked)) {
            out[*k] = full(hits);
        }
    }
    out
}

/// Hits without the places of the first line.
fn full(hits: Vec<usize>) -> OrigHits {
    OrigHits {
        full: hits.into(),
        ..OrigHits::default()
    }
}

/// Whether `needle` at `s` starts at a line start and holds its first
/// line whole (what [`line_starts`] finds; the end of its last line is
/// checked later, against the text as the edits left it).
fn is_line_hit(bytes: &[u8], s: usize, needle: &[u8]) -> bool {
    if s > 0 && bytes[s - 1] != b'\n' {
        return false;
    }
    if memchr::memchr(b'\n', needle).is_some() {
        return true;
    }
    let rest = &bytes[s + needle.len()..];
    rest.is_empty() || rest.starts_with(b"\n") || rest.starts_with(b"\r\n")
}

/// A line's text as a table key: without its `\n` and one `\r` before it
/// (a needle's first line in a CRLF file ends in `\r`, a one-line needle
/// does not).
fn key(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A needle's first line as a table key ([`key`]).
fn first_line<'n>(n: &'n Needle) -> &'n [u8] {
    let t = n.text.as_bytes();
    key(&t[..memchr::memchr(b'\n', t).unwrap_or(t.len())])
}

/// Line needles through one pass over the original's lines: a line whose
/// length and hash are some needle's first line's is checked against that
/// needle in full. The places of a needle of several lines whose first
/// line matches are kept too (up to [`FIRST_LINE_CAP`]): once the file is
/// edited, they are where an occurrence the edits made may start.
fn line_starts(original: &str, needles: &[&Needle]) -> Vec<OrigHits> {
    let bytes = original.as_bytes();
    let firsts = FirstLines::new(needles);
    let scan = |lo: usize, hi: usize, last: bool| scan_lines(bytes, lo..hi, last, needles, &firsts);
    // A large text is scanned in two halves side by side (a file's edits
    // are resolved on one core: one large file would leave the other idle).
    let half = bytes.len() / 2;
    let split = (bytes.len() >= SPLIT_BYTES)
        .then(|| memchr::memchr(b'\n', &bytes[half..]))
        .flatten();
    let (hits, first_lines) = match split {
        Some(i) => {
            let mid = half + i + 1;
            let (left, right) =
                crate::cores::join(|| scan(0, mid, false), || scan(mid, bytes.len(), true));
            merge(left, right)
        }
        _ => scan(0, bytes.len(), true),
    };
    hits.into_iter()
        .zip(first_lines)
        .map(|(full, first_line)| OrigHits {
            full,
            first_line,
            ..OrigHits::default()
        })
        .collect()
}

/// The needles' first lines as [`scan_lines`] looks them up: the lengths
/// some first line has and the fingerprints of the first lines (most lines
/// are skipped on these alone, without hashing), then their hashes,
/// sorted (one list for all needles: no table nor list per hash).
struct FirstLines {
    lengths: Vec<bool>,
    /// One bit per [`fingerprint`] value, set for the first lines'.
    fingerprints: Vec<u64>,
    /// The fingerprints' bits: about 64 values per needle (few false
    /// positives), from 6 (one word) to [`FINGERPRINT_BITS`].
    bits: u32,
    /// (xxh3 of a first line, its needle), by hash.
    table: Vec<(u64, usize)>,
}

/// At most this many bits of a [`fingerprint`] (a table of 8 KiB).
const FINGERPRINT_BITS: u32 = 16;

impl FirstLines {
    fn new(needles: &[&Needle]) -> FirstLines {
        let longest = needles
            .iter()
            .map(|n| first_line(n).len())
            .max()
            .unwrap_or(0);
        let bits = (needles.len().max(1) * 64)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(6, FINGERPRINT_BITS);
        let mut firsts = FirstLines {
            lengths: vec![false; longest + 1],
            fingerprints: vec![0; 1 << (bits - 6)],
            bits,
            table: Vec::with_capacity(needles.len()),
        };
        for (k, n) in needles.iter().enumerate() {
            let first = first_line(n);
            firsts.lengths[first.len()] = true;
            let f = fingerprint(first, bits);
            firsts.fingerprints[f >> 6] |= 1 << (f & 63);
            firsts.table.push((xxhash_rust::xxh3::xxh3_64(first), k));
        }
        // By hash, and by needle among equal hashes (the order the
        // needles of one first line are checked in, as before).
        firsts.table.sort_unstable();
        firsts
    }

    /// The needles whose first line may be `line` (a line's [`key`]):
    /// every one whose first line it is, and perhaps others (the hash
    /// may collide: each is checked in full).
    /// Inlined into the scan's loop: most lines stop at the length or
    /// the fingerprint.
    #[inline(always)]
    fn candidates(&self, line: &[u8]) -> Option<&[(u64, usize)]> {
        if !self.lengths.get(line.len()).copied().unwrap_or(false) {
            return None;
        }
        let f = fingerprint(line, self.bits);
        if self.fingerprints[f >> 6] & (1 << (f & 63)) == 0 {
            return None;
        }
        Some(self.by_hash(line))
    }

    /// The needles whose first line's hash is `line`'s.
    #[inline(never)]
    fn by_hash(&self, line: &[u8]) -> &[(u64, usize)] {
        let hash = xxhash_rust::xxh3::xxh3_64(line);
        let from = self.table.partition_point(|&(h, _)| h < hash);
        let to = from + self.table[from..].partition_point(|&(h, _)| h == hash);
        &self.table[from..to]
    }
}

/// A line's fingerprint, in `0..1 << bits`: its length and its first and
/// last 8 bytes (all of a shorter line's), mixed. Equal lines have equal
/// fingerprints: a line whose fingerprint no first line has is none of
/// them.
#[inline(always)]
fn fingerprint(line: &[u8], bits: u32) -> usize {
    let n = line.len();
    // Two fixed 8-byte reads (no copy of a length known only at run
    // time); a shorter line is read byte by byte.
    let word = |at: usize| {
        line.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let (head, tail) = if n >= 8 {
        (word(0), word(n - 8))
    } else {
        let w = line
            .iter()
            .rev()
            .fold(0u64, |w, &b| (w << 8) | u64::from(b));
        (w, w)
    };
    let mixed = (head.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ tail.rotate_left(29) ^ n as u64)
        .wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed >> (64 - bits)) as usize
}

/// From this many bytes, [`line_starts`] scans the text's two halves side
/// by side.
const SPLIT_BYTES: usize = 2 << 20;

/// Each needle's hits and first-line places of one part of a scan.
type Scanned = (Vec<Places>, Vec<Option<Places>>);

/// The scan of [`line_starts`] over the lines of `range` (which starts at
/// a line start): the lines ending in a `\n` in it, and when `last`, the
/// line after the last `\n` (up to the range's end, the text's end).
fn scan_lines(
    bytes: &[u8],
    range: std::ops::Range<usize>,
    last: bool,
    needles: &[&Needle],
    firsts: &FirstLines,
) -> Scanned {
    let mut hits: Vec<Places> = vec![Places::new(); needles.len()];
    let mut first_lines: Vec<Option<Places>> = needles
        .iter()
        .map(|n| n.text.contains('\n').then(Places::new))
        .collect();
    // A line some needle's first line may be (rare): its candidates
    // checked in full.
    let mut found = |start: usize, line: &[u8], ks: &[(u64, usize)]| {
        for &(_, k) in ks {
            let needle = needles[k].text.as_bytes();
            // The first line's places (not for one line: its hits are
            // its places), checked in full: the hash may collide.
            if let Some(places) = &mut first_lines[k] {
                if line == first_line(needles[k]) {
                    places.push(start);
                    if places.len() > FIRST_LINE_CAP {
                        first_lines[k] = None;
                    }
                }
            }
            if bytes[start..].starts_with(needle) {
                hits[k].push(start);
            }
        }
    };
    let mut start = range.start;
    // The line ends 32 bytes at a time (`memchr_iter` pays a call per
    // line of code); the common line, whose length or fingerprint no
    // first line has, is rejected right in the loop.
    for_each_newline(&bytes[range.clone()], |e| {
        let end = range.start + e;
        let line = key(&bytes[start..end]);
        if let Some(ks) = firsts.candidates(line) {
            found(start, line, ks);
        }
        start = end + 1;
    });
    if last {
        let line = key(&bytes[start..range.end]);
        if let Some(ks) = firsts.candidates(line) {
            found(start, line, ks);
        }
    }
    (hits, first_lines)
}

/// The scan of the whole text from the scans of its two halves, as one
/// scan would have found it (a first line's places beyond the cap in all
/// are none).
fn merge(left: Scanned, right: Scanned) -> Scanned {
    let (mut hits, mut first_lines) = left;
    for (h, r) in hits.iter_mut().zip(right.0) {
        h.extend(r);
    }
    for (f, r) in first_lines.iter_mut().zip(right.1) {
        *f = match (f.take(), r) {
            (Some(mut l), Some(r)) if l.len() + r.len() <= FIRST_LINE_CAP => {
                l.extend(r);
                Some(l)
            }
            _ => None,
        };
    }
    (hits, first_lines)
}

/// Substring needles through one Aho-Corasick scan over their first bytes
/// (cheap to build, even for thousands of large blocks); each prefix hit
/// is checked in full.
fn automaton(original: &str, needles: &[&Needle]) -> Vec<(usize, Vec<usize>)> {
    let prefixes = needles
        .iter()
        .map(|n| &n.text.as_bytes()[..floor_char_boundary(&n.text, PREFIX_BYTES)]);
    // Up to a few hundred needles a DFA is cheap to build and scans
    // fastest without a prefilter (code lines share the needles' bytes,
    // so a rare-byte prefilter fires on nearly every line).
    let small = needles.len() <= DFA_MAX_NEEDLES;
    let Ok(ac) = AhoCorasick::builder()
        .kind(Some(if small {
            AhoCorasickKind::DFA
        } else {
            AhoCorasickKind::ContiguousNFA
        }))
        .prefilter(!small)
        .build(prefixes)
    else {
        // Too large to build: each needle on its own.
        return needles
            .iter()
            .map(|n| {
                let hits = doc::find_overlapping(original.as_bytes(), n.text.as_bytes());
                (n.edit, hits)
            })
            .collect();
    };
    let bytes = original.as_bytes();
    let mut hits: Vec<Vec<usize>> = vec![Vec::new(); needles.len()];
    for m in ac.find_overlapping_iter(original) {
        let k = m.pattern().as_usize();
        if bytes[m.start()..].starts_with(needles[k].text.as_bytes()) {
            hits[k].push(m.start());
        }
    }
    needles.iter().map(|n| n.edit).zip(hits).collect()
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The starts of the lines of `text` that read as `needle`'s first
    /// line (a `\r` before a line's `\n` not counted), by a plain walk.
    fn first_line_places(text: &str, needle: &str) -> Vec<usize> {
        let first = needle.split('\n').next().unwrap();
        let first = first.strip_suffix('\r').unwrap_or(first);
        let mut at = 0;
        let mut places = Vec::new();
        for line in text.split('\n') {
            if line.strip_suffix('\r').unwrap_or(line) == first {
                places.push(at);
            }
            at += line.len() + 1;
        }
        places
    }

    fn needle(edit: usize, text: &str, unit: MatchUnit) -> Needle<'static> {
        Needle {
            edit,
            text: text.to_string().into(),
            unit,
        }
    }

    /// The distinct needles are the plain definition's: each needle's is
    /// the first one of the same text and unit (lines or not), in order,
    /// on random needles drawn from a few texts (empty, CRLF, non-ASCII,
    /// texts one byte apart) and both units.
    #[test]
    fn distinct_needles_are_the_first_of_their_text_and_unit() {
        let texts = ["", "a", "a\n", "a\r\n", "\u{e9}", "\u{e8}", "ab", "ba"];
        let mut rng = crate::test_rng::Rng::new(5);
        for _ in 0..200 {
            let n = rng.below(30);
            let needles: Vec<Needle> = (0..n)
                .map(|k| {
                    let unit = match rng.below(2) {
                        0 => MatchUnit::Lines,
                        _ => MatchUnit::Substring,
                    };
                    needle(k, rng.pick::<&str>(&texts), unit)
                })
                .collect();
            let (unique, of) = distinct(&needles);
            let mut want_unique: Vec<usize> = Vec::new();
            for (i, n) in needles.iter().enumerate() {
                let first = needles
                    .iter()
                    .position(|m| m.text == n.text && m.unit == n.unit)
                    .unwrap();
                if first == i {
                    want_unique.push(i);
                }
                assert_eq!(unique[of[i]].edit, first);
            }
            let got: Vec<usize> = unique.iter().map(|u| u.edit).collect();
            assert_eq!(got, want_unique);
        }
    }

    /// A text scanned in two halves side by side gives what one scan of
    /// it gives: the hits, and the first lines' places (none past the
    /// cap in all), whichever half they fall in.
    #[test]
    fn the_split_scan_is_the_whole_scan() {
        let mut rng = crate::test_rng::Rng::new(5);
        let lines = [
            "fn a() {",
            "    x",
            "}",
            "",
            "    y",
            "x",
            "\r",
            "fn a() {\r",
        ];
        for trial in 0..4 {
            let mut text = String::new();
            // About 290 and 70 of two rare lines: the first's places pass
            // the cap in all, not in either half.
            while text.len() < SPLIT_BYTES + 1000 * trial {
                let line = match (rng.below(1200), rng.below(5000)) {
                    (0, _) => "rare",
                    (_, 0) => "rarer",
                    _ => *rng.pick(&lines),
                };
                text.push_str(line);
                text.push('\n');
            }
            if trial % 2 == 1 {
                text.push_str("fn a() {");
            }
            let texts = [
                "fn a() {\n    x",
                "fn a() {",
                "x\n}",
                "    y\nx\n\r",
                "}\n\nfn",
                "rare\nx",
                "rarer\n",
            ];
            let needles: Vec<Needle> = (0..texts.len())
                .map(|k| needle(k, texts[k], MatchUnit::Lines))
                .collect();
            let refs: Vec<&Needle> = needles.iter().collect();
            let firsts = FirstLines::new(&refs);
            let (hits, first_lines) =
                scan_lines(text.as_bytes(), 0..text.len(), true, &refs, &firsts);
            let split = line_starts(&text, &refs);
            for (k, got) in split.into_iter().enumerate() {
                assert_eq!(got.full, hits[k], "{:?}", texts[k]);
                assert_eq!(got.first_line, first_lines[k], "{:?}", texts[k]);
            }
            assert!(first_lines[5].is_none() && first_lines[6].is_some());
        }
    }

    /// The prefilter never drops a needle's first line: on random texts
    /// (CRLF and LF, blank lines, trailing whitespace, non-ASCII, lines
    /// shorter and longer than 8 bytes, repeated lines, a last line with
    /// no newline) every needle cut from the text finds what a plain
    /// search finds, and its first line's places are every line that is
    /// its first line.
    #[test]
    fn the_prefilter_finds_what_a_plain_search_finds() {
        let pool = [
            "",
            " ",
            "x",
            "xy ",
            "fn a() {",
            "fn a() { ",
            "    return 1;",
            "}",
            "\u{e9}t\u{e9}",
            "// \u{2014} note",
            "a_very_long_line_of_code(with, args, and, more);",
            "\t\tx",
            "abcdefgh",
            "abcdefghi",
            "zbcdefgh",
            "abcdefgz",
        ];
        let mut rng = crate::test_rng::Rng::new(77);
        for trial in 0..200 {
            let eol = if trial % 3 == 0 { "\r\n" } else { "\n" };
            let n = 1 + rng.below(40);
            let lines: Vec<&str> = (0..n).map(|_| *rng.pick(&pool)).collect();
            let mut text = lines.join(eol);
            if rng.below(2) == 0 {
                text.push_str(eol);
            }
            let mut needles = Vec::new();
            for k in 0..1 + rng.below(12) {
                let at = rng.below(n);
                let len = 1 + rng.below((n - at).min(4));
                let mut t = lines[at..at + len].join(eol);
                if rng.below(4) == 0 {
                    // A line not in the text, of a length that is.
                    t = format!("{}Q", &pool[10][..pool[10].len() - 1]);
                }
                needles.push(needle(k, &t, MatchUnit::Lines));
            }
            let refs: Vec<&Needle> = needles.iter().collect();
            for (edit, got) in line_starts(&text, &refs).into_iter().enumerate() {
                let n = &needles[edit];
                let want: Vec<usize> = doc::find_overlapping(text.as_bytes(), n.text.as_bytes())
                    .into_iter()
                    .filter(|&s| is_line_hit(text.as_bytes(), s, n.text.as_bytes()))
                    .collect();
                assert_eq!(got.full.to_vec(), want, "{:?} in {text:?}", n.text);
                if let Some(places) = got.first_line {
                    assert_eq!(
                        places.to_vec(),
                        first_line_places(&text, &n.text),
                        "{:?} in {text:?}",
                        n.text
                    );
                }
            }
        }
    }

    /// The table and the automaton give what a plain search gives (line
    /// needles: only its hits at a line start), on LF and CRLF text.
    #[test]
    fn every_path_finds_what_a_plain_search_finds() {
        for eol in ["\n", "\r\n"] {
            let lines = [
                "fn a() {",
                "    x",
                "}",
                "",
                "fn a() {",
                "    y",
                "}",
                "  fn a() {",
                "    x",
                "}",
                "x",
                "fn a() {",
            ];
            let text = lines.join(eol);
            let texts = [
                format!("fn a() {{{eol}    x"),
                "fn a() {".to_string(),
                "x".to_string(),
                format!("}}{eol}"),
                format!("{eol}fn a()"),
                "    y".to_string(),
                "fn a() {\u{e9}".to_string(),
            ];
            for unit in [MatchUnit::Lines, MatchUnit::Substring] {
                let needles: Vec<Needle> = (0..40)
                    .map(|k| needle(k, &texts[k % texts.len()], unit))
                    .collect();
                let plain = |n: &Needle| -> Vec<usize> {
                    doc::find_overlapping(text.as_bytes(), n.text.as_bytes())
                        .into_iter()
                        .filter(|&s| {
                            unit == MatchUnit::Substring
                                || is_line_hit(text.as_bytes(), s, n.text.as_bytes())
                        })
                        .collect()
                };
                let refs: Vec<&Needle> = needles.iter().collect();
                let scanned: HashMap<usize, Vec<usize>> = match unit {
                    MatchUnit::Lines => line_starts(&text, &refs)
                        .into_iter()
                        .enumerate()
                        .map(|(edit, hits)| (edit, hits.full.to_vec()))
                        .collect(),
                    MatchUnit::Substring => automaton(&text, &refs).into_iter().collect(),
                };
                for n in &needles {
                    assert_eq!(
                        scanned[&n.edit],
                        plain(n),
                        "{unit:?} {:?} in {text:?}",
                        n.text
                    );
                }
                let found = find(&text, &needles);
                for n in &needles {
                    assert_eq!(
                        found.get(n.edit).unwrap().full.to_vec(),
                        plain(n),
                        "{unit:?} {:?}",
                        n.text
                    );
                }
                // The first line's places: every line start whose line,
                // without its `\r`, is the needle's first line.
                if unit == MatchUnit::Lines {
                    for (edit, hits) in line_starts(&text, &refs).into_iter().enumerate() {
                        let n = &needles[edit];
                        let Some(places) = hits.first_line else {
                            assert!(!n.text.contains('\n'), "{:?}", n.text);
                            continue;
                        };
                        assert_eq!(
                            places.to_vec(),
                            first_line_places(&text, &n.text),
                            "{:?} in {text:?}",
                            n.text
                        );
                    }
                }
            }
        }
    }

    /// Hits are looked up by edit whatever the edits' numbers (sparse,
    /// out of order) and the needles they share; an edit with no needle
    /// has none.
    #[test]
    fn hits_are_found_by_edit() {
        let text = "a\nb\na\nc\nb\n";
        let texts = ["a", "b", "c", "a", "d", "b\na"];
        let mut rng = crate::test_rng::Rng::new(11);
        for _ in 0..100 {
            let mut edits: Vec<usize> = (0..texts.len()).map(|k| 3 * k + 1).collect();
            for i in (1..edits.len()).rev() {
                edits.swap(i, rng.below(i + 1));
            }
            let needles: Vec<Needle> = texts
                .iter()
                .zip(&edits)
                .map(|(t, &e)| needle(e, t, MatchUnit::Lines))
                .collect();
            let found = find(text, &needles);
            for n in &needles {
                let want: Vec<usize> = doc::find_overlapping(text.as_bytes(), n.text.as_bytes())
                    .into_iter()
                    .filter(|&s| is_line_hit(text.as_bytes(), s, n.text.as_bytes()))
                    .collect();
                assert_eq!(
                    found.get(n.edit).unwrap().full.to_vec(),
                    want,
                    "{:?}",
                    n.text
                );
            }
            for e in [0, 2, 3, 100] {
                assert!(found.get(e).is_none());
            }
        }
    }
}
