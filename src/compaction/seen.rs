//! What a summarizer is shown, as a set of words: so an offline digest quotes only what the
//! framework's summarizer could have summarized (a 500-character preview's tail, the tool
//! names and arguments a placeholder hides, are not in it).
//!
//! Owns: the words of a summarizer input (runs of letters, digits and `_`; JSON and Python
//! escapes such as `\n` or `\u00e9` separate words, as the rendered text would) and clipping a
//! quote at its first word the input does not hold; the words a digest asks about, so that
//! only those of the input are kept. Linear in the input and in each quote.
//! Must not: decide what a digest lists.

use std::borrow::Cow;
use std::cell::RefCell;

use foldhash::HashSet;

/// The words of a summarizer input a digest asks about; or, while a digest is first written,
/// the words it asks about.
pub struct Seen<'a> {
    held: Held<'a>,
}

enum Held<'a> {
    Words(HashSet<Cow<'a, str>>),
    /// Every word asked is recorded; `holds_all` answers yes and `clip` no, so that no answer
    /// ends a search early and every word a digest could ask is asked.
    Asking(RefCell<HashSet<String>>),
}

impl<'a> Seen<'a> {
    /// Every word of the input `pieces` make joined with line breaks, without joining them.
    pub fn of(pieces: &[&'a str]) -> Seen<'a> {
        let mut words = HashSet::default();
        input_words(pieces, |w| {
            words.insert(Cow::Borrowed(w));
            true
        });
        Seen {
            held: Held::Words(words),
        }
    }

    /// A `Seen` that records what it is asked (see `Held::Asking`).
    pub fn asking() -> Seen<'static> {
        Seen {
            held: Held::Asking(RefCell::default()),
        }
    }

    /// The words `asked` (from [`Seen::asking`]) was asked that the input `pieces` holds: the
    /// input is read once, each word looked up in the few asked, not all of its words kept.
    pub fn among(pieces: &[&'a str], asked: Seen) -> Seen<'a> {
        let Held::Asking(asked) = asked.held else {
            return Seen::of(pieces);
        };
        // A word found is asked no more: the rest of the input is looked up in what is still
        // unanswered, and read no further once nothing is.
        let mut asked = asked.into_inner();
        let mut words = HashSet::default();
        input_words(pieces, |w| {
            if asked.remove(w) {
                words.insert(Cow::Borrowed(w));
            }
            !asked.is_empty()
        });
        Seen {
            held: Held::Words(words),
        }
    }

    /// `among` of an input whose pieces are made one at a time (`total`: bytes of the pieces
    /// joined with line breaks), each dropped once read: the words held are copied.
    pub fn among_made<S: AsRef<str>>(
        pieces: impl Iterator<Item = S>,
        total: usize,
        asked: Seen,
    ) -> Seen<'static> {
        // Not asking: every word is kept, as `of` keeps them.
        let (mut asked, every) = match asked.held {
            Held::Asking(asked) => (asked.into_inner(), false),
            Held::Words(_) => (HashSet::default(), true),
        };
        let mut words = HashSet::default();
        input_words_made(pieces, total, |w| {
            if every {
                words.insert(Cow::Owned(w.to_string()));
                return true;
            }
            if asked.remove(w) {
                words.insert(Cow::Owned(w.to_string()));
            }
            !asked.is_empty()
        });
        Seen {
            held: Held::Words(words),
        }
    }

    fn holds(&self, word: &str) -> bool {
        match &self.held {
            Held::Words(words) => words.contains(word),
            Held::Asking(asked) => {
                let mut asked = asked.borrow_mut();
                if !asked.contains(word) {
                    asked.insert(word.to_string());
                }
                true
            }
        }
    }

    /// Whether every word of `text` is in the input (and it has one).
    pub fn holds_all(&self, text: &str) -> bool {
        let mut any = false;
        for w in words(text) {
            if !self.holds(w) {
                return false;
            }
            any = true;
        }
        any
    }

    /// How many words `text` has.
    pub fn word_count(text: &str) -> usize {
        words(text).count()
    }

    /// `text` up to its first word the input does not hold, with `…` when cut; `None` when
    /// not even its first word is held.
    pub fn clip(&self, text: &str) -> Option<String> {
        let mut end = text.len();
        let mut cut = false;
        let mut held = false;
        for (at, w) in word_spans(text) {
            if !self.holds(w) {
                end = at;
                cut = true;
                break;
            }
            held = true;
        }
        if !held || matches!(self.held, Held::Asking(_)) {
            return None;
        }
        let kept = text[..end].trim_end();
        let kept = kept.strip_suffix('…').unwrap_or(kept);
        Some(if cut || text.ends_with('…') {
            format!("{}…", kept.trim_end())
        } else {
            kept.to_string()
        })
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    word_spans(text).map(|(_, w)| w)
}

/// `(byte offset, word)` of each word of a plain text (a quote).
fn word_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || loop {
        let (start, c) = chars.next()?;
        if !is_word_char(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(at, n)) = chars.peek() {
            if !is_word_char(n) {
                break;
            }
            end = at + n.len_utf8();
            chars.next();
        }
        return Some((start, &text[start..end]));
    })
}

/// Each word of the input `pieces` make joined with line breaks, where a backslash escape
/// (`\n`, `\t`, `\r`, `\b`, `\f`, `\u` and four characters, `\x` and two, when the input has
/// that many bytes left) ends a word and is no part of the next. An escape may run over a line
/// break into the next piece; a word never does (a line break is no word character). Stops
/// when `each` says so (`false`).
fn input_words<'a>(pieces: &[&'a str], mut each: impl FnMut(&'a str) -> bool) {
    let total = pieces.iter().map(|p| p.len()).sum::<usize>() + pieces.len().saturating_sub(1);
    let mut reading = Reading::of(total);
    for (i, piece) in pieces.iter().enumerate() {
        if !reading.piece(piece, i + 1 < pieces.len(), &mut each) {
            return;
        }
    }
}

