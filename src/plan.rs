//! The plan: per file, sorted and disjoint text edits, all-or-nothing.
//!
//! A [`TextEdit`] replaces a byte range of the file's *original* text.
//! [`TextEdits`] holds its invariant by construction: sorted by start,
//! pairwise disjoint (touching is allowed), so applying them back to front,
//! or front to back with a running offset, gives one well-defined result.

use std::ops::Range;

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use crate::text::lines;
use crate::workspace::{SourceText, WorkspacePath};

/// Replace `range` (UTF-8 byte offsets into the original text) by `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextEdit {
    /// The bytes replaced: `range.start <= range.end`, on char boundaries.
    pub range: Range<usize>,
    /// The new text.
    pub text: String,
}

impl TextEdit {
    /// Replace `range` by `text`.
    pub fn new(range: Range<usize>, text: impl Into<String>) -> TextEdit {
        assert!(
            range.start <= range.end,
            "edit range {range:?} runs backwards"
        );
        TextEdit {
            range,
            text: text.into(),
        }
    }

    /// Inserts `text` at `offset`.
    pub fn insert(offset: usize, text: impl Into<String>) -> TextEdit {
        TextEdit::new(offset..offset, text)
    }
}

/// Sorted, pairwise disjoint edits of one text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct TextEdits(Vec<TextEdit>);

/// Two edits of a [`TextEdits`] overlap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlapError {
    /// The first edit's range.
    pub first: Range<usize>,
    /// The second edit's range, starting inside the first.
    pub second: Range<usize>,
}

impl TextEdits {
    /// Sorts the edits and checks that no two overlap. Two insertions at
    /// the same offset overlap (their order would be a guess); an insertion
    /// at the end of a replaced range merely touches it.
    pub fn new(mut edits: Vec<TextEdit>) -> Result<TextEdits, OverlapError> {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        for pair in edits.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let same_point =
                a.range.is_empty() && b.range.is_empty() && a.range.start == b.range.start;
            if b.range.start < a.range.end || same_point {
                return Err(OverlapError {
                    first: a.range.clone(),
                    second: b.range.clone(),
                });
            }
        }
        Ok(TextEdits(edits))
    }

    /// The edits, sorted and disjoint.
    pub fn as_slice(&self) -> &[TextEdit] {
        &self.0
    }

    /// Consumes into the sorted vector.
    pub fn into_vec(self) -> Vec<TextEdit> {
        self.0
    }

    /// No edits at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pieces of `original` with the edits applied, in order: the
    /// text between the edits and their texts (empty pieces left out).
    pub fn pieces<'a>(&'a self, original: &'a str) -> Vec<&'a str> {
        let mut out = Vec::with_capacity(2 * self.0.len() + 1);
        let mut at = 0;
        for e in &self.0 {
            out.push(&original[at..e.range.start]);
            out.push(e.text.as_str());
            at = e.range.end;
        }
        out.push(&original[at..]);
        out.retain(|p| !p.is_empty());
        out
    }

    /// Applies the edits to `original` (the text they were computed for).
    pub fn apply(&self, original: &str) -> String {
        let delta: isize = self
            .0
            .iter()
            .map(|e| e.text.len() as isize - e.range.len() as isize)
            .sum();
        let mut out = String::with_capacity((original.len() as isize + delta).max(0) as usize);
        let mut at = 0;
        for e in &self.0 {
            out.push_str(&original[at..e.range.start]);
            out.push_str(&e.text);
            at = e.range.end;
        }
        out.push_str(&original[at..]);
        out
    }

    /// Shrinks every edit to the part that really changes (common prefix
    /// and suffix trimmed on char boundaries) and drops edits that change
    /// nothing, so clients get minimal edits.
    pub fn minimized(self, original: &str) -> TextEdits {
        let edits = self
            .0
            .into_iter()
            .filter_map(|e| minimize(original, e))
            .collect();
        TextEdits(edits)
    }
}

/// Trims the unchanged prefix and suffix of one edit, whole lines first so
/// that edits stay readable (`None` when nothing changes).
/// The edit's own text is trimmed in place (no copy of what is kept).
fn minimize(original: &str, mut edit: TextEdit) -> Option<TextEdit> {
    let old = &original[edit.range.clone()];
    let new = edit.text.as_str();
    if old == new {
        return None;
    }
    let prefix = lines::common_prefix(old, new);
    let suffix = lines::common_suffix(&old[prefix..], &new[prefix..]);
    edit.range = edit.range.start + prefix..edit.range.end - suffix;
    edit.text.truncate(edit.text.len() - suffix);
    edit.text.drain(..prefix);
    Some(edit)
}

/// What happens to one file (the report's `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FileStatus {
    /// Modified (`M`).
    #[serde(rename = "M")]
    Modified,
    /// Added (`A`).
    #[serde(rename = "A")]
    Added,
    /// Deleted (`D`).
    #[serde(rename = "D")]
    Deleted,
    /// Renamed (`R`), possibly edited too.
    #[serde(rename = "R")]
    Renamed,
    /// Modified, merged with unsaved local changes (`~M`).
    #[serde(rename = "~M")]
    Merged,
}

impl FileStatus {
    /// The report letter(s).
    pub fn code(self) -> &'static str {
        match self {
            FileStatus::Modified => "M",
            FileStatus::Added => "A",
            FileStatus::Deleted => "D",
            FileStatus::Renamed => "R",
            FileStatus::Merged => "~M",
        }
    }
}

