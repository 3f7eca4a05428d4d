//! Counts a caller derives from a text, remembered by the text's hash for the whole process:
//! a preset that re-plans a growing history (a replay plans it at every compaction, and again
//! on the history the compaction left) counts the same message texts each time, and counting
//! costs a hundred times what hashing does.
//!
//! Owns: a table from (what was counted, the encoding, the text hashed with xxh3-128) to the
//! count, emptied when full. Must not: count anything itself, or keep texts.

use std::collections::HashMap;
use std::sync::Mutex;

use xxhash_rust::xxh3::Xxh3;

use super::Encoding;

/// Texts shorter than this are counted again: hashing and locking would cost about as much.
pub const WORTH: usize = 256;
/// Entries kept before the table starts over.
const KEEP: usize = 1 << 17;

static TABLE: Mutex<Option<HashMap<u128, usize>>> = Mutex::new(None);

/// The count `count` makes of `text`, taken from the table when `what` under `encoding` was
/// counted for the same bytes before. `what` names the way of counting (two callers that count
/// a text differently must use different names).
pub fn remembered(
    what: &str,
    encoding: Encoding,
    text: &str,
    count: impl FnOnce() -> usize,
) -> usize {
    if text.len() < WORTH {
        return count();
    }
    let mut h = Xxh3::new();
    h.update(what.as_bytes());
    h.update(b"\0");
    h.update(encoding.name().as_bytes());
    h.update(b"\0");
    h.update(text.as_bytes());
    let key = h.digest128();
    if let Some(n) = TABLE
        .lock()
        .ok()
        .and_then(|t| t.as_ref().and_then(|t| t.get(&key).copied()))
    {
        return n;
    }
    let n = count();
    if let Ok(mut table) = TABLE.lock() {
        let table = table.get_or_insert_with(HashMap::new);
        if table.len() >= KEEP {
            table.clear();
        }
        table.insert(key, n);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_taken_again_only_for_the_same_way_encoding_and_bytes() {
        let text = "fn main() { println!(\"remembered\"); }\n".repeat(20);
        let mut calls = 0;
        let mut count = |n: usize| {
            calls += 1;
            n
        };
        assert_eq!(remembered("t1", Encoding::O200kBase, &text, || count(7)), 7);
        assert_eq!(remembered("t1", Encoding::O200kBase, &text, || count(8)), 7);
        assert_eq!(remembered("t2", Encoding::O200kBase, &text, || count(9)), 9);
        assert_eq!(
            remembered("t1", Encoding::Cl100kBase, &text, || count(10)),
            10
        );
        let other = format!("{text}x");
        assert_eq!(
            remembered("t1", Encoding::O200kBase, &other, || count(11)),
            11
        );
        assert_eq!(
            remembered("t1", Encoding::O200kBase, "short", || count(12)),
            12
        );
        assert_eq!(
            remembered("t1", Encoding::O200kBase, "short", || count(13)),
            13
        );
        assert_eq!(calls, 6);
    }
}
