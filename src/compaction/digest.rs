//! The offline summary: what ctxray writes in place of a model's summary when no network
//! summarizer is asked for. Deterministic and extractive — it quotes the summarized range, it
//! never invents: the user's goals, the tools run and their outcomes, the files named, the
//! errors, and the last thing the assistant said.
//!
//! Owns: the generic digest. A preset whose framework has its own offline text (a fallback
//! digest) returns that instead, from `Preset::offline_summary`. Must not: do IO.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use super::seen::Seen;
use crate::session::{Message, Part, Role, Session};

/// Characters quoted from one text before it is cut with `…`.
pub(crate) const QUOTE: usize = 240;
/// Lines listed per section before `… and N more`.
const LIST: usize = 12;

/// An extractive digest of the messages `indices` of `session`.
pub fn digest(session: &Session, indices: &[usize]) -> String {
    digest_with(session, indices, None)
}

/// The digest of what a summarizer is shown (`input`, the pieces of its text as joined with
/// line breaks): every quote cut where the input's words stop holding it, tools and files the
/// input does not name left out. The digest is written twice: first to learn every word it
/// can ask about, then with the input's answers for those words alone.
pub fn digest_seen(session: &Session, indices: &[usize], input: &[&str]) -> String {
    let asking = Seen::asking();
    digest_with(session, indices, Some(&asking));
    digest_with(session, indices, Some(&Seen::among(input, asking)))
}

/// `digest_seen` of an input whose pieces are made one at a time (`pieces` gives them anew
/// each time it is called; `total`: their bytes joined with line breaks).
pub fn digest_seen_made<S: AsRef<str>, I: Iterator<Item = S>>(
    session: &Session,
    indices: &[usize],
    pieces: impl FnOnce() -> I,
    total: usize,
) -> String {
    let asking = Seen::asking();
    digest_with(session, indices, Some(&asking));
    digest_with(
        session,
        indices,
        Some(&Seen::among_made(pieces(), total, asking)),
    )
}

fn digest_with(session: &Session, indices: &[usize], seen: Option<&Seen>) -> String {
    let shown = |text: String| -> Option<String> {
        match seen {
            Some(s) => s.clip(&text),
            None => Some(text),
        }
    };
    let named = |text: &str| seen.is_none_or(|s| s.holds_all(text));
    let messages: Vec<&Message> = indices
        .iter()
        .filter_map(|&i| session.messages.get(i))
        .collect();
    let first = indices.iter().min().copied().unwrap_or(0);
    let last = indices.iter().max().copied().unwrap_or(0);
    let mut out = format!(
        "Offline digest of {} earlier messages (#{first}–#{last}), quoted from {} without a model.\n",
        messages.len(),
        if seen.is_some() { "what the summarizer is shown" } else { "the history" }
    );
    let goals: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::User && !m.holds_only_tool_results())
        .filter_map(|m| first_text(m))
        .filter_map(shown)
        .collect();
    section(&mut out, "User requests", &goals);
    let results = results_by_call(&messages);
    let mut tools = Vec::new();
    for m in &messages {
        for part in &m.parts {
            let Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } = part
            else {
                continue;
            };
            if !named(name) {
                continue;
            }
            let outcome = match results.get(id.as_str()) {
                Some((true, text)) => shown(quote(text, 120)).map(|t| format!(" → error: {t}")),
                Some((false, text)) => shown(quote(text, 120)).map(|t| format!(" → {t}")),
                None => Some(" → no result in this range".to_string()),
            };
            // Arguments cut to a key or two say nothing: shown only with some of their values.
            let args = shown(quote(arguments, 160))
                .filter(|a| seen.is_none() || Seen::word_count(a) >= 2)
                .map(|a| format!(" {a}"))
                .unwrap_or_default();
            tools.push(format!("{name}{args}{}", outcome.unwrap_or_default()));
        }
    }
    let errors: Vec<String> = results
        .list
        .iter()
        .filter(|(is_error, _)| *is_error)
        .filter_map(|(_, text)| shown(quote(text, QUOTE)))
        .collect();
    section(&mut out, &format!("Tools run ({})", tools.len()), &tools);
    let files: Vec<String> = files_named(&messages)
        .into_iter()
        .filter(|f| named(f))
        .collect();
    section(&mut out, "Files named", &files);
    section(&mut out, "Errors", &errors);
    if let Some(text) = messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .find_map(|m| first_text(m).and_then(shown))
    {
        let _ = write!(out, "\nLast assistant message:\n{text}\n");
    }
    out
}

