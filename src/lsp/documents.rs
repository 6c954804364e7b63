//! Open documents: ropes with versions, keyed by URI, in a [`DashMap`].
//!
//! Changes are applied synchronously, in the order the client sent them:
//! handlers call [`Documents::change`] before their first `.await`, so a
//! later request always sees every earlier `didChange`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use dashmap::DashMap;
use ropey::Rope;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::lsp::position::{rope_offset, LineCol, PositionEncoding};
use crate::text::encoding::Encoding;
use crate::workspace::SourceText;

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
    /// The text as one string and its hash, made when first asked and
    /// kept until the document changes: requests on an unchanged buffer
    /// (a preview, then its apply, then another preview) share one copy
    /// instead of flattening the rope each time. Every change and every
    /// open starts a new one, so it always belongs to `rope` and
    /// `version`.
    flat: Arc<Flat>,
}

/// What [`Document::text`] and [`Document::hash`] computed.
#[derive(Debug, Default)]
struct Flat {
    text: OnceLock<Arc<SourceText>>,
    hash: OnceLock<u64>,
}

impl Document {
    /// The text as the engine reads it (UTF-8, stamped with the version),
    /// copied out of the rope once per document state.
    pub fn text(&self) -> Arc<SourceText> {
        let text = self.flat.text.get_or_init(|| {
            Arc::new(SourceText {
                text: String::from(&self.rope),
                encoding: Encoding::Utf8,
                version: Some(self.version),
                stamp: None,
            })
        });
        Arc::clone(text)
    }

    /// Whether `text` is this document state's [`Document::text`] (the
    /// same allocation, not only the same bytes).
    pub fn is_text(&self, text: &Arc<SourceText>) -> bool {
        self.flat.text.get().is_some_and(|t| Arc::ptr_eq(t, text))
    }

    /// xxh3 of the text (as `xxh3_64` of [`Document::text`]), once per
    /// document state.
    pub fn hash(&self) -> u64 {
        *self.flat.hash.get_or_init(|| match self.flat.text.get() {
            Some(text) => xxh3_64(text.text.as_bytes()),
            None => {
                let mut hasher = Xxh3::new();
                for chunk in self.rope.chunks() {
                    hasher.update(chunk.as_bytes());
                }
                hasher.digest()
            }
        })
    }
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
            flat: Arc::default(),
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
        doc.flat = Arc::default();
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

    /// The rope of the document whose [`Document::text`] is `text`, if it
    /// has not changed since that text was made.
    pub fn rope_of(&self, text: &Arc<SourceText>) -> Option<Rope> {
        self.docs
            .iter()
            .find(|d| d.is_text(text))
            .map(|d| d.rope.clone())
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

    #[test]
    fn the_flat_text_is_kept_until_the_document_changes() {
        use xxhash_rust::xxh3::xxh3_64;
        let docs = Documents::default();
        docs.open("file:///a", None, 1, "one\r\ntwo 😀\n");
        let doc = docs.get("file:///a").unwrap();
        // The hash before and after the text is made: the same value.
        let hash = doc.hash();
        let text = doc.text();
        assert_eq!(
            (text.text.as_str(), text.version),
            ("one\r\ntwo 😀\n", Some(1))
        );
        assert_eq!(hash, xxh3_64(text.text.as_bytes()));
        // Another copy of the same state shares the text.
        let again = docs.get("file:///a").unwrap();
        assert!(Arc::ptr_eq(&again.text(), &text) && again.is_text(&text));
        assert_eq!(
            docs.rope_of(&text).map(String::from),
            Some(text.text.clone())
        );
        // A change (even one with no edits: a new version) starts afresh,
        // while the copy taken before keeps its state.
        docs.change("file:///a", 2, &[], PositionEncoding::Utf16)
            .unwrap();
        let changed = docs.get("file:///a").unwrap();
        assert!(!changed.is_text(&text) && docs.rope_of(&text).is_none());
        assert_eq!(changed.text().version, Some(2));
        assert_eq!(changed.hash(), hash);
        let edit = [change(((0, 0), (0, 3)), "1")];
        docs.change("file:///a", 3, &edit, PositionEncoding::Utf16)
            .unwrap();
        let changed = docs.get("file:///a").unwrap();
        assert_eq!(changed.hash(), xxh3_64("1\r\ntwo 😀\n".as_bytes()));
        assert_eq!(changed.text().text, "1\r\ntwo 😀\n");
        assert_eq!(doc.text().text, "one\r\ntwo 😀\n");
        // Reopened at the same version with other text.
        docs.open("file:///a", None, 3, "other");
        let reopened = docs.get("file:///a").unwrap();
        assert_eq!(reopened.text().text, "other");
        assert_eq!(reopened.hash(), xxh3_64(b"other"));
    }
}
