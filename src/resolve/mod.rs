//! Resolve: locate every edit of one file and build its new text.

use crate::engine::{FileChange, MatchMode, Options};
use crate::error::EditError;
use crate::model::Edit;
use crate::workspace::{FileSource, WorkspacePath};

/// Matching settings derived from [`Options`].
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveConfig {
    /// Tolerant or exact.
    pub match_mode: MatchMode,
    /// Fuzzy threshold, when on.
    pub fuzzy: Option<f64>,
    /// Per-edit fuzzy time budget.
    pub fuzzy_deadline: std::time::Duration,
}

impl ResolveConfig {
    /// From the run options.
    pub fn from_options(options: &Options) -> ResolveConfig {
        ResolveConfig {
            match_mode: options.match_mode,
            fuzzy: options.fuzzy,
            fuzzy_deadline: options.fuzzy_deadline,
        }
    }
}

/// What resolving one file's edits gives.
#[derive(Debug)]
pub enum FileResult {
    /// Every edit resolved.
    Changed(Vec<FileChange>),
    /// Nothing can be applied to this file.
    Failed(Vec<EditError>),
    /// Some edits resolved (the change holds only those), some failed.
    Partial(Vec<FileChange>, Vec<EditError>),
}

/// Resolves the edits of one file, in payload order.
pub fn resolve_file(
    _path: &WorkspacePath,
    _edits: &[&Edit],
    _source: &dyn FileSource,
    _config: &ResolveConfig,
) -> FileResult {
    FileResult::Changed(Vec::new())
}
