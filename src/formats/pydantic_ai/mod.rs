//! pydantic-ai message history (`ModelMessagesTypeAdapter` JSON): a list of
//! `{kind: "request", parts, instructions?, timestamp}` and `{kind: "response", parts, usage,
//! model_name, ...}` records, bare, under `messages`, or one record per JSONL line.
//!
//! Owns: splitting a request into messages, and the instructions rule. `response` maps a
//! response record; `content` renders what the model is sent for each part.
//!
//! A request record becomes one message per run of consecutive parts of the same role, each
//! with the record's source index and raw range: `system-prompt` parts → system,
//! `user-prompt` parts and retry prompts without a tool → user, `tool-return` parts and retry
//! prompts for a tool (error results) → tool. This is how the providers' adapters regroup them
//! (system prompts together, tool results together) without merging across roles.
//!
//! Instructions are not history: pydantic-ai sends only one `instructions` string per request,
//! taken from the latest request (or the one before, when the latest holds only tool returns
//! or retry prompts — `Model._get_instructions`), placed before everything else. So one system
//! message holding that string comes first, with the source index of the request it came from.
//!
//! A `compaction` response part (provider-side compaction) becomes a summary part and a mark
//! of kind `compaction` before its message; pydantic-ai records no token figures for it. A
//! `compaction` request part with text (a summary pydantic-ai-harness inserted) is a summary part
//! of the user message it is sent as.

mod content;
mod response;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, Item, Loaded};
use super::LoadError;
use crate::formats::shared::{call_id, listing, opaque};
use crate::session::{Format, Message, Part, Role, Session};
use content::{retry_text, return_content, user_content};

/// pydantic-ai messages in the format registry.
pub struct PydanticAi;

impl super::session_format::SessionFormat for PydanticAi {
    fn format(&self) -> Format {
        Format::PYDANTIC_AI
    }

    fn description(&self) -> &'static str {
        "pydantic-ai ModelMessagesTypeAdapter JSON"
    }

    /// Requests and responses: a `kind` with `parts`.
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            matches!(str_at(i, "kind"), Some("request" | "response"))
                && i.get("parts").is_some_and(Value::is_array)
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::PYDANTIC_AI, loaded);
    let listing = listing(loaded, &["messages"]);
    let known = |i: &Item<'_>| matches!(kind(i), Some("request" | "response"));
    if !listing.items.iter().any(known) {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no pydantic-ai messages (`kind` request/response) found",
        ));
    }
    if listing.wrapper.is_some() {
        session.source.records = listing.items.len();
    }
    if let Some((item, text)) = instructions(&listing.items) {
        let mut msg = Message::new(Role::System, item.index);
        msg.raw = item.range();
        msg.parts.push(Part::text(text));
        session.push(msg);
    }
    for item in &listing.items {
        if session.id.is_none() {
            session.id = str_at(item.value, "conversation_id").map(str::to_string);
        }
        match kind(item) {
            Some("request") => push_request(&mut session, item),
            Some("response") => response::push_response(&mut session, item),
            other => {
                let mut msg = Message::new(Role::Event, item.index);
                msg.parts
                    .push(opaque(other.unwrap_or("unknown"), item.value));
                msg.raw = item.range();
                session.push(msg);
            }
        }
    }
    Ok(session)
}

fn kind<'a>(item: &Item<'a>) -> Option<&'a str> {
    str_at(item.value, "kind")
}

/// The instructions the next model request would send (`Model._get_instructions`).
fn instructions<'a>(items: &'a [Item<'a>]) -> Option<(&'a Item<'a>, &'a str)> {
    let mut requests = items.iter().rev().filter(|i| kind(i) == Some("request"));
    let latest = requests.next()?;
    let text_of = |i: &'a Item<'a>| str_at(i.value, "instructions").map(|t| (i, t));
    if let Some(found) = text_of(latest) {
        return Some(found).filter(|(_, t)| !t.is_empty());
    }
    let only_returns = latest
        .value
        .get("parts")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts
                .iter()
                .all(|p| matches!(str_at(p, "part_kind"), Some("tool-return" | "retry-prompt")))
        });
    if !only_returns {
        return None;
    }
    requests
        .next()
        .and_then(text_of)
        .filter(|(_, t)| !t.is_empty())
}

/// Pushes the messages of one request record (see the module doc for the split).
fn push_request(session: &mut Session, item: &Item<'_>) {
    let v = item.value;
    let record_time = str_at(v, "timestamp");
    let mut current: Option<Message> = None;
    let parts = v.get("parts").and_then(Value::as_array);
    for (n, part) in parts.into_iter().flatten().enumerate() {
        let (role, mapped) = request_part(part, item.index, n);
        let role = role
            .or_else(|| current.as_ref().map(|m| m.role))
            .unwrap_or(Role::User);
        if current.as_ref().is_some_and(|m| m.role != role) {
            if let Some(done) = current.take() {
                session.push(done);
            }
        }
        let msg = current.get_or_insert_with(|| {
            let mut m = Message::new(role, item.index);
            m.raw = item.range();
            m.timestamp = record_time
                .or_else(|| str_at(part, "timestamp"))
                .map(str::to_string);
            m
        });
        msg.parts.extend(mapped);
    }
    if let Some(done) = current {
        session.push(done);
    }
}

/// One request part: its role (None for an unknown part, which joins the current message)
/// and the parts it becomes.
fn request_part(part: &Value, index: usize, n: usize) -> (Option<Role>, Vec<Part>) {
    let kind = str_at(part, "part_kind").unwrap_or("unknown");
    match kind {
        "system-prompt" => (
            Some(Role::System),
            vec![Part::text(str_at(part, "content").unwrap_or_default())],
        ),
        "user-prompt" => (Some(Role::User), user_content(part.get("content"))),
        "tool-return" => (
            Some(Role::Tool),
            vec![Part::ToolResult {
                call_id: call_id(str_at(part, "tool_call_id"), index, n),
                content: return_content(part.get("content")),
                is_error: response::outcome_error(part),
            }],
        ),
        "retry-prompt" if str_at(part, "tool_name").is_some() => (
            Some(Role::Tool),
            vec![Part::ToolResult {
                call_id: call_id(str_at(part, "tool_call_id"), index, n),
                content: vec![Part::text(retry_text(part))],
                is_error: Some(true),
            }],
        ),
        "retry-prompt" => (Some(Role::User), vec![Part::text(retry_text(part))]),
        // A summary a compaction (pydantic-ai-harness) put in the history: sent as user text.
        "compaction" => match str_at(part, "content") {
            Some(text) if !text.is_empty() => (
                Some(Role::User),
                vec![Part::Summary {
                    text: text.to_string(),
                }],
            ),
            _ => (None, vec![opaque(kind, part)]),
        },
        _ => (None, vec![opaque(kind, part)]),
    }
}
