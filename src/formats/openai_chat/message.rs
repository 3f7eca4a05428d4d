//! One Chat Completions message → one `Message`: content parts, tool calls (current and legacy
//! `function_call`), tool results, reasoning fields of OpenAI-compatible servers, usage.

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, u64_at, Item};
use crate::formats::image;
use crate::formats::shared::{call_id, opaque};
use crate::session::{Message, Part, Role, Session, Usage};

/// Legacy `function_call`s still waiting for their `function` result: (name, synthesized id).
#[derive(Default)]
pub(super) struct Pending {
    functions: Vec<(String, String)>,
}

/// Pushes the message (or the opaque event) that one record holds.
pub(super) fn push_item(session: &mut Session, pending: &mut Pending, item: &Item<'_>) {
    let v = item.value;
    let role = str_at(v, "role").and_then(Role::parse);
    let Some(role) = role.filter(|_| v.is_object()) else {
        let kind = str_at(v, "role")
            .or_else(|| str_at(v, "type"))
            .unwrap_or("unknown");
        let mut msg = Message::new(Role::Event, item.index);
        msg.parts.push(opaque(kind, v));
        msg.raw = item.range();
        session.push(msg);
        return;
    };
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    if role == Role::Tool {
        msg.parts.push(tool_result(v, pending, item.index));
    } else {
        msg.parts = message_parts(v, pending, item.index);
    }
    if let Some(usage) = v.get("usage").and_then(usage) {
        msg.usage = Some(usage);
    }
    msg.model = str_at(v, "model").map(str::to_string);
    msg.id = str_at(v, "id").map(str::to_string);
    // A tool message with no `content` key at all (a misspelt one, say) still answers its
    // call, but its output is lost: noted, where an empty output ("") is a tool's own.
    let hollow = role == Role::Tool && v.get("content").is_none();
    let at = session.push(msg);
    if hollow {
        session.source.hollow.push(at);
    }
}

/// The parts of a non-tool message, in the order the model produced or reads them:
/// reasoning, content, refusal, tool calls.
pub(super) fn message_parts(v: &Value, pending: &mut Pending, index: usize) -> Vec<Part> {
    let mut parts = reasoning(v);
    parts.extend(content_parts(v.get("content")));
    if let Some(refusal) = str_at(v, "refusal").filter(|r| !r.is_empty()) {
        parts.push(Part::text(refusal));
    }
    let calls = v.get("tool_calls").and_then(Value::as_array);
    for (n, call) in calls.into_iter().flatten().enumerate() {
        parts.push(tool_call(call, index, n));
    }
    if let Some(fc) = v.get("function_call").filter(|f| f.is_object()) {
        let name = str_at(fc, "name").unwrap_or_default().to_string();
        let id = format!("{index}:function_call");
        pending.functions.push((name.clone(), id.clone()));
        parts.push(Part::ToolCall {
            id,
            name,
            arguments: arguments_text(fc.get("arguments")),
            server: false,
        });
    }
    if let Some(audio) = v.get("audio").filter(|a| a.is_object()) {
        parts.push(opaque("audio", audio));
    }
    parts
}

/// Visible reasoning of OpenAI-compatible servers: litellm's `thinking_blocks` (Anthropic
/// thinking, redacted included) when present, else `reasoning_content` (DeepSeek, litellm,
/// vLLM) or `reasoning` (OpenRouter). litellm fills both `thinking_blocks` and
/// `reasoning_content` with the same text, so only one is read.
fn reasoning(v: &Value) -> Vec<Part> {
    if let Some(blocks) = v.get("thinking_blocks").and_then(Value::as_array) {
        if !blocks.is_empty() {
            return blocks.iter().map(thinking_block).collect();
        }
    }
    let text = str_at(v, "reasoning_content").or_else(|| str_at(v, "reasoning"));
    match text {
        Some(t) if !t.is_empty() => vec![Part::Reasoning {
            text: t.to_string(),
            opaque_len: 0,
        }],
        _ => Vec::new(),
    }
}

