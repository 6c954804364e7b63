//! Shared test helpers: an in-memory [`FileSource`] (a root path plus a map
//! of file bytes), decoded exactly as the disk source decodes files.

#![allow(dead_code)] // Each test crate uses its own part of the helpers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use llm_edit_lsp::engine::{self, Options, Outcome};
use llm_edit_lsp::text::encoding;
use llm_edit_lsp::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// Files held in memory under a made-up root, and the snapshots the LLM
/// saw of some of them (for `~M` merges).
#[derive(Clone, Debug, Default)]
pub struct MemFiles {
    root: PathBuf,
    files: HashMap<String, Vec<u8>>,
    snapshots: HashMap<String, Arc<str>>,
}

impl MemFiles {
    /// No files, under `/mem/root`.
    pub fn new() -> MemFiles {
        MemFiles {
            root: PathBuf::from("/mem/root"),
            files: HashMap::new(),
            snapshots: HashMap::new(),
        }
    }

    /// These files (workspace-relative path, text).
    pub fn of(files: &[(&str, String)]) -> MemFiles {
        files.iter().fold(MemFiles::new(), |m, (path, text)| {
            m.with(path, text.as_bytes())
        })
    }

    /// Adds the snapshot the LLM saw of `path`.
    pub fn with_snapshot(mut self, path: &str, text: impl Into<Arc<str>>) -> MemFiles {
        self.snapshots.insert(path.to_string(), text.into());
        self
    }

    /// Adds a file (workspace-relative path) with these bytes.
    pub fn with(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> MemFiles {
        self.files.insert(path.to_string(), bytes.into());
        self
    }

    /// Runs the engine on `payload` against these files.
    pub fn run(&self, payload: &str, options: &Options) -> Outcome {
        engine::run(payload, options, self)
    }
}

impl FileSource for MemFiles {
    fn root(&self) -> &Path {
        &self.root
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        let Some(bytes) = self.files.get(path.as_str()) else {
            return Ok(None);
        };
        let (text, encoding) = encoding::decode(bytes).map_err(LoadError::Decode)?;
        Ok(Some(Arc::new(SourceText::from_disk(text, encoding))))
    }

    fn snapshot(&self, path: &WorkspacePath) -> Option<Arc<str>> {
        self.snapshots.get(path.as_str()).cloned()
    }
}
