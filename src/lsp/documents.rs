//! Open documents: ropes with versions, keyed by URI, in a [`DashMap`].
//!
//! Changes are applied synchronously, in the order the client sent them:
//! handlers call [`Documents::change`] before their first `.await`, so a
//! later request always sees every earlier `didChange`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use dashmap::DashMap;
use ropey::Rope;

use crate::lsp::position::{rope_offset, LineCol, PositionEncoding};

/// One open document.
#[derive(Clone, Debug)]
pub struct Document {
    /// The text.
    pub rope: Rope,
    /// The client's version (increases with every change).
    pub version: i32,
    /// The file it shows, for `file:` URIs.
    pub path: Option<PathBuf>,
    /// When it last changed (a response still streaming in changes often).
    pub changed_at: Instant,
}

/// One content change of `didChange`, protocol-neutral.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentChange {
    /// The replaced range, `None` for the whole document.
    pub range: Option<(LineCol, LineCol)>,
    /// The new text.
    pub text: String,
}

/// Why a change was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeError {
    /// The document is not open.
    NotOpen,
}

/// The open documents, keyed by URI string as the client sent it.
#[derive(Debug, Default)]
pub struct Documents {
    docs: DashMap<String, Document>,
}

impl Documents {
    /// Opens (or reopens) a document.
    pub fn open(&self, uri: &str, path: Option<PathBuf>, version: i32, text: &str) {
        let doc = Document {
            rope: Rope::from_str(text),
            version,
            path,
            changed_at: Instant::now(),
        };
        self.docs.insert(uri.to_owned(), doc);
    }

    /// Closes a document.
    pub fn close(&self, uri: &str) {
        self.docs.remove(uri);
    }

    /// Applies changes in order and sets the new version.
    pub fn change(
        &self,
        uri: &str,
        version: i32,
        changes: &[ContentChange],
        enc: PositionEncoding,
    ) -> Result<(), ChangeError> {
        let mut doc = self.docs.get_mut(uri).ok_or(ChangeError::NotOpen)?;
        for change in changes {
            apply_change(&mut doc.rope, change, enc);
        }
        doc.version = version;
        doc.changed_at = Instant::now();
        Ok(())
    }

    /// A copy of the document (ropes clone in O(1)).
    pub fn get(&self, uri: &str) -> Option<Document> {
        self.docs.get(uri).map(|d| d.clone())
    }

    /// The document showing the file at `path`, with its URI.
    pub fn find_by_path(&self, path: &Path) -> Option<(String, Document)> {
        self.docs
            .iter()
            .find(|d| d.path.as_deref() == Some(path))
            .map(|d| (d.key().clone(), d.value().clone()))
    }

    /// The URIs of every open document.
    pub fn uris(&self) -> Vec<String> {
        self.docs.iter().map(|d| d.key().clone()).collect()
    }
}

/// Applies one change to a rope.
fn apply_change(rope: &mut Rope, change: &ContentChange, enc: PositionEncoding) {
    let Some((start, end)) = change.range else {
        *rope = Rope::from_str(&change.text);
        return;
    };
    let start = rope.byte_to_char(rope_offset(rope, start, enc));
    let end = rope.byte_to_char(rope_offset(rope, end, enc)).max(start);
    rope.remove(start..end);
    rope.insert(start, &change.text);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(range: ((u32, u32), (u32, u32)), text: &str) -> ContentChange {
        let (a, b) = range;
        ContentChange {
            range: Some((LineCol::new(a.0, a.1), LineCol::new(b.0, b.1))),
            text: text.into(),
        }
    }

    #[test]
    fn applies_incremental_and_full_changes() {
        let docs = Documents::default();
        docs.open("file:///a", None, 1, "héllo 😀 wörld\r\nzwei\n");
        let enc = PositionEncoding::Utf16;
        // Replace the emoji (2 UTF-16 units at 6..8) by "!".
        docs.change("file:///a", 2, &[change(((0, 6), (0, 8)), "!")], enc)
            .unwrap();
        // Insert at the start of line 1, then past the end of line 1 (clamped).
        let edits = [
            change(((1, 0), (1, 0)), "> "),
            change(((1, 99), (1, 99)), "!"),
        ];
        docs.change("file:///a", 3, &edits, enc).unwrap();
        let doc = docs.get("file:///a").unwrap();
        assert_eq!(doc.rope.to_string(), "héllo ! wörld\r\n> zwei!\n");
        assert_eq!(doc.version, 3);
        let full = ContentChange {
            range: None,
            text: "new".into(),
        };
        docs.change("file:///a", 4, &[full], enc).unwrap();
        assert_eq!(docs.get("file:///a").unwrap().rope.to_string(), "new");
        assert_eq!(
            docs.change("file:///b", 1, &[], enc),
            Err(ChangeError::NotOpen)
        );
    }
}
