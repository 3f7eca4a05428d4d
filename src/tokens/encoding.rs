//! The BPE encodings ctxray counts with, and the counter over them.
//!
//! Owns: choosing an encoding by name and counting a text's tokens exactly as tiktoken's
//! `encode_ordinary` does (special-token text is counted as ordinary text).
//!
//! Two backends give the same counts: `bpe-openai` (the fast one, linear on hostile input such as
//! megabytes of one character) counts everything; `tiktoken-rs` stays as the reference that tests
//! and benches compare it against ([`Counter::count_reference`]). Short pre-tokens recur (words,
//! punctuation, indentation), so each thread keeps their counts in a bounded cache. A long text is
//! cut into parts by its content (`parts`); a part counted before, in this text or another, is
//! found again by its hash (`remember`), and the others are counted on every core.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use tiktoken_rs::CoreBPE;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    fn reference(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// Loads this encoding's tables on a thread of their own, so that whoever counts later
    /// finds them ready, and their load's passing peak of memory comes early, while little
    /// else is held.
    pub fn warm(self) {
        std::thread::spawn(move || {
            self.fast();
        });
    }

    /// The fast backend's byte-pair tables (pre-tokens are split by `split`); the embedded
    /// tables are paged out after the first load (see `resident`).
    fn fast(self) -> &'static BytePairEncoding {
        static O200K: std::sync::OnceLock<BytePairEncoding> = std::sync::OnceLock::new();
        static CL100K: std::sync::OnceLock<BytePairEncoding> = std::sync::OnceLock::new();
        let (cell, embedded) = match self {
            Encoding::O200kBase => (&O200K, O200K_TABLES),
            Encoding::Cl100kBase => (&CL100K, CL100K_TABLES),
        };
        cell.get_or_init(|| {
            #[allow(clippy::expect_used, reason = "tables made by the build")]
            let tables = rmp_serde::from_slice(embedded).expect("the embedded tables deserialize");
            super::resident::release_embedded_tables();
            tables
        })
    }
}

/// Each encoding's byte-pair tables as `bpe-openai` makes them, less the two automata counting
/// never reads (see the build script).
const O200K_TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.lean"));
const CL100K_TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.lean"));

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Encoding, String> {
        match s {
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            _ => Err(format!(
                "unknown tokenizer `{s}`; expected o200k_base or cl100k_base"
            )),
        }
    }
}

/// Texts from this many bytes up are counted in parts, each remembered.
const LONG: usize = 64 << 10;
/// Bytes of text, at least, before its parts are counted on several threads.
const PARALLEL_MIN: usize = 1 << 20;

/// Pre-tokens up to this many bytes have their counts cached.
const PIECE_MAX: usize = 24;
/// Pre-tokens up to this many bytes are cached under their bytes packed in an integer.
const SHORT_MAX: usize = 15;
/// Cached pre-tokens per thread, encoding and table before the table starts over (a few MB at
/// most).
const CACHE_MAX: usize = 1 << 16;

/// Counts of the pre-tokens of one encoding seen on this thread: most are words of a few
/// bytes, kept under those bytes and their length packed in a `u128` (no string to hash or
/// compare); the longer ones under their text.
#[derive(Default)]
struct PieceCache {
    short: HashMap<u128, u32, foldhash::fast::FixedState>,
    long: HashMap<Box<str>, u32, foldhash::fast::FixedState>,
}

impl PieceCache {
    /// The count of `piece` (at most [`PIECE_MAX`] bytes), counted by `count` when not known.
    fn get_or_count(&mut self, piece: &str, count: impl FnOnce() -> usize) -> usize {
        if piece.len() <= SHORT_MAX {
            return cached(&mut self.short, packed(piece), count);
        }
        if let Some(&n) = self.long.get(piece) {
            return n as usize;
        }
        cached(&mut self.long, piece.into(), count)
    }
}

fn cached<K: std::hash::Hash + Eq>(
    table: &mut HashMap<K, u32, foldhash::fast::FixedState>,
    key: K,
    count: impl FnOnce() -> usize,
) -> usize {
    if let Some(&n) = table.get(&key) {
        return n as usize;
    }
    let n = count();
    if table.len() >= CACHE_MAX {
        table.clear();
    }
    table.insert(key, n as u32);
    n
}

/// The bytes of a text of at most [`SHORT_MAX`] bytes, little-endian, and its length in the
/// last byte; read in at most two overlapping loads per half, not copied byte by byte.
fn packed(piece: &str) -> u128 {
    let b = piece.as_bytes();
    let len = b.len();
    let word = |at: usize| {
        b.get(at..at + 8).map_or(0, |w| {
            u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
        })
    };
    let half = |at: usize| {
        b.get(at..at + 4).map_or(0, |w| {
            u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        })
    };
    let (lo, hi) = if len >= 8 {
        // The last eight bytes, shifted down to the ones after the first eight.
        let tail = word(len - 8)
            .checked_shr(8 * (16 - len) as u32)
            .unwrap_or(0);
        (word(0), tail)
    } else if len >= 4 {
        (half(0) | (half(len - 4) >> (8 * (8 - len))) << 32, 0)
    } else if len > 0 {
        // The first, middle and last bytes are all of them.
        let byte = |i: usize| u64::from(b[i]) << (8 * i);
        (byte(0) | byte(len / 2) | byte(len - 1), 0)
    } else {
        (0, 0)
    };
    u128::from(lo) | u128::from(hi | (len as u64) << 56) << 64
}

