//! LangChain message content → parts. Content is a string or a list of blocks that are either
//! provider-native (OpenAI `image_url`, Anthropic `thinking` / `tool_use` / server tools,
//! OpenAI Responses `reasoning`) or LangChain's v1 standard blocks (`text`, `reasoning`,
//! `image`, `tool_call`, `server_tool_call`, `server_tool_result` …).

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, to_json};
use crate::formats::image;
use crate::formats::shared::{call_id, opaque};
use crate::session::Part;

/// Parts of `content`. Tool-call blocks whose id is in `known_calls` (the message's own
/// `tool_calls`, which LangChain keeps beside the provider blocks) are skipped so a call is
/// never counted twice.
pub(super) fn content_parts(
    content: Option<&Value>,
    known_calls: &[String],
    index: usize,
) -> Vec<Part> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .filter_map(|(n, b)| block(b, known_calls, index, n))
            .collect(),
        Some(other) => vec![opaque("content", other)],
    }
}

fn block(b: &Value, known_calls: &[String], index: usize, n: usize) -> Option<Part> {
    if let Some(s) = b.as_str() {
        return Some(Part::text(s));
    }
    let kind = str_at(b, "type").unwrap_or("unknown");
    let known = |id: Option<&str>| id.is_some_and(|id| known_calls.iter().any(|k| k == id));
    let part = match kind {
        "text" | "text-plain" => Part::text(str_at(b, "text").unwrap_or_default()),
        "image_url" | "image" => image_block(b),
        "thinking" => reasoning(str_at(b, "thinking"), 0),
        "redacted_thinking" => reasoning(None, str_at(b, "data").map_or(0, str::len)),
        "reasoning" => reasoning_block(b),
        "tool_use" | "tool_call" | "tool_call_chunk" if known(str_at(b, "id")) => return None,
        "tool_use" | "server_tool_use" | "tool_call" | "server_tool_call" | "tool_call_chunk" => {
            Part::ToolCall {
                id: call_id(str_at(b, "id"), index, n),
                name: str_at(b, "name").unwrap_or_default().to_string(),
                arguments: arguments_text(b.get("input").or_else(|| b.get("args"))),
                server: kind.starts_with("server_"),
            }
        }
        "server_tool_result" => Part::ToolResult {
            call_id: call_id(str_at(b, "tool_call_id"), index, n),
            content: value_parts(b.get("output")),
            is_error: str_at(b, "status").map(|s| s == "error"),
        },
        k if k == "tool_result" || k.ends_with("_tool_result") => Part::ToolResult {
            call_id: call_id(str_at(b, "tool_use_id"), index, n),
            content: value_parts(b.get("content")),
            is_error: b.get("is_error").and_then(Value::as_bool),
        },
        _ => opaque(kind, b),
    };
    Some(part)
}

fn reasoning(text: Option<&str>, opaque_len: usize) -> Part {
    Part::Reasoning {
        text: text.unwrap_or_default().to_string(),
        opaque_len,
    }
}

/// v1 `{reasoning}`, or OpenAI Responses `{summary: [{text}], encrypted_content?}`.
fn reasoning_block(b: &Value) -> Part {
    if let Some(text) = str_at(b, "reasoning") {
        return reasoning(Some(text), 0);
    }
    let summary: Vec<&str> = b
        .get("summary")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| str_at(s, "text"))
        .collect();
    let text = summary.join("\n\n");
    let opaque_len = match text.is_empty() {
        true => str_at(b, "encrypted_content").map_or(0, str::len),
        false => 0,
    };
    reasoning(Some(&text), opaque_len)
}

/// `image_url` (OpenAI), v1 / v0.3 `image` (`url`, `base64` or `data` with `mime_type`), or
/// Anthropic `image` with a `source`. A file id stays opaque.
fn image_block(b: &Value) -> Part {
    if let Some(spec) = b.get("image_url") {
        let url = spec
            .as_str()
            .or_else(|| str_at(spec, "url"))
            .unwrap_or_default();
        let mut img = image::from_url(url);
        img.detail = str_at(spec, "detail").map(str::to_string);
        return Part::Image(img);
    }
    let mime = str_at(b, "mime_type");
    if let Some(source) = b.get("source").filter(|s| s.is_object()) {
        return match str_at(source, "type") {
            Some("base64") => Part::Image(image::from_base64(
                str_at(source, "media_type"),
                str_at(source, "data").unwrap_or_default(),
            )),
            Some("url") => Part::Image(image::from_url(str_at(source, "url").unwrap_or_default())),
            _ => opaque("image", b),
        };
    }
    if let Some(data) = str_at(b, "base64").or_else(|| str_at(b, "data")) {
        return Part::Image(image::from_base64(mime, data));
    }
    match str_at(b, "url") {
        Some(url) => {
            let mut img = image::from_url(url);
            if img.media_type.is_none() {
                img.media_type = mime.map(str::to_string);
            }
            Part::Image(img)
        }
        None => opaque("image", b),
    }
}

/// A tool output as result content: text, blocks, or anything else as compact JSON.
pub(super) fn value_parts(v: Option<&Value>) -> Vec<Part> {
    match v {
        Some(Value::Array(_)) | Some(Value::String(_)) | None | Some(Value::Null) => {
            content_parts(v, &[], 0)
        }
        Some(other) => vec![Part::text(to_json(other))],
    }
}
