//! The matches of two evidence patterns found without the regex engine, in one pass over the
//! bytes: the same matches `find_iter` gives, in the same order.
//!
//! Identifiers (`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b | \b[a-z]+[A-Z][A-Za-z0-9]+\b |
//! \b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+\b`, ASCII boundaries): every alternative starts and ends
//! with an ASCII letter or digit between two boundaries and holds only ASCII word bytes, so a
//! match is a whole word — a maximal run of `[A-Za-z0-9_]` — and a word is one when one of the
//! three shapes takes all of it.
//!
//! Numbers (`\b\d[\d_,.]{2,}\d\b | \b\d{3,}\b`, `\d` Unicode, boundaries ASCII): a match holds
//! only digits and `_,.`, so it lies inside a maximal run of those and of numeric characters
//! outside ASCII (where a Unicode digit is). A run of ASCII alone is matched here, as the
//! regex would, leftmost first with its backtracking; a run with a character outside ASCII is
//! left to the regex, searched over the run alone (its boundaries still see the bytes around).
//!
//! Owns: those two scans. Must not: decide what an evidence item is (`evidence` does).

use std::ops::Range;

use regex_automata::{meta, Input};

fn is_word(b: u8) -> bool {
    CLASS[usize::from(b)] & WORD != 0
}

const WORD: u8 = 1;
/// An ASCII digit, `_`, `,` or `.`: a byte a number match holds.
const NUMERIC: u8 = 2;
const DIGIT: u8 = 4;

