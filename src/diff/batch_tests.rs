//! The diff's batches held to linear work: a range diffed a thousand messages at a time,
//! answered by a pass over the input once they hold as many characters as the input, costs no
//! more per message when the range and its input double — whether the input is as long as the
//! range or a short summary of it.

use proptest::prelude::*;

use super::*;
use crate::session::{Format, Message, Part, Role};

/// `n` messages of a few lines each, short ones among them (which only a pass can answer).
fn session_of(seed: u64, n: usize) -> Session {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut session = Session::new(Format::OPENAI_CHAT, "t", Default::default());
    session.messages = (0..n)
        .map(|i| {
            let lines: Vec<String> = (0..3)
                .map(|k| match next() % 4 {
                    0 => format!("ok {}", next() % 100),
                    _ => format!(
                        "message {i} line {k}: value {} of run {}",
                        next(),
                        next() % 977
                    ),
                })
                .collect();
            let mut m = Message::new(Role::Tool, i);
            m.index = i;
            m.parts = vec![Part::Text {
                text: lines.join("\n"),
            }];
            m
        })
        .collect();
    session
}

/// The index's work for diffing every message of a session of `n` against an input of
/// every other message whole (`long`) or of its first 400 characters.
fn work_for(seed: u64, n: usize, long: bool) -> u64 {
    let session = session_of(seed, n);
    let texts: Vec<&str> = (session.messages.iter().step_by(2))
        .filter_map(|m| match m.parts.first() {
            Some(Part::Text { text }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let mut input = texts.join("\n");
    if !long {
        input = input.chars().take(400).collect();
    }
    let index = TextIndex::new(input);
    let indices: Vec<usize> = (0..n).collect();
    let d = diff_range(&session, &indices, &index);
    assert_eq!(d.messages.len(), n);
    index.work()
}

/// The index's work for diffing `n` tool results that hold a call id and no content against
/// an input of `20 · n` bytes.
fn work_for_ids(n: usize) -> u64 {
    let mut session = Session::new(Format::OPENAI_CHAT, "t", Default::default());
    session.messages = (0..n)
        .map(|i| {
            let mut m = Message::new(Role::Tool, i);
            m.index = i;
            m.parts = vec![Part::ToolResult {
                call_id: format!("c{i}"),
                content: Vec::new(),
                is_error: None,
            }];
            m
        })
        .collect();
    let input: String = (0..n).map(|i| format!("result {i:>12} ok\n")).collect();
    let index = TextIndex::new(input);
    let indices: Vec<usize> = (0..n).collect();
    let d = diff_range(&session, &indices, &index);
    assert_eq!(d.messages.len(), n);
    index.work()
}

/// A range of little content is not answered a pass per thousand messages: doubling it and
/// its input at most a little more than doubles the work.
#[test]
fn a_range_of_call_ids_alone_is_answered_in_few_passes() {
    let (one, two) = (work_for_ids(6_000), work_for_ids(12_000));
    assert!(
        two as f64 <= 2.3 * one as f64,
        "work {one} for 6,000 results, {two} for 12,000"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]
    #[test]
    fn doubling_the_range_and_its_input_at_most_a_little_more_than_doubles_the_work(
        seed in 1u64..u64::MAX,
        long in any::<bool>(),
    ) {
        let one = work_for(seed, 6_000, long);
        let two = work_for(seed, 12_000, long);
        prop_assert!(
            two as f64 <= 2.3 * one as f64,
            "work {one} for 6,000 messages, {two} for 12,000 (input as long as the range: {long})"
        );
    }
}
