//! Gemini CLI records and `Content`s turned into messages.
//!
//! Owns: what the model sees of each record, following Gemini CLI's own
//! `convertSessionToClientHistory`: a `user` record is a user turn (slash commands excepted); a
//! `gemini` record is a model turn whose parts are its `content` when that content already
//! holds function calls or thoughts (current recorder), else `thoughts` + `content` +
//! `toolCalls` (older recorder); the calls' results follow as one tool message. `info` and
//! `warning` records are UI-only; `error` records are shown as events. Checkpoints
//! (`Content[]`) use the same part conversion.

use std::collections::HashSet;

use serde_json::Value;

use super::parts::{media_or_text, result_content, thoughts, usage};
use super::recording::Rec;
use crate::formats::common::{arguments_text, str_at, to_json, Item};
use crate::session::{CompactionMark, Message, Part, Role, Session};

/// What a compression summary holds (Gemini CLI's compression prompt asks for it).
const SNAPSHOT_TAG: &str = "<state_snapshot>";

/// Converts records in order, remembering the calls still waiting for a result. Qwen Code,
/// which records the same Gemini `Content`s, reads its parts with it too.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    /// (id, name) of the last model turn's calls, for responses that carry no id.
    pending: Vec<(String, String)>,
}

impl Emitter {
    /// Message records (recording or legacy `.json`) into messages.
    pub(super) fn records(&mut self, session: &mut Session, recs: &[Rec]) {
        for (k, rec) in recs.iter().enumerate() {
            match str_at(rec.value, "type") {
                Some("user") => self.user(session, rec),
                Some("gemini") => self.gemini(session, rec, recs.get(k + 1)),
                Some("info" | "warning") => {}
                Some("error") => {
                    session.push(event(rec, "error"));
                }
                other => {
                    session.push(event(rec, other.unwrap_or("record")));
                }
            }
        }
    }

    /// A checkpoint's `Content[]` into messages.
    pub(super) fn contents(&mut self, session: &mut Session, items: &[Item]) {
        for item in items {
            let rec = Rec::from_item(item);
            let parts = self.parts(item.value.get("parts"), item.index, &mut Vec::new());
            match str_at(item.value, "role") {
                Some("user") => self.push_user(session, new_message(&rec), parts),
                Some("model") => {
                    let mut msg = new_message(&rec);
                    msg.role = Role::Assistant;
                    msg.parts = parts;
                    self.remember_calls(&msg);
                    session.push(msg);
                }
                other => {
                    session.push(event(&rec, other.unwrap_or("content")));
                }
            }
        }
    }

    fn user(&mut self, session: &mut Session, rec: &Rec) {
        let parts = self.parts(rec.value.get("content"), rec.first(), &mut Vec::new());
        if parts.is_empty() {
            return;
        }
        if is_command(&parts) {
            // Slash commands are recorded but never sent to the model.
            session.push(event(rec, "command"));
            return;
        }
        self.push_user(session, new_message(rec), parts);
    }

    /// A user turn: a compression summary becomes a `Summary` part after a mark; a turn of
    /// function responses only is a tool message.
    fn push_user(&mut self, session: &mut Session, mut msg: Message, parts: Vec<Part>) {
        let mut snapshot = None;
        msg.parts = parts
            .into_iter()
            .map(|p| match p {
                Part::Text { text } if text.contains(SNAPSHOT_TAG) => {
                    snapshot.get_or_insert_with(|| text.clone());
                    Part::Summary { text }
                }
                other => other,
            })
            .collect();
        if let Some(text) = snapshot {
            session.mark(CompactionMark {
                kind: "state_snapshot".to_string(),
                source_index: msg.source_index,
                before_message: 0,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
                summary: Some(text),
            });
        }
        let only_results = msg.holds_only_tool_results();
        msg.role = if only_results { Role::Tool } else { Role::User };
        session.push(msg);
    }

    fn gemini(&mut self, session: &mut Session, rec: &Rec, next: Option<&Rec>) {
        let calls = recorded_calls(rec);
        let msg = self.model_turn(rec, &calls);
        if let Some(model) = &msg.model {
            session.model = Some(model.clone());
        }
        self.remember_calls(&msg);
        if !msg.parts.is_empty() || msg.usage.is_some() {
            session.push(msg);
        }
        if let Some(results) = call_results(rec, &calls, next) {
            session.push(results);
        }
    }

    /// The model turn of a `gemini` record: its content when that already holds calls or
    /// thoughts, else thoughts + content + recorded calls.
    fn model_turn(&mut self, rec: &Rec, calls: &[(&Value, String)]) -> Message {
        let v = rec.value;
        let mut hints: Vec<(String, String)> = calls
            .iter()
            .map(|(c, id)| (str_at(c, "name").unwrap_or("").to_string(), id.clone()))
            .collect();
        let content = self.parts(v.get("content"), rec.first(), &mut hints);
        let current = content
            .iter()
            .any(|p| matches!(p, Part::ToolCall { .. } | Part::Reasoning { .. }));
        let mut msg = new_message(rec);
        msg.role = Role::Assistant;
        if !current {
            msg.parts.extend(thoughts(v.get("thoughts")));
        }
        msg.parts.extend(content);
        if !current {
            msg.parts.extend(calls.iter().map(|(c, id)| Part::ToolCall {
                id: id.clone(),
                name: str_at(c, "name").unwrap_or("").to_string(),
                arguments: arguments_text(c.get("args")),
                server: false,
            }));
        }
        msg.usage = usage(v.get("tokens"));
        msg.model = str_at(v, "model").map(str::to_string);
        msg
    }

