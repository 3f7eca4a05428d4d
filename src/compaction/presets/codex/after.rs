//! The history Codex continues with after a local compaction: the `replacement_history` its
//! `compacted` rollout item carries — the initial context, the prior user messages, and the
//! summary as a user message — as Responses API message items.
//!
//! Owns: those items for a Codex source, and a rollout that reads back as that history (the
//! session's `session_meta` line, one `response_item` line per item, the `compacted` line).
//! Must not: decide which messages survive (the plan did).

use serde_json::{json, Value};

use super::super::wire;
use crate::compaction::after::{self, After};
use crate::compaction::apply;
use crate::compaction::plan::Plan;
use crate::session::{Format, Role, Session};

/// The compacted history of a Codex session; any other source gets the generic splice.
pub fn compacted(session: &Session, plan: &Plan, summary: Option<&str>) -> After {
    let Some(text) = summary.filter(|_| session.format == Format::CODEX) else {
        return after::generic(session, plan, summary);
    };
    let applied = apply::apply(session, plan, summary);
    let items: Vec<Value> = applied
        .messages
        .iter()
        .filter_map(|m| {
            let (role, kind) = match m.role {
                Role::User => ("user", "input_text"),
                Role::Developer => ("developer", "input_text"),
                Role::Assistant => ("assistant", "output_text"),
                _ => return None,
            };
            let text = wire::plain_text(m);
            (!text.is_empty()).then(|| {
                json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})
            })
        })
        .collect();
    let at = session
        .messages
        .iter()
        .rev()
        .find_map(|m| m.timestamp.clone())
        .unwrap_or_default();
    let mut lines: Vec<Value> = session_meta(session).into_iter().collect();
    lines.extend(
        items
            .iter()
            .map(|i| json!({"timestamp": at, "type": "response_item", "payload": i})),
    );
    lines.push(json!({
        "timestamp": at,
        "type": "compacted",
        "payload": {"message": text, "replacement_history": items},
    }));
    let mut bytes = Vec::new();
    for l in &lines {
        bytes.extend_from_slice(l.to_string().as_bytes());
        bytes.push(b'\n');
    }
    match after::from_jsonl(session, bytes, Format::CODEX) {
        Ok(mut after) => {
            after.persisted = Some(after.history.clone());
            after.history = Value::Array(items);
            after
        }
        Err(_) => after::generic(session, plan, summary),
    }
}

/// The rollout's `session_meta` line, when its first line is one.
fn session_meta(session: &Session) -> Option<Value> {
    let first = session.raw_first_line()?;
    let v: Value = serde_json::from_slice(&first).ok()?;
    (v.get("type").and_then(Value::as_str) == Some("session_meta")).then_some(v)
}
