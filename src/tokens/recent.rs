//! Counts of large texts counted a moment ago, kept for the whole process: a summarizer request
//! is counted by the plan that builds it, again by the replay that records it, again by the
//! report that shows it, and a large one costs as much as a report of its size each time.
//!
//! Owns: a small table from a large text's key (its encoding and bytes hashed with xxh3-128,
//! far cheaper than counting) to its exact count, the oldest entry making room for the newest.
//! Must not: count anything itself, or keep texts.

use std::sync::Mutex;

use xxhash_rust::xxh3::Xxh3;

use super::Encoding;

/// Texts from this many bytes up are remembered.
pub const LARGE: usize = 256 * 1024;
/// Entries kept.
const KEEP: usize = 32;

static RECENT: Mutex<Vec<(u128, usize)>> = Mutex::new(Vec::new());

/// The key of `text` under `encoding`.
pub fn key(encoding: Encoding, text: &str) -> u128 {
    let mut h = Xxh3::new();
    h.update(encoding.name().as_bytes());
    h.update(b"\0");
    h.update(text.as_bytes());
    h.digest128()
}

/// The count remembered for `key`, if any.
pub fn get(key: u128) -> Option<usize> {
    let table = RECENT.lock().ok()?;
    table.iter().find(|(k, _)| *k == key).map(|(_, n)| *n)
}

/// Remembers `count` for `key`.
pub fn put(key: u128, count: usize) {
    let Ok(mut table) = RECENT.lock() else {
        return;
    };
    if table.iter().any(|(k, _)| *k == key) {
        return;
    }
    if table.len() >= KEEP {
        table.remove(0);
    }
    table.push((key, count));
}

#[cfg(test)]
mod tests {
    use super::super::Counter;
    use super::*;

    #[test]
    fn a_large_text_counted_again_is_answered_by_its_own_encoding_and_bytes() {
        let text = "fn main() { println!(\"héllo\"); } // ".repeat(LARGE / 30);
        assert!(text.len() >= LARGE);
        for encoding in Encoding::ALL {
            let c = Counter::new(encoding);
            let first = c.count(&text);
            assert_eq!(get(key(encoding, &text)), Some(first));
            assert_eq!(c.count(&text), first);
            assert_eq!(first, c.count_reference(&text));
        }
        let mut other = text.clone();
        other.push('x');
        let c = Counter::new(Encoding::O200kBase);
        assert_eq!(c.count(&other), c.count_reference(&other));
    }
}