    /// The parts of a Gemini `Content`'s `parts` (or any `PartListUnion`) recorded at line
    /// `index`: calls keep their ids; a response without one answers the call of its name that
    /// the last model turn given to [`Emitter::remember_calls`] made.
    pub(crate) fn content_parts(&mut self, parts: Option<&Value>, index: usize) -> Vec<Part> {
        self.parts(parts, index, &mut Vec::new())
    }

    /// Remembers a model turn's calls, for the responses that follow it.
    pub(crate) fn remember_calls(&mut self, msg: &Message) {
        self.pending = msg
            .client_calls()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect();
    }

    /// The parts of a `PartListUnion` (a string, one part, or a list). `hints` are the
    /// (name, id) of recorded calls, given to function calls in the content that have no id.
    fn parts(
        &mut self,
        content: Option<&Value>,
        index: usize,
        hints: &mut Vec<(String, String)>,
    ) -> Vec<Part> {
        match content {
            Some(Value::String(text)) if !text.is_empty() => vec![Part::text(text.clone())],
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(n, p)| self.part(p, index, n, hints))
                .collect(),
            Some(p @ Value::Object(_)) => vec![self.part(p, index, 0, hints)],
            _ => Vec::new(),
        }
    }

    fn part(
        &mut self,
        p: &Value,
        index: usize,
        n: usize,
        hints: &mut Vec<(String, String)>,
    ) -> Part {
        if let Some(text) = p.as_str() {
            return Part::text(text);
        }
        if let Some(call) = p.get("functionCall") {
            let name = str_at(call, "name").unwrap_or("");
            let id = str_at(call, "id")
                .map(str::to_string)
                .or_else(|| take_by_name(hints, name))
                .unwrap_or_else(|| format!("{index}:{n}"));
            return Part::ToolCall {
                id,
                name: name.to_string(),
                arguments: arguments_text(call.get("args")),
                server: false,
            };
        }
        if let Some(response) = p.get("functionResponse") {
            let name = str_at(response, "name").unwrap_or("");
            let call_id = str_at(response, "id")
                .map(str::to_string)
                .or_else(|| {
                    let pos = self.pending.iter().position(|(_, n)| n == name)?;
                    Some(self.pending.remove(pos).0)
                })
                .unwrap_or_else(|| format!("{index}:{n}"));
            let body = response.get("response");
            return Part::ToolResult {
                call_id,
                content: body
                    .map(|b| vec![Part::text(to_json(b))])
                    .unwrap_or_default(),
                is_error: body.and_then(|b| b.get("error")).map(|_| true),
            };
        }
        media_or_text(p)
    }
}

/// The `toolCalls` of a record with their ids (a stable one made up where the id is missing).
fn recorded_calls<'a>(rec: &Rec<'a>) -> Vec<(&'a Value, String)> {
    let index = rec.first();
    let calls: &'a [Value] = rec
        .value
        .get("toolCalls")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    calls
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let id = str_at(c, "id").map_or_else(|| format!("{index}:t{n}"), str::to_string);
            (c, id)
        })
        .collect()
}

/// The recorded results of a turn's calls, as one tool message; results the next record
/// already holds as function responses are left to it.
fn call_results(rec: &Rec, calls: &[(&Value, String)], next: Option<&Rec>) -> Option<Message> {
    let answered = response_ids(next);
    let mut msg = new_message(rec);
    msg.role = Role::Tool;
    for (call, id) in calls {
        if answered.contains(id.as_str()) {
            continue;
        }
        let Some(result) = call.get("result").filter(|r| !r.is_null()) else {
            continue;
        };
        msg.parts.push(Part::ToolResult {
            call_id: id.clone(),
            content: result_content(result),
            is_error: match str_at(call, "status") {
                Some("error") => Some(true),
                Some("success") => Some(false),
                _ => None,
            },
        });
    }
    (!msg.parts.is_empty()).then_some(msg)
}

fn take_by_name(hints: &mut Vec<(String, String)>, name: &str) -> Option<String> {
    let pos = hints.iter().position(|(n, _)| n == name)?;
    Some(hints.remove(pos).1)
}

/// Ids of the function responses in the next record when it is a user turn: the current
/// recorder's `$set.messages` holds those turns as well as the calls' recorded results.
fn response_ids<'a>(next: Option<&Rec<'a>>) -> HashSet<&'a str> {
    let Some(next) = next.filter(|r| str_at(r.value, "type") == Some("user")) else {
        return HashSet::new();
    };
    next.value
        .get("content")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("functionResponse").and_then(|r| str_at(r, "id")))
                .collect()
        })
        .unwrap_or_default()
}

/// A user turn that is a slash command (`/…`) or help (`?…`): Gemini CLI never sends these.
fn is_command(parts: &[Part]) -> bool {
    let mut text = String::new();
    for part in parts {
        match part {
            Part::Text { text: t } => text.push_str(t),
            _ => return false,
        }
    }
    let text = text.trim_start();
    text.starts_with('/') || text.starts_with('?')
}

fn new_message(rec: &Rec) -> Message {
    let mut msg = Message::new(Role::User, rec.first());
    msg.source_indices = rec.indices.clone();
    msg.raw = rec.range.clone();
    msg.timestamp = str_at(rec.value, "timestamp").map(str::to_string);
    msg.id = str_at(rec.value, "id").map(str::to_string);
    msg
}

/// A record shown but never sent: kept as one opaque part.
fn event(rec: &Rec, kind: &str) -> Message {
    let mut msg = new_message(rec);
    msg.role = Role::Event;
    msg.parts.push(Part::Opaque {
        kind: kind.to_string(),
        raw: to_json(rec.value),
    });
    msg
}