thread_local! {
    static PIECES: RefCell<[PieceCache; 2]> = RefCell::new(Default::default());
}

/// Counts tokens of texts with one encoding. Cheap to copy; safe to share across threads.
#[derive(Clone, Copy)]
pub struct Counter {
    encoding: Encoding,
    fast: &'static BytePairEncoding,
}

impl fmt::Debug for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counter")
            .field("encoding", &self.encoding)
            .finish()
    }
}

impl Counter {
    pub fn new(encoding: Encoding) -> Counter {
        Counter {
            encoding,
            fast: encoding.fast(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens in `text`, as tiktoken's `encode_ordinary` counts them (the fast backend).
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        if text.len() < LONG {
            return self.count_pieces(text);
        }
        self.count_parts(&super::parts::content_parts(text), text.len())
    }

    /// The sum of the counts of `parts` (of a text of `bytes`), each part known before taken
    /// from `remember`, the others counted on every core for a text of a megabyte or more.
    fn count_parts(&self, parts: &[&str], bytes: usize) -> usize {
        let one =
            |part: &&str| super::remembered("bpe", self.encoding, part, || self.count_pieces(part));
        if bytes < PARALLEL_MIN || parts.len() < 2 {
            return parts.iter().map(one).sum();
        }
        crate::par::map(parts, 1, one, |_| {}).into_iter().sum()
    }

    fn count_pieces(&self, text: &str) -> usize {
        PIECES.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut cache[self.encoding as usize];
            let mut total = 0;
            super::split::each_piece(self.encoding, text, |piece| {
                if piece.len() > PIECE_MAX {
                    total += self.fast.count(piece.as_bytes());
                } else {
                    total += cache.get_or_count(piece, || self.fast.count(piece.as_bytes()));
                }
            });
            total
        })
    }

    /// The same count by `tiktoken-rs`, the reference: slower, and super-linear on one huge
    /// pre-token. For tests and benches that check [`Counter::count`] against it.
    pub fn count_reference(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.encoding.reference().encode_ordinary(text).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed key is the text's bytes and its length, so two texts share one only when equal.
    #[test]
    fn a_short_piece_packs_to_its_bytes_and_length() {
        for len in 0..=SHORT_MAX {
            let text: String = (0..len).map(|i| char::from(b'a' + i as u8)).collect();
            let mut bytes = [0u8; 16];
            bytes[..len].copy_from_slice(text.as_bytes());
            bytes[15] = len as u8;
            assert_eq!(packed(&text), u128::from_le_bytes(bytes), "{text:?}");
        }
        // Any bytes: each length is read by its own loads.
        for text in [
            "\u{1}\u{7f}é日",
            "é",
            "日本語のテ",
            "a\u{0}b\u{0}c\u{0}d\u{0}é",
        ] {
            let mut bytes = [0u8; 16];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            bytes[15] = text.len() as u8;
            assert_eq!(packed(text), u128::from_le_bytes(bytes), "{text:?}");
        }
        let same_bytes = ["a", "a\0", "a\0\0\0\0\0\0\0\0\0"];
        let keys: std::collections::HashSet<u128> = same_bytes.iter().map(|t| packed(t)).collect();
        assert_eq!(keys.len(), same_bytes.len());
    }

    #[test]
    fn a_long_text_counted_in_parts_counts_as_a_whole() {
        let lines = crate::testing::hostile_lines();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        // Cut at every place a cut can go: the parts' counts add up to the whole's.
        let text = crate::testing::drawn(3, &lines, 40_000);
        let parts = super::super::parts::cut_everywhere(&text, 16);
        assert!(parts.len() > 100, "{} parts", parts.len());
        for e in Encoding::ALL {
            let c = Counter::new(e);
            let sum: usize = parts.iter().map(|p| c.count_pieces(p)).sum();
            assert_eq!(sum, c.count_reference(&text), "{e}");
        }
        for (seed, bytes) in [(3, 100_000), (4, 1_500_000)] {
            // Numbered, so that the places a cut can go look different.
            let text: String = crate::testing::drawn(seed, &lines, bytes)
                .split_inclusive('\n')
                .enumerate()
                .map(|(i, l)| format!("{} {i}\n", l.trim_end_matches('\n')))
                .collect();
            let parts = super::super::parts::content_parts(&text);
            assert!(parts.len() > 2, "{} parts", parts.len());
            for e in Encoding::ALL {
                let c = Counter::new(e);
                let whole = c.count_reference(&text);
                assert_eq!(c.count_pieces(&text), whole);
                assert_eq!(c.count(&text), whole, "{e}, {bytes} bytes");
                // Again, from the remembered parts.
                assert_eq!(c.count(&text), whole, "{e}, {bytes} bytes, remembered");
            }
        }
    }
}
