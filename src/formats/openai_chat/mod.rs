//! OpenAI Chat Completions messages, in every shape they are saved in: a bare array,
//! `{"messages": [...]}`, a request body `{model, messages, tools?}`, a litellm / OpenHands
//! completion log `{messages, tools, kwargs, response: {choices, usage}, cost, timestamp,
//! latency_sec, context_window}`, or JSONL with one message per line.
//!
//! Owns: unwrapping those shapes (here) and mapping one message (`message`). `shared` holds
//! the helpers the other plain message-list formats use too. Chat Completions has no
//! compaction record, so this format never yields compaction marks.
//!
//! Tool definitions (`tools`, legacy `functions`) are sent with every request and cost
//! context: the provider renders them into the system area of the prompt. They are kept,
//! faithfully and countably, as one extra text part (their compact JSON) at the end of the
//! leading system/developer message, or, when the request has none, in a system message of
//! their own inserted first (source index 0, no raw record of its own).
//!
//! A completion log's response message is the final assistant turn: it carries that request's
//! usage and gets the source index one past the last request message.
//!
//! A record in a role the API does not know, or without a role, is kept as an event named after
//! the role (or its `type`).

mod message;

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, to_json, u64_at, Loaded};
use super::LoadError;
use crate::formats::shared::{self, opaque};
use crate::session::{Format, Message, Part, Role, Session};

/// OpenAI Chat Completions messages in the format registry.
pub struct OpenAiChat;

impl super::session_format::SessionFormat for OpenAiChat {
    fn format(&self) -> Format {
        Format::OPENAI_CHAT
    }

    fn description(&self) -> &'static str {
        "OpenAI Chat Completions messages: array, {messages}, request body, litellm completion log"
    }

    /// Any message with a string `role` and `content` or `tool_calls`: the catch-all shape,
    /// asked last.
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            i.get("role").is_some_and(Value::is_string)
                && (i.get("content").is_some() || i.get("tool_calls").is_some())
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::OPENAI_CHAT, loaded);
    let listing = shared::listing(loaded, &["messages"]);
    let has_message = listing
        .items
        .iter()
        .any(|i| i.value.get("role").is_some_and(Value::is_string));
    if !has_message {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no Chat Completions messages (objects with a `role`) found",
        ));
    }
    let mut pending = message::Pending::default();
    for item in &listing.items {
        message::push_item(&mut session, &mut pending, item);
    }
    if let Some(doc) = listing.wrapper {
        read_wrapper(&mut session, doc, &mut pending, listing.items.len());
    }
    Ok(session)
}

/// What a request body or completion log says around its messages.
fn read_wrapper(session: &mut Session, doc: &Value, pending: &mut message::Pending, count: usize) {
    session.source.records = count;
    let kwargs = doc.get("kwargs").unwrap_or(&Value::Null);
    session.model = str_at(doc, "model")
        .or_else(|| str_at(kwargs, "model"))
        .map(str::to_string);
    session.reported_window = u64_at(doc, "context_window").filter(|w| *w > 0);
    let tools = ["tools", "functions"]
        .iter()
        .find_map(|k| doc.get(*k).or_else(|| kwargs.get(*k)))
        .filter(|t| t.as_array().is_some_and(|a| !a.is_empty()));
    if let Some(tools) = tools {
        attach_tools(session, tools);
    }
    if let Some(response) = doc.get("response").filter(|r| r.is_object()) {
        push_response(session, doc, response, pending, count);
        session.source.records = count + 1;
    } else if let Some(error) = doc.get("error").filter(|e| !e.is_null()) {
        let mut msg = Message::new(Role::Event, count);
        msg.parts.push(opaque("error", error));
        session.push(msg);
        session.source.records = count + 1;
    }
}

/// Tool definitions as a text part of the leading system message (see the module doc).
fn attach_tools(session: &mut Session, tools: &Value) {
    let text = Part::text(to_json(tools));
    if let Some(first) = session
        .messages
        .first_mut()
        .filter(|m| matches!(m.role, Role::System | Role::Developer))
    {
        first.parts.push(text);
        return;
    }
    let mut msg = Message::new(Role::System, 0);
    msg.parts.push(text);
    session.messages.insert(0, msg);
    session.renumber();
}

/// The completion log's response: its first choice's message, with the request's usage.
fn push_response(
    session: &mut Session,
    doc: &Value,
    response: &Value,
    pending: &mut message::Pending,
    index: usize,
) {
    let choice = response
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("message"))
        .filter(|m| m.is_object());
    let Some(reply) = choice else {
        let mut msg = Message::new(Role::Event, index);
        msg.parts.push(opaque("response", response));
        session.push(msg);
        return;
    };
    let role = str_at(reply, "role")
        .and_then(Role::parse)
        .unwrap_or(Role::Assistant);
    let mut msg = Message::new(role, index);
    msg.parts = message::message_parts(reply, pending, index);
    msg.usage = response.get("usage").and_then(message::usage);
    msg.id = str_at(response, "id").map(str::to_string);
    msg.model = str_at(response, "model").map(str::to_string);
    let when = doc
        .get("timestamp")
        .and_then(Value::as_f64)
        .or_else(|| response.get("created").and_then(Value::as_f64));
    msg.timestamp = when.and_then(shared::iso_from_epoch);
    if msg.model.is_some() {
        session.model.clone_from(&msg.model);
    }
    session.push(msg);
}
