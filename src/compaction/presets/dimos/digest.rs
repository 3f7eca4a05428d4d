//! dimos' offline digest (`_default_summarizer` of dimos/agents/compaction.py): the summary
//! `compact_history` writes without a model, or when the model summarizer raises — how many
//! messages went and from whom, the tools they called, the earliest request and the last
//! assistant report (each cut to 200 characters).
//!
//! Owns: that text, byte for byte, from the dropped messages. Must not: decide which messages
//! are dropped (the preset's cut does) or add the `[compacted history]` marker (the insertion
//! carries it).

use super::super::lc::{LcKind, LcMessage};

/// The digest of `dropped`, as `_default_summarizer(dropped)` returns it.
pub fn digest(dropped: &[&LcMessage]) -> String {
    let human = dropped.iter().filter(|m| m.kind == LcKind::Human).count();
    let ai = dropped.iter().filter(|m| m.kind == LcKind::Ai).count();
    let mut tools_used: Vec<&str> = Vec::new();
    for (name, _) in dropped.iter().flat_map(|m| &m.tool_calls) {
        if !name.is_empty() && !tools_used.contains(&name.as_str()) {
            tools_used.push(name);
        }
    }
    let mut lines = vec![format!(
        "{} earlier messages were removed to stay within the context window ({human} from the user, {ai} from the assistant).",
        dropped.len()
    )];
    if !tools_used.is_empty() {
        lines.push(format!(
            "Tools used in that period: {}.",
            tools_used.join(", ")
        ));
    }
    if let Some(first) = dropped.iter().find(|m| m.kind == LcKind::Human) {
        let text = first.first_text();
        if !text.is_empty() {
            lines.push(format!("The earliest request was: {}", head(&text, 200)));
        }
    }
    let last = dropped
        .iter()
        .rev()
        .filter(|m| m.kind == LcKind::Ai)
        .map(|m| m.first_text())
        .find(|t| !t.is_empty());
    if let Some(text) = last {
        lines.push(format!(
            "The last thing the assistant reported was: {}",
            head(&text, 200)
        ));
    }
    lines.join("\n")
}

/// `text[:n]`: the first `n` code points.
fn head(text: &str, n: usize) -> &str {
    text.char_indices()
        .nth(n)
        .map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::presets::lc::LcContent;
    use serde_json::{json, Value};

    fn m(kind: LcKind, content: Value, calls: &[&str]) -> LcMessage<'static> {
        LcMessage {
            index: 0,
            kind,
            class: kind.class_name(),
            content: LcContent::from_value(content),
            tool_calls: calls.iter().map(|n| (n.to_string(), json!({}))).collect(),
        }
    }

    #[test]
    fn counts_tools_and_the_two_quotes() {
        let msgs = [
            m(LcKind::Human, json!("  find the dock \n"), &[]),
            m(LcKind::Ai, json!("Going."), &["navigate", "camera"]),
            m(LcKind::Tool, json!("arrived"), &[]),
            m(LcKind::Ai, json!(""), &["navigate", ""]),
        ];
        let refs: Vec<&LcMessage> = msgs.iter().collect();
        assert_eq!(
            digest(&refs),
            "4 earlier messages were removed to stay within the context window (1 from the user, 2 from the assistant).\n\
             Tools used in that period: navigate, camera.\n\
             The earliest request was: find the dock\n\
             The last thing the assistant reported was: Going."
        );
    }

    #[test]
    fn quotes_are_cut_at_200_code_points() {
        let long = "é".repeat(150) + &"👩‍🔬".repeat(30);
        let msgs = [m(LcKind::Human, json!(long), &[])];
        let refs: Vec<&LcMessage> = msgs.iter().collect();
        let d = digest(&refs);
        let quote = d.lines().nth(1).unwrap();
        let quoted = quote.strip_prefix("The earliest request was: ").unwrap();
        assert_eq!(quoted.chars().count(), 200);
        assert!(quoted.starts_with(&"é".repeat(150)));
    }

    #[test]
    fn no_user_and_no_assistant_text_leave_their_lines_out() {
        let msgs = [
            m(LcKind::Ai, json!("   "), &[]),
            m(LcKind::Tool, json!("x"), &[]),
        ];
        let refs: Vec<&LcMessage> = msgs.iter().collect();
        assert_eq!(
            digest(&refs),
            "2 earlier messages were removed to stay within the context window (0 from the user, 1 from the assistant)."
        );
    }
}
