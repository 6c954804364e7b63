//! Bench helpers: time on the CPU, for machines shared with other jobs.

use std::time::{Duration, Instant};

/// Nanoseconds this thread has run on a CPU, if the platform tells.
fn thread_cpu_ns() -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    let secs = u64::try_from(now.tv_sec).ok()?;
    let nanos = u64::try_from(now.tv_nsec).ok()?;
    (status == 0).then_some(secs * 1_000_000_000 + nanos)
}

/// Runs `routine` `iters` times and gives the CPU time it took (the wall
/// time where the CPU time is not available): on a loaded machine, time
/// spent waiting for a CPU is not the code's.
pub fn cpu_time<T>(iters: u64, mut routine: impl FnMut() -> T) -> Duration {
    let (wall, cpu) = (Instant::now(), thread_cpu_ns());
    for _ in 0..iters {
        std::hint::black_box(routine());
    }
    match (cpu, thread_cpu_ns()) {
        (Some(start), Some(end)) => Duration::from_nanos(end - start),
        _ => wall.elapsed(),
    }
}
