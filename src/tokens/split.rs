//! Splitting a text into pre-tokens with tiktoken's patterns, as `bpe-openai` splits them, but
//! with a regex cache per thread.
//!
//! Owns: the pre-tokenizer patterns of the encodings ctxray counts with (the ones `bpe-openai`
//! 0.3 uses, with its one-character look-ahead emulation) and iterating over the pieces.
//! `bpe-openai` searches through the regex's shared cache pool, which every counting thread
//! takes from and gives back to for each piece; here each thread keeps its own cache. The
//! pieces are the same (the tiktoken equality tests count through this module).

use std::cell::RefCell;
use std::sync::LazyLock;

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};

use super::Encoding;

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

/// Calls `f` with each pre-token of `text`, in order.
pub fn each_piece(encoding: Encoding, text: &str, mut f: impl FnMut(&str)) {
    let pre = pretokenizer(encoding);
    CACHES.with(|caches| {
        let mut caches = caches.borrow_mut();
        let cache = caches[encoding as usize].get_or_insert_with(|| pre.pat.create_cache());
        let mut last = 0;
        while last < text.len() {
            let input = Input::new(&text[last..]).anchored(Anchored::Yes);
            let Some(m) = pre.pat.search_with(cache, &input) else {
                break;
            };
            let start = last;
            let mut end = last + m.range().end;
            if pre.lookahead[m.pattern().as_usize()] {
                // The last character was look-ahead: it starts the next piece.
                end -= text[start..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
            }
            if end == start {
                break;
            }
            last = end;
            f(&text[start..end]);
        }
    })
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
}
