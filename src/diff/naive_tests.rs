//! The diff held to a brute-force one: every line's longest prefix, and every tool name, call
//! id, argument and fact, looked for in the input by plain substring search. The diff's
//! shortcuts (the next line looked for just after the last, a short string inside a line found
//! whole) must change no answer.

use proptest::prelude::*;

use super::*;
use crate::session::Format;

/// Bytes of the longest prefix of `s` in `input`, as `TextIndex` reports it (the whole string,
/// or `ANCHORED` bytes and more, else 0).
fn naive_prefix(input: &str, s: &str) -> usize {
    let found = |k: usize| memchr::memmem::find(input.as_bytes(), &s.as_bytes()[..k]).is_some();
    // Every prefix of an occurring prefix occurs: the longest is found by bisection.
    let (mut lo, mut hi) = (0, s.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if found(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    index::clamped(lo, s.len())
}

fn naive(m: &Message, input: &str) -> MessageDiff {
    let texts = content_texts(m);
    let lost = |all: Vec<String>| -> Vec<String> {
        all.into_iter()
            .filter(|s| !input.contains(s.as_str()))
            .collect()
    };
    let mut names = Vec::new();
    let mut ids = Vec::new();
    let mut arguments = Vec::new();
    for part in &m.parts {
        match part {
            Part::ToolCall {
                id,
                name,
                arguments: args,
                ..
            } => {
                names.push(name.clone());
                ids.push(id.clone());
                arguments.extend(argument_values(args));
            }
            Part::ToolResult { call_id, .. } => ids.push(call_id.clone()),
            _ => {}
        }
    }
    let mut tool_names_lost: Vec<String> = Vec::new();
    for name in lost(names) {
        if !tool_names_lost.contains(&name) {
            tool_names_lost.push(name);
        }
    }
    let lines_seen: Vec<u32> = texts
        .iter()
        .flat_map(|t| t.lines().map(str::trim).filter(|l| !l.is_empty()))
        .map(|l| seen_chars(l, naive_prefix(input, l)) as u32)
        .collect();
    MessageDiff {
        index: m.index,
        role: m.role,
        raw_chars: texts.iter().map(|t| t.chars().count()).sum(),
        line_chars: texts.iter().map(|t| line_chars(t)).sum(),
        seen_chars: lines_seen.iter().map(|&n| n as usize).sum(),
        tool_names_lost,
        call_ids_lost: lost(ids),
        arguments_total: arguments.len(),
        arguments_lost: lost(arguments),
        evidence: facts(m)
            .into_iter()
            .map(|e| {
                let s = input.contains(e.text.as_str());
                (e, s)
            })
            .collect(),
        lines_seen,
    }
}

const WORDS: &[&str] = &[
    "src/main.rs",
    "parse_args",
    "4096",
    "1,234",
    "fooBar",
    "the",
    "cat",
    "https://example.com/a",
    "/etc/hosts",
    "é",
    "ok",
    "    indented",
    "x",
];

fn line() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(WORDS), 1..7).prop_map(|w| w.join(" "))
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(line(), 1..6).prop_map(|l| l.join("\n"))
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        text().prop_map(|text| Part::Text { text }),
        (line(), line(), text(), 0..100_000u32).prop_map(|(id, name, value, n)| {
            Part::ToolCall {
                id,
                name,
                arguments: serde_json::json!({"command": value, "n": n, "path": "src/main.rs"})
                    .to_string(),
                server: false,
            }
        }),
        (line(), text()).prop_map(|(call_id, text)| Part::ToolResult {
            call_id,
            content: vec![Part::Text { text }],
            is_error: None,
        }),
    ]
}

fn messages() -> impl Strategy<Value = Vec<Message>> {
    proptest::collection::vec(proptest::collection::vec(part(), 1..4), 1..5).prop_map(|all| {
        all.into_iter()
            .enumerate()
            .map(|(i, parts)| {
                let mut m = Message::new(Role::Assistant, i);
                m.index = i;
                m.parts = parts;
                m
            })
            .collect()
    })
}

/// An input made of the messages' own lines, some in order, some cut short, some repeated
/// far more often than the index compares at once, with other text between.
fn input_of(messages: &[Message], picks: &[(usize, usize, usize)]) -> String {
    let lines: Vec<String> = messages
        .iter()
        .flat_map(content_texts)
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut out = String::new();
    for &(from, cut, times) in picks {
        let chunk: String = lines
            .iter()
            .skip(from % lines.len().max(1))
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\\n");
        let mut end = cut % (chunk.len() + 1);
        while !chunk.is_char_boundary(end) {
            end -= 1;
        }
        for _ in 0..times {
            out.push_str(&chunk[..end]);
            out.push_str(" | ");
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn the_diff_agrees_with_a_brute_force_search(
        messages in messages(),
        picks in proptest::collection::vec((0..40usize, 0..400usize, prop_oneof![Just(1usize), Just(2), Just(20)]), 0..8),
        read_ahead in 0..12usize,
        at_once in 1..5usize,
        worth in 0..400usize,
    ) {
        let input = input_of(&messages, &picks);
        let mut session = Session::new(Format::OPENAI_CHAT, "t", Default::default());
        session.messages = messages;
        let indices: Vec<usize> = (0..session.messages.len()).collect();
        let d = diff_range(&session, &indices, &TextIndex::new(input.clone()));
        for (got, m) in d.messages.iter().zip(&session.messages) {
            prop_assert_eq!(got, &naive(m, &input), "{:?}", input);
        }
        // The facts of the first messages read ahead (as while a plan is made) change nothing.
        let ahead = ahead::Ahead::new(&session);
        let mut first = session.clone();
        first.messages.truncate(read_ahead);
        ahead.read(&first);
        let with = diff_range_with(&session, &indices, &TextIndex::new(input.clone()), Some(&ahead));
        prop_assert_eq!(&with, &d);
        // Messages answered a few at a time, as a large range is, are answered the same.
        let index = TextIndex::new(input.clone());
        let batched = diff_in_batches(&session, &indices, &index, None, (at_once, worth));
        prop_assert_eq!(&batched, &d);
        // Each line shown with what the summarizer sees of it, as the naive search finds.
        for (md, m) in d.messages.iter().zip(&session.messages) {
            let want: Vec<(String, usize, usize)> = content_texts(m)
                .iter()
                .flat_map(|t| t.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| (l.to_string(), l.chars().count(), seen_chars(l, naive_prefix(&input, l)))).collect::<Vec<_>>())
                .collect();
            let got: Vec<(String, usize, usize)> = message_lines(m, md).into_iter().map(|l| (l.text, l.chars, l.seen)).collect();
            prop_assert_eq!(got, want);
        }
    }
}
