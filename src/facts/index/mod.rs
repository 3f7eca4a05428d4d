//! An index of one text (a summarizer input, a summary) that answers whether a string occurs
//! in it and how long the longest prefix of a string that occurs in it is — exactly, and in
//! time linear in the text and the strings asked, whatever the text repeats.
//!
//! Most strings are answered at once through a minimizer index (`grams`): of every window of
//! `WINDOW` consecutive 8-byte grams of the text, the one of least rank is kept, bucketed by
//! rank. Any string of `ANCHORED` bytes or more that occurs holds a whole window at every
//! offset, and the gram that window selects was kept at the same place in the text, so the
//! positions of that gram are the only candidates, compared byte by byte. When the string's
//! grams are all ones the text repeats everywhere (more than `FEW` positions), or the string is
//! shorter than a window, comparing would cost more than reading the text: those strings wait
//! and are answered together in one pass over the text (`batch`). About 1.5 bytes of index per
//! byte of text, built in one pass.
//!
//! Owns: the index and those two questions. Must not: know about messages, lines or evidence
//! (`diff` asks the questions).

mod batch;
mod grams;
#[cfg(test)]
mod linear_tests;

pub use grams::ANCHORED;
use grams::{bucket_bits, bucket_of, bucketed_runs, each_window, minimizer_runs, rank, read_gram};

/// Bytes of a text the index covers: positions are `u32`.
const MAX_TEXT: usize = u32::MAX as usize - 1;
/// The most candidate positions a string is compared at before it waits for the pass.
const FEW: usize = 16;
/// Distinct selected grams of a string looked up for one with few positions.
const LOOKUPS: usize = 16;
/// Positions of a repeated gram a string is compared at, whole, before it waits for the pass.
const TRIES: usize = FEW;
/// Bytes after the end of one line that the next is looked for in (`found_near`).
const NEAR: usize = 256;
/// Strings up to this long are looked for near by their first byte, then compared.
const SHORT_NEAR: usize = 64;
/// Places a longer string is compared at before a searcher looks for it.
const TRIES_NEAR: usize = 4;

/// An index of one text.
#[derive(Debug)]
pub struct TextIndex {
    text: Box<str>,
    /// Characters of the text.
    chars: usize,
    /// Kept gram positions, grouped by the top `bits` bits of their gram's rank.
    positions: Vec<u32>,
    /// `positions[starts[b]..starts[b + 1]]` is bucket `b`.
    starts: Vec<u32>,
    bits: u32,
    /// Steps taken answering so far: candidate positions compared, buckets looked up, bytes
    /// read by passes (see `work`).
    work: std::sync::atomic::AtomicU64,
}

