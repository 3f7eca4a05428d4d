//! Cline and Roo Code task histories: `tasks/<taskId>/api_conversation_history.json`, a JSON
//! array of Anthropic-style messages `{role, content: [blocks]}`. Cline adds to assistant
//! messages `modelInfo {modelId, providerId, mode}`, `metrics {tokens {prompt, completion,
//! cached}, cost}`, `id` and `ts` (milliseconds since the epoch), and `call_id` to blocks; Roo Code adds `ts`.
//!
//! Owns: detection, the message level (roles, model, usage) and handing each message's parts
//! to `xml` (tool calls written in the assistant's text) and `results` (tool results written as
//! user text). Blocks are read as the Anthropic reader reads them.
//!
//! Followed: the bundled source of the Cline CLI 2.18.0 (npm `cline`, built from cline/cline
//! `src/core/task/index.ts` — `addToApiConversationHistory` with `metrics` — and
//! `src/core/task/tools/utils/ToolResultUtils.ts` — `pushToolResult`, `createToolResultBlock`).
//!
//! Usage: `metrics.tokens.prompt` is the provider handler's `inputTokens`, `cached` the sum of
//! its `cacheWriteTokens` and `cacheReadTokens` (kept as `cache_read`: the file does not split
//! them). Whether `inputTokens` includes the cache depends on the handler: the OpenAI-compatible
//! ones listed in [`INPUT_INCLUDES_CACHE`] pass `prompt_tokens` through unchanged (cache
//! included); Anthropic, Bedrock, Vertex, OpenAI native, OpenRouter and the others report input
//! without the cache.

mod results;
#[cfg(test)]
mod tests;
mod xml;

use serde_json::Value;

use super::anthropic::blocks;
use super::common::{str_at, u64_at, Item, Loaded};
use super::LoadError;
use crate::formats::shared::{iso_from_epoch, listing, opaque};
use crate::session::{Format, Message, Part, Role, Session, Usage};

/// Providers whose Cline handler records `prompt_tokens` with the cached tokens in it.
const INPUT_INCLUDES_CACHE: [&str; 7] = [
    "openai",
    "lmstudio",
    "fireworks",
    "requesty",
    "litellm",
    "deepseek",
    "hicap",
];

/// Cline / Roo Code in the format registry.
pub struct Cline;

impl super::session_format::SessionFormat for Cline {
    fn format(&self) -> Format {
        Format::CLINE
    }

    fn description(&self) -> &'static str {
        "Cline / Roo Code task history (api_conversation_history.json)"
    }

    /// Cline's `modelInfo` or `metrics.tokens` on a message, Roo Code's numeric `ts` on a
    /// message of content blocks, or a user text block of a tool result (`[name …] Result:`).
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|m| {
            let role = matches!(str_at(m, "role"), Some("user" | "assistant"));
            let blocks = m.get("content").and_then(Value::as_array);
            if !role || blocks.is_none() {
                return false;
            }
            let cline = m.get("modelInfo").is_some_and(Value::is_object)
                || m.pointer("/metrics/tokens").is_some_and(Value::is_object);
            let roo = m.get("ts").is_some_and(Value::is_u64);
            let result_text = str_at(m, "role") == Some("user")
                && blocks.into_iter().flatten().any(|b| {
                    str_at(b, "type") == Some("text")
                        && str_at(b, "text").is_some_and(|t| results::header(t).is_some())
                });
            cline || roo || result_text
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::CLINE, loaded);
    let listing = listing(loaded, &["messages"]);
    let has_message = listing
        .items
        .iter()
        .any(|i| i.value.get("role").is_some_and(Value::is_string));
    if !has_message {
        return Err(LoadError::not_session(
            &loaded.shown,
            "no Cline messages (objects with a `role`) found",
        ));
    }
    let mut pairing = results::Pairing::default();
    for item in &listing.items {
        let Some(mut msg) = message(&mut session, item) else {
            continue;
        };
        match msg.role {
            Role::Assistant => {
                if !msg.parts.iter().any(|p| matches!(p, Part::ToolCall { .. })) {
                    msg.parts = xml::calls(std::mem::take(&mut msg.parts), item.index);
                }
                pairing.expect(&msg);
            }
            Role::User => {
                msg.parts = pairing.answer(std::mem::take(&mut msg.parts), item.index);
                if msg.holds_only_tool_results() {
                    msg.role = Role::Tool;
                }
            }
            _ => {}
        }
        session.push(msg);
    }
    Ok(session)
}

/// One history item as a message; an item that is not one is reported and `None`.
fn message(session: &mut Session, item: &Item<'_>) -> Option<Message> {
    let v = item.value;
    let Some(role) = str_at(v, "role").and_then(Role::parse) else {
        session.skip(item.index + 1, "a history item without a known `role`");
        return None;
    };
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.parts = match v.get("content") {
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => blocks::block_parts(items, item.index),
        Some(Value::Null) | None => {
            session.skip(item.index + 1, "a message without `content`");
            return None;
        }
        Some(other) => vec![opaque("content", other)],
    };
    msg.id = str_at(v, "id").map(str::to_string);
    msg.timestamp = v
        .get("ts")
        .and_then(Value::as_u64)
        .and_then(|ms| iso_from_epoch(ms as f64 / 1000.0));
    msg.model = v
        .pointer("/modelInfo/modelId")
        .and_then(Value::as_str)
        .map(str::to_string);
    if msg.model.is_some() {
        session.model.clone_from(&msg.model);
    }
    let provider = v.pointer("/modelInfo/providerId").and_then(Value::as_str);
    msg.usage = v
        .pointer("/metrics/tokens")
        .and_then(|t| usage(t, provider));
    Some(msg)
}

/// `metrics.tokens {prompt, completion, cached}`; see the module doc for the cache.
fn usage(tokens: &Value, provider: Option<&str>) -> Option<Usage> {
    let input = u64_at(tokens, "prompt");
    let output = u64_at(tokens, "completion");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input,
        output,
        cache_read: u64_at(tokens, "cached"),
        cache_write: None,
        reasoning: None,
        total: None,
        input_includes_cache: provider.is_some_and(|p| INPUT_INCLUDES_CACHE.contains(&p)),
    })
}
