//! Where Claude Code keeps its sessions, and the cheap look inside one.
//!
//! Owns: `projects/*/*.jsonl` under the root (legacy `agent-*.jsonl` subagent files are left to
//! their session; subagents in `<sid>/subagents/` are below the glob), the message-record
//! count and the title. Must not build a `Session`.

use std::path::Path;

use serde_json::Value;

use crate::formats::home::bytes::str_of;
use crate::formats::home::peek::{between, clean, lines, parse};
use crate::formats::home::{Finder, Peek};

/// Every session file of the projects under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    for project in finder.dirs(&root.join("projects")) {
        for file in finder.list(&project.path) {
            let name = file.name();
            if file.is_file() && name.ends_with(".jsonl") && !name.starts_with("agent-") {
                finder.file(file, |_, bytes, whole| peek(bytes, whole));
            }
        }
    }
}

/// Claude Code: user/assistant lines are messages; title from `custom-title` over `ai-title` over
/// `summary` (a later line of the same rank wins), else the first typed prompt.
fn peek(bytes: &[u8], whole: bool) -> Peek {
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
    Peek {
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
