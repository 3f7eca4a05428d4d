//! Mapping a slice on every core, the results in the slice's order: the slice cut into small
//! runs that idle threads take in turn, so one heavy item does not leave a core waiting.
//!
//! Owns: that one loop. Must not: know what is mapped.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads used at most.
const THREADS_MAX: usize = 8;

/// The cores this process may use, asked once: the standard library reads the scheduler's
/// affinity and the cgroup's quota files at every call, a cost paid by every small job of a
/// replay otherwise.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `items` mapped with `f`, in order, on up to every core once there are at least `min` items;
/// `done(n)` is told of each run of `n` items mapped.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&T) -> R + Sync,
    done: impl Fn(usize) + Sync,
) -> Vec<R> {
    let threads = cores().min(THREADS_MAX);
    map_on(items, min, threads, f, done)
}

/// `f` of each of `parts` (a few large ones, already cut to the cores), each part on a thread
/// of its own, in order.
pub fn each<T: Sync, R: Send>(parts: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_on(parts, 2, parts.len().min(THREADS_MAX), f, |_| {})
}

fn map_on<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    done: impl Fn(usize) + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < min.max(2) {
        let out = items.iter().map(&f).collect();
        done(items.len());
        return out;
    }
    let chunk = items.len().div_ceil(threads * 8);
    let chunks: Vec<&[T]> = items.chunks(chunk).collect();
    let next = AtomicUsize::new(0);
    let mut runs: Vec<(usize, Vec<R>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(run) = chunks.get(i) else { break };
                        mine.push((i, run.iter().map(&f).collect::<Vec<R>>()));
                        done(run.len());
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    runs.sort_by_key(|(i, _)| *i);
    runs.into_iter().flat_map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_slice_s_order_whatever_the_threads() {
        let items: Vec<u64> = (0..10_000).collect();
        let seen = AtomicUsize::new(0);
        for threads in [1, 2, 3, 8] {
            seen.store(0, Ordering::Relaxed);
            let got = map_on(
                &items,
                10,
                threads,
                |x| x * 3,
                |n| {
                    seen.fetch_add(n, Ordering::Relaxed);
                },
            );
            assert_eq!(
                got,
                items.iter().map(|x| x * 3).collect::<Vec<_>>(),
                "{threads}"
            );
            assert_eq!(seen.load(Ordering::Relaxed), items.len());
        }
    }
}