/// `input_words` of pieces made one at a time (each dropped once read), `total` bytes
/// joined.
fn input_words_made<S: AsRef<str>>(
    pieces: impl Iterator<Item = S>,
    total: usize,
    mut each: impl FnMut(&str) -> bool,
) {
    let mut reading = Reading::of(total);
    let mut pieces = pieces.peekable();
    while let Some(piece) = pieces.next() {
        let more = pieces.peek().is_some();
        if !reading.piece(piece.as_ref(), more, &mut each) {
            return;
        }
    }
}

/// Where `input_words` is in the joined input.
struct Reading {
    /// Bytes of the joined input.
    total: usize,
    /// Bytes of the joined input before the next piece.
    before: usize,
    /// Characters an escape still skips.
    skip: usize,
    /// Whether a piece was read (the next one follows a line break).
    started: bool,
}

impl Reading {
    fn of(total: usize) -> Reading {
        Reading {
            total,
            before: 0,
            skip: 0,
            started: false,
        }
    }

    /// Reads the next piece (`more`: another follows it); `false` when `each` said stop.
    fn piece<'p>(
        &mut self,
        piece: &'p str,
        more: bool,
        each: &mut impl FnMut(&'p str) -> bool,
    ) -> bool {
        if self.started {
            self.skip = self.skip.saturating_sub(1);
            self.before += 1;
        }
        self.started = true;
        let bytes = piece.as_bytes();
        // The character at a byte where one starts, and its length: ASCII is read as a byte.
        let char_at = |at: usize| -> (char, usize) {
            match bytes[at] {
                b if b < 0x80 => (char::from(b), 1),
                _ => {
                    let c = piece[at..].chars().next().unwrap_or_default();
                    (c, c.len_utf8().max(1))
                }
            }
        };
        let mut at = 0;
        while at < bytes.len() {
            let (c, len) = char_at(at);
            if self.skip > 0 {
                self.skip -= 1;
                at += len;
                continue;
            }
            if c == '\\' {
                let left = self.total.saturating_sub(self.before + at);
                // The character after the backslash: in this piece, or the line break.
                let next = if at + 1 < bytes.len() {
                    Some(char_at(at + 1).0)
                } else if more {
                    Some('\n')
                } else {
                    None
                };
                self.skip = match next {
                    Some('n' | 't' | 'r' | 'b' | 'f') => 1,
                    Some('u') if left >= 6 => 5,
                    Some('x') if left >= 4 => 3,
                    _ => 0,
                };
                at += 1;
                continue;
            }
            if !is_word_char(c) {
                at += len;
                continue;
            }
            let start = at;
            at += len;
            while at < bytes.len() {
                let (n, len) = char_at(at);
                if !is_word_char(n) {
                    break;
                }
                at += len;
            }
            if !each(&piece[start..at]) {
                return false;
            }
        }
        self.before += piece.len();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_is_cut_where_the_input_stops_holding_its_words() {
        let seen = Seen::of(&["Observation: ran cargo test\\nfailed: header (500 chars)"]);
        assert_eq!(
            seen.clip("ran cargo test failed: header mismatch in src/a.rs")
                .as_deref(),
            Some("ran cargo test failed: header…")
        );
        assert_eq!(seen.clip("cargo test").as_deref(), Some("cargo test"));
        assert_eq!(seen.clip("mismatch first"), None);
        assert!(!seen.holds_all("cargo_test"));
        assert!(seen.holds_all("test failed"));
        assert!(!seen.holds_all("   "));
    }

    #[test]
    fn escapes_separate_words_in_the_input_only() {
        let seen = Seen::of(&[r"{'text': 'caf\u00e9 ok\tdone'}"]);
        assert!(seen.holds_all("caf ok done"));
        assert!(!seen.holds_all("u00e9"));
        assert_eq!(
            words(r"a\nb").collect::<Vec<_>>(),
            vec!["a", "nb"],
            "a quote is plain text"
        );
    }

    /// The input's words as they were read before the input came in pieces: the pieces
    /// joined, then scanned.
    fn joined_words(text: &str) -> Vec<&str> {
        let bytes = text.as_bytes();
        let mut chars = text.char_indices().peekable();
        let mut out = Vec::new();
        while let Some((start, c)) = chars.next() {
            if c == '\\' {
                let skip = match chars.peek().map(|&(_, n)| n) {
                    Some('n' | 't' | 'r' | 'b' | 'f') => 1,
                    Some('u') if bytes.len() >= start + 6 => 5,
                    Some('x') if bytes.len() >= start + 4 => 3,
                    _ => 0,
                };
                for _ in 0..skip {
                    chars.next();
                }
                continue;
            }
            if !is_word_char(c) {
                continue;
            }
            let mut end = start + c.len_utf8();
            while let Some(&(at, n)) = chars.peek() {
                if !is_word_char(n) {
                    break;
                }
                end = at + n.len_utf8();
                chars.next();
            }
            out.push(&text[start..end]);
        }
        out
    }

    proptest::proptest! {
        /// The words of the pieces are those of the pieces joined, escapes that run over a
        /// line break into the next piece included.
        #[test]
        fn the_pieces_hold_the_words_of_the_joined_input(
            pieces in proptest::collection::vec("[a\\\\unxtb1é_ \n.]{0,9}", 0..6)
        ) {
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let mut got = Vec::new();
            input_words(&refs, |w| {
                got.push(w.to_string());
                true
            });
            let joined = pieces.join("\n");
            let want: Vec<String> = joined_words(&joined).into_iter().map(str::to_string).collect();
            proptest::prop_assert_eq!(&got, &want);
            // Made one at a time, each piece gone once read: the same words.
            let mut made = Vec::new();
            input_words_made(pieces.iter().cloned(), joined.len(), |w| {
                made.push(w.to_string());
                true
            });
            proptest::prop_assert_eq!(made, want);
        }
    }
}
