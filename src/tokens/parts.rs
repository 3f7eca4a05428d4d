//! A long text cut into parts by its content, so that counting it is the sum of counting its
//! parts, and a part met again — in another text, at another offset — is known by its hash.
//!
//! A cut is only ever placed just before an ASCII letter that starts a line: no pre-token
//! spans such a place under either encoding (a newline ends every pattern that holds one, and
//! no letter pattern starts with one), and each pre-token is counted alone, so the parts'
//! counts add up to the whole's. Among those places, a cut is made where the eight bytes before
//! it hash to a chosen residue (once a part is `MIN` bytes long), or at the first place past
//! `MAX`: the choice reads only the bytes around the place, so two texts that share a stretch
//! cut it alike, whatever precedes it (content-defined chunking). A summarizer request that
//! repeats the kept tail and the previous summary is then mostly parts counted before.
//!
//! Owns: where the cuts go. Must not: count (the counter does) or remember counts (`remember`).

/// Bytes a part has at least before a content-defined cut.
const MIN: usize = 4 << 10;
/// Bytes past which the next possible cut is taken.
const MAX: usize = 256 << 10;
/// One place in `1 << BITS` that can take a cut does: parts of some 20 KB on prose and code
/// (a line every 80 bytes or so).
const BITS: u32 = 8;

/// `text` cut into parts (one part when it has no place to cut).
pub fn content_parts(text: &str) -> Vec<&str> {
    cut(text, MIN, MAX, BITS)
}

/// `text` cut at every place that can take a cut, once a part has `min` bytes.
#[cfg(test)]
pub fn cut_everywhere(text: &str, min: usize) -> Vec<&str> {
    cut(text, min, usize::MAX, 0)
}

fn cut(text: &str, min: usize, max: usize, bits: u32) -> Vec<&str> {
    let b = text.as_bytes();
    let mask = (1u64 << bits) - 1;
    let mut out = Vec::new();
    let mut from = 0;
    for nl in memchr::memchr_iter(b'\n', b) {
        let at = nl + 1;
        if !b.get(at).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let len = at - from;
        if len < min {
            continue;
        }
        if len >= max || mix(before(b, at)) & mask == 0 {
            // `at` follows a newline: a character boundary.
            out.push(&text[from..at]);
            from = at;
        }
    }
    out.push(&text[from..]);
    out
}

/// The eight bytes before `at` (fewer at the start, zero-filled).
fn before(b: &[u8], at: usize) -> u64 {
    let from = at.saturating_sub(8);
    let mut g = [0u8; 8];
    g[8 - (at - from)..].copy_from_slice(&b[from..at]);
    u64::from_le_bytes(g)
}

/// The finaliser of splitmix64.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_cut_before_a_letter_that_starts_a_line_and_make_the_text() {
        let lines = crate::testing::hostile_lines();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let text = crate::testing::drawn(3, &lines, 200_000);
        let parts = cut(&text, 512, 8192, 4);
        assert!(parts.len() > 20, "{} parts", parts.len());
        assert_eq!(parts.concat(), text);
        for p in &parts[1..] {
            assert!(p.as_bytes()[0].is_ascii_alphabetic(), "{:?}", &p[..10]);
        }
        for p in &parts[..parts.len() - 1] {
            assert!(p.ends_with('\n'));
            assert!(p.len() >= 512);
        }
        assert_eq!(cut("no newline at all", 1, 2, 0), vec!["no newline at all"]);
        assert_eq!(cut("", 1, 2, 0), vec![""]);
    }

    #[test]
    fn a_stretch_two_texts_share_is_cut_alike_wherever_it_stands() {
        let lines = crate::testing::hostile_lines();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let shared = crate::testing::drawn(5, &lines, 100_000);
        let a = format!("{}{shared}", crate::testing::drawn(6, &lines, 3_000));
        let b = format!(
            "other words\n{}{shared}",
            crate::testing::drawn(7, &lines, 9_000)
        );
        let pa = cut(&a, 512, 1 << 20, 4);
        let pb = cut(&b, 512, 1 << 20, 4);
        let in_b: std::collections::HashSet<&str> = pb.iter().copied().collect();
        let common = pa
            .iter()
            .filter(|p| in_b.contains(*p))
            .map(|p| p.len())
            .sum::<usize>();
        assert!(
            common * 10 >= shared.len() * 9,
            "{common} of {} shared bytes in parts both texts have",
            shared.len()
        );
    }
}
