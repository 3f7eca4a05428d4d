//! The list `compact_history` returns, as LangChain's `messages_to_dict` serialises it:
//! `[*preserved, HumanMessage("[compacted history]\n" + summary), *kept]`.
//!
//! Owns: each message's dict — a LangChain record normalised as `messages_from_dict` then
//! `messages_to_dict` give it back (the class's fields in their order, defaults filled in, tool
//! calls as `tool_call` dicts), a message of any other format built from the common model —
//! and the inserted summary. Must not: decide the cut (the plan did).

use serde_json::{json, Map, Value};

use crate::compaction::after::{self, After};
use crate::compaction::plan::{surviving, Plan};
use crate::compaction::preset::PlanInput;
use crate::session::{Format, Message, Part, Role, Session};

/// Fields every message class dumps, in order, before the class's own.
const BASE: &[&str] = &[
    "content",
    "additional_kwargs",
    "response_metadata",
    "type",
    "name",
    "id",
];

/// The compacted history of `input`'s session under a fired `plan`, with `summary` inserted.
pub fn compacted(input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
    let session = input.session;
    input
        .read_back(dicts(session, plan, summary), Format::LANGCHAIN)
        .unwrap_or_else(|_| {
            let mut generic = after::generic(session, plan, summary);
            generic.history = dicts(session, plan, summary);
            generic.format = None;
            generic
        })
}

/// The list's dicts: the surviving messages', the summary's inserted.
fn dicts(session: &Session, plan: &Plan, summary: Option<&str>) -> Value {
    let native = session.format == Format::LANGCHAIN;
    let mut dicts: Vec<Value> = surviving(&plan.split)
        .into_iter()
        .filter_map(|i| session.messages.get(i))
        .filter_map(|m| {
            let record = native
                .then(|| session.raw_record(m))
                .flatten()
                .and_then(|raw| serde_json::from_slice::<Value>(&raw).ok());
            match record {
                Some(r) => Some(normalised(&r)),
                None => from_model(m),
            }
        })
        .collect();
    if let (Some(ins), Some(text)) = (&plan.insertion, summary) {
        let content = format!("{}{text}{}", ins.prefix, ins.suffix);
        let at = ins.position.min(dicts.len());
        dicts.insert(at, dict("human", Value::String(content), Map::new()));
    }
    Value::Array(dicts)
}

/// A record as `messages_to_dict(messages_from_dict([record]))` gives it back.
fn normalised(record: &Value) -> Value {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    let data = record.get("data").and_then(Value::as_object);
    let get = |k: &str| data.and_then(|d| d.get(k)).cloned();
    let mut own = Map::new();
    for (k, default) in class_fields(kind) {
        let v = get(k).unwrap_or_else(|| default.clone());
        let v = match k {
            "tool_calls" => tool_calls(&v),
            "invalid_tool_calls" => invalid_tool_calls(&v),
            "usage_metadata" => usage_metadata(&v),
            _ => v,
        };
        own.insert((*k).to_string(), v);
    }
    let mut out = dict(kind, get("content").unwrap_or(json!("")), own);
    if let Some(d) = out.get_mut("data").and_then(Value::as_object_mut) {
        for k in ["additional_kwargs", "response_metadata"] {
            if let Some(v) = get(k).filter(Value::is_object) {
                d.insert(k.into(), v);
            }
        }
        for k in ["name", "id"] {
            if let Some(v) = get(k) {
                d.insert(k.into(), v);
            }
        }
    }
    out
}

/// The fields a message class dumps after the base ones, with their defaults.
fn class_fields(kind: &str) -> Vec<(&'static str, Value)> {
    match kind {
        "ai" | "AIMessageChunk" => vec![
            ("tool_calls", json!([])),
            ("invalid_tool_calls", json!([])),
            ("usage_metadata", Value::Null),
        ],
        "tool" | "ToolMessageChunk" => vec![
            ("tool_call_id", json!("")),
            ("artifact", Value::Null),
            ("status", json!("success")),
        ],
        "chat" | "ChatMessageChunk" => vec![("role", json!(""))],
        _ => Vec::new(),
    }
}

/// Tool calls as LangChain's `tool_call()` builds them: name, args, id, type.
fn tool_calls(v: &Value) -> Value {
    let Some(calls) = v.as_array() else {
        return json!([]);
    };
    Value::Array(
        calls
            .iter()
            .map(|c| {
                json!({
                    "name": c.get("name").cloned().unwrap_or(json!("")),
                    "args": c.get("args").cloned().unwrap_or(json!({})),
                    "id": c.get("id").cloned().unwrap_or(Value::Null),
                    "type": "tool_call",
                })
            })
            .collect(),
    )
}

