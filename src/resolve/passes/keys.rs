//! The line-key index of one text: per normalization of its lines (as
//! written, trailing whitespace trimmed, trimmed, folded), each line's key
//! as a small integer id, and where each id occurs.
//!
//! Why: a line pass compares a search's lines with every window of the
//! file. Normalizing and comparing strings anew per window, per pass and per
//! search cost O(file × search) string work (a long search over identical
//! lines took a minute). The index is built once per text — lazily, per
//! normalization, and shared by every pass and every search over that text
//! (the hunks of one diff, the variants of one search) — and a pass then
//! compares `u32` ids ([`super::windows`]). A text that changes gets a new
//! [`super::Lines`] and so a new index: nothing here can go stale.
//!
//! Only the exact keys are hashed line by line; the other normalizations
//! are derived from the distinct exact keys (a file's repeated lines are
//! normalized once).

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};

use hashbrown::{hash_table, HashTable};

use super::unicode;
use crate::text::lines::LineIndex;

/// How a line is normalized before it is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    /// As written (without its terminator).
    Exact,
    /// Trailing whitespace trimmed (pass 2).
    TrimEnd,
    /// Surrounding whitespace trimmed (passes 3 and 4).
    Trim,
    /// Trimmed, then typography folded ([`unicode::fold`], pass 5).
    Fold,
    /// Trimmed, whitespace runs collapsed to one space (as fuzzy matching
    /// compares lines: [`super::fuzzy::normalize_line`]).
    Words,
}

const NORMS: usize = 5;

/// Searches of a text under one normalization made by scanning before its
/// index is built.
const SCANS_BEFORE_INDEX: usize = 3;

impl Norm {
    fn slot(self) -> usize {
        match self {
            Norm::Exact => 0,
            Norm::TrimEnd => 1,
            Norm::Trim => 2,
            Norm::Fold => 3,
            Norm::Words => 4,
        }
    }

    /// The key of a line (of the file or of a search) under this
    /// normalization: two lines compare equal when their keys do.
    pub fn key(self, line: &str) -> Cow<'_, str> {
        match self {
            Norm::Exact => Cow::Borrowed(line),
            Norm::TrimEnd => Cow::Borrowed(line.trim_end()),
            Norm::Trim => Cow::Borrowed(line.trim()),
            Norm::Fold => unicode::fold(line.trim()),
            Norm::Words => words(line),
        }
    }
}

/// A line trimmed, its whitespace runs collapsed to one space (borrowed
/// when it has no run to collapse).
fn words(line: &str) -> Cow<'_, str> {
    let t = line.trim();
    let mut after_space = false;
    let plain = t.chars().all(|c| {
        let ok = !c.is_whitespace() || (c == ' ' && !after_space);
        after_space = c.is_whitespace();
        ok
    });
    if plain {
        Cow::Borrowed(t)
    } else {
        Cow::Owned(super::fuzzy::normalize_line(t))
    }
}

/// Which lines of the text a [`Seq`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Every line.
    All,
    /// The lines that are not blank (whitespace only), in order: the
    /// blank-line-insensitive pass compares those alone.
    NonBlank,
}

/// The hash of a key: xxh3 (the std hasher is several times slower on
/// lines, and keys come from files, not from an adversary who could only
/// make lookups slower, never wrong: the table compares keys).
fn hash(key: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}

/// The distinct keys of one normalization, numbered from 0.
///
/// The table holds the ids alone (4 bytes a slot, found by their key's
/// hash and told apart by comparing `keys`): a table of the keys
/// themselves, 32 bytes a slot, was the most memory a short run wrote to,
/// and each page written first is a page fault: a refused apply on a
/// 10k-line file (its closest-match diagnostics build the index) spent
/// ~400 of its ~870 faults there.
pub struct Dict<'t> {
    ids: HashTable<u32>,
    /// Per id: its key.
    keys: Vec<Cow<'t, str>>,
    /// The ids in the order of their keys (prefix look-ups), on first use.
    sorted: OnceCell<Vec<u32>>,
}

