//! The character bags the fuzzy scan filters windows with, kept as
//! prefix counts: a window's bag is the counts at its end less the counts
//! at its start.
//!
//! Buckets: each printable ASCII char its own (its byte from [`FIRST`]
//! on), every char not whitespace beyond ASCII in the bucket of DEL
//! ([`OTHER`]), and the spaces of the normalized text in the space's
//! ([`SPACES`]: one between two words of a line; a space itself is
//! whitespace, its own byte counts none). The control characters below
//! the space have no bucket: the ASCII whitespace among them
//! ([`WHITESPACE`]) is no char of the normalized text, and the others are
//! rare in text. Merging chars into one bucket, leaving some out and
//! leaving out the newlines (both texts hold as many) only lowers the
//! bound, so it stays a lower bound of the Levenshtein distance of the
//! normalized texts.
//!
//! Each byte of a line is counted once, with a plain increment of its
//! byte's count (whitespace included: those counts are reset after each
//! line), and a window's bound is summed over the buckets eight at a
//! time (SSE2, with a plain loop elsewhere): it is read only for windows
//! whose length leaves them in reach.

/// The byte of the first bucket (the space): bucket `k` counts byte
/// `FIRST + k`.
pub const FIRST: usize = 0x20;
/// Buckets of the bag: the bytes from [`FIRST`] to DEL (a ring of them is
/// copied at each line of a scan: 192 bytes in `u16`, where 128 buckets
/// took 256).
pub const BUCKETS: usize = 0x80 - FIRST;
/// The byte whose bucket holds the normalized text's spaces (one between
/// two words of a line).
pub const SPACES: usize = b' ' as usize;
/// The byte whose bucket holds every char not whitespace beyond ASCII
/// (merged with DEL).
pub const OTHER: usize = 0x7F;
/// The ASCII whitespace bytes other than the space (`char::is_whitespace`):
/// counted in the line's tally, then reset.
const WHITESPACE: std::ops::RangeInclusive<usize> = 0x09..=0x0D;

/// A count: `u16` when no window (nor the search) holds 32,768 bytes or
/// more, else `u32` (texts under 1 GiB). Counts are prefix sums that wrap;
/// the difference of two, wrapped, is the count between them, exact below
/// the type's half range, and so is its difference from the search's.
pub trait Count: Copy + Default + 'static {
    /// `self + 1`, wrapping.
    fn inc(self) -> Self;
    /// `v` as a count (wrapping).
    fn of(v: u32) -> Self;
    /// `self + other`, wrapping.
    fn add(self, other: Self) -> Self;
    /// `self - lo`, wrapped: the count between them.
    fn between(self, lo: Self) -> i64;
    /// `Σ_k |(hi[k] - lo[k]) - s[k]|`: the window's counts against the
    /// search's.
    fn abs_sum(hi: &Counts<Self>, lo: &Counts<Self>, s: &Counts<Self>) -> u64;
}

/// Counts per bucket.
pub type Counts<T> = [T; BUCKETS];

impl Count for u16 {
    fn inc(self) -> u16 {
        self.wrapping_add(1)
    }
    fn of(v: u32) -> u16 {
        v as u16
    }
    fn add(self, other: u16) -> u16 {
        self.wrapping_add(other)
    }
    fn between(self, lo: u16) -> i64 {
        i64::from(self.wrapping_sub(lo))
    }
    fn abs_sum(hi: &Counts<u16>, lo: &Counts<u16>, s: &Counts<u16>) -> u64 {
        // Summed in `u16` lanes: a window and the search hold fewer than
        // 32,768 bytes each (why `u16` was chosen), so the whole sum, at
        // most their two sizes, and every part of it fit.
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        let sum = sse2::abs_sum(hi, lo, s);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        let sum = abs_sum_u16(hi, lo, s);
        u64::from(sum)
    }
}