/// Each byte's classes.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if c.is_ascii_alphanumeric() || c == b'_' {
            k |= WORD;
        }
        if c.is_ascii_digit() || c == b'_' || c == b',' || c == b'.' {
            k |= NUMERIC;
        }
        if c.is_ascii_digit() {
            k |= DIGIT;
        }
        t[b] = k;
        b += 1;
    }
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` below 0x80 that lies strictly between `m` and `n` (`m` at
/// most 127, `n` at most 128; some bits may be set for others, but one is set when any lies
/// there).
fn between(x: u64, m: u8, n: u8) -> u64 {
    let low = x & (ONES * 127);
    (ONES * (127 + u64::from(n))).wrapping_sub(low)
        & !x
        & (low + ONES * (127 - u64::from(m)))
        & HIGH
}

/// Whether any byte of `x` is `b`.
fn has_byte(x: u64, b: u8) -> bool {
    let v = x ^ (ONES * u64::from(b));
    v.wrapping_sub(ONES) & !v & HIGH != 0
}

/// The first place from `i` where `is` holds of the byte, eight bytes at a time while `any`
/// says that none of eight does (`any` may say yes for eight that have none).
fn skip_to(b: &[u8], mut i: usize, any: impl Fn(u64) -> bool, is: impl Fn(u8) -> bool) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        if any(x) {
            break;
        }
        i += 8;
    }
    while i < b.len() && !is(b[i]) {
        i += 1;
    }
    i
}

/// The matches of the identifier pattern in `text`, in order.
pub fn identifiers(text: &str, mut each: impl FnMut(Range<usize>)) {
    let b = text.as_bytes();
    // Every shape holds an underscore or an uppercase letter: a word of neither (most words
    // of prose) is none, and is skipped without being looked at.
    let any = |x: u64| between(x, b'A' - 1, b'Z' + 1) != 0 || has_byte(x, b'_');
    let is = |c: u8| c.is_ascii_uppercase() || c == b'_';
    // Where the last word looked at ends.
    let mut done = 0;
    loop {
        let i = skip_to(b, done, any, is);
        if i >= b.len() {
            return;
        }
        let mut start = i;
        while start > done && is_word(b[start - 1]) {
            start -= 1;
        }
        let mut end = i + 1;
        while end < b.len() && is_word(b[end]) {
            end += 1;
        }
        if is_identifier(&b[start..end]) {
            each(start..end);
        }
        done = end;
    }
}

/// Whether a whole word has one of the identifier shapes.
fn is_identifier(w: &[u8]) -> bool {
    snake(w) || camel(w) || pascal(w)
}

/// `[a-z][a-z0-9]*(?:_[a-z0-9]+)+`: a lowercase letter first, then lowercase letters and
/// digits in parts joined by single underscores, at least one underscore, none at the end.
fn snake(w: &[u8]) -> bool {
    let lower_or_digit = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if !w.first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let mut parts = w.split(|&c| c == b'_');
    let head_ok = parts.next().is_some_and(|p| p.iter().all(lower_or_digit));
    let mut tails = 0;
    for p in parts {
        if p.is_empty() || !p.iter().all(lower_or_digit) {
            return false;
        }
        tails += 1;
    }
    head_ok && tails > 0
}

/// `[a-z]+[A-Z][A-Za-z0-9]+`: lowercase letters, then an uppercase letter, then at least one
/// letter or digit, no underscore.
fn camel(w: &[u8]) -> bool {
    let lower = w.iter().take_while(|c| c.is_ascii_lowercase()).count();
    lower > 0
        && w.get(lower).is_some_and(u8::is_ascii_uppercase)
        && w.len() > lower + 1
        && w[lower + 1..].iter().all(u8::is_ascii_alphanumeric)
}

/// `[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+`: an uppercase letter, lowercase letters or digits, an
/// uppercase letter, then at least one letter or digit, no underscore.
fn pascal(w: &[u8]) -> bool {
    if !w.first().is_some_and(u8::is_ascii_uppercase) {
        return false;
    }
    let small = w[1..]
        .iter()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .count();
    let upper = 1 + small;
    small > 0
        && w.get(upper).is_some_and(u8::is_ascii_uppercase)
        && w.len() > upper + 1
        && w[upper + 1..].iter().all(u8::is_ascii_alphanumeric)
}

/// The character at `i` (a byte outside ASCII starting one), and where the next starts.
fn char_at(text: &str, i: usize) -> (char, usize) {
    let c = text[i..]
        .chars()
        .next()
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    (c, i + c.len_utf8())
}

/// The matches of the number pattern `re` in `text`, in order.
///
/// A run is a maximal stretch of ASCII digits, `_,.` and characters outside ASCII that are
/// numeric (`char::is_numeric`, which every Unicode decimal digit is): any other character
/// cannot be in a match. A run of ASCII alone is matched here; one with a numeric character
/// outside ASCII is left to `re`, searched over the run (its boundaries see the bytes around).
pub fn numbers(text: &str, re: &meta::Regex, mut each: impl FnMut(Range<usize>)) {
    let b = text.as_bytes();
    // A match starts at a digit; no run holds one before its first ASCII digit or character
    // outside ASCII.
    let any = |x: u64| x & HIGH != 0 || between(x, b'0' - 1, b'9' + 1) != 0;
    let is = |c: u8| c.is_ascii_digit() || !c.is_ascii();
    let mut i = 0;
    loop {
        i = skip_to(b, i, any, is);
        if i >= b.len() {
            return;
        }
        if !b[i].is_ascii() {
            let (c, next) = char_at(text, i);
            if !c.is_numeric() {
                i = next;
                continue;
            }
        }
        let start = i;
        let (mut ascii, mut digits) = (true, false);
        while let Some(&byte) = b.get(i) {
            let k = CLASS[usize::from(byte)];
            if k & NUMERIC != 0 {
                digits |= k & DIGIT != 0;
                i += 1;
            } else if byte.is_ascii() {
                break;
            } else {
                let (c, next) = char_at(text, i);
                if !c.is_numeric() {
                    break;
                }
                ascii = false;
                i = next;
            }
        }
        if ascii {
            if digits {
                numbers_in_ascii_run(b, start, i, &mut each);
            }
        } else {
            let mut at = start;
            while let Some(m) = re.search(&Input::new(text).range(at..i)) {
                each(m.range());
                at = m.end();
            }
        }
    }
}

/// The number matches in `b[from..to]`, a maximal run of ASCII digits and `_,.`: the bytes
/// around it are neither (a letter, a space, other punctuation, or the text's ends).
fn numbers_in_ascii_run(b: &[u8], from: usize, to: usize, each: &mut impl FnMut(Range<usize>)) {
    let boundary_after_digit = |e: usize| e == b.len() || !is_word(b[e]);
    // Where the first alternative's longest match from any start ends: the last place in the
    // run after a digit with a boundary, the same for every start (found once, so that a run
    // of many starts and no such place is read once, not once per start).
    let last_end = (from + 1..=to)
        .rev()
        .find(|&e| b[e - 1].is_ascii_digit() && boundary_after_digit(e));
    let mut i = from;
    while i < to {
        // A match starts at a digit after a byte that is not a word byte.
        if !b[i].is_ascii_digit() || (i > 0 && is_word(b[i - 1])) {
            i += 1;
            continue;
        }
        // `\d[\d_,.]{2,}\d\b`: the class takes the rest of the run, then gives back until a
        // digit ends it before a byte that is not a word byte (at least four bytes).
        if let Some(e) = last_end.filter(|&e| e >= i + 4) {
            each(i..e);
            i = e;
            continue;
        }
        // `\d{3,}\b`: the digits from here, all of them (fewer end before a digit).
        let mut j = i;
        while j < to && b[j].is_ascii_digit() {
            j += 1;
        }
        if j - i >= 3 && boundary_after_digit(j) {
            each(i..j);
            i = j;
            continue;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::facts::evidence::{IDENTIFIER, NUMBER};
    use regex::Regex;

    fn number_re() -> Regex {
        Regex::new(NUMBER).unwrap()
    }

    fn identifier_re() -> Regex {
        Regex::new(IDENTIFIER).unwrap()
    }

    fn by_regex(re: &Regex, text: &str) -> Vec<Range<usize>> {
        re.find_iter(text).map(|m| m.range()).collect()
    }

    fn scanned_numbers(text: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        static RE: std::sync::OnceLock<meta::Regex> = std::sync::OnceLock::new();
        let re = RE.get_or_init(|| meta::Regex::new(NUMBER).unwrap());
        numbers(text, re, |r| out.push(r));
        out
    }

    fn scanned_identifiers(text: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        identifiers(text, |r| out.push(r));
        out
    }

    #[test]
    fn numbers_as_the_regex_finds_them() {
        for t in [
            "exit 127, took 1,234 ms",
            "1.2.3 v10.20.30 3.14159 12 123 1_000_000 a123 123a _123 123_",
            "1,234, 5.678. 9..9 12,3 1,2,3,4 ,,123,, 00_ 0_0_0",
            "١٢٣ a١٢٣b x٣.١4 1٢3 ５６７ 12é34 1234é",
            "",
            "9",
            "99,",
            "1__1",
            ".1_.1_.1_.1_.1_.1_ .1_.1_.1,1_.1_.1_a 1.1.1_2",
        ] {
            assert_eq!(scanned_numbers(t), by_regex(&number_re(), t), "{t:?}");
        }
    }

    #[test]
    fn identifiers_as_the_regex_finds_them() {
        for t in [
            "parse_args fooBar FooBar snake_case_id CamelCaseId a_ _a a__b a_b_ A_b x1_y2",
            "aB ab aBc ABc AbC Ab1C AbCd abCD_x éfooBar fooBaré parse_é_args",
            "",
        ] {
            assert_eq!(
                scanned_identifiers(t),
                by_regex(&identifier_re(), t),
                "{t:?}"
            );
        }
    }

    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }

    /// Every fixture file (sessions of every format, hostile ones included), whole and line by
    /// line.
    #[test]
    fn every_fixture_scans_as_the_regexes_find() {
        let mut paths = Vec::new();
        files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
            &mut paths,
        );
        let (numbers_re, identifiers_re) = (number_re(), identifier_re());
        let mut matched = 0;
        for path in &paths {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            for t in std::iter::once(text.as_ref()).chain(text.lines()) {
                let found = scanned_numbers(t);
                assert_eq!(found, by_regex(&numbers_re, t), "{}", path.display());
                matched += found.len();
                let found = scanned_identifiers(t);
                assert_eq!(found, by_regex(&identifiers_re, t), "{}", path.display());
                matched += found.len();
            }
        }
        assert!(
            matched > 1000,
            "only {matched} matches in {} files",
            paths.len()
        );
    }

    fn alphabet() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "0", "1", "7", "9", "a", "b", "z", "A", "B", "Z", "_", ",", ".", " ", "-", "/", "\n",
            "é", "١", "٣", "５", "\u{301}", "字", "x1", "_9", "3.", ",5",
        ]);
        proptest::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn the_number_scan_is_the_regex(text in alphabet()) {
            prop_assert_eq!(scanned_numbers(&text), by_regex(&number_re(), &text));
        }

        #[test]
        fn the_identifier_scan_is_the_regex(text in alphabet()) {
            prop_assert_eq!(scanned_identifiers(&text), by_regex(&identifier_re(), &text));
        }
    }
}