impl TextIndex {
    /// Indexes `text` (its first 4 GiB).
    pub fn new(text: impl Into<String>) -> TextIndex {
        let mut text: String = text.into();
        if text.len() > MAX_TEXT {
            let mut end = MAX_TEXT;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
        let chars = count_chars(text.as_bytes());
        let kept = minimizer_runs(text.as_bytes());
        let bits = bucket_bits(kept.iter().map(Vec::len).sum());
        let (positions, starts) = bucketed_runs(text.as_bytes(), kept, bits);
        TextIndex {
            text: text.into_boxed_str(),
            chars,
            positions,
            starts,
            bits,
            work: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Characters of the whole text.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Bytes of the whole text.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Steps the answers so far took, in units that each cost about the same: a bucket looked
    /// up, a candidate position compared, a byte read by a pass (of the text or a string). What
    /// the tests hold to a linear bound, without timing anything.
    pub fn work(&self) -> u64 {
        self.work.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn spend(&self, steps: usize) {
        self.work
            .fetch_add(steps as u64, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether `s` occurs in the text (the empty string always does). One string at a time
    /// costs a pass over the text when the index cannot tell at once: callers with many ask
    /// `quick_prefix` and then `longest_prefixes` for the rest.
    #[cfg(test)]
    pub fn contains(&self, s: &str) -> bool {
        self.longest_prefix(s) == s.len()
    }

    /// Bytes of the longest prefix of `s` that occurs in the text (it may end inside a
    /// character) when that prefix is `s` itself or at least `ANCHORED` bytes long, else 0.
    /// For many strings, `quick_prefix` each and `longest_prefixes` the rest.
    #[cfg(test)]
    pub fn longest_prefix(&self, s: &str) -> usize {
        match self.quick_prefix(s) {
            Ok(longest) => longest,
            Err(k) => clamped(self.longest_prefixes_of(&[&s.as_bytes()[..k]])[0], s.len()),
        }
    }

    /// `Ok(longest_prefix(s))` when the index can tell in a few comparisons; else `Err(k)`:
    /// `s[..k]` (cut on a byte, not necessarily a character) is what remains to look for in a
    /// pass over the text, and its longest prefix, `clamp`ed to `s`, is the answer.
    pub fn quick_prefix(&self, s: &str) -> Result<usize, usize> {
        self.quick_find(s).map(|(longest, _)| longest)
    }

    /// `quick_prefix`, with where in the text `s` was found when it was found whole (not
    /// always known: the empty string, a short one).
    pub fn quick_find(&self, s: &str) -> Result<(usize, Option<usize>), usize> {
        let b = s.as_bytes();
        if b.is_empty() {
            return Ok((0, None));
        }
        if b.len() < ANCHORED {
            return Err(b.len());
        }
        // The first window whose gram the text keeps at few positions: every occurrence of a
        // prefix that holds the window is one of those positions. A string whose grams the
        // text repeats everywhere is compared whole at a few positions of the rarest.
        let (window, at) = match self.first_rare(b) {
            Ok(rare) => rare,
            Err(Some(at)) => match self.found_whole_among(b, at) {
                Some(start) => return Ok((b.len(), Some(start))),
                None => return Err(b.len()),
            },
            Err(None) => return Err(b.len()),
        };
        let reach = window + ANCHORED;
        let text = self.text.as_bytes();
        let gram = read_gram(b, at);
        let candidates = self.candidates(b, at);
        self.spend(candidates.len() + b.len());
        let (longest, start) = candidates
            .iter()
            .map(|&p| p as usize)
            .filter(|&p| p >= at && read_gram(text, p) == gram)
            .map(|p| (common_prefix(&text[p - at..], b), p - at))
            .max_by_key(|&(common, _)| common)
            .unwrap_or((0, 0));
        if longest >= reach {
            Ok((longest, (longest == b.len()).then_some(start)))
        } else if reach == ANCHORED {
            Ok((0, None))
        } else {
            // No prefix that holds the window occurs: the answer is a shorter one.
            Err(reach - 1)
        }
    }

    /// Where `s` occurs whole in the text within `NEAR` bytes after `from` (its start), if it
    /// does: the next line of a text the input holds in order is usually just after the last.
    /// `None` says only that it is not there.
    pub fn found_near(&self, s: &str, from: usize) -> Option<usize> {
        let text = self.text.as_bytes();
        let from = from.min(text.len());
        let to = (from + NEAR + s.len()).min(text.len());
        self.spend(to - from);
        let (window, s) = (&text[from..to], s.as_bytes());
        // Where the first byte is, compared: a short string at every such place (at most
        // `NEAR + SHORT_NEAR`, each for at most `SHORT_NEAR` bytes); a long one at the first
        // `TRIES_NEAR`, then by a searcher, whose set-up costs more than most lines.
        let first = *s.first()?;
        let mut places = memchr::memchr_iter(first, window);
        let mut tried = 0;
        for i in places.by_ref() {
            if window[i..].starts_with(s) {
                return Some(from + i);
            }
            tried += 1;
            if s.len() > SHORT_NEAR && tried == TRIES_NEAR {
                let rest = i + 1;
                return memchr::memmem::find(&window[rest..], s).map(|j| from + rest + j);
            }
        }
        None
    }

    /// The longest prefix of each of `strings`, in one pass over the text for all of them
    /// (not clamped: `clamp` each to the string it was cut from).
    pub fn longest_prefixes(&self, strings: &[&str]) -> Vec<usize> {
        let bytes: Vec<&[u8]> = strings.iter().map(|s| s.as_bytes()).collect();
        self.longest_prefixes_of(&bytes)
    }

    /// Bytes of strings one pass of `longest_prefixes_of` over the text answers: strings asked
    /// in batches of at least this many bytes read the text at most twice as often (and once
    /// more) as all of them asked at once.
    pub fn pass_bytes(&self) -> usize {
        batch::chunk_bytes(self.text.len())
    }

    /// `longest_prefixes` of byte strings.
    pub fn longest_prefixes_of(&self, strings: &[&[u8]]) -> Vec<usize> {
        let (found, read) = batch::longest_prefixes(self.text.as_bytes(), strings);
        self.spend(read);
        found
    }

    /// The first of the first `LOOKUPS` distinct grams the windows of `s` select whose bucket
    /// holds at most `FEW` positions: the window that selects it first, and its offset. Else
    /// the offset of the one whose bucket holds the fewest (none when `s` holds no window).
    fn first_rare(&self, s: &[u8]) -> Result<(usize, usize), Option<usize>> {
        let mut last = usize::MAX;
        let mut looked = 0;
        let mut found = None;
        let mut fewest: Option<(usize, usize)> = None;
        each_window(s, |window, at| {
            if at == last {
                return true;
            }
            last = at;
            self.spend(1);
            let n = self.candidates(s, at).len();
            if n <= FEW {
                found = Some((window, at));
                return false;
            }
            if fewest.is_none_or(|(_, m)| n < m) {
                fewest = Some((at, n));
            }
            looked += 1;
            looked < LOOKUPS
        });
        found.ok_or(fewest.map(|(at, _)| at))
    }

    /// Where `s` occurs whole, if at one of the first `TRIES` positions where the text keeps
    /// the gram at offset `at` of `s`: a line the text repeats is usually found at the first,
    /// in a bounded number of comparisons rather than the pass over the whole text. `None`
    /// says only that these positions do not hold it.
    fn found_whole_among(&self, s: &[u8], at: usize) -> Option<usize> {
        let text = self.text.as_bytes();
        let gram = read_gram(s, at);
        let tried = self.candidates(s, at);
        let tried = &tried[..tried.len().min(TRIES)];
        let mut compared = 0;
        let found = tried
            .iter()
            .map(|&p| p as usize)
            .filter(|&p| p >= at && read_gram(text, p) == gram)
            .find(|&p| {
                let common = common_prefix(&text[p - at..], s);
                compared += common + 1;
                common == s.len()
            })
            .map(|p| p - at);
        self.spend(tried.len() + compared);
        found
    }

    /// The kept positions in the bucket of the gram at offset `at` of `s` (its positions,
    /// and those of any gram that shares its bucket).
    fn candidates(&self, s: &[u8], at: usize) -> &[u32] {
        let b = bucket_of(rank(read_gram(s, at)), self.bits);
        let (from, to) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        &self.positions[from..to]
    }
}

/// A longest prefix of `longest` bytes as `longest_prefix` reports it for a string of `len`
/// bytes: the whole string, or `ANCHORED` bytes and more, else 0.
pub fn clamped(longest: usize, len: usize) -> usize {
    if longest == len || longest >= ANCHORED {
        longest
    } else {
        0
    }
}

/// Bytes `a` and `b` have in common from the start.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n && read_gram(a, i) == read_gram(b, i) {
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Characters of UTF-8 `text`: its bytes that do not continue a character.
fn count_chars(text: &[u8]) -> usize {
    text.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The longest prefix by brute force, reported as `longest_prefix` promises to.
    fn naive_prefix(text: &str, s: &str) -> usize {
        let longest = (0..=s.len())
            .rev()
            .find(|&k| {
                let b = &s.as_bytes()[..k];
                b.is_empty() || text.as_bytes().windows(k).any(|w| w == b)
            })
            .unwrap_or(0);
        if longest == s.len() || longest >= ANCHORED {
            longest
        } else {
            0
        }
    }

    #[test]
    fn answers_occurrence_and_the_longest_occurring_prefix() {
        let ix = TextIndex::new("the cat sat on the mat; édition of the matrix reloaded");
        assert!(ix.contains("cat sat"));
        assert!(ix.contains("the mat"));
        assert!(ix.contains(""));
        assert!(ix.contains("é"));
        assert!(!ix.contains("the dog"));
        assert!(!ix.contains("the cow"));
        assert_eq!(
            ix.longest_prefix("on the mat; édition of the matrix revolutions"),
            "on the mat; édition of the matrix re".len()
        );
        assert_eq!(
            ix.longest_prefix("on the mat; X"),
            0,
            "a prefix under 15 bytes"
        );
        assert_eq!(ix.longest_prefix("xyz"), 0);
        assert_eq!(ix.chars(), 54);
    }

    #[test]
    fn a_long_run_of_one_byte_is_indexed_whole() {
        let text = "a".repeat(200_000);
        let ix = TextIndex::new(text.clone());
        assert!(ix.contains(&text));
        assert_eq!(ix.longest_prefix(&format!("{text}a")), text.len());
        assert!(!ix.contains(&format!("{}b", &text[..1000])));
        assert_eq!(ix.longest_prefix(&format!("{}b", &text[..1000])), 1000);
    }

    #[test]
    fn a_gram_repeated_everywhere_is_not_the_anchor_a_line_is_found_by() {
        // Every line opens with the same 20 bytes; the rest of each is its own.
        let lines: Vec<String> = (0..20_000)
            .map(|i| {
                format!(
                    "2026-12-01 10:00:0 INFO request {i:08} handled in {} ms",
                    i % 97
                )
            })
            .collect();
        let ix = TextIndex::new(lines.join("\n"));
        let sample: Vec<&String> = lines.iter().step_by(97).collect();
        let quick = sample
            .iter()
            .filter(|l| ix.quick_prefix(l) == Ok(l.len()))
            .count();
        assert!(
            quick * 10 >= sample.len() * 9,
            "{quick} of {} found at once",
            sample.len()
        );
        for l in sample {
            assert!(ix.contains(l));
            assert!(!ix.contains(&format!("{l}!")));
        }
    }

    #[test]
    fn a_line_the_text_repeats_everywhere_is_found_whole_without_the_pass() {
        // Two lines over and over: every gram of either is kept at thousands of places.
        let a = "    return serde_json::from_str(line).map_err(Error::Parse);";
        let b = "    return serde_json::from_str(text).map_err(Error::Read);";
        let text = format!("{a}\n{b}\n").repeat(2_000);
        let ix = TextIndex::new(text.clone());
        for line in [a, b] {
            assert_eq!(ix.quick_prefix(line), Ok(line.len()), "{line}");
        }
        // Made of the same grams, found nowhere whole: the index cannot say at once.
        let mixed = "    return serde_json::from_str(line).map_err(Error::Read);";
        assert!(!text.contains(mixed));
        assert_eq!(ix.quick_prefix(mixed), Err(mixed.len()));
        assert_eq!(
            ix.longest_prefix(mixed),
            "    return serde_json::from_str(line).map_err(Error::".len()
        );
    }

    #[test]
    fn the_next_line_is_found_just_after_the_last_short_or_long() {
        // The long line's first byte stands at more places before it than are compared.
        let long = format!("q tail {}", "x".repeat(200));
        let text =
            format!("alpha line one\\n  beta line two\\nq q q q q q\\n{long}\\nalpha line one");
        let ix = TextIndex::new(text.clone());
        let after_first = "alpha line one".len();
        assert_eq!(
            ix.found_near("beta line two", after_first),
            text.find("beta line two")
        );
        assert_eq!(ix.found_near(&long, after_first), text.find(&long));
        // Only after `from`, and only within reach of it.
        assert_eq!(
            ix.found_near("alpha line one", 1),
            text.rfind("alpha line one")
        );
        assert_eq!(ix.found_near("alpha line one", 0), Some(0));
        let far = format!("{}needle at the end", "y".repeat(NEAR + 100));
        let ix = TextIndex::new(far.clone());
        assert_eq!(ix.found_near("needle at the end", 0), None);
        assert_eq!(
            ix.found_near("needle at the end", 200),
            far.find("needle at the end")
        );
    }

    fn text_and_queries() -> impl Strategy<Value = (String, Vec<String>)> {
        // A small alphabet makes long shared prefixes and repeated grams common.
        ("[ab\n é]{0,200}", 0..6usize).prop_flat_map(|(text, n)| {
            let t = text.clone();
            let slices = proptest::collection::vec((0..=t.len(), 0..60usize, "[ab é]{0,4}"), n)
                .prop_map(move |cuts| {
                    cuts.into_iter()
                        .map(|(at, len, tail)| {
                            let mut from = at.min(t.len());
                            while !t.is_char_boundary(from) {
                                from -= 1;
                            }
                            let mut to = (from + len).min(t.len());
                            while !t.is_char_boundary(to) {
                                to -= 1;
                            }
                            format!("{}{tail}", &t[from..to])
                        })
                        .collect::<Vec<_>>()
                });
            (Just(text), slices)
        })
    }

    proptest! {
        #[test]
        fn agrees_with_a_naive_search(
            (text, mut queries) in text_and_queries(),
            free in proptest::collection::vec("[ab é]{0,24}", 1..6),
        ) {
            queries.extend(free);
            let ix = TextIndex::new(text.clone());
            let all: Vec<&str> = queries.iter().map(String::as_str).collect();
            let batched = ix.longest_prefixes(&all);
            for (q, b) in queries.iter().zip(batched) {
                let want = naive_prefix(&text, q);
                prop_assert_eq!(clamped(b, q.len()), want, "batched {:?} in {:?}", q, text);
                let quick = match ix.quick_prefix(q) {
                    Ok(v) => v,
                    Err(k) => clamped(ix.longest_prefixes_of(&[&q.as_bytes()[..k]])[0], q.len()),
                };
                prop_assert_eq!(quick, want, "quick {:?} in {:?}", q, text);
                if let Ok((longest, Some(at))) = ix.quick_find(q) {
                    prop_assert_eq!(longest, q.len());
                    prop_assert_eq!(&text.as_bytes()[at..at + q.len()], q.as_bytes());
                }
                for from in [0, text.len() / 2] {
                    if let Some(at) = ix.found_near(q, from) {
                        prop_assert!(at >= from);
                        prop_assert_eq!(&text.as_bytes()[at..at + q.len()], q.as_bytes());
                    }
                }
                prop_assert_eq!(ix.longest_prefix(q), naive_prefix(&text, q), "{:?} in {:?}", q, text);
                prop_assert_eq!(ix.contains(q), text.contains(q.as_str()), "{:?} in {:?}", q, text);
            }
        }
    }
}
