//! The index's work against the size of what it answers: doubling the text and the strings
//! asked at most a little more than doubles the work, on text that repeats itself as sessions
//! do (a small vocabulary, log lines that share their first 30 bytes, code lines read again and
//! again), with the strings cut short, changed or missing as a summarizer input has them.

use super::TextIndex;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "the",
    "compaction",
    "history",
    "message",
    "tool",
    "result",
    "summary",
    "token",
    "window",
    "agent",
    "session",
    "because",
    "returns",
    "performance",
    "benchmark",
    "request",
    "Python",
    "latency",
    "cache",
    "dependency",
    "response",
    "model",
    "check",
    "fix",
    "it's",
    "with",
];

/// `lines` raw lines of three kinds, from `seed`.
fn raw_lines(seed: u64, lines: usize) -> Vec<String> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..lines)
        .map(|i| match next() % 3 {
            0 => (0..8 + next() % 8)
                .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(" "),
            1 => format!(
                "2026-11-30T10:00:00.000Z INFO [agent::loop] request_id={:08x} took {}ms",
                next() % 5000,
                i % 97
            ),
            _ => "    let value: serde_json::Value = serde_json::from_str(line)?;".to_string(),
        })
        .collect()
}

/// The input a summarizer might be shown of `raw`: most lines whole, some cut to a preview,
/// some changed, some left out.
fn input_of(raw: &[String]) -> String {
    raw.iter()
        .enumerate()
        .filter_map(|(i, l)| match i % 7 {
            0 => None,
            1 => Some(l.chars().take(20).collect::<String>()),
            2 => Some(format!("{l} (edited)")),
            _ => Some(l.clone()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The work of answering every raw line against the input, the way the diff asks.
fn work_for(seed: u64, lines: usize) -> u64 {
    let raw = raw_lines(seed, lines);
    let ix = TextIndex::new(input_of(&raw));
    let mut waiting: Vec<&[u8]> = Vec::new();
    for l in &raw {
        if let Err(cut) = ix.quick_prefix(l) {
            waiting.push(&l.as_bytes()[..cut]);
        }
    }
    ix.longest_prefixes_of(&waiting);
    ix.work()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn doubling_the_input_at_most_a_little_more_than_doubles_the_work(seed in 1u64..u64::MAX) {
        let one = work_for(seed, 20_000);
        let two = work_for(seed, 40_000);
        prop_assert!(
            two as f64 <= 2.3 * one as f64,
            "work {one} for 20,000 lines, {two} for 40,000"
        );
    }
}
