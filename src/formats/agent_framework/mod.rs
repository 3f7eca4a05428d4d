//! Microsoft Agent Framework `Message.to_dict` JSON: `[{type: "message", role, contents: [...],
//! author_name?, message_id?}]` (older `chat_message` records and `{type: "role", value}` roles
//! too), bare, under `messages`, or one per JSONL line.
//!
//! Owns: mapping contents to parts. `function_call` arguments: a string verbatim, an object as
//! compact JSON. `function_result`: the `result` as the chat clients send it
//! (`prepare_function_call_results`: a string verbatim, anything else through Python's
//! `json.dumps`), plus the images among its `items` (or the texts of `items` when there is no
//! result); an `exception` makes it an error. A message of only results is a tool message.
//! `usage` contents are the message's usage (input includes cache). Hosted tools the provider
//! runs (MCP server, code interpreter, image generation) are server calls with their results.
//!
//! A message in a role no provider takes is kept as an event named after the role; records that
//! are not messages are events named after their type. A message the framework's compaction
//! excluded (`additional_properties._excluded`) is held but never sent: it is an event whose one
//! opaque part (`EXCLUDED_KIND`) is the record, so it costs no tokens and the Agent Framework
//! presets still see it, flags and all. The text of a message a strategy inserted (its `_group`
//! names `_summary_of_message_ids`) is a summary part.
//!
//! Agent Framework's message list has no compaction record (its compaction strategies rewrite
//! the list), so this format yields no compaction marks.

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{arguments_text, str_at, to_json, u64_at, Item, Loaded};
use super::LoadError;
use crate::formats::image;
use crate::formats::shared::{call_id, listing, opaque, py_json};
use crate::session::{Format, Message, Part, Role, Session, Usage};

/// The opaque part kind of an excluded message.
pub const EXCLUDED_KIND: &str = "excluded_message";

/// Agent Framework messages in the format registry.
pub struct AgentFramework;

impl super::session_format::SessionFormat for AgentFramework {
    fn format(&self) -> Format {
        Format::AGENT_FRAMEWORK
    }

    fn description(&self) -> &'static str {
        "Microsoft Agent Framework Message.to_dict JSON"
    }

    /// `Message.to_dict()`: `type: "message"` with `contents`.
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            str_at(i, "type") == Some("message") && i.get("contents").is_some_and(Value::is_array)
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::AGENT_FRAMEWORK, loaded);
    let listing = listing(loaded, &["messages"]);
    if !listing.items.iter().any(|i| is_message(i.value)) {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no Agent Framework messages (`{type: \"message\", role, contents}`) found",
        ));
    }
    if listing.wrapper.is_some() {
        session.source.records = listing.items.len();
    }
    for item in &listing.items {
        push_record(&mut session, item);
    }
    Ok(session)
}

fn is_message(v: &Value) -> bool {
    matches!(str_at(v, "type"), Some("message" | "chat_message"))
        && v.get("contents").is_some_and(Value::is_array)
}

