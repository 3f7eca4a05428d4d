//! What a summarizer is shown, as a set of words: so an offline digest quotes only what the
//! framework's summarizer could have summarized (a 500-character preview's tail, the tool
//! names and arguments a placeholder hides, are not in it).
//!
//! Owns: the words of a summarizer input (runs of letters, digits and `_`; JSON and Python
//! escapes such as `\n` or `\u00e9` separate words, as the rendered text would) and clipping a
//! quote at its first word the input does not hold. Linear in the input and in each quote.
//! Must not: decide what a digest lists.

use std::collections::HashSet;

/// The words of a summarizer input.
pub struct Seen<'a> {
    words: HashSet<&'a str>,
}

impl<'a> Seen<'a> {
    pub fn new(input: &'a str) -> Seen<'a> {
        Seen {
            words: words(input, true).collect(),
        }
    }

    /// Whether every word of `text` is in the input (and it has one).
    pub fn holds_all(&self, text: &str) -> bool {
        let mut any = false;
        for w in words(text, false) {
            if !self.words.contains(w) {
                return false;
            }
            any = true;
        }
        any
    }

    /// How many words `text` has.
    pub fn word_count(text: &str) -> usize {
        words(text, false).count()
    }

    /// `text` up to its first word the input does not hold, with `…` when cut; `None` when
    /// not even its first word is held.
    pub fn clip(&self, text: &str) -> Option<String> {
        let mut end = text.len();
        let mut cut = false;
        let mut held = false;
        for (at, w) in word_spans(text, false) {
            if !self.words.contains(w) {
                end = at;
                cut = true;
                break;
            }
            held = true;
        }
        if !held {
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

fn words(text: &str, escapes: bool) -> impl Iterator<Item = &str> {
    word_spans(text, escapes).map(|(_, w)| w)
}

/// `(byte offset, word)` of each word; with `escapes`, a backslash escape (`\n`, `\t`, `\r`,
/// `\u` and four hex digits, `\x` and two) ends a word and is no part of the next.
fn word_spans(text: &str, escapes: bool) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || loop {
        let (start, c) = chars.next()?;
        if escapes && c == '\\' {
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
        return Some((start, &text[start..end]));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_is_cut_where_the_input_stops_holding_its_words() {
        let seen = Seen::new("Observation: ran cargo test\\nfailed: header (500 chars)");
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
        let seen = Seen::new(r"{'text': 'caf\u00e9 ok\tdone'}");
        assert!(seen.holds_all("caf ok done"));
        assert!(!seen.holds_all("u00e9"));
        assert_eq!(
            words(r"a\nb", false).collect::<Vec<_>>(),
            vec!["a", "nb"],
            "a quote is plain text"
        );
    }
}
