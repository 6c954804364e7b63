//! Shell commands a response suggests (`git rm`, `git mv`, `mkdir -p`). Scaffolding.

/// The suggested commands, in payload order. Never run, only reported.
pub fn find(_payload: &str) -> Vec<String> {
    Vec::new()
}
