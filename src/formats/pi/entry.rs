//! pi entries turned into messages.
//!
//! Owns: what the model sees of each entry, following pi's `convertToLlm` (`messages.ts`) and
//! `buildSessionContext` (`session-manager.ts`): `user`, `assistant` and `toolResult` messages
//! as they are; a `bashExecution` (a `!` command) as the user text `bashExecutionToText` makes,
//! unless `excludeFromContext`; `custom` messages and `custom_message` entries as user turns;
//! branch and compaction summaries as `Summary` parts; a `compaction` entry as a mark followed
//! by its summary. Settings entries (`thinking_level_change`, `model_change`, `label`,
//! `session_info`, `custom`) are not sent and make no message.

use serde_json::Value;

use crate::formats::common::{str_at, to_json, u64_at, Item};
use crate::formats::image;
use crate::session::{CompactionMark, Message, Part, Role, Session, Usage};

/// Reads one entry (not the header) into `session`. `model` is the model last switched to.
pub(super) fn read(session: &mut Session, item: &Item<'_>, model: &mut Option<String>) {
    let v = item.value;
    match str_at(v, "type") {
        Some("message") => match v.get("message") {
            Some(m) if m.is_object() => message(session, item, m, model),
            _ => session.skip(item.index + 1, "a pi message entry without its message"),
        },
        Some("compaction") => compaction(session, item),
        Some("branch_summary") => match str_at(v, "summary") {
            Some(text) => push(session, item, Role::User, summary(text), None),
            None => session.skip(item.index + 1, "a pi branch_summary without its summary"),
        },
        Some("custom_message") => match content(v.get("content")) {
            Some(parts) => push(session, item, Role::User, parts, None),
            None => session.skip(item.index + 1, "a pi custom_message without content"),
        },
        Some("model_change") => {
            if let Some(id) = str_at(v, "modelId") {
                *model = Some(id.to_string());
            }
        }
        Some("thinking_level_change" | "label" | "session_info" | "custom") => {}
        other => {
            let kind = other.unwrap_or("entry").to_string();
            let raw = to_json(v);
            push(
                session,
                item,
                Role::Event,
                vec![Part::Opaque { kind, raw }],
                None,
            );
        }
    }
}

fn message(session: &mut Session, item: &Item<'_>, m: &Value, model: &mut Option<String>) {
    let line = item.index + 1;
    match str_at(m, "role") {
        Some("user") => match content(m.get("content")) {
            Some(parts) => push(session, item, Role::User, parts, None),
            None => session.skip(line, "a pi user message without content"),
        },
        Some("assistant") => assistant(session, item, m, model),
        Some("toolResult") => {
            let Some(call_id) = str_at(m, "toolCallId") else {
                return session.skip(line, "a pi toolResult without toolCallId");
            };
            let part = Part::ToolResult {
                call_id: call_id.to_string(),
                content: content(m.get("content")).unwrap_or_default(),
                is_error: m.get("isError").and_then(Value::as_bool),
            };
            push(session, item, Role::Tool, vec![part], None);
        }
        Some("bashExecution") => {
            let Some(command) = str_at(m, "command") else {
                return session.skip(line, "a pi bashExecution without its command");
            };
            if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                let raw = to_json(m);
                let part = Part::Opaque {
                    kind: "bashExecution".to_string(),
                    raw,
                };
                return push(session, item, Role::Event, vec![part], None);
            }
            let text = bash_text(command, m);
            push(session, item, Role::User, vec![Part::text(text)], None);
        }
        Some("custom" | "hookMessage") => match content(m.get("content")) {
            Some(parts) => push(session, item, Role::User, parts, None),
            None => session.skip(line, "a pi custom message without content"),
        },
        Some("branchSummary" | "compactionSummary") => match str_at(m, "summary") {
            Some(text) => push(session, item, Role::User, summary(text), None),
            None => session.skip(line, "a pi summary message without its summary"),
        },
        other => {
            let kind = other.unwrap_or("message").to_string();
            let raw = to_json(m);
            push(
                session,
                item,
                Role::Event,
                vec![Part::Opaque { kind, raw }],
                None,
            );
        }
    }
}

/// An assistant turn: text, thinking and tool calls, its usage and model. A turn with no
/// blocks (an aborted or failed request) is an event holding its `errorMessage`, without
/// usage (nothing it counted reached the context).
fn assistant(session: &mut Session, item: &Item<'_>, m: &Value, model: &mut Option<String>) {
    let Some(blocks) = m.get("content").and_then(Value::as_array) else {
        return session.skip(item.index + 1, "a pi assistant message without content");
    };
    if let Some(id) = str_at(m, "model") {
        *model = Some(id.to_string());
    }
    let usage = m.get("usage").and_then(usage);
    if blocks.is_empty() {
        let Some(error) = str_at(m, "errorMessage") else {
            return session.skip(item.index + 1, "a pi assistant message with no content");
        };
        let part = Part::Opaque {
            kind: str_at(m, "stopReason").unwrap_or("error").to_string(),
            raw: error.to_string(),
        };
        return push(session, item, Role::Event, vec![part], None);
    }
    let parts = blocks.iter().map(block).collect();
    push(session, item, Role::Assistant, parts, usage);
    if let Some(last) = session.messages.last_mut() {
        last.model = model.clone();
    }
}

