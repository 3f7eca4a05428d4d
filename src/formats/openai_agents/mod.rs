//! OpenAI Agents SDK run state: the JSON `RunState.to_json()`/`to_string()` writes
//! (openai-agents-python `src/agents/run_state.py`, snake_case keys) and `RunState.toJSON()`
//! (openai-agents-js `packages/agents-core/src/runState.ts`, camelCase keys): `$schemaVersion`,
//! `current_turn`, `current_agent`, `original_input`, `model_responses` (each with `output`
//! items and `usage`) and `generated_items` (run items wrapping a `raw_item`).
//!
//! Owns: reading that envelope. The history is the original input followed by the generated
//! items' raw items, read by `openai_responses`' item reader (JS items are put in its shape by
//! `items`); each model response's usage goes to the assistant message its output items
//! formed. A tool approval item (a pending approval of a call already in the history) is kept
//! as an event. It must not count tokens.

mod items;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde_json::Value;

use super::common::{str_at, Item, Loaded};
use super::openai_responses::{map_item, opaque, History, Mapped, Meta};
use super::LoadError;
use crate::session::{Format, Part, Role, Session};

/// The run state's keys in the Python (snake_case) or JS (camelCase) spelling.
struct Keys {
    original_input: &'static str,
    generated_items: &'static str,
    model_responses: &'static str,
    current_agent: &'static str,
    raw_item: &'static str,
}

const PYTHON: Keys = Keys {
    original_input: "original_input",
    generated_items: "generated_items",
    model_responses: "model_responses",
    current_agent: "current_agent",
    raw_item: "raw_item",
};

const JS: Keys = Keys {
    original_input: "originalInput",
    generated_items: "generatedItems",
    model_responses: "modelResponses",
    current_agent: "currentAgent",
    raw_item: "rawItem",
};

impl Keys {
    fn of(doc: &Value) -> Option<&'static Keys> {
        [&PYTHON, &JS]
            .into_iter()
            .find(|k| doc.get(k.generated_items).is_some() && doc.get(k.model_responses).is_some())
    }
}

/// The OpenAI Agents SDK run state in the format registry.
pub struct OpenAiAgents;

impl super::session_format::SessionFormat for OpenAiAgents {
    fn format(&self) -> Format {
        Format::OPENAI_AGENTS
    }

    fn description(&self) -> &'static str {
        "OpenAI Agents SDK run state (RunState.to_json / toJSON, Python or JS)"
    }

    /// `$schemaVersion` with the run state's items and responses in either spelling.
    fn sniff_document(&self, v: &Value) -> bool {
        v.get("$schemaVersion").is_some() && Keys::of(v).is_some()
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let doc = loaded.document();
    let Some((doc, keys)) = doc.and_then(|d| Some((d, Keys::of(d)?))) else {
        return Err(LoadError::not_session(
            &loaded.shown,
            "not an OpenAI Agents run state: expected an object with `$schemaVersion`, \
             `generated_items` (or `generatedItems`) and `model_responses` (or `modelResponses`)",
        ));
    };
    let mut history = History::new(super::start(Format::OPENAI_AGENTS, loaded));
    history.session.title = doc
        .get(keys.current_agent)
        .and_then(|a| str_at(a, "name"))
        .map(str::to_string);
    let inputs = original_input(&mut history, loaded, doc, keys);
    let generated = loaded.items(&[keys.generated_items]);
    history.session.source.records = inputs + generated.len();
    history.session.source.record_indices = (0..inputs + generated.len()).collect();
    let responses = Responses::of(doc.get(keys.model_responses));
    let mut current: Option<usize> = None;
    for item in &generated {
        let index = inputs + item.index;
        let Some(raw) = item.value.get(keys.raw_item).filter(|r| r.is_object()) else {
            history
                .session
                .skip(index + 1, format!("run item without `{}`", keys.raw_item));
            continue;
        };
        let raw = items::responses_item(raw);
        let meta = Meta {
            index,
            raw: item.range(),
            timestamp: None,
            id: str_at(&raw, "id"),
            model: None,
        };
        if let Some(r) = str_at(&raw, "id").and_then(|id| responses.by_id.get(id).copied()) {
            if current != Some(r) {
                responses.attach(&mut history, current);
                current = Some(r);
            }
        }
        match str_at(item.value, "type") {
            Some(kind @ ("tool_approval_item" | "mcp_approval_request_item")) => {
                history.push(Role::Event, vec![opaque(kind, item.value)], &meta);
            }
            _ => apply(&mut history, &raw, &meta),
        }
    }
    responses.attach(&mut history, current);
    Ok(history.finish())
}

/// The original input: a string (one user message) or a list of input items. Returns how many
/// records it holds (the generated items are numbered after them).
fn original_input(history: &mut History, loaded: &Loaded, doc: &Value, keys: &Keys) -> usize {
    match doc.get(keys.original_input) {
        Some(Value::String(text)) => {
            history.push(
                Role::User,
                vec![Part::text(text.as_str())],
                &Meta::default(),
            );
            1
        }
        Some(Value::Array(_)) => {
            let list: Vec<Item> = loaded.items(&[keys.original_input]);
            for item in &list {
                let raw = items::responses_item(item.value);
                let meta = Meta {
                    index: item.index,
                    raw: item.range(),
                    timestamp: None,
                    id: str_at(&raw, "id"),
                    model: None,
                };
                apply(history, &raw, &meta);
            }
            list.len()
        }
        _ => 0,
    }
}

/// Adds one Responses item; an item that maps to nothing the model sees (a message without
/// content) is reported as skipped rather than made an empty message.
fn apply(history: &mut History, raw: &Value, meta: &Meta) {
    let mapped = map_item(raw, meta.index);
    let empty = match &mapped {
        Mapped::Assistant(parts) | Mapped::Message(_, parts) => parts.is_empty(),
        Mapped::Compaction(_) | Mapped::Skip => false,
    };
    if empty {
        let kind = str_at(raw, "type").unwrap_or("item");
        let reason = format!("{kind} without content");
        history.session.skip(meta.index + 1, reason);
        return;
    }
    history.apply(mapped, meta);
}

/// The model responses: which response each output item id came from, and each one's usage.
struct Responses {
    by_id: HashMap<String, usize>,
    usage: Vec<Option<crate::session::Usage>>,
}

impl Responses {
    fn of(list: Option<&Value>) -> Responses {
        let list = list
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let mut by_id = HashMap::new();
        for (n, response) in list.iter().enumerate() {
            let outputs = response.get("output").and_then(Value::as_array);
            for id in outputs
                .into_iter()
                .flatten()
                .filter_map(|o| str_at(o, "id"))
            {
                by_id.entry(id.to_string()).or_insert(n);
            }
        }
        let usage = list
            .iter()
            .map(|r| r.get("usage").and_then(items::usage))
            .collect();
        Responses { by_id, usage }
    }

    /// Gives response `n`'s usage to the assistant message its items formed.
    fn attach(&self, history: &mut History, n: Option<usize>) {
        if let Some(usage) = n.and_then(|n| self.usage.get(n).cloned().flatten()) {
            history.attach_usage(usage);
        }
    }
}