/// [`Count::abs_sum`] of `u16` counts, one bucket at a time.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn abs_sum_u16(hi: &Counts<u16>, lo: &Counts<u16>, s: &Counts<u16>) -> u16 {
    let mut sum = 0u16;
    for k in 0..BUCKETS {
        let d = hi[k].wrapping_sub(lo[k]).wrapping_sub(s[k]) as i16;
        sum = sum.wrapping_add(d.unsigned_abs());
    }
    sum
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64,
        _mm_loadu_si128, _mm_max_epi16, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_sad_epu8, _mm_set1_epi8, _mm_setzero_si128, _mm_slli_si128, _mm_srli_si128,
        _mm_storeu_si128, _mm_sub_epi16, _mm_sub_epi8, _mm_unpackhi_epi64,
    };

    use super::{Counts, BUCKETS};

    /// [`super::abs_sum_u16`] eight buckets at a time (SSE2: part of every
    /// x86-64 CPU, no feature check at run time): `|d|` is `max(d, -d)`,
    /// which leaves -32,768 as itself, 32,768 read as `u16`.
    pub fn abs_sum(hi: &Counts<u16>, lo: &Counts<u16>, s: &Counts<u16>) -> u16 {
        let mut lanes = [0u16; 8];
        // SAFETY: SSE2 is enabled for this build (the module's `cfg`); each
        // load reads eight `u16` inside an array of `BUCKETS` (a multiple
        // of eight), the store eight into `lanes` (`loadu`/`storeu` need
        // no alignment).
        unsafe {
            let mut sum = _mm_setzero_si128();
            for k in (0..BUCKETS).step_by(8) {
                let at = |c: &Counts<u16>| _mm_loadu_si128(c.as_ptr().add(k).cast::<__m128i>());
                let d = _mm_sub_epi16(_mm_sub_epi16(at(hi), at(lo)), at(s));
                let abs = _mm_max_epi16(d, _mm_sub_epi16(_mm_setzero_si128(), d));
                sum = _mm_add_epi16(sum, abs);
            }
            _mm_storeu_si128(lanes.as_mut_ptr().cast::<__m128i>(), sum);
        }
        lanes.iter().fold(0u16, |a, &v| a.wrapping_add(v))
    }

    /// `0xFF` in each byte of `v` that is whitespace: a space, or
    /// 0x09..=0x0D (`v - 9` at most 4, unsigned).
    #[inline(always)]
    fn whitespace(v: __m128i) -> __m128i {
        // SAFETY: SSE2 is enabled for this build (the module's `cfg`); the
        // intrinsics only compute on registers.
        unsafe {
            let t = _mm_sub_epi8(v, _mm_set1_epi8(9));
            let control = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t);
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)), control)
        }
    }

    /// Sixteen zero bytes, then sixteen `0xFF`: the 16 bytes from `k`
    /// select the last `k` of a chunk.
    static LAST: [u8; 32] = {
        let mut m = [0u8; 32];
        let mut i = 16;
        while i < 32 {
            m[i] = 0xFF;
            i += 1;
        }
        m
    };

    /// [`super::spaces_ascii`] of a line of 16 bytes or more, sixteen
    /// bytes at a time: a word starts at each byte not whitespace after
    /// whitespace (or at the start of the line). Each chunk adds one to
    /// the byte lanes where a word starts; the lanes are summed at the end
    /// (and every 255 chunks, before a lane could wrap).
    pub fn spaces_ascii(line: &[u8]) -> Option<u32> {
        let n = line.len();
        assert!(n >= 16, "a line of 16 bytes or more");
        // SAFETY: SSE2 is enabled for this build (the module's `cfg`);
        // every load reads 16 bytes inside `line` (`at + 16 <= n`, and
        // `n - 16..n` as `n >= 16`) or inside `LAST` (from `rest`, in
        // 1..16); `loadu` needs no alignment.
        unsafe {
            let zero = _mm_setzero_si128();
            let (mut words, mut lanes, mut beyond) = (0u64, zero, zero);
            // Whitespace in the byte before the line (its last lane read).
            let mut previous = _mm_set1_epi8(-1);
            let (mut at, mut chunks) = (0, 0);
            let sum = |lanes: __m128i| {
                let halves = _mm_sad_epu8(lanes, zero);
                (_mm_cvtsi128_si64(halves) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(halves, halves)))
                    as u64
            };
            while at + 16 <= n {
                let v = _mm_loadu_si128(line.as_ptr().add(at).cast::<__m128i>());
                beyond = _mm_or_si128(beyond, v);
                let ws = whitespace(v);
                let before = _mm_or_si128(_mm_slli_si128(ws, 1), _mm_srli_si128(previous, 15));
                // `0xFF` (minus one) where a word starts: one more there.
                lanes = _mm_sub_epi8(lanes, _mm_andnot_si128(ws, before));
                previous = ws;
                at += 16;
                chunks += 1;
                if chunks == 255 {
                    words += sum(lanes);
                    (lanes, chunks) = (zero, 0);
                }
            }
            let rest = n - at;
            if rest > 0 {
                // The line's last 16 bytes, of which the last `rest` are
                // new: the others give the byte before each its
                // whitespace.
                let v = _mm_loadu_si128(line.as_ptr().add(n - 16).cast::<__m128i>());
                beyond = _mm_or_si128(beyond, v);
                let ws = whitespace(v);
                let new = _mm_loadu_si128(LAST.as_ptr().add(rest).cast::<__m128i>());
                let starts = _mm_andnot_si128(ws, _mm_and_si128(_mm_slli_si128(ws, 1), new));
                lanes = _mm_sub_epi8(lanes, starts);
            }
            words += sum(lanes);
            (_mm_movemask_epi8(beyond) == 0).then_some((words as u32).saturating_sub(1))
        }
    }
}

