//! The Levenshtein distance of a window from the search within a
//! cut-off `k`, bit-parallel in a band of the matrix only as wide as `k`
//! allows, and given up as soon as a column shows that no alignment
//! within `k` is left.
//!
//! Near a line hint, most windows the bag bound lets through are the
//! search's own lines shifted, or lines of the same template: the same
//! chars in another order, four or five times the cut-off away. The
//! banded distance of `rapidfuzz` gives up on them only late (its band
//! test allows a word's width of slack), and it runs windows within
//! reach in a band of six or more words of the search's ten.
//!
//! Here, with `m` and `n` the search's and the window's lengths and
//! `D[i][j]` the distance of their prefixes: any alignment within `k`
//! passes, in every column `j`, through a cell with
//! `D[i][j] + |(m - i) - (n - j)| ≤ k` (the rest must still make up the
//! difference in lengths), and since `D[i][j] ≥ |i - j|` that cell's
//! diagonal `i - j` lies within `(m - n ± k) / 2`. Only the 64-row words
//! of the search that meet those diagonals are computed (Hyyrö 2003, as
//! `rapidfuzz` does): a word that joins starts as if each of its rows
//! cost one more than the row above, and a word left behind leaves the
//! one below to read its last row as one more than in the column before.
//! Both are at least the truth, so every value computed is at least the
//! true one, and the cells on a path within `k` are exact (their best
//! paths run through such cells, all in the band): the last row's value,
//! when within `k`, is the distance. Every [`EVERY`] columns a lower
//! bound of `D[i][j] + |(m - i) - (n - j)|` over the band (per word: its
//! last row's value less the rows that step up, or the row above's less
//! the rows that step down) above `k` ends it: most far windows within
//! their first 100-160 chars.

use std::time::Instant;

/// The search's match vectors, over numbers below 128: an ASCII text's
/// bytes, or the chars of any text as `Alphabet` in `fuzzy.rs` numbers
/// them.
pub struct Cutoff {
    /// `pm[c * words + w]`: the rows of word `w` whose byte is `c`, for
    /// the 128 ASCII bytes (the only ones either text holds: 11 KB for a
    /// 20-line search, where all 256 bytes took twice that, zeroed in
    /// fresh pages).
    pm: Vec<u64>,
    words: usize,
    /// The search's length (rows).
    m: usize,
}

/// One word of a column: its rows' steps up (`vp`) and down (`vn`)
/// from the row above, and its last row's value.
#[derive(Clone, Copy)]
struct Word {
    vp: u64,
    vn: u64,
    score: i64,
    /// The bit of the word's last row.
    out: u32,
}

/// How often (columns) the band's least value is read.
const EVERY: usize = 8;

/// How often (columns) the clock is read: a window of a few hundred KB
/// in a band as wide is seconds of work (`tests/pathological.rs`).
const CLOCK_EVERY: usize = 1 << 12;

/// The deadline passed before the distance was known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Late;

impl Cutoff {
    /// The match vectors of `needle`: `None` when it is empty or not
    /// ASCII.
    pub fn new(needle: &[u8]) -> Option<Cutoff> {
        let m = needle.len();
        if m == 0 || !needle.is_ascii() {
            return None;
        }
        let words = m.div_ceil(64);
        let mut pm = vec![0u64; 128 * words];
        for (i, &c) in needle.iter().enumerate() {
            pm[usize::from(c) * words + i / 64] |= 1 << (i % 64);
        }
        Some(Cutoff { pm, words, m })
    }

