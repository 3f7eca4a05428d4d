//! Goose's stored messages as the common model.
//!
//! Owns: mapping one `messages` row onto a message, following the content items in the rows
//! Goose 1.52.0 wrote (its `MessageContent`, serde `tag = "type"`, camelCase):
//! - `text` → text; `thinking` → reasoning; `redactedThinking` → opaque reasoning;
//! - `toolRequest {id, toolCall}` → a tool call: `toolCall` is a `Result` kept as
//!   `{status: "success", value: {name, arguments}}` or `{status: "error", error}` (a call the
//!   model got wrong, kept with the error as its arguments);
//! - `toolResponse {id, toolResult}` → a tool result paired by `id`: `{status: "success",
//!   value: {content: [...], isError}}` (also taken: `value` the content list itself, not seen in
//!   a real row), or
//!   `{status: "error", error}`, an error result;
//! - any other content (`image`, `systemNotification`, `toolConfirmationRequest`, …) is kept
//!   as an opaque part.
//!
//! A user row whose content is all tool responses is a tool message. A row Goose does not send
//! to the model (`metadata_json.agentVisible: false`) and a row whose `content_json` is not a
//! list are reported as skipped, not made messages.
//!
//! Usage is `metadata_json.usage` (`inputTokens`, `outputTokens`, `totalTokens`), which Goose
//! fills from the provider with the cache counted in the input, OpenAI style.

use serde_json::Value;

use super::super::common::{str_at, to_json, u64_at};
use super::db::MessageRow;
use crate::session::{Message, Part, Role, Session, Usage};

/// One row, the `index`-th record of the session, whose bytes are `range` of the buffer.
pub fn message(session: &mut Session, row: &MessageRow, index: usize, range: (usize, usize)) {
    let meta: Value = row
        .metadata_json
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or(Value::Null);
    if meta.get("agentVisible") == Some(&Value::Bool(false)) {
        session.skip(
            index + 1,
            "a Goose message not sent to the model (agentVisible: false)",
        );
        return;
    }
    let content = match serde_json::from_str::<Value>(&row.content_json) {
        Ok(Value::Array(items)) => items,
        _ => {
            session.skip(
                index + 1,
                "a Goose message whose content_json is not a list of content",
            );
            return;
        }
    };
    let role = match row.role.as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            session.skip(
                index + 1,
                format!("a Goose message with role `{other}`: expected user or assistant"),
            );
            return;
        }
    };
    let parts: Vec<Part> = content.iter().map(part).collect();
    if parts.is_empty() {
        session.skip(index + 1, "a Goose message with no content");
        return;
    }
    let all_results = parts.iter().all(|p| matches!(p, Part::ToolResult { .. }));
    let role = if role == Role::User && all_results {
        Role::Tool
    } else {
        role
    };
    let mut m = Message::new(role, index);
    m.parts = parts;
    m.raw = Some(range.0..range.1);
    m.id = row.message_id.clone();
    m.timestamp = crate::formats::shared::iso_from_epoch(row.created as f64);
    m.model = meta
        .pointer("/inference/requestedModel")
        .and_then(Value::as_str)
        .map(str::to_string);
    m.usage = meta.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        input: u64_at(u, "inputTokens"),
        output: u64_at(u, "outputTokens"),
        total: u64_at(u, "totalTokens"),
        input_includes_cache: true,
        ..Usage::default()
    });
    session.push(m);
}

/// One content item.
fn part(item: &Value) -> Part {
    match str_at(item, "type") {
        Some("text") => match str_at(item, "text") {
            Some(text) => Part::Text {
                text: text.to_string(),
            },
            None => opaque(item),
        },
        Some("thinking") => Part::Reasoning {
            text: str_at(item, "thinking").unwrap_or_default().to_string(),
            opaque_len: 0,
        },
        Some("redactedThinking") => Part::Reasoning {
            text: String::new(),
            opaque_len: str_at(item, "data").map_or(0, str::len),
        },
        Some("toolRequest") => tool_call(item),
        Some("toolResponse") => tool_result(item),
        _ => opaque(item),
    }
}

fn tool_call(item: &Value) -> Part {
    let id = str_at(item, "id").unwrap_or_default().to_string();
    let call = item.get("toolCall").unwrap_or(&Value::Null);
    match call.get("value") {
        Some(value) if str_at(call, "status") == Some("success") => Part::ToolCall {
            id,
            name: str_at(value, "name").unwrap_or_default().to_string(),
            arguments: value.get("arguments").map(to_json).unwrap_or_default(),
            server: false,
        },
        _ => Part::ToolCall {
            id,
            name: String::new(),
            arguments: str_at(call, "error").unwrap_or_default().to_string(),
            server: false,
        },
    }
}

fn tool_result(item: &Value) -> Part {
    let call_id = str_at(item, "id").unwrap_or_default().to_string();
    let result = item.get("toolResult").unwrap_or(&Value::Null);
    if str_at(result, "status") != Some("success") {
        let error = str_at(result, "error").unwrap_or_default().to_string();
        return Part::ToolResult {
            call_id,
            content: vec![Part::Text { text: error }],
            is_error: Some(true),
        };
    }
    let value = result.get("value").unwrap_or(&Value::Null);
    let (items, is_error) = match value {
        Value::Array(items) => (items.as_slice(), None),
        v => (
            v.get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
            v.get("isError").and_then(Value::as_bool),
        ),
    };
    Part::ToolResult {
        call_id,
        content: items.iter().map(part).collect(),
        is_error,
    }
}

fn opaque(item: &Value) -> Part {
    Part::Opaque {
        kind: str_at(item, "type").unwrap_or("goose content").to_string(),
        raw: to_json(item),
    }
}
