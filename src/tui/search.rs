//! `/` search over the messages of a session: which messages hold the query, in order.
//!
//! Owns: matching (smart case: a query with no capital letter ignores case), over everything a
//! message shows — text, reasoning, summaries, tool names, arguments and results, the role.
//! Must not: know the screen; the caller moves the selection.

use crate::session::{Message, Part};

/// Indices of the messages that hold `query`, ascending.
pub fn matches(messages: &[Message], query: &str) -> Vec<usize> {
    if query.is_empty() {
        return Vec::new();
    }
    let fold = !query.chars().any(char::is_uppercase);
    let needle = if fold {
        query.to_lowercase()
    } else {
        query.to_string()
    };
    messages
        .iter()
        .filter(|m| holds(m, &needle, fold))
        .map(|m| m.index)
        .collect()
}

fn holds(m: &Message, needle: &str, fold: bool) -> bool {
    let hit = |text: &str| {
        if fold {
            contains_folded(text, needle)
        } else {
            text.contains(needle)
        }
    };
    hit(m.role.as_str()) || m.parts.iter().any(|p| part_holds(p, &hit))
}

fn part_holds(part: &Part, hit: &impl Fn(&str) -> bool) -> bool {
    match part {
        Part::ToolCall {
            name, arguments, ..
        } => hit(name) || hit(arguments),
        Part::ToolResult {
            call_id, content, ..
        } => hit(call_id) || content.iter().any(|p| part_holds(p, hit)),
        other => hit(&other.plain_text()),
    }
}

/// Case-insensitive `contains` without lowering a whole (possibly huge) text at once when it
/// is ASCII.
fn contains_folded(text: &str, needle: &str) -> bool {
    if text.is_ascii() && needle.is_ascii() {
        let (t, n) = (text.as_bytes(), needle.as_bytes());
        return n.len() <= t.len() && t.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n));
    }
    text.to_lowercase().contains(needle)
}

/// The next match after `from` (wrapping), or the previous one before it when `back`.
pub fn next(matches: &[usize], from: usize, back: bool) -> Option<usize> {
    if back {
        matches
            .iter()
            .rev()
            .find(|&&i| i < from)
            .or(matches.last())
            .copied()
    } else {
        matches
            .iter()
            .find(|&&i| i > from)
            .or(matches.first())
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Role;

    fn msg(index: usize, role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role, index);
        m.index = index;
        m.parts = parts;
        m
    }

    #[test]
    fn smart_case_over_text_tools_and_results() {
        let ms = vec![
            msg(
                0,
                Role::User,
                vec![Part::Text {
                    text: "Fix the Parser".into(),
                }],
            ),
            msg(
                1,
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "c1".into(),
                    name: "Bash".into(),
                    arguments: r#"{"command":"cargo test parser"}"#.into(),
                    server: false,
                }],
            ),
            msg(
                2,
                Role::Tool,
                vec![Part::ToolResult {
                    call_id: "c1".into(),
                    content: vec![Part::Text {
                        text: "ok: 3 passed".into(),
                    }],
                    is_error: None,
                }],
            ),
        ];
        assert_eq!(matches(&ms, "parser"), vec![0, 1]);
        assert_eq!(matches(&ms, "Parser"), vec![0]);
        assert_eq!(matches(&ms, "bash"), vec![1]);
        assert_eq!(matches(&ms, "passed"), vec![2]);
        assert_eq!(matches(&ms, "tool"), vec![2]);
        assert!(matches(&ms, "").is_empty());
        assert!(matches(&ms, "absent").is_empty());
    }

    #[test]
    fn next_wraps_both_ways() {
        let m = [2, 5, 9];
        assert_eq!(next(&m, 5, false), Some(9));
        assert_eq!(next(&m, 9, false), Some(2));
        assert_eq!(next(&m, 5, true), Some(2));
        assert_eq!(next(&m, 2, true), Some(9));
        assert_eq!(next(&[], 0, false), None);
    }
}