/// Whether compaction excluded the message (`_excluded`, Python-truthy as the framework reads it).
fn is_excluded(v: &Value) -> bool {
    match v
        .get("additional_properties")
        .and_then(|p| p.get("_excluded"))
    {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// A summary or `[Tool results: …]` message a compaction strategy inserted: its group
/// annotation names the messages it stands for.
fn inserted_by_compaction(v: &Value) -> bool {
    v.get("additional_properties")
        .and_then(|p| p.get("_group"))
        .and_then(|g| g.get("_summary_of_message_ids"))
        .is_some_and(Value::is_array)
}

/// The role name: a string, or `{type: "role", value}` in older dumps.
fn role_name(v: &Value) -> Option<&str> {
    let role = v.get("role")?;
    role.as_str().or_else(|| str_at(role, "value"))
}

fn push_record(session: &mut Session, item: &Item<'_>) {
    session.push(message_of(item.value, item.index, item.range()));
}

/// The message of one record at `index` of the list (its raw record at `range`): what
/// `parse` pushes for it.
pub fn message_of(v: &Value, index: usize, range: Option<std::ops::Range<usize>>) -> Message {
    if is_message(v) && is_excluded(v) {
        let mut msg = Message::new(Role::Event, index);
        msg.parts.push(Part::Opaque {
            kind: EXCLUDED_KIND.to_string(),
            raw: to_json(v),
        });
        msg.id = str_at(v, "message_id").map(str::to_string);
        msg.raw = range;
        return msg;
    }
    let role = role_name(v).and_then(Role::parse).filter(|_| is_message(v));
    let Some(role) = role else {
        let kind = match is_message(v) {
            true => role_name(v).unwrap_or("message"),
            false => str_at(v, "type").unwrap_or("unknown"),
        };
        let mut msg = Message::new(Role::Event, index);
        msg.parts.push(opaque(kind, v));
        msg.raw = range;
        return msg;
    };
    let mut msg = Message::new(role, index);
    msg.raw = range;
    msg.id = str_at(v, "message_id").map(str::to_string);
    let contents = v.get("contents").and_then(Value::as_array);
    for (n, c) in contents.into_iter().flatten().enumerate() {
        if str_at(c, "type") == Some("usage") {
            msg.usage = c.get("usage_details").and_then(usage);
            continue;
        }
        msg.parts.push(content_part(c, index, n));
    }
    if inserted_by_compaction(v) {
        for part in &mut msg.parts {
            if let Part::Text { text } = part {
                *part = Part::Summary {
                    text: std::mem::take(text),
                };
            }
        }
    }
    let only_results = msg.holds_only_tool_results();
    if only_results {
        msg.role = Role::Tool;
    }
    msg
}

fn content_part(c: &Value, index: usize, n: usize) -> Part {
    let kind = str_at(c, "type").unwrap_or("unknown");
    let id = || call_id(str_at(c, "call_id"), index, n);
    match kind {
        "text" => Part::text(str_at(c, "text").unwrap_or_default()),
        "text_reasoning" => {
            let text = str_at(c, "text").unwrap_or_default();
            let opaque_len = match text.is_empty() {
                true => str_at(c, "protected_data").map_or(0, str::len),
                false => 0,
            };
            Part::Reasoning {
                text: text.to_string(),
                opaque_len,
            }
        }
        "data" | "uri" => media(c),
        "function_call" | "mcp_server_tool_call" => Part::ToolCall {
            id: id(),
            name: str_at(c, "name")
                .or_else(|| str_at(c, "tool_name"))
                .unwrap_or_default()
                .to_string(),
            arguments: arguments_text(c.get("arguments")),
            server: kind != "function_call",
        },
        "function_result" => Part::ToolResult {
            call_id: id(),
            content: function_result(c),
            is_error: c.get("exception").filter(|e| !e.is_null()).map(|_| true),
        },
        "mcp_server_tool_result" => Part::ToolResult {
            call_id: id(),
            content: output_parts(c.get("output")),
            is_error: None,
        },
        _ => hosted_part(kind, c, index, n).unwrap_or_else(|| opaque(kind, c)),
    }
}

/// Tools the provider hosts and runs itself: server calls and their results.
fn hosted_part(kind: &str, c: &Value, index: usize, n: usize) -> Option<Part> {
    let part = match kind {
        "code_interpreter_tool_call" => Part::ToolCall {
            id: call_id(str_at(c, "call_id"), index, n),
            name: "code_interpreter".to_string(),
            arguments: contents_text(c.get("inputs")),
            server: true,
        },
        "code_interpreter_tool_result" => Part::ToolResult {
            call_id: call_id(str_at(c, "call_id"), index, n),
            content: output_parts(c.get("outputs")),
            is_error: None,
        },
        "image_generation_tool_call" => Part::ToolCall {
            id: call_id(str_at(c, "image_id"), index, n),
            name: "image_generation".to_string(),
            arguments: String::new(),
            server: true,
        },
        "image_generation_tool_result" => Part::ToolResult {
            call_id: call_id(str_at(c, "image_id"), index, n),
            content: output_parts(c.get("outputs")),
            is_error: None,
        },
        _ => return None,
    };
    Some(part)
}

/// `data` / `uri` content: images become image parts, other media stay opaque.
fn media(c: &Value) -> Part {
    let uri = str_at(c, "uri").unwrap_or_default();
    let media_type = str_at(c, "media_type");
    let is_image = media_type.map_or(uri.starts_with("data:image/"), |m| m.starts_with("image/"));
    if !is_image {
        return opaque(str_at(c, "type").unwrap_or("data"), c);
    }
    let mut img = image::from_url(uri);
    if img.media_type.is_none() {
        img.media_type = media_type.map(str::to_string);
    }
    Part::Image(img)
}

/// A function result as sent: the result text, then the images among its items.
fn function_result(c: &Value) -> Vec<Part> {
    let items = c.get("items").and_then(Value::as_array);
    let items = items.map(Vec::as_slice).unwrap_or_default();
    let text = match c.get("result") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(py_json(other)),
    };
    let mut parts = Vec::new();
    match text {
        Some(t) if !t.is_empty() => parts.push(Part::text(t)),
        Some(_) => {}
        None => parts.extend(
            items
                .iter()
                .filter(|i| str_at(i, "type") == Some("text"))
                .filter_map(|i| str_at(i, "text").filter(|t| !t.is_empty()))
                .map(Part::text),
        ),
    }
    parts.extend(
        items
            .iter()
            .filter(|i| matches!(str_at(i, "type"), Some("data" | "uri")))
            .map(media),
    );
    parts
}

/// Hosted tool output: a string, a list of contents, or anything else as compact JSON.
fn output_parts(output: Option<&Value>) -> Vec<Part> {
    match output {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter(|(_, c)| str_at(c, "type") != Some("usage"))
            .map(|(n, c)| match c.as_str() {
                Some(s) => Part::text(s),
                None => content_part(c, 0, n),
            })
            .collect(),
        Some(other) => vec![Part::text(to_json(other))],
    }
}

/// The code a code-interpreter call sends: the texts of its input contents.
fn contents_text(inputs: Option<&Value>) -> String {
    let texts: Vec<&str> = inputs
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| str_at(c, "text"))
        .collect();
    match (texts.is_empty(), inputs) {
        (false, _) => texts.join("\n"),
        (true, Some(v)) if !v.is_null() => to_json(v),
        _ => String::new(),
    }
}

/// `UsageDetails`: input includes cached tokens.
fn usage(d: &Value) -> Option<Usage> {
    let input = u64_at(d, "input_token_count");
    let output = u64_at(d, "output_token_count");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input,
        output,
        cache_read: u64_at(d, "cache_read_input_token_count"),
        cache_write: u64_at(d, "cache_creation_input_token_count"),
        reasoning: u64_at(d, "reasoning_output_token_count"),
        total: u64_at(d, "total_token_count"),
        input_includes_cache: true,
    })
}