pub(crate) fn section(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}:");
    for l in lines.iter().take(LIST) {
        let _ = writeln!(out, "- {l}");
    }
    if lines.len() > LIST {
        let _ = writeln!(out, "- … and {} more", lines.len() - LIST);
    }
}

/// The first non-empty text of a message, on one line and quoted short.
fn first_text(m: &Message) -> Option<String> {
    m.parts.iter().find_map(|p| match p {
        Part::Text { text } | Part::Summary { text } if !text.trim().is_empty() => {
            Some(quote(text, QUOTE))
        }
        _ => None,
    })
}

/// `call id → (is error, result text)` of the tool results in the range, in the order they
/// come (the first result of a call id wins).
fn results_by_call<'a>(messages: &[&'a Message]) -> Results<'a> {
    let mut out = Results::default();
    for p in messages.iter().flat_map(|m| &m.parts) {
        if let Part::ToolResult {
            call_id,
            content,
            is_error,
        } = p
        {
            if out.at.contains_key(call_id.as_str()) {
                continue;
            }
            // Lent when the result is one text: only a quote of its start is read.
            let text = match content.as_slice() {
                [Part::Text { text }] => Cow::Borrowed(text.as_str()),
                _ => Cow::Owned(
                    content
                        .iter()
                        .map(Part::plain_text)
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            };
            out.at.insert(call_id.as_str(), out.list.len());
            out.list.push((*is_error == Some(true), text));
        }
    }
    out
}

#[derive(Default)]
struct Results<'a> {
    at: HashMap<&'a str, usize>,
    list: Vec<(bool, Cow<'a, str>)>,
}

impl<'a> Results<'a> {
    fn get(&self, id: &str) -> Option<&(bool, Cow<'a, str>)> {
        self.at.get(id).map(|&i| &self.list[i])
    }
}

/// Paths that tool arguments name (values of keys such as `path`, `file_path`, `filename`).
fn files_named(messages: &[&Message]) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for m in messages {
        for p in &m.parts {
            let Part::ToolCall { arguments, .. } = p else {
                continue;
            };
            let Ok(serde_json::Value::Object(args)) = serde_json::from_str(arguments) else {
                continue;
            };
            for (key, value) in &args {
                if let (true, Some(v)) = (is_path_key(key), value.as_str()) {
                    files.insert(v.to_string());
                }
            }
        }
    }
    files
}

/// Whether a tool argument of this name holds a file path.
pub(crate) fn is_path_key(key: &str) -> bool {
    matches!(
        key,
        "path" | "file_path" | "filepath" | "filename" | "file" | "notebook_path"
    )
}

