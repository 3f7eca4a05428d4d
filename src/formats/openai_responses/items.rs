//! One Responses API item mapped into the common model: the item shapes of a request's `input`
//! and a response's `output`, which Codex rollouts also store as `response_item` payloads.
//!
//! Owns: item → parts (messages, reasoning, client and server tool calls, compaction items,
//! unknown items kept opaque). It knows no envelope (request body, rollout line) and does not
//! decide how items become messages: `history` does that.

use serde_json::Value;

use super::output;
use crate::formats::common::{arguments_text, str_at, to_json};
use crate::formats::image;
use crate::session::{ImageRef, Part, Role};

/// What one item contributes to the transcript.
#[derive(Debug)]
pub(in crate::formats) enum Mapped {
    /// Model output (reasoning, assistant text, tool calls): joins the assistant message of the
    /// model response it belongs to.
    Assistant(Vec<Part>),
    /// A message of its own (user/developer/system input, a tool result, an unknown item).
    Message(Role, Vec<Part>),
    /// A `compaction` item: a compaction mark, then a message holding the opaque item.
    Compaction(Part),
    /// Not sent to the model (`ghost_snapshot`): consumed.
    Skip,
}

/// Maps one item; `index` is its source position (used to name calls that carry no id).
pub(in crate::formats) fn map_item(item: &Value, index: usize) -> Mapped {
    let Some(kind) = str_at(item, "type") else {
        return untyped(item);
    };
    match kind {
        "message" => message(item),
        "reasoning" => Mapped::Assistant(vec![reasoning(item)]),
        "function_call" => client_call(item, index, name(item), item.get("arguments")),
        "custom_tool_call" => client_call(item, index, name(item), item.get("input")),
        "local_shell_call" => client_call(item, index, "local_shell", item.get("action")),
        "shell_call" => client_call(item, index, "shell", item.get("action")),
        "apply_patch_call" => client_call(item, index, "apply_patch", item.get("operation")),
        "computer_call" => {
            let action = item.get("action").or_else(|| item.get("actions"));
            client_call(item, index, "computer", action)
        }
        "tool_search_call" => tool_search_call(item, index),
        "tool_search_output" => tool_search_output(item),
        "web_search_call"
        | "file_search_call"
        | "code_interpreter_call"
        | "image_generation_call"
        | "mcp_call" => Mapped::Assistant(server_call(kind, item, index)),
        "function_call_output"
        | "custom_tool_call_output"
        | "local_shell_call_output"
        | "shell_call_output"
        | "apply_patch_call_output"
        | "computer_call_output" => Mapped::Message(Role::Tool, vec![output::result(kind, item)]),
        "compaction" | "compaction_summary" => Mapped::Compaction(opaque(kind, item)),
        "ghost_snapshot" => Mapped::Skip,
        other => Mapped::Message(Role::Event, vec![opaque(other, item)]),
    }
}

/// An item without `type`: the easy message form `{role, content}`, or an `item_reference`
/// (whose `type` is optional).
fn untyped(item: &Value) -> Mapped {
    if item.get("role").is_some() {
        return message(item);
    }
    let kind = if item.get("id").is_some() {
        "item_reference"
    } else {
        "item"
    };
    Mapped::Message(Role::Event, vec![opaque(kind, item)])
}

fn message(item: &Value) -> Mapped {
    let parts = || content_parts(item.get("content"));
    match str_at(item, "role").and_then(Role::parse) {
        Some(Role::Assistant) => Mapped::Assistant(parts()),
        Some(Role::Event) | None => Mapped::Message(Role::Event, vec![opaque("message", item)]),
        Some(role) => Mapped::Message(role, parts()),
    }
}

fn name(item: &Value) -> &str {
    str_at(item, "name").unwrap_or_default()
}

/// The id a call is answered by: `call_id`, else the item `id`, else one made from the position.
fn call_id(item: &Value, index: usize) -> String {
    str_at(item, "call_id")
        .or_else(|| str_at(item, "id"))
        .map_or_else(|| format!("{index}:0"), str::to_string)
}

/// A call the client runs; its arguments as sent (a string verbatim, an object as compact JSON).
fn client_call(item: &Value, index: usize, name: &str, arguments: Option<&Value>) -> Mapped {
    Mapped::Assistant(vec![Part::ToolCall {
        id: call_id(item, index),
        name: name.to_string(),
        arguments: arguments_text(arguments),
        server: false,
    }])
}

