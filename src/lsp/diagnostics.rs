//! The diagnostics the server has published, per document and origin.
//!
//! `publishDiagnostics` replaces everything a server said about a URI, so
//! the store keeps each origin's list (failed edits of a command run, the
//! analysis of a response document) and always publishes their union.

use std::collections::BTreeMap;

use dashmap::DashMap;
use tower_lsp_server::ls_types::Diagnostic;

/// Why a diagnostic was published.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// A failed edit of a `llm-edit.preview` / `llm-edit.apply` run, on its
    /// target file.
    Run,
    /// The analysis of this response document (its failing blocks).
    Response,
    /// `~M` regions the user and the LLM changed differently, recomputed
    /// against the live buffer (`lsp::context`).
    Conflict,
    /// A parse error an applied edit left in a file that parsed cleanly
    /// (a warning: the model may have meant it), kept until the file's
    /// text differs from what the apply wrote.
    Syntax,
}

/// Diagnostics per URI string and origin.
#[derive(Debug, Default)]
pub struct DiagnosticStore {
    by_uri: DashMap<String, BTreeMap<Origin, Vec<Diagnostic>>>,
}

impl DiagnosticStore {
    /// Replaces one origin's diagnostics of `uri`; returns the union to
    /// publish, or `None` when nothing changed.
    pub fn set(
        &self,
        uri: &str,
        origin: Origin,
        diags: Vec<Diagnostic>,
    ) -> Option<Vec<Diagnostic>> {
        let mut entry = self.by_uri.entry(uri.to_owned()).or_default();
        let old = entry.get(&origin).cloned().unwrap_or_default();
        if old == diags {
            return None;
        }
        if diags.is_empty() {
            entry.remove(&origin);
        } else {
            entry.insert(origin, diags);
        }
        Some(entry.values().flatten().cloned().collect())
    }

    /// Every diagnostic of `uri`.
    pub fn all(&self, uri: &str) -> Vec<Diagnostic> {
        self.by_uri
            .get(uri)
            .map(|e| e.values().flatten().cloned().collect())
            .unwrap_or_default()
    }

    /// URIs holding diagnostics of `origin`.
    pub fn uris_with(&self, origin: &Origin) -> Vec<String> {
        self.by_uri
            .iter()
            .filter(|e| e.value().contains_key(origin))
            .map(|e| e.key().clone())
            .collect()
    }

    /// Drops every diagnostic of `uri`; true when there were some.
    pub fn clear(&self, uri: &str) -> bool {
        self.by_uri.remove(uri).is_some_and(|(_, m)| !m.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publishes_the_union_and_skips_repeats() {
        let store = DiagnosticStore::default();
        let d = |m: &str| Diagnostic {
            message: m.into(),
            ..Diagnostic::default()
        };
        assert_eq!(store.set("u", Origin::Run, vec![d("a")]).unwrap().len(), 1);
        assert_eq!(
            store
                .set("u", Origin::Response, vec![d("b")])
                .unwrap()
                .len(),
            2
        );
        assert_eq!(store.set("u", Origin::Response, vec![d("b")]), None);
        assert_eq!(store.set("u", Origin::Run, vec![]).unwrap(), vec![d("b")]);
        assert_eq!(store.uris_with(&Origin::Response), vec!["u".to_owned()]);
        assert!(store.clear("u"));
        assert!(store.all("u").is_empty());
    }
}
