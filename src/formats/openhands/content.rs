//! The pieces of an OpenHands V1 event that become message parts: LLM content blocks
//! (`TextContent`, `ImageContent`), reasoning (`reasoning_content`, Anthropic `thinking_blocks`,
//! the Responses reasoning item, OpenRouter `reasoning_details`) and tool calls.

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, to_json};
use crate::formats::image;
use crate::session::Part;

/// Content as the SDK stores it: a string, or a list of `{type: text|image}` blocks.
/// Empty texts are left out (the SDK drops them from tool-call messages too).
pub(super) fn content_parts(content: Option<&Value>) -> Vec<Part> {
    let mut parts = Vec::new();
    match content {
        Some(Value::String(text)) if !text.is_empty() => parts.push(Part::text(text.as_str())),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                block_parts(block, &mut parts);
            }
        }
        _ => {}
    }
    parts
}

fn block_parts(block: &Value, parts: &mut Vec<Part>) {
    match str_at(block, "type") {
        Some("text") => {
            if let Some(text) = str_at(block, "text").filter(|t| !t.is_empty()) {
                parts.push(Part::text(text));
            }
        }
        Some("image") => {
            let urls = block.get("image_urls").and_then(Value::as_array);
            for url in urls.into_iter().flatten().filter_map(Value::as_str) {
                parts.push(Part::Image(image::from_url(url)));
            }
        }
        other => parts.push(Part::Opaque {
            kind: other.unwrap_or("content").to_string(),
            raw: to_json(block),
        }),
    }
}

/// Reasoning carried by an `ActionEvent` or an `llm_message`.
///
/// `thinking_blocks` and `reasoning_content` usually hold the same thinking twice (litellm fills
/// both for Anthropic); the blocks are what the SDK sends back, so they win. OpenRouter
/// `reasoning_details` likewise duplicate `reasoning_content` and are used only without it.
pub(super) fn reasoning_parts(v: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    let blocks = v.get("thinking_blocks").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        match str_at(block, "type") {
            Some("redacted_thinking") => parts.push(opaque_reasoning(str_at(block, "data"))),
            _ => {
                if let Some(text) = str_at(block, "thinking") {
                    parts.push(reasoning(text));
                }
            }
        }
    }
    if parts.is_empty() {
        if let Some(text) = str_at(v, "reasoning_content").filter(|t| !t.is_empty()) {
            parts.push(reasoning(text));
        } else {
            details_parts(v.get("reasoning_details"), &mut parts);
        }
    }
    if let Some(part) = responses_reasoning(v.get("responses_reasoning_item")) {
        parts.push(part);
    }
    parts
}

fn reasoning(text: &str) -> Part {
    Part::Reasoning {
        text: text.to_string(),
        opaque_len: 0,
    }
}

fn opaque_reasoning(blob: Option<&str>) -> Part {
    Part::Reasoning {
        text: String::new(),
        opaque_len: blob.map_or(0, str::len),
    }
}

/// OpenRouter `reasoning_details`: `reasoning.text{text}`, `reasoning.summary{summary}`,
/// `reasoning.encrypted{data}`.
fn details_parts(details: Option<&Value>, parts: &mut Vec<Part>) {
    let items = details.and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        match str_at(item, "type") {
            Some("reasoning.encrypted") => parts.push(opaque_reasoning(str_at(item, "data"))),
            _ => {
                let text = str_at(item, "text").or_else(|| str_at(item, "summary"));
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    parts.push(reasoning(text));
                }
            }
        }
    }
}

/// The OpenAI Responses reasoning item: visible summary and content, encrypted blob.
fn responses_reasoning(item: Option<&Value>) -> Option<Part> {
    let item = item.filter(|i| i.is_object())?;
    let strings = |key: &str| -> Vec<&str> {
        let list = item.get(key).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    };
    let mut texts = strings("summary");
    texts.extend(strings("content"));
    let text = texts.join("\n");
    let opaque_len = str_at(item, "encrypted_content").map_or(0, str::len);
    if text.is_empty() && opaque_len == 0 {
        return None;
    }
    Some(Part::Reasoning { text, opaque_len })
}

/// A `MessageToolCall` (`{id, name, arguments, origin}`); `arguments` is the JSON string the
/// model produced, kept byte for byte.
pub(super) fn tool_call(call: &Value, fallback_id: String) -> Part {
    Part::ToolCall {
        id: str_at(call, "id")
            .filter(|id| !id.is_empty())
            .map_or(fallback_id, str::to_string),
        name: str_at(call, "name").unwrap_or_default().to_string(),
        arguments: arguments_text(call.get("arguments")),
        server: false,
    }
}

/// The text items of a `thought` / `extended_content` list.
pub(super) fn texts(list: Option<&Value>) -> Vec<Part> {
    content_parts(list.filter(|l| l.is_array()))
}
