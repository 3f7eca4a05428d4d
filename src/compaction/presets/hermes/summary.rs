//! What Hermes 0.19.0 does to the summarizer's text before it inserts it (`_generate_summary`):
//! think blocks stripped, secrets redacted, the "## Historical Task Snapshot" section replaced
//! by (or, when absent, prefixed with) a deterministic line quoting the newest real user turn
//! it compacted (`_ground_historical_task_snapshot`), then the handoff prefix
//! (`_with_summary_prefix`). The static fallback Hermes writes when no summary comes back is
//! inserted as it is built, not grounded.
//!
//! Owns: that text. Must not: decide where the summary goes or what else the history holds
//! (`compacted` does).

use serde_json::Value;

use super::cut::{is_summary, strip_summary_prefix};
use super::msgs::{content_text, HMsg};
use super::py;
use super::redact::redact;
use super::render::strip_think_blocks;
use super::text::SUMMARY_PREFIX;
use crate::pyrepr;

const HISTORICAL_TASK_HEADING: &str = "## Historical Task Snapshot";
/// `_ACTIVE_TASK_MAX_CHARS`.
const ACTIVE_TASK_MAX_CHARS: usize = 1400;

/// `_SYNTHETIC_USER_FLAGS` (conversation_compression).
const SYNTHETIC_USER_FLAGS: &[&str] = &[
    "_todo_snapshot_synthetic",
    "_empty_recovery_synthetic",
    "_verification_stop_synthetic",
    "_pre_verify_synthetic",
];

/// `_SYNTHETIC_USER_PREFIXES` (conversation_compression).
const SYNTHETIC_USER_PREFIXES: &[&str] = &[
    "[System: Your previous response was truncated",
    "[System: The previous response was cut off",
    "[System: Your previous tool call",
    "[Your active task list was preserved across context compression]",
    "[IMPORTANT: Background process ",
];

fn strip(s: &str) -> &str {
    s.trim_matches(py::is_space)
}

/// The text Hermes inserts for a model's `returned` summary: prefix, newline, body (no end
/// marker). `turns` are the (pruned) messages it summarized.
pub fn from_model(returned: &str, turns: &[HMsg]) -> String {
    let mut content = returned.to_string();
    let stripped = strip(&strip_think_blocks(&content)).to_string();
    if !stripped.is_empty() {
        content = stripped;
    }
    let summary = redact(strip(&content));
    with_prefix(&ground(&summary, turns))
}

/// `_with_summary_prefix`.
pub fn with_prefix(summary: &str) -> String {
    let text = strip_summary_prefix(summary);
    if text.is_empty() {
        SUMMARY_PREFIX.to_string()
    } else {
        format!("{SUMMARY_PREFIX}\n{text}")
    }
}

/// `_ground_historical_task_snapshot`.
fn ground(summary: &str, turns: &[HMsg]) -> String {
    let Some(snapshot) = task_snapshot(turns) else {
        return summary.to_string();
    };
    let body = strip_summary_prefix(summary);
    let replacement = format!("{HISTORICAL_TASK_HEADING}\n{snapshot}\n\n");
    let grounded = match task_section(&body) {
        Some((start, end)) => format!("{}{replacement}{}", &body[..start], &body[end..]),
        None => format!("{replacement}{body}"),
    };
    strip(&grounded).to_string()
}

/// The first match of `(?ms)^## Historical Task Snapshot\s*\n.*?(?=^## |\Z)` in `body`, as a
/// byte range.
fn task_section(body: &str) -> Option<(usize, usize)> {
    let line_start = |at: usize| at == 0 || body.as_bytes()[at - 1] == b'\n';
    let mut from = 0;
    while let Some(found) = body[from..].find(HISTORICAL_TASK_HEADING) {
        let start = from + found;
        from = start + HISTORICAL_TASK_HEADING.len();
        if !line_start(start) {
            continue;
        }
        let rest = &body[from..];
        let run = rest
            .char_indices()
            .find(|&(_, c)| !py::is_space(c))
            .map_or(rest.len(), |(i, _)| i);
        let Some(newline) = rest[..run].rfind('\n') else {
            continue;
        };
        let mut end = from + newline + 1;
        while end < body.len() && !(line_start(end) && body[end..].starts_with("## ")) {
            end += body[end..].chars().next().map_or(1, char::len_utf8);
        }
        return Some((start, end));
    }
    None
}

/// `_message_text` (conversation_compression).
fn message_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(Value::as_object)
            .map(|p| {
                p.get("text")
                    .filter(|v| py::truthy(v))
                    .or_else(|| p.get("content").filter(|v| py::truthy(v)))
                    .map_or(String::new(), py::str_of)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `_is_real_user_message`: a user turn that is not runtime scaffolding or a summary.
fn is_real_user(m: &HMsg) -> bool {
    if m.role() != "user" {
        return false;
    }
    if SYNTHETIC_USER_FLAGS
        .iter()
        .any(|f| m.get(f).is_some_and(py::truthy))
    {
        return false;
    }
    let text = message_text(m.content());
    let text = strip(&text);
    !text.is_empty()
        && !SYNTHETIC_USER_PREFIXES.iter().any(|p| text.starts_with(p))
        && !is_summary(&Value::String(text.to_string()))
}

/// `_latest_user_task_snapshot`.
fn task_snapshot(turns: &[HMsg]) -> Option<String> {
    turns.iter().rev().filter(|m| is_real_user(m)).find_map(|m| {
        let text = redact(strip(&content_text(m.content())));
        if text.is_empty() {
            return None;
        }
        let mut text = collapse_whitespace(&text);
        if py::len(&text) > ACTIVE_TASK_MAX_CHARS {
            let head = py::head(&text, ACTIVE_TASK_MAX_CHARS - 15).trim_end_matches(py::is_space);
            text = format!("{head} ...[truncated]");
        }
        Some(format!(
            "User asked (deterministic, from compacted turns): {}\nHistorical only; newer protected-tail messages after this summary win.",
            pyrepr::str_repr(&text)
        ))
    })
}

/// `re.sub(r"\s+", " ", text)`.
fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if py::is_space(c) {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_section_ends_at_the_next_heading_or_the_end() {
        let body = "## Goal\nx\n\n## Historical Task Snapshot  \n\nold ask\n## Next\ny";
        let (s, e) = task_section(body).unwrap();
        assert_eq!(&body[s..e], "## Historical Task Snapshot  \n\nold ask\n");
        let last = "## Historical Task Snapshot\nold";
        assert_eq!(task_section(last), Some((0, last.len())));
        assert_eq!(task_section("## Historical Task Snapshot old"), None);
        assert_eq!(task_section("x ## Historical Task Snapshot\nold"), None);
        assert_eq!(collapse_whitespace("a \n\t b\u{1f}c"), "a b c");
    }
}
