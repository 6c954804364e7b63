//! Independent work spread over the machine's cores: the files of a
//! payload are resolved, and their changes checked, side by side.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The cores this process may use (asked once: on Linux it reads the
/// cgroup's CPU quota).
pub fn count() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of every item, in order, computed on every core. Items are handed
/// out one at a time from a shared counter (their costs differ: a file
/// with one edit beside one with a hundred). A panic in `f` is raised
/// again here, never taken for an empty result.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // One item needs no thread, nor the count of cores (a few reads of
    // the cgroup's files: a small run's process would pay them).
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let threads = count().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    // The calling thread takes items too: one thread fewer to start and
    // join per call, and its results are freed where they were made.
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for w in workers {
            done.extend(w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        done
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// `a()` and `b()`, side by side when this process may use more than one
/// core (`b` on a thread of its own), else one after the other. A panic
/// in either is raised again here.
pub fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    if count() <= 1 {
        let a = a();
        return (a, b());
    }
    std::thread::scope(|scope| {
        let b = scope.spawn(b);
        let a = a();
        (a, b.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(
            map(&items, |i| i * 2),
            (0..1000).map(|i| i * 2).collect::<Vec<_>>()
        );
        assert_eq!(map(&[] as &[usize], |i| *i), Vec::<usize>::new());
    }

    #[test]
    fn join_gives_both_results() {
        let items: Vec<usize> = (0..100).collect();
        let (a, b) = join(|| items.iter().sum::<usize>(), || items.len());
        assert_eq!((a, b), (4950, 100));
    }

    #[test]
    #[should_panic(expected = "the second")]
    fn a_panic_in_join_is_raised_again() {
        join(|| 1, || -> usize { panic!("the second") });
    }

    #[test]
    #[should_panic(expected = "item 7")]
    fn a_panic_is_raised_again() {
        let items: Vec<usize> = (0..20).collect();
        map(&items, |&i| {
            if i == 7 {
                panic!("item 7");
            }
            i
        });
    }
}