impl<'t> Dict<'t> {
    /// A dict for at most `n` keys without growing.
    fn with_capacity(n: usize) -> Dict<'t> {
        Dict {
            ids: HashTable::with_capacity(n),
            keys: Vec::with_capacity(n),
            sorted: OnceCell::new(),
        }
    }

    /// The id of `key`, numbering it when new.
    fn intern(&mut self, key: Cow<'t, str>) -> u32 {
        let keys = &self.keys;
        let entry = self.ids.entry(
            hash(&key),
            |&id| keys[id as usize] == key,
            |&id| hash(&keys[id as usize]),
        );
        match entry {
            hash_table::Entry::Occupied(e) => *e.get(),
            hash_table::Entry::Vacant(e) => {
                let id = self.keys.len() as u32;
                e.insert(id);
                self.keys.push(key);
                id
            }
        }
    }

    /// The id of a key, `None` when no line has it.
    pub fn id(&self, key: &str) -> Option<u32> {
        self.ids
            .find(hash(key), |&id| self.keys[id as usize] == key)
            .copied()
    }

    /// The key of an id.
    pub fn key(&self, id: u32) -> &str {
        &self.keys[id as usize]
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// No keys (an empty text).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The ids of the keys that start with `prefix` (itself included).
    pub fn with_prefix<'d>(&'d self, prefix: &'d str) -> impl Iterator<Item = u32> + 'd {
        let sorted = self.sorted.get_or_init(|| {
            let mut ids: Vec<u32> = (0..self.keys.len() as u32).collect();
            ids.sort_unstable_by(|&a, &b| self.key(a).cmp(self.key(b)));
            ids
        });
        // Keys with a prefix are one run in byte order, from the first
        // key not below it.
        let from = sorted.partition_point(|&id| self.key(id) < prefix);
        sorted[from..]
            .iter()
            .copied()
            .take_while(move |&id| self.key(id).starts_with(prefix))
    }
}

/// A sequence of key ids (one per line of a view) and, per id, the
/// positions in the sequence where it occurs, in order.
pub struct Seq {
    /// Per position: its key's id.
    pub ids: Vec<u32>,
    /// Per id: where its positions start in `at` (and one past the last id).
    offsets: Vec<u32>,
    /// The positions, grouped by id.
    at: Vec<u32>,
}

impl Seq {
    /// Indexes `ids`, every one below `distinct`.
    fn new(ids: Vec<u32>, distinct: usize) -> Seq {
        let mut offsets = vec![0u32; distinct + 1];
        for &id in &ids {
            offsets[id as usize + 1] += 1;
        }
        for k in 1..offsets.len() {
            offsets[k] += offsets[k - 1];
        }
        let mut next: Vec<u32> = offsets[..distinct].to_vec();
        let mut at = vec![0u32; ids.len()];
        for (p, &id) in ids.iter().enumerate() {
            at[next[id as usize] as usize] = p as u32;
            next[id as usize] += 1;
        }
        Seq { ids, offsets, at }
    }

