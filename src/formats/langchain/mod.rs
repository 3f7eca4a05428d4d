//! LangChain `messages_to_dict` JSON: `[{type: human|ai|system|tool|function|chat, data:
//! {content, additional_kwargs, response_metadata, tool_calls, usage_metadata, tool_call_id,
//! status, ...}}]` (chunk types such as `AIMessageChunk` too), bare, under `messages`, or one
//! per JSONL line. Records that are a message's `model_dump` itself (no `data`) are read alike.
//!
//! Owns: the message level — roles, tool calls (`tool_calls` → arguments as compact JSON of
//! `args`; `invalid_tool_calls` → the raw `args` string; legacy `function_call`), tool results
//! (`status: error` → error), usage (`usage_metadata`, input includes cache) and the model
//! name. Content blocks are mapped in `blocks`.
//!
//! LangChain's message list has no compaction record (its summarization middleware replaces
//! messages in place), so this format yields no compaction marks. A `remove` record
//! (LangGraph's `RemoveMessage`) is never sent to a model: it is kept as an event, and so is
//! a `chat` message whose role is not one a provider accepts (the role names the event).

mod blocks;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{arguments_text, str_at, to_json, u64_at, Item, Loaded};
use super::LoadError;
use crate::formats::shared::{call_id, listing, opaque};
use crate::session::{Format, Message, Part, Role, Session, Usage};
use blocks::content_parts;

/// LangChain messages in the format registry.
pub struct LangChain;

impl super::session_format::SessionFormat for LangChain {
    fn format(&self) -> Format {
        Format::LANGCHAIN
    }

    fn description(&self) -> &'static str {
        "LangChain messages_to_dict JSON"
    }

    /// `messages_to_dict` items: a message `type` with its fields under `data`.
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            matches!(
                str_at(i, "type"),
                Some("human" | "ai" | "system" | "tool" | "function" | "chat")
            ) && i.get("data").is_some_and(|d| d.get("content").is_some())
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::LANGCHAIN, loaded);
    let listing = listing(loaded, &["messages"]);
    if !listing
        .items
        .iter()
        .any(|i| message_type(i.value).is_some())
    {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no LangChain messages (`{type, data}` records) found",
        ));
    }
    if listing.wrapper.is_some() {
        session.source.records = listing.items.len();
    }
    let mut pending: Vec<(String, String)> = Vec::new();
    for item in &listing.items {
        push_record(&mut session, &mut pending, item);
    }
    Ok(session)
}

/// The message type of a record (chunk types folded into their message type).
fn message_type(v: &Value) -> Option<&'static str> {
    let t = match str_at(v, "type")? {
        "human" | "HumanMessageChunk" => "human",
        "ai" | "AIMessageChunk" => "ai",
        "system" | "SystemMessageChunk" => "system",
        "tool" | "ToolMessageChunk" => "tool",
        "function" | "FunctionMessageChunk" => "function",
        "chat" | "ChatMessageChunk" => "chat",
        _ => return None,
    };
    Some(t)
}

fn push_record(session: &mut Session, pending: &mut Vec<(String, String)>, item: &Item<'_>) {
    let v = item.value;
    let data = v.get("data").filter(|d| d.is_object()).unwrap_or(v);
    let kind = message_type(v).filter(|_| data.get("content").is_some());
    let role = match kind {
        Some("human") => Some(Role::User),
        Some("ai") => Some(Role::Assistant),
        Some("system") => Some(Role::System),
        Some("tool" | "function") => Some(Role::Tool),
        Some(_) => str_at(data, "role").and_then(Role::parse),
        None => None,
    };
    let (Some(kind), Some(role)) = (kind, role) else {
        // Not a message, or a `chat` message in a role no provider takes: kept as an event
        // named after its type (or role).
        let name = match kind {
            Some(_) => str_at(data, "role").unwrap_or("chat"),
            None => str_at(v, "type").unwrap_or("unknown"),
        };
        let mut msg = Message::new(Role::Event, item.index);
        msg.parts.push(opaque(name, v));
        msg.raw = item.range();
        session.push(msg);
        return;
    };
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.id = str_at(data, "id").map(str::to_string);
    msg.parts = match kind {
        "ai" => ai_parts(data, pending, item.index),
        "tool" | "function" => vec![tool_result(data, kind, pending, item.index)],
        _ => content_parts(data.get("content"), &[], item.index),
    };
    if kind == "ai" {
        msg.usage = data.get("usage_metadata").and_then(usage);
        let meta = data.get("response_metadata").unwrap_or(&Value::Null);
        msg.model = str_at(meta, "model_name")
            .or_else(|| str_at(meta, "model"))
            .map(str::to_string);
        if msg.model.is_some() {
            session.model.clone_from(&msg.model);
        }
    }
    session.push(msg);
}

