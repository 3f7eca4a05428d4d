//! Splitting a text into pre-tokens with tiktoken's patterns, as `bpe-openai` splits them, but
//! deciding ASCII by hand and with a regex cache per thread.
//!
//! Owns: the pre-tokenizer patterns of the encodings ctxray counts with (the ones `bpe-openai`
//! 0.3 uses, with its one-character look-ahead emulation) and iterating over the pieces. Most
//! session text is ASCII, where a piece is found by byte tests (`ascii`) several times faster
//! than by the regex; the regex finds the others. `bpe-openai` searches through the regex's
//! shared cache pool, which every counting thread takes from and gives back to for each piece;
//! here each thread keeps its own cache. The pieces are the same (the tests below hold the hand
//! split to the regex's, and the tiktoken equality tests count through this module).

use std::cell::RefCell;
use std::sync::LazyLock;

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};

use super::Encoding;

mod ascii;

/// A pre-tokenizer: alternatives whose look-ahead flag says the match's last character is
/// look-ahead only (it is given back to the next piece).
struct Pretokenizer {
    pat: Regex,
    lookahead: Vec<bool>,
}

impl Pretokenizer {
    #[allow(
        clippy::expect_used,
        reason = "the encodings' constant patterns; the tests below compile them"
    )]
    fn new(pats: &[(&str, bool)]) -> Pretokenizer {
        let (pats, lookahead): (Vec<&str>, Vec<bool>) = pats.iter().copied().unzip();
        Pretokenizer {
            pat: Regex::new_many(&pats).expect("the tiktoken patterns compile"),
            lookahead,
        }
    }
}

static CL100K: LazyLock<Pretokenizer> = LazyLock::new(|| {
    let pat1 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$";
    Pretokenizer::new(&[(pat1, false), ("\\s+\\s", true), ("\\s+", false)])
});

static O200K: LazyLock<Pretokenizer> = LazyLock::new(|| {
    let pat1 = [
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "\\p{N}{1,3}",
        " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "\\s*[\\r\\n]+",
        "\\s+$",
    ]
    .join("|");
    Pretokenizer::new(&[(&pat1, false), ("\\s+\\s", true), ("\\s+", false)])
});

thread_local! {
    /// This thread's search cache for each encoding's pattern.
    static CACHES: RefCell<[Option<Cache>; 2]> = const { RefCell::new([None, None]) };
}

fn pretokenizer(encoding: Encoding) -> &'static Pretokenizer {
    match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    }
}

/// Calls `f` with each pre-token of `text`, in order: decided on ASCII by hand (`ascii`), and
/// by the regex where a character outside ASCII is looked at.
pub fn each_piece(encoding: Encoding, text: &str, mut f: impl FnMut(&str)) {
    let mut last = 0;
    while last < text.len() {
        let rest = &text[last..];
        let len = match ascii::piece(encoding, rest.as_bytes()) {
            Some(len) => len,
            None => match by_regex(encoding, rest) {
                Some(len) => len,
                None => break,
            },
        };
        f(&rest[..len]);
        last += len;
    }
}

/// The length of the pre-token that starts `text` as the regex finds it (`None` when it finds
/// none, or an empty one).
fn by_regex(encoding: Encoding, text: &str) -> Option<usize> {
    let pre = pretokenizer(encoding);
    CACHES.with(|caches| {
        let mut caches = caches.borrow_mut();
        let cache = caches[encoding as usize].get_or_insert_with(|| pre.pat.create_cache());
        let input = Input::new(text).anchored(Anchored::Yes);
        let m = pre.pat.search_with(cache, &input)?;
        let mut end = m.range().end;
        if pre.lookahead[m.pattern().as_usize()] {
            // The last character was look-ahead: it starts the next piece.
            end -= text[..end].chars().next_back().map_or(0, char::len_utf8);
        }
        (end > 0).then_some(end)
    })
}