/// One assistant content block.
fn block(b: &Value) -> Part {
    match str_at(b, "type") {
        Some("text") => Part::text(str_at(b, "text").unwrap_or("")),
        Some("thinking") => {
            let text = str_at(b, "thinking").unwrap_or("");
            let redacted = b.get("redacted").and_then(Value::as_bool) == Some(true);
            let opaque_len = match str_at(b, "thinkingSignature") {
                Some(sig) if redacted || text.is_empty() => sig.len(),
                _ => 0,
            };
            Part::Reasoning {
                text: text.to_string(),
                opaque_len,
            }
        }
        Some("toolCall") => Part::ToolCall {
            id: str_at(b, "id").unwrap_or("").to_string(),
            name: str_at(b, "name").unwrap_or("").to_string(),
            arguments: b.get("arguments").map_or_else(String::new, to_json),
            server: false,
        },
        Some("image") => image_part(b),
        other => Part::Opaque {
            kind: other.unwrap_or("block").to_string(),
            raw: to_json(b),
        },
    }
}

/// `content`: a string, or text and image blocks. `None` when absent or of another type.
fn content(v: Option<&Value>) -> Option<Vec<Part>> {
    match v? {
        Value::String(s) => Some(vec![Part::text(s.as_str())]),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .map(|b| match str_at(b, "type") {
                    Some("text") => Part::text(str_at(b, "text").unwrap_or("")),
                    Some("image") => image_part(b),
                    other => Part::Opaque {
                        kind: other.unwrap_or("block").to_string(),
                        raw: to_json(b),
                    },
                })
                .collect(),
        ),
        _ => None,
    }
}

/// pi-ai's `ImageContent`: base64 `data` and its `mimeType`.
fn image_part(b: &Value) -> Part {
    Part::Image(image::from_base64(
        str_at(b, "mimeType"),
        str_at(b, "data").unwrap_or(""),
    ))
}

/// pi-ai's `Usage`: `input` counts the prompt tokens not read from or written to the cache
/// (every provider subtracts the cached ones), so the context is input + cacheRead +
/// cacheWrite.
fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "input");
    let output = u64_at(u, "output");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input,
        output,
        cache_read: u64_at(u, "cacheRead"),
        cache_write: u64_at(u, "cacheWrite"),
        total: u64_at(u, "totalTokens"),
        input_includes_cache: false,
        ..Usage::default()
    })
}

/// The user text pi sends for a `!` command (`bashExecutionToText`).
fn bash_text(command: &str, m: &Value) -> String {
    let mut text = format!("Ran `{command}`\n");
    match str_at(m, "output").filter(|o| !o.is_empty()) {
        Some(output) => text.push_str(&format!("```\n{output}\n```")),
        None => text.push_str("(no output)"),
    }
    let exit = m.get("exitCode").and_then(Value::as_i64);
    if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = exit.filter(|c| *c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    let truncated = m.get("truncated").and_then(Value::as_bool) == Some(true);
    if let Some(path) = str_at(m, "fullOutputPath").filter(|_| truncated) {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

/// A compaction entry: the mark, then its summary as the user turn pi puts in its place.
fn compaction(session: &mut Session, item: &Item<'_>) {
    let Some(text) = str_at(item.value, "summary") else {
        return session.skip(item.index + 1, "a pi compaction without its summary");
    };
    let from_hook = item.value.get("fromHook").and_then(Value::as_bool) == Some(true);
    session.mark(CompactionMark {
        kind: "compaction".to_string(),
        source_index: item.index,
        before_message: 0,
        trigger: from_hook.then(|| "extension".to_string()),
        pre_tokens: u64_at(item.value, "tokensBefore"),
        post_tokens: None,
        summary: Some(text.to_string()),
    });
    push(session, item, Role::User, summary(text), None);
}

fn summary(text: &str) -> Vec<Part> {
    vec![Part::Summary {
        text: text.to_string(),
    }]
}

fn push(
    session: &mut Session,
    item: &Item<'_>,
    role: Role,
    parts: Vec<Part>,
    usage: Option<Usage>,
) {
    let v = item.value;
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.timestamp = str_at(v, "timestamp").map(str::to_string);
    msg.id = str_at(v, "id").map(str::to_string);
    msg.parts = parts;
    msg.usage = usage;
    session.push(msg);
}
