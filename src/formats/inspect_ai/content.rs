//! inspect_ai chat messages as parts: `ChatMessage{System,User,Assistant,Tool}` and their
//! `Content` blocks, with `attachment://<hash>` strings resolved from the sample's attachments.

use serde_json::{Map, Value};

use crate::formats::common::{arguments_text, str_at, to_json};
use crate::formats::image;
use crate::session::{Part, Role};

/// The sample's `attachments` (`{<hash>: text}`).
pub(super) type Attachments<'a> = Option<&'a Map<String, Value>>;

const ATTACHMENT: &str = "attachment://";

/// A string with any `attachment://<hash>` reference resolved.
pub(super) fn resolve<'a>(s: &'a str, att: Attachments<'a>) -> &'a str {
    s.strip_prefix(ATTACHMENT)
        .and_then(|hash| att?.get(hash)?.as_str())
        .unwrap_or(s)
}

/// A deep copy of `v` with every attachment reference resolved (tool-call arguments).
fn resolved(v: &Value, att: Attachments<'_>) -> Value {
    match v {
        Value::String(s) => Value::String(resolve(s, att).to_string()),
        Value::Array(items) => Value::Array(items.iter().map(|i| resolved(i, att)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), resolved(v, att)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The role and parts of one chat message.
pub(super) fn message_parts(m: &Value, att: Attachments<'_>) -> (Role, Vec<Part>) {
    let role = str_at(m, "role")
        .and_then(Role::parse)
        .unwrap_or(Role::Event);
    let mut parts = content_parts(m.get("content"), att);
    match role {
        Role::User if is_summary(m) => {
            let text = parts
                .iter()
                .map(Part::plain_text)
                .collect::<Vec<_>>()
                .join("\n");
            parts = vec![Part::Summary { text }];
        }
        Role::Assistant => {
            let calls = m.get("tool_calls").and_then(Value::as_array);
            for (n, call) in calls.into_iter().flatten().enumerate() {
                parts.push(tool_call(call, n, att));
            }
        }
        Role::Tool => {
            parts = vec![tool_result(m, parts)];
        }
        Role::Event => {
            parts = vec![Part::Opaque {
                kind: str_at(m, "role").unwrap_or("message").to_string(),
                raw: to_json(m),
            }];
        }
        _ => {}
    }
    (role, parts)
}

/// The user message a summary compaction appends (`metadata.summary == true`).
pub(super) fn is_summary(m: &Value) -> bool {
    str_at(m, "role") == Some("user")
        && m.pointer("/metadata/summary").and_then(Value::as_bool) == Some(true)
}

fn tool_call(call: &Value, n: usize, att: Attachments<'_>) -> Part {
    let arguments = call.get("arguments").map(|a| resolved(a, att));
    Part::ToolCall {
        id: str_at(call, "id").map_or_else(|| format!("call:{n}"), str::to_string),
        name: str_at(call, "function").unwrap_or_default().to_string(),
        arguments: arguments_text(arguments.as_ref()),
        server: false,
    }
}

/// A `tool` message: its content, and its `error` (`{type, message}`) which marks it failed.
/// When the content is empty the error message is what the model is told.
fn tool_result(m: &Value, mut content: Vec<Part>) -> Part {
    let error = m.get("error").filter(|e| !e.is_null());
    if let Some(message) = error.and_then(|e| str_at(e, "message")) {
        if content.is_empty() {
            content.push(Part::text(message));
        }
    }
    Part::ToolResult {
        call_id: str_at(m, "tool_call_id").unwrap_or_default().to_string(),
        content,
        is_error: error.map(|_| true),
    }
}

/// `content`: a string or a list of `Content` blocks. Empty texts are no parts.
fn content_parts(content: Option<&Value>, att: Attachments<'_>) -> Vec<Part> {
    let mut parts = Vec::new();
    match content {
        Some(Value::String(s)) => push_text(&mut parts, resolve(s, att)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                block_parts(block, att, &mut parts);
            }
        }
        _ => {}
    }
    parts
}

fn push_text(parts: &mut Vec<Part>, text: &str) {
    if !text.is_empty() {
        parts.push(Part::text(text));
    }
}

fn block_parts(block: &Value, att: Attachments<'_>, parts: &mut Vec<Part>) {
    let text = |key: &str| str_at(block, key).map(|s| resolve(s, att));
    match str_at(block, "type") {
        Some("text") => push_text(parts, text("text").unwrap_or_default()),
        Some("reasoning") => parts.push(reasoning(block, att)),
        Some("image") => {
            let mut img = image::from_url(text("image").unwrap_or_default());
            img.detail = str_at(block, "detail").map(str::to_string);
            parts.push(Part::Image(img));
        }
        Some("tool_use") => server_tool(block, att, parts),
        Some("data") => parts.push(Part::Opaque {
            kind: "data".to_string(),
            raw: block.get("data").map(to_json).unwrap_or_default(),
        }),
        other => parts.push(Part::Opaque {
            kind: other.unwrap_or("content").to_string(),
            raw: to_json(&without_payloads(block)),
        }),
    }
}

/// `reasoning{reasoning, summary?, signature?, redacted}`: when redacted, `reasoning` is the
/// encrypted blob and `summary` the visible text.
fn reasoning(block: &Value, att: Attachments<'_>) -> Part {
    let body = str_at(block, "reasoning").map_or("", |s| resolve(s, att));
    if block.get("redacted").and_then(Value::as_bool) == Some(true) {
        Part::Reasoning {
            text: str_at(block, "summary").unwrap_or_default().to_string(),
            opaque_len: body.len(),
        }
    } else {
        Part::Reasoning {
            text: body.to_string(),
            opaque_len: 0,
        }
    }
}

/// `tool_use`: a tool the provider ran itself (web search, code execution …), with its result.
fn server_tool(block: &Value, att: Attachments<'_>, parts: &mut Vec<Part>) {
    let id = str_at(block, "id").unwrap_or_default().to_string();
    let arguments = block.get("arguments").map(|a| resolved(a, att));
    parts.push(Part::ToolCall {
        id: id.clone(),
        name: str_at(block, "name").unwrap_or_default().to_string(),
        arguments: arguments_text(arguments.as_ref()),
        server: true,
    });
    let result = block
        .get("result")
        .filter(|r| !r.is_null())
        .map(|r| resolved(r, att));
    let error = block.get("error").filter(|e| !e.is_null());
    if result.is_some() || error.is_some() {
        let mut content = Vec::new();
        push_text(&mut content, &arguments_text(result.as_ref()));
        parts.push(Part::ToolResult {
            call_id: id,
            content,
            is_error: error.map(|_| true),
        });
    }
}

/// A block with its media payload (audio, video, document data) replaced by its length.
fn without_payloads(block: &Value) -> Value {
    let mut copy = block.clone();
    if let Some(map) = copy.as_object_mut() {
        for key in ["audio", "video", "document"] {
            if let Some(Value::String(s)) = map.get(key) {
                if s.starts_with("data:") {
                    let note = format!("<{} bytes of inline data>", s.len());
                    map.insert(key.to_string(), Value::String(note));
                }
            }
        }
    }
    copy
}