impl Count for u32 {
    fn inc(self) -> u32 {
        self.wrapping_add(1)
    }
    fn of(v: u32) -> u32 {
        v
    }
    fn add(self, other: u32) -> u32 {
        self.wrapping_add(other)
    }
    fn between(self, lo: u32) -> i64 {
        i64::from(self.wrapping_sub(lo))
    }
    fn abs_sum(hi: &Counts<u32>, lo: &Counts<u32>, s: &Counts<u32>) -> u64 {
        let mut sum = 0u64;
        for k in 0..BUCKETS {
            let d = hi[k].wrapping_sub(lo[k]).wrapping_sub(s[k]) as i32;
            sum += u64::from(d.unsigned_abs());
        }
        sum
    }
}

/// The running counts of the lines read so far, bucketed (a prefix sum).
pub struct Tally<T> {
    /// Per byte: the control characters, the bag's buckets, then the
    /// bytes beyond ASCII (each byte is counted in its own place, without
    /// a test; the places of the bytes beyond ASCII and of the control
    /// characters that are not whitespace are never read).
    counts: [T; 256],
    /// The normalized spaces so far ([`SPACES`]'s count).
    spaces: T,
}

impl<T: Count> Tally<T> {
    pub fn new() -> Tally<T> {
        Tally {
            counts: [T::default(); 256],
            spaces: T::default(),
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> &Counts<T> {
        self.counts[FIRST..FIRST + BUCKETS]
            .try_into()
            .expect("the bag's buckets")
    }

    /// Copies the counts so far into `out`, in two halves: each is short
    /// enough for the compiler to copy in registers, where the whole (192
    /// bytes in `u16`) was a call to `memcpy` at each line of a scan, 8 %
    /// of W3's time in process.
    pub fn copy_counts(&self, out: &mut Counts<T>) {
        const HALF: usize = BUCKETS / 2;
        let counts = self.counts();
        let (low, high) = out.split_at_mut(HALF);
        low.copy_from_slice(&counts[..HALF]);
        high.copy_from_slice(&counts[HALF..]);
    }

    /// Counts `line`'s chars and returns the length in chars of the line
    /// normalized (trimmed, whitespace runs collapsed to one space): its
    /// chars not whitespace and one space between two words. The
    /// normalized line holds the same chars not whitespace as the line:
    /// normalizing only drops and merges whitespace (`split_whitespace`).
    pub fn line(&mut self, line: &str) -> u32 {
        let bytes = line.as_bytes();
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            for &b in chunk {
                self.counts[usize::from(b)] = self.counts[usize::from(b)].inc();
            }
        }
        for &b in chunks.remainder() {
            self.counts[usize::from(b)] = self.counts[usize::from(b)].inc();
        }
        // The line's ASCII whitespace bytes: its spaces (counted from the
        // normalized spaces so far) and the others (from zero).
        let mut blank = self.counts[SPACES].between(self.spaces);
        for k in WHITESPACE {
            blank += self.counts[k].between(T::default());
            self.counts[k] = T::default();
        }
        let (chars, spaces) = match spaces_ascii(bytes) {
            Some(spaces) => (line.len() as u32 - blank as u32, spaces),
            None => {
                // Its ASCII chars are counted; each other char not
                // whitespace goes to `OTHER`.
                let (mut words, mut chars, mut after_space) = (0u32, 0u32, true);
                for c in line.chars() {
                    if c.is_whitespace() {
                        after_space = true;
                        continue;
                    }
                    if !c.is_ascii() {
                        self.counts[OTHER] = self.counts[OTHER].inc();
                    }
                    words += u32::from(after_space);
                    after_space = false;
                    chars += 1;
                }
                (chars, words.saturating_sub(1))
            }
        };
        self.spaces = self.spaces.add(T::of(spaces));
        self.counts[SPACES] = self.spaces;
        chars + spaces
    }
}

/// The spaces of a line normalized, its words less one, when it is
/// ASCII (else `None`): sixteen bytes at a time (SSE2) from 16 bytes on,
/// else eight at a time in a `u64`.
pub fn spaces_ascii(line: &[u8]) -> Option<u32> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if line.len() >= 16 {
        return sse2::spaces_ascii(line);
    }
    spaces_ascii_u64(line)
}