/// `UsageMetadata` with its keys, and its details' keys, in the order the TypedDicts declare
/// them (pydantic validates them into that order); keys they do not declare follow as they were.
fn usage_metadata(v: &Value) -> Value {
    let Some(obj) = v.as_object() else {
        return v.clone();
    };
    let top = [
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "input_token_details",
        "output_token_details",
    ];
    let details = |k: &str| -> &'static [&'static str] {
        match k {
            "input_token_details" => &["audio", "cache_creation", "cache_read"],
            "output_token_details" => &["audio", "reasoning"],
            _ => &[],
        }
    };
    let reorder = |o: &Map<String, Value>, keys: &[&str]| -> Map<String, Value> {
        let mut out = Map::new();
        for k in keys {
            if let Some(x) = o.get(*k) {
                out.insert((*k).to_string(), x.clone());
            }
        }
        for (k, x) in o {
            if !out.contains_key(k) {
                out.insert(k.clone(), x.clone());
            }
        }
        out
    };
    let mut out = reorder(obj, &top);
    for (k, x) in out.iter_mut() {
        if let Some(inner) = x.as_object() {
            *x = Value::Object(reorder(inner, details(k)));
        }
    }
    Value::Object(out)
}

/// Invalid tool calls as LangChain's `invalid_tool_call()` builds them.
fn invalid_tool_calls(v: &Value) -> Value {
    let Some(calls) = v.as_array() else {
        return json!([]);
    };
    let field = |c: &Value, k: &str| c.get(k).cloned().unwrap_or(Value::Null);
    Value::Array(
        calls
            .iter()
            .map(|c| {
                json!({
                    "type": "invalid_tool_call",
                    "id": field(c, "id"),
                    "name": field(c, "name"),
                    "args": field(c, "args"),
                    "error": field(c, "error"),
                })
            })
            .collect(),
    )
}

/// `{"type": kind, "data": {base fields…, own fields…}}` with empty kwargs and null name/id.
fn dict(kind: &str, content: Value, own: Map<String, Value>) -> Value {
    let mut data = Map::new();
    for k in BASE {
        let v = match *k {
            "content" => content.clone(),
            "additional_kwargs" | "response_metadata" => json!({}),
            "type" => json!(kind),
            _ => Value::Null,
        };
        data.insert((*k).to_string(), v);
    }
    data.extend(own);
    json!({"type": kind, "data": Value::Object(data)})
}

/// A message of another format as the LangChain message ctxray's view of it is (`lc`).
fn from_model(m: &Message) -> Option<Value> {
    let kind = match m.role {
        Role::System | Role::Developer => "system",
        Role::User => "human",
        Role::Assistant => "ai",
        Role::Tool => "tool",
        Role::Event => return None,
    };
    let lc = super::lc::messages_of(m)?;
    let mut own = Map::new();
    let mut out_kind = kind;
    match kind {
        "ai" => {
            let calls: Vec<Value> = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall {
                        id,
                        name,
                        arguments,
                        ..
                    } => Some(json!({
                        "name": name,
                        "args": serde_json::from_str::<Value>(arguments)
                            .unwrap_or_else(|_| Value::String(arguments.clone())),
                        "id": id,
                        "type": "tool_call",
                    })),
                    _ => None,
                })
                .collect();
            own.insert("tool_calls".into(), Value::Array(calls));
            own.insert("invalid_tool_calls".into(), json!([]));
            own.insert("usage_metadata".into(), Value::Null);
        }
        "human" if m.holds_only_tool_results() => out_kind = "tool",
        _ => {}
    }
    if out_kind == "tool" {
        let (call_id, error) = m
            .parts
            .iter()
            .find_map(|p| match p {
                Part::ToolResult {
                    call_id, is_error, ..
                } => Some((call_id.clone(), *is_error)),
                _ => None,
            })
            .unwrap_or_default();
        own.insert("tool_call_id".into(), json!(call_id));
        own.insert("artifact".into(), Value::Null);
        own.insert(
            "status".into(),
            json!(if error == Some(true) {
                "error"
            } else {
                "success"
            }),
        );
    }
    Some(dict(out_kind, lc.content.into_value(), own))
}
