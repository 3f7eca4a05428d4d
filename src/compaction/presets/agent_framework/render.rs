//! The summarizer transcript: `_format_messages_for_summary` — one `"{i}. [{role}] {text}"`
//! line per message. 1.23 renders tool calls, results, MCP, computer and approval contents
//! (`_format_summary_content`); 1.17 uses `Message.text` only, so a tool round collapses to its
//! content type names (`function_call`, `function_result`).

use serde_json::Value;

use super::estimate::message_text;
use super::model::{ctype, field, present, truthy, AfMsg};
use super::pyjson::dumps;
use super::Version;
use crate::pyrepr;

/// `_format_messages_for_summary(messages, start_index=start)`.
pub fn transcript<'a>(
    msgs: impl IntoIterator<Item = &'a AfMsg>,
    start: usize,
    v: Version,
) -> String {
    msgs.into_iter()
        .enumerate()
        .map(|(i, m)| format_message(start + i, m, v))
        .collect::<Vec<_>>()
        .join("\n")
}

fn format_message(index: usize, m: &AfMsg, v: Version) -> String {
    format!("{index}. [{}] {}", m.role, rendered(m, v))
}

/// What the transcript line of `m` shows after `{i}. [{role}] `.
pub fn rendered(m: &AfMsg, v: Version) -> String {
    let text = match v {
        Version::V1_17 => message_text(m),
        Version::V1_23 => content_text(m),
    };
    if text.is_empty() {
        m.types().collect::<Vec<_>>().join(", ")
    } else {
        text
    }
}

fn content_text(m: &AfMsg) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    for c in m.contents.iter() {
        let rendered = format_content(c);
        if !rendered.is_empty() {
            if !pending.is_empty() {
                parts.push(pending.join(" "));
                pending.clear();
            }
            parts.push(rendered);
        } else if ctype(c) == "text" {
            if let Some(t) = field(c, "text").filter(|t| !t.is_empty()) {
                pending.push(t);
            }
        }
    }
    if !pending.is_empty() {
        parts.push(pending.join(" "));
    }
    parts.join("; ")
}

/// `_tool_result_text`.
pub fn tool_result_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let texts: Vec<&str> = items
                .iter()
                .filter(|i| ctype(i) == "text" && i.is_object())
                .filter_map(|i| field(i, "text"))
                .collect();
            if texts.is_empty() {
                pyrepr::str_of(value)
            } else {
                texts.join("\n")
            }
        }
        Value::Object(_) => dumps(value, false, false),
        other => pyrepr::str_of(other),
    }
}

fn call_id_suffix(c: &Value) -> String {
    field(c, "call_id")
        .filter(|s| !s.is_empty())
        .map(|id| format!(" [call_id={id}]"))
        .unwrap_or_default()
}

fn nonempty<'a>(c: &'a Value, key: &str) -> &'a str {
    field(c, key).unwrap_or_default()
}

/// `_format_summary_content` (1.23): empty for contents with no structured rendering.
pub fn format_content(c: &Value) -> String {
    let args = |c: &Value| {
        present(c, "arguments")
            .map(tool_result_text)
            .unwrap_or_default()
    };
    match ctype(c) {
        "function_call" => format!(
            "function_call {}({}){}",
            nonempty(c, "name"),
            args(c),
            call_id_suffix(c)
        ),
        "computer_tool_call" => {
            let actions =
                present(c, "actions").map_or_else(|| "no actions".to_string(), tool_result_text);
            format!("computer_tool_call: {actions}{}", call_id_suffix(c))
        }
        "computer_tool_result" => {
            let shot = if present(c, "screenshot").is_some() {
                ": screenshot"
            } else {
                ""
            };
            format!("computer_tool_result{shot}{}", call_id_suffix(c))
        }
        "function_result" => function_result(c),
        "mcp_server_tool_call" => {
            format!(
                "mcp_tool_call {}({}){}",
                nonempty(c, "tool_name"),
                args(c),
                call_id_suffix(c)
            )
        }
        "mcp_server_tool_result" => {
            let mut text = tool_result_text(c.get("output").unwrap_or(&Value::Null));
            if present(c, "exception").is_some() {
                text = format!("error: {text}");
            }
            format!("mcp_tool_result: {text}{}", call_id_suffix(c))
        }
        t @ ("function_approval_request" | "function_approval_response") => approval(c, t),
        _ => String::new(),
    }
}

/// `function_result: {items text | result | no result}`, `error: ` first on an exception.
fn function_result(c: &Value) -> String {
    let items = c
        .get("items")
        .and_then(Value::as_array)
        .filter(|i| !i.is_empty());
    let mut text = items.map(|i| result_items(i)).unwrap_or_default();
    if text.is_empty() {
        text = present(c, "result").map_or_else(|| "no result".to_string(), tool_result_text);
    }
    if present(c, "exception").is_some() {
        text = format!("error: {text}");
    }
    format!("function_result: {text}{}", call_id_suffix(c))
}

fn approval(c: &Value, t: &str) -> String {
    let call = present(c, "function_call");
    let name = call
        .map(|f| {
            [field(f, "name"), field(f, "tool_name")]
                .into_iter()
                .flatten()
                .find(|s| !s.is_empty())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let id = pyrepr::str_of(c.get("id").unwrap_or(&Value::Null));
    if t == "function_approval_request" {
        format!("approval_request: {name} [id={id}]")
    } else {
        let approved = pyrepr::str_of(c.get("approved").unwrap_or(&Value::Null));
        format!("approval_response: {name} [id={id}] approved={approved}")
    }
}

/// `_format_summary_result_items`.
fn result_items(items: &[Value]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for item in items {
        let t = ctype(item);
        if t == "text" && field(item, "text").is_some_and(|s| !s.is_empty()) {
            parts.push(nonempty(item, "text").to_string());
        } else if t == "error" {
            let mut label = nonempty(item, "message").to_string();
            let details = field(item, "error_details").filter(|s| !s.is_empty());
            if let Some(d) = details {
                label = if label.is_empty() {
                    d.to_string()
                } else {
                    format!("{label}: {d}")
                };
            }
            if let Some(code) = field(item, "error_code").filter(|s| !s.is_empty()) {
                label = format!("error({code}): {label}");
            }
            if !label.is_empty() {
                parts.push(label);
            }
        } else {
            parts.push(item_metadata(item));
        }
    }
    parts.join("\n")
}

fn item_metadata(item: &Value) -> String {
    let t = ctype(item);
    let mut details: Vec<String> = Vec::new();
    let get = |k: &str| field(item, k).filter(|s| !s.is_empty());
    if let Some(mt) = get("media_type") {
        details.push(format!("media_type={mt}"));
    }
    if let Some(uri) = get("uri").filter(|_| t == "uri") {
        details.push(format!("uri={uri}"));
    }
    if t == "data" {
        let path = item
            .get("additional_properties")
            .and_then(|p| p.get("path"));
        if let Some(p) = path.and_then(Value::as_str).filter(|s| !s.is_empty()) {
            details.push(format!("path={p}"));
        }
    }
    if let Some(f) = get("file_id") {
        details.push(format!("file_id={f}"));
    }
    if let Some(n) = get("name") {
        details.push(format!("name={n}"));
    }
    if details.is_empty() {
        format!("{t} content")
    } else {
        format!("{t} content ({})", details.join(", "))
    }
}

/// Whether a content is dropped from the transcript although the message renders something.
pub fn is_reasoning(c: &Value) -> bool {
    ctype(c) == "text_reasoning" && present(c, "text").is_some_and(truthy)
}
