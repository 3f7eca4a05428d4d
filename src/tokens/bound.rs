//! A lower bound on a text's token count, read in one cheap pass: a caller that only needs to
//! know whether a text is over some number of tokens skips the count when the bound already is.
//!
//! Why it holds, for both encodings: a token never spans two pre-tokenizer pieces, and each
//! piece holds at most one non-whitespace character right after a whitespace one, `/` aside
//! (a piece is whitespace only; or one optional character then letters, marks and a
//! contraction; or up to three digits; or an optional space, punctuation, then newlines and,
//! in o200k, `/`). So a text has at least as many tokens as such places.
//!
//! Owns: that bound. Must not: count.

/// At most the number of tokens `text` has, under either encoding.
pub fn at_least(text: &str) -> usize {
    places(text).filter(|&place| place).count()
}

/// For each character of `text`, whether it is a place the bound counts (a non-space, not
/// `/`, right after a space), for a caller that needs the bound of several prefixes at once.
pub fn places(text: &str) -> impl Iterator<Item = bool> + '_ {
    let mut after_space = false;
    text.chars().map(move |c| {
        let space = c.is_whitespace();
        let place = after_space && !space && c != '/';
        after_space = space;
        place
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Counter, Encoding};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_more_than_the_count(text in "[ a-zA-Zé0-9'/\\n\\r\\t.,!?\"()\u{301}\u{a0}\u{3000}_-]{0,200}") {
            for e in Encoding::ALL {
                let c = Counter::new(e);
                prop_assert!(at_least(&text) <= c.count_reference(&text), "{:?} {}", text, e);
            }
        }
    }

    #[test]
    fn slashes_after_newlines_stay_in_one_piece() {
        // o200k reads `!\n/\n/…` as one piece: a `/` after a newline starts no token.
        let text = " !\n/\n/\n/\n/\n/\n/\n/\n/".repeat(20);
        for e in Encoding::ALL {
            assert!(
                at_least(&text) <= Counter::new(e).count_reference(&text),
                "{e}"
            );
        }
    }

    #[test]
    fn close_to_the_count_on_prose() {
        let text =
            "The quick brown fox jumps over the lazy dog, then reads src/main.rs.\n".repeat(50);
        let c = Counter::new(Encoding::O200kBase);
        let (bound, count) = (at_least(&text), c.count(&text));
        assert!(bound <= count && bound * 2 > count, "{bound} of {count}");
    }
}
