//! Claude Code content blocks (the Anthropic Messages blocks inside `message.content`) and
//! `message.usage`, read into the common model's parts.
//!
//! Owns: block → `Part` conversion for user and assistant lines, tool results included. It knows
//! nothing of lines, chains or sessions.

use serde_json::Value;

use crate::formats::common::{str_at, to_json, u64_at};
use crate::formats::image;
use crate::session::{ImageRef, Part, Usage};

/// The parts of a `message.content` (a string or a list of blocks). `record` is the line's
/// index, used to give a stable id to a `tool_use` that has none.
pub(super) fn parts(content: Option<&Value>, record: usize) -> Vec<Part> {
    match content {
        Some(Value::String(text)) if !text.is_empty() => vec![Part::text(text.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .map(|(n, block)| block_part(block, record, n))
            .collect(),
        _ => Vec::new(),
    }
}

/// The text of the first `text` block (or the string content), for prefix checks.
pub(super) fn first_text(content: Option<&Value>) -> Option<&str> {
    match content? {
        Value::String(text) => Some(text),
        Value::Array(blocks) => blocks
            .iter()
            .find(|b| str_at(b, "type") == Some("text"))
            .and_then(|b| str_at(b, "text")),
        _ => None,
    }
}

/// All text of a content, text blocks joined by newlines.
pub(super) fn all_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| str_at(b, "type") == Some("text"))
            .filter_map(|b| str_at(b, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn block_part(block: &Value, record: usize, n: usize) -> Part {
    let kind = str_at(block, "type").unwrap_or("");
    match kind {
        "text" => Part::text(str_at(block, "text").unwrap_or("")),
        "thinking" => Part::Reasoning {
            text: str_at(block, "thinking").unwrap_or("").to_string(),
            opaque_len: 0,
        },
        "redacted_thinking" => Part::Reasoning {
            text: String::new(),
            opaque_len: str_at(block, "data").map_or(0, str::len),
        },
        "tool_use" | "server_tool_use" => Part::ToolCall {
            id: str_at(block, "id").map_or_else(|| format!("{record}:{n}"), str::to_string),
            name: str_at(block, "name").unwrap_or("").to_string(),
            arguments: block.get("input").map_or_else(String::new, to_json),
            server: kind == "server_tool_use",
        },
        "tool_result" => Part::ToolResult {
            call_id: str_at(block, "tool_use_id").unwrap_or("").to_string(),
            content: result_content(block.get("content")),
            is_error: block.get("is_error").and_then(Value::as_bool),
        },
        // Results of tools the provider ran itself (`web_search_tool_result`, …).
        k if k.ends_with("_tool_result") && block.get("tool_use_id").is_some() => {
            Part::ToolResult {
                call_id: str_at(block, "tool_use_id").unwrap_or("").to_string(),
                content: block
                    .get("content")
                    .map(|c| vec![Part::text(to_json(c))])
                    .unwrap_or_default(),
                is_error: None,
            }
        }
        "image" => Part::Image(image_ref(block.get("source"))),
        _ => opaque(kind, block),
    }
}

/// A `tool_result`'s content: a string, or a list of text and image blocks.
fn result_content(content: Option<&Value>) -> Vec<Part> {
    match content {
        Some(Value::String(text)) => vec![Part::text(text.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match str_at(b, "type") {
                Some("text") => Part::text(str_at(b, "text").unwrap_or("")),
                Some("image") => Part::Image(image_ref(b.get("source"))),
                other => opaque(other.unwrap_or(""), b),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn image_ref(source: Option<&Value>) -> ImageRef {
    let Some(source) = source else {
        return ImageRef::default();
    };
    let media_type = str_at(source, "media_type");
    match (
        str_at(source, "type"),
        str_at(source, "data"),
        str_at(source, "url"),
    ) {
        (_, Some(data), _) => image::from_base64(media_type, data),
        (_, None, Some(url)) => image::from_url(url),
        _ => ImageRef {
            media_type: media_type.map(str::to_string),
            ..ImageRef::default()
        },
    }
}

fn opaque(kind: &str, block: &Value) -> Part {
    crate::formats::shared::opaque(if kind.is_empty() { "block" } else { kind }, block)
}

/// `message.usage` in Anthropic style: `input_tokens` excludes the cache.
pub(super) fn usage(u: Option<&Value>) -> Option<Usage> {
    let u = u?;
    let usage = Usage {
        input: u64_at(u, "input_tokens"),
        output: u64_at(u, "output_tokens"),
        cache_read: u64_at(u, "cache_read_input_tokens"),
        cache_write: u64_at(u, "cache_creation_input_tokens"),
        reasoning: None,
        total: None,
        input_includes_cache: false,
    };
    let empty = usage.input.is_none()
        && usage.output.is_none()
        && usage.cache_read.is_none()
        && usage.cache_write.is_none();
    (!empty).then_some(usage)
}

/// Streamed copies of one message repeat its usage, growing `output_tokens`: keep the largest
/// (the last on a tie), never a sum.
pub(super) fn merge_usage(old: Option<Usage>, new: Option<Usage>) -> Option<Usage> {
    match (old, new) {
        (Some(o), Some(n)) => {
            if n.output.unwrap_or(0) >= o.output.unwrap_or(0) {
                Some(n)
            } else {
                Some(o)
            }
        }
        (o, n) => n.or(o),
    }
}
