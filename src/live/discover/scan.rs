//! The cheap look inside one session file: its title and how many message records it holds.
//!
//! Owns: reading a file (whole up to a size cap, else only its head), walking its JSONL lines
//! with the lexical key finder, and fully parsing only the few lines that can carry a title.
//! Must not build a `Session`, count tokens, or fail: anything odd yields `None`s.

use std::io::{self, Read};
use std::path::Path;

use serde_json::Value;

use super::bytes::{str_of, value_of, Line, Lines};

/// What the scan learned about one session.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Scan {
    pub(super) title: Option<String>,
    pub(super) messages: Option<usize>,
}

/// The bytes to scan: the whole file when it is at most `cap` bytes (`true`), else its first
/// `head` bytes (`false`).
pub(super) fn read_capped(
    path: &Path,
    size: u64,
    cap: u64,
    head: u64,
) -> io::Result<(Vec<u8>, bool)> {
    let whole = size <= cap;
    let limit = if whole { cap } else { head };
    let mut bytes = Vec::new();
    crate::limits::open_regular(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok((bytes, whole))
}

/// The lines worth looking at: every complete line, and the unterminated last one only if it is
/// a whole JSON value (a writer may be halfway through it). A head-only read drops its last line.
pub(super) fn lines(bytes: &[u8], whole: bool) -> impl Iterator<Item = &[u8]> {
    Lines::new(bytes).filter_map(move |Line { text, complete }| {
        let keep = complete || (whole && serde_json::from_slice::<Value>(text).is_ok());
        keep.then_some(text)
    })
}

/// Claude Code: user/assistant lines are messages; title from `custom-title` over `ai-title` over
/// `summary` (a later line of the same rank wins), else the first typed prompt.
pub(super) fn claude(bytes: &[u8], whole: bool) -> Scan {
    let mut count = 0;
    let mut titled: Option<(u8, String)> = None;
    let mut prompt: Option<String> = None;
    let mut tries = 0;
    for line in lines(bytes, whole) {
        let (rank, key) = match str_of(line, "type") {
            Some(b"user") => {
                count += 1;
                if prompt.is_none() && tries < 8 {
                    tries += 1;
                    prompt = parse(line).and_then(|v| claude_prompt(&v));
                }
                continue;
            }
            Some(b"assistant") => {
                count += 1;
                continue;
            }
            Some(b"summary") => (1, "summary"),
            Some(b"ai-title") => (2, "aiTitle"),
            Some(b"custom-title") => (3, "customTitle"),
            _ => continue,
        };
        if titled.as_ref().is_some_and(|(r, _)| *r > rank) {
            continue;
        }
        if let Some(t) =
            parse(line).and_then(|v| v.get(key).and_then(Value::as_str).and_then(clean))
        {
            titled = Some((rank, t));
        }
    }
    Scan {
        title: titled.map(|(_, t)| t).or(prompt),
        messages: whole.then_some(count),
    }
}

/// The text a person typed in a Claude Code user line: not meta, not a tool result; a slash
/// command shows as `/name args`.
fn claude_prompt(v: &Value) -> Option<String> {
    if v.get("isMeta").and_then(Value::as_bool) == Some(true)
        || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let content = v.get("message")?.get("content")?;
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    if let Some(name) = between(&text, "<command-name>", "</command-name>") {
        let args = between(&text, "<command-args>", "</command-args>").unwrap_or_default();
        return clean(&format!("{name} {args}"));
    }
    if text.trim_start().starts_with('<') {
        return None;
    }
    clean(&text)
}

/// Codex: `response_item` messages are messages; title = first real user message (injected
/// context such as `<environment_context>` skipped), from the item or a `user_message` event.
pub(super) fn codex(bytes: &[u8], whole: bool) -> Scan {
    let mut count = 0;
    let mut title: Option<String> = None;
    for line in lines(bytes, whole) {
        let Some(payload) = value_of(line, "payload") else {
            continue;
        };
        match (str_of(line, "type"), str_of(payload, "type")) {
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
    Scan {
        title,
        messages: whole.then_some(count),
    }
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

/// One line parsed as JSON (only ever done for the few lines that may carry a title).
pub(super) fn parse(line: &[u8]) -> Option<Value> {
    serde_json::from_slice(line).ok()
}

/// The text between the first `open` and the following `close`.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let rest = text.get(start..)?;
    rest.find(close).and_then(|end| rest.get(..end))
}

/// Longest title kept, in characters.
const TITLE_CHARS: usize = 160;

/// A one-line title: whitespace runs collapsed, at most `TITLE_CHARS` characters (`…` marks a
/// cut); `None` when nothing is left.
pub(super) fn clean(text: &str) -> Option<String> {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > TITLE_CHARS {
            let cut: String = out.chars().take(TITLE_CHARS - 1).collect();
            return Some(format!("{}…", cut.trim_end()));
        }
    }
    (!out.is_empty()).then_some(out)
}
