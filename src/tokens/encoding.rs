//! The BPE encodings ctxray counts with, and the counter over them.
//!
//! Owns: choosing an encoding by name and counting a text's tokens exactly as tiktoken's
//! `encode_ordinary` does (special-token text is counted as ordinary text).
//!
//! Two backends give the same counts: `bpe-openai` (the fast one, linear on hostile input such as
//! megabytes of one character) counts everything; `tiktoken-rs` stays as the reference that tests
//! and benches compare it against ([`Counter::count_reference`]). Short pre-tokens recur (words,
//! punctuation, indentation), so each thread keeps their counts in a bounded cache; a large text
//! counted a moment ago is found again by its hash (`recent`), and one not seen is counted on
//! every core.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use bpe_openai::Tokenizer;
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

    /// The fast backend's tokenizer; its embedded tables are paged out after the first load
    /// (see `resident`).
    fn fast(self) -> &'static Tokenizer {
        static O200K: std::sync::Once = std::sync::Once::new();
        static CL100K: std::sync::Once = std::sync::Once::new();
        let (tokenizer, loaded) = match self {
            Encoding::O200kBase => (bpe_openai::o200k_base(), &O200K),
            Encoding::Cl100kBase => (bpe_openai::cl100k_base(), &CL100K),
        };
        loaded.call_once(super::resident::release_embedded_tables);
        tokenizer
    }
}

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

/// Bytes of text per thread, at least, when one large text is counted on several.
const PARALLEL_MIN: usize = 1 << 20;

/// `text` in up to `parts` parts of about equal size, each cut just before an ASCII letter that
/// starts a line.
fn cut_at_lines(text: &str, parts: usize) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    for k in 1..parts.max(1) {
        let target = (b.len() * k / parts).max(from + 1);
        let cut = b
            .get(target..)
            .unwrap_or_default()
            .windows(2)
            .position(|w| w[0] == b'\n' && w[1].is_ascii_alphabetic())
            .map(|i| target + i + 1);
        let Some(cut) = cut else { break };
        out.push(&text[from..cut]);
        from = cut;
    }
    out.push(&text[from..]);
    out
}

/// Pre-tokens up to this many bytes have their counts cached.
const PIECE_MAX: usize = 24;
/// Cached pre-tokens per thread and encoding before the cache starts over (a few MB at most).
const CACHE_MAX: usize = 1 << 16;

type PieceCache = HashMap<Box<str>, u32, foldhash::fast::FixedState>;

thread_local! {
    static PIECES: RefCell<[PieceCache; 2]> = RefCell::new(Default::default());
}

/// Counts tokens of texts with one encoding. Cheap to copy; safe to share across threads.
#[derive(Clone, Copy)]
pub struct Counter {
    encoding: Encoding,
    fast: &'static Tokenizer,
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
        if text.len() < super::recent::LARGE {
            return self.count_pieces(text);
        }
        let key = super::recent::key(self.encoding, text);
        if let Some(n) = super::recent::get(key) {
            return n;
        }
        let n = self.count_large(text);
        super::recent::put(key, n);
        n
    }

    /// A large text counted on every core: cut where a line starts with an ASCII letter. No
    /// pre-token spans such a place under either encoding (a newline ends every pattern that
    /// holds one, and no letter pattern starts with one), and each pre-token is counted alone,
    /// so the parts' counts add up to the whole's.
    fn count_large(&self, text: &str) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.count_in_parts(text, cores.min(8).min(text.len() / PARALLEL_MIN))
    }

    fn count_in_parts(&self, text: &str, parts: usize) -> usize {
        let parts = cut_at_lines(text, parts);
        if parts.len() < 2 {
            return self.count_pieces(text);
        }
        crate::par::each(&parts, |part| self.count_pieces(part))
            .into_iter()
            .sum()
    }

    fn count_pieces(&self, text: &str) -> usize {
        PIECES.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut cache[self.encoding as usize];
            let mut total = 0;
            super::split::each_piece(self.encoding, text, |piece| {
                if piece.len() > PIECE_MAX {
                    total += self.fast.bpe.count(piece.as_bytes());
                    return;
                }
                if let Some(&n) = cache.get(piece) {
                    total += n as usize;
                    return;
                }
                let n = self.fast.bpe.count(piece.as_bytes());
                if cache.len() >= CACHE_MAX {
                    cache.clear();
                }
                cache.insert(piece.into(), n as u32);
                total += n;
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

    #[test]
    fn a_text_counted_in_parts_cut_at_lines_counts_as_a_whole() {
        let lines = [
            "plain words here",
            "  indented   code(x, y);",
            "!!!",
            "",
            " ",
            "word's it'll WE'RE",
            "/usr/bin/env",
            "12345 678",
            "\u{00e9}t\u{00e9} caf\u{00e9}",
            "trailing space ",
            "\t\ttabs",
            "\r",
        ];
        let lines: Vec<String> = lines.iter().map(|l| format!("{l}\n")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let text = crate::testing::drawn(3, &lines, 40_000);
        for e in Encoding::ALL {
            let c = Counter::new(e);
            let whole = c.count_reference(&text);
            assert_eq!(c.count_pieces(&text), whole);
            for parts in [2, 3, 8, 64] {
                assert!(cut_at_lines(&text, parts).len() > 1);
                assert_eq!(c.count_in_parts(&text, parts), whole, "{e}, {parts} parts");
            }
        }
    }
}