    /// The Levenshtein distance of `window` (numbers below 128, as the
    /// caller checks: a number beyond has no vectors, and reading them
    /// panics)
    /// from the search, `None` when it is above `k`; [`Late`] when the
    /// clock, read every [`CLOCK_EVERY`] columns, is past `deadline`.
    pub fn distance(
        &self,
        window: &[u8],
        k: usize,
        deadline: Instant,
    ) -> Result<Option<usize>, Late> {
        debug_assert!(window.is_ascii());
        let (m, n) = (self.m, window.len());
        if m.abs_diff(n) > k {
            return Ok(None);
        }
        if n == 0 {
            return Ok(Some(m));
        }
        let words = self.words;
        // The band: diagonals `i - j` in `lo..=hi`.
        let delta = m as i64 - n as i64;
        let (lo, hi) = (-((k as i64 - delta) / 2), (delta + k as i64) / 2);
        let first_for = |j: usize| ((j as i64 + lo).max(1) as usize - 1) / 64;
        let last_for = |j: usize| ((j as i64 + hi).clamp(1, m as i64) as usize - 1) / 64;
        let rows_in = |w: usize| if w + 1 == words { m - 64 * w } else { 64 };
        let mut state: Vec<Word> = (0..words)
            .map(|w| Word {
                vp: !0,
                vn: 0,
                score: (64 * w + rows_in(w)) as i64,
                out: if w + 1 == words { (m - 1) % 64 } else { 63 } as u32,
            })
            .collect();
        let (mut first, mut last) = (first_for(0), last_for(0));
        for (j0, &c) in window.iter().enumerate() {
            let j = j0 + 1;
            // Words joining: their rows one more than the row above, in
            // the column before.
            let want = last_for(j);
            while last < want {
                last += 1;
                state[last] = Word {
                    vp: !0,
                    vn: 0,
                    score: state[last - 1].score + rows_in(last) as i64,
                    ..state[last]
                };
            }
            first = first.max(first_for(j));
            let pm = &self.pm[usize::from(c) * words..][first..=last];
            // The row above the band: one more than in the column before.
            let (mut hp_carry, mut hn_carry) = (1u64, 0u64);
            for (word, &pm) in state[first..=last].iter_mut().zip(pm) {
                let x = pm | hn_carry;
                let (p, q) = (word.vp, word.vn);
                let d0 = ((x & p).wrapping_add(p) ^ p) | x | q;
                let hp = q | !(d0 | p);
                let hn = d0 & p;
                let out_p = (hp >> word.out) & 1;
                let out_n = (hn >> word.out) & 1;
                let hp = (hp << 1) | hp_carry;
                let hn = (hn << 1) | hn_carry;
                word.vp = hn | !(d0 | hp);
                word.vn = hp & d0;
                word.score += out_p as i64 - out_n as i64;
                hp_carry = out_p;
                hn_carry = out_n;
            }
            if j % EVERY == 0 && j < n {
                if self.least(&state, first..=last, (j, n)) > k as i64 {
                    return Ok(None);
                }
                if j % CLOCK_EVERY == 0 && Instant::now() > deadline {
                    return Err(Late);
                }
            }
        }
        let d = state[words - 1].score as usize;
        Ok((d <= k).then_some(d))
    }

