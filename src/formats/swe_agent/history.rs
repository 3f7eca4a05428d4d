//! SWE-agent `history` items → messages, as `_history_to_messages` in
//! `sweagent/agent/models.py` sends them: `role` and `content` (a string or a list of typed
//! parts), an assistant's `tool_calls` (Chat Completions shape) and `thinking_blocks`, a tool
//! message answering `tool_call_ids[0]`. `thought` and `action` repeat what `content` and
//! `tool_calls` hold and are not sent, so they are not read.

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, Item};
use crate::formats::shared::{call_id, opaque};
use crate::session::{Message, Part, Role, Session};

/// Pushes one message per history item; an item that is not a message is reported.
pub(super) fn read(session: &mut Session, items: &[Item<'_>]) {
    for item in items {
        match message(item) {
            Ok(msg) => {
                session.push(msg);
            }
            Err(why) => session.skip(item.index + 1, why),
        }
    }
}

fn message(item: &Item<'_>) -> Result<Message, String> {
    let v = item.value;
    let role_name = str_at(v, "role").ok_or("a history item without a `role`")?;
    let role = Role::parse(role_name).ok_or_else(|| format!("unknown role `{role_name}`"))?;
    let content = v.get("content").ok_or("a history item without `content`")?;
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    if role == Role::Tool {
        let ids = v.get("tool_call_ids").and_then(Value::as_array);
        let id = ids
            .and_then(|ids| ids.first())
            .and_then(Value::as_str)
            .ok_or("a tool message without `tool_call_ids`")?;
        msg.parts.push(Part::ToolResult {
            call_id: id.to_string(),
            content: content_parts(content),
            is_error: None,
        });
        return Ok(msg);
    }
    let blocks = v.get("thinking_blocks").and_then(Value::as_array);
    msg.parts
        .extend(blocks.into_iter().flatten().map(thinking_block));
    msg.parts.extend(content_parts(content));
    let calls = v.get("tool_calls").and_then(Value::as_array);
    for (n, call) in calls.into_iter().flatten().enumerate() {
        let function = call.get("function").unwrap_or(&Value::Null);
        msg.parts.push(Part::ToolCall {
            id: call_id(str_at(call, "id"), item.index, n),
            name: str_at(function, "name").unwrap_or_default().to_string(),
            arguments: arguments_text(function.get("arguments")),
            server: false,
        });
    }
    Ok(msg)
}

/// `content`: a string, or a list of parts (`text`, `image_url`); anything else kept opaque.
fn content_parts(content: &Value) -> Vec<Part> {
    match content {
        Value::Null => Vec::new(),
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![Part::text(s.as_str())],
        Value::Array(items) => items
            .iter()
            .map(|p| match (str_at(p, "type"), str_at(p, "text")) {
                (Some("text"), Some(text)) => Part::text(text),
                (kind, _) => opaque(kind.unwrap_or("content"), p),
            })
            .collect(),
        other => vec![opaque("content", other)],
    }
}

/// litellm's `thinking_blocks`: visible thinking, or a redacted blob counted by its length.
fn thinking_block(b: &Value) -> Part {
    match str_at(b, "type") {
        Some("thinking") => Part::Reasoning {
            text: str_at(b, "thinking").unwrap_or_default().to_string(),
            opaque_len: 0,
        },
        Some("redacted_thinking") => Part::Reasoning {
            text: String::new(),
            opaque_len: str_at(b, "data").map_or(0, str::len),
        },
        other => opaque(other.unwrap_or("thinking_block"), b),
    }
}