/// The planned change of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileChange {
    /// The file's path after the change (the new path for a rename).
    pub path: WorkspacePath,
    /// For a rename, the old path.
    pub from: Option<WorkspacePath>,
    /// What happens.
    pub status: FileStatus,
    /// The text before (`None` for a new file), with its encoding/version.
    pub before: Option<Arc<SourceText>>,
    /// The text after: read it with [`FileChange::after`].
    pub content: After,
    /// Minimal, sorted, disjoint edits of `before.text` giving the text
    /// after (empty for creates and deletes).
    pub edits: TextEdits,
    /// The payload edits (1-based indices) that make this change.
    pub edit_indices: Vec<usize>,
}

/// The text of a file after its change.
#[derive(Clone, Debug, Default)]
pub enum After {
    /// None: the file is deleted.
    #[default]
    Deleted,
    /// This text (a new file, a merge's result).
    Text(String),
    /// The text before with the change's edits applied, joined on first
    /// use ([`FileChange::after`]). A writer takes the pieces instead
    /// ([`FileChange::after_pieces`]): one edit of a 10 MB file need not
    /// copy the file in memory.
    Edited(OnceLock<String>),
}

impl After {
    /// The text before with the edits applied, not joined yet.
    pub fn edited() -> After {
        After::Edited(OnceLock::new())
    }
}

/// Two edited texts are equal when their changes' texts before and edits
/// are: the joined copy is a cache.
impl PartialEq for After {
    fn eq(&self, other: &After) -> bool {
        match (self, other) {
            (After::Deleted, After::Deleted) | (After::Edited(_), After::Edited(_)) => true,
            (After::Text(a), After::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl FileChange {
    /// The text after (`None` for a delete).
    pub fn after(&self) -> Option<&str> {
        match &self.content {
            After::Deleted => None,
            After::Text(text) => Some(text),
            After::Edited(joined) => {
                Some(joined.get_or_init(|| self.edits.apply(self.before_text())))
            }
        }
    }

    /// The length in bytes of the text after (0 for a delete), without
    /// joining an edited text.
    pub fn after_len(&self) -> usize {
        match &self.content {
            After::Deleted => 0,
            After::Text(text) => text.len(),
            After::Edited(joined) => match joined.get() {
                Some(text) => text.len(),
                None => self
                    .edits
                    .as_slice()
                    .iter()
                    .fold(self.before_text().len(), |len, e| {
                        len + e.text.len() - e.range.len()
                    }),
            },
        }
    }

    /// Whether the file is there after the change (not deleted).
    pub fn exists_after(&self) -> bool {
        !matches!(self.content, After::Deleted)
    }

    /// The text after as the pieces that make it, in order, without
    /// joining them: the text before between the edits and the edits'
    /// texts (`None` for a delete).
    pub fn after_pieces(&self) -> Option<Vec<&str>> {
        match &self.content {
            After::Deleted => None,
            After::Text(text) => Some(vec![text.as_str()]),
            After::Edited(joined) => Some(match joined.get() {
                Some(text) => vec![text.as_str()],
                None => self.edits.pieces(self.before_text()),
            }),
        }
    }

    fn before_text(&self) -> &str {
        self.before.as_ref().map_or("", |b| b.text.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_applies() {
        let edits =
            TextEdits::new(vec![TextEdit::new(4..5, "X"), TextEdit::new(0..1, "ab")]).unwrap();
        assert_eq!(edits.apply("0123456"), "ab123X56");
    }

    #[test]
    fn the_pieces_give_the_text_after() {
        let original = "0123456";
        for edits in [
            vec![TextEdit::new(4..5, "X"), TextEdit::new(0..1, "ab")],
            vec![TextEdit::new(0..7, "")],
            vec![TextEdit::new(7..7, "end"), TextEdit::new(0..0, "start")],
            vec![],
        ] {
            let edits = TextEdits::new(edits).unwrap();
            let want = edits.apply(original);
            assert_eq!(edits.pieces(original).concat(), want);
            assert!(edits.pieces(original).iter().all(|p| !p.is_empty()));
            let change = FileChange {
                path: WorkspacePath::new(std::path::Path::new("/r"), "a.txt").unwrap(),
                from: None,
                status: FileStatus::Modified,
                before: Some(Arc::new(SourceText {
                    text: original.to_string(),
                    encoding: crate::text::encoding::Encoding::Utf8,
                    version: None,
                    stamp: None,
                })),
                content: After::edited(),
                edits,
                edit_indices: vec![1],
            };
            assert_eq!(change.after_pieces().unwrap().concat(), want);
            assert_eq!(change.after(), Some(want.as_str()));
            // Once joined, the joined text is the one piece.
            assert_eq!(change.after_pieces().unwrap(), vec![want.as_str()]);
        }
    }

    #[test]
    fn refuses_overlap_and_double_insert() {
        assert!(TextEdits::new(vec![TextEdit::new(0..3, ""), TextEdit::new(2..4, "")]).is_err());
        assert!(TextEdits::new(vec![TextEdit::insert(2, "a"), TextEdit::insert(2, "b")]).is_err());
        assert!(TextEdits::new(vec![TextEdit::new(0..2, "x"), TextEdit::insert(2, "b")]).is_ok());
    }

    #[test]
    fn minimizes_to_changed_lines() {
        let original = "a\nb\nc\n";
        let edits = TextEdits::new(vec![TextEdit::new(0..6, "a\nB\nc\n")])
            .unwrap()
            .minimized(original);
        assert_eq!(edits.as_slice(), &[TextEdit::new(2..4, "B\n")]);
        let unchanged = TextEdits::new(vec![TextEdit::new(0..6, "a\nb\nc\n")])
            .unwrap()
            .minimized(original);
        assert!(unchanged.is_empty());
    }
}
