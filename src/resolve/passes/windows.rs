//! Every window of a sequence of line-key ids ([`super::keys::Seq`]) where
//! a search's lines match: the search of each line pass, on integers.
//!
//! Two ways, both exact and both finding every window (uniqueness is
//! decided by the caller, so none may be left out):
//! - from the places of the search's rarest line: each is one candidate
//!   start, checked position by position — O(occurrences × search), used
//!   when that is small (distinct lines: a handful of candidates);
//! - otherwise (every search line occurs nearly everywhere, as in a file
//!   of identical lines), Knuth-Morris-Pratt over the ids of the longest
//!   run of search lines wanting one id each, then the few others checked
//!   per occurrence — O(file + search + occurrences).
//!
//! Either way a pass is linear in the file at worst, whatever the search,
//! so no deadline is needed here.

use super::keys::Seq;

/// What a search line accepts at its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// The lines with this key.
    One(u32),
    /// The lines with any of these keys (sorted): a truncated boundary
    /// line of pass 4 accepts every key it is a long enough prefix of.
    AnyOf(Vec<u32>),
}

impl Want {
    fn accepts(&self, id: u32) -> bool {
        match self {
            Want::One(w) => *w == id,
            Want::AnyOf(ws) => ws.binary_search(&id).is_ok(),
        }
    }

    /// How many positions of `seq` it accepts.
    fn count(&self, seq: &Seq) -> usize {
        match self {
            Want::One(w) => seq.positions(*w).len(),
            Want::AnyOf(ws) => ws.iter().map(|&w| seq.positions(w).len()).sum(),
        }
    }
}

/// Every start `s` where `want[j]` accepts `seq.ids[s + j]` for all `j`, in
/// order.
pub fn find(seq: &Seq, want: &[Want]) -> Vec<usize> {
    let n = want.len();
    if n == 0 || n > seq.len() {
        return Vec::new();
    }
    let counts: Vec<usize> = want.iter().map(|w| w.count(seq)).collect();
    let (rarest, &fewest) = counts
        .iter()
        .enumerate()
        .min_by_key(|&(_, c)| *c)
        .expect("a search line");
    if fewest == 0 {
        return Vec::new();
    }
    let run = longest_single_run(want);
    // Checking a candidate costs up to `n` comparisons; a scan costs the
    // file's length (and KMP's table the search's).
    let budget = 4 * (seq.len() + n) + 4096;
    if run.is_empty() || fewest.saturating_mul(n) <= budget {
        from_rarest(seq, want, rarest)
    } else {
        by_kmp(seq, want, run)
    }
}

/// Whether the window at `s` matches (bounds already checked).
fn matches_at(seq: &Seq, want: &[Want], s: usize) -> bool {
    want.iter()
        .zip(&seq.ids[s..s + want.len()])
        .all(|(w, &id)| w.accepts(id))
}

/// The candidates placed by the occurrences of search line `j`.
fn from_rarest(seq: &Seq, want: &[Want], j: usize) -> Vec<usize> {
    let n = want.len();
    let last_start = seq.len() - n;
    let ids: &[u32] = match &want[j] {
        Want::One(w) => std::slice::from_ref(w),
        Want::AnyOf(ws) => ws,
    };
    let mut starts: Vec<usize> = ids
        .iter()
        .flat_map(|&id| seq.positions(id))
        .filter_map(|&p| (p as usize).checked_sub(j))
        .filter(|&s| s <= last_start && matches_at(seq, want, s))
        .collect();
    if ids.len() > 1 {
        // Each start comes from one position's one id: sorting suffices.
        starts.sort_unstable();
    }
    starts
}

/// The longest run of search positions wanting one id each.
fn longest_single_run(want: &[Want]) -> std::ops::Range<usize> {
    let mut best = 0..0;
    let mut start = 0;
    for (j, w) in want.iter().enumerate() {
        if !matches!(w, Want::One(_)) {
            start = j + 1;
        } else if j + 1 - start > best.len() {
            best = start..j + 1;
        }
    }
    best
}

