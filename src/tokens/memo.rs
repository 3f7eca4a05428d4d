//! Counts of messages already counted, found again by what was counted.
//!
//! Owns: a message's content key (the encoding and every text the counter reads from it,
//! hashed with xxh3-128) and the in-memory table from keys to exact text counts that one
//! analysis reads from and adds to. Pure: no IO. Keeping the table between runs is
//! `crate::count_cache`'s job.

use std::collections::HashMap;

use xxhash_rust::xxh3::Xxh3;

use super::Encoding;
use crate::session::{Message, Part, Role};

/// A message's content key: equal keys mean the same encoding over the same texts, so the same
/// count.
pub type Key = u128;

/// Bumped whenever what a key covers, or how a count is made from it, changes. The crate's
/// version is hashed too, so counts kept by another release (another counter) are not used.
const KEY_VERSION: &[u8] = b"ctxray-count-key-1\0";

/// The key of `message`'s counted content under `encoding`, or `None` when the message has no
/// text to count (an event record, images only): those cost nothing to count again.
pub fn message_key(message: &Message, encoding: Encoding) -> Option<Key> {
    if message.role == Role::Event {
        return None;
    }
    let mut hasher = Xxh3::new();
    hasher.update(KEY_VERSION);
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(b"\0");
    hasher.update(encoding.name().as_bytes());
    let mut pieces = 0usize;
    for part in &message.parts {
        hash_part(part, &mut hasher, &mut pieces);
    }
    (pieces > 0).then(|| hasher.digest128())
}

/// Feeds the texts `tokens::part_tokens` counts, each with its length so that no two
/// sequences of texts feed the same bytes.
fn hash_part(part: &Part, hasher: &mut Xxh3, pieces: &mut usize) {
    let mut piece = |text: &str| {
        if text.is_empty() {
            return;
        }
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
        *pieces += 1;
    };
    match part {
        Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => piece(text),
        Part::ToolCall {
            name, arguments, ..
        } => {
            piece(name);
            piece(arguments);
        }
        Part::ToolResult { content, .. } => {
            for p in content {
                hash_part(p, hasher, pieces);
            }
        }
        Part::Image(_) | Part::Opaque { .. } => {}
    }
}

type Table = HashMap<Key, u32, foldhash::fast::FixedState>;

/// Text counts known before this analysis (`known`), and those it used (`seen`: every keyed
/// message counted or found, in order, duplicates included).
#[derive(Debug, Default)]
pub struct CountMemo {
    known: Table,
    seen: Vec<(Key, u32)>,
    misses: usize,
}

impl CountMemo {
    pub fn new() -> CountMemo {
        CountMemo::default()
    }

    /// A memo that knows `entries` (a later entry for the same key wins).
    pub fn with_known(entries: impl IntoIterator<Item = (Key, u32)>) -> CountMemo {
        CountMemo {
            known: entries.into_iter().collect(),
            ..CountMemo::default()
        }
    }

    pub fn get(&self, key: Key) -> Option<u32> {
        self.known.get(&key).copied()
    }

    pub fn known_len(&self) -> usize {
        self.known.len()
    }

    /// Records that the message with `key` has `count` text tokens; `hit` when it came from
    /// `known` rather than the counter.
    pub fn note(&mut self, key: Key, count: u32, hit: bool) {
        self.seen.push((key, count));
        if !hit {
            self.misses += 1;
        }
    }

    /// Messages that had to be counted (their key was not known).
    pub fn misses(&self) -> usize {
        self.misses
    }

    /// Every distinct entry this analysis used, sorted by key.
    pub fn used(&self) -> Vec<(Key, u32)> {
        let mut used = self.seen.clone();
        used.sort_unstable_by_key(|e| e.0);
        used.dedup_by_key(|e| e.0);
        used
    }

    /// Whether the entries used are exactly the entries known: then a stored table is still
    /// what it should be.
    pub fn used_all_and_only_known(&self) -> bool {
        self.misses == 0 && self.used().len() == self.known.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Message;

    fn text(role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role, 0);
        m.parts = parts;
        m
    }

    fn t(s: &str) -> Part {
        Part::Text { text: s.into() }
    }

    #[test]
    fn keys_follow_the_texts_and_the_encoding_not_the_part_kinds() {
        let a = text(Role::User, vec![t("hello"), t("world")]);
        let b = text(Role::Assistant, vec![t("hello"), t("world")]);
        let o = Encoding::O200kBase;
        // The count is the same whoever sent the texts, so is the key.
        assert_eq!(message_key(&a, o), message_key(&b, o));
        assert_ne!(message_key(&a, o), message_key(&a, Encoding::Cl100kBase));
        // Lengths are fed: "hello"+"world" is not "hellow"+"orld".
        let c = text(Role::User, vec![t("hellow"), t("orld")]);
        assert_ne!(message_key(&a, o), message_key(&c, o));
        let d = text(Role::User, vec![t("helloworld")]);
        assert_ne!(message_key(&a, o), message_key(&d, o));
    }

    #[test]
    fn messages_without_text_have_no_key() {
        let o = Encoding::O200kBase;
        assert_eq!(message_key(&text(Role::Event, vec![t("x")]), o), None);
        assert_eq!(message_key(&text(Role::User, vec![t("")]), o), None);
        assert_eq!(message_key(&text(Role::User, vec![]), o), None);
        assert!(message_key(&text(Role::User, vec![t("x")]), o).is_some());
    }

    #[test]
    fn the_memo_tells_hits_misses_and_whether_the_table_changed() {
        let mut m = CountMemo::with_known([(1, 10), (2, 20)]);
        assert_eq!(m.get(2), Some(20));
        assert_eq!(m.get(3), None);
        m.note(1, 10, true);
        m.note(2, 20, true);
        m.note(1, 10, true);
        assert_eq!(m.misses(), 0);
        assert!(m.used_all_and_only_known());
        m.note(3, 30, false);
        assert_eq!(m.misses(), 1);
        assert!(!m.used_all_and_only_known());
        assert_eq!(m.used(), vec![(1, 10), (2, 20), (3, 30)]);
    }
}
