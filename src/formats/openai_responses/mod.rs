//! OpenAI Responses API items: a bare array of input items, a request body `{model,
//! instructions?, input}`, a response object `{output, usage}` (or both in one log record), or
//! JSON Lines of items.
//!
//! Owns: those envelopes. The item shapes live in `items`/`output` and the message-building
//! rule in `history`; Codex rollouts (`formats::codex`) reuse all three for their
//! `response_item` lines, so an item maps the same way in both formats.

mod history;
mod items;
mod output;

#[cfg(test)]
mod tests;

pub(super) use history::{History, Meta};
pub(super) use items::{map_item, opaque, Mapped};

use serde_json::Value;

use super::common::{str_at, u64_at, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Part, Role, Session, Usage};

/// OpenAI Responses items in the format registry.
pub struct OpenAiResponses;

impl super::session_format::SessionFormat for OpenAiResponses {
    fn format(&self) -> Format {
        Format::OPENAI_RESPONSES
    }

    fn description(&self) -> &'static str {
        "OpenAI Responses API input items"
    }

    /// Item types only Responses has, or its `input_`/`output_` content parts.
    fn sniff_messages(&self, probe: &[&Value]) -> bool {
        probe.iter().any(|i| {
            let item = matches!(
                str_at(i, "type"),
                Some(
                    "function_call"
                        | "function_call_output"
                        | "reasoning"
                        | "custom_tool_call"
                        | "custom_tool_call_output"
                        | "local_shell_call"
                        | "web_search_call"
                        | "compaction"
                )
            );
            let blocks = i.get("content").and_then(Value::as_array);
            item || blocks.into_iter().flatten().any(|b| {
                matches!(
                    str_at(b, "type"),
                    Some("input_text" | "output_text" | "input_image")
                )
            })
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut history = History::new(super::start(Format::OPENAI_RESPONSES, loaded));
    match loaded.document() {
        Some(Value::Array(_)) => add_items(&mut history, &loaded.items(&[]), 0, None),
        Some(doc @ Value::Object(_)) => envelope(&mut history, loaded, doc)?,
        Some(_) => {
            return Err(LoadError::not_session(
                &loaded.shown,
                "expected an array of Responses items or an object with `input` or `output`",
            ))
        }
        None => add_items(&mut history, &loaded.lines(), 0, None),
    }
    Ok(history.finish())
}

/// Adds items in order; `offset` is added to their positions (the output array of a record
/// that also holds the input continues its numbering).
fn add_items(history: &mut History, items: &[Item], offset: usize, model: Option<&str>) {
    for item in items {
        let index = item.index + offset;
        let meta = Meta {
            index,
            raw: item.range(),
            timestamp: None,
            id: str_at(item.value, "id"),
            model,
        };
        history.apply(map_item(item.value, index), &meta);
    }
}

/// A request body, a response object, a log record holding both, or one bare item.
fn envelope(history: &mut History, loaded: &Loaded, doc: &Value) -> Result<(), LoadError> {
    let input = doc.get("input");
    let output = doc.get("output").filter(|o| o.is_array());
    if input.is_none() && output.is_none() {
        if str_at(doc, "type").is_some() || doc.get("role").is_some() {
            let one = [Item {
                index: 0,
                range: loaded.lines().first().and_then(|l| l.range),
                value: doc,
            }];
            add_items(history, &one, 0, None);
            return Ok(());
        }
        return Err(LoadError::not_session(
            &loaded.shown,
            "a JSON object without `input` or `output` items",
        ));
    }
    let model = str_at(doc, "model");
    history.session.model = model.map(str::to_string);
    if str_at(doc, "object") == Some("response") {
        history.session.id = str_at(doc, "id").map(str::to_string);
    }
    instructions(history, doc.get("instructions"));
    let input_len = match input {
        Some(Value::String(text)) => {
            let meta = Meta::default();
            history.push(Role::User, vec![Part::text(text.as_str())], &meta);
            1
        }
        Some(Value::Array(list)) => {
            add_items(history, &loaded.items(&["input"]), 0, None);
            list.len()
        }
        _ => 0,
    };
    if output.is_some() {
        add_items(history, &loaded.items(&["output"]), input_len, model);
        if let Some(usage) = doc.get("usage").and_then(usage) {
            history.attach_usage(usage);
        }
    }
    Ok(())
}

/// `instructions`: a system message placed first (a string, or a list of input items).
fn instructions(history: &mut History, value: Option<&Value>) {
    let meta = Meta::default();
    match value {
        Some(Value::String(text)) if !text.is_empty() => {
            history.push(Role::System, vec![Part::text(text.as_str())], &meta);
        }
        Some(Value::Array(list)) => {
            for item in list {
                history.apply(map_item(item, 0), &meta);
            }
        }
        _ => {}
    }
}

/// Response `usage`: input includes cached tokens, reasoning is part of output.
fn usage(v: &Value) -> Option<Usage> {
    let input = u64_at(v, "input_tokens");
    let output = u64_at(v, "output_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input,
        output,
        cache_read: v
            .get("input_tokens_details")
            .and_then(|d| u64_at(d, "cached_tokens")),
        cache_write: None,
        reasoning: v
            .get("output_tokens_details")
            .and_then(|d| u64_at(d, "reasoning_tokens")),
        total: u64_at(v, "total_tokens"),
        input_includes_cache: true,
    })
}
