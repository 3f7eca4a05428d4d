//! Anthropic Messages API: a request body `{model, system?, messages, tools?}`, `{"messages":
//! [...]}`, a bare messages array, a single response object, or JSONL with one message per
//! line. Blocks are mapped in `blocks`.
//!
//! Owns: the message level — roles (a user message of only `tool_result` blocks is a tool
//! message), usage of response objects (input excludes cache), and server-side compaction.
//! `system` becomes a leading system message (source index 0; its raw range is the system
//! blocks when it is a list). Tool definitions are rendered by Anthropic into the system prompt,
//! ahead of it: they are kept as a first text part (their compact JSON) of that message.
//! A record without a known role (a stream event, say) is kept as an event named after its
//! `type` (or role).
//!
//! Compaction: a `compaction` block (`{content, encrypted_content?}`) holds the summary that
//! replaces everything before it (the API drops earlier blocks). It becomes a `Summary` part,
//! and a mark of kind `compaction` lies before its message. When the message's usage has
//! `iterations`, `pre_tokens` is the context the compaction iteration read and `post_tokens`
//! the context of the next message iteration (each input + cache read + cache write).

pub(super) mod blocks;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, to_json, u64_at, Item, Loaded};
use super::LoadError;
use crate::formats::shared::{listing, opaque};
use crate::session::{CompactionMark, Format, Message, Part, Role, Session, Usage};

/// Anthropic Messages in the format registry.
pub struct Anthropic;

impl super::session_format::SessionFormat for Anthropic {
    fn format(&self) -> Format {
        Format::ANTHROPIC
    }

    fn description(&self) -> &'static str {
        "Anthropic Messages API: messages with content blocks, optional system"
    }

    /// Content blocks only Anthropic has (tool use and results, thinking, compaction), or
    /// image and document blocks with a `source` object (Chat uses `image_url`).
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            let blocks = i.get("content").and_then(Value::as_array);
            blocks
                .into_iter()
                .flatten()
                .any(|b| match str_at(b, "type") {
                    Some(
                        "tool_use" | "tool_result" | "thinking" | "redacted_thinking"
                        | "server_tool_use" | "compaction",
                    ) => true,
                    Some("image" | "document") => b.get("source").is_some_and(Value::is_object),
                    _ => false,
                })
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::ANTHROPIC, loaded);
    let listing = listing(loaded, &["messages"]);
    let has_message = listing
        .items
        .iter()
        .any(|i| i.value.get("role").is_some_and(Value::is_string));
    if !has_message {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no Anthropic messages (objects with a `role`) found",
        ));
    }
    if let Some(doc) = listing.wrapper {
        session.source.records = listing.items.len();
        session.model = str_at(doc, "model").map(str::to_string);
        push_system(&mut session, loaded, doc);
    }
    for item in &listing.items {
        push_message(&mut session, item);
    }
    Ok(session)
}

/// The request's `system` (string or text blocks) and `tools`, as one leading message.
fn push_system(session: &mut Session, loaded: &Loaded, doc: &Value) {
    let mut msg = Message::new(Role::System, 0);
    if let Some(tools) = doc
        .get("tools")
        .filter(|t| t.as_array().is_some_and(|a| !a.is_empty()))
    {
        msg.parts.push(Part::text(to_json(tools)));
    }
    match doc.get("system") {
        Some(Value::String(s)) if !s.is_empty() => msg.parts.push(Part::text(s.as_str())),
        Some(Value::Array(items)) => {
            msg.parts.extend(blocks::block_parts(items, 0));
            let ranges = loaded.items(&["system"]);
            if let (Some(first), Some(last)) = (ranges.first(), ranges.last()) {
                msg.raw = first.range.zip(last.range).map(|(a, b)| a.0..b.1);
            }
        }
        _ => {}
    }
    if !msg.parts.is_empty() {
        session.push(msg);
    }
}

fn push_message(session: &mut Session, item: &Item<'_>) {
    let v = item.value;
    let role = str_at(v, "role")
        .and_then(Role::parse)
        .filter(|_| v.is_object());
    let Some(role) = role else {
        let kind = str_at(v, "type")
            .or_else(|| str_at(v, "role"))
            .unwrap_or("unknown");
        let mut msg = Message::new(Role::Event, item.index);
        msg.parts.push(opaque(kind, v));
        msg.raw = item.range();
        session.push(msg);
        return;
    };
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.parts = match v.get("content") {
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => blocks::block_parts(items, item.index),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![opaque("content", other)],
    };
    let only_results = msg.holds_only_tool_results();
    if role == Role::User && only_results {
        msg.role = Role::Tool;
    }
    msg.usage = v.get("usage").and_then(usage);
    msg.id = str_at(v, "id").map(str::to_string);
    msg.model = str_at(v, "model").map(str::to_string);
    if msg.model.is_some() {
        session.model.clone_from(&msg.model);
    }
    for part in &msg.parts {
        if let Part::Summary { text } = part {
            let (pre, post) = v.get("usage").map_or((None, None), compaction_tokens);
            session.mark(CompactionMark {
                kind: "compaction".to_string(),
                source_index: item.index,
                before_message: 0,
                trigger: None,
                pre_tokens: pre,
                post_tokens: post,
                summary: Some(text.clone()),
            });
        }
    }
    session.push(msg);
}

/// Response usage: `input_tokens` excludes cache reads and writes.
fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "input_tokens");
    let output = u64_at(u, "output_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let details = u.get("output_tokens_details").unwrap_or(&Value::Null);
    Some(Usage {
        input,
        output,
        cache_read: u64_at(u, "cache_read_input_tokens"),
        cache_write: u64_at(u, "cache_creation_input_tokens"),
        reasoning: u64_at(details, "thinking_tokens"),
        total: None,
        input_includes_cache: false,
    })
}

/// Context before and after a server-side compaction, from `usage.iterations`.
fn compaction_tokens(u: &Value) -> (Option<u64>, Option<u64>) {
    let Some(iterations) = u.get("iterations").and_then(Value::as_array) else {
        return (None, None);
    };
    let context = |it: &Value| {
        let input = u64_at(it, "input_tokens")?;
        let read = u64_at(it, "cache_read_input_tokens").unwrap_or(0);
        Some(input + read + u64_at(it, "cache_creation_input_tokens").unwrap_or(0))
    };
    let Some(at) = iterations
        .iter()
        .position(|it| str_at(it, "type") == Some("compaction"))
    else {
        return (None, None);
    };
    let pre = iterations.get(at).and_then(context);
    let post = iterations
        .iter()
        .skip(at + 1)
        .find(|it| str_at(it, "type") == Some("message"))
        .and_then(context);
    (pre, post)
}