/// [`each_piece`] by the regex alone: what the hand-decided pieces are held to.
#[cfg(test)]
fn each_piece_by_regex(encoding: Encoding, text: &str, mut f: impl FnMut(&str)) {
    let mut last = 0;
    while let Some(len) = text
        .get(last..)
        .filter(|r| !r.is_empty())
        .and_then(|r| by_regex(encoding, r))
    {
        f(&text[last..last + len]);
        last += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces are `bpe-openai`'s own, on text that exercises every alternative.
    #[test]
    fn pieces_equal_bpe_openai_splits() {
        let texts = [
            "Hello world! It's   a test\n\n  of 12345 numbers, I'LL SEE you're ok.\r\n\tend  ",
            "fn main() {\n    let x = vec![1, 2, 3];\n    println!(\"{x:?}\");\n}\n",
            "日本語のテキスト と émoji 🎉🎉 mixed with ASCII's words   \n",
            "    \n\n\n    trailing spaces    ",
            "",
            " ",
            "a",
        ];
        for (encoding, tokenizer) in [
            (Encoding::O200kBase, bpe_openai::o200k_base()),
            (Encoding::Cl100kBase, bpe_openai::cl100k_base()),
        ] {
            for text in texts {
                let mut ours = Vec::new();
                each_piece(encoding, text, |p| ours.push(p.to_string()));
                let theirs: Vec<String> = tokenizer.split(text).map(str::to_string).collect();
                assert_eq!(ours, theirs, "{encoding} {text:?}");
            }
        }
    }

    /// Characters every alternative of either pattern turns on, ASCII and not: letters of each
    /// case, digits, contraction letters, symbols, each kind of whitespace, and characters
    /// outside ASCII that are letters, marks, digits, whitespace or fold to ASCII.
    const ALPHABET: &[char] = &[
        'a', 'b', 'A', 'Z', 's', 'S', 't', 'T', 'r', 'R', 'e', 'E', 'v', 'V', 'm', 'M', 'l', 'L',
        'd', 'D', '0', '1', '9', '\'', '"', '/', '(', '.', '!', '-', '_', '\u{0}', '\u{7f}', ' ',
        ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1f}', 'é', 'É', 'ſ', '\u{212a}', 'ǅ', 'ʰ',
        '日', '\u{301}', '٣', '²', '\u{85}', '\u{a0}', '\u{3000}', '\u{2028}', '🎉', '’',
    ];

    /// A way to split: the hand one or the regex's.
    type Split = fn(Encoding, &str, &mut dyn FnMut(&str));

    fn pieces(encoding: Encoding, text: &str, split: Split) -> Vec<String> {
        let mut out = Vec::new();
        split(encoding, text, &mut |p| out.push(p.to_string()));
        out
    }

    fn split_fast(encoding: Encoding, text: &str, f: &mut dyn FnMut(&str)) {
        each_piece(encoding, text, f);
    }

    fn split_regex(encoding: Encoding, text: &str, f: &mut dyn FnMut(&str)) {
        each_piece_by_regex(encoding, text, f);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The hand split equals the regex's on any text of the alphabet.
        #[test]
        fn the_hand_split_is_the_regex_split(
            chars in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..24),
        ) {
            let text: String = chars.into_iter().collect();
            for encoding in Encoding::ALL {
                proptest::prop_assert_eq!(
                    pieces(encoding, &text, split_fast),
                    pieces(encoding, &text, split_regex),
                    "{} {:?}", encoding, text
                );
            }
        }
    }

    /// The same on the texts of the real samples and fixtures, line by line.
    #[test]
    fn the_hand_split_is_the_regex_split_on_real_text() {
        let mut texts = 0;
        for dir in ["fixtures", "../shared/samples"] {
            let Ok(walk) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut stack: Vec<std::path::PathBuf> = walk.flatten().map(|e| e.path()).collect();
            while let Some(path) = stack.pop() {
                if path.is_dir() {
                    stack.extend(
                        std::fs::read_dir(&path)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .map(|e| e.path()),
                    );
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                texts += 1;
                for encoding in Encoding::ALL {
                    assert_eq!(
                        pieces(encoding, &text, split_fast),
                        pieces(encoding, &text, split_regex),
                        "{encoding} {}",
                        path.display()
                    );
                }
            }
        }
        assert!(texts > 50, "only {texts} texts read");
    }
}
