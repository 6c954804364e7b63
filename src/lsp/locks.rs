//! One async lock per file, so that `llm-edit.apply` runs one at a time on
//! any file: a plan is checked and sent, and the client's answer awaited,
//! before another plan of that file is checked. Two applies planned on the
//! same text can then not both go out: the second finds the text changed.
//!
//! Locks are keyed by absolute path (one file may have several URIs) and
//! taken in path order, so two applies over overlapping sets of files
//! cannot wait for each other. An entry stays for the server's lifetime
//! (a path and an empty mutex per file ever applied).

use std::path::PathBuf;
use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::{Mutex, OwnedMutexGuard};

/// The per-file locks of a server.
#[derive(Debug, Default)]
pub struct FileLocks {
    locks: DashMap<PathBuf, Arc<Mutex<()>>>,
}

/// Held locks; dropping them releases the files.
#[derive(Debug)]
pub struct Held {
    _guards: Vec<OwnedMutexGuard<()>>,
}

impl FileLocks {
    /// Waits until every file of `paths` is free, and holds them.
    pub async fn lock(&self, paths: impl IntoIterator<Item = PathBuf>) -> Held {
        let mut paths: Vec<PathBuf> = paths.into_iter().collect();
        paths.sort();
        paths.dedup();
        let mut guards = Vec::with_capacity(paths.len());
        for path in paths {
            let lock = self.locks.entry(path).or_default().clone();
            guards.push(lock.lock_owned().await);
        }
        Held { _guards: guards }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_file_is_held_by_one_at_a_time_in_any_order() {
        let locks = Arc::new(FileLocks::default());
        let (a, b) = (PathBuf::from("/r/a"), PathBuf::from("/r/b"));
        let held = locks.lock([b.clone(), a.clone()]).await;
        let waiting = {
            let locks = locks.clone();
            let (a, b) = (a.clone(), b.clone());
            tokio::spawn(async move { locks.lock([a, b]).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        // Another file is free meanwhile.
        drop(locks.lock([PathBuf::from("/r/c")]).await);
        drop(held);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("released")
            .unwrap();
    }
}