/// A tool the provider runs itself: the call, and its result when the item carries one.
fn server_call(kind: &str, item: &Value, index: usize) -> Vec<Part> {
    let id = str_at(item, "id").map_or_else(|| format!("{index}:0"), str::to_string);
    let (name, arguments) = match kind {
        "web_search_call" => ("web_search", item.get("action")),
        "file_search_call" => ("file_search", item.get("queries")),
        "code_interpreter_call" => ("code_interpreter", item.get("code")),
        "image_generation_call" => ("image_generation", item.get("revised_prompt")),
        _ => (name(item), item.get("arguments")),
    };
    let mut parts = vec![Part::ToolCall {
        id: id.clone(),
        name: name.to_string(),
        arguments: arguments_text(arguments),
        server: true,
    }];
    if let Some((content, is_error)) = output::server_result(kind, item) {
        parts.push(Part::ToolResult {
            call_id: id,
            content,
            is_error,
        });
    }
    parts
}

/// Codex's `tool_search_call{call_id, execution, arguments}`: run by the client or, with
/// `execution: "server"`, by the provider.
fn tool_search_call(item: &Value, index: usize) -> Mapped {
    Mapped::Assistant(vec![Part::ToolCall {
        id: call_id(item, index),
        name: "tool_search".to_string(),
        arguments: arguments_text(item.get("arguments")),
        server: str_at(item, "execution") == Some("server"),
    }])
}

/// `tool_search_output{call_id, execution, tools}`: the tools found. A server-run search's
/// output belongs to the model response; a client-run one is sent back like any tool result.
fn tool_search_output(item: &Value) -> Mapped {
    let result = Part::ToolResult {
        call_id: str_at(item, "call_id").unwrap_or_default().to_string(),
        content: item
            .get("tools")
            .map(|t| vec![Part::text(to_json(t))])
            .unwrap_or_default(),
        is_error: None,
    };
    if str_at(item, "execution") == Some("server") {
        Mapped::Assistant(vec![result])
    } else {
        Mapped::Message(Role::Tool, vec![result])
    }
}

/// Reasoning: summary and raw content texts; an encrypted blob counted by its length.
fn reasoning(item: &Value) -> Part {
    let mut texts: Vec<&str> = Vec::new();
    for key in ["summary", "content"] {
        if let Some(blocks) = item.get(key).and_then(Value::as_array) {
            texts.extend(blocks.iter().filter_map(|b| str_at(b, "text")));
        }
    }
    Part::Reasoning {
        text: texts.join("\n\n"),
        opaque_len: str_at(item, "encrypted_content").map_or(0, str::len),
    }
}

/// Message or tool-output content: a string, or a list of content blocks.
pub(super) fn content_parts(content: Option<&Value>) -> Vec<Part> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(blocks)) => blocks.iter().map(block).collect(),
        Some(other) => vec![block(other)],
    }
}

fn block(b: &Value) -> Part {
    let kind = str_at(b, "type");
    match kind {
        Some("input_text" | "output_text" | "text" | "summary_text" | "reasoning_text") => {
            match str_at(b, "text") {
                Some(text) => Part::text(text),
                None => opaque(kind.unwrap_or("text"), b),
            }
        }
        Some("refusal") => match str_at(b, "refusal") {
            Some(text) => Part::text(text),
            None => opaque("refusal", b),
        },
        Some("input_image" | "image") => Part::Image(image_ref(b)),
        Some("input_file") => Part::Opaque {
            kind: "input_file".to_string(),
            raw: to_json(&without_payload(b, "file_data")),
        },
        Some(other) => opaque(other, b),
        None => match b.as_str() {
            Some(text) => Part::text(text),
            None => opaque("content", b),
        },
    }
}

/// An `input_image` (also a computer screenshot): data URI, URL, or a stored `file_id`.
pub(super) fn image_ref(b: &Value) -> ImageRef {
    let url = b
        .get("image_url")
        .and_then(|u| u.as_str().or_else(|| str_at(u, "url")));
    let mut img = url.map(image::from_url).unwrap_or_default();
    if let Some(detail) = str_at(b, "detail") {
        img.detail = Some(detail.to_string());
    }
    img
}

/// A copy of `b` with a base64 payload replaced by its length, so no payload is kept.
fn without_payload(b: &Value, key: &str) -> Value {
    let mut copy = b.clone();
    if let Some(slot) = copy.get_mut(key) {
        if let Some(len) = slot.as_str().map(str::len) {
            *slot = Value::String(format!("<{len} base64 characters>"));
        }
    }
    copy
}

/// An item or block kept as it is (inline payloads reduced to their length).
pub(in crate::formats) use crate::formats::shared::opaque;
