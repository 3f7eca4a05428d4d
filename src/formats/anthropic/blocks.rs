//! Anthropic content blocks → parts: text, images, documents, client and server tool use,
//! tool results of every kind, thinking, and server-side compaction summaries.

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at};
use crate::formats::image;
use crate::formats::shared::{call_id, opaque};
use crate::session::Part;

/// The parts of a message's `content` blocks. `index` is the record's, for synthesized ids.
pub(in crate::formats) fn block_parts(blocks: &[Value], index: usize) -> Vec<Part> {
    let mut parts = Vec::new();
    for (n, b) in blocks.iter().enumerate() {
        push_block(&mut parts, b, index, n);
    }
    parts
}

fn push_block(parts: &mut Vec<Part>, b: &Value, index: usize, n: usize) {
    if let Some(s) = b.as_str() {
        parts.push(Part::text(s));
        return;
    }
    let kind = str_at(b, "type").unwrap_or("unknown");
    let part = match kind {
        "text" => Part::text(str_at(b, "text").unwrap_or_default()),
        "image" => image_part(b),
        "document" | "search_result" => {
            parts.extend(document_parts(b));
            return;
        }
        "tool_use" | "server_tool_use" | "mcp_tool_use" => Part::ToolCall {
            id: call_id(str_at(b, "id"), index, n),
            name: str_at(b, "name").unwrap_or_default().to_string(),
            arguments: arguments_text(b.get("input")),
            server: kind != "tool_use",
        },
        "thinking" => Part::Reasoning {
            text: str_at(b, "thinking").unwrap_or_default().to_string(),
            opaque_len: 0,
        },
        "redacted_thinking" => Part::Reasoning {
            text: String::new(),
            opaque_len: str_at(b, "data").map_or(0, str::len),
        },
        "compaction" => match str_at(b, "content") {
            Some(text) => Part::Summary {
                text: text.to_string(),
            },
            None => opaque(kind, b),
        },
        k if k == "tool_result" || k.ends_with("_tool_result") => tool_result(b, index, n),
        _ => opaque(kind, b),
    };
    parts.push(part);
}

/// `image.source`: base64 data (size and pixels read, payload dropped) or a URL; a Files API
/// reference stays opaque.
fn image_part(b: &Value) -> Part {
    let source = b.get("source").unwrap_or(&Value::Null);
    match str_at(source, "type") {
        Some("base64") => Part::Image(image::from_base64(
            str_at(source, "media_type"),
            str_at(source, "data").unwrap_or_default(),
        )),
        Some("url") => Part::Image(image::from_url(str_at(source, "url").unwrap_or_default())),
        _ => opaque("image", b),
    }
}

/// A `document` or `search_result`: plain-text and content sources become the text the model
/// reads; PDFs, URLs and file references stay opaque (without their payload).
fn document_parts(b: &Value) -> Vec<Part> {
    let kind = str_at(b, "type").unwrap_or("document");
    if kind == "search_result" {
        return result_content(b.get("content"));
    }
    let source = b.get("source").unwrap_or(&Value::Null);
    match str_at(source, "type") {
        Some("text") => vec![Part::text(str_at(source, "data").unwrap_or_default())],
        Some("content") => result_content(source.get("content")),
        _ => vec![opaque(kind, b)],
    }
}

/// Any tool result: `tool_result` (client tools; `is_error` as the source says) and the
/// server tools' `*_tool_result` blocks (`web_search_tool_result` …), whose error is an
/// object of a `*_error` type.
fn tool_result(b: &Value, index: usize, n: usize) -> Part {
    let content = b.get("content");
    let error_object = content
        .and_then(|c| str_at(c, "type"))
        .is_some_and(|t| t.ends_with("_error"));
    let is_error = b
        .get("is_error")
        .and_then(Value::as_bool)
        .or(error_object.then_some(true));
    let content = match content {
        Some(Value::Object(_)) => vec![opaque(str_at(b, "type").unwrap_or("tool_result"), b)],
        other => result_content(other),
    };
    Part::ToolResult {
        call_id: call_id(str_at(b, "tool_use_id"), index, n),
        content,
        is_error,
    }
}

/// Result or document content: a string, or a list of text / image / document blocks.
fn result_content(content: Option<&Value>) -> Vec<Part> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => {
            let mut parts = Vec::new();
            for item in items {
                match str_at(item, "type") {
                    Some("image") => parts.push(image_part(item)),
                    Some("document" | "search_result") => parts.extend(document_parts(item)),
                    Some("text") => {
                        parts.push(Part::text(str_at(item, "text").unwrap_or_default()))
                    }
                    Some(other) => parts.push(opaque(other, item)),
                    None => parts.push(match item.as_str() {
                        Some(s) => Part::text(s),
                        None => opaque("content", item),
                    }),
                }
            }
            parts
        }
        Some(other) => vec![opaque("content", other)],
    }
}
