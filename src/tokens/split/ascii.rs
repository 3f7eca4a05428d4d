//! The pre-tokenizer patterns decided by hand on ASCII text.
//!
//! Owns: the next pre-token of a text when every character the patterns look at to find it is
//! ASCII. On ASCII the patterns' classes are plain byte tests (`\p{L}` is a letter, `\p{Lu}` an
//! upper-case one, `\p{N}` a digit, `\s` one of `\t \n \v \f \r` and space, and no ASCII
//! character is `\p{Lt}`, `\p{Lm}`, `\p{Lo}` or `\p{M}`), and the alternatives are tried in
//! the regex's order with its preferences. A character outside ASCII, wherever the search
//! would look at it, gives the question back to the regex ([`super::each_piece`]).

use super::Encoding;

/// The length in bytes of the pre-token that starts `text`, or `None` when finding it looks at
/// a character outside ASCII. `text` is not empty.
pub fn piece(encoding: Encoding, text: &[u8]) -> Option<usize> {
    match encoding {
        Encoding::O200kBase => o200k(&Look(text)),
        Encoding::Cl100kBase => cl100k(&Look(text)),
    }
}

/// The text as the patterns look at it.
struct Look<'a>(&'a [u8]);

impl Look<'_> {
    /// The byte at `i` (`Some(None)` past the end), or `None` when it is not ASCII.
    fn at(&self, i: usize) -> Option<Option<u8>> {
        match self.0.get(i) {
            None => Some(None),
            Some(&b) if b.is_ascii() => Some(Some(b)),
            Some(_) => None,
        }
    }

    /// The end of the run of bytes from `from` that `class` accepts.
    fn run(&self, from: usize, class: fn(u8) -> bool) -> Option<usize> {
        let mut i = from;
        while let Some(b) = self.at(i)? {
            if !class(b) {
                break;
            }
            i += 1;
        }
        Some(i)
    }

    /// Up to three digits from 0 (`\p{N}{1,3}`); the text starts with one.
    fn digits(&self) -> Option<usize> {
        let mut i = 1;
        while i < 3 && self.at(i)?.is_some_and(|b| b.is_ascii_digit()) {
            i += 1;
        }
        Some(i)
    }

    /// The whitespace alternatives, for a text that starts with whitespace: `\s*[\r\n]+` (up to
    /// the run's last line break), `\s+$`, `\s+(?!\S)` (the run but its last character) and `\s+`.
    fn space(&self) -> Option<usize> {
        let end = self.run(0, space)?;
        if let Some(last) = self.0[..end]
            .iter()
            .rposition(|&b| b == b'\r' || b == b'\n')
        {
            return Some(last + 1);
        }
        if end == self.0.len() {
            return Some(end);
        }
        Some(if end >= 2 { end - 1 } else { end })
    }
}

/// `\s` on ASCII.
fn space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// `[^\r\n\p{L}\p{N}]` on ASCII.
fn prefix(b: u8) -> bool {
    b != b'\r' && b != b'\n' && !b.is_ascii_alphanumeric()
}

/// `[^\s\p{L}\p{N}]` on ASCII.
fn symbol(b: u8) -> bool {
    !space(b) && !b.is_ascii_alphanumeric()
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: its end, or `i` when there is none.
fn contraction(look: &Look, i: usize) -> Option<usize> {
    if look.at(i)? != Some(b'\'') {
        return Some(i);
    }
    let second = look.at(i + 1)?.map(|b| b.to_ascii_lowercase());
    let third = |want: u8| -> Option<usize> {
        let b = look.at(i + 2)?.map(|b| b.to_ascii_lowercase());
        Some(if b == Some(want) { i + 3 } else { i })
    };
    match second {
        Some(b's' | b't' | b'm' | b'd') => Some(i + 2),
        Some(b'r' | b'v') => third(b'e'),
        Some(b'l') => third(b'l'),
        _ => Some(i),
    }
}

/// o200k_base: `[^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(?i:'s|…)?`, the same with `[\p{Lu}…]+`
/// and `[\p{Ll}…]*`, `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, then the whitespace ones.
fn o200k(look: &Look) -> Option<usize> {
    let first = look.at(0)?.unwrap_or(b' ');
    // On ASCII both letter alternatives take an upper-case run and then a lower-case one,
    // and need one letter; without the prefix the first character is no letter either.
    let start = usize::from(prefix(first));
    let upper = look.run(start, |b| b.is_ascii_uppercase())?;
    let lower = look.run(upper, |b| b.is_ascii_lowercase())?;
    if lower > start {
        return contraction(look, lower);
    }
    if first.is_ascii_digit() {
        return look.digits();
    }
    if let Some(end) = symbols(look, first, |b| b == b'\r' || b == b'\n' || b == b'/')? {
        return Some(end);
    }
    look.space()
}

/// cl100k_base: `(?i:'s|…)`, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`,
/// ` ?[^\s\p{L}\p{N}]+[\r\n]*`, then the whitespace ones.
fn cl100k(look: &Look) -> Option<usize> {
    let first = look.at(0)?.unwrap_or(b' ');
    let contracted = contraction(look, 0)?;
    if contracted > 0 {
        return Some(contracted);
    }
    let start = usize::from(prefix(first));
    let letters = look.run(start, |b| b.is_ascii_alphabetic())?;
    if letters > start {
        return Some(letters);
    }
    if first.is_ascii_digit() {
        return look.digits();
    }
    if let Some(end) = symbols(look, first, |b| b == b'\r' || b == b'\n')? {
        return Some(end);
    }
    look.space()
}

/// ` ?[^\s\p{L}\p{N}]+` and then the run of `after`: its end, or `Some(None)` when it does not
/// match.
fn symbols(look: &Look, first: u8, after: fn(u8) -> bool) -> Option<Option<usize>> {
    let start = usize::from(first == b' ');
    let end = look.run(start, symbol)?;
    if end == start {
        return Some(None);
    }
    Some(Some(look.run(end, after)?))
}
