//! A workload of `../shared/bench` held in memory: its payload and its
//! `before/` files behind a [`FileSource`], as `benches/engine.rs` and
//! `examples/phases.rs` run the engine on it (included by `#[path]`: the
//! other benches have no use for it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use llm_edit_lsp::text::encoding::Encoding;
use llm_edit_lsp::workspace::{FileSource, LoadError, SourceText, WorkspacePath};

/// Files held in memory, keyed by workspace path.
pub struct MemoryFiles {
    pub root: PathBuf,
    pub files: BTreeMap<WorkspacePath, Arc<SourceText>>,
}

impl FileSource for MemoryFiles {
    fn root(&self) -> &Path {
        &self.root
    }

    fn load(&self, path: &WorkspacePath) -> Result<Option<Arc<SourceText>>, LoadError> {
        Ok(self.files.get(path).cloned())
    }
}

/// One workload: its payload and its `before/` files in memory.
pub struct Workload {
    pub payload: String,
    pub files: MemoryFiles,
}

impl Workload {
    /// Loads `DIR/payload.md` and every file under `DIR/before/`.
    pub fn load(dir: &Path) -> Workload {
        let root = PathBuf::from("/bench");
        let mut files = BTreeMap::new();
        let before = dir.join("before");
        for file in files_under(&before) {
            let relative = file.strip_prefix(&before).expect("under before/");
            let path = WorkspacePath::new(&root, &relative.to_string_lossy()).expect("a path");
            let text = std::fs::read_to_string(&file).expect("a UTF-8 file");
            files.insert(path, Arc::new(SourceText::from_disk(text, Encoding::Utf8)));
        }
        let payload = std::fs::read_to_string(dir.join("payload.md")).expect("payload.md");
        Workload {
            payload,
            files: MemoryFiles { root, files },
        }
    }
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