/// The windows found by KMP over the ids of `want[run]`, the positions
/// outside the run checked per occurrence.
fn by_kmp(seq: &Seq, want: &[Want], run: std::ops::Range<usize>) -> Vec<usize> {
    let n = want.len();
    let pattern: Vec<u32> = want[run.clone()]
        .iter()
        .map(|w| match w {
            Want::One(id) => *id,
            Want::AnyOf(_) => unreachable!("the run holds single ids"),
        })
        .collect();
    let m = pattern.len();
    // failure[k]: the length of the longest proper border of pattern[..=k].
    let mut failure = vec![0usize; m];
    let mut k = 0;
    for q in 1..m {
        while k > 0 && pattern[q] != pattern[k] {
            k = failure[k - 1];
        }
        if pattern[q] == pattern[k] {
            k += 1;
        }
        failure[q] = k;
    }
    let mut starts = Vec::new();
    let mut k = 0;
    for (i, &id) in seq.ids.iter().enumerate() {
        while k > 0 && id != pattern[k] {
            k = failure[k - 1];
        }
        if id == pattern[k] {
            k += 1;
        }
        if k == m {
            k = failure[m - 1];
            // The run ends at `i`: the window starts `run.end - 1` before.
            let Some(s) = (i + 1).checked_sub(run.end) else {
                continue;
            };
            // The run matched: only the positions outside it are left
            // (checking the run again would cost occurrences × search).
            if s + n <= seq.len()
                && (0..run.start)
                    .chain(run.end..n)
                    .all(|j| want[j].accepts(seq.ids[s + j]))
            {
                starts.push(s);
            }
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every start, by trying each (the reference).
    fn naive(ids: &[u32], want: &[Want]) -> Vec<usize> {
        let n = want.len();
        if n == 0 || n > ids.len() {
            return Vec::new();
        }
        (0..=ids.len() - n)
            .filter(|&s| (0..n).all(|j| want[j].accepts(ids[s + j])))
            .collect()
    }

    fn seq(ids: &[u32]) -> Seq {
        Seq::for_tests(ids.to_vec())
    }

    use crate::test_rng::Rng;

    #[test]
    fn both_ways_find_every_window() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..3000 {
            let alphabet = 1 + rng.below(4) as u32;
            let len = rng.below(60);
            let ids: Vec<u32> = (0..len)
                .map(|_| rng.below(alphabet as usize) as u32)
                .collect();
            let n = 1 + rng.below(8);
            let want: Vec<Want> = (0..n)
                .map(|j| {
                    let boundary = j == 0 || j + 1 == n;
                    if boundary && round % 3 == 0 {
                        let mut ws: Vec<u32> =
                            (0..alphabet).filter(|_| rng.below(2) == 0).collect();
                        ws.sort_unstable();
                        Want::AnyOf(ws)
                    } else {
                        Want::One(rng.below(alphabet as usize + 1) as u32)
                    }
                })
                .collect();
            let expected = naive(&ids, &want);
            let s = seq(&ids);
            assert_eq!(find(&s, &want), expected, "{ids:?} {want:?}");
            if n <= len {
                let rarest = (0..n).min_by_key(|&j| want[j].count(&s)).unwrap();
                assert_eq!(from_rarest(&s, &want, rarest), expected);
                let run = longest_single_run(&want);
                if !run.is_empty() {
                    assert_eq!(by_kmp(&s, &want, run), expected, "{ids:?} {want:?}");
                }
            }
        }
    }

    #[test]
    fn identical_lines_take_the_linear_way() {
        // 200,000 equal ids and a 5,000-long search of them but its last:
        // nearly everywhere, and nowhere.
        let ids = vec![0u32; 200_000];
        let mut want = vec![Want::One(0); 5_000];
        want[4_999] = Want::One(1);
        let mut with_one = ids.clone();
        with_one[150_000] = 1;
        assert!(find(&seq(&ids), &want).is_empty());
        assert_eq!(find(&seq(&with_one), &want), vec![150_000 - 4_999]);
        // All of it matches everywhere it fits.
        let all = vec![Want::One(0); 5_000];
        assert_eq!(find(&seq(&ids), &all).len(), 200_000 - 5_000 + 1);
    }

    #[test]
    fn runs() {
        let w = |k: &[u8]| -> Vec<Want> {
            k.iter()
                .map(|&c| {
                    if c == b'*' {
                        Want::AnyOf(vec![0])
                    } else {
                        Want::One(0)
                    }
                })
                .collect()
        };
        assert_eq!(longest_single_run(&w(b"*11*")), 1..3);
        assert_eq!(longest_single_run(&w(b"1*111")), 2..5);
        assert_eq!(longest_single_run(&w(b"**")), 0..0);
    }
}