/// [`spaces_ascii`] eight bytes at a time in a `u64`, at any length.
fn spaces_ascii_u64(line: &[u8]) -> Option<u32> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The high bit of each byte of `x` (ASCII) that is whitespace: a space,
    // or 0x09..=0x0D (`x + 0x77` reaches the high bit from 9 on, `x + 0x72`
    // from 14 on; no byte carries into the next, as every byte is below
    // 0x80).
    let whitespace = |x: u64| {
        let y = x ^ (ONES * 0x20);
        let space = !(((y & LOW7).wrapping_add(LOW7)) | y | LOW7);
        let from9 = x.wrapping_add(ONES * 0x77);
        let from14 = x.wrapping_add(ONES * 0x72);
        (space | (from9 & !from14)) & HIGH
    };
    // The bytes of `m` with their high bit set.
    let count = |m: u64| ((m >> 7).wrapping_mul(ONES) >> 56) as u32;
    // A word starts at a byte not whitespace after whitespace (or at the
    // start): `before` is the high bit of byte 0 when the byte before it
    // is whitespace.
    let starts = |x: u64, before: u64| {
        let ws = whitespace(x);
        (!ws & HIGH & ((ws << 8) | before), ws >> 56)
    };
    let mut words = 0;
    let mut before = 0x80;
    // Every byte or'ed: its high bit is set when one is beyond ASCII (the
    // counts above are then of no use).
    let mut all = 0;
    let mut chunks = line.chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        all |= x;
        let (w, after) = starts(x, before);
        words += count(w);
        before = after;
    }
    let rest = chunks.remainder();
    if line.len() >= 8 && !rest.is_empty() {
        // The line's last eight bytes, of which only the last `rest.len()`
        // are new: the others give the byte before each its whitespace.
        let tail = &line[line.len() - 8..];
        let x = u64::from_le_bytes(tail.try_into().expect("eight bytes"));
        all |= x;
        let (w, _) = starts(x, 0);
        words += count(w & (!0u64 << (8 * (8 - rest.len()))));
    } else if !rest.is_empty() {
        // A short line, padded with spaces (whitespace: no word).
        let mut x = ONES * 0x20;
        for (i, &b) in rest.iter().enumerate() {
            x ^= u64::from(b ^ 0x20) << (8 * i);
        }
        all |= x;
        words += count(starts(x, before).0);
    }
    (all & HIGH == 0).then_some(words.saturating_sub(1))
}

/// The bag bound of a window against the search, given their counts
/// (`hi - lo` the window's, `s` the search's) and the difference of
/// their lengths: the chars one holds more of than the other, whichever
/// side has more. Each edit changes at most one count on each side, so
/// the Levenshtein distance is at least this.
pub fn bound<T: Count>(hi: &Counts<T>, lo: &Counts<T>, s: &Counts<T>, len_diff: i64) -> u64 {
    // extra + missing = abs, extra - missing = len_diff.
    (T::abs_sum(hi, lo, s) + len_diff.unsigned_abs()) / 2
}

