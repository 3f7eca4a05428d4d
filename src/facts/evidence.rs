//! Evidence: the concrete facts of a history that a good summary must carry forward — file
//! paths, commands, URLs, numbers, identifiers, tool-call ids.
//!
//! Owns: extracting evidence items from text with fixed patterns, and checking which survive
//! into another text. Deterministic and order-preserving; linear in the text (each pattern's
//! matches are checked against the earlier patterns' in one merge, duplicates in a set).

use std::collections::HashSet;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// What kind of fact an evidence item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EvidenceKind {
    Path,
    Url,
    Number,
    Identifier,
    Command,
}

impl EvidenceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Path => "path",
            EvidenceKind::Url => "url",
            EvidenceKind::Number => "number",
            EvidenceKind::Identifier => "identifier",
            EvidenceKind::Command => "command",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub text: String,
}

const URL: &str = r"https?://[^\s'\x22<>)\]]+";
const PATH: &str = r"(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}|(?-u:\b)[\w-]+(?:/[\w.-]+)+\.\w{1,5}(?-u:\b)|(?-u:\b)[\w-]+\.(?:rs|py|ts|tsx|js|jsx|json|jsonl|md|toml|ya?ml|txt|go|java|c|h|cc|cpp|hpp|sh|sql|html|css|lock|cfg|ini)(?-u:\b)";
/// The number pattern (found by `scan::numbers`, the regex kept for runs outside ASCII).
pub(super) const NUMBER: &str = r"(?-u:\b)\d[\d_,.]{2,}\d(?-u:\b)|(?-u:\b)\d{3,}(?-u:\b)";
/// The identifier pattern, which `scan::identifiers` finds (its tests hold it to this).
#[cfg(test)]
pub(super) const IDENTIFIER: &str = r"(?-u:\b)[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?-u:\b)|(?-u:\b)[a-z]+[A-Z][A-Za-z0-9]+(?-u:\b)|(?-u:\b)[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+(?-u:\b)";

/// How one kind of fact is found.
enum Finder {
    Regex(Regex),
    /// `scan::numbers`, with the number pattern for runs outside ASCII.
    Numbers(regex_automata::meta::Regex),
    /// `scan::identifiers`.
    Identifiers,
}

impl Finder {
    /// Calls `each` with the range of every match in `text`, in order.
    fn each_match(&self, text: &str, mut each: impl FnMut(Range<usize>)) {
        match self {
            Finder::Regex(re) => re.find_iter(text).for_each(|m| each(m.range())),
            Finder::Numbers(re) => super::scan::numbers(text, re, each),
            Finder::Identifiers => super::scan::identifiers(text, each),
        }
    }
}

/// The patterns, in the order they take text. Word boundaries are ASCII (`(?-u:\b)`: a
/// letter outside ASCII does not make or break one), which keeps every search on the regex
/// crate's DFA however much non-ASCII text a session holds; a Unicode boundary sent it to a
/// far slower engine at the first such byte. Numbers and identifiers are most of the matches
/// and are found by a byte scan that finds what the regex finds (`scan`).
fn patterns() -> &'static [(EvidenceKind, Finder)] {
    static PATTERNS: OnceLock<Vec<(EvidenceKind, Finder)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let regex = |p: &str| Regex::new(p).ok().map(Finder::Regex);
        let table = [
            (EvidenceKind::Url, regex(URL)),
            (EvidenceKind::Path, regex(PATH)),
            (
                EvidenceKind::Number,
                regex_automata::meta::Regex::new(NUMBER)
                    .ok()
                    .map(Finder::Numbers),
            ),
            (EvidenceKind::Identifier, Some(Finder::Identifiers)),
        ];
        table
            .into_iter()
            .filter_map(|(k, f)| Some((k, f?)))
            .collect()
    })
}

/// Evidence items in `text`, each once, in order of first appearance. A pattern's match that
/// overlaps an earlier pattern's item is not an item.
pub fn extract(text: &str) -> Vec<Evidence> {
    extract_at(text).into_iter().map(|(_, e)| e).collect()
}

/// `extract`, each item with the byte offset of its first appearance in `text` (its text is
/// `text[offset..offset + len]`).
pub fn extract_at(text: &str) -> Vec<(usize, Evidence)> {
    // Items borrow the text until each distinct one is kept: most repeat.
    let mut found: Vec<(usize, EvidenceKind, &str)> = Vec::new();
    // The ranges taken so far, sorted and disjoint.
    let mut taken: Vec<Range<usize>> = Vec::new();
    for (kind, finder) in patterns() {
        let mut fresh: Vec<Range<usize>> = Vec::new();
        let mut t = 0;
        finder.each_match(text, |r| {
            // Matches come in order and do not overlap: the taken ranges ending before this
            // one end before every later one too.
            while taken.get(t).is_some_and(|x| x.end <= r.start) {
                t += 1;
            }
            if taken.get(t).is_some_and(|x| x.start < r.end) {
                return;
            }
            let item = text[r.clone()].trim_end_matches(['.', ',', ':', ';']);
            if item.len() < 3 {
                return;
            }
            found.push((r.start, *kind, item));
            fresh.push(r);
        });
        taken = merged(taken, fresh);
    }
    found.sort_by_key(|&(at, _, _)| at);
    let mut seen: HashSet<(EvidenceKind, &str), foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(found.len(), Default::default());
    found
        .into_iter()
        .filter(|&(_, kind, item)| seen.insert((kind, item)))
        .map(|(at, kind, item)| {
            let e = Evidence {
                kind,
                text: item.to_string(),
            };
            (at, e)
        })
        .collect()
}