/// `text` on one line, cut at `max` characters with `…`.
pub(crate) fn quote(text: &str, max: usize) -> String {
    // Read only as far as the quote goes: a text of megabytes is quoted in its first words.
    let mut line = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        for c in (!line.is_empty())
            .then_some(' ')
            .into_iter()
            .chain(word.chars())
        {
            if chars == max {
                line.push('…');
                return line;
            }
            line.push(c);
            chars += 1;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role, 0);
        m.parts = parts;
        m
    }

    #[test]
    fn quotes_goals_tools_outcomes_files_errors_and_the_last_word() {
        let mut s = Session::new(crate::session::Format::OPENAI_CHAT, "t", Default::default());
        s.messages = vec![
            message(
                Role::User,
                vec![Part::Text {
                    text: "Fix the parser\n bug".into(),
                }],
            ),
            message(
                Role::Assistant,
                vec![
                    Part::Text {
                        text: "Reading it.".into(),
                    },
                    Part::ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        arguments: r#"{"path":"src/parse.rs"}"#.into(),
                        server: false,
                    },
                    Part::ToolCall {
                        id: "c2".into(),
                        name: "bash".into(),
                        arguments: r#"{"command":"cargo test"}"#.into(),
                        server: false,
                    },
                ],
            ),
            message(
                Role::Tool,
                vec![
                    Part::ToolResult {
                        call_id: "c1".into(),
                        content: vec![Part::Text {
                            text: "fn parse() {}".into(),
                        }],
                        is_error: None,
                    },
                    Part::ToolResult {
                        call_id: "c2".into(),
                        content: vec![Part::Text {
                            text: "test failed: header".into(),
                        }],
                        is_error: Some(true),
                    },
                ],
            ),
            message(
                Role::Assistant,
                vec![Part::Text {
                    text: "The header test fails.".into(),
                }],
            ),
        ];
        let d = digest(&s, &[0, 1, 2, 3]);
        let expected =
            "Offline digest of 4 earlier messages (#0–#3), quoted from the history without a model.

User requests:
- Fix the parser bug

Tools run (2):
- read {\"path\":\"src/parse.rs\"} → fn parse() {}
- bash {\"command\":\"cargo test\"} → error: test failed: header

Files named:
- src/parse.rs

Errors:
- test failed: header

Last assistant message:
The header test fails.
";
        assert_eq!(d, expected);
        assert_eq!(digest(&s, &[1]).lines().nth(2).unwrap(), "Tools run (2):");
        assert!(digest(&s, &[1]).contains("→ no result in this range"));
    }

    proptest::proptest! {
        /// A quote is the text's words joined by one space, cut after `max` characters with
        /// `…`, as when the whole text was joined first.
        #[test]
        fn a_quote_is_the_joined_words_cut(text in "[ab é\t\n\u{3000}]{0,40}", max in 0usize..30) {
            let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let want = if line.chars().count() <= max {
                line
            } else {
                format!("{}…", line.chars().take(max).collect::<String>())
            };
            proptest::prop_assert_eq!(quote(&text, max), want);
        }
    }

    /// Written twice, first asking which words it needs, the digest is the one written with
    /// every word of the input at hand: over every preset's request of several fixtures, and a
    /// history whose last assistant text the input does not hold (an answer that sends a search
    /// on past where the first writing stopped).
    #[test]
    fn the_words_asked_give_the_digest_all_words_give() {
        use crate::compaction::preset::PlanInput;
        let whole = |session: &Session, indices: &[usize], input: &[&str]| {
            digest_with(session, indices, Some(&Seen::of(input)))
        };
        let mut compared = 0;
        for &file in crate::testing::FORMATS {
            let a = crate::testing::analysed(file);
            let input = PlanInput::new(&a);
            for p in crate::compaction::presets::all() {
                let Some(plan) = crate::testing::fired(&input, p) else {
                    continue;
                };
                let shown: Vec<&str> = plan.summarizer.iter().map(|m| m.content.as_str()).collect();
                let summarized = &plan.split.summarized;
                assert_eq!(
                    digest_seen(&a.session, summarized, &shown),
                    whole(&a.session, summarized, &shown),
                    "{} {file}",
                    p.name()
                );
                compared += 1;
            }
        }
        assert!(compared >= 40, "{compared}");
        let mut s = Session::new(crate::session::Format::OPENAI_CHAT, "t", Default::default());
        let text = |t: &str| vec![Part::Text { text: t.into() }];
        s.messages = vec![
            message(Role::User, text("fix the bug")),
            message(Role::Assistant, text("held words only")),
            message(Role::Assistant, text("unshown reply")),
        ];
        let input = ["fix the bug", "held words only"];
        let digest = digest_seen(&s, &[0, 1, 2], &input);
        assert_eq!(digest, whole(&s, &[0, 1, 2], &input));
        assert!(
            digest.contains("Last assistant message:\nheld words only"),
            "{digest}"
        );
    }
}
