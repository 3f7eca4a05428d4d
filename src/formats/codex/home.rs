//! Where Codex keeps its rollouts, and the cheap look inside one.
//!
//! Owns: `sessions/**/rollout-*.jsonl` and `archived_sessions/*.jsonl` under the root, the
//! message-record count, the title and the working directory (`session_meta`'s `cwd`). Must not
//! build a `Session`.

use std::path::Path;

use serde_json::Value;

use crate::formats::home::bytes::{str_of, value_of};
use crate::formats::home::peek::{clean, lines, parse};
use crate::formats::home::{Finder, Peek};

/// Every rollout under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    let rollout = |n: &str| n.starts_with("rollout-") && n.ends_with(".jsonl");
    for file in finder.files_under(&root.join("sessions"), &rollout) {
        finder.file(file, |_, bytes, whole| peek(bytes, whole));
    }
    for file in finder.list(&root.join("archived_sessions")) {
        if file.is_file() && file.name().ends_with(".jsonl") {
            finder.file(file, |_, bytes, whole| peek(bytes, whole));
        }
    }
}

/// Codex: `response_item` messages are messages; title = first real user message (injected
/// context such as `<environment_context>` skipped), from the item or a `user_message` event.
fn peek(bytes: &[u8], whole: bool) -> Peek {
    let mut count = 0;
    let mut title: Option<String> = None;
    let mut cwd: Option<String> = None;
    for line in lines(bytes, whole) {
        let Some(payload) = value_of(line, "payload") else {
            continue;
        };
        match (str_of(line, "type"), str_of(payload, "type")) {
            (Some(b"session_meta"), _) if cwd.is_none() => cwd = meta_cwd(line),
            (Some(b"response_item"), Some(b"message")) => {
                count += 1;
                if title.is_none() && str_of(payload, "role") == Some(b"user") {
                    title = parse(line)
                        .and_then(|v| codex_item_text(&v))
                        .and_then(real_prompt);
                }
            }
            (Some(b"event_msg"), Some(b"user_message")) if title.is_none() => {
                title = parse(line)
                    .and_then(|v| {
                        v.get("payload")?
                            .get("message")?
                            .as_str()
                            .map(str::to_string)
                    })
                    .and_then(real_prompt);
            }
            _ => {}
        }
    }
    Peek {
        title,
        messages: whole.then_some(count),
        cwd,
    }
}

/// The non-empty `payload.cwd` of a `session_meta` line.
fn meta_cwd(line: &[u8]) -> Option<String> {
    let v = parse(line)?;
    let cwd = v.get("payload")?.get("cwd")?.as_str()?;
    (!cwd.is_empty()).then(|| cwd.to_string())
}

fn codex_item_text(v: &Value) -> Option<String> {
    let parts = v.get("payload")?.get("content")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join(" "))
}

/// Prefixes of the context Codex injects as user messages.
const INJECTED: [&str; 5] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<skills_instructions>",
];

fn real_prompt(text: String) -> Option<String> {
    let head = text.trim_start();
    if INJECTED.iter().any(|p| head.starts_with(p)) {
        return None;
    }
    clean(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cwd_comes_from_session_meta() {
        let file = concat!(
            r#"{"type":"session_meta","payload":{"id":"x","cwd":"/home/user/proj"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}"#,
            "\n",
        );
        let seen = peek(file.as_bytes(), true);
        assert_eq!(seen.cwd.as_deref(), Some("/home/user/proj"));
        assert_eq!(seen.title.as_deref(), Some("fix it"));
        let meta_only = br#"{"type":"session_meta","payload":{"cwd":""}}"#;
        assert_eq!(peek(meta_only, true).cwd, None);
    }
}
