//! pydantic-ai's own JSON (`ModelMessagesTypeAdapter.dump_json`) of the records the harness
//! reads: the stored records of a native pydantic-ai session, and for any other format the
//! records `common` builds, written field by field as pydantic-ai 2.62 dumps them.
//!
//! Owns: one JSON record per `Rec`, parts aligned with `Rec::parts` (a part pydantic-ai has no
//! type for is `null`, left out when written). Must not: decide what is kept.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::history::{Rec, SUMMARY_KEY};
use crate::session::{Format, Message, Part, Role, Session};

/// The records of `recs` as pydantic-ai JSON, in order.
pub fn records(session: &Session, recs: &[Rec]) -> Vec<Value> {
    // Tool names by call id, over the whole session (a later call of an id wins), made once
    // for every record.
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for m in &session.messages {
        for p in &m.parts {
            if let Part::ToolCall { id, name, .. } = p {
                names.insert(id, name);
            }
        }
    }
    recs.iter()
        .map(|r| match native(session, r) {
            Some(v) => v,
            None => synthesized(session, r, &names),
        })
        .collect()
}

/// The stored record of a native session.
fn native(session: &Session, r: &Rec) -> Option<Value> {
    if session.format != Format::PYDANTIC_AI {
        return None;
    }
    let first = r.messages.first().and_then(|&i| session.messages.get(i))?;
    let v: Value = serde_json::from_slice(&session.raw_record(first)?).ok()?;
    v.get("parts").is_some().then_some(v)
}

fn synthesized(session: &Session, r: &Rec, names: &BTreeMap<&str, &str>) -> Value {
    let messages: Vec<&Message> = r
        .messages
        .iter()
        .filter_map(|&i| session.messages.get(i))
        .collect();
    let time = messages
        .iter()
        .find_map(|m| m.timestamp.clone())
        .map_or(Value::Null, Value::String);
    let parts: Vec<Value> = messages
        .iter()
        .flat_map(|m| m.parts.iter().map(move |p| (*m, p)))
        .map(|(m, p)| match carried(m, p) {
            Some(v) => v,
            None => part(m.role, p, &time, names),
        })
        .collect();
    if r.request {
        return request(parts, time);
    }
    let usage = usage(r.input_tokens, r.output_tokens);
    let mut out = Map::new();
    out.insert("parts".into(), Value::Array(parts));
    out.insert("usage".into(), usage);
    out.insert("model_name".into(), json!(session.model));
    out.insert("timestamp".into(), time);
    out.insert("kind".into(), json!("response"));
    for key in [
        "provider_name",
        "provider_url",
        "provider_details",
        "provider_response_id",
        "finish_reason",
        "run_id",
        "conversation_id",
        "metadata",
        "workspace_ref",
        "history_digest",
        "failed_attempts",
    ] {
        out.insert(key.into(), Value::Null);
    }
    out.insert("state".into(), json!("complete"));
    Value::Object(out)
}

/// A summary or receipt of a message `replay` carried from a compacted history (see `common`).
fn carried(m: &Message, p: &Part) -> Option<Value> {
    if m.raw.is_some() || m.role == Role::Assistant {
        return None;
    }
    match p {
        Part::Summary { text } if !text.is_empty() => Some(json!({
            "content": text, "id": null, "provider_name": null, "provider_details": null,
            "metadata": { SUMMARY_KEY: true }, "part_kind": "compaction"
        })),
        Part::Text { text } if m.role == Role::User && super::common::is_receipt(text) => {
            Some(json!({
                "content": [{"content": text, "metadata": super::compacted::RECEIPT_META, "kind": "text-content"}],
                "timestamp": m.timestamp, "part_kind": "user-prompt"
            }))
        }
        _ => None,
    }
}

/// A `ModelRequest` with these parts and no instructions, run or metadata.
pub fn request(parts: Vec<Value>, timestamp: Value) -> Value {
    json!({
        "parts": parts, "timestamp": timestamp, "instructions": null, "kind": "request",
        "run_id": null, "conversation_id": null, "metadata": null, "state": "complete"
    })
}

fn usage(input: u64, output: u64) -> Value {
    json!({
        "input_tokens": input, "cache_write_tokens": 0, "cache_write_1h_tokens": 0,
        "cache_read_tokens": 0, "output_tokens": output, "output_reasoning_tokens": 0,
        "input_audio_tokens": 0, "cache_audio_read_tokens": 0, "output_audio_tokens": 0,
        "audio_seconds": 0.0, "details": {}, "cost": null
    })
}

/// `args` as the tool call holds them: the parsed JSON object, else the string as sent.
fn args(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::String(arguments.to_string()),
    }
}

fn part(role: Role, p: &Part, time: &Value, names: &BTreeMap<&str, &str>) -> Value {
    let assistant = role == Role::Assistant;
    match p {
        Part::Text { text } if assistant => json!({
            "content": text, "id": null, "provider_name": null, "provider_details": null,
            "citations": null, "part_kind": "text"
        }),
        Part::Text { text } if matches!(role, Role::System | Role::Developer) => json!({
            "content": text, "timestamp": time, "dynamic_ref": null, "scope": "conversation",
            "metadata": null, "part_kind": "system-prompt"
        }),
        Part::Text { text } => {
            json!({"content": text, "timestamp": time, "part_kind": "user-prompt"})
        }
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => json!({
            "tool_name": name, "args": args(arguments), "tool_call_id": id, "tool_kind": null,
            "id": null, "provider_name": null, "provider_details": null,
            "part_kind": if *server { "builtin-tool-call" } else { "tool-call" }
        }),
        Part::ToolResult {
            call_id, is_error, ..
        } => {
            let name = names.get(call_id.as_str()).copied().unwrap_or_default();
            let text = p.plain_text();
            match assistant {
                true => json!({
                    "tool_name": name, "content": text, "tool_call_id": call_id,
                    "timestamp": time, "provider_name": null, "part_kind": "builtin-tool-return"
                }),
                false => json!({
                    "tool_name": name, "content": text, "tool_call_id": call_id, "tool_kind": null,
                    "metadata": null, "timestamp": time,
                    "outcome": if *is_error == Some(true) { "failed" } else { "success" },
                    "retry": null, "part_kind": "tool-return"
                }),
            }
        }
        Part::Reasoning { text, .. } => json!({
            "content": text, "id": null, "signature": null, "provider_name": null,
            "provider_details": null, "part_kind": "thinking"
        }),
        Part::Summary { text } => {
            let own = text.strip_prefix(super::SUMMARY_PREFIX);
            let metadata = own.map(|_| json!({ SUMMARY_KEY: true }));
            json!({
                "content": own.unwrap_or(text), "id": null, "provider_name": null,
                "provider_details": null, "metadata": metadata, "part_kind": "compaction"
            })
        }
        Part::Image(img) if !assistant => json!({
            "content": [{"url": img.url.clone().unwrap_or_default(), "kind": "image-url"}],
            "timestamp": time, "part_kind": "user-prompt"
        }),
        Part::Image(_) | Part::Opaque { .. } => Value::Null,
    }
}