/// [`bound`] summed plainly in `i64` (its check).
pub fn bound_plain<T: Count>(hi: &Counts<T>, lo: &Counts<T>, s: &Counts<T>, len_diff: i64) -> u64 {
    let abs: u64 = (0..BUCKETS)
        .map(|k| (hi[k].between(lo[k]) - s[k].between(T::default())).unsigned_abs())
        .sum();
    (abs + len_diff.unsigned_abs()) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spaces of a normalized ASCII line (`split_whitespace`, one
    /// space between two words), whitespace as `char::is_whitespace`.
    #[test]
    fn spaces_are_words_less_one() {
        let mut rng = crate::test_rng::Rng::new(3);
        let parts = [
            "a",
            "bc",
            " ",
            "  ",
            "\t",
            "\r",
            "\n",
            "\x0B",
            "\x0C",
            "\x1C",
            "\x1F",
            "\x08",
            "\x0E",
            "x_y",
            "(",
            "\x7F",
            "!",
            "~",
            "longer_word",
        ];
        for b in 0u8..128 {
            for line in [
                vec![b'a', b, b'b'],
                vec![b; 9],
                vec![b'a'; 7].into_iter().chain([b, b'c']).collect(),
                vec![b; 16],
                vec![b; 33],
                vec![b'a'; 15].into_iter().chain([b, b'c']).collect(),
                vec![b'a'; 16].into_iter().chain([b]).collect(),
                [b].into_iter().chain(vec![b'a'; 16]).collect(),
                vec![b'a'; 31]
                    .into_iter()
                    .chain([b])
                    .chain(vec![b'c'; 40])
                    .collect(),
            ] {
                let text = std::str::from_utf8(&line).unwrap();
                let words = text.split_whitespace().count() as u32;
                assert_eq!(
                    spaces_ascii(&line),
                    Some(words.saturating_sub(1)),
                    "{text:?}"
                );
            }
        }
        // Lines long enough for a byte lane to count past 255 starts.
        for (word, times) in [("a ", 2_040), ("a ", 2_041), ("a ", 4_100), ("ab\t", 6_000)] {
            let line = word.repeat(times);
            let words = line.split_whitespace().count() as u32;
            assert_eq!(
                spaces_ascii(line.as_bytes()),
                Some(words - 1),
                "{word:?} x {times}"
            );
        }
        for _ in 0..50_000 {
            let line: String = (0..rng.below(30)).map(|_| *rng.pick(&parts)).collect();
            let words = line.split_whitespace().count() as u32;
            assert_eq!(
                spaces_ascii(line.as_bytes()),
                Some(words.saturating_sub(1)),
                "{line:?}"
            );
            assert_eq!(
                spaces_ascii_u64(line.as_bytes()),
                Some(words.saturating_sub(1)),
                "{line:?}"
            );
            // A byte beyond ASCII anywhere: none.
            let mut other = line.into_bytes();
            let at = rng.below(other.len() + 1);
            other.insert(at, 0x80 + rng.below(128) as u8);
            assert_eq!(spaces_ascii(&other), None, "{other:?}");
            assert_eq!(spaces_ascii_u64(&other), None, "{other:?}");
        }
    }

    /// A line's tally is the bag of the line normalized, as the module
    /// defines it (each printable ASCII char in its bucket, every other
    /// char not whitespace in `OTHER`, one space between two words in
    /// `SPACES`), and its length is the normalized line's, however the
    /// line is indented.
    #[test]
    fn a_tally_is_the_normalized_lines_bag() {
        let mut rng = crate::test_rng::Rng::new(29);
        let parts = [
            " ", "    ", "        ", "\t", "\r", "\x0B", "a", "bc", "x_y", "(", "~", "é",
            "\u{3000}", "\u{A0}",
        ];
        let mut tally = Tally::<u32>::new();
        let mut plain = [0u32; BUCKETS];
        for _ in 0..20_000 {
            let line: String = (0..rng.below(24)).map(|_| *rng.pick(&parts)).collect();
            let normalized = line.split_whitespace().collect::<Vec<_>>().join(" ");
            for c in normalized.chars() {
                // The parts hold no control char but whitespace.
                let k = match c {
                    ' ' => SPACES,
                    c if c.is_ascii() => c as usize,
                    _ => OTHER,
                };
                plain[k - FIRST] += 1;
            }
            assert_eq!(
                tally.line(&line),
                normalized.chars().count() as u32,
                "{line:?}"
            );
            let counts = tally.counts();
            for k in 0..BUCKETS {
                assert_eq!(
                    counts[k],
                    plain[k],
                    "bucket {:#x} after {line:?}",
                    k + FIRST
                );
            }
        }
    }

    /// The `u16` sum (SSE2 on x86-64) is the sum one bucket at a time, on
    /// counts of every size (their wrap and -32,768 included).
    #[test]
    fn the_u16_sum_is_the_plain_sum() {
        let mut rng = crate::test_rng::Rng::new(17);
        for round in 0..20_000 {
            let mut counts = || -> Counts<u16> {
                std::array::from_fn(|_| match round % 3 {
                    0 => rng.below(65_536) as u16,
                    1 => [0, 1, 32_767, 32_768, 65_535][rng.below(5)],
                    _ => rng.below(40) as u16,
                })
            };
            let (hi, lo, s) = (counts(), counts(), counts());
            assert_eq!(
                u16::abs_sum(&hi, &lo, &s),
                u64::from(abs_sum_u16(&hi, &lo, &s))
            );
        }
    }
}