    /// A sequence of arbitrary ids (the window search's tests).
    #[cfg(test)]
    pub fn for_tests(ids: Vec<u32>) -> Seq {
        let distinct = ids.iter().max().map_or(0, |&m| m as usize + 1);
        Seq::new(ids, distinct)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// No positions.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Where `id` occurs, in order.
    pub fn positions(&self, id: u32) -> &[u32] {
        let id = id as usize;
        match (self.offsets.get(id), self.offsets.get(id + 1)) {
            (Some(&a), Some(&b)) => &self.at[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// One normalization's keys: its dictionary and, per exact id, its id.
struct Table<'t> {
    dict: Dict<'t>,
    /// Per exact id: the id of its key under this normalization (empty
    /// for the exact normalization itself).
    of_exact: Vec<u32>,
}

/// The exact keys: each line's id, and per id its key as a slice of the
/// text (the other normalizations trim those slices).
struct Exact<'t> {
    dict: Dict<'t>,
    ids: Vec<u32>,
    keys: Vec<&'t str>,
}

/// The index, each part built on first use.
#[derive(Default)]
pub struct KeyIndex<'t> {
    /// The exact keys and each line's exact id.
    exact: OnceCell<Exact<'t>>,
    /// The other normalizations (slot 0 unused).
    tables: [OnceCell<Table<'t>>; NORMS],
    /// Per normalization and view.
    seqs: [[OnceCell<Seq>; 2]; NORMS],
    /// The lines that are not blank.
    non_blank: OnceCell<Vec<u32>>,
    /// Per normalization: the searches made before its index was built.
    scans: [Cell<usize>; NORMS],
    /// Whether the text is ASCII.
    ascii: OnceCell<bool>,
}

impl<'t> KeyIndex<'t> {
    fn exact(&self, text: &'t str, index: &LineIndex) -> &Exact<'t> {
        self.exact.get_or_init(|| {
            let mut dict = Dict::with_capacity(index.len());
            let mut keys = Vec::new();
            let ids = (0..index.len())
                .map(|i| {
                    let line = index.content(text, i);
                    let id = dict.intern(Cow::Borrowed(line));
                    if id as usize == keys.len() {
                        keys.push(line);
                    }
                    id
                })
                .collect();
            Exact { dict, ids, keys }
        })
    }

    fn table(&self, norm: Norm, text: &'t str, index: &LineIndex) -> &Table<'t> {
        self.tables[norm.slot()].get_or_init(|| {
            let exact = self.exact(text, index);
            let mut dict = Dict::with_capacity(exact.keys.len());
            let of_exact = exact
                .keys
                .iter()
                .map(|k| dict.intern(norm.key(k)))
                .collect();
            Table { dict, of_exact }
        })
    }

    /// The distinct keys under `norm`.
    pub fn dict(&self, norm: Norm, text: &'t str, index: &LineIndex) -> &Dict<'t> {
        match norm {
            Norm::Exact => &self.exact(text, index).dict,
            _ => &self.table(norm, text, index).dict,
        }
    }

    /// The ids of the lines of `view` under `norm`.
    pub fn seq(&self, norm: Norm, view: View, text: &'t str, index: &LineIndex) -> &Seq {
        let slot = match view {
            View::All => 0,
            View::NonBlank => 1,
        };
        self.seqs[norm.slot()][slot].get_or_init(|| {
            let distinct = self.dict(norm, text, index).len();
            let ids: Vec<u32> = match view {
                View::All => {
                    let exact_ids = &self.exact(text, index).ids;
                    match norm {
                        Norm::Exact => exact_ids.clone(),
                        _ => {
                            let of_exact = &self.table(norm, text, index).of_exact;
                            exact_ids.iter().map(|&e| of_exact[e as usize]).collect()
                        }
                    }
                }
                View::NonBlank => {
                    let all = &self.seq(norm, View::All, text, index).ids;
                    self.non_blank(text, index)
                        .iter()
                        .map(|&i| all[i as usize])
                        .collect()
                }
            };
            Seq::new(ids, distinct)
        })
    }

    /// The lines that are not blank, in order.
    pub fn non_blank(&self, text: &'t str, index: &LineIndex) -> &[u32] {
        self.non_blank.get_or_init(|| {
            (0..index.len() as u32)
                .filter(|&i| !is_blank(&text[index.full_range(i as usize)]))
                .collect()
        })
    }

    /// Whether the text is ASCII (checked once).
    pub fn is_ascii(&self, text: &str) -> bool {
        *self.ascii.get_or_init(|| text.is_ascii())
    }

    /// Whether a search under `norm` should use the index: when it is
    /// built, or when this text was searched that way before (building
    /// costs a few scans of the text; a text searched once, as one edit's
    /// passes search it, is cheaper scanned, and a text searched again —
    /// the hunks of a diff, the variants of a search — pays it back).
    pub fn wanted(&self, norm: Norm) -> bool {
        let scans = &self.scans[norm.slot()];
        let built = match norm {
            Norm::Exact => self.exact.get().is_some(),
            _ => self.tables[norm.slot()].get().is_some(),
        };
        scans.set(scans.get() + 1);
        built || scans.get() > SCANS_BEFORE_INDEX
    }
}

/// Whether a line (with or without its terminator) is empty once
/// trimmed (`line.trim().is_empty()`), told from its bytes: ASCII
/// whitespace is skipped, the first other ASCII byte says no, and a line
/// with a non-ASCII byte before that is trimmed as a `str`.
pub fn is_blank(line: &str) -> bool {
    for &b in line.as_bytes() {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {}
            b if b.is_ascii() => return false,
            _ => return line.trim().is_empty(),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> (LineIndex, KeyIndex<'_>) {
        (LineIndex::new(text), KeyIndex::default())
    }

    #[test]
    fn equal_keys_share_an_id() {
        let text = "a \n  a\n\tb\r\nA\na \r\n\n";
        let (li, k) = index(text);
        let exact = &k.seq(Norm::Exact, View::All, text, &li).ids;
        assert_eq!(exact, &vec![0, 1, 2, 3, 0, 4]);
        let trimmed = &k.seq(Norm::Trim, View::All, text, &li).ids;
        assert_eq!(trimmed[0], trimmed[1]);
        assert_eq!(trimmed[0], trimmed[4]);
        assert_ne!(trimmed[0], trimmed[3]);
        let d = k.dict(Norm::Trim, text, &li);
        assert_eq!(d.key(trimmed[2]), "b");
        assert_eq!(k.non_blank(text, &li), &[0, 1, 2, 3, 4]);
    }

    #[test]
    fn blank_lines_as_trim_tells_them() {
        let text = "a\n \t\r\n\x0b\x0c\n\u{a0}\n \u{3000} \n\u{1c}\n x\n\u{85}\r\n\u{2028}y\n\n  \u{feff}\n\r\n \r \n  é";
        let (li, k) = index(text);
        let want: Vec<u32> = (0..li.len() as u32)
            .filter(|&i| !li.content(text, i as usize).trim().is_empty())
            .collect();
        assert_eq!(k.non_blank(text, &li), want.as_slice());
        assert_eq!(want, vec![0, 5, 6, 8, 10, 13]);
    }

    #[test]
    fn a_dict_grown_past_its_capacity_finds_every_key() {
        // Sized for one key: the table grows and re-places each id by its
        // key's hash; every key keeps its id and is found again, owned or
        // borrowed, and a key never interned is not.
        let mut d = Dict::with_capacity(1);
        let keys: Vec<String> = (0..1000).map(|i| format!("line {}", i % 700)).collect();
        let ids: Vec<u32> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                if i % 2 == 0 {
                    d.intern(Cow::Borrowed(k.as_str()))
                } else {
                    d.intern(Cow::Owned(k.clone()))
                }
            })
            .collect();
        assert_eq!(d.len(), 700);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(ids[i], ids[i % 700], "{k}");
            assert_eq!(d.id(k), Some(ids[i]));
            assert_eq!(d.key(ids[i]), k);
        }
        assert_eq!(d.id("line 700"), None);
        assert_eq!(d.id(""), None);
    }

    #[test]
    fn positions_list_every_occurrence() {
        let text = "x\ny\nx\n\nx\n";
        let (li, k) = index(text);
        let seq = k.seq(Norm::Exact, View::All, text, &li);
        let x = k.dict(Norm::Exact, text, &li).id("x").unwrap();
        assert_eq!(seq.positions(x), &[0, 2, 4]);
        let compact = k.seq(Norm::Exact, View::NonBlank, text, &li);
        assert_eq!(compact.positions(x), &[0, 2, 3]);
        assert!(seq.positions(99).is_empty());
    }

    #[test]
    fn prefixes_are_found_in_key_order() {
        let text = "abc\nab\nabd\nb\na\n";
        let (li, k) = index(text);
        let d = k.dict(Norm::Exact, text, &li);
        let keys: Vec<&str> = d.with_prefix("ab").map(|id| d.key(id)).collect();
        assert_eq!(keys, vec!["ab", "abc", "abd"]);
        assert_eq!(d.with_prefix("z").count(), 0);
    }

    #[test]
    fn folded_keys_join_typographic_variants() {
        let text = "say \u{201C}hi\u{201D}\nsay \"hi\"\n";
        let (li, k) = index(text);
        let folded = &k.seq(Norm::Fold, View::All, text, &li).ids;
        assert_eq!(folded[0], folded[1]);
        for line in ["a  b", " a\tb ", "a b", "a\u{00A0} b", "ab", "", "  "] {
            assert_eq!(
                Norm::Words.key(line),
                super::super::fuzzy::normalize_line(line)
            );
        }
        let exact = &k.seq(Norm::Exact, View::All, text, &li).ids;
        assert_ne!(exact[0], exact[1]);
    }
}