    /// A lower bound, over the rows of words `band` in column `j` (`n`
    /// the window's length), of `D[i][j] + |(m - i) - (n - j)|`.
    fn least(
        &self,
        state: &[Word],
        band: std::ops::RangeInclusive<usize>,
        (j, n): (usize, usize),
    ) -> i64 {
        let m = self.m;
        // The row whose rest is as long as the window's.
        let t = m as i64 - n as i64 + j as i64;
        let off = |top: i64, bottom: i64| {
            if t < top {
                top - t
            } else if t > bottom {
                t - bottom
            } else {
                0
            }
        };
        // Row 0 when in the band, and the value above the band's first
        // word (unknown once row 0 is left behind).
        let (mut least, mut above) = if *band.start() == 0 {
            (j as i64 + t.abs(), j as i64)
        } else {
            (i64::MAX, i64::MIN / 2)
        };
        for w in band {
            let word = &state[w];
            let mask = if w + 1 == self.words && !m.is_multiple_of(64) {
                (1u64 << (m % 64)) - 1
            } else {
                !0u64
            };
            let ups = i64::from((word.vp & mask).count_ones());
            let downs = i64::from((word.vn & mask).count_ones());
            let low = (word.score - ups).max(above - downs);
            let top = 64 * w as i64 + 1;
            let bottom = (64 * (w + 1)).min(m) as i64;
            least = least.min(low + off(top, bottom));
            above = word.score;
        }
        least
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapidfuzz::distance::levenshtein;

    /// A deadline no test reaches.
    fn far() -> Instant {
        Instant::now() + std::time::Duration::from_secs(3600)
    }

    /// `rapidfuzz`'s distance with the same cut-off, on random texts of
    /// few letters (close and far ones, lengths across word boundaries,
    /// cut-offs below, at and above the distance).
    #[test]
    fn the_distance_is_rapidfuzz_s() {
        let mut rng = crate::test_rng::Rng::new(71);
        let mut within = 0;
        for round in 0..8_000 {
            let alphabet: &[u8] = match round % 3 {
                0 => b"ab",
                1 => b"abcdefg \n",
                _ => b"abcdefghijklmnopqrstuvwxyz_(),.=0123456789 \n",
            };
            let m = 1 + rng.below(if round % 4 == 0 { 700 } else { 260 });
            let a: Vec<u8> = (0..m).map(|_| *rng.pick(alphabet)).collect();
            // A copy with edits, a shifted copy, or another text.
            let b: Vec<u8> = match rng.below(3) {
                0 => {
                    let mut b = a.clone();
                    for _ in 0..rng.below(m / 3 + 2) {
                        let at = rng.below(b.len() + 1);
                        match rng.below(3) {
                            0 => b.insert(at, *rng.pick(alphabet)),
                            1 if at < b.len() => {
                                b.remove(at);
                            }
                            _ if at < b.len() => b[at] = *rng.pick(alphabet),
                            _ => {}
                        }
                    }
                    b
                }
                1 => {
                    let cut = rng.below(m + 1);
                    [&a[cut..], &a[..cut]].concat()
                }
                _ => (0..rng.below(m + 40))
                    .map(|_| *rng.pick(alphabet))
                    .collect(),
            };
            let d = levenshtein::distance(a.iter().copied(), b.iter().copied());
            let cutoff = Cutoff::new(&a).expect("not empty");
            for k in [
                0,
                1,
                d.saturating_sub(1),
                d,
                d + 1,
                d + 5,
                rng.below(m + 1),
                m / 7,
                m,
            ] {
                let want = (d <= k).then_some(d);
                assert_eq!(cutoff.distance(&b, k, far()), Ok(want), "{a:?} {b:?} k {k}");
                within += usize::from(want.is_some());
            }
        }
        assert!(within > 10_000, "{within}");
    }

    /// A text far from the search (its lines in reverse order) is out
    /// of reach, and the search itself is at 0.
    #[test]
    fn reordered_lines_are_far() {
        let lines: Vec<String> = (0..20)
            .map(|i| {
                format!(
                    "value_{i:03} = compute(item_{}, {})",
                    i * 7 % 13,
                    i * 31 % 97
                )
            })
            .collect();
        let needle = lines.join("\n");
        let window = lines.iter().rev().cloned().collect::<Vec<_>>().join("\n");
        let d = levenshtein::distance(needle.bytes(), window.bytes());
        let k = d / 2;
        assert!(k >= 32, "{d}");
        let cutoff = Cutoff::new(needle.as_bytes()).expect("not empty");
        assert_eq!(cutoff.distance(window.as_bytes(), k, far()), Ok(None));
        assert_eq!(cutoff.distance(needle.as_bytes(), 0, far()), Ok(Some(0)));
        assert_eq!(cutoff.distance(window.as_bytes(), d, far()), Ok(Some(d)));
    }

    /// Vectors are kept for ASCII bytes alone: a search beyond ASCII (or
    /// empty) has none, and the scan then scores its windows by
    /// `rapidfuzz` (`Scorer` in `fuzzy.rs`).
    #[test]
    fn only_an_ascii_search_has_vectors() {
        assert!(Cutoff::new(b"").is_none());
        assert!(Cutoff::new("caf\u{e9} = 1".as_bytes()).is_none());
        let all: Vec<u8> = (0..128).collect();
        let cutoff = Cutoff::new(&all).expect("ASCII");
        assert_eq!(cutoff.distance(&all, 0, far()), Ok(Some(0)));
        assert_eq!(cutoff.distance(&all[1..], 1, far()), Ok(Some(1)));
    }
}