/// Two sorted lists of ranges that do not overlap each other, as one sorted list.
fn merged(a: Vec<Range<usize>>, b: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.start <= y.start => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(r) => out.push(r),
            None => return out,
        }
    }
}

/// Whether an evidence item appears in `haystack`.
pub fn survives(item: &Evidence, haystack: &str) -> bool {
    haystack.contains(item.text.as_str())
}

/// The items of `items` that do not appear in the indexed text: `survives` of each, without a
/// search of the whole text per item.
pub fn lost_in<'e>(
    items: impl Iterator<Item = &'e Evidence> + Clone,
    haystack: &super::TextIndex,
) -> impl Iterator<Item = &'e Evidence> {
    let texts: Vec<&str> = items.clone().map(|e| e.text.as_str()).collect();
    let found = haystack.longest_prefixes(&texts);
    items
        .zip(found)
        .zip(texts)
        .filter(|((_, f), t)| super::index::clamped(*f, t.len()) < t.len())
        .map(|((e, _), _)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_boundaries_are_ascii_so_a_letter_outside_ascii_makes_one() {
        let found = extract("café1234 and résumé/notes/draft.md");
        let texts: Vec<&str> = found.iter().map(|e| e.text.as_str()).collect();
        assert!(texts.contains(&"1234"), "{texts:?}");
        assert!(texts.contains(&"résumé/notes/draft.md"), "{texts:?}");
    }

    #[test]
    fn finds_paths_numbers_identifiers_and_urls() {
        let t = "edited src/main.rs and /etc/hosts, see https://example.com/x?y=1 — exit 127, took 1,234 ms in parse_args and fooBar";
        let items: Vec<(EvidenceKind, &str)> = Vec::leak(extract(t))
            .iter()
            .map(|e| (e.kind, e.text.as_str()))
            .collect();
        assert!(
            items.contains(&(EvidenceKind::Path, "src/main.rs")),
            "{items:?}"
        );
        assert!(
            items.contains(&(EvidenceKind::Path, "/etc/hosts")),
            "{items:?}"
        );
        assert!(
            items.contains(&(EvidenceKind::Url, "https://example.com/x?y=1")),
            "{items:?}"
        );
        assert!(items.contains(&(EvidenceKind::Number, "127")), "{items:?}");
        assert!(
            items.contains(&(EvidenceKind::Number, "1,234")),
            "{items:?}"
        );
        assert!(
            items.contains(&(EvidenceKind::Identifier, "parse_args")),
            "{items:?}"
        );
        assert!(
            items.contains(&(EvidenceKind::Identifier, "fooBar")),
            "{items:?}"
        );
    }

    /// Every pattern as a regex, in order.
    fn regexes() -> Vec<(EvidenceKind, Regex)> {
        [
            (EvidenceKind::Url, URL),
            (EvidenceKind::Path, PATH),
            (EvidenceKind::Number, NUMBER),
            (EvidenceKind::Identifier, IDENTIFIER),
        ]
        .into_iter()
        .map(|(k, p)| (k, Regex::new(p).unwrap()))
        .collect()
    }

    /// The extraction as it was first written (every regex match against every taken range,
    /// every item against every kept one): the linear one, with its scans, must agree with it.
    fn quadratic_extract(text: &str) -> Vec<Evidence> {
        let mut found: Vec<(usize, Evidence)> = Vec::new();
        let mut taken: Vec<Range<usize>> = Vec::new();
        for (kind, re) in regexes() {
            for m in re.find_iter(text) {
                let r = m.range();
                if taken.iter().any(|t| t.start < r.end && r.start < t.end) {
                    continue;
                }
                let item = m.as_str().trim_end_matches(['.', ',', ':', ';']);
                if item.len() < 3 {
                    continue;
                }
                taken.push(r.clone());
                let text = item.to_string();
                found.push((r.start, Evidence { kind, text }));
            }
        }
        found.sort_by_key(|(at, _)| *at);
        let mut out: Vec<Evidence> = Vec::new();
        for (_, e) in found {
            if !out.contains(&e) {
                out.push(e);
            }
        }
        out
    }

    #[test]
    fn the_linear_extraction_agrees_with_the_quadratic_one() {
        let texts = [
            "edited src/main.rs and /etc/hosts, see https://example.com/a/b.rs?y=1 — exit 127 in parse_args",
            "ran cargo test: 1,234 passed; see ./target/debug/x.log and fooBar.rs, then a.txt, a.txt, 12.",
            "https://x.io/p/q.py 4242 /usr/lib/x86_64/libc.so.6 snake_case_id CamelCaseId 3.14159 ab.md",
        ];
        for t in texts {
            assert_eq!(extract(t), quadratic_extract(t), "{t}");
            for (at, e) in extract_at(t) {
                assert_eq!(&t[at..at + e.text.len()], e.text, "{t}");
            }
        }
        let long: String = texts.concat().repeat(50);
        assert_eq!(extract(&long), quadratic_extract(&long));
    }

    #[test]
    fn each_item_once_and_survival_is_substring() {
        let items = extract("a.txt then a.txt again");
        assert_eq!(items.len(), 1);
        assert!(survives(&items[0], "I edited a.txt"));
        assert!(!survives(&items[0], "I edited b.txt"));
    }
}