/// An AI message: reasoning a provider left in `additional_kwargs`, the content blocks, then
/// its tool calls (valid, invalid, and legacy or raw OpenAI ones when no parsed calls exist).
fn ai_parts(data: &Value, pending: &mut Vec<(String, String)>, index: usize) -> Vec<Part> {
    let kwargs = data.get("additional_kwargs").unwrap_or(&Value::Null);
    let list = |key: &str| {
        data.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (valid, invalid) = (list("tool_calls"), list("invalid_tool_calls"));
    let known: Vec<String> = valid
        .iter()
        .chain(&invalid)
        .filter_map(|c| str_at(c, "id").map(str::to_string))
        .collect();
    let mut parts = Vec::new();
    if let Some(text) = str_at(kwargs, "reasoning_content").filter(|t| !t.is_empty()) {
        parts.push(Part::Reasoning {
            text: text.to_string(),
            opaque_len: 0,
        });
    }
    parts.extend(content_parts(data.get("content"), &known, index));
    let start = parts.len();
    for (n, call) in valid.iter().chain(&invalid).enumerate() {
        parts.push(Part::ToolCall {
            id: call_id(str_at(call, "id"), index, start + n),
            name: str_at(call, "name").unwrap_or_default().to_string(),
            arguments: arguments_text(call.get("args")),
            server: false,
        });
    }
    if valid.is_empty() && invalid.is_empty() {
        parts.extend(raw_calls(kwargs, pending, index));
    }
    parts
}

/// Calls only in `additional_kwargs`: OpenAI `tool_calls` of old dumps, or a legacy
/// `function_call` (remembered so its `function` result can point at it).
fn raw_calls(kwargs: &Value, pending: &mut Vec<(String, String)>, index: usize) -> Vec<Part> {
    let mut parts = Vec::new();
    let calls = kwargs.get("tool_calls").and_then(Value::as_array);
    for (n, call) in calls.into_iter().flatten().enumerate() {
        let function = call.get("function").unwrap_or(&Value::Null);
        parts.push(Part::ToolCall {
            id: call_id(str_at(call, "id"), index, n),
            name: str_at(function, "name").unwrap_or_default().to_string(),
            arguments: arguments_text(function.get("arguments")),
            server: false,
        });
    }
    if let Some(fc) = kwargs.get("function_call").filter(|f| f.is_object()) {
        let name = str_at(fc, "name").unwrap_or_default().to_string();
        let id = format!("{index}:function_call");
        pending.push((name.clone(), id.clone()));
        parts.push(Part::ToolCall {
            id,
            name,
            arguments: arguments_text(fc.get("arguments")),
            server: false,
        });
    }
    parts
}

/// A `tool` message (by `tool_call_id`, `status` giving the error flag) or a legacy
/// `function` message (matched by name to the earliest unanswered `function_call`).
fn tool_result(
    data: &Value,
    kind: &str,
    pending: &mut Vec<(String, String)>,
    index: usize,
) -> Part {
    let call_id = match (kind, str_at(data, "tool_call_id")) {
        ("tool", id) => call_id(id, index, 0),
        _ => {
            let name = str_at(data, "name").unwrap_or_default();
            match pending.iter().position(|(n, _)| n == name) {
                Some(at) => pending.remove(at).1,
                None => call_id(None, index, 0),
            }
        }
    };
    let content = match data.get("content") {
        Some(v @ (Value::String(_) | Value::Array(_) | Value::Null)) => {
            content_parts(Some(v), &[], index)
        }
        Some(other) => vec![Part::text(to_json(other))],
        None => Vec::new(),
    };
    Part::ToolResult {
        call_id,
        content,
        is_error: str_at(data, "status").map(|s| s == "error"),
    }
}

/// `usage_metadata`: input includes cache reads and writes.
fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "input_tokens");
    let output = u64_at(u, "output_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let inputs = u.get("input_token_details").unwrap_or(&Value::Null);
    let outputs = u.get("output_token_details").unwrap_or(&Value::Null);
    Some(Usage {
        input,
        output,
        cache_read: u64_at(inputs, "cache_read"),
        cache_write: u64_at(inputs, "cache_creation"),
        reasoning: u64_at(outputs, "reasoning"),
        total: u64_at(u, "total_tokens"),
        input_includes_cache: true,
    })
}