fn thinking_block(b: &Value) -> Part {
    match str_at(b, "type") {
        Some("redacted_thinking") => Part::Reasoning {
            text: String::new(),
            opaque_len: str_at(b, "data").map_or(0, str::len),
        },
        Some("thinking") => Part::Reasoning {
            text: str_at(b, "thinking").unwrap_or_default().to_string(),
            opaque_len: 0,
        },
        other => opaque(other.unwrap_or("thinking_block"), b),
    }
}

/// `content`: a string, null, or a list of typed parts.
pub(super) fn content_parts(content: Option<&Value>) -> Vec<Part> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => items.iter().map(content_part).collect(),
        Some(other) => vec![opaque("content", other)],
    }
}

fn content_part(p: &Value) -> Part {
    if let Some(s) = p.as_str() {
        return Part::text(s);
    }
    let kind = str_at(p, "type").unwrap_or("unknown");
    match kind {
        "text" => Part::text(str_at(p, "text").unwrap_or_default()),
        "refusal" => Part::text(str_at(p, "refusal").unwrap_or_default()),
        "image_url" => {
            let spec = p.get("image_url");
            let url = spec
                .and_then(|s| s.as_str().or_else(|| str_at(s, "url")))
                .unwrap_or_default();
            let mut img = image::from_url(url);
            img.detail = spec.and_then(|s| str_at(s, "detail")).map(str::to_string);
            Part::Image(img)
        }
        _ => opaque(kind, p),
    }
}

/// `tool_calls[]`: function calls (arguments kept byte for byte) and custom tool calls
/// (freeform `input` kept as is).
fn tool_call(call: &Value, index: usize, n: usize) -> Part {
    let id = call_id(str_at(call, "id"), index, n);
    match str_at(call, "type") {
        Some("custom") => {
            let custom = call.get("custom").unwrap_or(&Value::Null);
            Part::ToolCall {
                id,
                name: str_at(custom, "name").unwrap_or_default().to_string(),
                arguments: arguments_text(custom.get("input")),
                server: false,
            }
        }
        Some("function") | None => {
            let function = call.get("function").unwrap_or(&Value::Null);
            Part::ToolCall {
                id,
                name: str_at(function, "name").unwrap_or_default().to_string(),
                arguments: arguments_text(function.get("arguments")),
                server: false,
            }
        }
        Some(other) => opaque(other, call),
    }
}

/// A `tool` message (by `tool_call_id`) or a legacy `function` message (matched by name to
/// the earliest unanswered `function_call`). Chat Completions has no error flag.
fn tool_result(v: &Value, pending: &mut Pending, index: usize) -> Part {
    let given = str_at(v, "tool_call_id").filter(|id| !id.is_empty());
    let call_id = match given {
        Some(id) => id.to_string(),
        None => {
            let name = str_at(v, "name").unwrap_or_default();
            match pending.functions.iter().position(|(n, _)| n == name) {
                Some(at) => pending.functions.remove(at).1,
                None => call_id(None, index, 0),
            }
        }
    };
    Part::ToolResult {
        call_id,
        content: content_parts(v.get("content")),
        is_error: None,
    }
}

/// Chat Completions usage (prompt tokens include cached ones). litellm adds Anthropic's
/// `cache_creation_input_tokens` / `cache_read_input_tokens` beside the OpenAI fields.
pub(super) fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "prompt_tokens");
    let output = u64_at(u, "completion_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let prompt = u.get("prompt_tokens_details").unwrap_or(&Value::Null);
    let completion = u.get("completion_tokens_details").unwrap_or(&Value::Null);
    Some(Usage {
        input,
        output,
        cache_read: u64_at(prompt, "cached_tokens")
            .or_else(|| u64_at(u, "cache_read_input_tokens")),
        cache_write: u64_at(prompt, "cache_creation_tokens")
            .or_else(|| u64_at(u, "cache_creation_input_tokens")),
        reasoning: u64_at(completion, "reasoning_tokens"),
        total: u64_at(u, "total_tokens"),
        input_includes_cache: true,
    })
}
