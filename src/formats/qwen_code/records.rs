//! Qwen Code chat records turned into messages.
//!
//! Owns: what each record of the active chain is to the model, after `ChatRecordingService`
//! (which writes them) and `buildApiHistoryFromConversation` (which rebuilds the model's
//! history from them on resume): a `user`, `assistant` or `tool_result` record carries the
//! Gemini `Content` sent or received (`message: {role, parts}`), read with Gemini CLI's part
//! reader; records sharing a uuid are one message, their parts in file order. A `system`
//! record is never sent: `chat_compression` is a compaction mark followed by its summary (the
//! first content of the `compressedHistory` the model goes on from), `slash_command` an event,
//! `custom_title` the session's title, and the others (`ui_telemetry`, `attribution_snapshot`,
//! `at_command`, `rewind`, …) are bookkeeping.

use serde_json::Value;

use crate::formats::common::{str_at, to_json, u64_at, Item};
use crate::formats::gemini_cli::{usage_metadata, Emitter};
use crate::session::{CompactionMark, Message, Part, Role, Session};

/// Reads the chain's records in order, remembering the calls still waiting for a result.
#[derive(Debug, Default)]
pub(super) struct Reader {
    parts: Emitter,
    pub title: Option<String>,
    pub model: Option<String>,
}

impl Reader {
    /// One chain entry: the records carrying one uuid, in file order.
    pub(super) fn read(&mut self, session: &mut Session, recs: &[&Item<'_>]) {
        let Some(first) = recs.first() else {
            return;
        };
        let v = first.value;
        match (str_at(v, "type"), str_at(v, "subtype")) {
            (Some("system"), Some("chat_compression")) => compression(session, first),
            (Some("system"), Some("slash_command")) => {
                session.push(event(recs, "slash_command"));
            }
            (Some("system"), Some("custom_title")) => {
                let title = v
                    .pointer("/systemPayload/customTitle")
                    .and_then(Value::as_str);
                if let Some(title) = title {
                    self.title = Some(title.to_string());
                }
            }
            (Some("system"), _) => {}
            (Some(kind @ ("user" | "assistant" | "tool_result")), _) => {
                self.turn(session, recs, kind)
            }
            (other, _) => {
                session.push(event(recs, other.unwrap_or("record")));
            }
        }
    }

    /// A record of the conversation: its `message`'s parts (of every record of the uuid).
    fn turn(&mut self, session: &mut Session, recs: &[&Item<'_>], kind: &str) {
        let mut msg = new_message(recs);
        let mut carried = false;
        for rec in recs {
            let Some(message) = rec.value.get("message") else {
                continue;
            };
            let Some(parts) = message.get("parts").filter(|p| p.is_array()) else {
                let why = format!("a Qwen Code {kind} record whose message holds no `parts` list");
                session.skip(rec.index + 1, why);
                continue;
            };
            carried = true;
            msg.parts
                .extend(self.parts.content_parts(Some(parts), rec.index));
            if let Some(usage) = usage_metadata(rec.value.get("usageMetadata")) {
                msg.usage = Some(usage);
            }
            if msg.model.is_none() {
                msg.model = str_at(rec.value, "model").map(str::to_string);
            }
        }
        let line = recs.first().map_or(0, |r| r.index) + 1;
        if !carried {
            if recs.iter().all(|r| r.value.get("message").is_none()) {
                session.skip(
                    line,
                    format!("a Qwen Code {kind} record without its message"),
                );
            }
            return;
        }
        if msg.parts.is_empty() {
            session.skip(line, format!("a Qwen Code {kind} record with no parts"));
            return;
        }
        match kind {
            "assistant" => {
                msg.role = Role::Assistant;
                self.parts.remember_calls(&msg);
                if msg.model.is_some() {
                    self.model.clone_from(&msg.model);
                }
            }
            "tool_result" => {
                msg.role = Role::Tool;
                statuses(&mut msg, recs);
            }
            _ => {
                msg.role = if msg.holds_only_tool_results() {
                    Role::Tool
                } else {
                    Role::User
                };
            }
        }
        session.push(msg);
    }
}

/// A tool result's error flag from the recorded `toolCallResult.status` of its call, where
/// the response itself does not say (`{error}` in the response marks one).
fn statuses(msg: &mut Message, recs: &[&Item<'_>]) {
    for rec in recs {
        let Some(result) = rec.value.get("toolCallResult") else {
            continue;
        };
        let (Some(id), Some(status)) = (str_at(result, "callId"), str_at(result, "status")) else {
            continue;
        };
        for part in &mut msg.parts {
            if let Part::ToolResult {
                call_id, is_error, ..
            } = part
            {
                if call_id == id && is_error.is_none() {
                    *is_error = match status {
                        "error" => Some(true),
                        "success" => Some(false),
                        _ => None,
                    };
                }
            }
        }
    }
}

/// A `chat_compression` record: the mark (the prompt's token count before and after, as
/// `info` records them), then the summary the compressed history starts with.
fn compression(session: &mut Session, item: &Item<'_>) {
    let Some(payload) = item.value.get("systemPayload").filter(|p| p.is_object()) else {
        return session.skip(
            item.index + 1,
            "a Qwen Code chat compression record without its payload",
        );
    };
    let info = payload.get("info");
    let summary = payload
        .get("compressedHistory")
        .and_then(Value::as_array)
        .and_then(|h| h.first())
        .filter(|c| str_at(c, "role") == Some("user"))
        .map(content_text)
        .filter(|t| !t.is_empty());
    session.mark(CompactionMark {
        kind: "chat_compression".to_string(),
        source_index: item.index,
        before_message: 0,
        trigger: None,
        pre_tokens: info.and_then(|i| u64_at(i, "originalTokenCount")),
        post_tokens: info.and_then(|i| u64_at(i, "newTokenCount")),
        summary: summary.clone(),
    });
    if let Some(text) = summary {
        let mut msg = new_message(&[item]);
        msg.parts.push(Part::Summary { text });
        session.push(msg);
    }
}

/// The text parts of a `Content`, joined.
fn content_text(content: &Value) -> String {
    let parts = content.get("parts").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter_map(|p| str_at(p, "text"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A user-role message of the records `recs` (the first one's position, time and uuid).
fn new_message(recs: &[&Item<'_>]) -> Message {
    let first = recs.first();
    let mut msg = Message::new(Role::User, first.map_or(0, |r| r.index));
    msg.source_indices = recs.iter().map(|r| r.index).collect();
    msg.raw = first.and_then(|r| r.range());
    msg.timestamp = first.and_then(|r| str_at(r.value, "timestamp").map(str::to_string));
    msg.id = first.and_then(|r| str_at(r.value, "uuid").map(str::to_string));
    msg
}

/// A record shown but never sent: kept as one opaque part.
fn event(recs: &[&Item<'_>], kind: &str) -> Message {
    let mut msg = new_message(recs);
    msg.role = Role::Event;
    if let Some(first) = recs.first() {
        msg.parts.push(Part::Opaque {
            kind: kind.to_string(),
            raw: to_json(first.value),
        });
    }
    msg
}
