//! A stand-in summary of an exact size, for `replay --summary-tokens N`: what a summarizer that
//! writes N tokens does to the sawtooth, whatever it writes.
//!
//! Owns: building a text the session's encoding counts as exactly N tokens, with about four
//! characters per token so the frameworks' chars/4 estimators see about N as well. Must not:
//! pretend to carry content (it carries none; replay reports no evidence for it).

use crate::tokens::Counter;

/// Words of one token each (with their leading space) in the o200k and cl100k encodings.
const WORDS: &[&str] = &["the", "and", "for", "was", "are", "not", "but", "had"];

/// A text of exactly `tokens` tokens under `counter` (empty for 0).
pub fn summary_of(tokens: usize, counter: &Counter) -> String {
    let mut text = String::with_capacity(tokens.saturating_mul(4).min(1 << 26));
    for i in 0..tokens {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(WORDS[i % WORDS.len()]);
    }
    // The words are single tokens in the bundled encodings; for any other, trim or pad until
    // the count is exact.
    let mut n = counter.count(&text);
    while n > tokens {
        match text.rfind(' ') {
            Some(at) => text.truncate(at),
            None => text.clear(),
        }
        n = counter.count(&text);
    }
    while n < tokens {
        text.push_str(" the");
        n = counter.count(&text);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    #[test]
    fn the_text_counts_exactly_as_asked_in_both_encodings() {
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let counter = Counter::new(enc);
            for n in [0, 1, 2, 7, 500, 4096] {
                let text = summary_of(n, &counter);
                assert_eq!(counter.count(&text), n, "{enc:?} {n}");
                if n > 0 {
                    let per = text.len() as f64 / n as f64;
                    assert!((3.0..=4.5).contains(&per), "{per} chars per token");
                }
            }
        }
    }
}
